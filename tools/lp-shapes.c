/*
 * lp-shapes: the stage's kernels per launch configuration (kernel, grid,
 * block), with each one's own nsys time: the kernel launches of
 * cuda_gpu_trace that start inside the stage's GPU projection
 * (nvtx_gpu_proj_trace), checked against the stage's kernel summary.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-shapes -r RANGE -p nvtx_gpu_proj_trace.csv -k kernsum.csv "
    "[-d demangled.csv] [-g DEVICE] [-H hostside.tsv] [-P PID] "
    "[cuda_gpu_trace.csv]";

struct opts {
	const char *range, *ppath, *kpath, *dpath, *dev, *pid, *hpath;
};

struct win {
	double a, b;
};

#define HEADER "rank\tkernel\tgrid\tblock\ttotal_ns\tcalls\tavg_ns\tpct\t" \
	"cum_pct\tfirst_ns\n"

struct shape {
	long kern;		/* index into the trace's kernel names */
	char *grid, *block;
	double ns, n;
	double first;		/* the start of its first launch inside */
};

static struct {
	struct win *w;
	size_t nw;
	struct shape *s;
	size_t ns;
	struct lp_map *idx, *kidx;	/* shapes; trace kernel names */
	double *kns;			/* per trace kernel name */
	double total, out_ns;	/* out: kernels the summary does not list */
	long out_k;
	char *devs;			/* the first device seen inside */
	long ndev;
	const char *tfile;
	struct lp_sb key;	/* a launch's shape key, made per row */
} S;

static int
cmp_win(const void *a, const void *b)
{
	const struct win *x = a, *y = b;

	return x->a < y->a ? -1 : x->a > y->a;
}

static void
on_window(const struct lp_rep_row *rr, void *vctx)
{
	const struct opts *o = vctx;

	if (strcmp(rr->v[0], o->range) || (o->pid && *o->pid &&
	    strcmp(lp_rep_pid(rr, 3), o->pid)))
		return;
	S.w = lp_xreallocarray(S.w, S.nw + 1, sizeof *S.w);
	S.w[S.nw].a = lp_rep_time(rr, 1);
	S.w[S.nw].b = S.w[S.nw].a + lp_rep_time(rr, 2);
	S.nw++;
}

/* Sorted by start and merged where they overlap (instances of the range on
 * several threads). */
static void
windows(const struct opts *o)
{
	static const char *const cols[] = { "Name", "Projected Start",
		"Projected Duration", "?PID" };
	size_t i, m = 0;

	lp_rep_file(o->ppath, "nsys stats --report nvtx_gpu_proj_trace", cols,
	    4, on_window, (void *)o);
	if (!S.nw)
		return;
	qsort(S.w, S.nw, sizeof *S.w, cmp_win);
	for (i = 1; i < S.nw; i++)
		if (S.w[i].a <= S.w[m].b)
			S.w[m].b = fmax(S.w[m].b, S.w[i].b);
		else
			S.w[++m] = S.w[i];
	S.nw = m + 1;
}

/* Is t inside a span?  Binary search: a joined trace (several ranks'
 * exports one after the other) need not be sorted. */
