/*
 * lp-aggr: aggregates.tsv, the run at a glance: GPU kernel time, launches
 * and distinct kernels of the whole capture (nsys cuda_gpu_kern_sum), of the
 * profiled stage (kernels.tsv), host CUDA API time and launch calls (nsys
 * cuda_api_sum), memory operations (nsys cuda_gpu_mem_time_sum), and how
 * many kernels ncu measured.  A report the run lacks is said, not zeroed.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"

static const char synopsis[] =
    "lp-aggr [-a cuda_api_sum.csv] [-g cuda_gpu_kern_sum.csv] "
    "[-m cuda_gpu_mem_time_sum.csv] [kernels.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static struct lp_row r;

static void
row(const char *metric, double v, const char *unit, const char *src)
{
	lp_row_text(&r, metric);
	lp_row_num(&r, v, 0);
	lp_row_text(&r, unit);
	lp_row_text(&r, src);
	lp_row_end(&r, out);
}

static void
na(const char *metric, const char *why)
{
	lp_row_text(&r, metric);
	lp_row_na(&r, "%s", why);
	lp_row_text(&r, "-");
	lp_row_text(&r, "-");
	lp_row_end(&r, out);
}

struct api {
	double total, calls, launch, top_t;
	char *top;
};

static void
api_row(const struct lp_rep_row *rr, void *ctx)
{
	struct api *a = ctx;
	double t = lp_rep_time(rr, 0), c = lp_rep_count(rr, 1);

	a->total += t;
	a->calls += c;
	if (strstr(rr->v[2], "LaunchKernel"))
		a->launch += c;
	if (t > a->top_t || !a->top) {
		free(a->top);
		a->top = lp_xstrdup(rr->v[2]);
		a->top_t = t;
	}
}

static void
mem_row(const struct lp_rep_row *rr, void *ctx)
{
	double *m = ctx;

	m[0] += lp_rep_time(rr, 0);
	m[1] += lp_rep_count(rr, 1);
}

static FILE *
xopen(const char *p)
{
	FILE *fp = fopen(p, "r");

	if (!fp)
		lp_die_sys("%s", p);
	return fp;
}

/* The profiled stage, summed over kernels.tsv. */
struct stage {
	double time, launches;	/* ns; launches ncu replayed */
	size_t kernels, with_metrics, unmatched;
};

static void
load_stage(struct lp_tsv *t, const char *kname, struct stage *s)
{
	int ct, cl;
	size_t i;

	ct = lp_csv_need(&t->hdr, "total_ns", "lp-kernjoin output");
	cl = lp_csv_col(&t->hdr, "ncu_launches");
	while (lp_tab_next(t)) {
		double v;

		if (!lp_tab_num(t, ct, &v) || v < 0)
			lp_die_at(LP_EXIT_DATA, kname, t->line, ct + 1, "total_ns: "
			    "expected a number from 0, got \"%s\"",
			    lp_tsv_get(t, ct));
		s->time += v;
		s->kernels++;
		if (lp_tab_num(t, cl, &v)) {
			s->with_metrics++;
			s->launches += v;
		}
	}
	for (i = 0; i < t->ncomments; i++)
		s->unmatched += !strncmp(t->comments[i], "unmatched:", 10);
}

static void
emit_meta(const struct lp_tsv *t, const char *gpath, const char *apath,
    const char *mpath, const char *kname)
{
	const char *pc = lp_tsv_comment(t, "process");

	static const struct lp_col cols[] = {
		{ "metric", "Metric", "text" }, { "value", "Value", "q" },
		{ "unit", "Unit", "hide" }, { "source", "Source", "text" },
	};

	lp_tab_meta(out, "title", "Aggregates");
	lp_tab_meta(out, "tool", "lp-aggr");
	lp_tab_meta(out, "source", "nsys reports (%s%s%s%s%s) and %s%s%s%s",
	    gpath ? gpath : "no cuda_gpu_kern_sum", ", ", apath ? apath :
	    "no cuda_api_sum", ", ", mpath ? mpath : "no cuda_gpu_mem_time_sum",
	    kname, pc ? " (the profiled stage's rows: process " : "", pc ? pc :
	    "", pc ? ")" : "");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
}

/* The whole capture's kernels (cuda_gpu_kern_sum). */
static void
emit_capture(const char *gpath)
{
	struct lp_ksum ks;
	FILE *g;

	if (!gpath) {
		na("GPU kernel time, whole capture", "the run has no "
		    "cuda_gpu_kern_sum report (nsys stats --report "
		    "cuda_gpu_kern_sum)");
		return;
	}
	g = xopen(gpath);
	lp_ksum_read(&ks, g, gpath, NULL, NULL);
	fclose(g);
	row("GPU kernel time, whole capture", ks.total_ns, "ns",
	    "nsys cuda_gpu_kern_sum");
	row("Kernel launches, whole capture", ks.calls, "count",
	    "nsys cuda_gpu_kern_sum");
	row("Distinct kernels, whole capture", (double)ks.n, "count",
	    "nsys cuda_gpu_kern_sum");
	if (ks.calls > 0)
		row("Mean kernel duration", ks.total_ns / ks.calls, "ns",
		    "nsys cuda_gpu_kern_sum");
	lp_ksum_free(&ks);
}

