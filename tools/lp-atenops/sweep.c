/*
 * lp-atenops' sweep: the rows of (stage, op, shapes), the launches held
 * until their kernels start, each range, launch and kernel in time order,
 * and the graph launches (with -n, lp-graphnodes' trace) whose kernels
 * count for the op that captured them.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "nsight.h"
#include "aten.h"
#include "atenops.h"

/* ---- rows and the held launches ---- */

static long
row_of(int stage, const char *op, const char *shapes)
{
	long i;

	lp_sb_reset(&A.key);
	lp_sb_printf(&A.key, "%d\x1f%s\x1f%s", stage, op, shapes ? shapes :
	    "\x1e");
	if ((i = lp_map_get(A.ridx, lp_sb_str(&A.key), -1)) >= 0)
		return i;
	if (A.nr == A.rcap) {
		A.rcap = A.rcap ? 2 * A.rcap : 64;
		A.r = lp_xreallocarray(A.r, A.rcap, sizeof *A.r);
	}
	memset(&A.r[A.nr], 0, sizeof A.r[0]);
	A.r[A.nr].stage = stage;
	A.r[A.nr].op = lp_xstrdup(op);
	A.r[A.nr].shapes = shapes ? lp_xstrdup(shapes) : NULL;
	lp_map_put(A.ridx, lp_sb_str(&A.key), (long)A.nr);
	return (long)A.nr++;
}

static size_t
ph_find(int64_t corr)
{
	size_t i = (size_t)((uint64_t)corr * 0x9E3779B97F4A7C15u) & (A.phcap - 1);

	while (A.ph[i].corr && A.ph[i].corr != corr)
		i = (i + 1) & (A.phcap - 1);
	return i;
}

static void
ph_grow(void)
{
	struct pend *old = A.ph;
	size_t i, n = A.phcap;

	A.phcap = n ? 2 * n : 1024;
	A.ph = lp_xcalloc(A.phcap, sizeof *A.ph);
	for (i = 0; i < n; i++)
		if (old[i].corr)
			A.ph[ph_find(old[i].corr)] = old[i];
	free(old);
}

static long *
pend_put(int64_t corr, int graph, const struct lp_rep_row *rr, size_t c)
{
	size_t i;
	long s;

	if (2 * (A.phn + 1) > A.phcap)
		ph_grow();
	i = ph_find(corr);
	if (A.ph[i].corr)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[c] + 1,
		    "CorrID %lld: a second launch call with a correlation ID "
		    "whose kernel has not started", (long long)corr);
	if (A.nfree)
		s = A.freel[--A.nfree];
	else {
		if (A.npool == A.poolcap) {
			A.poolcap = A.poolcap ? 2 * A.poolcap : 1024;
			A.pool = lp_xreallocarray(A.pool, A.poolcap * A.nst,
			    sizeof *A.pool);
			A.freel = lp_xreallocarray(A.freel, A.poolcap,
			    sizeof *A.freel);
		}
		s = (long)A.npool++;
	}
	A.ph[i].corr = corr;
	A.ph[i].slot = s;
	A.ph[i].seq = (long)A.nlaunch;
	A.ph[i].graph = graph;
	if (++A.phn > A.maxpend)
		A.maxpend = (double)A.phn;
	return &A.pool[(size_t)s * A.nst];
}

/* The launch of corr, left in; NULL if none. */
static const struct pend *
pend_get(int64_t corr)
{
	size_t i;

	if (!A.phcap || !A.ph[i = ph_find(corr)].corr)
		return NULL;
	return &A.ph[i];
}

/* Takes the launch of corr out (backward-shift deletion): its slot, or -1. */
static long
pend_take(int64_t corr)
{
	size_t i, j, k;
	long s;

	if (!A.phcap || !A.ph[i = ph_find(corr)].corr)
		return -1;
	s = A.ph[i].slot;
	A.freel[A.nfree++] = s;
	A.phn--;
	for (j = i;;) {
		A.ph[i].corr = 0;
		do {
			j = (j + 1) & (A.phcap - 1);
			if (!A.ph[j].corr)
				return s;
			k = (size_t)((uint64_t)A.ph[j].corr *
			    0x9E3779B97F4A7C15u) & (A.phcap - 1);
		} while (i <= j ? (i < k && k <= j) : (i < k || k <= j));
		A.ph[i] = A.ph[j];
		i = j;
	}
}

