/*
 * lp-import's reader: what one file is, from its content (the signatures
 * of the reports' headers, an ncu export's results, an nsys sqlite
 * export's tables), and what it holds that the checks compare.
 */
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "aten.h"
#include "nsight.h"
#include "nsql.h"
#include "import.h"

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

struct rd {
	struct file *f;
	struct lp_csv_hdr hdr;
	int have;
	long skipped, last;
	int msg;		/* a tool's message seen among the rows */
	int c[8];
	double tf;		/* time factor to ns */
	char *lastid;
	int range, kern;	/* ncu results named "range", others */
	int units;		/* the units row of --page raw was read */
	struct lp_sb key, op, shapes;	/* range_key's */
	unsigned char *keep;	/* a trace's columns read (lp_csv_keep) */
	struct lp_rep_in *rep;	/* -P: the trace checked as packed, */
	struct lp_pack_s *ps;	/* ... into this pack */
	FILE *pfp;		/* ... file */
};

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
	  { "Kernel Name", 0, 0, "ID", "?Process ID", "?Process Name",
	    "?device__attribute_display_name" } },
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

static const char *const trace_cols[] = { "Start", "?Duration" };
static const char *const keep_cols[] = { "Name" };

/* -P: the trace packed as lp-tracesort -p packs it (the same checks, the
 * same bytes) while its rows keep their time order, into a temporary
 * file beside the pack's place (lp-import.c puts it there).  The first
 * row out of order drops it: lp-tracesort sorts that trace. */
static unsigned npacks;	/* packs opened: each its own name */

static void
pack_open(struct rd *d, const struct lp_csv_rec *hdr)
{
	struct file *f = d->f;
	struct lp_sb p = { 0 };
	int fd;

	/* packed only where lp-tracesort would read the same rows: not
	 * after a line above the header (it may take one for the header)
	 * or a tool's message (it refuses those) */
	if (d->skipped || d->msg)
		return;
	/* the projection in nsys's order, as lp-tracesort -p -k packs it */
	d->rep = f->kind == K_PROJ ? lp_rep_push(f->path, "an nsys trace",
	    keep_cols, 1) : lp_rep_push(f->path, "an nsys trace", trace_cols, 2);
	lp_rep_feed(d->rep, hdr);
	if (!lp_rep_header(d->rep)) {	/* no column lp_rep reads it by */
		lp_rep_close(d->rep);
		d->rep = NULL;
		return;
	}
	/* this process's own name, made afresh (O_EXCL, mode 0666 less the
	 * umask, as a shell's "> file"); a .tmp, which make's next run
	 * removes where a kill left it */
	lp_sb_printf(&p, "%simport.%ld.%u.tmp", f->packto, (long)getpid(),
	    npacks++);
	if ((unlink(p.s) == -1 && errno != ENOENT) || (fd = open(p.s,
	    O_WRONLY | O_CREAT | O_EXCL, 0666)) == -1 ||
	    !(d->pfp = fdopen(fd, "w")))
		lp_die_sys("%s", p.s);
	f->pack = lp_sb_steal(&p);
	d->ps = lp_pack_sopen(d->pfp, &f->path, 1, lp_rep_header(d->rep),
	    f->kind != K_PROJ);
}

/* The pack ended (whole: kept for lp-import.c) or dropped. */
static void
pack_close(struct rd *d, int whole)
{
	struct file *f = d->f;

	lp_pack_send(d->ps);
	d->ps = NULL;
	lp_rep_close(d->rep);
	d->rep = NULL;
	if (fclose(d->pfp) == EOF && whole)
		lp_die_sys("%s", f->pack);
	if (!whole) {
		char *tmp = f->pack;

		f->pack = NULL;	/* (before free: lp-import.c's signal
				 * handler reads it) */
		unlink(tmp);
		free(tmp);
	}
}

