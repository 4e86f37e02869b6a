/*
 * lp-hostside's second pass: the API calls and the GPU operations swept
 * together in time order, each launch, copy and synchronisation call held
 * (by its correlation ID) until its GPU work has started, and credited to
 * the stage instances it falls in.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "hostside.h"

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
	return (uint64_t)lp_rep_id(rr, i);
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

	lp_sb_adds(&key, pid);
	lp_sb_addc(&key, '\037');
	lp_sb_adds(&key, tid);
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

/* The age queue: launches and copies, in call order; held call x put
 * last. */
static void
queue(struct st *t, size_t x)
{
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
	t->qseq[(t->q0 + t->qn) % t->capq] = t->r[x].seq;
	t->qn++;
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
	if (kind != K_SYNC)
		queue(t, x);
	return x;
}

/* The stages' instances call x is in: the row(s) of each (all, and
 * steady unless it is its process's first). */
#define EACH_INST(t, x, i, g, in)					\
	for ((i) = 0; (i) < (t)->ns; (i)++)				\
		if (((in) = (t)->inst[(x) * (t)->ns + (i)]) >= 0 &&	\
		    ((g) = &(t)->s[(i)]))

void
sweep_free_slot(struct st *t, size_t x)
{
	unhash(t, x + 1);
	t->r[x].live = 0;
	t->freel[t->nfree++] = x;
}

/* How long a synchronisation waited for the GPU's earlier work, within
 * the call: until the GPU work of its thread's last launch or copy before
 * it ended (until; NAN: none). */
static double
blocked_of(const struct rec *rc, double until)
{
	if (isnan(until) || until <= rc->t)
		return 0;
	return until < rc->t + rc->dur ? until - rc->t : rc->dur;
}

/* A sync done: its time blocked to its instances. */
static void
wait_done(struct st *t, size_t x, double until)
{
	double b = blocked_of(&t->r[x], until);
	struct stage *g;
	size_t i;
	long in;

	EACH_INST(t, x, i, g, in)
		g->in[in].blocked += b;
	sweep_free_slot(t, x);
}

/* A launch or copy let go: the syncs waiting for it are done; its thread
 * remembers its GPU work's end. */
static void
release(struct st *t, size_t x)
{
	struct rec *rc = &t->r[x];
	size_t w, next;

	for (w = rc->waits; w; w = next) {
		next = t->r[w - 1].waits;
		wait_done(t, w - 1, rc->kend);
	}
	if (t->th[rc->thr].last == x + 1) {
		t->th[rc->thr].last = 0;
		t->th[rc->thr].kend = rc->kend;
	}
	sweep_free_slot(t, x);
}

/* A launch let go: no more kernels of it will be counted. */
static void
launch_done(struct st *t, size_t x)
{
	t->nlaunch++;
	t->unmatched += isnan(t->r[x].kmin);
	release(t, x);
}

/* A copy or set let go, blocked (ns) on the GPU's earlier work. */
static void
copy_done(struct st *t, size_t x, double blocked)
{
	struct stage *g;
	size_t i;
	long in;

	EACH_INST(t, x, i, g, in)
		g->in[in].blocked += blocked;
	release(t, x);
}

