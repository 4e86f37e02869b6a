/*
 * lp-ncu2tsv: per-kernel metrics from Nsight Compute CSV exports, wide
 * (--page raw) or long (--page details).  One output row per distinct
 * (kernel, device, launch shape: grid, block and FLOPs per launch), so a
 * kernel that runs two GEMM shapes gives two rows; memory grows with
 * those, not with the launches.
 * Several exports are several sets of launches (a result is its file and
 * its ID); with -r only the launches inside that NVTX range count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "nsight.h"

static const char synopsis[] = "lp-ncu2tsv [-r range] [file ...]";

struct agg {
	char *kernel, *device, *devname, *grid, *block;
	long launches;
	double ctas, sms, per_sm;	/* from the first launch; */
	int have_ctas, have_nsm, have_per_sm;	/* 0 once launches differ */
	long long time_ns;
	/* sums exact, the same in any order of the launches (xsum.c) */
	struct lp_xsum sm, dram;
	long nsm, ndram;
	struct lp_xsum bytes;
	long nbytes;
	struct lp_xsum fp[LP_FP_N], flops;	/* flops: all paths, for the order */
	long ntensor, nsass;	/* launches with tensor / SASS counters */
	long next;		/* the next group of this kernel and grid */
};

struct st {
	struct lp_map *idx;
	struct agg *a;
	size_t n, cap;
	const char *range;	/* -r: keep launches inside it */
	const char *file;
	long kept, outside, nostack;
	struct lp_map *seen;	/* outermost ranges of launches left out */
};

/* A value of the shape, the same in every launch of it or unknown. */
static void
same(double *v, int *have, long n, int known, double x)
{
	if (!n) {
		*have = known;
		*v = x;
	} else if (*have && (!known || x != *v))
		*have = 0;
}

static int
sass_counted(const struct lp_launch *l)
{
	int m;

	for (m = LP_M_FADD; m <= LP_M_DFMA; m++)
		if (lp_launch_has(l, m))
			return 1;
	return 0;
}

/* The launch's group: same kernel, device, grid and block, and FLOPs per
 * launch within 1 % of the group's mean (FLOPs tell two GEMMs of one grid
 * apart; counter noise of a few FLOPs, or FLOPs estimated from rates x
 * clock x time, do not make a shape). */
static struct agg *
agg_for(struct st *s, const struct lp_ncu_result *r, const struct lp_flops *f)
{
	struct lp_sb key = { 0 };
	double fl = 0;
	long i, last = -1;
	int k, exact = f->have_tensor || sass_counted(&r->l);

	for (k = 0; k < LP_FP_N; k++)
		fl += f->f[k];
	lp_sb_printf(&key, "%s\x1f%s\x1f%s\x1f%s", r->kernel, r->device,
	    r->grid, r->block);
	for (i = lp_map_get(s->idx, lp_sb_str(&key), -1); i >= 0;
	    i = s->a[i].next) {
		double m = lp_xsum_get(&s->a[i].flops) /
		    (double)s->a[i].launches;

		last = i;
		if (!exact || fabs(fl - m) <= 0.01 * fmax(fabs(fl), fabs(m)))
			break;
	}
	if (i < 0) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 32;
			s->a = lp_xreallocarray(s->a, s->cap, sizeof *s->a);
		}
		i = (long)s->n++;
		memset(&s->a[i], 0, sizeof s->a[i]);
		s->a[i].next = -1;
		s->a[i].kernel = lp_xstrdup(r->kernel);
		s->a[i].device = lp_xstrdup(r->device);
		s->a[i].devname = lp_xstrdup(r->devname);
		s->a[i].grid = lp_xstrdup(r->grid);
		s->a[i].block = lp_xstrdup(r->block);
		if (last < 0)
			lp_map_put(s->idx, lp_sb_str(&key), i);
		else
			s->a[last].next = i;
	}
	lp_sb_free(&key);
	return &s->a[i];
}

/* Is the launch inside the range?  Its push/pop stack says; a launch of
 * an export without one (ncu run without --nvtx) cannot be placed. */
static int
inside(struct st *s, const struct lp_ncu_result *r)
{
	char **names;
	size_t i, n = lp_ncu_nvtx_stack(r->nvtx, &names);
	int in = 0;

	if (!n)
		s->nostack++;
	for (i = 0; i < n && !in; i++)
		in = lp_nvtx_range_match(s->range, names[i]);
	if (!in && n && lp_map_get(s->seen, names[0], -1) < 0 &&
	    lp_map_len(s->seen) < 8)
		lp_map_put(s->seen, names[0], 1);
	lp_argv_free(names, n);
	return in || !n;
}

