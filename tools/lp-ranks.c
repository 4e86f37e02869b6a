/*
 * lp-ranks: ranks.tsv, each stage per process (rank) of a multi-process
 * run: wall-time instances, median, min and max of that process alone
 * (nsys nvtx_pushpop_trace), its kernel time per instance split into
 * communication (the comm class of operators.yaml) and compute (nsys
 * nvtx_kern_sum), and across the processes of a stage the straggler: the
 * one whose time outside communication is longest, with its gap.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lp.h"

static const char synopsis[] =
    "lp-ranks -c config.yaml {-o operators.yaml | -D device} "
    "[-k nvtx_kern_sum.csv] [-g nvtx_gpu_proj_trace.csv -t cuda_gpu_trace.csv] "
    "[-s pct] [nvtx_pushpop_trace.csv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct proc {		/* one stage in one process */
	char *pid;
	char *dev;		/* its GPU, NULL if not known */
	const char *why;	/* why not */
	double *dur;
	size_t n, cap;
	double kern, comm, launches;
	double med, work;
};

struct stage {
	const char *name;
	char *range;
	struct proc *p;
	size_t np;
};

enum { MAX_STARTS = 64 };	/* projected starts kept per process */

struct dev {			/* process -> GPU, by projected starts */
	double start;
	char *pid;
	char *device;		/* the trace's Device of that start */
};

struct st {
	struct stage *s;
	size_t n;
	const struct lp_ops *ops;
	struct dev *d;
	size_t nd, capd;
	struct lp_map *per_pid;	/* starts kept per process */
	struct lp_map *kpids;	/* processes that ran kernels (-D) */
};

static struct proc *
proc_of(struct stage *g, const char *pid)
{
	size_t i;

	for (i = 0; i < g->np; i++)
		if (!strcmp(g->p[i].pid, pid))
			return &g->p[i];
	g->p = lp_xreallocarray(g->p, g->np + 1, sizeof *g->p);
	memset(&g->p[g->np], 0, sizeof g->p[0]);
	g->p[g->np].pid = lp_xstrdup(pid);
	return &g->p[g->np++];
}

/* A row's PID: required here, one process per row. */
static const char *
pid_of(const struct lp_rep_row *rr, size_t i)
{
	const char *pid = lp_rep_pid(rr, i);

	if (!*pid)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[i] + 1,
		    "PID: empty (each row is one process's)");
	return pid;
}

static void
trace_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *pid = pid_of(rr, 2);
	double dur = lp_rep_time(rr, 0);	/* every row checked */
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct proc *p;

		if (!lp_nvtx_range_match(t->s[i].range, rr->v[1]))
			continue;
		p = proc_of(&t->s[i], pid);
		if (p->n == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 16;
			p->dur = lp_xreallocarray(p->dur, p->cap, sizeof *p->dur);
		}
		p->dur[p->n++] = dur;
	}
}

static void
kern_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *pid = pid_of(rr, 3);
	double ns = lp_rep_time(rr, 0), launches = lp_rep_count(rr, 1);
	size_t i;

	if (lp_map_len(t->kpids) < 4096)
		lp_map_put(t->kpids, pid, 1);
	for (i = 0; i < t->n; i++) {
		struct proc *p;

		if (!lp_nvtx_range_match(t->s[i].range, rr->v[2]))
			continue;
		p = proc_of(&t->s[i], pid);
		p->kern += ns;
		p->launches += launches;
		if (t->ops && lp_ops_is_comm(t->ops, rr->v[4]))
			p->comm += ns;
	}
}

static void
proj_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *pid = pid_of(rr, 1);
	long k = lp_map_get(t->per_pid, pid, 0);
	double start = lp_rep_time(rr, 0);	/* every row checked */
	double ops = lp_rep_has(rr, 2) ? lp_rep_count(rr, 2) : 1;

	if (k >= MAX_STARTS || ops == 0)
		return;
	lp_map_put(t->per_pid, pid, k + 1);
	if (t->nd == t->capd) {
		t->capd = t->capd ? 2 * t->capd : 64;
		t->d = lp_xreallocarray(t->d, t->capd, sizeof *t->d);
	}
	t->d[t->nd].start = start;
	t->d[t->nd].pid = lp_xstrdup(pid);
	t->d[t->nd].device = NULL;
	t->nd++;
}

