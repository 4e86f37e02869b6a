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
 * The nodes and their roots are tables of SQLite's temporary database,
 * not in memory (load_nodes); the kernel rows and the create rows stream
 * from queries.
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

static const char *path;
static sqlite3 *db;


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
	/* the columns read, named as the export names them */
	sqlite3_finalize(lp_sql_query(db, path, "SELECT start, correlationId, "
	    "globalPid, graphNodeId FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 0"));
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

/*
 * The nodes live in tables of SQLite's temporary database (a file SQLite
 * removes), not in memory: instantiating a graph clones every node, so an
 * export of clones of clones has a node for nearly every row, and holding
 * them took 3 bytes of memory per byte of export.  Memory is SQLite's
 * page cache (16 MiB); the tables and sorts take up to 1.4 times the
 * export's size on disk, in SQLITE_TMPDIR, else TMPDIR, else /var/tmp.
 *
 * temp.node: each node's earliest creation event without an original
 * (the moment and thread that made it) and the node it was cloned from
 * (the earliest event that names one); a node instantiated from a
 * captured graph may have both: the clone's link wins.  Events at one
 * time are taken by their content (the lowest original, the lowest
 * thread), rowid only between equal ones: nsys 2025.6 does not promise
 * the table's order.  Values are read as sqlite3_column_int64 reads them
 * (CAST; NULL is 0); has_tid says whether globalTid was NULL.  A node
 * without an original is a root.
 *
 * temp.root: each node's root, following the links down from every root
 * (a recursive query over an index of the links, each node reached once):
 * a node whose links lead to no known node, or back into themselves, is
 * reached from no root and has none.
 */
static const char schema_sql[] =
    "PRAGMA temp_store = FILE; PRAGMA temp.journal_mode = OFF;"
    "PRAGMA temp.cache_size = -16384;"
    "CREATE TEMP TABLE node (id INTEGER PRIMARY KEY, orig INTEGER, "
    "  start INTEGER, gtid INTEGER, has_tid INTEGER);"
    "CREATE TEMP TABLE root (id INTEGER PRIMARY KEY, root INTEGER NOT NULL);";
#define CREATION "WITH creation AS (SELECT ifnull(CAST(e.graphNodeId AS " \
    "  INTEGER), 0) AS id, e.originalGraphNodeId AS orig, e.start AS start, " \
    "  e.globalTid AS gtid, e.rowid AS r FROM CUDA_GRAPH_NODE_EVENTS AS e " \
    "  JOIN StringIds AS s ON s.id = e.nameId " \
    "  WHERE s.value = 'Graph Node Creation') "
static const char nodes_sql[] =
    CREATION "INSERT INTO node (id, orig) SELECT id, "
    "  ifnull(CAST(orig AS INTEGER), 0) FROM creation "
    "  WHERE orig IS NOT NULL ORDER BY start, orig, r "
    "  ON CONFLICT (id) DO NOTHING;"
    CREATION "INSERT INTO node (id, start, gtid, has_tid) SELECT id, "
    "  ifnull(CAST(start AS INTEGER), 0), ifnull(CAST(gtid AS INTEGER), 0), "
    "  gtid IS NOT NULL FROM creation WHERE orig IS NULL "
    "  ORDER BY start, gtid, r ON CONFLICT (id) DO NOTHING;"
    "CREATE INDEX temp.node_orig ON node (orig) WHERE orig IS NOT NULL;"
    "WITH RECURSIVE r (id, root) AS (SELECT id, id FROM node "
    "  WHERE orig IS NULL UNION ALL SELECT n.id, r.root FROM r "
    "  JOIN node AS n ON n.orig = r.id) "
    "INSERT INTO root SELECT id, root FROM r;";

/* SQL that writes SQLite's temporary database: failing, it is a system
 * error (the disk is full, SQLITE_TMPDIR is not writable). */
static void
exec(const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		lp_die(LP_EXIT_USAGE, "%s: %s (writing the graph nodes into "
		    "SQLite's temporary database: SQLITE_TMPDIR, TMPDIR or "
		    "/var/tmp)", path, msg);
}

/* The nodes and their roots; without a node table, none. */
static void
load_nodes(int have)
{
	exec(schema_sql);
	if (!have)
		return;
	/* the columns first, named as a reader of the export names them */
	sqlite3_finalize(lp_sql_query(db, path, "SELECT e.graphNodeId, "
	    "e.originalGraphNodeId, e.start, e.globalTid, s.value FROM "
	    "CUDA_GRAPH_NODE_EVENTS AS e JOIN StringIds AS s ON s.id = e.nameId "
	    "LIMIT 0"));
	exec(nodes_sql);
}

