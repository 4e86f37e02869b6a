/*
 * lp-ranks: ranks.tsv, each stage per process (rank) of a multi-process
 * run: wall-time instances, median, min and max of that process alone
 * (nsys nvtx_pushpop_trace), its kernel time per instance split into
 * communication (the comm class of operators.yaml) and compute (nsys
 * nvtx_kern_sum), and across the processes of a stage the straggler: the
 * one whose time outside communication is longest, with its gap.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-ranks -c config.yaml -o operators.yaml [-k nvtx_kern_sum.csv] "
    "[-p procs.tsv] [-s pct] [nvtx_pushpop_trace.csv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct proc {		/* one stage in one process */
	char *pid;
	const char *dev;	/* its GPU (procs.tsv), NULL if not known */
	const char *why;	/* why not */
	long order;		/* its row in procs.tsv */
	double *dur;
	size_t n, cap;
	double kern, comm, launches;
	double med, work;
};

struct stage {
	const char *name;
	char *range;
	struct proc *p;
	size_t np, cap;
	struct lp_map *idx;	/* PID -> index in p */
};

struct st {
	struct stage *s;
	size_t n;
	const struct lp_ops *ops;
};

struct devs {			/* procs.tsv: each process's GPU */
	struct lp_map *idx;	/* PID -> row */
	char **dev;		/* NULL: not known */
	char **why;
};

static struct proc *
proc_of(struct stage *g, const char *pid)
{
	long i;

	if (!g->idx)
		g->idx = lp_map_new();
	if ((i = lp_map_get(g->idx, pid, -1)) >= 0)
		return &g->p[i];
	lp_map_put(g->idx, pid, (long)g->np);
	if (g->np == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		g->p = lp_xreallocarray(g->p, g->cap, sizeof *g->p);
	}
	memset(&g->p[g->np], 0, sizeof g->p[0]);
	g->p[g->np].pid = lp_xstrdup(pid);
	return &g->p[g->np++];
}

static void
trace_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *t = ctx;
	const char *pid = lp_rep_pid(rr, 2);
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
	const char *pid = lp_rep_pid(rr, 3);
	double ns = lp_rep_time(rr, 0), launches = lp_rep_count(rr, 1);
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct proc *p;

		if (!lp_nvtx_range_match(t->s[i].range, rr->v[2]))
			continue;
		p = proc_of(&t->s[i], pid);
		p->kern += ns;
		p->launches += launches;
		if (lp_ops_is_comm(t->ops, rr->v[4]))
			p->comm += ns;
	}
}

/* Rows in procs.tsv's order (by GPU, then PID), whichever layout (one
 * report, one per rank) they came from; processes not there last, by PID. */
static int
by_proc(const void *x, const void *y)
{
	const struct proc *a = x, *b = y;

	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	if (strlen(a->pid) != strlen(b->pid))
		return strlen(a->pid) < strlen(b->pid) ? -1 : 1;
	return strcmp(a->pid, b->pid);
}
/* procs.tsv (lp-procs): each process's GPU, or why it is not known. */
static void
devs_load(struct devs *d, const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-procs, make RUN=... procs.tsv");
	int cp = lp_csv_need(&t.hdr, "pid", "lp-procs output");
	int cd = lp_csv_need(&t.hdr, "device", "lp-procs output");
	size_t n = 0;

	lp_tab_expect(&t, "lp-procs");
	d->idx = lp_map_new();
	while (lp_tsv_next(&t)) {
		const char *dv = lp_tsv_get(&t, cd);
		int na = !*dv || !strncmp(dv, "n/a", 3);

		if (lp_map_get(d->idx, lp_tsv_get(&t, cp), -1) >= 0)
			lp_die_at(LP_EXIT_DATA, path, t.line, cp + 1, "process %s "
			    "twice", lp_tsv_get(&t, cp));
		lp_map_put(d->idx, lp_tsv_get(&t, cp), (long)n);
		d->dev = lp_xreallocarray(d->dev, n + 1, sizeof *d->dev);
		d->why = lp_xreallocarray(d->why, n + 1, sizeof *d->why);
		d->dev[n] = na ? NULL : lp_xstrdup(dv);
		d->why[n] = na ? lp_xstrdup(strncmp(dv, "n/a because ", 12) ? dv :
		    dv + 12) : NULL;
		n++;
	}
	lp_tsv_close(&t);
	fclose(fp);
}

