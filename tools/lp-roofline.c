/*
 * lp-roofline: roofline.tsv, where each of the top kernels stands against
 * the hardware: arithmetic intensity (FLOP per DRAM byte), achieved FLOP/s
 * and bytes/s over ncu's own duration, the dense peak of the kernel's
 * dominant precision and the DRAM bandwidth (gpu.tsv), the ridge point, the
 * fraction of the roofline bound reached, and a class (lp-roofline(1)).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "run.h"

static const char synopsis[] =
    "lp-roofline [-b dram_bw.tsv] -g gpu.tsv [-i inputs.yaml] [-m metrics.tsv] "
    "[-n N] [-s shapes.tsv] [kernels.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */
static struct lp_bwmeas bwm;	/* -b: the measured DRAM bandwidth, shown */

/* One point: a kernel (kernels.tsv), or one launch shape of it
 * (metrics.tsv, with -m). */
struct k {
	char *kernel, *grid, *block;
	long rank;
	double f[LP_FP_N], flop, bytes, ns, tensor, launches, ctas, waves;
	int have_f[LP_FP_N], have_flop, have_bytes, have_ns, metrics;
	int have_tensor, have_launches, have_ctas, have_waves;
	double nsys_ns, nsys_calls, nsys_pct;	/* -s: the shape's in the stage */
	int have_nsys, unmeasured;	/* -s: a configuration ncu did not meet */
};

/* -s: lp-shapes(1)'s launch configurations of the stage (by "kernel \x1f
 * grid \x1f block" in idx); whether a point took one, whether ncu measured
 * it. */
struct sshape {
	char *kernel, *grid, *block;
	double ns, calls, pct;
	int taken, measured;
};
static struct {
	struct lp_map *idx;
	struct sshape *s;
	size_t n;
	double total;
	const char *path;
	char *why;		/* lp-shapes says why it has none */
	char *range;		/* the stage's range, as lp-shapes names it */
} SH;

static struct k *ks;
static size_t nk;

static struct k *
knew(void)
{
	ks = lp_xreallocarray(ks, nk + 1, sizeof *ks);
	memset(&ks[nk], 0, sizeof ks[nk]);
	return &ks[nk++];
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

static void
dram_pct(struct lp_row *r, double bps, double bw)
{
	lp_row_pct(r, 100 * bps / bw, 100, "DRAM % of bandwidth", "ncu "
	    "measured more than gpu.tsv's DRAM bandwidth: the GPU's entry "
	    "(conf/gpus.yaml or SET=gpu.hbm_tbps) is too low");
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

/* metrics.tsv (lp-ncu2tsv): a point per kernel and launch shape, devices
 * with the same shape together. */
struct shapes {
	struct k *r;
	size_t n;
};

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

static void
read_shapes(const char *path, struct shapes *sh)
{
	struct lp_map *idx = lp_map_new();
	struct lp_tsv t;
	const char *name;
	FILE *fp = lp_open_in(path, &name);
	int ck, cl, cg, cb, cc, cw, cfn, csm, cps;
	size_t i;

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
		struct k x;
		double l, sms, per;
		long j;

		if (!lp_tab_num(&t, cl, &l) || !(l > 0))
			lp_die_at(LP_EXIT_DATA, name, t.line, cl + 1, "launches: "
			    "expected a number above 0");
		memset(&x, 0, sizeof x);
		read_point(&t, &x, "", l);
		x.launches = l;
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
			lp_sb_free(&key);
			continue;
		}
		lp_sb_free(&key);
		mix_shape(&sh->r[j], &x, l);
	}
	for (i = 0; i < sh->n; i++)
		sh->r[i].have_launches = 1;
	lp_map_free(idx);
	lp_tsv_close(&t);
	lp_close_in(fp);
}

static long
stage_shape(const char *kernel, const char *grid, const char *block)
{
	struct lp_sb key = { 0 };
	long i;

	if (!SH.idx)
		return -1;
	lp_sb_printf(&key, "%s\x1f%s\x1f%s", kernel, grid, block);
	i = lp_map_get(SH.idx, lp_sb_str(&key), -1);
	lp_sb_free(&key);
	return i;
}