static void
emit_stage(const struct lp_tsv *t, const char *kname, const struct stage *s)
{
	struct lp_sb b = { 0 };

	lp_sb_printf(&b, "%s (%s)", kname, lp_tsv_comment(t, "time") ?
	    lp_tsv_comment(t, "time") : "nsys");
	/* a multi-GPU run's kernel tables show one process: say which */
	if (lp_tsv_comment(t, "process"))
		lp_sb_printf(&b, "; process %s", lp_tsv_comment(t, "process"));
	row("GPU kernel time, profiled stage", s->time, "ns", lp_sb_str(&b));
	row("Distinct kernels, profiled stage", (double)s->kernels, "count",
	    lp_sb_str(&b));
	lp_sb_free(&b);
}

/* The host's CUDA API calls (cuda_api_sum). */
static void
emit_api(const char *apath)
{
	static const char *const api_cols[] = { "Total Time", "Num Calls",
		"Name" };
	struct api a = { 0 };
	struct lp_sb b = { 0 };

	if (!apath) {
		na("CUDA API time on the host", "the run has no cuda_api_sum "
		    "report (nsys stats --report cuda_api_sum)");
		return;
	}
	lp_rep_file(apath, "nsys stats --report cuda_api_sum", api_cols, 3,
	    api_row, &a);
	row("CUDA API time on the host", a.total, "ns", "nsys cuda_api_sum");
	row("CUDA API calls", a.calls, "count", "nsys cuda_api_sum");
	row("Kernel launch calls", a.launch, "count", "nsys cuda_api_sum "
	    "(names with LaunchKernel)");
	if (a.top) {
		lp_sb_printf(&b, "Costliest CUDA API: %s", a.top);
		row(lp_sb_str(&b), a.top_t, "ns", "nsys cuda_api_sum");
	}
	lp_sb_free(&b);
	free(a.top);
}

/* Memory copies and sets (cuda_gpu_mem_time_sum). */
static void
emit_mem(const char *mpath)
{
	static const char *const mem_cols[] = { "Total Time", "Count",
		"Operation" };
	double mem[2] = { 0, 0 };

	if (!mpath) {
		na("GPU memory copies and sets", "the run has no "
		    "cuda_gpu_mem_time_sum report (nsys writes none when the "
		    "capture has no memory operations)");
		return;
	}
	lp_rep_file(mpath, "nsys stats --report cuda_gpu_mem_time_sum",
	    mem_cols, 3, mem_row, mem);
	row("GPU memory copies and sets, time", mem[0], "ns",
	    "nsys cuda_gpu_mem_time_sum");
	row("GPU memory copies and sets, operations", mem[1], "count",
	    "nsys cuda_gpu_mem_time_sum");
}

/* What ncu measured of the stage's kernels. */
static void
emit_ncu(const struct lp_tsv *t, const char *kname, const struct stage *s)
{
	struct lp_sb b = { 0 };

	lp_sb_printf(&b, "%s (%s)", kname, lp_tsv_comment(t, "metrics") ?
	    lp_tsv_comment(t, "metrics") : "no ncu step in this run");
	row("Kernels with ncu metrics", (double)s->with_metrics, "count",
	    lp_sb_str(&b));
	row("Launches replayed by ncu", s->launches, "count", lp_sb_str(&b));
	if (s->unmatched)
		row("ncu kernels matched to no nsys kernel",
		    (double)s->unmatched, "count", lp_sb_str(&b));
	lp_sb_free(&b);
}

int
main(int argc, char **argv)
{
	const char *apath = NULL, *gpath = NULL, *mpath = NULL, *kname = NULL;
	struct stage st = { 0 };
	struct lp_tsv t;
	int c;
	FILE *fp;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "a:g:m:", synopsis)) != -1) {
		switch (c) {
		case 'a': apath = optarg; break;
		case 'g': gpath = optarg; break;
		case 'm': mpath = optarg; break;
		}
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &kname);
	lp_tsv_open(&t, fp, kname);
	lp_tab_expect(&t, "lp-kernjoin");
	load_stage(&t, kname, &st);
	emit_meta(&t, gpath, apath, mpath, kname);
	emit_capture(gpath);
	emit_stage(&t, kname, &st);
	emit_api(apath);
	emit_mem(mpath);
	emit_ncu(&t, kname, &st);
	lp_sb_free(&r.b);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_tab_done(out);
	return 0;
}
