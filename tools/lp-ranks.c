/*
 * lp-ranks: ranks.tsv, each stage per process (rank) of a multi-process
 * run: wall-time instances, median, min and max of that process alone
 * (nsys nvtx_pushpop_trace), its kernel time per instance split into
 * communication (the comm class of operators.yaml) and compute (nsys
 * nvtx_kern_sum), and across the processes of a stage the straggler: the
 * one whose time outside communication is longest, with its gap.
 */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-ranks -c config.yaml -o operators.yaml [-k nvtx_kern_sum.csv] "
    "[-p procs.tsv] [-s pct] [nvtx_pushpop_trace.csv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct proc {		/* one stage in one process */
	char *pid;
	const char *dev;	/* its GPU (procs.tsv), NULL if not known */
	const char *why;	/* why not */
	long order;		/* its row in procs.tsv */
	double *dur;
	size_t n, cap;
	double kern, comm, launches;
	double med, work;
};

struct stage {
	const char *name;
	char *range;
	struct proc *p;
	size_t np, cap;
	struct lp_map *idx;	/* PID -> index in p */
};

struct st {
	struct stage *s;
	size_t n;
	const struct lp_ops *ops;
};

struct devs {			/* procs.tsv: each process's GPU */
	struct lp_map *idx;	/* PID -> row */
	char **dev;		/* NULL: not known */
	char **why;
};

static struct proc *
proc_of(struct stage *g, const char *pid)
{
	long i;

	if (!g->idx)
		g->idx = lp_map_new();
	if ((i = lp_map_get(g->idx, pid, -1)) >= 0)
		return &g->p[i];
	lp_map_put(g->idx, pid, (long)g->np);
	g->p = lp_grow(g->p, g->np, &g->cap, 16, sizeof *g->p);
	memset(&g->p[g->np], 0, sizeof g->p[0]);
	g->p[g->np].pid = lp_xstrdup(pid);
	return &g->p[g->np++];
}

static void
trace_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *pid = lp_rep_pid(rr, 2);
	double dur = lp_rep_time(rr, 0);	/* every row checked */
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct proc *p;

		if (!lp_nvtx_range_match(t->s[i].range, rr->v[1]))
			continue;
		p = proc_of(&t->s[i], pid);
		p->dur = lp_grow(p->dur, p->n, &p->cap, 16, sizeof *p->dur);
		p->dur[p->n++] = dur;
	}
}

static void
kern_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *pid = lp_rep_pid(rr, 3);
	double ns = lp_rep_time(rr, 0), launches = lp_rep_count(rr, 1);
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct proc *p;

		if (!lp_nvtx_range_match(t->s[i].range, rr->v[2]))
			continue;
		p = proc_of(&t->s[i], pid);
		p->kern += ns;
		p->launches += launches;
		if (lp_ops_is_comm(t->ops, rr->v[4]))
			p->comm += ns;
	}
}

/* Rows in procs.tsv's order (by GPU, then PID), whichever layout (one
 * report, one per rank) they came from; processes not there last, by PID. */
static int
by_proc(const void *x, const void *y)
{
	const struct proc *a = x, *b = y;

	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	if (strlen(a->pid) != strlen(b->pid))
		return strlen(a->pid) < strlen(b->pid) ? -1 : 1;
	return strcmp(a->pid, b->pid);
}

/* procs.tsv (lp-procs): each process's GPU, or why it is not known. */
static void
devs_load(struct devs *d, const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-procs, make RUN=... procs.tsv");
	int cp = lp_csv_need(&t.hdr, "pid", "lp-procs output");
	int cd = lp_csv_need(&t.hdr, "device", "lp-procs output");
	size_t n = 0;

	lp_tab_expect(&t, "lp-procs");
	d->idx = lp_map_new();
	while (lp_tab_next(&t)) {
		const char *dv = lp_tsv_get(&t, cd);
		int na = !*dv || !strncmp(dv, "n/a", 3);

		if (lp_map_get(d->idx, lp_tsv_get(&t, cp), -1) >= 0)
			lp_die_at(LP_EXIT_DATA, path, t.line, cp + 1, "process %s "
			    "twice", lp_tsv_get(&t, cp));
		lp_map_put(d->idx, lp_tsv_get(&t, cp), (long)n);
		d->dev = lp_xreallocarray(d->dev, n + 1, sizeof *d->dev);
		d->why = lp_xreallocarray(d->why, n + 1, sizeof *d->why);
		d->dev[n] = na ? NULL : lp_xstrdup(dv);
		d->why[n] = na ? lp_xstrdup(strncmp(dv, "n/a because ", 12) ? dv :
		    dv + 12) : NULL;
		n++;
	}
	lp_tsv_close(&t);
	fclose(fp);
}

