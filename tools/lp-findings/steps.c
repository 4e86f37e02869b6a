/*
 * steps.c: a finding's saving per step. A decode stage's saving is spread
 * over its decode steps (decode_step's instances), another stage's over
 * its instances (a prefill call); a one-time cost (warm-up, a cold call,
 * module loading) is paid once, not per step.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "find.h"

void
at_stage(struct f *x, const char *stage, int once)
{
	free(x->stage);
	x->stage = stage ? lp_xstrdup(stage) : NULL;
	x->once = once;
}

/* The row of stages.tsv for a stage named by its name or its range. */
static long
stage_row(const struct tab *st, const char *s)
{
	long i = row_of(st, "stage", s);

	return i >= 0 ? i : row_of(st, "range", s);
}

/* Two cells: the saving per step (ns) and what a step is ("decode step",
 * "prefill call", "once"), or why there is none. */
void
per_step(struct lp_row *r, const struct tab *st, const struct f *x)
{
	struct lp_sb b = { 0 };
	long i, d;
	double n, procs;
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
	if (n >= 1)
		lp_row_num(r, (x->save > 0 ? x->save : 0) / n, 0);
	else
		lp_row_na(r, "no instances of %s in stages.tsv", name);
	lp_row_text(r, lp_sb_str(&b));
	lp_sb_free(&b);
}

/* A finding's headline: its first clause, up to a ": " outside a code span
 * (what follows says why, and stays in the finding), with a full stop. */
void
headline(struct lp_sb *b, const char *finding)
{
	const char *p = finding;
	size_t fence = 0, n;

	while (*p) {
		if (*p == '`') {	/* a fence of n backticks opens or closes */
			for (n = 0; p[n] == '`'; n++)
				;
			fence = !fence ? n : n == fence ? 0 : fence;
			p += n;
			continue;
		}
		if (!fence && p[0] == ':' && p[1] == ' ')
			break;
		p++;
	}
	lp_sb_reset(b);
	lp_sb_addn(b, finding, (size_t)(p - finding));
	if (*p)
		lp_sb_addc(b, '.');
}
