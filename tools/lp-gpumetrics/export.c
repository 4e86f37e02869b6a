/*
 * lp-gpumetrics' reader of nsys's sqlite export: the tables it needs, the
 * one metrics source (GPU) to read, the metrics' IDs, the GPU's DRAM
 * bandwidth, and the samples, each added to the instances that hold it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "nsql.h"
#include "gpumetrics.h"

void
export_need_tables(const struct gm *gm)
{
	sqlite3 *db = gm->db;
	const char *path = gm->path;

	if (!lp_sql_has_table(db, path, "TARGET_INFO_GPU_METRICS") ||
	    !lp_sql_has_table(db, path, "GPU_METRICS"))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "no GPU Metrics samples "
		    "(no table %s): the capture was made without nsys profile "
		    "--gpu-metrics-devices", lp_sql_has_table(db, path,
		    "GPU_METRICS") ? "TARGET_INFO_GPU_METRICS" : "GPU_METRICS");
}

/* The export's metrics sources (typeIds, one a GPU) in *out, ascending;
 * refused where one is not an integer or there is none. */
size_t
export_type_ids(const struct gm *gm, int64_t **out)
{
	sqlite3 *db = gm->db;
	const char *path = gm->path;
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT DISTINCT typeId FROM "
	    "TARGET_INFO_GPU_METRICS ORDER BY typeId");
	int64_t *t = NULL;
	size_t n = 0;

	while (lp_sql_step(db, path, st)) {
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
			lp_die_at(LP_EXIT_DATA, path, 0, 0, "TARGET_INFO_GPU_METRICS"
			    ".typeId \"%s\" is not an integer",
			    sqlite3_column_text(st, 0));
		t = lp_xreallocarray(t, n + 1, sizeof *t);
		t[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (!n)
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "TARGET_INFO_GPU_METRICS "
		    "names no metric: no GPU was sampled");
	*out = t;
	return n;
}

/* The one metrics source (GPU) to read of t[0..n): -T, else the only one
 * (several without -T are emit_gpus'). */
int64_t
export_source_of(const struct gm *gm, const int64_t *t, size_t n,
    const char *want)
{
	struct lp_sb b = { 0 };
	char buf[32];
	size_t i;

	if (!want)
		return t[0];
	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof buf, "%" PRId64, t[i]);
		if (!strcmp(want, buf))
			return t[i];
		lp_sb_printf(&b, "%s%s", i ? ", " : "", buf);
	}
	lp_die(LP_EXIT_DATA, "-T %s: not a typeId of %s's "
	    "TARGET_INFO_GPU_METRICS (it has %s)", want, gm->path,
	    lp_sb_str(&b));
	return 0;
}

void
export_metric_ids(const struct gm *gm, int64_t src, int64_t *id)
{
	const char *names[NM];
	size_t k;

	for (k = 0; k < NM; k++)
		names[k] = metrics[k].name;
	lp_sql_metric_ids(gm->db, gm->path, src, names, NM, id);
}

/* ---- the samples ---- */

/* a + v, refused past int64's range rather than wrapped (path: the
 * export's) */
static void
add_whole(const char *path, int64_t *a, int64_t v, int64_t row)
{
	if ((v > 0 && *a > INT64_MAX - v) || (v < 0 && *a < INT64_MIN - v))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS row %" PRId64
		    ": the samples' sum leaves 64-bit integers", row);
	*a += v;
}

/* Adds a sample at t (s: its value, as one of the three parts of a sum)
 * to every instance of g that holds it (start <= t < end): the last that
 * starts by t, and back while an earlier one may still be open. */
