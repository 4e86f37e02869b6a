/*
 * lp-bwceil: dram_bw.tsv, the run's DRAM ceiling three ways: the
 * datasheet figure (gpu.tsv), the bandwidth a device-to-device copy
 * reached on each GPU of the machine (lp-bwprobe's table), and the best
 * bandwidth the workload sustained in nsys's GPU Metrics samples (the
 * sqlite export): the best mean, over a window of consecutive samples,
 * of DRAM read % + write % times the export's memoryBandwidth.
 *
 * The lines "# measured_bps:" and "# measured:" carry the ceiling the
 * roofline and the waterfall show beside the datasheet's (lp_bwmeas_read):
 * the lowest best copy of the probed GPUs, a bound every one of them
 * reaches.  The samples read stream from SQLite in time order; memory
 * holds one window.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "nsql.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-bwceil [-e probe.log] -g gpu.tsv "
    "[-P why] [-p bwprobe.tsv] [-w samples] [report.sqlite]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static const struct lp_col cols[] = {
	{ "source", "Figure", "text" }, { "gpu", "GPU", "text" },
	{ "device", "Device", "text" },
	{ "bytes_per_s", "DRAM read + write", "Bps" },
	{ "datasheet_pct", "% of datasheet", "pct" },
	{ "how", "How it was measured", "text" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

static const char rd_name[] = "DRAM Read Bandwidth [Throughput %]";
static const char wr_name[] = "DRAM Write Bandwidth [Throughput %]";

static void
row(const char *src, const char *gpu, const char *dev, double bps,
    double datasheet, const char *how, const char *why)
{
	struct lp_row r = { 0 };

	lp_row_text(&r, src);
	lp_row_text(&r, gpu && *gpu ? gpu : "n/a");
	lp_row_text(&r, dev);
	if (why) {
		lp_row_na(&r, "%s", why);
		lp_row_text(&r, "n/a");
	} else {
		lp_row_g(&r, bps);
		if (datasheet > 0)
			lp_row_g(&r, 100 * bps / datasheet);
		else
			lp_row_text(&r, "n/a");
	}
	lp_row_text(&r, how);
	lp_row_end(&r, out);
	lp_sb_free(&r.b);
}

/* ---- the copy probe (lp-bwprobe) ---- */

struct probe {
	double min_best;	/* the lowest best copy of the GPUs */
	char *gpu;		/* their name; NULL where they differ */
	size_t n;
	char *why;		/* no probe: why */
	char *how;		/* what the probe did, for the # lines */
};

/* A GPU's copies into the probe's figures: the lowest best, the GPUs'
 * name while they are one model, and what the first one's copies were. */
static void
probe_add(struct probe *pr, const char *name, double best, double copies,
    double size)
{
	struct lp_sb how = { 0 };

	if (!pr->n++) {
		pr->gpu = lp_xstrdup(name);
		lp_sb_printf(&how, "the fastest of %.0f device-to-device "
		    "copies of %.0f bytes", copies, size);
		pr->how = lp_sb_steal(&how);
	} else if (pr->gpu && strcmp(pr->gpu, name)) {
		free(pr->gpu);
		pr->gpu = NULL;
	}
	if (pr->n == 1 || best < pr->min_best)
		pr->min_best = best;
}

static void
read_probe(const char *ppath, const char *lpath, double datasheet,
    struct probe *pr)
{
	struct lp_tsv t;
	FILE *fp;
	int cd, cn, cb, cm, cs, cc;

