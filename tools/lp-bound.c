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
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-bound -c config.yaml waterfall.tsv";

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

static void
emit(FILE *out, const char *wpath, const struct step *s, long pct)
{
	static const struct lp_col cols[] = {
		{ "kind", "Part", "text" },
		{ "ns", "Per step (ms)", "ms" },
		{ "pct", "Share of the step", "pct" },
	};
	struct lp_row r = { { 0 }, 0 };
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
	if (!ok)
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
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	const char *cpath = NULL, *stage, *col;
	struct lp_ynode *cfg;
	struct step s = { 0 };
	FILE *out;
	long pct;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = getopt(argc, argv, "c:h")) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return LP_EXIT_OK;
		default: lp_usage(synopsis);
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
	emit(out, argv[optind], &s, pct);
	free(s.why);
	lp_yaml_free(cfg);
	lp_tab_done(out);
	return 0;
}
