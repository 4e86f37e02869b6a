/*
 * lp-import: what each file of IMPORT= is, read from its content (never its
 * name), and whether the files belong together.  Prints the make variables
 * rules.mk includes (import.mk): the files of each nsys report, the ncu
 * kernel exports, the ncu region exports.
 *
 * Belonging together: several exports of one nsys report are joined only
 * when each is tied to its processes (the PID of its own rows, or of the
 * exports written beside it by one "nsys stats -o BASE") and to its GPU
 * (a cuda_gpu_trace of its set), and no process or GPU is in two of them,
 * as per-rank exports of one job are; exports of different reports must
 * agree where they overlap (launch and range counts, and their times); an
 * ncu export must profile the capture's kernels (or its costliest ones),
 * not merely share library kernels with it, and no ncu result may be
 * given twice.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "aten.h"

static const char synopsis[] = "lp-import file ...";

enum kind {
	K_NONE, K_KSUM, K_NVTX_SUM, K_NVTX_KSUM, K_API_SUM, K_MEM_SUM,
	K_PUSHPOP, K_PROJ, K_PROJ_SUM, K_EMPTY, K_CALL_SUM, K_GPU_TRACE,
	K_API_TRACE,
	K_GRAPH_NODES,
	K_NCU_KERN, K_NCU_RANGE, K_NSYS_REP, K_NCU_REP, K_NCU_REP_RANGE,
	K_SQLITE_GM, K_SQLITE,
};

/* The nsys reports lp reads, as rules.mk names their variables. */
enum rep {
	R_KSUM, R_KSUM_M, R_NVTX_SUM, R_NVTX_KSUM, R_NVTX_KSUM_M, R_API_SUM,
	R_MEM_SUM, R_PUSHPOP, R_PROJ, R_GPU_TRACE, R_GPU_TRACE_M, R_API_TRACE,
	R_GRAPH_NODES, R_N
};
static const char *const rep_var[R_N] = {
	"cuda_gpu_kern_sum", "cuda_gpu_kern_sum_mangled", "nvtx_sum",
	"nvtx_kern_sum", "nvtx_kern_sum_mangled", "cuda_api_sum",
	"cuda_gpu_mem_time_sum", "nvtx_pushpop_trace", "nvtx_gpu_proj_trace",
	"cuda_gpu_trace", "cuda_gpu_trace_mangled", "cuda_api_trace",
	"graph_node_trace",
};

/* The names nsys stats -o BASE gives each report's file (BASE_NAME.csv),
 * old names too: what ties the exports of one set together. */
static const char *const suffixes[] = {
	"cuda_gpu_kern_sum", "cuda_gpu_kern_sum_mangled", "gpukernsum",
	"nvtx_sum", "nvtxsum", "nvtx_kern_sum", "nvtx_kern_sum_mangled",
	"nvtxkernsum", "cuda_api_sum", "cudaapisum", "cuda_gpu_mem_time_sum",
	"gpumemtimesum", "nvtx_pushpop_trace", "nvtx_gpu_proj_trace",
	"nvtx_gpu_proj_sum", "nvtx_pushpop_sum", "cuda_gpu_trace",
	"cuda_gpu_trace_mangled", "cuda_api_trace", "graph_node_trace",
};

static const char *const kind_name[] = {
	"not an export lp knows", "nsys cuda_gpu_kern_sum", "nsys nvtx_sum",
	"nsys nvtx_kern_sum", "nsys cuda_api_sum", "nsys cuda_gpu_mem_time_sum",
	"nsys nvtx_pushpop_trace", "nsys nvtx_gpu_proj_trace",
	"nsys nvtx_gpu_proj_sum (not read)",
	"an empty file (not read: nsys stats writes one for a report without "
	"rows)",
	"an nsys summary of calls that are not CUDA API calls (not read: "
	"osrt_sum, or another report lp does not read)", "nsys cuda_gpu_trace",
	"nsys cuda_api_trace", "lp-graphnodes graph_node_trace",
	"ncu kernel export",
	"ncu range export (regions)", "nsys report", "ncu report",
	"ncu report of regions",
	"nsys sqlite export with GPU Metrics samples (GPU_METRICS)",
	"nsys sqlite export without GPU Metrics samples (not read: no table "
	"GPU_METRICS)",
};

/* Counts by name: launches of a kernel, instances of a range, and their
 * time.  Added up (C_SUM), or per row of nvtx_kern_sum (C_ROW): n the most
 * launches of one row, t the most time of one row, and lo, hi the least
 * and the most time of the rows with n launches. */
struct counts {
	struct lp_map *idx;
	double *n, *t, *lo, *hi;
	size_t len, cap;
};
enum { C_SUM, C_ROW };

struct file {
	const char *path;
	char *base;		/* its export set: BASE of BASE_REPORT.csv */
	enum kind kind;
	int details;		/* ncu --page details */
	long dem, mang;		/* names seen demangled, mangled */
	int rep;		/* enum rep, or -1 */
	struct lp_map *pids, *devs;
	struct counts names;	/* kernels or ranges, by count */
	struct counts sub;	/* nvtx_kern_sum: NVTX instances by range */
	double launches, time;	/* kernel rows of a trace, summed */
	char *procname;
	size_t ops;		/* nvtx_sum: PyTorch op ranges */
	char *notcu;		/* a summary's first name not cuda* or cu* */
	uint64_t *keys;		/* ncu: a hash of each result */
	size_t nkeys;
};

struct rd {
	struct file *f;
	struct lp_csv_hdr hdr;
	int have;
	long skipped, last;
	int c[8];
	double tf;		/* time factor to ns */
	char *lastid;
	int range, kern;	/* ncu results named "range", others */
	int units;		/* the units row of --page raw was read */
	struct lp_sb key, op, shapes;	/* range_key's */
};

static void
counts_add(struct counts *c, const char *key, double n, double t, int mode)
{
	long i = lp_map_get(c->idx, key, -1);

	if (i < 0) {
		if (c->len == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 64;
			c->n = lp_xreallocarray(c->n, c->cap, sizeof *c->n);
			c->t = lp_xreallocarray(c->t, c->cap, sizeof *c->t);
			c->lo = lp_xreallocarray(c->lo, c->cap, sizeof *c->lo);
			c->hi = lp_xreallocarray(c->hi, c->cap, sizeof *c->hi);
		}
		i = (long)c->len++;
		c->n[i] = c->t[i] = 0;
		c->lo[i] = c->hi[i] = t;
		lp_map_put(c->idx, key, i);
	}
	if (mode == C_SUM) {
		c->n[i] += n;
		c->t[i] += t;
		return;
	}
	if (n > c->n[i]) {
		c->n[i] = n;
		c->lo[i] = c->hi[i] = t;
	} else if (n == c->n[i]) {
		c->lo[i] = t < c->lo[i] ? t : c->lo[i];
		c->hi[i] = t > c->hi[i] ? t : c->hi[i];
	}
	c->t[i] = t > c->t[i] ? t : c->t[i];
}

