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

#include "lp.h"

static const char synopsis[] = "lp-roofline -g gpu.tsv [-n N] [kernels.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct k {
	char *kernel;
	double f[LP_FP_N], flop, bytes, ns;
	int have_f[LP_FP_N], have_flop, have_bytes, have_ns, metrics;
};

static int
num(const struct lp_tsv *t, const char *col, double *v)
{
	int c = lp_csv_col(&t->hdr, col);
	double x;

	if (c < 0 || !lp_tab_num(t, c, &x))
		return 0;
	if (!isfinite(x) || x < 0)
		lp_die_at(LP_EXIT_DATA, t->file, t->line, c + 1, "%s: expected a "
		    "number from 0, got \"%s\"", col, lp_tsv_get(t, c));
	*v = x;
	return 1;
}

static void
dram_pct(struct lp_row *r, double bps, double bw)
{
	lp_row_pct(r, 100 * bps / bw, 100, "DRAM % of bandwidth", "ncu "
	    "measured more than gpu.tsv's DRAM bandwidth: the GPU's entry "
	    "(conf/gpus.yaml or SET=gpu.hbm_tbps) is too low");
}

int
main(int argc, char **argv)
{
	static const struct lp_col cols[] = {
		{ "rank", "#", "int" }, { "name", "Kernel", "code" },
		{ "kernel", "Kernel (whole name)", "hide" },
		{ "precision", "Dominant precision", "text" },
		{ "flop_per_launch", "FLOP / launch", "flop" },
		{ "dram_bytes_per_launch", "DRAM / launch", "bytes" },
		{ "ncu_ns_per_launch", "ncu time / launch (us)", "us" },
		{ "ai", "AI (FLOP/B)", "num2" },
		{ "flop_per_s", "Achieved FLOP/s", "flops" },
		{ "bytes_per_s", "Achieved DRAM B/s", "Bps" },
		{ "peak_flop_per_s", "Peak FLOP/s", "flops" },
		{ "ridge", "Ridge (FLOP/B)", "num1" },
		{ "roof", "Bound by", "text" },
		{ "roof_pct", "% of roof", "pct" },
		{ "dram_pct", "% of DRAM BW", "pct" },
		{ "class", "Class", "text" },
	};
	const char *gpath = NULL, *name;
	struct lp_peaks pk;
	struct lp_tsv t;
	struct k *ks = NULL;
	char **nm, **shown;
	struct lp_row r = { 0 };
	long top = 10;
	size_t n = 0, i, nocount = 0;
	int c, ck;
	FILE *fp;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "g:hn:")) != -1) {
		switch (c) {
		case 'g': gpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'n': top = lp_strtonum(optarg, 1, 100000, "-n"); break;
		default: lp_usage(synopsis);
		}
	}
	if (!gpath || argc - optind > 1)
		lp_usage(synopsis);
	lp_peaks_read(&pk, gpath);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_tsv_open(&t, fp, name);
	ck = lp_csv_need(&t.hdr, "kernel", "lp-kernjoin output");
	lp_csv_need(&t.hdr, "total_ns", "lp-kernjoin output");
	while (lp_tsv_next(&t) && n < (size_t)top) {
		struct k *k;
		struct lp_sb b = { 0 };
		int q;

		ks = lp_xreallocarray(ks, n + 1, sizeof *ks);
		k = &ks[n++];
		memset(k, 0, sizeof *k);
		k->kernel = lp_xstrdup(lp_tsv_get(&t, ck));
		k->have_ns = num(&t, "ncu_ns_per_launch", &k->ns);
		k->metrics = k->have_ns && k->ns > 0;
		k->have_flop = num(&t, "flops_per_launch", &k->flop);
		k->have_bytes = num(&t, "dram_bytes_per_launch", &k->bytes);
		for (q = 0; q < LP_FP_N; q++) {
			lp_sb_reset(&b);
			lp_sb_printf(&b, "flops_%s_per_launch", lp_fp_names[q]);
			k->have_f[q] = num(&t, lp_sb_str(&b), &k->f[q]);
		}
		lp_sb_free(&b);
	}
	if (!n)
		lp_die_at(LP_EXIT_DATA, name, t.line, 0, "no kernel rows");
	for (i = 0; i < n; i++)
		if (ks[i].metrics && (!ks[i].have_flop || !ks[i].have_bytes))
			nocount++;

	lp_tab_meta(out, "title", "Roofline");
	lp_tab_meta(out, "tool", "lp-roofline");
	lp_tab_meta(out, "source", "per-launch FLOPs (tensor-core and "
	    "CUDA-core counters), DRAM bytes and duration from ncu, as %s "
	    "carries them (%s); peaks from %s (%s)", name,
	    lp_tsv_comment(&t, "metrics") ? lp_tsv_comment(&t, "metrics") :
	    "no ncu metrics", gpath, pk.gpu ? pk.gpu : "GPU unknown");
	lp_tab_meta(out, "note", "AI = FLOP / DRAM byte. The roof that "
	    "bounds a kernel is DRAM bandwidth x AI below the ridge (peak / "
	    "bandwidth), the peak of its dominant precision above it. Class: "
	    "memory-bound or compute-bound at 50%% of that roof or more, else "
	    "latency / under-filled. ncu replays each kernel alone with locked "
	    "clocks, so its duration is ncu's, not the run's.");
	if (nocount)
		lp_tab_meta(out, "missing", "roofline points for %zu profiled "
		    "kernels: their ncu export lacks the FLOP or DRAM-byte "
		    "counters; profile them with those counters (lp's default "
		    "ncu preset has them; ncu --set roofline for an export to "
		    "import)", nocount);
	lp_tab_meta(out, "link", "roofline.svg");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	nm = lp_xcalloc(n, sizeof *nm);
	shown = lp_xcalloc(n, sizeof *shown);
	for (i = 0; i < n; i++)
		nm[i] = ks[i].kernel;
	lp_kname_unique(nm, n, 60, shown);
	for (i = 0; i < n; i++) {
		const struct k *k = &ks[i];
		double peak = 0, ai, fps, bps, ridge = 0, frac;
		int q, dom = -1, mem;

		lp_row_num(&r, (double)(i + 1), 0);
		lp_row_text(&r, shown[i]);
		lp_row_text(&r, k->kernel);
		if (!k->metrics) {
			lp_row_na(&r, "ncu did not profile it (outside the top-N "
			    "selection, or not matched by name)");
			goto pad;
		}
		if (!k->have_flop || !k->have_bytes) {
			lp_row_na(&r, "the ncu export lacks %s",
			    !k->have_bytes ? "dram__bytes.sum" :
			    !k->have_f[LP_FP_TC_FP16] ?
			    "the tensor-core counters (sm__ops_path_tensor_src_*)" :
			    "the SASS FLOP counters (sm__sass_thread_inst_executed_"
			    "op_*)");
			goto pad;
		}
		for (q = 0; q < LP_FP_N; q++)
			if (k->have_f[q] && k->f[q] > 0 && (dom < 0 ||
			    k->f[q] > k->f[dom]))
				dom = q;
		lp_row_text(&r, dom >= 0 ? lp_fp_label(dom) : "none (no FLOPs)");
		lp_row_num(&r, k->flop, 0);
		lp_row_num(&r, k->bytes, 0);
		lp_row_num(&r, k->ns, 1);
		if (!(k->bytes > 0)) {
			lp_row_na(&r, "ncu counted no DRAM bytes");
			goto pad;
		}
		ai = k->flop / k->bytes;
		fps = k->flop / (k->ns * 1e-9);
		bps = k->bytes / (k->ns * 1e-9);
		lp_row_g(&r, ai);
		lp_row_g(&r, fps);
		lp_row_g(&r, bps);
		if (dom >= 0 && !((peak = lp_peak_of(&pk, dom)) > 0))
			lp_row_na(&r, "%s (%s)", pk.why, lp_fp_label(dom));
		else if (dom < 0)
			lp_row_na(&r, "it does no floating-point work");
		else
			lp_row_g(&r, peak);
		if (!(pk.bw > 0)) {
			lp_row_na(&r, "%s (DRAM bandwidth)", pk.why);
			goto pad;
		}
		if (peak > 0) {
			ridge = peak / pk.bw;
			lp_row_g(&r, ridge);
		} else
			lp_row_text(&r, "n/a");
		/* below the ridge (or with no FLOPs) the bandwidth roof bounds;
		 * with no peak for its precision there is no ridge, and which
		 * roof bounds the kernel is unknown, not "compute" */
		mem = dom < 0 || (peak > 0 && ai < ridge);
		if (dom < 0 || peak > 0) {
			frac = mem ? bps / pk.bw : fps / peak;
			lp_row_text(&r, mem ? "memory" : "compute");
			lp_row_pct(&r, 100 * frac, 100, "% of roof", "ncu "
			    "measured more than gpu.tsv's %s: the GPU's entry "
			    "(conf/gpus.yaml or SET=gpu.*) is too low", mem ?
			    "DRAM bandwidth" : "peak");
			dram_pct(&r, bps, pk.bw);
			lp_row_text(&r, 100 * frac > 100 ? "n/a" : frac >= 0.5 ?
			    (mem ? "memory-bound" : "compute-bound") :
			    "latency / under-filled");
		} else {
			lp_row_na(&r, "no peak for %s", lp_fp_label(dom));
			lp_row_na(&r, "no peak for %s: which roof bounds it is "
			    "unknown", lp_fp_label(dom));
			dram_pct(&r, bps, pk.bw);
		}
pad:
		while (r.n < sizeof cols / sizeof cols[0])
			lp_row_text(&r, "n/a");
		lp_row_end(&r, out);
	}
	for (i = 0; i < n; i++) {
		free(shown[i]);
		free(ks[i].kernel);
	}
	free(shown);
	free(nm);
	free(ks);
	lp_sb_free(&r.b);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_peaks_free(&pk);
	lp_tab_done(out);
	return 0;
}
