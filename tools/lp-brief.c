/*
 * lp-brief: brief.tsv, the answer first.  A verdict on the profiled stage
 * (the GPU idles, or which kernel keeps it busy), one line of identity
 * (model, GPU, stage, imported or live) and at most six key numbers, each
 * copied from the table that computed it: the steady step and its tokens/s
 * (steps.tsv), the first step against the steady one, the stage's GPU busy
 * (stages.tsv; where steps.tsv is the untraced timing run's, the capture's
 * kernel time over the untraced wall time, lp_stagetab_load), MBU in the
 * steady step (mbu.tsv), the top kernel and its roofline class
 * (top_kernels.tsv).  It computes nothing but the verdict's choice and
 * that quotient; the identity line says whose times they are, and with
 * -u what the capture added to the step (untraced.tsv).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-brief -c config.yaml -e environment.tsv "
    "-s stages.tsv -t steps.tsv [-u untraced.tsv] [-A capture_audit.tsv] "
    "[-B bound.tsv] "
    "[-b mbu.tsv] [-G gpumetrics.tsv] [-k top_kernels.tsv | -W] "
    "[-I image] [-L link]...";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static struct lp_col cols[] = {
	{ "steady_ns", "Steady step (ms)", "ms" },
	{ "tokens_per_s", "Tokens/s", "num1" },
	{ "first_over_steady", "First / steady", "x" },
	{ "busy_pct", "GPU busy", "pct" },
	{ "mbu_steady_pct", "MBU", "pct" },
	{ "dram_sampled_pct", "DRAM (sampled)", "pct" },
	{ "tensor_sampled_pct", "Tensor (sampled)", "pct" },
	/* said in a note under the table, which a long name does not widen */
	{ "top_kernel", "Top kernel", "hide" },
	{ "top_class", "Its class", "hide" },
	{ "top_share_pct", "Its share", "hide" },
};
#define NCOLS (sizeof cols / sizeof cols[0])
#define GM 5		/* the two sampled columns, with -G only */

/* The sampled metrics the brief shows, in gpumetrics.tsv's words. */
static const char *const gm_metric[] = { "DRAM Read Bandwidth [Throughput %]",
    "DRAM Write Bandwidth [Throughput %]", "Tensor Active [Throughput %]" };
#define NGM (sizeof gm_metric / sizeof gm_metric[0])

/* gpumetrics.tsv's means of gm_metric over stage's instances, in one
 * reading (NAN where the table has none); 0 for a table that says it has
 * no samples ("# omit:": sampling off) or has a row a GPU (several GPUs:
 * details.md shows them), whose columns go. */
static int
gm_read(const char *path, const char *stage, double *v)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-gpumetrics");
	/* no samples, or a row a GPU (several GPUs): no one figure here */
	int cs, cm, cv, have = !lp_tsv_comment(&t, "omit") &&
	    lp_csv_col(&t.hdr, "gpu") < 0;
	size_t k;
	double x;

	lp_tab_expect(&t, "lp-gpumetrics");
	cs = lp_csv_need(&t.hdr, "stage", "lp-gpumetrics output");
	cm = lp_csv_need(&t.hdr, "metric", "lp-gpumetrics output");
	cv = lp_csv_need(&t.hdr, "mean", "lp-gpumetrics output");
	for (k = 0; k < NGM; k++)
		v[k] = NAN;
	while (have && lp_tab_next(&t))
		for (k = 0; k < NGM; k++)
			if (!strcmp(lp_tsv_get(&t, cs), stage) &&
			    !strcmp(lp_tsv_get(&t, cm), gm_metric[k]) &&
			    lp_tab_num(&t, cv, &x))
				v[k] = x;
	lp_tsv_close(&t);
	fclose(fp);
	return have;
}

/* The sampled DRAM (read + write) and tensor-pipe activity of the steady
 * step, beside the model's MBU: what the GPU did, not the arithmetic. */
static void
sampled(struct lp_row *r, const double *v, const char *stage)
{
	if (isfinite(v[0]) && isfinite(v[1]))
		lp_row_g(r, v[0] + v[1]);
	else
		lp_row_na(r, "no DRAM samples for %s (gpumetrics.tsv)", stage);
	if (isfinite(v[2]))
		lp_row_g(r, v[2]);
	else
		lp_row_na(r, "no Tensor Active samples for %s (gpumetrics.tsv)",
		    stage);
}

