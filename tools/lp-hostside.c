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
 * from the call's start to the end of the kernels of the thread's last
 * launch before it (to the copy's own start on the GPU for a copy).  A
 * stage without kernels says why (no_kernels_why): graphs traced whole, or
 * its kernels launched by another process than the one pushing its range.
 *
 * Three passes, one a file: the instances, the API calls, the GPU
 * operations.  Memory grows with the instances and with the stage's launch
 * and copy calls (their correlation IDs must be kept until the GPU trace
 * is read, and each launch's latency until the quantiles), not with the
 * rows of the traces.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"

static const char synopsis[] =
    "lp-hostside -c config.yaml [-a cuda_api_trace.csv] "
    "[-g cuda_gpu_trace.csv] [-s cuda_api_sum.csv] [nvtx_pushpop_trace.csv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

/* The kinds of CUDA API call, in the table's column order. */
enum { K_LAUNCH, K_SYNC, K_MEMCPY, K_LOAD, K_OTHER, K_N };

struct inst {
	char *pid, *tid;
	double start, end;
	long line;
	int first;		/* its process's first instance of the stage */
	double api[K_N];
	double calls, launches, kern_ns, kernels;
	double glaunches, gkern_ns, gkernels, blocked;
};

/* One call name's share of a row: calls, time, copies to the host. */
struct cstat {
	double n, ns, d2h;
};

struct stage {
	const char *name;
	char *range;
	struct inst *in;
	size_t n, cap;
	double *lat[2];		/* launch-to-start latencies: all, steady */
	size_t nlat[2], caplat[2];
	struct cstat *cs[2];	/* by call name id: all, steady */
	size_t ncs;
	double *glat[2];	/* graph launch to its first kernel */
	size_t nglat[2], capglat[2];
	double *bystart;	/* instances' starts, sorted, and the latest */
	double *maxend;		/* end up to each (any thread): who else ran */
	double other;		/* launch calls of other processes inside */
	char *other_pid;	/* the first of those processes */
};

/* A launch, copy or synchronisation call of some stage, until the GPU
 * trace is read. */
struct rec {
	uint64_t corr;
	double t, dur, kmin;	/* call start and duration; earliest kernel */
	double kend;		/* the latest end of its kernels */
	int kind, name, graph;
	long line;
	size_t memb;		/* first membership, or (size_t)-1 */
	size_t prev;		/* sync, copy: the thread's launch before it
				 * (index + 1, 0: none) */
};

struct memb {
	size_t stage, inst, next;
};

struct st {
	struct stage *s;
	size_t ns;
	struct lp_map *names;	/* call name -> id */
	struct rec *r;
	size_t nr, capr;
	struct memb *m;
	size_t nm, capm;
	size_t *h;		/* open addressing: rec index + 1, 0 empty */
	size_t caph;
	struct lp_map *ppids;	/* the processes of the stages' instances */
	double pidcalls;	/* API calls of one of those processes */
	char *pid1;		/* the first process with GPU work (launches,
				 * copies) in the API trace */
	long pids;		/* such processes: 1, or 2 for several */
	double gpu_rows, matched;
	double nlaunch, unmatched;	/* the stages' launch calls; without a kernel */
	struct lp_map *lastl;	/* "pid\037tid" -> its last launch rec + 1 */
	double cap_graphs;	/* cudaGraphLaunch calls of the capture
				 * (cuda_api_sum), -1: not known */
};

static int
prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* The kind of a call, by its name without nsys's version suffix
 * ("cudaStreamIsCapturing_v10000"); lp-hostside(1) lists them. */
static int
kind_of(const char *name)
{
	static const char *const copy[] = { "cudaMemcpy", "cuMemcpy",
		"cudaMemset", "cuMemset", NULL };
	static const char *const load[] = { "cuModuleLoad", "cuLibraryLoad",
		"cudaLibraryLoad", "cuLinkCreate", "cuLinkAdd", "cuLinkComplete",
		"cuModuleGetFunction", "cuLibraryGetKernel", "cuLibraryGetModule",
		"cuKernelGetFunction", NULL };
	size_t i;

	if (lp_capi_launch(name))
		return K_LAUNCH;
	if (strstr(name, "Synchronize"))
		return K_SYNC;
	for (i = 0; copy[i]; i++)
		if (prefix(name, copy[i]))
			return K_MEMCPY;
	for (i = 0; load[i]; i++)
		if (prefix(name, load[i]))
			return K_LOAD;
	return K_OTHER;
}

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
		if (g->n == g->cap) {
			g->cap = g->cap ? 2 * g->cap : 16;
			g->in = lp_xreallocarray(g->in, g->cap, sizeof *g->in);
		}
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

/* Does time t fall inside an instance of g (any process and thread)? */
static int
inside_any(const struct stage *g, double t)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->bystart[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && g->maxend[lo - 1] > t;
}

/* The instance of g on thread (pid, tid) holding time t, or NULL. */
static struct inst *
find(struct stage *g, const char *pid, const char *tid, double t)
{
	size_t lo = 0, hi = g->n;
	struct inst *x;

	/* the last instance at or before (pid, tid, t) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct inst *m = &g->in[mid];
		int c = strcmp(m->pid, pid);

		if (!c)
			c = strcmp(m->tid, tid);
		if (c < 0 || (!c && m->start <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	x = &g->in[lo - 1];
	if (strcmp(x->pid, pid) || strcmp(x->tid, tid) || t >= x->end)
		return NULL;
	return x;
}

static size_t
hslot(const struct st *t, uint64_t corr)
{
	uint64_t h = corr * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 17) & (t->caph - 1);
}

static struct rec *
lookup(const struct st *t, uint64_t corr)
{
	size_t i;

	if (!t->caph)
		return NULL;
	for (i = hslot(t, corr); t->h[i]; i = (i + 1) & (t->caph - 1))
		if (t->r[t->h[i] - 1].corr == corr)
			return &t->r[t->h[i] - 1];
	return NULL;
}

static void
rehash(struct st *t)
{
	size_t i, j;

	t->caph = t->caph ? 2 * t->caph : 1024;
	free(t->h);
	t->h = lp_xcalloc(t->caph, sizeof *t->h);
	for (i = 0; i < t->nr; i++) {
		for (j = hslot(t, t->r[i].corr); t->h[j]; j = (j + 1) &
		    (t->caph - 1))
			;
		t->h[j] = i + 1;
	}
}

static uint64_t
corr_of(const struct lp_rep_row *rr, size_t a, size_t b)
{
	size_t i = rr->col[a] >= 0 ? a : b;

	if (rr->col[i] < 0)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, 0, "no column "
		    "\"CorrID\" or \"CorrId\": the correlation ID is what "
		    "ties a launch call to its kernel");
	return (uint64_t)lp_rep_count(rr, i);
}

static struct cstat *
cstat(struct stage *g, int row, size_t id)
{
	if (id >= g->ncs) {
		size_t n = id + 16, k;

		for (k = 0; k < 2; k++) {
			g->cs[k] = lp_xreallocarray(g->cs[k], n, sizeof *g->cs[k]);
			memset(g->cs[k] + g->ncs, 0, (n - g->ncs) * sizeof *g->cs[k]);
		}
		g->ncs = n;
	}
	return &g->cs[row][id];
}

/* The id of a call name, numbered in order of first sight. */
static long
name_id(struct st *t, const char *name)
{
	long id = lp_map_get(t->names, name, -1);

	if (id < 0) {
		id = (long)lp_map_len(t->names);
		lp_map_put(t->names, name, id);
	}
	return id;
}

/* A launch or copy call kept by its correlation ID until the GPU trace is
 * read; an ID seen twice is refused. */
static struct rec *
keep_call(struct st *t, const struct lp_rep_row *rr, int kind, long id,
    double start, double dur)
{
	uint64_t corr = corr_of(rr, 3, 6);
	struct rec *rc;

	if (lookup(t, corr))
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, 0,
		    "correlation ID %llu is another call's too: "
		    "calls of several processes or captures in "
		    "one trace?", (unsigned long long)corr);
	if (t->nr == t->capr) {
		t->capr = t->capr ? 2 * t->capr : 1024;
		t->r = lp_xreallocarray(t->r, t->capr, sizeof *t->r);
	}
	rc = &t->r[t->nr++];
	rc->corr = corr;
	rc->t = start;
	rc->dur = dur;
	rc->kmin = NAN;
	rc->kend = NAN;
	rc->kind = kind;
	rc->graph = kind == K_LAUNCH && lp_capi_graph_launch(rr->v[2]);
	rc->name = (int)id;
	rc->line = rr->line;
	rc->memb = (size_t)-1;
	rc->prev = 0;
	if (2 * t->nr > t->caph)
		rehash(t);
	else {
		size_t j;

		for (j = hslot(t, corr); t->h[j]; j = (j + 1) & (t->caph - 1))
			;
		t->h[j] = t->nr;
	}
	return rc;
}

/* rc's call starts inside instance inst of stage: the GPU trace's kernels
 * and copies of rc count there. */
static void
add_member(struct st *t, struct rec *rc, size_t stage, size_t inst)
{
	struct memb *m;

	if (t->nm == t->capm) {
		t->capm = t->capm ? 2 * t->capm : 1024;
		t->m = lp_xreallocarray(t->m, t->capm, sizeof *t->m);
	}
	m = &t->m[t->nm];
	m->stage = stage;
	m->inst = inst;
	m->next = rc->memb;
	rc->memb = t->nm++;
}

static void
api_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *name = rr->v[2], *pid = lp_rep_pid(rr, 4);
	const char *tid = lp_rep_pid(rr, 5);
	double start = lp_rep_time(rr, 0), dur = lp_rep_time(rr, 1);
	int kind = kind_of(name), mine = 0;
	struct rec *rc = NULL;
	struct lp_sb key = { 0 };
	long id = -1;
	size_t i;

	/* the processes whose calls put work on the GPU: only theirs can
	 * share a correlation ID with a row of cuda_gpu_trace (a compile
	 * worker's few cuInit-like calls cannot) */
	if (kind == K_LAUNCH || kind == K_MEMCPY) {
		if (!t->pid1) {
			t->pid1 = lp_xstrdup(pid);
			t->pids = 1;
		} else if (strcmp(t->pid1, pid))
			t->pids = 2;
	}
	mine = lp_map_get(t->ppids, pid, -1) >= 0;
	t->pidcalls += mine;
	for (i = 0; i < t->ns; i++) {
		struct stage *g = &t->s[i];
		struct inst *x = find(g, pid, tid, start);
		int row;

		/* a process that pushed none of the stage's instances
		 * launching while one is open: the stage's kernels may be
		 * its (an engine core beside a front end that annotates) */
		if (!x && kind == K_LAUNCH && !mine && inside_any(g, start)) {
			if (!g->other_pid)
				g->other_pid = lp_xstrdup(pid);
			g->other++;
		}
		if (!x)
			continue;
		/* the thread pops its range after the call returns: a call
		 * that ends after the range is another capture's, or cut */
		if (start + dur > x->end)
			lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[1] + 1,
			    "%s ends %.0f ns after the instance of %s it starts in "
			    "(nvtx_pushpop_trace line %ld) on its thread: not the "
			    "traces of one capture", name, start + dur - x->end,
			    g->range, x->line);
		x->api[kind] += dur;
		x->calls++;
		x->launches += kind == K_LAUNCH;
		x->glaunches += kind == K_LAUNCH && lp_capi_graph_launch(name);
		if (id < 0)
			id = name_id(t, name);
		for (row = 0; row < 2 - x->first; row++) {
			struct cstat *c = cstat(g, row, (size_t)id);

			c->n++;
			c->ns += dur;
		}
		if (kind != K_LAUNCH && kind != K_MEMCPY && kind != K_SYNC)
			continue;
		if (!rc)
			rc = keep_call(t, rr, kind, id, start, dur);
		add_member(t, rc, i, (size_t)(x - g->in));
	}
	if (!rc)
		return;
	/* the thread's last launch: what a later sync or copy waits for */
	lp_sb_printf(&key, "%s\037%s", pid, tid);
	if (kind == K_LAUNCH)
		lp_map_put(t->lastl, lp_sb_str(&key), (long)(rc - t->r) + 1);
	else
		rc->prev = (size_t)lp_map_get(t->lastl, lp_sb_str(&key), 0);
	lp_sb_free(&key);
}

