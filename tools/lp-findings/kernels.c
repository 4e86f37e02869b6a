/*
 * lp-findings' rules of kernels (roofline.tsv, top_kernels.tsv, gpu.tsv):
 * memory-bound, compute-bound, alignment, under-filled, below-roof,
 * dominant and fp32.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "run.h"
#include "find.h"

/* The share of a kernel's nsys time that one roofline point (a launch
 * shape) stands for: its own nsys time where roofline.tsv has it (the
 * launch configurations of cuda_gpu_trace, lp-shapes), else by ncu time. */
static double
shape_share(const struct tab *rf, size_t i)
{
	double all = 0, mine = NAN;
	size_t j;

	if (!isnan(cell(rf, i, "nsys_ns"))) {
		for (j = 0; j < rf->n; j++)
			if (!strcmp(text(rf, j, "kernel"), text(rf, i, "kernel")) &&
			    !isnan(cell(rf, j, "nsys_ns")))
				all += cell(rf, j, "nsys_ns");
		return all > 0 ? cell(rf, i, "nsys_ns") / all : 1;
	}
	for (j = 0; j < rf->n; j++) {
		double v = cell(rf, j, "ncu_launches") * cell(rf, j,
		    "ncu_ns_per_launch");

		if (strcmp(text(rf, j, "kernel"), text(rf, i, "kernel")))
			continue;
		if (isnan(v))
			return 1;	/* one point per kernel */
		all += v;
		if (j == i)
			mine = v;
	}
	return all > 0 ? mine / all : 1;
}

/* A top kernel's launch shape: its row of roofline.tsv and its time in
 * the run (top_kernels.tsv), the shape's part of it where a kernel has
 * several. */
struct shape {
	const char *cls, *roof, *name, *prec, *why, *grid;
	const char *op;		/* its operator class (top_kernels.tsv) */
	double frac, dram, ai, tot, share, part;
	const char *sh;		/* " (grid ...)" for a kernel of several shapes */
	int own;		/* tot is its own nsys time (roofline.tsv) */
};

/* Does a kernel of this operator class run in tiles (a GEMM, a
 * convolution), so that tile sizes are advice for it?  A LayerNorm's
 * are not. */
static int
tiled(const char *op)
{
	return op && (!strncmp(op, "GEMM", 4) || !strncmp(op, "Convolution", 11) ||
	    !strncmp(op, "Attention", 9));
}

/* Rule alignment: a kernel built for unaligned operands.  cuDNN's
 * convolutions are built for an alignment too: of the channels, not of
 * a GEMM's leading dimension. */
static struct f *
alignment(struct findings *fs, const char *path, const struct shape *p,
    double save)
{
	if (p->op && !strncmp(p->op, "Convolution", 11))
		return add(fs, "alignment", save, path, "Pad the channels (input "
		    "and output) to a multiple of 8 so cuDNN picks its aligned "
		    "kernels.", "%s%s is a convolution for unaligned operands "
		    "at %.3g%% of its %s roof.", code(p->name), p->sh, p->frac,
		    p->roof);
	return add(fs, "alignment", save, path,
	    strstr(p->why, "vocab") ? "Pad the vocabulary to a "
	    "multiple of 64 (model.resize_token_embeddings(n, "
	    "pad_to_multiple_of=64)) so cuBLAS picks its aligned "
	    "kernels, and in prefill compute the logits of the "
	    "last token only." : "Pad the GEMM's odd dimension "
	    "(a leading dimension that is not a multiple of 8 "
	    "elements) to a multiple of 64 so cuBLAS picks its "
	    "aligned kernels.",
	    "%s%s is a GEMM for unaligned operands at %.3g%% of "
	    "its %s roof%s.", code(p->name), p->sh, p->frac,
	    p->roof, strstr(p->why, "vocab") ? ": the vocabulary is "
	    "not a multiple of 8" : "");
}

static struct f *
acted(struct f *x, const char *clause)
{
	act(x, clause);
	return x;
}

