/*
 * lp-atenops: aten_ops.tsv, the GPU time of each PyTorch operator per
 * stage, from a capture made with nsys profile
 * --pytorch=autograd-shapes-nvtx: one row per (op, input shapes) of each
 * stage (-N: per op name), with its calls, kernel time, kernels per call,
 * host time per call, kernel names and share of the stage's kernel time.
 *
 * Each kernel launch call (cuda_api_trace) belongs to the innermost op
 * range open on its thread at the call's start (nvtx_pushpop_trace), and
 * the kernel's GPU time (cuda_gpu_trace) to the launch by correlation ID.
 * The three traces are sorted by start time and swept together, ranges
 * before launches before kernels at equal times; a kernel starts on the
 * GPU after its launch call starts, so only launches whose kernel has not
 * started yet are held.  Memory follows the distinct (stage, op, shapes)
 * rows, the depth of the open ranges and the kernels in flight, not the
 * number of ranges or launches.
 *
 * A CUDA graph's kernels all carry the correlation ID of its
 * cudaGraphLaunch, and PyTorch pushed their op ranges when it captured
 * the graph, not when it replays it.  With -n, lp-graphnodes' trace is
 * swept too: at each graph node's capture ("create") the op open on the
 * capturing thread is remembered for the node, and each replayed kernel
 * ("kernel": its start, CorrId and node) counts for that op, in the
 * stages open at the cudaGraphLaunch.  A graph launch is held until a
 * later launch's kernel starts on its stream (at most GMAX at once), so
 * memory follows the graph nodes and the launches in flight.
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

static const char synopsis[] =
    "lp-atenops -a cuda_api_trace.csv -c config.yaml -g cuda_gpu_trace.csv "
    "[-N] [-m metrics.tsv -d cuda_gpu_kern_sum.csv -D "
    "cuda_gpu_kern_sum_mangled.csv] [-n graph_node_trace.csv] "
    "nvtx_pushpop_trace.csv";

/* GMAX: graph launches held whose kernels may still come */
enum { MAXNAMES = 3, GMAX = 1024 };

struct shape {			/* one kernel at one launch shape, in a row */
	long kid;
	char *grid, *block;
	double n, ns;
};

struct row {
	int stage;
	char *op, *shapes;	/* shapes: NULL in the row outside any op */
	double calls, host_ns, kern_ns, kernels;
	struct shape *sh;
	size_t nsh;
	double nshapes;		/* -N: the shapes of the op */
	double flops2;		/* 2MNK of all calls */
	int no2;		/* 2MNK unknown, why2 says why */
	const char *why2;
};

struct ent {			/* an open range on a thread's stack */
	double end;
	int stage;		/* a configured stage, or -1: an op */
	long *rows;		/* op: its row in each stage open, or -1 */
	long line;
	long opk;		/* -n: the op and shapes (A.iop), else -1 */
	long inst;		/* -n: its graph-capturing instance, or -1 */
};

struct thr {
	struct ent *e;
	size_t n, cap;
};

struct pend {			/* a launch whose kernel has not started */
	int64_t corr;
	long slot;		/* rows of it: pool[slot * nst ...] */
	long seq;		/* launch calls before it */
	int graph;		/* a graph launch: many kernels, one CorrId */
};

struct glaunch {		/* a graph launch held for its kernels */
	int64_t corr;
	long seq;
	double strm;		/* the stream of its first kernel */
};

struct inst {			/* an op range that captured graph nodes */
	long opk;
	long last;		/* the graph launch (seq) that last ran it */
};

struct gkern {			/* a graph_node_trace kernel row in flight */
	double t;
	int64_t corr;
	long inst;		/* -1: captured outside ops; -2: no create row */
};