static void
gpu_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *name = rr->v[3];
	struct rec *rc;
	double start, dur;
	size_t j;

	t->gpu_rows++;
	if (!(rc = lookup(t, corr_of(rr, 2, 4))))
		return;
	start = lp_rep_time(rr, 0);
	dur = lp_rep_time(rr, 1);
	if (!strncmp(name, "[CUDA ", 6)) {	/* a copy or set */
		if (rc->kind != K_MEMCPY)
			return;
		if (isnan(rc->kmin) || start < rc->kmin)
			rc->kmin = start;
		if (!strstr(name, "Device-to-Host"))
			return;
		for (j = rc->memb; j != (size_t)-1; j = t->m[j].next) {
			struct stage *g = &t->s[t->m[j].stage];
			int row;

			for (row = 0; row < 2 - g->in[t->m[j].inst].first; row++)
				cstat(g, row, (size_t)rc->name)->d2h++;
		}
		return;
	}
	if (rc->kind != K_LAUNCH)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1,
		    "a kernel whose correlation ID is that of a %s call "
		    "(cuda_api_trace line %ld): not the API trace of this "
		    "capture", rc->kind == K_SYNC ? "synchronisation" : "copy",
		    rc->line);
	if (start < rc->t)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[0] + 1,
		    "the kernel starts %.0f ns before its launch call "
		    "(cuda_api_trace line %ld, same correlation ID): not the "
		    "API trace of this capture", rc->t - start, rc->line);
	t->matched++;
	if (isnan(rc->kmin) || start < rc->kmin)
		rc->kmin = start;
	if (isnan(rc->kend) || start + dur > rc->kend)
		rc->kend = start + dur;
	for (j = rc->memb; j != (size_t)-1; j = t->m[j].next) {
		struct inst *x = &t->s[t->m[j].stage].in[t->m[j].inst];

		x->kern_ns += dur;
		x->kernels++;
		if (rc->graph) {
			x->gkern_ns += dur;
			x->gkernels++;
		}
	}
}

