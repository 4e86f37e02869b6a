/*
 * lp-stagediff: compare_stages.tsv, two runs' stages side by side: what
 * each run was (GPU, tools, model, batch, prompt, decode tokens and the
 * decode steps the trace shows), then per stage the wall time (median,
 * mean, steady state), GPU kernel time, busy share, launches per instance,
 * tokens/s, MFU and MBU, before and after, the change and the ratio, and
 * whether the change stands out of the instances' spread (the rule is in
 * lp-stagediff(1)).  decode_all totals grow with the number of decode
 * steps, so they are given per step as well.  With -r, a gate: exit 3 when
 * a stage's steady state got significantly slower by more than the
 * threshold.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-stagediff [-r percent] stages.tsv steps.tsv "
    "mfu.tsv mbu.tsv gpu.tsv env.json inputs.yaml stages.tsv steps.tsv "
    "mfu.tsv mbu.tsv gpu.tsv env.json inputs.yaml";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

enum { F_STAGES, F_STEPS, F_MFU, F_MBU, F_GPU, F_ENV, F_INPUTS, F_N };

struct run {
	char *const *f;		/* its F_N files */
	struct lp_stagerow *st;
	size_t n;
	struct lp_ynode *env, *inputs;
	char *gpu;
	double mfu[3], mbu[3];	/* steady (else mean) per known stage */
	double steps;		/* decode steps per decode_all; NAN unknown */
	int untraced;		/* its steps.tsv is the untraced run's */
};

static const char *const known[] = { "prefill", "decode_all", "decode_step" };

/* A stage's value of a table, steady state where there is one. */
static void
util(const char *p, const char *tool, const char *steady, const char *mean,
    double *v)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, p, "make RUN=... stakeholder_summary.md");
	int cs = lp_csv_need(&t.hdr, "stage", "an lp table");
	int c1 = lp_csv_col(&t.hdr, steady), c2 = lp_csv_col(&t.hdr, mean);
	size_t k;

	lp_tab_expect(&t, tool);
	for (k = 0; k < 3; k++)
		v[k] = NAN;
	while (lp_tab_next(&t))
		for (k = 0; k < 3; k++)
			if (!strcmp(lp_tsv_get(&t, cs), known[k]) &&
			    !lp_tab_num(&t, c1, &v[k]) &&
			    !lp_tab_num(&t, c2, &v[k]))
				v[k] = NAN;
	lp_tsv_close(&t);
	fclose(fp);
}

static void
load(struct run *r, char *const *f)
{
	const struct lp_stagerow *all, *step;
	struct lp_peaks pk;
	size_t k;

	memset(r, 0, sizeof *r);
	r->f = f;
	r->n = lp_stagetab_load(f[F_STAGES], f[F_STEPS], &r->st);
	for (k = 0; k < r->n; k++)
		r->untraced |= r->st[k].untraced;
	r->env = lp_yaml_load_path(f[F_ENV]);
	r->inputs = lp_yaml_load_path(f[F_INPUTS]);
	lp_peaks_read(&pk, f[F_GPU]);
	r->gpu = pk.gpu ? lp_xstrdup(pk.gpu) : NULL;
	lp_peaks_free(&pk);
	util(f[F_MFU], "lp-mfu", "mfu_steady_pct", "mfu_pct", r->mfu);
	util(f[F_MBU], "lp-mbu", "mbu_steady_pct", "mbu_pct", r->mbu);
	/* what ran, from the trace: decode_step instances per decode_all */
	all = lp_stagetab_get(r->st, r->n, "decode_all");
	step = lp_stagetab_get(r->st, r->n, "decode_step");
	r->steps = NAN;
	if (step && step->inst > 0)
		r->steps = all && all->inst > 0 ? step->inst / all->inst :
		    step->inst;
}

static const char *
str(const struct lp_ynode *n, const char *path)
{
	const struct lp_ynode *v = n ? lp_yaml_get(n, path) : NULL;

	return v && v->type == LP_Y_SCALAR && !(!v->quoted &&
	    !strcmp(v->s, "null")) ? v->s : "unknown";
}