struct at {
	const char *apath, *gpath, *rpath, *cpath;
	const char *mpath, *dpath, *Dpath;
	int byname;
	size_t nst;
	const char **stnames;
	char **stranges;
	int *stseen;
	struct row *r;
	size_t nr, rcap;
	struct lp_map *ridx, *tidx, *kidx, *mangled;
	char **mangled_names;
	struct thr *t;
	size_t nt;
	struct pend *ph;	/* open addressing, corr 0 free */
	size_t phcap, phn;
	long *pool, *freel;	/* pool: a launch's row per stage, -1 none,
				 * -2 a graph launch's outside ops, not made */
	size_t npool, nfree, poolcap;
	double nops, nlaunch, nkern, nolaunch, outside_stage, maxpend;
	struct lp_sb key, op, shapes;
	/* CUDA graphs; -n: lp-graphnodes' graph_node_trace */
	const char *npath;
	struct glaunch *gwait, *gseen;	/* no kernel yet; kernels seen */
	size_t nwait, nseen;
	double *stgraph;	/* per stage: kernels from graph launches */
	double ngraph, gop, gnoop, gnorow, gstale, gdropped, gkrows;
	struct lp_map *opidx, *gnode;	/* op\x1fshapes -> iop; node -> inst */
	char **iop, **ishapes;
	struct inst *in;
	size_t ninst;
	struct gkern *gk;
	size_t ngk;
};

