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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"

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
	if (!isfinite(v)) {
		lp_row_na(r, "the arithmetic gave %g (a zero or missing input)",
		    v);
		return;
	}
	sep(r);
	lp_fmt_num(&r->b, v, decimals);
}

void
lp_row_share(struct lp_row *r, double part, double whole, const char *why)
{
	if (whole > 0)
		lp_row_g(r, 100 * part / whole);
	else
		lp_row_na(r, "%s", why);
}

void
lp_row_g(struct lp_row *r, double v)
{
	char s[LP_EXACT_MAX];

	if (!isfinite(v)) {
		lp_row_na(r, "the arithmetic gave %g (a zero or missing input)",
		    v);
		return;
	}
	sep(r);
	lp_sb_adds(&r->b, lp_fmt_exact(v, s));
}

int
lp_row_pct(struct lp_row *r, double v, double max, const char *what,
    const char *cause, ...)
{
	struct lp_sb b = { 0 };
	va_list ap;

	if (!(v > max) || !isfinite(v)) {
		lp_row_g(r, v);
		return 0;
	}
	va_start(ap, cause);
	lp_sb_vprintf(&b, cause, ap);
	va_end(ap);
	lp_row_na(r, "%s would be %.0f %%, beyond %.0f %%: %s", what, v, max,
	    lp_sb_str(&b));
	lp_sb_free(&b);
	return 1;
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

void
lp_row_end_na(struct lp_row *r, size_t ncols, FILE *fp)
{
	while (r->n < ncols)
		lp_row_text(r, "n/a");
	lp_row_end(r, fp);
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

/*
 * What a column of an lp table may hold, by its name, lp's naming being
 * one convention across the tables: counts are whole, throughput shares
 * are percentages of a peak, differences may be negative, everything
 * else (times in ns, bytes, FLOPs, rates, ratios) is from 0 up.
 */
enum { K_ANY, K_NONNEG, K_COUNT, K_PCT, K_BUSY };

static int
ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static int
kind_of(const char *name)
{
	static const char *const counts[] = { "calls", "launches", "instances",
		"instance", "kernels", "rank", "depth", "gpu_ops", NULL };
	static const char *const pcts[] = { "sm_pct", "dram_pct", "share_pct",
		"roof_pct", "pct", NULL };
	size_t i;

	if (!strncmp(name, "change", 6) || strstr(name, "_change") ||
	    !strcmp(name, "ratio"))
		return K_ANY;
	for (i = 0; counts[i]; i++)
		if (!strcmp(name, counts[i]))
			return K_COUNT;
	if (ends(name, "_calls") || ends(name, "_launches") ||
	    ends(name, "_instances"))
		return K_COUNT;
	for (i = 0; pcts[i]; i++)
		if (!strcmp(name, pcts[i]))
			return K_PCT;
	if (ends(name, "throughput_pct") || ends(name, "_share_pct") ||
	    ends(name, "_sm_pct") || ends(name, "_dram_pct"))
		return K_PCT;
	/* kernel time over wall time passes 100% only with kernels that
	 * run at once, at most 128 on any GPU lp knows */
	if (!strcmp(name, "busy_pct"))
		return K_BUSY;
	return K_NONNEG;
}

int
lp_tab_numval(const char *file, long line, const char *col, int colno,
    const char *s, double *v)
{
	const char *why = NULL;
	int k = kind_of(col);

	if (!*s || !strcmp(s, "-") || !strncmp(s, "n/a", 3) ||
	    !strncmp(s, "N/A", 3))
		return 0;
	if (!lp_num_get(s, v))
		lp_die_at(LP_EXIT_DATA, file, line, colno + 1, "%s: expected a "
		    "number or \"n/a ...\", got \"%s\"", col, s);
	switch (k) {
	case K_COUNT: why = lp_num_bad(LP_DIM_COUNT, *v, 1); break;
	case K_PCT: why = lp_num_bad(LP_DIM_PCT, *v, 0); break;
	case K_BUSY:
		why = lp_num_bad(LP_DIM_BYTES, *v, 0);
		if (!why && *v > 12800)
			why = "GPU busy above 128 x 100%";
		break;
	case K_NONNEG: why = lp_num_bad(LP_DIM_BYTES, *v, 0); break;
	default:
		if (fabs(*v) > 1e18)
			why = "beyond 1e18, more than any run holds";
	}
	if (why)
		lp_die_at(LP_EXIT_DATA, file, line, colno + 1, "%s: %s: \"%s\"",
		    col, why, s);
	return 1;
}

/*
 * Cells of one row of an lp table that must agree, by column name: a count
 * of 0 with a time above 0 (kernels.tsv's calls and total_ns, ...), and a
 * mean that is not the total over the count (printed to 0.1).  A row that
 * breaks them was edited or mixed from two runs.
 */
void
lp_tab_agree(const struct lp_tsv *t)
{
	static const char *const pairs[][3] = {
		{ "calls", "total_ns", "avg_ns" },
		{ "calls", "total_ns", "mean_ns" },
		{ "ncu_launches", "ncu_time_ns", "ncu_ns_per_launch" },
		{ "launches", "gpu_time_ns", NULL },
		{ "launches", "time_ns", NULL },
		{ "launches", "kernel_ns", NULL },
		{ "kernels", "busy_ns", NULL },
		{ "instances", "wall_total_ns", "wall_mean_ns" },
		{ "instances", "gpu_ns", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		int cn = lp_csv_col(&t->hdr, pairs[i][0]);
		int ct = lp_csv_col(&t->hdr, pairs[i][1]);
		int cm = pairs[i][2] ? lp_csv_col(&t->hdr, pairs[i][2]) : -1;
		double n, tm, m;

		/* not there, or bad on its own: refused where read, by name */
		if (cn < 0 || ct < 0 || !lp_num_get(lp_tsv_get(t, cn), &n) ||
		    !lp_num_get(lp_tsv_get(t, ct), &tm) ||
		    lp_num_bad(LP_DIM_COUNT, n, 1) ||
		    lp_num_bad(LP_DIM_TIME, tm, 0))
			continue;
		if (n == 0 && tm > 0)
			lp_die_at(LP_EXIT_DATA, t->file, t->line, cn + 1, "%s: 0, "
			    "but %s is %s: a time without a %s (an edited or "
			    "mixed table)", pairs[i][0], pairs[i][1],
			    lp_tsv_get(t, ct), pairs[i][0]);
		if (cm >= 0 && n >= 1 && lp_num_get(lp_tsv_get(t, cm), &m) &&
		    !lp_num_bad(LP_DIM_TIME, m, 0) &&
		    fabs(m * n - tm) > 0.06 * n + 1)
			lp_die_at(LP_EXIT_DATA, t->file, t->line, cm + 1, "%s: %s, "
			    "but %s / %s is %.1f (an edited or mixed table)",
			    pairs[i][2], lp_tsv_get(t, cm), pairs[i][1],
			    pairs[i][0], tm / n);
	}
}

int
lp_tab_num(const struct lp_tsv *t, int col, double *v)
{
	if (col < 0 || (size_t)col >= t->hdr.n)
		return 0;
	return lp_tab_numval(t->file, t->line, t->hdr.names[col], col,
	    lp_tsv_get(t, col), v);
}

/* Every cell of the current row that its "# show:" kind makes a number
 * is one (checked by lp_tab_num) or says n/a; one shown as a whole number
 * ("int": calls, CTAs, passes, runs) is one, whatever its name. */
void
lp_tab_check_row(const struct lp_tsv *t)
{
	static const char *const text[] = { "text", "code", "hide", NULL };
	const char *show = lp_tsv_comment(t, "show"), *p, *why;
	size_t i = 0, k, n;
	double v;

	for (p = show; p && *p && i < t->n; i++) {
		n = strcspn(p, "\t");
		for (k = 0; text[k]; k++)
			if (strlen(text[k]) == n && !strncmp(p, text[k], n))
				break;
		if (!text[k] && lp_tab_num(t, (int)i, &v) && n == 3 &&
		    !strncmp(p, "int", 3) && kind_of(t->hdr.names[i]) != K_ANY &&
		    (why = lp_num_bad(LP_DIM_COUNT, v, 1)))
			lp_die_at(LP_EXIT_DATA, t->file, t->line, (long)i + 1,
			    "%s: %s: \"%s\"", t->hdr.names[i], why,
			    lp_tsv_get(t, (int)i));
		p += n + (p[n] == '\t');
	}
}

void
lp_tab_expect(const struct lp_tsv *t, const char *tool)
{
	const char *got = lp_tsv_comment(t, "tool");

	if (!got || strcmp(got, tool))
		lp_die_at(LP_EXIT_DATA, t->file, t->hdr.line, 0, "not a table "
		    "of %s (%s)", tool, got ? "its \"# tool:\" line names "
		    "another" : "no \"# tool:\" line");
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

void
lp_tab_key(struct lp_tsv *t, const char *cols)
{
	struct lp_sb names = { 0 };
	const char *p = cols;
	size_t n;
	int c;

	free(t->key);
	t->key = NULL;
	t->nkey = 0;
	for (p += strspn(p, " "); *p; p += strspn(p, " ")) {
		char *name = lp_xstrndup(p, n = strcspn(p, " "));

		if ((c = lp_csv_col(&t->hdr, name)) < 0)
			lp_die_at(LP_EXIT_DATA, t->file, t->hdr.line, 0, "no column "
			    "\"%s\", which names its rows (key: %s)", name, cols);
		t->key = lp_xreallocarray(t->key, t->nkey + 1, sizeof *t->key);
		t->key[t->nkey++] = c;
		lp_sb_printf(&names, "%s%s", t->nkey == 1 ? "" :
		    p[n + strspn(p + n, " ")] ? ", " : " and ", name);
		free(name);
		p += n;
	}
	if (!t->nkey)
		lp_die_at(LP_EXIT_DATA, t->file, t->hdr.line, 0, "a \"# key:\" "
		    "line without columns");
	free(t->keynames);
	t->keynames = lp_sb_steal(&names);
	if (!t->seen)
		t->seen = lp_map_new();
}

/* A row whose key an earlier row had: the table was edited or two were
 * mixed, and a reader would count the thing it names twice. */
static void
key_check(struct lp_tsv *t)
{
	struct lp_sb what = { 0 };
	long first;
	size_t i;

	if (!t->nkey)
		return;
	lp_sb_reset(&t->kb);
	for (i = 0; i < t->nkey; i++) {
		lp_sb_adds(&t->kb, lp_tsv_get(t, t->key[i]));
		lp_sb_addc(&t->kb, '\x1f');
	}
	if ((first = lp_map_get(t->seen, lp_sb_str(&t->kb), 0)) > 0) {
		for (i = 0; i < t->nkey; i++)
			lp_sb_printf(&what, "%s%s \"%s\"", i ? ", " : "",
			    t->hdr.names[t->key[i]], lp_tsv_get(t, t->key[i]));
		lp_die_at(LP_EXIT_DATA, t->file, t->line, t->key[0] + 1, "a "
		    "second row for %s (the first is line %ld): the table has "
		    "one row per %s (an edited or mixed table)", lp_sb_str(&what),
		    first, t->keynames);
	}
	lp_map_put(t->seen, lp_sb_str(&t->kb), t->line);
}

int
lp_tab_next(struct lp_tsv *t)
{
	if (!t->started) {	/* the writer's "# key:", unless the reader set one */
		t->started = 1;
		if (!t->nkey && lp_tsv_comment(t, "key"))
			lp_tab_key(t, lp_tsv_comment(t, "key"));
	}
	if (!lp_tsv_next(t))
		return 0;
	lp_tab_check_row(t);
	lp_tab_agree(t);
	key_check(t);
	return 1;
}