static void
pack_row(struct rd *d, const struct lp_csv_rec *r)
{
	const struct lp_rep_row *rr = lp_rep_feed(d->rep, r);

	if (rr && lp_pack_srow(d->ps, 0, rr))
		pack_close(d, 0);
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
	d->f->tunit = d->tf;
	/* the traces, millions of rows: packed as they are read (-P), else
	 * (the launches') only the columns read copied (and the first, which
	 * tells a blank row) */
	if ((s->kind == K_GPU_TRACE || s->kind == K_API_TRACE ||
	    s->kind == K_PUSHPOP || s->kind == K_PROJ) && d->f->packto)
		pack_open(d, r);
	else if (s->kind == K_GPU_TRACE || s->kind == K_API_TRACE) {
		d->keep = lp_xcalloc(d->hdr.n, 1);
		d->keep[0] = 1;
		for (i = 0; i < sizeof s->col / sizeof s->col[0]; i++)
			if (d->c[i] >= 0)
				d->keep[d->c[i]] = 1;
		lp_csv_keep(r, d->keep, d->hdr.n);
	}
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

/* A process ID as nsys and ncu write it: digits, or nothing.  lp-import
 * writes the IDs into import.mk, which make reads: anything else in the
 * column is refused, never written there. */
static const char *
pid_at(struct rd *d, const struct lp_csv_rec *r, int c)
{
	const char *s = lp_csv_field(r, c);

	if (*s && !lp_num_pid(s))
		lp_die_at(LP_EXIT_DATA, d->f->path, r->line, c + 1, "%s: not a "
		    "process ID (digits): \"%s\"", d->hdr.names[c], s);
	return s;
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
	const char *pid = d->c[4] >= 0 ? pid_at(d, r, d->c[4]) : "";
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
	/* the GPU it ran on (--page raw; the details page does not say) */
	if (d->c[6] >= 0)
		imp_put(f->gpus, lp_csv_field(r, d->c[6]));

	if (!f->procname && d->c[5] >= 0 && *lp_csv_field(r, d->c[5]))
		f->procname = lp_xstrdup(lp_csv_field(r, d->c[5]));
	imp_put(f->pids, pid);
	spelling(f, k);
	counts_add(&f->names, k, 1, 0, C_SUM);
	f->keys = lp_xreallocarray(f->keys, f->nkeys + 1, sizeof *f->keys);
	base = lp_kname_base(k);
	f->keys[f->nkeys++] = result_key(pid, id, base);
	free(base);
}

/* A row of an nsys report: its names counted, its processes and GPUs. */
static void
nsys_row(struct rd *d, const struct lp_csv_rec *r)
{
	struct file *f = d->f;
	const char *name;

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
		imp_put(f->pids, pid_at(d, r, d->c[4]));
		counts_add(&f->names, name, num(d, r, d->c[1]),
		    num(d, r, d->c[2]) * d->tf, C_ROW);
		counts_add(&f->sub, range_key(d, lp_csv_field(r, d->c[3])),
		    num(d, r, d->c[5]), 0, C_ROW);
		break;
	case K_PUSHPOP:
		imp_put(f->pids, pid_at(d, r, d->c[4]));
		counts_add(&f->names, range_key(d, name), 1, (num(d, r,
		    d->c[6]) - num(d, r, d->c[2])) * d->tf, C_SUM);
		break;
	case K_PROJ:
	case K_API_TRACE:
	case K_GRAPH_NODES:	/* a create row may name no process */
		imp_put(f->pids, pid_at(d, r, d->c[4]));
		break;
	case K_API_SUM:	/* CUDA API calls are cuda* and cu* */
		if (strncmp(name, "cu", 2) && !f->notcu)
			f->notcu = lp_xstrdup(name);
		break;
	case K_GPU_TRACE:
		imp_put(f->devs, lp_csv_field(r, d->c[5]));
		if (*lp_csv_field(r, d->c[6])) {	/* a kernel, not a copy */
			spelling(f, name);
			f->launches++;
			f->time += num(d, r, d->c[2]) * d->tf;
		}
		break;
	default:
		break;
	}
}

static int
on_rec(const struct lp_csv_rec *r, void *ctx)
{
	struct rd *d = ctx;
	struct file *f = d->f;
	const struct sig *s;

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
	if (f->kind == K_NCU_KERN)
		ncu_row(d, r);
	else
		nsys_row(d, r);
	if (d->ps)
		pack_row(d, r);
	return 0;
}

