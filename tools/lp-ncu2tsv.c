/*
 * lp-ncu2tsv: per-kernel metrics from an Nsight Compute CSV export, wide
 * (--page raw: header, units row, a row per launch) or long (--page details:
 * a row per launch, section and metric).  One output row per distinct
 * (kernel, device); memory grows with those, not with the launches.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lp.h"

static const char synopsis[] = "lp-ncu2tsv [file]";

enum {
	M_TIME, M_SM, M_DRAM,
	M_BYTES, M_BYTES_RD, M_BYTES_WR, M_BYTERATE,
	M_FADD, M_FMUL, M_FFMA, M_HADD, M_HMUL, M_HFMA, M_DADD, M_DMUL, M_DFMA,
	M_RFADD, M_RFMUL, M_RFFMA, M_RHADD, M_RHMUL, M_RHFMA, M_RDADD, M_RDMUL,
	M_RDFMA, M_CLK,
	NM
};

/* Flops per thread instruction: add and mul 1, fma 2; half2 ops do two. */
static const double flop_w[9] = { 1, 1, 2, 2, 2, 4, 1, 1, 2 };

struct mdef {
	int m;
	const char *section;	/* long format: NULL matches any section */
	const char *name;
	enum lp_dim dim;
};

#define SOL "GPU Speed Of Light Throughput"
#define SOL_OLD "GPU Speed Of Light"		/* ncu before 2021.2 */
#define SASS(op) "sm__sass_thread_inst_executed_op_" op "_pred_on.sum"
#define RATE(op) "smsp__sass_thread_inst_executed_op_" op \
	"_pred_on.sum.per_cycle_elapsed"
/* Earlier entries win when a launch has several sources for one value. */
static const struct mdef defs[] = {
	{ M_TIME, NULL, "gpu__time_duration.sum", LP_DIM_TIME },
	{ M_TIME, SOL, "Duration", LP_DIM_TIME },
	{ M_TIME, SOL_OLD, "Duration", LP_DIM_TIME },
	{ M_SM, NULL, "sm__throughput.avg.pct_of_peak_sustained_elapsed", LP_DIM_PCT },
	{ M_SM, SOL, "Compute (SM) Throughput", LP_DIM_PCT },
	{ M_SM, SOL, "Compute (SM) [%]", LP_DIM_PCT },
	{ M_SM, SOL_OLD, "SM [%]", LP_DIM_PCT },
	{ M_DRAM, NULL, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", LP_DIM_PCT },
	{ M_DRAM, NULL, "dram__throughput.avg.pct_of_peak_sustained_elapsed", LP_DIM_PCT },
	{ M_DRAM, SOL, "DRAM Throughput", LP_DIM_PCT },
	{ M_DRAM, SOL_OLD, "DRAM Throughput", LP_DIM_PCT },
	{ M_BYTES, NULL, "dram__bytes.sum", LP_DIM_BYTES },
	{ M_BYTES_RD, NULL, "dram__bytes_read.sum", LP_DIM_BYTES },
	{ M_BYTES_WR, NULL, "dram__bytes_write.sum", LP_DIM_BYTES },
	{ M_BYTERATE, NULL, "dram__bytes.sum.per_second", LP_DIM_BYTERATE },
	{ M_FADD, NULL, SASS("fadd"), LP_DIM_COUNT },
	{ M_FMUL, NULL, SASS("fmul"), LP_DIM_COUNT },
	{ M_FFMA, NULL, SASS("ffma"), LP_DIM_COUNT },
	{ M_HADD, NULL, SASS("hadd"), LP_DIM_COUNT },
	{ M_HMUL, NULL, SASS("hmul"), LP_DIM_COUNT },
	{ M_HFMA, NULL, SASS("hfma"), LP_DIM_COUNT },
	{ M_DADD, NULL, SASS("dadd"), LP_DIM_COUNT },
	{ M_DMUL, NULL, SASS("dmul"), LP_DIM_COUNT },
	{ M_DFMA, NULL, SASS("dfma"), LP_DIM_COUNT },
	{ M_RFADD, NULL, RATE("fadd"), LP_DIM_PERCYCLE },
	{ M_RFMUL, NULL, RATE("fmul"), LP_DIM_PERCYCLE },
	{ M_RFFMA, NULL, RATE("ffma"), LP_DIM_PERCYCLE },
	{ M_RHADD, NULL, RATE("hadd"), LP_DIM_PERCYCLE },
	{ M_RHMUL, NULL, RATE("hmul"), LP_DIM_PERCYCLE },
	{ M_RHFMA, NULL, RATE("hfma"), LP_DIM_PERCYCLE },
	{ M_RDADD, NULL, RATE("dadd"), LP_DIM_PERCYCLE },
	{ M_RDMUL, NULL, RATE("dmul"), LP_DIM_PERCYCLE },
	{ M_RDFMA, NULL, RATE("dfma"), LP_DIM_PERCYCLE },
	{ M_CLK, NULL, "smsp__cycles_elapsed.avg.per_second", LP_DIM_FREQ },
};
#define NDEFS (sizeof defs / sizeof defs[0])

struct launch {
	double v[NM];
	int prio[NM];		/* index into defs + 1; 0: no value */
};

struct agg {
	char *kernel, *device, *devname;
	long launches;
	long long time_ns;
	double sm, dram;
	long nsm, ndram;
	double flops, bytes;
	long nflops, nbytes;
};

struct st {
	const char *file;
	struct lp_csv_hdr hdr;
	int state;		/* 0 header, 1 units row (wide), 2 rows */
	int longfmt;
	int c_id, c_kernel, c_device, c_devname;
	int c_section, c_metric, c_unit, c_value;
	int col[NDEFS];		/* wide: column of each def, -1 if absent */
	double factor[NDEFS];	/* wide: unit factor of each def's column */
	/* long format: the launch being read */
	char *cur_id;
	long cur_line;
	long long max_id;
	int have_max;
	char *cur_kernel, *cur_device;
	struct launch cur;
	struct lp_map *idx;
	struct agg *a;
	size_t n, cap;
	long launches;
};

static struct agg *
agg_for(struct st *s, const char *kernel, const char *device,
    const char *devname)
{
	struct lp_sb key = { 0 };
	long i;

	lp_sb_printf(&key, "%s\x1f%s", kernel, device);
	i = lp_map_get(s->idx, lp_sb_str(&key), -1);
	if (i < 0) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 32;
			s->a = lp_xreallocarray(s->a, s->cap, sizeof *s->a);
		}
		i = (long)s->n++;
		memset(&s->a[i], 0, sizeof s->a[i]);
		s->a[i].kernel = lp_xstrdup(kernel);
		s->a[i].device = lp_xstrdup(device);
		s->a[i].devname = lp_xstrdup(devname);
		lp_map_put(s->idx, lp_sb_str(&key), i);
	}
	lp_sb_free(&key);
	return &s->a[i];
}

