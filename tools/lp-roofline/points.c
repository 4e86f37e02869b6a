/*
 * lp-roofline's points: the top kernels of kernels.tsv, or with -m their
 * launch shapes of metrics.tsv (a shape's devices together), and with -s
 * each point's nsys time in the stage from lp-shapes' launch
 * configurations, with the configurations ncu did not meet.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "run.h"
#include "roofline.h"

static struct k *
knew(struct points *p)
{
	p->ks = lp_xreallocarray(p->ks, p->nk + 1, sizeof *p->ks);
	memset(&p->ks[p->nk], 0, sizeof p->ks[p->nk]);
	return &p->ks[p->nk++];
}

static int
num(const struct lp_tsv *t, const char *col, double *v)
{
	int c = lp_csv_col(&t->hdr, col);
	double x;

	if (c < 0 || !lp_tab_num(t, c, &x))
		return 0;
	if (!isfinite(x) || x < 0)
		lp_die_at(LP_EXIT_DATA, t->file, t->line, c + 1, "%s: expected a "
		    "number from 0, got \"%s\"", col, lp_tsv_get(t, c));
	*v = x;
	return 1;
}

/* A point's values from a row: kernels.tsv's per-launch columns (sfx
 * "_per_launch", div 1) or metrics.tsv's sums (sfx "", div launches). */
static void
read_point(const struct lp_tsv *t, struct k *k, const char *sfx, double div)
{
	struct lp_sb b = { 0 };
	int q;

#define COL(x) (lp_sb_reset(&b), lp_sb_printf(&b, "%s%s", (x), sfx), \
	lp_sb_str(&b))
	k->have_ns = num(t, *sfx ? "ncu_ns_per_launch" : "gpu_time_ns", &k->ns);
	k->have_flop = num(t, COL("flops"), &k->flop);
	k->have_bytes = num(t, COL("dram_bytes"), &k->bytes);
	k->have_tensor = num(t, COL("flops_tensor"), &k->tensor);
	for (q = 0; q < LP_FP_N; q++) {
		lp_sb_reset(&b);
		lp_sb_printf(&b, "flops_%s%s", lp_fp_names[q], sfx);
		k->have_f[q] = num(t, lp_sb_str(&b), &k->f[q]);
		k->f[q] /= div;
	}
#undef COL
	k->ns /= div;
	k->flop /= div;
	k->bytes /= div;
	k->tensor /= div;
	k->metrics = k->have_ns && k->ns > 0;
	lp_sb_free(&b);
}

/* Another device's point x of l launches, same shape as k: launch-weighted
 * means. */
static void
mix_shape(struct k *k, const struct k *x, double l)
{
	int q;

#define MIX(v) (k->v = (k->v * k->launches + x->v * l) / (k->launches + l))
	MIX(ns);
	MIX(flop);
	MIX(bytes);
	MIX(tensor);
	for (q = 0; q < LP_FP_N; q++)
		MIX(f[q]);
#undef MIX
	k->have_flop &= x->have_flop;
	k->have_bytes &= x->have_bytes;
	k->have_tensor &= x->have_tensor;
	for (q = 0; q < LP_FP_N; q++)
		k->have_f[q] &= x->have_f[q];
	k->have_waves &= x->have_waves && x->waves == k->waves;
	k->launches += l;
}