static int
by_start(const void *x, const void *y)
{
	const struct dev *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

static void
gpu_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	struct dev key, *d;

	key.start = lp_rep_time(rr, 0);
	d = bsearch(&key, t->d, t->nd, sizeof *t->d, by_start);
	if (!d)
		return;
	/* every range of the process that starts there */
	while (d > t->d && d[-1].start == key.start)
		d--;
	for (; d < t->d + t->nd && d->start == key.start; d++)
		if (!d->device)
			d->device = lp_xstrdup(rr->v[1]);
}

/* The GPU a process ran on: the Device of the first GPU operation of
 * its ranges, when they all agree. */
static char *
device_of(const struct st *t, const char *pid, char **why)
{
	const char *dv = NULL;
	size_t i;

	for (i = 0; i < t->nd; i++) {
		if (strcmp(t->d[i].pid, pid) || !t->d[i].device)
			continue;
		if (dv && strcmp(dv, t->d[i].device)) {
			*why = "its ranges' GPU operations ran on several devices";
			return NULL;
		}
		dv = t->d[i].device;
	}
	if (!dv)
		*why = "no range of the process starts at an operation of "
		    "cuda_gpu_trace";
	return dv ? lp_xstrdup(dv) : NULL;
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

/* -D: the PID of the process whose GPU is "(device)", when more than one
 * process ran kernels; nothing for one process, or for device -1. */
static void
pick(const struct st *t, long device, FILE *fp)
{
	struct lp_sb b = { 0 };
	size_t i, n = lp_map_len(t->kpids), len;
	const char *found = NULL;

	if (n < 2 || device < 0)
		return;
	lp_sb_printf(&b, "(%ld)", device);
	len = strlen(lp_sb_str(&b));
	for (i = 0; i < n; i++) {
		const char *pid = lp_map_key(t->kpids, i);
		char *why, *dv = device_of(t, pid, &why);
		size_t l = dv ? strlen(dv) : 0;

		if (dv && l >= len && !strcmp(dv + l - len, lp_sb_str(&b))) {
			if (found)
				lp_die(LP_EXIT_DATA, "processes %s and %s both ran "
				    "on device %ld", found, pid, device);
			found = pid;
		}
		free(dv);
	}
	if (!found)
		lp_die(LP_EXIT_DATA, "%zu processes ran kernels and none is seen "
		    "on device %ld (nvtx_gpu_proj_trace and cuda_gpu_trace "
		    "give each process's GPU): set ncu_cli.device to one of "
		    "theirs, or -1 for every device", n, device);
	fprintf(fp, "%s\n", found);
	lp_sb_free(&b);
}

static void
read_rep(const char *path, const char *what, const char *const *cols,
    size_t n, lp_rep_fn fn, void *ctx)
{
	FILE *fp = fopen(path, "r");

	if (!fp)
		lp_die_sys("%s", path);
	lp_rep_read(fp, path, what, cols, n, fn, ctx);
	fclose(fp);
}

int
main(int argc, char **argv)
{
	static const char *const tcols[] = { "Duration", "Name", "PID" };
	static const char *const kcols[] = { "Total Time", "Kern Inst",
		"NVTX Range", "PID", "Kernel Name" };
	static const char *const pcols[] = { "Projected Start", "PID",
		"?NumGPUOps" };
	static const char *const gcols[] = { "Start", "Device" };
	static const struct lp_col cols[] = {
		{ "stage", "Stage", "text" }, { "pid", "Process", "text" },
		{ "device", "GPU", "text" },
		{ "instances", "Instances", "int" },
		{ "median_ns", "Median (ms)", "ms" },
		{ "min_ns", "Min (ms)", "ms" }, { "max_ns", "Max (ms)", "ms" },
		{ "kernel_ns", "Kernel time / inst. (ms)", "ms" },
		{ "comm_ns", "Communication / inst. (ms)", "ms" },
		{ "compute_ns", "Compute / inst. (ms)", "ms" },
		{ "comm_pct", "Communication share", "pct" },
		{ "busy_pct", "GPU busy", "pct" },
		{ "launches", "Launches / inst.", "num1" },
		{ "work_ns", "Outside communication (ms)", "ms" },
		{ "gap_ns", "Gap to fastest (ms)", "ms" },
		{ "straggler", "Straggler", "text" },
	};
	const char *cpath = NULL, *opath = NULL, *kpath = NULL, *gpath = NULL,
	    *dpath = NULL, *tpath;
	struct lp_ynode *cfg;
	const struct lp_ynode *stages;
	struct lp_ops ops;
	struct st t = { 0 };
	struct lp_row r = { 0 };
	double spct = 10;
	long want = -2;		/* -D: the device whose process to name */
	size_t i, j, procs = 0;
	int c;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "c:D:g:hk:o:s:t:")) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'D': want = lp_strtonum(optarg, -1, 1023, "-D"); break;
		case 'g': gpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'k': kpath = optarg; break;
		case 'o': opath = optarg; break;
		case 's': spct = lp_strtopct(optarg, "-s"); break;
		case 't': dpath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (!cpath || (!opath && want == -2) || argc - optind > 1)
		lp_usage(synopsis);
	tpath = optind < argc ? argv[optind] : NULL;
	cfg = lp_yaml_load_path(cpath);
	if (opath) {
		lp_ops_load(&ops, opath);
		t.ops = &ops;
	}
	t.kpids = lp_map_new();
	stages = lp_yaml_get(cfg, "stages");
	if (!stages || stages->type != LP_Y_MAP || !stages->n)
		lp_die_at(LP_EXIT_DATA, cpath, cfg->line, 0, "no stages: (each "
		    "stage's NVTX domain and range)");
	t.n = stages->n;
	t.s = lp_xcalloc(t.n, sizeof *t.s);
	for (i = 0; i < t.n; i++) {
		struct lp_stage st;
		struct lp_sb b = { 0 };

		lp_stage_get(cfg, stages->keys[i], &st, cpath);
		lp_nvtx_nsys_name(&b, &st);
		t.s[i].name = stages->keys[i];
		t.s[i].range = lp_sb_steal(&b);
	}
	if (tpath)
		read_rep(tpath, "nsys stats --report nvtx_pushpop_trace", tcols,
		    3, trace_row, &t);
	if (kpath)
		read_rep(kpath, "nsys stats --report nvtx_kern_sum", kcols, 5,
		    kern_row, &t);
	if (gpath && dpath) {
		t.per_pid = lp_map_new();
		read_rep(gpath, "nsys stats --report nvtx_gpu_proj_trace", pcols,
		    3, proj_row, &t);
		lp_qsort(t.d, t.nd, sizeof *t.d, by_start);
		read_rep(dpath, "nsys stats --report cuda_gpu_trace", gcols, 2,
		    gpu_row, &t);
	}
	for (i = 0; i < t.n; i++) {
		procs = t.s[i].np > procs ? t.s[i].np : procs;
		for (j = 0; j < t.s[i].np; j++) {
			struct proc *p = &t.s[i].p[j];
			char *why = "the run lacks the nvtx_gpu_proj_trace or the "
			    "cuda_gpu_trace report";

			p->dev = gpath && dpath ? device_of(&t, p->pid, &why) : NULL;
			p->why = why;
		}
		lp_qsort(t.s[i].p, t.s[i].np, sizeof *t.s[i].p, by_dev);
	}

	if (want > -2) {	/* the profiled rank's PID, or nothing */
		pick(&t, want, out);
		goto done;
	}
	lp_tab_meta(out, "title", "Ranks: each stage per process");
	lp_tab_meta(out, "tool", "lp-ranks");
	lp_tab_meta(out, "source", "wall time of each process's instances "
	    "from nsys nvtx_pushpop_trace (%s); kernel time per process "
	    "from nsys nvtx_kern_sum (%s), communication = the comm classes "
	    "of %s; GPU from nvtx_gpu_proj_trace and cuda_gpu_trace (%s)",
	    tpath ? tpath : "missing", kpath ? kpath : "missing", opath,
	    dpath ? dpath : "missing");
	lp_tab_meta(out, "processes", "%zu", procs);
	if (procs < 2)
		lp_tab_meta(out, "omit", "one process: the stage table says it all");
	lp_tab_meta(out, "note", "Per instance: the process's kernel time "
	    "in the range over its instances. Outside communication = median "
	    "wall time - communication per instance: the ranks of a "
	    "collective wait for the slowest inside the communication "
	    "kernels, so the slowest rank is the one with most time outside "
	    "them. Straggler: that rank, when its gap to the fastest is at "
	    "least %g %% of its median.", spct);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (i = 0; i < t.n; i++) {
		struct stage *g = &t.s[i];
		double lo = INFINITY, hi = -INFINITY;
		size_t slow = 0;

		for (j = 0; j < g->np; j++) {
			struct proc *p = &g->p[j];

			p->med = p->n ? lp_median(p->dur, p->n) : NAN;
			p->work = p->n ? p->med - p->comm / (double)p->n : NAN;
			if (p->n && p->work < lo)
				lo = p->work;
			if (p->n && p->work > hi) {
				hi = p->work;
				slow = j;
			}
		}
		for (j = 0; j < g->np; j++) {
			struct proc *p = &g->p[j];
			double n = (double)p->n, lo2 = 0, hi2 = 0;
			size_t k;

			lp_row_text(&r, g->name);
			lp_row_text(&r, p->pid);
			if (p->dev)
				lp_row_text(&r, p->dev);
			else
				lp_row_na(&r, "%s", p->why);
			if (!p->n) {
				lp_row_na(&r, "the process has kernels in the "
				    "range but no instance in %s", tpath ?
				    "nvtx_pushpop_trace" : "a missing "
				    "nvtx_pushpop_trace");
				while (r.n < sizeof cols / sizeof cols[0])
					lp_row_text(&r, "n/a");
				lp_row_end(&r, out);
				continue;
			}
			for (k = 0; k < p->n; k++) {
				lo2 = k && lo2 < p->dur[k] ? lo2 : p->dur[k];
				hi2 = k && hi2 > p->dur[k] ? hi2 : p->dur[k];
			}
			lp_row_num(&r, n, 0);
			lp_row_num(&r, p->med, 1);
			lp_row_num(&r, lo2, 0);
			lp_row_num(&r, hi2, 0);
			if (!kpath) {
				for (k = 0; k < 6; k++)
					lp_row_na(&r, "the run has no nvtx_kern_sum "
					    "report");
			} else {
				double wall = 0;

				for (k = 0; k < p->n; k++)
					wall += p->dur[k];
				lp_row_num(&r, p->kern / n, 1);
				lp_row_num(&r, p->comm / n, 1);
				lp_row_num(&r, (p->kern - p->comm) / n, 1);
				if (p->kern > 0)
					lp_row_num(&r, 100 * p->comm / p->kern, 1);
				else
					lp_row_na(&r, "no kernel ran in the range");
				if (wall > 0)
					lp_row_num(&r, 100 * p->kern / wall, 1);
				else
					lp_row_na(&r, "the wall time is 0");
				lp_row_num(&r, p->launches / n, 1);
			}
			if (!kpath) {
				lp_row_na(&r, "the run has no nvtx_kern_sum report");
				lp_row_text(&r, "n/a");
				lp_row_text(&r, "n/a");
			} else {
				lp_row_num(&r, p->work, 1);
				lp_row_num(&r, p->work - lo, 1);
				if (g->np < 2)
					lp_row_text(&r, "n/a: one process");
				else
					lp_row_text(&r, j == slow && hi - lo >=
					    spct / 100 * p->med ? "yes" : "no");
			}
			lp_row_end(&r, out);
		}
	}
done:
	for (i = 0; i < t.n; i++) {
		for (j = 0; j < t.s[i].np; j++) {
			free(t.s[i].p[j].pid);
			free(t.s[i].p[j].dev);
			free(t.s[i].p[j].dur);
		}
		free(t.s[i].p);
		free(t.s[i].range);
	}
	for (i = 0; i < t.nd; i++) {
		free(t.d[i].pid);
		free(t.d[i].device);
	}
	free(t.d);
	if (t.per_pid)
		lp_map_free(t.per_pid);
	lp_map_free(t.kpids);
	free(t.s);
	lp_sb_free(&r.b);
	if (opath)
		lp_ops_free(&ops);
	lp_yaml_free(cfg);
	lp_tab_done(out);
	return 0;
}
