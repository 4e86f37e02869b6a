/*
 * lp-overlap: overlap.tsv, how much of each GPU's communication overlaps
 * its compute, from the start and end of every kernel (nsys
 * cuda_gpu_trace): per device, the time a communication kernel ran (the
 * comm classes of operators.yaml), the time a compute kernel ran, the
 * time both ran at once, and the communication left exposed.  Times are
 * unions of intervals, so kernels on several streams are not counted
 * twice.  One pass; memory grows with the kernels running at once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-overlap -o operators.yaml [-x | cuda_gpu_trace.csv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

enum { MAX_DEV = 1024 };

struct end {
	double t;
	int comm;
};

struct dev {
	char *name;
	struct end *h;		/* min-heap of the running kernels' ends */
	size_t nh, caph;
	int run[2];		/* running compute, communication kernels */
	double now, first, last;
	double busy, comm, comp, both;
	double kernels, commk;
};

struct st {
	struct dev d[MAX_DEV];
	size_t n;
	struct lp_map *idx;	/* device name -> index in d */
	const struct lp_ops *ops;
	double memops;
};

static void
push(struct dev *d, double t, int comm)
{
	size_t i;

	if (d->nh == d->caph) {
		d->caph = d->caph ? 2 * d->caph : 16;
		d->h = lp_xreallocarray(d->h, d->caph, sizeof *d->h);
	}
	for (i = d->nh++; i && d->h[(i - 1) / 2].t > t; i = (i - 1) / 2)
		d->h[i] = d->h[(i - 1) / 2];
	d->h[i].t = t;
	d->h[i].comm = comm;
}

static struct end
pop(struct dev *d)
{
	struct end top = d->h[0], last = d->h[--d->nh];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < d->nh) {
		if (c + 1 < d->nh && d->h[c + 1].t < d->h[c].t)
			c++;
		if (d->h[c].t >= last.t)
			break;
		d->h[i] = d->h[c];
		i = c;
	}
	if (d->nh)
		d->h[i] = last;
	return top;
}

/* Time from d->now to t, counted by what ran in it. */
static void
span(struct dev *d, double t)
{
	double dt = t - d->now;

	if (dt > 0) {
		if (d->run[0] || d->run[1])
			d->busy += dt;
		if (d->run[1])
			d->comm += dt;
		if (d->run[0])
			d->comp += dt;
		if (d->run[0] && d->run[1])
			d->both += dt;
		d->now = t;
	}
}

/* Ends every kernel that ended by t. */
static void
advance(struct dev *d, double t)
{
	while (d->nh && d->h[0].t <= t) {
		struct end e = pop(d);

		span(d, e.t);
		d->run[e.comm]--;
	}
	span(d, t);
}

static void
trace_row(const struct lp_rep_row *rr, void *ctx)
{
	struct st *s = ctx;
	const char *dv = rr->v[2], *name = rr->v[3];
	double start = lp_rep_time(rr, 0), dur = lp_rep_time(rr, 1);
	struct dev *d;
	long i;
	int comm;

	if (!strncmp(name, "[CUDA ", 6)) {	/* memcpy, memset */
		s->memops++;
		return;
	}
	if (!*dv)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1,
		    "Device: empty for a kernel");
	if ((i = lp_map_get(s->idx, dv, -1)) >= 0)
		d = &s->d[i];
	else {
		if (s->n == MAX_DEV)
			lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[2] + 1,
			    "more than %d devices", MAX_DEV);
		lp_map_put(s->idx, dv, (long)s->n);
		d = &s->d[s->n++];
		d->name = lp_xstrdup(dv);
		d->now = d->first = start;
	}
	if (start < d->now)
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, rr->col[0] + 1,
		    "kernel starts at %.0f ns, before the one above it on %s "
		    "(the trace must be sorted by Start: lp-tracesort sorts it)",
		    start, dv);
	advance(d, start);
	comm = lp_ops_is_comm(s->ops, name);
	push(d, start + dur, comm);
	d->run[comm]++;
	d->kernels++;
	d->commk += comm;
	if (start + dur > d->last)
		d->last = start + dur;
}

static int
by_name(const void *x, const void *y)
{
	return strcmp(((const struct dev *)x)->name,
	    ((const struct dev *)y)->name);
}

