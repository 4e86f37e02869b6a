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
 * Two passes: the instances (nvtx_pushpop_trace), then the API calls and
 * the GPU operations swept together in time order (both sorted by start,
 * as nsys writes them; checked).  A kernel starts after its launch call,
 * so a stage's launch, copy or synchronisation call is held only until
 * its GPU work has started (a graph launch until a later launch's kernel
 * starts on its stream; any call at most AGE calls later).  Memory grows
 * with the instances, the calls in flight and the distinct latencies (for
 * exact quantiles), not with the rows of the traces.
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
	/* launch-to-start latencies of the launches in each process's
	 * first instance [0] and in the others [1]; graph launches to their
	 * first kernel apart */
	struct lp_vals lat[2], glat[2];
	/* per row (all, steady): latencies, their p50, p90; graph's p50 */
	double nlat[2], p50[2], p90[2], nglat[2], gp50[2];
	struct cstat *cs[2];	/* by call name id: all, steady */
	size_t ncs;
	double *bystart;	/* instances' starts, sorted, and the latest */
	double *maxend;		/* end up to each (any thread): who else ran */
	double other;		/* launch calls of other processes inside */
	char *other_pid;	/* the first of those processes */
};

/* Calls held at most this many launch, copy and synchronisation calls
 * (any thread's) after their own: more than any GPU queues.  A call whose
 * GPU work has not started by then has none (a failed launch, a host
 * function, a record nsys dropped). */
enum { AGE = 1 << 16 };

/* A launch, copy or synchronisation call of some stage, while its GPU work
 * may still start. */
struct rec {
	uint64_t corr;
	double t, dur, kmin;	/* call start and duration; earliest kernel */
	double kend;		/* the latest end of its kernels */
	double seq;		/* launch, copy and sync calls before it */
	double strm;		/* a graph launch's kernels' stream, or NAN */
	int kind, name, graph, live;
	long line;
	size_t thr;		/* its thread (struct thr) */
	size_t waits;		/* a launch: the first sync waiting for its
				 * kernels' end; a sync: the next (slot + 1) */
};

/* A thread's last launch of some stage: what a later sync waits for. */
struct thr {
	size_t last;		/* the launch's slot + 1 while held, else 0 */
	double kend;		/* its kernels' end once let go, NAN: none */
};

