/*
 * lp-graphnodes: graph_node_trace.csv, where each kernel run from a CUDA
 * graph was captured, from nsys's sqlite export of a capture made with
 * nsys profile --cuda-graph-trace=node.
 *
 * PyTorch pushes its op ranges when a graph is captured, not when it is
 * replayed, and every kernel of a replay carries the correlation ID of
 * its cudaGraphLaunch.  The export ties a replayed kernel to its node
 * (CUPTI_ACTIVITY_KIND_KERNEL.graphNodeId); instantiating a graph clones
 * its nodes (CUDA_GRAPH_NODE_EVENTS.originalGraphNodeId: the node it
 * copies), and the node made by stream capture has a creation event at
 * the captured launch, on the capturing thread.  Following the clones
 * back to that root gives the time and thread where the op that launched
 * the kernel was open (lp-atenops -n).
 *
 * Memory holds one entry per graph node; the kernel rows stream from the
 * query.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "util.h"
#include "nsql.h"
#include "table.h"

static const char synopsis[] = "lp-graphnodes report.sqlite";

struct node {
	int64_t id, orig, start, gtid;
	int has_orig, has_create, has_tid, used;
	long root;		/* index of its root; -1 none; -2 not known yet */
};

static const char *path;
static sqlite3 *db;
static struct node *nd;
static size_t nn, ncap;
static struct lp_map *nidx;	/* decimal id -> index in nd */


/* A CSV field as RFC 4180 writes it: quoted where it holds a comma, a
 * quote or a line break, a quote doubled.  The numbers written here need
 * none of it; the header and any other text might. */
static void
cell(const char *s, int last)
{
	lp_csv_put(stdout, s, 0);
	putchar(last ? '\n' : ',');
}

static void
cell_i64(int64_t v, int have, int last)
{
	char b[32];

	if (have)
		snprintf(b, sizeof b, "%" PRId64, v);
	else
		b[0] = '\0';
	cell(b, last);
}

/* ---- the sqlite file ---- */



static void
need_tables(void)
{
	if (!lp_sql_has_table(db, path, "StringIds"))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "not an nsys export: no table "
		    "StringIds (nsys export --type sqlite; nsys stats writes "
		    "REPORT.sqlite beside REPORT.nsys-rep)");
	if (!lp_sql_has_table(db, path, "CUPTI_ACTIVITY_KIND_KERNEL"))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "no table "
		    "CUPTI_ACTIVITY_KIND_KERNEL: the capture traced no CUDA "
		    "kernels (nsys profile --trace=cuda)");
}



/* Kernels that ran from a CUDA graph node (nsys --cuda-graph-trace=node). */
static int64_t
graph_kernels(void)
{
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
	    "WHERE graphNodeId IS NOT NULL");
	int64_t n = lp_sql_step(db, path, st) ? sqlite3_column_int64(st, 0) : 0;

	sqlite3_finalize(st);
	return n;
}

/* ---- the nodes ---- */

static long
node_of(int64_t id, int add)
{
	char k[32];
	long i;

	snprintf(k, sizeof k, "%" PRId64, id);
	if ((i = lp_map_get(nidx, k, -1)) >= 0 || !add)
		return i;
	if (nn == ncap) {
		ncap = ncap ? 2 * ncap : 1024;
		nd = lp_xreallocarray(nd, ncap, sizeof *nd);
	}
	memset(&nd[nn], 0, sizeof *nd);
	nd[nn].id = id;
	nd[nn].root = -2;
	lp_map_put(nidx, k, i = (long)nn++);
	return i;
}

/*
 * Each node's earliest creation event without an original (the moment and
 * thread that made it) and the node it was cloned from (the earliest
 * event that names one).  A node instantiated from a captured graph may
 * have both: the clone's link wins.
 */
static void
load_nodes(void)
{
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT e.graphNodeId, e.originalGraphNodeId, "
	    "e.start, e.globalTid FROM CUDA_GRAPH_NODE_EVENTS AS e JOIN "
	    "StringIds AS s ON s.id = e.nameId WHERE s.value = 'Graph Node "
	    "Creation' ORDER BY e.start, e.rowid");

	while (lp_sql_step(db, path, st)) {
		long i = node_of(sqlite3_column_int64(st, 0), 1);	/* moves nd */
		struct node *n = &nd[i];

		/* the types first: a value read as a number may change them */
		if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
			if (!n->has_orig) {
				n->orig = sqlite3_column_int64(st, 1);
				n->has_orig = 1;
			}
		} else if (!n->has_create) {
			n->start = sqlite3_column_int64(st, 2);
			n->has_tid = sqlite3_column_type(st, 3) != SQLITE_NULL;
			n->gtid = sqlite3_column_int64(st, 3);
			n->has_create = 1;
		}
	}
	sqlite3_finalize(st);
}

/* The root a node was cloned from, through any number of clones; -1 where
 * a link leads to no known node or back into the chain.  Each node on the
 * way is marked (-3) and then given the answer, so each is walked once. */
