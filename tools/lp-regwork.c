/*
 * lp-regwork: region_work.tsv, the work each NVTX region did on the GPU as
 * ncu counted it (range or app-range replay): tensor-core and CUDA-core
 * FLOPs, DRAM bytes, achieved FLOP/s and bandwidth against the GPU's peaks
 * (gpu.tsv), beside the FLOPs the model must do in that stage (the MFU
 * formula, inputs.yaml) and their ratio: the waste no kernel table shows.
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
    "lp-regwork -c config.yaml -g gpu.tsv [-i inputs.yaml] [-k kernels.tsv] "
    "[-o operators.yaml] [-s stages.tsv] -l exports.list";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

/* What the kernel table says of one stage's matmuls: range replay counts
 * tensor-core FLOPs only, so the model math to set them against is the
 * model's less the matmuls that ran on CUDA cores (a GEMV LM head, an
 * fp32 GEMM), which kernel replay did count. */
static struct {
	const char *stage;	/* the stage kernels.tsv is of, or NULL */
	double cuda_flop;	/* per instance: GEMM-class CUDA-core FLOPs */
	double gemm_ns, unprofiled_ns;	/* nsys time of GEMM-class kernels */
	size_t unprofiled;
} split;

static char *stage_copy;

/* The stage stages.tsv names for the range kernels.tsv was measured in, and
 * its instance count; NULL when the range is not a measured stage. */
static char *
stage_of_range(struct lp_tsv *st, const char *range, double *inst)
{
	int sr, ss, si;

	sr = lp_csv_need(&st->hdr, "range", "lp-stages output");
	ss = lp_csv_need(&st->hdr, "stage", "lp-stages output");
	si = lp_csv_need(&st->hdr, "instances", "lp-stages output");
	while (range && lp_tab_next(st))
		if (!strcmp(lp_tsv_get(st, sr), range) &&
		    lp_tab_num(st, si, inst) && *inst > 0)
			return lp_xstrdup(lp_tsv_get(st, ss));
	return NULL;
}

/* The columns of kernels.tsv that load_split reads (-1: absent). */
struct kcols {
	int kernel, calls, total, tensor, nontensor;
};

static void
kernel_columns(const struct lp_tsv *t, struct kcols *kc)
{
	kc->kernel = lp_csv_need(&t->hdr, "kernel", "lp-kernjoin output");
	kc->calls = lp_csv_need(&t->hdr, "calls", "lp-kernjoin output");
	kc->total = lp_csv_need(&t->hdr, "total_ns", "lp-kernjoin output");
	kc->tensor = lp_csv_col(&t->hdr, "flops_tensor_per_launch");
	kc->nontensor = lp_csv_col(&t->hdr, "flops_nontensor_per_launch");
}

/* Sums the GEMM-class kernels of kernels.tsv into split; returns their
 * CUDA-core FLOPs over all calls. */
static double
sum_gemms(struct lp_tsv *t, const struct kcols *kc, const struct lp_ops *ops)
{
	double c = 0;

	while (lp_tab_next(t)) {
		const char *k = lp_tsv_get(t, kc->kernel);
		double calls, ns, ft, fn;
		char *b;
		int red;

		if (!strstr(ops->names[lp_ops_class(ops, k)], "GEMM"))
			continue;
		/* split-K's reduction adds partial sums: no model math */
		b = lp_kname_base(k);
		red = strstr(b, "educe") != NULL;
		free(b);
		if (red)
			continue;
		if (!lp_tab_num(t, kc->calls, &calls) ||
		    !lp_tab_num(t, kc->total, &ns))
			continue;
		split.gemm_ns += ns;
		if (kc->tensor < 0 || kc->nontensor < 0 ||
		    !lp_tab_num(t, kc->tensor, &ft) ||
		    !lp_tab_num(t, kc->nontensor, &fn)) {
			split.unprofiled++;
			split.unprofiled_ns += ns;
			continue;
		}
		/* a GEMM with no tensor-core work: its math on CUDA cores */
		if (ft == 0 && fn > 0)
			c += fn * calls;
	}
	return c;
}

/* What kernels.tsv (with operators.yaml's classes and stages.tsv's
 * instance counts) says of one stage's matmuls, into split. */
