/*
 * lp-topk: top_kernels.tsv, the stage's top kernels by GPU time: time and
 * calls from nsys, SOL % from ncu (kernels.tsv), and each kernel's roofline
 * class (roofline.tsv).  Names are shortened, never into another's.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"

static const char synopsis[] =
    "lp-topk [-n N] [-o operators.yaml] [-r roofline.tsv] [kernels.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct k {
	char *kernel, *cls;
	double total, calls, sm, dram;
	int have_sm, have_dram;
};

static const struct lp_col cols[] = {
	{ "rank", "#", "int" }, { "name", "Kernel", "code" },
	{ "kernel", "Kernel (whole name)", "hide" },
	{ "total_ns", "Total (ms)", "ms" }, { "calls", "Calls", "int" },
	{ "mean_ns", "Mean (us)", "us" }, { "share_pct", "Share", "pct" },
	{ "sm_pct", "SM %", "num1" }, { "dram_pct", "DRAM %", "num1" },
	{ "class", "Roofline class", "text" },
	{ "operator", "Operator class", "text" },
};

/* The first TOP kernels of kernels.tsv (sorted by time already) into *ks;
 * returns their count, *sum the time of all of them. */
static size_t
load_kernels(struct lp_tsv *t, const char *name, long top, struct k **ks,
    double *sum)
{
	size_t n = 0;
	int ck, ct, cc, cs, cd;

	ck = lp_csv_need(&t->hdr, "kernel", "lp-kernjoin output");
	ct = lp_csv_need(&t->hdr, "total_ns", "lp-kernjoin output");
	cc = lp_csv_need(&t->hdr, "calls", "lp-kernjoin output");
	cs = lp_csv_col(&t->hdr, "sm_throughput_pct");
	cd = lp_csv_col(&t->hdr, "dram_throughput_pct");
	*sum = 0;
	while (lp_tab_next(t)) {
		struct k k;

		memset(&k, 0, sizeof k);
		if (!lp_tab_num(t, ct, &k.total) || k.total < 0 ||
		    !lp_tab_num(t, cc, &k.calls) || k.calls < 0)
			lp_die_at(LP_EXIT_DATA, name, t->line, 0, "no total_ns or "
			    "calls for \"%s\"", lp_tsv_get(t, ck));
		*sum += k.total;
		if (n >= (size_t)top)
			continue;
		k.kernel = lp_xstrdup(lp_tsv_get(t, ck));
		k.have_sm = lp_tab_num(t, cs, &k.sm);
		k.have_dram = lp_tab_num(t, cd, &k.dram);
		*ks = lp_xreallocarray(*ks, n + 1, sizeof **ks);
		(*ks)[n++] = k;
	}
	if (!n)
		lp_die_at(LP_EXIT_DATA, name, t->line, 0, "no kernel rows");
	return n;
}

static void
load_classes(const char *rpath, struct k *ks, size_t n)
{
	char **names = lp_xcalloc(n + 1, sizeof *names), **cls;
	size_t i;

	for (i = 0; i < n; i++)
		names[i] = ks[i].kernel;
	cls = lp_roof_classes(rpath, names, n);
	for (i = 0; i < n; i++)
		ks[i].cls = cls[i];
	free(cls);
	free(names);
}

static void
emit_meta(const struct lp_tsv *t, const char *name, const char *rpath)
{
	const char *tc = lp_tsv_comment(t, "time");
	const char *rc = lp_tsv_comment(t, "range");
	const char *mc = lp_tsv_comment(t, "metrics");
	const char *pc = lp_tsv_comment(t, "process");

	lp_tab_meta(out, "title", "Top Kernels");
	lp_tab_meta(out, "tool", "lp-topk");
	lp_tab_meta(out, "source", "%s: time and calls from %s%s%s%s%s; SOL %% "
	    "from %s%s%s", name, tc ? tc : "nsys", rc ? ", NVTX range " :
	    ", the whole capture (no NVTX range)", rc ? rc : "", pc ?
	    "; process " : "", pc ? pc : "", mc ? mc :
	    "no ncu step in this run", rpath ? "; class from " : "",
	    rpath ? rpath : "");
	lp_tab_meta(out, "note", "Share is of all %s kernels' time. The "
	    "full table is in kernels.md.", rc ? "the stage's" : "the capture's");
	if (rc)		/* whose kernels: lp-findings reads the stage by it */
		lp_tab_meta(out, "range", "%s", rc);
}

