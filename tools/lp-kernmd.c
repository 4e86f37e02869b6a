/*
 * lp-kernmd: kernels.md's table (kernels_md.tsv, which lp-summary renders)
 * from kernel TSV: lp-kernjoin's kernels.tsv (nsys time, ncu metrics) or
 * lp-ncu2tsv's output alone (ncu time).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"
#include "run.h"

static const char synopsis[] =
    "lp-kernmd [-n N] [-r roofline.tsv] [-w WIDTH] [file]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

/* kernels.md's columns; the class last (-r only) */
static const struct lp_col cols[] = {
	{ "rank", "#", "int" }, { "name", "Kernel", "code" },
	{ "kernel", "Kernel (whole name)", "hide" },
	{ "device", "Device", "text" },
	{ "total_ns", "Total (ms)", "ms" }, { "calls", "Calls", "int" },
	{ "mean_ns", "Mean (us)", "us" }, { "share_pct", "Share", "pct" },
	{ "sm_pct", "SM %", "num1" }, { "dram_pct", "DRAM %", "num1" },
	{ "class", "Roofline class", "text" },
};

struct row {
	char *kernel, *device, *match;
	double total, calls, sm, dram;
	int have_sm, have_dram;
};

static int
cmp(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->kernel, b->kernel);
}

/* The kernel rows of the table, sorted by time; *ncu_time says the time is
 * ncu's (lp-ncu2tsv's output alone), *sum is all of it. Returns the count. */
static size_t
load_rows(struct lp_tsv *t, const char *name, struct row **rows, double *sum,
    int *ncu_time)
{
	size_t n = 0;
	int ck, ct, cc, cd, cs, cr, cm;

	ck = lp_csv_need(&t->hdr, "kernel", "kernel TSV (lp-kernjoin or lp-ncu2tsv)");
	ct = lp_csv_col(&t->hdr, "total_ns");
	cc = lp_csv_col(&t->hdr, "calls");
	*ncu_time = 0;
	if (ct < 0 || cc < 0) {
		/* lp-ncu2tsv alone: ncu's replayed durations stand in */
		ct = lp_csv_need(&t->hdr, "gpu_time_ns", "kernel TSV");
		cc = lp_csv_need(&t->hdr, "launches", "kernel TSV");
		*ncu_time = 1;
	}
	cd = lp_csv_col(&t->hdr, "device");
	cs = lp_csv_col(&t->hdr, "sm_throughput_pct");
	cr = lp_csv_col(&t->hdr, "dram_throughput_pct");
	cm = lp_csv_col(&t->hdr, "match");
	*sum = 0;
	while (lp_tab_next(t)) {
		struct row *r;

		*rows = lp_xreallocarray(*rows, n + 1, sizeof **rows);
		r = &(*rows)[n++];
		memset(r, 0, sizeof *r);
		r->kernel = lp_xstrdup(lp_tsv_get(t, ck));
		r->device = lp_xstrdup(lp_tsv_get(t, cd));
		r->match = lp_xstrdup(lp_tsv_get(t, cm));
		if (!lp_tab_num(t, ct, &r->total) ||
		    !lp_tab_num(t, cc, &r->calls))
			lp_die_at(LP_EXIT_DATA, name, t->line, 0,
			    "no total time or call count for \"%s\"", r->kernel);
		r->have_sm = lp_tab_num(t, cs, &r->sm);
		r->have_dram = lp_tab_num(t, cr, &r->dram);
		*sum += r->total;
	}
	if (!n)
		lp_die_at(LP_EXIT_DATA, name, t->line, 0, "no kernel rows");
	lp_qsort(*rows, n, sizeof **rows, cmp);
	return n;
}

/* Where the numbers come from, as the table's comments say. */
/* The table's "unmatched:" comments, kernels ncu profiled that lp-kernjoin
 * could not put beside an nsys kernel, as a note. */
static void
emit_unmatched(const struct lp_tsv *t, long width)
{
	struct lp_sb b = { 0 };
	size_t i, n = 0;

	for (i = 0; i < t->ncomments; i++)
		if (!strncmp(t->comments[i], "unmatched:", 10)) {
			lp_sb_adds(&b, n++ ? ", " : "");
			lp_kname_md(&b, t->comments[i] + 11, (size_t)width);
		}
	if (n)
		lp_tab_meta(out, "note", "Profiled by ncu but not matched to any "
		    "nsys kernel (their metrics are left out rather than put "
		    "beside another kernel's time): %s.", lp_sb_str(&b));
	lp_sb_free(&b);
}

