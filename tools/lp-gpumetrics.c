/*
 * lp-gpumetrics: gpumetrics.tsv, what the GPU did during each stage as
 * nsys's GPU Metrics sampling measured it (nsys profile
 * --gpu-metrics-devices=all): SMs active, SM issue, tensor active, DRAM
 * read and write bandwidth (% of peak, and bytes/s from the peak the
 * export gives), the clocks, averaged over the samples inside each
 * instance of each stage (its projection on the GPU, nvtx_gpu_proj_trace,
 * else its host range, nvtx_pushpop_trace), for the stage and for its
 * instances after each process's first (STAGE:steady).
 *
 * The samples are read from nsys's sqlite export (GPU_METRICS,
 * TARGET_INFO_GPU_METRICS, TARGET_INFO_GPU) through SQLite's C library:
 * no nsys stats report and no CSV export of them exists.  Each sample
 * goes to the instances that hold its timestamp (a binary search over
 * each stage's instances), in the table's order: memory holds the
 * stages' instances and their sums, never the samples.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "nsql.h"
#include "table.h"
#include "nsight.h"
#include "run.h"
#include "lp-gpumetrics/gpumetrics.h"

static const char synopsis[] =
    "lp-gpumetrics [-n] -c config.yaml [-g gpu.tsv] [-p nvtx_gpu_proj_trace.csv] "
    "[-t nvtx_pushpop_trace.csv] [-T type-id] report.sqlite";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

/* ---- the table ---- */

static const struct lp_col cols[] = {
	{ "stage", "Stage", "text" }, { "metric", "Metric", "text" },
	{ "unit", "Unit", "hide" }, { "basis", "Instances from", "text" },
	{ "instances", "Instances", "int" },
	{ "sampled_instances", "Sampled instances", "int" },
	{ "samples", "Samples", "int" },
	{ "mean", "Mean", "q" }, { "p50", "p50 of instances", "q" },
	{ "p90", "p90 of instances", "q" },
};
#define NCOLS (sizeof cols / sizeof cols[0])
/* several GPUs: the same with the GPU after the stage */
static const struct lp_col gpucol = { "gpu", "GPU", "text" };

struct opts {
	const char *cpath, *gpath, *ppath, *tpath, *want;
	int none_ok;
};

/* A source's GPU, for the rows: gpu -1 (one GPU), every instance. */
struct on {
	int64_t gpu;
	const char *label;
};

/* A row's cells before its figures: the stage, the GPU (label), the
 * metric and its unit, and where the instances come from. */
static void
name_cells(struct lp_row *r, struct lp_sb *b, const struct stage *g,
    int steady, size_t k, int bytes, const char *label)
{
	lp_sb_printf(b, "%s%s", g->name, steady ? ":steady" : "");
	lp_row_text(r, lp_sb_str(b));
	lp_sb_reset(b);
	if (label)
		lp_row_text(r, label);
	if (bytes) {
		lp_sb_adds(b, metrics[k].name);
		b->len -= strlen(" [Throughput %]");
		lp_sb_adds(b, " [bytes/s]");
		lp_row_text(r, lp_sb_str(b));
		lp_row_text(r, "B/s");
	} else {
		lp_row_text(r, metrics[k].name);
		lp_row_text(r, metrics[k].unit == M_UNIT_PCT ? "pct" : "MHz");
	}
	lp_row_text(r, g->proj ? "GPU projection" : "host range");
}

/* One row: the samples of the instances of g (steady: not their
 * process's first; those on o's GPU) for metric k, times scale (bytes/s
 * rows). */
