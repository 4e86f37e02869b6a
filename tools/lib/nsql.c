/*
 * nsql.c: nsys's sqlite export opened and queried (nsql.h), for the tools
 * that read it: lp-graphnodes (graph nodes), lp-gpumetrics and lp-bwceil
 * (GPU Metrics), lp-import (what an export is, and of which capture).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util.h"
#include "nsql.h"

_Noreturn void
lp_sql_die(sqlite3 *db, const char *path, const char *what)
{
	lp_die_at(LP_EXIT_DATA, path, 0, 0, "%s: %s", what, sqlite3_errmsg(db));
}

long long
lp_sql_max_rows(void)
{
	const char *e = getenv("LP_SQL_MAX_ROWS");

	return e && *e ? lp_strtonum(e, 1, LONG_MAX, "LP_SQL_MAX_ROWS") :
	    LP_SQL_MAX_ROWS;
}

int
lp_sql_is_db(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	const char *what;
	char head[16];
	long long size;
	ssize_t n;
	int fd;

	/* sqlite opens anything (an empty file is an empty database): look
	 * at the header first, so a wrong file is named as such; and at the
	 * file before that, without opening it (a FIFO waits for a writer) */
	if ((what = lp_file_nonregular(path, &size)))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "%s, not an export: lp "
		    "reads exports from regular files (copy it to one)", what);
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)) < 0)
		lp_die_sys("%s", path);
	if ((what = lp_fd_nonregular(fd)))	/* replaced since */
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "%s, not an export: lp "
		    "reads exports from regular files (copy it to one)", what);
	n = read(fd, head, sizeof head);
	if (n < 0)
		lp_die_sys("%s", path);
	close(fd);
	if (n < (ssize_t)sizeof head || memcmp(head, magic, sizeof magic))
		return 0;
	if (size > LP_SQL_MAX_BYTES)
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "an sqlite export of %lld "
		    "bytes, over lp's bound of %lld bytes (64 GiB) on one: "
		    "export a shorter capture (nsys profile --duration, or an "
		    "NVTX capture range)", size, LP_SQL_MAX_BYTES);
	return 1;
}

/* The URI that opens exactly path, read-only and immutable: every byte
 * but the unreserved ones and '/' percent-escaped, so that a name holding
 * '?', '#', '%' or beginning "file:" is the file checked, not a query or
 * another file; an absolute path after an empty authority. */
static char *
uri_of(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	struct lp_sb b = { 0 };
	const unsigned char *p;

	lp_sb_adds(&b, *path == '/' ? "file://" : "file:");
	for (p = (const unsigned char *)path; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '/' || *p == '.' ||
		    *p == '_' || *p == '-' || *p == '~')
			lp_sb_addc(&b, *p);
		else {
			lp_sb_addc(&b, '%');
			lp_sb_addc(&b, hex[*p >> 4]);
			lp_sb_addc(&b, hex[*p & 15]);
		}
	lp_sb_adds(&b, "?mode=ro&immutable=1");
	return lp_sb_steal(&b);
}

sqlite3 *
lp_sql_open(const char *path)
{
	sqlite3 *db = NULL;
	char *uri;

	if (!lp_sql_is_db(path))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "not an SQLite database: "
		    "expected nsys's sqlite export (nsys export --type sqlite; "
		    "nsys stats writes REPORT.sqlite beside REPORT.nsys-rep)");
	uri = uri_of(path);
	if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
	    NULL) != SQLITE_OK)
		lp_sql_die(db, path, "cannot open");
	free(uri);
	/* an export is tables of data: what could compute rows without end
	 * (a view over a recursive query) or run on reading is off */
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, LP_SQL_MAX_CELL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	return db;
}

sqlite3_stmt *
lp_sql_query(sqlite3 *db, const char *path, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "%s (an nsys export of "
		    "another version?)", sqlite3_errmsg(db));
	return st;
}

int
lp_sql_step(sqlite3 *db, const char *path, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_TOOBIG)
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "a value longer than %d "
		    "bytes, lp's bound on one (nsys writes names of a few kB): "
		    "not an export lp reads", LP_SQL_MAX_CELL);
	if (rc != SQLITE_DONE)
		lp_sql_die(db, path, "reading");
	return 0;
}

