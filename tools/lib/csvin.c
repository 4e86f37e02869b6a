/*
 * Streaming CSV input through libcsv.  Input is fed a line at a time so that
 * errors can name the line; memory holds the current record only.  A reader
 * is pulled a record at a time (lp_csv_next: several files merged in time
 * order); lp_csv_read calls back for each record.
 */
#include <csv.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"

/* A reader: lines go to libcsv one at a time; the records a line ends
 * wait in a queue (a bare CR ends one inside a line) until they are taken. */
struct lp_csv_in {
	FILE *fp;
	const char *file;
	void (*msg)(const char *, long, void *);
	void *ctx;
	struct csv_parser p;
	char *line;
	size_t cap;
	long lineno;
	int boundary, nl, eof;
	char *buf;		/* field bytes, each NUL-terminated */
	size_t blen, bcap;
	size_t *off;
	size_t nf, fcap, fbeg;	/* fields; where the open record's begin */
	char **ptr;
	size_t pcap;
	long start;		/* line where the open record began */
	long ended;		/* records completed so far */
	struct { size_t end; long line; } *q;	/* records ended, not taken */
	size_t qn, qcap, qpos;
	const unsigned char *keep;	/* lp_csv_keep's mask */
	size_t nkeep;
};

void
lp_csv_keep(const struct lp_csv_rec *rec, const unsigned char *mask,
    size_t n)
{
	struct lp_csv_in *r = rec->rd;

	r->keep = mask;
	r->nkeep = n;
}

/* on_field writes a record's fields one after the other into buf. */
const char *
lp_csv_span(const struct lp_csv_rec *rec, size_t *len)
{
	const struct lp_csv_in *r = rec->rd;
	const char *last;

	if (!r)		/* not from this reader (a pack's row) */
		return NULL;
	if (r->keep)
		lp_die(LP_EXIT_USAGE, "lp_csv_span after lp_csv_keep");
	if (!rec->n) {
		*len = 0;
		return "";
	}
	last = rec->f[rec->n - 1];
	*len = (size_t)(last + strlen(last) + 1 - rec->f[0]);
	return rec->f[0];
}

static void
on_field(void *s, size_t len, void *data)
{
	struct lp_csv_in *r = data;
	size_t col = r->nf - r->fbeg;

	if (r->nf == r->fcap)	/* a call a field costs: only when full */
		r->off = lp_grow(r->off, r->nf, &r->fcap, 64, sizeof *r->off);
	/* a column the reader does not use: the "" at buf[0], nothing
	 * copied (a wide ncu export has ~800 columns, lp reads ~40) */
	if (r->keep && col < r->nkeep && !r->keep[col]) {
		r->off[r->nf++] = 0;
		return;
	}
	if (r->blen + len + 1 > r->bcap) {
		while (r->blen + len + 1 > r->bcap)
			r->bcap = 2 * r->bcap;
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
	struct lp_csv_in *r = data;

	(void)c;
	r->ended++;
	if (r->qn == r->qcap)
		r->q = lp_grow(r->q, r->qn, &r->qcap, 4, sizeof *r->q);
	r->q[r->qn].end = r->nf;
	r->q[r->qn++].line = r->start;
	r->fbeg = r->nf;
	r->start = r->lineno;	/* a bare CR: the next begins on this line */
}

/* "==ERROR== ...", "==WARNING== ...", "==PROF== ...": ncu talking. */
static int
is_tool_msg(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 5 || s[0] != '=' || s[1] != '=')
		return 0;
	while (i < n && s[i] >= 'A' && s[i] <= 'Z')
		i++;
	return i > 2 && i + 1 < n && s[i] == '=' && s[i + 1] == '=';
}

static void
csv_start(struct csv_parser *p)
{
	if (csv_init(p, CSV_STRICT | CSV_STRICT_FINI) != 0)
		lp_die(LP_EXIT_USAGE, "csv_init failed");
	/* libcsv grows a field by blk_size at a time: 64 KiB, not 128 B, or
	 * a long field costs a copy per 128 bytes */
	csv_set_blk_size(p, 65536);
#ifdef LP_FUZZ
	csv_set_realloc_func(p, lp_fuzz_realloc);
	csv_set_free_func(p, lp_fuzz_free);
#endif
}