/* Rule below-roof: far from its roof, for no reason its class names. */
static struct f *
below_roof(struct findings *fs, const char *path, const struct shape *p,
    double save)
{
	/* roofline.tsv's "below roof" without ", GPU filled": no launch
	 * statistics, so whether it fills the GPU is not known */
	if (!strstr(p->cls, "filled"))
		return add(fs, "below-roof", save, path, "Profile it with the "
		    "launch statistics (ncu's LaunchStats and Occupancy sections; "
		    "lp's default preset has them) to see whether it fills the "
		    "GPU: under a wave it needs more work per launch (larger batch, "
		    "fusion, split-K); with a full GPU, look at its stall reasons "
		    "and memory access pattern (NCU_PRESET=high) and the library's "
		    "choice of kernel for this shape.", "%s%s reaches only %.3g%% "
		    "of its %s roof; whether it fills the GPU is not known (waves "
		    "unknown: the export lacks the launch statistics).",
		    code(p->name), p->sh, p->frac, p->roof);
	return acted(add(fs, "below-roof", save, path, "The GPU is full, yet "
	    "the kernel is far from its roof: look at its stall reasons and "
	    "memory access pattern in ncu's sections (NCU_PRESET=high) and at "
	    "the library's choice of kernel for this shape.", "%s%s reaches only "
	    "%.3g%% of its %s roof with a full GPU.", code(p->name), p->sh,
	    p->frac, p->roof), "Look at its stall reasons and memory access "
	    "pattern (NCU_PRESET=high).");
}

/* Rules memory-bound, compute-bound, alignment, under-filled, below-roof:
 * which one the shape's class says. */
static struct f *
roof_finding(struct findings *fs, const char *path, const struct shape *p,
    int graphed)
{
	double save = p->tot * (1 - p->frac / 100);

	if (!strcmp(p->cls, "memory-bound"))
		return acted(add(fs, "memory-bound", save, path,
		    "Only fewer bytes help: weight-only int8/fp8 "
		    "quantisation, a lower-precision KV cache, fusing it "
		    "with its producer or consumer, or batching decode so "
		    "each weight read serves more tokens.",
		    "%s%s is memory-bound at %.3g%% of DRAM bandwidth.",
		    code(p->name), p->sh, p->dram), "Move fewer bytes: lower-"
		    "precision weights or KV cache, fusion, more tokens a "
		    "weight read.");
	if (!strcmp(p->cls, "compute-bound"))
		return acted(add(fs, "compute-bound", save, path,
		    "It is near its roof: only less math or a faster "
		    "precision helps (fp8 tensor cores where accuracy "
		    "allows, fewer FLOPs through fusion or sparsity).",
		    "%s%s reaches %.3g%% of the %s roof.", code(p->name),
		    p->sh, p->frac, p->prec), "Do less math or use a faster "
		    "precision.");
	if (!strcmp(p->cls, "alignment-limited"))
		return alignment(fs, path, p, save);
	if (!strncmp(p->cls, "latency", 7))
		return acted(add(fs, "under-filled", save, path,
		    strcmp(p->roof, "memory") ? (tiled(p->op) ? "Compute units "
		    "idle at this intensity: check occupancy and stall reasons "
		    "in ncu's sections (NCU_PRESET=high), and tile sizes for the "
		    "shape." : "Compute units idle at this intensity: check "
		    "occupancy and stall reasons in ncu's sections "
		    "(NCU_PRESET=high), and the launch's grid and block sizes.") :
		    graphed ? "Too little work per launch to fill the GPU or "
		    "hide memory latency: give it more (larger batch, fuse "
		    "neighbouring kernels, split-K or stream-K for skinny "
		    "GEMMs); its stage runs from CUDA graphs already, so launch "
		    "gaps are not what starves it." : "Too little work per "
		    "launch to fill the GPU or hide memory latency: give it more "
		    "(larger batch, fuse neighbouring kernels, split-K or "
		    "stream-K for skinny GEMMs) and hide launch gaps with CUDA "
		    "graphs.",
		    "%s%s reaches only %.3g%% of its %s roof.", code(p->name),
		    p->sh, p->frac, p->roof), strcmp(p->roof, "memory") ?
		    "Check its occupancy and stall reasons (NCU_PRESET=high)." :
		    "Give each launch more work.");
	return below_roof(fs, path, p, save);
}