static struct at A;

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
pend_put(int64_t corr, int graph, const char *file, long line)
{
	size_t i;
	long s;

	if (2 * (A.phn + 1) > A.phcap)
		ph_grow();
	i = ph_find(corr);
	if (A.ph[i].corr)
		lp_die_at(LP_EXIT_DATA, file, line, 0, "CorrID %lld: a second "
		    "launch call with a correlation ID whose kernel has not "
		    "started", (long long)corr);
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

static void
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

static int64_t
corr_of(const struct lp_rep_row *rr, size_t i)
{
	double c = lp_rep_count(rr, i);

	if (c < 1 || c > 9e15)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[i] + 1,
		    "correlation ID %s: expected a whole number from 1",
		    rr->v[i]);
	return (int64_t)c;
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

static void
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
	rows = pend_put(corr = corr_of(rr, 2), graph, rr->file, rr->line);
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

static void
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

static void
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
static int
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
static void
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
static void
on_gkernel(const struct lp_rep_row *rr, double at)
{
	double corr;
	size_t i, j;

	A.gkrows++;
	if (!lp_rep_has(rr, 3)) {	/* nsys knew no CorrId: nothing to pair */
		A.gstale++;
		return;
	}
	corr = (double)corr_of(rr, 3);
	for (i = j = 0; i < A.ngk; i++)	/* kernels before t had their turn */
		if (A.gk[i].t < at)
			A.gstale++;
		else
			A.gk[j++] = A.gk[i];
	A.ngk = j;
	A.gk = lp_xreallocarray(A.gk, A.ngk + 1, sizeof *A.gk);
	A.gk[A.ngk].t = at;
	A.gk[A.ngk].corr = (int64_t)corr;
	A.gk[A.ngk].inst = lp_map_get(A.gnode, rr->v[2], -2);
	A.ngk++;
}

/* ---- reading: the three traces merged in time order ---- */

struct src {
	struct lp_rep_in *p;
	const struct lp_rep_row *rr;
	double t, last;
	long lastline;
};

/* The sources' order at one time: the graph nodes (3) before the kernels
 * (2), since a replayed kernel waits for its node's row. */
static int
order(int i)
{
	return i == 3 ? 2 : i == 2 ? 3 : i;
}

static void
advance(struct src *s)
{
	if (!(s->rr = lp_rep_next(s->p)))
		return;
	s->t = lp_rep_time(s->rr, 0);
	if (s->t < s->last)
		lp_die_at(LP_EXIT_DATA, s->rr->file, s->rr->line, s->rr->col[0] + 1,
		    "%s: starts before the row on line %ld: the trace is not "
		    "sorted by start time (as nsys and lp-graphnodes write it)",
		    s->rr->v[0],
		    s->lastline);
	s->last = s->t;
	s->lastline = s->rr->line;
}

static void
load(void)
{
	static const char *const rcols[] = { "Start", "End", "Name", "PID",
		"TID" };
	static const char *const acols[] = { "Start", "Name", "CorrID", "Pid",
		"Tid" };
	static const char *const ncols[] = { "Start", "Event", "Graph Node ID",
		"?CorrId", "?Pid", "?Tid" };
	static const char *const gcols[] = { "Start", "Duration", "CorrId",
		"GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ", "Name", "?Strm" };
	struct src s[4];
	int i, k, n = A.npath ? 4 : 3;

	/* at one time: ranges, then launches, then graph nodes, then kernels */
	s[0].p = lp_rep_open(A.rpath, "nsys stats --report nvtx_pushpop_trace",
	    rcols, 5);
	s[1].p = lp_rep_open(A.apath, "nsys stats --report cuda_api_trace",
	    acols, 5);
	s[2].p = lp_rep_open(A.gpath, "nsys stats --report cuda_gpu_trace",
	    gcols, 11);
	if (A.npath) {
		s[3].p = lp_rep_open(A.npath, "lp-graphnodes output", ncols, 6);
		lp_rep_empty_ok(s[3].p);	/* a capture without graphs */
	}
	for (i = 0; i < n; i++) {
		s[i].last = -1;
		s[i].lastline = 0;
		advance(&s[i]);
	}
	for (;;) {
		for (k = -1, i = 0; i < n; i++)	/* ties: the order above */
			if (s[i].rr && (k < 0 || s[i].t < s[k].t || (s[i].t ==
			    s[k].t && order(i) < order(k))))
				k = i;
		if (k < 0)
			break;
		if (k == 0)
			on_range(s[0].rr);
		else if (k == 1)
			on_launch(s[1].rr, s[1].t);
		else if (k == 2)
			on_kernel(s[2].rr);
		else if (gkind(s[3].rr))
			on_gkernel(s[3].rr, s[3].t);
		else
			on_create(s[3].rr, s[3].t);
		advance(&s[k]);
	}
	for (i = 0; i < n; i++)
		lp_rep_close(s[i].p);
	A.gstale += (double)A.ngk;
	if (!A.nops)
		lp_die_at(LP_EXIT_DATA, A.rpath, 0, 0, "no PyTorch op ranges (names "
		    "like \":aten::mm, op_id = 7, sizes = [[64, 768], [768, "
		    "2304]]\"): capture with nsys profile "
		    "--pytorch=autograd-shapes-nvtx (make ... OPS=aten)");
}

/* ---- ncu: FLOPs and DRAM bytes per launch of a kernel at a shape ---- */

struct ncu {
	double flops, tflops, bytes, ns, f[LP_FP_N];	/* per launch */
	int have_flops, have_bytes;
};

static struct ncu *ncu;		/* by lp_map index of "mangled\x1fgrid\x1fblock" */
static struct lp_map *ncuidx;

static void
load_names(void)
{
	struct lp_ksum d, m;
	FILE *f;
	const char *name;
	long *to;
	size_t i;

	f = lp_open_in(A.dpath, &name);
	lp_ksum_read(&d, f, name, NULL, NULL);
	lp_close_in(f);
	f = lp_open_in(A.Dpath, &name);
	lp_ksum_read(&m, f, name, NULL, NULL);
	lp_close_in(f);
	to = lp_ksum_pair(&d, &m);
	for (i = 0; i < d.n; i++)
		if (to[i] >= 0)
			lp_map_put(A.mangled, d.k[i].name, to[i]);
	free(to);
	A.mangled_names = lp_xcalloc(m.n + 1, sizeof *A.mangled_names);
	for (i = 0; i < m.n; i++)
		A.mangled_names[i] = lp_xstrdup(m.k[i].name);
	lp_ksum_free(&d);
	lp_ksum_free(&m);
}

static void
load_ncu(void)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, A.mpath, "lp-ncu2tsv");
	int ck, cl, cg, cb, cf, ct, cd, cn, cp[LP_FP_N], q;
	double l;
	struct lp_sb k = { 0 };

	ck = lp_csv_need(&t.hdr, "kernel", "lp-ncu2tsv output");
	cl = lp_csv_need(&t.hdr, "launches", "lp-ncu2tsv output");
	cg = lp_csv_need(&t.hdr, "grid", "lp-ncu2tsv output");
	cb = lp_csv_need(&t.hdr, "block", "lp-ncu2tsv output");
	cf = lp_csv_need(&t.hdr, "flops", "lp-ncu2tsv output");
	ct = lp_csv_need(&t.hdr, "flops_tensor", "lp-ncu2tsv output");
	cd = lp_csv_need(&t.hdr, "dram_bytes", "lp-ncu2tsv output");
	cn = lp_csv_need(&t.hdr, "gpu_time_ns", "lp-ncu2tsv output");
	for (q = 0; q < LP_FP_N; q++) {
		lp_sb_reset(&k);
		lp_sb_printf(&k, "flops_%s", lp_fp_names[q]);
		cp[q] = lp_csv_need(&t.hdr, lp_sb_str(&k), "lp-ncu2tsv output");
	}
	ncuidx = lp_map_new();
	while (lp_tsv_next(&t)) {
		struct ncu *n;
		size_t i = lp_map_len(ncuidx);

		if (!lp_tab_num(&t, cl, &l) || !(l > 0))
			lp_die_at(LP_EXIT_DATA, A.mpath, t.line, cl + 1,
			    "launches: expected a number above 0");
		lp_sb_reset(&k);
		lp_sb_printf(&k, "%s\x1f%s\x1f%s", lp_tsv_get(&t, ck),
		    lp_tsv_get(&t, cg), lp_tsv_get(&t, cb));
		lp_map_put(ncuidx, lp_sb_str(&k), (long)i);
		ncu = lp_xreallocarray(ncu, i + 1, sizeof *ncu);
		n = &ncu[i];
		memset(n, 0, sizeof *n);
		if (!lp_tab_num(&t, ct, &n->tflops))
			n->tflops = NAN;
		n->have_flops = lp_tab_num(&t, cf, &n->flops);
		if (!n->have_flops && isfinite(n->tflops)) {
			n->flops = n->tflops;
			n->have_flops = 1;
		}
		n->have_bytes = lp_tab_num(&t, cd, &n->bytes);
		n->flops /= l;
		n->tflops /= l;
		n->bytes /= l;
		if (lp_tab_num(&t, cn, &n->ns))
			n->ns /= l;
		else
			n->ns = NAN;
		for (q = 0; q < LP_FP_N; q++)
			if (lp_tab_num(&t, cp[q], &n->f[q]))
				n->f[q] /= l;
	}
	lp_sb_free(&k);
	lp_tsv_close(&t);
	fclose(fp);
}