static double
counts_get(const struct counts *c, const char *key)
{
	long i = lp_map_get(c->idx, key, -1);

	return i < 0 ? -1 : c->n[i];
}

static double
counts_time(const struct counts *c, const char *key)
{
	long i = lp_map_get(c->idx, key, -1);

	return i < 0 ? -1 : c->t[i];
}

/* Two reports of one capture sum the same durations, which nsys stats
 * prints in whole nanoseconds: their totals agree to the nanosecond (they
 * do in every capture of tests/fixtures).  0.1 % leaves room for exports
 * in coarser units (--timeunit usec rounds each row by up to 0.5 us);
 * two captures of one workload differ by more, kernel by kernel (1 to 9 %
 * between the tinyllm captures of tests/fixtures, issue 28 item 7). */
static int
same_time(double a, double b)
{
	double d = a > b ? a - b : b - a;

	return d <= 1 + 1e-3 * (a > b ? a : b);
}

/* The reports lp reads, told apart by the columns of their header: the
 * first signature whose columns the header has ("NAME" exactly, "NAME*"
 * a column that begins so, as "Total Time (ns)").  Then the columns each
 * is read by, a slot each (0 the name, 1 the count, 2 the time, 3 to 6 as
 * on_rec reads them; "?NAME" where a header may lack it). */
static const struct sig {
	enum kind kind;
	const char *need[3];
	const char *col[7];
} sigs[] = {
	{ K_NCU_KERN, { "ID", "Kernel Name" },	/* or K_NCU_RANGE, by its rows */
	  { "Kernel Name", 0, 0, "ID", "?Process ID", "?Process Name" } },
	{ K_NVTX_KSUM, { "NVTX Range", "Kernel Name" },
	  { "Kernel Name", "Kern Inst", "Total Time", "NVTX Range", "PID",
	    "NVTX Inst" } },
	{ K_PROJ_SUM, { "Total Proj Time*" }, { 0 } },
	{ K_PROJ, { "Projected Start*", "RangeStack" }, { [4] = "PID" } },
	/* a range's time: End - Start */
	{ K_PUSHPOP, { "RangeStack", "End*", "PID" },
	  { "Name", 0, "Start", 0, "PID", 0, "End" } },
	{ K_GPU_TRACE, { "CorrId", "GrdX", "Device" },
	  { "Name", 0, "Duration", 0, 0, "Device", "GrdX" } },
	/* lp-graphnodes' export of nsys's sqlite: where graph kernels were
	 * captured (before the API trace's test: it has CorrId and Start) */
	{ K_GRAPH_NODES, { "Event", "Graph Node ID", "CorrId" },
	  { [4] = "Pid" } },
	{ K_API_TRACE, { "CorrID", "Name", "Start*" }, { [4] = "Pid" } },
	{ K_API_TRACE, { "CorrId", "Name", "Start*" }, { [4] = "Pid" } },
	{ K_NVTX_SUM, { "Total Time*", "Range", "Style" },
	  { "Range", "Instances", "Total Time", "Style" } },
	{ K_API_SUM, { "Total Time*", "Num Calls", "Name" }, { "Name" } },
	{ K_MEM_SUM, { "Total Time*", "Operation", "Count" }, { 0 } },
	{ K_KSUM, { "Total Time*", "Instances", "Name" },
	  { "Name", "Instances", "Total Time" } },
};

static int
has(const struct lp_csv_rec *r, const char *name)
{
	size_t i, n = strlen(name);
	int prefix = n && name[n - 1] == '*';

	for (i = 0; i < r->n; i++)
		if (prefix ? !strncmp(r->f[i], name, n - 1) :
		    !strcmp(r->f[i], name))
			return 1;
	return 0;
}

/* The report a header is, by its columns; NULL if none lp knows. */
static const struct sig *
classify(const struct lp_csv_rec *r, int *details)
{
	const struct sig *s;
	size_t i;

	*details = 0;
	for (s = sigs; s < sigs + sizeof sigs / sizeof sigs[0]; s++) {
		for (i = 0; i < 3 && s->need[i] && has(r, s->need[i]); i++)
			;
		if (i < 3 && s->need[i])
			continue;
		*details = s->kind == K_NCU_KERN && has(r, "Metric Name");
		return s;
	}
	return NULL;
}

static int
col(struct rd *d, const char *name)
{
	int c = lp_csv_col(&d->hdr, name);

	if (c < 0)
		c = lp_csv_col_prefix(&d->hdr, name);
	if (c < 0)
		lp_die_at(LP_EXIT_DATA, d->f->path, d->hdr.line, 0, "no column "
		    "\"%s\" (read as %s)", name, kind_name[d->f->kind]);
	return c;
}

static void
header(struct rd *d, const struct lp_csv_rec *r, const struct sig *s)
{
	size_t i;

	lp_csv_hdr_init(&d->hdr, r, d->f->path);
	d->have = 1;
	d->tf = 1;
	memset(d->c, -1, sizeof d->c);
	for (i = 0; i < sizeof s->col / sizeof s->col[0]; i++)
		if (s->col[i])
			d->c[i] = *s->col[i] == '?' ? lp_csv_col(&d->hdr,
			    s->col[i] + 1) : col(d, s->col[i]);
	if (d->c[2] >= 0 && lp_header_time_factor(d->hdr.names[d->c[2]],
	    &d->tf))
		d->tf = 1;
}

static double
num(struct rd *d, const struct lp_csv_rec *r, int c)
{
	double v;

	if (lp_num_parse(lp_csv_field(r, c), &v))
		lp_die_at(LP_EXIT_DATA, d->f->path, r->line, c + 1, "%s: not a "
		    "number: \"%s\"", d->hdr.names[c], lp_csv_field(r, c));
	return v;
}

/* What a range is counted by.  A PyTorch op range is named by its own
 * op_id (":aten::mm, op_id = 568, sizes = [[64, 768], ...], ..."), so
 * every row of an op-range capture's nvtx_sum and push/pop trace is a name
 * of its own: counted by its op and input shapes instead, memory stays
 * with what is distinct (issue 28, item 10: 1,083.5 MiB on a 949 MB
 * trace), and the sums still agree between two reports of one capture. */
static const char *
range_key(struct rd *d, const char *name)
{
	if (!lp_aten_parse(name, &d->op, &d->shapes))
		return name;
	lp_sb_reset(&d->key);
	lp_sb_printf(&d->key, ":%s, sizes = %s", lp_sb_str(&d->op),
	    *lp_sb_str(&d->shapes) ? lp_sb_str(&d->shapes) : "[]");
	return lp_sb_str(&d->key);
}

