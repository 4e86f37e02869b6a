/*
 * lp-regwork: region_work.tsv, the work each NVTX region did on the GPU as
 * ncu counted it (range or app-range replay): tensor-core and CUDA-core
 * FLOPs, DRAM bytes, achieved FLOP/s and bandwidth against the GPU's peaks
 * (gpu.tsv), beside the FLOPs the model must do in that stage (the MFU
 * formula, inputs.yaml) and their ratio: the waste no kernel table shows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lp.h"

static const char synopsis[] =
    "lp-regwork -c config.yaml -g gpu.tsv [-i inputs.yaml] [-k kernels.tsv] "
    "[-o operators.yaml] [-s stages.tsv] -l exports.list";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

/* What the kernel table says of one stage's matmuls: range replay counts
 * tensor-core FLOPs only, so the model math to set them against is the
 * model's less the matmuls that ran on CUDA cores (a GEMV LM head, an
 * fp32 GEMM), which kernel replay did count. */
static struct {
	const char *stage;	/* the stage kernels.tsv is of, or NULL */
	double cuda_flop;	/* per instance: GEMM-class CUDA-core FLOPs */
	double gemm_ns, unprofiled_ns;	/* nsys time of GEMM-class kernels */
	size_t unprofiled;
} split;

static char *stage_copy;

static void
read_split(const char *kpath, const char *opath, const char *spath)
{
	struct lp_ops ops;
	struct lp_tsv t, st;
	FILE *fp, *sp;
	const char *range;
	double inst = 0, c = 0;
	int ck, cc, ct, ctn, cnt, sr, ss, si;

	lp_ops_load(&ops, opath);
	sp = lp_tab_open(&st, spath, "lp-stages, make RUN=... stages.tsv");
	fp = lp_tab_open(&t, kpath, "lp-kernjoin, make RUN=... kernels.tsv");
	lp_tab_expect(&t, "lp-kernjoin");
	ck = lp_csv_need(&t.hdr, "kernel", "lp-kernjoin output");
	cc = lp_csv_need(&t.hdr, "calls", "lp-kernjoin output");
	ct = lp_csv_need(&t.hdr, "total_ns", "lp-kernjoin output");
	ctn = lp_csv_col(&t.hdr, "flops_tensor_per_launch");
	cnt = lp_csv_col(&t.hdr, "flops_nontensor_per_launch");
	sr = lp_csv_need(&st.hdr, "range", "lp-stages output");
	ss = lp_csv_need(&st.hdr, "stage", "lp-stages output");
	si = lp_csv_need(&st.hdr, "instances", "lp-stages output");
	range = lp_tsv_comment(&t, "range");
	while (range && lp_tsv_next(&st))
		if (!strcmp(lp_tsv_get(&st, sr), range) &&
		    lp_tab_num(&st, si, &inst) && inst > 0) {
			stage_copy = lp_xstrdup(lp_tsv_get(&st, ss));
			break;
		}
	while (stage_copy && lp_tsv_next(&t)) {
		const char *k = lp_tsv_get(&t, ck);
		double calls, ns, ft, fn;
		char *b;
		int red;

		if (!strstr(ops.names[lp_ops_class(&ops, k)], "GEMM"))
			continue;
		/* split-K's reduction adds partial sums: no model math */
		b = lp_kname_base(k);
		red = strstr(b, "educe") != NULL;
		free(b);
		if (red)
			continue;
		if (!lp_tab_num(&t, cc, &calls) || !lp_tab_num(&t, ct, &ns))
			continue;
		split.gemm_ns += ns;
		if (ctn < 0 || cnt < 0 || !lp_tab_num(&t, ctn, &ft) ||
		    !lp_tab_num(&t, cnt, &fn)) {
			split.unprofiled++;
			split.unprofiled_ns += ns;
			continue;
		}
		/* a GEMM with no tensor-core work: its math on CUDA cores */
		if (ft == 0 && fn > 0)
			c += fn * calls;
	}
	if (stage_copy) {
		split.stage = stage_copy;
		split.cuda_flop = c / inst;
	}
	lp_tsv_close(&t);
	fclose(fp);
	lp_tsv_close(&st);
	fclose(sp);
	lp_ops_free(&ops);
}

