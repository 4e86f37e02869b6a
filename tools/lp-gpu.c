/*
 * lp-gpu: gpu.tsv, the dense peaks a run is measured against.  The GPU is
 * gpu.name in the config, else the one nvidia-smi named in env.json, else
 * ncu's device name, else nsys cuda_gpu_trace's Device less its " (N)"
 * (all its devices one model); its peaks come from the table of GPUs, entry
 * by entry the exact name nvidia-smi prints, and the config's gpu.* keys
 * override or add figures.  A GPU that is not there gets "n/a because" and
 * the way to set its peaks, never a zero.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-gpu [-c config.yaml] [-d cuda_gpu_trace.csv] [-n ncu.csv] -t gpus.yaml "
    "[env.json]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static const struct {
	const char *path, *key, *prec;
} peaks[] = {
	{ "tensor", "tensor_tflops", "fp16" }, { "tensor", "tensor_tflops", "bf16" },
	{ "tensor", "tensor_tflops", "tf32" }, { "tensor", "tensor_tflops", "fp8" },
	{ "tensor", "tensor_tflops", "int8" }, { "tensor", "tensor_tflops", "fp64" },
	{ "cuda", "cuda_tflops", "fp32" }, { "cuda", "cuda_tflops", "fp16" },
	{ "cuda", "cuda_tflops", "fp64" },
};
#define NPEAKS (sizeof peaks / sizeof peaks[0])

static const char howto[] = "set its dense peaks per run with SET='gpu.tensor_"
    "tflops.fp16=... gpu.cuda_tflops.fp32=... gpu.hbm_tbps=...' or add the GPU "
    "to conf/gpus.yaml";

/* A figure of a table entry or of the config: "", 0 and absent are unset. */
static int
figure(const struct lp_ynode *n, const char *key, const char *prec,
    double *v, const char *file, const char *where)
{
	struct lp_sb b = { 0 };
	const struct lp_ynode *x;

	lp_sb_printf(&b, "%s%s%s", key, prec ? "." : "", prec ? prec : "");
	x = n ? lp_yaml_get(n, lp_sb_str(&b)) : NULL;
	if (x && x->type != LP_Y_SCALAR)
		lp_die_at(LP_EXIT_DATA, file, x->line, 0, "%s%s: expected a "
		    "number, got a %s", where, lp_sb_str(&b), x->type ==
		    LP_Y_MAP ? "mapping" : "list");
	if (!x || !*x->s) {
		lp_sb_free(&b);
		return 0;
	}
	if (!lp_num_get(x->s, v) || *v < 0 || *v > 1e9)
		lp_die_at(LP_EXIT_DATA, file, x->line, 0, "%s%s: expected a "
		    "number from 0 (not set) up, got \"%s\"", where,
		    lp_sb_str(&b), x->s);
	lp_sb_free(&b);
	return *v > 0;
}

/* The entry whose names list holds exactly this name. */
static const struct lp_ynode *
entry(const struct lp_ynode *table, const char *gpu, const char *file)
{
	const struct lp_ynode *g = lp_yaml_get(table, "gpus"), *names;
	size_t i, j;

	if (!g || g->type != LP_Y_SEQ)
		lp_die_at(LP_EXIT_DATA, file, table->line, 0, "no \"gpus:\" list");
	for (i = 0; i < g->n; i++) {
		names = lp_yaml_get(g->v[i], "names");
		if (!names || names->type != LP_Y_SEQ)
			lp_die_at(LP_EXIT_DATA, file, g->v[i]->line, 0, "an entry "
			    "needs \"names:\", the names nvidia-smi prints");
		for (j = 0; j < names->n; j++)
			if (names->v[j]->type == LP_Y_SCALAR &&
			    !strcmp(names->v[j]->s, gpu))
				return g->v[i];
	}
	return NULL;
}

/* What ncu called the GPU: device__attribute_display_name of its export. */
static void
devname(const struct lp_ncu_result *r, void *ctx)
{
	char **name = ctx;

	if (!*name && *r->devname)
		*name = lp_xstrdup(r->devname);
}

static char *
ncu_name(const char *path)
{
	FILE *fp;
	char *name = NULL;

	if (!path)
		return NULL;
	if (!(fp = fopen(path, "r")))
		lp_die_sys("%s", path);
	lp_ncu_read(fp, path, devname, &name);
	fclose(fp);
	return name;
}