static void
emit_row(struct lp_row *r, const struct stage *g, int steady, size_t k,
    int64_t id, int bytes, double bw, const char *bw_why, const struct on *o)
{
	struct lp_sb b = { 0 };
	double sum = 0, *per = lp_xcalloc(g->n + 1, sizeof *per);
	double scale = bytes ? bw / 100 : 1;
	long samples = 0;
	size_t i, ni = 0, ns = 0;

	name_cells(r, &b, g, steady, k, bytes, o->label);
	for (i = 0; i < g->n; i++) {
		const struct inst *in = &g->in[i];

		if ((steady && in->first) || (o->gpu >= 0 && in->gpu != o->gpu))
			continue;
		ni++;
		if (in->n[k]) {
			per[ns++] = inst_sum(in, k) / (double)in->n[k];
			sum += inst_sum(in, k);
			samples += in->n[k];
		}
	}
	lp_row_num(r, (double)ni, 0);
	if (!ni) {
		lp_row_na(r, "the range has no instance in the traces "
		    "(outside the capture, or never pushed)");
	} else if (id < 0)
		lp_row_na(r, "the export has no metric \"%s\" (another GPU "
		    "or nsys version)", metrics[k].name);
	else if (bytes && !(bw > 0))
		lp_row_na(r, "%s", bw_why);
	else if (!ns)
		lp_row_na(r, "no sample inside any instance (each shorter "
		    "than the sampling period?)");
	else {
		lp_row_num(r, (double)ns, 0);
		lp_row_num(r, (double)samples, 0);
		lp_row_g(r, scale * sum / (double)samples);
		lp_row_g(r, scale * lp_quantile(per, ns, 0.5));
		lp_row_g(r, scale * lp_quantile(per, ns, 0.9));
	}
	lp_row_end_na(r, NCOLS + !!o->label, out);
	free(per);
	lp_sb_free(&b);
}

/* Instances after their process's first (on GPU gpu, -1: any): a
 * steady state to report. */
static int
has_steady(const struct stage *g, int64_t gpu)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!g->in[i].first && (gpu < 0 || g->in[i].gpu == gpu))
			return 1;
	return 0;
}

static void
emit_meta(const char *path, const struct opts *o, int64_t src, long used,
    const char *gname, double bw)
{
	lp_tab_meta(out, "title", "GPU Metrics per Stage");
	lp_tab_meta(out, "tool", "lp-gpumetrics");
	lp_tab_meta(out, "source", "nsys GPU Metrics samples (GPU_METRICS of "
	    "%s, typeId %" PRId64 ", %ld samples of these metrics) inside "
	    "each instance of the stages of %s: their projection on the GPU "
	    "(%s), else their host range (%s)%s%s%s", path, src, used, o->cpath,
	    o->ppath ? o->ppath : "no nvtx_gpu_proj_trace", o->tpath ? o->tpath :
	    "no nvtx_pushpop_trace", gname ? "; DRAM bytes/s = % x " : "",
	    gname ? gname : "", gname ? "'s memoryBandwidth in "
	    "TARGET_INFO_GPU" : "");
	if (bw > 0)
		lp_tab_meta(out, "note", "DRAM bandwidth of the GPU: %.6g "
		    "bytes/s (TARGET_INFO_GPU).", bw);
	lp_tab_meta(out, "note", "A sample counts for an instance when its "
	    "timestamp is inside it. Mean = the mean of all those samples "
	    "(time-weighted: the samples are evenly spaced); p50 and p90 are "
	    "over the instances' own means (type 7). STAGE:steady = the "
	    "instances after each process's first (a row where there are "
	    "any). Clocks in MHz (nsys "
	    "writes Hz under \"[MHz]\").");
}

/* -n: a run without samples or without ranges gets a table that says why
 * and that the summary leaves out ("# omit:"), instead of an error. */
static void
emit_none(const char *why)
{
	struct lp_row r = { 0 };

	lp_tab_meta(out, "title", "GPU Metrics per Stage");
	lp_tab_meta(out, "tool", "lp-gpumetrics");
	lp_tab_meta(out, "source", "none: %s", why);
	lp_tab_meta(out, "omit", "no samples");
	lp_tab_header(out, cols, NCOLS);
	lp_row_na(&r, "%s", why);
	lp_row_end_na(&r, NCOLS, out);
	lp_sb_free(&r.b);
	lp_tab_done(out);
}

