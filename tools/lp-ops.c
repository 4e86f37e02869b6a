/*
 * lp-ops: operators.tsv, the stage's GPU time by operator class.  A kernel
 * is classed by its base name (lp_kname_base: the function, without return
 * type, template arguments and parameters), first matching class wins;
 * wrappers are looked through to their first template argument.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-ops -o operators.yaml [kernels.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct cls {
	const char *name;
	double time, launches;
	size_t kernels;
	char *largest;
};

/* A class per class of operators.yaml, and the last for the rest. */
static struct cls *
new_classes(const struct lp_ops *ops, size_t *ncl)
{
	struct cls *cl;
	size_t i;

	*ncl = ops->n + 1;
	cl = lp_xcalloc(*ncl, sizeof *cl);
	for (i = 0; i < *ncl; i++)
		cl[i].name = ops->names[i];
	return cl;
}

/* Adds each kernel of kernels.tsv to its class; the stage's GPU time. */
static double
sum_kernels(struct lp_tsv *t, const char *name, const struct lp_ops *ops,
    struct cls *cl)
{
	double total = 0;
	size_t j, nk = 0;
	int ck, ct, cc;

	ck = lp_csv_need(&t->hdr, "kernel", "lp-kernjoin output");
	ct = lp_csv_need(&t->hdr, "total_ns", "lp-kernjoin output");
	cc = lp_csv_need(&t->hdr, "calls", "lp-kernjoin output");
	while (lp_tab_next(t)) {
		const char *k = lp_tsv_get(t, ck);
		double tm, calls;

		if (!lp_tab_num(t, ct, &tm) || tm < 0 ||
		    !lp_tab_num(t, cc, &calls) || calls < 0)
			lp_die_at(LP_EXIT_DATA, name, t->line, 0, "no total_ns or "
			    "calls for \"%s\"", k);
		j = lp_ops_class(ops, k);
		cl[j].time += tm;
		cl[j].launches += calls;
		if (!cl[j].kernels++)
			cl[j].largest = lp_xstrdup(k);	/* rows come by time */
		total += tm;
		nk++;
	}
	if (!nk)
		lp_die_at(LP_EXIT_DATA, name, t->line, 0, "no kernel rows");
	return total;
}

/* Biggest first. */
static void
sort_by_time(struct cls *cl, size_t ncl)
{
	size_t i, j;

	for (i = 0; i < ncl; i++)
		for (j = i + 1; j < ncl; j++)
			if (cl[j].time > cl[i].time) {
				struct cls x = cl[i];

				cl[i] = cl[j];
				cl[j] = x;
			}
}

static void
emit_meta(const struct lp_tsv *t, const char *name, const char *opath)
{
	static const struct lp_col cols[] = {
		{ "class", "Operator class", "text" },
		{ "time_ns", "GPU time (ms)", "ms" },
		{ "share_pct", "Share", "pct" },
		{ "launches", "Launches", "int" },
		{ "kernels", "Kernels", "int" },
		{ "largest", "Largest kernel", "code" },
	};
	const char *tc = lp_tsv_comment(t, "time");
	const char *rc = lp_tsv_comment(t, "range");
	const char *pc = lp_tsv_comment(t, "process");

	lp_tab_meta(out, "title", "Top Operators");
	lp_tab_meta(out, "tool", "lp-ops");
	lp_tab_meta(out, "source", "the kernels of %s (%s%s%s%s%s), grouped by "
	    "the classes of %s (base names, first match wins)", name,
	    tc ? tc : "nsys", rc ? ", NVTX range " : ", the whole capture: no "
	    "NVTX range", rc ? rc : "", pc ? "; process " : "", pc ? pc : "",
	    opath);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
}

/* A row per class with kernels (the others are left out), its largest
 * kernel's name shown short, no two rows alike (lp_kname_unique). */
static void
emit_classes(const struct cls *cl, size_t ncl, double total)
{
	struct lp_row r = { 0 };
	char **largest = lp_xcalloc(ncl, sizeof *largest);
	char **shown = lp_xcalloc(ncl, sizeof *shown);
	size_t i, j;

	for (i = j = 0; i < ncl; i++)
		if (cl[i].kernels)
			largest[j++] = cl[i].largest;
	lp_kname_unique(largest, j, LP_KNAME_MAX, shown);
	for (i = j = 0; i < ncl; i++) {
		if (!cl[i].kernels)
			continue;
		lp_row_text(&r, cl[i].name);
		lp_row_num(&r, cl[i].time, 0);
		lp_row_share(&r, cl[i].time, total, "the kernels took no time");
		lp_row_num(&r, cl[i].launches, 0);
		lp_row_num(&r, (double)cl[i].kernels, 0);
		lp_row_text(&r, shown[j]);
		free(shown[j++]);
		lp_row_end(&r, out);
	}
	free(largest);
	free(shown);
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	const char *opath = NULL, *name;
	struct lp_ops ops;
	struct cls *cl;
	struct lp_tsv t;
	size_t ncl, i;
	double total;
	int c;
	FILE *fp;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "o:", synopsis)) != -1) {
		switch (c) {
		case 'o': opath = optarg; break;
		}
	}
	if (!opath || argc - optind > 1)
		lp_usage(synopsis);
	lp_ops_load(&ops, opath);
	cl = new_classes(&ops, &ncl);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_tsv_open(&t, fp, name);
	lp_tab_expect(&t, "lp-kernjoin");
	total = sum_kernels(&t, name, &ops, cl);
	sort_by_time(cl, ncl);
	emit_meta(&t, name, opath);
	emit_classes(cl, ncl, total);
	for (i = 0; i < ncl; i++)
		free(cl[i].largest);
	free(cl);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_ops_free(&ops);
	lp_tab_done(out);
	return 0;
}