static int
has(const struct launch *l, int m)
{
	return l->prio[m] != 0;
}

/* Folds one launch into its kernel's totals. */
static void
finish(struct st *s, const struct launch *l, const char *kernel,
    const char *device, const char *devname, long line)
{
	struct agg *a;
	double t, f = 0;
	int m, direct = 0, rates = 0;

	if (!*kernel)
		lp_die_at(LP_EXIT_DATA, s->file, line, 0, "launch without a "
		    "kernel name");
	if (!has(l, M_TIME))
		lp_die_at(LP_EXIT_DATA, s->file, line, 0, "launch of %s has no "
		    "duration (gpu__time_duration.sum); export it from ncu "
		    "with that metric", kernel);
	a = agg_for(s, kernel, device, devname);
	t = l->v[M_TIME];
	a->launches++;
	s->launches++;
	/* durations are whole nanoseconds in ncu; scaled units only print
	 * them with fewer digits, so rounding per launch is exact */
	a->time_ns += llround(t);
	if (has(l, M_SM)) {
		a->sm += l->v[M_SM];
		a->nsm++;
	}
	if (has(l, M_DRAM)) {
		a->dram += l->v[M_DRAM];
		a->ndram++;
	}
	for (m = M_FADD; m <= M_DFMA; m++)
		if (has(l, m)) {
			f += flop_w[m - M_FADD] * l->v[m];
			direct = 1;
		}
	if (!direct && has(l, M_CLK)) {
		/* the roofline section's own arithmetic: rate x clock x time */
		double r = 0;

		for (m = M_RFADD; m <= M_RDFMA; m++)
			if (has(l, m)) {
				r += flop_w[m - M_RFADD] * l->v[m];
				rates = 1;
			}
		f = r * l->v[M_CLK] * t * 1e-9;
	}
	if (direct || rates) {
		a->flops += f;
		a->nflops++;
	}
	if (has(l, M_BYTES)) {
		a->bytes += l->v[M_BYTES];
		a->nbytes++;
	} else if (has(l, M_BYTES_RD) && has(l, M_BYTES_WR)) {
		a->bytes += l->v[M_BYTES_RD] + l->v[M_BYTES_WR];
		a->nbytes++;
	} else if (has(l, M_BYTERATE)) {
		a->bytes += l->v[M_BYTERATE] * t * 1e-9;
		a->nbytes++;
	}
}

