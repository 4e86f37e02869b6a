/*
 * lp-roofsvg: roofline.svg, the roofline chart of roofline.tsv: log-log,
 * arithmetic intensity across, FLOP/s up, the DRAM-bandwidth roof and one
 * compute roof per precision of gpu.tsv, and one labelled point per kernel.
 * Plain SVG 1.1 written by hand: no plotting library.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "prec.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-roofsvg -g gpu.tsv [roofline.tsv]";

static FILE *out;	/* the document, written out when whole (lp_tab_out) */
#define putc_out(c) fputc((c), out)

enum { W = 900, PH = 520, L = 80, R = 260, T = 50, B = 60, LINE = 14 };
static int H = PH;		/* the chart, then the list of kernels below */

struct pt {
	char *label, *cls, *rank;
	double ai, fps;
};

static double lx0, lx1, ly0, ly1;	/* log10 of the axis ends */

static double
X(double ai)
{
	return L + (log10(ai) - lx0) / (lx1 - lx0) * (W - L - R);
}

static double
Y(double f)
{
	return PH - B - (log10(f) - ly0) / (ly1 - ly0) * (PH - T - B);
}

/* Text of the document: anything a name holds leaves it well-formed. */
static void
esc(const char *s)
{
	struct lp_sb b = { 0 };

	lp_xml_text(&b, s);
	fputs(lp_sb_str(&b), out);
	lp_sb_free(&b);
}

/* 4.8 T, 989.4 T: the value with an SI prefix. */
static void
si(double v, const char *unit)
{
	static const char *const p[] = { "", "k", "M", "G", "T", "P", "E" };
	int i = 0;

	while (v >= 1000 && i < 6) {
		v /= 1000;
		i++;
	}
	fprintf(out, "%.4g %s%s", v, p[i], unit);
}

static void
text(double x, double y, const char *anchor, const char *cls, const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">",
	    x, y, anchor, cls);
	esc(s);
	fputs("</text>\n", out);
}

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c",
	"#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };

/* The points to draw, their extent, and the ranks not drawn. */
struct pts {
	struct pt *p;
	size_t n;
	struct lp_sb skip;
	double amin, amax, fmin, fmax;
};

/* roofline.tsv's kernels with an AI and FLOP/s to place. */
static void
load_points(struct lp_tsv *t, struct pts *ps)
{
	struct lp_sb b = { 0 };
	int cr, cn, ca, cf, cc, cg;

	lp_tab_expect(t, "lp-roofline");
	cr = lp_csv_need(&t->hdr, "rank", "lp-roofline output");
	cn = lp_csv_need(&t->hdr, "name", "lp-roofline output");
	ca = lp_csv_need(&t->hdr, "ai", "lp-roofline output");
	cf = lp_csv_need(&t->hdr, "flop_per_s", "lp-roofline output");
	cc = lp_csv_need(&t->hdr, "class", "lp-roofline output");
	cg = lp_csv_col(&t->hdr, "grid");
	ps->amin = ps->fmin = 1e300;
	while (lp_tab_next(t)) {
		double ai, f;
		const char *g = cg >= 0 ? lp_tsv_get(t, cg) : "";
		struct pt *p;

		if (!lp_tab_num(t, ca, &ai) || !lp_tab_num(t, cf, &f) ||
		    !(ai > 0) || !(f > 0) ||
		    !isfinite(ai) || !isfinite(f)) {
			lp_sb_printf(&ps->skip, "%s#%s", ps->skip.len ? ", " : "",
			    lp_tsv_get(t, cr));
			continue;
		}
		ps->p = lp_xreallocarray(ps->p, ps->n + 1, sizeof *ps->p);
		p = &ps->p[ps->n++];
		lp_sb_reset(&b);
		/* a kernel's launch shapes: a point each, told by grid */
		lp_sb_printf(&b, "#%s %s", lp_tsv_get(t, cr), lp_tsv_get(t, cn));
		if (*g == '(')
			lp_sb_printf(&b, " grid %s", g);
		p->label = lp_sb_steal(&b);
		p->rank = lp_xstrdup(lp_tsv_get(t, cr));
		p->cls = lp_xstrdup(lp_tsv_get(t, cc));
		p->ai = ai;
		p->fps = f;
		ps->amin = ai < ps->amin ? ai : ps->amin;
		ps->amax = ai > ps->amax ? ai : ps->amax;
		ps->fmin = f < ps->fmin ? f : ps->fmin;
		ps->fmax = f > ps->fmax ? f : ps->fmax;
	}
	lp_sb_free(&b);
}