/* One kernel's row; ops is NULL without operators.yaml. */
static void
emit_kernel(struct lp_row *r, size_t i, const struct k *k, const char *shown,
    double sum, const struct lp_ops *ops, const char *rpath)
{
	lp_row_num(r, (double)(i + 1), 0);
	lp_row_text(r, shown);
	lp_row_text(r, k->kernel);
	lp_row_num(r, k->total, 0);
	lp_row_num(r, k->calls, 0);
	if (k->calls > 0)
		lp_row_num(r, k->total / k->calls, 1);
	else
		lp_row_na(r, "no calls");
	lp_row_share(r, k->total, sum, "the kernels took no time");
	if (k->have_sm)
		lp_row_num(r, k->sm, 2);
	else
		lp_row_na(r, "no ncu metrics for it");
	if (k->have_dram)
		lp_row_num(r, k->dram, 2);
	else
		lp_row_text(r, "n/a");
	if (k->cls && strncmp(k->cls, "n/a", 3))
		lp_row_text(r, k->cls);
	else if (ops && lp_ops_is_comm(ops, k->kernel))
		lp_row_text(r, "communication (ncu leaves it out)");
	else if (k->cls)
		lp_row_na(r, "no roofline point (roofline.tsv says why)");
	else
		lp_row_na(r, "%s", rpath ? "not in roofline.tsv" :
		    "no roofline.tsv");
	/* what the kernel does, for rules that fit one kind only */
	if (ops)
		lp_row_text(r, ops->names[lp_ops_class(ops, k->kernel)]);
	else
		lp_row_na(r, "no operators.yaml (-o)");
	lp_row_end(r, out);
}

/* The rows, each kernel under a short name unique among them. */
static void
emit_kernels(const struct k *ks, size_t n, double sum,
    const struct lp_ops *ops, const char *rpath)
{
	struct lp_row r = { 0 };
	char **nm, **shown;
	size_t i;

	nm = lp_xcalloc(n, sizeof *nm);
	shown = lp_xcalloc(n, sizeof *shown);
	for (i = 0; i < n; i++)
		nm[i] = ks[i].kernel;
	lp_kname_unique(nm, n, LP_KNAME_MAX, shown);
	for (i = 0; i < n; i++) {
		emit_kernel(&r, i, &ks[i], shown[i], sum, ops, rpath);
		free(shown[i]);
	}
	free(nm);
	free(shown);
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	const char *rpath = NULL, *opath = NULL, *name;
	struct lp_ops ops;
	struct lp_tsv t;
	struct k *ks = NULL;
	long top = 10;
	size_t n, i;
	double sum;
	int c;
	FILE *fp;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "n:o:r:", synopsis)) != -1) {
		switch (c) {
		case 'n': top = lp_strtonum(optarg, 1, 100000, "-n"); break;
		case 'o': opath = optarg; break;
		case 'r': rpath = optarg; break;
		}
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	if (opath)
		lp_ops_load(&ops, opath);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_tsv_open(&t, fp, name);
	lp_tab_expect(&t, "lp-kernjoin");
	n = load_kernels(&t, name, top, &ks, &sum);
	if (rpath)
		load_classes(rpath, ks, n);

	emit_meta(&t, name, rpath);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	emit_kernels(ks, n, sum, opath ? &ops : NULL, rpath);

	for (i = 0; i < n; i++) {
		free(ks[i].kernel);
		free(ks[i].cls);
	}
	free(ks);
	if (opath)
		lp_ops_free(&ops);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_tab_done(out);
	return 0;
}