struct trace_gpu {
	char *name;	/* the first device's model */
	char *other;	/* another model, if any */
};

static void
trace_row(const struct lp_rep_row *rr, void *ctx)
{
	struct trace_gpu *g = ctx;
	const char *d = rr->v[0];
	size_t n = lp_gpu_model_len(d);

	if (!n || g->other)
		return;
	if (!g->name)
		g->name = lp_xstrndup(d, n);
	else if (strlen(g->name) != n || strncmp(g->name, d, n))
		g->other = lp_xstrndup(d, n);
}

/* What nsys called the GPUs: cuda_gpu_trace's Device, one model for all,
 * else NULL (*other says which two differ). */
static char *
trace_name(const char *path, char **other)
{
	static const char *const cols[] = { "Device" };
	struct trace_gpu g = { 0 };

	if (!path)
		return NULL;
	lp_rep_file(path, "nsys stats --report cuda_gpu_trace", cols, 1,
	    trace_row, &g);
	*other = g.other;	/* the caller's, with the name */
	return g.name;
}

/* The GPU's name and where it came from; ncu, trace and other are what
 * the exports named (freed by the caller). */
struct gpu_id {
	const char *name, *from;	/* NULL when no source names the GPU */
	char *ncu, *trace, *other;
};

/* The GPU is gpu.name in the config, else nvidia-smi's (env.json), else
 * ncu's device name, else the one model of the nsys trace. */
static void
identify_gpu(struct gpu_id *g, const struct lp_ynode *cg,
    const struct lp_ynode *env, const char *npath, const char *dpath)
{
	const struct lp_ynode *n;

	if (cg && *lp_yaml_str(cg, "name", "")) {
		g->name = lp_yaml_str(cg, "name", "");
		g->from = "gpu.name in the config";
	} else if (env && (n = lp_yaml_get(env, "gpus.0.name")) &&
	    n->type == LP_Y_SCALAR && n->quoted) {
		g->name = n->s;
		g->from = "env.json (nvidia-smi)";
	} else if ((g->ncu = ncu_name(npath))) {
		g->name = g->ncu;
		g->from = "the ncu export (device__attribute_display_name)";
	} else if ((g->trace = trace_name(dpath, &g->other)) && !g->other) {
		g->name = g->trace;
		g->from = "nsys cuda_gpu_trace (its Device, less the device "
		    "number)";
	}
}

/* The key of peak i (NPEAKS: the memory bandwidth), its precision (NULL
 * for bandwidth). */
static const char *
peak_key(size_t i)
{
	return i < NPEAKS ? peaks[i].key : "hbm_tbps";
}

static const char *
peak_prec(size_t i)
{
	return i < NPEAKS ? peaks[i].prec : NULL;
}

/* The # lines: title, tool, the entry the peaks come from and the GPU. */
static void
emit_meta(const struct gpu_id *g, const struct lp_ynode *e, const char *tpath)
{
	lp_tab_meta(out, "title", "GPU Peaks");
	lp_tab_meta(out, "tool", "lp-gpu");
	if (e)
		lp_tab_meta(out, "source", "%s entry \"%s\" (dense, no 2:4 "
		    "sparsity; %s), matched on the name \"%s\" from %s", tpath,
		    lp_yaml_str(e, "name", g->name), lp_yaml_str(e, "source",
		    "source in the file"), g->name, g->from);
	else
		lp_tab_meta(out, "source", "%s%s", g->name ? "the GPU's name "
		    "from " : "no GPU name in env.json, the ncu export, the nsys "
		    "trace or the config", g->name ? g->from : "");
	lp_tab_meta(out, "gpu", "%s", g->name ? g->name : "");
	if (g->name)
		lp_tab_meta(out, "gpu_from", "%s", g->from);
}

/* Why the table has no peaks, unless the config sets some: where it does,
 * none is asked for again: a peak it lacks is "n/a because the GPU is
 * unknown" (lp_peaks_read). */
