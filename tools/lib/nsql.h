/*
 * nsql.h: nsys's sqlite export, read through SQLite's C library (nsql.c).
 * Apart from the other headers because only the tools that read the
 * export link libsqlite3 (lp-graphnodes, lp-gpumetrics, lp-import).
 * Every function dies naming the file on an error; the caller closes the
 * database (sqlite3_close) and finalizes its statements.
 */
#ifndef LP_NSQL_H
#define LP_NSQL_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

/* Opens path read-only; a file that is not SQLite is named as such. */
sqlite3 *lp_sql_open(const char *path);
_Noreturn void lp_sql_die(sqlite3 *db, const char *path, const char *what);
sqlite3_stmt *lp_sql_query(sqlite3 *db, const char *path, const char *sql);
/* The next row: 1, or 0 at the end; an error reading it dies. */
int lp_sql_step(sqlite3 *db, const char *path, sqlite3_stmt *st);
int lp_sql_has_table(sqlite3 *db, const char *path, const char *name);
/* The metricId of each of names[0..n) for the metrics source src
 * (TARGET_INFO_GPU_METRICS), -1 where the export has none; a name listed
 * twice for one source dies. */
void lp_sql_metric_ids(sqlite3 *db, const char *path, int64_t src,
    const char *const *names, size_t n, int64_t *id);
/* The DRAM bandwidth (bytes/s, memoryBandwidth) of the GPU in
 * TARGET_INFO_GPU where the export has one GPU; 0 and *why otherwise.
 * *name: the first GPU's name, NULL where none (the caller frees it). */
double lp_sql_gpu_bw(sqlite3 *db, const char *path, char **name,
    const char **why);

#endif