static long
root_of(long i)
{
	long j = i, r;

	while (j >= 0 && nd[j].root == -2 && nd[j].has_orig) {
		nd[j].root = -3;
		j = node_of(nd[j].orig, 0);
	}
	if (j < 0 || nd[j].root == -3)
		r = -1;
	else if (nd[j].root != -2)
		r = nd[j].root;
	else
		r = nd[j].root = nd[j].has_create ? j : -1;
	for (j = i; j >= 0 && nd[j].root == -3; j = node_of(nd[j].orig, 0))
		nd[j].root = r;
	return r;
}

/* The roots that some kernel ran from, by creation time. */
static int
cmp_root(const void *a, const void *b)
{
	const struct node *x = &nd[*(const long *)a], *y = &nd[*(const long *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static long *
used_roots(size_t *n)
{
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT DISTINCT graphNodeId FROM "
	    "CUPTI_ACTIVITY_KIND_KERNEL WHERE graphNodeId IS NOT NULL");
	long *r, i, j;

	while (lp_sql_step(db, path, st))
		if ((i = node_of(sqlite3_column_int64(st, 0), 0)) >= 0 &&
		    (j = root_of(i)) >= 0)
			nd[j].used = 1;
	sqlite3_finalize(st);
	r = lp_xcalloc(nn, sizeof *r);
	for (*n = 0, i = 0; (size_t)i < nn; i++)
		if (nd[i].used)
			r[(*n)++] = i;
	lp_qsort(r, *n, sizeof *r, cmp_root);
	return r;
}

/* ---- the trace ---- */

static void
emit_create(const struct node *n)
{
	cell_i64(n->start, 1, 0);
	cell("create", 0);
	cell_i64(n->id, 1, 0);
	cell("", 0);
	cell_i64((n->gtid >> 24) & 0xFFFFFF, n->has_tid, 0);
	cell_i64(n->gtid & 0xFFFFFF, n->has_tid, 1);
}

static void
emit(void)
{
	sqlite3_stmt *st;
	size_t nr, at = 0;
	long *roots = used_roots(&nr), i, j;
	int64_t t, unresolved = 0, kernels = 0;

	cell("Start (ns)", 0);
	cell("Event", 0);
	cell("Graph Node ID", 0);
	cell("CorrId", 0);
	cell("Pid", 0);
	cell("Tid", 1);
	st = lp_sql_query(db, path, "SELECT start, correlationId, globalPid, graphNodeId FROM "
	    "CUPTI_ACTIVITY_KIND_KERNEL WHERE graphNodeId IS NOT NULL "
	    "ORDER BY start, correlationId, graphNodeId");
	while (lp_sql_step(db, path, st)) {
		/* the types first: a value read as a number may change them */
		int hc = sqlite3_column_type(st, 1) != SQLITE_NULL,
		    hp = sqlite3_column_type(st, 2) != SQLITE_NULL;
		int64_t id = sqlite3_column_int64(st, 3),
		    gp = sqlite3_column_int64(st, 2),
		    corr = sqlite3_column_int64(st, 1);

		t = sqlite3_column_int64(st, 0);
		for (; at < nr && nd[roots[at]].start <= t; at++)
			emit_create(&nd[roots[at]]);
		kernels++;
		if ((i = node_of(id, 0)) >= 0 && (j = root_of(i)) >= 0)
			id = nd[j].id;
		else
			unresolved++;
		cell_i64(t, 1, 0);
		cell("kernel", 0);
		cell_i64(id, 1, 0);
		cell_i64(corr, hc, 0);
		cell_i64((gp >> 24) & 0xFFFFFF, hp, 0);
		cell("", 1);
	}
	sqlite3_finalize(st);
	for (; at < nr; at++)
		emit_create(&nd[roots[at]]);
	free(roots);
	if (unresolved)
		lp_warn("%s: %" PRId64 " of %" PRId64 " graph kernels have a node "
		    "that leads to no node made by stream capture (no creation "
		    "event at the end of its originalGraphNodeId links): written "
		    "with their own node ID", path, unresolved, kernels);
}

int
main(int argc, char **argv)
{
	int c;

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "h")) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		default: lp_usage(synopsis);
		}
	}
	if (argc - optind != 1)
		lp_usage(synopsis);
	path = argv[optind];
	nidx = lp_map_new();
	db = lp_sql_open(path);
	need_tables();
	/* nsys writes no node table for a capture without graphs (an eager
	 * run): then no kernel is a graph's and the trace is its header */
	if (lp_sql_has_table(db, path, "CUDA_GRAPH_NODE_EVENTS"))
		load_nodes();
	else if (graph_kernels() > 0)
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "no table "
		    "CUDA_GRAPH_NODE_EVENTS, yet kernels ran from graph nodes: "
		    "not an nsys export lp knows");
	emit();
	if (sqlite3_close(db) != SQLITE_OK)
		lp_sql_die(db, path, "closing");
	lp_close_stdout();
	return 0;
}
