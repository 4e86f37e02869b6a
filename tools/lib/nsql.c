/*
 * nsql.c: nsys's sqlite export opened and queried (nsql.h), for the tools
 * that read it: lp-graphnodes (graph nodes), lp-gpumetrics (GPU Metrics).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "nsql.h"

_Noreturn void
lp_sql_die(sqlite3 *db, const char *path, const char *what)
{
	lp_die_at(LP_EXIT_DATA, path, 0, 0, "%s: %s", what, sqlite3_errmsg(db));
}

sqlite3 *
lp_sql_open(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	sqlite3 *db = NULL;
	FILE *fp;
	size_t n;

	/* sqlite opens anything (an empty file is an empty database): look
	 * at the header first, so a wrong file is named as such */
	if (!(fp = fopen(path, "rb")))
		lp_die_sys("%s", path);
	n = fread(head, 1, sizeof head, fp);
	if (ferror(fp))
		lp_die_sys("%s", path);
	fclose(fp);
	if (n < sizeof head || memcmp(head, magic, sizeof magic))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "not an SQLite database: "
		    "expected nsys's sqlite export (nsys export --type sqlite; "
		    "nsys stats writes REPORT.sqlite beside REPORT.nsys-rep)");
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		lp_sql_die(db, path, "cannot open");
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
	if (rc != SQLITE_DONE)
		lp_sql_die(db, path, "reading");
	return 0;
}

int
lp_sql_has_table(sqlite3 *db, const char *path, const char *name)
{
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT 1 FROM "
	    "sqlite_master WHERE type IN ('table', 'view') AND name = ?1");
	int r;

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	r = lp_sql_step(db, path, st);
	sqlite3_finalize(st);
	return r;
}

double
lp_sql_gpu_bw(sqlite3 *db, const char *path, char **name, const char **why)
{
	sqlite3_stmt *st;
	double bw = 0;
	int n = 0;

	*name = NULL;
	if (!lp_sql_has_table(db, path, "TARGET_INFO_GPU")) {
		*why = "the export has no TARGET_INFO_GPU table (the GPU's "
		    "DRAM bandwidth, which the samples are a % of)";
		return 0;
	}
	st = lp_sql_query(db, path, "SELECT memoryBandwidth, name FROM "
	    "TARGET_INFO_GPU");
	while (lp_sql_step(db, path, st))
		if (!n++) {
			bw = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 :
			    sqlite3_column_double(st, 0);
			*name = lp_xstrdup(sqlite3_column_text(st, 1) ?
			    (const char *)sqlite3_column_text(st, 1) : "");
		}
	sqlite3_finalize(st);
	if (n != 1) {
		*why = n ? "the export has several GPUs in TARGET_INFO_GPU and "
		    "does not say which one a metrics source samples, nor "
		    "which bandwidth its % are of" : "TARGET_INFO_GPU lists no GPU";
		return 0;
	}
	if (!(bw > 0))
		*why = "TARGET_INFO_GPU gives no memoryBandwidth";
	return bw > 0 ? bw : 0;
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