/* The stages of the config, each with its range; the config returned. */
static struct lp_ynode *
load_stages(struct gm *gm, const char *cpath)
{
	struct lp_ynode *cfg = lp_yaml_load_path(cpath);

	gm->stg = lp_stage_table(cfg, cpath, &gm->nstg, 0, sizeof *gm->stg,
	    offsetof(struct stage, name), offsetof(struct stage, range));
	return cfg;
}

/* The metrics sources (GPUs) the table shows, in *t[0..*n): 1 for one
 * (-T, or the only one), 2 for several (emit_gpus).  With -n, an export
 * without samples gets emit_none's table instead: 0. */
static int
pick_source(const struct gm *gm, const struct opts *o, int64_t **t, size_t *n)
{
	if (o->none_ok && !(lp_sql_has_table(gm->db, gm->path,
	    "TARGET_INFO_GPU_METRICS") && lp_sql_has_table(gm->db, gm->path,
	    "GPU_METRICS"))) {
		struct lp_sb b = { 0 };

		lp_sb_printf(&b, "%s has no GPU Metrics samples (no table "
		    "GPU_METRICS): nsys profile ran without "
		    "--gpu-metrics-devices (nsys_cli.gpu_metrics_frequency: "
		    "0), or could not sample this GPU", gm->path);
		emit_none(lp_sb_str(&b));
		lp_sb_free(&b);
		return 0;
	}
	export_need_tables(gm);
	*n = export_type_ids(gm, t);
	if (!o->want && *n > 1)
		return 2;
	(*t)[0] = export_source_of(gm, *t, *n, o->want);
	*n = 1;
	return 1;
}

/* The export's DRAM bandwidth (its GPU's name in *gname), 0 with why:
 * the datasheet's (-g gpu.tsv; 0 without -g or a figure) is what its
 * memoryBandwidth may not exceed twice. */
static double
gpu_bw(const struct gm *gm, const char *gpath, char **gname,
    struct lp_sb *why)
{
	struct lp_peaks pk;
	double bw = 0;

	if (gpath) {
		lp_peaks_read(&pk, gpath);
		bw = pk.bw;
		lp_peaks_free(&pk);
	}
	return lp_sql_gpu_bw(gm->db, gm->path, bw, gname, why);
}

/* A GPU's rows (one: all instances): two rows a metric of bytes (%,
 * bytes/s), one a metric else, for each stage and its steady state. */
static void
emit_rows(const struct gm *gm, struct lp_row *r, const struct on *on,
    const int64_t *id, double bw, const char *bw_why)
{
	const struct stage *stg = gm->stg;
	size_t i, k;
	int steady;

	for (i = 0; i < gm->nstg; i++)
		for (steady = 0; steady < 1 + has_steady(&stg[i], on->gpu);
		    steady++)
			for (k = 0; k < NM; k++) {
				emit_row(r, &stg[i], steady, k, id[k], 0, bw,
				    bw_why, on);
				if (metrics[k].bytes)
					emit_row(r, &stg[i], steady, k, id[k],
					    1, bw, bw_why, on);
			}
}

/* The samples of source src, read into the stages' instances, and the
 * table. */
static void
emit_table(struct gm *gm, const struct opts *o, int64_t src)
{
	static const struct on one = { -1, NULL };
	struct lp_sb why = { 0 };
	const char *bw_why;
	char *gname;
	struct lp_row r = { 0 };
	int64_t id[NM];
	double bw;
	long used;

	export_metric_ids(gm, src, id);
	bw = gpu_bw(gm, o->gpath, &gname, &why);
	bw_why = lp_sb_str(&why);
	used = export_read_samples(gm, src, id, -1);
	export_check_dram_sum(gm, src, id);

	emit_meta(gm->path, o, src, used, bw > 0 ? gname : NULL, bw);
	lp_tab_header(out, cols, NCOLS);
	emit_rows(gm, &r, &one, id, bw, bw_why);
	free(gname);
	lp_sb_free(&why);
	lp_tab_done(out);
	lp_sb_free(&r.b);
}