static void
load_split(const char *kpath, const char *opath, const char *spath)
{
	struct lp_ops ops;
	struct lp_tsv t, st;
	FILE *fp, *sp;
	struct kcols kc;
	double inst = 0;

	lp_ops_load(&ops, opath);
	sp = lp_tab_open(&st, spath, "lp-stages, make RUN=... stages.tsv");
	fp = lp_tab_open(&t, kpath, "lp-kernjoin, make RUN=... kernels.tsv");
	lp_tab_expect(&t, "lp-kernjoin");
	kernel_columns(&t, &kc);
	stage_copy = stage_of_range(&st, lp_tsv_comment(&t, "range"), &inst);
	if (stage_copy) {
		split.stage = stage_copy;
		split.cuda_flop = sum_gemms(&t, &kc, &ops) / inst;
	}
	lp_tsv_close(&t);
	fclose(fp);
	lp_tsv_close(&st);
	fclose(sp);
	lp_ops_free(&ops);
}

/* decode_all and decode_step share their kernels and formula. */
static int
same_family(const char *a, const char *b)
{
	if (!strncmp(a, "decode", 6) && !strncmp(b, "decode", 6))
		return 1;
	return !strcmp(a, b);
}

/* The model math set against a region's executed FLOPs, and in words what
 * is compared; NAN (why in *what) when nothing like-for-like exists. */
static double
compared(const struct lp_model *m, const char *name, double mf, int tc,
    int ss, double ft, struct lp_sb *what)
{
	double rho, share;

	lp_sb_reset(what);
	if (tc && ss) {
		lp_sb_adds(what, "all executed FLOPs with all the model's math");
		return mf;
	}
	if (!tc) {
		lp_sb_adds(what, "n/a because the export lacks the tensor-core "
		    "counters");
		return NAN;
	}
	share = split.gemm_ns > 0 ? split.unprofiled_ns / split.gemm_ns : 0;
	if (split.stage && same_family(split.stage, name) && share <= 0.05) {
		rho = split.cuda_flop / lp_model_flops(m, split.stage);
		if (rho >= 0.95) {
			lp_sb_printf(what, "n/a because the model's matmuls ran on "
			    "CUDA cores (%.3g%% of its math, kernels.tsv of %s), "
			    "which range replay does not count", 100 * rho,
			    split.stage);
			return NAN;
		}
		if (split.cuda_flop > 0)
			lp_sb_printf(what, "tensor-core FLOPs with the model's math "
			    "on tensor cores: the model's less %.4g GFLOP a %s "
			    "instance of matmuls on CUDA cores (kernels.tsv)",
			    split.cuda_flop / 1e9, split.stage);
		else
			lp_sb_printf(what, "tensor-core FLOPs with the model's math, "
			    "all of its matmuls on tensor cores (kernels.tsv of %s)",
			    split.stage);
		return mf * (1 - (rho > 0 ? rho : 0));
	}
	if (ft == 0) {
		lp_sb_adds(what, "n/a because ncu counted no tensor-core FLOPs and "
		    "range replay counts no CUDA-core ones");
		return NAN;
	}
	lp_sb_printf(what, "tensor-core FLOPs with all the model's math, a "
	    "lower bound: which matmuls ran on CUDA cores is %s",
	    split.stage ? "known for another stage only" : "not known (no "
	    "kernel table)");
	return mf;
}

