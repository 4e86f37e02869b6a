/*
 * lp-diff: compare.tsv, two runs' kernels side by side: total time, calls,
 * mean, share and SOL % before and after, the change, and the kernels that
 * appeared or vanished, biggest changes first.  Kernels are matched on
 * their mangled names when both runs have one for every kernel, else on
 * their (demangled) names: a run imported without the *_mangled exports
 * has none, and keying one run by mangled and the other by demangled names
 * would match nothing.  With -r, a gate: exit 3 when a top kernel's mean
 * per launch got slower by more than the threshold, outside the spread of
 * both runs' launches (one standard deviation each side), by more than 1 %
 * of the run's kernel time; never when the run's steady step is
 * significantly faster (-S compare_stages.tsv).  Kernel means drift 5 to
 * 9 % between two runs of the same kernels: a gate on the mean alone
 * failed a 2.61x faster decode.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"

static const char synopsis[] =
    "lp-diff [-n N] [-r percent] [-S compare_stages.tsv] before/kernels.tsv "
    "after/kernels.tsv";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

/* One row of a kernels.tsv, as read. */
struct in {
	char *name, *mangled;
	double t, calls, sm, sd;	/* sd: launches' std, NAN unknown */
	int have_sm;
	long line;
};

struct side {
	const char *path;
	struct in *r;
	size_t n;
	int mangled;	/* every row has a mangled name */
};

struct k {
	char *key, *name;
	double t[2], calls[2], sm[2], sd[2];
	int in[2], have_sm[2], merged[2];
};

struct set {
	struct k *k;
	size_t n;
	struct lp_map *idx;
	double total[2];
	size_t merged;	/* names that stand for several kernels of one run */
};

static void
read_side(struct side *sd, const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "make RUN=... kernels.tsv");
	int ck = lp_csv_need(&t.hdr, "kernel", "lp-kernjoin output");
	int ct = lp_csv_need(&t.hdr, "total_ns", "lp-kernjoin output");
	int cc = lp_csv_need(&t.hdr, "calls", "lp-kernjoin output");
	int cm = lp_csv_col(&t.hdr, "mangled");
	int cs = lp_csv_col(&t.hdr, "sm_throughput_pct");
	int cd = lp_csv_col(&t.hdr, "std_ns");

	memset(sd, 0, sizeof *sd);
	sd->path = path;
	sd->mangled = cm >= 0;
	while (lp_tab_next(&t)) {
		struct in *e;

		sd->r = lp_xreallocarray(sd->r, sd->n + 1, sizeof *sd->r);
		e = &sd->r[sd->n++];
		memset(e, 0, sizeof *e);
		e->name = lp_xstrdup(lp_tsv_get(&t, ck));
		e->mangled = lp_xstrdup(lp_tsv_get(&t, cm));
		e->line = t.line;
		if (!*e->mangled)
			sd->mangled = 0;
		if (!lp_tab_num(&t, ct, &e->t) || e->t < 0 ||
		    !lp_tab_num(&t, cc, &e->calls) || e->calls < 0)
			lp_die_at(LP_EXIT_DATA, path, t.line, 0, "no total_ns or "
			    "calls for \"%s\"", e->name);
		e->have_sm = lp_tab_num(&t, cs, &e->sm);
		if (!lp_tab_num(&t, cd, &e->sd) || e->sd < 0)
			e->sd = NAN;
	}
	if (!sd->n)
		lp_die_at(LP_EXIT_DATA, path, t.line, 0, "no kernel rows");
	lp_tsv_close(&t);
	fclose(fp);
}

/* Rows of one run into the set, keyed by mangled name (bymangled) or by
 * name.  Two rows of one mangled name are bad data; two rows of one
 * demangled name (nsys abbreviates template parameters, so two kernels
 * can read alike) are one kernel to the other run, and are summed. */
