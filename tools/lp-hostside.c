/*
 * lp-hostside: hostside.tsv, where the host time of each stage goes.  For
 * each instance of a stage's NVTX range (nsys nvtx_pushpop_trace, with its
 * process and thread), the CUDA API calls of that thread that start inside
 * it (nsys cuda_api_trace), split by kind, the rest of its wall time (the
 * framework's own work), and the kernels its launch calls started (nsys
 * cuda_gpu_trace, matched on the correlation ID) with each launch's
 * latency to its kernel's start.  One row over all instances of a stage,
 * one ("STAGE:steady") over those after each process's first.
 *
 * CUDA graphs: a cudaGraphLaunch's kernels all carry its correlation ID
 * (nsys --cuda-graph-trace=node); they are the stage's "from graphs", and
 * the graph launch's latency is to its first kernel.  Synchronisations and
 * copies that wait for the GPU's earlier work are "blocked on the GPU":
 * a synchronisation from its start to the end of the GPU work of the
 * thread's last launch or copy before it; a copy to the end of the work
 * before it on its stream (not past its own start on the GPU: the GPU
 * idle, waiting for the copy itself, is not blocking).  The GPU's idle
 * time inside each instance (no kernel running) is split by what the
 * thread was doing then (idle.c): the waterfall's idle parts.  A
 * stage without kernels says why (no_kernels_why): graphs traced whole, or
 * its kernels launched by another process than the one pushing its range.
 *
 * Two passes: the instances (nvtx_pushpop_trace), then the API calls and
 * the GPU operations swept together in time order (both sorted by start,
 * as lp-tracesort writes them; checked).  A kernel starts after its launch call,
 * so a stage's launch, copy or synchronisation call is held only until
 * its GPU work has started (a graph launch until a later launch's kernel
 * starts on its stream; any call at most AGE calls later).  Memory grows
 * with the instances, the calls in flight and the distinct latencies (for
 * exact quantiles), not with the rows of the traces.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "lp-hostside/hostside.h"

static const char synopsis[] =
    "lp-hostside -c config.yaml [-a cuda_api_trace.csv] "
    "[-g cuda_gpu_trace.csv] [-s cuda_api_sum.csv] [nvtx_pushpop_trace.csv]";

static void
pushpop_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	size_t i;

	for (i = 0; i < t->ns; i++) {
		struct stage *g = &t->s[i];
		struct inst *x;

		if (!lp_nvtx_range_match(g->range, rr->v[2]))
			continue;
		g->in = lp_grow(g->in, g->n, &g->cap, 16, sizeof *g->in);
		x = &g->in[g->n++];
		memset(x, 0, sizeof *x);
		x->start = lp_rep_time(rr, 0);
		x->end = lp_rep_time(rr, 1);
		if (x->end < x->start)
			lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[1] + 1,
			    "End before Start");
		x->pid = lp_xstrdup(lp_rep_pid(rr, 3));
		lp_map_put(t->ppids, x->pid, 1);
		x->tid = lp_xstrdup(lp_rep_pid(rr, 4));
		x->line = rr->line;
	}
}

static int
by_thread_start(const void *a, const void *b)
{
	const struct inst *x = a, *y = b;
	int c = strcmp(x->pid, y->pid);

	if (!c)
		c = strcmp(x->tid, y->tid);
	if (c)
		return c;
	return x->start < y->start ? -1 : x->start > y->start;
}

struct span {
	double start, end;
};

static int
by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorted by thread and start; the first of each process marked; two
 * instances of one range on one thread that overlap are refused (a call
 * inside both would be counted twice). */
static void
order(struct stage *g, const char *file)
{
	size_t i, a, f;

	lp_qsort(g->in, g->n, sizeof *g->in, by_thread_start);
	for (i = 0; i < g->n; i++) {
		struct inst *x = &g->in[i];

		if (i && !strcmp(x->pid, x[-1].pid) && !strcmp(x->tid, x[-1].tid) &&
		    x->start < x[-1].end)
			lp_die_at(LP_EXIT_DATA, file, x->line, 0, "an instance of "
			    "%s nests in another on thread %s (line %ld): lp "
			    "cannot split the thread's time between them",
			    g->range, x->tid, x[-1].line);
	}
	/* the first of each process: the earliest over all its threads
	 * (sorted by process first, so a process's instances are together) */
	for (a = 0; a < g->n; a = i) {
		for (i = f = a; i < g->n && !strcmp(g->in[i].pid, g->in[a].pid);
		    i++)
			if (g->in[i].start < g->in[f].start)
				f = i;
		g->in[f].first = 1;
	}
	/* every instance by start, with the latest end so far: a call of
	 * another process falls inside one when the last start before it
	 * has a latest end after it */
	{
		struct span *sp = lp_xcalloc(g->n + 1, sizeof *sp);

		for (i = 0; i < g->n; i++) {
			sp[i].start = g->in[i].start;
			sp[i].end = g->in[i].end;
		}
		lp_qsort(sp, g->n, sizeof *sp, by_start);
		g->bystart = lp_xcalloc(g->n + 1, sizeof *g->bystart);
		g->maxend = lp_xcalloc(g->n + 1, sizeof *g->maxend);
		for (i = 0; i < g->n; i++) {
			g->bystart[i] = sp[i].start;
			g->maxend[i] = i && g->maxend[i - 1] > sp[i].end ?
			    g->maxend[i - 1] : sp[i].end;
		}
		free(sp);
	}
}

