/*
 * lp-bound: bound.tsv, what bounds the brief's step, from the step's own
 * parts.  It sums the parts of one column of lp-waterfall's table (the
 * run's stage's step: decode_step for decode_all, or the stage itself)
 * by kind: kernels (the floor and the kernels above it), communication
 * kernels, and the GPU's idle time; each kind's share of the step names
 * the bound when it reaches brief.bound_pct (conf/runner/stage2.yaml):
 * GPU-bound, communication-bound, host-bound; where none does, the step
 * is mixed.  The capture's overhead is not a part (lp-waterfall(1)), so
 * it bounds nothing here.  A step the waterfall has no numbers for gets
 * "n/a because" and the waterfall's reason: lp-brief then judges by GPU
 * busy against the same share.
 *
 * A step run by several processes (ranks), which the waterfall does not
 * split, is judged per rank from -r ranks.tsv (lp-ranks): each rank's
 * step (its median instance) as communication, other kernels and the
 * rest (the GPU idle); communication-bound where every rank spends
 * bound_pct % of its step in collectives, straggler-bound where some do
 * and lp-ranks' straggler does not (the others wait for it), else the
 * single-step rule over the ranks' mean shares.  The title then names
 * the GPUs ("2 x NVIDIA H200").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-bound -c config.yaml [-r ranks.tsv "
    "[-t steps.tsv]] waterfall.tsv";

enum { K_KERN, K_COMM, K_IDLE, NK };
static const char *const kname[NK] = { "kernels", "communication", "idle" };
static const char *const kword[NK] = { "GPU-bound", "communication-bound",
	"host-bound" };

struct step {
	const char *stage;	/* the waterfall column's stage */
	double step;		/* NAN: none */
	double part[NK];
	char *why;		/* why the column has no numbers, or NULL */
};

/* One rank's part of kind k (lp_ranks_load's row for the step's stage). */
static double
part(const struct lp_rank *r, int k)
{
	return k == K_COMM ? r->comm : k == K_KERN ? r->compute : r->idle;
}

/* The waterfall column the run's stage is measured by. */
static const char *
column_of(const char *stage)
{
	if (!strcmp(stage, "decode_all") || !strcmp(stage, "decode_step"))
		return "decode_step";
	if (!strcmp(stage, "prefill"))
		return "prefill";
	return NULL;
}

static void
add_part(struct step *s, const char *path, long line, const char *kind,
    double v)
{
	size_t k;

	if (!strcmp(kind, "step")) {
		s->step = v;
		return;
	}
	if (!strcmp(kind, "floor")) {	/* kernels' own minimum */
		s->part[K_KERN] += v;
		return;
	}
	for (k = 0; k < NK; k++)
		if (!strcmp(kind, kname[k])) {
			s->part[k] += v;
			return;
		}
	lp_die_at(LP_EXIT_DATA, path, line, 0, "kind \"%s\": not step, "
	    "floor, kernels, communication or idle", kind);
}

static void
load(const char *path, struct step *s)
{
	struct lp_tsv t;
	struct lp_sb col = { 0 };
	FILE *fp = lp_tab_open(&t, path, "lp-waterfall");
	int ck, cv;
	double v;

	lp_tab_expect(&t, "lp-waterfall");
	ck = lp_csv_need(&t.hdr, "kind", "lp-waterfall output");
	lp_sb_printf(&col, "%s_ns", s->stage);
	cv = lp_csv_need(&t.hdr, lp_sb_str(&col), "lp-waterfall output");
	while (lp_tab_next(&t)) {
		const char *c = lp_tsv_get(&t, cv);

		if (!strncmp(c, "n/a", 3)) {
			if (!s->why)
				s->why = lp_xstrdup(c);
			continue;
		}
		if (!strcmp(c, "-"))	/* not a part of this stage's */
			continue;
		if (!lp_tab_num(&t, cv, &v))
			lp_die_at(LP_EXIT_DATA, path, t.line, cv + 1, "%s: "
			    "not a number", lp_sb_str(&col));
		add_part(s, path, t.line, lp_tsv_get(&t, ck), v);
	}
	lp_tsv_close(&t);
	fclose(fp);
	lp_sb_free(&col);
	if (isnan(s->step) && !s->why)
		s->why = lp_xstrdup("n/a because the waterfall has no measured "
		    "step for it");
}

/* "2 x NVIDIA H200": the ranks' GPUs, their index "(N)" left out, where
 * all are one model; else each named. */
