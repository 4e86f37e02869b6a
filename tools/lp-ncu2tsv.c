/*
 * lp-ncu2tsv: per-kernel metrics from Nsight Compute CSV exports, wide
 * (--page raw) or long (--page details).  One output row per distinct
 * (kernel, device, launch shape: grid, block and FLOPs per launch), so a
 * kernel that runs two GEMM shapes gives two rows; memory grows with
 * those (and the distinct FLOPs per launch counted exactly), not with the
 * launches, and the table is the same in any order of the launches.
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
	int exact;		/* a bin of counted FLOPs (not: none, rates) */
	double fl;		/* exact: its FLOPs per launch */
};

struct st {
	struct lp_map *idx;	/* a bin's key -> its index in a */
	struct agg *a;		/* bins, then the shapes made of them */
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

/* The launch's bin: same kernel, device, grid and block and, where the
 * FLOPs are counted (tensor or SASS counters), the same FLOPs per launch;
 * bins become shapes once every launch is read (shapes()). */
static struct agg *
agg_for(struct st *s, const struct lp_ncu_result *r, const struct lp_flops *f)
{
	struct lp_sb key = { 0 };
	double fl = 0;
	long i;
	int k, exact = f->have_tensor || sass_counted(&r->l);

	for (k = 0; k < LP_FP_N; k++)
		fl += f->f[k];
	lp_sb_printf(&key, "%s\x1f%s\x1f%s\x1f%s\x1f", r->kernel, r->device,
	    r->grid, r->block);
	if (exact)
		lp_sb_printf(&key, "%a", fl);
	if ((i = lp_map_get(s->idx, lp_sb_str(&key), -1)) < 0) {
		s->a = lp_grow(s->a, s->n, &s->cap, 32, sizeof *s->a);
		i = (long)s->n++;
		memset(&s->a[i], 0, sizeof s->a[i]);
		s->a[i].kernel = lp_xstrdup(r->kernel);
		s->a[i].device = lp_xstrdup(r->device);
		s->a[i].devname = lp_xstrdup(r->devname);
		s->a[i].grid = lp_xstrdup(r->grid);
		s->a[i].block = lp_xstrdup(r->block);
		s->a[i].exact = exact;
		s->a[i].fl = fl;
		lp_map_put(s->idx, lp_sb_str(&key), i);
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

/* A shape value of a merged bin: known where both knew the same. */
static void
same_merge(double *v, int *have, long n, double x, int hx)
{
	if (!n) {
		*v = x;
		*have = hx;
	} else
		*have = *have && hx && x == *v;
}

/* Bin b's launches into a (whose strings stay a's); b's are freed. */
static void
merge(struct agg *a, struct agg *b)
{
	int k;

	same_merge(&a->ctas, &a->have_ctas, a->launches, b->ctas, b->have_ctas);
	same_merge(&a->sms, &a->have_nsm, a->launches, b->sms, b->have_nsm);
	same_merge(&a->per_sm, &a->have_per_sm, a->launches, b->per_sm,
	    b->have_per_sm);
	a->launches += b->launches;
	a->time_ns += b->time_ns;
	lp_xsum_addx(&a->sm, &b->sm);
	lp_xsum_addx(&a->dram, &b->dram);
	lp_xsum_addx(&a->bytes, &b->bytes);
	lp_xsum_addx(&a->flops, &b->flops);
	for (k = 0; k < LP_FP_N; k++)
		lp_xsum_addx(&a->fp[k], &b->fp[k]);
	a->nsm += b->nsm;
	a->ndram += b->ndram;
	a->nbytes += b->nbytes;
	a->ntensor += b->ntensor;
	a->nsass += b->nsass;
	free(b->kernel);
	free(b->device);
	free(b->devname);
	free(b->grid);
	free(b->block);
}

/* Bins of one kernel, device, grid and block together, counted FLOPs
 * first and by FLOPs per launch. */
static int
by_bin(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;
	int c;

	if ((c = strcmp(a->kernel, b->kernel)) ||
	    (c = strcmp(a->device, b->device)) ||
	    (c = strcmp(a->grid, b->grid)) || (c = strcmp(a->block, b->block)))
		return c;
	if (a->exact != b->exact)
		return a->exact ? -1 : 1;
	return a->fl < b->fl ? -1 : a->fl > b->fl;
}

static int
same_key(const struct agg *a, const struct agg *b)
{
	return !strcmp(a->kernel, b->kernel) && !strcmp(a->device, b->device) &&
	    !strcmp(a->grid, b->grid) && !strcmp(a->block, b->block);
}

/*
 * The shapes, from the bins of each kernel, device, grid and block by
 * FLOPs per launch: a bin joins the shape before it when within 1 % of
 * that shape's mean (FLOPs tell two GEMMs of one grid apart; counter
 * noise of a few FLOPs does not make a shape); launches without counted
 * FLOPs join the shape of the most launches.  Bins in order, so the same
 * launches in any order make the same shapes.
 */
static void
shapes(struct st *s)
{
	size_t i, j, k, n = 0, best;

	lp_qsort(s->a, s->n, sizeof *s->a, by_bin);
	for (i = 0; i < s->n; i = j) {
		size_t first = n;

		for (j = i; j < s->n && same_key(&s->a[j], &s->a[i]); j++) {
			struct agg *c = n > first ? &s->a[n - 1] : NULL;
			double m = c ? lp_xsum_get(&c->flops) / (double)c->launches : 0;

			if (c && !s->a[j].exact) {
				for (best = k = first; k < n; k++)
					if (s->a[k].launches > s->a[best].launches)
						best = k;
				merge(&s->a[best], &s->a[j]);
			} else if (c && fabs(s->a[j].fl - m) <= 0.01 *
			    fmax(fabs(s->a[j].fl), fabs(m)))
				merge(c, &s->a[j]);
			else
				s->a[n++] = s->a[j];
		}
	}
	s->n = n;
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

	lp_start(argc, argv, synopsis);
	memset(&s, 0, sizeof s);
	while ((c = lp_getopt(argc, argv, "r:", synopsis)) != -1) {
		switch (c) {
		case 'r':
			s.range = *optarg ? optarg : NULL;
			break;
		}
	}
	s.idx = lp_map_new();
	s.seen = lp_map_new();
	load_exports(&s, argv + optind, argc - optind);
	check_range(&s);
	shapes(&s);
	lp_qsort(s.a, s.n, sizeof *s.a, cmp);
	emit_table(&s, argv + optind, argc - optind);
	free_state(&s);
	return 0;
}