/* ---- compute: rows by op name (-N), each stage's total, the order ---- */

static double *stage_ns;
static double *cov_ns, *cov_kern;	/* per stage: in ops with shapes; kernels */

static void
group_by_name(void)
{
	struct row *g = NULL;
	size_t ng = 0, i, j;
	struct lp_map *idx = lp_map_new();

	for (i = 0; i < A.nr; i++) {
		struct row *r = &A.r[i];
		long at;

		lp_sb_reset(&A.key);
		lp_sb_printf(&A.key, "%d\x1f%s\x1f%d", r->stage, r->op, !r->shapes);
		if ((at = lp_map_get(idx, lp_sb_str(&A.key), -1)) < 0) {
			g = lp_xreallocarray(g, ng + 1, sizeof *g);
			memset(&g[ng], 0, sizeof *g);
			g[ng].stage = r->stage;
			g[ng].op = lp_xstrdup(r->op);
			lp_map_put(idx, lp_sb_str(&A.key), at = (long)ng++);
		}
		g[at].calls += r->calls;
		g[at].host_ns += r->host_ns;
		g[at].kern_ns += r->kern_ns;
		g[at].kernels += r->kernels;
		/* shapes: how many, kept as text; the launch shapes merged */
		g[at].nshapes += r->shapes != NULL;
		g[at].flops2 += r->flops2;
		g[at].no2 |= r->no2;
		for (j = 0; j < r->nsh; j++)
			add_shape(&g[at], r->sh[j].kid, r->sh[j].grid,
			    r->sh[j].block, r->sh[j].n, r->sh[j].ns);
	}
	lp_map_free(idx);
	for (i = 0; i < A.nr; i++) {
		free(A.r[i].op);
		free(A.r[i].shapes);
		for (j = 0; j < A.r[i].nsh; j++) {
			free(A.r[i].sh[j].grid);
			free(A.r[i].sh[j].block);
		}
		free(A.r[i].sh);
	}
	free(A.r);
	A.r = g;
	A.nr = ng;
}

static int
cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	if (x->kern_ns != y->kern_ns)
		return x->kern_ns > y->kern_ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if ((c = strcmp(x->op, y->op)))
		return c;
	return strcmp(x->shapes ? x->shapes : "", y->shapes ? y->shapes : "");
}