/* Shape i of roofline.tsv with its time in the run (top_kernels.tsv), the
 * shape's part of it where a kernel has several, p->sh written in sh: 0
 * when it has no roof fraction or is not a top kernel. */
static int
shape_at(struct shape *p, const struct tab *rf, size_t i, const struct tab *tk,
    struct lp_sb *sh)
{
	size_t j;

	*p = (struct shape){ .cls = text(rf, i, "class"), .roof = text(rf, i,
	    "roof"), .name = text(rf, i, "name"), .prec = text(rf, i,
	    "precision"), .why = text(rf, i, "why"), .grid = text(rf, i, "grid"),
	    .frac = cell(rf, i, "roof_pct"), .dram = cell(rf, i, "dram_pct"),
	    .ai = cell(rf, i, "ai"), .tot = NAN, .share = NAN,
	    .part = shape_share(rf, i) };
	if (isnan(p->frac))
		return 0;
	for (j = 0; tk && j < tk->n; j++)
		if (!strcmp(text(tk, j, "kernel"), text(rf, i, "kernel"))) {
			p->tot = cell(tk, j, "total_ns");
			p->share = cell(tk, j, "share_pct");
			p->op = text(tk, j, "operator");
		}
	if (isnan(p->tot))
		return 0;
	/* a kernel of several shapes: this shape's part of its time,
	 * its own nsys time where roofline.tsv has it */
	p->own = !isnan(cell(rf, i, "nsys_ns"));
	if (p->own) {
		p->tot = cell(rf, i, "nsys_ns");
		p->share = cell(rf, i, "stage_pct");
	}
	if (p->part < 1) {
		if (!p->own) {
			p->tot *= p->part;
			p->share *= p->part;
		}
		lp_sb_printf(sh, " (grid %s)", p->grid);
	} else
		lp_sb_adds(sh, "");
	p->sh = lp_sb_str(sh);
	return 1;
}

/* The top kernels (each launch shape) against their roof (roofline.tsv),
 * with their run time from top_kernels.tsv: one of the rules of
 * roof_finding each, for at most max shapes. */
void
kern_roof(struct findings *fs, const struct tab *rf, const struct tab *tk,
    const struct tab *hs, size_t max)
{
	size_t i, done = 0;
	int graphed = 0;

	/* the top kernels' stage (top_kernels.tsv's range) runs from CUDA
	 * graphs: no advice to hide launch gaps with them */
	if (tk && hs && lp_tsv_comment(&tk->t, "range"))
		for (i = 0; i < hs->n; i++)
			if (!strcmp(text(hs, i, "range"), lp_tsv_comment(&tk->t,
			    "range")) && !strstr(text(hs, i, "stage"), ":steady") &&
			    graph_pct(hs, i) >= 50)
				graphed = 1;

	for (i = 0; i < rf->n && done < max; i++) {
		struct shape p;
		struct lp_sb sh = { 0 }, pct = { 0 };
		struct f *x;

		if (!shape_at(&p, rf, i, tk, &sh))
			continue;
		done++;
		x = roof_finding(fs, rf->path, &p, graphed);
		at_stage(x, tk ? lp_tsv_comment(&tk->t, "range") : NULL, 0);
		x->rank = 1;
		x->kernel = lp_xstrdup(text(rf, i, "kernel"));
		lp_sb_reset(&pct);
		lp_fmt_pct(&pct, p.share);
		ev(x, "%.3f ms in the stage (%s of its GPU time%s); AI %.4g "
		    "FLOP/B, %s, %.3g%% of DRAM bandwidth (ncu)%s%s", ms(p.tot),
		    lp_sb_str(&pct), p.own ? (p.part < 1 ? ", this launch "
		    "configuration's own (nsys cuda_gpu_trace)" : "") : p.part < 1 ?
		    ", the shape's part by ncu time" : "", p.ai, p.prec, p.dram,
		    *p.why ? "; " : "", p.why);
		lp_sb_free(&sh);
		lp_sb_free(&pct);
	}
}