static void
read_stage_shapes(const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-shapes");
	int ck, cg, cb, ct, cc, cp;
	struct lp_sb key = { 0 };

	lp_tab_expect(&t, "lp-shapes");
	if (lp_tsv_comment(&t, "unavailable")) {
		SH.why = lp_xstrdup(lp_tsv_comment(&t, "unavailable"));
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
	SH.idx = lp_map_new();
	SH.path = path;
	SH.range = lp_xstrdup(lp_tsv_comment(&t, "range") ?
	    lp_tsv_comment(&t, "range") : "the stage");
	while (lp_tab_next(&t)) {
		struct sshape *x;

		SH.s = lp_xreallocarray(SH.s, SH.n + 1, sizeof *SH.s);
		x = &SH.s[SH.n];
		memset(x, 0, sizeof *x);
		if (!lp_tab_num(&t, ct, &x->ns) || !lp_tab_num(&t, cc, &x->calls) ||
		    !lp_tab_num(&t, cp, &x->pct))
			lp_die_at(LP_EXIT_DATA, path, t.line, 0, "total_ns, calls "
			    "and pct: expected numbers");
		x->kernel = lp_xstrdup(lp_tsv_get(&t, ck));
		x->grid = lp_xstrdup(lp_tsv_get(&t, cg));
		x->block = lp_xstrdup(lp_tsv_get(&t, cb));
		if (stage_shape(x->kernel, x->grid, x->block) >= 0)
			lp_die_at(LP_EXIT_DATA, path, t.line, ck + 1, "a launch "
			    "configuration listed twice");
		lp_sb_reset(&key);
		lp_sb_printf(&key, "%s\x1f%s\x1f%s", x->kernel, x->grid, x->block);
		lp_map_put(SH.idx, lp_sb_str(&key), (long)SH.n++);
		SH.total += x->ns;
	}
	lp_sb_free(&key);
	lp_tsv_close(&t);
	fclose(fp);
}

/* The model's dimensions that are not a multiple of 8 (inputs.yaml):
 * a GEMM over one gets cuBLAS's alignment-1 kernels. */
static struct { const char *key; double v; } dims[3];
static double mhidden, mtokens;

static void
read_model(const char *path)
{
	static const char *const keys[] = { "vocab", "hidden", "ffn" };
	struct lp_ynode *in = lp_yaml_load_path(path);
	struct lp_model m;
	size_t i, nd = 0;

	lp_model_get(&m, in, path);
	for (i = 0; i < 3; i++) {
		struct lp_sb b = { 0 };
		const char *v;
		double x;

		lp_sb_printf(&b, "model.%s", keys[i]);
		v = lp_yaml_str(in, lp_sb_str(&b), NULL);
		lp_sb_free(&b);
		if (v && !lp_num_parse(v, &x) && x > 0 && fmod(x, 8) != 0) {
			dims[nd].key = keys[i];
			dims[nd++].v = x;
		}
	}
	mhidden = m.hidden;
	mtokens = m.batch * m.prompt;
	lp_model_free(&m);
	lp_yaml_free(in);
}

/* cuBLAS and CUTLASS name the operand alignment they assume: "align1",
 * "align2", "align4" (elements) are the kernels chosen when a leading
 * dimension is not a multiple of 8 half-precision elements. */
static int
align_of(const char *kernel)
{
	const char *p = kernel;

	while ((p = strstr(p, "align"))) {
		p += 5;
		if ((*p == '1' || *p == '2' || *p == '4') && !(p[1] >= '0' &&
		    p[1] <= '9'))
			return *p - '0';
	}
	return 0;
}

static const struct lp_col cols[] = {
	{ "rank", "#", "int" }, { "name", "Kernel", "code" },
	{ "kernel", "Kernel (whole name)", "hide" },
	{ "precision", "Dominant precision", "text" },
	{ "flop_per_launch", "FLOP / launch", "flop" },
	{ "dram_bytes_per_launch", "DRAM / launch", "bytes" },
	{ "ncu_ns_per_launch", "ncu time / launch (us)", "us" },
	{ "ai", "AI (FLOP/B)", "num2" },
	{ "flop_per_s", "Achieved FLOP/s", "flops" },
	{ "bytes_per_s", "Achieved DRAM B/s", "Bps" },
	{ "peak_flop_per_s", "Peak FLOP/s", "flops" },
	{ "ridge", "Ridge (FLOP/B)", "num1" },
	{ "roof", "Bound by", "text" },
	{ "roof_pct", "% of roof", "pct" },
	{ "dram_pct", "% of DRAM BW", "pct" },
	{ "class", "Class", "text" },
	{ "why", "Why this class", "text" },
	{ "grid", "Grid", "text" }, { "block", "Block", "text" },
	{ "ncu_launches", "ncu launches", "int" },
	{ "ctas", "CTAs", "int" }, { "waves", "Waves", "num2" },
	{ "flop_counters", "FLOPs counted", "text" },
	{ "nsys_ns", "nsys time in the stage (ms)", "ms" },
	{ "nsys_calls", "nsys launches", "int" },
	{ "stage_pct", "% of stage kernel time", "pct" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* The nsys time of the points of one kernel (ks[from..nk)) from -s: each
 * point's launch configuration; where ncu gave one configuration several
 * points (FLOPs per launch differ), split by its launch counts. */
static void
nsys_times(size_t from, const char *nsys_name)
{
	size_t i, j;

	for (i = from; i < nk; i++) {
		long s = stage_shape(nsys_name, ks[i].grid, ks[i].block);
		double l = 0;

		if (s < 0)
			continue;
		for (j = from; j < nk; j++)
			if (!strcmp(ks[j].grid, ks[i].grid) && !strcmp(ks[j].block,
			    ks[i].block))
				l += ks[j].launches;
		ks[i].have_nsys = 1;
		ks[i].nsys_ns = SH.s[s].ns * (l > 0 ? ks[i].launches / l : 1);
		ks[i].nsys_calls = SH.s[s].calls * (l > 0 ? ks[i].launches / l : 1);
		ks[i].nsys_pct = SH.s[s].pct * (l > 0 ? ks[i].launches / l : 1);
		SH.s[s].taken = 1;
	}
}

/* The configurations ncu measured of a kernel of kernels.tsv (nsys name,
 * ncu name), top or not: the coverage. */
static void
mark_measured(const char *nsys_name, const char *ncu_name,
    const struct shapes *sh)
{
	size_t j;
	long s;

	for (j = 0; *ncu_name && j < sh->n; j++)
		if (!strcmp(sh->r[j].kernel, ncu_name) && (s = stage_shape(nsys_name,
		    sh->r[j].grid, sh->r[j].block)) >= 0)
			SH.s[s].measured = 1;
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
unmeasured(const char *nsys_name, const char *kernel, long rank)
{
	size_t i;

	for (i = 0; i < SH.n; i++) {
		struct sshape *x = &SH.s[i];
		struct k *k;

		if (x->taken || strcmp(x->kernel, nsys_name))
			continue;
		k = knew();
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
static size_t
load_points(struct lp_tsv *t, int ck, int cnk, const struct shapes *sh,
    const char *mpath, long top)
{
	int cm = lp_csv_col(&t->hdr, "mangled");
	size_t n = 0;

	while (lp_tab_next(t)) {
		struct k *k;
		const char *nk_name = cnk >= 0 ? lp_tsv_get(t, cnk) : "";
		/* the name nsys's tables (and shapes.tsv) give it */
		const char *ns_name = cm >= 0 && *lp_tsv_get(t, cm) ?
		    lp_tsv_get(t, cm) : lp_tsv_get(t, ck);
		size_t j, from = nk;

		if (SH.idx && mpath)
			mark_measured(ns_name, nk_name, sh);
		if (n >= (size_t)top)
			continue;	/* past the top: the coverage alone */
		n++;
		for (j = 0; mpath && *nk_name && j < sh->n; j++) {
			if (strcmp(sh->r[j].kernel, nk_name))
				continue;
			k = knew();
			*k = sh->r[j];
			k->kernel = lp_xstrdup(lp_tsv_get(t, ck));
			k->grid = lp_xstrdup(k->grid);
			k->block = lp_xstrdup(k->block);
			k->rank = (long)n;
		}
		if (SH.idx) {
			nsys_times(from, ns_name);
			qsort(ks + from, nk - from, sizeof *ks, cmp_nsys);
			unmeasured(ns_name, lp_tsv_get(t, ck), (long)n);
		}
		if (nk > from)
			continue;	/* its shapes are its points */
		k = knew();
		k->rank = (long)n;
		k->kernel = lp_xstrdup(lp_tsv_get(t, ck));
		k->grid = lp_xstrdup("");
		k->block = lp_xstrdup("");
		read_point(t, k, "_per_launch", 1);
	}
	return n;
}

/* The table's # lines: where the numbers come from, how to read them, and
 * how many profiled points lack counters. */
static void
emit_meta(const struct lp_tsv *t, const char *mpath, const char *gpath,
    const struct lp_peaks *pk, const struct shapes *sh)
{
	size_t i, nocount = 0, nobytes = 0, tonly = 0;
	double launches = 0;

	for (i = 0; i < sh->n; i++)
		launches += sh->r[i].launches;

	for (i = 0; i < nk; i++) {
		if (ks[i].metrics && !ks[i].have_flop && ks[i].have_tensor &&
		    ks[i].tensor > 0)
			tonly++;
		if (ks[i].metrics && !ks[i].have_bytes)
			nobytes++;
		else if (ks[i].metrics && !ks[i].have_flop &&
		    !(ks[i].have_tensor && ks[i].tensor > 0))
			nocount++;
	}
	lp_tab_meta(out, "title", "Roofline");
	lp_tab_meta(out, "tool", "lp-roofline");
	lp_tab_meta(out, "source", "per-launch FLOPs (tensor-core and "
	    "CUDA-core counters), DRAM bytes and duration from ncu, as %s "
	    "carries them (%s)%s%s; peaks from %s (%s)", t->file,
	    lp_tsv_comment(t, "metrics") ? lp_tsv_comment(t, "metrics") :
	    "no ncu metrics", mpath ? ", a point per launch shape from " : "",
	    mpath ? mpath : "", gpath, pk->gpu ? pk->gpu : "GPU unknown");
	lp_tab_meta(out, "note", "AI = FLOP / DRAM byte. The roof that "
	    "bounds a kernel is DRAM bandwidth x AI below the ridge (peak / "
	    "bandwidth), the peak of its dominant precision above it. A kernel "
	    "launched with several grids or FLOPs per launch has a point per "
	    "shape%s. Waves = "
	    "CTAs / (SMs x CTAs one SM holds). Class: memory-bound or "
	    "compute-bound at 50%% of that roof or more; below it, latency / "
	    "under-filled when under one wave or shorter than 5 us, "
	    "alignment-limited for a GEMM kernel built for unaligned operands "
	    "(align1/2/4), else below roof with a full GPU. ncu replays each "
	    "kernel alone with locked clocks, so its duration is ncu's, not "
	    "the run's.", SH.idx ? " with its own nsys time" : " (its nsys "
	    "time stays whole in the kernel tables)");
	if (tonly)
		lp_tab_meta(out, "note", "FLOPs: %zu points count tensor-core "
		    "FLOPs only: their ncu export lacks the SASS counters of "
		    "CUDA-core work (flop_counters says which)", tonly);
	if (nobytes)
		lp_tab_meta(out, "missing", "roofline points for %zu profiled "
		    "kernels: their ncu export lacks the DRAM-byte counters "
		    "(dram__bytes.sum); profile them with those counters (lp's "
		    "default ncu preset has them; ncu --set roofline for an "
		    "export to import)", nobytes);
	if (nocount)
		lp_tab_meta(out, "missing", "roofline points for %zu profiled "
		    "kernels: their ncu export has their DRAM bytes (the table "
		    "gives their DRAM figures) but lacks FLOP counters "
		    "(roofline.tsv's precision column names which); profile "
		    "them with those counters (lp's default ncu preset has "
		    "them; ncu --set roofline for an export to import)",
		    nocount);
	if (SH.idx) {
		double cov = 0;
		size_t nm = 0;

		for (i = 0; i < SH.n; i++)
			if (SH.s[i].measured) {
				cov += SH.s[i].ns;
				nm++;
			}
		cov = SH.total > 0 ? 100 * cov / SH.total : 0;
		lp_tab_meta(out, "coverage", "%.1f %% of %s (%zu of %zu launch "
		    "configurations; %s)", cov, SH.range, nm, SH.n, SH.path);
		lp_tab_meta(out, "note", "ncu measured the launch configurations "
		    "carrying %.1f %% of %s's kernel time (%zu of its %zu "
		    "configurations, %.0f launches profiled); the roofline's "
		    "numbers speak for those.", cov, SH.range, nm, SH.n, launches);
		lp_tab_meta(out, "note", "A kernel's points are its launch "
		    "configurations in the stage (nsys cuda_gpu_trace, %s), each "
		    "with its own nsys time; those ncu did not measure are listed "
		    "with n/a metrics, so a kernel's points add up to its time.",
		    SH.path);
	}
	if (bwm.path)
		lp_bwmeas_meta(out, pk, &bwm, "the roofs, ridges and % columns "
		    "are against it", 0);
	lp_tab_meta(out, "link", "roofline.svg");
	lp_tab_header(out, cols, NCOLS);
}

/* The "alignment-limited" class's why: the alignment the kernel was built
 * for, the model's dimensions that force it, and, for the LM head, how
 * ncu's FLOP count decomposes. */
static void
why_alignment(struct lp_sb *w, const struct k *k, int al, double flop)
{
	size_t d;

	lp_sb_printf(w, "%s%.2f waves, but a kernel for operands aligned "
	    "to %d element%s (align%d), slower than the 8-element kernels",
	    k->have_waves ? "" : "n/a ", k->have_waves ? k->waves : 0, al,
	    al > 1 ? "s" : "", al);
	for (d = 0; d < 3 && dims[d].key; d++)
		lp_sb_printf(w, "%s%s %.0f is not a multiple of 8",
		    d ? ", " : "; the model's ", dims[d].key, dims[d].v);
	/* the LM head: its FLOPs are 2 x M x hidden x N, M the rows (tokens)
	 * and N the vocabulary, each rounded up to the tiles: the padded N
	 * is the vocabulary rounded up to a tile width that leaves a whole
	 * M, so the padding is named in the dimension that has it */
	if (dims[0].key && !strcmp(dims[0].key, "vocab") && mhidden > 0 &&
	    mtokens > 0) {
		static const double tiles[] = { 256, 128, 64, 32, 16, 8 };
		double v = dims[0].v, np = 0, m = 0;
		size_t t;

		for (t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
			double n = ceil(v / tiles[t]) * tiles[t];
			double r = flop / (2 * mhidden * n);

			if (fabs(r - round(r)) < 1e-6 * r && round(r) >= mtokens &&
			    round(r) < 4 * mtokens + 256) {
				np = n;
				m = round(r);
				break;
			}
		}
		if (np > 0) {
			lp_sb_printf(w, "; as the LM head, ncu's count is 2 x "
			    "%.0f x %.0f x %.0f: N, the vocabulary %.0f, ", m,
			    mhidden, np, v);
			if (np > v)
				lp_sb_printf(w, "padded to %.0f", np);
			else
				lp_sb_adds(w, "not padded");
			lp_sb_printf(w, ", and M, %.0f tokens a forward, ",
			    mtokens);
			if (m > mtokens)
				lp_sb_printf(w, "padded to %.0f rows", m);
			else
				lp_sb_adds(w, "not padded");
			lp_sb_adds(w, " (the tiles' padding)");
		} else if (flop > 2 * mhidden * v * mtokens)
			lp_sb_printf(w, "; as the LM head, ncu's count is "
			    "%.4gx 2 x %.0f tokens x %.0f x %.0f: padded tiles, "
			    "in which dimension not known", flop / (2 * mhidden *
			    v * mtokens), mtokens, mhidden, v);
	}
}

/* A point's class at frac of its roof, with its why in w: bound by the
 * roof at half of it or more; below it, what the launch shows, not a
 * guess. */
static const char *
classify(struct lp_sb *w, const struct k *k, double frac, int mem, int dom,
    double flop)
{
	int al;

	lp_sb_reset(w);
	al = align_of(k->kernel);
	if (frac >= 0.5) {
		lp_sb_printf(w, "%.3g%% of its %s roof", 100 * frac,
		    mem ? "memory" : "compute");
		return mem ? "memory-bound" : "compute-bound";
	} else if (k->have_waves && k->waves < 1) {
		lp_sb_printf(w, "%.0f CTA%s fill%s %.2g of a wave: SMs "
		    "idle", k->ctas, k->ctas == 1 ? "" : "s", k->ctas == 1 ?
		    "s" : "", k->waves);
		return "latency / under-filled";
	} else if (k->ns < 5e3) {
		lp_sb_printf(w, "%.2f us a launch: start-up and tail "
		    "dominate", k->ns / 1e3);
		return "latency / under-filled";
	} else if (al && dom >= 0 && dom < LP_FP_FP32) {
		why_alignment(w, k, al, flop);
		return "alignment-limited";
	} else if (k->have_waves) {
		lp_sb_printf(w, "%.2f waves, %.2f us a launch, %.3g%% "
		    "of its roof", k->waves, k->ns / 1e3, 100 * frac);
		return "below roof, GPU filled";
	}
	lp_sb_printf(w, "%.3g%% of its roof; waves unknown (no "
	    "launch statistics)", 100 * frac);
	return "below roof";
}

/* The precision that does most of a point's FLOPs, -1 for none. */
static int
dominant(const struct k *k)
{
	int q, dom = -1;

	for (q = 0; q < LP_FP_N; q++)
		if (k->have_f[q] && k->f[q] > 0 && (dom < 0 ||
		    k->f[q] > k->f[dom]))
			dom = q;
	return dom;
}

/* A point's cells from the dominant precision to the class's why; stops
 * at the first cell it cannot compute (the caller pads with n/a). */
static void
roof_cells(struct lp_row *r, const struct k *k, const struct lp_peaks *pk,
    struct lp_sb *w)
{
	double flop = k->flop;
	struct lp_roof rf;
	int dom;

	if (k->unmeasured) {
		lp_row_na(r, "ncu did not profile this launch configuration "
		    "(grid %s, block %s) in the stage", k->grid, k->block);
		return;
	}
	if (!k->metrics) {
		lp_row_na(r, "ncu did not profile it (outside the top-N "
		    "selection, or not matched by name)");
		return;
	}
	if (!k->have_flop && k->have_tensor && k->tensor > 0 &&
	    k->have_bytes)
		flop = k->tensor;
	else if (!k->have_bytes) {
		lp_row_na(r, "the ncu export lacks dram__bytes.sum");
		return;
	} else if (!k->have_flop) {
		/* the DRAM bytes are there: their figures, n/a only for what
		 * needs the FLOPs */
		lp_row_na(r, "the ncu export lacks %s", !k->have_f[LP_FP_TC_FP16] ?
		    "the tensor-core counters (sm__ops_path_tensor_src_*)" :
		    "the SASS FLOP counters (sm__sass_thread_inst_executed_"
		    "op_*)");
		lp_row_text(r, "n/a");
		lp_row_num(r, k->bytes, 0);
		lp_row_num(r, k->ns, 1);
		lp_row_text(r, "n/a");
		lp_row_text(r, "n/a");
		if (!(k->ns > 0)) {
			lp_row_na(r, "ncu measured no duration");
			return;
		}
		lp_row_g(r, k->bytes / (k->ns * 1e-9));
		while (r->n < 14)	/* peak_flop_per_s to roof_pct */
			lp_row_text(r, "n/a");
		if (pk->bw > 0)
			dram_pct(r, k->bytes / (k->ns * 1e-9), pk->bw);
		else
			lp_row_na(r, "%s (DRAM bandwidth)", pk->why);
		return;
	}
	dom = dominant(k);
	lp_row_text(r, dom >= 0 ? lp_fp_label(dom) : "none (no FLOPs)");
	lp_row_num(r, flop, 0);
	lp_row_num(r, k->bytes, 0);
	lp_row_num(r, k->ns, 1);
	if (!(k->bytes > 0)) {
		lp_row_na(r, "ncu counted no DRAM bytes");
		return;
	}
	lp_roof_at(pk, dom, flop, k->bytes, k->ns, &rf);
	lp_row_g(r, rf.ai);
	lp_row_g(r, rf.fps);
	lp_row_g(r, rf.bps);
	if (dom >= 0 && !(rf.peak > 0))
		lp_row_na(r, "%s (%s)", pk->why, lp_fp_label(dom));
	else if (dom < 0)
		lp_row_na(r, "it does no floating-point work");
	else
		lp_row_g(r, rf.peak);
	if (!(pk->bw > 0)) {
		lp_row_na(r, "%s (DRAM bandwidth)", pk->why);
		return;
	}
	if (rf.peak > 0)
		lp_row_g(r, rf.ridge);
	else
		lp_row_text(r, "n/a");
	/* below the ridge (or with no FLOPs) the bandwidth roof bounds;
	 * with no peak for its precision there is no ridge, and which
	 * roof bounds the kernel is unknown, not "compute" */
	if (!(dom < 0 || rf.peak > 0)) {
		lp_row_na(r, "no peak for %s", lp_fp_label(dom));
		lp_row_na(r, "no peak for %s: which roof bounds it is "
		    "unknown", lp_fp_label(dom));
		dram_pct(r, rf.bps, pk->bw);
		return;
	}
	lp_row_text(r, rf.mem ? "memory" : "compute");
	lp_row_pct(r, 100 * rf.frac, 100, "% of roof", "ncu "
	    "measured more than gpu.tsv's %s: the GPU's entry "
	    "(conf/gpus.yaml or SET=gpu.*) is too low", rf.mem ?
	    "DRAM bandwidth" : "peak");
	dram_pct(r, rf.bps, pk->bw);
	if (100 * rf.frac > 100) {
		lp_row_text(r, "n/a");
		lp_row_na(r, "above its roof: gpu.tsv's %s is too "
		    "low", rf.mem ? "DRAM bandwidth" : "peak");
		return;
	}
	lp_row_text(r, classify(w, k, rf.frac, rf.mem, dom, flop));
	lp_row_text(r, lp_sb_str(w));
}

/* The launch shape's cells, appended last to the table. */
static void
shape_cells(struct lp_row *sr, const struct k *k, const char *mpath)
{
	if (*k->grid)
		lp_row_text(sr, k->grid);
	else
		lp_row_na(sr, "%s", mpath ? "ncu did not profile it" :
		    "no launch shapes (lp-roofline -m metrics.tsv)");
	if (*k->block)
		lp_row_text(sr, k->block);
	else
		lp_row_text(sr, "n/a");
	if (k->have_launches)
		lp_row_num(sr, k->launches, 0);
	else if (k->unmeasured)
		lp_row_num(sr, 0, 0);
	else
		lp_row_text(sr, "n/a");
	if (k->have_ctas)
		lp_row_num(sr, k->ctas, 0);
	else
		lp_row_text(sr, "n/a");
	if (k->have_waves && k->waves < 0.01)
		lp_row_g(sr, k->waves);	/* one CTA: not 0.00 */
	else if (k->have_waves)
		lp_row_num(sr, k->waves, 2);
	else
		lp_row_na(sr, "%s", k->have_launches ? "the export lacks "
		    "the launch statistics (launch__grid_size, "
		    "launch__occupancy_limit_*, SM count)" : "no launch "
		    "shape");
	if (k->metrics && (k->have_flop || (k->have_tensor &&
	    k->tensor > 0)))
		lp_row_text(sr, k->have_flop ? "tensor and CUDA cores" :
		    "tensor cores only (no SASS counters)");
	else
		lp_row_text(sr, "n/a");
	if (k->have_nsys) {
		lp_row_num(sr, k->nsys_ns, 0);
		lp_row_num(sr, k->nsys_calls, 0);
		lp_row_g(sr, k->nsys_pct);
	} else
		for (int i = 0; i < 3; i++)
			lp_row_na(sr, "%s", SH.why ? SH.why : !SH.idx ? "no launch "
			    "configurations from nsys (lp-roofline -s shapes.tsv; "
			    "the run lacks cuda_gpu_trace)" : !*k->grid ? "no launch shape" :
			    "nsys saw no launch of this configuration in the stage");
}

/* A row per point, of the n kernels loaded. */
static void
emit_points(size_t n, const struct lp_peaks *pk, const char *mpath)
{
	struct lp_row r = { 0 }, sr = { 0 };
	struct lp_sb w = { 0 };
	char **nm, **shown;
	size_t i;

	/* names unique among the kernels; a kernel's shapes share its name */
	nm = lp_xcalloc(n, sizeof *nm);
	shown = lp_xcalloc(n, sizeof *shown);
	for (i = 0; i < nk; i++)
		nm[ks[i].rank - 1] = ks[i].kernel;
	lp_kname_unique(nm, n, LP_KNAME_MAX, shown);
	for (i = 0; i < nk; i++) {
		const struct k *k = &ks[i];

		lp_row_num(&r, (double)k->rank, 0);
		lp_row_text(&r, shown[k->rank - 1]);
		lp_row_text(&r, k->kernel);
		roof_cells(&r, k, pk, &w);
		while (r.n < NCOLS - 9)
			lp_row_text(&r, "n/a");
		shape_cells(&sr, k, mpath);
		lp_sb_addc(&r.b, '\t');
		lp_sb_adds(&r.b, lp_sb_str(&sr.b));
		r.n += sr.n;
		lp_sb_reset(&sr.b);
		sr.n = 0;
		lp_row_end(&r, out);
	}
	for (i = 0; i < n; i++)
		free(shown[i]);
	free(shown);
	free(nm);
	lp_sb_free(&r.b);
	lp_sb_free(&sr.b);
	lp_sb_free(&w);
}

static void
free_points(struct shapes *sh)
{
	size_t i;

	for (i = 0; i < nk; i++) {
		free(ks[i].kernel);
		free(ks[i].grid);
		free(ks[i].block);
	}
	for (i = 0; i < sh->n; i++) {
		free(sh->r[i].kernel);
		free(sh->r[i].grid);
		free(sh->r[i].block);
	}
	free(sh->r);
	free(ks);
	for (i = 0; i < SH.n; i++) {
		free(SH.s[i].kernel);
		free(SH.s[i].grid);
		free(SH.s[i].block);
	}
	free(SH.s);
	free(SH.why);
	free(SH.range);
	lp_map_free(SH.idx);
}

int
main(int argc, char **argv)
{
	const char *gpath = NULL, *ipath = NULL, *mpath = NULL, *spath = NULL;
	const char *name;
	struct lp_peaks pk;
	struct lp_tsv t;
	struct shapes shapes = { 0 };
	long top = 10;
	size_t n;
	int c, ck, cnk;
	FILE *fp;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "b:g:hi:m:n:s:")) != -1) {
		switch (c) {
		case 'b': lp_bwmeas_read(&bwm, optarg); break;
		case 'g': gpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'i': ipath = optarg; break;
		case 'm': mpath = optarg; break;
		case 'n': top = lp_strtonum(optarg, 1, 100000, "-n"); break;
		case 's': spath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (!gpath || argc - optind > 1)
		lp_usage(synopsis);
	lp_peaks_read(&pk, gpath);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_tsv_open(&t, fp, name);
	lp_tab_expect(&t, "lp-kernjoin");
	ck = lp_csv_need(&t.hdr, "kernel", "lp-kernjoin output");
	lp_csv_need(&t.hdr, "total_ns", "lp-kernjoin output");
	cnk = lp_csv_col(&t.hdr, "ncu_kernel");
	if (mpath)
		read_shapes(mpath, &shapes);
	if (spath)
		read_stage_shapes(spath);
	n = load_points(&t, ck, cnk, &shapes, mpath, top);
	if (!n)
		lp_die_at(LP_EXIT_DATA, name, t.line, 0, "no kernel rows");
	if (ipath)
		read_model(ipath);

	emit_meta(&t, mpath, gpath, &pk, &shapes);
	emit_points(n, &pk, mpath);
	free_points(&shapes);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_peaks_free(&pk);
	lp_bwmeas_free(&bwm);
	lp_tab_done(out);
	return 0;
}
