/*
 * lp-summary: stakeholder_summary.md from the files of one run folder.
 * Every section is filled from data that exists; where data is missing it
 * says which file is missing and how to get it, never a silent zero.
 */
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lp.h"

static const char synopsis[] = "lp-summary [-n N] rundir";

/* ---- the run's files ---- */

struct krow {
	char *kernel;
	double total, calls, sm, dram, flops, ncu_time, ncu_launches;
	int have_sm, have_dram, have_flops, have_ncu;
	char *devname;
};

struct stage_time {
	char *range;
	double total, inst, avg;	/* nvtx_sum: wall time */
	double ktime, klaunch;		/* nvtx_kern_sum: kernels inside */
	int have_wall, have_kern;
};

struct run {
	const char *dir;
	struct lp_ynode *cfg, *inputs, *env;
	/* kernels.tsv */
	struct krow *k;
	size_t nk;
	double ktotal;
	char *k_time, *k_range, *k_metrics, *k_match;
	size_t k_unmatched;
	/* nsys reports */
	int have_ksum, have_nvtx, have_nvtxk, have_api, have_mem;
	struct lp_ksum ksum;
	struct stage_time *st;
	size_t nst;
	double api_total, api_calls, api_launch;
	char *api_top;
	double api_top_t;
	double mem_total, mem_count;
	struct lp_sb gaps;	/* missing inputs, for the findings */
};

static char *
path(const struct run *r, const char *rel)
{
	struct lp_sb b = { 0 };

	lp_sb_printf(&b, "%s/%s", r->dir, rel);
	return lp_sb_steal(&b);
}

