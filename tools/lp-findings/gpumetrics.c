/*
 * lp-findings' rules of GPU Metrics samples (gpumetrics.tsv) against the
 * model's utilisation (mfu.tsv, mbu.tsv).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "run.h"
#include "find.h"

/* The mean of a metric over a stage's row of gpumetrics.tsv; NAN if none. */
static double
gm_mean(const struct tab *gm, const char *stage, const char *metric)
{
	size_t i;

	for (i = 0; gm && i < gm->n; i++)
		if (!strcmp(text(gm, i, "stage"), stage) && !strcmp(text(gm, i,
		    "metric"), metric))
			return cell(gm, i, "mean");
	return NAN;
}

/* Two utilisations further apart than GPU Metrics sampling can say: more
 * than 2x apart and more than 2 percentage points.  The samples are whole
 * percent (1 % resolution a sample): on the fixture's nearly idle decode
 * step the tensor pipes read 0.345 % against an MFU of 0.015 % (23x, 0.33
 * points: small-batch tiles padded), while the prefill's 0.63 % matched
 * its MFU of 0.61 %. */
static int
disagree(double meas, double model)
{
	double lo = meas < model ? meas : model, hi = meas < model ? model :
	    meas;

	return !isnan(meas) && !isnan(model) && hi - lo > 2 && hi > 2 * lo;
}

static const char TENSOR[] = "Tensor Active [Throughput %]";
static const char SMS[] = "SMs Active [Throughput %]";
static const char DRD[] = "DRAM Read Bandwidth [Throughput %]";
static const char DWR[] = "DRAM Write Bandwidth [Throughput %]";

/* The stage's row of gpumetrics.tsv that speaks: the steady state where
 * both it and the model table have one (steady_col numeric), else all
 * instances.  Returns the row's stage name in k. */
static int
gm_steady(const struct tab *gm, const struct tab *m, size_t i,
    const char *steady_col, const char *metric, struct lp_sb *k)
{
	const char *stage = text(m, i, "stage");

	lp_sb_reset(k);
	lp_sb_printf(k, "%s:steady", stage);
	if (!isnan(cell(m, i, steady_col)) && !isnan(gm_mean(gm,
	    lp_sb_str(k), metric)))
		return 1;
	lp_sb_reset(k);
	lp_sb_printf(k, "%s", stage);
	return 0;
}

/* Rule measured-tensor (gpumetrics.tsv, mfu.tsv): the tensor pipes'
 * measured activity against the model arithmetic's MFU. */
void
gm_measured_tensor(struct findings *fs, const struct tab *gm,
    const struct tab *mf)
{
	struct lp_sb k = { 0 }, b = { 0 };
	size_t i;

	for (i = 0; i < mf->n; i++) {
		int st = gm_steady(gm, mf, i, "mfu_steady_pct", TENSOR, &k);
		double t = gm_mean(gm, lp_sb_str(&k), TENSOR);
		double sm = gm_mean(gm, lp_sb_str(&k), SMS);
		double m = cell(mf, i, st ? "mfu_steady_pct" : "mfu_pct");
		double mk = cell(mf, i, "mfu_kernel_pct");
		struct f *x;

		if (!disagree(t, m))
			continue;
		x = add(fs, "measured-tensor", NAN, gm->path, t < m ? "Check the "
		    "model config against the model (model.* in inputs.yaml: "
		    "parameters, layers, batch, prompt and decode lengths): "
		    "MFU counts more FLOPs than the tensor pipes ran. Else the "
		    "matmuls ran off the tensor cores (fp32 on CUDA cores: the "
		    "roofline's precision column)." : "Check the model config "
		    "against the model (model.* in inputs.yaml): MFU counts "
		    "fewer FLOPs than ran. Else the GPU does work the model "
		    "arithmetic does not know (tiles padded for a small batch, "
		    "recomputation, extra matmuls): the top kernels say which.",
		    "Stage %s%s: the tensor pipes were active %.3g%% of the "
		    "time (nsys GPU Metrics), the model arithmetic says %.3g%% "
		    "(MFU): %.3gx %s.", text(mf, i, "stage"), st ? ", steady "
		    "state" : "", t, m, t < m ? m / t : t / m, t < m ? "less "
		    "measured than modelled" : "more measured than modelled");
		lp_sb_reset(&b);
		if (!isnan(mk))
			lp_sb_printf(&b, "; MFU over kernel time %.3g%%%s", mk,
			    mk > 2 * t && sm < 50 ? ": the kernels' time "
			    "share hides SMs that sat idle" : "");
		ev(x, "Tensor Active %.3g%% over %s (gpumetrics.tsv), MFU %.3g%% "
		    "(mfu.tsv, %s); SMs Active %.3g%%%s", t, lp_sb_str(&k), m,
		    st ? "steady state" : "mean", sm, lp_sb_str(&b));
	}
	lp_sb_free(&k);
	lp_sb_free(&b);
}

/* Rule measured-dram (gpumetrics.tsv, mbu.tsv): DRAM read + write
 * bandwidth as sampled against the model arithmetic's MBU. */
void
gm_measured_dram(struct findings *fs, const struct tab *gm,
    const struct tab *mb)
{
	struct lp_sb k = { 0 };
	size_t i;

	for (i = 0; i < mb->n; i++) {
		int st = gm_steady(gm, mb, i, "mbu_steady_pct", DRD, &k);
		double rd = gm_mean(gm, lp_sb_str(&k), DRD);
		double wr = gm_mean(gm, lp_sb_str(&k), DWR);
		double d = rd + wr;
		double m = cell(mb, i, st ? "mbu_steady_pct" : "mbu_pct");
		struct f *x;

		if (!disagree(d, m))
			continue;
		x = add(fs, "measured-dram", NAN, gm->path, d < m ? "Check the "
		    "model config against the model (model.* in inputs.yaml: "
		    "parameters, bytes per weight, KV heads, batch, lengths): "
		    "MBU counts more bytes than DRAM moved. Else the weights "
		    "were read from L2 or another memory, not DRAM." : "Check "
		    "the model config against the model (model.* in "
		    "inputs.yaml): MBU counts fewer bytes than DRAM moved. "
		    "Else the GPU moves bytes the model arithmetic does not "
		    "know (activations written and read back, unfused "
		    "elementwise kernels, copies): the top kernels say which.",
		    "Stage %s%s: DRAM read + write bandwidth was %.3g%% of peak "
		    "(nsys GPU Metrics), the model arithmetic says %.3g%% "
		    "(MBU): %.3gx %s.", text(mb, i, "stage"), st ? ", steady "
		    "state" : "", d, m, d < m ? m / d : d / m, d < m ? "less "
		    "measured than modelled" : "more measured than modelled");
		ev(x, "DRAM read %.3g%% + write %.3g%% over %s (gpumetrics.tsv), "
		    "MBU %.3g%% (mbu.tsv, %s)", rd, wr, lp_sb_str(&k), m, st ?
		    "steady state" : "mean");
	}
	lp_sb_free(&k);
}
