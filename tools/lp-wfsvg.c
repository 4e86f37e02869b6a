/*
 * lp-wfsvg: waterfall.svg, each stage's step (lp-waterfall's waterfall.tsv)
 * as one horizontal bar cut into its parts, the floor first, each part's
 * share and time written in a legend beside its colour: the picture the
 * brief shows, its numbers those of the table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"

static const char synopsis[] = "lp-wfsvg [waterfall.tsv]";

#define W 880		/* the picture's width: GitHub's text column */
#define TOP 10		/* above the first bar: the heading beside the
			 * picture (brief, details) names it */
#define NSTAGE 2

static const char *const stage_col[NSTAGE] = { "decode_step", "prefill" };
static const char *const colour[] = { "#2e7d32", "#1565c0", "#42a5f5",
    "#90caf9", "#ab47bc", "#ce93d8", "#ef6c00", "#ffa726", "#ffcc80",
    "#bdbdbd", "#757575" };
#define NCOLOUR (sizeof colour / sizeof colour[0])

struct part {
	char *name;
	double ns[NSTAGE];	/* NAN: none in that stage */
};

static void
text(FILE *out, double x, double y, const char *anchor, const char *cls,
    const char *s)
{
	struct lp_sb b = { 0 };

	lp_xml_text(&b, s);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s%s>%s"
	    "</text>\n", x, y, anchor, cls ? " class=\"" : "", cls ? cls : "",
	    cls ? "\"" : "", lp_sb_str(&b));
	lp_sb_free(&b);
}

/* waterfall.tsv's parts, each with its time in each stage (NAN where it
 * has none), from path (NULL: stdin, named in *name); *why: the first
 * "n/a because ..." of the table, or NULL.  Caller frees. */
static struct part *
read_parts(const char *path, const char **name, size_t *np, char **why)
{
	struct lp_tsv t;
	struct part *pt = NULL;
	int cp, cn[NSTAGE], s;
	FILE *fp;

	fp = lp_open_in(path, name);
	lp_tsv_open(&t, fp, *name);
	lp_tab_expect(&t, "lp-waterfall");
	cp = lp_csv_need(&t.hdr, "part", "lp-waterfall output");
	for (s = 0; s < NSTAGE; s++) {
		struct lp_sb col = { 0 };

		lp_sb_printf(&col, "%s_ns", stage_col[s]);
		cn[s] = lp_csv_need(&t.hdr, lp_sb_str(&col), "lp-waterfall output");
		lp_sb_free(&col);
	}
	while (lp_tab_next(&t)) {
		pt = lp_xreallocarray(pt, *np + 1, sizeof *pt);
		pt[*np].name = lp_xstrdup(lp_tsv_get(&t, cp));
		for (s = 0; s < NSTAGE; s++) {
			double v;

			pt[*np].ns[s] = lp_tab_num(&t, cn[s], &v) ? v : NAN;
			if (!*why && !strncmp(lp_tsv_get(&t, cn[s]), "n/a", 3))
				*why = lp_xstrdup(lp_tsv_get(&t, cn[s]));
		}
		(*np)++;
	}
	lp_tsv_close(&t);
	lp_close_in(fp);
	return pt;
}

/* A bar for each stage the measured step has, the parts its segments;
 * returns the y below them. */
static int
draw_bars(FILE *out, const struct part *pt, size_t np,
    const struct part *step, const int *have)
{
	int y = TOP, s;
	size_t i;

	for (s = 0; s < NSTAGE; s++) {
		struct lp_sb b = { 0 };
		double x = 160;

		if (!have[s])
			continue;
		lp_sb_printf(&b, "%s %.3f ms", stage_col[s],
		    step->ns[s] / 1e6);
		text(out, 8, y + 14, "start", NULL, lp_sb_str(&b));
		lp_sb_free(&b);
		for (i = 0; i < np; i++) {
			double w;

			if (&pt[i] == step)
				continue;
			if (!isfinite(pt[i].ns[s]) || !(pt[i].ns[s] > 0))
				continue;
			w = pt[i].ns[s] / step->ns[s] * (W - 8 - 160);
			fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
			    "height=\"20\" fill=\"%s\"/>\n", x, y, w,
			    colour[i % NCOLOUR]);
			x += w;
		}
		y += 28;
	}
	y += 4;
	return y;
}

