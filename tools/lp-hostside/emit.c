/*
 * lp-hostside's table: its columns, the notes on its sources, and a row
 * for each stage over all instances and over the steady state.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "hostside.h"

/* "name x3 (1.234 ms); ..." for the calls of the given kinds, most time
 * first, at most four; copies to the host said so. */
static void
calls_text(struct lp_sb *b, const struct st *t, const struct stage *g,
    int row, int k1, int k2)
{
	size_t i, n = 0, *ix = lp_xcalloc(g->ncs + 1, sizeof *ix), a, c;

	lp_sb_reset(b);
	for (i = 0; i < g->ncs && i < lp_map_len(t->names); i++) {
		int k = kind_of(lp_map_key(t->names, i));

		if ((k == k1 || k == k2) && g->cs[row][i].n > 0)
			ix[n++] = i;
	}
	/* by time, then name: few names, an insertion sort */
	for (a = 1; a < n; a++)
		for (c = a; c > 0; c--) {
			const struct cstat *x = &g->cs[row][ix[c - 1]];
			const struct cstat *y = &g->cs[row][ix[c]];

			if (x->ns > y->ns || (x->ns == y->ns &&
			    strcmp(lp_map_key(t->names, ix[c - 1]),
			    lp_map_key(t->names, ix[c])) <= 0))
				break;
			i = ix[c];
			ix[c] = ix[c - 1];
			ix[c - 1] = i;
		}
	for (i = 0; i < n && i < 4; i++) {
		const struct cstat *x = &g->cs[row][ix[i]];

		lp_sb_printf(b, "%s%s x%.0f", i ? "; " : "", lp_map_key(t->names,
		    ix[i]), x->n);
		if (x->d2h > 0)
			lp_sb_printf(b, ", %.0f to the host", x->d2h);
		lp_sb_adds(b, " (");
		lp_fmt_ms(b, x->ns);
		lp_sb_adds(b, " ms)");
	}
	if (n > 4)
		lp_sb_printf(b, "; %zu more", n - 4);
	if (!n)
		lp_sb_adds(b, "none");
	free(ix);
}