/* A held launch or copy let go, its GPU work over or never to come. */
static void
let_go(struct st *t, size_t x)
{
	if (t->r[x].kind == K_LAUNCH)
		launch_done(t, x);
	else
		copy_done(t, x, 0);
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

/* The processes whose calls put work on the GPU: only theirs can share a
 * correlation ID with a row of cuda_gpu_trace (a compile worker's few
 * cuInit-like calls cannot). */
static void
gpu_process(struct st *t, const char *pid)
{
	if (!t->pid1) {
		t->pid1 = lp_xstrdup(pid);
		t->pids = 1;
	} else if (strcmp(t->pid1, pid))
		t->pids = 2;
}

/* A call of kind k starting inside instance in of stage g: its time and
 * count in the instance and by its name (id, numbered here at the call's
 * first instance) in the instance's row(s).  The call's id. */
static long
inst_call(struct st *t, struct stage *g, struct inst *in,
    const struct lp_rep_row *rr, int kind, double start, double dur, long id)
{
	const char *name = rr->v[2];
	int row;

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
	return id;
}

/* Held call x of kind k: the thread's last launch or copy, what a later
 * sync waits for, or a sync waiting for it. */
static void
thread_last(struct st *t, size_t x, int kind)
{
	size_t th = t->r[x].thr;

	if (kind == K_LAUNCH || kind == K_MEMCPY) {
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

void
sweep_api(struct st *t, const struct lp_rep_row *rr)
{
	const char *name = rr->v[2], *pid = lp_rep_pid(rr, 4);
	const char *tid = lp_rep_pid(rr, 5);
	double start = lp_rep_time(rr, 0), dur = lp_rep_time(rr, 1);
	int kind = (int)lp_map_get(t->kinds, name, -1), mine = 0;
	size_t x = 0, i;	/* the call's slot + 1 once held */
	long id = -1;

	if (kind < 0)		/* a few dozen names in millions of calls */
		lp_map_put(t->kinds, name, kind = kind_of(name));
	if (kind == K_LAUNCH || kind == K_MEMCPY)
		gpu_process(t, pid);
	mine = lp_map_get(t->ppids, pid, -1) >= 0;
	t->pidcalls += mine;
	if (kind == K_LAUNCH || kind == K_MEMCPY || kind == K_SYNC)
		t->seq++;
	for (i = 0; i < t->ns; i++) {
		struct stage *g = &t->s[i];
		struct inst *in = find(g, pid, tid, start);

		t->cinst[i] = in ? in - g->in : -1;

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
		id = inst_call(t, g, in, rr, kind, start, dur, id);
		if (!t->track || (kind != K_LAUNCH && kind != K_MEMCPY &&
		    kind != K_SYNC))
			continue;
		if (!x)
			x = 1 + keep_call(t, rr, kind, id, start, dur,
			    thread_of(t, pid, tid));
		t->inst[(x - 1) * t->ns + i] = in - g->in;
	}
	if (id >= 0)		/* inside an instance: the idle split */
		idle_call(t, kind, start, dur, t->cinst);
	if (t->track)
		age_out(t);
	if (x && t->r[x - 1].live)
		thread_last(t, x - 1, kind);
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

/* The latest end of the GPU work seen so far on the stream of a row of
 * cuda_gpu_trace (device and Strm; without them, one stream), before the
 * row; the row's own end taken in. */
static double
stream_busy(struct st *t, const struct lp_rep_row *rr, double start,
    double dur)
{
	double before;
	long i;

	lp_sb_reset(&t->skey);	/* by hand: printf a row was 2 % */
	lp_sb_adds(&t->skey, rr->v[6]);
	lp_sb_addc(&t->skey, '\037');
	lp_sb_adds(&t->skey, rr->v[5]);
	if ((i = lp_map_get(t->strms, lp_sb_str(&t->skey), -1)) < 0) {
		i = (long)lp_map_len(t->strms);
		lp_map_put(t->strms, lp_sb_str(&t->skey), i);
		t->sbusy = lp_xreallocarray(t->sbusy, (size_t)i + 1,
		    sizeof *t->sbusy);
		t->sbusy[i] = NAN;
	}
	before = t->sbusy[i];
	if (isnan(before) || start + dur > before)
		t->sbusy[i] = start + dur;
	return before;
}

/* A copy's or set's operation on the GPU, from start to end; its stream
 * was busy with earlier work until busy (NAN: no work seen).  The call
 * waited for that work from its start until the work ended (or the copy
 * started), if the copy started before the call returned: one that
 * returned first was asynchronous and waited for nothing.  The time the
 * GPU was idle, waiting for the copy itself (a pageable copy's staging,
 * the call's own latency), is not blocked. */
static void
copy_row(struct st *t, const struct lp_rep_row *rr, size_t x, double start,
    double end, double busy)
{
	struct rec *rc = &t->r[x];
	double until = busy < start ? busy : start;
	struct stage *g;
	size_t i;
	long in;
	int row;

	rc->kmin = start;
	rc->kend = end;
	if (strstr(rr->v[3], "Device-to-Host"))
		EACH_INST(t, x, i, g, in)
			for (row = 0; row < 2 - g->in[in].first; row++)
				cstat(g, row, (size_t)rc->name)->d2h++;
	if (start >= rc->t + rc->dur || isnan(busy) || until <= rc->t)
		copy_done(t, x, 0);
	else
		copy_done(t, x, until - rc->t);
}

/* The first kernel of launch x, at start on stream strm: the launch's
 * latency to its instances' rows; a graph launch is now known by its
 * stream, let go when a later launch's kernel starts there. */
static void
first_kernel(struct st *t, size_t x, double start, double strm)
{
	struct rec *rc = &t->r[x];
	struct stage *g;
	size_t i;
	long in;

	rc->kmin = start;
	EACH_INST(t, x, i, g, in)
		lp_vals_add(rc->graph ? &g->glat[!g->in[in].first] :
		    &g->lat[!g->in[in].first], start - rc->t);
	if (!rc->graph)
		return;
	rc->strm = strm;
	if (t->ngseen == t->capgseen) {
		t->capgseen = t->capgseen ? 2 * t->capgseen : 64;
		t->gseen = lp_xreallocarray(t->gseen, t->capgseen,
		    sizeof *t->gseen);
	}
	t->gseen[t->ngseen].x = x;
	t->gseen[t->ngseen++].seq = rc->seq;
}

void
sweep_gpu(struct st *t, const struct lp_rep_row *rr, double start)
{
	const char *name = rr->v[3];
	struct rec *rc;
	struct stage *g;
	double dur = lp_rep_time(rr, 1), strm, busy;
	size_t x, i;
	long in;

	busy = stream_busy(t, rr, start, dur);
	if (strncmp(name, "[CUDA ", 6))
		idle_kernel(t, start, start + dur, rr->v[6]);
	if (!(x = lookup(t, corr_of(rr, 2, 4))))
		return;
	x--;
	rc = &t->r[x];
	if (!strncmp(name, "[CUDA ", 6)) {	/* a copy or set */
		if (rc->kind == K_MEMCPY)
			copy_row(t, rr, x, start, start + dur, busy);
		else if (rc->kind == K_LAUNCH && (isnan(rc->kend) ||
		    start + dur > rc->kend))
			rc->kend = start + dur;	/* a graph's copy node */
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
	if (isnan(rc->kmin))	/* its first kernel: the latency */
		first_kernel(t, x, start, strm);
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
void
sweep_done(struct st *t)
{
	size_t x;

	for (x = 0; x < t->nr; x++)
		if (t->r[x].live && t->r[x].kind != K_SYNC)
			let_go(t, x);
	for (x = 0; x < t->nr; x++)	/* syncs after no launch held */
		if (t->r[x].live)
			wait_done(t, x, NAN);
}