/* ---- the sweep ---- */

static struct thr *
thread_of(const char *pid, const char *tid)
{
	long i;

	lp_sb_reset(&A.key);
	lp_sb_printf(&A.key, "%s/%s", pid, tid);
	if ((i = lp_map_get(A.tidx, lp_sb_str(&A.key), -1)) < 0) {
		A.t = lp_xreallocarray(A.t, A.nt + 1, sizeof *A.t);
		memset(&A.t[A.nt], 0, sizeof A.t[0]);
		lp_map_put(A.tidx, lp_sb_str(&A.key), i = (long)A.nt++);
	}
	return &A.t[i];
}

/* Ranges of the thread that ended by time t are closed. */
static void
pop_until(struct thr *t, double at)
{
	while (t->n && t->e[t->n - 1].end <= at)
		free(t->e[--t->n].rows);
}

/* -n: the op and shapes of a range, kept once for the graph nodes it may
 * capture */
static long
op_key(const char *op, const char *shapes)
{
	long i;

	lp_sb_reset(&A.key);
	lp_sb_printf(&A.key, "%s\x1f%s", op, shapes);
	if ((i = lp_map_get(A.opidx, lp_sb_str(&A.key), -1)) >= 0)
		return i;
	i = (long)lp_map_len(A.opidx);
	lp_map_put(A.opidx, lp_sb_str(&A.key), i);
	A.iop = lp_xreallocarray(A.iop, (size_t)i + 1, sizeof *A.iop);
	A.ishapes = lp_xreallocarray(A.ishapes, (size_t)i + 1,
	    sizeof *A.ishapes);
	A.iop[i] = lp_xstrdup(op);
	A.ishapes[i] = lp_xstrdup(shapes);
	return i;
}

/* The innermost op range open on the thread, or NULL. */
static struct ent *
innermost_op(struct thr *t)
{
	size_t i;

	for (i = t->n; i-- > 0; )
		if (t->e[i].stage < 0)
			return &t->e[i];
	return NULL;
}

static int
stage_of(const char *name)
{
	size_t i;

	for (i = 0; i < A.nst; i++)
		if (lp_nvtx_range_match(A.stranges[i], name))
			return (int)i;
	return -1;
}

void
on_range(const struct lp_rep_row *rr)
{
	double s = lp_rep_time(rr, 0), e = lp_rep_time(rr, 1);
	struct thr *t = thread_of(lp_rep_pid(rr, 3), lp_rep_pid(rr, 4));
	int st = stage_of(rr->v[2]), isop;
	const char *why;
	struct ent *en;
	size_t i;

	isop = st < 0 && lp_aten_parse(rr->v[2], &A.op, &A.shapes);
	if (st < 0 && !isop)
		return;
	if (isop && (why = lp_aten_check(lp_sb_str(&A.op),
	    lp_sb_str(&A.shapes))))
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1,
		    "op range \"%s\", sizes %s: %s", lp_sb_str(&A.op),
		    lp_sb_str(&A.shapes), why);
	pop_until(t, s);
	if (t->n && e > t->e[t->n - 1].end)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[1] + 1, "the "
		    "range ends after the range it starts in (line %ld) ends: "
		    "push/pop ranges of one thread nest", t->e[t->n - 1].line);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->e = lp_xreallocarray(t->e, t->cap, sizeof *t->e);
	}
	en = &t->e[t->n++];
	en->end = e;
	en->stage = st;
	en->rows = NULL;
	en->line = rr->line;
	en->opk = en->inst = -1;
	if (st < 0 && A.npath)
		en->opk = op_key(lp_sb_str(&A.op), lp_sb_str(&A.shapes));
	if (st >= 0) {
		A.stseen[st] = 1;
		return;
	}
	A.nops++;
	en->rows = lp_xcalloc(A.nst, sizeof *en->rows);
	for (i = 0; i < A.nst; i++)
		en->rows[i] = -1;
	for (i = 0; i + 1 < t->n; i++)
		if (t->e[i].stage >= 0) {
			long k = row_of(t->e[i].stage, lp_sb_str(&A.op),
			    lp_sb_str(&A.shapes));

			en->rows[t->e[i].stage] = k;
			A.r[k].calls++;
			A.r[k].host_ns += e - s;
		}
}

