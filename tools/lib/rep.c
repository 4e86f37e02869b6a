/*
 * nsys stats reports other than the kernel summaries (ksum.c): nvtx_sum,
 * nvtx_kern_sum, the per-instance traces nvtx_pushpop_trace and
 * nvtx_gpu_proj_trace, cuda_gpu_trace.  Columns are found by name; a time
 * column is named without its unit ("Total Time" finds "Total Time (ns)",
 * or "(us)" in older nsys, scaled to ns).  The header is the first record
 * holding the first column asked for, below whatever nsys printed first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "nsight.h"

struct lp_rep_in {
	const char *file, *what;
	const char *const *cols;
	size_t n;
	int *idx;
	double *factor;
	const char **v;
	struct lp_csv_hdr hdr;
	int have;
	FILE *fp;		/* opened here (lp_rep_open), or the caller's */
	struct lp_csv_in *csv;
	struct lp_pack_r *pk;	/* a packed trace (pack.c) instead */
	struct lp_rep_row rr;
	struct lp_csv_rec rec;	/* the row rr is, whole */
	long rows, last;	/* data rows; the line of the last record */
	int empty_ok;		/* a header alone is a report (lp_rep_empty_ok) */
	struct lp_agree agree;
};

/* "Total Time (us)" is column "Total Time" with factor 1e3. */
static int
match(const char *hname, const char *want, double *factor)
{
	size_t n = strlen(want);

	*factor = 1;
	if (!strcmp(hname, want))
		return 1;
	if (strncmp(hname, want, n) || strncmp(hname + n, " (", 2))
		return 0;
	if (lp_header_time_factor(hname, factor))
		*factor = 1;	/* a unit that is not a time: "(%)" */
	return 1;
}

static void
header(struct lp_rep_in *r, const struct lp_csv_rec *rec)
{
	size_t i, j;
	double f;

	lp_csv_hdr_init(&r->hdr, rec, r->file);
	for (i = 0; i < r->hdr.n; i++)
		for (j = i + 1; j < r->hdr.n; j++)
			if (!strcmp(r->hdr.names[i], r->hdr.names[j]))
				lp_die_at(LP_EXIT_DATA, r->file, rec->line, j + 1,
				    "column \"%s\" appears twice", r->hdr.names[j]);
	for (i = 0; i < r->n; i++) {
		const char *want = r->cols[i] + (r->cols[i][0] == '?');

		r->idx[i] = -1;
		for (j = 0; j < r->hdr.n; j++)
			if (match(r->hdr.names[j], want, &f)) {
				/* "Start (ns)" and "Start (us)": which is read? */
				if (r->idx[i] >= 0)
					lp_die_at(LP_EXIT_DATA, r->file, rec->line,
					    j + 1, "columns \"%s\" and \"%s\" are "
					    "both \"%s\"", r->hdr.names[r->idx[i]],
					    r->hdr.names[j], want);
				r->idx[i] = (int)j;
				r->factor[i] = f;
			}
		if (r->idx[i] < 0 && r->cols[i][0] != '?')
			lp_die_at(LP_EXIT_DATA, r->file, rec->line, 0, "no column "
			    "\"%s\" (not %s)", want, r->what);
	}
	lp_agree_init(&r->agree, &r->hdr);
	lp_agree_reads(&r->agree, r->idx, r->n);
	r->have = 1;
}

/*
 * Columns of one row that must agree, whichever the tool reads: a row that
 * breaks them is a cut, edited or mixed export, and every number computed
 * from it would be wrong without a word.
 *   trace:   End - Start = Duration (nsys writes them in ns, exactly; one
 *            unit of the coarsest column is allowed for an export in us)
 *   summary: no Total Time without an instance; Avg x Instances = Total
 *            Time (Avg printed to 0.1); Min <= Avg <= Max
 */
static const char *const agree_names[LP_AGREE_N] = { "Start", "End",
	"Duration", "Total Time", "Instances", "Avg", "Min", "Max" };

void
lp_agree_init(struct lp_agree *a, const struct lp_csv_hdr *h)
{
	size_t i, j;
	double f;

	a->hdr = h;
	for (i = 0; i < LP_AGREE_N; i++) {
		a->col[i] = -1;
		a->f[i] = 1;
		a->read[i] = 0;
		for (j = 0; j < h->n && a->col[i] < 0; j++)
			if (match(h->names[j], agree_names[i], &f)) {
				a->col[i] = (int)j;
				a->f[i] = f;
			}
	}
	/* nvtx_kern_sum counts kernels in "Kern Inst", cuda_api_sum calls
	 * in "Num Calls", cuda_gpu_mem_time_sum copies in "Count" */
	if (a->col[LP_AGREE_INST] < 0)
		a->col[LP_AGREE_INST] = lp_csv_col(h, "Kern Inst");
	if (a->col[LP_AGREE_INST] < 0)
		a->col[LP_AGREE_INST] = lp_csv_col(h, "Num Calls");
	if (a->col[LP_AGREE_INST] < 0)
		a->col[LP_AGREE_INST] = lp_csv_col(h, "Count");
}