void
points_read_shapes(const char *path, struct shapes *sh)
{
	struct lp_map *idx = lp_map_new();
	struct lp_tsv t;
	const char *name;
	FILE *fp = lp_open_in(path, &name);
	int ck, cl, cg, cb, cc, cw, cfn, csm, cps;

	lp_tsv_open(&t, fp, name);
	lp_tab_expect(&t, "lp-ncu2tsv");
	ck = lp_csv_need(&t.hdr, "kernel", "lp-ncu2tsv output");
	cl = lp_csv_need(&t.hdr, "launches", "lp-ncu2tsv output");
	lp_csv_need(&t.hdr, "gpu_time_ns", "lp-ncu2tsv output");
	cg = lp_csv_need(&t.hdr, "grid", "lp-ncu2tsv output");
	cb = lp_csv_need(&t.hdr, "block", "lp-ncu2tsv output");
	cc = lp_csv_need(&t.hdr, "ctas", "lp-ncu2tsv output");
	cw = lp_csv_need(&t.hdr, "waves", "lp-ncu2tsv output");
	csm = lp_csv_need(&t.hdr, "sm_count", "lp-ncu2tsv output");
	cps = lp_csv_need(&t.hdr, "ctas_per_sm", "lp-ncu2tsv output");
	cfn = lp_csv_need(&t.hdr, "flops_nontensor", "lp-ncu2tsv output");
	while (lp_tab_next(&t)) {
		struct lp_sb key = { 0 };
		struct k x = { 0 };
		double l, sms, per;
		long j;

		if (!lp_tab_num(&t, cl, &l) || !(l > 0))
			lp_die_at(LP_EXIT_DATA, name, t.line, cl + 1, "launches: "
			    "expected a number above 0");
		read_point(&t, &x, "", l);
		x.launches = l;
		x.have_launches = 1;
		x.have_ctas = lp_tab_num(&t, cc, &x.ctas);
		x.have_waves = lp_tab_num(&t, cw, &x.waves);
		/* the column keeps 2 decimals; a kernel of one CTA needs more */
		if (x.have_ctas && lp_tab_num(&t, csm, &sms) &&
		    lp_tab_num(&t, cps, &per) && sms * per > 0) {
			x.waves = x.ctas / (sms * per);
			x.have_waves = 1;
		}
		lp_sb_printf(&key, "%s\x1f%s\x1f%s\x1f%.17g\x1f%s", lp_tsv_get(&t,
		    ck), lp_tsv_get(&t, cg), lp_tsv_get(&t, cb), x.tensor,
		    lp_tsv_get(&t, cfn));
		j = lp_map_get(idx, lp_sb_str(&key), -1);
		if (j < 0) {
			sh->r = lp_xreallocarray(sh->r, sh->n + 1, sizeof *sh->r);
			j = (long)sh->n++;
			x.kernel = lp_xstrdup(lp_tsv_get(&t, ck));
			x.grid = lp_xstrdup(lp_tsv_get(&t, cg));
			x.block = lp_xstrdup(lp_tsv_get(&t, cb));
			sh->r[j] = x;
			lp_map_put(idx, lp_sb_str(&key), j);
		} else
			mix_shape(&sh->r[j], &x, l);
		lp_sb_free(&key);
	}
	lp_map_free(idx);
	lp_tsv_close(&t);
	lp_close_in(fp);
}

static long
stage_shape(const struct stage_shapes *ss, const char *kernel,
    const char *grid, const char *block)
{
	struct lp_sb key = { 0 };
	long i;

	if (!ss->idx)
		return -1;
	lp_sb_printf(&key, "%s\x1f%s\x1f%s", kernel, grid, block);
	i = lp_map_get(ss->idx, lp_sb_str(&key), -1);
	lp_sb_free(&key);
	return i;
}

void
points_read_stage(const char *path, struct stage_shapes *ss)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-shapes");
	int ck, cg, cb, ct, cc, cp;
	struct lp_sb key = { 0 };

	lp_tab_expect(&t, "lp-shapes");
	if (lp_tsv_comment(&t, "unavailable")) {
		ss->why = lp_xstrdup(lp_tsv_comment(&t, "unavailable"));
		lp_tsv_close(&t);
		fclose(fp);
		return;
	}
	ck = lp_csv_need(&t.hdr, "kernel", "lp-shapes output");
	cg = lp_csv_need(&t.hdr, "grid", "lp-shapes output");
	cb = lp_csv_need(&t.hdr, "block", "lp-shapes output");
	ct = lp_csv_need(&t.hdr, "total_ns", "lp-shapes output");
	cc = lp_csv_need(&t.hdr, "calls", "lp-shapes output");
	cp = lp_csv_need(&t.hdr, "pct", "lp-shapes output");
	ss->idx = lp_map_new();
	ss->path = path;
	ss->range = lp_xstrdup(lp_tsv_comment(&t, "range") ?
	    lp_tsv_comment(&t, "range") : "the stage");
	while (lp_tab_next(&t)) {
		struct sshape *x;

		ss->s = lp_xreallocarray(ss->s, ss->n + 1, sizeof *ss->s);
		x = &ss->s[ss->n];
		memset(x, 0, sizeof *x);
		if (!lp_tab_num(&t, ct, &x->ns) || !lp_tab_num(&t, cc, &x->calls) ||
		    !lp_tab_num(&t, cp, &x->pct))
			lp_die_at(LP_EXIT_DATA, path, t.line, 0, "total_ns, calls "
			    "and pct: expected numbers");
		x->kernel = lp_xstrdup(lp_tsv_get(&t, ck));
		x->grid = lp_xstrdup(lp_tsv_get(&t, cg));
		x->block = lp_xstrdup(lp_tsv_get(&t, cb));
		if (stage_shape(ss, x->kernel, x->grid, x->block) >= 0)
			lp_die_at(LP_EXIT_DATA, path, t.line, ck + 1, "a launch "
			    "configuration listed twice");
		lp_sb_reset(&key);
		lp_sb_printf(&key, "%s\x1f%s\x1f%s", x->kernel, x->grid, x->block);
		lp_map_put(ss->idx, lp_sb_str(&key), (long)ss->n++);
		ss->total += x->ns;
	}
	lp_sb_free(&key);
	lp_tsv_close(&t);
	fclose(fp);
}

/* The nsys time of the points of one kernel (ks[from..nk)) from -s: each
 * point's launch configuration; where ncu gave one configuration several
 * points (FLOPs per launch differ), split by its launch counts. */