/* In digits: "1e3" read as a number joined a launch to kernel 1000. */
static int64_t
corr_of(const struct lp_rep_row *rr, size_t i)
{
	int64_t c = lp_rep_id(rr, i);

	if (c < 1)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[i] + 1,
		    "correlation ID %s: expected a whole number from 1",
		    rr->v[i]);
	return c;
}

/* ---- graph launches: held while their kernels may come ---- */

static void
gl_drop(struct glaunch *g, size_t *n, size_t i)
{
	pend_take(g[i].corr);
	memmove(&g[i], &g[i + 1], (*n - i - 1) * sizeof *g);
	(*n)--;
}

static void
gl_add(struct glaunch **g, size_t *n, const struct glaunch *l)
{
	if (!*g)
		*g = lp_xcalloc(GMAX, sizeof **g);
	if (*n == GMAX) {	/* more in flight than any GPU queues */
		gl_drop(*g, n, 0);
		A.gdropped++;
	}
	(*g)[(*n)++] = *l;
}

/*
 * A kernel of launch seq started on stream strm: a graph launch before it
 * whose kernels ran on that stream has run them all (a stream runs a
 * graph launch whole before what follows it), so it is let go.
 */
static void
gl_retire(long seq, double strm)
{
	size_t i;

	for (i = 0; i < A.nseen; )
		if (A.gseen[i].seq < seq && A.gseen[i].strm == strm)
			gl_drop(A.gseen, &A.nseen, i);
		else
			i++;
}

/* The first kernel of a graph launch: it is now known by its stream. */
static void
gl_seen(int64_t corr, double strm)
{
	size_t i;

	for (i = 0; i < A.nseen; i++)
		if (A.gseen[i].corr == corr)
			return;
	for (i = 0; i < A.nwait && A.gwait[i].corr != corr; i++)
		;
	if (i == A.nwait)
		return;
	A.gwait[i].strm = strm;
	gl_add(&A.gseen, &A.nseen, &A.gwait[i]);
	memmove(&A.gwait[i], &A.gwait[i + 1], (A.nwait - i - 1) *
	    sizeof *A.gwait);
	A.nwait--;
}

/*
 * CUDA numbers a process's calls in the order they are made, and a thread
 * makes them one after another: its launch calls' correlation IDs grow.
 * One that does not is a second call with an ID (its kernel would go to
 * either, the other call's to none) or captures merged into one trace.
 */
static void
check_order(struct thr *t, int64_t corr, const struct lp_rep_row *rr)
{
	if (corr == t->corr)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1,
		    "CorrID %lld: the launch call on line %ld has it too: a "
		    "correlation ID ties one call to its kernel", (long long)corr,
		    t->corr_line);
	if (corr < t->corr)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1,
		    "CorrID %lld: below the %lld of the thread's launch call on "
		    "line %ld, where CUDA numbers a thread's calls in order "
		    "(captures merged into one trace?)", (long long)corr,
		    (long long)t->corr, t->corr_line);
	t->corr = corr;
	t->corr_line = rr->line;
}