void
lp_agree_reads(struct lp_agree *a, const int *cols, size_t n)
{
	size_t i, j;

	for (i = 0; i < LP_AGREE_N; i++)
		for (j = 0; j < n; j++)
			if (cols[j] >= 0 && cols[j] == a->col[i])
				a->read[i] = 1;
}

/* A column the tool does not read (End, where it reads Start and
 * Duration) holds a value a run can have, or the row is refused here:
 * text there was passed over, and the row taken as whole. */
static void
check_unread(const struct lp_agree *a, const struct lp_csv_rec *rec, int i)
{
	const char *s = lp_csv_field(rec, a->col[i]), *why;
	double v;

	if (!lp_num_get(s, &v))
		lp_die_at(LP_EXIT_DATA, a->hdr->file, rec->line, a->col[i] + 1,
		    "%s: not a number: \"%s\"", a->hdr->names[a->col[i]], s);
	if ((why = lp_num_bad(i == LP_AGREE_INST ? LP_DIM_COUNT : LP_DIM_TIME,
	    v * a->f[i], i == LP_AGREE_INST)))
		lp_die_at(LP_EXIT_DATA, a->hdr->file, rec->line, a->col[i] + 1,
		    "%s: %s: \"%s\"", a->hdr->names[a->col[i]], why, s);
}

/* the value of column i in the row, in ns; 0 if none, or not a value a
 * run can hold: that is refused where the tool reads it, by name */
static int
agree_get(const struct lp_agree *a, const struct lp_csv_rec *rec, int i,
    double *v)
{
	const char *s;

	if (a->col[i] < 0)
		return 0;
	s = lp_csv_field(rec, a->col[i]);
	if (lp_num_isna(s) || !lp_num_get(s, v))
		return 0;
	*v *= a->f[i];
	return !lp_num_bad(i == LP_AGREE_INST ? LP_DIM_COUNT : LP_DIM_TIME,
	    *v, i == LP_AGREE_INST);
}

static void
disagree(const struct lp_agree *a, const struct lp_csv_rec *rec, int i,
    const char *fmt, double x)
{
	lp_die_at(LP_EXIT_DATA, a->hdr->file, rec->line, a->col[i] + 1, "%s: "
	    "%s, but %s %.10g: the row does not hold together (an edited, "
	    "cut or mixed export)", a->hdr->names[a->col[i]],
	    lp_csv_field(rec, a->col[i]), fmt, x);
}

void
lp_agree_row(const struct lp_agree *a, const struct lp_csv_rec *rec)
{
	enum { S, E, D, T, N, AV, MI, MA };
	double v[LP_AGREE_N], tol;
	int h[LP_AGREE_N], i;
	char what[256];

	for (i = 0; i < LP_AGREE_N; i++)
		if (a->col[i] >= 0 && !a->read[i])
			check_unread(a, rec, i);
	for (i = 0; i < LP_AGREE_N; i++)
		h[i] = agree_get(a, rec, i, &v[i]);
	if (h[S] && h[E] && h[D]) {
		tol = 0.5;
		for (i = S; i <= D; i++)
			if (a->f[i] > 1 && a->f[i] > tol)
				tol = a->f[i];
		if (fabs(v[E] - v[S] - v[D]) > tol) {
			snprintf(what, sizeof what, "%s - %s is",
			    a->hdr->names[a->col[E]], a->hdr->names[a->col[S]]);
			disagree(a, rec, D, what, v[E] - v[S]);
		}
	}
	if (h[T] && h[N] && v[N] == 0 && v[T] > 0) {
		snprintf(what, sizeof what, "%s is", a->hdr->names[a->col[T]]);
		disagree(a, rec, N, what, v[T]);
	}
	if (h[T] && h[N] && h[AV] && v[N] >= 1 && fabs(v[AV] * v[N] - v[T]) >
	    v[N] * (0.05 * a->f[AV] + 0.5) + 0.5) {
		snprintf(what, sizeof what, "%s / %s is",
		    a->hdr->names[a->col[T]], a->hdr->names[a->col[N]]);
		disagree(a, rec, AV, what, v[T] / v[N] / a->f[AV]);
	}
	if (h[MI] && h[MA] && v[MI] > v[MA] + 0.5) {
		snprintf(what, sizeof what, "%s is", a->hdr->names[a->col[MA]]);
		disagree(a, rec, MI, what, v[MA] / a->f[MA]);
	}
	if (h[MI] && h[MA] && h[AV] && h[N] && v[N] >= 1 &&
	    (v[AV] < v[MI] - a->f[AV] || v[AV] > v[MA] + a->f[AV])) {
		snprintf(what, sizeof what, "%s to %s is from %.10g to",
		    a->hdr->names[a->col[MI]], a->hdr->names[a->col[MA]],
		    v[MI] / a->f[MI]);
		disagree(a, rec, AV, what, v[MA] / a->f[MA]);
	}
}

