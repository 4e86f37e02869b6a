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
    "lp-regwork -c config.yaml -g gpu.tsv [-i inputs.yaml] -l exports.list";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

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
	};
	const char *cpath = NULL, *gpath = NULL, *ipath = NULL, *lpath = NULL;
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
	while ((c = getopt(argc, argv, "c:g:hi:l:")) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'g': gpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'i': ipath = optarg; break;
		case 'l': lpath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (!cpath || !gpath || !lpath || optind != argc)
		lp_usage(synopsis);
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
	    "count (padding, recomputation).");
	/* said in words: the waste no kernel table shows */
	for (j = 0; j < rs.n && !m.missing; j++) {
		const struct lp_rinsts *x = &rs.ncu[j];
		double ft = 0, mf = lp_model_flops(&m, rs.rg[j].name), hw;
		int tc = x->n > 0, q;

		for (i = 0; i < x->n; i++) {
			tc &= x->in[i].f.have_tensor;
			for (q = 0; q < LP_FP_FP32; q++)
				ft += x->in[i].f.f[q];
		}
		if (!tc || !(mf > 0) || (hw = ft / (double)x->n / mf) <= 1.5)
			continue;
		lp_sb_printf(&waste, "%s%s executed %.3gx the model's FLOPs on "
		    "tensor cores (%.4g GFLOP per instance for %.4g GFLOP of model "
		    "math)", waste.len ? "; " : "", rs.rg[j].name, hw,
		    ft / (double)x->n / 1e9, mf / 1e9);
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
		if (tc) {
			double hw = (ft + (ss ? fn : 0)) / (double)x->n / mf;

			lp_row_g(&r, hw);
		} else
			lp_row_na(&r, "no tensor-core counters");
pad:
		while (r.n < sizeof cols / sizeof cols[0])
			lp_row_text(&r, "n/a");
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
	lp_sb_free(&waste);
	lp_rset_free(&rs);
	lp_peaks_free(&pk);
	lp_model_free(&m);
	lp_yaml_free(cfg);
	lp_yaml_free(inputs);
	lp_tab_done(out);
	return 0;
}