static void
add_side(struct set *s, int side, const struct side *sd, int bymangled)
{
	size_t j;

	for (j = 0; j < sd->n; j++) {
		const struct in *e = &sd->r[j];
		const char *key = bymangled ? e->mangled : e->name;
		long i = lp_map_get(s->idx, key, -1);
		struct k *k;

		if (i < 0) {
			s->k = lp_xreallocarray(s->k, s->n + 1, sizeof *s->k);
			memset(&s->k[s->n], 0, sizeof s->k[0]);
			s->k[s->n].key = lp_xstrdup(key);
			s->k[s->n].name = lp_xstrdup(e->name);
			lp_map_put(s->idx, key, (long)s->n);
			i = (long)s->n++;
		}
		k = &s->k[i];
		if (k->in[side] && bymangled)
			lp_die_at(LP_EXIT_DATA, sd->path, e->line, 0, "kernel "
			    "\"%s\" twice", key);
		if (k->in[side]) {
			if (!k->merged[side]++)
				s->merged++;
			k->have_sm[side] = 0;	/* two kernels' SOL % */
			k->sd[side] = NAN;	/* and spreads */
		} else {
			k->have_sm[side] = e->have_sm;
			k->sm[side] = e->sm;
			k->sd[side] = e->sd;
		}
		k->in[side] = 1;
		k->t[side] += e->t;
		k->calls[side] += e->calls;
		s->total[side] += e->t;
	}
}

static void
free_side(struct side *sd)
{
	size_t j;

	for (j = 0; j < sd->n; j++) {
		free(sd->r[j].name);
		free(sd->r[j].mangled);
	}
	free(sd->r);
}

static int
by_change(const void *x, const void *y)
{
	const struct k *a = x, *b = y;
	double da = fabs(a->t[1] - a->t[0]), db = fabs(b->t[1] - b->t[0]);

	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->key, b->key);
}

static int
by_time(const void *x, const void *y)
{
	const struct k *a = *(struct k *const *)x, *b = *(struct k *const *)y;
	double ta = fmax(a->t[0], a->t[1]), tb = fmax(b->t[0], b->t[1]);

	if (ta != tb)
		return ta > tb ? -1 : 1;
	return strcmp(a->key, b->key);
}

static void
both(struct lp_row *r, const struct k *k, const double *v, int dec)
{
	int s;

	for (s = 0; s < 2; s++)
		if (k->in[s])
			lp_row_num(r, v[s], dec);
		else
			lp_row_na(r, "not in the %s run", s ? "after" : "before");
}

/* compare_stages.tsv (lp-stagediff): does a stage's steady state run
 * significantly faster, with none significantly slower?  Its text, or
 * NULL. */
static char *
faster_step(const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "make RUN=... BASE=... compare_stages.tsv");
	int cs = lp_csv_need(&t.hdr, "stage", "lp-stagediff output");
	int cm = lp_csv_need(&t.hdr, "metric", "lp-stagediff output");
	int cr = lp_csv_need(&t.hdr, "ratio", "lp-stagediff output");
	int cg = lp_csv_need(&t.hdr, "significant", "lp-stagediff output");
	struct lp_sb b = { 0 };
	int slower = 0;
	double x;

	while (lp_tab_next(&t)) {
		if (strcmp(lp_tsv_get(&t, cm), "steady state") ||
		    strncmp(lp_tsv_get(&t, cg), "yes", 3) || !lp_tab_num(&t, cr, &x))
			continue;
		if (x > 1)
			slower = 1;
		else if (x < 1 && !b.len)
			lp_sb_printf(&b, "%s steady state %.3gx as long",
			    lp_tsv_get(&t, cs), x);
	}
	lp_tsv_close(&t);
	fclose(fp);
	if (slower || !b.len) {
		lp_sb_free(&b);
		return NULL;
	}
	return lp_sb_steal(&b);
}

/* The gate: each of the top kernels (the n largest of either run by total
 * time) that ran in both runs and whose mean per launch grew by more than
 * pct percent, outside both runs' spread (mean +- one standard deviation
 * of its launches), and by more than 1 % of the run's kernel time; none
 * fails when faster (a stage's steady state significantly faster, none
 * slower).  Said on stderr; returns how many failed. */
