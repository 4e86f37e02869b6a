/*
 * lp-kernmd: the kernels.md table from kernel TSV: lp-kernjoin's kernels.tsv
 * (nsys time, ncu metrics) or lp-ncu2tsv's output alone (ncu time).
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

/* The title and where the numbers come from, as the table's comments say:
 * text, since its sources are file names. */
static void
emit_source(const struct lp_tsv *t, const char *name, int ncu_time)
{
	const char *src = lp_tsv_comment(t, "time");
	const char *range = lp_tsv_comment(t, "range");
	const char *metrics = lp_tsv_comment(t, "metrics");
	const char *match = lp_tsv_comment(t, "match");
	const char *nmsrc = lp_tsv_comment(t, "names");
	const char *pc = lp_tsv_comment(t, "process");
	struct lp_sb b = { 0 };

	puts("# Top GPU kernels\n");
	if (ncu_time) {
		lp_sb_adds(&b, "Source: time and launches from ncu (");
		lp_md_text(&b, name);
		lp_sb_adds(&b, "): replayed one kernel at a time with locked "
		    "clocks, so durations are ncu's, not the run's; SOL % from "
		    "the same export.\n");
	} else {
		lp_sb_adds(&b, "Source: time and calls from ");
		lp_md_inline(&b, src ? src : name, 0);
		if (range) {
			lp_sb_adds(&b, ", NVTX range ");
			lp_md_code(&b, range, 0);
		}
		/* one rank of a multi-GPU run: say which */
		if (pc) {
			lp_sb_adds(&b, "; process ");
			lp_md_inline(&b, pc, 0);
		}
		lp_sb_adds(&b, "; ");
		if (metrics) {
			lp_sb_adds(&b, "SOL SM % and DRAM % from ");
			lp_md_inline(&b, metrics, 0);
			lp_sb_adds(&b, " (means over the profiled launches).");
		} else
			lp_sb_adds(&b, "no Nsight Compute metrics in this run "
			    "(SOL columns empty).");
		lp_sb_addc(&b, '\n');
	}
	if (match) {
		lp_sb_adds(&b, "\nMatching nsys to ncu: ");
		lp_md_inline(&b, match, 0);
		lp_sb_adds(&b, ". Mangled names are matched exactly; without "
		    "them, demangled names are normalised (casts and namespaces "
		    "dropped) and used only when unique.\n");
	}
	if (nmsrc) {
		lp_sb_adds(&b, "\nNames: ");
		lp_md_inline(&b, nmsrc, 0);
		lp_sb_adds(&b, ".\n");
	}
	fputs(lp_sb_str(&b), stdout);
	lp_sb_free(&b);
}

static void
emit_row(struct lp_sb *b, size_t i, const struct row *r, const char *shown,
    double sum, const char *const *cls)
{
	lp_sb_reset(b);
	lp_sb_printf(b, "| %zu | ", i + 1);
	lp_md_code(b, shown, 1);
	lp_sb_adds(b, " | ");
	lp_md_text(b, *r->device ? r->device : "-");
	lp_sb_adds(b, " | ");
	lp_fmt_ms(b, r->total);
	lp_sb_adds(b, " | ");
	lp_fmt_num(b, r->calls, 0);
	lp_sb_adds(b, " | ");
	lp_fmt_us(b, r->calls > 0 ? r->total / r->calls : 0);
	lp_sb_adds(b, " | ");
	lp_fmt_num(b, sum > 0 ? 100.0 * r->total / sum : 0, 1);
	lp_sb_adds(b, "% | ");
	lp_fmt_known(b, r->have_sm, r->sm, 1);
	lp_sb_adds(b, " | ");
	lp_fmt_known(b, r->have_dram, r->dram, 1);
	lp_sb_adds(b, " |");
	if (cls) {	/* -r: its roofline class, "n/a" where ncu measured none */
		lp_sb_addc(b, ' ');
		lp_md_text(b, !cls[i] ? "-" : strncmp(cls[i], "n/a", 3) ? cls[i] :
		    "n/a");
		lp_sb_adds(b, " |");
	}
	puts(lp_sb_str(b));
}

