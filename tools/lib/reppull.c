/*
 * An nsys report read a row at a time, for tools that merge several
 * traces sorted by time (lp-atenops): the caller asks for the next row
 * instead of being called for each.  Columns, units and checks are
 * lp_rep_read's (rep.c): a time column named without its unit, a column
 * named twice refused, every row as wide as the header, End - Start =
 * Duration.  Input as csvin.c takes it: a line at a time through libcsv,
 * no NUL bytes, every line ended.
 */
#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "aten.h"

struct lp_repp {
	FILE *fp;
	const char *file, *what;
	const char *const *cols;
	size_t n;
	int *idx;
	double *factor;
	const char **v;
	struct lp_csv_hdr hdr;
	struct lp_agree agree;
	struct lp_rep_row rr;
	struct csv_parser p;
	char *line, *buf;
	size_t cap, blen, bcap, nf, fcap, pcap;
	size_t *off;
	char **ptr;
	long lineno, start, rows;
	int have, done, nl, got;
};

static void
on_field(void *s, size_t len, void *data)
{
	struct lp_repp *r = data;

	if (r->nf == r->fcap) {
		r->fcap = r->fcap ? 2 * r->fcap : 32;
		r->off = lp_xreallocarray(r->off, r->fcap, sizeof *r->off);
	}
	while (r->blen + len + 1 > r->bcap) {
		r->bcap *= 2;
		r->buf = lp_xrealloc(r->buf, r->bcap);
	}
	r->off[r->nf++] = r->blen;
	if (len)
		memcpy(r->buf + r->blen, s, len);
	r->blen += len;
	r->buf[r->blen++] = '\0';
}

static void
on_record(int c, void *data)
{
	(void)c;
	((struct lp_repp *)data)->got = 1;
}

/* "Start (ns)" is column "Start", its factor to ns 1; "(us)" 1e3. */
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
		*factor = 1;
	return 1;
}

static void
header(struct lp_repp *r, const struct lp_csv_rec *rec)
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
	r->have = 1;
}

/* The next CSV record into rec; 0 at the end of input. */
static int
record(struct lp_repp *r, struct lp_csv_rec *rec)
{
	ssize_t n;
	size_t i;

	r->nf = 0;
	r->blen = 1;
	r->got = 0;
	while (!r->got) {
		if (r->done || (n = lp_getline(&r->line, &r->cap, r->fp)) == -1) {
			if (!r->done && ferror(r->fp))
				lp_die_sys("%s", r->file);
			if (!r->done && !r->nl)
				lp_die_at(LP_EXIT_DATA, r->file, r->lineno, 0, "the "
				    "last line has no newline: a cut-off export");
			if (!r->done && csv_fini(&r->p, on_field, on_record, r))
				lp_die_at(LP_EXIT_DATA, r->file, r->start, 0, "quoted "
				    "field not closed before the end of input");
			r->done = 1;
			if (!r->got)
				return 0;
			break;
		}
		r->lineno++;
		r->nl = r->line[n - 1] == '\n';
		if ((size_t)n > LP_LINE_MAX || memchr(r->line, '\0', (size_t)n))
			lp_die_at(LP_EXIT_DATA, r->file, r->lineno, 0, "%s",
			    (size_t)n > LP_LINE_MAX ? "a line beyond 1 MiB: not "
			    "an export" : "binary data (NUL byte): not a CSV export");
		if (!r->nf && !r->got)
			r->start = r->lineno;
		if (csv_parse(&r->p, r->line, (size_t)n, on_field, on_record, r) !=
		    (size_t)n)
			lp_die_at(LP_EXIT_DATA, r->file, r->lineno, 0, "malformed "
			    "CSV: %s", csv_strerror(csv_error(&r->p)));
	}
	if (r->nf > r->pcap) {
		r->pcap = r->nf;
		r->ptr = lp_xreallocarray(r->ptr, r->pcap, sizeof *r->ptr);
	}
	for (i = 0; i < r->nf; i++)
		r->ptr[i] = r->buf + r->off[i];
	rec->n = r->nf;
	rec->f = r->ptr;
	rec->line = r->start;
	rec->rd = NULL;
	return 1;
}

struct lp_repp *
lp_repp_open(const char *path, const char *what, const char *const *cols,
    size_t n)
{
	struct lp_repp *r = lp_xcalloc(1, sizeof *r);

	r->fp = lp_open_in(path, &r->file);
	r->what = what;
	r->cols = cols;
	r->n = n;
	r->idx = lp_xcalloc(n, sizeof *r->idx);
	r->factor = lp_xcalloc(n, sizeof *r->factor);
	r->v = lp_xcalloc(n, sizeof *r->v);
	r->bcap = 4096;
	r->buf = lp_xmalloc(r->bcap);
	r->buf[0] = '\0';
	r->nl = 1;
	if (csv_init(&r->p, CSV_STRICT | CSV_STRICT_FINI) != 0)
		lp_die(LP_EXIT_USAGE, "csv_init failed");
	csv_set_blk_size(&r->p, 65536);
	return r;
}

const struct lp_rep_row *
lp_repp_next(struct lp_repp *r)
{
	struct lp_csv_rec rec;
	size_t i;
	double f;

	while (record(r, &rec)) {
		if (!r->have) {
			const char *first = r->cols[0] + (r->cols[0][0] == '?');

			for (i = 0; i < rec.n; i++)
				if (match(rec.f[i], first, &f)) {
					header(r, &rec);
					break;
				}
			continue;
		}
		if (rec.n == 1 && !rec.f[0][0])
			continue;
		lp_csv_width(&r->hdr, rec.n, rec.line);
		lp_agree_row(&r->agree, &rec);
		r->rows++;
		for (i = 0; i < r->n; i++)
			r->v[i] = r->idx[i] >= 0 ? rec.f[r->idx[i]] : "";
		r->rr.v = r->v;
		r->rr.factor = r->factor;
		r->rr.col = r->idx;
		r->rr.names = r->cols;
		r->rr.line = rec.line;
		r->rr.file = r->file;
		return &r->rr;
	}
	if (!r->have)
		lp_die_at(LP_EXIT_DATA, r->file, r->lineno, 0, "no header with a "
		    "\"%s\" column (not %s)", r->cols[0] + (r->cols[0][0] == '?'),
		    r->what);
	if (!r->rows)
		lp_die_at(LP_EXIT_DATA, r->file, r->lineno, 0, "no rows after the "
		    "header: nsys writes no file for a report without data "
		    "(cut off?)");
	return NULL;
}

const char *
lp_repp_file(const struct lp_repp *r)
{
	return r->file;
}

void
lp_repp_close(struct lp_repp *r)
{
	if (!r)
		return;
	csv_free(&r->p);
	lp_close_in(r->fp);
	lp_csv_hdr_free(&r->hdr);
	free(r->idx);
	free(r->factor);
	free(r->v);
	free(r->line);
	free(r->buf);
	free(r->off);
	free(r->ptr);
	free(r);
}