/* decode_all and decode_step share their kernels and formula. */
static int
same_family(const char *a, const char *b)
{
	if (!strncmp(a, "decode", 6) && !strncmp(b, "decode", 6))
		return 1;
	return !strcmp(a, b);
}

/* The model math set against a region's executed FLOPs, and in words what
 * is compared; NAN (why in *what) when nothing like-for-like exists. */
static double
compared(const struct lp_model *m, const char *name, double mf, int tc,
    int ss, double ft, struct lp_sb *what)
{
	double rho, share;

	lp_sb_reset(what);
	if (tc && ss) {
		lp_sb_adds(what, "all executed FLOPs with all the model's math");
		return mf;
	}
	if (!tc) {
		lp_sb_adds(what, "n/a because the export lacks the tensor-core "
		    "counters");
		return NAN;
	}
	share = split.gemm_ns > 0 ? split.unprofiled_ns / split.gemm_ns : 0;
	if (split.stage && same_family(split.stage, name) && share <= 0.05) {
		rho = split.cuda_flop / lp_model_flops(m, split.stage);
		if (rho >= 0.95) {
			lp_sb_printf(what, "n/a because the model's matmuls ran on "
			    "CUDA cores (%.3g%% of its math, kernels.tsv of %s), "
			    "which range replay does not count", 100 * rho,
			    split.stage);
			return NAN;
		}
		if (split.cuda_flop > 0)
			lp_sb_printf(what, "tensor-core FLOPs with the model's math "
			    "on tensor cores: the model's less %.4g GFLOP a %s "
			    "instance of matmuls on CUDA cores (kernels.tsv)",
			    split.cuda_flop / 1e9, split.stage);
		else
			lp_sb_printf(what, "tensor-core FLOPs with the model's math, "
			    "all of its matmuls on tensor cores (kernels.tsv of %s)",
			    split.stage);
		return mf * (1 - (rho > 0 ? rho : 0));
	}
	if (ft == 0) {
		lp_sb_adds(what, "n/a because ncu counted no tensor-core FLOPs and "
		    "range replay counts no CUDA-core ones");
		return NAN;
	}
	lp_sb_printf(what, "tensor-core FLOPs with all the model's math, a "
	    "lower bound: which matmuls ran on CUDA cores is %s",
	    split.stage ? "known for another stage only" : "not known (no "
	    "kernel table)");
	return mf;
}

