/*
 * lp-gpumetrics: gpumetrics.tsv, what the GPU did during each stage as
 * nsys's GPU Metrics sampling measured it (nsys profile
 * --gpu-metrics-devices=all): SMs active, SM issue, tensor active, DRAM
 * read and write bandwidth (% of peak, and bytes/s from the peak the
 * export gives), the clocks, averaged over the samples inside each
 * instance of each stage (its projection on the GPU, nvtx_gpu_proj_trace,
 * else its host range, nvtx_pushpop_trace), for the stage and for its
 * instances after each process's first (STAGE:steady).
 *
 * The samples are read from nsys's sqlite export (GPU_METRICS,
 * TARGET_INFO_GPU_METRICS, TARGET_INFO_GPU) through SQLite's C library:
 * no nsys stats report and no CSV export of them exists.  Each sample
 * goes to the instances that hold its timestamp (a binary search over
 * each stage's instances), in the table's order: memory holds the
 * stages' instances and their sums, never the samples.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "nsql.h"
#include "table.h"
#include "nsight.h"

static const char synopsis[] =
    "lp-gpumetrics [-n] -c config.yaml [-p nvtx_gpu_proj_trace.csv] "
    "[-t nvtx_pushpop_trace.csv] [-T type-id] report.sqlite";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */
static const char *path;	/* the sqlite export */
static sqlite3 *db;

/* The metrics lp reports, by nsys's name; bytes: a bytes/s row follows,
 * the % of the GPU's DRAM bandwidth (TARGET_INFO_GPU.memoryBandwidth). */
enum { M_UNIT_PCT, M_UNIT_MHZ };
static const struct metric {
	const char *name;
	int unit, bytes;
} metrics[] = {
	{ "GR Active [Throughput %]", M_UNIT_PCT, 0 },
	{ "SMs Active [Throughput %]", M_UNIT_PCT, 0 },
	{ "SM Issue [Throughput %]", M_UNIT_PCT, 0 },
	{ "Tensor Active [Throughput %]", M_UNIT_PCT, 0 },
	{ "DRAM Read Bandwidth [Throughput %]", M_UNIT_PCT, 1 },
	{ "DRAM Write Bandwidth [Throughput %]", M_UNIT_PCT, 1 },
	{ "GPC Clock Frequency [MHz]", M_UNIT_MHZ, 0 },
	{ "SYS Clock Frequency [MHz]", M_UNIT_MHZ, 0 },
};
#define NM (sizeof metrics / sizeof metrics[0])

struct inst {
	double start, end;
	char *pid;
	int first;		/* its process's first instance */
	double sum[NM];
	long n[NM];
};

struct stage {
	const char *name;
	char *range;
	struct inst *in;
	size_t n, cap;
	double *maxend;		/* the latest end of in[0..i] */
	int proj;		/* instances from the GPU projection */
};

static struct stage *stg;
static size_t nstg;






static void
need_tables(void)
{
	if (!lp_sql_has_table(db, path, "TARGET_INFO_GPU_METRICS") || !lp_sql_has_table(db, path, "GPU_METRICS"))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "no GPU Metrics samples "
		    "(no table %s): the capture was made without nsys profile "
		    "--gpu-metrics-devices", lp_sql_has_table(db, path, "GPU_METRICS") ?
		    "TARGET_INFO_GPU_METRICS" : "GPU_METRICS");
}

/* The one metrics source (GPU) to read: -T, or the only one there is. */
static int64_t
source_of(const char *want, struct lp_sb *several)
{
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT DISTINCT typeId FROM "
	    "TARGET_INFO_GPU_METRICS ORDER BY typeId");
	struct lp_sb b = { 0 };
	int64_t t = 0, got = 0;
	char buf[32];
	int n = 0, found = 0;

	while (lp_sql_step(db, path, st)) {
		t = sqlite3_column_int64(st, 0);
		snprintf(buf, sizeof buf, "%" PRId64, t);
		lp_sb_printf(&b, "%s%s", n++ ? ", " : "", buf);
		if (want && !strcmp(want, buf)) {
			found = 1;
			got = t;
		}
		if (!want && n == 1)
			got = t;
	}
	sqlite3_finalize(st);
	if (!n)
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "TARGET_INFO_GPU_METRICS "
		    "names no metric: no GPU was sampled");
	if (want && !found)
		lp_die(LP_EXIT_DATA, "-T %s: not a typeId of %s's "
		    "TARGET_INFO_GPU_METRICS (it has %s)", want, path,
		    lp_sb_str(&b));
	if (!want && n > 1 && several) {	/* -n: said, not refused */
		lp_sb_printf(several, "samples of %d GPUs (typeId %s in "
		    "TARGET_INFO_GPU_METRICS) and nothing in the export says "
		    "which GPU each is: lp-gpumetrics -T TYPEID reads one", n,
		    lp_sb_str(&b));
		lp_sb_free(&b);
		return -1;
	}
	if (!want && n > 1)
		lp_die(LP_EXIT_DATA, "%s: samples of %d GPUs (typeId %s in "
		    "TARGET_INFO_GPU_METRICS): choose one with -T", path, n,
		    lp_sb_str(&b));
	lp_sb_free(&b);
	return got;
}