static int
cmp_shape(const void *a, const void *b)
{
	const struct shape *x = a, *y = b;

	return x->ns != y->ns ? (x->ns > y->ns ? -1 : 1) : 0;
}

static void
compute(void)
{
	size_t i;
	const char *why;

	cov_ns = lp_xcalloc(A.nst, sizeof *cov_ns);
	cov_kern = lp_xcalloc(A.nst, sizeof *cov_kern);
	for (i = 0; i < A.nr; i++) {
		struct row *r = &A.r[i];
		double f;

		if (r->shapes && *r->shapes)
			cov_ns[r->stage] += r->kern_ns;
		cov_kern[r->stage] += r->kernels;
		r->no2 = !r->shapes || !lp_aten_2mnk(r->op, r->shapes, &f, &why);
		r->flops2 = r->no2 ? 0 : f * r->calls;
		r->why2 = r->no2 ? (r->shapes ? why : "kernels launched outside "
		    "every op range") : NULL;
	}
	if (A.byname)
		group_by_name();
	stage_ns = lp_xcalloc(A.nst, sizeof *stage_ns);
	for (i = 0; i < A.nr; i++) {
		stage_ns[A.r[i].stage] += A.r[i].kern_ns;
		lp_qsort(A.r[i].sh, A.r[i].nsh, sizeof *A.r[i].sh, cmp_shape);
	}
	lp_qsort(A.r, A.nr, sizeof *A.r, cmp_rows);
}

/* ---- emit ---- */

static FILE *out;

static void
names_cell(struct lp_row *o, const struct row *r)
{
	struct lp_sb b = { 0 };
	char *l, *seen[MAXNAMES];
	size_t i, j, shown = 0, more = 0;

	/* the row's kernels by their time, each label once */
	for (i = 0; i < r->nsh; i++) {
		l = lp_kname_label(lp_map_key(A.kidx, (size_t)r->sh[i].kid));
		for (j = 0; j < shown && strcmp(seen[j], l); j++)
			;
		if (j < shown || shown == MAXNAMES) {
			more += j == shown;
			free(l);
			continue;
		}
		lp_sb_printf(&b, "%s%s", shown ? "; " : "", l);
		seen[shown++] = l;
	}
	if (more)
		lp_sb_printf(&b, "; and %zu more", more);
	lp_row_text(o, b.len ? lp_sb_str(&b) : "-");
	for (j = 0; j < shown; j++)
		free(seen[j]);
	lp_sb_free(&b);
}

static const struct ncu *
ncu_of(const struct shape *s)
{
	const char *k = lp_map_key(A.kidx, (size_t)s->kid);
	long m = A.mangled ? lp_map_get(A.mangled, k, -1) : -1;
	long i;

	lp_sb_reset(&A.key);
	lp_sb_printf(&A.key, "%s\x1f%s\x1f%s", m >= 0 ? A.mangled_names[m] : k,
	    s->grid, s->block);
	i = lp_map_get(ncuidx, lp_sb_str(&A.key), -1);
	return i >= 0 ? &ncu[i] : NULL;
}

enum { NCU_CELLS = 6 };

/* ncu's FLOPs, of them on the tensor cores (2MNK's peer), DRAM bytes,
 * FLOP/byte, the precision of most FLOPs and ncu's time, per call, over the kernels of the row at their shapes
 * (the op's roofline position: lp-oproof) */
