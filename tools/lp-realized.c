/*
 * lp-realized: compare_findings.tsv, whether the base run's advice worked.
 * For each finding of the base run (its findings.tsv), the saving it
 * predicted per step against the change the comparison measured in what
 * it named: the step's steady state (lp-stagediff's compare_stages.tsv,
 * with its significance) for a finding about a stage, the kernel's GPU
 * time per step (lp-diff's compare.tsv) for one about a kernel; and one
 * outcome: realized, partly, not realized, made worse, not comparable.
 * With -c RULE it is also a gate: exit 3 when a finding of that rule (the
 * change claimed as an optimization) realized under -m percent of its
 * prediction.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"

static const char synopsis[] = "lp-realized -f base-findings.tsv -s "
    "compare_stages.tsv [-k compare.tsv] [-t base-steps.tsv] "
    "[-c rule [-m percent]]";

/* The shares of the prediction that name the outcome (lp-realized(1)). */
#define REALIZED_PCT	75.0
#define PARTLY_PCT	10.0
/* A kernel's change, which has no spread, counts from this share of its
 * time before on; a step's of one instance (no spread either), from this
 * share of it. */
#define KERNEL_MOVED_PCT 2.0
#define ONE_MOVED_PCT	10.0

/* One table, read whole: its rows are few (findings, stages, kernels). */
struct tab {
	const char *path;
	struct lp_tsv t;
	FILE *fp;
	char **cell;		/* n rows of ncol cells */
	size_t n, ncol;
};

static void
tab_load(struct tab *tb, const char *path, const char *tool)
{
	size_t c;

	memset(tb, 0, sizeof *tb);
	tb->path = path;
	tb->fp = lp_tab_open(&tb->t, path, tool);
	lp_tab_expect(&tb->t, tool);
	tb->ncol = tb->t.hdr.n;
	while (lp_tab_next(&tb->t)) {
		tb->cell = lp_xreallocarray(tb->cell, (tb->n + 1) * tb->ncol,
		    sizeof *tb->cell);
		for (c = 0; c < tb->ncol; c++)
			tb->cell[tb->n * tb->ncol + c] =
			    lp_xstrdup(lp_tsv_get(&tb->t, (int)c));
		tb->n++;
	}
}

static void
tab_free(struct tab *tb)
{
	size_t i;

	for (i = 0; i < tb->n * tb->ncol; i++)
		free(tb->cell[i]);
	free(tb->cell);
	lp_tsv_close(&tb->t);
	fclose(tb->fp);
}

static const char *
get(const struct tab *tb, size_t r, const char *col)
{
	int c = lp_csv_col(&tb->t.hdr, col);

	return c < 0 ? "" : tb->cell[r * tb->ncol + (size_t)c];
}

static double
num(const struct tab *tb, size_t r, const char *col)
{
	double v;

	return lp_num_get(get(tb, r, col), &v) ? v : NAN;
}

/* The row of compare_stages.tsv for stage and metric, or -1. */
static long
stage_row(const struct tab *s, const char *stage, const char *metric)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(get(s, i, "stage"), stage) &&
		    !strcmp(get(s, i, "metric"), metric))
			return (long)i;
	return -1;
}

/* What one finding's subject measured, before and after, per step. */
struct meas {
	double before, after;
	int sig;		/* 1 moved, 0 within the spread or noise */
	const char *why;	/* why there is nothing to compare, or NULL */
	const char *what;	/* the figure compared */
	const char *name;	/* a kernel as compare.tsv spells it, or NULL */
};

/* A finding about a stage: its step's steady state, else its median. */
static void
stage_meas(const struct tab *s, const char *step, const char *stage,
    struct meas *m)
{
	static const char *const metrics[] = { "steady state",
		"wall time, median" };
	const char *name = !strcmp(step, "decode step") ? "decode_step" :
	    stage;
	const char *sg;
	size_t k;
	long r;

	for (k = 0; k < 2; k++) {
		if ((r = stage_row(s, name, metrics[k])) < 0)
			continue;
		m->before = num(s, (size_t)r, "before");
		m->after = num(s, (size_t)r, "after");
		if (isnan(m->before) || isnan(m->after))
			continue;
		sg = get(s, (size_t)r, "significant");
		m->sig = !strncmp(sg, "yes", 3) ? 1 : !strncmp(sg, "no", 2) ?
		    0 : fabs(m->after - m->before) >= m->before *
		    ONE_MOVED_PCT / 100;
		m->what = metrics[k];
		return;
	}
	m->why = "the comparison has no time for its step in both runs";
}