/* Ten significant digits: a time in ns stays whole, a share keeps its
 * digits. */
static void
g10(struct lp_row *r, double v)
{
	struct lp_sb b = { 0 };

	lp_sb_printf(&b, "%.10g", v);
	lp_row_text(r, lp_sb_str(&b));
	lp_sb_free(&b);
}

/* What a run was: one setting of each run. */
struct what {
	const char *metric;
	char *x, *y;
};

#define NWHAT 8

/* "# differ: SETTING<tab>BEFORE<tab>AFTER", each field on one line. */
static void
differ(const struct what *w)
{
	const char *f[3] = { w->metric, w->x, w->y }, *p;
	int i;

	fputs("# differ: ", out);
	for (i = 0; i < 3; i++) {
		if (i)
			putc('\t', out);
		for (p = f[i]; *p; p++)
			putc(*p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p,
			    out);
	}
	putc('\n', out);
}

/* Do the instance spreads of the two runs overlap?  1 yes, 0 no, -1 not
 * known (a stage of one instance, or no trace).  The spread is the middle
 * half of the steady-state instances, [p25, p75], so that one slow step
 * (a page fault, a clock change) does not hide a real change; a steps.tsv
 * without quartiles gives [min, max]. */
static int
overlap(const struct lp_stagerow *a, const struct lp_stagerow *b)
{
	int q = !isnan(a->steady_p25) && !isnan(a->steady_p75) &&
	    !isnan(b->steady_p25) && !isnan(b->steady_p75);
	double alo = q ? a->steady_p25 : a->steady_min;
	double ahi = q ? a->steady_p75 : a->steady_max;
	double blo = q ? b->steady_p25 : b->steady_min;
	double bhi = q ? b->steady_p75 : b->steady_max;

	if (isnan(alo) || isnan(ahi) || isnan(blo) || isnan(bhi))
		return -1;
	return !(bhi < alo || blo > ahi);
}

/* Why two stage rows have no spread to test a change against. */
static const char *
nospread(const struct lp_stagerow *x, const struct lp_stagerow *y)
{
	if (!(x->inst > 1) || !(y->inst > 1))
		return "one instance";
	return "no per-instance trace, nvtx_pushpop_trace";
}

/* The reason a figure of the whole run has no spread. */
#define ONE "one figure a run"

/* A row of the table: sig 1 within the spread, 0 outside, -1 not known
 * (why says why). */
static void
row(struct lp_row *r, const char *stage, const char *metric, double x,
    double y, const char *unit, int sig, const char *why)
{
	lp_row_text(r, stage);
	lp_row_text(r, metric);
	if (isnan(x))
		lp_row_na(r, "the before run has no value");
	else
		g10(r, x);
	if (isnan(y))
		lp_row_na(r, "the after run has no value");
	else
		g10(r, y);
	if (isnan(x) || isnan(y)) {
		lp_row_text(r, "n/a");
		lp_row_text(r, "n/a");
		lp_row_text(r, "n/a");
	} else {
		g10(r, y - x);
		if (x != 0)
			lp_row_g(r, y / x);
		else
			lp_row_na(r, "the before value is 0");
		if (sig < 0) {
			struct lp_sb b = { 0 };

			lp_sb_printf(&b, "n/a (no spread: %s)", why);
			lp_row_text(r, lp_sb_str(&b));
			lp_sb_free(&b);
		} else
			lp_row_text(r, sig ? "no: within the spread of the "
			    "instances" : "yes: outside the spread of the instances");
	}
	lp_row_text(r, unit);
	lp_row_end(r, out);
}

static void
ms(struct lp_sb *b, double ns)
{
	lp_fmt_time(b, ns);
}

/* The gate on one stage: its steady state, significantly slower by more
 * than pct percent (a time divided by sx before, sy after: per decode
 * step where the runs' steps differ).  A stage without a spread (one instance) is not
 * judged, and said so when it moved past the threshold.  1: regressed. */