/* A kernel name's spelling: mangled (_Z...), demangled, or neither. */
static void
spelling(struct file *f, const char *name)
{
	if (strpbrk(name, "(< ") || strstr(name, "::"))
		f->dem++;
	else if (!strncmp(name, "_Z", 2))
		f->mang++;
}

static void
put(struct lp_map *m, const char *key)
{
	if (*key && lp_map_get(m, key, -1) < 0)
		lp_map_put(m, key, 1);
}

/* FNV-1a over what makes an ncu result itself: its process, its ID and
 * its kernel's function (one report exported with mangled names and with
 * demangled ones is the same results). */
static uint64_t
result_key(const char *pid, const char *id, const char *kernel)
{
	const char *p[3] = { pid, id, kernel };
	uint64_t h = 14695981039346656037ULL;
	int i;

	for (i = 0; i < 3; i++) {
		const unsigned char *s = (const unsigned char *)p[i];

		for (; *s; s++)
			h = (h ^ *s) * 1099511628211ULL;
		h = (h ^ 0x1f) * 1099511628211ULL;
	}
	return h;
}

static void
ncu_row(struct rd *d, const struct lp_csv_rec *r)
{
	struct file *f = d->f;
	const char *k = lp_csv_field(r, d->c[0]), *id = lp_csv_field(r, d->c[3]);
	const char *pid = d->c[4] >= 0 ? lp_csv_field(r, d->c[4]) : "";
	char *base;

	if (!f->details && !d->units) {
		d->units = 1;		/* the units row of --page raw */
		return;
	}
	/* --page details: a result's rows come together */
	if (f->details && d->lastid && !strcmp(d->lastid, id))
		return;
	free(d->lastid);
	d->lastid = lp_xstrdup(id);
	if (!strcmp(k, "range"))
		d->range++;
	else
		d->kern++;
	if (!f->procname && d->c[5] >= 0 && *lp_csv_field(r, d->c[5]))
		f->procname = lp_xstrdup(lp_csv_field(r, d->c[5]));
	put(f->pids, pid);
	spelling(f, k);
	counts_add(&f->names, k, 1, 0, C_SUM);
	f->keys = lp_xreallocarray(f->keys, f->nkeys + 1, sizeof *f->keys);
	base = lp_kname_base(k);
	f->keys[f->nkeys++] = result_key(pid, id, base);
	free(base);
}

static int
on_rec(const struct lp_csv_rec *r, void *ctx)
{
	struct rd *d = ctx;
	struct file *f = d->f;
	const struct sig *s;
	const char *name;

	d->last = r->line;
	if (!d->have) {
		s = classify(r, &f->details);
		f->kind = s ? s->kind : K_NONE;
		if (s) {
			header(d, r, s);
			return 0;
		}
		/* nsys stats may print a title above its header */
		if (++d->skipped > 8)
			return 1;
		return 0;
	}
	if (r->n == 1 && !r->f[0][0])
		return 0;
	if (f->kind == K_NCU_KERN) {
		ncu_row(d, r);
		return 0;
	}
	lp_csv_width(&d->hdr, r->n, r->line);
	name = d->c[0] >= 0 ? lp_csv_field(r, d->c[0]) : "";
	switch (f->kind) {
	case K_KSUM:
		spelling(f, name);
		counts_add(&f->names, name, num(d, r, d->c[1]),
		    num(d, r, d->c[2]) * d->tf, C_SUM);
		break;
	case K_NVTX_SUM:	/* one row a name */
		if (strcmp(lp_csv_field(r, d->c[3]), "PushPop"))
			break;
		f->ops += lp_aten_is_op(name);
		counts_add(&f->names, range_key(d, name), num(d, r, d->c[1]),
		    num(d, r, d->c[2]) * d->tf, C_SUM);
		break;
	case K_NVTX_KSUM:
		spelling(f, name);
		put(f->pids, lp_csv_field(r, d->c[4]));
		counts_add(&f->names, name, num(d, r, d->c[1]),
		    num(d, r, d->c[2]) * d->tf, C_ROW);
		counts_add(&f->sub, range_key(d, lp_csv_field(r, d->c[3])),
		    num(d, r, d->c[5]), 0, C_ROW);
		break;
	case K_PUSHPOP:
		put(f->pids, lp_csv_field(r, d->c[4]));
		counts_add(&f->names, range_key(d, name), 1, (num(d, r,
		    d->c[6]) - num(d, r, d->c[2])) * d->tf, C_SUM);
		break;
	case K_PROJ:
	case K_API_TRACE:
		put(f->pids, lp_csv_field(r, d->c[4]));
		break;
	case K_API_SUM:	/* CUDA API calls are cuda* and cu* */
		if (strncmp(name, "cu", 2) && !f->notcu)
			f->notcu = lp_xstrdup(name);
		break;
	case K_GRAPH_NODES:	/* a create row may name no process */
		if (*lp_csv_field(r, d->c[4]))
			put(f->pids, lp_csv_field(r, d->c[4]));
		break;
	case K_GPU_TRACE:
		put(f->devs, lp_csv_field(r, d->c[5]));
		if (*lp_csv_field(r, d->c[6])) {	/* a kernel, not a copy */
			spelling(f, name);
			f->launches++;
			f->time += num(d, r, d->c[2]) * d->tf;
		}
		break;
	default:
		break;
	}
	return 0;
}

static void
on_msg(const char *line, long lineno, void *ctx)
{
	struct rd *d = ctx;

	if (!strncmp(line, "==ERROR==", 9))
		lp_die_at(LP_EXIT_DATA, d->f->path, lineno, 0, "ncu error "
		    "instead of CSV: %s", line);
}

static int
ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* BASE of BASE_REPORT.csv, the set one "nsys stats -o BASE" wrote; a
 * file named otherwise is a set of its own. */
static char *
set_of(const char *path)
{
	size_t i, n = strlen(path);

	for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t m = strlen(suffixes[i]) + 5;	/* "_" ".csv" */

		if (n > m && path[n - m] == '_' && !strncmp(path + n - m + 1,
		    suffixes[i], m - 5) && !strcmp(path + n - 4, ".csv"))
			return lp_xstrndup(path, n - m);
	}
	return lp_xstrdup(path);
}

/* An SQLite database (by its header, whatever its name): nsys's export
 * (it has StringIds), with GPU Metrics samples or without. */