/* The row r->rec is, from file (the CSV it came from), counted. */
static const struct lp_rep_row *
row_out(struct lp_rep_in *r, const char *file)
{
	size_t i;

	r->rows++;
	for (i = 0; i < r->n; i++)
		r->v[i] = r->idx[i] >= 0 ? r->rec.f[r->idx[i]] : "";
	r->rr.v = r->v;
	r->rr.factor = r->factor;
	r->rr.col = r->idx;
	r->rr.names = r->cols;
	r->rr.line = r->rec.line;
	r->rr.file = file;
	r->rr.rec = &r->rec;
	return &r->rr;
}

/* A packed trace: its header is known at once; its rows were checked
 * (width, the columns that agree) when lp-tracesort packed them, and name
 * the CSV file and line they came from. */
static void
pack_open(struct lp_rep_in *r, FILE *fp)
{
	struct lp_csv_rec rec = { 0 };

	r->pk = lp_pack_ropen(fp, r->file);
	rec.n = lp_pack_cols(r->pk, &rec.f, &rec.line);
	r->file = lp_pack_src(r->pk, 0);
	header(r, &rec);
	r->last = rec.line;
}

static const struct lp_rep_row *
pack_next(struct lp_rep_in *r)
{
	const char *const *f;
	size_t src;
	long line;

	if (!lp_pack_next(r->pk, &f, &src, &line)) {
		if (!r->rows && !r->empty_ok)
			lp_die_at(LP_EXIT_DATA, r->file, r->last, 0, "no rows "
			    "after the header (cut off?)");
		return NULL;
	}
	r->rec.n = r->hdr.n;
	r->rec.f = (char **)f;
	r->rec.line = line;
	r->rec.rd = NULL;
	return row_out(r, lp_pack_src(r->pk, src));
}

static struct lp_rep_in *
rep_new(const char *file, const char *what, const char *const *cols,
    size_t n)
{
	struct lp_rep_in *r = lp_xcalloc(1, sizeof *r);

	r->file = file;
	r->what = what;
	r->cols = cols;
	r->n = n;
	r->idx = lp_xcalloc(n, sizeof *r->idx);
	r->factor = lp_xcalloc(n, sizeof *r->factor);
	r->v = lp_xcalloc(n, sizeof *r->v);
	return r;
}

struct lp_rep_in *
lp_rep_from(FILE *fp, const char *file, const char *what,
    const char *const *cols, size_t n)
{
	struct lp_rep_in *r = rep_new(file, what, cols, n);

	if (lp_pack_is(fp))
		pack_open(r, fp);
	else
		r->csv = lp_csv_open(fp, file, NULL, NULL);
	return r;
}

struct lp_rep_in *
lp_rep_push(const char *file, const char *what, const char *const *cols,
    size_t n)
{
	return rep_new(file, what, cols, n);
}

const struct lp_rep_row *
lp_rep_feed(struct lp_rep_in *r, const struct lp_csv_rec *rec)
{
	size_t i;
	double f;

	r->last = rec->line;
	if (!r->have) {
		const char *first = r->cols[0] + (r->cols[0][0] == '?');

		for (i = 0; i < rec->n; i++)
			if (match(rec->f[i], first, &f)) {
				header(r, rec);
				break;
			}
		return NULL;
	}
	if (rec->n == 1 && !rec->f[0][0])
		return NULL;
	lp_csv_width(&r->hdr, rec->n, rec->line);
	lp_agree_row(&r->agree, rec);
	r->rec = *rec;
	return row_out(r, r->file);
}

struct lp_rep_in *
lp_rep_open(const char *path, const char *what, const char *const *cols,
    size_t n)
{
	const char *name;
	FILE *fp = lp_open_in(path, &name);
	struct lp_rep_in *r = lp_rep_from(fp, name, what, cols, n);

	r->fp = fp;
	return r;
}