/* metricId of each reported metric in this source; -1 where absent. */
static void
metric_ids(int64_t src, int64_t *id)
{
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT metricId, metricName FROM "
	    "TARGET_INFO_GPU_METRICS WHERE typeId = ?1");
	size_t k;

	for (k = 0; k < NM; k++)
		id[k] = -1;
	sqlite3_bind_int64(st, 1, src);
	while (lp_sql_step(db, path, st)) {
		const char *name = (const char *)sqlite3_column_text(st, 1);

		for (k = 0; name && k < NM; k++)
			if (!strcmp(name, metrics[k].name)) {
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

/* The DRAM bandwidth (bytes/s) and name of the GPU, where the export has
 * one GPU; 0 and *why otherwise. */
static double
gpu_bandwidth(char **name, const char **why)
{
	sqlite3_stmt *st;
	double bw = 0;
	int n = 0;

	*name = NULL;
	if (!lp_sql_has_table(db, path, "TARGET_INFO_GPU")) {
		*why = "the export has no TARGET_INFO_GPU table (the GPU's "
		    "DRAM bandwidth)";
		return 0;
	}
	st = lp_sql_query(db, path, "SELECT memoryBandwidth, name FROM TARGET_INFO_GPU");
	while (lp_sql_step(db, path, st)) {
		if (!n++) {
			bw = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 :
			    sqlite3_column_double(st, 0);
			*name = lp_xstrdup(sqlite3_column_text(st, 1) ?
			    (const char *)sqlite3_column_text(st, 1) : "?");
		}
	}
	sqlite3_finalize(st);
	if (n != 1) {
		free(*name);
		*name = NULL;
		*why = n ? "the export has several GPUs in TARGET_INFO_GPU "
		    "and does not say which one a metrics source samples" :
		    "TARGET_INFO_GPU lists no GPU";
		return 0;
	}
	if (!(bw > 0))
		*why = "TARGET_INFO_GPU gives no memoryBandwidth";
	return bw > 0 ? bw : 0;
}

/* ---- the stages' instances ---- */

static void
add_inst(struct stage *g, double start, double dur, const char *pid)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		g->in = lp_xreallocarray(g->in, g->cap, sizeof *g->in);
	}
	memset(&g->in[g->n], 0, sizeof g->in[g->n]);
	g->in[g->n].start = start;
	g->in[g->n].end = start + dur;
	g->in[g->n].pid = lp_xstrdup(pid);
	g->n++;
}

struct rd {
	int proj;		/* reading the projection */
};

static void
inst_row(const struct lp_rep_row *rr, void *ctx)
{
	struct rd *r = ctx;
	size_t i;

	for (i = 0; i < nstg; i++) {
		struct stage *g = &stg[i];

		/* host ranges only for a stage the projection lacks */
		if (!r->proj && g->proj)
			continue;
		if (lp_nvtx_range_match(g->range, rr->v[2]))
			add_inst(g, lp_rep_time(rr, 0), lp_rep_time(rr, 1),
			    lp_rep_pid(rr, 3));
	}
}

static int
empty_file(const char *p)
{
	struct stat sb;

	return p && strcmp(p, "-") && stat(p, &sb) == 0 &&
	    S_ISREG(sb.st_mode) && !sb.st_size;
}