struct st {
	struct stage *s;
	size_t ns;
	struct lp_map *names;	/* call name -> id */
	/* the calls held: slots, each with its instance in each stage (-1
	 * none) in inst[slot * ns ...]; a free list; by CorrID */
	struct rec *r;
	long *inst;
	size_t nr, capr, *freel, nfree;
	size_t *h;		/* open addressing: slot + 1, 0 empty */
	size_t caph, nh;
	size_t *q;		/* age queue (ring): slot + 1, oldest first */
	double *qseq;		/* the seq of the call queued there */
	size_t q0, qn, capq;
	struct gseen {		/* graph launches whose kernels started */
		size_t x;
		double seq;
	} *gseen;
	size_t ngseen, capgseen;
	double seq;		/* launch, copy and sync calls so far */
	int track;		/* calls are held: a GPU trace and one process */
	struct lp_map *ppids;	/* the processes of the stages' instances */
	double pidcalls;	/* API calls of one of those processes */
	char *pid1;		/* the first process with GPU work (launches,
				 * copies) in the API trace */
	long pids;		/* such processes: 1, or 2 for several */
	double nlaunch, unmatched;	/* the stages' launch calls; without a kernel */
	struct lp_map *thrs;	/* "pid\037tid" -> struct thr index */
	struct thr *th;
	size_t nth;
	/* the first reason the GPU trace is not of the API trace's capture,
	 * said once the API trace is read (several processes make it moot) */
	struct lp_sb err;
	const char *err_file;
	long err_line;
	int err_col, have_err;
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

/* The held call of corr: its slot + 1, or 0. */
static size_t
lookup(const struct st *t, uint64_t corr)
{
	size_t i;

	if (!t->caph)
		return 0;
	for (i = hslot(t, corr); t->h[i]; i = (i + 1) & (t->caph - 1))
		if (t->r[t->h[i] - 1].corr == corr)
			return t->h[i];
	return 0;
}

static void
rehash(struct st *t)
{
	size_t i, j, old = t->caph, *h = t->h;

	t->caph = t->caph ? 2 * t->caph : 1024;
	t->h = lp_xcalloc(t->caph, sizeof *t->h);
	for (i = 0; i < old; i++) {
		if (!h[i])
			continue;
		for (j = hslot(t, t->r[h[i] - 1].corr); t->h[j]; j = (j + 1) &
		    (t->caph - 1))
			;
		t->h[j] = h[i];
	}
	free(h);
}

/* Takes slot + 1 = x out of the table (backward-shift deletion). */
static void
unhash(struct st *t, size_t x)
{
	size_t i, j, k;

	for (i = hslot(t, t->r[x - 1].corr); t->h[i] != x; i = (i + 1) &
	    (t->caph - 1))
		;
	t->nh--;
	for (j = i;;) {
		t->h[i] = 0;
		do {
			j = (j + 1) & (t->caph - 1);
			if (!t->h[j])
				return;
			k = hslot(t, t->r[t->h[j] - 1].corr);
		} while (i <= j ? (i < k && k <= j) : (i < k || k <= j));
		t->h[i] = t->h[j];
		i = j;
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

/* The thread (pid, tid)'s entry. */
static size_t
thread_of(struct st *t, const char *pid, const char *tid)
{
	struct lp_sb key = { 0 };
	long i;

	lp_sb_printf(&key, "%s\037%s", pid, tid);
	if ((i = lp_map_get(t->thrs, lp_sb_str(&key), -1)) < 0) {
		t->th = lp_xreallocarray(t->th, t->nth + 1, sizeof *t->th);
		t->th[t->nth].last = 0;
		t->th[t->nth].kend = NAN;
		lp_map_put(t->thrs, lp_sb_str(&key), i = (long)t->nth++);
	}
	lp_sb_free(&key);
	return (size_t)i;
}

/* A reason the GPU trace is not of this capture, kept (the first) to be
 * said once the API trace is read. */
static void
not_this_capture(struct st *t, const struct lp_rep_row *rr, int col,
    const char *fmt, ...)
{
	va_list ap;

	if (t->have_err)
		return;
	t->have_err = 1;
	t->err_file = rr->file;
	t->err_line = rr->line;
	t->err_col = col;
	va_start(ap, fmt);
	lp_sb_vprintf(&t->err, fmt, ap);
	va_end(ap);
}

/* A stage call held by its correlation ID while its GPU work may start;
 * an ID held twice is refused.  Returns its slot. */
static size_t
keep_call(struct st *t, const struct lp_rep_row *rr, int kind, long id,
    double start, double dur, size_t thr)
{
	uint64_t corr = corr_of(rr, 3, 6);
	struct rec *rc;
	size_t x, j;

	if ((x = lookup(t, corr)))
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, 0,
		    "correlation ID %llu is another call's too (line %ld): "
		    "calls of several processes or captures in one trace?",
		    (unsigned long long)corr, t->r[x - 1].line);
	if (t->nfree)
		x = t->freel[--t->nfree];
	else {
		if (t->nr == t->capr) {
			t->capr = t->capr ? 2 * t->capr : 1024;
			t->r = lp_xreallocarray(t->r, t->capr, sizeof *t->r);
			t->inst = lp_xreallocarray(t->inst, t->capr * t->ns,
			    sizeof *t->inst);
			t->freel = lp_xreallocarray(t->freel, t->capr,
			    sizeof *t->freel);
		}
		x = t->nr++;
	}
	rc = &t->r[x];
	rc->corr = corr;
	rc->t = start;
	rc->dur = dur;
	rc->kmin = NAN;
	rc->kend = NAN;
	rc->seq = t->seq;
	rc->strm = NAN;
	rc->kind = kind;
	rc->graph = kind == K_LAUNCH && lp_capi_graph_launch(rr->v[2]);
	rc->name = (int)id;
	rc->line = rr->line;
	rc->live = 1;
	rc->thr = thr;
	rc->waits = 0;
	for (j = 0; j < t->ns; j++)
		t->inst[x * t->ns + j] = -1;
	if (2 * (t->nh + 1) > t->caph)
		rehash(t);
	for (j = hslot(t, corr); t->h[j]; j = (j + 1) & (t->caph - 1))
		;
	t->h[j] = x + 1;
	t->nh++;
	/* the age queue: launches and copies, in call order */
	if (kind != K_SYNC) {
		if (t->qn == t->capq) {
			size_t n = t->capq ? 2 * t->capq : 1024, k;
			size_t *q = lp_xcalloc(n, sizeof *q);
			double *qs = lp_xcalloc(n, sizeof *qs);

			for (k = 0; k < t->qn; k++) {
				q[k] = t->q[(t->q0 + k) % t->capq];
				qs[k] = t->qseq[(t->q0 + k) % t->capq];
			}
			free(t->q);
			free(t->qseq);
			t->q = q;
			t->qseq = qs;
			t->q0 = 0;
			t->capq = n;
		}
		t->q[(t->q0 + t->qn) % t->capq] = x + 1;
		t->qseq[(t->q0 + t->qn) % t->capq] = rc->seq;
		t->qn++;
	}
	return x;
}

/* The stages' instances call x is in: the row(s) of each (all, and
 * steady unless it is its process's first). */
#define EACH_INST(t, x, i, g, in)					\
	for ((i) = 0; (i) < (t)->ns; (i)++)				\
		if (((in) = (t)->inst[(x) * (t)->ns + (i)]) >= 0 &&	\
		    ((g) = &(t)->s[(i)]))

static void
free_slot(struct st *t, size_t x)
{
	unhash(t, x + 1);
	t->r[x].live = 0;
	t->freel[t->nfree++] = x;
}

/* How long a synchronisation or copy call waited for the GPU's earlier
 * work, within the call: a synchronisation until the kernels of the
 * thread's last launch before it ended (until); a copy or set until it
 * started on the GPU itself, when that was before the call returned (one
 * that returned first was asynchronous: it did not wait). */
static double
blocked_of(const struct rec *rc, double until)
{
	double end = rc->t + rc->dur;

	if (rc->kind == K_MEMCPY)
		until = !isnan(rc->kmin) && rc->kmin < end ? rc->kmin : NAN;
	if (isnan(until) || until <= rc->t)
		return 0;
	return until < end ? until - rc->t : rc->dur;
}

/* A sync or copy call done: its time blocked to its instances. */
static void
wait_done(struct st *t, size_t x, double until)
{
	double b = blocked_of(&t->r[x], until);
	struct stage *g;
	size_t i;
	long in;

	EACH_INST(t, x, i, g, in)
		g->in[in].blocked += b;
	free_slot(t, x);
}

/* A launch let go: no more kernels of it will be counted.  The syncs
 * waiting for it are done; its thread remembers its kernels' end. */
static void
launch_done(struct st *t, size_t x)
{
	struct rec *rc = &t->r[x];
	size_t w, next;

	t->nlaunch++;
	t->unmatched += isnan(rc->kmin);
	for (w = rc->waits; w; w = next) {
		next = t->r[w - 1].waits;
		wait_done(t, w - 1, rc->kend);
	}
	if (t->th[rc->thr].last == x + 1) {
		t->th[rc->thr].last = 0;
		t->th[rc->thr].kend = rc->kend;
	}
	free_slot(t, x);
}

/* A held launch or copy let go, its GPU work over or never to come. */
static void
let_go(struct st *t, size_t x)
{
	if (t->r[x].kind == K_LAUNCH)
		launch_done(t, x);
	else
		wait_done(t, x, NAN);
}

/* Calls held since more than AGE calls ago are let go (the queue holds
 * calls let go already too: they are skipped). */
static void
age_out(struct st *t)
{
	while (t->qn) {
		size_t x = t->q[t->q0];
		double sq = t->qseq[t->q0];

		if (t->r[x - 1].live && t->r[x - 1].seq == sq) {
			if (sq + AGE > t->seq)
				return;
			let_go(t, x - 1);
		}
		t->q0 = (t->q0 + 1) % t->capq;
		t->qn--;
	}
}

static void
api_row(struct st *t, const struct lp_rep_row *rr)
{
	const char *name = rr->v[2], *pid = lp_rep_pid(rr, 4);
	const char *tid = lp_rep_pid(rr, 5);
	double start = lp_rep_time(rr, 0), dur = lp_rep_time(rr, 1);
	int kind = kind_of(name), mine = 0, held = 0;
	size_t x = 0, i, th;
	long id = -1;

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
	if (kind == K_LAUNCH || kind == K_MEMCPY || kind == K_SYNC)
		t->seq++;
	for (i = 0; i < t->ns; i++) {
		struct stage *g = &t->s[i];
		struct inst *in = find(g, pid, tid, start);
		int row;

		/* a process that pushed none of the stage's instances
		 * launching while one is open: the stage's kernels may be
		 * its (an engine core beside a front end that annotates) */
		if (!in && kind == K_LAUNCH && !mine && inside_any(g, start)) {
			if (!g->other_pid)
				g->other_pid = lp_xstrdup(pid);
			g->other++;
		}
		if (!in)
			continue;
		/* the thread pops its range after the call returns: a call
		 * that ends after the range is another capture's, or cut */
		if (start + dur > in->end)
			lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[1] + 1,
			    "%s ends %.0f ns after the instance of %s it starts in "
			    "(nvtx_pushpop_trace line %ld) on its thread: not the "
			    "traces of one capture", name, start + dur - in->end,
			    g->range, in->line);
		in->api[kind] += dur;
		in->calls++;
		in->launches += kind == K_LAUNCH;
		in->glaunches += kind == K_LAUNCH && lp_capi_graph_launch(name);
		if (id < 0)
			id = name_id(t, name);
		for (row = 0; row < 2 - in->first; row++) {
			struct cstat *c = cstat(g, row, (size_t)id);

			c->n++;
			c->ns += dur;
		}
		if (!t->track || (kind != K_LAUNCH && kind != K_MEMCPY &&
		    kind != K_SYNC))
			continue;
		if (!held) {
			th = thread_of(t, pid, tid);
			x = keep_call(t, rr, kind, id, start, dur, th);
			held = 1;
		}
		t->inst[x * t->ns + i] = in - g->in;
	}
	if (t->track)
		age_out(t);
	if (!held || !t->r[x].live)
		return;
	/* the thread's last launch: what a later sync waits for */
	th = t->r[x].thr;
	if (kind == K_LAUNCH) {
		t->th[th].last = x + 1;
		t->th[th].kend = NAN;
	} else if (kind == K_SYNC) {
		size_t l = t->th[th].last;

		if (!l)		/* its kernels' end known, or no launch */
			wait_done(t, x, t->th[th].kend);
		else {
			t->r[x].waits = t->r[l - 1].waits;
			t->r[l - 1].waits = x + 1;
		}
	}
}

/* Graph launches whose kernels started are let go when a later launch's
 * kernel starts on their stream: a stream runs a graph launch whole
 * before what follows it. */
static void
graphs_done(struct st *t, double seq, double strm)
{
	size_t i, j;

	for (i = j = 0; i < t->ngseen; i++) {
		size_t x = t->gseen[i].x;

		if (!t->r[x].live || t->r[x].seq != t->gseen[i].seq)
			continue;	/* let go already (aged out) */
		if (t->r[x].seq < seq && (t->r[x].strm == strm ||
		    (isnan(strm) && isnan(t->r[x].strm))))
			launch_done(t, x);
		else
			t->gseen[j++] = t->gseen[i];
	}
	t->ngseen = j;
}

static void
gpu_row(struct st *t, const struct lp_rep_row *rr, double start)
{
	const char *name = rr->v[3];
	struct rec *rc;
	struct stage *g;
	double dur, strm;
	size_t x, i;
	long in;
	int row;

	if (!(x = lookup(t, corr_of(rr, 2, 4))))
		return;
	x--;
	rc = &t->r[x];
	dur = lp_rep_time(rr, 1);
	if (!strncmp(name, "[CUDA ", 6)) {	/* a copy or set */
		if (rc->kind != K_MEMCPY)
			return;
		rc->kmin = start;
		if (strstr(name, "Device-to-Host"))
			EACH_INST(t, x, i, g, in)
				for (row = 0; row < 2 - g->in[in].first; row++)
					cstat(g, row, (size_t)rc->name)->d2h++;
		wait_done(t, x, NAN);
		return;
	}
	if (rc->kind != K_LAUNCH) {
		not_this_capture(t, rr, rr->col[2] + 1, "a kernel whose "
		    "correlation ID is that of a %s call (cuda_api_trace line "
		    "%ld): not the API trace of this capture", rc->kind ==
		    K_SYNC ? "synchronisation" : "copy", rc->line);
		return;
	}
	if (!lp_num_get(rr->v[5], &strm))
		strm = NAN;	/* no stream column: one stream */
	if (t->ngseen)
		graphs_done(t, rc->seq, strm);
	if (isnan(rc->kmin)) {	/* its first kernel: the latency */
		rc->kmin = start;
		EACH_INST(t, x, i, g, in)
			lp_vals_add(rc->graph ? &g->glat[!g->in[in].first] :
			    &g->lat[!g->in[in].first], start - rc->t);
		if (rc->graph) {
			rc->strm = strm;
			if (t->ngseen == t->capgseen) {
				t->capgseen = t->capgseen ? 2 * t->capgseen : 64;
				t->gseen = lp_xreallocarray(t->gseen, t->capgseen,
				    sizeof *t->gseen);
			}
			t->gseen[t->ngseen].x = x;
			t->gseen[t->ngseen++].seq = rc->seq;
		}
	}
	if (isnan(rc->kend) || start + dur > rc->kend)
		rc->kend = start + dur;
	EACH_INST(t, x, i, g, in) {
		struct inst *y = &g->in[in];

		y->kern_ns += dur;
		y->kernels++;
		if (rc->graph) {
			y->gkern_ns += dur;
			y->gkernels++;
		}
	}
	if (!rc->graph)		/* one kernel a launch */
		launch_done(t, x);
}

/* Every call still held let go (the traces ended): launches and copies,
 * and with the launches the syncs waiting for them. */
static void
all_done(struct st *t)
{
	size_t x;

	for (x = 0; x < t->nr; x++)
		if (t->r[x].live && t->r[x].kind != K_SYNC)
			let_go(t, x);
	for (x = 0; x < t->nr; x++)	/* syncs after no launch held */
		if (t->r[x].live)
			wait_done(t, x, NAN);
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
		    "sorted by start time (as nsys writes it)", s->rr->v[0],
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
			free_slot(t, x);
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

/* The two passes: the instances; the API calls inside them swept with
 * the GPU trace's kernels and copies, in time order (at one time, calls
 * first: a kernel starts after its launch call). */
static void
load_traces(struct st *t, const struct paths *p)
{
	static const char *const pp_cols[] = { "Start", "End", "Name", "PID",
		"TID" };
	static const char *const api_cols[] = { "Start", "Duration", "Name",
		"?CorrID", "Pid", "Tid", "?CorrId" };
	static const char *const gpu_cols[] = { "Start", "Duration", "?CorrId",
		"Name", "?CorrID", "?Strm" };
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
	api.p = lp_rep_open(p->apath, "nsys stats --report cuda_api_trace",
	    api_cols, 7);
	api.last = gpu.last = -1;
	if (p->gpath) {
		gpu.p = lp_rep_open(p->gpath, "nsys stats --report cuda_gpu_trace",
		    gpu_cols, 6);
		t->track = 1;
		advance(&gpu);
	}
	advance(&api);
	while (api.rr || gpu.rr) {
		if (api.rr && (!gpu.rr || api.t <= gpu.t)) {
			api_row(t, api.rr);
			/* several processes: the GPU trace has no process
			 * column, so a correlation ID could name another
			 * process's kernel */
			if (t->track && t->pids >= 2)
				stop_tracking(t, &gpu);
			advance(&api);
		} else {
			if (!t->have_err)
				gpu_row(t, gpu.rr, gpu.t);
			advance(&gpu);
		}
	}
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
			    "that capture", p->apath, lp_map_key(t->ppids, 0),
			    p->ppath);
	}
	if (t->have_err)
		lp_die_at(LP_EXIT_DATA, t->err_file, t->err_line, t->err_col,
		    "%s", lp_sb_str(&t->err));
	if (t->track)
		all_done(t);
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
	t.thrs = lp_map_new();
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
