/*
 * lp-stages: stages.tsv, the per-stage timings: each configured stage's
 * instances and wall-time statistics (nsys nvtx_sum: total, mean, median,
 * min, max, std), the GPU time of the kernels launched inside it (nsys
 * nvtx_kern_sum), the GPU-busy share and launches per instance.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"
#include "nsight.h"
#include "aten.h"

static const char synopsis[] =
    "lp-stages -c config.yaml [-L] [-k nvtx_kern_sum.csv] [nvtx_sum.csv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct range {
	char *name;
	double total, inst, avg, med, min, max, std;
	int rows;		/* nvtx_sum rows merged (statistics lost if > 1) */
	double ktime, klaunch;
	int have_wall, have_kern;
};

/*
 * The configured stages are kept; any other range is only named in a note
 * (MAX_OTHER of them), so a capture of a million distinct ranges costs no
 * more memory than one of three.
 */
enum { MAX_OTHER = 20 };

struct other {
	char *name;
	double key;		/* the largest Total Time of one of its rows */
};

struct st {
	struct range *r;
	size_t n, nconf;
	struct other other[MAX_OTHER];
	struct lp_map *pids;	/* processes with kernels (a rank each) */
	size_t nother;
	int more;		/* other ranges beyond MAX_OTHER */
	double nops;		/* PyTorch op ranges (nvtx_sum rows), not named */
};

/* The larger time first, then by name. */
static int
cmp_other(const void *a, const void *b)
{
	const struct other *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Another range: those named are the MAX_OTHER with the largest time in
 * one row, whatever the order of the rows (a key only grows, and a range
 * pushed out comes back only with a row that beats every one kept). */
static void
note_other(struct st *s, const char *name, double key)
{
	struct other o = { (char *)name, key };
	size_t i, w;

	for (i = 0; i < s->nother; i++)
		if (!strcmp(s->other[i].name, name)) {
			if (key > s->other[i].key)
				s->other[i].key = key;
			return;
		}
	if (s->nother < MAX_OTHER) {
		s->other[s->nother].name = lp_xstrdup(name);
		s->other[s->nother++].key = key;
		return;
	}
	s->more = 1;
	for (w = 0, i = 1; i < s->nother; i++)
		if (cmp_other(&s->other[i], &s->other[w]) > 0)
			w = i;
	if (cmp_other(&o, &s->other[w]) < 0) {
		free(s->other[w].name);
		s->other[w].name = lp_xstrdup(name);
		s->other[w].key = key;
	}
}

/* The configured range name matches, or NULL for another (noted, with
 * key: the row's time). */
static struct range *
slot(struct st *s, const char *name, double key)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (lp_nvtx_range_match(s->r[i].name, name))
			return &s->r[i];
	if (s->nconf) {		/* reading the reports: another range */
		if (!lp_aten_is_op(name))	/* counted by sum_row, never named */
			note_other(s, name, key);
		return NULL;
	}
	s->r = lp_xreallocarray(s->r, s->n + 1, sizeof *s->r);
	memset(&s->r[s->n], 0, sizeof s->r[0]);
	s->r[s->n].name = lp_xstrdup(name);
	return &s->r[s->n++];
}

static void
sum_row(const struct lp_rep_row *rr, void *ctx)
{
	struct range *r = slot(ctx, rr->v[2], lp_rep_time(rr, 0));
	double min = lp_rep_time(rr, 5), max = lp_rep_time(rr, 6);

	lp_rep_time(rr, 0);	/* every row's numbers are checked */
	lp_rep_count(rr, 1);
	lp_rep_time(rr, 3);
	lp_rep_time(rr, 4);
	lp_rep_time(rr, 7);
	if (!r) {
		((struct st *)ctx)->nops += lp_aten_is_op(rr->v[2]);
		return;
	}
	if (r->rows++) {
		/* the same range from another process or thread: totals
		 * add up, order statistics of the whole cannot be had */
		r->min = min < r->min ? min : r->min;
		r->max = max > r->max ? max : r->max;
	} else {
		r->med = lp_rep_time(rr, 4);
		r->std = lp_rep_time(rr, 7);
		r->min = min;
		r->max = max;
	}
	r->total += lp_rep_time(rr, 0);
	r->inst += lp_rep_count(rr, 1);
	r->avg = r->inst > 0 ? r->total / r->inst : 0;
	r->have_wall = 1;
}

static void
kern_row(const struct lp_rep_row *rr, void *ctx)
{
	struct range *r;

	if (lp_rep_has(rr, 3) && lp_map_len(((struct st *)ctx)->pids) < 4096)
		lp_map_put(((struct st *)ctx)->pids, lp_rep_pid(rr, 3), 1);
	if (!*rr->v[2])
		return;		/* kernels outside every range */
	r = slot(ctx, rr->v[2], lp_rep_time(rr, 0));
	lp_rep_count(rr, 1);
	if (!r)
		return;
	r->ktime += lp_rep_time(rr, 0);
	r->klaunch += lp_rep_count(rr, 1);
	r->have_kern = 1;
}

