/*
 * pack.c: an nsys trace in lp's packed form (lp-tracesort -p), which
 * rep.c reads in place of the CSV: the rows as libcsv read them, already
 * checked (width, the columns that agree) and in time order, each field
 * the string the CSV held; a long field that repeats (a kernel's name, a
 * GPU's) is written once and named by its number after.  A reader pays
 * for no CSV parse, and its memory is the distinct long fields.
 *
 *   "\177LPTRACE 1\n"
 *   n, then n strings        the CSV files the rows came from
 *   n, then n strings        the header's column names
 *   line                     the header's line in the first file
 *   items, each a number:
 *     0  the end (nothing may follow)
 *     1  a string: the next long field, numbered from 0
 *     2  a row: its file (0..), its line there, the byte length of
 *        its fields, then a number a field: 0 "", odd 2k+1 the k
 *        bytes that follow and a NUL, even 2k+2 long field k
 *
 * Numbers are LEB128 (7 bits a byte, low first); a string is its length
 * and its bytes.  lp-tracesort(1) describes it for users.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "nsight.h"

#define MAGIC "\177LPTRACE 1\n"
#define MAGIC_LEN 11
#define DICT_MAX (1u << 20)		/* long fields kept by number */
#define DICT_BYTES (32u << 20)

/* ---- writing ---- */

struct lp_pack_w {
	FILE *fp;
	size_t ncols;
	struct lp_map *dict;
	size_t ndict, dbytes;
	struct lp_sb row, out;	/* a row's fields; what goes out */
};

/* Written in place: a call to lp_sb_addn a number was a tenth of
 * lp-tracesort's time on a 2 GB import. */