/*
 * The cells of the first row of an lp table whose column keycol holds key
 * (any row when keycol is NULL), copied into want[i] for the column names
 * names[i] ("" where the table has no such column); 0 when no row matched.
 * The caller frees each cell.
 */
static int
row_of(const char *path, const char *tool, const char *keycol,
    const char *key, const char *const *names, char **want, size_t n)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, tool);
	int kc = keycol ? lp_csv_need(&t.hdr, keycol, tool) : -1, found = 0;
	size_t i;

	lp_tab_expect(&t, tool);
	for (i = 0; i < n; i++)
		want[i] = NULL;
	while (!found && lp_tab_next(&t)) {
		if (kc >= 0 && strcmp(lp_tsv_get(&t, kc), key))
			continue;
		for (i = 0; i < n; i++) {
			int c = lp_csv_col(&t.hdr, names[i]);

			want[i] = lp_xstrdup(c >= 0 ? lp_tsv_get(&t, c) : "");
		}
		found = 1;
	}
	lp_tsv_close(&t);
	fclose(fp);
	return found;
}

static void
freecells(char **c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(c[i]);
}

static void
cellv(struct lp_row *r, const char *v, const char *why)
{
	lp_row_text(r, v && *v ? v : why);
}

/* The values of environment.tsv's items, in one reading, each up to its
 * first " (" (the source it names); "n/a" for an item it lacks. */
/* The last " (" of s, NULL if none. */
static char *
last_paren(char *s)
{
	char *p, *last = NULL;

	for (p = s; (p = strstr(p, " (")); p++)
		last = p;
	return last;
}

static void
env_items(const char *path, const char *const *items, char **v, size_t n)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-envtab");
	int ci = lp_csv_need(&t.hdr, "item", "lp-envtab output");
	int cv = lp_csv_need(&t.hdr, "value", "lp-envtab output");
	size_t k;

	lp_tab_expect(&t, "lp-envtab");
	for (k = 0; k < n; k++)
		v[k] = NULL;
	while (lp_tab_next(&t))
		for (k = 0; k < n; k++)
			if (!v[k] && !strcmp(lp_tsv_get(&t, ci), items[k])) {
				char *p;

				v[k] = lp_xstrdup(lp_tsv_get(&t, cv));
				/* the model's config file, after its name
				 * (which may hold " (" itself) */
				if (!strcmp(items[k], "Model") && strncmp(v[k],
				    "n/a", 3) && (p = last_paren(v[k])))
					*p = '\0';
			}
	for (k = 0; k < n; k++)
		if (!v[k])
			v[k] = lp_xstrdup("n/a");
	lp_tsv_close(&t);
	fclose(fp);
}

struct opts {
	const char *cpath, *epath, *spath, *tpath, *bpath, *kpath, *gpath;
	const char *upath, *apath, *wpath;
	const char *image;
	const char **links;	/* -L, nlinks of them */
	size_t nlinks;
	int waiting;		/* -W: the nsys pass's brief, ncu to come */
};

/* What the brief copies: the stage's row of stages.tsv (st), the steady
 * step's of steps.tsv (sp), the top kernel's (tk), the environment's
 * model, GPU and workload (env), the steady step's samples (gm, -G). */
struct in {
	struct lp_ynode *cfg;
	const char *stage, *step;
	char *st[3], *sp[4], *tk[4], *env[3];	/* tk[3]: the shown name */
	int have_st, have_sp, have_tk;
	double busy;		/* the stage's GPU busy, NAN: why in busy_na */
	double procs;		/* the processes (GPUs) it is the mean of */
	const char *busy_na;
	int untraced;		/* steps.tsv is the untraced timing run's */
	struct lp_sb over;	/* what the capture added, from -u */
	char *partial;		/* what the audit found partial (-A), or NULL */
	double gm[NGM];
	struct lp_sb b;		/* step */
	long bound_pct;		/* brief.bound_pct */
	char *bverdict, *bstep;	/* bound.tsv's verdict and step (-B) */
	char *bwhy, *bgpus;	/* and of several ranks, why and their GPUs */
	double bshare[3];	/* its kernels, communication, idle shares */
};

/* bound.tsv (lp-bound): the verdict the step's parts give, its step and
 * each kind's share. */
