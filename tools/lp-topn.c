/*
 * lp-topn: the kernels that dominate an nsys kernel summary, ranked by total
 * GPU time, as TSV, as an ncu --kernel-name regex, or as bare names.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-topn [-f tsv|regex|names] [-H hostside.tsv] [-n N] [-P PID] [-p PCT] "
    "[-r RANGE] [-x operators.yaml] [file]";

struct opts {
	const char *fmt, *range, *xpath, *pid;
	long n;
	double pct;
};

/* The kernels lp keeps: all but, with -x, the communication kernels (NCCL);
 * shares stay of all.  Caller frees. */
static struct lp_kern *
keep_kernels(const struct lp_ksum *ks, const char *xpath, size_t *nk)
{
	struct lp_kern *kept = lp_xcalloc(ks->n + 1, sizeof *kept);
	struct lp_ops ops;
	size_t i;

	if (xpath)
		lp_ops_load(&ops, xpath);
	*nk = 0;
	for (i = 0; i < ks->n; i++)
		if (!xpath || !lp_ops_is_comm(&ops, ks->k[i].name))
			kept[(*nk)++] = ks->k[i];
	if (xpath)
		lp_ops_free(&ops);
	return kept;
}

/* How many to show: -n 0 keeps all; -p stops at the kernel whose share
 * crosses PCT. */
static size_t
count_top(const struct lp_ksum *ks, const struct lp_kern *kept, size_t nk,
    long n, double pct)
{
	size_t i, keep = n ? (size_t)n < nk ? (size_t)n : nk : nk;
	double cum = 0;

	if (pct > 0)
		for (i = 0; i < keep; i++) {
			cum += ks->total_ns > 0 ? 100.0 * kept[i].total_ns /
			    ks->total_ns : 0;
			if (cum >= pct - 1e-9)
				return i + 1;
		}
	return keep;
}

static void
emit_regex(const struct lp_kern *kept, size_t keep)
{
	char **names = lp_xcalloc(keep, sizeof *names);
	struct lp_sb b = { 0 };
	size_t i;

	for (i = 0; i < keep; i++)
		names[i] = kept[i].name;
	lp_sel_regex(&b, names, keep);
	puts(lp_sb_str(&b));
	lp_sb_free(&b);
	free(names);
}

/* topn.tsv: what it was read from, then one row a kernel. */
static void
emit_tsv(const struct lp_ksum *ks, const struct lp_kern *kept, size_t keep,
    const char *name, const struct opts *o)
{
	FILE *out = lp_tab_out();
	struct lp_row r = { 0 };
	double cum = 0;
	size_t i;

	lp_tab_meta(out, "tool", "lp-topn");
	lp_tab_meta(out, "source", "nsys %s (%s)%s%s%s%s", ks->report, name,
	    o->range ? ", NVTX range " : "", o->range ? o->range : "",
	    o->pid && *o->pid ? ", process " : "", o->pid ? o->pid : "");
	fputs("rank\tkernel\ttotal_ns\tcalls\tavg_ns\tpct\tcum_pct\n", out);
	for (i = 0; i < keep; i++) {
		const struct lp_kern *k = &kept[i];
		double share = ks->total_ns > 0 ? 100.0 * k->total_ns /
		    ks->total_ns : 0;

		cum += share;
		lp_row_num(&r, i + 1, 0);
		lp_row_text(&r, k->name);
		lp_row_num(&r, k->total_ns, 0);
		lp_row_num(&r, k->calls, 0);
		lp_row_num(&r, k->calls > 0 ? k->total_ns / k->calls : 0, 1);
		lp_row_num(&r, share, 2);
		lp_row_num(&r, fmin(cum, 100.0), 2);
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
	lp_tab_done(out);
}

int
main(int argc, char **argv)
{
	struct opts o = { "tsv", NULL, NULL, NULL, 10, 0 };
	struct lp_ksum ks;
	struct lp_kern *kept;
	const char *name, *hpath = NULL;
	size_t i, keep, nk;
	FILE *fp;
	int c;

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "f:H:hn:P:p:r:x:")) != -1) {
		switch (c) {
		case 'f': o.fmt = optarg; break;
		case 'H': hpath = optarg; break;
		case 'h': printf("usage: %s\n", synopsis); return 0;
		case 'n': o.n = lp_strtonum(optarg, 0, 1000000, "-n"); break;
		case 'P': o.pid = optarg; break;
		case 'p': o.pct = lp_strtopct(optarg, "-p"); break;
		case 'r': o.range = optarg; break;
		case 'x': o.xpath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (strcmp(o.fmt, "tsv") && strcmp(o.fmt, "regex") &&
	    strcmp(o.fmt, "names"))
		lp_die(LP_EXIT_USAGE, "-f: expected tsv, regex or names, got \"%s\"",
		    o.fmt);
	if (argc - optind > 1)
		lp_usage(synopsis);
	if (hpath && !o.range)
		lp_die(LP_EXIT_USAGE, "-H needs -r: the stage's range");
	if (hpath)
		lp_ksum_check(hpath, o.range);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_ksum_read(&ks, fp, name, o.range, o.pid);
	lp_close_in(fp);
	lp_ksum_sort(&ks);
	kept = keep_kernels(&ks, o.xpath, &nk);
	keep = count_top(&ks, kept, nk, o.n, o.pct);
	if (!strcmp(o.fmt, "tsv")) {
		emit_tsv(&ks, kept, keep, name, &o);
	} else {
		if (!strcmp(o.fmt, "regex"))
			emit_regex(kept, keep);
		else
			for (i = 0; i < keep; i++)
				puts(kept[i].name);
		lp_close_stdout();
	}
	free(kept);
	lp_ksum_free(&ks);
	return 0;
}