int
main(int argc, char **argv)
{
	static const struct lp_col cols[] = {
		{ "path", "Region", "text" }, { "instances", "Instances", "int" },
		{ "gpu_ns", "GPU time / instance (ms)", "ms" },
		{ "flop_tensor", "Tensor FLOP / instance", "flop" },
		{ "flop_nontensor", "CUDA-core FLOP / instance", "flop" },
		{ "dram_bytes", "DRAM / instance", "bytes" },
		{ "flop_per_s", "Achieved FLOP/s", "flops" },
		{ "peak_pct", "% of peak", "pct" },
		{ "bytes_per_s", "Achieved DRAM B/s", "Bps" },
		{ "bw_pct", "% of DRAM BW", "pct" },
		{ "model_flop", "Model FLOP / instance", "flop" },
		{ "hw_over_model", "Executed / model", "x" },
		{ "model_flop_compared", "Model FLOP compared", "flop" },
		{ "compared", "Compared", "text" },
	};
	const char *cpath = NULL, *gpath = NULL, *ipath = NULL, *lpath = NULL;
	const char *kpath = NULL, *opath = NULL, *spath = NULL;
	struct lp_sb what = { 0 };
	struct lp_ynode *cfg, *inputs = NULL;
	struct lp_rset rs;
	struct lp_peaks pk;
	struct lp_model m;
	struct lp_row r = { 0 };
	struct lp_sb waste = { 0 };
	size_t j, i;
	int c;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "c:g:hi:k:l:o:s:")) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'g': gpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'i': ipath = optarg; break;
		case 'k': kpath = optarg; break;
		case 'l': lpath = optarg; break;
		case 'o': opath = optarg; break;
		case 's': spath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (!cpath || !gpath || !lpath || optind != argc ||
	    !kpath != !opath || !kpath != !spath)
		lp_usage(synopsis);
	if (kpath)
		read_split(kpath, opath, spath);
	cfg = lp_yaml_load_path(cpath);
	if (ipath)
		inputs = lp_yaml_load_path(ipath);
	lp_model_get(&m, inputs, ipath ? ipath : "inputs.yaml");
	lp_peaks_read(&pk, gpath);
	lp_rset_init(&rs, cfg, "ncu_regions.regions", cpath);
	lp_rset_ncu_list(&rs, lpath);

	lp_tab_meta(out, "title", "Region Work against the Model");
	lp_tab_meta(out, "tool", "lp-regwork");
	lp_tab_meta(out, "source", "FLOPs and DRAM bytes of each region from ncu "
	    "(exports listed in %s; tensor cores: sm__ops_path_tensor_src_*, "
	    "CUDA cores: the SASS counters where the export has them); peaks "
	    "from %s; model FLOPs from %s", lpath, gpath, ipath ? ipath :
	    "no model config");
	lp_tab_meta(out, "note", "Per instance: the mean over the region's "
	    "instances; FLOP/s and B/s over their summed GPU time. %% of peak is "
	    "against the dense peak of the model's dtype. Model FLOPs are those "
	    "of the MFU table (prefill, decode_all, decode_step = decode_all / "
	    "T); executed / model above 1 is work the model formula does not "
	    "count (padding, recomputation). It compares like with like "
	    "(compared says what): all executed FLOPs with all the model's math "
	    "where the export has both kinds of counters; else tensor-core "
	    "FLOPs with the model's math on tensor cores, the model's less the "
	    "matmuls that kernel replay saw run on CUDA cores (kernels.tsv), or "
	    "with all of it as a lower bound where that is not known.");
	/* said in words: the waste no kernel table shows */
	for (j = 0; j < rs.n && !m.missing; j++) {
		const struct lp_rinsts *x = &rs.ncu[j];
		double ft = 0, fn = 0, mf = lp_model_flops(&m, rs.rg[j].name), hw;
		double mc;
		int tc = x->n > 0, ss = x->n > 0, q;

		for (i = 0; i < x->n; i++) {
			tc &= x->in[i].f.have_tensor;
			ss &= x->in[i].f.have_sass;
			for (q = 0; q < LP_FP_N; q++)
				*(q < LP_FP_FP32 ? &ft : &fn) += x->in[i].f.f[q];
		}
		if (!(mf > 0) || isnan(mc = compared(&m, rs.rg[j].name, mf, tc,
		    ss, ft, &what)) || (hw = (ft + (ss ? fn : 0)) / (double)x->n /
		    mc) <= 1.5)
			continue;
		lp_sb_printf(&waste, "%s%s executed %.3gx the model's FLOPs%s "
		    "(%.4g GFLOP per instance for %.4g GFLOP of model math%s)",
		    waste.len ? "; " : "", rs.rg[j].name, hw, ss ? "" :
		    " on tensor cores", (ft + (ss ? fn : 0)) / (double)x->n / 1e9,
		    mc / 1e9, ss ? "" : mc < mf ? " on tensor cores" :
		    ", all of it: a lower bound");
	}
	if (waste.len)
		lp_tab_meta(out, "note", "Waste: %s. That is math the hardware did "
		    "beyond the model's, e.g. a single token padded into 8-row MMA "
		    "tiles in decode; batching more sequences per step fills those "
		    "rows with useful work.", lp_sb_str(&waste));
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (j = 0; j < rs.n; j++) {
		const struct lp_rinsts *x = &rs.ncu[j];
		char *path = lp_region_path(rs.rg, rs.n, j);
		double ns = 0, ft = 0, fn = 0, by = 0, mf, peak;
		int tc = 1, ss = 1, hb = 1, q;

		lp_row_text(&r, path);
		free(path);
		if (!x->n) {
			lp_row_na(&r, "ncu measured no instance of %s", rs.rg[j].nsys);
			goto pad;
		}
		for (i = 0; i < x->n; i++) {
			ns += x->in[i].gpu_ns;
			tc &= x->in[i].f.have_tensor;
			ss &= x->in[i].f.have_sass;
			hb &= x->in[i].have_bytes;
			by += x->in[i].bytes;
			for (q = 0; q < LP_FP_N; q++)
				*(q < LP_FP_FP32 ? &ft : &fn) += x->in[i].f.f[q];
		}
		lp_row_num(&r, (double)x->n, 0);
		lp_row_num(&r, ns / (double)x->n, 1);
		if (tc)
			lp_row_num(&r, ft / (double)x->n, 0);
		else
			lp_row_na(&r, "the export lacks the tensor-core counters");
		if (ss)
			lp_row_num(&r, fn / (double)x->n, 0);
		else
			lp_row_na(&r, "ncu range replay cannot collect the SASS "
			    "FLOP counters");
		if (hb)
			lp_row_num(&r, by / (double)x->n, 0);
		else
			lp_row_na(&r, "the export lacks dram__bytes.sum");
		peak = lp_peak_of(&pk, lp_fp_of_dtype(m.dtype));
		if (tc && ns > 0) {
			double f = ft + (ss ? fn : 0);

			lp_row_g(&r, f / (ns * 1e-9));
			if (peak > 0)
				lp_row_pct(&r, 100 * f / (ns * 1e-9) / peak, 100,
				    "% of peak", "ncu counted more FLOPs in the "
				    "time than gpu.tsv's peak allows: the GPU's "
				    "entry (conf/gpus.yaml or SET=gpu.*) is too "
				    "low");
			else
				lp_row_na(&r, "%s", m.dtype ? pk.why : "no model dtype");
		} else {
			lp_row_text(&r, "n/a");
			lp_row_text(&r, "n/a");
		}
		if (hb && ns > 0) {
			lp_row_g(&r, by / (ns * 1e-9));
			if (pk.bw > 0)
				lp_row_pct(&r, 100 * by / (ns * 1e-9) / pk.bw, 100,
				    "% of bandwidth", "ncu counted more DRAM bytes "
				    "in the time than gpu.tsv's bandwidth allows: "
				    "the GPU's entry (conf/gpus.yaml or "
				    "SET=gpu.hbm_tbps) is too low");
			else
				lp_row_na(&r, "%s", pk.why);
		} else {
			lp_row_text(&r, "n/a");
			lp_row_text(&r, "n/a");
		}
		mf = m.missing ? 0 : lp_model_flops(&m, rs.rg[j].name);
		if (!(mf > 0)) {
			lp_row_na(&r, "%s", m.missing ? "no model config (MODEL=NAME)"
			    : "not a stage with a model FLOP formula");
			goto pad;
		}
		lp_row_num(&r, mf, 0);
		{
			double mc = compared(&m, rs.rg[j].name, mf, tc, ss, ft,
			    &what);

			if (isnan(mc)) {
				lp_row_text(&r, lp_sb_str(&what));
				lp_row_text(&r, "n/a");
			} else {
				lp_row_g(&r, (ft + (ss ? fn : 0)) / (double)x->n /
				    mc);
				lp_row_num(&r, mc, 0);
			}
			lp_row_text(&r, lp_sb_str(&what));
		}
pad:
		while (r.n < sizeof cols / sizeof cols[0])
			lp_row_text(&r, "n/a");
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
	lp_sb_free(&waste);
	lp_sb_free(&what);
	free(stage_copy);
	lp_rset_free(&rs);
	lp_peaks_free(&pk);
	lp_model_free(&m);
	lp_yaml_free(cfg);
	lp_yaml_free(inputs);
	lp_tab_done(out);
	return 0;
}