static void
bound_read(const char *path, struct in *in)
{
	static const char *const kinds[] = { "kernels", "communication",
		"idle" };
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-bound");
	const char *v = lp_tsv_comment(&t, "verdict");
	int ck, cp, cr;
	size_t k;
	double x;

	lp_tab_expect(&t, "lp-bound");
	if (!v || !lp_tsv_comment(&t, "step"))
		lp_die_at(LP_EXIT_DATA, path, 1, 0, "no \"# verdict:\" and "
		    "\"# step:\" lines (not lp-bound output)");
	in->bverdict = lp_xstrdup(v);
	in->bstep = lp_xstrdup(lp_tsv_comment(&t, "step"));
	ck = lp_csv_need(&t.hdr, "kind", "lp-bound output");
	cp = lp_csv_need(&t.hdr, "pct", "lp-bound output");
	cr = lp_csv_col(&t.hdr, "process");
	for (k = 0; k < 3; k++)
		in->bshare[k] = NAN;
	/* several ranks: the verdict, the GPUs and why, in lp-bound's words */
	if (lp_tsv_comment(&t, "why") && lp_tsv_comment(&t, "gpus")) {
		in->bwhy = lp_xstrdup(lp_tsv_comment(&t, "why"));
		in->bgpus = lp_xstrdup(lp_tsv_comment(&t, "gpus"));
	}
	while (lp_tab_next(&t))
		for (k = 0; k < 3; k++)
			if (!strcmp(lp_tsv_get(&t, ck), kinds[k]) && (cr < 0 ||
			    !strcmp(lp_tsv_get(&t, cr), "-")) &&
			    lp_tab_num(&t, cp, &x))
				in->bshare[k] = x;
	lp_tsv_close(&t);
	fclose(fp);
}

/* The stage's GPU busy as stages.tsv and steps.tsv give it together
 * (lp_stagetab_load: the untraced wall time where steps.tsv has it). */
static void
busy_of(const struct opts *o, struct in *in)
{
	struct lp_stagerow *rows;
	const struct lp_stagerow *r;
	size_t n = lp_stagetab_load(o->spath, o->tpath, &rows);

	in->busy = NAN;
	in->procs = 1;
	in->busy_na = "stages.tsv has no row for the stage";
	if ((r = lp_stagetab_get(rows, n, in->stage))) {
		in->busy = r->busy;
		in->procs = r->procs;
		in->untraced = r->untraced;
		in->busy_na = r->busy_why ? r->busy_why : r->untraced ?
		    "the stage has no wall time untraced or no kernel time "
		    "(steps.tsv, stages.tsv)" : "stages.tsv has no GPU busy "
		    "for the stage";
	}
	lp_stagetab_free(rows, n);
}

/* What the capture added to stage's time, from untraced.tsv: "adds 0.128
 * ms (29.3 %) to decode_step", or why not. */
static void
overhead(const char *path, const char *stage, struct lp_sb *b)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-untraced");
	int cs, cc, cr, co;
	double d = NAN, x = NAN;

	lp_tab_expect(&t, "lp-untraced");
	cs = lp_csv_need(&t.hdr, "stage", "lp-untraced output");
	cc = lp_csv_need(&t.hdr, "change_ns", "lp-untraced output");
	cr = lp_csv_need(&t.hdr, "traced_over_untraced", "lp-untraced output");
	co = lp_csv_need(&t.hdr, "time_of", "lp-untraced output");
	while (lp_tab_next(&t)) {
		if (strcmp(lp_tsv_get(&t, cs), stage))
			continue;
		if (lp_tab_num(&t, cc, &d) && lp_tab_num(&t, cr, &x) && d >= 0)
			lp_sb_printf(b, "the capture added %.3f ms (%+.1f %%) to "
			    "the %s of %s (untraced.tsv), not counted here",
			    d / 1e6, 100 * (x - 1), lp_tsv_get(&t, co), stage);
		else if (!isnan(d) && !isnan(x))	/* below 0: noise */
			lp_sb_printf(b, "the capture's %s of %s was %.3f ms "
			    "(%.1f %%) shorter than untraced (untraced.tsv): the "
			    "workload's run-to-run spread, not an overhead",
			    lp_tsv_get(&t, co), stage, -d / 1e6, 100 * (1 - x));
		break;
	}
	if (!b->len)
		lp_sb_printf(b, "what the capture added to %s is not known "
		    "(untraced.tsv)", stage);
	lp_tsv_close(&t);
	fclose(fp);
}

