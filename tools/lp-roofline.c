/*
 * lp-roofline: roofline.tsv, where each of the top kernels stands against
 * the hardware: arithmetic intensity (FLOP per DRAM byte), achieved FLOP/s
 * and bytes/s over ncu's own duration, the dense peak of the kernel's
 * dominant precision and the DRAM bandwidth (gpu.tsv), the ridge point, the
 * fraction of the roofline bound reached, and a class (lp-roofline(1)).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "run.h"
#include "lp-roofline/roofline.h"

static const char synopsis[] =
    "lp-roofline [-b dram_bw.tsv] -g gpu.tsv [-i inputs.yaml] [-m metrics.tsv] "
    "[-n N] [-s shapes.tsv] [kernels.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */
static struct lp_bwmeas bwm;	/* -b: the measured DRAM bandwidth, shown */

static const struct lp_col cols[] = {
	{ "rank", "#", "int" }, { "name", "Kernel", "code" },
	{ "kernel", "Kernel (whole name)", "hide" },
	{ "precision", "Dominant precision", "text" },
	{ "flop_per_launch", "FLOP / launch", "flop" },
	{ "dram_bytes_per_launch", "DRAM / launch", "bytes" },
	{ "ncu_ns_per_launch", "ncu time / launch (us)", "us" },
	LP_ROOF_COLS,
	{ "dram_pct", "% of DRAM BW", "pct" },
	{ "class", "Class", "text" },
	{ "why", "Why this class", "text" },
	{ "grid", "Grid", "text" }, { "block", "Block", "text" },
	{ "ncu_launches", "ncu launches", "int" },
	{ "ctas", "CTAs", "int" }, { "waves", "Waves", "num2" },
	{ "flop_counters", "FLOPs counted", "text" },
	{ "nsys_ns", "nsys time in the stage (ms)", "ms" },
	{ "nsys_calls", "nsys launches", "int" },
	{ "stage_pct", "% of stage kernel time", "pct" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* The # lines of how many profiled points lack counters. */
static void
counters_meta(const struct points *p)
{
	const struct k *ks = p->ks;
	size_t i, nocount = 0, nobytes = 0, tonly = 0;

	for (i = 0; i < p->nk; i++) {
		if (ks[i].metrics && !ks[i].have_flop && ks[i].have_tensor &&
		    ks[i].tensor > 0)
			tonly++;
		if (ks[i].metrics && !ks[i].have_bytes)
			nobytes++;
		else if (ks[i].metrics && !ks[i].have_flop &&
		    !(ks[i].have_tensor && ks[i].tensor > 0))
			nocount++;
	}
	if (tonly)
		lp_tab_meta(out, "note", "FLOPs: %zu points count tensor-core "
		    "FLOPs only: their ncu export lacks the SASS counters of "
		    "CUDA-core work (flop_counters says which)", tonly);
	if (nobytes)
		lp_tab_meta(out, "missing", "roofline points for %zu profiled "
		    "kernels: their ncu export lacks the DRAM-byte counters "
		    "(dram__bytes.sum); profile them with those counters (lp's "
		    "default ncu preset has them; ncu --set roofline for an "
		    "export to import)", nobytes);
	if (nocount)
		lp_tab_meta(out, "missing", "roofline points for %zu profiled "
		    "kernels: their ncu export has their DRAM bytes (the table "
		    "gives their DRAM figures) but lacks FLOP counters "
		    "(roofline.tsv's precision column names which); profile "
		    "them with those counters (lp's default ncu preset has "
		    "them; ncu --set roofline for an export to import)",
		    nocount);
}

/* The table's # lines: where the numbers come from, how to read them, and
 * how many profiled points lack counters (counters_meta). */
static void
emit_meta(const struct points *p, const struct lp_tsv *t, const char *mpath,
    const char *gpath, const struct lp_peaks *pk, const struct shapes *sh)
{
	const struct stage_shapes *ss = &p->ss;
	double launches = 0;
	size_t i;

	for (i = 0; i < sh->n; i++)
		launches += sh->r[i].launches;
	lp_tab_meta(out, "title", "Roofline");
	lp_tab_meta(out, "tool", "lp-roofline");
	lp_tab_meta(out, "source", "per-launch FLOPs (tensor-core and "
	    "CUDA-core counters), DRAM bytes and duration from ncu, as %s "
	    "carries them (%s)%s%s; peaks from %s (%s)", t->file,
	    lp_tsv_comment(t, "metrics") ? lp_tsv_comment(t, "metrics") :
	    "no ncu metrics", mpath ? ", a point per launch shape from " : "",
	    mpath ? mpath : "", gpath, pk->gpu ? pk->gpu : "GPU unknown");
	lp_tab_meta(out, "note", "AI = FLOP / DRAM byte. The roof that "
	    "bounds a kernel is DRAM bandwidth x AI below the ridge (peak / "
	    "bandwidth), the peak of its dominant precision above it. A kernel "
	    "launched with several grids or FLOPs per launch has a point per "
	    "shape%s. Waves = "
	    "CTAs / (SMs x CTAs one SM holds). Class: memory-bound or "
	    "compute-bound at 50%% of that roof or more; below it, latency / "
	    "under-filled when under one wave or shorter than 5 us, "
	    "alignment-limited for a GEMM kernel built for unaligned operands "
	    "(align1/2/4), else below roof with a full GPU. ncu replays each "
	    "kernel alone with locked clocks, so its duration is ncu's, not "
	    "the run's.", ss->idx ? " with its own nsys time" : " (its nsys "
	    "time stays whole in the kernel tables)");
	counters_meta(p);
	if (ss->idx) {
		double cov = 0;
		size_t nm = 0;

		for (i = 0; i < ss->n; i++)
			if (ss->s[i].measured) {
				cov += ss->s[i].ns;
				nm++;
			}
		cov = ss->total > 0 ? 100 * cov / ss->total : 0;
		lp_tab_meta(out, "coverage", "%.1f %% of %s (%zu of %zu launch "
		    "configurations; %s)", cov, ss->range, nm, ss->n, ss->path);
		lp_tab_meta(out, "note", "ncu measured the launch configurations "
		    "carrying %.1f %% of %s's kernel time (%zu of its %zu "
		    "configurations, %.0f launches profiled); the roofline's "
		    "numbers speak for those.", cov, ss->range, nm, ss->n, launches);
		lp_tab_meta(out, "note", "A kernel's points are its launch "
		    "configurations in the stage (nsys cuda_gpu_trace, %s), each "
		    "with its own nsys time; those ncu did not measure are listed "
		    "with n/a metrics, so a kernel's points add up to its time.",
		    ss->path);
	}
	if (bwm.path)
		lp_bwmeas_meta(out, pk, &bwm, "the roofs, ridges and % columns "
		    "are against it", 0);
	lp_tab_meta(out, "link", "roofline.svg");
	lp_tab_header(out, cols, NCOLS);
}

/* A row per point, of the n kernels loaded. */
static void
emit_points(const struct points *p, size_t n, const struct lp_peaks *pk,
    const char *mpath)
{
	struct lp_row r = { 0 }, sr = { 0 };
	struct lp_sb w = { 0 };
	char **nm, **shown;
	size_t i;

	/* names unique among the kernels; a kernel's shapes share its name */
	nm = lp_xcalloc(n, sizeof *nm);
	shown = lp_xcalloc(n, sizeof *shown);
	for (i = 0; i < p->nk; i++)
		nm[p->ks[i].rank - 1] = p->ks[i].kernel;
	lp_kname_unique(nm, n, LP_KNAME_MAX, shown);
	for (i = 0; i < p->nk; i++) {
		const struct k *k = &p->ks[i];

		lp_row_num(&r, (double)k->rank, 0);
		lp_row_text(&r, shown[k->rank - 1]);
		lp_row_text(&r, k->kernel);
		cells_roof(&r, k, pk, &w);
		while (r.n < NCOLS - 9)
			lp_row_text(&r, "n/a");
		cells_shape(&sr, k, mpath, &p->ss);
		lp_sb_addc(&r.b, '\t');
		lp_sb_adds(&r.b, lp_sb_str(&sr.b));
		r.n += sr.n;
		lp_sb_reset(&sr.b);
		sr.n = 0;
		lp_row_end(&r, out);
	}
	for (i = 0; i < n; i++)
		free(shown[i]);
	free(shown);
	free(nm);
	lp_sb_free(&r.b);
	lp_sb_free(&sr.b);
	lp_sb_free(&w);
}

static void
free_points(struct points *p, struct shapes *sh)
{
	struct stage_shapes *ss = &p->ss;
	size_t i;

	for (i = 0; i < p->nk; i++) {
		free(p->ks[i].kernel);
		free(p->ks[i].grid);
		free(p->ks[i].block);
	}
	for (i = 0; i < sh->n; i++) {
		free(sh->r[i].kernel);
		free(sh->r[i].grid);
		free(sh->r[i].block);
	}
	free(sh->r);
	free(p->ks);
	for (i = 0; i < ss->n; i++) {
		free(ss->s[i].kernel);
		free(ss->s[i].grid);
		free(ss->s[i].block);
	}
	free(ss->s);
	free(ss->why);
	free(ss->range);
	lp_map_free(ss->idx);
}

int
main(int argc, char **argv)
{
	const char *gpath = NULL, *ipath = NULL, *mpath = NULL, *spath = NULL;
	struct lp_peaks pk;
	struct lp_tsv t;
	struct shapes shapes = { 0 };
	struct points pts = { 0 };
	long top = 10;
	size_t n;
	int c, ck, cnk;
	FILE *fp;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "b:g:i:m:n:s:", synopsis)) != -1) {
		switch (c) {
		case 'b': lp_bwmeas_read(&bwm, optarg); break;
		case 'g': gpath = optarg; break;
		case 'i': ipath = optarg; break;
		case 'm': mpath = optarg; break;
		case 'n': top = lp_strtonum(optarg, 1, 100000, "-n"); break;
		case 's': spath = optarg; break;
		}
	}
	fp = lp_peaks_tsv_open(&pk, gpath, argc, argv, synopsis, &t);
	lp_tab_expect(&t, "lp-kernjoin");
	ck = lp_csv_need(&t.hdr, "kernel", "lp-kernjoin output");
	lp_csv_need(&t.hdr, "total_ns", "lp-kernjoin output");
	cnk = lp_csv_col(&t.hdr, "ncu_kernel");
	if (mpath)
		points_read_shapes(mpath, &shapes);
	if (spath)
		points_read_stage(spath, &pts.ss);
	n = points_load(&pts, &t, ck, cnk, &shapes, top);
	if (!n)
		lp_die_at(LP_EXIT_DATA, t.file, t.line, 0, "no kernel rows");
	if (ipath)
		cells_read_model(ipath);

	emit_meta(&pts, &t, mpath, gpath, &pk, &shapes);
	emit_points(&pts, n, &pk, mpath);
	free_points(&pts, &shapes);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_peaks_free(&pk);
	lp_bwmeas_free(&bwm);
	lp_tab_done(out);
	return 0;
}