static int
by_start(const void *x, const void *y)
{
	const struct inst *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

static void
read_insts(const char *ppath, const char *tpath)
{
	static const char *const pcols[] = { "Projected Start",
		"Projected Duration", "Name", "?PID" };
	static const char *const tcols[] = { "Start", "Duration", "Name",
		"?PID" };
	struct lp_map *seen = lp_map_new();
	struct rd r;
	size_t i, k;

	/* nsys stats writes an empty file for a report with no rows */
	if (ppath && !empty_file(ppath)) {
		r.proj = 1;
		lp_rep_file(ppath, "nsys stats --report nvtx_gpu_proj_trace",
		    pcols, 4, inst_row, &r);
		for (i = 0; i < nstg; i++)
			stg[i].proj = stg[i].n > 0;
	}
	if (tpath) {
		r.proj = 0;
		lp_rep_file(tpath, "nsys stats --report nvtx_pushpop_trace",
		    tcols, 4, inst_row, &r);
	}
	for (i = 0; i < nstg; i++) {
		struct stage *g = &stg[i];

		lp_qsort(g->in, g->n, sizeof *g->in, by_start);
		g->maxend = lp_xcalloc(g->n + 1, sizeof *g->maxend);
		for (k = 0; k < g->n; k++) {
			g->maxend[k] = k && g->maxend[k - 1] > g->in[k].end ?
			    g->maxend[k - 1] : g->in[k].end;
			/* the first of its process, in start order */
			g->in[k].first = lp_map_get(seen, g->in[k].pid, 0) == 0;
			lp_map_put(seen, g->in[k].pid, 1);
		}
		lp_map_free(seen);
		seen = lp_map_new();
	}
	lp_map_free(seen);
}

/* ---- the samples ---- */

/* Adds a sample at t to every instance of g that holds it (start <= t <
 * end): the last that starts by t, and back while an earlier one may
 * still be open. */
static void
add_sample(struct stage *g, double t, size_t k, double v)
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
		if (g->in[i].end > t) {
			g->in[i].sum[k] += v;
			g->in[i].n[k]++;
		}
}

static long
read_samples(int64_t src, const int64_t *id)
{
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT rowid, timestamp, metricId, value "
	    "FROM GPU_METRICS WHERE typeId = ?1");
	long used = 0;
	size_t k, i;

	sqlite3_bind_int64(st, 1, src);
	while (lp_sql_step(db, path, st)) {
		int64_t row = sqlite3_column_int64(st, 0), mid;
		double t, v;

		if (sqlite3_column_type(st, 2) != SQLITE_INTEGER)
			lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS row %"
			    PRId64 ": metricId is not an integer", row);
		mid = sqlite3_column_int64(st, 2);
		for (k = 0; k < NM && id[k] != mid; k++)
			;
		if (k == NM)
			continue;
		if (sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
		    sqlite3_column_int64(st, 1) < 0)
			lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS row %"
			    PRId64 ": timestamp is not a time in ns from 0",
			    row);
		t = (double)sqlite3_column_int64(st, 1);
		if (sqlite3_column_type(st, 3) != SQLITE_INTEGER &&
		    sqlite3_column_type(st, 3) != SQLITE_FLOAT)
			lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS row %"
			    PRId64 ": value of \"%s\" is not a number", row,
			    metrics[k].name);
		v = sqlite3_column_double(st, 3);
		if (metrics[k].unit == M_UNIT_PCT && !(v >= 0 && v <= 100))
			lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS row %"
			    PRId64 ": \"%s\" is %g, not a percentage from 0 "
			    "to 100", row, metrics[k].name, v);
		if (metrics[k].unit == M_UNIT_MHZ) {
			if (!(v >= 0))
				lp_die_at(LP_EXIT_DATA, path, 0, 0, "GPU_METRICS "
				    "row %" PRId64 ": \"%s\" is %g, below 0",
				    row, metrics[k].name, v);
			/* nsys 2025.3.1 writes the clocks in Hz under
			 * their "[MHz]" names (1,980,004,500 for a 1,980
			 * MHz clock); no GPU clock reaches 100 GHz */
			if (v >= 1e5)
				v /= 1e6;
		}
		used++;
		for (i = 0; i < nstg; i++)
			add_sample(&stg[i], t, k, v);
	}
	sqlite3_finalize(st);
	return used;
}

/* ---- the table ---- */