/* capture_audit.tsv's "# partial:" line (steps of a graphed decode
 * launched eagerly), or NULL. */
static char *
audit_partial(const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-audit");
	const char *p;
	char *v;

	lp_tab_expect(&t, "lp-audit");
	p = lp_tsv_comment(&t, "partial");
	v = p ? lp_xstrdup(p) : NULL;
	lp_tsv_close(&t);
	fclose(fp);
	return v;
}

static void
read_inputs(struct opts *o, struct in *in)
{
	static const char *const stn[] = { "range", "busy_pct", "kernel_ns" };
	static const char *const spn[] = { "stage", "steady_ns", "tokens_per_s",
	    "first_over_rest" };
	static const char *const tkn[] = { "kernel", "share_pct", "class",
	    "name" };
	static const char *const envn[] = { "Model", "GPU", "Workload" };

	in->cfg = lp_yaml_load_path(o->cpath);
	in->stage = lp_cfg_word(in->cfg, "run.stage", NULL, o->cpath);

	in->have_st = row_of(o->spath, "lp-stages", "stage", in->stage, stn,
	    in->st, 3);
	in->have_sp = row_of(o->tpath, "lp-steps", "tokens_basis",
	    "steady-state step", spn, in->sp, 4);
	/* without a model (no batch, no tokens/s) the step is still timed,
	 * where decode_step has a steady state */
	if (!in->have_sp && (in->have_sp = row_of(o->tpath, "lp-steps",
	    "stage", "decode_step", spn, in->sp, 4)) &&
	    !lp_num_get(in->sp[1], &(double){ 0 })) {
		freecells(in->sp, 4);
		in->have_sp = 0;
	}
	if (o->kpath)
		in->have_tk = row_of(o->kpath, "lp-topk", NULL, NULL, tkn,
		    in->tk, 4);
	env_items(o->epath, envn, in->env, 3);
	busy_of(o, in);
	if (o->apath)
		in->partial = audit_partial(o->apath);
	if (o->upath)
		overhead(o->upath, in->have_sp ? in->sp[0] : "decode_step",
		    &in->over);
	/* the steady step's samples, unless the table says it has none */
	lp_sb_printf(&in->b, "%s:steady", in->have_sp ? in->sp[0] :
	    "decode_step");
	in->step = lp_sb_str(&in->b);
	if (o->gpath && !gm_read(o->gpath, in->step, in->gm))
		o->gpath = NULL;
	in->bound_pct = lp_cfg_long(in->cfg, "brief.bound_pct", 60, 51, 100,
	    o->cpath);
	if (o->wpath)
		bound_read(o->wpath, in);
}

/* The top kernel in a sentence under the key numbers: its name, class and
 * share of the stage's kernel time (the row keeps them as columns). */
static void
top_note(const struct in *in)
{
	struct lp_sb b = { 0 };
	double share;

	lp_sb_adds(&b, "Top kernel: ");
	lp_md_code(&b, in->tk[3], 0);
	if (*in->tk[2] && strncmp(in->tk[2], "n/a", 3))
		lp_sb_printf(&b, ", %s", in->tk[2]);
	if (lp_num_get(in->tk[1], &share)) {
		lp_sb_adds(&b, ", ");
		lp_fmt_pct(&b, share);
		lp_sb_adds(&b, " of the kernel time");
	}
	lp_tab_meta(out, "note", "%s.", lp_sb_str(&b));
	lp_sb_free(&b);
}

/* The identity line: model, GPU, stage, and whose times the brief shows,
 * said once: an import's are the traced capture's, overhead included
 * (never run untraced here); a live run's the untraced timing run's, and
 * what the capture added; then what the audit found partial. */