static void
emit_meta(const struct lp_tsv *t, const char *name, int ncu_time, long width)
{
	const char *src = lp_tsv_comment(t, "time");
	const char *range = lp_tsv_comment(t, "range");
	const char *metrics = lp_tsv_comment(t, "metrics");
	const char *match = lp_tsv_comment(t, "match");
	const char *nmsrc = lp_tsv_comment(t, "names");
	const char *pc = lp_tsv_comment(t, "process");
	struct lp_sb b = { 0 };

	lp_tab_meta(out, "title", "Kernels by GPU time");
	lp_tab_meta(out, "tool", "lp-kernmd");
	if (ncu_time)
		lp_tab_meta(out, "source", "time and launches from ncu (%s): "
		    "replayed one kernel at a time with locked clocks, so "
		    "durations are ncu's, not the run's; SOL %% from the same "
		    "export", name);
	else {
		lp_sb_printf(&b, "time and calls from %s", src ? src : name);
		if (range) {
			lp_sb_adds(&b, ", NVTX range ");
			lp_md_code(&b, range, 0);
		}
		if (pc)		/* one rank of a multi-GPU run: say which */
			lp_sb_printf(&b, "; process %s", pc);
		if (metrics)
			lp_sb_printf(&b, "; SOL SM %% and DRAM %% from %s (means "
			    "over the profiled launches)", metrics);
		else
			lp_sb_adds(&b, "; no Nsight Compute metrics in this "
			    "run (SOL columns empty)");
		lp_tab_meta(out, "source", "%s", lp_sb_str(&b));
	}
	if (range)
		lp_tab_meta(out, "range", "%s", range);
	if (match)
		lp_tab_meta(out, "note", "Matching nsys to ncu: %s. Mangled "
		    "names are matched exactly; without them, demangled names "
		    "are normalised (casts and namespaces dropped) and used only "
		    "when unique.", match);
	if (nmsrc)
		lp_tab_meta(out, "note", "Names: %s.", nmsrc);
	emit_unmatched(t, width);
	lp_tab_meta(out, "key", "rank");
	lp_sb_free(&b);
}

/* One kernel's row: "-" where ncu did not profile it (SOL) or where it has
 * no roofline point (class), as the note under the table says. */
static void
emit_row(struct lp_row *r, size_t i, const struct row *k, const char *shown,
    double sum, int have_cls, const char *cls)
{
	lp_row_num(r, (double)(i + 1), 0);
	lp_row_text(r, shown);
	lp_row_text(r, k->kernel);
	lp_row_text(r, *k->device ? k->device : "-");
	lp_row_num(r, k->total, 0);
	lp_row_num(r, k->calls, 0);
	if (k->calls > 0)
		lp_row_g(r, k->total / k->calls);
	else
		lp_row_na(r, "no calls");
	lp_row_share(r, k->total, sum, "the kernels took no time");
	if (k->have_sm)
		lp_row_g(r, k->sm);
	else
		lp_row_text(r, "-");
	if (k->have_dram)
		lp_row_g(r, k->dram);
	else
		lp_row_text(r, "-");
	if (have_cls)
		lp_row_text(r, !cls ? "-" : strncmp(cls, "n/a", 3) ? cls :
		    "n/a");
	lp_row_end(r, out);
}

/* The first SHOWN rows, their names shortened but never into another row's
 * text, and the note that says how much of the time they are. */
static void
emit_table(const struct row *rows, size_t shown, size_t n, double sum,
    long width, const char *rpath)
{
	struct lp_row r = { 0 };
	struct lp_sb b = { 0 }, t = { 0 };
	char **names, **short_names, **cls = NULL;
	double shown_sum = 0;
	size_t i;

	names = lp_xcalloc(shown + 1, sizeof *names);
	short_names = lp_xcalloc(shown + 1, sizeof *short_names);
	for (i = 0; i < shown; i++) {
		names[i] = rows[i].kernel;
		shown_sum += rows[i].total;
	}
	lp_kname_unique(names, shown, (size_t)width, short_names);
	if (rpath)
		cls = lp_roof_classes(rpath, names, shown);
	lp_fmt_pct(&b, sum > 0 ? 100.0 * shown_sum / sum : 0);
	lp_fmt_ms(&t, sum);
	lp_tab_meta(out, "note", "%zu of %zu kernels shown, %s of the GPU time "
	    "above. Share is of that total (%s ms). Long names are shortened "
	    "here, keeping what tells two apart; the TSV keeps them whole. SM "
	    "%% and DRAM %%: - where ncu did not profile the kernel.%s", shown,
	    n, lp_sb_str(&b), lp_sb_str(&t), rpath ? " Roofline class from "
	    "roofline.tsv: \"mixed\" lists the classes of a kernel's launch "
	    "configurations where they differ; n/a where ncu measured none of "
	    "them (roofline.tsv says why); - where it has no point." : "");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0] - !rpath);
	for (i = 0; i < shown; i++) {
		emit_row(&r, i, &rows[i], short_names[i], sum, rpath != NULL,
		    cls ? cls[i] : NULL);
		free(short_names[i]);
	}
	for (i = 0; cls && i < shown; i++)
		free(cls[i]);
	free(cls);
	free(names);
	free(short_names);
	lp_sb_free(&r.b);
	lp_sb_free(&b);
	lp_sb_free(&t);
}

int
main(int argc, char **argv)
{
	struct lp_tsv t;
	struct row *rows = NULL;
	const char *name;
	size_t n, i, shown;
	long top = 25, width = LP_KNAME_MAX;
	const char *rpath = NULL;
	double sum;
	int c, ncu_time;
	FILE *fp;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "n:r:w:", synopsis)) != -1) {
		switch (c) {
		case 'n':
			top = lp_strtonum(optarg, 0, 1000000, "-n");
			break;
		case 'r':
			rpath = optarg;
			break;
		case 'w':
			width = lp_strtonum(optarg, 20, 100000, "-w");
			break;
		}
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_tsv_open(&t, fp, name);
	n = load_rows(&t, name, &rows, &sum, &ncu_time);
	shown = top && (size_t)top < n ? (size_t)top : n;

	emit_meta(&t, name, ncu_time, width);
	emit_table(rows, shown, n, sum, width, rpath);

	for (i = 0; i < n; i++) {
		free(rows[i].kernel);
		free(rows[i].device);
		free(rows[i].match);
	}
	free(rows);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_tab_done(out);
	return 0;
}
