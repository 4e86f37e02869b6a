/*
 * lp-wfdiff: compare_waterfall.tsv, two runs' step waterfalls side by side
 * (lp-waterfall's waterfall.tsv of each): for each part of the steady
 * decode step (or of another stage column), its time in the base run and
 * in this one and the change, so the reader sees which part of the step
 * moved.  Parts are matched by name; a part one run lacks is "-" there.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"

static const char synopsis[] =
    "lp-wfdiff [-s stage] base/waterfall.tsv waterfall.tsv";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct part {
	char *name;
	double ns[2];		/* NAN: not in that run */
	char *na[2];		/* the run's "n/a because ..." for it */
};
static struct part *pt;
static size_t npt;

static struct part *
part_of(const char *name)
{
	size_t i;

	for (i = 0; i < npt; i++)
		if (!strcmp(pt[i].name, name))
			return &pt[i];
	pt = lp_xreallocarray(pt, npt + 1, sizeof *pt);
	memset(&pt[npt], 0, sizeof *pt);
	pt[npt].name = lp_xstrdup(name);
	pt[npt].ns[0] = pt[npt].ns[1] = NAN;
	return &pt[npt++];
}

static void
load(const char *path, int run, const char *col)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-waterfall");
	int cp, cn;

	lp_tab_expect(&t, "lp-waterfall");
	cp = lp_csv_need(&t.hdr, "part", "lp-waterfall output");
	cn = lp_csv_need(&t.hdr, col, "lp-waterfall output");
	while (lp_tab_next(&t)) {
		struct part *p = part_of(lp_tsv_get(&t, cp));
		const char *c = lp_tsv_get(&t, cn);
		double v;

		if (lp_tab_num(&t, cn, &v))
			p->ns[run] = v;
		else if (!strncmp(c, "n/a", 3) && !p->na[run])
			p->na[run] = lp_xstrdup(c);
	}
	lp_tsv_close(&t);
	fclose(fp);
}

static void
cell(struct lp_row *r, const struct part *p, int run)
{
	if (isfinite(p->ns[run]))
		lp_row_num(r, p->ns[run], 1);
	else
		lp_row_text(r, p->na[run] ? p->na[run] : "-");
}

int
main(int argc, char **argv)
{
	static const struct lp_col cols[] = {
		{ "part", "Part of the step", "text" },
		{ "base_ns", "Base (ms)", "ms" },
		{ "run_ns", "This run (ms)", "ms" },
		{ "change_ns", "Change (ms)", "ms" },
	};
	const char *stage = "decode_step";
	struct lp_sb col = { 0 };
	size_t i;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "s:", synopsis)) != -1) {
		switch (c) {
		case 's': stage = optarg; break;
		}
	}
	if (argc - optind != 2)
		lp_usage(synopsis);
	out = lp_tab_out();
	lp_sb_printf(&col, "%s_ns", stage);
	load(argv[optind], 0, lp_sb_str(&col));
	load(argv[optind + 1], 1, lp_sb_str(&col));

	lp_tab_meta(out, "title", "Where the Step's Time Moved");
	lp_tab_meta(out, "tool", "lp-wfdiff");
	lp_tab_meta(out, "source", "%s of each run's waterfall.tsv (lp-waterfall): "
	    "base %s, this run %s", stage, argv[optind], argv[optind + 1]);
	lp_tab_meta(out, "note", "Change = this run - base; a part one run "
	    "lacks (a class under 1 %% of its step, a host side not traced) is "
	    "\"-\" there, its time inside another part.");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (i = 0; i < npt; i++) {
		struct lp_row r = { { 0 }, 0 };

		lp_row_text(&r, pt[i].name);
		cell(&r, &pt[i], 0);
		cell(&r, &pt[i], 1);
		if (isfinite(pt[i].ns[0]) && isfinite(pt[i].ns[1]))
			lp_row_num(&r, pt[i].ns[1] - pt[i].ns[0], 1);
		else
			lp_row_text(&r, "-");
		lp_row_end(&r, out);
		lp_sb_free(&r.b);
		free(pt[i].name);
		free(pt[i].na[0]);
		free(pt[i].na[1]);
	}
	free(pt);
	lp_sb_free(&col);
	lp_tab_done(out);
	return 0;
}