/* One number a query gives (count(*)). */
static long long
count_of(sqlite3 *db, const char *path, const char *sql, const char *arg)
{
	sqlite3_stmt *st = lp_sql_query(db, path, sql);
	long long n;

	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	n = lp_sql_step(db, path, st) ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return n;
}

/* The tables checked already, by file and name: each is counted once
 * (a reader asks for GPU_METRICS more than once). */
static struct checked {
	char *path, *name;
} *checked;
static size_t nchecked;

static int
was_checked(const char *path, const char *name)
{
	size_t i;

	for (i = 0; i < nchecked; i++)
		if (!strcmp(checked[i].path, path) &&
		    !strcasecmp(checked[i].name, name))
			return 1;
	checked = lp_xreallocarray(checked, nchecked + 1, sizeof *checked);
	checked[nchecked].path = lp_xstrdup(path);
	checked[nchecked++].name = lp_xstrdup(name);
	return 0;
}

/* name is a table as nsys writes one, of rows lp can read. */
static void
check_table(sqlite3 *db, const char *path, const char *name, const char *sql)
{
	long long max = lp_sql_max_rows(), n;
	char *q;

	while (sql && (*sql == ' ' || *sql == '\t' || *sql == '\n'))
		sql++;
	if (sql && !strncasecmp(sql, "CREATE VIRTUAL", 14))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "%s is a virtual table, not "
		    "a table of data: not an nsys export (export again with nsys "
		    "export --type sqlite)", name);
	if (count_of(db, path, "SELECT count(*) FROM pragma_table_xinfo(?1) "
	    "WHERE hidden <> 0", name))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "%s has computed columns "
		    "(GENERATED ... AS): not a table as nsys writes it (export "
		    "again with nsys export --type sqlite)", name);
	q = sqlite3_mprintf("SELECT count(*) FROM (SELECT 1 FROM \"%w\" "
	    "LIMIT %lld)", name, max + 1);
	if (!q)
		lp_die(LP_EXIT_USAGE, "out of memory");
	n = count_of(db, path, q, NULL);
	sqlite3_free(q);
	if (n > max)
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "%s has more than %lld rows, "
		    "lp's bound on a table it reads (LP_SQL_MAX_ROWS in the "
		    "environment sets another): export a shorter capture", name,
		    max);
}