static void
identity(struct in *in)
{
	const char *stage = in->stage, *model = in->env[0], *gpu = in->env[1];
	const char *work = in->env[2];
	struct lp_sb part = { 0 };

	/* the names as environment.tsv writes them, sentences already */
	if (!strncmp(model, "n/a", 3))	/* its reason is said in details.md */
		model = "No model config (MODEL=NAME)";
	if (!strncmp(gpu, "n/a", 3))
		gpu = "a GPU the exports do not name (SET=gpu.name=...)";
	if (in->partial)
		lp_sb_printf(&part, "; partial capture: %s (capture_audit.tsv)",
		    in->partial);
	if (in->untraced)
		lp_tab_meta(out, "identity", "%s on %s, %s, profiled live, "
		    "timed untraced (the workload's own times): %s%s", model,
		    gpu, stage, in->over.len ? lp_sb_str(&in->over) :
		    "what the capture added is in details.md", lp_sb_str(&part));
	else
		lp_tab_meta(out, "identity", "%s on %s, %s, %s%s", model, gpu,
		    stage, !strncmp(work, "imported", 8) ? "imported exports, "
		    "whose numbers include the capture's overhead" : "profiled "
		    "live, whose numbers are the traced capture's, overhead "
		    "included", lp_sb_str(&part));
	lp_sb_free(&part);
}

/* ", its top kernel (class) takes N% of that" */
static void
top_clause(struct lp_sb *v, const struct in *in)
{
	double share;
	const char *c;
	int n;

	if (!in->have_tk || !lp_num_get(in->tk[1], &share))
		return;
	c = in->tk[2];
	n = (int)strcspn(c, "(");
	while (n > 0 && c[n - 1] == ' ')
		n--;
	lp_sb_adds(v, ", its top kernel ");
	if (*c && strncmp(c, "n/a", 3))	/* its class, short */
		lp_sb_printf(v, "(%.*s) ", n, c);
	lp_sb_adds(v, "takes ");
	lp_fmt_pct(v, share);
	lp_sb_adds(v, " of that");
}

/* The verdict from the step's parts (bound.tsv, -B): the kind that takes
 * brief.bound_pct of the step names the bound, else "mixed"; where the
 * parts are not known, the stage's GPU busy against the same share. */
static void
verdict(struct lp_sb *v, const struct in *in)
{
	const char *stage = in->stage, *w = in->bverdict;
	const double *sh = in->bshare;
	double busy = in->busy, t = (double)in->bound_pct;

	if (w && in->bwhy) {	/* several ranks: lp-bound's clause */
		lp_sb_printf(v, "%s is %s on %s: %s (bound.tsv)", stage, w,
		    in->bgpus, in->bwhy);
		return;
	}
	if (w && strncmp(w, "n/a", 3)) {
		lp_sb_printf(v, "%s is %s: ", stage, w);
		if (!strcmp(w, "GPU-bound")) {
			lp_sb_adds(v, "kernels take ");
			lp_fmt_pct(v, sh[0]);
			lp_sb_printf(v, " of a %s (bound.tsv)", in->bstep);
			top_clause(v, in);
		} else if (!strcmp(w, "communication-bound")) {
			lp_sb_adds(v, "communication kernels take ");
			lp_fmt_pct(v, sh[1]);
			lp_sb_printf(v, " of a %s (bound.tsv)", in->bstep);
		} else if (!strcmp(w, "host-bound")) {
			lp_sb_adds(v, "the GPU idles ");
			lp_fmt_pct(v, sh[2]);
			lp_sb_printf(v, " of a %s (bound.tsv)", in->bstep);
		} else {
			lp_sb_adds(v, "kernels ");
			lp_fmt_pct(v, sh[0]);
			if (sh[1] > 0) {
				lp_sb_adds(v, ", communication ");
				lp_fmt_pct(v, sh[1]);
			}
			lp_sb_adds(v, ", GPU idle ");
			lp_fmt_pct(v, sh[2]);
			lp_sb_printf(v, " of a %s, none %ld%% (bound.tsv)",
			    in->bstep, in->bound_pct);
		}
		return;
	}
	if (isnan(busy)) {
		lp_sb_printf(v, "%s: GPU busy not known (%s)", stage,
		    in->busy_na);
		return;
	}
	lp_sb_printf(v, "%s is %s: the GPU is busy ", stage, busy >= t ?
	    "GPU-bound" : busy <= 100 - t ? "host-bound" : "mixed");
	lp_fmt_pct(v, busy);
	if (busy >= t)	/* the kernel is named under the key numbers */
		top_clause(v, in);
}

/* What each key number is, in a sentence: details.md lists them, each
 * with an anchor the brief's header links to (lp-summary). */
