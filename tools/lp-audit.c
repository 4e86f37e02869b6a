/*
 * lp-audit: capture_audit.tsv, what a capture holds, per process and
 * stage: the instances of the stage's NVTX range the process pushed
 * (nvtx_pushpop_trace), the kernel launch calls and CUDA graph launches it
 * made inside them (cuda_api_trace: a call inside an instance of the
 * process's own range), and each process's role as far as that tells it.
 * Where some instances of a stage launch a graph and others launch kernels
 * one by one (a graphed decode fallen back to eager launches), a warning
 * names them.  Fails closed: a process that pushed a stage's ranges and
 * launched nothing inside them while another process's instances hold
 * launches (a rank without kernels, or a front end annotating an engine)
 * is refused, naming both.
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
    "lp-audit -c config.yaml [-a cuda_api_trace.csv] [-p nvtx_pushpop_trace.csv] "
    "[-H hostside.tsv -r range]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

/* An instance of a stage's range in one process, and what it launched. */
struct inst {
	char *pid;
	double start, end;
	long launches, graphs;
};

struct stage {
	const char *name;
	char *range;
	struct inst *in;
	size_t n, cap;
};

/* A process of the API trace and its launch calls, anywhere. */
struct proc {
	char *pid;
	long launches;
};

struct audit {
	struct stage *s;
	size_t n;
	long outside;		/* launch calls inside no stage instance */
	struct proc *p;		/* processes that launched, in order seen */
	size_t np;
	struct lp_ynode *cfg;	/* the config, which the names point into */
};

static void
count_proc(struct audit *a, const char *pid)
{
	size_t i;

	for (i = 0; i < a->np && strcmp(a->p[i].pid, pid); i++)
		;
	if (i == a->np) {
		if (a->np == 4096)	/* as many ranks as lp reads */
			lp_die(LP_EXIT_DATA, "more than 4096 processes launch "
			    "kernels in the CUDA API trace");
		a->p = lp_xreallocarray(a->p, a->np + 1, sizeof *a->p);
		a->p[a->np].pid = lp_xstrdup(pid);
		a->p[a->np++].launches = 0;
	}
	a->p[i].launches++;
}

static void
push_row(const struct lp_rep_row *rr, void *ctx)
{
	struct audit *a = ctx;
	size_t i;

	for (i = 0; i < a->n; i++) {
		struct stage *g = &a->s[i];
		struct inst *x;

		if (!lp_nvtx_range_match(g->range, rr->v[2]))
			continue;
		g->in = lp_grow(g->in, g->n, &g->cap, 16, sizeof *g->in);
		x = &g->in[g->n++];
		x->start = lp_rep_time(rr, 0);
		x->end = x->start + lp_rep_time(rr, 1);
		x->pid = lp_xstrdup(lp_rep_pid(rr, 3));
		x->launches = x->graphs = 0;
	}
}

static int
by_pid_start(const void *p, const void *q)
{
	const struct inst *a = p, *b = q;
	int c = strcmp(a->pid, b->pid);

	return c ? c : a->start < b->start ? -1 : a->start > b->start;
}

/* The instance of g in process pid that holds time t, or NULL: the last
 * instance of pid starting at or before t, if it ends after t. */
