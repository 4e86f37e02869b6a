/*
 * lp-diff: compare.tsv, two runs' kernels side by side: total time, calls,
 * mean, share and SOL % before and after, the change, and the kernels that
 * appeared or vanished, biggest changes first.  Kernels are matched on
 * their mangled names where both runs have them, else on their names.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lp.h"

static const char synopsis[] = "lp-diff [-n N] before/kernels.tsv after/kernels.tsv";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct k {
	char *key, *name;
	double t[2], calls[2], sm[2];
	int in[2], have_sm[2];
};

struct set {
	struct k *k;
	size_t n;
	struct lp_map *idx;
	double total[2];
	int mangled[2];
	const char *src[2];
};

static void
load(struct set *s, int side, const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "make RUN=... kernels.tsv");
	int ck = lp_csv_need(&t.hdr, "kernel", "lp-kernjoin output");
	int ct = lp_csv_need(&t.hdr, "total_ns", "lp-kernjoin output");
	int cc = lp_csv_need(&t.hdr, "calls", "lp-kernjoin output");
	int cm = lp_csv_col(&t.hdr, "mangled");
	int cs = lp_csv_col(&t.hdr, "sm_throughput_pct");
	int any = 0;

	s->mangled[side] = cm >= 0;
	while (lp_tsv_next(&t)) {
		const char *m = lp_tsv_get(&t, cm);
		/* the key is the mangled name when the run has one */
		const char *key = cm >= 0 && *m ? m : lp_tsv_get(&t, ck);
		long i = lp_map_get(s->idx, key, -1);
		double tot, calls;

		if (cm < 0 || !*m)
			s->mangled[side] = 0;
		if (!lp_tab_num(&t, ct, &tot) || tot < 0 ||
		    !lp_tab_num(&t, cc, &calls) || calls < 0)
			lp_die_at(LP_EXIT_DATA, path, t.line, 0, "no total_ns or "
			    "calls for \"%s\"", lp_tsv_get(&t, ck));
		if (i < 0) {
			s->k = lp_xreallocarray(s->k, s->n + 1, sizeof *s->k);
			memset(&s->k[s->n], 0, sizeof s->k[0]);
			s->k[s->n].key = lp_xstrdup(key);
			s->k[s->n].name = lp_xstrdup(lp_tsv_get(&t, ck));
			lp_map_put(s->idx, key, (long)s->n);
			i = (long)s->n++;
		}
		if (s->k[i].in[side])
			lp_die_at(LP_EXIT_DATA, path, t.line, 0, "kernel \"%s\" "
			    "twice", key);
		s->k[i].in[side] = 1;
		s->k[i].t[side] = tot;
		s->k[i].calls[side] = calls;
		s->k[i].have_sm[side] = lp_tab_num(&t, cs, &s->k[i].sm[side]);
		s->total[side] += tot;
		any = 1;
	}
	if (!any)
		lp_die_at(LP_EXIT_DATA, path, t.line, 0, "no kernel rows");
	lp_tsv_close(&t);
	fclose(fp);
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

int
main(int argc, char **argv)
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
	struct set s = { 0 };
	struct lp_row r = { 0 };
	struct lp_sb gone = { 0 }, came = { 0 };
	char **names, **shown;
	long top = 20;
	size_t i, ngone = 0, ncame = 0, shown_n;
	int c;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "hn:")) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'n': top = lp_strtonum(optarg, 1, 1000000, "-n"); break;
		default: lp_usage(synopsis);
		}
	}
	if (argc - optind != 2)
		lp_usage(synopsis);
	s.idx = lp_map_new();
	load(&s, 0, argv[optind]);
	load(&s, 1, argv[optind + 1]);
	lp_qsort(s.k, s.n, sizeof *s.k, by_change);
	for (i = 0; i < s.n; i++) {
		/* code spans of the note, which lp-summary renders */
		if (!s.k[i].in[1]) {
			lp_sb_adds(&gone, ngone++ ? ", " : "");
			lp_md_code(&gone, s.k[i].name, 0);
		} else if (!s.k[i].in[0]) {
			lp_sb_adds(&came, ncame++ ? ", " : "");
			lp_md_code(&came, s.k[i].name, 0);
		}
	}
	shown_n = (size_t)top < s.n ? (size_t)top : s.n;

	lp_tab_meta(out, "title", "Kernels, Before and After");
	lp_tab_meta(out, "tool", "lp-diff");
	lp_tab_meta(out, "source", "before: %s; after: %s (nsys time and calls, "
	    "ncu SOL %% where profiled); matched on %s", argv[optind],
	    argv[optind + 1], s.mangled[0] && s.mangled[1] ? "mangled names" :
	    "names (a run without mangled names: demangled or as exported)");
	lp_tab_meta(out, "note", "GPU kernel time %.3f ms before, %.3f ms after "
	    "(%+.3f ms, %+.1f%%); %zu kernels vanished, %zu appeared; the %zu "
	    "largest changes by absolute time below.", s.total[0] / 1e6,
	    s.total[1] / 1e6, (s.total[1] - s.total[0]) / 1e6, s.total[0] > 0 ?
	    100 * (s.total[1] - s.total[0]) / s.total[0] : 0, ngone, ncame,
	    shown_n);
	if (ngone)
		lp_tab_meta(out, "note", "Vanished (fused or no longer run): %s.",
		    lp_sb_str(&gone));
	if (ncame)
		lp_tab_meta(out, "note", "Appeared: %s.", lp_sb_str(&came));
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	names = lp_xcalloc(shown_n + 1, sizeof *names);
	shown = lp_xcalloc(shown_n + 1, sizeof *shown);
	for (i = 0; i < shown_n; i++)
		names[i] = s.k[i].name;
	lp_kname_unique(names, shown_n, 60, shown);
	for (i = 0; i < shown_n; i++) {
		const struct k *k = &s.k[i];
		double mean[2], share[2];
		int q;

		for (q = 0; q < 2; q++) {
			mean[q] = k->calls[q] > 0 ? k->t[q] / k->calls[q] : 0;
			share[q] = s.total[q] > 0 ? 100 * k->t[q] / s.total[q] : 0;
		}
		lp_row_num(&r, (double)(i + 1), 0);
		lp_row_text(&r, shown[i]);
		lp_row_text(&r, k->name);
		lp_row_text(&r, k->in[0] && k->in[1] ? "both" : k->in[0] ?
		    "vanished" : "appeared");
		both(&r, k, k->t, 0);
		lp_row_num(&r, k->t[1] - k->t[0], 0);
		if (k->in[0] && k->t[0] > 0)
			lp_row_g(&r, 100 * (k->t[1] - k->t[0]) / k->t[0]);
		else
			lp_row_na(&r, "not in the before run");
		both(&r, k, k->calls, 0);
		both(&r, k, mean, 1);
		lp_row_g(&r, share[0]);
		lp_row_g(&r, share[1]);
		for (q = 0; q < 2; q++)
			if (k->in[q] && k->have_sm[q])
				lp_row_num(&r, k->sm[q], 2);
			else
				lp_row_na(&r, "no ncu metrics in the %s run",
				    q ? "after" : "before");
		lp_row_end(&r, out);
		free(shown[i]);
	}
	for (i = 0; i < s.n; i++) {
		free(s.k[i].key);
		free(s.k[i].name);
	}
	free(s.k);
	free(names);
	free(shown);
	lp_map_free(s.idx);
	lp_sb_free(&gone);
	lp_sb_free(&came);
	lp_sb_free(&r.b);
	lp_tab_done(out);
	return 0;
}
