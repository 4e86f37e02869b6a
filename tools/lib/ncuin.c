/*
 * Nsight Compute CSV exports, wide (--page raw: header, units row, a row per
 * result) or long (--page details: a row per result, section and metric),
 * read as a stream of results: a kernel launch in kernel replay, a range
 * instance in range and app-range replay.  Every value is brought to its
 * base unit (ns, byte, byte/s, %) before the caller sees it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "nsight.h"

#define SOL "GPU Speed Of Light Throughput"
#define SOL_OLD "GPU Speed Of Light"		/* ncu before 2021.2 */
#define SASS(op) "sm__sass_thread_inst_executed_op_" op "_pred_on.sum"
#define RATE(op) "smsp__sass_thread_inst_executed_op_" op \
	"_pred_on.sum.per_cycle_elapsed"
#define TC(p) "sm__ops_path_tensor_src_" p ".sum"
#define LS "Launch Statistics"
#define OCC "Occupancy"
/* Earlier entries win when a result has several sources for one value. */
const struct lp_mdef lp_mdefs[] = {
	{ LP_M_TIME, NULL, "gpu__time_duration.sum", LP_DIM_TIME },
	{ LP_M_TIME, SOL, "Duration", LP_DIM_TIME },
	{ LP_M_TIME, SOL_OLD, "Duration", LP_DIM_TIME },
	{ LP_M_SM, NULL, "sm__throughput.avg.pct_of_peak_sustained_elapsed", LP_DIM_PCT },
	{ LP_M_SM, SOL, "Compute (SM) Throughput", LP_DIM_PCT },
	{ LP_M_SM, SOL, "Compute (SM) [%]", LP_DIM_PCT },
	{ LP_M_SM, SOL_OLD, "SM [%]", LP_DIM_PCT },
	{ LP_M_DRAM, NULL, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", LP_DIM_PCT },
	{ LP_M_DRAM, NULL, "dram__throughput.avg.pct_of_peak_sustained_elapsed", LP_DIM_PCT },
	{ LP_M_DRAM, SOL, "DRAM Throughput", LP_DIM_PCT },
	{ LP_M_DRAM, SOL_OLD, "DRAM Throughput", LP_DIM_PCT },
	{ LP_M_BYTES, NULL, "dram__bytes.sum", LP_DIM_BYTES },
	{ LP_M_BYTES_RD, NULL, "dram__bytes_read.sum", LP_DIM_BYTES },
	{ LP_M_BYTES_WR, NULL, "dram__bytes_write.sum", LP_DIM_BYTES },
	{ LP_M_BYTERATE, NULL, "dram__bytes.sum.per_second", LP_DIM_BYTERATE },
	{ LP_M_FADD, NULL, SASS("fadd"), LP_DIM_COUNT },
	{ LP_M_FMUL, NULL, SASS("fmul"), LP_DIM_COUNT },
	{ LP_M_FFMA, NULL, SASS("ffma"), LP_DIM_COUNT },
	{ LP_M_HADD, NULL, SASS("hadd"), LP_DIM_COUNT },
	{ LP_M_HMUL, NULL, SASS("hmul"), LP_DIM_COUNT },
	{ LP_M_HFMA, NULL, SASS("hfma"), LP_DIM_COUNT },
	{ LP_M_DADD, NULL, SASS("dadd"), LP_DIM_COUNT },
	{ LP_M_DMUL, NULL, SASS("dmul"), LP_DIM_COUNT },
	{ LP_M_DFMA, NULL, SASS("dfma"), LP_DIM_COUNT },
	{ LP_M_RFADD, NULL, RATE("fadd"), LP_DIM_PERCYCLE },
	{ LP_M_RFMUL, NULL, RATE("fmul"), LP_DIM_PERCYCLE },
	{ LP_M_RFFMA, NULL, RATE("ffma"), LP_DIM_PERCYCLE },
	{ LP_M_RHADD, NULL, RATE("hadd"), LP_DIM_PERCYCLE },
	{ LP_M_RHMUL, NULL, RATE("hmul"), LP_DIM_PERCYCLE },
	{ LP_M_RHFMA, NULL, RATE("hfma"), LP_DIM_PERCYCLE },
	{ LP_M_RDADD, NULL, RATE("dadd"), LP_DIM_PERCYCLE },
	{ LP_M_RDMUL, NULL, RATE("dmul"), LP_DIM_PERCYCLE },
	{ LP_M_RDFMA, NULL, RATE("dfma"), LP_DIM_PERCYCLE },
	{ LP_M_CLK, NULL, "smsp__cycles_elapsed.avg.per_second", LP_DIM_FREQ },
	{ LP_M_TC_FP16, NULL, TC("fp16"), LP_DIM_COUNT },
	{ LP_M_TC_BF16, NULL, TC("bf16_dst_fp32"), LP_DIM_COUNT },
	{ LP_M_TC_TF32, NULL, TC("tf32_dst_fp32"), LP_DIM_COUNT },
	{ LP_M_TC_FP8, NULL, TC("fp8"), LP_DIM_COUNT },
	{ LP_M_TC_INT8, NULL, TC("int8"), LP_DIM_COUNT },
	{ LP_M_TC_FP64, NULL, TC("fp64"), LP_DIM_COUNT },
	/* the launch's shape against the GPU (LaunchStats, Occupancy) */
	{ LP_M_CTAS, NULL, "launch__grid_size", LP_DIM_COUNT },
	{ LP_M_CTAS, LS, "Grid Size", LP_DIM_COUNT },
	{ LP_M_NSM, NULL, "device__attribute_multiprocessor_count", LP_DIM_COUNT },
	{ LP_M_NSM, NULL, "launch__sm_count", LP_DIM_COUNT },
	{ LP_M_NSM, LS, "# SMs", LP_DIM_COUNT },
	{ LP_M_OCC_BAR, NULL, "launch__occupancy_limit_barriers", LP_DIM_COUNT },
	{ LP_M_OCC_BAR, OCC, "Block Limit Barriers", LP_DIM_COUNT },
	{ LP_M_OCC_BLK, NULL, "launch__occupancy_limit_blocks", LP_DIM_COUNT },
	{ LP_M_OCC_BLK, OCC, "Block Limit SM", LP_DIM_COUNT },
	{ LP_M_OCC_REG, NULL, "launch__occupancy_limit_registers", LP_DIM_COUNT },
	{ LP_M_OCC_REG, OCC, "Block Limit Registers", LP_DIM_COUNT },
	{ LP_M_OCC_SHM, NULL, "launch__occupancy_limit_shared_mem", LP_DIM_COUNT },
	{ LP_M_OCC_SHM, OCC, "Block Limit Shared Mem", LP_DIM_COUNT },
	{ LP_M_OCC_WARP, NULL, "launch__occupancy_limit_warps", LP_DIM_COUNT },
	{ LP_M_OCC_WARP, OCC, "Block Limit Warps", LP_DIM_COUNT },
};
const size_t lp_nmdefs = sizeof lp_mdefs / sizeof lp_mdefs[0];

int
lp_launch_has(const struct lp_launch *l, int m)
{
	return l->prio[m] != 0;
}

/* SASS thread instructions per precision: add and mul 1 FLOP, fma 2, and
 * half-precision ones twice that, packed half2 as ncu's own roofline counts
 * them (its derived__..._hfma_pred_on_x4 and _hadd_pred_on_x2). */
static const struct { int m, fp; double w; } sass[] = {
	{ LP_M_FADD, LP_FP_FP32, 1 }, { LP_M_FMUL, LP_FP_FP32, 1 },
	{ LP_M_FFMA, LP_FP_FP32, 2 }, { LP_M_HADD, LP_FP_FP16, 2 },
	{ LP_M_HMUL, LP_FP_FP16, 2 }, { LP_M_HFMA, LP_FP_FP16, 4 },
	{ LP_M_DADD, LP_FP_FP64, 1 }, { LP_M_DMUL, LP_FP_FP64, 1 },
	{ LP_M_DFMA, LP_FP_FP64, 2 },
};

void
lp_launch_flops(const struct lp_launch *l, struct lp_flops *f)
{
	size_t i;
	int m, rates = 0;

	memset(f, 0, sizeof *f);
	/* tensor-core ops: already FLOPs, an FMA counted as 2 */
	for (m = LP_M_TC_FP16; m <= LP_M_TC_FP64; m++)
		if (lp_launch_has(l, m)) {
			f->f[m - LP_M_TC_FP16] = l->v[m];
			f->have_tensor = 1;
		}
	for (i = 0; i < sizeof sass / sizeof sass[0]; i++)
		if (lp_launch_has(l, sass[i].m)) {
			f->f[sass[i].fp] += sass[i].w * l->v[sass[i].m];
			f->have_sass = 1;
		}
	if (f->have_sass || !lp_launch_has(l, LP_M_CLK) || !lp_launch_has(l,
	    LP_M_TIME))
		return;
	/* the roofline section's own arithmetic: rate x clock x time */
	for (i = 0; i < sizeof sass / sizeof sass[0]; i++)
		if (lp_launch_has(l, sass[i].m + LP_M_RFADD - LP_M_FADD)) {
			f->f[sass[i].fp] += sass[i].w * l->v[sass[i].m +
			    LP_M_RFADD - LP_M_FADD] * l->v[LP_M_CLK] *
			    l->v[LP_M_TIME] * 1e-9;
			rates = 1;
		}
	f->have_sass = rates;
}

/* CTAs that fit on one SM at once: the tightest of ncu's occupancy
 * limits, all five needed (one missing could be the tightest). */
int
lp_launch_ctas_per_sm(const struct lp_launch *l, double *ctas)
{
	int m;

	*ctas = INFINITY;
	for (m = LP_M_OCC_BAR; m <= LP_M_OCC_WARP; m++) {
		if (!lp_launch_has(l, m))
			return 0;
		if (l->v[m] < *ctas)
			*ctas = l->v[m];
	}
	return 1;
}

int
lp_launch_bytes(const struct lp_launch *l, double *bytes)
{
	if (lp_launch_has(l, LP_M_BYTES))
		*bytes = l->v[LP_M_BYTES];
	else if (lp_launch_has(l, LP_M_BYTES_RD) && lp_launch_has(l,
	    LP_M_BYTES_WR))
		*bytes = l->v[LP_M_BYTES_RD] + l->v[LP_M_BYTES_WR];
	else if (lp_launch_has(l, LP_M_BYTERATE) && lp_launch_has(l, LP_M_TIME))
		*bytes = l->v[LP_M_BYTERATE] * l->v[LP_M_TIME] * 1e-9;
	else
		return 0;
	return 1;
}

/* ---- the reader ---- */

#define NDEFS (sizeof lp_mdefs / sizeof lp_mdefs[0])

struct st {
	const char *file;
	struct lp_csv_hdr hdr;
	int state;		/* 0 header, 1 units row (wide), 2 rows */
	int longfmt;
	int c_id, c_kernel, c_device, c_devname, c_nvtx, c_pid;
	int c_grid, c_block;
	int c_section, c_metric, c_unit, c_value, c_rule;
	unsigned char *keep;	/* wide exports: the columns read */
	long last;		/* the line the last record began on */
	int col[NDEFS];		/* wide: column of each def, -1 if absent */
	double factor[NDEFS];	/* wide: unit factor of each def's column */
	struct lp_ncu_result cur;	/* long format: the result being read */
	int have_cur;
	struct lp_map *ids;	/* long format: results read -> first line */
	long results;
	void (*cb)(const struct lp_ncu_result *, void *);
	void *ctx;
};

static void
set_value(struct st *s, struct lp_launch *l, size_t d, const char *val,
    const char *unit, double factor, long line, int col)
{
	const char *why;
	double v;

	if (l->prio[lp_mdefs[d].m] && l->prio[lp_mdefs[d].m] <= (int)d + 1)
		return;
	if (lp_num_isna(val))
		return;
	if (lp_num_parse(val, &v))
		lp_die_at(LP_EXIT_DATA, s->file, line, col + 1,
		    "%s: not a number: \"%s\"", lp_mdefs[d].name, val);
	if (factor == 0 && lp_unit_factor(lp_mdefs[d].dim, unit, &factor))
		lp_die_at(LP_EXIT_DATA, s->file, line, col + 1,
		    "%s: unknown %s unit \"%s\"", lp_mdefs[d].name,
		    lp_dim_name(lp_mdefs[d].dim), unit);
	/* counts in base units are whole; scaled ones ("1.5 Kinst") are not
	 * exactly, and the scaling keeps no more digits than ncu printed; a
	 * range result averages the launch statistics of its kernels */
	if ((why = lp_num_bad(lp_mdefs[d].dim, v * factor,
	    lp_mdefs[d].dim == LP_DIM_COUNT && factor == 1 &&
	    lp_mdefs[d].m < LP_M_CTAS)))
		lp_die_at(LP_EXIT_DATA, s->file, line, col + 1, "%s: %s: \"%s\"",
		    lp_mdefs[d].name, why, val);
	l->v[lp_mdefs[d].m] = v * factor;
	l->prio[lp_mdefs[d].m] = (int)d + 1;
}

static void
emit(struct st *s, struct lp_ncu_result *r)
{
	/* compared as text with nsys's PIDs: "1e3" is not "1000" */
	if (*r->pid && !lp_num_pid(r->pid))
		lp_die_at(LP_EXIT_DATA, s->file, r->line, s->c_pid + 1, "Process "
		    "ID: a process ID is a whole number in digits, got \"%s\"",
		    r->pid);
	if (!*r->kernel)
		lp_die_at(LP_EXIT_DATA, s->file, r->line, 0, "result without a "
		    "kernel name");
	if (!lp_launch_has(&r->l, LP_M_TIME))
		lp_die_at(LP_EXIT_DATA, s->file, r->line, 0, "result of %s has no "
		    "duration (gpu__time_duration.sum); export it from ncu "
		    "with that metric", r->kernel);
	s->results++;
	s->cb(r, s->ctx);
}

static void
common_cols(struct st *s, const char *what)
{
	s->c_kernel = lp_csv_need(&s->hdr, "Kernel Name", what);
	s->c_device = lp_csv_col(&s->hdr, "Device");
	s->c_id = lp_csv_col(&s->hdr, "ID");
	s->c_pid = lp_csv_col(&s->hdr, "Process ID");
	s->c_nvtx = lp_csv_col_prefix(&s->hdr, "thread Domain:Push/Pop_Range");
	s->c_devname = lp_csv_col(&s->hdr, "device__attribute_display_name");
	s->c_grid = lp_csv_col(&s->hdr, "Grid Size");
	s->c_block = lp_csv_col(&s->hdr, "Block Size");
}

static void
keep(struct st *s, int col)
{
	if (col >= 0)
		s->keep[col] = 1;
}

static void
wide_header(struct st *s)
{
	size_t d;

	common_cols(s, "an ncu CSV export");
	for (d = 0; d < NDEFS; d++)
		s->col[d] = lp_mdefs[d].section ? -1 : lp_csv_col(&s->hdr,
		    lp_mdefs[d].name);
	if (s->col[0] < 0)
		lp_die_at(LP_EXIT_DATA, s->file, s->hdr.line, 0, "no column "
		    "\"gpu__time_duration.sum\": collect it with ncu --metrics "
		    "gpu__time_duration.sum or --section SpeedOfLight");
	/* only the columns read below are copied out of each row */
	s->keep = lp_xcalloc(s->hdr.n, 1);
	keep(s, s->c_kernel);
	keep(s, s->c_device);
	keep(s, s->c_id);
	keep(s, s->c_pid);
	keep(s, s->c_nvtx);
	keep(s, s->c_devname);
	keep(s, s->c_grid);
	keep(s, s->c_block);
	for (d = 0; d < NDEFS; d++)
		keep(s, s->col[d]);
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
		if (lp_unit_factor(lp_mdefs[d].dim, u, &s->factor[d]))
			lp_die_at(LP_EXIT_DATA, s->file, r->line, s->col[d] + 1,
			    "%s: unknown %s unit \"%s\"", lp_mdefs[d].name,
			    lp_dim_name(lp_mdefs[d].dim), u);
	}
}

