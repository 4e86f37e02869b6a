/*
 * lp-untraced: untraced.tsv, what the capture adds to each stage.  It
 * joins lp-steps' table of the traced capture (steps.tsv, the numbers lp
 * reports) with lp-steps' table of the untraced timing run (the workload
 * once more under nsys with NVTX alone: untraced/steps.tsv) by stage name:
 * instances and time untraced with their spread, instances and time
 * traced, and the capture's overhead (traced - untraced, and traced /
 * untraced).  A stage's time is its steady state (the median of the
 * instances after each process's first) where it has one, else its first
 * instance.  Two tables whose decode_step counts differ are not of one
 * workload: refused, naming both.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"

static const char synopsis[] =
    "lp-untraced [-n why] steps.tsv [untraced-steps.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

enum { TR, UN };	/* the traced capture, the untraced run */
static const char *const side_name[] = { "the traced capture",
	"the untraced run" };

/* One stage as one table gives it. */
struct side {
	int have;		/* the table has a row for the stage */
	char *range;
	double inst;		/* NAN: n/a */
	double t, lo, hi;	/* its time and spread; NAN: n/a */
	int steady;		/* t is the steady state, else the first */
	char *na;		/* why t is n/a (the table's own reason) */
};

struct stage {
	char *name;
	struct side s[2];
};

static struct stage *st;
static size_t nst;

static struct stage *
stage_of(const char *name)
{
	size_t i;

	for (i = 0; i < nst; i++)
		if (!strcmp(st[i].name, name))	/* exactly: no folding */
			return &st[i];
	st = lp_xreallocarray(st, nst + 1, sizeof *st);
	memset(&st[nst], 0, sizeof *st);
	st[nst].name = lp_xstrdup(name);
	return &st[nst++];
}

static double
num(const struct lp_tsv *t, int col)
{
	double v;

	return lp_tab_num(t, col, &v) ? v : NAN;
}

/* A cell's reason without its "n/a because ", or NULL for a bare n/a. */
static char *
reason(const char *cell)
{
	static const char pre[] = "n/a because ";

	if (!strncmp(cell, pre, sizeof pre - 1) && cell[sizeof pre - 1])
		return lp_xstrdup(cell + sizeof pre - 1);
	return NULL;
}

/* A stage's time from an lp-steps row: the steady state where there is
 * one, else the first instance (the median of each process's first). */
static void
take_row(const struct lp_tsv *t, const int *c, struct side *s)
{
	s->have = 1;
	s->range = lp_xstrdup(lp_tsv_get(t, c[1]));
	s->inst = num(t, c[2]);
	s->lo = s->hi = NAN;
	if (!isnan(s->t = num(t, c[4]))) {
		s->steady = 1;
		s->lo = num(t, c[5]);
		s->hi = num(t, c[6]);
	} else if (isnan(s->t = num(t, c[3])))
		s->na = reason(lp_tsv_get(t, c[2]));
}

/* Each table of its run: the capture's says "# timing: traced", the
 * untraced timing run's "untraced" (lp-steps -u). */
static void
timing(const struct lp_tsv *t, const char *path, int side)
{
	const char *tm = lp_tsv_comment(t, "timing"), *want = side == UN ?
	    "untraced" : "traced";

	if (!tm || strcmp(tm, want))
		lp_die_at(LP_EXIT_DATA, path, 1, 0, "the %s table must be "
		    "lp-steps%s of the %s (\"# timing: %s\"), not %s%s%s",
		    side == UN ? "second" : "first", side == UN ? " -u" : "",
		    side == UN ? "untraced timing run" : "traced capture", want,
		    tm ? "\"# timing: " : "a table without \"# timing:\"",
		    tm ? tm : "", tm ? "\"" : "");
}