static int
read_sqlite(struct file *f)
{
	static const char magic[16] = "SQLite format 3";
	const char *q = "SELECT name FROM sqlite_master WHERE type IN "
	    "('table', 'view') AND name IN ('StringIds', 'GPU_METRICS', "
	    "'TARGET_INFO_GPU_METRICS')";
	char head[16];
	sqlite3 *db;
	sqlite3_stmt *st;
	int rc, ids = 0, gm = 0;
	FILE *fp;

	if (!(fp = fopen(f->path, "rb")))
		lp_die_sys("IMPORT: %s", f->path);
	rc = fread(head, 1, sizeof head, fp) == sizeof head &&
	    !memcmp(head, magic, sizeof magic);
	fclose(fp);
	if (!rc)
		return 0;
	if (sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK || sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		lp_die_at(LP_EXIT_DATA, f->path, 0, 0, "an SQLite database lp "
		    "cannot read: %s", sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		ids |= !strcmp(t, "StringIds");
		gm += !strcmp(t, "GPU_METRICS") || !strcmp(t,
		    "TARGET_INFO_GPU_METRICS");
	}
	if (rc != SQLITE_DONE)
		lp_die_at(LP_EXIT_DATA, f->path, 0, 0, "an SQLite database lp "
		    "cannot read: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (!ids)
		lp_die_at(LP_EXIT_DATA, f->path, 0, 0, "an SQLite database "
		    "that is not nsys's export (no table StringIds; export with "
		    "nsys export --type sqlite)");
	f->kind = gm == 2 ? K_SQLITE_GM : K_SQLITE;
	return 1;
}

static void
read_file(struct file *f)
{
	struct rd d;
	const char *name;
	FILE *fp;

	memset(&d, 0, sizeof d);
	d.f = f;
	f->pids = lp_map_new();
	f->devs = lp_map_new();
	f->names.idx = lp_map_new();
	f->sub.idx = lp_map_new();
	f->rep = -1;
	f->base = set_of(f->path);
	if (ends(f->path, ".nsys-rep")) {
		f->kind = K_NSYS_REP;
		return;
	}
	/* a report is binary: only ncu can read it, so its name says
	 * which replay it holds (NAME_regions.ncu-rep) */
	if (ends(f->path, ".ncu-rep")) {
		f->kind = ends(f->path, "_regions.ncu-rep") ? K_NCU_REP_RANGE :
		    K_NCU_REP;
		return;
	}
	if (strcmp(f->path, "-") && read_sqlite(f))
		return;
	fp = lp_open_in(f->path, &name);
	if (fp == stdin)
		lp_die(LP_EXIT_USAGE, "IMPORT: \"-\" is not a file");
	/* nsys stats writes an empty file for a report with no rows
	 * ("PROCESSED (EMPTY RESULTS)"): nothing to read, said, left out */
	if (fseek(fp, 0, SEEK_END) == 0 && ftell(fp) == 0) {
		f->kind = K_EMPTY;
		lp_close_in(fp);
		return;
	}
	rewind(fp);
	lp_csv_read(fp, f->path, on_rec, on_msg, &d);
	/* every tool ends its export with a newline: without one, the last
	 * row may be cut inside a field and read as whole */
	if (fseek(fp, -1, SEEK_END) == 0 && fgetc(fp) != '\n')
		lp_die_at(LP_EXIT_DATA, f->path, d.last, 0, "no newline at the "
		    "end: the export was cut off (copy it again whole)");
	lp_close_in(fp);
	/* the header of cuda_api_sum is also osrt_sum's (OS runtime calls:
	 * poll, pthread_cond_timedwait): the names tell them apart */
	if (f->kind == K_API_SUM && f->notcu)
		f->kind = K_CALL_SUM;
	if (!d.have)
		lp_die_at(LP_EXIT_DATA, f->path, d.last, 0, "neither an nsys "
		    "stats CSV report nor an ncu CSV export: no header lp knows "
		    "(export with nsys stats --format csv or ncu --csv)");
	if (f->kind == K_NCU_KERN) {
		if (d.range && d.kern)
			lp_die(LP_EXIT_DATA, "%s: holds both kernel launches and "
			    "ranges (\"range\" results): not one ncu export",
			    f->path);
		if (!d.range && !d.kern)
			lp_die(LP_EXIT_DATA, "%s: an ncu export without results "
			    "(did ncu profile anything?)", f->path);
		if (d.range)
			f->kind = K_NCU_RANGE;
	}
	free(d.lastid);
	lp_sb_free(&d.key);
	lp_sb_free(&d.op);
	lp_sb_free(&d.shapes);
	lp_csv_hdr_free(&d.hdr);
}

/* Most names decide: one odd name does not turn an export around. */
static int
variant(const struct file *f)
{
	return f->mang > f->dem ? 1 : f->dem ? 0 : -1;
}

/* Which report variable each nsys export fills. */
static void
assign(struct file *fs, size_t n)
{
	int seen[R_N] = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		struct file *f = &fs[i];

		switch (f->kind) {
		case K_KSUM:
			f->rep = variant(f) == 1 ? R_KSUM_M : R_KSUM;
			break;
		case K_NVTX_KSUM:
			f->rep = variant(f) == 1 ? R_NVTX_KSUM_M : R_NVTX_KSUM;
			break;
		case K_GPU_TRACE:
			f->rep = variant(f) == 1 ? R_GPU_TRACE_M : R_GPU_TRACE;
			break;
		case K_NVTX_SUM: f->rep = R_NVTX_SUM; break;
		case K_API_SUM: f->rep = R_API_SUM; break;
		case K_MEM_SUM: f->rep = R_MEM_SUM; break;
		case K_PUSHPOP: f->rep = R_PUSHPOP; break;
		case K_PROJ: f->rep = R_PROJ; break;
		case K_API_TRACE: f->rep = R_API_TRACE; break;
		case K_GRAPH_NODES: f->rep = R_GRAPH_NODES; break;
		default: break;
		}
		if (f->rep >= 0 && variant(f) != -1)
			seen[f->rep]++;
	}
	/* names that read the same both ways (extern "C" kernels only) fill
	 * the demangled report, or the mangled one beside a demangled set */
	for (i = 0; i < n; i++) {
		struct file *f = &fs[i];

		if (variant(f) != -1 || f->rep < 0)
			continue;
		if ((f->rep == R_KSUM && seen[R_KSUM] && !seen[R_KSUM_M]) ||
		    (f->rep == R_NVTX_KSUM && seen[R_NVTX_KSUM] &&
		    !seen[R_NVTX_KSUM_M]))
			f->rep++;
	}
}

/* The processes of a file: its own, else those of its export set. */
static const struct lp_map *
procs_of(const struct file *fs, size_t n, const struct file *f)
{
	size_t i;

	if (lp_map_len(f->pids))
		return f->pids;
	for (i = 0; i < n; i++)
		if (lp_map_len(fs[i].pids) && !strcmp(fs[i].base, f->base) &&
		    fs[i].kind != K_NCU_KERN && fs[i].kind != K_NCU_RANGE)
			return fs[i].pids;
	return NULL;
}

static const struct lp_map *
devs_of(const struct file *fs, size_t n, const struct file *f)
{
	size_t i;

	if (lp_map_len(f->devs))
		return f->devs;
	for (i = 0; i < n; i++)
		if (lp_map_len(fs[i].devs) && !strcmp(fs[i].base, f->base))
			return fs[i].devs;
	return NULL;
}

static const char *
shared(const struct lp_map *a, const struct lp_map *b)
{
	size_t i;

	if (!a || !b)
		return NULL;
	for (i = 0; i < lp_map_len(a); i++)
		if (lp_map_get(b, lp_map_key(a, i), -1) >= 0)
			return lp_map_key(a, i);
	return NULL;
}

static void
list_files(struct lp_sb *b, const struct file *fs, size_t n, int rep)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fs[i].rep == rep)
			lp_sb_printf(b, " %s", fs[i].path);
}

