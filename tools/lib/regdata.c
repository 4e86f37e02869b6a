/*
 * What ncu measured of each NVTX region (range or app-range replay: one
 * result per range instance) and what nsys saw of the same ranges: the
 * kernels launched inside (nvtx_kern_sum) and each instance's span on the
 * GPU (nvtx_gpu_proj_trace).  A result belongs to the region its NVTX
 * stack ends in, or to the deepest region on that stack (NCCL and others
 * push ranges of their own inside ours).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

struct ctx {
	struct lp_rset *rs;
	const char *file;
	long part;
};

static void
inst_push(struct lp_rinsts *x, const struct lp_rinst *in)
{
	x->in = lp_grow(x->in, x->n, &x->cap, 16, sizeof *x->in);
	x->in[x->n++] = *in;
}

static void
result(const struct lp_ncu_result *r, void *vctx)
{
	struct ctx *c = vctx;
	struct lp_rset *rs = c->rs;
	char **stack;
	size_t ns = lp_ncu_nvtx_stack(r->nvtx, &stack), i, j;
	long best = -1;
	struct lp_rinst in;

	/* the deepest stack entry that is a region */
	for (i = ns; i-- > 0 && best < 0; )
		for (j = 0; j < rs->n; j++)
			if (lp_nvtx_range_match(rs->rg[j].nsys, stack[i])) {
				best = (long)j;
				break;
			}
	if (best < 0) {
		struct lp_sb b = { 0 };

		for (i = 0; i < ns; i++)
			lp_sb_printf(&b, "%s%s", i ? " > " : "", stack[i]);
		lp_die_at(LP_EXIT_DATA, c->file, r->line, 0, "a result in no "
		    "configured region (its NVTX stack: %s)%s", b.len ?
		    lp_sb_str(&b) : "empty", strcmp(r->kernel, "range") ? "; "
		    "this looks like a kernel-replay export, not a range one" : "");
	}
	lp_argv_free(stack, ns);
	memset(&in, 0, sizeof in);
	in.pid = lp_xstrdup(r->pid);
	in.device = lp_xstrdup(r->device);
	in.line = r->line;
	in.part = c->part;
	in.id = *r->id ? strtod(r->id, NULL) : 0;	/* whole: ncuin.c checked */
	in.gpu_ns = r->l.v[LP_M_TIME];
	in.have_sm = lp_launch_has(&r->l, LP_M_SM);
	in.sm = r->l.v[LP_M_SM];
	in.have_dram = lp_launch_has(&r->l, LP_M_DRAM);
	in.dram = r->l.v[LP_M_DRAM];
	in.have_bytes = lp_launch_bytes(&r->l, &in.bytes);
	lp_launch_flops(&r->l, &in.f);
	inst_push(&rs->ncu[best], &in);
}

void
lp_rset_init(struct lp_rset *rs, const struct lp_ynode *cfg, const char *key,
    const char *file)
{
	memset(rs, 0, sizeof *rs);
	rs->n = lp_regions_get(cfg, key, &rs->rg, file);
	rs->ncu = lp_xcalloc(rs->n + 1, sizeof *rs->ncu);
	rs->nsys = lp_xcalloc(rs->n + 1, sizeof *rs->nsys);
	rs->kern_ns = lp_xcalloc(rs->n + 1, sizeof *rs->kern_ns);
	rs->kern_n = lp_xcalloc(rs->n + 1, sizeof *rs->kern_n);
	rs->nvtx_n = lp_xcalloc(rs->n + 1, sizeof *rs->nvtx_n);
}

void
lp_rset_load(struct lp_rset *rs, const char *cpath, const char *lpath)
{
	struct lp_ynode *cfg = lp_yaml_load_path(cpath);

	lp_rset_init(rs, cfg, "ncu_regions.regions", cpath);
	rs->cfg = cfg;
	lp_rset_ncu_list(rs, lpath);
}

static void
regtool_start(int argc, char **argv, const struct lp_regtool *t,
    struct lp_regopts *o, struct lp_rset *rs)
{
	int c;

	lp_start(argc, argv, t->synopsis);
	memset(o, 0, sizeof *o);
	o->ratio = 1.5;
	while ((c = lp_getopt(argc, argv, t->opts, t->synopsis)) != -1) {
		switch (c) {
		case 'c': o->cpath = optarg; break;
		case 'k': o->kpath = optarg; break;
		case 'l': o->lpath = optarg; break;
		case 'p': o->ppath = optarg; break;
		case 'w':
			o->ratio = lp_strtoratio(optarg, "-w");
			break;
		}
	}
	if (!o->cpath || !o->lpath || optind != argc)
		lp_usage(t->synopsis);
	lp_rset_load(rs, o->cpath, o->lpath);
	rs->no_rest = t->no_rest;
	lp_rset_nsys(rs, o->kpath, o->ppath);
}

