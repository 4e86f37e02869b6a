/*
 * lp-mbu: mbu.tsv, model bandwidth utilisation of decode: the bytes a
 * decode step must read (weights and KV cache, from the model config in
 * inputs.yaml) over the measured time per token, against the GPU's DRAM
 * bandwidth (gpu.tsv).  For the mean step (warm-up included) and the
 * steady state.  Small-batch decode is bound by these bytes, so MBU is its
 * utilisation metric; the kernel-level figure is in roofline.tsv.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"

static const char synopsis[] =
    "lp-mbu -g gpu.tsv -i inputs.yaml -s stages.tsv [-t steps.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static void
mbu(struct lp_row *r, double pct, const struct lp_model *m, const char *ipath)
{
	lp_row_pct(r, pct, 100, "MBU", "more bytes per token than the DRAM "
	    "can move in the time: model.params (%.0f) x %g bytes or the "
	    "KV shape in %s look wrong, or the weights fit in L2 and DRAM "
	    "bandwidth does not bound the step", m->params, m->dtype_bytes,
	    ipath);
}

int
main(int argc, char **argv)
{
	static const struct lp_col cols[] = {
		{ "stage", "Stage", "text" },
		{ "weight_bytes", "Weights / token", "bytes" },
		{ "kv_bytes", "KV cache / token", "bytes" },
		{ "bytes_per_token", "Bytes / token", "bytes" },
		{ "mean_ns", "Mean time / token (ms)", "ms" },
		{ "bytes_per_s", "Achieved", "Bps" },
		{ "mbu_pct", "MBU (mean)", "pct" },
		{ "steady_ns", "Steady state / token (ms)", "ms" },
		{ "mbu_steady_pct", "MBU (steady)", "pct" },
	};
	const char *gpath = NULL, *ipath = NULL, *spath = NULL, *tpath = NULL;
	struct lp_ynode *inputs;
	struct lp_model m;
	struct lp_peaks pk;
	struct lp_stagerow *rows;
	const struct lp_stagerow *ds, *da;
	struct lp_row r = { 0 };
	double w = 0, kv = 0, bytes = 0;
	size_t n, k;
	int c;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "g:hi:s:t:")) != -1) {
		switch (c) {
		case 'g': gpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'i': ipath = optarg; break;
		case 's': spath = optarg; break;
		case 't': tpath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (!gpath || !ipath || !spath || optind != argc)
		lp_usage(synopsis);
	inputs = lp_yaml_load_path(ipath);
	lp_model_get(&m, inputs, ipath ? ipath : "inputs.yaml");
	lp_peaks_read(&pk, gpath);
	n = lp_stagetab_load(spath, tpath, &rows);
	ds = lp_stagetab_get(rows, n, "decode_step");
	da = lp_stagetab_get(rows, n, "decode_all");
	if (!m.missing)
		bytes = lp_model_step_bytes(&m, &w, &kv);

	lp_tab_meta(out, "title", "MBU");
	lp_tab_meta(out, "tool", "lp-mbu");
	if (n && rows[0].procs > 1 && pk.bw > 0) {	/* the GPUs together */
		pk.bw *= rows[0].procs;
		lp_tab_meta(out, "note", "%.0f processes (one GPU each) share "
		    "the model's bytes: the bandwidth is %.0f GPUs' (stages.tsv's "
		    "# processes).", rows[0].procs, rows[0].procs);
	}
	if (m.missing) {	/* no number stands in for a key it lacks */
		lp_tab_meta(out, "source", "bytes: n/a because the model config "
		    "(%s, model %s) lacks %s; time from %s%s%s; DRAM bandwidth "
		    "from %s", ipath, m.name ? m.name : "?", m.missing, spath,
		    tpath ? " and " : "", tpath ? tpath : "", gpath);
	} else {
		struct lp_sb h = { 0 };

		if (m.heads > 0)
			lp_sb_printf(&h, "%.0f of %.0f heads hold K/V", m.kv_heads,
			    m.heads);
		else
			lp_sb_adds(&h, "every head holds K/V (no model.heads)");
		lp_tab_meta(out, "source", "bytes from %s (model %s: N = %.0f "
		    "weights of %g bytes, L = %.0f, d = %.0f, %s, B = %.0f, "
		    "P = %.0f, T = %.0f); time from %s%s%s; DRAM bandwidth from "
		    "%s", ipath, m.name ? m.name : "?", m.params, m.dtype_bytes,
		    m.layers, m.hidden, lp_sb_str(&h), m.batch, m.prompt,
		    m.decode, spath, tpath ? " and " : "", tpath ? tpath : "",
		    gpath);
		lp_sb_free(&h);
	}
	lp_tab_meta(out, "note", "Bytes per decoded token = weights N x b "
	    "+ KV cache 2 x L x B x d_kv x b_kv x (P + (T+1)/2), the mean "
	    "context over the T steps (d_kv = d x kv_heads / heads). MBU = "
	    "bytes / (time per token x bandwidth). Per token: a decode_step "
	    "instance, or decode_all's time / its decode steps.");
	if (m.missing)
		lp_tab_meta(out, "missing", "no MBU: the model config lacks "
		    "%s (MODEL=NAME, conf/model/NAME.yaml)", m.missing);
	else if (!(pk.bw > 0))
		lp_tab_meta(out, "missing", "no MBU: %s", pk.why);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (k = 0; k < 2; k++) {
		const struct lp_stagerow *s = k ? da : ds;
		double per = 1, mean, steady = NAN;

		if (!s)
			continue;
		lp_row_text(&r, s->stage);
		if (m.missing) {
			lp_row_na(&r, "the model config lacks %s (MODEL=NAME)",
			    m.missing);
			goto pad;
		}
		lp_row_num(&r, w, 0);
		lp_row_num(&r, kv, 0);
		lp_row_num(&r, bytes, 0);
		/* decode_all holds T steps: its time per token */
		if (k) {
			per = ds && ds->inst > 0 && s->inst > 0 ? ds->inst /
			    s->inst : m.decode;
		} else
			steady = s->steady;
		mean = per > 0 ? s->mean / per : NAN;
		if (!(mean > 0)) {
			lp_row_na(&r, "the stage has no wall time (stages.tsv)");
			goto pad;
		}
		lp_row_num(&r, mean, 1);
		/* Above 100 % of DRAM bandwidth: the bytes are wrong (or the
		 * weights stay in L2, where MBU means nothing); said in the
		 * cell with what to check, never stated as a number */
		if (pk.bw > 0 && bytes / (mean * 1e-9) > pk.bw)
			lp_row_na(&r, "above the GPU's DRAM bandwidth (%.4g B/s): "
			    "see MBU", pk.bw);
		else
			lp_row_g(&r, bytes / (mean * 1e-9));
		if (pk.bw > 0)
			mbu(&r, 100 * bytes / (mean * 1e-9) / pk.bw, &m, ipath);
		else
			lp_row_na(&r, "%s", pk.why);
		if (k)
			lp_row_na(&r, "decode_all is one instance; see "
			    "decode_step");
		else if (isnan(steady))
			lp_row_na(&r, "no steady state in steps.tsv");
		else
			lp_row_num(&r, steady, 1);
		if (!isnan(steady) && steady > 0 && pk.bw > 0)
			mbu(&r, 100 * bytes / (steady * 1e-9) / pk.bw, &m,
			    ipath);
		else if (!isnan(steady) && !(pk.bw > 0))
			lp_row_na(&r, "%s", pk.why);
pad:
		while (r.n < sizeof cols / sizeof cols[0])
			lp_row_text(&r, "n/a");
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
	lp_stagetab_free(rows, n);
	lp_peaks_free(&pk);
	lp_model_free(&m);
	lp_yaml_free(inputs);
	lp_tab_done(out);
	return 0;
}