static double
peak_max(const struct lp_peaks *pk)
{
	double pmax = 0;
	size_t i;

	for (i = 0; i < LP_FP_N; i++)
		if (pk->flops[i] > pmax)
			pmax = pk->flops[i];
	return pmax;
}

/* The axes' ends (lx0 .. ly1): they hold every point, every roof and the
 * ridges. */
static void
set_axes(const struct pts *ps, const struct lp_peaks *pk, double pmax)
{
	double amin = ps->amin, amax = ps->amax, fmin = ps->fmin;
	double fmax = ps->fmax;
	size_t i;

	if (pk->bw > 0 && pmax > 0) {
		for (i = 0; i < LP_FP_N; i++)
			if (pk->flops[i] > 0 && pk->flops[i] / pk->bw < amin)
				amin = pk->flops[i] / pk->bw;
		amax = pmax / pk->bw > amax ? pmax / pk->bw : amax;
		fmax = pmax > fmax ? pmax : fmax;
		if (pk->bw * amin < fmin)
			fmin = pk->bw * amin;
	}
	if (!(amax > 0)) {
		amin = 0.1;
		amax = 1000;
	}
	if (!(fmax > 0)) {
		fmin = 1e9;
		fmax = 1e15;
	}
	lx0 = floor(log10(amin)) - 0.3;
	lx1 = ceil(log10(amax)) + 0.3;
	ly0 = floor(log10(fmin)) - 0.3;
	ly1 = ceil(log10(fmax)) + 0.3;
}

/* The document's head, title, decade grid, frame and axis titles; opens
 * the group clipped to the plot. */
static void
emit_frame(const struct lp_peaks *pk, const char *name)
{
	struct lp_sb b = { 0 };
	int e;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", W, H, W, H);
	fputs("<style>text{font-family:sans-serif;font-size:11px}"
	    ".t{font-size:14px;font-weight:bold}.a{fill:#444}.r{fill:#333}"
	    ".k{font-size:10px}</style>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
	    W, H);
	lp_sb_printf(&b, "Roofline: %s (dense peaks, gpu.tsv); kernels from %s",
	    pk->gpu ? pk->gpu : "GPU unknown", name);
	text(L, 24, "start", "t", lp_sb_str(&b));
	/* decade grid and labels */
	for (e = (int)ceil(lx0); e <= (int)floor(lx1); e++) {
		double x = X(pow(10, e));

		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
		    "stroke=\"#ddd\"/>\n", x, T, x, PH - B);
		lp_sb_reset(&b);
		lp_sb_printf(&b, "1e%d", e);
		text(x, PH - B + 16, "middle", "a", lp_sb_str(&b));
	}
	for (e = (int)ceil(ly0); e <= (int)floor(ly1); e++) {
		double y = Y(pow(10, e));

		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"#ddd\"/>\n", L, y, W - R, y);
		lp_sb_reset(&b);
		lp_sb_printf(&b, "1e%d", e);
		text(L - 6, y + 4, "end", "a", lp_sb_str(&b));
	}
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
	    "stroke=\"#444\"/>\n", L, T, W - L - R, PH - T - B);
	text((L + W - R) / 2.0, PH - 24, "middle", "a", "arithmetic intensity "
	    "(FLOP per DRAM byte)");
	fprintf(out, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" class=\"a\" "
	    "transform=\"rotate(-90 18 %.1f)\">FLOP/s</text>\n",
	    (T + PH - B) / 2.0, (T + PH - B) / 2.0);
	fprintf(out, "<defs><clipPath id=\"plot\"><rect x=\"%d\" y=\"%d\" "
	    "width=\"%d\" height=\"%d\"/></clipPath></defs>\n", L, T, W - L - R,
	    PH - T - B);
	fprintf(out, "%s\n", "<g clip-path=\"url(#plot)\">");
	lp_sb_free(&b);
}

