/*
 * lp-stagediff: compare_stages.tsv, two runs' stages side by side: wall
 * time (median, mean, steady state), GPU kernel time, busy share, launches
 * per instance, tokens/s, MFU and MBU, before and after, the change and the
 * ratio, and whether the change stands out of the instances' spread (the
 * rule is in lp-stagediff(1)).  Runs on different GPUs, tools or models
 * are compared, and said so first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lp.h"

static const char synopsis[] = "lp-stagediff before-run-folder after-run-folder";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct run {
	const char *dir;
	struct lp_stagerow *st;
	size_t n;
	struct lp_ynode *env, *inputs;
	char *gpu;
	double mfu[3], mbu[3];	/* steady (else mean) per known stage */
};

static const char *const known[] = { "prefill", "decode_all", "decode_step" };

static char *
file(const struct run *r, const char *name)
{
	struct lp_sb b = { 0 };

	lp_sb_printf(&b, "%s/%s", r->dir, name);
	return lp_sb_steal(&b);
}

/* A stage's value of a table, steady state where there is one. */
static void
util(struct run *r, const char *name, const char *tool, const char *steady,
    const char *mean, double *v)
{
	char *p = file(r, name);
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, p, "make RUN=... stakeholder_summary.md");
	int cs = lp_csv_need(&t.hdr, "stage", "an lp table");
	int c1 = lp_csv_col(&t.hdr, steady), c2 = lp_csv_col(&t.hdr, mean);
	size_t k;

	lp_tab_expect(&t, tool);
	for (k = 0; k < 3; k++)
		v[k] = NAN;
	while (lp_tsv_next(&t))
		for (k = 0; k < 3; k++)
			if (!strcmp(lp_tsv_get(&t, cs), known[k]) &&
			    !lp_tab_num(&t, c1, &v[k]) &&
			    !lp_tab_num(&t, c2, &v[k]))
				v[k] = NAN;
	lp_tsv_close(&t);
	fclose(fp);
	free(p);
}

static void
load(struct run *r, const char *dir)
{
	char *a = NULL, *b = NULL, *e, *i, *g;
	struct lp_peaks pk;

	memset(r, 0, sizeof *r);
	r->dir = dir;
	r->n = lp_stagetab_load(a = file(r, "stages.tsv"), b = file(r,
	    "steps.tsv"), &r->st);
	free(a);
	free(b);
	e = file(r, "env.json");
	i = file(r, "inputs.yaml");
	g = file(r, "gpu.tsv");
	r->env = lp_yaml_load_path(e);
	r->inputs = lp_yaml_load_path(i);
	lp_peaks_read(&pk, g);
	r->gpu = pk.gpu ? lp_xstrdup(pk.gpu) : NULL;
	lp_peaks_free(&pk);
	free(e);
	free(i);
	free(g);
	util(r, "mfu.tsv", "lp-mfu", "mfu_steady_pct", "mfu_pct", r->mfu);
	util(r, "mbu.tsv", "lp-mbu", "mbu_steady_pct", "mbu_pct", r->mbu);
}

static const char *
str(const struct lp_ynode *n, const char *path)
{
	const struct lp_ynode *v = n ? lp_yaml_get(n, path) : NULL;

	return v && v->type == LP_Y_SCALAR && !(!v->quoted &&
	    !strcmp(v->s, "null")) ? v->s : "unknown";
}

static void
differ(struct lp_sb *b, const char *what, const char *x, const char *y)
{
	if (strcmp(x, y))
		lp_sb_printf(b, "%s%s (%s before, %s after)", b->len ? "; " : "",
		    what, x, y);
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

static void
row(struct lp_row *r, const char *stage, const char *metric, double x,
    double y, const char *unit, int sig)
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
		lp_row_text(r, sig < 0 ? "n/a (no spread: one instance, or no "
		    "per-instance trace)" : sig ? "no: within the spread of the "
		    "instances" : "yes: outside the spread of the instances");
	}
	lp_row_text(r, unit);
	lp_row_end(r, out);
}

