/*
 * lp-summary's tables: the rows of a TSV as a Markdown table, each number
 * written as its column's "# show:" says, the columns that are all "n/a"
 * said once, and the columns past a details page's budget named.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "esc.h"
#include "table.h"
#include "run.h"
#include "summary.h"

/* A details page's budget: at most this many columns in a rendered table;
 * the others stay in the TSV, named under the table. */
#define MAXCOLS 10

static int
listed(const char **list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return 1;
	return 0;
}

/* A column's definition ("# define: COLUMN: TEXT"), or NULL; only a
 * column named with [a-z0-9_], which makes its anchor. */
static const char *
define_of(const struct lp_tsv *t, const char *col)
{
	size_t j, n = strlen(col);

	if (!n || strspn(col, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return NULL;
	for (j = 0; j < t->ncomments; j++) {
		const char *c = t->comments[j];

		if (!strncmp(c, "define: ", 8) && !strncmp(c + 8, col, n) &&
		    !strncmp(c + 8 + n, ": ", 2))
			return c + 8 + n + 2;
	}
	return NULL;
}

/* Does the table link details.md (a brief's key numbers do)? */
static int
links_details(const struct lp_tsv *t)
{
	size_t j;

	for (j = 0; j < t->ncomments; j++)
		if (!strcmp(t->comments[j], "link: details.md"))
			return 1;
	return 0;
}

void
definitions(const struct lp_tsv *t, char **labels, size_t nl)
{
	struct lp_sb b = { 0 };
	const char *d;
	size_t i;

	for (i = 0; i < t->hdr.n; i++) {
		if (!(d = define_of(t, t->hdr.names[i])))
			continue;
		lp_sb_printf(&b, "- <a id=\"define-%s\"></a>**", t->hdr.names[i]);
		lp_md_inline(&b, i < nl && *labels[i] ? labels[i] :
		    t->hdr.names[i], 0);
		lp_sb_adds(&b, "**: ");
		lp_md_inline(&b, d, 0);
		fprintf(out, "%s\n", lp_sb_str(&b));
		lp_sb_reset(&b);
	}
	if (b.cap)
		putc_out('\n');
	lp_sb_free(&b);
}

static int
is_na(const char *s)
{
	return !strncmp(s, "n/a", 3);
}

/* A column said in one sentence: every cell "n/a", all with one reason
 * (or none): that reason; NULL for a column to show. */
static const char *
one_reason(char **cells, size_t nrows, size_t ncol, size_t i)
{
	const char *why = NULL;
	size_t r;

	if (nrows < 2)
		return NULL;
	for (r = 0; r < nrows; r++) {
		const char *c = cells[r * ncol + i];

		if (!is_na(c))
			return NULL;
		if (!strcmp(c, "n/a"))
			continue;
		if (why && strcmp(why, c))
			return NULL;
		why = c;
	}
	return why ? why : "n/a in every row";
}

/* The first reason of a table whose every shown number is n/a ("n/a"
 * where none says why); NULL where a number is shown or there is none. */
static const char *
all_na(char **cells, size_t nrows, size_t ncol, char **show)
{
	const char *why = NULL;
	size_t r, i, nnum = 0;

	for (i = 0; i < ncol; i++) {
		if (!strcmp(show[i], "hide") || !strcmp(show[i], "text") ||
		    !strcmp(show[i], "code"))
			continue;
		nnum++;
		for (r = 0; r < nrows; r++) {
			const char *c = cells[r * ncol + i];

			if (!is_na(c))
				return NULL;
			if (!why && strlen(c) > 3)
				why = c;
		}
	}
	return nnum && nrows ? (why ? why : "n/a in every row") : NULL;
}

/*
 * The rows as a Markdown table: the labels as headings, hidden columns
 * left out, text to the left and numbers to the right.  The rows are read
 * first (a table is small): a column whose every cell is "n/a ..." is said
 * once, as a sentence under the table; past MAXCOLS columns the rest are
 * named under it (they are in the TSV); a reason repeated in a row is
 * written once; a table whose numbers are all n/a is one line.
 */
void
table(const char *path, struct lp_tsv *t, char **labels, size_t nl,
    char **show)
{
	struct lp_sb b = { 0 }, left = { 0 }, nas = { 0 };
	int cu = lp_csv_col(&t->hdr, "unit");
	size_t i, r, nrows = 0, ncol = t->hdr.n, shown = 0, nnum = 0, nnumna = 0;
	char **cells = NULL, **units = NULL;
	const char **nawhy = NULL, **nalab = NULL;	/* all-n/a columns */
	size_t nna = 0, j, k, wide = 0;
	unsigned char *vis = lp_xmalloc(ncol ? ncol : 1);
	const char **keep = NULL, **key = NULL, *why1;
	size_t nkeep = 0, nkey = 0, reserve = 0;

	while (lp_tab_next(t)) {
		cells = lp_xreallocarray(cells, (nrows + 1) * ncol, sizeof *cells);
		units = lp_xreallocarray(units, nrows + 1, sizeof *units);
		for (i = 0; i < ncol; i++)
			cells[nrows * ncol + i] = lp_xstrdup(lp_tsv_get(t, (int)i));
		units[nrows++] = lp_xstrdup(cu >= 0 ? lp_tsv_get(t, cu) : "");
	}
	for (i = 0; i < ncol; i++)	/* more than MAXCOLS to show? */
		wide += strcmp(show[i], "hide") &&
		    !one_reason(cells, nrows, ncol, i);
	if (brief && dcfg) {	/* the brief's own columns, where conf has them */
		struct lp_sb kb = { 0 };

		lp_sb_printf(&kb, "brief.%s", lp_tsv_comment(t, "tool"));
		nkeep = lp_cfg_list(dcfg, lp_sb_str(&kb), &keep, dpath);
		lp_sb_free(&kb);
	} else if (wide > MAXCOLS && dcfg) {	/* the columns conf says, in order */
		struct lp_sb kb = { 0 };

		lp_sb_printf(&kb, "columns.%s", lp_tsv_comment(t, "tool"));
		nkeep = lp_cfg_list(dcfg, lp_sb_str(&kb), &keep, dpath);
		lp_sb_reset(&kb);
		/* and its key figures, which the budget never drops: a slot
		 * kept for each that will show */
		lp_sb_printf(&kb, "key.%s", lp_tsv_comment(t, "tool"));
		nkey = lp_cfg_list(dcfg, lp_sb_str(&kb), &key, dpath);
		lp_sb_free(&kb);
		for (i = 0; i < ncol; i++)
			reserve += listed(key, nkey, t->hdr.names[i]) &&
			    strcmp(show[i], "hide") && !one_reason(cells, nrows,
			    ncol, i);
	}
	for (i = 0; i < ncol; i++) {
		const char *lab = i < nl && *labels[i] ? labels[i] :
		    t->hdr.names[i];
		int num = strcmp(show[i], "text") && strcmp(show[i], "code");
		const char *why;

		vis[i] = 0;
		if (!strcmp(show[i], "hide"))
			continue;
		nnum += num;
		if ((why = one_reason(cells, nrows, ncol, i))) {
			nnumna += num;
			nawhy = lp_xreallocarray(nawhy, nna + 1, sizeof *nawhy);
			nalab = lp_xreallocarray(nalab, nna + 1, sizeof *nalab);
			nawhy[nna] = why;
			nalab[nna++] = lab;
			continue;
		}
		if (listed(key, nkey, t->hdr.names[i])) {
			vis[i] = 1;
			shown++;
			reserve--;
			continue;
		}
		if (nkeep && !listed(keep, nkeep, t->hdr.names[i])) {
			lp_sb_adds(&left, left.len ? ", " : "");
			lp_md_inline(&left, lab, 0);
			continue;
		}
		if (shown + reserve >= MAXCOLS) {
			lp_sb_adds(&left, left.len ? ", " : "");
			lp_md_inline(&left, lab, 0);
			continue;
		}
		vis[i] = 1;
		shown++;
	}
	/* the all-n/a columns, those of one reason together */
	for (j = 0; j < nna; j++) {
		for (k = 0; k < j && strcmp(nawhy[k], nawhy[j]); k++)
			;
		if (k < j)
			continue;	/* said with its first */
		lp_sb_adds(&nas, nas.len ? "; " : "");
		for (k = j; k < nna; k++)
			if (!strcmp(nawhy[k], nawhy[j])) {
				lp_sb_adds(&nas, k > j ? ", " : "");
				lp_md_inline(&nas, nalab[k], 0);
			}
		lp_sb_adds(&nas, ": ");
		lp_md_inline(&nas, nawhy[j], 0);
	}
	/* nothing measured: one line with the first reason given (a table
	 * whose columns are n/a each for one reason; in a brief, any table
	 * whose numbers are all n/a) */
	why1 = all_na(cells, nrows, ncol, show);
	if (why1 && (brief || (nrows > 1 && nnumna == nnum))) {
		lp_sb_reset(&b);
		lp_md_inline(&b, why1, 0);
		fprintf(out, "No numbers: %s.\n\n", lp_sb_str(&b));
		goto done;
	}
	fputs("|", out);
	for (i = 0; i < ncol; i++)
		if (vis[i]) {
			/* a brief's key number links to its definition */
			int def = brief && links_details(t) && define_of(t,
			    t->hdr.names[i]);

			lp_sb_adds(&b, def ? " [" : " ");
			lp_md_inline(&b, i < nl && *labels[i] ? labels[i] :
			    t->hdr.names[i], 1);
			if (def)
				lp_sb_printf(&b, "](details.md#define-%s)",
				    t->hdr.names[i]);
			lp_sb_adds(&b, " |");
		}
	fprintf(out, "%s\n", lp_sb_str(&b));
	lp_sb_reset(&b);
	fputs("|", out);
	for (i = 0; i < ncol; i++)
		if (vis[i])
			fputs(!strcmp(show[i], "text") || !strcmp(show[i],
			    "code") ? ":---|" : "---:|", out);
	putc_out('\n');
	for (r = 0; r < nrows; r++) {
		const char *said = NULL;	/* the row's reason, once */

		lp_sb_adds(&b, "|");
		for (i = 0; i < ncol; i++) {
			const char *c = cells[r * ncol + i];

			if (!vis[i])
				continue;
			lp_sb_addc(&b, ' ');
			if (is_na(c) && strlen(c) > 3 && said &&
			    !strcmp(c, said))
				lp_sb_adds(&b, "n/a (as before)");
			else
				lp_md_cell(&b, show[i], c, units[r]);
			if (is_na(c) && strlen(c) > 3 && !said)
				said = c;
			lp_sb_adds(&b, " |");
		}
		fprintf(out, "%s\n", lp_sb_str(&b));
		lp_sb_reset(&b);
	}
	putc_out('\n');
	if (nas.len)
		fprintf(out, "Not in the table: %s.\n\n", lp_sb_str(&nas));
	if (left.len && !(brief && nkeep)) {	/* a brief's chosen few: no list */
		fprintf(out, "More columns in ");
		lp_sb_reset(&b);
		lp_md_code(&b, base(path), 0);
		fprintf(out, "%s: %s.\n\n", lp_sb_str(&b), lp_sb_str(&left));
	}
done:
	for (r = 0; r < nrows; r++) {
		for (i = 0; i < ncol; i++)
			free(cells[r * ncol + i]);
		free(units[r]);
	}
	free(cells);
	free(units);
	free(vis);
	free(nawhy);
	free(nalab);
	free(keep);
	free(key);
	lp_sb_free(&b);
	lp_sb_free(&left);
	lp_sb_free(&nas);
}