/* Was nsys gated on the run's stage (so other stages were not captured)? */
static const char *
gate(const struct lp_ynode *cfg, const char *file)
{
	const char *stage = lp_yaml_str(cfg, "run.stage", "");
	struct lp_stage st;
	struct lp_sb b = { 0 };
	int ok;

	if (!strcmp(lp_yaml_str(cfg, "capture.window", "nvtx"),
	    "cuda_profiler_api"))
		return "";	/* the workload's own window */
	if (strcmp(lp_yaml_str(cfg, "nsys_cli.capture_range", "none"), "nvtx") ||
	    !*stage)
		return NULL;
	lp_stage_get(cfg, stage, &st, file);
	ok = lp_nvtx_nsys_capture(&b, &st) == 0;
	lp_sb_free(&b);
	return ok ? stage : NULL;
}

static const struct lp_col cols[] = {
	{ "stage", "Stage", "text" }, { "range", "NVTX range", "code" },
	{ "instances", "Instances", "int" },
	{ "wall_total_ns", "Wall total (ms)", "ms" },
	{ "wall_mean_ns", "Mean (ms)", "ms" },
	{ "wall_median_ns", "Median (ms)", "ms" },
	{ "wall_min_ns", "Min (ms)", "ms" },
	{ "wall_max_ns", "Max (ms)", "ms" },
	{ "wall_std_ns", "Std (ms)", "ms" },
	{ "kernel_ns", "Kernel time (ms)", "ms" },
	{ "launches", "Launches", "int" },
	{ "busy_pct", "GPU busy", "pct" },
	{ "launches_per_inst", "Launches / instance", "num1" },
};

/* The configured stages first, in their order; returns their count, *names
 * the stage names (the caller frees the array, not the names). */
static size_t
load_stages(struct st *s, const struct lp_ynode *cfg, const char *cpath,
    const char ***names)
{
	char **ranges;
	size_t i, nconf;

	nconf = lp_stage_ranges(cfg, cpath, names, &ranges);
	for (i = 0; i < nconf; i++) {
		slot(s, ranges[i], 0);
		free(ranges[i]);
	}
	free(ranges);
	s->nconf = s->n;
	return nconf;
}

static void
emit_meta(const struct st *s, const char *spath, const char *kpath,
    const char *gated)
{
	struct lp_sb other = { 0 };
	size_t i;

	lp_tab_meta(out, "title", "Per-Stage Timings");
	lp_tab_meta(out, "tool", "lp-stages");
	lp_tab_meta(out, "source", "wall time of each NVTX range from nsys "
	    "nvtx_sum (%s); GPU time of the kernels launched inside it from "
	    "nsys nvtx_kern_sum (%s)", spath ? spath : "missing",
	    kpath ? kpath : "missing");
	lp_tab_meta(out, "note", "GPU busy = kernel time / wall time, both "
	    "the traced capture's, its overhead included (a live run's brief, "
	    "waterfall, MBU, MFU and savings use the untraced steps.tsv; "
	    "untraced.tsv says what the capture added). Nested ranges each "
	    "count the kernels inside them.%s%s%s",
	    gated && !*gated ? " The capture is the workload's own window "
	    "(cudaProfilerStart to cudaProfilerStop, capture.window): what "
	    "ran outside it was not captured." : gated ? " nsys was gated on "
	    "stage " : "", gated && *gated ? gated : "", gated && *gated ?
	    ": other stages were not captured." : "");
	if (lp_map_len(s->pids) > 1) {
		lp_tab_meta(out, "processes", "%zu", lp_map_len(s->pids));
		lp_tab_meta(out, "note", "%zu processes (ranks) ran kernels: "
		    "instances and wall total count every process's instances, "
		    "the statistics are over all of them, kernel time per "
		    "instance is the processes' mean. Each process alone: "
		    "ranks.tsv.", lp_map_len(s->pids));
	}
	for (i = 0; i < s->nother; i++) {
		if (i)
			lp_sb_adds(&other, ", ");
		lp_md_code(&other, s->other[i].name, 0);
	}
	if (s->nother)
		lp_tab_meta(out, "note", "Other NVTX ranges in the capture, "
		    "not configured as stages: %s%s.", lp_sb_str(&other),
		    s->more ? " and more" : "");
	if (s->nops)	/* for lp-findings: op ranges slow the host */
		lp_tab_meta(out, "op_ranges", "%.0f", s->nops);
	if (s->nops)
		lp_tab_meta(out, "note", "%.0f PyTorch op ranges in nvtx_sum "
		    "(nsys --pytorch=autograd-shapes-nvtx): not stages; the GPU "
		    "time per op is in aten_ops.tsv (make ... OPS=aten).", s->nops);
	lp_sb_free(&other);
}

