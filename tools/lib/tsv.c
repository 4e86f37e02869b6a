/*
 * lp's own tab-separated files: optional "# ..." provenance lines, a header
 * line, then rows.  A field's tab, newline, carriage return and backslash
 * are written as \t \n \r \\, so any kernel name survives a round trip.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"

void
lp_tsv_field(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\t': fputs("\\t", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\r': fputs("\\r", fp); break;
		case '\\': fputs("\\\\", fp); break;
		default: fputc(*s, fp);
		}
	}
}

static void
unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			*d++ = *s;
			continue;
		}
		switch (*++s) {
		case 't': *d++ = '\t'; break;
		case 'n': *d++ = '\n'; break;
		case 'r': *d++ = '\r'; break;
		default: *d++ = *s;
		}
	}
	*d = '\0';
}

/* Reads the next line into t->buf without its newline; 0 at end. */
static int
readline(struct lp_tsv *t)
{
	ssize_t n = lp_getline(&t->buf, &t->cap, t->fp);

	if (n == -1) {
		if (ferror(t->fp))
			lp_die_sys("%s", t->file);
		return 0;
	}
	t->line++;
	if (memchr(t->buf, '\0', (size_t)n))
		lp_die_at(LP_EXIT_DATA, t->file, t->line, 0,
		    "binary data (NUL byte): not a TSV file");
	if (n > LP_LINE_MAX)
		lp_die_at(LP_EXIT_DATA, t->file, t->line, 0, "a line of %zd "
		    "bytes: beyond %d MiB, not an lp table", n, LP_LINE_MAX >> 20);
	/* lp ends every line of its tables: one without is a cut file */
	if (!n || t->buf[n - 1] != '\n')
		lp_die_at(LP_EXIT_DATA, t->file, t->line, 0, "the last line has "
		    "no newline: a cut-off table");
	if (n && t->buf[n - 1] == '\n')
		t->buf[--n] = '\0';
	if (n && t->buf[n - 1] == '\r')
		t->buf[--n] = '\0';
	return 1;
}

static void
split(struct lp_tsv *t)
{
	char *p = t->buf;

	t->n = 0;
	for (;;) {
		char *tab = strchr(p, '\t');

		t->f = lp_grow(t->f, t->n, &t->fcap, 32, sizeof *t->f);
		t->f[t->n++] = p;
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	for (size_t i = 0; i < t->n; i++)
		unescape(t->f[i]);
}

void
lp_tsv_open(struct lp_tsv *t, FILE *fp, const char *file)
{
	struct lp_csv_rec r;
	size_t i, j;

	memset(t, 0, sizeof *t);
	t->fp = fp;
	t->file = file;
	for (;;) {
		if (!readline(t))
			lp_die_at(LP_EXIT_DATA, file, t->line, 0,
			    t->line ? "no header line" : "empty input");
		if (t->buf[0] != '#')
			break;
		t->comments = lp_xreallocarray(t->comments, t->ncomments + 1,
		    sizeof *t->comments);
		t->comments[t->ncomments++] = lp_xstrdup(t->buf + 1 +
		    (t->buf[1] == ' '));
	}
	split(t);
	r.n = t->n;
	r.f = t->f;
	r.line = t->line;
	lp_csv_hdr_init(&t->hdr, &r, file);
	/* lp names each column of its tables once */
	for (i = 0; i < t->hdr.n; i++)
		for (j = i + 1; j < t->hdr.n; j++)
			if (!strcmp(t->hdr.names[i], t->hdr.names[j]))
				lp_die_at(LP_EXIT_DATA, file, t->line, (long)j + 1,
				    "column \"%s\" appears twice (columns %zu "
				    "and %zu)", t->hdr.names[j], i + 1, j + 1);
}

int
lp_tsv_next(struct lp_tsv *t)
{
	do {
		if (!readline(t))
			return 0;
	} while (!t->buf[0]);
	split(t);
	lp_csv_width(&t->hdr, t->n, t->line);
	return 1;
}

const char *
lp_tsv_get(const struct lp_tsv *t, int col)
{
	return col >= 0 && (size_t)col < t->n ? t->f[col] : "";
}

const char *
lp_tsv_comment(const struct lp_tsv *t, const char *key)
{
	size_t i, n = strlen(key);

	for (i = 0; i < t->ncomments; i++)
		if (!strncmp(t->comments[i], key, n) && t->comments[i][n] == ':')
			return t->comments[i] + n + 1 + (t->comments[i][n + 1] == ' ');
	return NULL;
}

void
lp_tsv_close(struct lp_tsv *t)
{
	size_t i;

	for (i = 0; i < t->ncomments; i++)
		free(t->comments[i]);
	free(t->comments);
	free(t->buf);
	free(t->f);
	free(t->key);
	free(t->keynames);
	lp_map_free(t->seen);
	lp_sb_free(&t->kb);
	lp_csv_hdr_free(&t->hdr);
}
