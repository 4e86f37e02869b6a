/*
 * ranks.c: a stage's ranks read back from lp-ranks(1)'s table, and the
 * untraced step of lp-steps(1)'s, for the tools that judge or split a
 * multi-process step (lp-bound, lp-rankfall).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "run.h"

size_t
lp_ranks_load(const char *path, const char *stage, struct lp_rank **out)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-ranks");
	int cs, cp, cd, cm, ck, cc, cg, ca, cl;
	struct lp_rank *r = NULL;
	size_t n = 0;
	double m, k, c;

	lp_tab_expect(&t, "lp-ranks");
	cs = lp_csv_need(&t.hdr, "stage", "lp-ranks output");
	cp = lp_csv_need(&t.hdr, "pid", "lp-ranks output");
	cd = lp_csv_need(&t.hdr, "device", "lp-ranks output");
	cm = lp_csv_need(&t.hdr, "median_ns", "lp-ranks output");
	ck = lp_csv_need(&t.hdr, "kernel_ns", "lp-ranks output");
	cc = lp_csv_need(&t.hdr, "comm_ns", "lp-ranks output");
	cg = lp_csv_need(&t.hdr, "straggler", "lp-ranks output");
	ca = lp_csv_need(&t.hdr, "gap_ns", "lp-ranks output");
	cl = lp_csv_need(&t.hdr, "launches", "lp-ranks output");
	while (lp_tab_next(&t)) {
		if (strcmp(lp_tsv_get(&t, cs), stage) || !lp_tab_num(&t, cm, &m) ||
		    !lp_tab_num(&t, ck, &k) || !lp_tab_num(&t, cc, &c) || m <= 0)
			continue;
		r = lp_xreallocarray(r, n + 1, sizeof *r);
		r[n].pid = lp_xstrdup(lp_tsv_get(&t, cp));
		r[n].device = lp_xstrdup(lp_tsv_get(&t, cd));
		r[n].step = m;
		r[n].comm = c;
		r[n].compute = k - c;
		r[n].idle = m > k ? m - k : 0;
		r[n].straggler = !strcmp(lp_tsv_get(&t, cg), "yes");
		if (!lp_tab_num(&t, ca, &r[n].gap))
			r[n].gap = 0;
		if (!lp_tab_num(&t, cl, &r[n].launches))
			r[n].launches = 0;
		n++;
	}
	lp_tsv_close(&t);
	fclose(fp);
	*out = r;
	return n;
}

int
lp_straggler_more_work(double compute, double fast_compute, double gap,
    double launches, double fast_launches)
{
	return compute - fast_compute >= gap / 4 ||
	    launches >= 1.2 * fast_launches;
}

void
lp_ranks_free(struct lp_rank *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].pid);
		free(r[i].device);
	}
	free(r);
}

double
lp_steps_untraced(const char *path, const char *stage)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-steps");
	const char *tm = lp_tsv_comment(&t, "timing");
	int cs, cv;
	double v = NAN, x;

	lp_tab_expect(&t, "lp-steps");
	cs = lp_csv_need(&t.hdr, "stage", "lp-steps output");
	cv = lp_csv_need(&t.hdr, "steady_ns", "lp-steps output");
	while (tm && !strcmp(tm, "untraced") && lp_tab_next(&t))
		if (!strcmp(lp_tsv_get(&t, cs), stage) && lp_tab_num(&t, cv, &x) &&
		    x > 0)
			v = x;
	lp_tsv_close(&t);
	fclose(fp);
	return v;
}

void
lp_ranks_untraced(struct lp_rank *r, size_t n, double step)
{
	size_t i;
	double rest, wait;

	for (i = 0; i < n; i++) {
		/* Kernels keep their measured durations (the tracer's cost is
		 * on the host); what the untraced step has beyond them is
		 * split between collectives and GPU idle as the capture split
		 * its own rest.  Kernels longer than the untraced step (a
		 * tracer that stretches kernels) are scaled down to it. */
		wait = r[i].comm + r[i].idle;
		if (r[i].compute >= step) {
			r[i].compute = step;
			r[i].comm = r[i].idle = 0;
		} else {
			rest = step - r[i].compute;
			r[i].comm = wait > 0 ? rest * r[i].comm / wait : 0;
			/* (a rounding residue below 0 where comm is all of
			 * it: lp-brief refuses a negative share) */
			r[i].idle = rest > r[i].comm ? rest - r[i].comm : 0;
		}
		r[i].step = step;
	}
}