/* The stages and their NVTX ranges (config.yaml); names borrow from cfg. */
static void
load_stages(struct st *t, const struct lp_ynode *cfg, const char *cpath)
{
	t->s = lp_stage_table(cfg, cpath, &t->ns, 0, sizeof *t->s,
	    offsetof(struct stage, name), offsetof(struct stage, range));
}

/* A trace read in time order, beside another. */
struct src {
	struct lp_rep_in *p;
	const struct lp_rep_row *rr;
	double t, last;
	long lastline;
};

static void
advance(struct src *s)
{
	if (!s->p || !(s->rr = lp_rep_next(s->p)))
		return;
	s->t = lp_rep_time(s->rr, 0);
	if (s->t < s->last)
		lp_die_at(LP_EXIT_DATA, s->rr->file, s->rr->line, s->rr->col[0] + 1,
		    "%s: starts before the row on line %ld: the trace is not "
		    "sorted by start time (lp-tracesort sorts it)", s->rr->v[0],
		    s->lastline);
	s->last = s->t;
	s->lastline = s->rr->line;
}

/* Several processes with GPU work: cuda_gpu_trace has no process column,
 * so its correlation IDs cannot be tied to calls; nothing is held. */
static void
stop_tracking(struct st *t, struct src *gpu)
{
	size_t x;

	for (x = 0; x < t->nr; x++)
		if (t->r[x].live)
			sweep_free_slot(t, x);
	idle_free(t);
	t->track = 0;
	t->nlaunch = t->unmatched = 0;
	t->have_err = 0;
	t->ngseen = 0;
	lp_rep_close(gpu->p);
	gpu->p = NULL;
	gpu->rr = NULL;
}

/* Each stage's latency quantiles, all instances (the firsts' and the
 * others') and steady (the others'). */
static void
quantiles(struct st *t)
{
	size_t i;
	int row;

	for (i = 0; i < t->ns; i++) {
		struct stage *g = &t->s[i];

		for (row = 0; row < 2; row++) {
			struct lp_vals *a = row ? NULL : &g->lat[0];
			struct lp_vals *ga = row ? NULL : &g->glat[0];

			g->nlat[row] = g->lat[1].n + (a ? a->n : 0);
			g->p50[row] = lp_vals_quantile2(&g->lat[1], a, 0.5);
			g->p90[row] = lp_vals_quantile2(&g->lat[1], a, 0.9);
			g->nglat[row] = g->glat[1].n + (ga ? ga->n : 0);
			g->gp50[row] = lp_vals_quantile2(&g->glat[1], ga, 0.5);
		}
	}
}

/* The API calls and the GPU operations in time order (at one time, calls
 * first: a kernel starts after its launch call). */
static void
sweep(struct st *t, struct src *api, struct src *gpu)
{
	while (api->rr || gpu->rr) {
		/* what the kernels read so far tell: up to the next one */
		idle_upto(t, gpu->rr ? gpu->t : INFINITY);
		if (api->rr && (!gpu->rr || api->t <= gpu->t)) {
			sweep_api(t, api->rr);
			/* several processes: the GPU trace has no process
			 * column, so a correlation ID could name another
			 * process's kernel */
			if (t->track && t->pids >= 2)
				stop_tracking(t, gpu);
			advance(api);
		} else {
			if (!t->have_err)
				sweep_gpu(t, gpu->rr, gpu->t);
			advance(gpu);
		}
	}
	idle_upto(t, INFINITY);
}

/* The two passes: the instances; the API calls inside them swept with
 * the GPU trace's kernels and copies, in time order (at one time, calls
 * first: a kernel starts after its launch call). */