static size_t
gate(const struct set *s, long top, double pct, const char *faster)
{
	struct k **by = lp_xcalloc(s->n + 1, sizeof *by);
	size_t i, n = 0, bad = 0;

	for (i = 0; i < s->n; i++)
		by[i] = &s->k[i];
	lp_qsort(by, s->n, sizeof *by, by_time);
	for (i = 0; i < s->n && i < (size_t)top; i++) {
		const struct k *k = by[i];
		double m0, m1, extra;
		const char *why = NULL;
		char *b;

		if (!k->in[0] || !k->in[1] || k->calls[0] <= 0 ||
		    k->calls[1] <= 0)
			continue;
		n++;
		m0 = k->t[0] / k->calls[0];
		m1 = k->t[1] / k->calls[1];
		if (!(m0 > 0 && m1 > m0 * (1 + pct / 100)))
			continue;
		extra = (m1 - m0) * k->calls[1];
		if (isnan(k->sd[0]) || isnan(k->sd[1]))
			why = "no spread per launch to test it against (kernels.tsv "
			    "without std_ns, one launch, or a name for several "
			    "kernels)";
		else if (m1 - k->sd[1] <= m0 + k->sd[0])
			why = "within the spread of the launches (mean +- one "
			    "standard deviation of each run overlap)";
		else if (!(extra > 0.01 * s->total[1]))
			why = "its extra time is under 1 % of the run's kernel time";
		else if (faster)
			why = faster;
		b = lp_kname_base(k->name);
		fprintf(stderr, "lp-diff: %s: kernel %s: mean per launch %.2f us "
		    "-> %.2f us (%+.1f %%, more than %g %%; std %.2f and %.2f us), "
		    "%.0f launches after, %.3f ms more (%s)%s%s\n", why ? "not "
		    "failing" : "regression", b, m0 / 1e3, m1 / 1e3, 100 *
		    (m1 / m0 - 1), pct, k->sd[0] / 1e3, k->sd[1] / 1e3,
		    k->calls[1], extra / 1e6, k->name, why ? ": " : "",
		    why ? why : "");
		free(b);
		bad += !why;
	}
	if (!bad)
		fprintf(stderr, "lp-diff: no regression: none of the %zu top "
		    "kernels run in both got slower per launch by more than %g %% "
		    "outside the spread of the launches%s%s\n", n, pct, faster ?
		    ", and the run is faster: " : "", faster ? faster : "");
	free(by);
	return bad;
}

/* Both runs' kernels into one set, keyed by mangled names when both runs
 * have one for every kernel, else by names. */
static int
match_runs(struct set *s, const struct side *sd)
{
	int bymangled = sd[0].mangled && sd[1].mangled;

	s->idx = lp_map_new();
	add_side(s, 0, &sd[0], bymangled);
	add_side(s, 1, &sd[1], bymangled);
	return bymangled;
}

/* The kernels that vanished and appeared, as code spans of the notes
 * (which lp-summary renders), largest change first. */
struct moved {
	struct lp_sb gone, came;
	size_t ngone, ncame;
};

/* At most this many names a list; the rest are counted (each is a row). */
enum { MOVED_MAX = 5 };

static void
moved_add(struct lp_sb *b, size_t *n, const char *name)
{
	if (*n < MOVED_MAX) {
		lp_sb_adds(b, *n ? ", " : "");
		lp_md_code(b, name, 0);
	}
	++*n;
}

/* The names as the table shows them (shown[i] for row i: every kernel
 * that vanished or appeared is a row), largest change first. */
static void
list_moved(struct moved *m, const struct set *s, size_t nrows,
    char *const *shown)
{
	size_t i;

	for (i = 0; i < nrows; i++)
		if (!s->k[i].in[1])
			moved_add(&m->gone, &m->ngone, shown[i]);
		else if (!s->k[i].in[0])
			moved_add(&m->came, &m->ncame, shown[i]);
	if (m->ngone > MOVED_MAX)
		lp_sb_printf(&m->gone, " and %zu more (each a row of the table)",
		    m->ngone - MOVED_MAX);
	if (m->ncame > MOVED_MAX)
		lp_sb_printf(&m->came, " and %zu more (each a row of the table)",
		    m->ncame - MOVED_MAX);
}