int
main(int argc, char **argv)
{
	static const char *const tcols[] = { "Duration", "Name", "PID" };
	static const char *const kcols[] = { "Total Time", "Kern Inst",
		"NVTX Range", "PID", "Kernel Name" };
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
	const char *cpath = NULL, *opath = NULL, *kpath = NULL, *ppath = NULL,
	    *tpath;
	const char **names;
	char **ranges;
	struct lp_ynode *cfg;
	struct lp_ops ops;
	struct devs d = { 0 };
	struct st t = { 0 };
	struct lp_row r = { 0 };
	double spct = 10;
	size_t i, j, procs = 0;
	int c;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "c:hk:o:p:s:")) != -1) {
		switch (c) {
		case 'c': cpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'k': kpath = optarg; break;
		case 'o': opath = optarg; break;
		case 'p': ppath = optarg; break;
		case 's': spct = lp_strtopct(optarg, "-s"); break;
		default: lp_usage(synopsis);
		}
	}
	if (!cpath || !opath || argc - optind > 1)
		lp_usage(synopsis);
	tpath = optind < argc ? argv[optind] : NULL;
	cfg = lp_yaml_load_path(cpath);
	lp_ops_load(&ops, opath);
	t.ops = &ops;
	if (ppath)
		devs_load(&d, ppath);
	t.n = lp_stage_ranges(cfg, cpath, &names, &ranges);
	t.s = lp_xcalloc(t.n, sizeof *t.s);
	for (i = 0; i < t.n; i++) {
		t.s[i].name = names[i];
		t.s[i].range = ranges[i];
	}
	free(ranges);
	if (tpath)
		lp_rep_file(tpath, "nsys stats --report nvtx_pushpop_trace", tcols,
		    3, trace_row, &t);
	if (kpath)
		lp_rep_file(kpath, "nsys stats --report nvtx_kern_sum", kcols, 5,
		    kern_row, &t);
	for (i = 0; i < t.n; i++) {
		procs = t.s[i].np > procs ? t.s[i].np : procs;
		for (j = 0; j < t.s[i].np; j++) {
			struct proc *p = &t.s[i].p[j];
			long k = ppath ? lp_map_get(d.idx, p->pid, -1) : -1;

			p->order = k >= 0 ? k : LONG_MAX;
			p->dev = k >= 0 ? d.dev[k] : NULL;
			p->why = k >= 0 ? d.why[k] : ppath ? "the process is not "
			    "in procs.tsv (it ran no kernel)" : "no procs.tsv "
			    "(lp-procs) given";
		}
		lp_qsort(t.s[i].p, t.s[i].np, sizeof *t.s[i].p, by_proc);
	}

	lp_tab_meta(out, "title", "Ranks: each stage per process");
	lp_tab_meta(out, "tool", "lp-ranks");
	lp_tab_meta(out, "source", "wall time of each process's instances "
	    "from nsys nvtx_pushpop_trace (%s); kernel time per process "
	    "from nsys nvtx_kern_sum (%s), communication = the comm classes "
	    "of %s; each process's GPU from %s", tpath ? tpath : "missing",
	    kpath ? kpath : "missing", opath, ppath ? ppath : "missing");
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
				if (wall > 0 && 100 * p->kern / wall > 12800)
					lp_row_pct(&r, 100 * p->kern / wall, 12800,
					    "GPU busy", "more kernel time than 128 "
					    "kernels at once fill in the ranges' wall "
					    "time: the reports are not of one capture");
				else if (wall > 0)
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
	for (i = 0; i < t.n; i++) {
		for (j = 0; j < t.s[i].np; j++) {
			free(t.s[i].p[j].pid);
			free(t.s[i].p[j].dur);
		}
		free(t.s[i].p);
		free(t.s[i].range);
		lp_map_free(t.s[i].idx);
	}
	for (i = 0; d.idx && i < lp_map_len(d.idx); i++) {
		free(d.dev[i]);
		free(d.why[i]);
	}
	free(d.dev);
	free(d.why);
	if (d.idx)
		lp_map_free(d.idx);
	free(names);
	free(t.s);
	lp_sb_free(&r.b);
	lp_ops_free(&ops);
	lp_yaml_free(cfg);
	lp_tab_done(out);
	return 0;
}
