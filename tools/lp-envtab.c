/*
 * lp-envtab: environment.tsv, what was profiled and on what: GPU, driver,
 * CUDA, tool versions, host, time and lp's revision (env.json), the
 * workload and model (inputs.yaml) and the profiled stage (config.yaml).
 * Where nvidia-smi did not name the GPU, the name gpu.tsv's peaks are for
 * (one GPU name throughout the report).  What was not recorded says why.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-envtab -c config.yaml [-g gpu.tsv] -i inputs.yaml [env.json]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static const char *
jstr(const struct lp_ynode *n, const char *p)
{
	const char *s = n ? lp_yaml_str(n, p, NULL) : NULL;
	const struct lp_ynode *v = s ? lp_yaml_get(n, p) : NULL;

	if (!s || (!v->quoted && !strcmp(s, "null")))
		return NULL;
	return s;
}

static void
item(struct lp_row *r, const char *what, const char *val, const char *src,
    const char *missing)
{
	lp_row_text(r, what);
	if (val) {
		lp_row_text(r, val);
		lp_row_text(r, src);
	} else {
		lp_row_na(r, "%s", missing);
		lp_row_text(r, "-");
	}
	lp_row_end(r, out);
}

/* The GPU gpu.tsv (lp-gpu) measures the run against, and where its name
 * came from; NULL when it has none. */
static char *
peaks_gpu(const char *path, char **from)
{
	struct lp_tsv t;
	FILE *fp;
	const char *s;
	char *g = NULL;

	if (!path)
		return NULL;
	fp = lp_tab_open(&t, path, "lp-gpu, make RUN=... gpu.tsv");
	lp_tab_expect(&t, "lp-gpu");
	if ((s = lp_tsv_comment(&t, "gpu")) && *s) {
		g = lp_xstrdup(s);
		s = lp_tsv_comment(&t, "gpu_from");
		*from = lp_xstrdup(s && *s ? s : "lp-gpu");
	}
	while (lp_tsv_next(&t))
		lp_tab_check_row(&t);
	lp_tsv_close(&t);
	fclose(fp);
	return g;
}