	if (lp_file_empty(ppath)) {
		struct lp_sb b = { 0 };
		char *said = lp_file_said(lpath);

		lp_sb_printf(&b, "the copy probe could not run on the run's "
		    "machine (lp-bwprobe: %s)", said);
		free(said);
		pr->why = lp_sb_steal(&b);
		row("copy_best", NULL, "n/a", 0, 0, "lp-bwprobe", pr->why);
		return;
	}
	fp = lp_tab_open(&t, ppath, "lp-bwprobe");
	lp_tab_expect(&t, "lp-bwprobe");
	cd = lp_csv_need(&t.hdr, "device", "lp-bwprobe output");
	cn = lp_csv_need(&t.hdr, "name", "lp-bwprobe output");
	cs = lp_csv_need(&t.hdr, "bytes", "lp-bwprobe output");
	cc = lp_csv_need(&t.hdr, "copies", "lp-bwprobe output");
	cb = lp_csv_need(&t.hdr, "best_bytes_per_s", "lp-bwprobe output");
	cm = lp_csv_need(&t.hdr, "median_bytes_per_s", "lp-bwprobe output");
	while (lp_tab_next(&t)) {
		struct lp_sb how = { 0 };
		double best, med, size, copies;
		const char *name = lp_tsv_get(&t, cn);

		if (!lp_tab_num(&t, cb, &best) || !(best > 0) ||
		    !lp_tab_num(&t, cm, &med) || !(med > 0))
			lp_die_at(LP_EXIT_DATA, ppath, t.line, cb + 1, "best and "
			    "median bytes/s: expected numbers above 0");
		if (!lp_tab_num(&t, cs, &size) || !lp_tab_num(&t, cc, &copies))
			lp_die_at(LP_EXIT_DATA, ppath, t.line, cs + 1, "bytes and "
			    "copies: expected numbers");
		lp_sb_printf(&how, "lp-bwprobe: the fastest of %.0f "
		    "device-to-device copies of %.0f bytes, 2 x bytes / time",
		    copies, size);
		row("copy_best", name, lp_tsv_get(&t, cd), best, datasheet,
		    lp_sb_str(&how), NULL);
		lp_sb_reset(&how);
		lp_sb_printf(&how, "lp-bwprobe: the median of %.0f copies",
		    copies);
		row("copy_median", name, lp_tsv_get(&t, cd), med, datasheet,
		    lp_sb_str(&how), NULL);
		lp_sb_free(&how);
		probe_add(pr, name, best, copies, size);
	}
	if (!pr->n)
		pr->why = lp_xstrdup("lp-bwprobe's table has no GPU");
	else if (!pr->gpu)
		pr->why = lp_xstrdup("the machine's GPUs are not all one model "
		    "and nothing says which one the run used");
	lp_tsv_close(&t);
	fclose(fp);
}

/* ---- the samples (nsys GPU Metrics) ---- */

struct seen {
	double best;		/* the best over all sources; 0 none */
	char *why;		/* none: why */
	char *how;
};

static sqlite3 *db;
static const char *dbpath;

static double
pct_value(sqlite3_stmt *st, int64_t row)
{
	double v;

	if (sqlite3_column_type(st, 3) != SQLITE_INTEGER &&
	    sqlite3_column_type(st, 3) != SQLITE_FLOAT)
		lp_die_at(LP_EXIT_DATA, dbpath, 0, 0, "GPU_METRICS row %" PRId64
		    ": value is not a number", row);
	v = sqlite3_column_double(st, 3);
	if (!(v >= 0 && v <= 100))
		lp_die_at(LP_EXIT_DATA, dbpath, 0, 0, "GPU_METRICS row %" PRId64
		    ": a DRAM bandwidth of %g %%, not a percentage from 0 to 100",
		    row, v);
	return v;
}

/* The last w samples of read % + write % (a ring, with their times): the
 * best mean of w so far and its window's first and last times. */
struct win {
	double *ring, *tr, sum, best, first, last, t0, t1;
	long w, n;
};

/* The sample cur at time t into the window. */
static void
win_add(struct win *x, double cur, double t)
{
	size_t k = (size_t)(x->n % x->w);

	x->sum += cur - x->ring[k];
	x->ring[k] = cur;
	x->tr[k] = t;
	if (!x->n)
		x->first = t;
	x->last = t;
	x->n++;
	if (x->n >= x->w && x->sum / (double)x->w > x->best) {
		x->best = x->sum / (double)x->w;
		x->t0 = x->tr[x->n % x->w];	/* the oldest */
		x->t1 = t;
	}
}