/* Several exports of one report: joined only as disjoint processes. */
static void
check_join(const struct file *fs, size_t n, int rep)
{
	size_t i, j, k = 0;
	struct lp_sb b = { 0 };

	for (i = 0; i < n; i++)
		k += fs[i].rep == rep;
	if (k < 2)
		return;
	list_files(&b, fs, n, rep);
	/* every file's processes first, then the pairs: a file without any
	 * is refused whatever the order of the files (it was compared with
	 * an earlier one first, and crashed, issue 28) */
	for (i = 0; i < n; i++) {
		if (fs[i].rep != rep)
			continue;
		if (!procs_of(fs, n, &fs[i]))
			lp_die(LP_EXIT_DATA, "IMPORT: %zu files are the nsys report "
			    "%s (%s ); lp joins several exports of one report only "
			    "when they are per-process parts of one job, shown by "
			    "disjoint processes in an nvtx_kern_sum, "
			    "nvtx_pushpop_trace or nvtx_gpu_proj_trace export of "
			    "each set (nsys stats -o BASE writes BASE_REPORT.csv), "
			    "and %s has none: import one capture's exports per run "
			    "(make RUN=a IMPORT='...', RUN=b ...), or STAGE= to "
			    "look at one stage of one capture", k, rep_var[rep],
			    lp_sb_str(&b), fs[i].path);
	}
	for (i = 0; i < n; i++) {
		if (fs[i].rep != rep)
			continue;
		for (j = i + 1; j < n; j++) {
			const struct lp_map *p, *q;
			const char *s;

			if (fs[j].rep != rep)
				continue;
			p = procs_of(fs, n, &fs[i]);
			q = procs_of(fs, n, &fs[j]);
			if ((s = shared(p, q)))
				lp_die(LP_EXIT_DATA, "IMPORT: %s and %s both hold "
				    "process %s (%s): the same capture twice, or a "
				    "whole capture and a part of it (a merged "
				    "export and its per-rank exports, a capture "
				    "and its per-stage subsets); import one of "
				    "them", fs[i].path, fs[j].path, s,
				    rep_var[rep]);
			p = devs_of(fs, n, &fs[i]);
			q = devs_of(fs, n, &fs[j]);
			if (p && q && (s = shared(p, q)))
				lp_die(LP_EXIT_DATA, "IMPORT: %s and %s ran on the "
				    "same GPU (%s): per-rank exports of one job "
				    "run on one GPU each; two runs are compared, "
				    "not joined (make RUN=b BASE=a compare.md)",
				    fs[i].path, fs[j].path, s);
		}
	}
	/* Processes apart are not yet one job: two single-GPU captures have
	 * processes apart too.  Their time bases cannot show it (nsys stats
	 * times count from each capture's own start), their GPUs can: each
	 * part's cuda_gpu_trace, on GPUs none of the others used. */
	for (i = 0; i < n; i++) {
		if (fs[i].rep != rep || devs_of(fs, n, &fs[i]))
			continue;
		for (j = 0; j < n; j++)
			if (j != i && fs[j].rep == rep)
				break;
		lp_die(LP_EXIT_DATA, "IMPORT: %s (process %s) and %s (process "
		    "%s) are both the nsys report %s, and nothing shows their "
		    "processes ran as one job: %s has no cuda_gpu_trace beside "
		    "it to say its GPU (two single-GPU captures are not one "
		    "multi-GPU run).  Compare two runs (make RUN=a IMPORT='...', "
		    "make RUN=b IMPORT='...', make RUN=b BASE=a compare.md); "
		    "join the ranks of one job with each rank's cuda_gpu_trace "
		    "beside its exports (nsys stats --report cuda_gpu_trace -o "
		    "BASE)", fs[i].path, lp_map_key(procs_of(fs, n, &fs[i]), 0),
		    fs[j].path, lp_map_key(procs_of(fs, n, &fs[j]), 0),
		    rep_var[rep], fs[i].path);
	}
	lp_sb_free(&b);
}

/* The counts of a report, summed over its files. */
static void
merged(const struct file *fs, size_t n, int rep, struct counts *out,
    struct counts *sub, const char **first)
{
	size_t i, j;

	*first = NULL;
	for (i = 0; i < n; i++) {
		if (fs[i].rep != rep)
			continue;
		if (!*first)
			*first = fs[i].path;
		for (j = 0; j < fs[i].names.len; j++)
			counts_add(out, lp_map_key(fs[i].names.idx, j),
			    fs[i].names.n[j], fs[i].names.t[j], C_SUM);
		if (sub)
			for (j = 0; j < fs[i].sub.len; j++)
				counts_add(sub, lp_map_key(fs[i].sub.idx, j),
				    fs[i].sub.n[j], 0, C_SUM);
	}
}

static void
counts_free(struct counts *c)
{
	lp_map_free(c->idx);
	free(c->n);
	free(c->t);
	free(c->lo);
	free(c->hi);
	memset(c, 0, sizeof *c);
}

static void
counts_total(const struct counts *c, double *n, double *t)
{
	size_t i;

	*n = *t = 0;
	for (i = 0; i < c->len; i++) {
		*n += c->n[i];
		*t += c->t[i];
	}
}

