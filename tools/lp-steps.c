/*
 * lp-steps: steps.tsv, the steady state of each stage from its instances
 * (nsys nvtx_pushpop_trace, one row per push/pop): the first instance
 * against the median of the rest, flagged as warm-up when it is more than
 * RATIO times that median, the steady-state time (that median) with the
 * spread of the rest, and tokens per second from it for decode.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-steps [-u] -c config.yaml [-i inputs.yaml] [-w ratio] [nvtx_pushpop_trace.csv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct inst {
	double start, dur;
	char *pid;
};

struct stage {
	const char *name;
	char *range;
	struct inst *in;
	size_t n, cap;
};

struct st {
	struct stage *s;
	size_t n;
};

static void
trace_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct stage *g = &t->s[i];

		if (!lp_nvtx_range_match(g->range, rr->v[2]))
			continue;
		g->in = lp_grow(g->in, g->n, &g->cap, 16, sizeof *g->in);
		g->in[g->n].start = lp_rep_time(rr, 0);
		g->in[g->n].dur = lp_rep_time(rr, 1);
		g->in[g->n].pid = lp_xstrdup(lp_rep_pid(rr, 3));
		g->n++;
	}
}

static int
by_pid_start(const void *x, const void *y)
{
	const struct inst *a = x, *b = y;
	int c = strcmp(a->pid, b->pid);

	if (c)
		return c;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The first instance of each process (a multi-process run has one per
 * rank) is a first; the rest are the steady state. */
static void
split(struct stage *g, double **first, size_t *nf, double **rest, size_t *nr)
{
	size_t i;

	lp_qsort(g->in, g->n, sizeof *g->in, by_pid_start);
	*first = lp_xcalloc(g->n + 1, sizeof **first);
	*rest = lp_xcalloc(g->n + 1, sizeof **rest);
	*nf = *nr = 0;
	for (i = 0; i < g->n; i++)
		if (!i || strcmp(g->in[i].pid, g->in[i - 1].pid))
			(*first)[(*nf)++] = g->in[i].dur;
		else
			(*rest)[(*nr)++] = g->in[i].dur;
}

static const struct lp_col cols[] = {
	{ "stage", "Stage", "text" }, { "range", "NVTX range", "code" },
	{ "instances", "Instances", "int" },
	{ "first_ns", "First (ms)", "ms" },
	{ "rest_median_ns", "Median of the rest (ms)", "ms" },
	{ "first_over_rest", "First / rest", "x" },
	{ "warmup", "Warm-up", "text" },
	{ "steady_ns", "Steady state (ms)", "ms" },
	{ "steady_min_ns", "Rest min (ms)", "ms" },
	{ "steady_max_ns", "Rest max (ms)", "ms" },
	{ "steady_p25_ns", "Rest p25 (ms)", "ms" },
	{ "steady_p75_ns", "Rest p75 (ms)", "ms" },
	{ "tokens_per_s", "Tokens/s", "num1" },
	{ "tokens_basis", "Tokens/s from", "text" },
	{ "mean_ns", "Mean, all instances (ms)", "ms" },
	{ "median_ns", "Median, all instances (ms)", "ms" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* The stages of the config, with no instance yet. */
static void
load_stages(struct st *t, const struct lp_ynode *cfg, const char *cpath)
{
	t->s = lp_stage_table(cfg, cpath, &t->n, 0, sizeof *t->s,
	    offsetof(struct stage, name), offsetof(struct stage, range));
}

/* Decode steps seen, per process (every rank decodes every token); 0 when
 * the trace has no decode_step. */
static double
decode_steps(struct st *t)
{
	double steps = 0;
	size_t i, k, procs;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->s[i].name, "decode_step") && t->s[i].n) {
			lp_qsort(t->s[i].in, t->s[i].n, sizeof *t->s[i].in,
			    by_pid_start);
			for (procs = 1, k = 1; k < t->s[i].n; k++)
				procs += !!strcmp(t->s[i].in[k].pid,
				    t->s[i].in[k - 1].pid);
			steps = (double)t->s[i].n / (double)procs;
		}
	return steps;
}