static void
put_num(struct lp_sb *b, uint64_t v)
{
	lp_sb_room(b, 10);
	do {
		b->s[b->len++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	b->s[b->len] = '\0';
}

static void
put_str(struct lp_sb *b, const char *s, size_t n)
{
	put_num(b, n);
	lp_sb_addn(b, s, n);
}

static void
flush_sb(struct lp_pack_w *w, struct lp_sb *b)
{
	if (b->len && fwrite(b->s, 1, b->len, w->fp) != b->len)
		lp_die_sys("writing the packed trace");
	lp_sb_reset(b);
}

struct lp_pack_w *
lp_pack_wopen(FILE *fp, const char *const *srcs, size_t nsrc,
    const char *const *names, size_t ncols, long hline)
{
	struct lp_pack_w *w = lp_xcalloc(1, sizeof *w);
	struct lp_sb b = { 0 };
	size_t i;

	w->fp = fp;
	w->ncols = ncols;
	w->dict = lp_map_new();
	lp_sb_addn(&b, MAGIC, MAGIC_LEN);
	put_num(&b, nsrc);
	for (i = 0; i < nsrc; i++)
		put_str(&b, srcs[i], strlen(srcs[i]));
	put_num(&b, ncols);
	for (i = 0; i < ncols; i++)
		put_str(&b, names[i], strlen(names[i]));
	put_num(&b, (uint64_t)(hline > 0 ? hline : 0));
	flush_sb(w, &b);
	lp_sb_free(&b);
	return w;
}

/* A field worth a number: long, and not a number itself (a start time
 * repeats seldom, a kernel's name in every launch). */
static int
worth(const char *s, size_t n)
{
	return n >= 8 && strspn(s, "0123456789.-") != n;
}

void
lp_pack_row(struct lp_pack_w *w, size_t src, long line, const char *const *f)
{
	size_t i;

	lp_sb_reset(&w->row);
	for (i = 0; i < w->ncols; i++) {
		size_t n = strlen(f[i]);
		long id = -1;

		if (n && worth(f[i], n)) {
			id = lp_map_get(w->dict, f[i], -1);
			if (id < 0 && w->ndict < DICT_MAX && w->dbytes +
			    n < DICT_BYTES) {
				id = (long)w->ndict++;
				w->dbytes += n;
				lp_map_put(w->dict, f[i], id);
				put_num(&w->out, 1);	/* defined first */
				put_str(&w->out, f[i], n);
			}
		}
		if (!n)
			put_num(&w->row, 0);
		else if (id >= 0)
			put_num(&w->row, 2 * (uint64_t)id + 2);
		else {
			put_num(&w->row, 2 * (uint64_t)n + 1);
			lp_sb_addn(&w->row, f[i], n + 1);
		}
	}
	put_num(&w->out, 2);
	put_num(&w->out, src);
	put_num(&w->out, (uint64_t)(line > 0 ? line : 0));
	put_num(&w->out, w->row.len);
	lp_sb_addn(&w->out, w->row.s, w->row.len);
	if (w->out.len >= (1u << 16))	/* rows out in blocks */
		flush_sb(w, &w->out);
}

void
lp_pack_wend(struct lp_pack_w *w)
{
	flush_sb(w, &w->out);
	if (putc(0, w->fp) == EOF)
		lp_die_sys("writing the packed trace");
	lp_map_free(w->dict);
	lp_sb_free(&w->row);
	lp_sb_free(&w->out);
	free(w);
}

/* ---- reading ---- */

struct lp_pack_r {
	FILE *fp;
	const char *file;	/* the pack, for its own faults */
	unsigned char *buf;
	size_t pos, end, cap;
	long long off;		/* file offset of buf[0] */
	int eof;
	char **srcs, **names;
	size_t nsrc, ncols;
	long hline;
	char **dict;
	size_t ndict, dcap;
	const char **f;		/* the row's fields */
};

_Noreturn static void
bad(const struct lp_pack_r *r, const char *why)
{
	lp_die_at(LP_EXIT_DATA, r->file, 0, 0, "not a whole packed trace "
	    "(byte %lld: %s): remove it and re-run make, which writes it "
	    "again from its CSV", r->off + (long long)r->pos, why);
}

/* At least n bytes from pos in buf, if the file has them. */
static size_t
fill(struct lp_pack_r *r, size_t n)
{
	size_t got;

	if (r->end - r->pos >= n || r->eof)
		return r->end - r->pos;
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->off += (long long)r->pos;
		r->end -= r->pos;
		r->pos = 0;
	}
	if (n > r->cap || r->cap - r->end < (1u << 16)) {
		r->cap = n > 2 * r->cap ? n + (1u << 20) : 2 * r->cap +
		    (1u << 20);
		r->buf = lp_xrealloc(r->buf, r->cap);
	}
	while (r->end < n && !r->eof) {
		got = fread(r->buf + r->end, 1, r->cap - r->end, r->fp);
		if (!got) {
			if (ferror(r->fp))
				lp_die_sys("%s", r->file);
			r->eof = 1;
		}
		r->end += got;
	}
	return r->end - r->pos;
}

static uint64_t
get_num(struct lp_pack_r *r)
{
	uint64_t v = 0;
	int shift = 0;
	size_t have = fill(r, 10);

	for (;;) {
		unsigned c;

		if (!have--)
			bad(r, "cut inside a number");
		c = r->buf[r->pos++];
		if (shift > 56 && c > 1)
			bad(r, "a number past 64 bits");
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
}

static char *
get_str(struct lp_pack_r *r)
{
	uint64_t n = get_num(r);
	char *s;

	if (n > LP_LINE_MAX)
		bad(r, "a string longer than any field");
	if (fill(r, (size_t)n) < n)
		bad(r, "cut inside a string");
	s = lp_xmalloc((size_t)n + 1);
	memcpy(s, r->buf + r->pos, (size_t)n);
	s[n] = 0;
	if (memchr(s, 0, (size_t)n))
		bad(r, "a NUL inside a string");
	r->pos += (size_t)n;
	return s;
}

static char **
get_strs(struct lp_pack_r *r, size_t *n)
{
	uint64_t k = get_num(r), i;
	char **v;

	if (k > 1u << 16)
		bad(r, "more files or columns than a trace has");
	v = lp_xcalloc((size_t)k + 1, sizeof *v);
	for (i = 0; i < k; i++)
		v[i] = get_str(r);
	*n = (size_t)k;
	return v;
}

/* Is fp (nothing read from it yet but what ungetc put back) a pack? */
int
lp_pack_is(FILE *fp)
{
	int c = getc(fp);

	if (c == EOF)
		return 0;
	ungetc(c, fp);
	return c == MAGIC[0];
}

struct lp_pack_r *
lp_pack_ropen(FILE *fp, const char *file)
{
	struct lp_pack_r *r = lp_xcalloc(1, sizeof *r);

	r->fp = fp;
	r->file = file;
	if (fill(r, MAGIC_LEN) < MAGIC_LEN || memcmp(r->buf, MAGIC, MAGIC_LEN))
		bad(r, "no \"LPTRACE 1\" at its start");
	r->pos = MAGIC_LEN;
	r->srcs = get_strs(r, &r->nsrc);
	r->names = get_strs(r, &r->ncols);
	if (!r->nsrc || !r->ncols)
		bad(r, "no file or no column");
	r->hline = (long)get_num(r);
	r->f = lp_xcalloc(r->ncols, sizeof *r->f);
	return r;
}

size_t
lp_pack_cols(const struct lp_pack_r *r, char ***names, long *hline)
{
	*names = r->names;
	*hline = r->hline;
	return r->ncols;
}

const char *
lp_pack_src(const struct lp_pack_r *r, size_t i)
{
	return r->srcs[i < r->nsrc ? i : 0];
}

/* One row's fields from the len bytes at pos. */
static void
fields(struct lp_pack_r *r, size_t len)
{
	size_t at = r->pos, stop = r->pos + len, i;

	for (i = 0; i < r->ncols; i++) {
		uint64_t v = 0;
		int shift = 0;
		unsigned c;

		do {
			if (at >= stop || shift > 63)
				bad(r, "a row shorter than its columns");
			c = r->buf[at++];
			v |= (uint64_t)(c & 0x7f) << shift;
			shift += 7;
		} while (c & 0x80);
		if (!v)
			r->f[i] = "";
		else if (v & 1) {
			uint64_t n = v >> 1;

			if (n >= stop - at || r->buf[at + n] ||
			    memchr(r->buf + at, 0, (size_t)n))
				bad(r, "a field that overruns its row");
			r->f[i] = (const char *)r->buf + at;
			at += (size_t)n + 1;
		} else {
			if ((v >> 1) - 1 >= r->ndict)
				bad(r, "a field numbered before it was written");
			r->f[i] = r->dict[(v >> 1) - 1];
		}
	}
	if (at != stop)
		bad(r, "a row longer than its columns");
	r->pos = stop;
}

int
lp_pack_next(struct lp_pack_r *r, const char *const **f, size_t *src,
    long *line)
{
	for (;;) {
		uint64_t t = get_num(r), len;

		if (t == 0) {
			if (fill(r, 1))
				bad(r, "bytes after its end");
			return 0;
		}
		if (t == 1) {
			if (r->ndict >= DICT_MAX)
				bad(r, "more long fields than a pack holds");
			r->dict = lp_grow(r->dict, r->ndict, &r->dcap, 256,
			    sizeof *r->dict);
			r->dict[r->ndict++] = get_str(r);
			continue;
		}
		if (t != 2)
			bad(r, "an item of no known kind");
		*src = (size_t)get_num(r);
		if (*src >= r->nsrc)
			bad(r, "a row of a file it does not list");
		*line = (long)get_num(r);
		len = get_num(r);
		if (len > (uint64_t)LP_LINE_MAX * 4 || fill(r, (size_t)len) < len)
			bad(r, "cut inside a row");
		fields(r, (size_t)len);
		*f = r->f;
		return 1;
	}
}

static void
free_strs(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
lp_pack_rclose(struct lp_pack_r *r)
{
	if (!r)
		return;
	free_strs(r->srcs, r->nsrc);
	free_strs(r->names, r->ncols);
	free_strs(r->dict, r->ndict);
	free(r->f);
	free(r->buf);
	free(r);
}

int
lp_tkey_cmp(const struct lp_tkey *a, const struct lp_tkey *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	if ((c = memcmp(a->s, b->s, n)))
		return c;
	return (a->len > b->len) - (a->len < b->len);
}

/* A row's fields end to end, each with its NUL: the bytes the order
 * compares last. */
void
lp_trace_key(struct lp_sb *b, const struct lp_csv_rec *rec)
{
	size_t n, i;
	const char *p = lp_csv_span(rec, &n);

	lp_sb_reset(b);
	if (p)
		lp_sb_addn(b, p, n);
	else
		for (i = 0; i < rec->n; i++)
			lp_sb_addn(b, rec->f[i], strlen(rec->f[i]) + 1);
}

struct lp_pack_s {
	struct lp_pack_w *w;
	const char **fv;	/* a row's fields */
	struct lp_tkey last;	/* the last row packed, its bytes in lb */
	struct lp_sb lb, b;
	size_t ncols;
	int have, ordered;
};

struct lp_pack_s *
lp_pack_sopen(FILE *fp, const char *const *srcs, size_t nsrc,
    const struct lp_csv_hdr *h, int ordered)
{
	struct lp_pack_s *s = lp_xcalloc(1, sizeof *s);

	s->ordered = ordered;
	s->ncols = h->n;
	s->fv = lp_xcalloc(h->n ? h->n : 1, sizeof *s->fv);
	s->w = lp_pack_wopen(fp, srcs, nsrc, (const char *const *)h->names,
	    h->n, h->line);
	return s;
}

int
lp_pack_srow(struct lp_pack_s *s, size_t src, const struct lp_rep_row *rr)
{
	struct lp_tkey k = { 0 };
	size_t i;

	if (s->ordered) {
		k.start = lp_rep_time(rr, 0);
		k.dur = rr->col[1] >= 0 ? lp_rep_time(rr, 1) : 0;
	}
	/* a tie of start and duration is settled by the bytes */
	if (s->ordered && s->have && (k.start < s->last.start ||
	    (k.start == s->last.start && k.dur >= s->last.dur))) {
		lp_trace_key(&s->b, rr->rec);
		k.s = s->b.s;
		k.len = s->b.len;
		if (lp_tkey_cmp(&s->last, &k) > 0)
			return 1;
	}
	if (rr->rec->n != s->ncols)	/* a caller's bug: rows are checked */
		lp_die_at(LP_EXIT_DATA, rr->file, rr->line, 0, "%zu fields, "
		    "the pack's header has %zu", rr->rec->n, s->ncols);
	for (i = 0; i < rr->rec->n; i++)
		s->fv[i] = rr->rec->f[i];
	lp_pack_row(s->w, src, rr->line, s->fv);
	if (!s->ordered)
		return 0;
	lp_trace_key(&s->lb, rr->rec);
	s->last.start = k.start;
	s->last.dur = k.dur;
	s->last.s = s->lb.s;
	s->last.len = s->lb.len;
	s->have = 1;
	return 0;
}

void
lp_pack_send(struct lp_pack_s *s)
{
	if (!s)
		return;
	lp_pack_wend(s->w);
	lp_sb_free(&s->lb);
	lp_sb_free(&s->b);
	free(s->fv);
	free(s);
}