static void
defines(const struct opts *o, const struct in *in)
{
	lp_tab_meta(out, "define", "steady_ns: the decode step as it runs "
	    "once warm: the median decode_step instance after the first "
	    "(steps.tsv)%s.", in->untraced ? ", timed in the untraced run "
	    "(the workload under nsys with NVTX alone), so the capture's "
	    "overhead is not in it" : ", as the capture timed it (its "
	    "overhead included)");
	lp_tab_meta(out, "define", "tokens_per_s: tokens a second in that "
	    "step: the batch (one token a sequence a step) over the steady "
	    "step.");
	lp_tab_meta(out, "define", "first_over_steady: the first decode step "
	    "over the steady one: how much warm-up (module loading, "
	    "allocation, autotuning) the first step carries.");
	lp_tab_meta(out, "define", "busy_pct: GPU busy, the stage's kernel "
	    "time over its wall time%s (stages.tsv).", in->untraced ? " (the "
	    "capture's kernel time over the untraced wall time)" : "");
	lp_tab_meta(out, "define", "mbu_steady_pct: MBU, model bandwidth "
	    "utilisation: the bytes a step must move (the weights and the KV "
	    "cache, from the model config) over the steady step, as a share of "
	    "the GPU's DRAM bandwidth (mbu.tsv); MFU, model FLOPs utilisation, "
	    "is the same for FLOPs against the tensor peak (mfu.tsv).");
	if (o->gpath) {
		lp_tab_meta(out, "define", "dram_sampled_pct: DRAM read and "
		    "write throughput as nsys's GPU Metrics sampled it in the "
		    "steady steps of the traced capture, as a share of its peak "
		    "(gpumetrics.tsv).");
		lp_tab_meta(out, "define", "tensor_sampled_pct: tensor pipes "
		    "active as nsys's GPU Metrics sampled them in the steady "
		    "steps of the traced capture (gpumetrics.tsv).");
	}
}

/* The verdict (the GPU idles, or what keeps it busy), the identity, the
 * sources, the links and the image. */
static void
emit_meta(const struct opts *o, struct in *in)
{
	struct lp_sb v = { 0 };
	size_t i;

	/* the verdict: what bounds the step */
	lp_tab_meta(out, "title", "Key Numbers");
	lp_tab_meta(out, "tool", "lp-brief");
	verdict(&v, in);
	lp_tab_meta(out, "verdict", "%s", lp_sb_str(&v));
	identity(in);
	if (o->waiting)
		lp_tab_meta(out, "note", "The first answer, from the nsys passes "
		    "alone: ncu is still measuring the kernels. The whole brief, "
		    "with the top kernels and the findings, will be "
		    "stakeholder_summary.md.");
	lp_tab_meta(out, "source", "steady step, tokens/s and first / steady "
	    "from %s%s; GPU busy from %s%s; MBU from %s;%s%s%s top kernel from %s",
	    o->tpath, in->untraced ? " (untraced)" : "", o->spath,
	    in->untraced ? " (the capture's kernel time) over the untraced "
	    "wall time" : "", o->bpath ? o->bpath : "(no mbu.tsv)", o->gpath ?
	    " DRAM and tensor activity sampled by nsys in the traced capture, from " : "",
	    o->gpath ? o->gpath : "", o->gpath ? ";" : "", o->kpath ? o->kpath :
	    "(no top_kernels.tsv)");
	if (in->have_tk)
		top_note(in);
	for (i = 0; i < o->nlinks; i++)
		lp_tab_meta(out, "link", "%s", o->links[i]);
	if (o->image)
		lp_tab_meta(out, "image", "%s", o->image);
	defines(o, in);
	lp_sb_free(&v);
}

/* The header: the step's and GPU busy's labels as the run has them. */
static void
emit_header(const struct opts *o, const struct in *in)
{
	struct lp_sb l1 = { 0 }, l4 = { 0 };

	if (in->have_sp) {
		/* "step" for decode_step, the one lp's workloads mark */
		lp_sb_printf(&l1, "Steady %s (ms)", strcmp(in->sp[0],
		    "decode_step") ? in->sp[0] : "step");
		cols[0].label = lp_sb_str(&l1);
	}
	if (in->procs > 1)	/* several ranks: stages.tsv's mean of them */
		lp_sb_printf(&l4, "GPU busy (mean of %.0f GPUs)", in->procs);
	else
		lp_sb_printf(&l4, "GPU busy");
	cols[3].label = lp_sb_str(&l4);
	if (!o->gpath)	/* no samples: the two sampled columns go */
		memmove(&cols[GM], &cols[GM + 2], (NCOLS - GM - 2) *
		    sizeof cols[0]);
	lp_tab_header(out, cols, o->gpath ? NCOLS : NCOLS - 2);
	lp_sb_free(&l1);
	lp_sb_free(&l4);
}