/* Inside the clipped group: the bandwidth roof up to the highest peak, one
 * flat roof per peak; closes the group. */
static void
emit_roofs(const struct lp_peaks *pk, double pmax)
{
	size_t i, nroofs = 0;

	if (pk->bw > 0) {
		double xe = pmax > 0 ? pmax / pk->bw : pow(10, lx1);

		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#000\" stroke-width=\"2\"/>\n", X(pow(10, lx0)),
		    Y(pk->bw * pow(10, lx0)), X(xe), Y(pk->bw * xe));
	}
	for (i = 0; i < LP_FP_N && pk->bw > 0; i++) {
		double pv = pk->flops[i];

		if (!(pv > 0))
			continue;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"%s\" stroke-width=\"1.5\"/>\n", X(pv / pk->bw), Y(pv),
		    W - R, Y(pv), colors[nroofs % 9]);
		nroofs++;
	}
	fprintf(out, "%s\n", "</g>");
}

/* The roofs' labels, right of the plot (equal peaks share one), and the
 * bandwidth roof's along it; or why there are no roofs. */
static void
emit_roof_labels(const struct lp_peaks *pk)
{
	struct lp_sb b = { 0 };
	size_t i, j, nroofs = 0;
	int drawn[LP_FP_N] = { 0 };

	for (i = 0; i < LP_FP_N && pk->bw > 0; i++) {
		double pv = pk->flops[i];

		if (!(pv > 0) || drawn[i])
			continue;
		lp_sb_reset(&b);
		lp_sb_adds(&b, lp_fp_label((int)i));
		for (j = i + 1; j < LP_FP_N; j++)
			if (pk->flops[j] == pv) {
				lp_sb_printf(&b, ", %s", lp_fp_label((int)j));
				drawn[j] = 1;
			}
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"r\" fill=\"%s\">",
		    W - R + 6, Y(pv) + 4, colors[nroofs % 9]);
		esc(lp_sb_str(&b));
		fputs(" ", out);
		si(pv, "FLOP/s");
		fprintf(out, "%s\n", "</text>");
		nroofs++;
	}
	if (pk->bw > 0) {
		/* along the bandwidth roof, a quarter of the way across */
		double x0 = pow(10, lx0 + 0.25 * (lx1 - lx0)), ang;

		ang = -atan2(Y(pk->bw * x0) - Y(pk->bw * x0 * 10), X(x0 * 10) -
		    X(x0)) * 180 / 3.14159265358979;
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"r\" transform=\"rotate("
		    "%.1f %.1f %.1f)\">DRAM ", X(x0), Y(pk->bw * x0) - 6, ang, X(x0),
		    Y(pk->bw * x0) - 6);
		si(pk->bw, "B/s");
		fprintf(out, "%s\n", "</text>");
	} else {
		lp_sb_printf(&b, "No roofs: %s", pk->why);
		text(L + 10, T + 20, "start", "r", lp_sb_str(&b));
	}
	lp_sb_free(&b);
}

/* roofline.tsv's "# dram_measured_bps:" (lp-roofline -b): the DRAM
 * bandwidth a copy reached on the run's machine; 0 when it has none. */
static double
measured_bw(const struct lp_tsv *t)
{
	const char *s = lp_tsv_comment(t, "dram_measured_bps");
	double v;

	if (!s)
		return 0;
	if (!lp_num_get(s, &v) || !isfinite(v) || !(v > 0))
		lp_die_at(LP_EXIT_DATA, t->file, 0, 0, "# dram_measured_bps: "
		    "expected bytes/s above 0, got \"%s\"", s);
	return v;
}

/* The measured roof beside the datasheet's, dashed, up to the highest
 * peak, with its label under it: the datasheet's stays the roof the
 * table's numbers are against. */