/* untraced: the trace is the untraced timing run's (-u), whose times are
 * the workload's own; else the traced capture's, overhead included.  The
 * "# timing:" line says which, for the tools that read the table. */
static void
emit_meta(const char *tpath, const char *ipath, double ratio, int untraced)
{
	lp_tab_meta(out, "title", untraced ? "Steady State and Warm-up, "
	    "Untraced" : "Steady State and Warm-up");
	lp_tab_meta(out, "tool", "lp-steps");
	lp_tab_meta(out, "timing", "%s", untraced ? "untraced" : "traced");
	lp_tab_meta(out, "source", "wall time of every instance of each "
	    "NVTX range from nsys nvtx_pushpop_trace (%s)%s%s%s", tpath ? tpath :
	    "missing", untraced ? ", the untraced timing run: the workload "
	    "under nsys --trace=nvtx alone, no CUDA trace (its own times)" :
	    "", ipath ? "; batch from " : "", ipath ? ipath : "");
	lp_tab_meta(out, "note", "Warm-up: the first instance took more "
	    "than %g times the median of the others. Steady state = that "
	    "median. Tokens/s = batch / steady-state step (decode_step), or "
	    "batch x decode steps / wall time (decode_all, warm-up included).",
	    ratio);
}

/* The first instance against the rest: median, ratio, warm-up flag and the
 * spread of the rest. */
static void
emit_spread(struct lp_row *r, double f, double *rest, size_t nr,
    size_t nf, double ratio)
{
	double med, lo = 0, hi = 0;
	size_t k;

	if (!nr) {
		lp_row_na(r, "one instance%s: nothing to compare the first "
		    "with", nf > 1 ? " per process" : "");
		for (k = 0; k < 7; k++)
			lp_row_text(r, "n/a");
		return;
	}
	for (k = 0; k < nr; k++) {
		lo = k && lo < rest[k] ? lo : rest[k];
		hi = k && hi > rest[k] ? hi : rest[k];
	}
	med = lp_median(rest, nr);
	lp_row_num(r, med, 1);
	if (med > 0)
		lp_row_g(r, f / med);
	else
		lp_row_na(r, "the median is 0");
	lp_row_text(r, med > 0 && f > ratio * med ? "yes" : "no");
	lp_row_num(r, med, 1);
	lp_row_num(r, lo, 0);
	lp_row_num(r, hi, 0);
	lp_row_num(r, lp_quantile(rest, nr, 0.25), 1);
	lp_row_num(r, lp_quantile(rest, nr, 0.75), 1);
}

/* Tokens/s of decode_step (from its steady state) or decode_all (from its
 * wall time), and what it is from. */
static void
emit_tokens(struct lp_row *r, const struct stage *g, const struct lp_model *m,
    double steps, double *rest, size_t nr, size_t nf)
{
	int step = !strcmp(g->name, "decode_step");
	int all = !strcmp(g->name, "decode_all");
	size_t k;

	if (step && nr && m->batch > 0) {
		double med2 = lp_median(rest, nr);

		if (med2 > 0) {
			lp_row_g(r, m->batch / (med2 * 1e-9));
			lp_row_text(r, "steady-state step");
		} else
			lp_row_na(r, "the steady-state step is 0");
	} else if (all && m->batch > 0 && (steps > 0 || m->decode > 0)) {
		double tot = 0;

		for (k = 0; k < g->n; k++)
			tot += g->in[k].dur;
		/* the steps the trace saw, else the model config's */
		/* per process: its steps over its total wall time */
		lp_row_g(r, m->batch * (steps > 0 ? steps * (double)nf :
		    m->decode * (double)g->n) / (tot * 1e-9));
		lp_row_text(r, steps > 0 ? "whole stage, warm-up included "
		    "(decode_step instances in the trace)" : "whole stage, "
		    "warm-up included (model.decode_tokens)");
	} else if ((step || all) && !(m->batch > 0))
		lp_row_na(r, "the model config gives no batch "
		    "(MODEL=NAME)");
	else if (step)
		lp_row_na(r, "a single step has no steady state");
	else if (all)
		lp_row_na(r, "the model config gives no decode_tokens");
}