static struct inst *
holding(struct stage *g, const char *pid, double t)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {	/* the first (pid, start) after (pid, t) */
		size_t mid = (lo + hi) / 2;
		int c = strcmp(g->in[mid].pid, pid);

		if (c < 0 || (c == 0 && g->in[mid].start <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || strcmp(g->in[lo - 1].pid, pid) ||
	    !(t < g->in[lo - 1].end))
		return NULL;
	return &g->in[lo - 1];
}

static void
api_row(const struct lp_rep_row *rr, void *ctx)
{
	struct audit *a = ctx;
	const char *name = rr->v[1], *pid;
	double t;
	size_t i;
	int in_any = 0;

	if (!lp_capi_launch(name))
		return;
	pid = lp_rep_pid(rr, 2);
	t = lp_rep_time(rr, 0);
	count_proc(a, pid);
	for (i = 0; i < a->n; i++) {
		struct inst *x = holding(&a->s[i], pid, t);

		if (!x)
			continue;
		in_any = 1;
		if (lp_capi_graph_launch(name))
			x->graphs++;
		else
			x->launches++;
	}
	a->outside += !in_any;
}

/* A process's instances of g: [*first, *last). */
static size_t
proc_span(const struct stage *g, size_t first)
{
	size_t j = first;

	while (j < g->n && !strcmp(g->in[j].pid, g->in[first].pid))
		j++;
	return j;
}

/* Instances of a process launching kernels one by one where others
 * launch a graph: said with their numbers (1 = the process's first). */
static size_t
eager_fallback(const struct stage *g, size_t i, size_t j, struct lp_sb *which)
{
	size_t k, n = 0, withg = 0;

	for (k = i; k < j; k++)
		withg += g->in[k].graphs > 0;
	if (!withg)
		return 0;
	for (k = i; k < j; k++)
		if (!g->in[k].graphs && g->in[k].launches > 0) {
			if (n < 8)
				lp_sb_printf(which, "%s%zu", n ? ", " : "",
				    k - i + 1);
			n++;
		}
	if (n > 8)
		lp_sb_printf(which, " and %zu more", n - 8);
	return n;
}

/* The first instance's launch calls against the median of the rest's
 * (NAN with fewer than three instances); warm: work in the first beyond
 * twice the others' and 10 calls more, warm-up or compilation inside the
 * measured window. */
static double
first_vs_rest(const struct stage *g, size_t i, size_t j, double *first,
    int *warm)
{
	double *v, med;
	size_t k;

	*first = (double)(g->in[i].launches + g->in[i].graphs);
	*warm = 0;
	if (j - i < 3)
		return NAN;
	v = lp_xcalloc(j - i, sizeof *v);
	for (k = i + 1; k < j; k++)
		v[k - i - 1] = (double)(g->in[k].launches + g->in[k].graphs);
	med = lp_median(v, j - i - 1);
	free(v);
	*warm = *first > 2 * med && *first - med >= 10;
	return med;
}

static const struct lp_col cols[] = {
	{ "pid", "Process", "text" }, { "stage", "Stage", "text" },
	{ "role", "Role", "text" }, { "instances", "Instances", "int" },
	{ "launches", "Kernel launch calls", "int" },
	{ "graph_launches", "Graph launches", "int" },
	{ "graph_launches_per_inst", "Graph launches / instance", "num2" },
	{ "eager_instances", "Eager among graphed", "text" },
	{ "first_launches", "First instance's calls", "int" },
	{ "rest_launches_median", "Others' (median)", "num1" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* One row: process of g's instances [i, j). */
static void
emit_proc(struct lp_row *r, const struct stage *g, size_t i, size_t j,
    int have_api)
{
	long l = 0, gl = 0;
	size_t k, ne;
	struct lp_sb which = { 0 };
	double first, med;
	int warm;

	for (k = i; k < j; k++) {
		l += g->in[k].launches;
		gl += g->in[k].graphs;
	}
	lp_row_text(r, g->in[i].pid);
	lp_row_text(r, g->name);
	if (!have_api)
		lp_row_na(r, "the run has no cuda_api_trace");
	else
		lp_row_text(r, l + gl > 0 ? "launches the stage's kernels" :
		    "pushes the stage's ranges, launches no kernel in them");
	lp_row_num(r, (double)(j - i), 0);
	if (!have_api) {
		while (r->n < NCOLS)
			lp_row_na(r, "the run has no cuda_api_trace");
		return;
	}
	lp_row_num(r, (double)l, 0);
	lp_row_num(r, (double)gl, 0);
	lp_row_g(r, (double)gl / (double)(j - i));
	ne = eager_fallback(g, i, j, &which);
	lp_row_text(r, ne ? lp_sb_str(&which) : gl > 0 ? "none" : "-");
	lp_sb_free(&which);
	med = first_vs_rest(g, i, j, &first, &warm);
	lp_row_num(r, first, 0);
	if (isnan(med))
		lp_row_na(r, "fewer than three instances");
	else
		lp_row_g(r, med);
}

/* Warm-up or compilation work inside the measured window, said. */
static void
warm_said(const struct stage *g, size_t i, size_t j, struct lp_sb *warn)
{
	double first, med;
	int warm;

	med = first_vs_rest(g, i, j, &first, &warm);
	if (warm)
		lp_sb_printf(warn, "%s%s in process %s: its first instance "
		    "made %.0f launch calls against %.1f in the others "
		    "(median): warm-up or compilation work inside the measured "
		    "window (steps.tsv's steady state leaves it out; the "
		    "stage's totals do not)", warn->len ? "; " : "", g->name,
		    g->in[i].pid, first, med);
}

/* The warning line: each process and stage with eager instances among
 * graphed ones; short: the same in a few words, for the brief. */
static void
warnings(const struct audit *a, struct lp_sb *warn, struct lp_sb *shrt)
{
	size_t i, j, k, ne;

	for (i = 0; i < a->n; i++)
		for (j = 0; j < a->s[i].n; j = k) {
			const struct stage *g = &a->s[i];
			struct lp_sb which = { 0 };

			k = proc_span(g, j);
			if ((ne = eager_fallback(g, j, k, &which)))
				lp_sb_printf(warn, "%s%s in process %s: %zu of "
				    "%zu instances launch kernels one by one "
				    "where the others launch a CUDA graph "
				    "(instances %s): the decode fell back to "
				    "eager launches there", warn->len ? "; " :
				    "", g->name, g->in[j].pid, ne, k - j,
				    lp_sb_str(&which));
			if (ne)
				lp_sb_printf(shrt, "%s%s eager in %zu of %zu "
				    "instances (process %s)", shrt->len ? ", " :
				    "", g->name, ne, k - j, g->in[j].pid);
			lp_sb_free(&which);
			warm_said(g, j, k, warn);
		}
}

/* The processes that launched kernels in the capture, "1234 (80 launch
 * calls), 1240 (...)". */
static void
launchers(const struct audit *a, struct lp_sb *b)
{
	size_t i;

	for (i = 0; i < a->np && i < 8; i++)
		lp_sb_printf(b, "%s%s (%ld launch calls)", i ? ", " : "",
		    a->p[i].pid, a->p[i].launches);
	if (a->np > 8)
		lp_sb_printf(b, " and %zu more", a->np - 8);
}

/* Fail closed: a stage whose instances hold no launch call in any
 * process while the capture has launches (its ranges around no GPU work,
 * or around another process's); and, in a stage some process's instances
 * launch kernels, another process pushed instances with none inside. */
static void
check_stage(const struct audit *a, const struct stage *g, const char *apath)
{
	size_t i, j, full = g->n, empty = g->n;

	for (i = 0; i < g->n; i = j) {
		long l = 0;
		size_t k;

		j = proc_span(g, i);
		for (k = i; k < j; k++)
			l += g->in[k].launches + g->in[k].graphs;
		if (l > 0 && full == g->n)
			full = i;
		else if (!l && empty == g->n)
			empty = i;
	}
	if (full == g->n && g->n && a->np) {
		struct lp_sb b = { 0 };

		launchers(a, &b);
		lp_die_at(LP_EXIT_DATA, apath, 0, 0, "stage %s: no kernel "
		    "launched inside its %zu instances (pushed by process %s), "
		    "while the capture holds those of processes %s: the "
		    "stage's ranges are not around the work. "
		    "Push them where the kernels are launched (the same process "
		    "and thread, around the calls), or name the range that is "
		    "(SET=stages.%s.range=...)", g->name, g->n, g->in[0].pid,
		    lp_sb_str(&b), g->name);
	}
	if (full < g->n && empty < g->n)
		lp_die_at(LP_EXIT_DATA, apath, 0, 0, "stage %s: process %s "
		    "pushed its range and launched no kernel inside it, while "
		    "process %s launched the stage's kernels inside its own: a "
		    "rank without kernels, or a front end annotating the engine "
		    "(push the stage's ranges only in the process that launches "
		    "its kernels)", g->name, g->in[empty].pid, g->in[full].pid);
}

/* The config's stages, their instances per process (sorted by process
 * and start) and the launch calls inside them; the refusals. */
static void
load(struct audit *a, const char *cpath, const char *tpath, const char *apath)
{
	static const char *const pcols[] = { "Start", "Duration", "Name",
		"PID" };
	static const char *const acols[] = { "Start", "Name", "Pid" };
	size_t i;

	a->cfg = lp_yaml_load_path(cpath);	/* the names point into it */
	a->s = lp_stage_table(a->cfg, cpath, &a->n, 1, sizeof *a->s,
	    offsetof(struct stage, name), offsetof(struct stage, range));
	if (tpath)
		lp_rep_file(tpath, "nsys stats --report nvtx_pushpop_trace",
		    pcols, 4, push_row, a);
	for (i = 0; i < a->n; i++)
		lp_qsort(a->s[i].in, a->s[i].n, sizeof *a->s[i].in,
		    by_pid_start);
	if (apath)
		lp_rep_file(apath, "nsys stats --report cuda_api_trace", acols,
		    3, api_row, a);
	for (i = 0; apath && tpath && i < a->n; i++)
		check_stage(a, &a->s[i], apath);
}

/* The table's # lines. */
static void
emit_meta(const struct audit *a, const char *tpath, const char *apath)
{
	struct lp_sb warn = { 0 }, shrt = { 0 };

	lp_tab_meta(out, "title", "What the Capture Holds");
	lp_tab_meta(out, "tool", "lp-audit");
	lp_tab_meta(out, "source", "each stage's instances per process from "
	    "nsys nvtx_pushpop_trace (%s); the kernel launch and CUDA graph "
	    "launch calls each process made inside its own instances from "
	    "nsys cuda_api_trace (%s)", tpath ? tpath : "missing", apath ?
	    apath : "missing");
	if (!tpath)	/* no instances to audit: a table of none, said */
		lp_tab_meta(out, "omit", "the run has no nvtx_pushpop_trace: "
		    "no instance to audit");
	lp_tab_meta(out, "note", "A launch call counts in a stage when it "
	    "starts inside an instance of the stage's range pushed by the "
	    "same process. Eager among graphed: the instances (numbered from "
	    "the process's first) that launch kernels one by one where the "
	    "others launch a CUDA graph.%s", apath ? "" : " Without the CUDA "
	    "API trace the launches are not known.");
	if (apath)
		lp_tab_meta(out, "outside", "%ld launch calls in no stage "
		    "instance", a->outside);
	warnings(a, &warn, &shrt);
	if (warn.len) {	/* a note, which every page shows */
		lp_tab_meta(out, "note", "Warning: %s.", lp_sb_str(&warn));
		lp_tab_meta(out, "partial", "%s", lp_sb_str(&shrt));
	}
	lp_tab_meta(out, "key", "pid stage");
	lp_sb_free(&warn);
	lp_sb_free(&shrt);
}

static void
free_audit(struct audit *a)
{
	size_t i, j;

	for (i = 0; i < a->n; i++) {
		for (j = 0; j < a->s[i].n; j++)
			free(a->s[i].in[j].pid);
		free(a->s[i].in);
		free(a->s[i].range);
	}
	free(a->s);
	for (i = 0; i < a->np; i++)
		free(a->p[i].pid);
	free(a->p);
	lp_yaml_free(a->cfg);
}

int
main(int argc, char **argv)
{
	const char *cpath = NULL, *apath = NULL, *tpath = NULL, *hpath = NULL;
	const char *range = NULL;
	struct audit a = { 0 };
	struct lp_row r = { 0 };
	size_t i, j, k;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "a:c:H:p:r:", synopsis)) != -1) {
		switch (c) {
		case 'a': apath = optarg; break;
		case 'p': tpath = optarg; break;
		case 'c': cpath = optarg; break;
		case 'H': hpath = optarg; break;
		case 'r': range = optarg; break;
		}
	}
	if (!cpath || optind != argc || !hpath != !range)
		lp_usage(synopsis);
	/* the run's stage whose kernels are elsewhere: said as lp-hostside
	 * says it, naming both processes, before the refusals below */
	if (hpath)
		lp_ksum_check(hpath, range);
	out = lp_tab_out();
	load(&a, cpath, tpath, apath);
	emit_meta(&a, tpath, apath);
	lp_tab_header(out, cols, NCOLS);
	for (i = 0; i < a.n; i++)
		for (j = 0; j < a.s[i].n; j = k) {
			k = proc_span(&a.s[i], j);
			emit_proc(&r, &a.s[i], j, k, apath != NULL);
			lp_row_end(&r, out);
		}
	free_audit(&a);
	lp_sb_free(&r.b);
	lp_tab_done(out);
	return 0;
}