static void
ncu_cells(struct lp_row *o, const struct row *r)
{
	double f = 0, tf = 0, by = 0, ns = 0, fq[LP_FP_N] = { 0 };
	size_t i;
	int q, dom = -1;

	if (!A.mpath || !r->nsh) {
		for (i = 0; i < NCU_CELLS; i++)
			lp_row_na(o, "%s", !r->nsh ? "no kernel" : "no ncu metrics "
			    "(metrics.tsv, -m)");
		return;
	}
	for (i = 0; i < r->nsh; i++) {
		const struct ncu *n = ncu_of(&r->sh[i]);

		if (!n || !n->have_flops || !n->have_bytes) {
			const struct shape *sh = &r->sh[i];
			char *l = lp_kname_label(lp_map_key(A.kidx,
			    (size_t)sh->kid));
			int c;

			for (c = 0; c < NCU_CELLS; c++)
				lp_row_na(o, "ncu %s %s at grid %s, block %s",
				    n ? "counted no FLOPs or no DRAM bytes of" :
				    "did not profile", l, sh->grid, sh->block);
			free(l);
			return;
		}
		f += n->flops * r->sh[i].n;
		tf += n->tflops * r->sh[i].n;
		by += n->bytes * r->sh[i].n;
		ns += n->ns * r->sh[i].n;
		for (q = 0; q < LP_FP_N; q++)
			fq[q] += n->f[q] * r->sh[i].n;
	}
	for (q = 0; q < LP_FP_N; q++)
		if (fq[q] > 0 && (dom < 0 || fq[q] > fq[dom]))
			dom = q;
	lp_row_num(o, f / r->calls, 0);
	if (isfinite(tf))
		lp_row_num(o, tf / r->calls, 0);
	else
		lp_row_na(o, "the ncu export lacks the tensor-core counters");
	lp_row_num(o, by / r->calls, 0);
	if (by > 0)
		lp_row_num(o, f / by, 2);
	else
		lp_row_na(o, "no DRAM bytes");
	if (dom >= 0)
		lp_row_text(o, lp_fp_names[dom]);
	else
		lp_row_na(o, "ncu counted no FLOPs");
	if (isfinite(ns))
		lp_row_num(o, ns / r->calls, 1);
	else
		lp_row_na(o, "the ncu export lacks gpu__time_duration.sum");
}

static void
emit_row(const struct row *r)
{
	struct lp_row o = { 0 };
	int out_op = !r->shapes && !r->nshapes;

	lp_row_text(&o, A.stnames[r->stage]);
	lp_row_text(&o, r->op);
	if (A.byname)
		lp_row_num(&o, r->nshapes, 0);
	else
		lp_row_text(&o, r->shapes ? r->shapes : "-");
	lp_row_num(&o, r->calls, 0);
	lp_row_num(&o, r->kern_ns, 0);
	if (stage_ns[r->stage] > 0)
		lp_row_num(&o, 100 * r->kern_ns / stage_ns[r->stage], 2);
	else
		lp_row_na(&o, "no kernel time in the stage");
	lp_row_num(&o, r->kernels, 0);
	if (out_op) {
		lp_row_na(&o, "kernels outside every op range are not calls");
		lp_row_na(&o, "kernels outside every op range are not calls");
		lp_row_na(&o, "no op range");
	} else {
		lp_row_num(&o, r->kernels / r->calls, 2);
		lp_row_num(&o, r->kern_ns / r->calls, 1);
		lp_row_num(&o, r->host_ns / r->calls, 1);
	}
	names_cell(&o, r);
	if (r->no2)
		lp_row_na(&o, "%s", A.byname ? "not every shape of it is a "
		    "matrix product with sizes" : r->why2);
	else
		lp_row_num(&o, r->flops2 / r->calls, 0);
	ncu_cells(&o, r);
	lp_row_end(&o, out);
	lp_sb_free(&o.b);
}

/* Where the kernels of CUDA graph launches went; nothing for a capture
 * without them. */
