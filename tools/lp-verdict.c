/*
 * lp-verdict: compare_verdict.tsv, the few sentences that open compare.md:
 * how the runs differ (above everything, since every change is read in
 * that light), each stage's change with its significance and whether the
 * GPU kernels or the host account for it, the kernels whose time per
 * launch moved most, and the kernels that vanished or appeared, by short
 * name with counts.  It reads lp-stagediff's and lp-diff's tables and
 * computes nothing they do not show (lp-verdict(1)).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"

static const char synopsis[] = "lp-verdict [-n N] compare_stages.tsv compare.tsv";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static const char *const known[] = { "prefill", "decode_all", "decode_step" };

/* One metric of one stage: before, after, significance text. */
struct m {
	double x, y;
	int have;
	char *sig;
};

enum { M_STEADY, M_MEDIAN, M_KERN, M_WSTEP, M_KSTEP, M_N };
static const char *const mnames[M_N] = {
	"steady state", "wall time, median", "GPU kernel time / instance",
	"wall time / decode step", "GPU kernel time / decode step",
};

struct stage {
	struct m m[M_N];
	int seen;
};

/* A kernel row of compare.tsv. */
struct kr {
	char *kernel, *name, *status;
	double t[2], calls[2], mean[2];
	int have_mean;
};

struct verdict {
	struct stage st[3];
	struct lp_sb differ;	/* "GPU (A before, B after); ..." */
	int steps_differ;
	struct kr *k;
	size_t nk;
	char *match;		/* "mangled names", from compare.tsv */
	const char *stages_file, *kernels_file;
};

static void
read_stages(struct verdict *v, const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "make RUN=... BASE=... compare_stages.tsv");
	int cs = lp_csv_need(&t.hdr, "stage", "lp-stagediff output");
	int cm = lp_csv_need(&t.hdr, "metric", "lp-stagediff output");
	int cb = lp_csv_need(&t.hdr, "before", "lp-stagediff output");
	int ca = lp_csv_need(&t.hdr, "after", "lp-stagediff output");
	int cg = lp_csv_need(&t.hdr, "significant", "lp-stagediff output");
	size_t i, j;

	lp_tab_expect(&t, "lp-stagediff");
	lp_tab_key(&t, "stage metric");
	v->stages_file = path;
	/* "# differ: SETTING<tab>BEFORE<tab>AFTER" lines: how the runs differ */
	for (i = 0; i < t.ncomments; i++) {
		const char *c = t.comments[i];
		const char *t1, *t2;

		if (strncmp(c, "differ: ", 8))
			continue;
		c += 8;
		if (!(t1 = strchr(c, '\t')) || !(t2 = strchr(t1 + 1, '\t')))
			lp_die_at(LP_EXIT_DATA, path, 0, 0, "a \"# differ:\" line "
			    "without three fields");
		lp_sb_printf(&v->differ, "%s%.*s (%.*s before, %s after)",
		    v->differ.len ? "; " : "", (int)(t1 - c), c,
		    (int)(t2 - t1 - 1), t1 + 1, t2 + 1);
		if (!strncmp(c, "decode steps in the trace\t", 26))
			v->steps_differ = 1;
	}
	while (lp_tab_next(&t)) {
		const char *stage = lp_tsv_get(&t, cs);
		const char *metric = lp_tsv_get(&t, cm);

		for (i = 0; i < 3 && strcmp(stage, known[i]); i++)
			;
		if (i == 3)
			continue;
		v->st[i].seen = 1;
		for (j = 0; j < M_N && strcmp(metric, mnames[j]); j++)
			;
		if (j == M_N)
			continue;
		if (lp_num_get(lp_tsv_get(&t, cb), &v->st[i].m[j].x) &&
		    lp_num_get(lp_tsv_get(&t, ca), &v->st[i].m[j].y)) {
			v->st[i].m[j].have = 1;
			free(v->st[i].m[j].sig);
			v->st[i].m[j].sig = lp_xstrdup(lp_tsv_get(&t, cg));
		}
	}
	lp_tsv_close(&t);
	fclose(fp);
}