static int
inside(double t)
{
	size_t lo = 0, hi = S.nw;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (S.w[mid].b < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < S.nw && S.w[lo].a <= t;
}

/* "(x, y, z)" of three fields, each cut at 30 bytes: as ncu writes a
 * grid or block.  Made by hand: printf's cost was a third of the tool's
 * on a 2 GB import, one row a launch. */
static void
dims(struct lp_sb *b, const char *const *v)
{
	size_t i;

	lp_sb_addc(b, '(');
	for (i = 0; i < 3; i++) {
		if (i)
			lp_sb_addn(b, ", ", 2);
		lp_sb_addn(b, v[i], strnlen(v[i], 30));
	}
	lp_sb_addc(b, ')');
}

/* The key of a launch's shape: its kernel's number, grid and block, each
 * after a 0x1f; *g and *bl: where grid and block begin in it. */
static void
shape_key(struct lp_sb *k, long kn, const char *const *v, size_t *g,
    size_t *bl)
{
	char num[24], *p = num + sizeof num;

	lp_sb_reset(k);
	do
		*--p = (char)('0' + kn % 10);
	while ((kn /= 10) > 0);
	lp_sb_addn(k, p, (size_t)(num + sizeof num - p));
	lp_sb_addc(k, '\x1f');
	*g = k->len;
	dims(k, v + 2);
	lp_sb_addc(k, '\x1f');
	*bl = k->len;
	dims(k, v + 5);
}

static void
on_kernel(const struct lp_rep_row *rr, void *vctx)
{
	const struct opts *o = vctx;
	struct lp_sb *k = &S.key;
	size_t g, bl;
	double t = lp_rep_time(rr, 0), d;
	long i, kn;

	if (!lp_rep_has(rr, 2) || !strncmp(rr->v[8], "[CUDA ", 6))
		return;		/* a copy or a set, not a kernel */
	if (!inside(t))
		return;
	if (o->dev && strcmp(rr->v[9], o->dev))
		return;
	if (!S.devs)
		S.devs = lp_xstrdup(rr->v[9]);
	else if (strcmp(S.devs, rr->v[9]) && !o->dev)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[9] + 1,
		    "kernels of two GPUs (%s, %s) start inside the GPU span of "
		    "\"%s\": name the stage's GPU with -g", S.devs, rr->v[9],
		    o->range);
	d = lp_rep_time(rr, 1);
	if ((kn = lp_map_get(S.kidx, rr->v[8], -1)) < 0) {
		kn = (long)lp_map_len(S.kidx);
		lp_map_put(S.kidx, rr->v[8], kn);
		S.kns = lp_xreallocarray(S.kns, (size_t)kn + 1, sizeof *S.kns);
		S.kns[kn] = 0;
	}
	shape_key(k, kn, rr->v, &g, &bl);
	if ((i = lp_map_get(S.idx, lp_sb_str(k), -1)) < 0) {
		i = (long)S.ns;
		lp_map_put(S.idx, lp_sb_str(k), i);
		S.s = lp_xreallocarray(S.s, S.ns + 1, sizeof *S.s);
		S.s[i].kern = kn;
		S.s[i].grid = lp_xstrndup(k->s + g, bl - 1 - g);
		S.s[i].block = lp_xstrdup(k->s + bl);
		S.s[i].ns = S.s[i].n = 0;
		S.s[i].first = t;
		S.ns++;
	}
	S.s[i].ns += d;
	S.s[i].n++;
	S.s[i].first = fmin(S.s[i].first, t);
	S.kns[kn] += d;
	S.total += d;
}

/* Each trace name's name in the kernel summary: itself, or with -d the
 * mangled one whose statistics match its demangled row's. */
static const char **
summary_names(const struct opts *o, const struct lp_ksum *ks)
{
	size_t nk = lp_map_len(S.kidx), i;
	const char **out = lp_xcalloc(nk + 1, sizeof *out);
	struct lp_ksum dks;
	struct lp_map *dn;
	const char *name;
	long *to;
	FILE *fp;

	for (i = 0; i < nk; i++)
		out[i] = lp_map_key(S.kidx, i);
	if (!o->dpath)
		return out;
	fp = lp_open_in(o->dpath, &name);
	lp_ksum_read(&dks, fp, name, o->range, o->pid);
	lp_close_in(fp);
	to = lp_ksum_pair(&dks, ks);
	dn = lp_map_new();
	for (i = 0; i < dks.n; i++)
		if (to[i] >= 0)
			lp_map_put(dn, dks.k[i].name, to[i]);
	for (i = 0; i < nk; i++) {
		long m = lp_map_get(dn, out[i], -1);

		if (m >= 0)
			out[i] = lp_xstrdup(ks->k[m].name);
	}
	free(to);
	lp_map_free(dn);
	lp_ksum_free(&dks);
	return out;
}

/* The trace's kernels inside the spans against the summary's.  A kernel
 * the summary does not list in the range (launched outside it, on another
 * stream or thread) is left out and counted; a listed kernel whose time
 * differs (1 %, or 1 us) makes the table unavailable, with why: its
 * launches cannot be told from others' by time.  Returns that reason. */