static void
graph_notes(void)
{
	struct lp_sb b = { 0 };

	if (A.ngraph > 0 && !A.npath)
		lp_tab_meta(out, "note", "%.0f kernels ran from CUDA graph "
		    "launches (cudaGraphLaunch): each counts for the op open at "
		    "the launch call, \"(outside any op)\" when none, not for the "
		    "op that captured it (PyTorch pushes op ranges when a graph "
		    "is captured, not when it is replayed). lp-graphnodes(1) on "
		    "the sqlite export of a capture made with nsys profile "
		    "--cuda-graph-trace=node gives that op (-n).", A.ngraph);
	if (A.npath && (A.ngraph > 0 || A.gkrows > 0)) {
		lp_sb_printf(&b, "%.0f kernels ran from CUDA graph launches: "
		    "%.0f counted for the op open on the capturing thread when "
		    "their graph node was captured, in the stages open at the "
		    "cudaGraphLaunch (a call: one replay of the op; no host "
		    "time)", A.ngraph, A.gop);
		if (A.gnoop > 0)
			lp_sb_printf(&b, "; %.0f whose node was captured outside "
			    "every op range", A.gnoop);
		if (A.gnorow > 0)
			lp_sb_printf(&b, "; %.0f with no kernel row (Start, "
			    "CorrId) or no create row in %s", A.gnorow, A.npath);
		if (A.gnoop > 0 || A.gnorow > 0)
			lp_sb_adds(&b, " (these count for the op open at the "
			    "launch call, \"(outside any op)\" when none)");
		if (A.gstale > 0)
			lp_sb_printf(&b, "; %.0f of its %.0f kernel rows matched "
			    "no kernel of cuda_gpu_trace (another capture's "
			    "export?)", A.gstale, A.gkrows);
		lp_tab_meta(out, "note", "%s.", lp_sb_str(&b));
	}
	if (A.gdropped > 0)
		lp_tab_meta(out, "note", "%.0f CUDA graph launches were let go "
		    "with more than %d held at once: a kernel of theirs that ran "
		    "later has no launch call (a graph that nsys traced whole, "
		    "--cuda-graph-trace=graph, has no kernels to wait for)",
		    A.gdropped, GMAX);
	lp_sb_free(&b);
}

static void
emit_meta(void)
{
	size_t i;
	struct lp_sb b = { 0 };

	lp_tab_meta(out, "title", "%s", A.byname ? "Top Operators (PyTorch ops, "
	    "by name)" : "Top Operators (PyTorch ops by input shapes)");
	lp_tab_meta(out, "tool", "lp-atenops");
	lp_tab_meta(out, "source", "op ranges of nsys profile "
	    "--pytorch=autograd-shapes-nvtx and the stages' ranges from nsys "
	    "nvtx_pushpop_trace (%s); kernel launch calls from nsys "
	    "cuda_api_trace (%s); each kernel's GPU time by correlation ID from "
	    "nsys cuda_gpu_trace (%s); stages from %s%s%s%s%s%s%s%s%s", A.rpath,
	    A.apath, A.gpath, A.cpath, A.mpath ? "; FLOPs and DRAM bytes per "
	    "launch shape from ncu (" : "", A.mpath ? A.mpath : "", A.mpath ?
	    ", kernel names paired by " : "", A.mpath ? A.dpath : "", A.mpath ?
	    ")" : "", A.npath ? "; the op that captured each CUDA graph "
	    "kernel's node from lp-graphnodes' graph_node_trace (" : "",
	    A.npath ? A.npath : "", A.npath ? ")" : "");
	lp_tab_meta(out, "link", "%s", A.byname ? "aten_opnames.tsv" :
	    "aten_ops.tsv");
	lp_tab_meta(out, "note", "A kernel counts for the innermost op range "
	    "open on its launching thread when the launch call starts "
	    "(aten::linear > aten::matmul > aten::mm: the mm), in every stage "
	    "open there; op_id, seq and input_op_ids are left out of the op, so "
	    "the calls of one op with one set of input shapes are one row. "
	    "Share: of the kernel time launched inside the stage. 2MNK: from "
	    "the input shapes of mm, addmm, bmm, linear and matmul, beside "
	    "ncu's tensor-core FLOPs, which count whole tiles (more than 2MNK "
	    "where a tile does not divide M or N: 8 rows for 1); ncu's total "
	    "adds the CUDA-core FLOPs (an addmm's bias: M x N).");
	lp_tab_meta(out, "note", "%.0f op ranges, %.0f kernel launch calls, "
	    "%.0f kernels; at most %.0f launches held at once%s", A.nops,
	    A.nlaunch, A.nkern, A.maxpend, A.nolaunch > 0 ? "" : ".");
	if (A.nolaunch > 0)
		lp_tab_meta(out, "note", "%.0f kernels have no launch call in "
		    "cuda_api_trace before them (CorrId): counted in no row",
		    A.nolaunch);
	graph_notes();
	for (i = 0; i < A.nst; i++)
		if (!A.stseen[i])
			lp_sb_printf(&b, "%s%s (%s)", b.len ? ", " : "",
			    A.stnames[i], A.stranges[i]);
	if (b.len)
		lp_tab_meta(out, "note", "Stages with no instance in the trace: "
		    "%s.", lp_sb_str(&b));
	lp_sb_free(&b);
	for (i = 0; i < A.nst; i++) {
		if (!A.stseen[i])
			continue;
		if (stage_ns[i] > 0)
			lp_tab_meta(out, "coverage", "%s: %.1f %% of its kernel "
			    "time (%.0f kernels, of which %.0f from CUDA graphs) in "
			    "ops with input shapes", A.stnames[i], 100 * cov_ns[i] /
			    stage_ns[i], cov_kern[i], A.stgraph[i]);
		else
			lp_tab_meta(out, "coverage", "%s: no kernel time (%.0f "
			    "kernels, of which %.0f from CUDA graphs)",
			    A.stnames[i], cov_kern[i], A.stgraph[i]);
	}
}