static int
gate(const char *stage, const struct lp_stagerow *x,
    const struct lp_stagerow *y, double pct, double sx, double sy)
{
	struct lp_sb b = { 0 };
	int steady = !isnan(x->steady) && !isnan(y->steady);
	double v0 = steady ? x->steady : x->median / sx;
	double v1 = steady ? y->steady : y->median / sy;
	int sig = overlap(x, y), bad = 0;

	if (isnan(v0) || isnan(v1) || !(v0 > 0) || !(v1 > v0 * (1 + pct / 100)))
		return 0;
	lp_sb_printf(&b, "%s %s ", stage, steady ? "steady state" : sx != 1 ||
	    sy != 1 ? "wall time / decode step" : "wall time, median");
	ms(&b, v0);
	lp_sb_adds(&b, " -> ");
	ms(&b, v1);
	lp_sb_printf(&b, " (%+.1f %%, more than %g %%)", 100 * (v1 / v0 - 1),
	    pct);
	if (steady && sig == 0) {
		fprintf(stderr, "lp-stagediff: regression: %s, outside the "
		    "spread of the instances\n", lp_sb_str(&b));
		bad = 1;
	} else
		fprintf(stderr, "lp-stagediff: not judged: %s, %s\n",
		    lp_sb_str(&b), sig > 0 ? "within the spread of the "
		    "instances" : "no spread to test it against (one "
		    "instance, or no per-instance trace)");
	lp_sb_free(&b);
	return bad;
}

/* Caller frees. */
static char *
numstr(double v)
{
	struct lp_sb b = { 0 };

	if (isnan(v))
		lp_sb_adds(&b, "unknown");
	else
		lp_sb_printf(&b, "%.10g", v);
	return lp_sb_steal(&b);
}

/* A name (the GPU's, the model's) as lp's sentences carry it: a backtick
 * of its opens no code span. */
static char *
name_of(const char *s)
{
	struct lp_sb b = { 0 };

	lp_md_name(&b, s);
	return lp_sb_steal(&b);
}

/* What the runs were, setting by setting. */
static void
describe(struct what *w, const struct run *a, const struct run *b)
{
	static const char *const keys[][2] = {
		{ "batch", "model.batch" },
		{ "prompt tokens", "model.prompt_tokens" },
		{ "decode tokens", "model.decode_tokens" },
	};
	size_t k;

	w[0] = (struct what){ "GPU", name_of(a->gpu ? a->gpu : "unknown"),
	    name_of(b->gpu ? b->gpu : "unknown") };
	w[1] = (struct what){ "Nsight Systems", lp_xstrdup(str(a->env,
	    "nsys_version")), lp_xstrdup(str(b->env, "nsys_version")) };
	w[2] = (struct what){ "Nsight Compute", lp_xstrdup(str(a->env,
	    "ncu_version")), lp_xstrdup(str(b->env, "ncu_version")) };
	w[3] = (struct what){ "model", name_of(str(a->inputs, "model.name")),
	    name_of(str(b->inputs, "model.name")) };
	for (k = 0; k < 3; k++)
		w[4 + k] = (struct what){ keys[k][0], lp_xstrdup(str(a->inputs,
		    keys[k][1])), lp_xstrdup(str(b->inputs, keys[k][1])) };
	w[7] = (struct what){ "decode steps in the trace", numstr(a->steps),
	    numstr(b->steps) };
}

/* The # lines: the sources, what the runs were (flagged in a note, and
 * rows first) and the rule for "significant". */