static const char *
opt_field(const struct lp_csv_rec *r, int col)
{
	return col >= 0 ? lp_csv_field(r, col) : "";
}

static void
wide_row(struct st *s, const struct lp_csv_rec *r)
{
	struct lp_ncu_result res;
	size_t d;

	lp_csv_width(&s->hdr, r->n, r->line);
	memset(&res, 0, sizeof res);
	for (d = 0; d < NDEFS; d++)
		if (s->col[d] >= 0)
			set_value(s, &res.l, d, r->f[s->col[d]], NULL,
			    s->factor[d], r->line, s->col[d]);
	res.kernel = r->f[s->c_kernel];
	res.device = opt_field(r, s->c_device);
	res.devname = opt_field(r, s->c_devname);
	res.grid = opt_field(r, s->c_grid);
	res.block = opt_field(r, s->c_block);
	res.nvtx = opt_field(r, s->c_nvtx);
	res.id = opt_field(r, s->c_id);
	if (*res.id) {
		double v;

		if (lp_num_parse(res.id, &v) || lp_num_bad(LP_DIM_COUNT, v, 1))
			lp_die_at(LP_EXIT_DATA, s->file, r->line, s->c_id + 1,
			    "ID: expected a whole number from 0, got \"%s\"",
			    res.id);
	}
	res.pid = opt_field(r, s->c_pid);
	res.line = r->line;
	emit(s, &res);
}