static void
gpus(struct lp_sb *b, const struct lp_rank *r, size_t n)
{
	size_t i, l0 = strcspn(r[0].device, "(");
	int same = 1;

	while (l0 > 0 && r[0].device[l0 - 1] == ' ')
		l0--;
	for (i = 1; i < n; i++)
		same &= !strncmp(r[i].device, r[0].device, l0) &&
		    (r[i].device[l0] == ' ' || !r[i].device[l0]);
	if (same)
		lp_sb_printf(b, "%zu x %.*s", n, (int)l0, r[0].device);
	else
		for (i = 0; i < n; i++)
			lp_sb_printf(b, "%s%s", i ? ", " : "", r[i].device);
}

/* The straggler r[slow] of n ranks, whom the others wait for: why (its
 * cause, in a clause) and the detail of its step against theirs (top: the
 * rank with the largest share in collectives). */
static void
straggler(const struct lp_rank *r, size_t n, size_t slow, size_t top,
    struct lp_sb *why, struct lp_sb *detail)
{
	double kern = 100 * part(&r[slow], K_KERN) / r[slow].step;
	double idle = 100 * part(&r[slow], K_IDLE) / r[slow].step;
	double others = 0;
	size_t i, f = slow;	/* the fastest rank: no gap */

	for (i = 0; i < n; i++) {
		if (i != slow)
			others += 100 * part(&r[i], K_KERN) / r[i].step /
			    (double)(n - 1);
		if (r[i].gap == 0)
			f = i;
	}
	/* its cause, by lp-findings' rule: more work on its GPU than
	 * the fastest rank's, else its host */
	lp_sb_printf(why, "ranks wait for process %s's %s", r[slow].pid,
	    lp_straggler_more_work(r[slow].compute, r[f].compute,
	    r[slow].gap, r[slow].launches, r[f].launches) ? "kernels" :
	    "host");
	lp_sb_printf(detail, "The straggler, process %s on %s: its own "
	    "step is %.1f%% kernels "
	    "other than communication (%.1f%% on the others), %.1f%% "
	    "communication, %.1f%% GPU idle; process %s spends %.1f%% "
	    "of its step in collectives.", r[slow].pid, r[slow].device,
	    kern, others, 100 * part(&r[slow], K_COMM) / r[slow].step,
	    idle, r[top].pid, 100 * part(&r[top], K_COMM) /
	    r[top].step);
}

/* The verdict of a step run by several ranks, and why, in a clause. */
static const char *
ranks_verdict(const struct lp_rank *r, size_t n, long pct, struct lp_sb *why,
    struct lp_sb *detail)
{
	size_t i, k, many = 0, top = 0, slow = n;
	double mean[NK] = { 0 }, t = (double)pct;
	int any_slow_comm = 0;

	for (i = 0; i < n; i++) {
		if (100 * part(&r[i], K_COMM) / r[i].step >= t)
			many++;
		if (part(&r[i], K_COMM) / r[i].step > part(&r[top], K_COMM) /
		    r[top].step)
			top = i;
		if (r[i].straggler) {
			slow = i;
			any_slow_comm = 100 * part(&r[i], K_COMM) / r[i].step >= t;
		}
		for (k = 0; k < NK; k++)
			mean[k] += 100 * part(&r[i], k) / r[i].step / (double)n;
	}
	if (many == n) {
		lp_sb_adds(why, "every rank spends ");
		for (i = 0; i < n; i++)
			lp_sb_printf(why, "%s%.1f%%", i ? ", " : "", 100 *
			    part(&r[i], K_COMM) / r[i].step);
		lp_sb_adds(why, " of its step in collectives");
		return "communication-bound";
	}
	if (many && slow < n && !any_slow_comm) {
		straggler(r, n, slow, top, why, detail);
		return "straggler-bound";
	}
	for (k = 0, top = 0; k < NK; k++)
		if (mean[k] > mean[top])
			top = k;
	lp_sb_printf(why, "the ranks' steps are on average %.1f%% kernels, "
	    "%.1f%% communication, %.1f%% GPU idle", mean[K_KERN],
	    mean[K_COMM], mean[K_IDLE]);
	return mean[top] >= t ? kword[top] : "mixed";
}

/* The table's rows: a row a kind for the step (ok: it has numbers), then
 * one a kind for each of the nr ranks (0: the step not judged per rank). */
static void
emit_rows(FILE *out, const struct step *s, int ok, const struct lp_rank *rk,
    size_t nr)
{
	struct lp_row r = { { 0 }, 0 };
	size_t i, k;

	for (k = 0; k < NK; k++) {
		lp_row_text(&r, kname[k]);
		if (ok) {
			lp_row_num(&r, s->part[k], 1);
			lp_row_g(&r, 100 * s->part[k] / s->step);
		} else {
			lp_row_na(&r, "%s", s->why ? s->why + (strncmp(s->why,
			    "n/a because ", 12) ? 0 : 12) : "no step");
			lp_row_text(&r, "n/a");
		}
		lp_row_text(&r, "-");
		lp_row_end(&r, out);
	}
	for (i = 0; i < nr; i++)
		for (k = 0; k < NK; k++) {
			lp_row_text(&r, kname[k]);
			lp_row_num(&r, part(&rk[i], k), 1);
			lp_row_g(&r, 100 * part(&rk[i], k) / rk[i].step);
			lp_row_text(&r, rk[i].pid);
			lp_row_end(&r, out);
		}
	lp_sb_free(&r.b);
}