static void
emit_meta(const struct run *a, const struct run *b, const struct what *w,
    int steps_differ)
{
	struct lp_sb flags = { 0 };
	size_t k;

	lp_tab_meta(out, "title", "Stages, Before and After");
	lp_tab_meta(out, "tool", "lp-stagediff");
	lp_tab_meta(out, "timing", "%s", a->untraced ? "untraced (both runs' "
	    "steps timed without the tracer)" : "traced (both runs' steps "
	    "the captures', their overhead included)");
	lp_tab_meta(out, "source", "before: %s, %s, %s, %s, %s, %s, %s; after: "
	    "%s, %s, %s, %s, %s, %s, %s", a->f[0], a->f[1], a->f[2], a->f[3],
	    a->f[4], a->f[5], a->f[6], b->f[0], b->f[1], b->f[2], b->f[3],
	    b->f[4], b->f[5], b->f[6]);
	/* each setting that differs, as data for lp-verdict(1), then said */
	for (k = 0; k < NWHAT; k++)
		if (strcmp(w[k].x, w[k].y)) {
			differ(&w[k]);
			lp_sb_printf(&flags, "%s%s (%s before, %s after)",
			    flags.len ? "; " : "", w[k].metric, w[k].x, w[k].y);
		}
	if (flags.len)
		lp_tab_meta(out, "note", "The runs differ in: %s. They are "
		    "compared all the same; read the changes with that in "
		    "mind.%s", lp_sb_str(&flags), steps_differ ? " decode_all "
		    "totals grow with the decode steps: compare its rows per "
		    "decode step." : "");
	lp_tab_meta(out, "note", "Significant: a time that moved out of the "
	    "spread of the instances. A change is not significant when the "
	    "middle halves [p25, p75] of the two runs' steady-state instances "
	    "(each run's instances after its first, steps.tsv) overlap; "
	    "[min, max] where a steps.tsv has no quartiles.");
	lp_sb_free(&flags);
}

static const struct lp_col cols[] = {
	{ "stage", "Stage", "text" }, { "metric", "Metric", "text" },
	{ "before", "Before", "q" }, { "after", "After", "q" },
	{ "change", "Change", "q" }, { "ratio", "After / before", "x" },
	{ "significant", "Significant", "text" }, { "unit", "Unit", "hide" },
};

/* The rows of known stage k, in both runs or in one. */
static void
emit_stage(struct lp_row *r, const struct run *a, const struct run *b,
    size_t k)
{
	const struct lp_stagerow *x = lp_stagetab_get(a->st, a->n, known[k]);
	const struct lp_stagerow *y = lp_stagetab_get(b->st, b->n, known[k]);
	const char *s = known[k], *ns;
	int sig;

	if (!x && !y)
		return;
	if (!x || !y) {
		lp_row_text(r, s);
		lp_row_text(r, "stage");
		lp_row_na(r, "only the %s run has this stage", x ? "before" :
		    "after");
		lp_row_end_na(r, sizeof cols / sizeof cols[0], out);
		return;
	}
	sig = overlap(x, y);
	ns = nospread(x, y);
	row(r, s, "wall time, median", x->median, y->median, "ns", sig, ns);
	row(r, s, "wall time, mean", x->mean, y->mean, "ns", sig, ns);
	row(r, s, "steady state", x->steady, y->steady, "ns", sig, ns);
	row(r, s, "GPU kernel time / instance", x->kernel / x->inst,
	    y->kernel / y->inst, "ns", -1, ONE);
	row(r, s, "GPU busy", x->busy, y->busy, "pct", -1, ONE);
	row(r, s, "launches / instance", x->launches / x->inst,
	    y->launches / y->inst, "count", -1, ONE);
	if (k == 1) {
		/* decode_all: the same per decode step */
		row(r, s, "wall time / decode step", x->mean / a->steps,
		    y->mean / b->steps, "ns", -1, ONE);
		row(r, s, "GPU kernel time / decode step", x->kernel / x->inst /
		    a->steps, y->kernel / y->inst / b->steps, "ns", -1, ONE);
		row(r, s, "launches / decode step", x->launches / x->inst /
		    a->steps, y->launches / y->inst / b->steps, "count", -1, ONE);
	}
	if (!isnan(x->tokens_per_s) || !isnan(y->tokens_per_s))
		row(r, s, "tokens/s", x->tokens_per_s, y->tokens_per_s,
		    "tokens/s", k == 2 ? sig : -1, k == 2 ? ns : ONE);
	row(r, s, "MFU", a->mfu[k], b->mfu[k], "pct", -1, ONE);
	if (k)
		row(r, s, "MBU", a->mbu[k], b->mbu[k], "pct", -1, ONE);
}

