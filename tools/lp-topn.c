/*
 * lp-topn: the kernels that dominate an nsys kernel summary, ranked by total
 * GPU time, as TSV, as an ncu --kernel-name regex, or as bare names.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lp.h"

static const char synopsis[] =
    "lp-topn [-f tsv|regex|names] [-n N] [-p PCT] [-r RANGE] [file]";

int
main(int argc, char **argv)
{
	struct lp_ksum ks;
	const char *fmt = "tsv", *range = NULL, *name;
	double pct = 0, cum = 0;
	long n = 10;
	size_t i, keep;
	FILE *fp;
	int c;

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "f:hn:p:r:")) != -1) {
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
		case 'p':
			pct = lp_strtopct(optarg, "-p");
			break;
		case 'r':
			range = optarg;
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
	lp_ksum_read(&ks, fp, name, range);
	lp_close_in(fp);
	lp_ksum_sort(&ks);

	/* -n 0 keeps all; -p stops at the kernel whose share crosses PCT */
	keep = n ? (size_t)n < ks.n ? (size_t)n : ks.n : ks.n;
	if (pct > 0)
		for (i = 0; i < keep; i++) {
			cum += ks.total_ns > 0 ? 100.0 * ks.k[i].total_ns /
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
			names[i] = ks.k[i].name;
		lp_sel_regex(&b, names, keep);
		puts(lp_sb_str(&b));
		lp_sb_free(&b);
		free(names);
	} else if (!strcmp(fmt, "names")) {
		for (i = 0; i < keep; i++)
			puts(ks.k[i].name);
	} else {
		struct lp_sb b = { 0 };

		puts("rank\tkernel\ttotal_ns\tcalls\tavg_ns\tpct\tcum_pct");
		cum = 0;
		for (i = 0; i < keep; i++) {
			const struct lp_kern *k = &ks.k[i];
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
	lp_ksum_free(&ks);
	lp_close_stdout();
	return 0;
}