static void
read_kernels(struct verdict *v, const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "make RUN=... BASE=... compare.tsv");
	int ck = lp_csv_need(&t.hdr, "kernel", "lp-diff output");
	int cn = lp_csv_need(&t.hdr, "name", "lp-diff output");
	int cs = lp_csv_need(&t.hdr, "status", "lp-diff output");
	int c[6];
	const char *src = lp_tsv_comment(&t, "source");
	const char *m = src ? strstr(src, "matched on ") : NULL;
	size_t q;

	static const char *const cols[6] = { "before_ns", "after_ns",
		"before_calls", "after_calls", "before_mean_ns", "after_mean_ns" };

	lp_tab_expect(&t, "lp-diff");
	lp_tab_key(&t, "kernel status");
	for (q = 0; q < 6; q++)
		c[q] = lp_csv_need(&t.hdr, cols[q], "lp-diff output");
	v->kernels_file = path;
	v->match = m ? lp_xstrdup(m + 11) : NULL;
	while (lp_tab_next(&t)) {
		struct kr *k;

		v->k = lp_xreallocarray(v->k, v->nk + 1, sizeof *v->k);
		k = &v->k[v->nk++];
		memset(k, 0, sizeof *k);
		k->kernel = lp_xstrdup(lp_tsv_get(&t, ck));
		k->name = lp_xstrdup(lp_tsv_get(&t, cn));
		k->status = lp_xstrdup(lp_tsv_get(&t, cs));
		for (q = 0; q < 2; q++) {
			if (!lp_tab_num(&t, c[q], &k->t[q]))
				k->t[q] = NAN;
			if (!lp_tab_num(&t, c[2 + q], &k->calls[q]))
				k->calls[q] = NAN;
		}
		k->have_mean = lp_tab_num(&t, c[4], &k->mean[0]) &&
		    lp_tab_num(&t, c[5], &k->mean[1]);
	}
	lp_tsv_close(&t);
	fclose(fp);
}

static void
item(const char *finding, const char *artifact)
{
	struct lp_row r = { 0 };

	lp_row_text(&r, finding);
	lp_row_text(&r, artifact);
	lp_row_end(&r, out);
	lp_sb_free(&r.b);
}

/* "2.61x slower" / "1.31x faster" / "unchanged (within 1 %)" */
static void
ratio(struct lp_sb *b, double x, double y)
{
	if (x > 0 && y > 0 && fabs(y / x - 1) < 0.01)
		lp_sb_adds(b, "unchanged (within 1 %)");
	else if (x > 0 && y > x)
		lp_sb_printf(b, "%.3gx slower", y / x);
	else if (y > 0 && x > y)
		lp_sb_printf(b, "%.3gx faster", x / y);
	else
		lp_sb_adds(b, "changed");
}

static void
span(struct lp_sb *b, double x, double y)
{
	lp_fmt_time(b, x);
	lp_sb_adds(b, " -> ");
	lp_fmt_time(b, y);
}

static const char *
sigtext(const char *s)
{
	static struct lp_sb b;
	const char *w = strstr(s, "no spread: ");

	if (!strncmp(s, "yes", 3))
		return "significant (outside the spread of the instances)";
	if (!strncmp(s, "no", 2))
		return "not significant (within the spread of the instances)";
	/* lp-stagediff's reason: one instance, or no per-instance trace */
	lp_sb_reset(&b);
	lp_sb_printf(&b, "significance not known (%.*s: no spread to test "
	    "against)", w ? (int)strcspn(w + 11, ")") : 12, w ? w + 11 :
	    "one instance");
	return lp_sb_str(&b);
}

/* How far a stage moved: |log after/before| of its main time. */
struct pick {
	size_t stage;
	int wall, kern;		/* M_* indices */
	double size;
};

static int
by_size(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->stage < b->stage ? -1 : a->stage > b->stage;
}

static void
stage_item(const struct verdict *v, const struct pick *p)
{
	const struct m *w = &v->st[p->stage].m[p->wall];
	const struct m *k = &v->st[p->stage].m[p->kern];
	struct lp_sb b = { 0 };

	lp_sb_printf(&b, "%s %s ", known[p->stage], mnames[p->wall]);
	span(&b, w->x, w->y);
	lp_sb_adds(&b, ", ");
	ratio(&b, w->x, w->y);
	lp_sb_printf(&b, ", %s", sigtext(w->sig));
	if (k->have && !(w->x > 0 && w->y > 0 && fabs(w->y / w->x - 1) < 0.01)) {
		double dw = w->y - w->x, dk = k->y - k->x;

		lp_sb_printf(&b, "; %s ", mnames[p->kern]);
		span(&b, k->x, k->y);
		if (k->x > 0)
			lp_sb_printf(&b, " (%+.0f %%)", 100 * (k->y / k->x - 1));
		if (dw * dk > 0 && fabs(dk) >= 0.5 * fabs(dw))
			lp_sb_printf(&b, ": the GPU kernels account for %.0f %% of "
			    "the change", 100 * fmin(fabs(dk / dw), 1));
		else
			lp_sb_printf(&b, ": the %s is on the host (the GPU "
			    "kernels account for %s of it)", dw > 0 ? "slowdown" :
			    "speed-up", dw * dk > 0 ? "less than half" : "none");
	}
	lp_sb_addc(&b, '.');
	item(lp_sb_str(&b), v->stages_file);
	lp_sb_free(&b);
}