int
lp_regtool_main(int argc, char **argv, const struct lp_regtool *t)
{
	struct lp_regopts o;
	struct lp_rset rs;
	struct lp_row r = { 0 };
	FILE *out;
	size_t j;

	regtool_start(argc, argv, t, &o, &rs);
	out = lp_tab_out();
	t->meta(out, &rs, &o);
	lp_tab_header(out, t->cols, t->ncols);
	for (j = 0; j < rs.n; j++)
		t->region(out, &r, &rs, j, &o);
	lp_sb_free(&r.b);
	lp_rset_free(&rs);
	lp_tab_done(out);
	return 0;
}

/* ncu numbers its results in the order it profiled them: a region's
 * instances in time order whatever the order of the export's rows (an
 * export without IDs keeps its rows' order). */
static int
by_id(const void *a, const void *b)
{
	const struct lp_rinst *x = a, *y = b;

	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

void
lp_rset_ncu(struct lp_rset *rs, const char *path)
{
	struct ctx c = { rs, path, rs->parts++ };
	FILE *fp = fopen(path, "r");
	size_t j;

	if (!fp)
		lp_die_sys("%s", path);
	lp_ncu_read(fp, path, result, &c);
	fclose(fp);
	for (j = 0; j < rs->n; j++)
		lp_qsort(rs->ncu[j].in, rs->ncu[j].n, sizeof *rs->ncu[j].in,
		    by_id);
}

/* Each line of the list names an export. */
void
lp_rset_ncu_list(struct lp_rset *rs, const char *list)
{
	FILE *fp = fopen(list, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int any = 0;

	if (!fp)
		lp_die_sys("%s", list);
	while ((n = lp_getline(&line, &cap, fp)) != -1) {
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (!*line)
			continue;
		lp_rset_ncu(rs, line);
		any = 1;
	}
	if (ferror(fp))
		lp_die_sys("%s", list);
	free(line);
	fclose(fp);
	if (!any)
		lp_die_at(LP_EXIT_DATA, list, 0, 0, "names no ncu export");
}

static long
which(const struct lp_rset *rs, const char *range)
{
	size_t j;

	for (j = 0; j < rs->n; j++)
		if (lp_nvtx_range_match(rs->rg[j].nsys, range))
			return (long)j;
	return -1;
}

static void
kern_row(const struct lp_rep_row *r, void *vctx)
{
	struct lp_rset *rs = vctx;
	long j = which(rs, r->v[2]);
	struct lp_sb key = { 0 };

	if (j < 0)
		return;
	rs->kern_ns[j] += lp_rep_time(r, 0);
	rs->kern_n[j] += lp_rep_count(r, 1);
	rs->have_kern = 1;
	/* NVTX Inst is the range's instances on that thread, repeated on
	 * each of its kernel rows: counted once per thread */
	lp_sb_printf(&key, "%ld\x1f%s\x1f%s", j, r->v[4], r->v[5]);
	if (lp_map_get(rs->seen, lp_sb_str(&key), 0) == 0) {
		lp_map_put(rs->seen, lp_sb_str(&key), 1);
		rs->nvtx_n[j] += lp_rep_count(r, 3);
	}
	lp_sb_free(&key);
}

/* nsys's instances in time order: by start, then the longer span first;
 * never by line, as the rows may come in any order. */
static int
earlier(const struct lp_rinst *x, const struct lp_rinst *y)
{
	if (x->start != y->start)
		return x->start < y->start;
	return x->gpu_ns > y->gpu_ns;
}

/* One nsys instance of region j in its process's earliest: the first of
 * the process or not, and kept while among the keep earliest. */
static void
proc_add(struct lp_rnsys *y, struct lp_rproc *p, const struct lp_rinst *in,
    int rest)
{
	size_t at = p->n;

	while (at > 0 && earlier(in, &p->in[at - 1]))
		at--;
	/* the steady state: every instance but the process's first */
	if (rest && at == 0 && p->n)
		lp_vals_add(&y->rest, p->in[0].gpu_ns);
	else if (rest && at > 0)
		lp_vals_add(&y->rest, in->gpu_ns);
	if (at >= y->keep)
		return;
	if (p->n < y->keep)
		p->n++;
	memmove(&p->in[at + 1], &p->in[at], (p->n - at - 1) * sizeof *p->in);
	p->in[at] = *in;
}

static void
proj_row(const struct lp_rep_row *r, void *vctx)
{
	struct lp_rset *rs = vctx;
	long j = which(rs, r->v[2]);
	const char *pid;
	struct lp_rnsys *y;
	struct lp_rinst in;
	size_t i;

	if (j < 0)
		return;
	memset(&in, 0, sizeof in);
	in.start = lp_rep_time(r, 0);
	in.gpu_ns = lp_rep_time(r, 1);
	pid = lp_rep_pid(r, 3);
	in.ops = lp_rep_has(r, 4) ? lp_rep_count(r, 4) : NAN;
	in.line = r->line;
	y = &rs->nsys[j];
	if (!y->idx)
		y->idx = lp_map_new();
	i = (size_t)lp_map_get(y->idx, pid, (long)y->np);
	if (i == y->np) {
		lp_map_put(y->idx, pid, (long)i);
		y->p = lp_xreallocarray(y->p, y->np + 1, sizeof *y->p);
		y->p[i].pid = lp_xstrdup(pid);
		y->p[i].in = lp_xcalloc(y->keep, sizeof *y->p[i].in);
		y->p[i].n = 0;
		y->np++;
	}
	proc_add(y, &y->p[i], &in, !rs->no_rest);
	y->n++;
	rs->have_proj = 1;
}

static int
by_first(const void *a, const void *b)
{
	const struct lp_rproc *x = a, *y = b;

	if (earlier(&x->in[0], &y->in[0]) || earlier(&y->in[0], &x->in[0]))
		return earlier(&x->in[0], &y->in[0]) ? -1 : 1;
	return strcmp(x->pid, y->pid);
}

/* Instances ncu measured in one process of region j, at most: nsys's
 * earliest as many of each process are kept to pair with them. */
static size_t
ncu_keep(const struct lp_rinsts *x)
{
	size_t a, b, k, keep = 1;

	for (a = 0; a < x->n; a++) {
		for (k = 0, b = 0; b < x->n; b++)
			k += !strcmp(x->in[a].pid, x->in[b].pid);
		if (k > keep)
			keep = k;
	}
	return keep;
}

void
lp_rset_nsys(struct lp_rset *rs, const char *kern_sum, const char *proj_trace)
{
	static const char *const kcols[] = { "Total Time", "Kern Inst",
		"NVTX Range", "NVTX Inst", "PID", "TID" };
	static const char *const pcols[] = { "Projected Start",
		"Projected Duration", "Name", "PID", "?NumGPUOps" };
	size_t j;

	if (kern_sum) {
		rs->seen = lp_map_new();
		lp_rep_file(kern_sum, "nsys stats --report nvtx_kern_sum", kcols,
		    6, kern_row, rs);
	}
	if (proj_trace) {
		for (j = 0; j < rs->n; j++)
			rs->nsys[j].keep = ncu_keep(&rs->ncu[j]);
		lp_rep_file(proj_trace, "nsys stats --report nvtx_gpu_proj_trace",
		    pcols, 5, proj_row, rs);
		for (j = 0; j < rs->n; j++) {
			lp_qsort(rs->nsys[j].p, rs->nsys[j].np,
			    sizeof *rs->nsys[j].p, by_first);
			if (rs->nsys[j].idx)
				lp_map_free(rs->nsys[j].idx);
			rs->nsys[j].idx = NULL;
		}
	}
}

void
lp_rset_free(struct lp_rset *rs)
{
	size_t j, i;

	for (j = 0; j < rs->n; j++) {
		for (i = 0; i < rs->ncu[j].n; i++) {
			free(rs->ncu[j].in[i].pid);
			free(rs->ncu[j].in[i].device);
		}
		for (i = 0; i < rs->nsys[j].np; i++) {
			free(rs->nsys[j].p[i].pid);
			free(rs->nsys[j].p[i].in);
		}
		free(rs->ncu[j].in);
		free(rs->nsys[j].p);
		lp_vals_free(&rs->nsys[j].rest);
	}
	free(rs->ncu);
	free(rs->nsys);
	free(rs->kern_ns);
	free(rs->kern_n);
	free(rs->nvtx_n);
	if (rs->seen)
		lp_map_free(rs->seen);
	lp_regions_free(rs->rg, rs->n);
	lp_yaml_free(rs->cfg);
	memset(rs, 0, sizeof *rs);
}

/* The first instance of each process and the median of the others (the
 * steady state); NAN where there is none.  Instances are in time order. */
double
lp_rinsts_steady(const struct lp_rinsts *x, double *first)
{
	double *f = lp_xcalloc(x->n + 1, sizeof *f), *r = lp_xcalloc(x->n + 1,
	    sizeof *r), med;
	size_t nf = 0, nr = 0, i, j;

	for (i = 0; i < x->n; i++) {
		int seen = 0;

		for (j = 0; j < i && !seen; j++)
			seen = !strcmp(x->in[j].pid, x->in[i].pid);
		if (seen)
			r[nr++] = x->in[i].gpu_ns;
		else
			f[nf++] = x->in[i].gpu_ns;
	}
	*first = lp_median(f, nf);
	med = lp_median(r, nr);
	free(f);
	free(r);
	return med;
}

/* The same of nsys's instances: the median of the rest, and of the
 * processes' firsts. */
double
lp_rnsys_steady(struct lp_rnsys *y, double *first)
{
	double *f = lp_xcalloc(y->np + 1, sizeof *f);
	size_t i;

	for (i = 0; i < y->np; i++)
		f[i] = y->p[i].in[0].gpu_ns;
	*first = lp_median(f, y->np);
	free(f);
	return lp_vals_median(&y->rest);
}