/* Folds one launch into its kernel's totals. */
static void
launch(const struct lp_ncu_result *r, void *ctx)
{
	struct st *s = ctx;
	struct agg *a;
	const struct lp_launch *l = &r->l;
	struct lp_flops f;
	double b;
	int i;

	if (!strcmp(r->kernel, "range"))
		lp_die_at(LP_EXIT_DATA, s->file, r->line, 0, "a result of range "
		    "or app-range replay (regions), not a kernel launch: "
		    "regions.md reads it (IMPORT= sends it there)");
	if (s->range && !inside(s, r)) {
		s->outside++;
		return;
	}
	s->kept++;
	lp_launch_flops(l, &f);
	a = agg_for(s, r, &f);
	same(&a->ctas, &a->have_ctas, a->launches,
	    lp_launch_has(l, LP_M_CTAS), l->v[LP_M_CTAS]);
	same(&a->sms, &a->have_nsm, a->launches,
	    lp_launch_has(l, LP_M_NSM), l->v[LP_M_NSM]);
	{
		double c;
		int k = lp_launch_ctas_per_sm(l, &c);

		same(&a->per_sm, &a->have_per_sm, a->launches, k,
		    k ? c : 0);
	}
	a->launches++;
	/* durations are whole nanoseconds in ncu; scaled units only print
	 * them with fewer digits, so rounding per launch is exact */
	a->time_ns += llround(l->v[LP_M_TIME]);
	if (lp_launch_has(l, LP_M_SM)) {
		lp_xsum_add(&a->sm, l->v[LP_M_SM]);
		a->nsm++;
	}
	if (lp_launch_has(l, LP_M_DRAM)) {
		lp_xsum_add(&a->dram, l->v[LP_M_DRAM]);
		a->ndram++;
	}
	if (lp_launch_bytes(l, &b)) {
		lp_xsum_add(&a->bytes, b);
		a->nbytes++;
	}
	a->ntensor += f.have_tensor;
	a->nsass += f.have_sass;
	for (i = 0; i < LP_FP_N; i++) {
		lp_xsum_add(&a->fp[i], f.f[i]);
		lp_xsum_add(&a->flops, f.f[i]);
	}
}

static int
cmp(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;
	int c;

	if (a->time_ns != b->time_ns)
		return a->time_ns > b->time_ns ? -1 : 1;
	if ((c = strcmp(a->kernel, b->kernel)))
		return c;
	if ((c = strcmp(a->device, b->device)))
		return c;
	if ((c = strcmp(a->grid, b->grid)))
		return c;
	if ((c = strcmp(a->block, b->block)))
		return c;
	return lp_xsum_get(&a->flops) < lp_xsum_get(&b->flops) ? -1 :
	    lp_xsum_get(&a->flops) > lp_xsum_get(&b->flops);
}

/* Means skip launches where ncu printed n/a; sums must have them all.
 * lp-kernjoin weighs a kernel's shapes together from these (within 0.005). */
static void
put_mean(struct lp_row *r, double sum, long n)
{
	if (n > 0)
		lp_row_num(r, sum / n, 2);
	else
		lp_row_text(r, "");
}

static void
put_sum(struct lp_row *r, double sum, int have)
{
	if (have)
		lp_row_num(r, sum, 0);
	else
		lp_row_text(r, "");
}

/* Reads each export (stdin when there is none) into s. */
static void
load_exports(struct st *s, char **files, int nfiles)
{
	const char *name;
	FILE *fp;
	int i = 0;

	do {
		fp = lp_open_in(i < nfiles ? files[i] : NULL, &name);
		s->file = name;
		lp_ncu_read(fp, name, launch, s);
		lp_close_in(fp);
	} while (++i < nfiles);
}

/* With -r, no launch inside the range is an error naming where they are. */
static void
check_range(const struct st *s)
{
	struct lp_sb w = { 0 };
	size_t i;

	if (!s->range)
		return;
	if (!s->kept) {
		for (i = 0; i < lp_map_len(s->seen); i++)
			lp_sb_printf(&w, "%s\"%s\"", i ? ", " : "",
			    lp_map_key(s->seen, i));
		lp_die(LP_EXIT_DATA, "%s: none of the %ld ncu results is inside "
		    "NVTX range \"%s\" (they are in %s): profile that stage "
		    "with ncu, or choose the stage the export holds (STAGE=)",
		    s->file, s->outside, s->range, lp_sb_str(&w));
	}
	if (s->outside)
		lp_warn("%ld ncu results outside NVTX range \"%s\" left out",
		    s->outside, s->range);
}