const struct lp_rep_row *
lp_rep_next(struct lp_rep_in *r)
{
	const struct lp_rep_row *rr;
	struct lp_csv_rec rec;

	if (r->pk)
		return pack_next(r);
	while (lp_csv_next(r->csv, &rec))
		if ((rr = lp_rep_feed(r, &rec)))
			return rr;
	if (!r->have && !r->last && !strncmp(r->what, "nsys", 4))	/* empty */
		lp_die_at(LP_EXIT_DATA, r->file, 0, 0, "%s (%s)", LP_EMPTY_REPORT,
		    r->what);
	if (!r->have)
		lp_die_at(LP_EXIT_DATA, r->file, r->last, 0, "no header with a "
		    "\"%s\" column (not %s)", r->cols[0] + (r->cols[0][0] == '?'),
		    r->what);
	/* nsys stats writes an empty file, not a header alone, for a report
	 * without rows: a header alone was cut off */
	if (!r->rows && !r->empty_ok)
		lp_die_at(LP_EXIT_DATA, r->file, r->last, 0, "no rows after the "
		    "header (cut off?)");
	return NULL;
}

const char *
lp_rep_name(const struct lp_rep_in *r)
{
	return r->file;
}

const struct lp_csv_hdr *
lp_rep_header(const struct lp_rep_in *r)
{
	return r->have ? &r->hdr : NULL;
}

void
lp_rep_empty_ok(struct lp_rep_in *r)
{
	r->empty_ok = 1;
}

void
lp_rep_close(struct lp_rep_in *r)
{
	if (!r)
		return;
	if (r->csv)
		lp_csv_close(r->csv);
	lp_pack_rclose(r->pk);
	if (r->fp)
		lp_close_in(r->fp);
	lp_csv_hdr_free(&r->hdr);
	free(r->idx);
	free(r->factor);
	free(r->v);
	free(r);
}

void
lp_rep_read(FILE *fp, const char *file, const char *what,
    const char *const *cols, size_t n, lp_rep_fn fn, void *ctx)
{
	struct lp_rep_in *r = lp_rep_from(fp, file, what, cols, n);
	const struct lp_rep_row *rr;

	while ((rr = lp_rep_next(r)))
		fn(rr, ctx);
	lp_rep_close(r);
}

void
lp_rep_file(const char *path, const char *what, const char *const *cols,
    size_t n, lp_rep_fn fn, void *ctx)
{
	struct lp_rep_in *r = lp_rep_open(path, what, cols, n);
	const struct lp_rep_row *rr;

	while ((rr = lp_rep_next(r)))
		fn(rr, ctx);
	lp_rep_close(r);
}

static double
num(const struct lp_rep_row *r, size_t i, int whole, double factor)
{
	const char *why = NULL;
	double v;

	if (!lp_num_get(r->v[i], &v) || (why = lp_num_bad(whole ?
	    LP_DIM_COUNT : LP_DIM_TIME, v * factor, whole)))
		lp_die_at(LP_EXIT_DATA, r->file, r->line, r->col[i] + 1,
		    "%s: expected %s, got \"%s\"%s%s", r->names[i] +
		    (r->names[i][0] == '?'), whole ? "a whole number from 0" :
		    "a number from 0", r->v[i], why ? ": " : "", why ? why : "");
	return v * factor;
}

double
lp_rep_time(const struct lp_rep_row *r, size_t i)
{
	return num(r, i, 0, r->factor[i]);
}

double
lp_rep_count(const struct lp_rep_row *r, size_t i)
{
	return num(r, i, 1, 1);
}

const char *
lp_rep_pid(const struct lp_rep_row *r, size_t i)
{
	const char *p = r->v[i];
	int optional = r->names[i][0] == '?';

	if (r->col[i] < 0)
		return p;
	/* empty only where the column itself may be missing */
	if (optional && !*p)
		return p;
	if (!lp_num_pid(p))
		lp_die_at(LP_EXIT_DATA, r->file, r->line, r->col[i] + 1,
		    "%s: a process ID is a whole number in digits, got \"%s\"",
		    r->names[i] + optional, r->v[i]);
	return r->v[i];
}

int64_t
lp_rep_id(const struct lp_rep_row *r, size_t i)
{
	const char *p = r->v[i];
	size_t n = strspn(p, "0123456789");

	if (!n || p[n] || n > 18)
		lp_die_at(LP_EXIT_DATA, r->file, r->line, r->col[i] + 1,
		    "%s: an ID is a whole number in digits, got \"%s\"",
		    r->names[i] + (r->names[i][0] == '?'), p);
	return strtoll(p, NULL, 10);
}

int
lp_rep_has(const struct lp_rep_row *r, size_t i)
{
	return r->col[i] >= 0 && !lp_num_isna(r->v[i]);
}