static void
emit_measured_roof(double mbw, double pmax)
{
	double xe = pmax > 0 ? pmax / mbw : pow(10, lx1);
	double x0 = pow(10, lx0 + 0.45 * (lx1 - lx0)), ang;

	fprintf(out, "<g clip-path=\"url(#plot)\"><line x1=\"%.1f\" "
	    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
	    "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/></g>\n",
	    X(pow(10, lx0)), Y(mbw * pow(10, lx0)), X(xe), Y(mbw * xe));
	ang = -atan2(Y(mbw * x0) - Y(mbw * x0 * 10), X(x0 * 10) - X(x0)) *
	    180 / 3.14159265358979;
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"r\" "
	    "transform=\"rotate(%.1f %.1f %.1f)\">measured copy %.3g TB/s"
	    "</text>\n", X(x0), Y(mbw * x0) + 14, ang, X(x0), Y(mbw * x0) + 14,
	    mbw / 1e12);
}

/* The kernels: a number at each point, the names listed below the chart,
 * and the ranks not drawn. */
static void
emit_points(struct pts *ps)
{
	struct lp_sb b = { 0 };
	size_t i;

	for (i = 0; i < ps->n; i++) {
		const struct pt *p = &ps->p[i];
		const char *col = !strcmp(p->cls, "memory-bound") ? "#1f77b4" :
		    !strcmp(p->cls, "compute-bound") ? "#d62728" : "#ff7f0e";

		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
		    "stroke=\"#000\" stroke-width=\"0.5\"><title>", X(p->ai),
		    Y(p->fps), col);
		esc(p->label);
		fputs("</title></circle>\n", out);
		lp_sb_reset(&b);
		lp_sb_printf(&b, "#%s", p->rank);
		text(X(p->ai) + 6, Y(p->fps) - 4 - (double)(i % 2) * 9, "start",
		    "k", lp_sb_str(&b));
		lp_sb_reset(&b);
		lp_sb_printf(&b, "%s (%s)", p->label, p->cls);
		text(L, PH + LINE * (double)i, "start", "k", lp_sb_str(&b));
	}
	text(W - R + 6, PH - B - 28, "start", "k", "points: orange below "
	    "half its roof,");
	text(W - R + 6, PH - B - 16, "start", "k", "blue memory-bound, red "
	    "compute-bound");
	if (!ps->n || ps->skip.len) {
		lp_sb_reset(&b);
		if (ps->n)
			lp_sb_printf(&b, "not drawn (no FLOPs, DRAM bytes or ncu "
			    "metrics): %s", lp_sb_str(&ps->skip));
		else
			lp_sb_adds(&b, "no kernel has ncu FLOPs and DRAM bytes to "
			    "plot (roofline.tsv says why)");
		text(L, PH + LINE * (double)ps->n, "start", "k", lp_sb_str(&b));
	}
	lp_sb_free(&b);
}

static void
free_points(struct pts *ps)
{
	size_t i;

	for (i = 0; i < ps->n; i++) {
		free(ps->p[i].label);
		free(ps->p[i].cls);
		free(ps->p[i].rank);
	}
	free(ps->p);
	lp_sb_free(&ps->skip);
}

int
main(int argc, char **argv)
{
	const char *gpath = NULL;
	struct lp_peaks pk;
	struct lp_tsv t;
	struct pts ps = { 0 };
	double pmax;
	int c;
	FILE *fp;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "g:", synopsis)) != -1) {
		switch (c) {
		case 'g': gpath = optarg; break;
		}
	}
	fp = lp_peaks_tsv_open(&pk, gpath, argc, argv, synopsis, &t);
	load_points(&t, &ps);
	pmax = peak_max(&pk);
	set_axes(&ps, &pk, pmax);

	H = PH + LINE * (int)(ps.n + 1);
	emit_frame(&pk, t.file);
	emit_roofs(&pk, pmax);
	if (measured_bw(&t) > 0)
		emit_measured_roof(measured_bw(&t), pmax);
	emit_roof_labels(&pk);
	emit_points(&ps);
	fprintf(out, "%s\n", "</svg>");
	free_points(&ps);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_peaks_free(&pk);
	lp_tab_done(out);
	return 0;
}
