/*
 * lp-mbu: mbu.tsv, model bandwidth utilisation of decode: the bytes a
 * decode step must read (weights and KV cache, from the model config in
 * inputs.yaml) over the measured time per token, against the GPU's DRAM
 * bandwidth (gpu.tsv).  For the mean step (warm-up included) and the
 * steady state.  Small-batch decode is bound by these bytes, so MBU is its
 * utilisation metric; the kernel-level figure is in roofline.tsv.
 */
#include <math.h>
#include <string.h>

#include "util.h"
#include "esc.h"
#include "table.h"
#include "run.h"

static const char synopsis[] =
    "lp-mbu -g gpu.tsv -i inputs.yaml -s stages.tsv [-t steps.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

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
#define NCOLS (sizeof cols / sizeof cols[0])

/* The bytes a decoded token must read. */
struct need {
	double w, kv, bytes;	/* weights, KV cache, both */
};

static void
mbu(struct lp_row *r, double pct, const struct lp_model *m, const char *ipath)
{
	lp_row_pct(r, pct, 100, "MBU", "more bytes per token than the DRAM "
	    "can move in the time: model.params (%.0f) x %g bytes or the "
	    "KV shape in %s look wrong, or the weights fit in L2 and DRAM "
	    "bandwidth does not bound the step", m->params, m->dtype_bytes,
	    ipath);
}

static void
emit_source(const struct lp_perf *p)
{
	const struct lp_model *m = &p->m;
	struct lp_sb h = { 0 }, name = { 0 };

	lp_md_name(&name, m->name ? m->name : "?");
	if (m->missing) {	/* no number stands in for a key it lacks */
		lp_tab_meta(out, "source", "bytes: n/a because the model config "
		    "(%s, model %s) lacks %s; time from %s%s%s; DRAM bandwidth "
		    "from %s", p->ipath, lp_sb_str(&name), m->missing,
		    p->spath, p->tpath ? " and " : "", p->tpath ? p->tpath : "",
		    p->gpath);
		lp_sb_free(&name);
		return;
	}
	if (m->heads > 0)
		lp_sb_printf(&h, "%.0f of %.0f heads hold K/V", m->kv_heads,
		    m->heads);
	else
		lp_sb_adds(&h, "every head holds K/V (no model.heads)");
	lp_tab_meta(out, "source", "bytes from %s (model %s: N = %.0f "
	    "weights of %g bytes, L = %.0f, d = %.0f, %s, B = %.0f, "
	    "P = %.0f, T = %.0f); time from %s%s%s; DRAM bandwidth from "
	    "%s", p->ipath, lp_sb_str(&name), m->params, m->dtype_bytes,
	    m->layers, m->hidden, lp_sb_str(&h), m->batch, m->prompt,
	    m->decode, p->spath, p->tpath ? " and " : "",
	    p->tpath ? p->tpath : "", p->gpath);
	lp_sb_free(&h);
	lp_sb_free(&name);
}

/* The cells after the bytes: time per token, achieved, MBU, steady state
 * and its MBU; decode_all's (all) per token over its decode steps.  Stops
 * where a cell cannot be computed; the caller pads with n/a. */
static void
time_cells(struct lp_row *r, const struct lp_perf *p, const struct need *nd,
    const struct lp_stagerow *s, const struct lp_stagerow *ds, int all)
{
	double per = 1, mean, steady = NAN, bw = p->pk.bw, bytes = nd->bytes;

	/* decode_all holds T steps: its time per token */
	if (all) {
		per = ds && ds->inst > 0 && s->inst > 0 ? ds->inst /
		    s->inst : p->m.decode;
	} else
		steady = s->steady;
	mean = per > 0 ? s->mean / per : NAN;
	if (!(mean > 0)) {
		lp_row_na(r, "the stage has no wall time (stages.tsv)");
		return;
	}
	lp_row_num(r, mean, 1);
	/* Above 100 % of DRAM bandwidth: the bytes are wrong (or the
	 * weights stay in L2, where MBU means nothing); said in the
	 * cell with what to check, never stated as a number */
	if (bw > 0 && bytes / (mean * 1e-9) > bw)
		lp_row_na(r, "above the GPU's DRAM bandwidth (%.4g B/s): "
		    "see MBU", bw);
	else
		lp_row_g(r, bytes / (mean * 1e-9));
	if (bw > 0)
		mbu(r, 100 * bytes / (mean * 1e-9) / bw, &p->m, p->ipath);
	else
		lp_row_na(r, "%s", p->pk.why);
	if (all)
		lp_row_na(r, "decode_all is one instance; see decode_step");
	else if (isnan(steady))
		lp_row_na(r, "no steady state in steps.tsv");
	else
		lp_row_num(r, steady, 1);
	if (!isnan(steady) && steady > 0 && bw > 0)
		mbu(r, 100 * bytes / (steady * 1e-9) / bw, &p->m, p->ipath);
	else if (!isnan(steady) && !(bw > 0))
		lp_row_na(r, "%s", p->pk.why);
}

/* A row for decode_step, then decode_all, when captured. */
static void
emit_rows(const struct lp_perf *p, const struct need *nd)
{
	const struct lp_stagerow *ds = lp_stagetab_get(p->rows, p->n,
	    "decode_step"), *da = lp_stagetab_get(p->rows, p->n, "decode_all");
	struct lp_row r = { 0 };
	int all;

	for (all = 0; all < 2; all++) {
		const struct lp_stagerow *s = all ? da : ds;

		if (!s)
			continue;
		lp_row_text(&r, s->stage);
		if (p->m.missing)
			lp_row_na(&r, "the model config lacks %s (MODEL=NAME)",
			    p->m.missing);
		else {
			lp_row_num(&r, nd->w, 0);
			lp_row_num(&r, nd->kv, 0);
			lp_row_num(&r, nd->bytes, 0);
			time_cells(&r, p, nd, s, ds, all);
		}
		lp_row_end_na(&r, NCOLS, out);
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	struct lp_perf p;
	struct need nd = { 0, 0, 0 };

	out = lp_perf_open(&p, argc, argv, synopsis, "MBU", "lp-mbu");
	if (!p.m.missing)
		nd.bytes = lp_model_step_bytes(&p.m, &nd.w, &nd.kv);
	p.pk.bw = lp_perf_share(&p, out, p.pk.bw, "bytes", "bandwidth");
	emit_source(&p);
	lp_tab_meta(out, "note", "Bytes per decoded token = weights N x b "
	    "+ KV cache 2 x L x B x d_kv x b_kv x (P + (T+1)/2), the mean "
	    "context over the T steps (d_kv = d x kv_heads / heads). MBU = "
	    "bytes / (time per token x bandwidth). Per token: a decode_step "
	    "instance, or decode_all's time / its decode steps.");
	lp_perf_missing(&p, out, "MBU", p.pk.bw);
	lp_tab_header(out, cols, NCOLS);
	emit_rows(&p, &nd);
	lp_perf_free(&p);
	lp_tab_done(out);
	return 0;
}
