/*
 * lp-regions: regions.tsv, each NVTX region measured whole by ncu (range or
 * app-range replay): its GPU duration, the span of the range on the GPU
 * with every kernel and gap inside, first instance against the steady state,
 * beside nsys's projection of the same range on the GPU and the kernel time
 * nsys saw in it, SOL SM % and DRAM %.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"

static const char synopsis[] =
    "lp-regions -c config.yaml [-k nvtx_kern_sum.csv] [-p nvtx_gpu_proj_trace.csv] "
    "[-w ratio] -l exports.list";

static void
mean_of(struct lp_row *r, const struct lp_rinsts *x, int which)
{
	double s = 0;
	size_t i, k = 0;

	for (i = 0; i < x->n; i++)
		if (which ? x->in[i].have_dram : x->in[i].have_sm) {
			s += which ? x->in[i].dram : x->in[i].sm;
			k++;
		}
	if (k)
		lp_row_num(r, s / (double)k, 2);
	else
		lp_row_na(r, "the ncu export has no %s",
		    which ? "DRAM throughput" : "SM throughput");
}

static const struct lp_col cols[] = {
	{ "path", "Region", "text" }, { "region", "Name", "hide" },
	{ "depth", "Depth", "hide" }, { "instances", "Instances", "int" },
	{ "device", "Device", "text" },
	{ "gpu_first_ns", "First on GPU (ms)", "ms" },
	{ "gpu_steady_ns", "Steady on GPU (ms)", "ms" },
	{ "warmup", "Warm-up", "text" },
	{ "nsys_steady_ns", "nsys projection (ms)", "ms" },
	{ "ncu_over_nsys", "ncu / nsys", "x" },
	{ "kernels_per_inst", "Kernels / instance", "num1" },
	{ "kernel_ns_per_inst", "Kernel time / instance (ms)", "ms" },
	{ "busy_pct", "GPU busy", "pct" },
	{ "sm_pct", "SM %", "num1" }, { "dram_pct", "DRAM %", "num1" },
};

static void
emit_meta(FILE *out, const struct lp_rset *rs, const struct lp_regopts *o)
{
	lp_tab_meta(out, "title", "Regions");
	lp_tab_meta(out, "tool", "lp-regions");
	lp_tab_meta(out, "source", "GPU duration, SOL SM %% and DRAM %% of each "
	    "NVTX region from ncu (%s replay, exports listed in %s); nsys's "
	    "projection of the same ranges on the GPU (%s) and the kernels "
	    "launched inside them (%s)", lp_yaml_str(rs->cfg,
	    "ncu_regions.replay_mode", "app-range"), o->lpath, o->ppath ?
	    o->ppath : "no nvtx_gpu_proj_trace", o->kpath ? o->kpath :
	    "no nvtx_kern_sum");
	lp_tab_meta(out, "note", "A region's GPU duration is the span of the "
	    "range on the GPU, gaps between kernels included; ncu replays the "
	    "application with locked clocks, so it differs from nsys's "
	    "projection of the same range in the run. Steady = the median "
	    "instance after the first; warm-up when the first took more than "
	    "%g times that. GPU busy = nsys kernel time per instance / steady "
	    "GPU duration.", o->ratio);
	lp_tab_meta(out, "link", "regions.md");
}

/* ncu's instances: first against steady on the GPU; returns the steady
 * duration (the first's when there is one instance). */
static double
emit_ncu(struct lp_row *r, const struct lp_rinsts *x, double ratio)
{
	double first, steady = lp_rinsts_steady(x, &first);

	lp_row_num(r, (double)x->n, 0);
	lp_row_text(r, *x->in[0].device ? x->in[0].device : "-");
	lp_row_num(r, first, 0);
	if (isnan(steady)) {
		lp_row_na(r, "one instance");
		lp_row_text(r, "n/a");
		return first;
	}
	lp_row_num(r, steady, 1);
	lp_row_text(r, first > ratio * steady ? "yes" : "no");
	return steady;
}

/* nsys's projection of the range on the GPU, against ncu's steady span. */
static void
emit_nsys(struct lp_row *r, struct lp_rnsys *y, double steady,
    const char *ppath)
{
	double ns, nf;

	if (y->n > 0) {
		ns = lp_rnsys_steady(y, &nf);
		if (isnan(ns))
			ns = nf;
		lp_row_num(r, ns, 1);
		lp_row_g(r, steady / ns);
	} else {
		lp_row_na(r, "%s", ppath ? "the range is not in "
		    "nvtx_gpu_proj_trace" : "the run has no "
		    "nvtx_gpu_proj_trace report (nsys stats --report "
		    "nvtx_gpu_proj_trace)");
		lp_row_text(r, "n/a");
	}
}

/* The kernels nsys saw in region j per instance, and the GPU-busy share. */
static void
emit_kernels(struct lp_row *r, const struct lp_rset *rs, size_t j,
    double steady, const char *kpath)
{
	double kpi;

	if (rs->nvtx_n[j] > 0) {
		kpi = rs->kern_ns[j] / rs->nvtx_n[j];
		lp_row_num(r, rs->kern_n[j] / rs->nvtx_n[j], 1);
		lp_row_num(r, kpi, 1);
		lp_row_pct(r, 100 * kpi / steady, 12800, "GPU busy",
		    "more kernel time per instance than 128 kernels at "
		    "once fill in its steady-state wall time: the "
		    "reports are not of one capture");
	} else {
		lp_row_na(r, "%s", kpath ? "no kernels of the range in "
		    "nvtx_kern_sum" : "the run has no nvtx_kern_sum report");
		lp_row_text(r, "n/a");
		lp_row_text(r, "n/a");
	}
}

static void
emit_region(FILE *out, struct lp_row *r, struct lp_rset *rs, size_t j,
    const struct lp_regopts *o)
{
	const struct lp_rinsts *x = &rs->ncu[j];
	char *path = lp_region_path(rs->rg, rs->n, j);
	double steady;

	lp_row_text(r, path);
	lp_row_text(r, rs->rg[j].name);
	lp_row_num(r, rs->rg[j].depth, 0);
	free(path);
	if (!x->n)
		lp_row_na(r, "ncu measured no instance of %s", rs->rg[j].nsys);
	else {
		steady = emit_ncu(r, x, o->ratio);
		emit_nsys(r, &rs->nsys[j], steady, o->ppath);
		emit_kernels(r, rs, j, steady, o->kpath);
		mean_of(r, x, 0);
		mean_of(r, x, 1);
	}
	lp_row_end_na(r, sizeof cols / sizeof cols[0], out);
}

int
main(int argc, char **argv)
{
	static const struct lp_regtool t = { "c:k:l:p:w:", synopsis, cols,
	    sizeof cols / sizeof cols[0], 0, emit_meta, emit_region };

	return lp_regtool_main(argc, argv, &t);
}