/* A finding about a kernel: its GPU time in the stage over the steps. */
static void
kernel_meas(const struct tab *k, double steps, const char *kernel,
    struct meas *m)
{
	size_t i;

	if (!k) {
		m->why = "no kernel comparison (compare.tsv)";
		return;
	}
	for (i = 0; i < k->n; i++)
		if (!strcmp(get(k, i, "kernel"), kernel) ||
		    !strcmp(get(k, i, "name"), kernel))
			break;
	if (i == k->n) {
		m->why = "the kernel is not in the comparison's top kernels";
		return;
	}
	m->name = get(k, i, "name");
	m->before = num(k, i, "before_ns") / steps;
	m->after = num(k, i, "after_ns") / steps;
	if (isnan(m->before))
		m->before = 0;	/* in one run only: none of it in the other */
	if (isnan(m->after))
		m->after = 0;
	m->sig = fabs(m->after - m->before) >= m->before *
	    KERNEL_MOVED_PCT / 100 ? 1 : 0;
	m->what = "kernel time a step";
}

static const char *
outcome(double pred, const struct meas *m, double *pct)
{
	double r = m->before - m->after;

	*pct = NAN;
	if (m->why || !(pred > 0))
		return "not comparable";
	*pct = 100 * r / pred;
	if (m->sig == 0)
		return "not realized";
	if (r < 0)
		return "made worse";
	return *pct >= REALIZED_PCT ? "realized" : *pct >= PARTLY_PCT ?
	    "partly" : "not realized";
}

/* base decode_step instances (steps.tsv), 1 where not known */
static double
decode_steps(const char *path)
{
	struct tab t;
	double n = NAN;
	size_t i;

	if (!path)
		return 1;
	tab_load(&t, path, "lp-steps");
	for (i = 0; i < t.n; i++)
		if (!strcmp(get(&t, i, "stage"), "decode_step"))
			n = num(&t, i, "instances");
	tab_free(&t);
	return isnan(n) || n < 1 ? 1 : n;
}

static void
emit_meta(FILE *out, const struct tab *f, const struct tab *s,
    const struct tab *k)
{
	static const struct lp_col cols[] = {
		{ "rank", "#", "int" }, { "rule", "Rule", "text" },
		{ "subject", "About", "code" }, { "outcome", "Outcome", "text" },
		{ "predicted_ns", "Predicted saving a step (ms)", "ms" },
		{ "realized_change_ns", "Measured saving a step (ms)", "ms" },
		{ "realized_change_pct", "Of the prediction", "pct" },
		{ "action", "Advice", "text" },
		{ "before_ns", "Before (ms)", "ms" },
		{ "after_ns", "After (ms)", "ms" },
		{ "step", "Step", "hide" },
		{ "compared", "Compared", "hide" },
	};

	lp_tab_meta(out, "title", "Predicted and Realized");
	lp_tab_meta(out, "tool", "lp-realized");
	lp_tab_meta(out, "source", "the base run's findings (%s) against the "
	    "comparison: a stage's step in %s (its steady state, with its "
	    "significance), a kernel's GPU time a step in %s", f->path,
	    s->path, k ? k->path : "(no compare.tsv)");
	lp_tab_meta(out, "note", "Each finding of the base run, its predicted "
	    "saving a step against the saving measured in what it named "
	    "(before less after, a step; a step's change is shared by every "
	    "finding about it). Outcome: realized from %.0f %% of the "
	    "prediction, partly from %.0f %%, not realized below that or "
	    "within the spread of the steps (a step of one instance: within "
	    "%.0f %% of it; a kernel: within %.0f %% of its time), made worse "
	    "where it grew beyond that; not comparable where the finding predicts no saving "
	    "a step or the comparison has no figure for it.", REALIZED_PCT,
	    PARTLY_PCT, ONE_MOVED_PCT, KERNEL_MOVED_PCT);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
}

/* Finding i's saving as measured, or why it has none, in *m. */
static void
measure(const struct tab *f, const struct tab *s, const struct tab *k,
    double steps, size_t i, double pred, struct meas *m)
{
	const char *kind = get(f, i, "subject_kind");
	const char *step = get(f, i, "step");

	if (isnan(pred))
		m->why = "it predicts no saving a step";
	else if (!strcmp(kind, "kernel"))
		kernel_meas(k, strcmp(step, "decode step") ? 1 : steps,
		    get(f, i, "subject"), m);
	else if (!strcmp(kind, "stage"))
		stage_meas(s, step, get(f, i, "subject"), m);
	else
		m->why = "it is not about a stage or a kernel";
}