static void
cur_free(struct st *s)
{
	free((char *)s->cur.kernel);
	free((char *)s->cur.device);
	free((char *)s->cur.nvtx);
	free((char *)s->cur.id);
	free((char *)s->cur.pid);
	free((char *)s->cur.grid);
	free((char *)s->cur.block);
	memset(&s->cur, 0, sizeof s->cur);
	s->have_cur = 0;
}

static void
long_flush(struct st *s)
{
	if (!s->have_cur)
		return;
	emit(s, &s->cur);
	cur_free(s);
}

/* A result's first row: the result before it written out, its ID
 * checked, the launch it describes kept. */
static void
long_begin(struct st *s, const struct lp_csv_rec *r, const char *id)
{
	char key[32];
	double v;
	long at;

	long_flush(s);
	/* one result's rows come together, as ncu prints a result
	 * whole, the results in any order; a result seen again means
	 * an export that was edited or concatenated */
	if (lp_num_parse(id, &v) || lp_num_bad(LP_DIM_COUNT, v, 1) ||
	    v > 9007199254740992.0)
		lp_die_at(LP_EXIT_DATA, s->file, r->line, s->c_id + 1,
		    "result ID: expected a whole number from 0, got \"%s\"", id);
	snprintf(key, sizeof key, "%.0f", v);
	if (!s->ids)
		s->ids = lp_map_new();
	if ((at = lp_map_get(s->ids, key, 0)))
		lp_die_at(LP_EXIT_DATA, s->file, r->line, s->c_id + 1,
		    "rows of result ID %s are not together (it began on "
		    "line %ld)", id, at);
	lp_map_put(s->ids, key, r->line);
	s->cur.id = lp_xstrdup(id);
	s->cur.kernel = lp_xstrdup(lp_csv_field(r, s->c_kernel));
	s->cur.device = lp_xstrdup(opt_field(r, s->c_device));
	s->cur.nvtx = lp_xstrdup(opt_field(r, s->c_nvtx));
	s->cur.pid = lp_xstrdup(opt_field(r, s->c_pid));
	s->cur.grid = lp_xstrdup(opt_field(r, s->c_grid));
	s->cur.block = lp_xstrdup(opt_field(r, s->c_block));
	s->cur.devname = "";
	s->cur.line = r->line;
	s->have_cur = 1;
}