static _Noreturn void
apart(const char *a, const char *b, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static _Noreturn void
apart(const char *a, const char *b, const char *fmt, ...)
{
	struct lp_sb m = { 0 };
	va_list ap;

	va_start(ap, fmt);
	lp_sb_vprintf(&m, fmt, ap);
	va_end(ap);
	lp_die(LP_EXIT_DATA, "IMPORT: %s and %s are not exports of one capture: "
	    "%s; import each capture as its own run (make RUN=a IMPORT=...)",
	    a, b, lp_sb_str(&m));
}

/* A report's two spellings: the same launches and time. */
static void
check_spellings(const struct counts *c, const char *const *p)
{
	double n1, t1, n2, t2;

	if (!p[R_KSUM] || !p[R_KSUM_M])
		return;
	counts_total(&c[R_KSUM], &n1, &t1);
	counts_total(&c[R_KSUM_M], &n2, &t2);
	if (n1 != n2 || t1 != t2)
		apart(p[R_KSUM], p[R_KSUM_M], "%.0f launches and %.0f ns "
		    "of kernels against %.0f and %.0f", n1, t1, n2, t2);
}

/* The trace's kernels are the summary's, launch for launch. */
static void
check_trace(const struct file *fs, size_t n, const struct counts *c,
    const char *const *p)
{
	double n1, t1;
	size_t i;
	int r;

	for (r = R_GPU_TRACE; r <= R_GPU_TRACE_M; r++)
		if (p[R_KSUM] && p[r]) {
			double ln = 0, lt = 0;

			for (i = 0; i < n; i++)
				if (fs[i].rep == r) {
					ln += fs[i].launches;
					lt += fs[i].time;
				}
			counts_total(&c[R_KSUM], &n1, &t1);
			if (ln != n1 || lt != t1)
				apart(p[R_KSUM], p[r], "%.0f kernel launches "
				    "(%.0f ns) in the summary, %.0f (%.0f ns) in "
				    "the trace", n1, t1, ln, lt);
		}
}

/* A range's kernels are among the capture's kernels, and take no more
 * time there; a range that holds every launch of a kernel holds its whole
 * time (two captures of one workload agree on launches, not on time). */
static void
check_range_kernels(const struct file *fs, size_t n, const struct counts *c,
    const char *const *p)
{
	size_t i;
	int k;

	for (k = 0; k < 2; k++) {
		int ks = k ? R_KSUM_M : R_KSUM, nk = k ? R_NVTX_KSUM_M :
		    R_NVTX_KSUM;

		if (!p[ks] || !p[nk])
			continue;
		for (i = 0; i < c[nk].len; i++) {
			const char *name = lp_map_key(c[nk].idx, i);
			double all = counts_get(&c[ks], name);
			double most = 0;
			size_t j;

			/* one file's rows: the most launches of one row */
			for (j = 0; j < n; j++)
				if (fs[j].rep == nk) {
					double v = counts_get(&fs[j].names, name);

					most = v > most ? v : most;
				}
			if (all < 0)
				apart(p[ks], p[nk], "kernel %s runs in a range of "
				    "the second and not in the first", name);
			if (most > all)
				apart(p[ks], p[nk], "kernel %s: %.0f launches in "
				    "the whole capture, %.0f in one range", name,
				    all, most);
		}
		/* then times: counts say more */
		for (i = 0; i < c[nk].len; i++) {
			const char *name = lp_map_key(c[nk].idx, i);
			double all = counts_get(&c[ks], name);
			double allt = counts_time(&c[ks], name);
			size_t j;

			for (j = 0; j < n; j++) {
				const struct counts *f = &fs[j].names;
				double t;
				long x;

				if (fs[j].rep != nk ||
				    (x = lp_map_get(f->idx, name, -1)) < 0)
					continue;
				if (f->t[x] > allt && !same_time(f->t[x], allt))
					apart(p[ks], fs[j].path, "kernel %s: %.0f ns "
					    "in the whole capture, %.0f ns in one "
					    "range", name, allt, f->t[x]);
				/* the rows holding every launch, the one
				 * farthest from the summary's time */
				t = allt - f->lo[x] > f->hi[x] - allt ? f->lo[x] :
				    f->hi[x];
				if (f->n[x] == all && !same_time(t, allt))
					apart(p[ks], fs[j].path, "kernel %s: its %.0f "
					    "launches take %.0f ns in the first and "
					    "%.0f ns in a range of the second that "
					    "holds them all (the same launches, "
					    "their times differ: two runs)", name,
					    all, allt, t);
			}
		}
	}
}

/* The trace of push/pop ranges is the summary's, instance for instance;
 * nvtx_kern_sum's ranges (sub) are among them. */
static void
check_ranges(const struct counts *c, const struct counts *sub,
    const char *const *p)
{
	size_t i;

	if (p[R_NVTX_SUM] && p[R_PUSHPOP])
		for (i = 0; i < c[R_NVTX_SUM].len; i++) {
			const char *name = lp_map_key(c[R_NVTX_SUM].idx, i);
			double a = c[R_NVTX_SUM].n[i];
			double b = counts_get(&c[R_PUSHPOP], name);

			if (a != b)
				apart(p[R_NVTX_SUM], p[R_PUSHPOP], "range %s: %.0f "
				    "instances in the summary, %.0f in the trace",
				    name, a, b < 0 ? 0 : b);
		}
	/* then times: counts say more */
	if (p[R_NVTX_SUM] && p[R_PUSHPOP])
		for (i = 0; i < c[R_NVTX_SUM].len; i++) {
			const char *name = lp_map_key(c[R_NVTX_SUM].idx, i);
			double t = counts_time(&c[R_PUSHPOP], name);

			if (!same_time(c[R_NVTX_SUM].t[i], t))
				apart(p[R_NVTX_SUM], p[R_PUSHPOP], "range %s: its "
				    "%.0f instances take %.0f ns in the summary, "
				    "%.0f ns in the trace (the same ranges, their "
				    "times differ: two runs)", name,
				    c[R_NVTX_SUM].n[i], c[R_NVTX_SUM].t[i], t);
		}
	if (p[R_NVTX_SUM] && p[R_NVTX_KSUM])
		for (i = 0; i < sub->len; i++) {
			const char *name = lp_map_key(sub->idx, i);
			double a = counts_get(&c[R_NVTX_SUM], name);

			if (*name && a >= 0 && sub->n[i] > a)
				apart(p[R_NVTX_SUM], p[R_NVTX_KSUM], "range %s: "
				    "%.0f instances, %.0f with kernels", name, a,
				    sub->n[i]);
		}
}

/* Exports of different reports agree where they overlap. */
static void
check_together(const struct file *fs, size_t n)
{
	struct counts c[R_N], sub = { 0 };
	const char *p[R_N];
	int r;

	memset(c, 0, sizeof c);
	sub.idx = lp_map_new();
	for (r = 0; r < R_N; r++) {
		c[r].idx = lp_map_new();
		merged(fs, n, r, &c[r], r == R_NVTX_KSUM ? &sub : NULL, &p[r]);
	}
	check_spellings(c, p);
	check_trace(fs, n, c, p);
	check_range_kernels(fs, n, c, p);
	check_ranges(c, &sub, p);
	for (r = 0; r < R_N; r++)
		counts_free(&c[r]);
	counts_free(&sub);
}

/* Does an ncu kernel name one of the capture's kernels?  By its whole
 * name (as each tool demangles it), or by its function alone where the
 * two spell names apart (mangled ncu names, demangled nsys ones): library
 * kernels (cuBLAS, PyTorch's elementwise templates) share a function
 * across programs, so that match is the weaker one. */
static int
known_kernel(const char *k, const struct lp_map *exact,
    const struct lp_map *keys, const struct lp_map *bases)
{
	char *s;
	int hit;

	if (lp_map_get(exact, k, -1) >= 0)
		return 1;
	s = bases ? lp_kname_base(k) : lp_kname_key(k);
	hit = lp_map_get(bases ? bases : keys, s, -1) >= 0;
	free(s);
	return hit;
}

static int
cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The names of the nsys capture's kernels: as given (exact), as keys
 * (lp_kname_key) and as bases (lp_kname_base).  Returns 0 when there is
 * no kernel summary; *mangled when one of them has mangled names. */
static int
capture_kernels(const struct file *fs, size_t n, struct lp_map *exact,
    struct lp_map *keys, struct lp_map *bases, int *mangled)
{
	size_t i, j;
	int nsys = 0;

	*mangled = 0;
	for (i = 0; i < n; i++) {
		if (fs[i].kind != K_KSUM && fs[i].kind != K_NVTX_KSUM)
			continue;
		nsys = 1;
		*mangled |= variant(&fs[i]) == 1;
		for (j = 0; j < fs[i].names.len; j++) {
			const char *k = lp_map_key(fs[i].names.idx, j);
			char *s;

			put(exact, k);
			s = lp_kname_key(k);
			put(keys, s);
			free(s);
			s = lp_kname_base(k);
			put(bases, s);
			free(s);
		}
	}
	return nsys;
}

/* The ncu exports tied to fs[i]: itself and those of its ncu process. */
static int
same_ncu(const struct file *fs, size_t i, size_t j)
{
	return fs[j].kind == K_NCU_KERN && (i == j || shared(fs[i].pids,
	    fs[j].pids));
}

/* The share of the capture's kernel time (its kernel summary, either
 * spelling, whichever matches more) held by kernels that the ncu exports
 * tied to fs[i] profiled; -1 when no kernel summary gives the time. */
static double
profiled_share(const struct file *fs, size_t n, size_t i, int by_base)
{
	struct lp_map *exact = lp_map_new(), *keys = lp_map_new(),
	    *bases = lp_map_new();
	double best = -1;
	size_t j, k;
	int r;

	for (j = 0; j < n; j++) {
		if (!same_ncu(fs, i, j))
			continue;
		for (k = 0; k < fs[j].names.len; k++) {
			const char *name = lp_map_key(fs[j].names.idx, k);
			char *x;

			put(exact, name);
			x = lp_kname_key(name);
			put(keys, x);
			free(x);
			x = lp_kname_base(name);
			put(bases, x);
			free(x);
		}
	}
	for (r = R_KSUM; r <= R_KSUM_M; r++) {
		double all = 0, got = 0;

		for (j = 0; j < n; j++) {
			if (fs[j].rep != r)
				continue;
			for (k = 0; k < fs[j].names.len; k++) {
				double t = fs[j].names.t[k];

				all += t;
				if (known_kernel(lp_map_key(fs[j].names.idx, k),
				    exact, keys, by_base ? bases : NULL))
					got += t;
			}
		}
		if (all > 0 && got / all > best)
			best = got / all;
	}
	lp_map_free(exact);
	lp_map_free(keys);
	lp_map_free(bases);
	return best;
}

/* An ncu kernel export is of the capture's program when the kernels it
 * shares with the capture show it.  A shared name alone does not: every
 * PyTorch program runs at::native's elementwise, layer-norm and argmax
 * kernels and cuBLAS's split-K reduction, by the same mangled names (5 of
 * the 10 kernels of the torch decoder's ncu export are in GPT-2's capture,
 * issue 28 item 7).  What another program's export has is kernels the
 * capture never ran: its GEMMs, whose cuBLAS configuration follows its
 * shapes.  So an export is taken when every kernel it profiled ran in the
 * capture (a selection of the capture's kernels: lp's top N, one kernel
 * cut out), or when those that did hold at least half the capture's
 * kernel time (a profile of its costliest kernels, beside kernels launched
 * outside the nsys capture's window); the library kernels GPT-2 shares
 * with the torch decoder hold 34 % of its time, its own GEMMs the rest.
 * An export whose kernels miss where another export of the same ncu
 * process matches is judged with that one (a demangled name can miss). */
static void
check_ncu_program(const struct file *fs, size_t n)
{
	struct lp_map *exact = lp_map_new(), *keys = lp_map_new(),
	    *bases = lp_map_new();
	size_t i, j, *hit;
	int nsys, nsys_mangled;

	nsys = capture_kernels(fs, n, exact, keys, bases, &nsys_mangled);
	hit = lp_xcalloc(n ? n : 1, sizeof *hit);
	for (i = 0; i < n && nsys; i++) {
		const struct file *f = &fs[i];

		if (f->kind != K_NCU_KERN)
			continue;
		for (j = 0; j < f->names.len; j++)
			hit[i] += known_kernel(lp_map_key(f->names.idx, j), exact,
			    keys, variant(f) == 1 && !nsys_mangled ? bases : NULL);
	}
	for (i = 0; i < n && nsys; i++) {
		const struct file *f = &fs[i];
		int by_base = variant(f) == 1 && !nsys_mangled, ok = 0;
		const char *other = NULL;
		struct lp_sb why = { 0 };
		double share;
		size_t miss = f->names.len - hit[i];

		if (f->kind != K_NCU_KERN)
			continue;
		for (j = 0; j < n && !ok; j++)
			ok = hit[j] && same_ncu(fs, i, j);
		if (!ok)
			lp_die(LP_EXIT_DATA, "IMPORT: %s: none of its %zu ncu "
			    "kernels (%s, process %s) is a kernel of the nsys "
			    "capture: an export of another program or run? Import "
			    "the ncu export of this capture, or none", f->path,
			    f->names.len, lp_map_key(f->names.idx, 0),
			    f->procname ? f->procname : "unnamed");
		if (!miss)
			continue;
		share = profiled_share(fs, n, i, by_base);
		if (share >= 0.5)
			continue;
		for (j = 0; j < f->names.len && !other; j++)
			if (!known_kernel(lp_map_key(f->names.idx, j), exact, keys,
			    by_base ? bases : NULL))
				other = lp_map_key(f->names.idx, j);
		if (share >= 0)
			lp_sb_printf(&why, "hold %.1f %% of the capture's kernel "
			    "time", 100 * share);
		else
			lp_sb_printf(&why, "cannot be weighed (no kernel summary "
			    "gives the capture's kernel time)");
		lp_die(LP_EXIT_DATA, "IMPORT: %s: %zu of its %zu ncu kernels "
		    "(process %s) never ran in the nsys capture (%s ...), and "
		    "the %zu it shares with it %s: kernels that many programs "
		    "run, not evidence of one program.  An ncu export of the "
		    "capture's program profiles only the capture's kernels, or "
		    "its costliest (half its kernel time or more).  Import the "
		    "ncu export of this capture, or none", f->path, miss,
		    f->names.len, f->procname ? f->procname : "unnamed", other,
		    hit[i], lp_sb_str(&why));
	}
	free(hit);
	lp_map_free(exact);
	lp_map_free(keys);
	lp_map_free(bases);
}

/* The same result in two exports: raw and details pages of one report,
 * or one export given twice. */
static void
check_ncu_twice(const struct file *fs, size_t n)
{
	size_t i, j, a, b;

	for (i = 0; i < n; i++)
		if (fs[i].nkeys)
			lp_qsort(fs[i].keys, fs[i].nkeys, sizeof *fs[i].keys,
			    cmp_key);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			if (!fs[i].nkeys || !fs[j].nkeys)
				continue;
			for (a = b = 0; a < fs[i].nkeys && b < fs[j].nkeys;) {
				if (fs[i].keys[a] == fs[j].keys[b])
					lp_die(LP_EXIT_DATA, "IMPORT: %s and %s hold "
					    "the same ncu results (same process, "
					    "result ID and kernel): two pages of "
					    "one report, or one export twice; "
					    "import one of them", fs[i].path,
					    fs[j].path);
				if (fs[i].keys[a] < fs[j].keys[b])
					a++;
				else
					b++;
			}
		}
}