static void
emit(FILE *out, const char *wpath, const struct step *s, long pct,
    const struct lp_rank *rk, size_t nr, const char *rpath, int untraced)
{
	struct lp_sb why = { 0 }, g = { 0 }, det = { 0 };
	const char *rv = NULL;
	static const struct lp_col cols[] = {
		{ "kind", "Part", "text" },
		{ "ns", "Per step (ms)", "ms" },
		{ "pct", "Share of the step", "pct" },
		{ "process", "Process", "text" },
	};
	size_t k, top = 0;
	int ok = !s->why && s->step > 0;

	for (k = 1; ok && k < NK; k++)
		if (s->part[k] > s->part[top])
			top = k;
	lp_tab_meta(out, "title", "What Bounds the Step");
	lp_tab_meta(out, "tool", "lp-bound");
	lp_tab_meta(out, "source", "the parts of %s's %s column (lp-waterfall), "
	    "summed by kind: kernels are its floor and the kernels above it",
	    wpath, s->stage);
	lp_tab_meta(out, "step", "%s", s->stage);
	lp_tab_meta(out, "bound_pct", "%ld", pct);
	if (!ok && nr > 1) {	/* several ranks: judged per rank */
		rv = ranks_verdict(rk, nr, pct, &why, &det);
		gpus(&g, rk, nr);
		lp_tab_meta(out, "verdict", "%s", rv);
		lp_tab_meta(out, "gpus", "%s", lp_sb_str(&g));
		lp_tab_meta(out, "why", "%s", lp_sb_str(&why));
		lp_tab_meta(out, "note", "Several ranks: each rank's step is "
		    "%s; its parts are communication, its other kernels (%s) "
		    "and the GPU idle; the rows after the first three are each "
		    "rank's.%s%s", untraced ? "the untraced step (steps.tsv, the "
		    "workload's own), its kernels as the capture timed them, the "
		    "rest split between communication and GPU idle as the "
		    "capture split it" : "its median "
		    "instance in the traced capture (its overhead included)",
		    rpath, det.len ? " " : "", lp_sb_str(&det));
	} else if (!ok)
		lp_tab_meta(out, "verdict", "%s", s->why ? s->why :
		    "n/a because the step is not longer than zero");
	else if (100 * s->part[top] / s->step >= (double)pct)
		lp_tab_meta(out, "verdict", "%s", kword[top]);
	else
		lp_tab_meta(out, "verdict", "mixed");
	lp_tab_meta(out, "note", "A kind that takes at least %ld %% of the "
	    "step names the bound (brief.bound_pct); where none does, the "
	    "step is mixed.", pct);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	emit_rows(out, s, ok, rk, rv ? nr : 0);
	lp_sb_free(&why);
	lp_sb_free(&g);
	lp_sb_free(&det);
}

int
main(int argc, char **argv)
{
	const char *cpath = NULL, *rpath = NULL, *tpath = NULL, *stage, *col;
	double ut = NAN;
	struct lp_rank *rk = NULL;
	size_t nr = 0;
	struct lp_ynode *cfg;
	struct step s = { 0 };
	FILE *out;
	long pct;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "c:r:t:", synopsis)) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'r': rpath = optarg; break;
		case 't': tpath = optarg; break;
		}
	}
	if (!cpath || argc - optind != 1)
		lp_usage(synopsis);
	cfg = lp_yaml_load_path(cpath);
	stage = lp_cfg_word(cfg, "run.stage", NULL, cpath);
	pct = lp_cfg_long(cfg, "brief.bound_pct", 60, 51, 100, cpath);
	s.step = NAN;
	col = column_of(stage);
	s.stage = col ? col : stage;
	if (!col)
		s.why = lp_xstrdup("n/a because the waterfall measures "
		    "decode_step and prefill, not this stage");
	out = lp_tab_out();
	if (col)
		load(argv[optind], &s);
	if (rpath && col)
		nr = lp_ranks_load(rpath, s.stage, &rk);
	if (nr > 1 && tpath && !isnan(ut = lp_steps_untraced(tpath, s.stage)))
		lp_ranks_untraced(rk, nr, ut);
	emit(out, argv[optind], &s, pct, rk, nr, rpath, !isnan(ut));
	lp_ranks_free(rk, nr);
	free(s.why);
	lp_yaml_free(cfg);
	lp_tab_done(out);
	return 0;
}
