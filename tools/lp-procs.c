/*
 * lp-procs: procs.tsv, the processes that ran kernels (nsys nvtx_kern_sum's
 * PIDs) and the GPU each ran on: the Device of the cuda_gpu_trace
 * operation that starts exactly where one of the process's ranges starts
 * on the GPU (nvtx_gpu_proj_trace): the one device that has an operation
 * at every such start, as with many GPUs another GPU's operation can
 * start at the same nanosecond as one range.  With -D, the process on that device
 * is the one ncu profiles ("# profiled:"), whose kernels alone the kernel
 * tables of a multi-GPU run show.  The traces are read here once, for
 * every table that needs a process's GPU.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lp.h"

static const char synopsis[] =
    "lp-procs [-D device] [-g nvtx_gpu_proj_trace.csv] [-t cuda_gpu_trace.csv] "
    "[nvtx_kern_sum.csv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

enum { MAX_STARTS = 64, MAX_PROCS = 4096 };

struct start {			/* a range's projected start, its GPUs */
	double t;
	long proc;		/* index in pids */
	long *dev;		/* index in devs of each Device with an */
	size_t ndev;		/* operation starting at t */
};

struct proc {
	char *pid;
	char *dev;		/* NULL if not known */
	const char *why;	/* why not */
};

struct st {
	struct lp_map *pids;	/* processes that ran kernels -> index */
	struct lp_map *kept;	/* starts kept per process */
	struct lp_map *devs;	/* Device names -> index */
	struct start *s;
	size_t n, cap;
};

static void
kern_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *pid = lp_rep_pid(rr, 2);

	lp_rep_time(rr, 0);	/* every row's numbers checked */
	lp_rep_count(rr, 1);
	if (lp_map_len(t->pids) >= MAX_PROCS && lp_map_get(t->pids, pid, 0) == 0)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1,
		    "more than %d processes", MAX_PROCS);
	if (lp_map_get(t->pids, pid, -1) < 0)
		lp_map_put(t->pids, pid, (long)lp_map_len(t->pids));
}

static void
proj_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *pid = lp_rep_pid(rr, 1);
	long k = lp_map_get(t->kept, pid, 0);
	long proc = lp_map_get(t->pids, pid, -1);
	double start = lp_rep_time(rr, 0);	/* every row checked */
	double ops = lp_rep_has(rr, 2) ? lp_rep_count(rr, 2) : 1;

	/* a process without kernels has no GPU to find */
	if (k >= MAX_STARTS || ops == 0 || proc < 0)
		return;
	lp_map_put(t->kept, pid, k + 1);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->s = lp_xreallocarray(t->s, t->cap, sizeof *t->s);
	}
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

/* The GPU each process ran on: the device with an operation at every
 * start of its ranges that has one (the GPU operations of one process
 * all on one device; several devices at one start narrowed by the
 * process's other starts).  One pass over the starts. */
static void
devices(const struct st *t, struct proc *p, size_t np)
{
	long **cand = lp_xcalloc(np + 1, sizeof *cand);
	size_t *ncand = lp_xcalloc(np + 1, sizeof *ncand);
	char *seen = lp_xcalloc(np + 1, 1);
	size_t i, j, k, m;

	for (i = 0; i < t->n; i++) {
		const struct start *s = &t->s[i];
		size_t q = (size_t)s->proc;

		if (!s->ndev)
			continue;
		if (!seen[q]) {
			seen[q] = 1;
			cand[q] = lp_xreallocarray(NULL, s->ndev, sizeof **cand);
			memcpy(cand[q], s->dev, s->ndev * sizeof **cand);
			ncand[q] = s->ndev;
			continue;
		}
		for (j = m = 0; j < ncand[q]; j++) {
			for (k = 0; k < s->ndev && s->dev[k] != cand[q][j]; k++)
				;
			if (k < s->ndev)
				cand[q][m++] = cand[q][j];
		}
		ncand[q] = m;
	}
	for (i = 0; i < np; i++) {
		if (!seen[i])
			p[i].why = "no range of the process starts at an "
			    "operation of cuda_gpu_trace";
		else if (ncand[i] == 0)
			p[i].why = "its ranges' GPU operations ran on several "
			    "devices";
		else if (ncand[i] > 1)
			p[i].why = "every start of its ranges has operations of "
			    "several devices";
		else
			p[i].dev = lp_xstrdup(lp_map_key(t->devs,
			    (size_t)cand[i][0]));
		free(cand[i]);
	}
	free(cand);
	free(ncand);
	free(seen);
}

/* Rows by GPU, then by PID as a number: the same order whichever
 * layout (one report, one per rank) the rows came from. */
static int
by_dev(const void *x, const void *y)
{
	const struct proc *a = x, *b = y;
	int c;

	if (!a->dev != !b->dev)
		return a->dev ? -1 : 1;
	if (a->dev && (c = strcmp(a->dev, b->dev)))
		return c;
	if (strlen(a->pid) != strlen(b->pid))
		return strlen(a->pid) < strlen(b->pid) ? -1 : 1;
	return strcmp(a->pid, b->pid);
}

