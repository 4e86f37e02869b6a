/*
 * lp's table artifacts.  Each is a TSV (tsv.c) whose comment lines say what
 * it is and where its numbers come from:
 *   # title: Per-Stage Timings          the section lp-summary gives it
 *   # tool: lp-stages                   who made it
 *   # source: nsys nvtx_sum (...)       which report, which range
 *   # note: ...                         a sentence shown under the table
 *   # labels: Stage<TAB>NVTX range...   column headings for people
 *   # show: text<TAB>code<TAB>ms...     how lp-summary shows each column
 * then a header of column names and one row per table row.  Numbers are in
 * base units (ns, byte, FLOP, per second, percent); a value that cannot be
 * computed is the text "n/a because ...", never 0.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lp.h"

static void
oneline(FILE *fp, const char *s)
{
	for (; *s; s++)
		putc(*s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s, fp);
}

void
lp_tab_meta(FILE *fp, const char *key, const char *fmt, ...)
{
	struct lp_sb b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	lp_sb_vprintf(&b, fmt, ap);
	va_end(ap);
	fprintf(fp, "# %s: ", key);
	oneline(fp, lp_sb_str(&b));
	putc('\n', fp);
	lp_sb_free(&b);
}

void
lp_tab_header(FILE *fp, const struct lp_col *cols, size_t n)
{
	size_t i;

	fputs("# labels: ", fp);
	for (i = 0; i < n; i++) {
		if (i)
			putc('\t', fp);
		oneline(fp, cols[i].label);
	}
	fputs("\n# show: ", fp);
	for (i = 0; i < n; i++)
		fprintf(fp, "%s%s", i ? "\t" : "", cols[i].show);
	putc('\n', fp);
	for (i = 0; i < n; i++)
		fprintf(fp, "%s%s", i ? "\t" : "", cols[i].name);
	putc('\n', fp);
}

static void
sep(struct lp_row *r)
{
	if (r->n++)
		lp_sb_addc(&r->b, '\t');
}

void
lp_row_text(struct lp_row *r, const char *s)
{
	sep(r);
	for (; *s; s++)
		switch (*s) {
		case '\t': lp_sb_adds(&r->b, "\\t"); break;
		case '\n': lp_sb_adds(&r->b, "\\n"); break;
		case '\r': lp_sb_adds(&r->b, "\\r"); break;
		case '\\': lp_sb_adds(&r->b, "\\\\"); break;
		default: lp_sb_addc(&r->b, *s);
		}
}

void
lp_row_num(struct lp_row *r, double v, int decimals)
{
	sep(r);
	lp_fmt_num(&r->b, v, decimals);
}

void
lp_row_g(struct lp_row *r, double v)
{
	sep(r);
	lp_sb_printf(&r->b, "%.4g", v);
}

void
lp_row_na(struct lp_row *r, const char *fmt, ...)
{
	struct lp_sb b = { 0 };
	va_list ap;

	lp_sb_adds(&b, "n/a because ");
	va_start(ap, fmt);
	lp_sb_vprintf(&b, fmt, ap);
	va_end(ap);
	lp_row_text(r, lp_sb_str(&b));
	lp_sb_free(&b);
}

void
lp_row_end(struct lp_row *r, FILE *fp)
{
	fputs(lp_sb_str(&r->b), fp);
	putc('\n', fp);
	lp_sb_reset(&r->b);
	r->n = 0;
}

FILE *
lp_tab_open(struct lp_tsv *t, const char *path, const char *maker)
{
	FILE *fp = fopen(path, "r");

	if (!fp)
		lp_die_sys("%s (make it first: %s)", path, maker);
	lp_tsv_open(t, fp, path);
	return fp;
}

int
lp_tab_num(const struct lp_tsv *t, int col, double *v)
{
	return lp_num_get(lp_tsv_get(t, col), v);
}

/*
 * What a table tool writes goes to memory first and reaches stdout only
 * when the whole table is made: bad input found half-way leaves nothing
 * on stdout, not half a table.
 */
static char *outbuf;
static size_t outlen;

FILE *
lp_tab_out(void)
{
	FILE *fp = open_memstream(&outbuf, &outlen);

	if (!fp)
		lp_die_sys("open_memstream");
	return fp;
}

void
lp_tab_done(FILE *out)
{
	if (fclose(out))
		lp_die_sys("<stdout>");
	if (outlen && fwrite(outbuf, 1, outlen, stdout) != outlen)
		lp_die_sys("<stdout>");
	free(outbuf);
	outbuf = NULL;
	outlen = 0;
	lp_close_stdout();
}