static void
emit_row(FILE *out, struct lp_row *r, const struct agg *a)
{
	int tc = a->ntensor == a->launches, ss = a->nsass == a->launches, k;
	double t = 0, nt = 0;

	for (k = 0; k < LP_FP_N; k++)
		*(k < LP_FP_FP32 ? &t : &nt) += lp_xsum_get(&a->fp[k]);
	lp_row_text(r, a->kernel);
	lp_row_text(r, a->device);
	lp_row_num(r, a->launches, 0);
	lp_row_num(r, a->time_ns, 0);
	put_mean(r, lp_xsum_get(&a->sm), a->nsm);
	put_mean(r, lp_xsum_get(&a->dram), a->ndram);
	/* a total needs both kinds of counters: without the tensor ones,
	 * tensor-core work would silently count as zero */
	put_sum(r, t + nt, tc && ss);
	put_sum(r, lp_xsum_get(&a->bytes), a->nbytes == a->launches);
	lp_row_text(r, a->devname);
	put_sum(r, t, tc);
	put_sum(r, nt, ss);
	for (k = 0; k < LP_FP_N; k++)
		put_sum(r, lp_xsum_get(&a->fp[k]), k < LP_FP_FP32 ? tc : ss);
	lp_row_text(r, a->grid);
	lp_row_text(r, a->block);
	put_sum(r, a->ctas, a->have_ctas);
	put_sum(r, a->sms, a->have_nsm);
	put_sum(r, a->per_sm, a->have_per_sm);
	/* CTAs over what the GPU runs at once: below 1 it is not full */
	if (a->have_ctas && a->have_nsm && a->have_per_sm &&
	    a->sms * a->per_sm > 0)
		lp_row_num(r, a->ctas / (a->sms * a->per_sm), 2);
	else
		lp_row_text(r, "");
	lp_row_end(r, out);
}

/* metrics.tsv: what it was read from, then a row per launch shape. */
static void
emit_table(const struct st *s, char **files, int nfiles)
{
	FILE *out = lp_tab_out();
	struct lp_row r = { 0 };
	struct lp_sb src = { 0 };
	size_t i;
	int k;

	for (k = 0; k < nfiles; k++)
		lp_sb_printf(&src, " %s", files[k]);
	lp_tab_meta(out, "tool", "lp-ncu2tsv");
	lp_tab_meta(out, "source", "ncu CSV export%s%s%s%s",
	    nfiles > 1 ? "s" : "", nfiles ? lp_sb_str(&src) : " <stdin>",
	    s->range ? ", the launches inside NVTX range " : "",
	    s->range ? s->range : "");
	lp_sb_free(&src);
	fputs("kernel\tdevice\tlaunches\tgpu_time_ns\tsm_throughput_pct\t"
	    "dram_throughput_pct\tflops\tdram_bytes\tdevice_name\t"
	    "flops_tensor\tflops_nontensor", out);
	for (k = 0; k < LP_FP_N; k++)
		fprintf(out, "\tflops_%s", lp_fp_names[k]);
	fputs("\tgrid\tblock\tctas\tsm_count\tctas_per_sm\twaves\n", out);
	for (i = 0; i < s->n; i++)
		emit_row(out, &r, &s->a[i]);
	lp_sb_free(&r.b);
	lp_tab_done(out);
}

static void
free_state(struct st *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->a[i].kernel);
		free(s->a[i].device);
		free(s->a[i].devname);
		free(s->a[i].grid);
		free(s->a[i].block);
	}
	free(s->a);
	lp_map_free(s->idx);
	lp_map_free(s->seen);
}

int
main(int argc, char **argv)
{
	struct st s;
	int c;

	lp_init(argv[0]);
	memset(&s, 0, sizeof s);
	while ((c = getopt(argc, argv, "hr:")) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'r':
			s.range = *optarg ? optarg : NULL;
			break;
		default:
			lp_usage(synopsis);
		}
	}
	s.idx = lp_map_new();
	s.seen = lp_map_new();
	load_exports(&s, argv + optind, argc - optind);
	check_range(&s);
	lp_qsort(s.a, s.n, sizeof *s.a, cmp);
	emit_table(&s, argv + optind, argc - optind);
	free_state(&s);
	return 0;
}