/* The best mean of read % + write % over w consecutive samples (times
 * that have both) of one source, in time order; *t0 and *t1 get the best
 * window's first and last times, *ns the samples and *period their mean
 * spacing.  -1 when fewer than w samples.  A metric sampled twice at one
 * time counts its larger value, by content, not by the table's order
 * (which nsys 2025.6 does not promise). */
static double
best_window(int64_t src, int64_t rid, int64_t wid, long w, double *t0,
    double *t1, long *ns, double *period)
{
	sqlite3_stmt *st = lp_sql_query(db, dbpath, "SELECT rowid, timestamp, "
	    "metricId, value FROM GPU_METRICS WHERE typeId = ?1 AND metricId IN "
	    "(?2, ?3) ORDER BY timestamp, metricId, value");
	struct win x = { .ring = lp_xcalloc((size_t)w, sizeof *x.ring),
	    .tr = lp_xcalloc((size_t)w, sizeof *x.tr), .best = -1, .w = w };
	double rv = 0, wv = 0;
	int64_t t = 0;
	int started = 0, have = 0;	/* have: bit 1 read, 2 write, at t */

	sqlite3_bind_int64(st, 1, src);
	sqlite3_bind_int64(st, 2, rid);
	sqlite3_bind_int64(st, 3, wid);
	for (;;) {
		int more = lp_sql_step(db, dbpath, st);
		int64_t row = more ? sqlite3_column_int64(st, 0) : 0;
		int64_t ts = more ? sqlite3_column_int64(st, 1) : -1;

		/* a time in ns; before the session's zero (a second GPU's
		 * first samples, seen on two H200s) is a time too */
		if (more && sqlite3_column_type(st, 1) != SQLITE_INTEGER)
			lp_die_at(LP_EXIT_DATA, dbpath, 0, 0, "GPU_METRICS row %"
			    PRId64 ": timestamp is not a time in ns", row);
		if (!more || !started || ts != t) {	/* the sample at t: whole */
			if (have == 3)
				win_add(&x, rv + wv, (double)t);
			if (!more)
				break;
			t = ts;
			started = 1;
			have = 0;
		}
		if (sqlite3_column_int64(st, 2) == rid) {
			rv = pct_value(st, row);
			have |= 1;
		} else {
			wv = pct_value(st, row);
			have |= 2;
		}
	}
	sqlite3_finalize(st);
	free(x.ring);
	free(x.tr);
	*t0 = x.t0;
	*t1 = x.t1;
	*ns = x.n;
	*period = x.n > 1 ? (x.last - x.first) / (double)(x.n - 1) : 0;
	return x.best;
}

/* One source's (GPU's) row: its best window of samples at the export's
 * bandwidth bw (bw_why: why none), or why it has none; the best of the
 * sources so far in sn. */
static void
read_source(int64_t src, long w, double datasheet, double bw,
    const char *bw_why, const char *gname, struct seen *sn)
{
	const char *const nm[2] = { rd_name, wr_name };
	int64_t ids[2], rid, wid;
	struct lp_sb dev = { 0 }, how = { 0 }, why = { 0 };
	double t0 = 0, t1 = 0, period = 0, best;
	long n = 0;

	lp_sql_metric_ids(db, dbpath, src, nm, 2, ids);
	rid = ids[0];
	wid = ids[1];
	lp_sql_dram_sum(db, dbpath, src, rid, wid, rd_name, wr_name);
	lp_sb_printf(&dev, "typeId %" PRId64, src);
	if (rid < 0 || wid < 0) {
		lp_sb_printf(&why, "the export has no metric \"%s\" for "
		    "this source", rid < 0 ? rd_name : wr_name);
	} else {
		best = best_window(src, rid, wid, w, &t0, &t1, &n, &period);
		if (best < 0)
			lp_sb_printf(&why, "%ld samples of DRAM read and "
			    "write, fewer than the window of %ld", n, w);
		else if (!(bw > 0))
			lp_sb_adds(&why, bw_why);
		else {
			best = best * bw / 100;
			lp_sb_printf(&how, "nsys GPU Metrics: the best mean "
			    "of %ld consecutive samples (%.3g ms at one "
			    "every %.3g ms; from %.6f s to %.6f s of the "
			    "capture) of (DRAM read %% + write %%) x "
			    "memoryBandwidth %.6g bytes/s, of %ld samples",
			    w, (double)w * period / 1e6, period / 1e6,
			    t0 / 1e9, t1 / 1e9, bw, n);
			row("sampled_best", gname, lp_sb_str(&dev), best,
			    datasheet, lp_sb_str(&how), NULL);
			if (best > sn->best) {
				sn->best = best;
				free(sn->how);
				lp_sb_reset(&how);
				lp_sb_printf(&how, "the best mean of %ld "
				    "consecutive GPU Metrics samples (%.3g "
				    "ms)", w, (double)w * period / 1e6);
				sn->how = lp_sb_steal(&how);
			}
		}
	}
	if (why.len)
		row("sampled_best", gname, lp_sb_str(&dev), 0, 0,
		    "nsys GPU Metrics", lp_sb_str(&why));
	lp_sb_free(&dev);
	lp_sb_free(&how);
	lp_sb_free(&why);
}