/* A line no export has: beyond LP_LINE_MAX, or binary. */
static void
check_line(const char *file, long lineno, const char *s, size_t len)
{
	if (len > LP_LINE_MAX)
		lp_die_at(LP_EXIT_DATA, file, lineno, 0, "a line of %zu "
		    "bytes: beyond %d MiB, not an export", len,
		    LP_LINE_MAX >> 20);
	if (memchr(s, '\0', len))
		lp_die_at(LP_EXIT_DATA, file, lineno, 0,
		    "binary data (NUL byte): not a CSV export");
}

struct lp_csv_in *
lp_csv_open(FILE *fp, const char *file,
    void (*msg)(const char *, long, void *), void *ctx)
{
	struct lp_csv_in *r = lp_xcalloc(1, sizeof *r);

	r->fp = fp;
	r->file = file;
	r->msg = msg;
	r->ctx = ctx;
	r->bcap = 4096;
	r->buf = lp_xmalloc(r->bcap);
	r->buf[0] = '\0';
	r->blen = 1;
	r->boundary = 1;
	r->nl = 1;
	csv_start(&r->p);
	return r;
}

/* One line into the parser; 0 at the end of input, after its checks. */
static int
feed(struct lp_csv_in *r)
{
	ssize_t n = lp_getline(&r->line, &r->cap, r->fp);
	char *s = r->line;
	size_t len;
	long before;

	if (n == -1) {
		if (ferror(r->fp))
			lp_die_sys("%s", r->file);
		/* nsys and ncu end every line of an export, the last one
		 * too: a last line without its newline is an export cut off
		 * in its last field, which libcsv would take for the whole
		 * value ("12" of "1234"), and the record for a whole row */
		if (!r->nl)
			lp_die_at(LP_EXIT_DATA, r->file, r->lineno, 0, "the last "
			    "line has no newline: a cut-off export (the tool "
			    "ends every line)");
		if (csv_fini(&r->p, on_field, on_record, r) != 0)
			lp_die_at(LP_EXIT_DATA, r->file, r->start, 0,
			    "quoted field not closed before the end of input "
			    "(cut-off export?)");
		r->eof = 1;
		return 0;
	}
	len = (size_t)n;
	r->lineno++;
	r->nl = s[len - 1] == '\n';
	check_line(r->file, r->lineno, s, len);
	if (r->lineno == 1 && len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) {
		s += 3;
		len -= 3;
	}
	if (r->boundary && is_tool_msg(s, len)) {
		while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
			s[--len] = '\0';
		if (!r->msg)
			lp_die_at(LP_EXIT_DATA, r->file, r->lineno, 0,
			    "tool message instead of CSV: %s", s);
		r->msg(s, r->lineno, r->ctx);
		return 1;
	}
	if (r->boundary)
		r->start = r->lineno;
	before = r->ended;
	if (csv_parse(&r->p, s, len, on_field, on_record, r) != len)
		lp_die_at(LP_EXIT_DATA, r->file, r->lineno, 0, "malformed CSV: %s",
		    csv_strerror(csv_error(&r->p)));
	/* Between records after this line: it ended one and began no
	 * other (a bare CR ends a record inside a line, and a quote opened
	 * after it carries the next record over; libcsv's state 0 is its
	 * ROW_NOT_BEGUN, the struct being public in csv.h). */
	if (r->ended != before)
		r->boundary = r->p.pstate == 0;
	else if (len > 0 && !(len == 1 && s[0] == '\n') &&
	    !(len == 2 && s[0] == '\r' && s[1] == '\n'))
		r->boundary = 0;
	return 1;
}

int
lp_csv_next(struct lp_csv_in *r, struct lp_csv_rec *rec)
{
	size_t i, beg;

	if (r->qpos == r->qn) {	/* every record taken: the buffer is free */
		size_t open = r->nf - r->fbeg, lo = r->blen;

		/* a record begun on the last line: its fields move to the
		 * front, offsets and bytes (buf[0] stays "", a field left
		 * out keeps offset 0) */
		if (r->qn && open)
			memmove(r->off, r->off + r->fbeg, open * sizeof *r->off);
		for (i = 0; i < open; i++)
			if (r->off[i] && r->off[i] < lo)
				lo = r->off[i];
		memmove(r->buf + 1, r->buf + lo, r->blen - lo);
		for (i = 0; i < open; i++)
			if (r->off[i])
				r->off[i] -= lo - 1;
		r->blen -= lo - 1;
		r->nf = open;
		r->fbeg = 0;
		r->qn = r->qpos = 0;
		while (!r->qn && !r->eof && feed(r))
			;
		if (!r->qn)
			return 0;
	}
	beg = r->qpos ? r->q[r->qpos - 1].end : 0;
	if (r->q[r->qpos].end - beg > r->pcap) {
		r->pcap = r->q[r->qpos].end - beg;
		r->ptr = lp_xreallocarray(r->ptr, r->pcap, sizeof *r->ptr);
	}
	for (i = beg; i < r->q[r->qpos].end; i++)
		r->ptr[i - beg] = r->buf + r->off[i];
	rec->n = r->q[r->qpos].end - beg;
	rec->f = r->ptr;
	rec->line = r->q[r->qpos++].line;
	rec->rd = r;
	return 1;
}

