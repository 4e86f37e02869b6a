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
	size_t n = strlen(d);
	const char *p = n ? strrchr(d, '(') : NULL;

	/* "NVIDIA H200 (1)": CUDA device 1, an NVIDIA H200 */
	if (p && p > d && p[-1] == ' ' && d[n - 1] == ')' &&
	    strspn(p + 1, "0123456789") == n - (size_t)(p - d) - 2 &&
	    n - (size_t)(p - d) > 2)
		n = (size_t)(p - d) - 1;
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
	if (g.other) {
		*other = lp_xstrdup(g.other);
		return g.name;
	}
	return g.name;
}

int
main(int argc, char **argv)
{
	const char *cpath = NULL, *npath = NULL, *tpath = NULL, *gpu = NULL;
	const char *dpath = NULL;
	const char *from = NULL;
	struct lp_ynode *cfg = NULL, *table, *env = NULL;
	const struct lp_ynode *cg, *e = NULL, *n;
	struct lp_row r = { 0 };
	static const struct lp_col cols[] = {
		{ "path", "Path", "text" }, { "precision", "Precision", "text" },
		{ "peak", "Dense peak", "si" }, { "unit", "Unit", "hide" },
		{ "from", "From", "text" },
	};
	char *ncu = NULL, *trace = NULL, *other = NULL;
	size_t i, known = 0;
	double v;
	int c;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "c:d:hn:t:")) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'd': dpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'n': npath = optarg; break;
		case 't': tpath = optarg; break;
		default: lp_usage(synopsis);
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
	if (cg && *lp_yaml_str(cg, "name", "")) {
		gpu = lp_yaml_str(cg, "name", "");
		from = "gpu.name in the config";
	} else if (env && (n = lp_yaml_get(env, "gpus.0.name")) &&
	    n->type == LP_Y_SCALAR && n->quoted) {
		gpu = n->s;
		from = "env.json (nvidia-smi)";
	} else if ((ncu = ncu_name(npath))) {
		gpu = ncu;
		from = "the ncu export (device__attribute_display_name)";
	} else if ((trace = trace_name(dpath, &other)) && !other) {
		gpu = trace;
		from = "nsys cuda_gpu_trace (its Device, less the device number)";
	}
	if (gpu)
		e = entry(table, gpu, tpath);

	lp_tab_meta(out, "title", "GPU Peaks");
	lp_tab_meta(out, "tool", "lp-gpu");
	if (e)
		lp_tab_meta(out, "source", "%s entry \"%s\" (dense, no 2:4 "
		    "sparsity; %s), matched on the name \"%s\" from %s", tpath,
		    lp_yaml_str(e, "name", gpu), lp_yaml_str(e, "source",
		    "source in the file"), gpu, from);
	else
		lp_tab_meta(out, "source", "%s%s", gpu ? "the GPU's name from " :
		    "no GPU name in env.json, the ncu export, the nsys trace or "
		    "the config", gpu ? from : "");
	lp_tab_meta(out, "gpu", "%s", gpu ? gpu : "");
	if (gpu)
		lp_tab_meta(out, "gpu_from", "%s", from);
	/* where the config sets peaks, none is asked for again: a peak it
	 * lacks is "n/a because the GPU is unknown" (lp_peaks_read) */
	for (i = 0; i <= NPEAKS; i++)
		known += figure(cg, i < NPEAKS ? peaks[i].key : "hbm_tbps",
		    i < NPEAKS ? peaks[i].prec : NULL, &v, cpath ? cpath :
		    "config", "gpu.");
	if (known)
		;
	else if (!gpu && other)
		lp_tab_meta(out, "why", "the GPU is unknown: cuda_gpu_trace names "
		    "two models (\"%s\", \"%s\"): %s, and gpu.name", trace,
		    other, howto);
	else if (!gpu)
		lp_tab_meta(out, "why", "the GPU is unknown (no nvidia-smi "
		    "data in env.json, no ncu device name, no nsys "
		    "cuda_gpu_trace): %s, and gpu.name", howto);
	else if (!e)
		lp_tab_meta(out, "why", "GPU \"%s\" is not in %s: %s", gpu,
		    tpath, howto);
	known = 0;
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (i = 0; i <= NPEAKS; i++) {
		const char *key = i < NPEAKS ? peaks[i].key : "hbm_tbps";
		const char *prec = i < NPEAKS ? peaks[i].prec : NULL;
		const char *src;

		if (figure(cg, key, prec, &v, cpath ? cpath : "config", "gpu."))
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
	if (!known) {
		lp_row_text(&r, "-");
		lp_row_text(&r, "-");
		if (!gpu)
			lp_row_na(&r, "the GPU is unknown: %s", howto);
		else
			lp_row_na(&r, "GPU \"%s\" is not in %s: %s", gpu, tpath,
			    howto);
		lp_row_text(&r, "-");
		lp_row_text(&r, "-");
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
	free(ncu);
	free(trace);
	free(other);
	lp_yaml_free(table);
	lp_yaml_free(cfg);
	lp_yaml_free(env);
	lp_tab_done(out);
	return 0;
}
