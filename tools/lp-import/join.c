/*
 * lp-import's checks that the nsys exports belong together: several
 * exports of one report only as disjoint processes and GPUs, exports of
 * different reports agreeing where they overlap.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "import.h"

/* Two reports of one capture sum the same durations, which nsys stats
 * prints in whole nanoseconds: their totals agree to the nanosecond (they
 * do in every capture of tests/fixtures).  0.1 % leaves room for exports
 * in coarser units (--timeunit usec rounds each row by up to 0.5 us);
 * two captures of one workload differ by more, kernel by kernel (1 to 9 %
 * between the tinyllm captures of tests/fixtures, issue 28 item 7). */
static int
same_time(double a, double b)
{
	double d = a > b ? a - b : b - a;

	return d <= 1 + 1e-3 * (a > b ? a : b);
}

/* The processes of a file: its own, else those of its export set. */
static const struct lp_map *
procs_of(const struct file *fs, size_t n, const struct file *f)
{
	size_t i;

	if (lp_map_len(f->pids))
		return f->pids;
	for (i = 0; i < n; i++)
		if (lp_map_len(fs[i].pids) && !strcmp(fs[i].base, f->base) &&
		    fs[i].kind != K_NCU_KERN && fs[i].kind != K_NCU_RANGE)
			return fs[i].pids;
	return NULL;
}

static const struct lp_map *
devs_of(const struct file *fs, size_t n, const struct file *f)
{
	size_t i;

	if (lp_map_len(f->devs))
		return f->devs;
	for (i = 0; i < n; i++)
		if (lp_map_len(fs[i].devs) && !strcmp(fs[i].base, f->base))
			return fs[i].devs;
	return NULL;
}

static void
list_files(struct lp_sb *b, const struct file *fs, size_t n, int rep)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fs[i].rep == rep)
			lp_sb_printf(b, " %s", fs[i].path);
}

/* Two exports of one report: no process, no GPU in both. */
static void
disjoint(const struct file *fs, size_t n, size_t i, size_t j, int rep)
{
	const struct lp_map *p = procs_of(fs, n, &fs[i]);
	const struct lp_map *q = procs_of(fs, n, &fs[j]);
	const char *s;

	if ((s = imp_shared(p, q)))
		lp_die(LP_EXIT_DATA, "IMPORT: %s and %s both hold process %s "
		    "(%s): the same capture twice, or a whole capture and a "
		    "part of it (a merged export and its per-rank exports, a "
		    "capture and its per-stage subsets); import one of them",
		    fs[i].path, fs[j].path, s, rep_var[rep]);
	p = devs_of(fs, n, &fs[i]);
	q = devs_of(fs, n, &fs[j]);
	if (p && q && (s = imp_shared(p, q)))
		lp_die(LP_EXIT_DATA, "IMPORT: %s and %s ran on the same GPU "
		    "(%s): per-rank exports of one job run on one GPU each; "
		    "two runs are compared, not joined (make RUN=b BASE=a "
		    "compare.md)", fs[i].path, fs[j].path, s);
}

