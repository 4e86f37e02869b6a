/*
 * lp-topn: the kernels that dominate an nsys kernel summary, ranked by total
 * GPU time, as TSV, as an ncu --kernel-name regex, or as bare names.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-topn [-f tsv|regex|names] [-H hostside.tsv] [-i injected.tsv] [-n N] "
    "[-P PID] [-p PCT] [-r RANGE] [-S N] [-s shapes.tsv] [-x operators.yaml] "
    "[file]";

struct opts {
	const char *fmt, *range, *xpath, *pid, *spath, *ipath;
	long n, npairs;
	double pct;
};

/* -s given, but its table says why it has no configurations (no trace):
 * the kernels instead, with that reason in the table's # lines. */
static const char *unavail;
static char *child_why;	/* -i's reason, when it is the one */

/*
 * With -i: where the CUDA work ran in processes other than the one nsys
 * launched (an engine core that a front end started), why the pairs are
 * not selected.  ncu's per-launch-config filter there makes every later
 * launch of a selected kernel wait 75 to 100 ms (H100, ncu 2025.3.1: a
 * decode step of 7.7 s against 0.6 s; tests/gpu/README.md), as any filter
 * does while ncu is in two processes (H200: a compiled decode and its
 * compile worker), so ncu profiles the first launch of each kernel and
 * stops the workload itself (--kill).  Caller frees.
 */
static char *
child_cuda(const char *path)
{
	struct lp_sb b = { 0 };
	long long launched;
	char *cu;

	if (lp_injected(path, &launched, &cu) == LP_INJ_ELSEWHERE)
		lp_sb_printf(&b, "the CUDA work ran in process %s, not in the "
		    "one nsys launched (%lld; %s): ncu's per-launch-config "
		    "filter makes each later launch there wait 75 to 100 ms "
		    "(as any filter does while ncu is in two processes), so "
		    "the first launch of each kernel, and ncu stops the "
		    "workload", cu, launched, path);
	free(cu);
	return b.len ? lp_sb_steal(&b) : NULL;
}

/* The kernels lp keeps: all but, with -x, the communication kernels (NCCL);
 * shares stay of all.  Caller frees. */
static struct lp_kern *
keep_kernels(const struct lp_ksum *ks, const char *xpath, size_t *nk)
{
	struct lp_kern *kept = lp_xcalloc(ks->n + 1, sizeof *kept);
	struct lp_ops ops;
	size_t i;

	if (xpath)
		lp_ops_load(&ops, xpath);
	*nk = 0;
	for (i = 0; i < ks->n; i++)
		if (!xpath || !lp_ops_is_comm(&ops, ks->k[i].name))
			kept[(*nk)++] = ks->k[i];
	if (xpath)
		lp_ops_free(&ops);
	return kept;
}

/* How many to show: -n 0 keeps all; -p stops at the kernel whose share
 * crosses PCT. */
static size_t
count_top(const struct lp_ksum *ks, const struct lp_kern *kept, size_t nk,
    long n, double pct)
{
	size_t i, keep = n ? (size_t)n < nk ? (size_t)n : nk : nk;
	double cum = 0;

	if (pct > 0)
		for (i = 0; i < keep; i++) {
			cum += ks->total_ns > 0 ? 100.0 * kept[i].total_ns /
			    ks->total_ns : 0;
			if (cum >= pct - 1e-9)
				return i + 1;
		}
	return keep;
}

static void
emit_regex(const struct lp_kern *kept, size_t keep)
{
	char **names = lp_xcalloc(keep, sizeof *names);
	struct lp_sb b = { 0 };
	size_t i;

	for (i = 0; i < keep; i++)
		names[i] = kept[i].name;
	lp_sel_regex(&b, names, keep);
	puts(lp_sb_str(&b));
	lp_sb_free(&b);
	free(names);
}