static void
long_row(struct st *s, const struct lp_csv_rec *r)
{
	const char *id = lp_csv_field(r, s->c_id);
	const char *sec = lp_csv_field(r, s->c_section);
	const char *met = lp_csv_field(r, s->c_metric);
	size_t d;

	/* ncu 2025.3 ends a metric's row after an empty "Rule Name": the
	 * rule columns are there only on a rule's row */
	if (!(s->c_rule >= 0 && r->n == (size_t)s->c_rule + 1))
		lp_csv_width(&s->hdr, r->n, r->line);
	if (!*id)
		lp_die_at(LP_EXIT_DATA, s->file, r->line, s->c_id + 1,
		    "row without a result ID");
	/* ID "0" again with another kernel or process: exports of single
	 * kernels put one after another, each numbering its launch 0 */
	if (s->have_cur && !strcmp(id, s->cur.id) &&
	    (strcmp(lp_csv_field(r, s->c_kernel), s->cur.kernel) ||
	    strcmp(opt_field(r, s->c_pid), s->cur.pid)))
		lp_die_at(LP_EXIT_DATA, s->file, r->line, s->c_id + 1,
		    "result ID %s is %s here and %s on line %ld: exports put "
		    "one after another? Give each export its own file (lp-ncu2tsv "
		    "and IMPORT= take several)", id, lp_csv_field(r, s->c_kernel),
		    s->cur.kernel, s->cur.line);
	if (!s->have_cur || strcmp(id, s->cur.id))
		long_begin(s, r, id);
	if (!*met)
		return;		/* a rule's row, not a metric */
	for (d = 0; d < NDEFS; d++)
		if (!strcmp(lp_mdefs[d].name, met) &&
		    (!lp_mdefs[d].section || !strcmp(lp_mdefs[d].section, sec)))
			set_value(s, &s->cur.l, d, lp_csv_field(r, s->c_value),
			    lp_csv_field(r, s->c_unit), 0, r->line, s->c_value);
}