/* The rows, to the front of the set sorted by_change: the shown largest
 * changes, then every kernel that vanished or appeared (each such claim is
 * a row to check).  Returns how many rows. */
static size_t
pick_rows(struct set *s, size_t shown_n)
{
	size_t i, nrows = shown_n;

	for (i = shown_n; i < s->n; i++)
		if (!(s->k[i].in[0] && s->k[i].in[1])) {
			struct k tmp = s->k[nrows];

			s->k[nrows++] = s->k[i];	/* keeps by_change order */
			s->k[i] = tmp;
		}
	return nrows;
}

static void
emit_meta(const struct set *s, const struct side *sd, int bymangled,
    struct moved *m, size_t shown_n, size_t nrows)
{
	lp_tab_meta(out, "title", "Kernels, Before and After");
	lp_tab_meta(out, "tool", "lp-diff");
	lp_tab_meta(out, "source", "before: %s; after: %s (nsys time and calls, "
	    "ncu SOL %% where profiled); matched on %s", sd[0].path,
	    sd[1].path, bymangled ? "mangled names" : sd[0].mangled ?
	    "demangled names (the after run has no mangled name for every "
	    "kernel)" : sd[1].mangled ? "demangled names (the before run has "
	    "no mangled name for every kernel)" : "demangled names (neither "
	    "run has mangled names)");
	lp_tab_meta(out, "note", "GPU kernel time %.3f ms before, %.3f ms after "
	    "(%+.3f ms, %+.1f%%); %zu kernels vanished, %zu appeared; the %zu "
	    "largest changes by absolute time below%s.", s->total[0] / 1e6,
	    s->total[1] / 1e6, (s->total[1] - s->total[0]) / 1e6,
	    s->total[0] > 0 ? 100 * (s->total[1] - s->total[0]) / s->total[0] :
	    0, m->ngone, m->ncame, shown_n, nrows > shown_n ? ", then every "
	    "other kernel that vanished or appeared" : "");
	if (m->ngone)
		lp_tab_meta(out, "note", "Vanished (fused or no longer run): %s.",
		    lp_sb_str(&m->gone));
	if (m->ncame)
		lp_tab_meta(out, "note", "Appeared: %s.", lp_sb_str(&m->came));
	if (s->merged)
		lp_tab_meta(out, "note", "%zu names stand for several kernels of "
		    "one run (demangled names can read alike); their rows are "
		    "summed and show no SM %%.", s->merged);
}

static void
emit_row(struct lp_row *r, const struct set *s, size_t i, const char *shown)
{
	const struct k *k = &s->k[i];
	int q;

	lp_row_num(r, (double)(i + 1), 0);
	lp_row_text(r, shown);
	lp_row_text(r, k->name);
	lp_row_text(r, k->in[0] && k->in[1] ? "both" : k->in[0] ?
	    "vanished" : "appeared");
	both(r, k, k->t, 0);
	lp_row_num(r, k->t[1] - k->t[0], 0);
	if (k->in[0] && k->t[0] > 0)
		lp_row_g(r, 100 * (k->t[1] - k->t[0]) / k->t[0]);
	else if (k->in[0])
		lp_row_na(r, "no time in the before run");
	else
		lp_row_na(r, "not in the before run");
	both(r, k, k->calls, 0);
	for (q = 0; q < 2; q++)
		if (!k->in[q])
			lp_row_na(r, "not in the %s run", q ? "after" :
			    "before");
		else if (k->calls[q] > 0)
			lp_row_num(r, k->t[q] / k->calls[q], 1);
		else
			lp_row_na(r, "no calls in the %s run", q ?
			    "after" : "before");
	for (q = 0; q < 2; q++)
		if (!k->in[q])
			lp_row_na(r, "not in the %s run", q ? "after" :
			    "before");
		else if (s->total[q] > 0)
			lp_row_g(r, 100 * k->t[q] / s->total[q]);
		else
			lp_row_na(r, "no kernel time in the %s run", q ?
			    "after" : "before");
	for (q = 0; q < 2; q++)
		if (k->in[q] && k->have_sm[q])
			lp_row_num(r, k->sm[q], 2);
		else
			lp_row_na(r, "no ncu metrics in the %s run",
			    q ? "after" : "before");
	lp_row_end(r, out);
}