/* Is dev "... (device)", as nsys names CUDA device N? */
static int
on_device(const char *dev, long device)
{
	struct lp_sb b = { 0 };
	size_t l = dev ? strlen(dev) : 0, len;
	int yes;

	lp_sb_printf(&b, "(%ld)", device);
	len = strlen(lp_sb_str(&b));
	yes = dev && l >= len && !strcmp(dev + l - len, lp_sb_str(&b));
	lp_sb_free(&b);
	return yes;
}

int
main(int argc, char **argv)
{
	static const char *const kcols[] = { "Total Time", "Kern Inst", "PID" };
	static const char *const pcols[] = { "Projected Start", "PID",
		"?NumGPUOps" };
	static const char *const gcols[] = { "Start", "Device" };
	static const struct lp_col cols[] = {
		{ "pid", "Process", "text" }, { "device", "GPU", "text" },
		{ "profiled", "Profiled by ncu", "text" },
	};
	const char *gpath = NULL, *dpath = NULL, *kpath, *found = NULL;
	struct st t = { 0 };
	struct proc *p;
	struct lp_row r = { 0 };
	long device = -1;
	size_t i, np;
	int c;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "D:g:ht:")) != -1) {
		switch (c) {
		case 'D': device = lp_strtonum(optarg, -1, 1023, "-D"); break;
		case 'g': gpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 't': dpath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	kpath = optind < argc ? argv[optind] : NULL;
	t.pids = lp_map_new();
	t.kept = lp_map_new();
	t.devs = lp_map_new();
	lp_rep_file(kpath, "nsys stats --report nvtx_kern_sum", kcols, 3, kern_row,
	    &t);
	if (gpath && dpath) {	/* both, or no GPU is known */
		lp_rep_file(gpath, "nsys stats --report nvtx_gpu_proj_trace", pcols,
		    3, proj_row, &t);
		lp_qsort(t.s, t.n, sizeof *t.s, by_start);
		lp_rep_file(dpath, "nsys stats --report cuda_gpu_trace", gcols, 2,
		    gpu_row, &t);
	}
	np = lp_map_len(t.pids);
	p = lp_xcalloc(np + 1, sizeof *p);
	for (i = 0; i < np; i++) {
		p[i].pid = lp_xstrdup(lp_map_key(t.pids, i));
		p[i].why = "the run lacks the nvtx_gpu_proj_trace or the "
		    "cuda_gpu_trace report";
	}
	if (gpath && dpath)
		devices(&t, p, np);
	lp_qsort(p, np, sizeof *p, by_dev);
	/* the rank ncu profiles: only a question with several processes */
	for (i = 0; np > 1 && device >= 0 && i < np; i++)
		if (on_device(p[i].dev, device)) {
			if (found)
				lp_die(LP_EXIT_DATA, "processes %s and %s both ran "
				    "on device %ld", found, p[i].pid, device);
			found = p[i].pid;
		}
	if (np > 1 && device >= 0 && !found)
		lp_die(LP_EXIT_DATA, "%zu processes ran kernels and none is seen "
		    "on device %ld (nvtx_gpu_proj_trace and cuda_gpu_trace "
		    "give each process's GPU): set ncu_cli.device to one of "
		    "theirs, or -1 for every device", np, device);

	lp_tab_meta(out, "title", "Processes and their GPUs");
	lp_tab_meta(out, "tool", "lp-procs");
	lp_tab_meta(out, "source", "processes that ran kernels from nsys "
	    "nvtx_kern_sum (%s); each one's GPU from nvtx_gpu_proj_trace and "
	    "cuda_gpu_trace (%s)", kpath ? kpath : "<stdin>",
	    gpath && dpath ? dpath : "missing");
	lp_tab_meta(out, "processes", "%zu", np);
	if (found)
		lp_tab_meta(out, "profiled", "%s", found);
	lp_tab_meta(out, "omit", "an input of ranks.tsv and the kernel tables");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (i = 0; i < np; i++) {
		lp_row_text(&r, p[i].pid);
		if (p[i].dev)
			lp_row_text(&r, p[i].dev);
		else
			lp_row_na(&r, "%s", p[i].why);
		lp_row_text(&r, found ? !strcmp(found, p[i].pid) ? "yes" : "no" :
		    np > 1 ? "n/a because ncu_cli.device is -1" : "n/a: one "
		    "process");
		lp_row_end(&r, out);
	}
	for (i = 0; i < np; i++) {
		free(p[i].pid);
		free(p[i].dev);
	}
	free(p);
	for (i = 0; i < t.n; i++)
		free(t.s[i].dev);
	free(t.s);
	lp_map_free(t.pids);
	lp_map_free(t.kept);
	lp_map_free(t.devs);
	lp_sb_free(&r.b);
	lp_tab_done(out);
	return 0;
}