static void
on_msg(const char *line, long lineno, void *ctx)
{
	struct rd *d = ctx;

	d->msg = 1;		/* lp-tracesort refuses the trace: no pack */
	if (d->ps)
		pack_close(d, 0);
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

/* A value of an sqlite export that must be an integer (a time in ns, an
 * ID), or the export is refused naming its table and column. */
static int64_t
sql_int(const struct file *f, sqlite3_stmt *st, int i, const char *table)
{
	if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
		lp_die_at(LP_EXIT_DATA, f->path, 0, 0, "%s.%s: \"%s\" is not an "
		    "integer (nsys writes times in ns and IDs as integers)", table,
		    sqlite3_column_name(st, i), sqlite3_column_text(st, i) ?
		    (const char *)sqlite3_column_text(st, i) : "NULL");
	return sqlite3_column_int64(st, i);
}

/* The NVTX push/pop ranges of the export (eventType 59, as nvtx_sum and
 * nvtx_pushpop_trace count them: ended ones), their time and processes
 * (a globalTid holds its PID in bits 24 to 47). */
static void
sqlite_ranges(struct file *f, sqlite3 *db)
{
	sqlite3_stmt *st = lp_sql_query(db, f->path, "SELECT start, end, "
	    "globalTid FROM NVTX_EVENTS WHERE eventType = 59 AND end IS NOT "
	    "NULL");
	char pid[24];

	f->sq_ranges = f->sq_range_ns = 0;
	while (lp_sql_step(db, f->path, st)) {
		double t0 = (double)sql_int(f, st, 0, "NVTX_EVENTS");
		double t1 = (double)sql_int(f, st, 1, "NVTX_EVENTS");
		int64_t tid = sql_int(f, st, 2, "NVTX_EVENTS");

		f->sq_ranges++;
		f->sq_range_ns += t1 - t0;
		snprintf(pid, sizeof pid, "%" PRId64, (tid >> 24) & 0xffffff);
		imp_put(f->sq_pids, pid);
	}
	sqlite3_finalize(st);
}

/* What ties an export with samples to the CSVs imported with it: its
 * ranges, its kernels, its GPUs' models (join.c compares them). */
static void
read_capture(struct file *f, sqlite3 *db)
{
	sqlite3_stmt *st;

	f->sq_ranges = f->sq_kerns = -1;
	if (lp_sql_has_table(db, f->path, "NVTX_EVENTS"))
		sqlite_ranges(f, db);
	if (lp_sql_has_table(db, f->path, "CUPTI_ACTIVITY_KIND_KERNEL")) {
		st = lp_sql_query(db, f->path, "SELECT start, end FROM "
		    "CUPTI_ACTIVITY_KIND_KERNEL");
		f->sq_kerns = f->sq_kern_ns = 0;
		while (lp_sql_step(db, f->path, st)) {
			double t0 = (double)sql_int(f, st, 0,
			    "CUPTI_ACTIVITY_KIND_KERNEL");

			f->sq_kerns++;
			f->sq_kern_ns += (double)sql_int(f, st, 1,
			    "CUPTI_ACTIVITY_KIND_KERNEL") - t0;
		}
		sqlite3_finalize(st);
	}
	if (!lp_sql_has_table(db, f->path, "TARGET_INFO_GPU"))
		return;
	st = lp_sql_query(db, f->path, "SELECT name FROM TARGET_INFO_GPU");
	while (lp_sql_step(db, f->path, st))
		if (sqlite3_column_type(st, 0) == SQLITE_TEXT)
			imp_put(f->gpus, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/* An SQLite database (by its header, whatever its name): nsys's export
 * (it has StringIds), with GPU Metrics samples or without; read through
 * nsql.c, which bounds it and refuses views and virtual tables. */
static int
read_sqlite(struct file *f)
{
	sqlite3 *db;
	int gm;

	if (!lp_sql_is_db(f->path))
		return 0;
	db = lp_sql_open(f->path);
	if (!lp_sql_has_table(db, f->path, "StringIds"))
		lp_die_at(LP_EXIT_DATA, f->path, 0, 0, "an SQLite database "
		    "that is not nsys's export (no table StringIds; export with "
		    "nsys export --type sqlite)");
	gm = lp_sql_has_table(db, f->path, "GPU_METRICS") &&
	    lp_sql_has_table(db, f->path, "TARGET_INFO_GPU_METRICS");
	f->kind = gm ? K_SQLITE_GM : K_SQLITE;
	if (gm)
		read_capture(f, db);
	sqlite3_close(db);
	return 1;
}

/* An export is a regular file: a FIFO would hang the reading, a device
 * never end or read as empty; said before anything opens it. */
static void
need_regular(const char *path)
{
	long long size;
	const char *what = lp_file_nonregular(path, &size);

	if (what)
		lp_die(LP_EXIT_USAGE, "IMPORT: %s is %s, not an export: import "
		    "exports as regular files (copy it to one)", path, what);
}

/* A CSV export: the report or ncu export its header says, its rows read. */
static void
read_csv(struct file *f)
{
	struct rd d;
	const char *name;
	FILE *fp;

	memset(&d, 0, sizeof d);
	d.f = f;
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
	if (d.ps)
		pack_close(&d, 1);
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
	free(d.keep);
	lp_sb_free(&d.key);
	lp_sb_free(&d.op);
	lp_sb_free(&d.shapes);
	lp_csv_hdr_free(&d.hdr);
}

void
read_file(struct file *f)
{
	f->pids = lp_map_new();
	f->devs = lp_map_new();
	f->gpus = lp_map_new();
	f->sq_pids = lp_map_new();
	f->names.idx = lp_map_new();
	f->sub.idx = lp_map_new();
	f->rep = -1;
	f->base = set_of(f->path);
	if (strcmp(f->path, "-"))
		need_regular(f->path);
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
	read_csv(f);
}
