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
row_of(struct at *a, int stage, const char *op, const char *shapes)
{
	long i;

	lp_sb_reset(&a->key);
	lp_sb_printf(&a->key, "%d\x1f%s\x1f%s", stage, op, shapes ? shapes :
	    "\x1e");
	if ((i = lp_map_get(a->ridx, lp_sb_str(&a->key), -1)) >= 0)
		return i;
	a->r = lp_grow(a->r, a->nr, &a->rcap, 64, sizeof *a->r);
	memset(&a->r[a->nr], 0, sizeof a->r[0]);
	a->r[a->nr].stage = stage;
	a->r[a->nr].op = lp_xstrdup(op);
	a->r[a->nr].shapes = shapes ? lp_xstrdup(shapes) : NULL;
	lp_map_put(a->ridx, lp_sb_str(&a->key), (long)a->nr);
	return (long)a->nr++;
}

static size_t
ph_find(struct at *a, int64_t corr)
{
	size_t i = (size_t)((uint64_t)corr * 0x9E3779B97F4A7C15u) & (a->phcap - 1);

	while (a->ph[i].corr && a->ph[i].corr != corr)
		i = (i + 1) & (a->phcap - 1);
	return i;
}

static void
ph_grow(struct at *a)
{
	struct pend *old = a->ph;
	size_t i, n = a->phcap;

	a->phcap = n ? 2 * n : 1024;
	a->ph = lp_xcalloc(a->phcap, sizeof *a->ph);
	for (i = 0; i < n; i++)
		if (old[i].corr)
			a->ph[ph_find(a, old[i].corr)] = old[i];
	free(old);
}

static long *
pend_put(struct at *a, int64_t corr, int graph, const struct lp_rep_row *rr,
    size_t c)
{
	size_t i;
	long s;

	if (2 * (a->phn + 1) > a->phcap)
		ph_grow(a);
	i = ph_find(a, corr);
	if (a->ph[i].corr)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[c] + 1,
		    "CorrID %lld: a second launch call with a correlation ID "
		    "whose kernel has not started", (long long)corr);
	if (a->nfree)
		s = a->freel[--a->nfree];
	else {
		if (a->npool == a->poolcap) {
			a->poolcap = a->poolcap ? 2 * a->poolcap : 1024;
			a->pool = lp_xreallocarray(a->pool, a->poolcap * a->nst,
			    sizeof *a->pool);
			a->freel = lp_xreallocarray(a->freel, a->poolcap,
			    sizeof *a->freel);
		}
		s = (long)a->npool++;
	}
	a->ph[i].corr = corr;
	a->ph[i].slot = s;
	a->ph[i].seq = (long)a->nlaunch;
	a->ph[i].graph = graph;
	if (++a->phn > a->maxpend)
		a->maxpend = (double)a->phn;
	return &a->pool[(size_t)s * a->nst];
}

/* The launch of corr, left in; NULL if none. */
static const struct pend *
pend_get(struct at *a, int64_t corr)
{
	size_t i;

	if (!a->phcap || !a->ph[i = ph_find(a, corr)].corr)
		return NULL;
	return &a->ph[i];
}

/* Takes the launch of corr out (backward-shift deletion): its slot, or -1. */
static long
pend_take(struct at *a, int64_t corr)
{
	size_t i, j, k;
	long s;

	if (!a->phcap || !a->ph[i = ph_find(a, corr)].corr)
		return -1;
	s = a->ph[i].slot;
	a->freel[a->nfree++] = s;
	a->phn--;
	for (j = i;;) {
		a->ph[i].corr = 0;
		do {
			j = (j + 1) & (a->phcap - 1);
			if (!a->ph[j].corr)
				return s;
			k = (size_t)((uint64_t)a->ph[j].corr *
			    0x9E3779B97F4A7C15u) & (a->phcap - 1);
		} while (i <= j ? (i < k && k <= j) : (i < k || k <= j));
		a->ph[i] = a->ph[j];
		i = j;
	}
}

/* ---- the sweep ---- */