void
on_launch(const struct lp_rep_row *rr, double at)
{
	struct thr *t;
	const struct ent *op;
	long *rows;
	size_t i;
	int any = 0, graph;
	int64_t corr;

	if (!lp_capi_launch(rr->v[1]))
		return;
	t = thread_of(lp_rep_pid(rr, 3), lp_rep_pid(rr, 4));
	pop_until(t, at);
	graph = lp_capi_graph_launch(rr->v[1]);
	corr = corr_of(rr, 2);
	check_order(t, corr, rr);
	rows = pend_put(corr, graph, rr, 2);
	A.nlaunch++;
	if (graph) {
		struct glaunch l = { corr, (long)A.nlaunch - 1, -1 };

		gl_add(&A.gwait, &A.nwait, &l);
	}
	for (i = 0; i < A.nst; i++)
		rows[i] = -1;
	op = innermost_op(t);
	for (i = 0; i < t->n; i++) {
		int st = t->e[i].stage;

		if (st < 0)
			continue;
		any = 1;
		/* a graph's kernels may all go to the ops that captured
		 * them: its row outside ops is made when one does not (-2) */
		rows[st] = op && op->rows[st] >= 0 ? op->rows[st] : graph ? -2 :
		    row_of(st, "(outside any op)", NULL);
	}
	if (!any)
		A.outside_stage++;
}

static long
kernel_id(const char *name)
{
	long k = lp_map_get(A.kidx, name, -1);

	if (k < 0)
		lp_map_put(A.kidx, name, k = (long)lp_map_len(A.kidx));
	return k;
}

void
add_shape(struct row *r, long kid, const char *grid, const char *block,
    double n, double ns)
{
	size_t i;

	for (i = 0; i < r->nsh; i++)
		if (r->sh[i].kid == kid && !strcmp(r->sh[i].grid, grid) &&
		    !strcmp(r->sh[i].block, block))
			break;
	if (i == r->nsh) {
		r->sh = lp_xreallocarray(r->sh, r->nsh + 1, sizeof *r->sh);
		r->sh[i].kid = kid;
		r->sh[i].grid = lp_xstrdup(grid);
		r->sh[i].block = lp_xstrdup(block);
		r->sh[i].n = r->sh[i].ns = 0;
		r->nsh++;
	}
	r->sh[i].n += n;
	r->sh[i].ns += ns;
}

/* -n: the op instance that captured the node of a graph kernel starting
 * at t, by its graph_node_trace row; -1 none, -2 no row or no create row.
 * Rows before t had their kernel's turn already: none came. */
static long
graph_op(double t, int64_t corr)
{
	size_t i, j;
	long in = -2;

	for (i = j = 0; i < A.ngk; i++)
		if (A.gk[i].t == t && A.gk[i].corr == corr && in == -2)
			in = A.gk[i].inst;
		else if (A.gk[i].t < t)
			A.gstale++;
		else
			A.gk[j++] = A.gk[i];
	A.ngk = j;
	return in;
}

void
on_kernel(const struct lp_rep_row *rr)
{
	double d, t, strm = -1;
	long s, kid, in = -1;
	size_t i;
	char grid[128], block[128];
	const struct pend *p;
	int64_t corr;
	long seq;
	int graph, call = 0;

	if (!strncmp(rr->v[9], "[CUDA ", 6))
		return;		/* a copy or a set, not a kernel */
	A.nkern++;
	d = lp_rep_time(rr, 1);
	corr = corr_of(rr, 2);
	if (!(p = pend_get(corr))) {
		A.nolaunch++;
		return;
	}
	s = p->slot;
	seq = p->seq;
	graph = p->graph;
	if (A.nseen || graph) {
		if (!lp_num_get(rr->v[10], &strm))
			strm = -1;	/* no stream column: one stream */
		gl_retire(seq, strm);
	}
	if (!graph)
		pend_take(corr);
	else {
		gl_seen(corr, strm);
		A.ngraph++;
		t = lp_rep_time(rr, 0);
		if (A.npath && (in = graph_op(t, corr)) >= 0) {
			A.gop++;
			call = A.in[in].last != seq;
			A.in[in].last = seq;
		} else if (A.npath)
			*(in == -1 ? &A.gnoop : &A.gnorow) += 1;
	}
	snprintf(grid, sizeof grid, "(%.30s, %.30s, %.30s)", rr->v[3], rr->v[4],
	    rr->v[5]);
	snprintf(block, sizeof block, "(%.30s, %.30s, %.30s)", rr->v[6],
	    rr->v[7], rr->v[8]);
	kid = kernel_id(rr->v[9]);
	for (i = 0; i < A.nst; i++) {
		long k = A.pool[(size_t)s * A.nst + i];

		if (k == -1)
			continue;
		if (graph)
			A.stgraph[i]++;
		if (in >= 0) {	/* the op that captured it, replayed */
			k = row_of((int)i, A.iop[A.in[in].opk],
			    A.ishapes[A.in[in].opk]);
			A.r[k].calls += call;
		} else if (k == -2)
			k = A.pool[(size_t)s * A.nst + i] = row_of((int)i,
			    "(outside any op)", NULL);
		A.r[k].kern_ns += d;
		A.r[k].kernels++;
		add_shape(&A.r[k], kid, grid, block, 1, d);
	}
}