static void
set_value(struct st *s, struct launch *l, size_t d, const char *val,
    const char *unit, double factor, long line, int col)
{
	double v;

	if (l->prio[defs[d].m] && l->prio[defs[d].m] <= (int)d + 1)
		return;
	if (lp_num_isna(val))
		return;
	if (lp_num_parse(val, &v))
		lp_die_at(LP_EXIT_DATA, s->file, line, col + 1,
		    "%s: not a number: \"%s\"", defs[d].name, val);
	if (factor == 0 && lp_unit_factor(defs[d].dim, unit, &factor))
		lp_die_at(LP_EXIT_DATA, s->file, line, col + 1,
		    "%s: unknown %s unit \"%s\"", defs[d].name,
		    lp_dim_name(defs[d].dim), unit);
	l->v[defs[d].m] = v * factor;
	l->prio[defs[d].m] = (int)d + 1;
}

static void
wide_header(struct st *s)
{
	size_t d;

	s->c_kernel = lp_csv_need(&s->hdr, "Kernel Name", "an ncu CSV export");
	s->c_device = lp_csv_col(&s->hdr, "Device");
	s->c_devname = lp_csv_col(&s->hdr, "device__attribute_display_name");
	for (d = 0; d < NDEFS; d++)
		s->col[d] = defs[d].section ? -1 : lp_csv_col(&s->hdr,
		    defs[d].name);
	if (s->col[0] < 0)
		lp_die_at(LP_EXIT_DATA, s->file, s->hdr.line, 0, "no column "
		    "\"gpu__time_duration.sum\": collect it with ncu --metrics "
		    "gpu__time_duration.sum or --section SpeedOfLight");
}

static void
wide_units(struct st *s, const struct lp_csv_rec *r)
{
	size_t d;

	for (d = 0; d < NDEFS; d++) {
		const char *u;

		s->factor[d] = 0;
		if (s->col[d] < 0)
			continue;
		u = lp_csv_field(r, s->col[d]);
		if (lp_unit_factor(defs[d].dim, u, &s->factor[d]))
			lp_die_at(LP_EXIT_DATA, s->file, r->line, s->col[d] + 1,
			    "%s: unknown %s unit \"%s\"", defs[d].name,
			    lp_dim_name(defs[d].dim), u);
	}
}

static void
wide_row(struct st *s, const struct lp_csv_rec *r)
{
	struct launch l;
	size_t d;

	if (r->n < s->hdr.n)
		lp_die_at(LP_EXIT_DATA, s->file, r->line, 0,
		    "%zu fields, header has %zu (cut-off export?)", r->n,
		    s->hdr.n);
	memset(&l, 0, sizeof l);
	for (d = 0; d < NDEFS; d++)
		if (s->col[d] >= 0)
			set_value(s, &l, d, r->f[s->col[d]], NULL, s->factor[d],
			    r->line, s->col[d]);
	finish(s, &l, r->f[s->c_kernel],
	    s->c_device >= 0 ? r->f[s->c_device] : "",
	    s->c_devname >= 0 ? r->f[s->c_devname] : "", r->line);
}

static void
long_flush(struct st *s)
{
	if (!s->cur_id)
		return;
	finish(s, &s->cur, s->cur_kernel, s->cur_device, "", s->cur_line);
	free(s->cur_id);
	free(s->cur_kernel);
	free(s->cur_device);
	s->cur_id = s->cur_kernel = s->cur_device = NULL;
}

static void
long_row(struct st *s, const struct lp_csv_rec *r)
{
	const char *id = lp_csv_field(r, s->c_id);
	const char *sec = lp_csv_field(r, s->c_section);
	const char *met = lp_csv_field(r, s->c_metric);
	size_t d;

	if (!*id)
		lp_die_at(LP_EXIT_DATA, s->file, r->line, s->c_id + 1,
		    "row without a launch ID");
	if (!s->cur_id || strcmp(id, s->cur_id)) {
		double v;

		long_flush(s);
		/* one launch's rows come together; a launch seen again means
		 * an export that was edited or concatenated */
		if (!lp_num_parse(id, &v)) {
			if (s->have_max && v <= (double)s->max_id)
				lp_die_at(LP_EXIT_DATA, s->file, r->line,
				    s->c_id + 1, "rows of launch ID %s are not "
				    "together", id);
			s->max_id = (long long)v;
			s->have_max = 1;
		}
		s->cur_id = lp_xstrdup(id);
		s->cur_kernel = lp_xstrdup(lp_csv_field(r, s->c_kernel));
		s->cur_device = lp_xstrdup(lp_csv_field(r, s->c_device));
		s->cur_line = r->line;
		memset(&s->cur, 0, sizeof s->cur);
	}
	if (!*met)
		return;		/* a rule's row, not a metric */
	for (d = 0; d < NDEFS; d++)
		if (!strcmp(defs[d].name, met) &&
		    (!defs[d].section || !strcmp(defs[d].section, sec)))
			set_value(s, &s->cur, d, lp_csv_field(r, s->c_value),
			    lp_csv_field(r, s->c_unit), 0, r->line, s->c_value);
}