static void
load(const char *path, int side)
{
	static const char *const need[] = { "stage", "range", "instances",
		"first_ns", "steady_ns", "steady_min_ns", "steady_max_ns" };
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-steps");
	int c[7];
	size_t i;

	lp_tab_expect(&t, "lp-steps");
	timing(&t, path, side);
	for (i = 0; i < 7; i++)
		c[i] = lp_csv_need(&t.hdr, need[i], "lp-steps output");
	lp_tab_key(&t, "stage");
	while (lp_tab_next(&t))
		take_row(&t, c, &stage_of(lp_tsv_get(&t, c[0]))->s[side]);
	lp_tsv_close(&t);
	fclose(fp);
}

/* The refusals: one stage on two ranges (two configs), and a stage's
 * instances counted apart (two workloads, or one run another way). */
static void
check(const char *tpath, const char *upath)
{
	size_t i;

	for (i = 0; i < nst; i++) {
		const struct side *a = &st[i].s[TR], *b = &st[i].s[UN];

		if (!a->have || !b->have)
			continue;
		if (strcmp(a->range, b->range))
			lp_die(LP_EXIT_DATA, "stage %s: range \"%s\" in %s "
			    "but \"%s\" in %s: the two tables are not of one "
			    "config", st[i].name, a->range, tpath, b->range,
			    upath);
		if (!isnan(a->inst) && !isnan(b->inst) && a->inst != b->inst)
			lp_die(LP_EXIT_DATA, "%s: %.0f instances in the traced "
			    "capture (%s) but %.0f in the untraced run (%s): "
			    "not the same workload, or not run the same way "
			    "(both runs capture the window nsys_cli."
			    "capture_range gives)", st[i].name, a->inst, tpath,
			    b->inst, upath);
	}
}

/* Why a side has no time for the stage. */
static void
side_na(struct lp_row *r, const struct side *s, int side, const char *path,
    const char *why)
{
	if (why)
		lp_row_na(r, "%s", why);
	else if (!s->have)
		lp_row_na(r, "%s (%s) has no row for the stage",
		    side == TR ? "the traced steps.tsv" : "the untraced "
		    "steps.tsv", path);
	else if (s->na)
		lp_row_na(r, "%s says: %s", side == TR ? "the traced "
		    "steps.tsv" : "the untraced steps.tsv", s->na);
	else
		lp_row_na(r, "%s has no instance of the stage",
		    side_name[side]);
}

static void
count_cell(struct lp_row *r, const struct side *s, int side,
    const char *path, const char *why)
{
	if (!why && s->have && !isnan(s->inst))
		lp_row_num(r, s->inst, 0);
	else
		side_na(r, s, side, path, why);
}

static void
time_cell(struct lp_row *r, const struct side *s, int side, const char *path,
    const char *why)
{
	if (!why && s->have && !isnan(s->t))
		lp_row_num(r, s->t, 1);
	else
		side_na(r, s, side, path, why);
}

/* The untraced spread: the steady state's min and max. */
static void
spread_cells(struct lp_row *r, const struct side *s, const char *path,
    const char *why)
{
	if (!why && s->have && !isnan(s->t) && !s->steady) {
		lp_row_na(r, "the stage has no instance after its first (per "
		    "process): no spread");
		lp_row_na(r, "the stage has no instance after its first (per "
		    "process): no spread");
	} else if (!why && s->have && !isnan(s->lo) && !isnan(s->hi)) {
		lp_row_num(r, s->lo, 0);
		lp_row_num(r, s->hi, 0);
	} else {
		time_cell(r, s, UN, path, why);
		time_cell(r, s, UN, path, why);
	}
}

/* Overhead, ratio and what the time is, where both sides have one of the
 * same kind. */