static void
emit_stages(const struct run *a, const struct run *b)
{
	struct lp_row r = { 0 };
	size_t k;

	lp_tab_meta(out, "key", "stage metric");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (k = 0; k < 3; k++)
		emit_stage(&r, a, b, k);
	lp_sb_free(&r.b);
}

/* The gate on each stage of both runs, said on stderr; decode_all per
 * decode step where the runs' steps differ.  Returns how many regressed. */
static size_t
judge(const struct run *a, const struct run *b, double pct, int steps_differ)
{
	size_t k, bad = 0, judged = 0;

	/* a stage in one run only: the gate cannot say it did not regress
	 * (its range renamed, gone, or never pushed in the other) */
	for (k = 0; k < 3; k++) {
		const struct lp_stagerow *x = lp_stagetab_get(a->st, a->n, known[k]);
		const struct lp_stagerow *y = lp_stagetab_get(b->st, b->n, known[k]);

		/* a row without instances: the range is not in nvtx_sum */
		if (x && !(x->inst > 0))
			x = NULL;
		if (y && !(y->inst > 0))
			y = NULL;
		if (!x != !y)
			lp_die(LP_EXIT_DATA, "cannot compare: stage %s is only in "
			    "the %s run (%s): its range was renamed, is gone or "
			    "was never pushed in the other; a gate cannot pass a "
			    "stage it cannot see", known[k], x ? "before" : "after",
			    x ? a->f[0] : b->f[0]);
	}
	for (k = 0; k < 3; k++) {
		const struct lp_stagerow *x = lp_stagetab_get(a->st, a->n, known[k]);
		const struct lp_stagerow *y = lp_stagetab_get(b->st, b->n, known[k]);

		if (!x || !y)
			continue;
		judged++;
		bad += gate(known[k], x, y, pct, k == 1 && steps_differ ?
		    a->steps : 1, k == 1 && steps_differ ? b->steps : 1);
	}
	if (!bad)
		fprintf(stderr, "lp-stagediff: no regression: no stage of the %zu "
		    "in both runs got significantly slower in steady state by "
		    "more than %g %%\n", judged, pct);
	return bad;
}

static void
free_run(struct run *r)
{
	lp_stagetab_free(r->st, r->n);
	lp_yaml_free(r->env);
	lp_yaml_free(r->inputs);
	free(r->gpu);
}

int
main(int argc, char **argv)
{
	struct run a, b;
	struct what w[NWHAT];
	double pct = 0;
	size_t k, bad = 0;
	int c, steps_differ;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "r:", synopsis)) != -1) {
		switch (c) {
		case 'r': pct = lp_strtopct(optarg, "-r"); break;
		}
	}
	if (argc - optind != 2 * F_N)
		lp_usage(synopsis);
	load(&a, argv + optind);
	load(&b, argv + optind + F_N);
	/* an untraced step against a traced one would read the capture's
	 * overhead as a change */
	if (a.untraced != b.untraced)
		lp_die(LP_EXIT_DATA, "cannot compare: the steps of %s are %s, "
		    "those of %s %s; the capture's overhead would read as a "
		    "change. Compare two live runs (each timed untraced) or "
		    "two imports (each traced)", a.f[F_STEPS], a.untraced ?
		    "untraced (a live run)" : "traced (an import: the "
		    "capture's overhead included)", b.f[F_STEPS], b.untraced ?
		    "untraced (a live run)" : "traced (an import: the "
		    "capture's overhead included)");
	describe(w, &a, &b);
	steps_differ = !isnan(a.steps) && !isnan(b.steps) && a.steps != b.steps;
	emit_meta(&a, &b, w, steps_differ);
	emit_stages(&a, &b);
	if (pct > 0)
		bad = judge(&a, &b, pct, steps_differ);
	for (k = 0; k < NWHAT; k++) {
		free(w[k].x);
		free(w[k].y);
	}
	free_run(&a);
	free_run(&b);
	lp_tab_done(out);
	return bad ? LP_EXIT_REGRESSED : LP_EXIT_OK;
}