/* ---- -n: lp-graphnodes' graph_node_trace, read as the traces are ---- */

static int
digits(const char *s, size_t max)
{
	size_t n = strspn(s, "0123456789");

	return n && n <= max && !s[n];
}

/* The row's Event and Graph Node ID, checked: 1 for a kernel row. */
int
gkind(const struct lp_rep_row *rr)
{
	if (strcmp(rr->v[1], "create") && strcmp(rr->v[1], "kernel"))
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[1] + 1, "Event: "
		    "expected \"create\" or \"kernel\", got \"%s\"", rr->v[1]);
	if (!digits(rr->v[2], 20))
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1, "Graph "
		    "Node ID: expected a whole number, got \"%s\"", rr->v[2]);
	return rr->v[1][0] == 'k';
}

/* A node made by stream capture: the op open on its thread then made it. */
void
on_create(const struct lp_rep_row *rr, double at)
{
	const char *pid = lp_rep_pid(rr, 4), *tid = lp_rep_pid(rr, 5);
	struct ent *op = NULL;
	long in = -1;

	if (lp_map_get(A.gnode, rr->v[2], -3) != -3)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1, "graph "
		    "node %s: a second create row", rr->v[2]);
	if (*pid || *tid) {
		struct thr *t;

		if (!*pid || !*tid)
			lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[*pid ? 5 :
			    4] + 1, "Pid, Tid: a process and a thread ID, or "
			    "neither");
		t = thread_of(pid, tid);
		pop_until(t, at);
		op = innermost_op(t);
	}
	if (op) {
		if (op->inst < 0) {
			A.in = lp_xreallocarray(A.in, A.ninst + 1, sizeof *A.in);
			A.in[A.ninst].opk = op->opk;
			A.in[A.ninst].last = -1;
			op->inst = (long)A.ninst++;
		}
		in = op->inst;
	}
	lp_map_put(A.gnode, rr->v[2], in);
}

/* A replayed kernel: held until cuda_gpu_trace's row of it (same Start
 * and CorrId) comes, at the same time. */
void
on_gkernel(const struct lp_rep_row *rr, double at)
{
	int64_t corr;
	size_t i, j;

	A.gkrows++;
	if (!lp_rep_has(rr, 3)) {	/* nsys knew no CorrId: nothing to pair */
		A.gstale++;
		return;
	}
	corr = corr_of(rr, 3);
	for (i = j = 0; i < A.ngk; i++)	/* kernels before t had their turn */
		if (A.gk[i].t < at)
			A.gstale++;
		else
			A.gk[j++] = A.gk[i];
	A.ngk = j;
	A.gk = lp_xreallocarray(A.gk, A.ngk + 1, sizeof *A.gk);
	A.gk[A.ngk].t = at;
	A.gk[A.ngk].corr = corr;
	A.gk[A.ngk].inst = lp_map_get(A.gnode, rr->v[2], -2);
	A.ngk++;
}