/* IMPORT paths reach recipes as they are: plain characters only. */
static void
check_path(const char *p)
{
	const char *ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-/+@=,:~";

	if (!*p || p[strspn(p, ok)])
		lp_die(LP_EXIT_USAGE, "IMPORT: \"%s\": use paths of letters, "
		    "digits and . _ - / + @ = , : ~ only (copy the file to a "
		    "plain name)", p);
}

static void
emit_var(const char *var, const struct file *fs, size_t n, int rep,
    enum kind k1, enum kind k2)
{
	size_t i;

	printf("LP_IMP_%s :=", var);
	for (i = 0; i < n; i++)
		if ((rep >= 0 && fs[i].rep == rep) || (rep < 0 &&
		    (fs[i].kind == k1 || fs[i].kind == k2)))
			printf(" %s", fs[i].path);
	putchar('\n');
}

/* PyTorch op ranges (nsys --pytorch=autograd-shapes-nvtx) among the
 * ranges of nvtx_sum: the capture can say the GPU time per op. */
static void
emit_aten(const struct file *fs, size_t n)
{
	size_t i, ops = 0;

	for (i = 0; i < n; i++)
		if (fs[i].rep == R_NVTX_SUM)
			ops += fs[i].ops;
	if (!ops)
		return;
	printf("# %zu PyTorch op ranges (nsys --pytorch=autograd-shapes-nvtx)\n",
	    ops);
	printf("LP_IMP_ATEN := 1\n");
}

