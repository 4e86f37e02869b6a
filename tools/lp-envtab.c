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
#include "esc.h"
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
	if (val) {	/* every value is a name, a version or a path */
		struct lp_sb b = { 0 };

		lp_md_name(&b, val);
		lp_row_text(r, lp_sb_str(&b));
		lp_row_text(r, src);
		lp_sb_free(&b);
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
	while (lp_tab_next(&t))	/* lp_tab_next checks each row */
		;
	lp_tsv_close(&t);
	fclose(fp);
	return g;
}

/* The documents lp-envtab reads, with the paths they came from. */
struct envtab {
	const char *cpath, *ipath, *gpath, *epath;	/* epath: NULL if none */
	struct lp_ynode *cfg, *inputs, *env;
};

/* Loads config.yaml, inputs.yaml (its model checked) and env.json. */
static void
load_docs(struct envtab *e)
{
	struct lp_model m;	/* the model's numbers, checked */

	e->cfg = lp_yaml_load_path(e->cpath);
	e->inputs = lp_yaml_load_path(e->ipath);
	lp_model_get(&m, e->inputs, e->ipath);
	lp_model_free(&m);
	if (e->epath)
		e->env = lp_yaml_load_path(e->epath);	/* JSON is YAML */
	if (e->env)
		lp_env_check(e->env, e->epath);
}

/* The # lines: title, tool, sources and env.json's notes; then the header. */
static void
emit_meta(const struct envtab *e)
{
	static const struct lp_col cols[] = {
		{ "item", "Item", "text" }, { "value", "Value", "text" },
		{ "source", "Source", "text" },
	};
	const struct lp_ynode *notes;
	size_t i;

	lp_tab_meta(out, "title", "Environment");
	lp_tab_meta(out, "tool", "lp-envtab");
	lp_tab_meta(out, "source", "%s, %s, %s", e->epath ? e->epath :
	    "no env.json", e->ipath, e->cpath);
	notes = e->env ? lp_yaml_get(e->env, "notes") : NULL;
	for (i = 0; notes && notes->type == LP_Y_SEQ && i < notes->n; i++)
		if (notes->v[i]->type == LP_Y_SCALAR)
			lp_tab_meta(out, "note", "Noted in env.json: %s",
			    notes->v[i]->s);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
}

/* The machine's rows: GPU (nvidia-smi's name, else gpu.tsv's), driver,
 * CUDA, tool versions, host, time and lp's revision. */
static void
emit_machine(struct lp_row *r, const struct envtab *e)
{
	const struct lp_ynode *env = e->env;
	struct lp_sb v = { 0 };
	char *pgpu, *pfrom = NULL;
	const char *why;
	int import;

	import = jstr(env, "mode") && !strcmp(jstr(env, "mode"), "import");
	why = !env ? "the run has no env.json (make RUN=... env.json)" :
	    import ? "imported exports, profiled elsewhere" : "see the notes "
	    "below";
	pgpu = peaks_gpu(e->gpath, &pfrom);	/* read (and checked) if given */
	if (jstr(env, "gpus.0.name"))
		item(r, "GPU", jstr(env, "gpus.0.name"), "env.json (nvidia-smi)",
		    "");
	else if (pgpu) {
		lp_sb_printf(&v, "gpu.tsv (%s)", pfrom);
		item(r, "GPU", pgpu, lp_sb_str(&v), "");
	} else
		item(r, "GPU", NULL, NULL, import ? "imported exports name no "
		    "GPU (no nvidia-smi record, no ncu device name, no nsys "
		    "cuda_gpu_trace, no gpu.name)" : "no nvidia-smi and no ncu "
		    "device name");
	item(r, "GPU UUID", jstr(env, "gpus.0.uuid"), "env.json (nvidia-smi)",
	    why);
	item(r, "Driver", jstr(env, "gpus.0.driver"), "env.json (nvidia-smi)",
	    why);
	item(r, "CUDA (driver API)", jstr(env, "cuda_driver_api"),
	    "env.json (nvidia-smi)", why);
	item(r, "Nsight Systems", jstr(env, "nsys_version"),
	    "env.json (nsys --version)", why);
	item(r, "Nsight Compute", jstr(env, "ncu_version"),
	    "env.json (ncu --version)", why);
	item(r, "Host", jstr(env, "host"), "env.json", "the run has no env.json");
	item(r, "Recorded (UTC)", jstr(env, "created_utc"), "env.json",
	    "the run has no env.json");
	item(r, "lp revision", jstr(env, "lp_revision"), "env.json",
	    "lp was not built from a git checkout");
	lp_sb_free(&v);
	free(pgpu);
	free(pfrom);
}

