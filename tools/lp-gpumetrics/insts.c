/*
 * lp-gpumetrics' stages' instances: each stage's instances from
 * nvtx_gpu_proj_trace (their projection on the GPU), else from
 * nvtx_pushpop_trace (their host range), by start.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "gpumetrics.h"

/* ---- the stages' instances ---- */

static void
add_inst(struct stage *g, double start, double dur, const char *pid)
{
	g->in = lp_grow(g->in, g->n, &g->cap, 16, sizeof *g->in);
	memset(&g->in[g->n], 0, sizeof g->in[g->n]);
	g->in[g->n].start = start;
	g->in[g->n].end = start + dur;
	g->in[g->n].pid = lp_xstrdup(pid);
	g->in[g->n].gpu = -1;
	g->n++;
}

struct rd {
	struct gm *gm;		/* the stages */
	int proj;		/* reading the projection */
};

static void
inst_row(const struct lp_rep_row *rr, void *ctx)
{
	struct rd *r = ctx;
	size_t i;

	for (i = 0; i < r->gm->nstg; i++) {
		struct stage *g = &r->gm->stg[i];

		/* host ranges only for a stage the projection lacks */
		if (!r->proj && g->proj)
			continue;
		if (lp_nvtx_range_match(g->range, rr->v[2]))
			add_inst(g, lp_rep_time(rr, 0), lp_rep_time(rr, 1),
			    lp_rep_pid(rr, 3));
	}
}

static int
empty_file(const char *p)
{
	struct stat sb;

	return p && strcmp(p, "-") && stat(p, &sb) == 0 &&
	    S_ISREG(sb.st_mode) && !sb.st_size;
}

/* By start, then end and process: instances at one time in an order of
 * their own, not the rows'. */
static int
by_start(const void *x, const void *y)
{
	const struct inst *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return strcmp(a->pid, b->pid);
}

void
insts_read(struct gm *gm, const char *ppath, const char *tpath)
{
	static const char *const pcols[] = { "Projected Start",
		"Projected Duration", "Name", "?PID" };
	static const char *const tcols[] = { "Start", "Duration", "Name",
		"?PID" };
	struct lp_map *seen = lp_map_new();
	struct stage *stg = gm->stg;
	struct rd r = { gm, 0 };
	size_t i, k;

	/* nsys stats writes an empty file for a report with no rows */
	if (ppath && !empty_file(ppath)) {
		r.proj = 1;
		lp_rep_file(ppath, "nsys stats --report nvtx_gpu_proj_trace",
		    pcols, 4, inst_row, &r);
		for (i = 0; i < gm->nstg; i++)
			stg[i].proj = stg[i].n > 0;
	}
	if (tpath) {
		r.proj = 0;
		lp_rep_file(tpath, "nsys stats --report nvtx_pushpop_trace",
		    tcols, 4, inst_row, &r);
	}
	for (i = 0; i < gm->nstg; i++) {
		struct stage *g = &stg[i];

		lp_qsort(g->in, g->n, sizeof *g->in, by_start);
		g->maxend = lp_xcalloc(g->n + 1, sizeof *g->maxend);
		for (k = 0; k < g->n; k++) {
			g->maxend[k] = k && g->maxend[k - 1] > g->in[k].end ?
			    g->maxend[k - 1] : g->in[k].end;
			/* the first of its process, in start order */
			g->in[k].first = lp_map_get(seen, g->in[k].pid, 0) == 0;
			lp_map_put(seen, g->in[k].pid, 1);
		}
		lp_map_free(seen);
		seen = lp_map_new();
	}
	lp_map_free(seen);
}