static void
emit(const struct file *fs, size_t n)
{
	size_t i;
	int r;

	printf("# lp-import: what each imported file is, read from its "
	    "content\n");
	for (i = 0; i < n; i++) {
		const struct file *f = &fs[i];

		printf("# %s: %s%s", f->path, f->rep == R_GRAPH_NODES ?
		    "lp-graphnodes " : f->rep >= 0 ? "nsys " : kind_name[f->kind],
		    f->rep >= 0 ? rep_var[f->rep] : "");
		if (f->details)
			printf(" (--page details)");
		if (f->kind == K_CALL_SUM)
			printf(", its first call %s", f->notcu);
		if (lp_map_len(f->pids)) {
			size_t j;

			printf(", process");
			for (j = 0; j < lp_map_len(f->pids); j++)
				printf(" %s", lp_map_key(f->pids, j));
		}
		putchar('\n');
	}
	printf("LP_IMP_LOADED := 1\n");
	for (r = 0; r < R_N; r++)
		emit_var(rep_var[r], fs, n, r, K_NONE, K_NONE);
	emit_var("REP", fs, n, -1, K_NSYS_REP, K_NSYS_REP);
	emit_var("NCUREP", fs, n, -1, K_NCU_REP, K_NCU_REP);
	emit_var("NCUCSV", fs, n, -1, K_NCU_KERN, K_NCU_KERN);
	emit_var("REGCSV", fs, n, -1, K_NCU_RANGE, K_NCU_RANGE);
	emit_var("REGREP", fs, n, -1, K_NCU_REP_RANGE, K_NCU_REP_RANGE);
	emit_var("SQLITE", fs, n, -1, K_SQLITE_GM, K_SQLITE_GM);
	emit_var("OTHER", fs, n, -1, K_PROJ_SUM, K_CALL_SUM);
	emit_aten(fs, n);
}

static void
file_free(struct file *f)
{
	free(f->notcu);
	free(f->base);
	free(f->procname);
	free(f->keys);
	lp_map_free(f->pids);
	lp_map_free(f->devs);
	counts_free(&f->names);
	counts_free(&f->sub);
}

int
main(int argc, char **argv)
{
	struct file *fs;
	size_t i, j, n;
	int c, r;

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "h")) != -1) {
		if (c == 'h') {
			printf("usage: %s\n", synopsis);
			return 0;
		}
		lp_usage(synopsis);
	}
	if (optind == argc)
		lp_usage(synopsis);
	n = (size_t)(argc - optind);
	fs = lp_xcalloc(n, sizeof *fs);
	for (i = 0; i < n; i++) {
		fs[i].path = argv[optind + i];
		check_path(fs[i].path);
		for (j = 0; j < i; j++)
			if (!strcmp(fs[j].path, fs[i].path))
				lp_die(LP_EXIT_USAGE, "IMPORT: %s is named twice",
				    fs[i].path);
		read_file(&fs[i]);
	}
	for (i = 0, j = 0; i < n; i++)
		if (fs[i].kind == K_SQLITE_GM && j++)
			lp_die(LP_EXIT_USAGE, "IMPORT: %s: a second nsys sqlite "
			    "export with GPU Metrics samples: lp-gpumetrics reads "
			    "one capture's samples (import one)", fs[i].path);
	assign(fs, n);
	for (r = 0; r < R_N; r++)
		check_join(fs, n, r);
	check_together(fs, n);
	/* ncu exports: of this capture's program, no result given twice */
	check_ncu_program(fs, n);
	check_ncu_twice(fs, n);
	emit(fs, n);
	for (i = 0; i < n; i++)
		file_free(&fs[i]);
	free(fs);
	lp_close_stdout();
	return 0;
}