/* The workload: the command profiled (quoted for a shell) or the exports
 * imported. */
static void
emit_workload(struct lp_row *r, const struct envtab *e)
{
	const struct lp_ynode *argvn = lp_yaml_get(e->inputs, "workload.argv");
	const struct lp_ynode *imp = lp_yaml_get(e->inputs, "imports");
	struct lp_sb v = { 0 };
	size_t i;

	if (argvn && argvn->type == LP_Y_SEQ && argvn->n) {
		for (i = 0; i < argvn->n; i++) {
			if (i)
				lp_sb_addc(&v, ' ');
			lp_sh_quote(&v, argvn->v[i]->s);
		}
		item(r, "Workload", lp_sb_str(&v), "inputs.yaml (WORK)", "");
	} else if (imp && imp->type == LP_Y_SEQ) {
		for (i = 0; i < imp->n; i++) {
			if (imp->v[i]->type != LP_Y_SCALAR)
				lp_die_at(LP_EXIT_DATA, e->ipath, imp->v[i]->line,
				    0, "imports: expected a list of paths");
			lp_sb_printf(&v, "%s%s", i ? ", " : "imported: ",
			    imp->v[i]->s);
		}
		item(r, "Workload", lp_sb_str(&v), "inputs.yaml (IMPORT)", "");
	} else
		item(r, "Workload", NULL, NULL, "inputs.yaml names no workload");
	lp_sb_free(&v);
}

static void
emit_model(struct lp_row *r, const struct envtab *e)
{
	struct lp_sb v = { 0 };

	if (jstr(e->inputs, "model.name")) {	/* the name, then its file */
		lp_md_name(&v, jstr(e->inputs, "model.name"));
		lp_sb_adds(&v, " (");
		lp_md_name(&v, jstr(e->inputs, "model.config") ?
		    jstr(e->inputs, "model.config") : "?");
		lp_sb_adds(&v, ")");
		lp_row_text(r, "Model");
		lp_row_text(r, lp_sb_str(&v));
		lp_row_text(r, "inputs.yaml");
		lp_row_end(r, out);
	} else
		item(r, "Model", NULL, NULL, "no model config: pass MODEL=NAME "
		    "(conf/model/NAME.yaml) for model identity, MFU and MBU");
	lp_sb_free(&v);
}

/* The profiled stage: its NVTX range, and the kernels ncu was given. */
static void
emit_stage(struct lp_row *r, const struct envtab *e)
{
	const char *stage = lp_yaml_str(e->cfg, "run.stage", "");
	struct lp_sb v = { 0 };

	if (*stage) {
		struct lp_stage st;

		lp_stage_get(e->cfg, stage, &st, e->cpath);
		lp_sb_printf(&v, "%s (NVTX range ", stage);
		lp_nvtx_nsys_name(&v, &st);
		lp_sb_adds(&v, ")");
	} else
		lp_sb_adds(&v, "none (the whole capture)");
	/* an import made no selection: ncu profiled what its export holds */
	if (lp_yaml_get(e->inputs, "imports"))
		lp_sb_adds(&v, ", imported exports (lp selected no kernels for "
		    "ncu: the ncu export holds what its profile chose)");
	else
		lp_sb_printf(&v, ", mode %s, ncu on the launch configurations "
		    "carrying %ld %% of the stage's kernel time (at most %ld "
		    "kernel and configuration pairs; topn.tsv)", lp_yaml_str(e->cfg,
		    "run.mode", "?"), lp_cfg_long(e->cfg, "run.cover_pct", 95, 1,
		    100, e->cpath), lp_cfg_long(e->cfg, "run.top_n_shapes", 40, 1,
		    100000, e->cpath));
	item(r, "Profiled stage", lp_sb_str(&v), "config.yaml", "");
	lp_sb_free(&v);
}

int
main(int argc, char **argv)
{
	struct envtab e = { 0 };
	struct lp_row r = { 0 };
	int c;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "c:g:i:", synopsis)) != -1) {
		switch (c) {
		case 'c': e.cpath = optarg; break;
		case 'g': e.gpath = optarg; break;
		case 'i': e.ipath = optarg; break;
		}
	}
	if (!e.cpath || !e.ipath || argc - optind > 1)
		lp_usage(synopsis);
	e.epath = optind < argc ? argv[optind] : NULL;
	load_docs(&e);
	emit_meta(&e);
	emit_machine(&r, &e);
	emit_workload(&r, &e);
	emit_model(&r, &e);
	emit_stage(&r, &e);
	lp_sb_free(&r.b);
	lp_yaml_free(e.cfg);
	lp_yaml_free(e.inputs);
	lp_yaml_free(e.env);
	lp_tab_done(out);
	return 0;
}