static void
read_samples(const char *path, long w, double datasheet, struct seen *sn)
{
	sqlite3_stmt *st;
	struct lp_sb bw_why = { 0 };
	char *gname;
	double bw;
	int nsrc = 0;

	dbpath = path;
	db = lp_sql_open(path);
	if (!lp_sql_has_table(db, path, "GPU_METRICS") ||
	    !lp_sql_has_table(db, path, "TARGET_INFO_GPU_METRICS")) {
		struct lp_sb b = { 0 };

		lp_sb_printf(&b, "%s has no GPU Metrics samples (no table "
		    "GPU_METRICS): nsys profile ran without --gpu-metrics-devices",
		    path);
		sn->why = lp_sb_steal(&b);
		row("sampled_best", NULL, "n/a", 0, 0, "nsys GPU Metrics", sn->why);
		sqlite3_close(db);
		return;
	}
	bw = lp_sql_gpu_bw(db, path, datasheet, &gname, &bw_why);
	st = lp_sql_query(db, path, "SELECT DISTINCT typeId FROM "
	    "TARGET_INFO_GPU_METRICS ORDER BY typeId");
	while (lp_sql_step(db, path, st)) {
		int64_t src = sqlite3_column_int64(st, 0);

		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
			lp_die_at(LP_EXIT_DATA, path, 0, 0, "TARGET_INFO_GPU_METRICS"
			    ".typeId \"%s\" is not an integer",
			    sqlite3_column_text(st, 0));
		nsrc++;
		read_source(src, w, datasheet, bw, lp_sb_str(&bw_why), gname,
		    sn);
	}
	sqlite3_finalize(st);
	if (!nsrc)
		row("sampled_best", gname, "n/a", 0, 0, "nsys GPU Metrics",
		    "TARGET_INFO_GPU_METRICS names no metric: no GPU was "
		    "sampled");
	if (!(sn->best > 0))
		sn->why = lp_xstrdup("no source of samples gives a DRAM "
		    "bandwidth (the table says why)");
	free(gname);
	lp_sb_free(&bw_why);
	sqlite3_close(db);
}

/* The command line. */
struct opts {
	const char *gpath, *ppath, *lpath, *why;
	const char *spath;	/* the sqlite export; NULL none */
	long w;
};

/* The table's rows into a buffer, returned with its length in *nrows: the
 * # lines above them need what the rows found. */
static char *
read_rows(const struct opts *o, const struct lp_peaks *pk, struct probe *pr,
    struct seen *sn, size_t *nrows)
{
	FILE *tab = out;
	char *rows = NULL;