int
lp_sql_has_table(sqlite3 *db, const char *path, const char *name)
{
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT type, sql FROM "
	    "sqlite_master WHERE name = ?1 COLLATE NOCASE AND type IN "
	    "('table', 'view')");
	const char *type;

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (!lp_sql_step(db, path, st)) {
		sqlite3_finalize(st);
		return 0;
	}
	type = (const char *)sqlite3_column_text(st, 0);
	if (!type || strcmp(type, "table"))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "%s is a view, not a table: "
		    "an nsys export holds its data in tables (a view computes "
		    "its rows, maybe without end); export again with nsys "
		    "export --type sqlite", name);
	if (!was_checked(path, name))
		check_table(db, path, name,
		    (const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return 1;
}

double
lp_sql_gpu_bw(sqlite3 *db, const char *path, double datasheet, char **name,
    struct lp_sb *why)
{
	sqlite3_stmt *st;
	double bw = 0;
	int n = 0, type = SQLITE_NULL, ok = 0;
	char *text = NULL;

	*name = NULL;
	if (!lp_sql_has_table(db, path, "TARGET_INFO_GPU")) {
		lp_sb_adds(why, "the export has no TARGET_INFO_GPU table (the "
		    "GPU's DRAM bandwidth, which the samples are a % of)");
		return 0;
	}
	st = lp_sql_query(db, path, "SELECT memoryBandwidth, name FROM "
	    "TARGET_INFO_GPU");
	while (lp_sql_step(db, path, st))
		if (!n++) {
			type = sqlite3_column_type(st, 0);
			bw = sqlite3_column_double(st, 0);
			text = lp_xstrdup(sqlite3_column_text(st, 0) ?
			    (const char *)sqlite3_column_text(st, 0) : "");
			*name = lp_xstrdup(sqlite3_column_text(st, 1) ?
			    (const char *)sqlite3_column_text(st, 1) : "");
		}
	sqlite3_finalize(st);
	if (n != 1)
		lp_sb_adds(why, n ? "the export has several GPUs in "
		    "TARGET_INFO_GPU and does not say which one a metrics source "
		    "samples, nor which bandwidth its % are of" :
		    "TARGET_INFO_GPU lists no GPU");
	/* text read as a number is its leading digits: "4.8 TB/s", 4.8 */
	else if (type != SQLITE_INTEGER && type != SQLITE_FLOAT &&
	    type != SQLITE_NULL)
		lp_sb_printf(why, "TARGET_INFO_GPU.memoryBandwidth of %s is "
		    "\"%.40s\", not a number of bytes/s", path, text);
	else if (!(bw > 0) || !isfinite(bw))
		lp_sb_adds(why, "TARGET_INFO_GPU gives no memoryBandwidth");
	else if (datasheet > 0 && bw > 2 * datasheet)
		lp_sb_printf(why, "TARGET_INFO_GPU.memoryBandwidth of %s, %.4g "
		    "bytes/s, is over twice the datasheet's %.4g bytes/s "
		    "(gpu.tsv): no figure of this GPU", path, bw, datasheet);
	else
		ok = 1;
	free(text);
	return ok ? bw : 0;
}

void
lp_sql_metric_ids(sqlite3 *db, const char *path, int64_t src,
    const char *const *names, size_t n, int64_t *id)
{
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT metricId, metricName "
	    "FROM TARGET_INFO_GPU_METRICS WHERE typeId = ?1");
	size_t k;

	for (k = 0; k < n; k++)
		id[k] = -1;
	sqlite3_bind_int64(st, 1, src);
	while (lp_sql_step(db, path, st)) {
		const char *name = (const char *)sqlite3_column_text(st, 1);

		for (k = 0; name && k < n; k++)
			if (!strcmp(name, names[k])) {
				if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
					lp_die_at(LP_EXIT_DATA, path, 0, 0,
					    "TARGET_INFO_GPU_METRICS.metricId of "
					    "\"%s\" is not an integer", name);
				if (id[k] >= 0)
					lp_die_at(LP_EXIT_DATA, path, 0, 0,
					    "TARGET_INFO_GPU_METRICS names "
					    "\"%s\" twice for typeId %" PRId64,
					    name, src);
				id[k] = sqlite3_column_int64(st, 0);
			}
	}
	sqlite3_finalize(st);
}

void
lp_sql_dram_sum(sqlite3 *db, const char *path, int64_t src, int64_t rid,
    int64_t wid, const char *rname, const char *wname)
{
	sqlite3_stmt *st;

	if (rid < 0 || wid < 0)
		return;
	st = lp_sql_query(db, path, "SELECT timestamp, total(CASE metricId "
	    "WHEN ?2 THEN value END), total(CASE metricId WHEN ?3 THEN value "
	    "END) FROM GPU_METRICS WHERE typeId = ?1 AND metricId IN (?2, ?3) "
	    "GROUP BY timestamp HAVING total(value) > 101 ORDER BY timestamp "
	    "LIMIT 1");
	sqlite3_bind_int64(st, 1, src);
	sqlite3_bind_int64(st, 2, rid);
	sqlite3_bind_int64(st, 3, wid);
	if (lp_sql_step(db, path, st)) {
		int64_t t = sqlite3_column_int64(st, 0);
		double rv = sqlite3_column_double(st, 1);
		double wv = sqlite3_column_double(st, 2);

		lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS at timestamp %"
		    PRId64 " (typeId %" PRId64 "): \"%s\" %g + \"%s\" %g = %g "
		    "%%, over the GPU's DRAM bandwidth that both are shares of",
		    t, src, rname, rv, wname, wv, rv + wv);
	}
	sqlite3_finalize(st);
}