/* the legend in two columns, a part an entry, with its time and share of
 * the first stage that has a bar (the decode step; the other stage's
 * times are in waterfall.tsv), "STAGE only: T ms" for a part only the
 * other stage has */
static int
legend_rows(size_t np, const struct part *step)
{
	return (int)((np - (step != NULL) + 1) / 2);
}

static void
draw_legend(FILE *out, const struct part *pt, size_t np,
    const struct part *step, const int *have, int y)
{
	int rows = legend_rows(np, step), j = 0, s0, s1, s;
	size_t i;

	s0 = have[0] ? 0 : 1;
	s1 = NSTAGE - 1 - s0;
	for (i = 0; i < np; i++) {
		struct lp_sb b = { 0 };
		double x0 = 8 + (W - 16) / 2.0 * (j / rows);
		int yy = y + 14 * (j % rows);

		if (&pt[i] == step)
			continue;
		j++;
		fprintf(out, "<rect x=\"%.0f\" y=\"%d\" width=\"10\" height="
		    "\"10\" fill=\"%s\"/>\n", x0, yy, colour[i % NCOLOUR]);
		text(out, x0 + 16, yy + 9, "start", NULL, pt[i].name);
		s = isfinite(pt[i].ns[s0]) ? s0 : s1;
		if (!isfinite(pt[i].ns[s]))
			lp_sb_adds(&b, "-");
		else if (s == s0)
			lp_sb_printf(&b, "%.3f ms (%.3g %%)", pt[i].ns[s] / 1e6,
			    100 * pt[i].ns[s] / step->ns[s]);
		else
			lp_sb_printf(&b, "%s only: %.3f ms", stage_col[s],
			    pt[i].ns[s] / 1e6);
		text(out, x0 + (W - 16) / 2.0 - 12, yy + 9, "end", NULL,
		    lp_sb_str(&b));
		lp_sb_free(&b);
	}
}

int
main(int argc, char **argv)
{
	struct part *pt, *step = NULL;
	size_t np = 0, nparts = 0, i;
	int s, have[NSTAGE] = { 0, 0 }, nbar = 0, h;
	const char *name;
	char *why = NULL;	/* the first "n/a because ..." of the table */
	FILE *out;

	lp_start(argc, argv, synopsis);
	lp_getopt(argc, argv, "", synopsis);	/* no option but -h */
	if (argc - optind > 1)
		lp_usage(synopsis);
	pt = read_parts(optind < argc ? argv[optind] : NULL, &name, &np, &why);
	for (i = 0; i < np; i++)
		if (!strcmp(pt[i].name, "Measured step"))
			step = &pt[i];
		else
			nparts++;
	for (s = 0; s < NSTAGE; s++) {
		have[s] = step && isfinite(step->ns[s]) && step->ns[s] > 0;
		nbar += have[s];
	}
	if (!nbar && !why)
		lp_die_at(LP_EXIT_DATA, name, 0, 0, "no stage has a measured "
		    "step, and the table does not say why");
	/* lp-waterfall writes a measured step with its parts; without them
	 * the legend had no rows (a division by zero, SIGFPE) */
	if (nbar && !nparts)
		lp_die_at(LP_EXIT_DATA, name, 0, 0, "the measured step has no "
		    "parts (the table has no row but \"Measured step\")");
	out = lp_tab_out();
	h = nbar ? TOP + 28 * nbar + 4 + 14 * legend_rows(np, step) + 6 : 40;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns="
	    "\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height="
	    "\"%d\" viewBox=\"0 0 %d %d\">\n<style>text{font-family:sans-serif;"
	    "font-size:11px}</style>\n"
	    "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
	    W, h, W, h, W, h);
	if (!nbar) {	/* say why, as the table does */
		text(out, 8, 24, "start", NULL, why);
		goto done;
	}
	draw_legend(out, pt, np, step, have, draw_bars(out, pt, np, step,
	    have));
done:
	fprintf(out, "</svg>\n");
	for (i = 0; i < np; i++)
		free(pt[i].name);
	free(why);
	free(pt);
	lp_tab_done(out);
	return 0;
}