/* The header and the one row of key numbers. */
static void
emit_row(const struct opts *o, struct in *in)
{
	static const char *const mbn[] = { "mbu_steady_pct" };
	struct lp_row r = { { 0 }, 0 };
	char *mb[1];
	size_t i;

	emit_header(o, in);
	if (in->have_sp) {
		cellv(&r, in->sp[1], "n/a because steps.tsv has no steady step");
		cellv(&r, in->sp[2], "n/a");
		cellv(&r, in->sp[3], "n/a");
	} else
		for (i = 0; i < 3; i++)
			lp_row_text(&r, "n/a because no stage has a steady "
			    "state (steps.tsv: one instance, or no "
			    "decode_step range)");
	if (in->untraced && !isnan(in->busy))
		lp_row_g(&r, in->busy);
	else if (in->untraced)
		lp_row_na(&r, "%s", in->busy_na);
	else
		cellv(&r, in->have_st ? in->st[1] : NULL, "n/a because "
		    "stages.tsv has no row for the stage");
	if (o->bpath && in->have_sp && row_of(o->bpath, "lp-mbu", "stage",
	    in->sp[0], mbn, mb, 1)) {
		cellv(&r, mb[0], "n/a");
		freecells(mb, 1);
	} else
		lp_row_text(&r, "n/a because mbu.tsv has no steady step");
	if (o->gpath)
		sampled(&r, in->gm, in->step);
	if (in->have_tk) {
		cellv(&r, in->tk[0], "n/a");
		cellv(&r, in->tk[2], "n/a because top_kernels.tsv has no class");
		cellv(&r, in->tk[1], "n/a");
		freecells(in->tk, 4);
	} else
		for (i = 0; i < 3; i++)
			lp_row_text(&r, o->waiting ? "n/a because ncu is still "
			    "measuring the kernels" : "n/a because the run has "
			    "no top_kernels.tsv");
	lp_row_end(&r, out);
	lp_sb_free(&r.b);
}

static void
free_inputs(struct in *in)
{
	size_t i;

	if (in->have_st)
		freecells(in->st, 3);
	if (in->have_sp)
		freecells(in->sp, 4);
	for (i = 0; i < 3; i++)
		free(in->env[i]);
	lp_sb_free(&in->b);
	lp_sb_free(&in->over);
	free(in->partial);
	free(in->bverdict);
	free(in->bstep);
	free(in->bwhy);
	free(in->bgpus);
	lp_yaml_free(in->cfg);
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct in in = { 0 };
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "A:B:G:I:L:Wb:c:e:k:s:t:u:", synopsis)) != -1) {
		switch (c) {
		case 'A': o.apath = optarg; break;
		case 'B': o.wpath = optarg; break;
		case 'G': o.gpath = optarg; break;
		case 'I': o.image = optarg; break;
		case 'L':
			o.links = lp_xreallocarray(o.links, o.nlinks + 1,
			    sizeof *o.links);
			o.links[o.nlinks++] = optarg;
			break;
		case 'b': o.bpath = optarg; break;
		case 'c': o.cpath = optarg; break;
		case 'e': o.epath = optarg; break;
		case 'k': o.kpath = optarg; break;
		case 'W': o.waiting = 1; break;
		case 's': o.spath = optarg; break;
		case 't': o.tpath = optarg; break;
		case 'u': o.upath = optarg; break;
		}
	}
	if (!o.cpath || !o.epath || !o.spath || !o.tpath || optind != argc)
		lp_usage(synopsis);
	if (o.waiting && o.kpath)
		lp_die(LP_EXIT_USAGE, "-W (ncu to come) and -k (its top kernels) "
		    "do not go together");
	out = lp_tab_out();
	read_inputs(&o, &in);
	emit_meta(&o, &in);
	emit_row(&o, &in);
	free_inputs(&in);
	free(o.links);
	lp_tab_done(out);
	return 0;
}