static const struct lp_col cols[] = {
	{ "stage", "Stage", "text" }, { "metric", "Metric", "text" },
	{ "unit", "Unit", "hide" }, { "basis", "Instances from", "text" },
	{ "instances", "Instances", "int" },
	{ "sampled_instances", "Sampled instances", "int" },
	{ "samples", "Samples", "int" },
	{ "mean", "Mean", "q" }, { "p50", "p50 of instances", "q" },
	{ "p90", "p90 of instances", "q" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* One row: the samples of the instances of g (steady: not their
 * process's first) for metric k, times scale (bytes/s rows). */
static void
emit_row(struct lp_row *r, const struct stage *g, int steady, size_t k,
    int64_t id, int bytes, double bw, const char *bw_why)
{
	struct lp_sb b = { 0 };
	double sum = 0, *per = lp_xcalloc(g->n + 1, sizeof *per);
	double scale = bytes ? bw / 100 : 1;
	long samples = 0;
	size_t i, ni = 0, ns = 0;

	lp_sb_printf(&b, "%s%s", g->name, steady ? ":steady" : "");
	lp_row_text(r, lp_sb_str(&b));
	lp_sb_reset(&b);
	if (bytes) {
		lp_sb_adds(&b, metrics[k].name);
		b.len -= strlen(" [Throughput %]");
		lp_sb_adds(&b, " [bytes/s]");
		lp_row_text(r, lp_sb_str(&b));
		lp_row_text(r, "B/s");
	} else {
		lp_row_text(r, metrics[k].name);
		lp_row_text(r, metrics[k].unit == M_UNIT_PCT ? "pct" : "MHz");
	}
	lp_row_text(r, g->proj ? "GPU projection" : "host range");
	for (i = 0; i < g->n; i++) {
		const struct inst *in = &g->in[i];

		if (steady && in->first)
			continue;
		ni++;
		if (in->n[k]) {
			per[ns++] = in->sum[k] / (double)in->n[k];
			sum += in->sum[k];
			samples += in->n[k];
		}
	}
	lp_row_num(r, (double)ni, 0);
	if (!ni) {
		lp_row_na(r, "the range has no instance in the traces "
		    "(outside the capture, or never pushed)");
	} else if (id < 0)
		lp_row_na(r, "the export has no metric \"%s\" (another GPU "
		    "or nsys version)", metrics[k].name);
	else if (bytes && !(bw > 0))
		lp_row_na(r, "%s", bw_why);
	else if (!ns)
		lp_row_na(r, "no sample inside any instance (each shorter "
		    "than the sampling period?)");
	else {
		lp_row_num(r, (double)ns, 0);
		lp_row_num(r, (double)samples, 0);
		lp_row_g(r, scale * sum / (double)samples);
		lp_row_g(r, scale * lp_quantile(per, ns, 0.5));
		lp_row_g(r, scale * lp_quantile(per, ns, 0.9));
	}
	while (r->n < NCOLS)
		lp_row_text(r, "n/a");
	lp_row_end(r, out);
	free(per);
	lp_sb_free(&b);
}

/* Instances after their process's first: a steady state to report. */
static int
has_steady(const struct stage *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!g->in[i].first)
			return 1;
	return 0;
}

static void
emit_meta(const char *cpath, const char *ppath, const char *tpath,
    int64_t src, long used, const char *gname, double bw)
{
	lp_tab_meta(out, "title", "GPU Metrics per Stage");
	lp_tab_meta(out, "tool", "lp-gpumetrics");
	lp_tab_meta(out, "source", "nsys GPU Metrics samples (GPU_METRICS of "
	    "%s, typeId %" PRId64 ", %ld samples of these metrics) inside "
	    "each instance of the stages of %s: their projection on the GPU "
	    "(%s), else their host range (%s)%s%s%s", path, src, used, cpath,
	    ppath ? ppath : "no nvtx_gpu_proj_trace", tpath ? tpath :
	    "no nvtx_pushpop_trace", gname ? "; DRAM bytes/s = % x " : "",
	    gname ? gname : "", gname ? "'s memoryBandwidth in "
	    "TARGET_INFO_GPU" : "");
	if (bw > 0)
		lp_tab_meta(out, "note", "DRAM bandwidth of the GPU: %.6g "
		    "bytes/s (TARGET_INFO_GPU).", bw);
	lp_tab_meta(out, "note", "A sample counts for an instance when its "
	    "timestamp is inside it. Mean = the mean of all those samples "
	    "(time-weighted: the samples are evenly spaced); p50 and p90 are "
	    "over the instances' own means (type 7). STAGE:steady = the "
	    "instances after each process's first (a row where there are "
	    "any). Clocks in MHz (nsys "
	    "writes Hz under \"[MHz]\").");
}

/* -n: a run without samples or without ranges gets a table that says why
 * and that the summary leaves out ("# omit:"), instead of an error. */
static void
emit_none(const char *why)
{
	struct lp_row r = { 0 };

	lp_tab_meta(out, "title", "GPU Metrics per Stage");
	lp_tab_meta(out, "tool", "lp-gpumetrics");
	lp_tab_meta(out, "source", "none: %s", why);
	lp_tab_meta(out, "omit", "no samples");
	lp_tab_header(out, cols, NCOLS);
	lp_row_na(&r, "%s", why);
	while (r.n < NCOLS)
		lp_row_text(&r, "n/a");
	lp_row_end(&r, out);
	lp_sb_free(&r.b);
	lp_tab_done(out);
}

int
main(int argc, char **argv)
{
	const char *cpath = NULL, *ppath = NULL, *tpath = NULL, *want = NULL;
	const char *bw_why = NULL;
	const char **names;
	char **ranges, *gname;
	struct lp_ynode *cfg;
	struct lp_row r = { 0 };
	int64_t src, id[NM];
	double bw;
	long used;
	size_t i, k;
	int c, steady, none_ok = 0;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "c:hnp:t:T:")) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'n': none_ok = 1; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'p': ppath = optarg; break;
		case 't': tpath = optarg; break;
		case 'T': want = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (!cpath || (!ppath && !tpath && !none_ok) || argc - optind != 1)
		lp_usage(synopsis);
	path = argv[optind];
	if (!ppath && !tpath) {
		emit_none("the run has no NVTX range trace to place the samples "
		    "in (nsys stats --report nvtx_pushpop_trace or "
		    "nvtx_gpu_proj_trace)");
		return 0;
	}
	cfg = lp_yaml_load_path(cpath);
	nstg = lp_stage_ranges(cfg, cpath, &names, &ranges);
	stg = lp_xcalloc(nstg, sizeof *stg);
	for (i = 0; i < nstg; i++) {
		stg[i].name = names[i];
		stg[i].range = ranges[i];
	}
	free(names);
	free(ranges);
	read_insts(ppath, tpath);

	db = lp_sql_open(path);
	if (none_ok && !(lp_sql_has_table(db, path, "TARGET_INFO_GPU_METRICS") &&
	    lp_sql_has_table(db, path, "GPU_METRICS"))) {
		struct lp_sb b = { 0 };

		lp_sb_printf(&b, "%s has no GPU Metrics samples (no table "
		    "GPU_METRICS): nsys profile ran without "
		    "--gpu-metrics-devices (nsys_cli.gpu_metrics_frequency: "
		    "0), or could not sample this GPU", path);
		emit_none(lp_sb_str(&b));
		lp_sb_free(&b);
		goto done;
	}
	need_tables();
	{
		struct lp_sb several = { 0 };

		src = source_of(want, none_ok ? &several : NULL);
		if (several.len) {	/* a multi-GPU run: not placed */
			emit_none(lp_sb_str(&several));
			lp_sb_free(&several);
			goto done;
		}
	}
	metric_ids(src, id);
	bw = gpu_bandwidth(&gname, &bw_why);
	used = read_samples(src, id);

	emit_meta(cpath, ppath, tpath, src, used, bw > 0 ? gname : NULL, bw);
	lp_tab_header(out, cols, NCOLS);
	for (i = 0; i < nstg; i++)
		for (steady = 0; steady < 1 + has_steady(&stg[i]); steady++)
			for (k = 0; k < NM; k++) {
				emit_row(&r, &stg[i], steady, k, id[k], 0, bw,
				    bw_why);
				if (metrics[k].bytes)
					emit_row(&r, &stg[i], steady, k, id[k],
					    1, bw, bw_why);
			}
	free(gname);
	lp_tab_done(out);
done:
	for (i = 0; i < nstg; i++) {
		for (k = 0; k < stg[i].n; k++)
			free(stg[i].in[k].pid);
		free(stg[i].in);
		free(stg[i].maxend);
		free(stg[i].range);
	}
	free(stg);
	sqlite3_close(db);
	lp_sb_free(&r.b);
	lp_yaml_free(cfg);
	return 0;
}