/* Writes the rows; returns how many findings of rule (the claim) realized
 * under min percent, or were not comparable, in *under. */
static void
emit_rows(FILE *out, const struct tab *f, const struct tab *s,
    const struct tab *k, double steps, const char *rule, double min,
    int *under, int *claims)
{
	struct lp_row r = { { 0 }, 0 };
	size_t i;

	for (i = 0; i < f->n; i++) {
		struct meas m = { NAN, NAN, 0, NULL, NULL, NULL };
		const char *step = get(f, i, "step"), *o;
		double pred = num(f, i, "per_step_ns"), pct;

		if (!strcmp(get(f, i, "rule"), "none"))
			continue;
		measure(f, s, k, steps, i, pred, &m);
		o = outcome(pred, &m, &pct);
		lp_row_text(&r, get(f, i, "rank"));
		lp_row_text(&r, get(f, i, "rule"));
		/* a kernel as the other tables spell it (lp-diff's name) */
		lp_row_text(&r, m.name && *m.name ? m.name : get(f, i,
		    "subject"));
		lp_row_text(&r, o);
		if (isnan(pred))
			lp_row_na(&r, "%s", "a one-time cost or not a time");
		else
			lp_row_num(&r, pred, 0);
		if (m.why)
			lp_row_na(&r, "%s", m.why);
		else
			lp_row_num(&r, m.before - m.after, 0);
		if (isnan(pct))
			lp_row_text(&r, "n/a");
		else
			lp_row_g(&r, pct);
		lp_row_text(&r, get(f, i, "action"));
		if (m.why) {
			lp_row_na(&r, "%s", m.why);
			lp_row_na(&r, "%s", m.why);
		} else {
			lp_row_num(&r, m.before, 0);
			lp_row_num(&r, m.after, 0);
		}
		lp_row_text(&r, step);
		lp_row_text(&r, m.why ? "-" : m.what);
		lp_row_end(&r, out);
		if (rule && !strcmp(get(f, i, "rule"), rule) && !isnan(pred)) {
			(*claims)++;
			if (isnan(pct) || pct < min)
				(*under)++;
		}
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	const char *fpath = NULL, *spath = NULL, *kpath = NULL, *tpath = NULL;
	const char *rule = NULL;
	struct tab f, s, k;
	double min = 50, steps;
	int c, under = 0, claims = 0;
	FILE *out;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "c:f:k:m:s:t:", synopsis)) != -1) {
		switch (c) {
		case 'c': rule = optarg; break;
		case 'f': fpath = optarg; break;
		case 'k': kpath = optarg; break;
		case 'm':
			min = (double)lp_strtonum(optarg, 0, 1000, "-m");
			break;
		case 's': spath = optarg; break;
		case 't': tpath = optarg; break;
		}
	}
	if (!fpath || !spath || optind != argc)
		lp_usage(synopsis);
	out = lp_tab_out();
	tab_load(&f, fpath, "lp-findings");
	lp_csv_need(&f.t.hdr, "subject_kind", "lp-findings output");
	lp_csv_need(&f.t.hdr, "per_step_ns", "lp-findings output");
	tab_load(&s, spath, "lp-stagediff");
	if (kpath)
		tab_load(&k, kpath, "lp-diff");
	steps = decode_steps(tpath);
	emit_meta(out, &f, &s, kpath ? &k : NULL);
	emit_rows(out, &f, &s, kpath ? &k : NULL, steps, rule, min, &under,
	    &claims);
	lp_tab_done(out);
	tab_free(&f);
	tab_free(&s);
	if (kpath)
		tab_free(&k);
	if (rule && !claims) {
		lp_warn("no finding of rule %s in %s predicts a saving a step: "
		    "nothing claimed to check", rule, fpath);
		return LP_EXIT_DATA;
	}
	if (under) {
		lp_warn("%d of %d %s finding%s realized under %.0f %% of %s "
		    "prediction (compare_findings.tsv)", under, claims, rule,
		    claims == 1 ? "" : "s", min, claims == 1 ? "its" : "their");
		return 3;
	}
	return 0;
}