/* Several exports of one report: joined only as disjoint processes. */
void
join_check_report(const struct file *fs, size_t n, int rep)
{
	size_t i, j, k = 0;
	struct lp_sb b = { 0 };

	for (i = 0; i < n; i++)
		k += fs[i].rep == rep;
	if (k < 2)
		return;
	list_files(&b, fs, n, rep);
	/* every file's processes first, then the pairs: a file without any
	 * is refused whatever the order of the files (it was compared with
	 * an earlier one first, and crashed, issue 28) */
	for (i = 0; i < n; i++) {
		if (fs[i].rep != rep)
			continue;
		if (!procs_of(fs, n, &fs[i]))
			lp_die(LP_EXIT_DATA, "IMPORT: %zu files are the nsys report "
			    "%s (%s ); lp joins several exports of one report only "
			    "when they are per-process parts of one job, shown by "
			    "disjoint processes in an nvtx_kern_sum, "
			    "nvtx_pushpop_trace or nvtx_gpu_proj_trace export of "
			    "each set (nsys stats -o BASE writes BASE_REPORT.csv), "
			    "and %s has none: import one capture's exports per run "
			    "(make RUN=a IMPORT='...', RUN=b ...), or STAGE= to "
			    "look at one stage of one capture", k, rep_var[rep],
			    lp_sb_str(&b), fs[i].path);
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (fs[i].rep == rep && fs[j].rep == rep)
				disjoint(fs, n, i, j, rep);
	/* Processes apart are not yet one job: two single-GPU captures have
	 * processes apart too.  Their time bases cannot show it (nsys stats
	 * times count from each capture's own start), their GPUs can: each
	 * part's cuda_gpu_trace, on GPUs none of the others used. */
	for (i = 0; i < n; i++) {
		if (fs[i].rep != rep || devs_of(fs, n, &fs[i]))
			continue;
		for (j = 0; j < n; j++)
			if (j != i && fs[j].rep == rep)
				break;
		lp_die(LP_EXIT_DATA, "IMPORT: %s (process %s) and %s (process "
		    "%s) are both the nsys report %s, and nothing shows their "
		    "processes ran as one job: %s has no cuda_gpu_trace beside "
		    "it to say its GPU (two single-GPU captures are not one "
		    "multi-GPU run).  Compare two runs (make RUN=a IMPORT='...', "
		    "make RUN=b IMPORT='...', make RUN=b BASE=a compare.md); "
		    "join the ranks of one job with each rank's cuda_gpu_trace "
		    "beside its exports (nsys stats --report cuda_gpu_trace -o "
		    "BASE)", fs[i].path, lp_map_key(procs_of(fs, n, &fs[i]), 0),
		    fs[j].path, lp_map_key(procs_of(fs, n, &fs[j]), 0),
		    rep_var[rep], fs[i].path);
	}
	lp_sb_free(&b);
}

/* The counts of a report, summed over its files. */
static void
merged(const struct file *fs, size_t n, int rep, struct counts *out,
    struct counts *sub, const char **first)
{
	size_t i, j;

	*first = NULL;
	for (i = 0; i < n; i++) {
		if (fs[i].rep != rep)
			continue;
		if (!*first)
			*first = fs[i].path;
		for (j = 0; j < fs[i].names.len; j++)
			counts_add(out, lp_map_key(fs[i].names.idx, j),
			    fs[i].names.n[j], fs[i].names.t[j], C_SUM);
		if (sub)
			for (j = 0; j < fs[i].sub.len; j++)
				counts_add(sub, lp_map_key(fs[i].sub.idx, j),
				    fs[i].sub.n[j], 0, C_SUM);
	}
}

static _Noreturn void
apart(const char *a, const char *b, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static _Noreturn void
apart_sqlite(const char *a, const char *b, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static _Noreturn void
vapart(const char *a, const char *b, const char *instead, const char *fmt,
    va_list ap)
{
	struct lp_sb m = { 0 };

	lp_sb_vprintf(&m, fmt, ap);
	lp_die(LP_EXIT_DATA, "IMPORT: %s and %s are not exports of one capture: "
	    "%s; %s", a, b, lp_sb_str(&m), instead);
}

static _Noreturn void
apart(const char *a, const char *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vapart(a, b, "import each capture as its own run (make RUN=a "
	    "IMPORT=...)", fmt, ap);
}

/* b an sqlite export: the other capture's samples would be shown as this
 * one's. */
static _Noreturn void
apart_sqlite(const char *a, const char *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vapart(a, b, "import the sqlite export of the capture the CSVs are "
	    "from (nsys export --type sqlite of its .nsys-rep; nsys stats "
	    "writes REPORT.sqlite beside it), or none", fmt, ap);
}

/* A report's two spellings: the same launches and time. */
static void
check_spellings(const struct counts *c, const char *const *p)
{
	double n1, t1, n2, t2;

	if (!p[R_KSUM] || !p[R_KSUM_M])
		return;
	counts_total(&c[R_KSUM], &n1, &t1);
	counts_total(&c[R_KSUM_M], &n2, &t2);
	if (n1 != n2 || t1 != t2)
		apart(p[R_KSUM], p[R_KSUM_M], "%.0f launches and %.0f ns "
		    "of kernels against %.0f and %.0f", n1, t1, n2, t2);
}

/* The trace's kernels are the summary's, launch for launch. */
static void
check_trace(const struct file *fs, size_t n, const struct counts *c,
    const char *const *p)
{
	double n1, t1;
	size_t i;
	int r;

	for (r = R_GPU_TRACE; r <= R_GPU_TRACE_M; r++)
		if (p[R_KSUM] && p[r]) {
			double ln = 0, lt = 0;

			for (i = 0; i < n; i++)
				if (fs[i].rep == r) {
					ln += fs[i].launches;
					lt += fs[i].time;
				}
			counts_total(&c[R_KSUM], &n1, &t1);
			if (ln != n1 || lt != t1)
				apart(p[R_KSUM], p[r], "%.0f kernel launches "
				    "(%.0f ns) in the summary, %.0f (%.0f ns) in "
				    "the trace", n1, t1, ln, lt);
		}
}

/* A kernel's time in the ranges of nk's files against its time in the
 * summary ks (its path): no more, and the whole where they hold every
 * launch. */
static void
range_time(const struct file *fs, size_t n, const struct counts *ks,
    const char *path, int nk, const char *name)
{
	double all = counts_get(ks, name), allt = counts_time(ks, name), t;
	size_t j;
	long x;

	for (j = 0; j < n; j++) {
		const struct counts *f = &fs[j].names;

		if (fs[j].rep != nk || (x = lp_map_get(f->idx, name, -1)) < 0)
			continue;
		if (f->t[x] > allt && !same_time(f->t[x], allt))
			apart(path, fs[j].path, "kernel %s: %.0f ns in the whole "
			    "capture, %.0f ns in one range", name, allt, f->t[x]);
		/* the rows holding every launch, the one farthest from the
		 * summary's time */
		t = allt - f->lo[x] > f->hi[x] - allt ? f->lo[x] : f->hi[x];
		if (f->n[x] == all && !same_time(t, allt))
			apart(path, fs[j].path, "kernel %s: its %.0f launches "
			    "take %.0f ns in the first and %.0f ns in a range of "
			    "the second that holds them all (the same launches, "
			    "their times differ: two runs)", name, all, allt, t);
	}
}

/* A range's kernels are among the capture's kernels, and take no more
 * time there; a range that holds every launch of a kernel holds its whole
 * time (two captures of one workload agree on launches, not on time). */
static void
check_range_kernels(const struct file *fs, size_t n, const struct counts *c,
    const char *const *p)
{
	size_t i;
	int k;

	for (k = 0; k < 2; k++) {
		int ks = k ? R_KSUM_M : R_KSUM, nk = k ? R_NVTX_KSUM_M :
		    R_NVTX_KSUM;

		if (!p[ks] || !p[nk])
			continue;
		for (i = 0; i < c[nk].len; i++) {
			const char *name = lp_map_key(c[nk].idx, i);
			double all = counts_get(&c[ks], name);
			double most = 0;
			size_t j;

			/* one file's rows: the most launches of one row */
			for (j = 0; j < n; j++)
				if (fs[j].rep == nk) {
					double v = counts_get(&fs[j].names, name);

					most = v > most ? v : most;
				}
			if (all < 0)
				apart(p[ks], p[nk], "kernel %s runs in a range of "
				    "the second and not in the first", name);
			if (most > all)
				apart(p[ks], p[nk], "kernel %s: %.0f launches in "
				    "the whole capture, %.0f in one range", name,
				    all, most);
		}
		/* then times: counts say more */
		for (i = 0; i < c[nk].len; i++)
			range_time(fs, n, &c[ks], p[ks], nk,
			    lp_map_key(c[nk].idx, i));
	}
}

/* The trace of push/pop ranges is the summary's, instance for instance;
 * nvtx_kern_sum's ranges (sub) are among them. */
static void
check_ranges(const struct counts *c, const struct counts *sub,
    const char *const *p)
{
	size_t i;

	if (p[R_NVTX_SUM] && p[R_PUSHPOP])
		for (i = 0; i < c[R_NVTX_SUM].len; i++) {
			const char *name = lp_map_key(c[R_NVTX_SUM].idx, i);
			double a = c[R_NVTX_SUM].n[i];
			double b = counts_get(&c[R_PUSHPOP], name);

			if (a != b)
				apart(p[R_NVTX_SUM], p[R_PUSHPOP], "range %s: %.0f "
				    "instances in the summary, %.0f in the trace",
				    name, a, b < 0 ? 0 : b);
		}
	/* then times: counts say more */
	if (p[R_NVTX_SUM] && p[R_PUSHPOP])
		for (i = 0; i < c[R_NVTX_SUM].len; i++) {
			const char *name = lp_map_key(c[R_NVTX_SUM].idx, i);
			double t = counts_time(&c[R_PUSHPOP], name);

			if (!same_time(c[R_NVTX_SUM].t[i], t))
				apart(p[R_NVTX_SUM], p[R_PUSHPOP], "range %s: its "
				    "%.0f instances take %.0f ns in the summary, "
				    "%.0f ns in the trace (the same ranges, their "
				    "times differ: two runs)", name,
				    c[R_NVTX_SUM].n[i], c[R_NVTX_SUM].t[i], t);
		}
	if (p[R_NVTX_SUM] && p[R_NVTX_KSUM])
		for (i = 0; i < sub->len; i++) {
			const char *name = lp_map_key(sub->idx, i);
			double a = counts_get(&c[R_NVTX_SUM], name);

			if (*name && a >= 0 && sub->n[i] > a)
				apart(p[R_NVTX_SUM], p[R_NVTX_KSUM], "range %s: "
				    "%.0f instances, %.0f with kernels", name, a,
				    sub->n[i]);
		}
}

/* The processes of the push/pop trace are those of the sqlite export's
 * push/pop ranges, each way. */
static void
sqlite_procs(const struct file *fs, size_t n, const struct file *sq)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct lp_map *p = fs[i].pids;

		if (fs[i].rep != R_PUSHPOP)
			continue;
		for (j = 0; j < lp_map_len(p); j++)
			if (lp_map_get(sq->sq_pids, lp_map_key(p, j), -1) < 0)
				apart_sqlite(fs[i].path, sq->path, "process %s "
				    "pushed NVTX ranges in the first and none in "
				    "the second", lp_map_key(p, j));
	}
	for (j = 0; j < lp_map_len(sq->sq_pids); j++) {
		const char *pid = lp_map_key(sq->sq_pids, j), *first = NULL;

		for (i = 0; i < n; i++)
			if (fs[i].rep == R_PUSHPOP) {
				first = first ? first : fs[i].path;
				if (lp_map_get(fs[i].pids, pid, -1) >= 0)
					break;
			}
		if (first && i == n)
			apart_sqlite(first, sq->path, "process %s pushed NVTX "
			    "ranges in the second and none in the first", pid);
	}
}

/* The GPUs cuda_gpu_trace ran on are among the export's (by model). */
static void
sqlite_gpus(const struct file *fs, size_t n, const struct file *sq)
{
	size_t i, j;

	if (!lp_map_len(sq->gpus))
		return;
	for (i = 0; i < n; i++)
		for (j = 0; j < lp_map_len(fs[i].devs); j++) {
			char *m;

			if (fs[i].kind != K_GPU_TRACE)
				break;
			m = imp_gpu_model(lp_map_key(fs[i].devs, j));
			if (*m && lp_map_get(sq->gpus, m, -1) < 0)
				apart_sqlite(fs[i].path, sq->path, "the first ran "
				    "on an %s, the second lists the GPUs %s%s "
				    "(TARGET_INFO_GPU)", m, lp_map_key(sq->gpus,
				    0), lp_map_len(sq->gpus) > 1 ? ", ..." : "");
			free(m);
		}
}

/* The sqlite export's total time of n rows and a report's, the same to
 * the rounding of its unit (whole ns, or us with --timeunit usec): the
 * two are one capture's rows, not two runs' (same_time's 0.1 % would
 * take a range 1 ms longer in 2.4 s). */
static int
same_rows(const struct file *fs, size_t n, int rep, double rows, double a,
    double b)
{
	double unit = 1, d = a > b ? a - b : b - a;
	size_t i;

	for (i = 0; i < n; i++)
		if (fs[i].rep == rep && fs[i].tunit > unit)
			unit = fs[i].tunit;
	return d <= rows * unit;
}

/* An nsys sqlite export with samples belongs to the capture of the CSVs:
 * the samples would be shown as theirs.  nsys stats reads the sqlite
 * export, so one capture's push/pop ranges are as many and sum to the
 * same ns in both (nvtx_sum, nvtx_pushpop_trace), and its kernels (the
 * summary) too, where the export has them; another capture's do not.  Then the same processes, GPUs of the same model.
 * Something must tie it: ranges or kernels. */
static void
check_sqlite(const struct file *fs, size_t n, const struct counts *c,
    const char *const *p)
{
	static const int rr[] = { R_NVTX_SUM, R_PUSHPOP };
	double cn, ct;
	size_t i, k;
	int tied;

	for (i = 0; i < n; i++) {
		const struct file *sq = &fs[i];

		if (sq->kind != K_SQLITE_GM)
			continue;
		tied = 0;
		if (sq->sq_ranges >= 0)
			sqlite_procs(fs, n, sq);
		for (k = 0; k < 2; k++) {
			if (!p[rr[k]])
				continue;
			counts_total(&c[rr[k]], &cn, &ct);
			if (sq->sq_ranges < 0)
				apart_sqlite(p[rr[k]], sq->path, "%.0f NVTX "
				    "push/pop ranges in the first, none in the "
				    "second (no table NVTX_EVENTS)", cn);
			if (cn != sq->sq_ranges || !same_rows(fs, n, rr[k], cn,
			    ct, sq->sq_range_ns))
				apart_sqlite(p[rr[k]], sq->path, "%.0f NVTX "
				    "push/pop ranges of %.0f ns in all in the "
				    "first, %.0f of %.0f ns in the second", cn, ct,
				    sq->sq_ranges, sq->sq_range_ns);
			tied = 1;
		}
		k = p[R_KSUM] ? R_KSUM : R_KSUM_M;
		if (p[k] && sq->sq_kerns >= 0) {
			counts_total(&c[k], &cn, &ct);
			if (cn != sq->sq_kerns || !same_rows(fs, n, (int)k, cn,
			    ct, sq->sq_kern_ns))
				apart_sqlite(p[k], sq->path, "%.0f kernel launches "
				    "of %.0f ns in all in the first, %.0f of %.0f "
				    "ns in the second", cn, ct, sq->sq_kerns,
				    sq->sq_kern_ns);
			tied = 1;
		}
		if (!tied)
			lp_die(LP_EXIT_DATA, "IMPORT: nothing ties %s to the CSV "
			    "exports: its GPU Metrics samples would be shown as "
			    "theirs on no evidence.  Import the nvtx_sum or "
			    "nvtx_pushpop_trace export of its capture with it "
			    "(nsys stats --report nvtx_pushpop_trace "
			    "REPORT.sqlite), whose ranges must be its own", sq->path);
		sqlite_gpus(fs, n, sq);
	}
}

/* Exports of different reports agree where they overlap. */
void
join_check_together(const struct file *fs, size_t n)
{
	struct counts c[R_N], sub = { 0 };
	const char *p[R_N];
	int r;

	memset(c, 0, sizeof c);
	sub.idx = lp_map_new();
	for (r = 0; r < R_N; r++) {
		c[r].idx = lp_map_new();
		merged(fs, n, r, &c[r], r == R_NVTX_KSUM ? &sub : NULL, &p[r]);
	}
	check_spellings(c, p);
	check_trace(fs, n, c, p);
	check_range_kernels(fs, n, c, p);
	check_ranges(c, &sub, p);
	check_sqlite(fs, n, c, p);
	for (r = 0; r < R_N; r++)
		counts_free(&c[r]);
	counts_free(&sub);
}
