/*
 * lp-roofline's cells: a point against the roofline (its dominant
 * precision, intensity, achieved rates, peak, ridge, bound, class and why)
 * and its launch configuration's; the model's dimensions the
 * alignment-limited class names (inputs.yaml).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "run.h"
#include "roofline.h"

static void
dram_pct(struct lp_row *r, double bps, double bw)
{
	lp_row_pct(r, 100 * bps / bw, 100, "DRAM % of bandwidth", "ncu "
	    "measured more than gpu.tsv's DRAM bandwidth: the GPU's entry "
	    "(conf/gpus.yaml or SET=gpu.hbm_tbps) is too low");
}

/* The model's dimensions that are not a multiple of 8 (inputs.yaml):
 * a GEMM over one gets cuBLAS's alignment-1 kernels. */
static struct { const char *key; double v; } dims[3];
static double mhidden, mtokens;

void
cells_read_model(const char *path)
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

/* A point without FLOP counters: the DRAM bytes are there, so their
 * figures, n/a only for what needs the FLOPs. */
static void
bytes_cells(struct lp_row *r, const struct k *k, const struct lp_peaks *pk)
{
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
}

/* A point's cells from the ridge to the class's why, the bandwidth
 * known: the roof that bounds it and how near it came. */
static void
bound_cells(struct lp_row *r, const struct k *k, const struct lp_peaks *pk,
    const struct lp_roof *rf, int dom, double flop, struct lp_sb *w)
{
	if (rf->peak > 0)
		lp_row_g(r, rf->ridge);
	else
		lp_row_text(r, "n/a");
	/* below the ridge (or with no FLOPs) the bandwidth roof bounds;
	 * with no peak for its precision there is no ridge, and which
	 * roof bounds the kernel is unknown, not "compute" */
	if (!(dom < 0 || rf->peak > 0)) {
		lp_row_na(r, "no peak for %s", lp_fp_label(dom));
		lp_row_na(r, "no peak for %s: which roof bounds it is "
		    "unknown", lp_fp_label(dom));
		dram_pct(r, rf->bps, pk->bw);
		return;
	}
	lp_row_text(r, rf->mem ? "memory" : "compute");
	lp_row_pct(r, 100 * rf->frac, 100, "% of roof", "ncu "
	    "measured more than gpu.tsv's %s: the GPU's entry "
	    "(conf/gpus.yaml or SET=gpu.*) is too low", rf->mem ?
	    "DRAM bandwidth" : "peak");
	dram_pct(r, rf->bps, pk->bw);
	if (100 * rf->frac > 100) {
		lp_row_text(r, "n/a");
		lp_row_na(r, "above its roof: gpu.tsv's %s is too "
		    "low", rf->mem ? "DRAM bandwidth" : "peak");
		return;
	}
	lp_row_text(r, classify(w, k, rf->frac, rf->mem, dom, flop));
	lp_row_text(r, lp_sb_str(w));
}

/* A point's cells from the dominant precision to the class's why; stops
 * at the first cell it cannot compute (the caller pads with n/a). */
void
cells_roof(struct lp_row *r, const struct k *k, const struct lp_peaks *pk,
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
		bytes_cells(r, k, pk);
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
	bound_cells(r, k, pk, &rf, dom, flop, w);
}

/* The launch shape's cells, appended last to the table. */
void
cells_shape(struct lp_row *sr, const struct k *k, const char *mpath,
    const struct stage_shapes *ss)
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
			lp_row_na(sr, "%s", ss->why ? ss->why : !ss->idx ? "no launch "
			    "configurations from nsys (lp-roofline -s shapes.tsv; "
			    "the run lacks cuda_gpu_trace)" : !*k->grid ? "no launch shape" :
			    "nsys saw no launch of this configuration in the stage");
}
