/*
 * nsql.h: nsys's sqlite export, read through SQLite's C library (nsql.c).
 * Apart from the other headers because only the tools that read the
 * export link libsqlite3 (lp-graphnodes, lp-gpumetrics, lp-bwceil,
 * lp-import, lp-injected).
 * Every function dies naming the file on an error; the caller closes the
 * database (sqlite3_close) and finalizes its statements.
 */
#ifndef LP_NSQL_H
#define LP_NSQL_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "util.h"

/*
 * The bounds every reader keeps to.  An export is a regular file (a FIFO
 * would hang the reader, a device never end) of at most LP_SQL_MAX_BYTES,
 * opened read-only and immutable (nothing is written beside it: no -wal or
 * -shm file, whatever its journal mode), no value longer than
 * LP_SQL_MAX_CELL; views and triggers are switched off.  Each table a
 * reader reads is checked by lp_sql_has_table first: a table as nsys
 * writes one (not a view, a virtual table or one with computed columns),
 * of at most lp_sql_max_rows() rows.
 */
#define LP_SQL_MAX_BYTES (64LL << 30)	/* 64 GiB */
#define LP_SQL_MAX_CELL (16 << 20)	/* 16 MiB; StringIds' longest: kB */
#define LP_SQL_MAX_ROWS 500000000LL
/* LP_SQL_MAX_ROWS, or the environment's LP_SQL_MAX_ROWS (1 and up). */
long long lp_sql_max_rows(void);
/* 1 when path is an SQLite database (by its header), 0 when it is some
 * other file; a file that is not regular, or an SQLite file over
 * LP_SQL_MAX_BYTES, dies naming it.  Nothing waits on the file. */
int lp_sql_is_db(const char *path);
/* Opens path as above; a file that is not SQLite is named as such. */
sqlite3 *lp_sql_open(const char *path);
_Noreturn void lp_sql_die(sqlite3 *db, const char *path, const char *what);
sqlite3_stmt *lp_sql_query(sqlite3 *db, const char *path, const char *sql);
/* The next row: 1, or 0 at the end; an error reading it dies. */
int lp_sql_step(sqlite3 *db, const char *path, sqlite3_stmt *st);
/* 1 when the export has the table name (any case, as SQL reads names),
 * 0 when it has none; a view, a virtual table, a table with computed
 * columns or with more rows than lp_sql_max_rows() dies naming it. */
int lp_sql_has_table(sqlite3 *db, const char *path, const char *name);
/* The metricId of each of names[0..n) for the metrics source src
 * (TARGET_INFO_GPU_METRICS), -1 where the export has none; a name listed
 * twice for one source dies. */
void lp_sql_metric_ids(sqlite3 *db, const char *path, int64_t src,
    const char *const *names, size_t n, int64_t *id);
/* DRAM read % and write % of one sample (metricIds rid, wid of source
 * src, named rname, wname) are shares of one bandwidth: a sample whose two
 * sum to over 101 % (each is a whole percent, so two rounded shares of
 * 100 % may read 101) dies naming it, the first in time. */
void lp_sql_dram_sum(sqlite3 *db, const char *path, int64_t src,
    int64_t rid, int64_t wid, const char *rname, const char *wname);
/* The DRAM bandwidth (bytes/s, memoryBandwidth) of the GPU in
 * TARGET_INFO_GPU where the export has one GPU; 0 and why added to *why
 * otherwise, or where it is not a number, or over twice datasheet (bytes/s;
 * 0: none to compare).  *name: the first GPU's name, NULL where none (the
 * caller frees it). */
double lp_sql_gpu_bw(sqlite3 *db, const char *path, double datasheet,
    char **name, struct lp_sb *why);

#endif
