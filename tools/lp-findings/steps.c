/*
 * steps.c: a finding's saving per step. A decode stage's saving is spread
 * over its decode steps (decode_step's instances), another stage's over
 * its instances (a prefill call); a one-time cost (warm-up, a cold call,
 * module loading) is paid once, not per step.  A step is the steady one,
 * as the brief's key number and the waterfall give it: the median
 * instance after the first (steps.tsv), not the mean, which a few slow
 * instances pull above it (the held-out run: 129.410 ms of savings a step
 * beside a steady step of 119.825 ms).  So a host finding (GPU idle time)
 * saves its share of its stage's idle time in the steady step's idle
 * time, the step less its kernel time; a kernel finding saves GPU time,
 * its stage's over its steps, as the waterfall's kernel time per step is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "find.h"

/* The row of stages.tsv for a stage named by its name or its range. */
static long
stage_row(const struct tab *st, const char *s)
{
	long i = row_of(st, "stage", s);

	return i >= 0 ? i : row_of(st, "range", s);
}

/* The steady step's idle GPU time (ns): its median instance after the
 * first (steps.tsv) less its kernel time per instance, hostside.tsv's
 * steady instances' where it has them, else stages.tsv's (the waterfall's
 * GPU idle); NAN where steps.tsv has no steady state for it. */
static double
steady_idle(const struct tab *st, const struct tab *sp, const struct tab *hs,
    const char *name)
{
	struct lp_sb key = { 0 };
	long i = row_of(st, "stage", name), j = row_of(sp, "stage", name), h;
	double k, m;

	if (i < 0 || j < 0 || isnan(m = cell(sp, (size_t)j, "steady_ns")))
		return NAN;
	lp_sb_printf(&key, "%s:steady", name);
	h = row_of(hs, "stage", lp_sb_str(&key));
	lp_sb_free(&key);
	k = h >= 0 ? cell(hs, (size_t)h, "kernel_per_inst_ns") : NAN;
	if (isnan(k))
		k = cell(st, (size_t)i, "kernel_ns") / cell(st, (size_t)i,
		    "instances");
	return m - k > 0 ? m - k : 0;
}

/* The steady step against the mean instance, for a saving spread evenly
 * over a stage's instances: its kernel time (kern) or wall time, so that
 * the saving per step is the steady step's share, as the key numbers take
 * the step (the median instance after the first); 1 where steps.tsv has
 * no steady state for it. */
static double
steady_scale(const struct tab *st, const struct tab *sp,
    const struct tab *hs, const char *name, int kern)
{
	struct lp_sb key = { 0 };
	long i = row_of(st, "stage", name), j = sp ? row_of(sp, "stage", name) :
	    -1, h;
	double a = NAN, m = NAN;

	if (i < 0 || j < 0)
		return 1;
	if (kern) {
		lp_sb_printf(&key, "%s:steady", name);
		h = hs ? row_of(hs, "stage", lp_sb_str(&key)) : -1;
		lp_sb_free(&key);
		if (h >= 0) {
			a = cell(hs, (size_t)h, "kernel_per_inst_ns");
			m = cell(st, (size_t)i, "kernel_ns") / cell(st, (size_t)i,
			    "instances");
		}
	} else {
		a = cell(sp, (size_t)j, "steady_ns");
		m = cell(sp, (size_t)j, "mean_ns");
	}
	return isnan(a) || isnan(m) || m <= 0 ? 1 : a / m;
}

/* Two cells: the saving per step (ns) and what a step is ("decode step",
 * "prefill call", "once"), or why there is none. */
void
step_saving(struct lp_row *r, const struct tab *st, const struct tab *sp,
    const struct tab *hs, const struct f *x)
{
	struct lp_sb b = { 0 };
	long i, d;
	double n, procs, idle;
	const char *name;

	if (isnan(x->save) || x->once || !x->stage || !st ||
	    (i = stage_row(st, x->stage)) < 0) {
		lp_row_na(r, "%s", isnan(x->save) ? "this finding is not a time" :
		    x->once ? "a one-time cost, paid once, not per step" :
		    !x->stage ? "the saving is not one stage's" :
		    "no stages.tsv row for its stage");
		lp_row_text(r, x->once && !isnan(x->save) ? "once" : "-");
		return;
	}
	name = text(st, (size_t)i, "stage");
	d = row_of(st, "stage", "decode_step");
	/* the decode loop and its step, as lp's stages name them */
	if ((!strcmp(name, "decode_all") || !strcmp(name, "decode_step")) &&
	    d >= 0) {
		n = cell(st, (size_t)d, "instances");
		name = "decode_step";
		lp_sb_adds(&b, "decode step");
	} else {
		n = cell(st, (size_t)i, "instances");
		lp_sb_printf(&b, "%s call", name);
	}
	/* a kernel table holds one process: its steps are one process's */
	procs = lp_tsv_comment(&st->t, "processes") ?
	    atof(lp_tsv_comment(&st->t, "processes")) : 1;
	if (x->rank && procs > 1)
		n /= procs;
	/* a share of the idle time, in the steady step's; its only
	 * instance is a stage's steady step where it has no other */
	if (x->pool > 0 && n >= 1 && !isnan(idle = steady_idle(st, sp, hs,
	    name)))
		lp_row_num(r, (x->save > 0 ? x->save : 0) / x->pool * idle, 0);
	else if (n >= 1)
		lp_row_num(r, (x->save > 0 ? x->save : 0) / n * steady_scale(st,
		    sp, hs, name, x->rank), 0);
	else
		lp_row_na(r, "no instances of %s in stages.tsv", name);
	lp_row_text(r, lp_sb_str(&b));
	lp_sb_free(&b);
}

/* Where a sentence's first clause ends, outside a code span (a fence of
 * n backticks opens or closes one): at a ": " or, with any, also at "; ",
 * ". ", ", " or " (". */
static const char *
clause_end(const char *s, int any)
{
	size_t fence = 0, n;

	for (; *s; s++) {
		if (*s == '`') {
			for (n = 0; s[n] == '`'; n++)
				;
			fence = !fence ? n : n == fence ? 0 : fence;
			s += n - 1;
			continue;
		}
		if (fence)
			continue;
		if (s[0] == ':' && s[1] == ' ')
			break;
		if (any && ((s[1] == ' ' && strchr(";.,", s[0])) ||
		    (s[0] == ' ' && s[1] == '(')))
			break;
	}
	return s;
}

/* A finding's headline: its first clause, up to a ": " outside a code span
 * (what follows says why, and stays in the finding), with a full stop. */
void
step_headline(struct lp_sb *b, const char *finding)
{
	const char *p = clause_end(finding, 0);

	lp_sb_reset(b);
	lp_sb_addn(b, finding, (size_t)(p - finding));
	if (*p)
		lp_sb_addc(b, '.');
}

/* The next step's first clause: what to do, before how and why. */
void
step_first_clause(struct lp_sb *b, const char *next)
{
	const char *p = clause_end(next, 1);

	lp_sb_reset(b);
	lp_sb_addn(b, next, (size_t)(p - next));
	if (b->len && b->s[b->len - 1] != '.')
		lp_sb_addc(b, '.');
}