/* The first SHOWN rows, their names shortened but never into another row's
 * text, and the line that says how much of the time they are. */
static void
emit_table(const struct row *rows, size_t shown, size_t n, double sum,
    long width, const char *rpath)
{
	struct lp_sb b = { 0 };
	char **names, **short_names, **cls = NULL;
	double shown_sum = 0;
	size_t i;

	printf("\n| # | Kernel | Device | Total (ms) | Calls | Mean (us) | "
	    "Share | SM %% | DRAM %% |%s\n", rpath ? " Roofline class |" : "");
	printf("|--:|:-------|:-------|-----------:|------:|----------:|------:|"
	    "-----:|-------:|%s\n", rpath ? ":-------|" : "");
	names = lp_xcalloc(shown + 1, sizeof *names);
	short_names = lp_xcalloc(shown + 1, sizeof *short_names);
	for (i = 0; i < shown; i++)
		names[i] = rows[i].kernel;
	lp_kname_unique(names, shown, (size_t)width, short_names);
	if (rpath)
		cls = lp_roof_classes(rpath, names, shown);
	for (i = 0; i < shown; i++) {
		emit_row(&b, i, &rows[i], short_names[i], sum,
		    (const char *const *)cls);
		free(short_names[i]);
		shown_sum += rows[i].total;
	}
	for (i = 0; cls && i < shown; i++)
		free(cls[i]);
	free(cls);
	lp_sb_reset(&b);
	lp_fmt_num(&b, sum > 0 ? 100.0 * shown_sum / sum : 0, 1);
	printf("\n%zu of %zu kernels shown, %s%% of the GPU time above. "
	    "Share is of that total (", shown, n, lp_sb_str(&b));
	lp_sb_reset(&b);
	lp_fmt_ms(&b, sum);
	printf("%s ms). Long names are shortened here, keeping what tells two "
	    "apart; the TSV keeps them whole.%s\n", lp_sb_str(&b), rpath ?
	    " Roofline class from roofline.tsv: \"mixed\" lists the classes "
	    "of a kernel's launch configurations where they differ; n/a where "
	    "ncu measured none of them (roofline.tsv says why); - where it has "
	    "no point." : "");
	free(names);
	free(short_names);
	lp_sb_free(&b);
}

/* The table's "unmatched:" comments: kernels ncu profiled that lp-kernjoin
 * could not put beside an nsys kernel. */
static void
emit_unmatched(const struct lp_tsv *t, long width)
{
	struct lp_sb b = { 0 };
	size_t i, unmatched = 0;

	for (i = 0; i < t->ncomments; i++)
		unmatched += !strncmp(t->comments[i], "unmatched:", 10);
	if (!unmatched)
		return;
	printf("\nProfiled by ncu but not matched to any nsys kernel (their "
	    "metrics are left out rather than put beside another "
	    "kernel's time):\n\n");
	for (i = 0; i < t->ncomments; i++)
		if (!strncmp(t->comments[i], "unmatched:", 10)) {
			lp_sb_reset(&b);
			lp_sb_adds(&b, "- ");
			lp_kname_md(&b, t->comments[i] + 11, (size_t)width);
			puts(lp_sb_str(&b));
		}
	lp_sb_free(&b);
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

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "hn:r:w:")) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'n':
			top = lp_strtonum(optarg, 0, 1000000, "-n");
			break;
		case 'r':
			rpath = optarg;
			break;
		case 'w':
			width = lp_strtonum(optarg, 20, 100000, "-w");
			break;
		default:
			lp_usage(synopsis);
		}
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_tsv_open(&t, fp, name);
	n = load_rows(&t, name, &rows, &sum, &ncu_time);
	shown = top && (size_t)top < n ? (size_t)top : n;

	emit_source(&t, name, ncu_time);
	emit_table(rows, shown, n, sum, width, rpath);
	emit_unmatched(&t, width);

	for (i = 0; i < n; i++) {
		free(rows[i].kernel);
		free(rows[i].device);
		free(rows[i].match);
	}
	free(rows);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_close_stdout();
	return 0;
}