int
main(int argc, char **argv)
{
	static const struct lp_col cols[] = {
		{ "item", "Item", "text" }, { "value", "Value", "text" },
		{ "source", "Source", "text" },
	};
	const char *cpath = NULL, *ipath = NULL, *gpath = NULL, *why;
	struct lp_ynode *cfg, *inputs, *env = NULL;
	const struct lp_ynode *argvn, *imp, *notes;
	struct lp_row r = { 0 };
	struct lp_sb v = { 0 };
	char *pgpu = NULL, *pfrom = NULL;
	const char *stage;
	size_t i;
	int c, import;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "c:g:hi:")) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'g': gpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'i': ipath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (!cpath || !ipath || argc - optind > 1)
		lp_usage(synopsis);
	cfg = lp_yaml_load_path(cpath);
	inputs = lp_yaml_load_path(ipath);
	{
		struct lp_model m;	/* the model's numbers, checked */

		lp_model_get(&m, inputs, ipath);
		lp_model_free(&m);
	}
	if (optind < argc)
		env = lp_yaml_load_path(argv[optind]);	/* JSON is YAML */
	if (env)
		lp_env_check(env, argv[optind]);
	import = jstr(env, "mode") && !strcmp(jstr(env, "mode"), "import");
	why = !env ? "the run has no env.json (make RUN=... env.json)" :
	    import ? "imported exports, profiled elsewhere" : "see the notes "
	    "below";

	lp_tab_meta(out, "title", "Environment");
	lp_tab_meta(out, "tool", "lp-envtab");
	lp_tab_meta(out, "source", "%s, %s, %s", argc > optind ?
	    argv[optind] : "no env.json", ipath, cpath);
	notes = env ? lp_yaml_get(env, "notes") : NULL;
	for (i = 0; notes && notes->type == LP_Y_SEQ && i < notes->n; i++)
		if (notes->v[i]->type == LP_Y_SCALAR)
			lp_tab_meta(out, "note", "Noted in env.json: %s",
			    notes->v[i]->s);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	pgpu = peaks_gpu(gpath, &pfrom);	/* read (and checked) if given */
	if (jstr(env, "gpus.0.name"))
		item(&r, "GPU", jstr(env, "gpus.0.name"), "env.json (nvidia-smi)",
		    "");
	else if (pgpu) {
		lp_sb_printf(&v, "gpu.tsv (%s)", pfrom);
		item(&r, "GPU", pgpu, lp_sb_str(&v), "");
		lp_sb_reset(&v);
	} else
		item(&r, "GPU", NULL, NULL, import ? "imported exports name no "
		    "GPU (no nvidia-smi record, no ncu device name, no nsys "
		    "cuda_gpu_trace, no gpu.name)" : "no nvidia-smi and no ncu "
		    "device name");
	item(&r, "GPU UUID", jstr(env, "gpus.0.uuid"), "env.json (nvidia-smi)",
	    why);
	item(&r, "Driver", jstr(env, "gpus.0.driver"), "env.json (nvidia-smi)",
	    why);
	item(&r, "CUDA (driver API)", jstr(env, "cuda_driver_api"),
	    "env.json (nvidia-smi)", why);
	item(&r, "Nsight Systems", jstr(env, "nsys_version"),
	    "env.json (nsys --version)", why);
	item(&r, "Nsight Compute", jstr(env, "ncu_version"),
	    "env.json (ncu --version)", why);
	item(&r, "Host", jstr(env, "host"), "env.json", "the run has no env.json");
	item(&r, "Recorded (UTC)", jstr(env, "created_utc"), "env.json",
	    "the run has no env.json");
	item(&r, "lp revision", jstr(env, "lp_revision"), "env.json",
	    "lp was not built from a git checkout");
	argvn = lp_yaml_get(inputs, "workload.argv");
	imp = lp_yaml_get(inputs, "imports");
	if (argvn && argvn->type == LP_Y_SEQ && argvn->n) {
		for (i = 0; i < argvn->n; i++) {
			if (i)
				lp_sb_addc(&v, ' ');
			lp_sh_quote(&v, argvn->v[i]->s);
		}
		item(&r, "Workload", lp_sb_str(&v), "inputs.yaml (WORK)", "");
	} else if (imp && imp->type == LP_Y_SEQ) {
		for (i = 0; i < imp->n; i++) {
			if (imp->v[i]->type != LP_Y_SCALAR)
				lp_die_at(LP_EXIT_DATA, ipath, imp->v[i]->line,
				    0, "imports: expected a list of paths");
			lp_sb_printf(&v, "%s%s", i ? ", " : "imported: ",
			    imp->v[i]->s);
		}
		item(&r, "Workload", lp_sb_str(&v), "inputs.yaml (IMPORT)", "");
	} else
		item(&r, "Workload", NULL, NULL, "inputs.yaml names no workload");
	lp_sb_reset(&v);
	if (jstr(inputs, "model.name")) {
		lp_sb_printf(&v, "%s (%s)", jstr(inputs, "model.name"),
		    jstr(inputs, "model.config") ? jstr(inputs, "model.config") :
		    "?");
		item(&r, "Model", lp_sb_str(&v), "inputs.yaml", "");
	} else
		item(&r, "Model", NULL, NULL, "no model config: pass MODEL=NAME "
		    "(conf/model/NAME.yaml) for model identity, MFU and MBU");
	lp_sb_reset(&v);
	stage = lp_yaml_str(cfg, "run.stage", "");
	if (*stage) {
		struct lp_stage st;

		lp_stage_get(cfg, stage, &st, cpath);
		lp_sb_printf(&v, "%s (NVTX range ", stage);
		lp_nvtx_nsys_name(&v, &st);
		lp_sb_adds(&v, ")");
	} else
		lp_sb_adds(&v, "none (the whole capture)");
	/* an import made no selection: ncu profiled what its export holds */
	if (imp)
		lp_sb_adds(&v, ", imported exports (lp selected no kernels for "
		    "ncu: the ncu export holds what its profile chose)");
	else
		lp_sb_printf(&v, ", mode %s, top %ld kernels", lp_yaml_str(cfg,
		    "run.mode", "?"), lp_cfg_long(cfg, "run.top_n_kernels", 10,
		    1, 100000, cpath));
	item(&r, "Profiled stage", lp_sb_str(&v), "config.yaml", "");
	free(pgpu);
	free(pfrom);
	lp_sb_free(&v);
	lp_sb_free(&r.b);
	lp_yaml_free(cfg);
	lp_yaml_free(inputs);
	lp_yaml_free(env);
	lp_tab_done(out);
	return 0;
}