int
main(int argc, char **argv)
{
	static const struct lp_col cols[] = {
		{ "stage", "Stage", "text" }, { "metric", "Metric", "text" },
		{ "before", "Before", "q" }, { "after", "After", "q" },
		{ "change", "Change", "q" }, { "ratio", "After / before", "x" },
		{ "significant", "Significant", "text" }, { "unit", "Unit", "hide" },
	};
	struct run a, b;
	struct lp_row r = { 0 };
	struct lp_sb flags = { 0 };
	size_t k;
	int c;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "h")) != -1) {
		if (c == 'h') {
			printf("usage: %s\n", synopsis);
			return 0;
		}
		lp_usage(synopsis);
	}
	if (argc - optind != 2)
		lp_usage(synopsis);
	load(&a, argv[optind]);
	load(&b, argv[optind + 1]);
	differ(&flags, "GPU", a.gpu ? a.gpu : "unknown", b.gpu ? b.gpu :
	    "unknown");
	differ(&flags, "Nsight Systems", str(a.env, "nsys_version"),
	    str(b.env, "nsys_version"));
	differ(&flags, "Nsight Compute", str(a.env, "ncu_version"),
	    str(b.env, "ncu_version"));
	differ(&flags, "model", str(a.inputs, "model.name"),
	    str(b.inputs, "model.name"));

	lp_tab_meta(out, "title", "Stages, Before and After");
	lp_tab_meta(out, "tool", "lp-stagediff");
	lp_tab_meta(out, "source", "before: %s, after: %s (stages.tsv, steps.tsv, "
	    "mfu.tsv and mbu.tsv of each)", a.dir, b.dir);
	if (flags.len)
		lp_tab_meta(out, "note", "The runs differ in: %s. They are compared "
		    "all the same; read the changes with that in mind.",
		    lp_sb_str(&flags));
	lp_tab_meta(out, "note", "Significant: a time that moved out of the "
	    "spread of the instances. A change is not significant when the "
	    "middle halves [p25, p75] of the two runs' steady-state instances "
	    "(each run's instances after its first, steps.tsv) overlap; "
	    "[min, max] where a steps.tsv has no quartiles.");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (k = 0; k < 3; k++) {
		const struct lp_stagerow *x = lp_stagetab_get(a.st, a.n, known[k]);
		const struct lp_stagerow *y = lp_stagetab_get(b.st, b.n, known[k]);
		int sig;

		if (!x && !y)
			continue;
		if (!x || !y) {
			lp_row_text(&r, known[k]);
			lp_row_text(&r, "stage");
			lp_row_na(&r, "only the %s run has this stage", x ? "before" :
			    "after");
			while (r.n < sizeof cols / sizeof cols[0])
				lp_row_text(&r, "n/a");
			lp_row_end(&r, out);
			continue;
		}
		sig = overlap(x, y);
		row(&r, known[k], "wall time, median", x->median, y->median, "ns",
		    sig);
		row(&r, known[k], "wall time, mean", x->mean, y->mean, "ns", sig);
		row(&r, known[k], "steady state", x->steady, y->steady, "ns", sig);
		row(&r, known[k], "GPU kernel time / instance", x->kernel / x->inst,
		    y->kernel / y->inst, "ns", -1);
		row(&r, known[k], "GPU busy", x->busy, y->busy, "pct", -1);
		row(&r, known[k], "launches / instance", x->launches / x->inst,
		    y->launches / y->inst, "count", -1);
		if (!isnan(x->tokens_per_s) || !isnan(y->tokens_per_s))
			row(&r, known[k], "tokens/s", x->tokens_per_s,
			    y->tokens_per_s, "tokens/s", k == 2 ? sig : -1);
		row(&r, known[k], "MFU", a.mfu[k], b.mfu[k], "pct", -1);
		if (k)
			row(&r, known[k], "MBU", a.mbu[k], b.mbu[k], "pct", -1);
	}
	lp_sb_free(&flags);
	lp_sb_free(&r.b);
	lp_stagetab_free(a.st, a.n);
	lp_stagetab_free(b.st, b.n);
	lp_yaml_free(a.env);
	lp_yaml_free(b.env);
	lp_yaml_free(a.inputs);
	lp_yaml_free(b.inputs);
	free(a.gpu);
	free(b.gpu);
	lp_tab_done(out);
	return 0;
}