static void
load_traces(struct st *t, struct paths *p)
{
	static const char *const pp_cols[] = { "Start", "End", "Name", "PID",
		"TID" };
	static const char *const api_cols[] = { "Start", "Duration", "Name",
		"?CorrID", "Pid", "Tid", "?CorrId" };
	static const char *const gpu_cols[] = { "Start", "Duration", "?CorrId",
		"Name", "?CorrID", "?Strm", "?Device" };
	struct src api = { 0 }, gpu = { 0 };
	size_t i;

	if (p->ppath) {
		lp_rep_file(p->ppath, "nsys stats --report nvtx_pushpop_trace",
		    pp_cols, 5, pushpop_row, t);
		for (i = 0; i < t->ns; i++)
			order(&t->s[i], p->ppath);
	}
	if (!p->ppath || !p->apath)
		return;
	t->cinst = lp_xcalloc(t->ns + 1, sizeof *t->cinst);
	api.p = lp_rep_open(p->apath, "nsys stats --report cuda_api_trace",
	    api_cols, 7);
	p->aname = lp_xstrdup(lp_rep_name(api.p));
	api.last = gpu.last = -1;
	if (p->gpath) {
		gpu.p = lp_rep_open(p->gpath, "nsys stats --report cuda_gpu_trace",
		    gpu_cols, 7);
		t->track = 1;
		idle_init(t);
		advance(&gpu);
	}
	advance(&api);
	sweep(t, &api, &gpu);
	lp_rep_close(api.p);
	lp_rep_close(gpu.p);
	/* the ranges' processes made no CUDA call: the API trace of another
	 * capture, unless another process launched inside the ranges (an
	 * engine core beside the front end that pushes them: check_why) */
	if (lp_map_len(t->ppids) && !t->pidcalls) {
		double other = 0;

		for (i = 0; i < t->ns; i++)
			other += t->s[i].other;
		if (!other)
			lp_die(LP_EXIT_DATA, "%s: no CUDA API call of process %s, "
			    "whose NVTX ranges %s holds: not the API trace of "
			    "that capture", p->aname, lp_map_key(t->ppids, 0),
			    p->ppath);
	}
	if (t->have_err)
		lp_die_at(LP_EXIT_DATA, t->err_file, t->err_line, t->err_col,
		    "%s", lp_sb_str(&t->err));
	if (t->track)
		sweep_done(t);
	quantiles(t);
}

static void
sum_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	double n = lp_rep_count(rr, 1);

	lp_rep_time(rr, 0);
	if (lp_capi_graph_launch(rr->v[2]))
		t->cap_graphs += n;
}

/* The capture's graph launches (cuda_api_sum), for a run whose traces
 * cannot say where they went. */
static void
load_api_sum(struct st *t, const char *path)
{
	static const char *const scols[] = { "Total Time", "Num Calls", "Name" };

	t->cap_graphs = 0;
	lp_rep_file(path, "nsys stats --report cuda_api_sum", scols, 3, sum_row,
	    t);
}

static void
free_state(struct st *t)
{
	size_t i, k;

	for (i = 0; i < t->ns; i++) {
		for (k = 0; k < t->s[i].n; k++) {
			free(t->s[i].in[k].pid);
			free(t->s[i].in[k].tid);
		}
		free(t->s[i].in);
		free(t->s[i].range);
		for (k = 0; k < 2; k++) {
			lp_vals_free(&t->s[i].lat[k]);
			lp_vals_free(&t->s[i].glat[k]);
			free(t->s[i].cs[k]);
		}
		free(t->s[i].bystart);
		free(t->s[i].maxend);
		free(t->s[i].other_pid);
	}
	free(t->s);
	free(t->r);
	free(t->inst);
	free(t->freel);
	free(t->h);
	free(t->q);
	free(t->qseq);
	free(t->gseen);
	free(t->th);
	free(t->pid1);
	lp_sb_free(&t->err);
	lp_map_free(t->names);
	lp_map_free(t->ppids);
	lp_map_free(t->thrs);
	lp_map_free(t->kinds);
	lp_map_free(t->strms);
	free(t->sbusy);
	lp_sb_free(&t->skey);
	idle_free(t);
	free(t->cinst);
}

int
main(int argc, char **argv)
{
	struct paths p = { 0 };
	struct lp_ynode *cfg;
	struct st t;
	FILE *out;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "a:c:g:s:", synopsis)) != -1) {
		switch (c) {
		case 'a': p.apath = optarg; break;
		case 'c': p.cpath = optarg; break;
		case 'g': p.gpath = optarg; break;
		case 's': p.spath = optarg; break;
		}
	}
	if (!p.cpath || argc - optind > 1)
		lp_usage(synopsis);
	p.ppath = optind < argc ? argv[optind] : NULL;
	if ((p.apath && !strcmp(p.apath, "-")) + (p.gpath && !strcmp(p.gpath,
	    "-")) + (p.ppath && !strcmp(p.ppath, "-")) + (p.spath &&
	    !strcmp(p.spath, "-")) > 1)
		lp_die(LP_EXIT_USAGE, "only one input can be standard input");
	memset(&t, 0, sizeof t);
	t.names = lp_map_new();
	t.ppids = lp_map_new();
	t.thrs = lp_map_new();
	t.kinds = lp_map_new();
	t.strms = lp_map_new();
	t.cap_graphs = -1;
	cfg = lp_yaml_load_path(p.cpath);
	load_stages(&t, cfg, p.cpath);
	if (p.spath)
		load_api_sum(&t, p.spath);
	load_traces(&t, &p);

	out = lp_tab_out();
	emit_meta(out, &t, &p);
	emit_rows(out, &t, &p);
	free_state(&t);
	free(p.aname);
	lp_yaml_free(cfg);
	lp_tab_done(out);
	return 0;
}