/* ---- the trace ---- */

/* The create row of the root that roots is on (the roots that some
 * kernel ran from, by creation time and id). */
static void
emit_create(sqlite3_stmt *roots)
{
	int64_t gtid = sqlite3_column_int64(roots, 3);
	int ht = sqlite3_column_int(roots, 2);

	cell_i64(sqlite3_column_int64(roots, 0), 1, 0);
	cell("create", 0);
	cell_i64(sqlite3_column_int64(roots, 1), 1, 0);
	cell("", 0);
	cell_i64((gtid >> 24) & 0xFFFFFF, ht, 0);
	cell_i64(gtid & 0xFFFFFF, ht, 1);
}

/* The kernel rows, each after the create rows up to its start: two
 * queries sorted by SQLite, stepped side by side. */
static void
emit(void)
{
	sqlite3_stmt *st, *roots = lp_sql_query(db, path, "SELECT start, id, "
	    "has_tid, gtid FROM temp.node WHERE id IN (SELECT r.root FROM "
	    "CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN temp.root AS r ON r.id = "
	    "CAST(k.graphNodeId AS INTEGER) WHERE k.graphNodeId IS NOT NULL) "
	    "ORDER BY start, id");
	int more = lp_sql_step(db, path, roots);
	int64_t t, unresolved = 0, kernels = 0;

	cell("Start (ns)", 0);
	cell("Event", 0);
	cell("Graph Node ID", 0);
	cell("CorrId", 0);
	cell("Pid", 0);
	cell("Tid", 1);
	st = lp_sql_query(db, path, "SELECT k.start, k.correlationId, k.globalPid, "
	    "k.graphNodeId, r.root FROM CUPTI_ACTIVITY_KIND_KERNEL AS k LEFT JOIN "
	    "temp.root AS r ON r.id = CAST(k.graphNodeId AS INTEGER) "
	    "WHERE k.graphNodeId IS NOT NULL "
	    "ORDER BY k.start, k.correlationId, k.graphNodeId");
	while (lp_sql_step(db, path, st)) {
		/* the types first: a value read as a number may change them */
		int hc = sqlite3_column_type(st, 1) != SQLITE_NULL,
		    hp = sqlite3_column_type(st, 2) != SQLITE_NULL,
		    hr = sqlite3_column_type(st, 4) != SQLITE_NULL;
		int64_t id = hr ? sqlite3_column_int64(st, 4) :
		    sqlite3_column_int64(st, 3),
		    gp = sqlite3_column_int64(st, 2),
		    corr = sqlite3_column_int64(st, 1);

		t = sqlite3_column_int64(st, 0);
		for (; more && sqlite3_column_int64(roots, 0) <= t;
		    more = lp_sql_step(db, path, roots))
			emit_create(roots);
		kernels++;
		unresolved += !hr;
		cell_i64(t, 1, 0);
		cell("kernel", 0);
		cell_i64(id, 1, 0);
		cell_i64(corr, hc, 0);
		cell_i64((gp >> 24) & 0xFFFFFF, hp, 0);
		cell("", 1);
	}
	sqlite3_finalize(st);
	for (; more; more = lp_sql_step(db, path, roots))
		emit_create(roots);
	sqlite3_finalize(roots);
	if (unresolved)
		lp_warn("%s: %" PRId64 " of %" PRId64 " graph kernels have a node "
		    "that leads to no node made by stream capture (no creation "
		    "event at the end of its originalGraphNodeId links): written "
		    "with their own node ID", path, unresolved, kernels);
}

int
main(int argc, char **argv)
{
	int have;

	lp_start(argc, argv, synopsis);
	path = lp_operand(argc, argv, synopsis);
	db = lp_sql_open(path);
	need_tables();
	/* nsys writes no node table for a capture without graphs (an eager
	 * run): then no kernel is a graph's and the trace is its header */
	have = lp_sql_has_table(db, path, "CUDA_GRAPH_NODE_EVENTS");
	if (!have && graph_kernels() > 0)
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "no table "
		    "CUDA_GRAPH_NODE_EVENTS, yet kernels ran from graph nodes: "
		    "not an nsys export lp knows");
	load_nodes(have);
	emit();
	if (sqlite3_close(db) != SQLITE_OK)
		lp_sql_die(db, path, "closing");
	lp_close_stdout();
	return 0;
}