/* Instances and wall-time statistics (nvtx_sum), or why there are none. */
static void
emit_wall(struct lp_row *r, const char *name, const struct range *g,
    int have_sum, const char *gated)
{
	size_t j;

	if (!have_sum)
		lp_row_na(r, "the run has no nvtx_sum report (nsys "
		    "stats --report nvtx_sum)");
	else if (!g->have_wall && gated && !*gated)
		lp_row_na(r, "the range is not in nvtx_sum: the workload's "
		    "capture window (cudaProfilerStart to cudaProfilerStop, "
		    "capture.window) did not hold it");
	else if (!g->have_wall && gated && strcmp(gated, name))
		lp_row_na(r, "nsys was gated on stage %s, so this stage "
		    "was not captured (SET=nsys_cli.capture_range=none "
		    "times every stage)", gated);
	else if (!g->have_wall)
		lp_row_na(r, "the range is not in nvtx_sum: outside the "
		    "capture, or never pushed");
	if (!g->have_wall) {
		for (j = 0; j < 6; j++)
			lp_row_text(r, "n/a");
		return;
	}
	lp_row_num(r, g->inst, 0);
	lp_row_num(r, g->total, 0);
	lp_row_num(r, g->avg, 1);
	if (g->rows == 1) {
		lp_row_num(r, g->med, 1);
		lp_row_num(r, g->min, 0);
		lp_row_num(r, g->max, 0);
		lp_row_num(r, g->std, 1);
	} else {
		lp_row_na(r, "nvtx_sum has %d rows for the range "
		    "(several processes or threads)", g->rows);
		lp_row_num(r, g->min, 0);
		lp_row_num(r, g->max, 0);
		lp_row_text(r, "n/a");
	}
}

/* Kernel time and launches (nvtx_kern_sum), the GPU-busy share and
 * launches per instance. */
static void
emit_kern(struct lp_row *r, const struct range *g, int have_kern)
{
	if (!have_kern) {
		lp_row_na(r, "the run has no nvtx_kern_sum report (nsys "
		    "stats --report nvtx_kern_sum)");
		return;
	}
	if (!g->have_wall && !g->have_kern) {
		lp_row_text(r, "n/a");
		return;
	}
	lp_row_num(r, g->ktime, 0);
	lp_row_num(r, g->klaunch, 0);
	if (g->have_wall && g->total > 0)
		lp_row_pct(r, 100 * g->ktime / g->total, 12800,
		    "GPU busy", "more kernel time (nvtx_kern_sum) "
		    "than 128 kernels at once fill in the wall time "
		    "(nvtx_sum): the reports are not of one capture");
	else
		lp_row_na(r, "no wall time");
	if (g->have_wall && g->inst > 0)
		lp_row_num(r, g->klaunch / g->inst, 1);
	else
		lp_row_text(r, "n/a");
}

static void
emit_stage(struct lp_row *r, const char *name, const struct range *g,
    int have_sum, int have_kern, const char *gated)
{
	lp_row_text(r, name);
	lp_row_text(r, g->name);
	emit_wall(r, name, g, have_sum, gated);
	emit_kern(r, g, have_kern);
	/* pad: every row as wide as the header */
	lp_row_end_na(r, sizeof cols / sizeof cols[0], out);
}

static void
free_st(struct st *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->r[i].name);
	for (i = 0; i < s->nother; i++)
		free(s->other[i].name);
	free(s->r);
	lp_map_free(s->pids);
}

int
main(int argc, char **argv)
{
	static const char *const sum_cols[] = { "Total Time", "Instances",
		"Range", "Avg", "Med", "Min", "Max", "StdDev" };
	static const char *const kern_cols[] = { "Total Time", "Kern Inst",
		"NVTX Range", "?PID" };
	const char *cpath = NULL, *kpath = NULL, *spath = NULL, *gated = NULL;
	struct lp_ynode *cfg;
	const char **names;
	struct st s = { 0 };
	struct lp_row r = { 0 };
	size_t i, nconf;
	int c, live = 0;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "c:k:L", synopsis)) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'k': kpath = optarg; break;
		case 'L': live = 1; break;
		}
	}
	if (!cpath || argc - optind > 1)
		lp_usage(synopsis);
	spath = optind < argc ? argv[optind] : NULL;
	cfg = lp_yaml_load_path(cpath);
	nconf = load_stages(&s, cfg, cpath, &names);
	if (spath)
		lp_rep_file(spath, "nsys stats --report nvtx_sum", sum_cols, 8,
		    sum_row, &s);
	s.pids = lp_map_new();
	if (kpath)
		lp_rep_file(kpath, "nsys stats --report nvtx_kern_sum", kern_cols, 4,
		    kern_row, &s);
	if (live)
		gated = gate(cfg, cpath);
	lp_qsort(s.other, s.nother, sizeof *s.other, cmp_other);

	emit_meta(&s, spath, kpath, gated);
	lp_tab_meta(out, "key", "stage");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (i = 0; i < nconf; i++)
		emit_stage(&r, names[i], &s.r[i], spath != NULL, kpath != NULL,
		    gated);

	free_st(&s);
	lp_sb_free(&r.b);
	free(names);
	lp_yaml_free(cfg);
	lp_tab_done(out);
	return 0;
}