static void
emit(void)
{
	static const struct lp_col cols[] = {
		{ "stage", "Stage", "text" }, { "op", "Op", "code" },
		{ "shapes", "Input shapes", "code" }, { "calls", "Calls", "int" },
		{ "kernel_ns", "GPU time (ms)", "ms" },
		{ "share_pct", "Share", "pct" }, { "kernels", "Kernels", "int" },
		{ "kernels_per_call", "Kernels / call", "num2" },
		{ "kernel_ns_per_call", "GPU / call (us)", "us" },
		{ "host_ns_per_call", "Host / call (us)", "us" },
		{ "kernel_names", "Kernels (by time)", "code" },
		{ "flops_2mnk_per_call", "2MNK / call", "flop" },
		{ "ncu_flops_per_call", "ncu FLOPs / call", "flop" },
		{ "ncu_tensor_flops_per_call", "of them tensor", "flop" },
		{ "ncu_dram_bytes_per_call", "ncu DRAM / call", "bytes" },
		{ "ncu_flop_per_byte", "FLOP / byte", "num2" },
		{ "ncu_precision", "ncu precision", "hide" },
		{ "ncu_ns_per_call", "ncu time / call", "hide" },
	};
	struct lp_col c[sizeof cols / sizeof cols[0]];
	size_t i;

	memcpy(c, cols, sizeof c);
	if (A.byname)
		c[2] = (struct lp_col){ "shapes", "Shapes", "int" };
	emit_meta();
	lp_tab_meta(out, "key", "%s", A.byname ? "stage op" : "stage op shapes");
	lp_tab_header(out, c, sizeof c / sizeof c[0]);
	for (i = 0; i < A.nr; i++)
		emit_row(&A.r[i]);
}

static void
stages(void)
{
	struct lp_ynode *cfg = lp_yaml_load_path(A.cpath);
	size_t i;

	A.nst = lp_stage_ranges(cfg, A.cpath, &A.stnames, &A.stranges);
	A.stseen = lp_xcalloc(A.nst, sizeof *A.stseen);
	for (i = 0; i < A.nst; i++)
		A.stnames[i] = lp_xstrdup(A.stnames[i]);
	lp_yaml_free(cfg);
}

int
main(int argc, char **argv)
{
	int c;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "a:c:D:d:g:hm:Nn:")) != -1) {
		switch (c) {
		case 'a': A.apath = optarg; break;
		case 'c': A.cpath = optarg; break;
		case 'D': A.Dpath = optarg; break;
		case 'd': A.dpath = optarg; break;
		case 'g': A.gpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'm': A.mpath = optarg; break;
		case 'N': A.byname = 1; break;
		case 'n': A.npath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (!A.apath || !A.cpath || !A.gpath || argc - optind != 1 ||
	    (A.mpath && (!A.dpath || !A.Dpath)) || (!A.mpath && (A.dpath ||
	    A.Dpath)))
		lp_usage(synopsis);
	A.rpath = argv[optind];
	A.ridx = lp_map_new();
	A.tidx = lp_map_new();
	A.kidx = lp_map_new();
	A.opidx = lp_map_new();
	A.gnode = lp_map_new();
	stages();
	A.stgraph = lp_xcalloc(A.nst, sizeof *A.stgraph);
	if (A.mpath) {
		A.mangled = lp_map_new();
		load_names();
		load_ncu();
	}
	load();
	compute();
	emit();
	lp_tab_done(out);
	return 0;
}