static void
nsys_times(struct points *p, size_t from, const char *nsys_name)
{
	struct k *ks = p->ks;
	struct sshape *cf = p->ss.s;
	size_t i, j, nk = p->nk;

	for (i = from; i < nk; i++) {
		long s = stage_shape(&p->ss, nsys_name, ks[i].grid, ks[i].block);
		double l = 0;

		if (s < 0)
			continue;
		for (j = from; j < nk; j++)
			if (!strcmp(ks[j].grid, ks[i].grid) && !strcmp(ks[j].block,
			    ks[i].block))
				l += ks[j].launches;
		ks[i].have_nsys = 1;
		ks[i].nsys_ns = cf[s].ns * (l > 0 ? ks[i].launches / l : 1);
		ks[i].nsys_calls = cf[s].calls * (l > 0 ? ks[i].launches / l : 1);
		ks[i].nsys_pct = cf[s].pct * (l > 0 ? ks[i].launches / l : 1);
		cf[s].taken = 1;
	}
}

/* The configurations ncu measured of a kernel of kernels.tsv (nsys name,
 * ncu name), top or not: the coverage. */
static void
mark_measured(struct stage_shapes *ss, const char *nsys_name,
    const char *ncu_name, const struct shapes *sh)
{
	size_t j;
	long s;

	for (j = 0; *ncu_name && j < sh->n; j++)
		if (!strcmp(sh->r[j].kernel, ncu_name) && (s = stage_shape(ss,
		    nsys_name, sh->r[j].grid, sh->r[j].block)) >= 0)
			ss->s[s].measured = 1;
}

static int
cmp_nsys(const void *a, const void *b)
{
	const struct k *x = a, *y = b;

	if (x->have_nsys != y->have_nsys)
		return x->have_nsys ? -1 : 1;
	return x->nsys_ns > y->nsys_ns ? -1 : x->nsys_ns < y->nsys_ns;
}

/* -s: the kernel's launch configurations in the stage that ncu did not
 * measure, as points without metrics, so its points add up to its time. */
static void
unmeasured(struct points *p, const char *nsys_name, const char *kernel,
    long rank)
{
	size_t i;

	for (i = 0; i < p->ss.n; i++) {
		struct sshape *x = &p->ss.s[i];
		struct k *k;

		if (x->taken || strcmp(x->kernel, nsys_name))
			continue;
		k = knew(p);
		k->rank = rank;
		k->kernel = lp_xstrdup(kernel);
		k->grid = lp_xstrdup(x->grid);
		k->block = lp_xstrdup(x->block);
		k->unmeasured = 1;
		k->have_nsys = 1;
		k->nsys_ns = x->ns;
		k->nsys_calls = x->calls;
		k->nsys_pct = x->pct;
		x->taken = 1;
	}
}

/* The top kernels of kernels.tsv as points (ks): with -m, a point per
 * launch shape of the kernel (with -s, largest nsys time first, then the
 * configurations ncu did not measure), else largest ncu time first; else
 * one from the kernel's per-launch columns. The rows past the top feed
 * the coverage alone.  Returns the number of kernels. */
size_t
points_load(struct points *p, struct lp_tsv *t, int ck, int cnk,
    const struct shapes *sh, long top)
{
	int cm = lp_csv_col(&t->hdr, "mangled");
	size_t n = 0;

	while (lp_tab_next(t)) {
		struct k *k;
		const char *nk_name = cnk >= 0 ? lp_tsv_get(t, cnk) : "";
		/* the name nsys's tables (and shapes.tsv) give it */
		const char *ns_name = cm >= 0 && *lp_tsv_get(t, cm) ?
		    lp_tsv_get(t, cm) : lp_tsv_get(t, ck);
		size_t j, from = p->nk;

		if (p->ss.idx)
			mark_measured(&p->ss, ns_name, nk_name, sh);
		if (n >= (size_t)top)
			continue;	/* past the top: the coverage alone */
		n++;
		for (j = 0; *nk_name && j < sh->n; j++) {
			if (strcmp(sh->r[j].kernel, nk_name))
				continue;
			k = knew(p);
			*k = sh->r[j];
			k->kernel = lp_xstrdup(lp_tsv_get(t, ck));
			k->grid = lp_xstrdup(k->grid);
			k->block = lp_xstrdup(k->block);
			k->rank = (long)n;
		}
		if (p->ss.idx) {
			nsys_times(p, from, ns_name);
			/* none yet leaves ks NULL, which qsort may not get */
			if (p->nk - from > 1)
				qsort(p->ks + from, p->nk - from, sizeof *p->ks,
				    cmp_nsys);
			unmeasured(p, ns_name, lp_tsv_get(t, ck), (long)n);
		}
		if (p->nk > from)
			continue;	/* its shapes are its points */
		k = knew(p);
		k->rank = (long)n;
		k->kernel = lp_xstrdup(lp_tsv_get(t, ck));
		k->grid = lp_xstrdup("");
		k->block = lp_xstrdup("");
		read_point(t, k, "_per_launch", 1);
	}
	return n;
}