static struct thr *
thread_of(struct at *a, const char *pid, const char *tid)
{
	long i;

	lp_sb_reset(&a->key);
	lp_sb_printf(&a->key, "%s/%s", pid, tid);
	if ((i = lp_map_get(a->tidx, lp_sb_str(&a->key), -1)) < 0) {
		a->t = lp_xreallocarray(a->t, a->nt + 1, sizeof *a->t);
		memset(&a->t[a->nt], 0, sizeof a->t[0]);
		lp_map_put(a->tidx, lp_sb_str(&a->key), i = (long)a->nt++);
	}
	return &a->t[i];
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
op_key(struct at *a, const char *op, const char *shapes)
{
	long i;

	lp_sb_reset(&a->key);
	lp_sb_printf(&a->key, "%s\x1f%s", op, shapes);
	if ((i = lp_map_get(a->opidx, lp_sb_str(&a->key), -1)) >= 0)
		return i;
	i = (long)lp_map_len(a->opidx);
	lp_map_put(a->opidx, lp_sb_str(&a->key), i);
	a->iop = lp_xreallocarray(a->iop, (size_t)i + 1, sizeof *a->iop);
	a->ishapes = lp_xreallocarray(a->ishapes, (size_t)i + 1,
	    sizeof *a->ishapes);
	a->iop[i] = lp_xstrdup(op);
	a->ishapes[i] = lp_xstrdup(shapes);
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
stage_of(struct at *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->nst; i++)
		if (lp_nvtx_range_match(a->stranges[i], name))
			return (int)i;
	return -1;
}

void
sweep_range(struct at *a, const struct lp_rep_row *rr)
{
	double s = lp_rep_time(rr, 0), e = lp_rep_time(rr, 1);
	struct thr *t = thread_of(a, lp_rep_pid(rr, 3), lp_rep_pid(rr, 4));
	int st = stage_of(a, rr->v[2]), isop;
	const char *why;
	struct ent *en;
	size_t i;

	isop = st < 0 && lp_aten_parse(rr->v[2], &a->op, &a->shapes);
	if (st < 0 && !isop)
		return;
	if (isop && (why = lp_aten_check(lp_sb_str(&a->op),
	    lp_sb_str(&a->shapes))))
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1,
		    "op range \"%s\", sizes %s: %s", lp_sb_str(&a->op),
		    lp_sb_str(&a->shapes), why);
	pop_until(t, s);
	if (t->n && e > t->e[t->n - 1].end)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[1] + 1, "the "
		    "range ends after the range it starts in (line %ld) ends: "
		    "push/pop ranges of one thread nest", t->e[t->n - 1].line);
	t->e = lp_grow(t->e, t->n, &t->cap, 16, sizeof *t->e);
	en = &t->e[t->n++];
	en->end = e;
	en->stage = st;
	en->rows = NULL;
	en->line = rr->line;
	en->opk = en->inst = -1;
	if (st < 0 && a->npath)
		en->opk = op_key(a, lp_sb_str(&a->op), lp_sb_str(&a->shapes));
	if (st >= 0) {
		a->stseen[st] = 1;
		return;
	}
	a->nops++;
	en->rows = lp_xcalloc(a->nst, sizeof *en->rows);
	for (i = 0; i < a->nst; i++)
		en->rows[i] = -1;
	for (i = 0; i + 1 < t->n; i++)
		if (t->e[i].stage >= 0) {
			long k = row_of(a, t->e[i].stage, lp_sb_str(&a->op),
			    lp_sb_str(&a->shapes));

			en->rows[t->e[i].stage] = k;
			a->r[k].calls++;
			a->r[k].host_ns += e - s;
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
gl_drop(struct at *a, struct glaunch *g, size_t *n, size_t i)
{
	pend_take(a, g[i].corr);
	memmove(&g[i], &g[i + 1], (*n - i - 1) * sizeof *g);
	(*n)--;
}

static void
gl_add(struct at *a, struct glaunch **g, size_t *n, const struct glaunch *l)
{
	if (!*g)
		*g = lp_xcalloc(GMAX, sizeof **g);
	if (*n == GMAX) {	/* more in flight than any GPU queues */
		gl_drop(a, *g, n, 0);
		a->gdropped++;
	}
	(*g)[(*n)++] = *l;
}

/*
 * A kernel of launch seq started on stream strm: a graph launch before it
 * whose kernels ran on that stream has run them all (a stream runs a
 * graph launch whole before what follows it), so it is let go.
 */
static void
gl_retire(struct at *a, long seq, double strm)
{
	size_t i;

	for (i = 0; i < a->nseen; )
		if (a->gseen[i].seq < seq && a->gseen[i].strm == strm)
			gl_drop(a, a->gseen, &a->nseen, i);
		else
			i++;
}

/* The first kernel of a graph launch: it is now known by its stream. */
static void
gl_seen(struct at *a, int64_t corr, double strm)
{
	size_t i;

	for (i = 0; i < a->nseen; i++)
		if (a->gseen[i].corr == corr)
			return;
	for (i = 0; i < a->nwait && a->gwait[i].corr != corr; i++)
		;
	if (i == a->nwait)
		return;
	a->gwait[i].strm = strm;
	gl_add(a, &a->gseen, &a->nseen, &a->gwait[i]);
	memmove(&a->gwait[i], &a->gwait[i + 1], (a->nwait - i - 1) *
	    sizeof *a->gwait);
	a->nwait--;
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
sweep_launch(struct at *a, const struct lp_rep_row *rr, double at)
{
	struct thr *t;
	const struct ent *op;
	long *rows;
	size_t i;
	int any = 0, graph;
	int64_t corr;

	if (!lp_capi_launch(rr->v[1]))
		return;
	t = thread_of(a, lp_rep_pid(rr, 3), lp_rep_pid(rr, 4));
	pop_until(t, at);
	graph = lp_capi_graph_launch(rr->v[1]);
	corr = corr_of(rr, 2);
	check_order(t, corr, rr);
	rows = pend_put(a, corr, graph, rr, 2);
	a->nlaunch++;
	if (graph) {
		struct glaunch l = { corr, (long)a->nlaunch - 1, -1 };

		gl_add(a, &a->gwait, &a->nwait, &l);
	}
	for (i = 0; i < a->nst; i++)
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
		    row_of(a, st, "(outside any op)", NULL);
	}
	if (!any)
		a->outside_stage++;
}

static long
kernel_id(struct at *a, const char *name)
{
	long k = lp_map_get(a->kidx, name, -1);

	if (k < 0)
		lp_map_put(a->kidx, name, k = (long)lp_map_len(a->kidx));
	return k;
}

void
sweep_add_shape(struct row *r, long kid, const char *grid, const char *block,
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
graph_op(struct at *a, double t, int64_t corr)
{
	size_t i, j;
	long in = -2;

	for (i = j = 0; i < a->ngk; i++)
		if (a->gk[i].t == t && a->gk[i].corr == corr && in == -2)
			in = a->gk[i].inst;
		else if (a->gk[i].t < t)
			a->gstale++;
		else
			a->gk[j++] = a->gk[i];
	a->ngk = j;
	return in;
}

/* A kernel of graph launch seq (corr) on stream strm: the launch known by
 * its stream; with -n, the op instance that captured its node (-1: none;
 * -2: no row), and in call whether it begins a replay of that op. */
static long
graph_kernel(struct at *a, const struct lp_rep_row *rr, int64_t corr,
    long seq, double strm, int *call)
{
	long in = -1;

	gl_seen(a, corr, strm);
	a->ngraph++;
	if (a->npath && (in = graph_op(a, lp_rep_time(rr, 0), corr)) >= 0) {
		a->gop++;
		*call = a->in[in].last != seq;
		a->in[in].last = seq;
	} else if (a->npath)
		*(in == -1 ? &a->gnoop : &a->gnorow) += 1;
	return in;
}

void
sweep_kernel(struct at *a, const struct lp_rep_row *rr)
{
	double d, strm = -1;
	long s, kid, in = -1;
	size_t i;
	char grid[128], block[128];
	const struct pend *p;
	int64_t corr;
	long seq;
	int graph, call = 0;

	if (!strncmp(rr->v[9], "[CUDA ", 6))
		return;		/* a copy or a set, not a kernel */
	a->nkern++;
	d = lp_rep_time(rr, 1);
	corr = corr_of(rr, 2);
	if (!(p = pend_get(a, corr))) {
		a->nolaunch++;
		return;
	}
	s = p->slot;
	seq = p->seq;
	graph = p->graph;
	if (a->nseen || graph) {
		if (!lp_num_get(rr->v[10], &strm))
			strm = -1;	/* no stream column: one stream */
		gl_retire(a, seq, strm);
	}
	if (!graph)
		pend_take(a, corr);
	else
		in = graph_kernel(a, rr, corr, seq, strm, &call);
	snprintf(grid, sizeof grid, "(%.30s, %.30s, %.30s)", rr->v[3], rr->v[4],
	    rr->v[5]);
	snprintf(block, sizeof block, "(%.30s, %.30s, %.30s)", rr->v[6],
	    rr->v[7], rr->v[8]);
	kid = kernel_id(a, rr->v[9]);
	for (i = 0; i < a->nst; i++) {
		long k = a->pool[(size_t)s * a->nst + i];

		if (k == -1)
			continue;
		if (graph)
			a->stgraph[i]++;
		if (in >= 0) {	/* the op that captured it, replayed */
			k = row_of(a, (int)i, a->iop[a->in[in].opk],
			    a->ishapes[a->in[in].opk]);
			a->r[k].calls += call;
		} else if (k == -2)
			k = a->pool[(size_t)s * a->nst + i] = row_of(a, (int)i,
			    "(outside any op)", NULL);
		a->r[k].kern_ns += d;
		a->r[k].kernels++;
		sweep_add_shape(&a->r[k], kid, grid, block, 1, d);
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
sweep_gkind(const struct lp_rep_row *rr)
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
sweep_create(struct at *a, const struct lp_rep_row *rr, double at)
{
	const char *pid = lp_rep_pid(rr, 4), *tid = lp_rep_pid(rr, 5);
	struct ent *op = NULL;
	long in = -1;

	if (lp_map_get(a->gnode, rr->v[2], -3) != -3)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1, "graph "
		    "node %s: a second create row", rr->v[2]);
	if (*pid || *tid) {
		struct thr *t;

		if (!*pid || !*tid)
			lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[*pid ? 5 :
			    4] + 1, "Pid, Tid: a process and a thread ID, or "
			    "neither");
		t = thread_of(a, pid, tid);
		pop_until(t, at);
		op = innermost_op(t);
	}
	if (op) {
		if (op->inst < 0) {
			a->in = lp_xreallocarray(a->in, a->ninst + 1, sizeof *a->in);
			a->in[a->ninst].opk = op->opk;
			a->in[a->ninst].last = -1;
			op->inst = (long)a->ninst++;
		}
		in = op->inst;
	}
	lp_map_put(a->gnode, rr->v[2], in);
}

/* A replayed kernel: held until cuda_gpu_trace's row of it (same Start
 * and CorrId) comes, at the same time. */
void
sweep_gkernel(struct at *a, const struct lp_rep_row *rr, double at)
{
	int64_t corr;
	size_t i, j;

	a->gkrows++;
	if (!lp_rep_has(rr, 3)) {	/* nsys knew no CorrId: nothing to pair */
		a->gstale++;
		return;
	}
	corr = corr_of(rr, 3);
	for (i = j = 0; i < a->ngk; i++)	/* kernels before t had their turn */
		if (a->gk[i].t < at)
			a->gstale++;
		else
			a->gk[j++] = a->gk[i];
	a->ngk = j;
	a->gk = lp_xreallocarray(a->gk, a->ngk + 1, sizeof *a->gk);
	a->gk[a->ngk].t = at;
	a->gk[a->ngk].corr = corr;
	a->gk[a->ngk].inst = lp_map_get(a->gnode, rr->v[2], -2);
	a->ngk++;
}