/* The first nrows kernels of the set, under names shortened alike. */
static void
emit_rows(const struct set *s, size_t nrows, char *const *shown)
{
	static const struct lp_col cols[] = {
		{ "rank", "#", "int" }, { "name", "Kernel", "code" },
		{ "kernel", "Kernel (whole name)", "hide" },
		{ "status", "Status", "text" },
		{ "before_ns", "Before (ms)", "ms" }, { "after_ns", "After (ms)", "ms" },
		{ "change_ns", "Change (ms)", "ms" }, { "change_pct", "Change", "pct" },
		{ "before_calls", "Calls before", "int" },
		{ "after_calls", "Calls after", "int" },
		{ "before_mean_ns", "Mean before (us)", "us" },
		{ "after_mean_ns", "Mean after (us)", "us" },
		{ "before_share_pct", "Share before", "pct" },
		{ "after_share_pct", "Share after", "pct" },
		{ "before_sm_pct", "SM % before", "num1" },
		{ "after_sm_pct", "SM % after", "num1" },
	};
	struct lp_row r = { 0 };
	size_t i;

	lp_tab_meta(out, "key", "kernel status");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (i = 0; i < nrows; i++)
		emit_row(&r, s, i, shown[i]);
	lp_sb_free(&r.b);
}

/* The rows' names as the table shows them: short, no two alike. */
static char **
shown_names(const struct set *s, size_t nrows)
{
	char **names = lp_xcalloc(nrows + 1, sizeof *names);
	char **shown = lp_xcalloc(nrows + 1, sizeof *shown);
	size_t i;

	for (i = 0; i < nrows; i++)
		names[i] = s->k[i].name;
	lp_kname_unique(names, nrows, LP_KNAME_MAX, shown);
	free(names);
	return shown;
}

static void
free_set(struct set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->k[i].key);
		free(s->k[i].name);
	}
	free(s->k);
	lp_map_free(s->idx);
}

int
main(int argc, char **argv)
{
	struct side sd[2];
	struct set s = { 0 };
	struct moved m = { 0 };
	long top = 20;
	double pct = 0;
	const char *spath = NULL;
	size_t shown_n, nrows, bad = 0, i;
	char **shown;
	int c, bymangled;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "n:r:S:", synopsis)) != -1) {
		switch (c) {
		case 'n': top = lp_strtonum(optarg, 1, 1000000, "-n"); break;
		case 'r': pct = lp_strtopct(optarg, "-r"); break;
		case 'S': spath = optarg; break;
		}
	}
	if (argc - optind != 2)
		lp_usage(synopsis);
	read_side(&sd[0], argv[optind]);
	read_side(&sd[1], argv[optind + 1]);
	bymangled = match_runs(&s, sd);
	if (spath && !(pct > 0))
		lp_die(LP_EXIT_USAGE, "-S goes with -r: the gate");
	if (pct > 0) {
		char *faster = spath ? faster_step(spath) : NULL;

		bad = gate(&s, top, pct, faster);
		free(faster);
	}
	lp_qsort(s.k, s.n, sizeof *s.k, by_change);
	shown_n = (size_t)top < s.n ? (size_t)top : s.n;
	nrows = pick_rows(&s, shown_n);
	shown = shown_names(&s, nrows);
	list_moved(&m, &s, nrows, shown);
	emit_meta(&s, sd, bymangled, &m, shown_n, nrows);
	emit_rows(&s, nrows, shown);
	for (i = 0; i < nrows; i++)
		free(shown[i]);
	free(shown);
	free_set(&s);
	free_side(&sd[0]);
	free_side(&sd[1]);
	lp_sb_free(&m.gone);
	lp_sb_free(&m.came);
	lp_tab_done(out);
	return bad ? LP_EXIT_REGRESSED : LP_EXIT_OK;
}