void
lp_csv_close(struct lp_csv_in *r)
{
	if (!r)
		return;
	csv_free(&r->p);
	free(r->line);
	free(r->buf);
	free(r->off);
	free(r->ptr);
	free(r->q);
	free(r);
}

void
lp_csv_read(FILE *fp, const char *file,
    int (*rec)(const struct lp_csv_rec *, void *),
    void (*msg)(const char *, long, void *), void *ctx)
{
	struct lp_csv_in *r = lp_csv_open(fp, file, msg, ctx);
	struct lp_csv_rec rc;

	while (lp_csv_next(r, &rc))
		if (rec(&rc, ctx))
			break;
	lp_csv_close(r);
}

void
lp_csv_hdr_init(struct lp_csv_hdr *h, const struct lp_csv_rec *r,
    const char *file)
{
	size_t i;

	h->n = r->n;
	h->names = lp_xcalloc(r->n, sizeof *h->names);
	for (i = 0; i < r->n; i++)
		h->names[i] = lp_xstrdup(r->f[i]);
	h->file = file;
	h->line = r->line;
}

void
lp_csv_hdr_free(struct lp_csv_hdr *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->names[i]);
	free(h->names);
	h->names = NULL;
	h->n = 0;
}

/*
 * A column lp reads must be there once: with two of them, which one holds
 * the numbers is a guess, so it is refused.  Columns lp does not look up
 * may repeat.
 */
int
lp_csv_col(const struct lp_csv_hdr *h, const char *name)
{
	size_t i, j;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->names[i], name)) {
			for (j = i + 1; j < h->n; j++)
				if (!strcmp(h->names[j], name))
					lp_die_at(LP_EXIT_DATA, h->file, h->line,
					    (long)j + 1, "column \"%s\" appears "
					    "twice (columns %zu and %zu)", name,
					    i + 1, j + 1);
			return (int)i;
		}
	return -1;
}

int
lp_csv_col_prefix(const struct lp_csv_hdr *h, const char *prefix)
{
	size_t i, j, n = strlen(prefix);

	for (i = 0; i < h->n; i++)
		if (!strncmp(h->names[i], prefix, n)) {
			for (j = i + 1; j < h->n; j++)
				if (!strncmp(h->names[j], prefix, n))
					lp_die_at(LP_EXIT_DATA, h->file, h->line,
					    (long)j + 1, "two columns \"%s...\" "
					    "(\"%s\" and \"%s\")", prefix,
					    h->names[i], h->names[j]);
			return (int)i;
		}
	return -1;
}

void
lp_csv_width(const struct lp_csv_hdr *h, size_t n, long line)
{
	if (n != h->n)
		lp_die_at(LP_EXIT_DATA, h->file, line, 0, "%zu fields, header has "
		    "%zu%s", n, h->n, n < h->n ? " (cut-off line?)" : "");
}

int
lp_csv_need(const struct lp_csv_hdr *h, const char *name, const char *what)
{
	int c = lp_csv_col(h, name);

	if (c < 0)
		lp_die_at(LP_EXIT_DATA, h->file, h->line, 0,
		    "no column \"%s\" (not %s)", name, what);
	return c;
}

const char *
lp_csv_field(const struct lp_csv_rec *r, int col)
{
	return col >= 0 && (size_t)col < r->n ? r->f[col] : "";
}

int
lp_csv_rec_has(const struct lp_csv_rec *r, const char *prefix)
{
	size_t i, n = strlen(prefix);

	for (i = 0; i < r->n; i++)
		if (!strncmp(r->f[i], prefix, n))
			return 1;
	return 0;
}