static void
emit_why(const struct gpu_id *g, const struct lp_ynode *e,
    const struct lp_ynode *cg, const char *cfile, const char *tpath)
{
	size_t i, known = 0;
	double v;

	for (i = 0; i <= NPEAKS; i++)
		known += figure(cg, peak_key(i), peak_prec(i), &v, cfile, "gpu.");
	if (known)
		;
	else if (!g->name && g->other)
		lp_tab_meta(out, "why", "the GPU is unknown: cuda_gpu_trace names "
		    "two models (\"%s\", \"%s\"): %s, and gpu.name", g->trace,
		    g->other, howto);
	else if (!g->name)
		lp_tab_meta(out, "why", "the GPU is unknown (no nvidia-smi "
		    "data in env.json, no ncu device name, no nsys "
		    "cuda_gpu_trace): %s, and gpu.name", howto);
	else if (!e)
		lp_tab_meta(out, "why", "GPU \"%s\" is not in %s: %s", g->name,
		    tpath, howto);
}

/* A row per peak, the config's figure before the table entry's; one
 * "n/a because" row if there is none. */
static void
emit_peaks(const struct gpu_id *g, const struct lp_ynode *e,
    const struct lp_ynode *cg, const char *cfile, const char *tpath)
{
	struct lp_row r = { 0 };
	size_t i, known = 0;
	double v;

	for (i = 0; i <= NPEAKS; i++) {
		const char *key = peak_key(i), *prec = peak_prec(i), *src;

		if (figure(cg, key, prec, &v, cfile, "gpu."))
			src = "config (SET= or conf/runner/stage2.yaml)";
		else if (figure(e, key, prec, &v, tpath, ""))
			src = tpath;
		else
			continue;
		lp_row_text(&r, i < NPEAKS ? peaks[i].path : "dram");
		lp_row_text(&r, i < NPEAKS ? prec : "-");
		lp_row_num(&r, v * 1e12, 0);
		lp_row_text(&r, i < NPEAKS ? "FLOP/s" : "B/s");
		lp_row_text(&r, src);
		lp_row_end(&r, out);
		known++;
	}
	/* the link between GPUs, last: each direction, per GPU (lp-rankfall) */
	if (known && figure(e, "link_gbps", NULL, &v, tpath, "")) {
		lp_row_text(&r, "link");
		lp_row_text(&r, "-");
		lp_row_num(&r, v * 1e9, 0);
		lp_row_text(&r, "B/s");
		lp_row_text(&r, tpath);
		lp_row_end(&r, out);
	}
	if (!known) {
		lp_row_text(&r, "-");
		lp_row_text(&r, "-");
		if (!g->name)
			lp_row_na(&r, "the GPU is unknown: %s", howto);
		else
			lp_row_na(&r, "GPU \"%s\" is not in %s: %s", g->name,
			    tpath, howto);
		lp_row_text(&r, "-");
		lp_row_text(&r, "-");
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	static const struct lp_col cols[] = {
		{ "path", "Path", "text" }, { "precision", "Precision", "text" },
		{ "peak", "Dense peak", "si" }, { "unit", "Unit", "hide" },
		{ "from", "From", "text" },
	};
	const char *cpath = NULL, *dpath = NULL, *npath = NULL, *tpath = NULL;
	struct lp_ynode *cfg = NULL, *table, *env = NULL;
	const struct lp_ynode *cg, *e = NULL;
	struct gpu_id g = { 0 };
	int c;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "c:d:n:t:", synopsis)) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'd': dpath = optarg; break;
		case 'n': npath = optarg; break;
		case 't': tpath = optarg; break;
		}
	}
	if (argc - optind > 1 || !tpath)
		lp_usage(synopsis);
	table = lp_yaml_load_path(tpath);
	if (cpath)
		cfg = lp_yaml_load_path(cpath);
	cg = cfg ? lp_yaml_get(cfg, "gpu") : NULL;
	if (optind < argc) {
		env = lp_yaml_load_path(argv[optind]);	/* JSON is YAML */
		lp_env_check(env, argv[optind]);
	}
	identify_gpu(&g, cg, env, npath, dpath);
	if (g.name)
		e = entry(table, g.name, tpath);
	emit_meta(&g, e, tpath);
	emit_why(&g, e, cg, cpath ? cpath : "config", tpath);
	lp_tab_meta(out, "key", "path precision");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	emit_peaks(&g, e, cg, cpath ? cpath : "config", tpath);
	free(g.ncu);
	free(g.trace);
	free(g.other);
	lp_yaml_free(table);
	lp_yaml_free(cfg);
	lp_yaml_free(env);
	lp_tab_done(out);
	return 0;
}
