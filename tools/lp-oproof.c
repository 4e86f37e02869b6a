/*
 * lp-oproof: aten_roofline.tsv, where each PyTorch op of aten_ops.tsv (an
 * op and its input shapes) stands on the roofline: its kernels' ncu FLOPs and
 * DRAM bytes per call over ncu's time per call (lp-atenops), the dense
 * peak of the precision that did most of its FLOPs and the DRAM bandwidth
 * of gpu.tsv, the ridge point, the roof that bounds it and the share of
 * that roof reached: the arithmetic of roofline.tsv (lp_roof_at) for an
 * op instead of a kernel.  Rows stay in the input's order.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-oproof -g gpu.tsv [aten_ops.tsv]";

static const struct lp_col cols[] = {
	{ "stage", "Stage", "text" }, { "op", "Op", "code" },
	{ "shapes", "Input shapes", "code" }, { "calls", "Calls", "int" },
	{ "kernel_ns_per_call", "GPU / call (us)", "us" },
	{ "precision", "Precision (most FLOPs)", "text" },
	LP_ROOF_COLS,
};
#define NCOLS (sizeof cols / sizeof cols[0])
enum { C_PREC = 5, C_ROOF = 6 };	/* the first computed cells */

/* The cells from the one at from on: "n/a because why", then "n/a" (as
 * roofline.tsv pads a row). */
static void __attribute__((format(printf, 3, 4)))
all_na(struct lp_row *o, size_t from, const char *fmt, ...)
{
	struct lp_sb b = { 0 };
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	lp_sb_vprintf(&b, fmt, ap);
	va_end(ap);
	lp_row_na(o, "%s", lp_sb_str(&b));
	lp_sb_free(&b);
	for (i = from + 1; i < NCOLS; i++)
		lp_row_text(o, "n/a");
}

/* "n/a because X" of a cell, or X itself: the reason a cell gives. */
static const char *
reason(const char *cell)
{
	return !strncmp(cell, "n/a because ", 12) ? cell + 12 : cell;
}

static void
roof_row(struct lp_row *o, const struct lp_tsv *t, const int *c,
    const struct lp_peaks *pk)
{
	double f, by, ns;
	struct lp_roof rf;
	int fp;

	if (!lp_tab_num(t, c[0], &f) || !lp_tab_num(t, c[1], &by) ||
	    !lp_tab_num(t, c[3], &ns)) {
		const char *why = !lp_tab_num(t, c[0], &f) ? lp_tsv_get(t, c[0])
		    : !lp_tab_num(t, c[1], &by) ? lp_tsv_get(t, c[1]) :
		    lp_tsv_get(t, c[3]);

		all_na(o, C_PREC, "%s", *why ? reason(why) : "no ncu figures");
		return;
	}
	fp = lp_fp_of_name(lp_tsv_get(t, c[2]));
	lp_row_text(o, fp >= 0 ? lp_fp_label(fp) : "none (no FLOPs)");
	if (!(by > 0) || !(ns > 0)) {
		all_na(o, C_ROOF, "%s", !(by > 0) ? "ncu counted no DRAM bytes" :
		    "ncu measured no time");
		return;
	}
	lp_roof_at(pk, fp, f, by, ns, &rf);
	lp_row_g(o, rf.ai);
	lp_row_g(o, rf.fps);
	lp_row_g(o, rf.bps);
	if (fp >= 0 && !(rf.peak > 0)) {
		all_na(o, C_ROOF + 3, "%s (%s)", pk->why, lp_fp_label(fp));
		return;
	}
	if (fp < 0)
		lp_row_na(o, "it does no floating-point work");
	else
		lp_row_g(o, rf.peak);
	if (!(pk->bw > 0)) {
		all_na(o, C_ROOF + 4, "%s (DRAM bandwidth)", pk->why);
		return;
	}
	if (fp >= 0)
		lp_row_g(o, rf.ridge);
	else
		lp_row_na(o, "it does no floating-point work");
	lp_row_text(o, rf.mem ? "memory" : "compute");
	lp_row_pct(o, 100 * rf.frac, 100, "% of roof", "ncu measured more "
	    "than gpu.tsv's %s: the GPU's entry (conf/gpus.yaml or SET=gpu.*) "
	    "is too low", rf.mem ? "DRAM bandwidth" : "peak");
}

static void
meta(FILE *out, const struct lp_tsv *t, const char *path, const char *gpath)
{
	const char *src = lp_tsv_comment(t, "source");

	lp_tab_meta(out, "title", "Operators on the roofline (PyTorch ops, "
	    "ncu)");
	lp_tab_meta(out, "tool", "lp-oproof");
	lp_tab_meta(out, "source", "%s (lp-atenops: each op's kernels at "
	    "their launch shapes, ncu FLOPs, DRAM bytes and time per call%s%s);"
	    " peaks and DRAM bandwidth from %s", path, src ? ", from: " : "",
	    src ? src : "", gpath);
	lp_tab_meta(out, "link", "aten_roofline.tsv");
	lp_tab_meta(out, "note", "As roofline.tsv, for an op: AI is its "
	    "kernels' ncu FLOPs over their DRAM bytes, achieved rates over "
	    "ncu's time (not nsys's), the peak of the precision that did most "
	    "of its FLOPs. Below the ridge (peak / bandwidth) DRAM bandwidth "
	    "bounds it, above it the peak. An op is n/a where ncu did not "
	    "profile every kernel it launched at its launch shape.");
}

int
main(int argc, char **argv)
{
	static const char *const need[] = { "ncu_flops_per_call",
	    "ncu_dram_bytes_per_call", "ncu_precision", "ncu_ns_per_call" };
	const char *gpath = NULL;
	struct lp_peaks pk;
	struct lp_tsv t;
	int c, cn[4], ck[5];
	size_t i;
	FILE *fp, *out;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "g:", synopsis)) != -1) {
		switch (c) {
		case 'g': gpath = optarg; break;
		}
	}
	fp = lp_peaks_tsv_open(&pk, gpath, argc, argv, synopsis, &t);
	lp_tab_expect(&t, "lp-atenops");
	lp_tab_key(&t, "stage op shapes");
	for (i = 0; i < 5; i++)
		ck[i] = lp_csv_need(&t.hdr, cols[i].name, "lp-atenops output");
	for (i = 0; i < 4; i++)
		cn[i] = lp_csv_need(&t.hdr, need[i], "lp-atenops output "
		    "(with -m metrics.tsv)");
	out = lp_tab_out();
	meta(out, &t, t.file, gpath);
	lp_tab_header(out, cols, NCOLS);
	while (lp_tab_next(&t)) {
		struct lp_row o = { 0 };

		for (i = 0; i < 5; i++)
			lp_row_text(&o, lp_tsv_get(&t, ck[i]));
		roof_row(&o, &t, cn, &pk);
		lp_row_end(&o, out);
		lp_sb_free(&o.b);
	}
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_peaks_free(&pk);
	lp_tab_done(out);
	return 0;
}