static int
on_rec(const struct lp_csv_rec *r, void *ctx)
{
	struct st *s = ctx;

	s->last = r->line;
	switch (s->state) {
	case 0:
		lp_csv_hdr_init(&s->hdr, r, s->file);
		s->c_metric = lp_csv_col(&s->hdr, "Metric Name");
		s->longfmt = s->c_metric >= 0;
		if (s->longfmt) {
			const char *w = "an ncu --page details export";

			common_cols(s, w);
			s->c_id = lp_csv_need(&s->hdr, "ID", w);
			s->c_section = lp_csv_need(&s->hdr, "Section Name", w);
			s->c_unit = lp_csv_need(&s->hdr, "Metric Unit", w);
			s->c_value = lp_csv_need(&s->hdr, "Metric Value", w);
			s->c_rule = lp_csv_col(&s->hdr, "Rule Name");
			if (s->c_rule >= 0 && s->c_rule <= s->c_value)
				s->c_rule = -1;
			s->state = 2;
		} else {
			wide_header(s);
			lp_csv_keep(r, s->keep, s->hdr.n);
			s->state = 1;
		}
		return 0;
	case 1:
		if (*lp_csv_field(r, s->c_kernel))
			lp_die_at(LP_EXIT_DATA, s->file, r->line, 0, "no units "
			    "row under the header (not an ncu --page raw "
			    "export?)");
		lp_csv_width(&s->hdr, r->n, r->line);
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

long
lp_ncu_read(FILE *fp, const char *file,
    void (*cb)(const struct lp_ncu_result *, void *), void *ctx)
{
	struct st s;

	memset(&s, 0, sizeof s);
	s.file = file;
	s.cb = cb;
	s.ctx = ctx;
	lp_csv_read(fp, file, on_rec, on_msg, &s);
	if (s.longfmt)
		long_flush(&s);
	lp_csv_hdr_free(&s.hdr);
	free(s.keep);
	if (s.ids)
		lp_map_free(s.ids);
	if (s.state == 0)
		lp_die_at(LP_EXIT_DATA, file, 0, 0, "empty input");
	if (!s.results)
		lp_die_at(LP_EXIT_DATA, file, s.last, 0, "no results in the export, "
		    "no kernel launch or range (did ncu profile anything?)");
	return s.results;
}

/* ---- the NVTX push/pop stack of a result ---- */

/*
 * ncu writes the column as the process ID and one quoted item per level of
 * the thread's push/pop stack, outermost first:
 *   1982  "LLM:decode_all:none:none:none:none:ASCII:decode_all"  "LLM:..." 
 * each item DOMAIN:RANGE:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg, the
 * default domain spelled "<default domain>".  The range is what lies between
 * the domain and the last six fields, so a ':' inside it survives.
 */
size_t
lp_ncu_nvtx_stack(const char *col, char ***names)
{
	const char *p = col;
	size_t n = 0;

	*names = NULL;
	while ((p = strchr(p, '"'))) {
		const char *q = strchr(p + 1, '"'), *f[8], *c;
		struct lp_sb b = { 0 };
		size_t nf = 0, k;
		char *item;

		if (!q)
			break;
		item = lp_xstrndup(p + 1, (size_t)(q - p - 1));
		p = q + 1;
		/* the six fields after the range, counted from the end */
		for (c = item + strlen(item); c > item && nf < 6; c--)
			if (c[-1] == ':')
				f[nf++] = c - 1;
		k = strcspn(item, ":");
		if (nf == 6 && item + k < f[5]) {
			if (strncmp(item, "<default domain>", k))
				lp_sb_addn(&b, item, k);
			lp_sb_addc(&b, ':');
			lp_sb_addn(&b, item + k + 1, (size_t)(f[5] - item - k - 1));
		} else
			lp_sb_adds(&b, item);
		free(item);
		*names = lp_xreallocarray(*names, n + 1, sizeof **names);
		(*names)[n++] = lp_sb_steal(&b);
	}
	return n;
}