/* The mean of all instances, first ones included. */
static double
mean_of(const struct stage *g)
{
	double tot = 0;
	size_t k;

	for (k = 0; k < g->n; k++)
		tot += g->in[k].dur;
	return tot / (double)g->n;
}

/* The median of all instances. */
static double
median_of(const struct stage *g)
{
	double *v = lp_xcalloc(g->n + 1, sizeof *v), med;
	size_t k;

	for (k = 0; k < g->n; k++)
		v[k] = g->in[k].dur;
	med = lp_median(v, g->n);
	free(v);
	return med;
}

static void
emit_stage(struct lp_row *r, struct stage *g, int have_trace,
    const struct lp_model *m, double steps, double ratio)
{
	double *first, *rest, f;
	size_t nf, nr;

	lp_row_text(r, g->name);
	lp_row_text(r, g->range);
	if (!have_trace)
		lp_row_na(r, "the run has no nvtx_pushpop_trace report "
		    "(nsys stats --report nvtx_pushpop_trace)");
	else if (!g->n)
		lp_row_na(r, "the range has no instance in the trace "
		    "(outside the capture, or never pushed)");
	else {
		split(g, &first, &nf, &rest, &nr);
		lp_row_num(r, (double)g->n, 0);
		f = lp_median(first, nf);
		lp_row_num(r, f, 1);
		emit_spread(r, f, rest, nr, nf, ratio);
		emit_tokens(r, g, m, steps, rest, nr, nf);
		while (r->n < NCOLS - 2)
			lp_row_text(r, "n/a");
		lp_row_num(r, mean_of(g), 1);
		lp_row_num(r, median_of(g), 1);
		free(first);
		free(rest);
	}
	lp_row_end_na(r, NCOLS, out);
}

static void
free_stages(struct st *t)
{
	size_t i, k;

	for (i = 0; i < t->n; i++) {
		for (k = 0; k < t->s[i].n; k++)
			free(t->s[i].in[k].pid);
		free(t->s[i].in);
		free(t->s[i].range);
	}
	free(t->s);
}

int
main(int argc, char **argv)
{
	static const char *const cols_in[] = { "Start", "Duration", "Name",
		"?PID" };
	const char *cpath = NULL, *ipath = NULL, *tpath = NULL;
	struct lp_ynode *cfg, *inputs = NULL;
	struct lp_model m;
	struct st t = { 0 };
	struct lp_row r = { 0 };
	double ratio = 1.5, steps;
	size_t i;
	int c, untraced = 0;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "c:i:uw:", synopsis)) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'i': ipath = optarg; break;
		case 'u': untraced = 1; break;
		case 'w':
			ratio = lp_strtoratio(optarg, "-w");
			break;
		}
	}
	if (!cpath || argc - optind > 1)
		lp_usage(synopsis);
	tpath = optind < argc ? argv[optind] : NULL;
	cfg = lp_yaml_load_path(cpath);
	if (ipath)
		inputs = lp_yaml_load_path(ipath);
	lp_model_get(&m, inputs, ipath ? ipath : "inputs.yaml");
	load_stages(&t, cfg, cpath);
	if (tpath)
		lp_rep_file(tpath, "nsys stats --report nvtx_pushpop_trace",
		    cols_in, 4, trace_row, &t);

	steps = decode_steps(&t);
	emit_meta(tpath, ipath, ratio, untraced);
	lp_tab_meta(out, "key", "stage");
	lp_tab_header(out, cols, NCOLS);
	for (i = 0; i < t.n; i++)
		emit_stage(&r, &t.s[i], tpath != NULL, &m, steps, ratio);

	free_stages(&t);
	lp_sb_free(&r.b);
	lp_model_free(&m);
	lp_yaml_free(cfg);
	lp_yaml_free(inputs);
	lp_tab_done(out);
	return 0;
}