static const struct lp_col cols[] = {
	{ "stage", "Stage", "text" }, { "range", "NVTX range", "hide" },
	{ "instances", "Instances", "int" },
	{ "wall_ns", "Wall (ms)", "ms" },
	{ "api_ns", "In CUDA API (ms)", "ms" },
	{ "api_pct", "In CUDA API", "pct" },
	{ "api_launch_ns", "Launch calls (ms)", "ms" },
	{ "api_sync_ns", "Synchronisation (ms)", "ms" },
	{ "api_memcpy_ns", "Copy and set (ms)", "ms" },
	{ "api_load_ns", "Module loading (ms)", "ms" },
	{ "api_other_ns", "Other API (ms)", "ms" },
	{ "host_other_ns", "Outside the API (ms)", "ms" },
	{ "host_other_pct", "Outside the API", "pct" },
	{ "kernel_ns", "Kernels (ms)", "hide" },
	{ "kernel_per_inst_ns", "Kernels per instance (ms)", "ms" },
	{ "launches", "Launches", "hide" },
	{ "launches_per_inst", "Launches per instance", "num1" },
	{ "launch_lat_p50_ns", "Launch to start p50 (us)", "us" },
	{ "launch_lat_p90_ns", "Launch to start p90 (us)", "us" },
	{ "graph_launches", "Graph launches", "int" },
	{ "graph_kernels", "Kernels from graphs", "hide" },
	{ "graph_kernel_ns", "Kernels from graphs (ms)", "hide" },
	{ "graph_kernel_pct", "Kernel time from graphs", "pct" },
	{ "graph_lat_p50_ns", "Graph launch to first kernel p50 (us)", "us" },
	{ "blocked_ns", "Blocked on the GPU (ms)", "ms" },
	{ "idle_ns", "GPU idle (ms)", "hide" },
	{ "idle_launch_ns", "GPU idle in launch calls (ms)", "hide" },
	{ "idle_sync_ns", "GPU idle in synchronisation (ms)", "hide" },
	{ "idle_memcpy_ns", "GPU idle in copy and set (ms)", "hide" },
	{ "idle_load_ns", "GPU idle in module loading (ms)", "hide" },
	{ "idle_other_ns", "GPU idle in other API (ms)", "hide" },
	{ "idle_host_ns", "GPU idle outside the API (ms)", "hide" },
	{ "sync_calls", "Synchronisations and copies", "text" },
	{ "load_calls", "Module loading calls", "text" },
	{ "process", "Process", "text" },
	{ "stage_check", "Kernels of the stage", "hide" },
	{ "check_why", "Why", "hide" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

void
emit_meta(FILE *out, const struct st *t, const struct paths *p)
{
	lp_tab_meta(out, "title", "Host Side of Each Stage");
	lp_tab_meta(out, "tool", "lp-hostside");
	lp_tab_meta(out, "source", "each instance of the stage's NVTX range "
	    "with its thread from nsys nvtx_pushpop_trace (%s); the CUDA API "
	    "calls of that thread starting inside it from nsys cuda_api_trace "
	    "(%s); their kernels by correlation ID from nsys cuda_gpu_trace "
	    "(%s)", p->ppath ? p->ppath : "missing", p->apath ? p->apath :
	    "missing", p->gpath ? p->gpath : "missing");
	lp_tab_meta(out, "note", "Wall and host times here are the traced "
	    "capture's, its overhead included (the tracer lengthens CUDA "
	    "calls); a live run's step times are the untraced steps.tsv.");
	if (t->cap_graphs > 0)
		lp_tab_meta(out, "graphs", "the capture made %.0f CUDA graph "
		    "launches (cudaGraphLaunch, nsys cuda_api_sum %s)",
		    t->cap_graphs, p->spath);
	lp_tab_meta(out, "note", "STAGE: all instances; STAGE:steady: the "
	    "instances after each process's first. Times are sums over the "
	    "row's instances. In CUDA API = calls of the range's thread that "
	    "start inside an instance, by kind (lp-hostside(1) lists the "
	    "names); outside the API = wall time minus that: the framework's "
	    "own work (Python, the operator dispatch) and idle waits outside "
	    "CUDA. Launch to start = from a launch call's start to its "
	    "kernel's start (direct launches; a graph launch's to its first "
	    "kernel apart). Blocked on the GPU = the part of synchronisation "
	    "and copy calls spent waiting for the GPU's earlier work.");
	if (t->unmatched > 0)
		lp_tab_meta(out, "warning", "%.0f of the stages' %.0f launch "
		    "calls have no kernel in cuda_gpu_trace (failed launches, or "
		    "records nsys dropped): their latency is not counted",
		    t->unmatched, t->nlaunch);
	lp_tab_header(out, cols, NCOLS);
}

/* A row's sums over its instances (all, or the steady ones). */
struct sums {
	double wall, api[K_N], apisum, calls, inst, launches, kern;
	double glaunches, gkern, gkernels, kernels, blocked;
	double gidle, idle[K_N];
};

static void
sum_instances(struct sums *s, const struct stage *g, int row)
{
	size_t k;
	int j;

	memset(s, 0, sizeof *s);
	for (k = 0; k < g->n; k++) {
		const struct inst *x = &g->in[k];

		if (row && x->first)
			continue;
		s->inst++;
		s->wall += x->end - x->start;
		for (j = 0; j < K_N; j++)
			s->api[j] += x->api[j];
		s->calls += x->calls;
		s->launches += x->launches;
		s->kern += x->kern_ns;
		s->kernels += x->kernels;
		s->glaunches += x->glaunches;
		s->gkern += x->gkern_ns;
		s->gkernels += x->gkernels;
		s->blocked += x->blocked;
		s->gidle += x->gidle;
		for (j = 0; j < K_N; j++)
			s->idle[j] += x->idle[j];
	}
	for (j = 0; j < K_N; j++)
		s->apisum += s->api[j];
}

/* The cells of the API time: in all, by kind, and outside the API. */
static void
api_cells(struct lp_row *r, const struct sums *s)
{
	int k;

	lp_row_num(r, s->apisum, 0);
	if (s->wall > 0)
		lp_row_num(r, 100 * s->apisum / s->wall, 2);
	else
		lp_row_na(r, "no wall time");
	for (k = 0; k < K_N; k++)
		lp_row_num(r, s->api[k], 0);
	lp_row_num(r, s->wall - s->apisum, 0);
	if (s->wall > 0)
		lp_row_num(r, 100 * (s->wall - s->apisum) / s->wall, 2);
	else
		lp_row_na(r, "no wall time");
}

/* The GPU's idle time inside the row's instances (no kernel running), in
 * all and by what the thread was doing: inside a call of each kind, or
 * outside the API (the rest: calls do not nest on a thread). */
static void
idle_cells(struct lp_row *r, const struct sums *s, int known, int devs)
{
	double in = 0;
	int k;

	if (!known || devs > 1) {
		lp_row_na(r, "%s", !known ? "the kernels' times are not known "
		    "(see kernel_ns)" : "the process's kernels ran on several "
		    "GPUs: one GPU's idle time cannot be told from another's");
		for (k = 0; k <= K_N; k++)
			lp_row_text(r, "n/a");
		return;
	}
	lp_row_num(r, s->gidle, 0);
	for (k = 0; k < K_N; k++) {
		lp_row_num(r, s->idle[k], 0);
		in += s->idle[k];
	}
	lp_row_num(r, s->gidle > in ? s->gidle - in : 0, 0);
}

/* The cells of the kernels, launches and launch latencies; n/a where the
 * GPU trace is missing or cannot be tied to the calls. */
static void
kernel_cells(struct lp_row *r, const struct st *t, const struct stage *g,
    int row, const struct sums *s, const char *gpath)
{
	int known = gpath && t->pids < 2;

	if (!known) {
		lp_row_na(r, "%s", !gpath ? "the run has no cuda_gpu_trace report "
		    "(nsys stats --report cuda_gpu_trace)" : "the API trace holds "
		    "several processes and cuda_gpu_trace has no process column: "
		    "a correlation ID could name another process's kernel");
		lp_row_text(r, "n/a");
	} else {
		lp_row_num(r, s->kern, 0);
		lp_row_num(r, s->kern / s->inst, 0);
	}
	lp_row_num(r, s->launches, 0);
	lp_row_num(r, s->launches / s->inst, 1);
	if (!known) {
		lp_row_na(r, "no kernel matched (see kernel_ns)");
		lp_row_text(r, "n/a");
	} else if (!(g->nlat[row] > 0)) {
		lp_row_na(r, s->launches > s->glaunches ? "none of the launch "
		    "calls has a kernel in cuda_gpu_trace" : s->glaunches > 0 ?
		    "every launch call is a graph launch (graph_lat_p50_ns)" :
		    "no launch call");
		lp_row_text(r, "n/a");
	} else {
		lp_row_num(r, g->p50[row], 1);
		lp_row_num(r, g->p90[row], 1);
	}
	/* CUDA graphs: their launches, their kernels, the share of the
	 * row's kernel time they ran */
	lp_row_num(r, s->glaunches, 0);
	if (!known) {
		lp_row_na(r, "no kernel matched (see kernel_ns)");
		lp_row_text(r, "n/a");
		lp_row_text(r, "n/a");
	} else {
		lp_row_num(r, s->gkernels, 0);
		lp_row_num(r, s->gkern, 0);
		if (s->kern > 0)
			lp_row_num(r, 100 * s->gkern / s->kern, 2);
		else
			lp_row_na(r, "no kernel");
	}
	if (!known)
		lp_row_na(r, "no kernel matched (see kernel_ns)");
	else if (g->nglat[row] > 0)
		lp_row_num(r, g->gp50[row], 1);
	else
		lp_row_na(r, s->glaunches > 0 ? "no graph launch has a kernel "
		    "in cuda_gpu_trace (graphs traced whole: see check_why)" :
		    "no graph launch");
	if (!known)
		lp_row_na(r, "the kernels' ends are not known (see kernel_ns)");
	else
		lp_row_num(r, s->blocked, 0);
	idle_cells(r, s, known, t->idle.devs);
}

/* A row's cells after the range; stops at the first it cannot compute
 * (the caller pads with n/a). */
static void
row_cells(struct lp_row *r, struct lp_sb *b, const struct st *t,
    const struct stage *g, int row, const struct paths *p)
{
	struct sums s;

	sum_instances(&s, g, row);
	if (!p->ppath) {
		lp_row_na(r, "the run has no nvtx_pushpop_trace "
		    "report (nsys stats --report nvtx_pushpop_trace)");
		return;
	}
	if (!g->n) {
		lp_row_na(r, "the range has no instance in the "
		    "trace (outside the capture, or never pushed)");
		return;
	}
	if (!s.inst) {
		lp_row_na(r, "one instance per process: no steady state");
		return;
	}
	lp_row_num(r, s.inst, 0);
	lp_row_num(r, s.wall, 0);
	if (!p->apath) {
		lp_row_na(r, "the run has no cuda_api_trace report "
		    "(nsys stats --report cuda_api_trace)");
		return;
	}
	if (!s.calls) {
		lp_row_na(r, "no CUDA API call of the range's "
		    "thread starts inside its instances");
		return;
	}
	api_cells(r, &s);
	kernel_cells(r, t, g, row, &s, p->gpath);
	calls_text(b, t, g, row, K_SYNC, K_MEMCPY);
	lp_row_text(r, lp_sb_str(b));
	calls_text(b, t, g, row, K_LOAD, K_LOAD);
	lp_row_text(r, lp_sb_str(b));
}

/* check's cells without the traces to tell whether the stage's kernels
 * are where lp looks for them: why not, and the capture's graphs. */
static void
check_na(struct lp_row *r, struct lp_sb *b, const struct st *t,
    const char *why)
{
	lp_row_na(r, "%s", why);
	if (t->cap_graphs > 0)
		lp_sb_printf(b, "%s; the capture made %.0f CUDA graph launches "
		    "(cuda_api_sum): whether nsys traced their kernels "
		    "(--cuda-graph-trace=node) is not known", why, t->cap_graphs);
	else
		lp_sb_adds(b, "-");
	lp_row_text(r, lp_sb_str(b));
}

/* Whether the stage's kernels are all where lp looks for them (the
 * stage's NVTX range, in nvtx_kern_sum and the traces), and why not:
 * "ok"; "graphs traced whole" (graph launches whose kernels nsys did not
 * trace one by one); "kernels in another process" (the range's process
 * launched nothing inside it while another did) or "partly in another
 * process"; "no launches".  n/a without the traces to tell. */
static void
check_cells(struct lp_row *r, struct lp_sb *b, const struct st *t,
    const struct stage *g, const struct paths *p)
{
	struct sums s;

	sum_instances(&s, g, 0);
	lp_sb_reset(b);
	if (!p->ppath || !p->apath || !g->n) {
		check_na(r, b, t, !p->ppath ? "the run has no nvtx_pushpop_trace "
		    "report" : !p->apath ? "the run has no cuda_api_trace report" :
		    "the range has no instance in the trace");
		return;
	}
	if (s.glaunches > 0 && p->gpath && t->pids < 2 && !s.gkernels) {
		lp_row_text(r, "graphs traced whole");
		lp_sb_printf(b, "%s made %.0f CUDA graph launches (cudaGraphLaunch "
		    "in %s) and nsys traced none of their kernels: it traced the "
		    "graphs whole (--cuda-graph-trace=graph, nsys's own default), "
		    "which leaves a graph's kernels in no NVTX range and no "
		    "kernel table, so the stage's kernel time, top kernels and "
		    "ncu selection would miss them. Profile again with "
		    "--cuda-graph-trace=node (lp's default: "
		    "SET=nsys_cli.cuda_graph_trace=node), or import exports of "
		    "a capture made with it", g->name, s.glaunches, p->aname);
	} else if (!s.launches && g->other > 0) {
		lp_row_text(r, "kernels in another process");
		lp_sb_printf(b, "process %s pushed %s's range (%s) and launched no "
		    "kernel inside it, while process %s made %.0f launch calls "
		    "during its instances (%s): the stage's kernels ran in "
		    "another process, outside the range. Push the stage's "
		    "ranges in the process that launches the kernels (the engine "
		    "core or worker), and profile it with its children (nsys "
		    "and ncu follow them by default)", g->in[0].pid, g->name,
		    g->range, g->other_pid, g->other, p->apath);
	} else if (g->other > 0) {
		lp_row_text(r, "partly in another process");
		lp_sb_printf(b, "process %s made %.0f launch calls during %s's "
		    "instances (%s) without pushing its range: those kernels are "
		    "not in the stage. Push the stage's ranges in every process "
		    "that launches its kernels", g->other_pid, g->other, g->name,
		    p->apath);
	} else if (!s.launches) {
		lp_row_text(r, "no launches");
		lp_sb_printf(b, "no launch call of the range's thread starts "
		    "inside %s's instances (%s), and no other process launched "
		    "during them", g->name, p->apath);
	} else {
		lp_row_text(r, "ok");
		lp_sb_adds(b, "-");
	}
	lp_row_text(r, lp_sb_str(b));
}

/* The processes (and threads) whose ranges are the stage's instances:
 * where its kernels were launched, a child process's where an engine
 * runs the model ("5037 (thread 5037)", at most four, then how many). */
static void
procs_cell(struct lp_row *r, struct lp_sb *b, const struct stage *g)
{
	size_t i, n = 0;

	lp_sb_reset(b);
	for (i = 0; i < g->n; i++) {
		if (i && !strcmp(g->in[i].pid, g->in[i - 1].pid) &&
		    !strcmp(g->in[i].tid, g->in[i - 1].tid))
			continue;	/* sorted by thread: one each */
		if (n++ < 4)
			lp_sb_printf(b, "%s%s (thread %s)", n > 1 ? ", " : "",
			    g->in[i].pid, g->in[i].tid);
	}
	if (n > 4)
		lp_sb_printf(b, " and %zu more", n - 4);
	if (!n)
		lp_row_na(r, "the range has no instance in the trace");
	else
		lp_row_text(r, lp_sb_str(b));
}

/* Two rows a stage: all its instances, and the steady ones. */
void
emit_rows(FILE *out, const struct st *t, const struct paths *p)
{
	struct lp_row r = { 0 };
	struct lp_sb b = { 0 };
	size_t i;
	int row;

	for (i = 0; i < t->ns; i++)
		for (row = 0; row < 2; row++) {
			const struct stage *g = &t->s[i];

			lp_sb_reset(&b);
			lp_sb_printf(&b, "%s%s", g->name, row ? ":steady" : "");
			lp_row_text(&r, lp_sb_str(&b));
			lp_row_text(&r, g->range);
			row_cells(&r, &b, t, g, row, p);
			while (r.n < NCOLS - 3)
				lp_row_text(&r, "n/a");
			procs_cell(&r, &b, g);
			check_cells(&r, &b, t, g, p);
			lp_row_end(&r, out);
		}
	lp_sb_free(&r.b);
	lp_sb_free(&b);
}