static void
lat_push(double **v, size_t *n, size_t *cap, double x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*v = lp_xreallocarray(*v, *cap, sizeof **v);
	}
	(*v)[(*n)++] = x;
}

/* How long a synchronisation or copy call waited for the GPU's earlier
 * work, within the call: a synchronisation until the kernels of the
 * thread's last launch before it ended; a copy or set until it started on
 * the GPU itself, when that was before the call returned (one that
 * returned first was asynchronous: it did not wait). */
static double
blocked_of(const struct st *t, const struct rec *rc)
{
	double until = NAN, end = rc->t + rc->dur;

	if (rc->kind == K_MEMCPY) {
		if (!isnan(rc->kmin) && rc->kmin < end)
			until = rc->kmin;
	} else if (rc->prev)
		until = t->r[rc->prev - 1].kend;
	if (isnan(until) || until <= rc->t)
		return 0;
	return until < end ? until - rc->t : rc->dur;
}

/* Each launch's latency to its first kernel (a direct launch's and a
 * graph's apart), and each wait's time blocked on the GPU, to the rows
 * of its stages. */
static void
latencies(struct st *t)
{
	size_t i, j;

	for (i = 0; i < t->nr; i++) {
		struct rec *rc = &t->r[i];

		if (rc->kind != K_LAUNCH) {
			double b = blocked_of(t, rc);

			for (j = rc->memb; b > 0 && j != (size_t)-1; j = t->m[j].next)
				t->s[t->m[j].stage].in[t->m[j].inst].blocked += b;
			continue;
		}
		t->nlaunch++;
		t->unmatched += isnan(rc->kmin);
		if (isnan(rc->kmin))
			continue;
		for (j = rc->memb; j != (size_t)-1; j = t->m[j].next) {
			struct stage *g = &t->s[t->m[j].stage];
			int row, nrow = 2 - g->in[t->m[j].inst].first;

			for (row = 0; row < nrow; row++)
				if (rc->graph)
					lat_push(&g->glat[row], &g->nglat[row],
					    &g->capglat[row], rc->kmin - rc->t);
				else
					lat_push(&g->lat[row], &g->nlat[row],
					    &g->caplat[row], rc->kmin - rc->t);
		}
	}
}

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
	{ "sync_calls", "Synchronisations and copies", "text" },
	{ "load_calls", "Module loading calls", "text" },
	{ "process", "Process", "text" },
	{ "stage_check", "Kernels of the stage", "hide" },
	{ "check_why", "Why", "hide" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* The input files; NULL for a trace the run lacks. */
struct paths {
	const char *cpath, *apath, *gpath, *ppath, *spath;
};

/* The stages and their NVTX ranges (config.yaml); names borrow from cfg. */
static void
load_stages(struct st *t, const struct lp_ynode *cfg, const char *cpath)
{
	const char **names;
	char **ranges;
	size_t i;

	t->ns = lp_stage_ranges(cfg, cpath, &names, &ranges);
	t->s = lp_xcalloc(t->ns, sizeof *t->s);
	for (i = 0; i < t->ns; i++) {
		t->s[i].name = names[i];
		t->s[i].range = ranges[i];
	}
	free(names);
	free(ranges);
}

/* The three passes: the instances, the API calls inside them, their
 * kernels and copies. */
static void
load_traces(struct st *t, const struct paths *p)
{
	static const char *const pp_cols[] = { "Start", "End", "Name", "PID",
		"TID" };
	static const char *const api_cols[] = { "Start", "Duration", "Name",
		"?CorrID", "Pid", "Tid", "?CorrId" };
	static const char *const gpu_cols[] = { "Start", "Duration", "?CorrId",
		"Name", "?CorrID" };
	size_t i;

	if (p->ppath) {
		lp_rep_file(p->ppath, "nsys stats --report nvtx_pushpop_trace",
		    pp_cols, 5, pushpop_row, t);
		for (i = 0; i < t->ns; i++)
			order(&t->s[i], p->ppath);
	}
	if (!p->ppath || !p->apath)
		return;
	lp_rep_file(p->apath, "nsys stats --report cuda_api_trace", api_cols,
	    7, api_row, t);
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
			    "that capture", p->apath, lp_map_key(t->ppids, 0),
			    p->ppath);
	}
	/* several processes: the GPU trace has no process column, so
	 * a correlation ID could name another process's kernel */
	if (p->gpath && t->pids < 2) {
		lp_rep_file(p->gpath, "nsys stats --report cuda_gpu_trace",
		    gpu_cols, 5, gpu_row, t);
		latencies(t);
	}
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
emit_meta(const struct st *t, const struct paths *p)
{
	lp_tab_meta(out, "title", "Host Side of Each Stage");
	lp_tab_meta(out, "tool", "lp-hostside");
	lp_tab_meta(out, "source", "each instance of the stage's NVTX range "
	    "with its thread from nsys nvtx_pushpop_trace (%s); the CUDA API "
	    "calls of that thread starting inside it from nsys cuda_api_trace "
	    "(%s); their kernels by correlation ID from nsys cuda_gpu_trace "
	    "(%s)", p->ppath ? p->ppath : "missing", p->apath ? p->apath :
	    "missing", p->gpath ? p->gpath : "missing");
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

/* The cells of the kernels, launches and launch latencies; n/a where the
 * GPU trace is missing or cannot be tied to the calls. */
static void
kernel_cells(struct lp_row *r, const struct st *t, const struct stage *g,
    int row, const struct sums *s, const char *gpath)
{
	int known = gpath && t->pids < 2;

	if (!known) {
		if (!gpath)
			lp_row_na(r, "the run has no cuda_gpu_trace "
			    "report (nsys stats --report cuda_gpu_trace)");
		else
			lp_row_na(r, "the API trace holds several "
			    "processes and cuda_gpu_trace has no "
			    "process column: a correlation ID could "
			    "name another process's kernel");
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
	} else if (!g->nlat[row]) {
		lp_row_na(r, s->launches > s->glaunches ? "none of the launch "
		    "calls has a kernel in cuda_gpu_trace" : s->glaunches > 0 ?
		    "every launch call is a graph launch (graph_lat_p50_ns)" :
		    "no launch call");
		lp_row_text(r, "n/a");
	} else {
		lp_row_num(r, lp_quantile(g->lat[row], g->nlat[row], 0.5), 1);
		lp_row_num(r, lp_quantile(g->lat[row], g->nlat[row], 0.9), 1);
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
	else if (g->nglat[row])
		lp_row_num(r, lp_quantile(g->glat[row], g->nglat[row], 0.5), 1);
	else
		lp_row_na(r, s->glaunches > 0 ? "no graph launch has a kernel "
		    "in cuda_gpu_trace (graphs traced whole: see check_why)" :
		    "no graph launch");
	if (!known)
		lp_row_na(r, "the kernels' ends are not known (see kernel_ns)");
	else
		lp_row_num(r, s->blocked, 0);
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
		const char *why = !p->ppath ? "the run has no nvtx_pushpop_trace "
		    "report" : !p->apath ? "the run has no cuda_api_trace report" :
		    "the range has no instance in the trace";

		lp_row_na(r, "%s", why);
		if (t->cap_graphs > 0)
			lp_sb_printf(b, "%s; the capture made %.0f CUDA graph "
			    "launches (cuda_api_sum): whether nsys traced their "
			    "kernels (--cuda-graph-trace=node) is not known", why,
			    t->cap_graphs);
		else
			lp_sb_adds(b, "-");
		lp_row_text(r, lp_sb_str(b));
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
		    "a capture made with it", g->name, s.glaunches, p->apath);
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
static void
emit_rows(const struct st *t, const struct paths *p)
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
			free(t->s[i].lat[k]);
			free(t->s[i].glat[k]);
			free(t->s[i].cs[k]);
		}
		free(t->s[i].bystart);
		free(t->s[i].maxend);
		free(t->s[i].other_pid);
	}
	free(t->s);
	free(t->r);
	free(t->m);
	free(t->h);
	free(t->pid1);
	lp_map_free(t->names);
	lp_map_free(t->ppids);
	lp_map_free(t->lastl);
}

int
main(int argc, char **argv)
{
	struct paths p = { 0 };
	struct lp_ynode *cfg;
	struct st t;
	int c;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "a:c:g:hs:")) != -1) {
		switch (c) {
		case 'a': p.apath = optarg; break;
		case 'c': p.cpath = optarg; break;
		case 'g': p.gpath = optarg; break;
		case 's': p.spath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		default: lp_usage(synopsis);
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
	t.lastl = lp_map_new();
	t.cap_graphs = -1;
	cfg = lp_yaml_load_path(p.cpath);
	load_stages(&t, cfg, p.cpath);
	if (p.spath)
		load_api_sum(&t, p.spath);
	load_traces(&t, &p);

	emit_meta(&t, &p);
	emit_rows(&t, &p);
	free_state(&t);
	lp_yaml_free(cfg);
	lp_tab_done(out);
	return 0;
}