/* At most this many names a list of kernels that vanished or appeared. */
enum { MOVED_MAX = 5 };

/* Kernels that vanished (or appeared), grouped by short name. */
static void
gone_item(const struct verdict *v, const char *status, int side,
    const char *what)
{
	struct lp_sb b = { 0 }, list = { 0 };
	char **base = lp_xcalloc(v->nk + 1, sizeof *base);
	size_t i, j, n = 0, listed = 0, more = 0;

	for (i = 0; i < v->nk; i++)
		if (!strcmp(v->k[i].status, status)) {
			base[i] = lp_kname_label(v->k[i].kernel);
			n++;
		}
	for (i = 0; i < v->nk; i++) {
		double calls = 0;
		size_t cnt = 0;

		if (!base[i] || !*base[i])
			continue;
		for (j = i; j < v->nk; j++)
			if (base[j] && !strcmp(base[j], base[i])) {
				if (!isnan(v->k[j].calls[side]))
					calls += v->k[j].calls[side];
				cnt++;
				if (j > i)
					*base[j] = '\0';	/* counted */
			}
		/* the first few names; the rest counted (each a row of the
		 * kernel table) */
		if (listed++ >= MOVED_MAX) {
			more += cnt;
			continue;
		}
		lp_sb_adds(&list, list.len ? ", " : "");
		lp_md_code(&list, base[i], 0);
		if (cnt > 1)
			lp_sb_printf(&list, " x%zu", cnt);
		lp_sb_printf(&list, " (%.0f launch%s)", calls, calls == 1 ? "" :
		    "es");
	}
	if (more)
		lp_sb_printf(&list, " and %zu more (each a row of %s)", more,
		    strrchr(v->kernels_file, '/') ? strrchr(v->kernels_file,
		    '/') + 1 : v->kernels_file);
	if (n) {
		lp_sb_printf(&b, "%zu kernel%s %s (%s): %s.", n, n == 1 ? "" : "s",
		    status, what, lp_sb_str(&list));
		item(lp_sb_str(&b), v->kernels_file);
	}
	for (i = 0; i < v->nk; i++)
		free(base[i]);
	free(base);
	lp_sb_free(&b);
	lp_sb_free(&list);
}

struct kpick {
	size_t i;
	double cost;
};

