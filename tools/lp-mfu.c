/*
 * lp-mfu: mfu.tsv, model FLOPs utilisation per stage: the FLOPs the model
 * must do (inputs.yaml) over the measured time, against the dense peak of
 * the model's dtype on this GPU (gpu.tsv).  Given for the mean instance
 * (stages.tsv, warm-up included), the steady state (steps.tsv) and the
 * kernel time alone.
 */
#include <math.h>
#include <string.h>

#include "util.h"
#include "esc.h"
#include "prec.h"
#include "table.h"
#include "run.h"

static const char synopsis[] =
    "lp-mfu -g gpu.tsv -i inputs.yaml -s stages.tsv [-t steps.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static const struct lp_col cols[] = {
	{ "stage", "Stage", "text" },
	{ "model_flop", "Model FLOPs (per instance)", "flop" },
	{ "wall_mean_ns", "Mean wall (ms)", "ms" },
	{ "flop_per_s", "Achieved", "flops" },
	{ "mfu_pct", "MFU (mean)", "pct" },
	{ "steady_ns", "Steady state (ms)", "ms" },
	{ "mfu_steady_pct", "MFU (steady)", "pct" },
	{ "kernel_per_inst_ns", "Kernel time / instance (ms)", "ms" },
	{ "mfu_kernel_pct", "MFU over kernel time", "pct" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

static const char *nopeak;	/* why there is no peak, if there is none */
static const char *noflop;	/* why the stage has no FLOPs, if it has none */
static const struct lp_model *model;
static const char *ipath;

/* Above 100 % the model's FLOPs or the peak are wrong, not the GPU fast:
 * said so in the cell, with what to check, never stated as a number. */
static void
mfu(struct lp_row *r, double flop, double ns, double peak, const char *why)
{
	if (!(peak > 0))
		lp_row_na(r, "%s", nopeak);
	else if (noflop)
		lp_row_na(r, "%s", noflop);
	else if (!(ns > 0))
		lp_row_na(r, "%s", why);
	else
		lp_row_pct(r, 100 * flop / (ns * 1e-9) / peak, 100, "MFU",
		    "the model FLOPs are too many for the time: model.params "
		    "(%.0f), layers, hidden, batch or the token counts in %s "
		    "look wrong, or gpu.tsv's peak is too low", model->params,
		    ipath);
}

static void
emit_source(const struct lp_perf *p, int fp)
{
	const struct lp_model *m = &p->m;
	struct lp_sb name = { 0 };

	lp_md_name(&name, m->name ? m->name : "?");
	if (m->missing)	/* no number stands in for a key it lacks */
		lp_tab_meta(out, "source", "model FLOPs: n/a because the model "
		    "config (%s, model %s) lacks %s; time from %s%s%s; peak from "
		    "%s", p->ipath, lp_sb_str(&name), m->missing, p->spath,
		    p->tpath ? " and " : "", p->tpath ? p->tpath : "", p->gpath);
	else
		lp_tab_meta(out, "source", "model FLOPs from %s (model %s: N = "
		    "%.0f matmul weights, L = %.0f, d = %.0f, B = %.0f, P = %.0f, "
		    "T = %.0f, %s); time from %s%s%s; peak %s from %s", p->ipath,
		    lp_sb_str(&name), m->params, m->layers, m->hidden,
		    m->batch, m->prompt, m->decode, m->dtype, p->spath,
		    p->tpath ? " and " : "", p->tpath ? p->tpath : "",
		    fp >= 0 ? lp_fp_label(fp) : "?", p->gpath);
	lp_tab_meta(out, "note", "FLOPs: prefill %s; "
	    "decode_all B(2NT + 4Ld(PT + T(T-1)/2)); decode_step = decode_all "
	    "/ T. MFU = FLOPs / (time x peak). Steady state: the median "
	    "instance after the first (steps.tsv).", m->logits_last ?
	    "B(2(N - Vd)P + 2Vd + 2LdP^2) (LM head, V = vocab, for the last "
	    "prompt token only: prefill_logits: last)" : "B(2NP + 2LdP^2)");
	lp_sb_free(&name);
}

/* The FLOPs of decode_step are decode_all's over the model's decode
 * tokens: a capture with another count of steps makes them wrong. */
static void
check_decode_tokens(const struct lp_perf *p)
{
	const struct lp_stagerow *ds = lp_stagetab_get(p->rows, p->n,
	    "decode_step"), *da = lp_stagetab_get(p->rows, p->n, "decode_all");
	double t = p->m.decode;

	if (ds && da && ds->inst > 0 && da->inst > 0 && t > 0 &&
	    fabs(ds->inst / da->inst - t) > 0.5)
		lp_tab_meta(out, "note", "The model config says %.0f "
		    "decode tokens, but the capture has %.4g decode_step "
		    "instances per decode_all: set decode_tokens in the "
		    "model config to the run's, or these FLOPs are off.",
		    t, ds->inst / da->inst);
}

/* The cells after the stage's name, for a model config with every key. */
static void
stage_cells(struct lp_row *r, const char *stage, const struct lp_stagerow *s,
    double peak)
{
	double f = lp_model_flops(model, stage);

	/* a stage the capture ran, with no work in the model config
	 * (decode_tokens: 0): its MFU is unknown, not 0 */
	noflop = NULL;
	if (!(f > 0))
		noflop = strcmp(stage, "prefill") ? "the model config "
		    "says decode_tokens: 0, yet the capture has this "
		    "stage" : "the model config says prompt_tokens: 0, "
		    "yet the capture has a prefill";
	if (noflop)
		lp_row_na(r, "%s", noflop);
	else
		lp_row_num(r, f, 0);
	if (isnan(s->mean))
		lp_row_na(r, "the stage has no wall time (stages.tsv)");
	else
		lp_row_num(r, s->mean, 1);
	if (noflop)
		lp_row_na(r, "%s", noflop);
	else if (s->mean > 0 && peak > 0 && f / (s->mean * 1e-9) > peak)
		lp_row_na(r, "above the GPU's peak (%.4g FLOP/s): see MFU", peak);
	else if (s->mean > 0)
		lp_row_g(r, f / (s->mean * 1e-9));
	else
		lp_row_text(r, "n/a");
	mfu(r, f, s->mean, peak, "the stage has no wall time");
	if (isnan(s->steady))
		lp_row_na(r, "%s", s->inst > 1 ? "no steady state in "
		    "steps.tsv" : "one instance");
	else
		lp_row_num(r, s->steady, 1);
	mfu(r, f, s->steady, peak, "no steady state");
	if (s->kernel > 0 && s->inst > 0) {
		lp_row_num(r, s->kernel / s->inst, 1);
		mfu(r, f, s->kernel / s->inst, peak, "no kernel time");
	} else
		lp_row_na(r, "no kernel time in stages.tsv");
}

/* A row for each stage the model's FLOPs are known for, when captured. */
static void
emit_rows(const struct lp_perf *p, double peak)
{
	static const char *const known[] = { "prefill", "decode_all",
		"decode_step" };
	struct lp_row r = { 0 };
	size_t i;

	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		const struct lp_stagerow *s = lp_stagetab_get(p->rows, p->n,
		    known[i]);

		if (!s)
			continue;
		lp_row_text(&r, known[i]);
		if (p->m.missing)
			lp_row_na(&r, "the model config lacks %s (MODEL=NAME)",
			    p->m.missing);
		else
			stage_cells(&r, known[i], s, peak);
		lp_row_end_na(&r, NCOLS, out);
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	struct lp_perf p;
	double peak;
	int fp;

	out = lp_perf_open(&p, argc, argv, synopsis, "MFU", "lp-mfu");
	model = &p.m;
	ipath = p.ipath;
	fp = lp_fp_of_dtype(p.m.dtype);
	nopeak = p.pk.why;
	peak = lp_perf_share(&p, out, lp_peak_of(&p.pk, fp), "work", "peak");
	emit_source(&p, fp);
	check_decode_tokens(&p);
	lp_perf_missing(&p, out, "MFU", peak);
	lp_tab_header(out, cols, NCOLS);
	emit_rows(&p, peak);
	lp_perf_free(&p);
	lp_tab_done(out);
	return 0;
}
