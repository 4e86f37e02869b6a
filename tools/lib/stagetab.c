/*
 * stages.tsv (lp-stages) and steps.tsv (lp-steps) read back by the tools
 * that build on them: MFU, MBU, findings, run comparison.  A cell that is
 * not a number ("n/a because ...") leaves its value unknown.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "run.h"

static struct lp_stagerow *
find(struct lp_stagerow **rows, size_t *n, const char *stage)
{
	struct lp_stagerow *r;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*rows)[i].stage, stage))
			return &(*rows)[i];
	*rows = lp_xreallocarray(*rows, *n + 1, sizeof **rows);
	r = memset(&(*rows)[(*n)++], 0, sizeof *r);
	r->stage = lp_xstrdup(stage);
	r->inst = r->total = r->mean = r->median = r->min = r->max = NAN;
	r->kernel = r->launches = r->busy = r->first = r->steady = NAN;
	r->steady_min = r->steady_max = r->steady_p25 = r->steady_p75 = NAN;
	r->tokens_per_s = NAN;
	return r;
}

static double
cell(const struct lp_tsv *t, const char *col)
{
	int c = lp_csv_col(&t->hdr, col);
	double v;

	return c >= 0 && lp_tab_num(t, c, &v) ? v : NAN;
}

/* r's wall times from the untraced steps.tsv's row at t: mean and total
 * untraced, busy the capture's kernels over them. */
static void
untraced_wall(struct lp_stagerow *r, const struct lp_tsv *t,
    const char *stages, const char *steps)
{
	double n = cell(t, "instances"), mean = cell(t, "mean_ns");

	r->untraced = 1;
	if (!isnan(r->inst) && !isnan(n) && n != r->inst)
		lp_die_at(LP_EXIT_DATA, steps, t->line, lp_csv_col(&t->hdr,
		    "instances") + 1, "stage \"%s\": %.0f instances in the "
		    "untraced timing run but %.0f in the capture (%s): not the "
		    "same workload, or not run the same way", r->stage, n,
		    r->inst, stages ? stages : "-");
	r->min = r->max = NAN;
	r->median = cell(t, "median_ns");
	r->mean = mean;
	r->total = mean * n;
	r->busy = NAN;
	if (!(r->total > 0) || isnan(r->kernel))
		return;
	if (r->kernel > r->total)
		r->busy_why = "the capture's kernels take longer than the "
		    "stage untraced (the tracer lengthened them)";
	else
		r->busy = 100 * r->kernel / r->total;
}

/* stages.tsv's rows into *rows; its processes. */
static double
load_stages(const char *stages, struct lp_stagerow **rows, size_t *n)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, stages, "lp-stages, make RUN=... stages.tsv");
	double procs = 1;
	int cs;

	lp_tab_expect(&t, "lp-stages");
	cs = lp_csv_need(&t.hdr, "stage", "lp-stages output");
	lp_csv_need(&t.hdr, "wall_total_ns", "lp-stages output");
	while (lp_tab_next(&t)) {
		struct lp_stagerow *r = find(rows, n, lp_tsv_get(&t, cs));

		if (r->range)
			lp_die_at(LP_EXIT_DATA, stages, t.line, cs + 1,
			    "stage \"%s\" twice", r->stage);
		free(r->range);
		r->range = lp_xstrdup(lp_tsv_get(&t, lp_csv_col(&t.hdr,
		    "range")));
		r->inst = cell(&t, "instances");
		r->total = cell(&t, "wall_total_ns");
		r->mean = cell(&t, "wall_mean_ns");
		r->median = cell(&t, "wall_median_ns");
		r->min = cell(&t, "wall_min_ns");
		r->max = cell(&t, "wall_max_ns");
		r->kernel = cell(&t, "kernel_ns");
		r->launches = cell(&t, "launches");
		r->busy = cell(&t, "busy_pct");
	}
	if (lp_tsv_comment(&t, "processes") && (!lp_num_get(
	    lp_tsv_comment(&t, "processes"), &procs) || procs < 1 ||
	    procs != floor(procs) || procs > 4096))
		lp_die_at(LP_EXIT_DATA, stages, 1, 0, "\"# processes:\" "
		    "must be a whole number from 1 to 4096");
	lp_tsv_close(&t);
	fclose(fp);
	return procs;
}

/* steps.tsv's rows into *rows (stages: stages.tsv read before, or NULL). */
static void
load_steps(const char *stages, const char *steps, struct lp_stagerow **rows,
    size_t *n)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, steps, "lp-steps, make RUN=... steps.tsv");
	const char *tm;
	int untraced, cs;

	lp_tab_expect(&t, "lp-steps");
	tm = lp_tsv_comment(&t, "timing");
	untraced = tm && !strcmp(tm, "untraced");
	cs = lp_csv_need(&t.hdr, "stage", "lp-steps output");
	lp_csv_need(&t.hdr, "steady_ns", "lp-steps output");
	while (lp_tab_next(&t)) {
		struct lp_stagerow *r = find(rows, n, lp_tsv_get(&t, cs));
		int w = lp_csv_col(&t.hdr, "warmup");

		if (r->in_steps++)
			lp_die_at(LP_EXIT_DATA, steps, t.line, cs + 1,
			    "stage \"%s\" twice", r->stage);
		r->first = cell(&t, "first_ns");
		r->steady = cell(&t, "steady_ns");
		r->steady_min = cell(&t, "steady_min_ns");
		r->steady_max = cell(&t, "steady_max_ns");
		r->steady_p25 = cell(&t, "steady_p25_ns");
		r->steady_p75 = cell(&t, "steady_p75_ns");
		r->tokens_per_s = cell(&t, "tokens_per_s");
		r->warmup = w >= 0 && !strcmp(lp_tsv_get(&t, w), "yes");
		if (untraced)
			untraced_wall(r, &t, stages, steps);
		if (isnan(r->inst))
			r->inst = cell(&t, "instances");
	}
	lp_tsv_close(&t);
	fclose(fp);
}

size_t
lp_stagetab_load(const char *stages, const char *steps,
    struct lp_stagerow **rows)
{
	size_t n = 0, i;
	double procs = 1;

	*rows = NULL;
	if (stages)
		procs = load_stages(stages, rows, &n);
	if (steps)
		load_steps(stages, steps, rows, &n);
	for (i = 0; i < n; i++)
		(*rows)[i].procs = procs;
	return n;
}

const struct lp_stagerow *
lp_stagetab_get(const struct lp_stagerow *rows, size_t n, const char *stage)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].stage, stage))
			return &rows[i];
	return NULL;
}

void
lp_stagetab_free(struct lp_stagerow *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].stage);
		free(rows[i].range);
	}
	free(rows);
}