static int
on_rec(const struct lp_csv_rec *r, void *ctx)
{
	struct st *s = ctx;

	switch (s->state) {
	case 0:
		lp_csv_hdr_init(&s->hdr, r, s->file);
		s->c_metric = lp_csv_col(&s->hdr, "Metric Name");
		s->longfmt = s->c_metric >= 0;
		if (s->longfmt) {
			const char *w = "an ncu --page details export";

			s->c_id = lp_csv_need(&s->hdr, "ID", w);
			s->c_kernel = lp_csv_need(&s->hdr, "Kernel Name", w);
			s->c_device = lp_csv_col(&s->hdr, "Device");
			s->c_section = lp_csv_need(&s->hdr, "Section Name", w);
			s->c_unit = lp_csv_need(&s->hdr, "Metric Unit", w);
			s->c_value = lp_csv_need(&s->hdr, "Metric Value", w);
			s->state = 2;
		} else {
			wide_header(s);
			s->state = 1;
		}
		return 0;
	case 1:
		if (*lp_csv_field(r, s->c_kernel))
			lp_die_at(LP_EXIT_DATA, s->file, r->line, 0, "no units "
			    "row under the header (not an ncu --page raw "
			    "export?)");
		wide_units(s, r);
		s->state = 2;
		return 0;
	}
	if (s->longfmt)
		long_row(s, r);
	else
		wide_row(s, r);
	return 0;
}

static void
on_msg(const char *line, long lineno, void *ctx)
{
	struct st *s = ctx;

	if (!strncmp(line, "==ERROR==", 9))
		lp_die_at(LP_EXIT_DATA, s->file, lineno, 0, "ncu error instead "
		    "of CSV: %s", line);
	lp_warn_at(s->file, lineno, 0, "skipped ncu message: %s", line);
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
	return strcmp(a->device, b->device);
}

/* Means skip launches where ncu printed n/a; sums must have them all. */
static void
put_mean(struct lp_sb *b, double sum, long n)
{
	lp_sb_addc(b, '\t');
	if (n > 0)
		lp_fmt_num(b, sum / n, 2);
}

static void
put_sum(struct lp_sb *b, double sum, long n, long all)
{
	lp_sb_addc(b, '\t');
	if (n == all && n > 0)
		lp_fmt_num(b, sum, 0);
}

int
main(int argc, char **argv)
{
	struct st s;
	struct lp_sb b = { 0 };
	const char *name;
	FILE *fp;
	size_t i;
	int c;

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "h")) != -1) {
		if (c == 'h') {
			printf("usage: %s\n", synopsis);
			return 0;
		}
		lp_usage(synopsis);
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	memset(&s, 0, sizeof s);
	s.idx = lp_map_new();
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	s.file = name;
	lp_csv_read(fp, name, on_rec, on_msg, &s);
	lp_close_in(fp);
	if (s.longfmt)
		long_flush(&s);
	if (s.state == 0)
		lp_die_at(LP_EXIT_DATA, name, 0, 0, "empty input");
	if (!s.launches)
		lp_die_at(LP_EXIT_DATA, name, 0, 0, "no kernel launches in the "
		    "export (did ncu profile anything?)");
	qsort(s.a, s.n, sizeof *s.a, cmp);

	puts("kernel\tdevice\tlaunches\tgpu_time_ns\tsm_throughput_pct\t"
	    "dram_throughput_pct\tflops\tdram_bytes\tdevice_name");
	for (i = 0; i < s.n; i++) {
		const struct agg *a = &s.a[i];

		lp_tsv_field(stdout, a->kernel);
		putchar('\t');
		lp_tsv_field(stdout, a->device);
		lp_sb_reset(&b);
		lp_sb_printf(&b, "\t%ld\t%lld", a->launches, a->time_ns);
		put_mean(&b, a->sm, a->nsm);
		put_mean(&b, a->dram, a->ndram);
		put_sum(&b, a->flops, a->nflops, a->launches);
		put_sum(&b, a->bytes, a->nbytes, a->launches);
		lp_sb_addc(&b, '\t');
		fputs(lp_sb_str(&b), stdout);
		lp_tsv_field(stdout, a->devname);
		putchar('\n');
	}
	lp_sb_free(&b);
	for (i = 0; i < s.n; i++) {
		free(s.a[i].kernel);
		free(s.a[i].device);
		free(s.a[i].devname);
	}
	free(s.a);
	lp_map_free(s.idx);
	lp_csv_hdr_free(&s.hdr);
	lp_close_stdout();
	return 0;
}
