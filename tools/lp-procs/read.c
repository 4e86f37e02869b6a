/*
 * lp-procs' reader: the processes of nvtx_kern_sum, the starts of their
 * ranges on the GPU (nvtx_gpu_proj_trace) and the devices of
 * cuda_gpu_trace operations there, or the kernels' duration signatures of
 * processes and GPUs.
 */
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "procs.h"

static void
span_add(struct spans *sp, struct lp_map *owners, const char *owner,
    const char *kernel, double lo, double hi)
{
	struct lp_sb k = { 0 };
	long i;

	if (lp_map_get(owners, owner, -1) < 0)
		lp_map_put(owners, owner, (long)lp_map_len(owners));
	lp_sb_printf(&k, "%s\037%s", owner, kernel);
	if ((i = lp_map_get(sp->idx, lp_sb_str(&k), -1)) < 0) {
		sp->s = lp_grow(sp->s, sp->n, &sp->cap, 64, sizeof *sp->s);
		i = (long)sp->n++;
		lp_map_put(sp->idx, lp_sb_str(&k), i);
		sp->s[i].owner = (size_t)lp_map_get(owners, owner, 0);
		sp->s[i].lo = lo;
		sp->s[i].hi = hi;
	} else {
		if (lo < sp->s[i].lo)
			sp->s[i].lo = lo;
		if (hi > sp->s[i].hi)
			sp->s[i].hi = hi;
	}
	lp_sb_free(&k);
}

static void
kern_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *pid = lp_rep_pid(rr, 2);

	lp_rep_time(rr, 0);	/* every row's numbers checked */
	lp_rep_count(rr, 1);
	if (lp_map_len(t->pids) >= MAX_PROCS && lp_map_get(t->pids, pid, -1) < 0)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1,
		    "more than %d processes", MAX_PROCS);
	if (lp_map_get(t->pids, pid, -1) < 0)
		lp_map_put(t->pids, pid, (long)lp_map_len(t->pids));
	t->minmax = rr->col[3] >= 0 && rr->col[4] >= 0 && rr->col[5] >= 0;
	/* every kernel of the process is in its row of no range or in the
	 * row of a range around it: the rows' Min and Max are its own */
	if (t->sig && t->minmax)
		span_add(&t->ps, t->pids, pid, rr->v[5], lp_rep_time(rr, 3),
		    lp_rep_time(rr, 4));
}

static void
proj_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *pid = lp_rep_pid(rr, 1);
	long k = lp_map_get(t->kept, pid, 0);
	double start = lp_rep_time(rr, 0);	/* every row checked */
	double ops = lp_rep_has(rr, 2) ? lp_rep_count(rr, 2) : 1;
	long proc = lp_map_get(t->pids, pid, -1);

	/* a process without kernels has no GPU to find */
	if (k >= MAX_STARTS || ops == 0 || proc < 0)
		return;
	lp_map_put(t->kept, pid, k + 1);
	t->s = lp_grow(t->s, t->n, &t->cap, 64, sizeof *t->s);
	t->s[t->n].t = start;
	t->s[t->n].proc = proc;
	t->s[t->n].dev = NULL;
	t->s[t->n].ndev = 0;
	t->n++;
}

static int
by_start(const void *x, const void *y)
{
	const struct start *a = x, *b = y;

	return a->t < b->t ? -1 : a->t > b->t;
}

static void
gpu_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	struct start key, *s;
	long d;
	size_t i;

	key.t = lp_rep_time(rr, 0);
	if (t->sig) {
		double dur;

		/* memory operations are not in nvtx_kern_sum */
		if (rr->col[2] < 0 || rr->col[3] < 0 ||
		    !strncmp(rr->v[3], "[CUDA ", 6))
			return;
		dur = lp_rep_time(rr, 2);
		span_add(&t->ds, t->devs, rr->v[1], rr->v[3], dur, dur);
		return;
	}
	s = bsearch(&key, t->s, t->n, sizeof *t->s, by_start);
	if (!s)
		return;
	if ((d = lp_map_get(t->devs, rr->v[1], -1)) < 0) {
		d = (long)lp_map_len(t->devs);
		lp_map_put(t->devs, rr->v[1], d);
	}
	/* every range that starts there */
	while (s > t->s && s[-1].t == key.t)
		s--;
	for (; s < t->s + t->n && s->t == key.t; s++) {
		for (i = 0; i < s->ndev && s->dev[i] != d; i++)
			;
		if (i < s->ndev)
			continue;
		s->dev = lp_xreallocarray(s->dev, s->ndev + 1, sizeof *s->dev);
		s->dev[s->ndev++] = d;
	}
}

static int
by_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/* The processes from nvtx_kern_sum; with cuda_gpu_trace, the starts of
 * their ranges on the GPU (nvtx_gpu_proj_trace) and the devices there, or
 * without it the kernels' duration signatures of processes and GPUs. */
void
load_reports(struct st *t, struct opts *o)
{
	static const char *const kcols[] = { "Total Time", "Kern Inst", "PID",
		"?Min", "?Max", "?Kernel Name" };
	static const char *const pcols[] = { "Projected Start", "PID",
		"?NumGPUOps" };
	static const char *const gcols[] = { "Start", "Device", "?Duration",
		"?Name" };

	t->pids = lp_map_new();
	t->kept = lp_map_new();
	t->devs = lp_map_new();
	t->ps.idx = lp_map_new();
	t->ds.idx = lp_map_new();
	/* nsys stats writes an empty file for a report with no rows
	 * ("PROCESSED (EMPTY RESULTS)"): no NVTX range had GPU work, as when
	 * the process that pushes the ranges launches nothing (the kernels
	 * ran in another process: lp-hostside's check says so) */
	if (o->gpath && strcmp(o->gpath, "-")) {
		struct stat sb;

		if (stat(o->gpath, &sb) == 0 && S_ISREG(sb.st_mode) && !sb.st_size) {
			t->proj_empty = 1;
			o->gpath = NULL;
		}
	}
	t->sig = !o->gpath && o->dpath;
	lp_rep_file(o->kpath, "nsys stats --report nvtx_kern_sum", kcols, 6,
	    kern_row, t);
	if (t->sig && !t->minmax)
		t->sig = 0;	/* an nvtx_kern_sum without Min and Max */
	if (o->gpath && o->dpath) {
		lp_rep_file(o->gpath, "nsys stats --report nvtx_gpu_proj_trace",
		    pcols, 3, proj_row, t);
		lp_qsort(t->s, t->n, sizeof *t->s, by_start);
		lp_rep_file(o->dpath, "nsys stats --report cuda_gpu_trace", gcols,
		    2, gpu_row, t);
	} else if (t->sig) {
		lp_rep_file(o->dpath, "nsys stats --report cuda_gpu_trace", gcols,
		    4, gpu_row, t);
		lp_qsort(t->ps.s, t->ps.n, sizeof *t->ps.s, by_span);
		lp_qsort(t->ds.s, t->ds.n, sizeof *t->ds.s, by_span);
	}
}
