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
    "lp-topn [-f tsv|regex|names] [-n N] [-P PID] [-p PCT] [-r RANGE] "
    "[-x operators.yaml] [file]";

int
main(int argc, char **argv)
{
	struct lp_ksum ks;
	const char *fmt = "tsv", *range = NULL, *name, *xpath = NULL, *pid = NULL;
	struct lp_ops ops;
	struct lp_kern *kept;
	double pct = 0, cum = 0;
	long n = 10;
	size_t i, keep, nk = 0;
	FILE *fp;
	int c;

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "f:hn:P:p:r:x:")) != -1) {
		switch (c) {
		case 'f':
			fmt = optarg;
			break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'n':
			n = lp_strtonum(optarg, 0, 1000000, "-n");
			break;
		case 'P':
			pid = optarg;
			break;
		case 'p':
			pct = lp_strtopct(optarg, "-p");
			break;
		case 'r':
			range = optarg;
			break;
		case 'x':
			xpath = optarg;
			break;
		default:
			lp_usage(synopsis);
		}
	}
	if (strcmp(fmt, "tsv") && strcmp(fmt, "regex") && strcmp(fmt, "names"))
		lp_die(LP_EXIT_USAGE, "-f: expected tsv, regex or names, got \"%s\"",
		    fmt);
	if (argc - optind > 1)
		lp_usage(synopsis);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_ksum_read(&ks, fp, name, range, pid);
	lp_close_in(fp);
	lp_ksum_sort(&ks);
	/* -x: communication kernels (NCCL) are left out; shares stay of all */
	if (xpath)
		lp_ops_load(&ops, xpath);
	kept = lp_xcalloc(ks.n + 1, sizeof *kept);
	for (i = 0; i < ks.n; i++)
		if (!xpath || !lp_ops_is_comm(&ops, ks.k[i].name))
			kept[nk++] = ks.k[i];

	/* -n 0 keeps all; -p stops at the kernel whose share crosses PCT */
	keep = n ? (size_t)n < nk ? (size_t)n : nk : nk;
	if (pct > 0)
		for (i = 0; i < keep; i++) {
			cum += ks.total_ns > 0 ? 100.0 * kept[i].total_ns /
			    ks.total_ns : 0;
			if (cum >= pct - 1e-9) {
				keep = i + 1;
				break;
			}
		}

	if (!strcmp(fmt, "regex")) {
		char **names = lp_xcalloc(keep, sizeof *names);
		struct lp_sb b = { 0 };

		for (i = 0; i < keep; i++)
			names[i] = kept[i].name;
		lp_sel_regex(&b, names, keep);
		puts(lp_sb_str(&b));
		lp_sb_free(&b);
		free(names);
	} else if (!strcmp(fmt, "names")) {
		for (i = 0; i < keep; i++)
			puts(kept[i].name);
	} else {
		struct lp_sb b = { 0 };

		puts("rank\tkernel\ttotal_ns\tcalls\tavg_ns\tpct\tcum_pct");
		cum = 0;
		for (i = 0; i < keep; i++) {
			const struct lp_kern *k = &kept[i];
			double share = ks.total_ns > 0 ? 100.0 * k->total_ns /
			    ks.total_ns : 0;

			cum += share;
			lp_sb_reset(&b);
			lp_sb_printf(&b, "%zu\t", i + 1);
			fputs(lp_sb_str(&b), stdout);
			lp_tsv_field(stdout, k->name);
			lp_sb_reset(&b);
			lp_sb_addc(&b, '\t');
			lp_fmt_num(&b, k->total_ns, 0);
			lp_sb_addc(&b, '\t');
			lp_fmt_num(&b, k->calls, 0);
			lp_sb_addc(&b, '\t');
			lp_fmt_num(&b, k->calls > 0 ? k->total_ns / k->calls : 0, 1);
			lp_sb_addc(&b, '\t');
			lp_fmt_num(&b, share, 2);
			lp_sb_addc(&b, '\t');
			lp_fmt_num(&b, fmin(cum, 100.0), 2);
			puts(lp_sb_str(&b));
		}
		lp_sb_free(&b);
	}
	free(kept);
	if (xpath)
		lp_ops_free(&ops);
	lp_ksum_free(&ks);
	lp_close_stdout();
	return 0;
}