static char *
check(const struct opts *o, const struct lp_ksum *ks, const char **names)
{
	size_t nk = lp_map_len(S.kidx), i;
	double *got = lp_xcalloc(ks->n + 1, sizeof *got);
	struct lp_sb b = { 0 };

	for (i = 0; i < nk; i++) {
		long j = lp_map_get(ks->idx, names[i], -1);

		if (j < 0) {
			S.out_ns += S.kns[i];
			S.out_k++;
			S.kns[i] = -1;	/* its shapes are left out */
			continue;
		}
		got[j] += S.kns[i];
	}
	for (i = 0; i < ks->n && !b.len; i++)
		if (fabs(got[i] - ks->k[i].total_ns) > fmax(1e3, 0.01 *
		    ks->k[i].total_ns))
			lp_sb_printf(&b, "%s: %.0f ns start inside the GPU span of "
			    "\"%s\" (%s), %.0f ns in %s: other work overlaps the "
			    "stage on the GPU, or the files come from different "
			    "captures", ks->k[i].name, got[i], o->range, o->ppath,
			    ks->k[i].total_ns, o->kpath);
	free(got);
	return b.len ? lp_sb_steal(&b) : NULL;
}

/* A table without rows that says why: lp-topn selects kernels instead,
 * lp-roofline keeps a kernel's time whole. */
static void
unavailable(const char *why)
{
	FILE *out = lp_tab_out();

	lp_tab_meta(out, "tool", "lp-shapes");
	lp_tab_meta(out, "unavailable", "no launch configurations: %s", why);
	fputs(HEADER, out);
	lp_tab_done(out);
}

static int
cmp_shape(const void *a, const void *b)
{
	const struct shape *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->kern != y->kern ? (x->kern < y->kern ? -1 : 1) :
	    strcmp(x->grid, y->grid) ? strcmp(x->grid, y->grid) :
	    strcmp(x->block, y->block);
}