static void
add_sample(const char *path, struct stage *g, double t, size_t k,
    const struct sum *s, int64_t row, int64_t gpu)
{
	size_t lo = 0, hi = g->n, i;

	while (lo < hi) {	/* the first instance starting after t */
		size_t mid = lo + (hi - lo) / 2;

		if (g->in[mid].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0 && g->maxend[i] > t;)
		if (g->in[i].end > t && (gpu < 0 || g->in[i].gpu == gpu)) {
			add_whole(path, &g->in[i].sum[k].whole, s->whole, row);
			add_whole(path, &g->in[i].sum[k].hz, s->hz, row);
			g->in[i].sum[k].frac += s->frac;
			g->in[i].n[k]++;
		}
}

/* The value of row's sample of metric k (st's column 3), checked for its
 * unit, as the part of a sum it adds to (s). */
static void
sample_value(const char *path, sqlite3_stmt *st, int64_t row, size_t k,
    struct sum *s)
{
	int whole;
	double v;

	if (sqlite3_column_type(st, 3) != SQLITE_INTEGER &&
	    sqlite3_column_type(st, 3) != SQLITE_FLOAT)
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS row %"
		    PRId64 ": value of \"%s\" is not a number", row,
		    metrics[k].name);
	whole = sqlite3_column_type(st, 3) == SQLITE_INTEGER;
	v = sqlite3_column_double(st, 3);
	if (metrics[k].unit == M_UNIT_PCT && !(v >= 0 && v <= 100))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS row %"
		    PRId64 ": \"%s\" is %g, not a percentage from 0 "
		    "to 100", row, metrics[k].name, v);
	if (metrics[k].unit == M_UNIT_MHZ && !(v >= 0))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS "
		    "row %" PRId64 ": \"%s\" is %g, below 0",
		    row, metrics[k].name, v);
	/* nsys 2025.3.1 writes the clocks in Hz under their "[MHz]"
	 * names (1,980,004,500 for a 1,980 MHz clock); no GPU clock
	 * reaches 100 GHz */
	if (metrics[k].unit == M_UNIT_MHZ && v >= 1e5 && whole)
		s->hz = sqlite3_column_int64(st, 3);
	else if (metrics[k].unit == M_UNIT_MHZ && v >= 1e5)
		s->frac = v / 1e6;
	else if (whole)
		s->whole = sqlite3_column_int64(st, 3);
	else
		s->frac = v;
}

long
export_read_samples(struct gm *gm, int64_t src, const int64_t *id,
    int64_t gpu)
{
	sqlite3 *db = gm->db;
	const char *path = gm->path;
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT rowid, timestamp, "
	    "metricId, value FROM GPU_METRICS WHERE typeId = ?1");
	long used = 0;
	size_t k, i;

	sqlite3_bind_int64(st, 1, src);
	while (lp_sql_step(db, path, st)) {
		int64_t row = sqlite3_column_int64(st, 0), mid;
		struct sum s = { 0, 0, 0 };
		double t;

		if (sqlite3_column_type(st, 2) != SQLITE_INTEGER)
			lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS row %"
			    PRId64 ": metricId is not an integer", row);
		mid = sqlite3_column_int64(st, 2);
		for (k = 0; k < NM && id[k] != mid; k++)
			;
		if (k == NM)
			continue;
		/* before the session's zero is a time too: in no range */
		if (sqlite3_column_type(st, 1) != SQLITE_INTEGER)
			lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS row %"
			    PRId64 ": timestamp is not a time in ns", row);
		t = (double)sqlite3_column_int64(st, 1);
		sample_value(path, st, row, k, &s);
		used++;
		for (i = 0; i < gm->nstg; i++)
			add_sample(path, &gm->stg[i], t, k, &s, row, gpu);
	}
	sqlite3_finalize(st);
	return used;
}

/* DRAM read % and write % of one sample are shares of one bandwidth
 * (lp_sql_dram_sum: 90 % + 90 % made "DRAM (sampled) 180.0 %" and 8.67
 * TB/s on an H200). */
void
export_check_dram_sum(const struct gm *gm, int64_t src, const int64_t *id)
{
	lp_sql_dram_sum(gm->db, gm->path, src, id[M_DRAM_RD], id[M_DRAM_WR],
	    metrics[M_DRAM_RD].name, metrics[M_DRAM_WR].name);
}