static const struct lp_col cols[] = {
	{ "path", "Region", "text" }, { "instances", "Instances", "int" },
	{ "gpu_ns", "GPU time / instance (ms)", "ms" },
	{ "flop_tensor", "Tensor FLOP / instance", "flop" },
	{ "flop_nontensor", "CUDA-core FLOP / instance", "flop" },
	{ "dram_bytes", "DRAM / instance", "bytes" },
	{ "flop_per_s", "Achieved FLOP/s", "flops" },
	{ "peak_pct", "% of peak", "pct" },
	{ "bytes_per_s", "Achieved DRAM B/s", "Bps" },
	{ "bw_pct", "% of DRAM BW", "pct" },
	{ "model_flop", "Model FLOP / instance", "flop" },
	{ "hw_over_model", "Executed / model", "x" },
	{ "model_flop_compared", "Model FLOP compared", "flop" },
	{ "compared", "Compared", "text" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* What ncu measured of one region, summed over its instances. */
struct work {
	double ns, ft, fn, by;	/* GPU time, tensor/CUDA-core FLOPs, bytes */
	int tc, ss, hb;		/* every instance has the counters */
};

static void
sum_work(const struct lp_rinsts *x, struct work *w)
{
	size_t i;
	int q;

	memset(w, 0, sizeof *w);
	w->tc = w->ss = w->hb = x->n > 0;
	for (i = 0; i < x->n; i++) {
		w->ns += x->in[i].gpu_ns;
		w->tc &= x->in[i].f.have_tensor;
		w->ss &= x->in[i].f.have_sass;
		w->hb &= x->in[i].have_bytes;
		w->by += x->in[i].bytes;
		for (q = 0; q < LP_FP_N; q++)
			*(q < LP_FP_FP32 ? &w->ft : &w->fn) += x->in[i].f.f[q];
	}
}

static void
emit_meta(const char *lpath, const char *gpath, const char *ipath)
{
	lp_tab_meta(out, "title", "Region Work against the Model");
	lp_tab_meta(out, "tool", "lp-regwork");
	lp_tab_meta(out, "source", "FLOPs and DRAM bytes of each region from ncu "
	    "(exports listed in %s; tensor cores: sm__ops_path_tensor_src_*, "
	    "CUDA cores: the SASS counters where the export has them); peaks "
	    "from %s; model FLOPs from %s", lpath, gpath, ipath ? ipath :
	    "no model config");
	lp_tab_meta(out, "note", "Per instance: the mean over the region's "
	    "instances; FLOP/s and B/s over their summed GPU time. %% of peak is "
	    "against the dense peak of the model's dtype. Model FLOPs are those "
	    "of the MFU table (prefill, decode_all, decode_step = decode_all / "
	    "T); executed / model above 1 is work the model formula does not "
	    "count (padding, recomputation). It compares like with like "
	    "(compared says what): all executed FLOPs with all the model's math "
	    "where the export has both kinds of counters; else tensor-core "
	    "FLOPs with the model's math on tensor cores, the model's less the "
	    "matmuls that kernel replay saw run on CUDA cores (kernels.tsv), or "
	    "with all of it as a lower bound where that is not known.");
}

/* Said in words: the waste no kernel table shows, the regions that executed
 * well over the model's math. */
static void
emit_waste(const struct lp_rset *rs, const struct lp_model *m,
    struct lp_sb *what)
{
	struct lp_sb waste = { 0 };
	struct work w;
	double mf, mc, hw;
	size_t j;

	for (j = 0; j < rs->n && !m->missing; j++) {
		const struct lp_rinsts *x = &rs->ncu[j];

		mf = lp_model_flops(m, rs->rg[j].name);
		sum_work(x, &w);
		if (!(mf > 0) || isnan(mc = compared(m, rs->rg[j].name, mf, w.tc,
		    w.ss, w.ft, what)) || (hw = (w.ft + (w.ss ? w.fn : 0)) /
		    (double)x->n / mc) <= 1.5)
			continue;
		lp_sb_printf(&waste, "%s%s executed %.3gx the model's FLOPs%s "
		    "(%.4g GFLOP per instance for %.4g GFLOP of model math%s)",
		    waste.len ? "; " : "", rs->rg[j].name, hw, w.ss ? "" :
		    " on tensor cores", (w.ft + (w.ss ? w.fn : 0)) /
		    (double)x->n / 1e9, mc / 1e9, w.ss ? "" : mc < mf ?
		    " on tensor cores" : ", all of it: a lower bound");
	}
	if (waste.len)
		lp_tab_meta(out, "note", "Waste: %s. That is math the hardware did "
		    "beyond the model's, e.g. a single token padded into 8-row MMA "
		    "tiles in decode; batching more sequences per step fills those "
		    "rows with useful work.", lp_sb_str(&waste));
	lp_sb_free(&waste);
}

/* The per-instance FLOPs and bytes, or why ncu has none. */
static void
emit_measured(struct lp_row *r, const struct work *w, double n)
{
	lp_row_num(r, n, 0);
	lp_row_num(r, w->ns / n, 1);
	if (w->tc)
		lp_row_num(r, w->ft / n, 0);
	else
		lp_row_na(r, "the export lacks the tensor-core counters");
	if (w->ss)
		lp_row_num(r, w->fn / n, 0);
	else
		lp_row_na(r, "ncu range replay cannot collect the SASS "
		    "FLOP counters");
	if (w->hb)
		lp_row_num(r, w->by / n, 0);
	else
		lp_row_na(r, "the export lacks dram__bytes.sum");
}

/* Achieved FLOP/s and DRAM B/s, each against the GPU's peak. */
static void
emit_rates(struct lp_row *r, const struct work *w, const struct lp_peaks *pk,
    const struct lp_model *m)
{
	double peak = lp_peak_of(pk, lp_fp_of_dtype(m->dtype));

	if (w->tc && w->ns > 0) {
		double f = w->ft + (w->ss ? w->fn : 0);

		lp_row_g(r, f / (w->ns * 1e-9));
		if (peak > 0)
			lp_row_pct(r, 100 * f / (w->ns * 1e-9) / peak, 100,
			    "% of peak", "ncu counted more FLOPs in the "
			    "time than gpu.tsv's peak allows: the GPU's "
			    "entry (conf/gpus.yaml or SET=gpu.*) is too "
			    "low");
		else
			lp_row_na(r, "%s", m->dtype ? pk->why : "no model dtype");
	} else {
		lp_row_text(r, "n/a");
		lp_row_text(r, "n/a");
	}
	if (w->hb && w->ns > 0) {
		lp_row_g(r, w->by / (w->ns * 1e-9));
		if (pk->bw > 0)
			lp_row_pct(r, 100 * w->by / (w->ns * 1e-9) / pk->bw, 100,
			    "% of bandwidth", "ncu counted more DRAM bytes "
			    "in the time than gpu.tsv's bandwidth allows: "
			    "the GPU's entry (conf/gpus.yaml or "
			    "SET=gpu.hbm_tbps) is too low");
		else
			lp_row_na(r, "%s", pk->why);
	} else {
		lp_row_text(r, "n/a");
		lp_row_text(r, "n/a");
	}
}

/* The model's FLOPs for the region and what was executed over them. */
static void
emit_model(struct lp_row *r, const struct work *w, double n,
    const struct lp_model *m, const char *name, struct lp_sb *what)
{
	double mf = m->missing ? 0 : lp_model_flops(m, name), mc;

	if (!(mf > 0)) {
		lp_row_na(r, "%s", m->missing ? "no model config (MODEL=NAME)"
		    : "not a stage with a model FLOP formula");
		return;
	}
	lp_row_num(r, mf, 0);
	mc = compared(m, name, mf, w->tc, w->ss, w->ft, what);
	if (isnan(mc)) {
		lp_row_text(r, lp_sb_str(what));
		lp_row_text(r, "n/a");
	} else {
		lp_row_g(r, (w->ft + (w->ss ? w->fn : 0)) / n / mc);
		lp_row_num(r, mc, 0);
	}
	lp_row_text(r, lp_sb_str(what));
}

static void
emit_rows(const struct lp_rset *rs, const struct lp_peaks *pk,
    const struct lp_model *m, struct lp_sb *what)
{
	struct lp_row r = { 0 };
	struct work w;
	size_t j;

	for (j = 0; j < rs->n; j++) {
		const struct lp_rinsts *x = &rs->ncu[j];
		char *path = lp_region_path(rs->rg, rs->n, j);

		lp_row_text(&r, path);
		free(path);
		if (!x->n) {
			lp_row_na(&r, "ncu measured no instance of %s",
			    rs->rg[j].nsys);
		} else {
			sum_work(x, &w);
			emit_measured(&r, &w, (double)x->n);
			emit_rates(&r, &w, pk, m);
			emit_model(&r, &w, (double)x->n, m, rs->rg[j].name,
			    what);
		}
		lp_row_end_na(&r, NCOLS, out);
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	const char *cpath = NULL, *gpath = NULL, *ipath = NULL, *lpath = NULL;
	const char *kpath = NULL, *opath = NULL, *spath = NULL;
	struct lp_sb what = { 0 };
	struct lp_ynode *inputs = NULL;
	struct lp_rset rs;
	struct lp_peaks pk;
	struct lp_model m;
	int c;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "c:g:i:k:l:o:s:", synopsis)) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'g': gpath = optarg; break;
		case 'i': ipath = optarg; break;
		case 'k': kpath = optarg; break;
		case 'l': lpath = optarg; break;
		case 'o': opath = optarg; break;
		case 's': spath = optarg; break;
		}
	}
	if (!cpath || !gpath || !lpath || optind != argc ||
	    !kpath != !opath || !kpath != !spath)
		lp_usage(synopsis);
	if (kpath)
		load_split(kpath, opath, spath);
	if (ipath)
		inputs = lp_yaml_load_path(ipath);
	lp_model_get(&m, inputs, ipath ? ipath : "inputs.yaml");
	lp_peaks_read(&pk, gpath);
	lp_rset_load(&rs, cpath, lpath);

	emit_meta(lpath, gpath, ipath);
	emit_waste(&rs, &m, &what);
	lp_tab_header(out, cols, NCOLS);
	emit_rows(&rs, &pk, &m, &what);

	lp_sb_free(&what);
	free(stage_copy);
	lp_rset_free(&rs);
	lp_peaks_free(&pk);
	lp_model_free(&m);
	lp_yaml_free(inputs);
	lp_tab_done(out);
	return 0;
}