static const struct lp_col cols[] = {
	{ "device", "GPU", "text" },
	{ "kernels", "Kernels", "int" },
	{ "comm_kernels", "Communication kernels", "int" },
	{ "span_ns", "First to last kernel (ms)", "ms" },
	{ "busy_ns", "Kernel busy (ms)", "ms" },
	{ "comm_ns", "Communication (ms)", "ms" },
	{ "compute_ns", "Compute (ms)", "ms" },
	{ "overlap_ns", "Both at once (ms)", "ms" },
	{ "overlap_pct", "Communication overlapped", "pct" },
	{ "exposed_ns", "Communication exposed (ms)", "ms" },
	{ "comm_pct", "Communication share of busy", "pct" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* -x: the run has no trace; the table says why. */
static void
emit_no_trace(void)
{
	struct lp_row r = { 0 };

	lp_tab_meta(out, "title", "Communication and Compute Overlap");
	lp_tab_meta(out, "tool", "lp-overlap");
	lp_tab_meta(out, "source", "none: the run has no nsys "
	    "cuda_gpu_trace report");
	lp_tab_meta(out, "omit", "no trace");
	lp_tab_header(out, cols, NCOLS);
	lp_row_na(&r, "the run has no nsys cuda_gpu_trace report "
	    "(nsys stats --report cuda_gpu_trace)");
	lp_row_end_na(&r, NCOLS, out);
	lp_sb_free(&r.b);
}

/* Every kernel of the trace into its device's unions; the devices by
 * name. Returns the number of communication kernels. */
static double
load_trace(struct st *s, const char *path)
{
	static const char *const cols_in[] = { "Start", "Duration", "Device",
		"Name" };
	double ncomm = 0;
	size_t i;

	lp_rep_file(path, "nsys stats --report cuda_gpu_trace", cols_in, 4,
	    trace_row, s);
	for (i = 0; i < s->n; i++) {
		advance(&s->d[i], INFINITY);
		ncomm += s->d[i].commk;
	}
	if (!s->n)
		lp_die(LP_EXIT_DATA, "%s: no kernel in the trace (%.0f memory "
		    "operations)", path, s->memops);
	lp_qsort(s->d, s->n, sizeof s->d[0], by_name);
	return ncomm;
}

static void
emit_meta(const struct st *s, const char *path, const char *opath,
    double ncomm)
{
	lp_tab_meta(out, "title", "Communication and Compute Overlap");
	lp_tab_meta(out, "tool", "lp-overlap");
	lp_tab_meta(out, "source", "start and duration of every kernel of "
	    "the whole capture, per device, from nsys cuda_gpu_trace (%s); "
	    "communication = the comm classes of %s", path, opath);
	lp_tab_meta(out, "note", "Times are unions: a span where two "
	    "kernels run counts once. Overlapped = time a communication and "
	    "a compute kernel ran at once, over communication time; exposed = "
	    "communication time with no compute beside it. Memory copies and "
	    "sets (%.0f) are left out.", s->memops);
	if (s->n < 2 && !ncomm)
		lp_tab_meta(out, "omit", "one GPU without communication");
	lp_tab_header(out, cols, NCOLS);
}

/* A row per device; frees the devices as it goes. */
static void
emit_devices(struct st *s)
{
	struct lp_row r = { 0 };
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct dev *d = &s->d[i];

		lp_row_text(&r, d->name);
		lp_row_num(&r, d->kernels, 0);
		lp_row_num(&r, d->commk, 0);
		lp_row_num(&r, d->last - d->first, 0);
		lp_row_num(&r, d->busy, 0);
		lp_row_num(&r, d->comm, 0);
		lp_row_num(&r, d->comp, 0);
		lp_row_num(&r, d->both, 0);
		lp_row_share(&r, d->both, d->comm,
		    "no communication kernel ran on this GPU");
		lp_row_num(&r, d->comm - d->both, 0);
		lp_row_share(&r, d->comm, d->busy, "no kernel time");
		lp_row_end(&r, out);
		free(d->name);
		free(d->h);
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	const char *opath = NULL, *path;
	struct lp_ops ops;
	struct st *s;
	int c, none = 0;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "o:x", synopsis)) != -1) {
		switch (c) {
		case 'o': opath = optarg; break;
		case 'x': none = 1; break;
		}
	}
	if (!opath || argc - optind > 1 || (none && optind < argc))
		lp_usage(synopsis);
	path = optind < argc ? argv[optind] : "-";
	s = lp_xcalloc(1, sizeof *s);
	s->idx = lp_map_new();
	lp_ops_load(&ops, opath);
	s->ops = &ops;
	if (none)
		emit_no_trace();
	else {
		double ncomm = load_trace(s, path);

		emit_meta(s, path, opath, ncomm);
		emit_devices(s);
	}
	lp_map_free(s->idx);
	free(s);
	lp_ops_free(&ops);
	lp_tab_done(out);
	return 0;
}