static void
emit(const struct opts *o, const char **names)
{
	FILE *out = lp_tab_out();
	struct lp_row r = { 0 };
	double cum = 0;
	size_t i, n;

	qsort(S.s, S.ns, sizeof *S.s, cmp_shape);
	S.total -= S.out_ns;
	lp_tab_meta(out, "tool", "lp-shapes");
	lp_tab_meta(out, "source", "nsys cuda_gpu_trace (%s): the kernel "
	    "launches that start inside the GPU projection of NVTX range %s "
	    "(%s, %zu span%s)%s%s%s%s", S.tfile, o->range, o->ppath, S.nw,
	    S.nw == 1 ? "" : "s", o->pid && *o->pid ? ", process " : "",
	    o->pid ? o->pid : "", S.devs ? ", GPU " : "", S.devs ? S.devs : "");
	lp_tab_meta(out, "range", "%s", o->range);
	lp_tab_meta(out, "check", "each kernel's time equals the range's in "
	    "%s (within 1 %%)", o->kpath);
	lp_tab_meta(out, "note", "A launch configuration is a kernel's grid and "
	    "block; pct is of all the stage's kernel time (%.0f ns)", S.total);
	if (S.out_k)
		lp_tab_meta(out, "note", "%ld kernels (%.0f ns) that start inside "
		    "the spans are left out: %s does not list them in the range "
		    "(launched outside it, on another stream or thread)", S.out_k,
		    S.out_ns, o->kpath);
	fputs(HEADER, out);
	for (i = 0, n = 0; i < S.ns; i++) {
		const struct shape *s = &S.s[i];
		double p = S.total > 0 ? 100 * s->ns / S.total : 0;

		if (S.kns[s->kern] < 0)
			continue;

		cum += p;
		lp_row_num(&r, (double)++n, 0);
		lp_row_text(&r, names[s->kern]);
		lp_row_text(&r, s->grid);
		lp_row_text(&r, s->block);
		lp_row_num(&r, s->ns, 0);
		lp_row_num(&r, s->n, 0);
		lp_row_num(&r, s->ns / s->n, 1);
		lp_row_g(&r, p);
		lp_row_g(&r, fmin(cum, 100));
		lp_row_num(&r, s->first, 0);
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
	lp_tab_done(out);
}

/* names: the trace's names, or copies where -d paired them */
static void
free_all(const char **names, struct lp_ksum *ks)
{
	size_t i, nk = lp_map_len(S.kidx);

	for (i = 0; i < nk; i++)
		if (names[i] != lp_map_key(S.kidx, i))
			free((char *)names[i]);
	free(names);
	for (i = 0; i < S.ns; i++) {
		free(S.s[i].grid);
		free(S.s[i].block);
	}
	free(S.s);
	free(S.w);
	free(S.kns);
	free(S.devs);
	lp_map_free(S.idx);
	lp_sb_free(&S.key);
	lp_map_free(S.kidx);
	lp_ksum_free(ks);
}

/* The range's windows on the GPU, the kernels of the trace (tpath, NULL:
 * stdin) inside them, and the summary's kernels (ks).  Returns why the
 * stage has no launch configurations (the caller frees it): no trace (nsys
 * stats wrote none), no GPU projection of the range, no kernel inside it;
 * else NULL. */
static char *
read_inputs(struct opts *o, const char *tpath, struct lp_ksum *ks)
{
	static const char *const cols[] = { "Start", "Duration", "GrdX", "GrdY",
		"GrdZ", "BlkX", "BlkY", "BlkZ", "Name", "?Device" };
	struct lp_sb b = { 0 };
	const char *name;
	FILE *fp;

	/* nsys stats writes no trace where the capture has no data for it:
	 * said, as a table without rows, and the tools fall back to kernels */
	if (access(o->ppath, F_OK) || (tpath && access(tpath, F_OK))) {
		lp_sb_printf(&b, "the run has no %s (nsys stats wrote none)",
		    access(o->ppath, F_OK) ? o->ppath : tpath);
		return lp_sb_steal(&b);
	}
	windows(o);
	if (!S.nw) {
		lp_sb_printf(&b, "%s has no GPU projection of NVTX range \"%s\"%s%s",
		    o->ppath, o->range, o->pid && *o->pid ? " in process " : "",
		    o->pid ? o->pid : "");
		return lp_sb_steal(&b);
	}
	S.tfile = tpath ? tpath : "<stdin>";
	lp_rep_file(tpath, "nsys stats --report cuda_gpu_trace", cols, 10,
	    on_kernel, o);
	fp = lp_open_in(o->kpath, &name);
	lp_ksum_read(ks, fp, name, o->range, o->pid);
	lp_close_in(fp);
	if (!S.ns) {
		lp_sb_printf(&b, "no kernel of %s starts inside the GPU span of "
		    "\"%s\" (%s)", S.tfile, o->range, o->ppath);
		return lp_sb_steal(&b);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct lp_ksum ks;
	const char **names;
	char *why;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "d:g:H:k:P:p:r:", synopsis)) != -1) {
		switch (c) {
		case 'd': o.dpath = optarg; break;
		case 'g': o.dev = *optarg ? optarg : NULL; break;
		case 'H': o.hpath = optarg; break;
		case 'k': o.kpath = optarg; break;
		case 'P': o.pid = optarg; break;
		case 'p': o.ppath = optarg; break;
		case 'r': o.range = optarg; break;
		}
	}
	if (!o.range || !o.ppath || !o.kpath || argc - optind > 1)
		lp_usage(synopsis);
	/* as lp-topn and lp-kernjoin: a stage whose kernels are not where
	 * the summary looks (graphs traced whole, another process) is said
	 * with its cause, not as a summary without rows */
	if (o.hpath)
		lp_ksum_check(o.hpath, o.range);
	S.idx = lp_map_new();
	S.kidx = lp_map_new();
	if ((why = read_inputs(&o, optind < argc ? argv[optind] : NULL, &ks))) {
		unavailable(why);
		free(why);
		return 0;
	}
	names = summary_names(&o, &ks);
	if ((why = check(&o, &ks, names))) {
		unavailable(why);
		free(why);
		free_all(names, &ks);
		return 0;
	}
	emit(&o, names);
	free_all(names, &ks);
	return 0;
}