/* How many instances of the stages ran on GPU gpu. */
static size_t
insts_on(const struct gm *gm, int64_t gpu)
{
	size_t i, k, n = 0;

	for (i = 0; i < gm->nstg; i++)
		for (k = 0; k < gm->stg[i].n; k++)
			n += gm->stg[i].in[k].gpu == gpu;
	return n;
}

/* The # lines of the table of several GPUs and its header, the one-GPU
 * columns with the GPU after the stage: each typeId's GPU (gs[0..ng)),
 * those without instances (on[i] 0), several the processes on many. */
static void
gpus_meta(const struct gm *gm, const struct opts *o, const struct gsrc *gs,
    size_t ng, const size_t *on, long used, const char *several,
    const char *gname)
{
	struct lp_sb src = { 0 }, idle = { 0 };
	struct lp_col gcols[NCOLS + 1];
	size_t i, placed = 0;

	for (i = 0; i < ng; i++) {
		lp_sb_printf(&src, "%stypeId %" PRId64 ": %s, bus %s", i ? "; " :
		    "", gs[i].type, gs[i].label, gs[i].bus);
		if (!on[i])
			lp_sb_printf(&idle, "%s%s", idle.len ? ", " : "",
			    gs[i].label);
		placed += on[i] > 0;
	}
	lp_tab_meta(out, "title", "GPU Metrics per Stage");
	lp_tab_meta(out, "tool", "lp-gpumetrics");
	lp_tab_meta(out, "source", "nsys GPU Metrics samples of %zu GPUs "
	    "(GPU_METRICS of %s, %ld samples of these metrics; %s) inside "
	    "each instance of the stages of %s on its process's GPU (the "
	    "deviceId of its kernels, CUPTI_ACTIVITY_KIND_KERNEL, through "
	    "TARGET_INFO_CUDA_DEVICE): their projection on the GPU (%s), else "
	    "their host range (%s)%s%s%s", ng, gm->path, used, lp_sb_str(&src),
	    o->cpath,
	    o->ppath ? o->ppath : "no nvtx_gpu_proj_trace", o->tpath ?
	    o->tpath : "no nvtx_pushpop_trace", gname ? "; DRAM bytes/s = % x " :
	    "", gname ? gname : "", gname ? "'s memoryBandwidth in "
	    "TARGET_INFO_GPU" : "");
	lp_tab_meta(out, "key", "stage\tgpu\tmetric");
	lp_tab_meta(out, "gpus", "%zu", placed);
	lp_tab_meta(out, "note", "A typeId's GPU is the TARGET_INFO_GPU row "
	    "whose id is its low byte (nsys 2025.3.1 numbers them so; the "
	    "rows' busLocation is the GPU's PCI bus, tests/gpu/README.md). A "
	    "sample counts for an instance on its GPU when its timestamp is "
	    "inside it; mean, p50 and p90 as for one GPU (lp-gpumetrics(1)).");
	if (idle.len)
		lp_tab_meta(out, "note", "Sampled, no instance on it: %s.",
		    lp_sb_str(&idle));
	if (*several)
		lp_tab_meta(out, "note", "Processes %s ran kernels on several "
		    "GPUs: their instances are in no GPU's rows.", several);
	gcols[0] = cols[0];
	gcols[1] = gpucol;
	memcpy(gcols + 2, cols + 1, (NCOLS - 1) * sizeof *cols);
	lp_tab_header(out, gcols, NCOLS + 1);
	lp_sb_free(&src);
	lp_sb_free(&idle);
}

/* Samples of several GPUs (typeIds t[0..n)): each source placed on its
 * GPU, each instance on its process's (gpus.c), a GPU's samples counted
 * for the instances on it; rows by GPU.  Where lp cannot tie them: with
 * -n a table that says why (omitted from the reports), else an error. */