/* topn.tsv: what it was read from, then one row a kernel. */
static void
emit_tsv(const struct lp_ksum *ks, const struct lp_kern *kept, size_t keep,
    const char *name, const struct opts *o)
{
	FILE *out = lp_tab_out();
	struct lp_row r = { 0 };
	double cum = 0;
	size_t i;

	lp_tab_meta(out, "tool", "lp-topn");
	lp_tab_meta(out, "source", "nsys %s (%s)%s%s%s%s", ks->report, name,
	    o->range ? ", NVTX range " : "", o->range ? o->range : "",
	    o->pid && *o->pid ? ", process " : "", o->pid ? o->pid : "");
	if (unavail)
		lp_tab_meta(out, "shapes", "n/a because %s: the top %zu kernels, "
		    "one launch each", unavail, keep);
	lp_tab_meta(out, "kernels", "%zu", keep);
	fputs("rank\tkernel\ttotal_ns\tcalls\tavg_ns\tpct\tcum_pct\n", out);
	for (i = 0; i < keep; i++) {
		const struct lp_kern *k = &kept[i];
		double share = ks->total_ns > 0 ? 100.0 * k->total_ns /
		    ks->total_ns : 0;

		cum += share;
		lp_row_num(&r, i + 1, 0);
		lp_row_text(&r, k->name);
		lp_row_num(&r, k->total_ns, 0);
		lp_row_num(&r, k->calls, 0);
		lp_row_num(&r, k->calls > 0 ? k->total_ns / k->calls : 0, 1);
		lp_row_num(&r, share, 2);
		lp_row_num(&r, fmin(cum, 100.0), 2);
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
	lp_tab_done(out);
}

/* With -s: the table's sources and what it selects. */
static void
shapes_meta(FILE *out, const struct lp_ksum *ks, const char *name,
    const struct opts *o)
{
	lp_tab_meta(out, "tool", "lp-topn");
	lp_tab_meta(out, "source", "nsys %s (%s)%s%s%s%s; launch configurations "
	    "from %s", ks->report, name, o->range ? ", NVTX range " : "",
	    o->range ? o->range : "", o->pid && *o->pid ? ", process " : "",
	    o->pid ? o->pid : "", o->spath);
	lp_tab_meta(out, "select", "the (kernel, launch configuration) pairs "
	    "with the most GPU time in the stage, until they carry %g %% of it "
	    "or %ld pairs%s", o->pct > 0 ? o->pct : 100, o->npairs, o->xpath ?
	    "; communication kernels left out" : "");
}

/* Every row of shapes.tsv: its kernel, the start of its first launch in
 * the stage (first_ns, -1 where the table has none) and whether it is
 * kept. */
struct cfgs {
	struct cfg {
		char *k;
		double first;
		int sel;
	} *a;
	size_t n, cap;
};

static void
cfg_add(struct cfgs *cs, struct lp_tsv *t, const char *k, int cf,
    const char *path)
{
	struct cfg *c;

	cs->a = lp_grow(cs->a, cs->n, &cs->cap, 32, sizeof *cs->a);
	c = &cs->a[cs->n++];
	c->k = lp_xstrdup(k);
	c->first = -1;
	c->sel = 0;
	if (cf >= 0 && !lp_tab_num(t, cf, &c->first))
		lp_die_at(LP_EXIT_DATA, path, t->line, cf + 1,
		    "first_ns: expected a number");
}

/* The selection's # lines and the header.  "# configs:", the launch
 * configurations of the kept kernels in the stage, kept or not: what
 * ncu's per-launch-config filter profiles, once each.  "# stop:", where
 * it has profiled every pair kept: it meets the configurations in the
 * order the stage first launches them, so the count up to the last kept
 * pair's first launch; configurations first launched after it (a rare
 * shape late in the stage) are not waited for.  No "# stop:" without
 * first_ns.  cum: the share of the stage the pairs carry. */
static void
cfg_meta(FILE *out, const struct lp_map *kerns, const struct cfgs *cs,
    double cum)
{
	double last = -1;
	long n = 0, stop = 0;
	size_t i;

	for (i = 0; i < cs->n; i++)
		if (cs->a[i].sel && cs->a[i].first > last)
			last = cs->a[i].first;
	for (i = 0; i < cs->n; i++) {
		if (!lp_map_get(kerns, cs->a[i].k, 0))
			continue;
		n++;
		stop += cs->a[i].first >= 0 && cs->a[i].first <= last;
	}
	lp_tab_meta(out, "kernels", "%zu", lp_map_len(kerns));
	lp_tab_meta(out, "configs", "%ld", n);
	if (last >= 0)
		lp_tab_meta(out, "stop", "%ld", stop);
	lp_tab_meta(out, "cover", "%.2f", fmin(cum, 100.0));
	fputs("rank\tkernel\tgrid\tblock\ttotal_ns\tcalls\tavg_ns\tpct\t"
	    "cum_pct\n", out);
}

static void
cfg_free(struct cfgs *cs)
{
	size_t i;

	for (i = 0; i < cs->n; i++)
		free(cs->a[i].k);
	free(cs->a);
}

/* A pair kept: its rank, kernel, grid and block (columns c[0..2]), its
 * numbers v and the cumulative share. */
static void
shape_row(struct lp_row *r, FILE *body, size_t rank, struct lp_tsv *t,
    const int *c, const double *v, double cum)
{
	size_t i;

	lp_row_num(r, (double)rank, 0);
	for (i = 0; i < 3; i++)
		lp_row_text(r, lp_tsv_get(t, c[i]));
	lp_row_num(r, v[0], 0);
	lp_row_num(r, v[1], 0);
	lp_row_num(r, v[2], 1);
	lp_row_num(r, v[3], 2);
	lp_row_num(r, fmin(cum, 100.0), 2);
	lp_row_end(r, body);
}

/* With -s: the (kernel, launch configuration) pairs of lp-shapes(1)'s
 * table, largest first, of the kernels kept, until -p's share of the
 * stage's kernel time or -n pairs. */
static void
emit_shapes(struct lp_tsv *t, const struct lp_ksum *ks,
    const struct lp_kern *kept, size_t nk, const char *name,
    const struct opts *o)
{
	FILE *out = lp_tab_out(), *body;
	char *buf = NULL;
	size_t blen = 0;
	struct lp_map *keep = lp_map_new(), *kerns = lp_map_new();
	struct cfgs cs = { 0 };
	struct lp_row r = { 0 };
	double cum = 0, v[5], all = 0;
	size_t i, n = 0;
	int c[9], cf;
	static const char *const cols[] = { "kernel", "grid", "block",
		"total_ns", "calls", "avg_ns", "pct" };

	for (i = 0; i < nk; i++)
		lp_map_put(keep, kept[i].name, 1);
	for (i = 0; i < 7; i++)
		c[i] = lp_csv_need(&t->hdr, cols[i], "lp-shapes output");
	cf = lp_csv_col(&t->hdr, "first_ns");
	shapes_meta(out, ks, name, o);
	if (!(body = open_memstream(&buf, &blen)))
		lp_die(LP_EXIT_USAGE, "open_memstream: %s", strerror(errno));
	while (lp_tab_next(t)) {
		const char *k = lp_tsv_get(t, c[0]);

		for (i = 0; i < 4; i++)
			if (!lp_tab_num(t, c[3 + i], &v[i]))
				lp_die_at(LP_EXIT_DATA, o->spath, t->line, c[3 + i] + 1,
				    "%s: expected a number", cols[3 + i]);
		all += v[0];
		cfg_add(&cs, t, k, cf, o->spath);
		if (!lp_map_get(keep, k, 0) || (o->npairs && n >= (size_t)o->npairs) ||
		    (o->pct > 0 && cum >= o->pct - 1e-9))
			continue;
		cs.a[cs.n - 1].sel = 1;
		cum += v[3];
		lp_map_put(kerns, k, 1);
		shape_row(&r, body, ++n, t, c, v, cum);
	}
	if (fclose(body))
		lp_die(LP_EXIT_USAGE, "open_memstream: %s", strerror(errno));
	if (fabs(all - ks->total_ns) > fmax(1e3, 0.01 * ks->total_ns))
		lp_die_at(LP_EXIT_DATA, o->spath, 0, 0, "its shapes carry %.0f ns, "
		    "%s %.0f ns: not the same stage", all, name, ks->total_ns);
	if (!n)
		lp_die_at(LP_EXIT_DATA, o->spath, 0, 0, "no launch configuration "
		    "of a kept kernel");
	cfg_meta(out, kerns, &cs, cum);
	fwrite(buf, 1, blen, out);
	free(buf);
	lp_map_free(keep);
	lp_map_free(kerns);
	cfg_free(&cs);
	lp_sb_free(&r.b);
	lp_tab_done(out);
}

/* The first keep of the kernels kept, in -f's format; with -s, their launch
 * configurations, or the whole selection where shapes.tsv says why it
 * has none. */
static void
emit(const struct lp_ksum *ks, const struct lp_kern *kept, size_t nk,
    size_t keep, const char *name, const struct opts *o)
{
	struct lp_tsv st;
	FILE *sfp = NULL;
	size_t i;

	if (o->spath && strcmp(o->fmt, "tsv"))
		lp_die(LP_EXIT_USAGE, "-s: the pairs are TSV only (-f tsv)");
	if (o->spath) {
		sfp = lp_tab_open(&st, o->spath, "lp-shapes");
		lp_tab_expect(&st, "lp-shapes");
		if ((unavail = lp_tsv_comment(&st, "unavailable")))
			keep = count_top(ks, kept, nk, o->n, 0);
	}
	if (o->spath && !unavail && o->ipath &&
	    (unavail = child_why = child_cuda(o->ipath)))
		keep = count_top(ks, kept, nk, o->n, 0);
	if (o->spath && !unavail) {
		emit_shapes(&st, ks, kept, nk, name, o);
	} else if (!strcmp(o->fmt, "tsv")) {
		emit_tsv(ks, kept, keep, name, o);
	} else {
		if (!strcmp(o->fmt, "regex"))
			emit_regex(kept, keep);
		else
			for (i = 0; i < keep; i++)
				puts(kept[i].name);
		lp_close_stdout();
	}
	if (sfp) {
		lp_tsv_close(&st);
		fclose(sfp);
	}
}

int
main(int argc, char **argv)
{
	struct opts o = { "tsv", NULL, NULL, NULL, NULL, NULL, 10, 40, 0 };
	struct lp_ksum ks;
	struct lp_kern *kept;
	const char *name, *hpath = NULL;
	size_t keep, nk;
	FILE *fp;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "f:H:i:n:P:p:r:S:s:x:", synopsis)) != -1) {
		switch (c) {
		case 'f': o.fmt = optarg; break;
		case 'H': hpath = optarg; break;
		case 'i': o.ipath = optarg; break;
		case 'n': o.n = lp_strtonum(optarg, 0, 1000000, "-n"); break;
		case 'P': o.pid = optarg; break;
		case 'p': o.pct = lp_strtopct(optarg, "-p"); break;
		case 'r': o.range = optarg; break;
		case 'S': o.npairs = lp_strtonum(optarg, 0, 1000000, "-S"); break;
		case 's': o.spath = optarg; break;
		case 'x': o.xpath = optarg; break;
		}
	}
	if (strcmp(o.fmt, "tsv") && strcmp(o.fmt, "regex") &&
	    strcmp(o.fmt, "names"))
		lp_die(LP_EXIT_USAGE, "-f: expected tsv, regex or names, got \"%s\"",
		    o.fmt);
	if (argc - optind > 1)
		lp_usage(synopsis);
	if (hpath && !o.range)
		lp_die(LP_EXIT_USAGE, "-H needs -r: the stage's range");
	if (hpath)
		lp_ksum_check(hpath, o.range);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_ksum_read(&ks, fp, name, o.range, o.pid);
	lp_close_in(fp);
	lp_ksum_sort(&ks);
	kept = keep_kernels(&ks, o.xpath, &nk);
	keep = count_top(&ks, kept, nk, o.n, o.pct);
	emit(&ks, kept, nk, keep, name, &o);
	free(kept);
	free(child_why);
	lp_ksum_free(&ks);
	return 0;
}