/* Rule dominant: one kernel with a large share and no roofline point.
 * An import selected nothing: raising TOPN would not profile it. */
void
kern_dominant(struct findings *fs, const struct tab *tk, int imported)
{
	struct f *x;
	double share;
	const char *cls;
	int profiled;

	if (!tk || !tk->n || !((share = cell(tk, 0, "share_pct")) >= 25))
		return;
	cls = text(tk, 0, "class");
	/* a class is a roofline point (lp-topk writes "n/a because ..."
	 * otherwise), or communication: a collective's time is the ranks
	 * waiting; rules straggler and communication speak for it */
	if (strncmp(cls, "n/a", 3))
		return;
	profiled = !isnan(cell(tk, 0, "sm_pct"));
	x = add(fs, "dominant", NAN, tk->path, profiled && imported ? "Profile it "
	    "again with ncu collecting the tensor-core and SASS FLOP counters "
	    "and dram__bytes.sum (--set roofline, or lp's own run: make RUN=new "
	    "WORK=...) and import that export, so it gets a roofline point." :
	    profiled ? "Re-run the ncu step with "
	    "a preset that collects the tensor-core and SASS FLOP counters and "
	    "dram__bytes.sum (NCU_PRESET=default), so it gets a roofline point." :
	    imported ? "Profile it with ncu: the imported ncu export does not "
	    "hold it (lp selects the kernels to profile only for the runs it "
	    "profiles itself: make RUN=new WORK=...), or look at the unmatched "
	    "kernels under kernels.md." : "Profile it: raise TOPN, or look at "
	    "the unmatched kernels under kernels.md.", "One kernel takes %.3g%% of the stage's GPU time and "
	    "has no roofline point.", share);
	ev(x, "%s, %.3f ms; %s", code(text(tk, 0, "name")), ms(cell(tk, 0,
	    "total_ns")), profiled ? "ncu measured it (SM % and DRAM % in "
	    "top_kernels.tsv) without the FLOP counters" : "ncu did not measure "
	    "it");
}

/* Rule fp32: top matmul kernels doing fp32 on CUDA cores, with tensor
 * cores idle: TF32 and bf16 change matmuls only, so a LayerNorm's fp32
 * accumulation is not one (top_kernels.tsv's operator class says). */
void
kern_fp32(struct findings *fs, const struct tab *rf, const struct tab *tk,
    const struct lp_peaks *pk)
{
	double t = 0, tf = lp_peak_of(pk, LP_FP_TC_TF32), f = lp_peak_of(pk,
	    LP_FP_FP32);
	size_t i, j, n = 0;
	struct f *x;

	for (i = 0; rf && i < rf->n; i++)
		if (!strcmp(text(rf, i, "precision"), "fp32 (CUDA cores)") &&
		    strcmp(text(rf, i, "roof"), "memory"))
			for (j = 0; tk && j < tk->n; j++)
				if (!strcmp(text(tk, j, "kernel"), text(rf, i,
				    "kernel")) && strstr(text(tk, j, "operator"),
				    "GEMM")) {
					t += cell(tk, j, "total_ns");
					n++;
				}
	if (!n || !(tf > 0) || !(f > 0))
		return;
	x = add(fs, "fp32", t * (1 - f / tf), rf->path, "Enable TF32 "
	    "(torch.backends.cuda.matmul.allow_tf32 = True, cublasSetMathMode "
	    "CUBLAS_TF32_TENSOR_OP_MATH) or run the model in bf16.",
	    "%zu compute-side top matmul kernels run fp32 on CUDA cores.", n);
	at_stage(x, tk ? lp_tsv_comment(&tk->t, "range") : NULL, 0);
	x->rank = 1;
	ev(x, "%.3f ms of their time; TF32 tensor cores have %.3gx the fp32 "
	    "peak (gpu.tsv)", ms(t), tf / f);
}