static void
overhead_cells(struct lp_row *r, const struct stage *g, const char *tpath,
    const char *upath, const char *why)
{
	const struct side *a = &g->s[TR], *b = &g->s[UN];
	int k;

	if (why || !b->have || isnan(b->t) || !a->have || isnan(a->t)) {
		int side = why || !b->have || isnan(b->t) ? UN : TR;
		const char *path = side == UN ? upath : tpath;

		for (k = 0; k < 3; k++)
			side_na(r, &g->s[side], side, path, why);
		return;
	}
	if (a->steady != b->steady) {
		for (k = 0; k < 3; k++)
			lp_row_na(r, "the untraced run has %s (%.0f "
			    "instances) and the traced capture %s (%.0f): no "
			    "time of one kind", b->steady ? "a steady state" :
			    "a first instance alone", b->inst, a->steady ?
			    "a steady state" : "a first instance alone",
			    a->inst);
		return;
	}
	lp_row_num(r, a->t - b->t, 1);
	if (b->t > 0)
		lp_row_g(r, a->t / b->t);
	else
		lp_row_na(r, "the untraced time is 0");
	lp_row_text(r, a->steady ? "steady state" : "first instance");
}

static void
emit_meta(const char *tpath, const char *upath, const char *why)
{
	lp_tab_meta(out, "title", "What the Capture Adds to Each Stage");
	lp_tab_meta(out, "tool", "lp-untraced");
	if (why)
		lp_tab_meta(out, "source", "traced: %s (lp-steps of the "
		    "capture); untraced: none (%s)", tpath, why);
	else
		lp_tab_meta(out, "source", "traced: %s (lp-steps of the "
		    "capture); untraced: %s (lp-steps of the workload run "
		    "once more under nsys --trace=nvtx alone: no CUDA trace, "
		    "no GPU Metrics, the capture's window)", tpath, upath);
	lp_tab_meta(out, "note", "A stage's time is its steady state (the "
	    "median of the instances after each process's first) where it "
	    "has one, else its first instance. Capture overhead = traced - "
	    "untraced (below 0 within the runs' noise).");
	lp_tab_meta(out, "key", "stage");
}

static void
emit(const char *tpath, const char *upath, const char *why)
{
	static const struct lp_col cols[] = {
		{ "stage", "Stage", "text" },
		{ "untraced_instances", "Instances untraced", "int" },
		{ "untraced_ns", "Untraced (ms)", "ms" },
		{ "untraced_min_ns", "Untraced min (ms)", "ms" },
		{ "untraced_max_ns", "Untraced max (ms)", "ms" },
		{ "traced_instances", "Instances traced", "int" },
		{ "traced_ns", "Traced (ms)", "ms" },
		{ "change_ns", "Capture overhead (ms)", "ms" },
		{ "traced_over_untraced", "Traced / untraced", "x" },
		{ "time_of", "Time of", "text" },
	};
	struct lp_row r = { { 0 }, 0 };
	size_t i;

	emit_meta(tpath, upath, why);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (i = 0; i < nst; i++) {
		const struct stage *g = &st[i];

		lp_row_text(&r, g->name);
		count_cell(&r, &g->s[UN], UN, upath, why);
		time_cell(&r, &g->s[UN], UN, upath, why);
		spread_cells(&r, &g->s[UN], upath, why);
		count_cell(&r, &g->s[TR], TR, tpath, NULL);
		time_cell(&r, &g->s[TR], TR, tpath, NULL);
		overhead_cells(&r, g, tpath, upath, why);
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	const char *why = NULL, *tpath, *upath = NULL;
	size_t i;
	int c, k;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "n:", synopsis)) != -1) {
		switch (c) {
		case 'n': why = optarg; break;
		}
	}
	if (argc - optind != (why ? 1 : 2) || (why && !*why))
		lp_usage(synopsis);
	out = lp_tab_out();
	tpath = argv[optind];
	load(tpath, TR);
	if (!why) {
		upath = argv[optind + 1];
		load(upath, UN);
		check(tpath, upath);
	}
	emit(tpath, upath, why);
	for (i = 0; i < nst; i++) {
		for (k = 0; k < 2; k++) {
			free(st[i].s[k].range);
			free(st[i].s[k].na);
		}
		free(st[i].name);
	}
	free(st);
	lp_tab_done(out);
	return 0;
}