static const struct lp_col cols[] = {
	{ "stage", "Stage", "text" }, { "pid", "Process", "text" },
	{ "device", "GPU", "text" },
	{ "instances", "Instances", "int" },
	{ "median_ns", "Median (ms)", "ms" },
	{ "min_ns", "Min (ms)", "ms" }, { "max_ns", "Max (ms)", "ms" },
	{ "kernel_ns", "Kernel time / inst. (ms)", "ms" },
	{ "comm_ns", "Communication / inst. (ms)", "ms" },
	{ "compute_ns", "Compute / inst. (ms)", "ms" },
	{ "comm_pct", "Communication share", "pct" },
	{ "busy_pct", "GPU busy", "pct" },
	{ "launches", "Launches / inst.", "num1" },
	{ "work_ns", "Outside communication (ms)", "ms" },
	{ "gap_ns", "Gap to fastest (ms)", "ms" },
	{ "straggler", "Straggler", "text" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

struct opts {
	const char *cpath, *opath, *kpath, *ppath, *tpath;
	double spct;
};

/* The stages and their NVTX ranges (config.yaml); names borrow from cfg. */
static void
load_stages(struct st *t, const struct lp_ynode *cfg, const char *cpath)
{
	t->s = lp_stage_table(cfg, cpath, &t->n, 0, sizeof *t->s,
	    offsetof(struct stage, name), offsetof(struct stage, range));
}

/* The instances' wall times and the kernel times, per stage and process. */
static void
load_reports(struct st *t, const char *tpath, const char *kpath)
{
	static const char *const tcols[] = { "Duration", "Name", "PID" };
	static const char *const kcols[] = { "Total Time", "Kern Inst",
		"NVTX Range", "PID", "Kernel Name" };

	if (tpath)
		lp_rep_file(tpath, "nsys stats --report nvtx_pushpop_trace", tcols,
		    3, trace_row, t);
	if (kpath)
		lp_rep_file(kpath, "nsys stats --report nvtx_kern_sum", kcols, 5,
		    kern_row, t);
}

/* Each process's GPU (or why not) and row order from procs.tsv; returns
 * the most processes a stage has. */
static size_t
place_procs(struct st *t, const struct devs *d, const char *ppath)
{
	size_t i, j, procs = 0;

	for (i = 0; i < t->n; i++) {
		procs = t->s[i].np > procs ? t->s[i].np : procs;
		for (j = 0; j < t->s[i].np; j++) {
			struct proc *p = &t->s[i].p[j];
			long k = ppath ? lp_map_get(d->idx, p->pid, -1) : -1;

			p->order = k >= 0 ? k : LONG_MAX;
			p->dev = k >= 0 ? d->dev[k] : NULL;
			p->why = k >= 0 ? d->why[k] : ppath ? "the process is not "
			    "in procs.tsv (it ran no kernel)" : "no procs.tsv "
			    "(lp-procs) given";
		}
		lp_qsort(t->s[i].p, t->s[i].np, sizeof *t->s[i].p, by_proc);
	}
	return procs;
}

static void
emit_meta(const struct opts *o, size_t procs)
{
	lp_tab_meta(out, "title", "Ranks: each stage per process");
	lp_tab_meta(out, "tool", "lp-ranks");
	lp_tab_meta(out, "source", "wall time of each process's instances "
	    "from nsys nvtx_pushpop_trace (%s); kernel time per process "
	    "from nsys nvtx_kern_sum (%s), communication = the comm classes "
	    "of %s; each process's GPU from %s", o->tpath ? o->tpath :
	    "missing", o->kpath ? o->kpath : "missing", o->opath, o->ppath ?
	    o->ppath : "missing");
	lp_tab_meta(out, "processes", "%zu", procs);
	if (procs < 2)
		lp_tab_meta(out, "omit", "one process: the stage table says it all");
	lp_tab_meta(out, "note", "Per instance: the process's kernel time "
	    "in the range over its instances. Outside communication = median "
	    "wall time - communication per instance: the ranks of a "
	    "collective wait for the slowest inside the communication "
	    "kernels, so the slowest rank is the one with most time outside "
	    "them. Straggler: that rank, when its gap to the fastest is at "
	    "least %g %% of its median.", o->spct);
	lp_tab_header(out, cols, NCOLS);
}

/* Each process's median and time outside communication; the shortest of
 * those (lo), the longest (hi) and its process (returned). */
static size_t
straggler(struct stage *g, double *lo, double *hi)
{
	size_t j, slow = 0;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (j = 0; j < g->np; j++) {
		struct proc *p = &g->p[j];

		p->med = p->n ? lp_median(p->dur, p->n) : NAN;
		p->work = p->n ? p->med - p->comm / (double)p->n : NAN;
		if (p->n && p->work < *lo)
			*lo = p->work;
		if (p->n && p->work > *hi) {
			*hi = p->work;
			slow = j;
		}
	}
	return slow;
}

/* The cells of a process's kernel time per instance: in all, split into
 * communication and compute, and how busy it kept the GPU. */
static void
kernel_cells(struct lp_row *r, const struct proc *p)
{
	double n = (double)p->n, wall = 0;
	size_t k;

	for (k = 0; k < p->n; k++)
		wall += p->dur[k];
	lp_row_num(r, p->kern / n, 1);
	lp_row_num(r, p->comm / n, 1);
	lp_row_num(r, (p->kern - p->comm) / n, 1);
	lp_row_share(r, p->comm, p->kern, "no kernel ran in the range");
	if (wall > 0 && 100 * p->kern / wall > 12800)
		lp_row_pct(r, 100 * p->kern / wall, 12800,
		    "GPU busy", "more kernel time than 128 "
		    "kernels at once fill in the ranges' wall "
		    "time: the reports are not of one capture");
	else if (wall > 0)
		lp_row_g(r, 100 * p->kern / wall);
	else
		lp_row_na(r, "the wall time is 0");
	lp_row_num(r, p->launches / n, 1);
}

/* A row per process of stage g; the straggler marked. */
static void
emit_stage(struct lp_row *r, struct stage *g, const struct opts *o)
{
	double lo, hi;
	size_t j, k, slow = straggler(g, &lo, &hi);

	for (j = 0; j < g->np; j++) {
		struct proc *p = &g->p[j];
		double lo2 = 0, hi2 = 0;

		lp_row_text(r, g->name);
		lp_row_text(r, p->pid);
		if (p->dev)
			lp_row_text(r, p->dev);
		else
			lp_row_na(r, "%s", p->why);
		if (!p->n) {
			lp_row_na(r, "the process has kernels in the range but "
			    "no instance in %s", o->tpath ? "nvtx_pushpop_trace" :
			    "a missing nvtx_pushpop_trace");
			lp_row_end_na(r, NCOLS, out);
			continue;
		}
		for (k = 0; k < p->n; k++) {
			lo2 = k && lo2 < p->dur[k] ? lo2 : p->dur[k];
			hi2 = k && hi2 > p->dur[k] ? hi2 : p->dur[k];
		}
		lp_row_num(r, (double)p->n, 0);
		lp_row_num(r, p->med, 1);
		lp_row_num(r, lo2, 0);
		lp_row_num(r, hi2, 0);
		if (!o->kpath) {
			for (k = 0; k < 6; k++)
				lp_row_na(r, "the run has no nvtx_kern_sum report");
			lp_row_na(r, "the run has no nvtx_kern_sum report");
			lp_row_text(r, "n/a");
			lp_row_text(r, "n/a");
		} else {
			kernel_cells(r, p);
			lp_row_num(r, p->work, 1);
			lp_row_num(r, p->work - lo, 1);
			if (g->np < 2)
				lp_row_text(r, "n/a: one process");
			else
				lp_row_text(r, j == slow && hi - lo >= o->spct /
				    100 * p->med ? "yes" : "no");
		}
		lp_row_end(r, out);
	}
}

static void
free_state(struct st *t, struct devs *d)
{
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		for (j = 0; j < t->s[i].np; j++) {
			free(t->s[i].p[j].pid);
			free(t->s[i].p[j].dur);
		}
		free(t->s[i].p);
		free(t->s[i].range);
		lp_map_free(t->s[i].idx);
	}
	for (i = 0; d->idx && i < lp_map_len(d->idx); i++) {
		free(d->dev[i]);
		free(d->why[i]);
	}
	free(d->dev);
	free(d->why);
	if (d->idx)
		lp_map_free(d->idx);
	free(t->s);
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, NULL, NULL, NULL, NULL, 10 };
	struct lp_ynode *cfg;
	struct lp_ops ops;
	struct devs d = { 0 };
	struct st t = { 0 };
	struct lp_row r = { 0 };
	size_t i, procs;
	int c;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "c:k:o:p:s:", synopsis)) != -1) {
		switch (c) {
		case 'c': o.cpath = optarg; break;
		case 'k': o.kpath = optarg; break;
		case 'o': o.opath = optarg; break;
		case 'p': o.ppath = optarg; break;
		case 's': o.spct = lp_strtopct(optarg, "-s"); break;
		}
	}
	if (!o.cpath || !o.opath || argc - optind > 1)
		lp_usage(synopsis);
	o.tpath = optind < argc ? argv[optind] : NULL;
	cfg = lp_yaml_load_path(o.cpath);
	lp_ops_load(&ops, o.opath);
	t.ops = &ops;
	if (o.ppath)
		devs_load(&d, o.ppath);
	load_stages(&t, cfg, o.cpath);
	load_reports(&t, o.tpath, o.kpath);
	procs = place_procs(&t, &d, o.ppath);

	emit_meta(&o, procs);
	for (i = 0; i < t.n; i++)
		emit_stage(&r, &t.s[i], &o);
	free_state(&t, &d);
	lp_sb_free(&r.b);
	lp_ops_free(&ops);
	lp_yaml_free(cfg);
	lp_tab_done(out);
	return 0;
}