static int
by_cost(const void *x, const void *y)
{
	const struct kpick *a = x, *b = y;

	if (a->cost != b->cost)
		return a->cost > b->cost ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static void
emit_meta(const struct verdict *v)
{
	static const struct lp_col cols[] = {
		{ "finding", "Finding", "text" },
		{ "artifact", "Table", "text" },
	};

	lp_tab_meta(out, "title", "Verdict");
	lp_tab_meta(out, "tool", "lp-verdict");
	lp_tab_meta(out, "source", "the rules of lp-verdict(1) over %s and %s; "
	    "each sentence names the table its numbers come from",
	    v->stages_file, v->kernels_file);
	lp_tab_meta(out, "style", "list");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
}

/* First what makes the runs unlike: it qualifies every change. */
static void
differ_item(const struct verdict *v)
{
	struct lp_sb b = { 0 };

	if (!v->differ.len)
		return;
	lp_sb_printf(&b, "The runs differ in %s: every change below is "
	    "read with that in mind", v->differ.s);
	if (v->steps_differ)
		lp_sb_adds(&b, "; decode_all totals and kernel totals grow "
		    "with the decode steps, so decode_all is compared per "
		    "decode step and kernels per launch");
	lp_sb_addc(&b, '.');
	item(lp_sb_str(&b), v->stages_file);
	lp_sb_free(&b);
}

/* Each stage's main time, largest change first. */
static void
stage_items(const struct verdict *v)
{
	struct pick p[3];
	size_t i, np = 0;

	for (i = 0; i < 3; i++) {
		const struct stage *s = &v->st[i];
		int w, k;

		if (i == 1 && v->steps_differ) {
			w = M_WSTEP;
			k = M_KSTEP;
		} else {
			w = s->m[M_STEADY].have ? M_STEADY : M_MEDIAN;
			k = M_KERN;
		}
		if (!s->m[w].have || !(s->m[w].x > 0) || !(s->m[w].y > 0))
			continue;
		p[np].stage = i;
		p[np].wall = w;
		p[np].kern = k;
		p[np].size = fabs(log(s->m[w].y / s->m[w].x));
		np++;
	}
	lp_qsort(p, np, sizeof *p, by_size);
	for (i = 0; i < np; i++)
		stage_item(v, &p[i]);
	if (!np)
		item("No stage has a time in both runs to compare.", v->stages_file);
}

/* The top kernels whose time per launch moved most, weighed by the
 * launches of the after run (the time it costs there). */
static void
kernel_items(const struct verdict *v, long top)
{
	struct kpick *kp = lp_xcalloc(v->nk + 1, sizeof *kp);
	struct lp_sb b = { 0 };
	size_t i, nkp = 0, nshow;
	char **names, **shown;

	for (i = 0; i < v->nk; i++) {
		const struct kr *k = &v->k[i];

		if (!strcmp(k->status, "both") && k->have_mean &&
		    !isnan(k->calls[1]) && k->mean[0] > 0 &&
		    fabs(k->mean[1] / k->mean[0] - 1) >= 0.01) {
			kp[nkp].i = i;
			kp[nkp++].cost = fabs(k->mean[1] - k->mean[0]) * k->calls[1];
		}
	}
	lp_qsort(kp, nkp, sizeof *kp, by_cost);
	/* the listed kernels' names, short but never two alike (two sum
	 * reductions differ only in their template arguments) */
	nshow = nkp < (size_t)top ? nkp : (size_t)top;
	names = lp_xcalloc(nshow + 1, sizeof *names);
	shown = lp_xcalloc(nshow + 1, sizeof *shown);
	for (i = 0; i < nshow; i++)
		names[i] = v->k[kp[i].i].kernel;
	lp_kname_unique(names, nshow, LP_KNAME_MAX, shown);
	for (i = 0; i < nshow; i++) {
		const struct kr *k = &v->k[kp[i].i];
		char *bn = shown[i];

		lp_sb_adds(&b, "Kernel ");
		lp_md_code(&b, bn, 0);
		lp_sb_printf(&b, ": mean per launch %.2f us -> %.2f us "
		    "(%+.1f %%, ", k->mean[0] / 1e3, k->mean[1] / 1e3,
		    100 * (k->mean[1] / k->mean[0] - 1));
		ratio(&b, k->mean[0], k->mean[1]);
		lp_sb_printf(&b, "), %.0f -> %.0f launches; no spread per launch "
		    "is known, so no significance.", k->calls[0], k->calls[1]);
		item(lp_sb_str(&b), v->kernels_file);
		lp_sb_reset(&b);
		free(bn);
	}
	free(names);
	free(shown);
	free(kp);
	lp_sb_free(&b);
}

/* Vanished and appeared, by short name. */
static void
moved_items(const struct verdict *v)
{
	struct lp_sb b = { 0 };
	size_t i;

	for (i = 0; i < v->nk && !strcmp(v->k[i].status, "both"); i++)
		;
	if (i < v->nk) {
		gone_item(v, "vanished", 0, "in the before run only: fused, "
		    "renamed or no longer run");
		gone_item(v, "appeared", 1, "in the after run only");
		return;
	}
	lp_sb_printf(&b, "No kernel vanished or appeared%s%s%s.",
	    v->match ? "; kernels matched on " : "", v->match ? v->match :
	    "", "");
	item(lp_sb_str(&b), v->kernels_file);
	lp_sb_free(&b);
}

static void
free_verdict(struct verdict *v)
{
	size_t i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < M_N; j++)
			free(v->st[i].m[j].sig);
	for (i = 0; i < v->nk; i++) {
		free(v->k[i].kernel);
		free(v->k[i].name);
		free(v->k[i].status);
	}
	free(v->k);
	free(v->match);
	lp_sb_free(&v->differ);
}

int
main(int argc, char **argv)
{
	struct verdict v = { 0 };
	long top = 2;
	int c;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "n:", synopsis)) != -1) {
		switch (c) {
		case 'n': top = lp_strtonum(optarg, 0, 1000, "-n"); break;
		}
	}
	if (argc - optind != 2)
		lp_usage(synopsis);
	read_stages(&v, argv[optind]);
	read_kernels(&v, argv[optind + 1]);
	emit_meta(&v);
	differ_item(&v);
	stage_items(&v);
	kernel_items(&v, top);
	moved_items(&v);
	free_verdict(&v);
	lp_tab_done(out);
	return 0;
}