	*nrows = 0;
	out = open_memstream(&rows, nrows);
	if (!out)
		lp_die_sys("open_memstream");
	row("datasheet", pk->gpu, "-", pk->bw, pk->bw, "conf/gpus.yaml "
	    "hbm_tbps (or SET=gpu.hbm_tbps), as gpu.tsv resolved it",
	    pk->bw > 0 ? NULL : pk->why);
	if (o->ppath)
		read_probe(o->ppath, o->lpath, pk->bw, pr);
	else {
		pr->why = lp_xstrdup(o->why);
		row("copy_best", NULL, "n/a", 0, 0, "lp-bwprobe", o->why);
	}
	if (o->spath)
		read_samples(o->spath, o->w, pk->bw, sn);
	else {
		sn->why = lp_xstrdup("the run has no nsys sqlite export "
		    "with GPU Metrics samples");
		row("sampled_best", NULL, "n/a", 0, 0, "nsys GPU Metrics",
		    sn->why);
	}
	if (fclose(out))
		lp_die_sys("open_memstream");
	out = tab;
	return rows;
}

/* The # lines: the sources, the ceilings the roofline and the waterfall
 * read (measured, sampled) or why there is none, the note. */
static void
emit_meta(const struct opts *o, const struct lp_peaks *pk,
    const struct probe *pr, const struct seen *sn)
{
	char ex[LP_EXACT_MAX];

	lp_tab_meta(out, "title", "DRAM Bandwidth: Datasheet, Copy "
	    "Probe, Samples");
	lp_tab_meta(out, "tool", "lp-bwceil");
	lp_tab_meta(out, "source", "datasheet: %s (%s); copy: %s; "
	    "samples: %s", o->gpath, pk->gpu ? pk->gpu : "GPU unknown",
	    o->ppath ? o->ppath : "none", o->spath ? o->spath : "none");
	if (pr->why)
		lp_tab_meta(out, "measured", "n/a because %s", pr->why);
	else {
		lp_tab_meta(out, "measured_bps", "%s",
		    lp_fmt_exact(pr->min_best, ex));
		lp_tab_meta(out, "measured", "%s on %s%s (lp-bwprobe)",
		    pr->how, pr->n > 1 ? "each of the GPUs, the lowest, " :
		    "", pr->gpu);
	}
	if (sn->best > 0) {
		lp_tab_meta(out, "sampled_bps", "%s",
		    lp_fmt_exact(sn->best, ex));
		lp_tab_meta(out, "sampled", "%s: what the workload "
		    "reached, a lower bound on the GPU's", sn->how);
	} else
		lp_tab_meta(out, "sampled", "n/a because %s", sn->why);
	lp_tab_meta(out, "note", "Every figure counts DRAM read + write "
	    "bytes. A copy reads and writes each byte once (2 x bytes / "
	    "time); the samples are nsys's DRAM read and write "
	    "throughput %%, summed, of the export's memoryBandwidth. "
	    "The roofline and the waterfall keep the datasheet's figure "
	    "and show the measured copy beside it.");
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, NULL, NULL, NULL, NULL, 10 };
	struct lp_peaks pk;
	struct probe pr = { 0 };
	struct seen sn = { 0 };
	char *rows;
	size_t nrows;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "e:g:P:p:w:", synopsis)) != -1) {
		switch (c) {
		case 'e': o.lpath = optarg; break;
		case 'g': o.gpath = optarg; break;
		case 'P': o.why = optarg; break;
		case 'p': o.ppath = optarg; break;
		case 'w': o.w = lp_strtonum(optarg, 1, 100000, "-w"); break;
		}
	}
	if (!o.gpath || !o.ppath == !o.why || (o.lpath && !o.ppath) ||
	    argc - optind > 1)
		lp_usage(synopsis);
	o.spath = optind < argc ? argv[optind] : NULL;
	out = lp_tab_out();
	lp_peaks_read(&pk, o.gpath);
	rows = read_rows(&o, &pk, &pr, &sn, &nrows);
	emit_meta(&o, &pk, &pr, &sn);
	lp_tab_header(out, cols, NCOLS);
	if (nrows && fwrite(rows, 1, nrows, out) != nrows)
		lp_die_sys("write");
	free(rows);
	free(pr.gpu);
	free(pr.why);
	free(pr.how);
	free(sn.why);
	free(sn.how);
	lp_peaks_free(&pk);
	lp_tab_done(out);
	return LP_EXIT_OK;
}