static int
exists(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static void
gap(struct run *r, const char *what)
{
	lp_sb_printf(&r->gaps, "%s\x1f", what);
}

static char *
dupnull(const char *s)
{
	return s ? lp_xstrdup(s) : NULL;
}

static void
read_kernels(struct run *r)
{
	char *p = path(r, "kernels.tsv");
	struct lp_tsv t;
	FILE *fp = fopen(p, "r");
	int ck, ct, cc, cs, cd, cf, cnt, cnl, cn;
	size_t i;

	if (!fp)
		lp_die_sys("%s (make it first: make RUN=... kernels.tsv)", p);
	lp_tsv_open(&t, fp, p);
	ck = lp_csv_need(&t.hdr, "kernel", "lp-kernjoin output");
	ct = lp_csv_need(&t.hdr, "total_ns", "lp-kernjoin output");
	cc = lp_csv_need(&t.hdr, "calls", "lp-kernjoin output");
	cs = lp_csv_col(&t.hdr, "sm_throughput_pct");
	cd = lp_csv_col(&t.hdr, "dram_throughput_pct");
	cf = lp_csv_col(&t.hdr, "flops");
	cnt = lp_csv_col(&t.hdr, "ncu_time_ns");
	cnl = lp_csv_col(&t.hdr, "ncu_launches");
	cn = lp_csv_col(&t.hdr, "device_name");
	while (lp_tsv_next(&t)) {
		struct krow *k;

		r->k = lp_xreallocarray(r->k, r->nk + 1, sizeof *r->k);
		k = &r->k[r->nk++];
		memset(k, 0, sizeof *k);
		k->kernel = lp_xstrdup(lp_tsv_get(&t, ck));
		k->devname = lp_xstrdup(lp_tsv_get(&t, cn));
		if (!lp_num_get(lp_tsv_get(&t, ct), &k->total) ||
		    !lp_num_get(lp_tsv_get(&t, cc), &k->calls))
			lp_die_at(LP_EXIT_DATA, p, t.line, 0, "no total_ns or calls");
		k->have_sm = lp_num_get(lp_tsv_get(&t, cs), &k->sm);
		k->have_dram = lp_num_get(lp_tsv_get(&t, cd), &k->dram);
		k->have_flops = lp_num_get(lp_tsv_get(&t, cf), &k->flops);
		k->have_ncu = lp_num_get(lp_tsv_get(&t, cnt), &k->ncu_time) &&
		    lp_num_get(lp_tsv_get(&t, cnl), &k->ncu_launches);
		r->ktotal += k->total;
	}
	if (!r->nk)
		lp_die_at(LP_EXIT_DATA, p, t.line, 0, "no kernel rows");
	r->k_time = dupnull(lp_tsv_comment(&t, "time"));
	r->k_range = dupnull(lp_tsv_comment(&t, "range"));
	r->k_metrics = dupnull(lp_tsv_comment(&t, "metrics"));
	r->k_match = dupnull(lp_tsv_comment(&t, "match"));
	for (i = 0; i < t.ncomments; i++)
		r->k_unmatched += !strncmp(t.comments[i], "unmatched:", 10);
	lp_tsv_close(&t);
	fclose(fp);
	free(p);
}

/* A small CSV report: the named columns of every row go to fn. */
struct csvq {
	const char *file, *what;
	const char *const *cols;
	int n;
	int idx[8];
	int have_hdr;
	struct lp_csv_hdr hdr;
	void (*fn)(struct run *, const char *const *v, long line, const char *f);
	struct run *r;
};

static int
csvq_row(const struct lp_csv_rec *rec, void *ctx)
{
	struct csvq *q = ctx;
	const char *v[8];
	int i;

	if (!q->have_hdr) {
		if (!lp_csv_rec_has(rec, "Total Time"))
			return 0;	/* what nsys printed above the CSV */
		lp_csv_hdr_init(&q->hdr, rec, q->file);
		for (i = 0; i < q->n; i++) {
			q->idx[i] = lp_csv_col(&q->hdr, q->cols[i]);
			if (q->idx[i] < 0 && !strncmp(q->cols[i], "Total Time", 10))
				q->idx[i] = lp_csv_col_prefix(&q->hdr, "Total Time");
			if (q->idx[i] < 0)
				lp_csv_need(&q->hdr, q->cols[i], q->what);
		}
		q->have_hdr = 1;
		return 0;
	}
	for (i = 0; i < q->n; i++)
		v[i] = lp_csv_field(rec, q->idx[i]);
	q->fn(q->r, v, rec->line, q->file);
	return 0;
}

static int
report(struct run *r, const char *rel, const char *what,
    const char *const *cols, int n,
    void (*fn)(struct run *, const char *const *, long, const char *))
{
	char *p = path(r, rel);
	struct csvq q;
	FILE *fp;

	if (!exists(p)) {
		struct lp_sb b = { 0 };

		lp_sb_printf(&b, "`%s` is missing (%s)", rel, what);
		gap(r, lp_sb_str(&b));
		lp_sb_free(&b);
		free(p);
		return 0;
	}
	if (!(fp = fopen(p, "r")))
		lp_die_sys("%s", p);
	memset(&q, 0, sizeof q);
	q.file = p;
	q.what = what;
	q.cols = cols;
	q.n = n;
	q.fn = fn;
	q.r = r;
	lp_csv_read(fp, p, csvq_row, NULL, &q);
	if (!q.have_hdr)
		lp_die_at(LP_EXIT_DATA, p, 0, 0, "no header with a \"Total Time\" "
		    "column (not %s)", what);
	fclose(fp);
	lp_csv_hdr_free(&q.hdr);
	free(p);
	return 1;
}

static double
need_num(const char *s, long line, const char *file)
{
	double v;

	if (!lp_num_get(s, &v))
		lp_die_at(LP_EXIT_DATA, file, line, 0, "not a number: \"%s\"", s);
	return v;
}

static struct stage_time *
stage_slot(struct run *r, const char *range)
{
	size_t i;

	for (i = 0; i < r->nst; i++)
		if (!strcmp(r->st[i].range, range))
			return &r->st[i];
	r->st = lp_xreallocarray(r->st, r->nst + 1, sizeof *r->st);
	memset(&r->st[r->nst], 0, sizeof r->st[0]);
	r->st[r->nst].range = lp_xstrdup(range);
	return &r->st[r->nst++];
}

static void
nvtx_row(struct run *r, const char *const *v, long line, const char *f)
{
	struct stage_time *s = stage_slot(r, v[3]);

	s->total += need_num(v[0], line, f);
	s->inst += need_num(v[1], line, f);
	s->avg = s->inst > 0 ? s->total / s->inst : 0;
	s->have_wall = 1;
}

static void
nvtxk_row(struct run *r, const char *const *v, long line, const char *f)
{
	struct stage_time *s;

	if (!*v[0])
		return;		/* kernels outside every range */
	s = stage_slot(r, v[0]);
	s->ktime += need_num(v[1], line, f);
	s->klaunch += need_num(v[2], line, f);
	s->have_kern = 1;
}

static void
api_row(struct run *r, const char *const *v, long line, const char *f)
{
	double t = need_num(v[0], line, f), c = need_num(v[1], line, f);

	r->api_total += t;
	r->api_calls += c;
	if (strstr(v[2], "LaunchKernel"))
		r->api_launch += c;
	if (t > r->api_top_t) {
		free(r->api_top);
		r->api_top = lp_xstrdup(v[2]);
		r->api_top_t = t;
	}
}

static void
mem_row(struct run *r, const char *const *v, long line, const char *f)
{
	r->mem_total += need_num(v[0], line, f);
	r->mem_count += need_num(v[1], line, f);
}

static void
load(struct run *r)
{
	static const char *const nvtx_cols[] = { "Total Time (ns)", "Instances",
		"Style", "Range" };
	static const char *const nvtxk_cols[] = { "NVTX Range", "Total Time (ns)",
		"Kern Inst" };
	static const char *const api_cols[] = { "Total Time (ns)", "Num Calls",
		"Name" };
	static const char *const mem_cols[] = { "Total Time (ns)", "Count",
		"Operation" };
	char *p;

	p = path(r, "config.yaml");
	r->cfg = lp_yaml_load_path(p);
	free(p);
	p = path(r, "inputs.yaml");
	if (exists(p))
		r->inputs = lp_yaml_load_path(p);
	else
		gap(r, "`inputs.yaml` is missing (make RUN=... inputs.yaml)");
	free(p);
	p = path(r, "env.json");
	if (exists(p))
		r->env = lp_yaml_load_path(p);	/* JSON is YAML */
	else
		gap(r, "`env.json` is missing (make RUN=... env.json)");
	free(p);
	read_kernels(r);
	p = path(r, "nsys/report_cuda_gpu_kern_sum.csv");
	if (exists(p)) {
		FILE *fp = fopen(p, "r");

		if (!fp)
			lp_die_sys("%s", p);
		lp_ksum_read(&r->ksum, fp, p, NULL);
		fclose(fp);
		lp_ksum_sort(&r->ksum);
		r->have_ksum = 1;
	} else
		gap(r, "`nsys/report_cuda_gpu_kern_sum.csv` is missing "
		    "(nsys stats --report cuda_gpu_kern_sum)");
	free(p);
	r->have_nvtx = report(r, "nsys/report_nvtx_sum.csv",
	    "nsys stats --report nvtx_sum", nvtx_cols, 4, nvtx_row);
	r->have_nvtxk = report(r, "nsys/report_nvtx_kern_sum.csv",
	    "nsys stats --report nvtx_kern_sum", nvtxk_cols, 3, nvtxk_row);
	r->have_api = report(r, "nsys/report_cuda_api_sum.csv",
	    "nsys stats --report cuda_api_sum", api_cols, 3, api_row);
	r->have_mem = report(r, "nsys/report_cuda_gpu_mem_time_sum.csv",
	    "nsys stats --report cuda_gpu_mem_time_sum", mem_cols, 3, mem_row);
}

/* ---- helpers for the Markdown ---- */

static const char *
jstr(const struct lp_ynode *n, const char *p)
{
	const struct lp_ynode *v = n ? lp_yaml_get(n, p) : NULL;

	if (!v || v->type != LP_Y_SCALAR || (!v->quoted && !strcmp(v->s, "null")))
		return NULL;
	return v->s;
}

static void
out(struct lp_sb *b)
{
	fputs(lp_sb_str(b), stdout);
	lp_sb_reset(b);
}

static void
pct(struct lp_sb *b, double part, double whole)
{
	if (whole > 0) {
		lp_fmt_num(b, 100.0 * part / whole, 1);
		lp_sb_addc(b, '%');
	} else
		lp_sb_adds(b, "-");
}

static const char *
gpu_name(const struct run *r, const char **src)
{
	size_t i;
	const char *g = jstr(r->env, "gpus.0.name");

	if (g) {
		*src = "env.json (nvidia-smi)";
		return g;
	}
	for (i = 0; i < r->nk; i++)
		if (*r->k[i].devname) {
			*src = "ncu export (device__attribute_display_name)";
			return r->k[i].devname;
		}
	*src = NULL;
	return NULL;
}

/* The peak table entry whose "match" occurs in the GPU's name. */
static const struct lp_ynode *
gpu_peaks(const struct run *r, const char *gpu)
{
	const struct lp_ynode *g = lp_yaml_get(r->cfg, "gpus");
	size_t i;

	if (!g || g->type != LP_Y_SEQ || !gpu)
		return NULL;
	for (i = 0; i < g->n; i++) {
		const char *m = lp_yaml_str(g->v[i], "match", NULL);

		if (m && *m && strstr(gpu, m))
			return g->v[i];
	}
	return NULL;
}

static const char *
stage_name(const struct run *r)
{
	return lp_yaml_str(r->cfg, "run.stage", "");
}

static void
range_of(const struct run *r, const char *stage, struct lp_sb *b)
{
	const struct lp_ynode *s = lp_yaml_get(r->cfg, "stages");
	struct lp_stage st;
	size_t i;

	for (i = 0; s && s->type == LP_Y_MAP && i < s->n; i++)
		if (!strcmp(s->keys[i], stage)) {
			lp_stage_get(r->cfg, stage, &st, "config.yaml");
			lp_nvtx_nsys_name(b, &st);
			return;
		}
}

static struct stage_time *
find_stage(const struct run *r, const char *range)
{
	size_t i;

	for (i = 0; i < r->nst; i++)
		if (lp_nvtx_range_match(range, r->st[i].range))
			return &r->st[i];
	return NULL;
}

/* ---- sections ---- */

static void
env_row(struct lp_sb *b, const char *item, const char *val, const char *src,
    const char *missing)
{
	lp_sb_printf(b, "| %s | ", item);
	if (val) {
		lp_md_escape(b, val);
		lp_sb_adds(b, " | ");
		lp_md_escape(b, src);
	} else {
		lp_sb_adds(b, "not recorded: ");
		lp_md_escape(b, missing);
		lp_sb_adds(b, " | -");
	}
	lp_sb_adds(b, " |\n");
	out(b);
}

static void
environment(struct run *r)
{
	struct lp_sb b = { 0 }, v = { 0 };
	const char *src, *gpu = gpu_name(r, &src);
	const struct lp_ynode *argv = r->inputs ? lp_yaml_get(r->inputs,
	    "workload.argv") : NULL, *imp = r->inputs ? lp_yaml_get(r->inputs,
	    "imports") : NULL;
	int import = jstr(r->env, "mode") && !strcmp(jstr(r->env, "mode"), "import");
	const char *why = import ? "imported exports (profiled elsewhere)" :
	    "see the notes below";
	size_t i;

	puts("## Environment\n");
	puts("| Item | Value | Source |\n|:-----|:------|:-------|");
	env_row(&b, "GPU", gpu, src ? src : "", import ? why :
	    "no nvidia-smi and no ncu device name");
	env_row(&b, "GPU UUID", jstr(r->env, "gpus.0.uuid"),
	    "env.json (nvidia-smi)", why);
	env_row(&b, "Driver", jstr(r->env, "gpus.0.driver"),
	    "env.json (nvidia-smi)", why);
	env_row(&b, "CUDA (driver API)", jstr(r->env, "cuda_driver_api"),
	    "env.json (nvidia-smi)", why);
	env_row(&b, "Nsight Systems", jstr(r->env, "nsys_version"),
	    "env.json (nsys --version)", why);
	env_row(&b, "Nsight Compute", jstr(r->env, "ncu_version"),
	    "env.json (ncu --version)", why);
	env_row(&b, "Host", jstr(r->env, "host"), "env.json", "no env.json");
	env_row(&b, "Recorded (UTC)", jstr(r->env, "created_utc"), "env.json",
	    "no env.json");
	env_row(&b, "lp revision", jstr(r->env, "lp_revision"), "env.json",
	    "not built from a git checkout");
	if (argv && argv->type == LP_Y_SEQ && argv->n) {
		lp_sb_adds(&v, "`");
		for (i = 0; i < argv->n; i++) {
			if (i)
				lp_sb_addc(&v, ' ');
			lp_sh_quote(&v, argv->v[i]->s);
		}
		lp_sb_adds(&v, "`");
		env_row(&b, "Workload", lp_sb_str(&v), "inputs.yaml (WORK)", "");
	} else if (imp && imp->type == LP_Y_SEQ) {
		for (i = 0; i < imp->n; i++)
			lp_sb_printf(&v, "%s`%s`", i ? ", " : "imported: ",
			    imp->v[i]->s);
		env_row(&b, "Workload", lp_sb_str(&v), "inputs.yaml (IMPORT)", "");
	} else
		env_row(&b, "Workload", NULL, "", "no inputs.yaml");
	lp_sb_reset(&v);
	if (r->inputs && jstr(r->inputs, "model.name")) {
		lp_sb_printf(&v, "%s (%s)", jstr(r->inputs, "model.name"),
		    jstr(r->inputs, "model.config") ? jstr(r->inputs,
		    "model.config") : "?");
		env_row(&b, "Model", lp_sb_str(&v), "inputs.yaml", "");
	} else
		env_row(&b, "Model", NULL, "", "no model config: pass MODEL=NAME "
		    "(conf/model/NAME.yaml) for model identity and MFU");
	lp_sb_reset(&v);
	lp_sb_printf(&v, "%s (NVTX range `", stage_name(r));
	range_of(r, stage_name(r), &v);
	lp_sb_printf(&v, "`), mode %s, top %s kernels",
	    lp_yaml_str(r->cfg, "run.mode", "?"),
	    lp_yaml_str(r->cfg, "run.top_n_kernels", "?"));
	env_row(&b, "Profiled stage", lp_sb_str(&v), "config.yaml", "");
	if (r->env) {
		const struct lp_ynode *n = lp_yaml_get(r->env, "notes");

		if (n && n->type == LP_Y_SEQ && n->n) {
			puts("\nNotes from env.json:");
			for (i = 0; i < n->n; i++) {
				lp_sb_adds(&b, "- ");
				lp_md_escape(&b, n->v[i]->s);
				lp_sb_addc(&b, '\n');
				out(&b);
			}
		}
	}
	putchar('\n');
	lp_sb_free(&b);
	lp_sb_free(&v);
}

static void
agg_row(struct lp_sb *b, const char *what, const char *val, const char *src)
{
	lp_sb_printf(b, "| %s | %s | %s |\n", what, val, src);
	out(b);
}

static void
aggregates(struct run *r)
{
	struct lp_sb b = { 0 }, v = { 0 };
	size_t i, withm = 0;
	double nl = 0;

	puts("## Aggregates\n");
	puts("| Metric | Value | Source |\n|:-------|------:|:-------|");
	if (r->have_ksum) {
		const char *src = "nsys cuda_gpu_kern_sum (`nsys/report_cuda_gpu_kern_sum.csv`)";

		lp_fmt_ms(&v, r->ksum.total_ns);
		lp_sb_adds(&v, " ms");
		agg_row(&b, "GPU kernel time, whole capture", lp_sb_str(&v), src);
		lp_sb_reset(&v);
		lp_fmt_num(&v, r->ksum.calls, 0);
		agg_row(&b, "Kernel launches", lp_sb_str(&v), src);
		lp_sb_reset(&v);
		lp_sb_printf(&v, "%zu", r->ksum.n);
		agg_row(&b, "Distinct kernels", lp_sb_str(&v), src);
		lp_sb_reset(&v);
		lp_fmt_time(&v, r->ksum.calls > 0 ? r->ksum.total_ns / r->ksum.calls : 0);
		agg_row(&b, "Mean kernel duration", lp_sb_str(&v), src);
		lp_sb_reset(&v);
	} else
		agg_row(&b, "GPU kernel time, whole capture", "not available",
		    "`nsys/report_cuda_gpu_kern_sum.csv` missing: `nsys stats "
		    "--report cuda_gpu_kern_sum`");
	lp_fmt_ms(&v, r->ktotal);
	lp_sb_printf(&v, " ms in %zu kernels", r->nk);
	lp_sb_reset(&b);
	agg_row(&b, "GPU kernel time, profiled stage", lp_sb_str(&v),
	    r->k_time ? r->k_time : "kernels.tsv");
	lp_sb_reset(&v);
	if (r->have_api) {
		lp_fmt_ms(&v, r->api_total);
		lp_sb_adds(&v, " ms in ");
		lp_fmt_num(&v, r->api_calls, 0);
		lp_sb_adds(&v, " calls");
		agg_row(&b, "CUDA API time on the host", lp_sb_str(&v),
		    "nsys cuda_api_sum (`nsys/report_cuda_api_sum.csv`)");
		lp_sb_reset(&v);
		lp_fmt_num(&v, r->api_launch, 0);
		agg_row(&b, "Kernel launch calls", lp_sb_str(&v),
		    "nsys cuda_api_sum (names with LaunchKernel)");
		lp_sb_reset(&v);
		lp_sb_adds(&v, "`");
		lp_md_escape(&v, r->api_top ? r->api_top : "-");
		lp_sb_adds(&v, "` ");
		lp_fmt_ms(&v, r->api_top_t);
		lp_sb_adds(&v, " ms");
		agg_row(&b, "Costliest CUDA API", lp_sb_str(&v), "nsys cuda_api_sum");
		lp_sb_reset(&v);
	} else
		agg_row(&b, "CUDA API time on the host", "not available",
		    "`nsys/report_cuda_api_sum.csv` missing: `nsys stats --report "
		    "cuda_api_sum`");
	if (r->have_mem) {
		lp_fmt_ms(&v, r->mem_total);
		lp_sb_adds(&v, " ms in ");
		lp_fmt_num(&v, r->mem_count, 0);
		lp_sb_adds(&v, " operations");
		agg_row(&b, "GPU memory copies and sets", lp_sb_str(&v),
		    "nsys cuda_gpu_mem_time_sum (`nsys/report_cuda_gpu_mem_time_sum.csv`)");
		lp_sb_reset(&v);
	} else
		agg_row(&b, "GPU memory copies and sets", "not available",
		    "`nsys/report_cuda_gpu_mem_time_sum.csv` missing: `nsys stats "
		    "--report cuda_gpu_mem_time_sum` (nsys writes none when the "
		    "capture has no memory operations)");
	for (i = 0; i < r->nk; i++)
		if (r->k[i].have_ncu) {
			withm++;
			nl += r->k[i].ncu_launches;
		}
	if (r->k_metrics) {
		lp_sb_printf(&v, "%zu of %zu kernels, ", withm, r->nk);
		lp_fmt_num(&v, nl, 0);
		lp_sb_adds(&v, " launches replayed");
		if (r->k_unmatched)
			lp_sb_printf(&v, "; %zu profiled kernels unmatched",
			    r->k_unmatched);
		agg_row(&b, "Kernels with ncu metrics", lp_sb_str(&v), r->k_metrics);
	} else
		agg_row(&b, "Kernels with ncu metrics", "none",
		    "no ncu step in this run (kernels.tsv has no metrics)");
	putchar('\n');
	lp_sb_free(&b);
	lp_sb_free(&v);
}

static int
capture_gated(const struct run *r)
{
	struct lp_stage st;
	struct lp_sb b = { 0 };
	int ok;

	if (!jstr(r->env, "mode") || strcmp(jstr(r->env, "mode"), "live") ||
	    strcmp(lp_yaml_str(r->cfg, "nsys_cli.capture_range", "none"), "nvtx") ||
	    !*stage_name(r) || !lp_yaml_get(r->cfg, "stages"))
		return 0;
	lp_stage_get(r->cfg, stage_name(r), &st, "config.yaml");
	ok = lp_nvtx_nsys_capture(&b, &st) == 0;
	lp_sb_free(&b);
	return ok;
}

static void
stages(struct run *r)
{
	const struct lp_ynode *s = lp_yaml_get(r->cfg, "stages");
	struct lp_sb b = { 0 }, rg = { 0 };
	size_t i, j;
	int gated = capture_gated(r);

	puts("## Per-Stage Timings\n");
	printf("Source: nsys nvtx_sum (wall time of each NVTX range, `nsys/"
	    "report_nvtx_sum.csv`) and nvtx_kern_sum (GPU time of the kernels "
	    "launched inside it, `nsys/report_nvtx_kern_sum.csv`). GPU busy = "
	    "kernel time / wall time. Nested ranges each count the kernels "
	    "inside them.\n\n");
	if (!r->have_nvtx)
		puts("Wall times are not available: `nsys/report_nvtx_sum.csv` is "
		    "missing (`nsys stats --report nvtx_sum`).\n");
	if (!r->have_nvtxk)
		puts("Kernel time per stage is not available: `nsys/report_"
		    "nvtx_kern_sum.csv` is missing (`nsys stats --report "
		    "nvtx_kern_sum`).\n");
	puts("| Stage | NVTX range | Instances | Wall total (ms) | Wall mean (ms) | "
	    "Kernel time (ms) | Launches | GPU busy |");
	puts("|:------|:-----------|----------:|----------------:|---------------:|"
	    "-----------------:|---------:|---------:|");
	for (i = 0; s && s->type == LP_Y_MAP && i < s->n; i++) {
		struct stage_time *t;

		lp_sb_reset(&rg);
		range_of(r, s->keys[i], &rg);
		t = find_stage(r, lp_sb_str(&rg));
		lp_sb_printf(&b, "| %s | `", s->keys[i]);
		lp_md_escape(&b, lp_sb_str(&rg));
		lp_sb_adds(&b, "` | ");
		if (!t || !t->have_wall) {
			if (!r->have_nvtx)
				lp_sb_adds(&b, "- | - | - |");
			else if (gated && strcmp(s->keys[i], stage_name(r)))
				lp_sb_printf(&b, "not captured: nsys was gated on "
				    "stage %s (set nsys_cli.capture_range=none to "
				    "time every stage) | | |", stage_name(r));
			else
				lp_sb_adds(&b, "not in nvtx_sum: outside the "
				    "capture, or never pushed | | |");
		} else {
			lp_fmt_num(&b, t->inst, 0);
			lp_sb_adds(&b, " | ");
			lp_fmt_ms(&b, t->total);
			lp_sb_adds(&b, " | ");
			lp_fmt_ms(&b, t->avg);
			lp_sb_adds(&b, " |");
		}
		if (t && t->have_kern) {
			lp_sb_addc(&b, ' ');
			lp_fmt_ms(&b, t->ktime);
			lp_sb_adds(&b, " | ");
			lp_fmt_num(&b, t->klaunch, 0);
			lp_sb_adds(&b, " | ");
			if (t->have_wall)
				pct(&b, t->ktime, t->total);
			else
				lp_sb_adds(&b, "-");
			lp_sb_adds(&b, " |\n");
		} else if (t && t->have_wall && r->have_nvtxk)
			lp_sb_adds(&b, " 0.000 | 0 | 0.0% |\n");
		else
			lp_sb_adds(&b, " - | - | - |\n");
		out(&b);
	}
	/* ranges the config does not name */
	for (j = 0, i = 0; i < r->nst; i++) {
		size_t k;
		int known = 0;

		for (k = 0; s && s->type == LP_Y_MAP && k < s->n; k++) {
			lp_sb_reset(&rg);
			range_of(r, s->keys[k], &rg);
			known |= lp_nvtx_range_match(lp_sb_str(&rg), r->st[i].range);
		}
		if (known)
			continue;
		lp_sb_printf(&b, "%s`", j++ ? ", " : "\nOther NVTX ranges in the "
		    "capture, not configured as stages: ");
		lp_md_escape(&b, r->st[i].range);
		lp_sb_adds(&b, "`");
	}
	if (j)
		lp_sb_adds(&b, ".\n");
	out(&b);
	putchar('\n');
	lp_sb_free(&b);
	lp_sb_free(&rg);
}

/* Model FLOPs of a stage, the usual decoder estimate: 2 FLOPs per matmul
 * weight per token, plus attention over the context. 0 if not a stage
 * this knows (prefill, decode_all, decode_step). */
static double
stage_flops(const char *stage, double N, double L, double d, double B,
    double P, double T)
{
	double dec = B * (2 * N * T + 4 * L * d * (P * T + T * (T - 1) / 2));

	if (!strcmp(stage, "prefill"))
		return B * (2 * N * P + 2 * L * d * P * P);
	if (!strcmp(stage, "decode_all"))
		return dec;
	if (!strcmp(stage, "decode_step"))
		return T > 0 ? dec / T : 0;
	return 0;
}

static int
model_num(const struct run *r, const char *key, double *v)
{
	struct lp_sb b = { 0 };
	int ok;

	lp_sb_printf(&b, "model.%s", key);
	ok = r->inputs && jstr(r->inputs, lp_sb_str(&b)) &&
	    lp_num_get(jstr(r->inputs, lp_sb_str(&b)), v);
	lp_sb_free(&b);
	return ok;
}

static double mfu_best = -1;

/* A percentage with at least two significant digits: 0.11%, 0.0038%. */
static void
pct_sig(struct lp_sb *b, double v)
{
	int d = 2;

	while (v > 0 && v < 10.0 / pow(10, d) && d < 6)
		d++;
	lp_fmt_num(b, v, d);
	lp_sb_addc(b, '%');
}

/* 1.23 GFLOP, 45.6 MFLOP: whatever reads best. */
static void
flop_str(struct lp_sb *b, double f)
{
	static const char *const unit[] = { "FLOP", "kFLOP", "MFLOP", "GFLOP",
		"TFLOP", "PFLOP" };
	int u = 0;

	while (f >= 1000 && u < 5) {
		f /= 1000;
		u++;
	}
	lp_fmt_num(b, f, u ? 3 : 0);
	lp_sb_printf(b, " %s", unit[u]);
}

static void
mfu(struct run *r)
{
	static const char *const need[] = { "params", "layers", "hidden",
		"batch", "prompt_tokens", "decode_tokens" };
	double v[6], peak = 0, kflops = 0, ktime = 0;
	const char *src, *gpu = gpu_name(r, &src), *dtype;
	const struct lp_ynode *pk = gpu_peaks(r, gpu);
	const struct lp_ynode *s = lp_yaml_get(r->cfg, "stages");
	struct lp_sb b = { 0 }, missing = { 0 }, rg = { 0 };
	size_t i;

	puts("## MFU\n");
	for (i = 0; i < 6; i++)
		if (!model_num(r, need[i], &v[i]))
			lp_sb_printf(&missing, "%s`model.%s`", missing.len ? ", " :
			    "", need[i]);
	dtype = r->inputs ? jstr(r->inputs, "model.dtype") : NULL;
	if (!dtype)
		lp_sb_printf(&missing, "%s`model.dtype`", missing.len ? ", " : "");
	if (pk && dtype) {
		lp_sb_printf(&b, "peak_tflops.%s", dtype);
		if (!lp_num_get(lp_yaml_str(pk, lp_sb_str(&b), ""), &peak))
			peak = 0;
		lp_sb_reset(&b);
	}
	if (missing.len) {
		printf("MFU is not computed: the run has no model config with %s. "
		    "Give one with `MODEL=NAME` (conf/model/NAME.yaml: parameter "
		    "count, layers, hidden size, batch, prompt and decode tokens, "
		    "dtype) and re-run `make RUN=... stakeholder_summary.md`.\n\n",
		    lp_sb_str(&missing));
		gap(r, "no model config, so no MFU (MODEL=NAME)");
	} else if (!gpu) {
		puts("MFU is not computed: the GPU is unknown (no nvidia-smi data "
		    "in env.json and no device name in the ncu export).\n");
		gap(r, "unknown GPU, so no peak FLOP/s for MFU");
	} else if (!pk) {
		printf("MFU is not computed: GPU \"%s\" is not in the peak table "
		    "(`gpus` in config.yaml, from conf/gpus.yaml); add its dense "
		    "(non-sparse) peaks.\n\n", gpu);
		gap(r, "GPU not in conf/gpus.yaml, so no MFU");
	} else if (peak <= 0) {
		printf("MFU is not computed: conf/gpus.yaml has no `peak_tflops.%s` "
		    "for %s.\n\n", dtype, lp_yaml_str(pk, "name", gpu));
		gap(r, "no peak for the model's dtype, so no MFU");
	} else {
		double N = v[0], L = v[1], d = v[2], B = v[3], P = v[4], T = v[5];

		lp_fmt_num(&b, N, 0);
		lp_fmt_num(&rg, peak, 1);
		printf("Source: model FLOPs from `inputs.yaml` (model %s: N = %s "
		    "matmul weights, L = %.0f layers, d = %.0f, batch B = %.0f, "
		    "prompt P = %.0f, decoded T = %.0f tokens); wall and kernel "
		    "time from nsys nvtx_sum / nvtx_kern_sum; peak %s %s TFLOP/s "
		    "dense for %s (conf/gpus.yaml; GPU from %s).\n\n",
		    jstr(r->inputs, "model.name"), lp_sb_str(&b), L, d, B, P, T,
		    dtype, lp_sb_str(&rg), lp_yaml_str(pk, "name", gpu), src);
		lp_sb_reset(&b);
		lp_sb_reset(&rg);
		puts("FLOPs: prefill B(2NP + 2LdP^2); decode_all "
		    "B(2NT + 4Ld(PT + T(T-1)/2)); decode_step = decode_all / T. "
		    "MFU = FLOPs / (time x peak).\n");
		puts("| Stage | Model FLOPs | Wall (ms) | Achieved TFLOP/s | MFU | "
		    "MFU over kernel time |");
		puts("|:------|------------:|----------:|-----------------:|----:|"
		    "---------------------:|");
		for (i = 0; s && s->type == LP_Y_MAP && i < s->n; i++) {
			double f = stage_flops(s->keys[i], N, L, d, B, P, T);
			struct stage_time *t;
			double wall;

			lp_sb_reset(&rg);
			range_of(r, s->keys[i], &rg);
			t = find_stage(r, lp_sb_str(&rg));
			if (f <= 0)
				continue;
			lp_sb_printf(&b, "| %s | ", s->keys[i]);
			flop_str(&b, f);
			lp_sb_adds(&b, " | ");
			if (!t || !t->have_wall) {
				lp_sb_adds(&b, "- | - | not timed: no nvtx_sum row | - |\n");
				out(&b);
				continue;
			}
			wall = t->avg;	/* per instance: decode_step is one step */
			if (!strcmp(s->keys[i], "decode_step"))
				f = stage_flops("decode_step", N, L, d, B, P, T);
			else
				wall = t->total;
			lp_fmt_ms(&b, wall);
			lp_sb_adds(&b, " | ");
			lp_fmt_num(&b, f / (wall * 1e-9) / 1e12, 3);
			lp_sb_adds(&b, " | ");
			pct_sig(&b, 100.0 * f / (wall * 1e-9) / (peak * 1e12));
			lp_sb_adds(&b, " | ");
			if (t->have_kern && t->ktime > 0) {
				double kt = !strcmp(s->keys[i], "decode_step") &&
				    t->inst > 0 ? t->ktime / t->inst : t->ktime;

				pct_sig(&b, 100.0 * f / (kt * 1e-9) / (peak * 1e12));
			} else
				lp_sb_adds(&b, "-");
			lp_sb_adds(&b, " |\n");
			out(&b);
			if (!strcmp(s->keys[i], stage_name(r)) || mfu_best < 0)
				mfu_best = 100.0 * f / (wall * 1e-9) / (peak * 1e12);
		}
		putchar('\n');
	}
	/* what the hardware counters say, for the kernels ncu replayed */
	for (i = 0; i < r->nk; i++)
		if (r->k[i].have_flops && r->k[i].have_ncu) {
			kflops += r->k[i].flops;
			ktime += r->k[i].ncu_time;
		}
	if (ktime > 0) {
		double f32 = 0;

		if (pk)
			lp_num_get(lp_yaml_str(pk, "peak_tflops.fp32", ""), &f32);
		flop_str(&b, kflops);
		printf("Hardware counters (ncu SASS FP16/FP32/FP64 instructions of "
		    "the replayed kernels; tensor-core work is not counted): %s "
		    "in ", lp_sb_str(&b));
		lp_sb_reset(&b);
		lp_fmt_ms(&b, ktime);
		printf("%s ms of replayed kernel time = ", lp_sb_str(&b));
		lp_sb_reset(&b);
		lp_fmt_num(&b, kflops / (ktime * 1e-9) / 1e12, 3);
		printf("%s TFLOP/s", lp_sb_str(&b));
		lp_sb_reset(&b);
		if (f32 > 0) {
			pct_sig(&b, 100.0 * kflops / (ktime * 1e-9) / (f32 * 1e12));
			printf(", %s of the FP32 (non-tensor) peak", lp_sb_str(&b));
			lp_sb_reset(&b);
		}
		puts(". Source: kernels.tsv flops and ncu_time_ns.\n");
	}
	lp_sb_free(&b);
	lp_sb_free(&missing);
	lp_sb_free(&rg);
}

struct opclass {
	char *name;
	regex_t re;
	int have_re;
	double time, launches;
	size_t kernels;
	const char *example;
};

static struct opclass *ops;
static size_t nops;

static void
operators(struct run *r)
{
	const struct lp_ynode *o = lp_yaml_get(r->cfg, "operators");
	struct lp_sb b = { 0 };
	size_t i, j;

	puts("## Top Operators\n");
	printf("Source: the profiled stage's kernels (%s%s%s) grouped into "
	    "operator classes by the name patterns of `operators` in "
	    "config.yaml (conf/operators.yaml; first match wins).\n\n",
	    r->k_time ? r->k_time : "kernels.tsv", r->k_range ? ", range " : "",
	    r->k_range ? r->k_range : "");
	for (i = 0; o && o->type == LP_Y_SEQ && i < o->n; i++) {
		const char *n = lp_yaml_str(o->v[i], "name", NULL);
		const char *m = lp_yaml_str(o->v[i], "match", NULL);
		int e;

		if (!n || !m)
			lp_die_at(LP_EXIT_DATA, "config.yaml", o->v[i]->line, 0,
			    "operators: each entry needs name and match");
		ops = lp_xreallocarray(ops, nops + 1, sizeof *ops);
		memset(&ops[nops], 0, sizeof ops[0]);
		ops[nops].name = lp_xstrdup(n);
		if ((e = regcomp(&ops[nops].re, m, REG_EXTENDED | REG_ICASE |
		    REG_NOSUB))) {
			char msg[256];

			regerror(e, &ops[nops].re, msg, sizeof msg);
			lp_die_at(LP_EXIT_DATA, "config.yaml", o->v[i]->line, 0,
			    "operators: %s: bad pattern: %s", n, msg);
		}
		ops[nops].have_re = 1;
		nops++;
	}
	ops = lp_xreallocarray(ops, nops + 1, sizeof *ops);
	memset(&ops[nops], 0, sizeof ops[0]);
	ops[nops++].name = lp_xstrdup("Other");
	for (i = 0; i < r->nk; i++) {
		for (j = 0; j + 1 < nops; j++)
			if (!regexec(&ops[j].re, r->k[i].kernel, 0, NULL, 0))
				break;
		ops[j].time += r->k[i].total;
		ops[j].launches += r->k[i].calls;
		if (!ops[j].kernels++)
			ops[j].example = r->k[i].kernel;
	}
	/* biggest first; classes with no kernels are left out */
	for (i = 0; i < nops; i++)
		for (j = i + 1; j < nops; j++)
			if (ops[j].time > ops[i].time) {
				struct opclass t = ops[i];

				ops[i] = ops[j];
				ops[j] = t;
			}
	puts("| Operator class | GPU time (ms) | Share | Launches | Kernels | "
	    "Largest kernel |");
	puts("|:---------------|--------------:|------:|---------:|--------:|"
	    ":---------------|");
	for (i = 0; i < nops; i++) {
		if (!ops[i].kernels)
			continue;
		lp_sb_printf(&b, "| %s | ", ops[i].name);
		lp_fmt_ms(&b, ops[i].time);
		lp_sb_adds(&b, " | ");
		pct(&b, ops[i].time, r->ktotal);
		lp_sb_adds(&b, " | ");
		lp_fmt_num(&b, ops[i].launches, 0);
		lp_sb_printf(&b, " | %zu | `", ops[i].kernels);
		lp_kname_md(&b, ops[i].example, 60);
		lp_sb_adds(&b, "` |\n");
		out(&b);
	}
	putchar('\n');
	lp_sb_free(&b);
}

static const char *
limiter(const struct krow *k)
{
	if (!k->have_sm || !k->have_dram)
		return "-";
	if (k->dram >= 60 && k->dram >= k->sm)
		return "memory bandwidth";
	if (k->sm >= 60)
		return "compute";
	if (k->sm < 40 && k->dram < 40)
		return "latency (GPU under-filled)";
	return "mixed";
}

static void
top_kernels(struct run *r, size_t top)
{
	struct lp_sb b = { 0 };
	size_t i, n = top < r->nk ? top : r->nk;

	puts("## Top Kernels\n");
	printf("Source: kernels.tsv: time and calls from %s%s%s; SOL %% from %s. "
	    "The full table is in kernels.md.\n\n",
	    r->k_time ? r->k_time : "nsys", r->k_range ? ", range " : "",
	    r->k_range ? r->k_range : "", r->k_metrics ? r->k_metrics :
	    "no ncu step in this run");
	puts("| # | Kernel | Total (ms) | Calls | Mean (us) | Share | SM % | "
	    "DRAM % | Limited by |");
	puts("|--:|:-------|-----------:|------:|----------:|------:|-----:|"
	    "-------:|:-----------|");
	for (i = 0; i < n; i++) {
		const struct krow *k = &r->k[i];

		lp_sb_printf(&b, "| %zu | `", i + 1);
		lp_kname_md(&b, k->kernel, 70);
		lp_sb_adds(&b, "` | ");
		lp_fmt_ms(&b, k->total);
		lp_sb_adds(&b, " | ");
		lp_fmt_num(&b, k->calls, 0);
		lp_sb_adds(&b, " | ");
		lp_fmt_num(&b, k->calls > 0 ? k->total / k->calls / 1e3 : 0, 2);
		lp_sb_adds(&b, " | ");
		pct(&b, k->total, r->ktotal);
		lp_sb_adds(&b, " | ");
		lp_fmt_known(&b, k->have_sm, k->sm, 1);
		lp_sb_adds(&b, " | ");
		lp_fmt_known(&b, k->have_dram, k->dram, 1);
		lp_sb_printf(&b, " | %s |\n", limiter(k));
		out(&b);
	}
	putchar('\n');
	lp_sb_free(&b);
}

static void
finding(int *n, const char *head, struct lp_sb *body)
{
	printf("%d. **%s** %s\n", ++*n, head, lp_sb_str(body));
	lp_sb_reset(body);
}

static void
findings(struct run *r, size_t top)
{
	struct lp_sb b = { 0 }, h = { 0 }, rg = { 0 };
	const struct lp_ynode *s = lp_yaml_get(r->cfg, "stages");
	const char *dtype = r->inputs ? jstr(r->inputs, "model.dtype") : NULL;
	size_t i, nometrics = 0, n = top < r->nk ? top : r->nk;
	int count = 0;
	double idle_time = -1, idle_launch = -1;

	puts("## Findings and Recommendations\n");
	/* 1: stages where the GPU mostly waits; a nested stage with the
	 * same kernels as one already named adds nothing */
	for (i = 0; s && s->type == LP_Y_MAP && i < s->n; i++) {
		struct stage_time *t;

		lp_sb_reset(&rg);
		range_of(r, s->keys[i], &rg);
		t = find_stage(r, lp_sb_str(&rg));
		if (!t || !t->have_wall || !t->have_kern || t->total <= 0 ||
		    t->ktime / t->total >= 0.5)
			continue;
		if (idle_time == t->ktime && idle_launch == t->klaunch)
			continue;
		idle_time = t->ktime;
		idle_launch = t->klaunch;
		lp_sb_reset(&h);
		lp_sb_printf(&h, "%s keeps the GPU busy only ", s->keys[i]);
		pct(&h, t->ktime, t->total);
		lp_sb_adds(&h, " of its wall time.");
		lp_fmt_ms(&b, t->ktime);
		lp_sb_adds(&b, " ms of kernels in ");
		lp_fmt_ms(&b, t->total);
		lp_sb_adds(&b, " ms of wall time over ");
		lp_fmt_num(&b, t->klaunch, 0);
		lp_sb_adds(&b, " launches (nsys nvtx_sum, nvtx_kern_sum). The host "
		    "sets the pace, not the GPU: capture the step in a CUDA graph "
		    "(torch.cuda.CUDAGraph, torch.compile(mode=\"reduce-overhead\")), "
		    "remove host synchronisations inside the loop, and batch more "
		    "sequences per step so each launch does more work.");
		finding(&count, lp_sb_str(&h), &b);
	}
	/* 2: many tiny kernels */
	if (r->nk && r->ktotal > 0) {
		double calls = 0;

		for (i = 0; i < r->nk; i++)
			calls += r->k[i].calls;
		if (calls >= 100 && r->ktotal / calls < 10e3) {
			lp_sb_reset(&h);
			lp_sb_adds(&h, "Kernels are tiny: ");
			lp_fmt_time(&h, r->ktotal / calls);
			lp_sb_adds(&h, " on average.");
			lp_fmt_num(&b, calls, 0);
			lp_sb_adds(&b, " launches in the profiled stage (kernels.tsv, "
			    "nsys). At this size launch latency (a few us each) "
			    "rivals the work: fuse element-wise and normalisation "
			    "kernels (torch.compile, fused RMSNorm/SwiGLU kernels) "
			    "and use CUDA graphs.");
			finding(&count, lp_sb_str(&h), &b);
		}
	}
	/* 3: the dominant kernel and what limits it */
	if (r->nk && r->ktotal > 0 && r->k[0].total / r->ktotal >= 0.25) {
		const struct krow *k = &r->k[0];
		const char *lim = limiter(k);

		lp_sb_reset(&h);
		lp_sb_adds(&h, "One kernel takes ");
		pct(&h, k->total, r->ktotal);
		lp_sb_adds(&h, " of the stage's GPU time.");
		lp_sb_adds(&b, "`");
		lp_kname_md(&b, k->kernel, 70);
		lp_sb_adds(&b, "` (kernels.tsv). ");
		if (!strcmp(lim, "-"))
			lp_sb_adds(&b, "It has no ncu metrics, so what limits it is "
			    "unknown: profile it (raise TOPN or check the ncu step).");
		else {
			lp_sb_adds(&b, "ncu: SM ");
			lp_fmt_num(&b, k->sm, 1);
			lp_sb_adds(&b, "%, DRAM ");
			lp_fmt_num(&b, k->dram, 1);
			lp_sb_adds(&b, "% of peak. ");
			if (!strcmp(lim, "memory bandwidth"))
				lp_sb_adds(&b, "It is bound by memory bandwidth: "
				    "only fewer bytes help (lower-precision weights "
				    "or KV cache, fusing its producer or consumer, "
				    "batching so weights are read once for more "
				    "tokens).");
			else if (!strcmp(lim, "compute"))
				lp_sb_adds(&b, "It is compute-bound: make sure it "
				    "runs on tensor cores (fp16/bf16, or tf32 for "
				    "fp32 models).");
			else if (!strcmp(lim, "latency (GPU under-filled)"))
				lp_sb_adds(&b, "Neither compute nor memory is near "
				    "its peak: the launch is too small to fill the "
				    "GPU. Give it more work per launch (batch, "
				    "split-K, persistent kernels) or overlap it "
				    "with others.");
			else
				lp_sb_adds(&b, "Both compute and memory are "
				    "moderately used; see its ncu sections for the "
				    "stall reasons.");
		}
		finding(&count, lp_sb_str(&h), &b);
	}
	/* 4: fp32 weights leave tensor cores idle */
	if (dtype && !strcmp(dtype, "fp32")) {
		lp_sb_adds(&b, "Matrix products in fp32 run on the CUDA cores; "
		    "TF32 or BF16 tensor cores have many times the peak "
		    "(conf/gpus.yaml). Enable TF32 (cublasSetMathMode "
		    "CUBLAS_TF32_TENSOR_OP_MATH, torch.backends.cuda.matmul."
		    "allow_tf32) or run the model in bf16.");
		finding(&count, "The model runs in fp32 (inputs.yaml).", &b);
	}
	/* 5: low MFU */
	if (mfu_best >= 0 && mfu_best < 10) {
		lp_sb_reset(&h);
		lp_sb_adds(&h, "MFU is ");
		pct_sig(&h, mfu_best);
		lp_sb_adds(&h, " in the profiled stage.");
		lp_sb_adds(&b, "(MFU section.) Small-batch decoding is bound by "
		    "reading the weights once per token; MFU rises with batch "
		    "size, speculative decoding, and fewer idle gaps.");
		finding(&count, lp_sb_str(&h), &b);
	}
	/* 6: top kernels without metrics, unmatched kernels */
	for (i = 0; i < n; i++)
		nometrics += !r->k[i].have_sm;
	if (r->k_metrics && nometrics) {
		lp_sb_reset(&h);
		lp_sb_printf(&h, "%zu of the top %zu kernels have no ncu metrics.",
		    nometrics, n);
		lp_sb_adds(&b, "They were outside the top-N selection or not "
		    "matched to an ncu kernel (kernels.md lists unmatched ones); "
		    "raise TOPN or check the names in ncu/metrics.tsv.");
		finding(&count, lp_sb_str(&h), &b);
	}
	/* 7: what is missing */
	if (r->gaps.len) {
		const char *p = lp_sb_str(&r->gaps);

		lp_sb_adds(&b, "This summary lacks: ");
		for (i = 0; *p; i++) {
			size_t len = strcspn(p, "\x1f");

			lp_sb_printf(&b, "%s%.*s", i ? "; " : "", (int)len, p);
			p += len + (p[len] == '\x1f');
		}
		lp_sb_adds(&b, ".");
		finding(&count, "Some inputs are missing.", &b);
	}
	if (!count)
		puts("No rule fired: no stage leaves the GPU idle, no kernel "
		    "dominates, and every input was present.");
	putchar('\n');
	lp_sb_free(&b);
	lp_sb_free(&h);
	lp_sb_free(&rg);
}

int
main(int argc, char **argv)
{
	struct run r;
	long top = 10;
	int c;
	size_t i;

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "hn:")) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'n':
			top = lp_strtonum(optarg, 1, 100000, "-n");
			break;
		default:
			lp_usage(synopsis);
		}
	}
	if (argc - optind != 1)
		lp_usage(synopsis);
	memset(&r, 0, sizeof r);
	r.dir = argv[optind];
	load(&r);

	printf("# Stakeholder summary: run `%s`\n\n", strrchr(r.dir, '/') ?
	    strrchr(r.dir, '/') + 1 : r.dir);
	printf("Made by lp-summary from the files in `%s/`; each table names "
	    "the file and tool its numbers come from.\n\n", r.dir);
	environment(&r);
	aggregates(&r);
	stages(&r);
	mfu(&r);
	operators(&r);
	top_kernels(&r, (size_t)top);
	findings(&r, (size_t)top);

	for (i = 0; i < r.nk; i++) {
		free(r.k[i].kernel);
		free(r.k[i].devname);
	}
	free(r.k);
	for (i = 0; i < r.nst; i++)
		free(r.st[i].range);
	free(r.st);
	for (i = 0; i < nops; i++) {
		if (ops[i].have_re)
			regfree(&ops[i].re);
		free(ops[i].name);
	}
	free(ops);
	free(r.k_time);
	free(r.k_range);
	free(r.k_metrics);
	free(r.k_match);
	free(r.api_top);
	if (r.have_ksum)
		lp_ksum_free(&r.ksum);
	lp_yaml_free(r.cfg);
	lp_yaml_free(r.inputs);
	lp_yaml_free(r.env);
	lp_sb_free(&r.gaps);
	lp_close_stdout();
	return 0;
}