static void
emit_gpus(struct gm *gm, const struct opts *o, const int64_t *t, size_t n)
{
	struct lp_sb why = { 0 }, several = { 0 }, bwhy = { 0 };
	struct lp_row r = { 0 };
	struct gsrc *gs;
	int64_t *id;
	size_t *on, i;
	char *gname;
	double bw;
	long used = 0;

	gpus_sources(gm, t, n, &gs, &why);
	if (!why.len)
		gpus_place_insts(gm, &why, &several);
	if (why.len) {
		lp_sb_printf(&bwhy, "samples of %zu GPUs and lp cannot tell which "
		    "GPU each is: %s; lp-gpumetrics -T TYPEID reads one", n,
		    lp_sb_str(&why));
		if (!o->none_ok)
			lp_die(LP_EXIT_DATA, "%s: %s", gm->path, lp_sb_str(&bwhy));
		emit_none(lp_sb_str(&bwhy));
		goto done;
	}
	bw = gpu_bw(gm, o->gpath, &gname, &bwhy);
	id = lp_xcalloc(n * NM, sizeof *id);
	on = lp_xcalloc(n, sizeof *on);
	for (i = 0; i < n; i++) {
		export_metric_ids(gm, gs[i].type, id + i * NM);
		used += export_read_samples(gm, gs[i].type, id + i * NM,
		    gs[i].gpu);
		export_check_dram_sum(gm, gs[i].type, id + i * NM);
		on[i] = insts_on(gm, gs[i].gpu);
	}
	gpus_meta(gm, o, gs, n, on, used, lp_sb_str(&several), bw > 0 ? gname :
	    NULL);
	for (i = 0; i < n; i++) {
		struct on g = { gs[i].gpu, gs[i].label };

		if (on[i])
			emit_rows(gm, &r, &g, id + i * NM, bw, lp_sb_str(&bwhy));
	}
	lp_tab_done(out);
	free(on);
	free(id);
	free(gname);
	lp_sb_free(&r.b);
done:
	gpus_sources_free(gs, n);
	lp_sb_free(&why);
	lp_sb_free(&several);
	lp_sb_free(&bwhy);
}

static void
free_state(struct gm *gm, struct lp_ynode *cfg)
{
	size_t i, k;

	for (i = 0; i < gm->nstg; i++) {
		for (k = 0; k < gm->stg[i].n; k++)
			free(gm->stg[i].in[k].pid);
		free(gm->stg[i].in);
		free(gm->stg[i].maxend);
		free(gm->stg[i].range);
	}
	free(gm->stg);
	sqlite3_close(gm->db);
	lp_yaml_free(cfg);
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct gm gm = { 0 };
	struct lp_ynode *cfg;
	int64_t *types = NULL;
	size_t ntypes = 0;
	int c;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "c:g:np:t:T:", synopsis)) != -1) {
		switch (c) {
		case 'c': o.cpath = optarg; break;
		case 'g': o.gpath = optarg; break;
		case 'n': o.none_ok = 1; break;
		case 'p': o.ppath = optarg; break;
		case 't': o.tpath = optarg; break;
		case 'T': o.want = optarg; break;
		}
	}
	if (!o.cpath || (!o.ppath && !o.tpath && !o.none_ok) || argc - optind != 1)
		lp_usage(synopsis);
	gm.path = argv[optind];
	if (!o.ppath && !o.tpath) {
		emit_none("the run has no NVTX range trace to place the samples "
		    "in (nsys stats --report nvtx_pushpop_trace or "
		    "nvtx_gpu_proj_trace)");
		return 0;
	}
	cfg = load_stages(&gm, o.cpath);
	insts_read(&gm, o.ppath, o.tpath);

	gm.db = lp_sql_open(gm.path);
	switch (pick_source(&gm, &o, &types, &ntypes)) {
	case 1: emit_table(&gm, &o, types[0]); break;
	case 2: emit_gpus(&gm, &o, types, ntypes); break;
	}
	free(types);
	free_state(&gm, cfg);
	return 0;
}
