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

/* A column's heading: its label, else its name. */
static const char *
label(const struct lp_tsv *t, char **labels, size_t nl, size_t i)
{
	return i < nl && *labels[i] ? labels[i] : t->hdr.names[i];
}

void
table_definitions(const struct sum *s, const struct lp_tsv *t, char **labels,
    size_t nl)
{
	struct lp_sb b = { 0 };
	const char *d;
	size_t i;

	for (i = 0; i < t->hdr.n; i++) {
		if (!(d = define_of(t, t->hdr.names[i])))
			continue;
		lp_sb_printf(&b, "- <a id=\"define-%s\"></a>**", t->hdr.names[i]);
		lp_md_inline(&b, label(t, labels, nl, i), 0);
		lp_sb_adds(&b, "**: ");
		lp_md_inline(&b, d, 0);
		fprintf(s->out, "%s\n", lp_sb_str(&b));
		lp_sb_reset(&b);
	}
	if (b.cap)
		fputc('\n', s->out);
	lp_sb_free(&b);
}

/* A table being written: its rows, read first (a table is small), and
 * the columns chosen to show. */
struct grid {
	char **cells, **units;	/* nrows x ncol cells; each row's unit */
	size_t nrows, ncol;
	unsigned char *vis;	/* the columns shown */
	const char **nawhy, **nalab;	/* all-n/a columns */
	size_t nna, nnum, nnumna;
	const char **keep, **key;	/* conf's columns and key figures */
	size_t nkeep, nkey, reserve;
	struct lp_sb left, nas;	/* the columns left out, the all-n/a ones */
};

static int
is_na(const char *s)
{
	return !strncmp(s, "n/a", 3);
}

/* A column said in one sentence: every cell "n/a", all with one reason
 * (or none): that reason; NULL for a column to show. */
static const char *
one_reason(const struct grid *g, size_t i)
{
	const char *why = NULL;
	size_t r;

	if (g->nrows < 2)
		return NULL;
	for (r = 0; r < g->nrows; r++) {
		const char *c = g->cells[r * g->ncol + i];

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
all_na(const struct grid *g, char **show)
{
	const char *why = NULL;
	size_t r, i, nnum = 0;

	for (i = 0; i < g->ncol; i++) {
		if (!strcmp(show[i], "hide") || !strcmp(show[i], "text") ||
		    !strcmp(show[i], "code"))
			continue;
		nnum++;
		for (r = 0; r < g->nrows; r++) {
			const char *c = g->cells[r * g->ncol + i];

			if (!is_na(c))
				return NULL;
			if (!why && strlen(c) > 3)
				why = c;
		}
	}
	return nnum && g->nrows ? (why ? why : "n/a in every row") : NULL;
}

static void
grid_read(struct grid *g, struct lp_tsv *t)
{
	int cu = lp_csv_col(&t->hdr, "unit");
	size_t i, r, n = g->ncol = t->hdr.n;

	g->vis = lp_xmalloc(n ? n : 1);
	for (r = 0; lp_tab_next(t); g->nrows = ++r) {
		g->cells = lp_xreallocarray(g->cells, (r + 1) * n, sizeof(char *));
		g->units = lp_xreallocarray(g->units, r + 1, sizeof(char *));
		for (i = 0; i < n; i++)
			g->cells[r * n + i] = lp_xstrdup(lp_tsv_get(t, (int)i));
		g->units[r] = lp_xstrdup(cu >= 0 ? lp_tsv_get(t, cu) : "");
	}
}

static void
grid_free(struct grid *g)
{
	size_t r, i;

	for (r = 0; r < g->nrows; r++) {
		for (i = 0; i < g->ncol; i++)
			free(g->cells[r * g->ncol + i]);
		free(g->units[r]);
	}
	free(g->cells);
	free(g->units);
	free(g->vis);
	free(g->nawhy);
	free(g->nalab);
	free(g->keep);
	free(g->key);
	lp_sb_free(&g->left);
	lp_sb_free(&g->nas);
}

/* -c's list PREFIX.TOOL, the columns it names (none without one). */
static size_t
conf_list(const struct sum *s, const char *prefix, const struct lp_tsv *t,
    const char ***list)
{
	struct lp_sb kb = { 0 };
	size_t n;

	lp_sb_printf(&kb, "%s.%s", prefix, lp_tsv_comment(t, "tool"));
	n = lp_cfg_list(s->dcfg, lp_sb_str(&kb), list, s->dpath);
	lp_sb_free(&kb);
	return n;
}

/* The columns conf (-c) chooses: a brief's own, or those of a table past
 * MAXCOLS with its key figures. */
static void
grid_conf(const struct sum *s, struct grid *g, const struct lp_tsv *t,
    char **show)
{
	size_t i, wide = 0;

	for (i = 0; i < g->ncol; i++)	/* more than MAXCOLS to show? */
		wide += strcmp(show[i], "hide") && !one_reason(g, i);
	if (s->brief && s->dcfg)	/* the brief's own columns, where conf has them */
		g->nkeep = conf_list(s, "brief", t, &g->keep);
	else if (wide > MAXCOLS && s->dcfg) {	/* the columns conf says, in order */
		g->nkeep = conf_list(s, "columns", t, &g->keep);
		/* and its key figures, which the budget never drops: a slot
		 * kept for each that will show */
		g->nkey = conf_list(s, "key", t, &g->key);
		for (i = 0; i < g->ncol; i++)
			g->reserve += listed(g->key, g->nkey, t->hdr.names[i]) &&
			    strcmp(show[i], "hide") && !one_reason(g, i);
	}
}

/* Which columns show: the key figures, conf's columns, the rest while
 * the budget lasts; the all-n/a ones are kept for a sentence. */
static void
grid_choose(struct grid *g, const struct lp_tsv *t, char **labels, size_t nl,
    char **show)
{
	size_t i, shown = 0;

	for (i = 0; i < g->ncol; i++) {
		const char *lab = label(t, labels, nl, i);
		int num = strcmp(show[i], "text") && strcmp(show[i], "code");
		const char *why;

		g->vis[i] = 0;
		if (!strcmp(show[i], "hide"))
			continue;
		g->nnum += num;
		if ((why = one_reason(g, i))) {
			g->nnumna += num;
			g->nawhy = lp_xreallocarray(g->nawhy, g->nna + 1,
			    sizeof *g->nawhy);
			g->nalab = lp_xreallocarray(g->nalab, g->nna + 1,
			    sizeof *g->nalab);
			g->nawhy[g->nna] = why;
			g->nalab[g->nna++] = lab;
			continue;
		}
		if (listed(g->key, g->nkey, t->hdr.names[i])) {
			g->reserve--;
		} else if ((g->nkeep && !listed(g->keep, g->nkeep,
		    t->hdr.names[i])) || shown + g->reserve >= MAXCOLS) {
			lp_sb_adds(&g->left, g->left.len ? ", " : "");
			lp_md_inline(&g->left, lab, 0);
			continue;
		}
		g->vis[i] = 1;
		shown++;
	}
}

/* The all-n/a columns, those of one reason together. */
static void
grid_nas(struct grid *g)
{
	size_t j, k;

	for (j = 0; j < g->nna; j++) {
		for (k = 0; k < j && strcmp(g->nawhy[k], g->nawhy[j]); k++)
			;
		if (k < j)
			continue;	/* said with its first */
		lp_sb_adds(&g->nas, g->nas.len ? "; " : "");
		for (k = j; k < g->nna; k++)
			if (!strcmp(g->nawhy[k], g->nawhy[j])) {
				lp_sb_adds(&g->nas, k > j ? ", " : "");
				lp_md_inline(&g->nas, g->nalab[k], 0);
			}
		lp_sb_adds(&g->nas, ": ");
		lp_md_inline(&g->nas, g->nawhy[j], 0);
	}
}

/* The shown columns: the heading row, the alignment row under it, and
 * the rows, a reason repeated in a row written once. */
static void
grid_write(const struct sum *s, const struct grid *g, const struct lp_tsv *t,
    char **labels, size_t nl, char **show)
{
	struct lp_sb b = { 0 };
	size_t i, r;

	fputs("|", s->out);
	for (i = 0; i < g->ncol; i++)
		if (g->vis[i]) {
			/* a brief's key number links to its definition */
			int def = s->brief && links_details(t) && define_of(t,
			    t->hdr.names[i]);

			lp_sb_adds(&b, def ? " [" : " ");
			lp_md_inline(&b, label(t, labels, nl, i), 1);
			if (def)
				lp_sb_printf(&b, "](details.md#define-%s)",
				    t->hdr.names[i]);
			lp_sb_adds(&b, " |");
		}
	fprintf(s->out, "%s\n", lp_sb_str(&b));
	lp_sb_reset(&b);
	fputs("|", s->out);
	for (i = 0; i < g->ncol; i++)
		if (g->vis[i])
			fputs(!strcmp(show[i], "text") || !strcmp(show[i],
			    "code") ? ":---|" : "---:|", s->out);
	fputc('\n', s->out);
	for (r = 0; r < g->nrows; r++) {
		const char *said = NULL;	/* the row's reason, once */

		lp_sb_adds(&b, "|");
		for (i = 0; i < g->ncol; i++) {
			const char *c = g->cells[r * g->ncol + i];

			if (!g->vis[i])
				continue;
			lp_sb_addc(&b, ' ');
			if (is_na(c) && strlen(c) > 3 && said &&
			    !strcmp(c, said))
				lp_sb_adds(&b, "n/a (as before)");
			else
				lp_md_cell(&b, show[i], c, g->units[r]);
			if (is_na(c) && strlen(c) > 3 && !said)
				said = c;
			lp_sb_adds(&b, " |");
		}
		fprintf(s->out, "%s\n", lp_sb_str(&b));
		lp_sb_reset(&b);
	}
	fputc('\n', s->out);
	lp_sb_free(&b);
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
table(const struct sum *s, const char *path, struct lp_tsv *t, char **labels,
    size_t nl, char **show)
{
	struct lp_sb b = { 0 };
	struct grid g = { 0 };
	const char *why1;

	grid_read(&g, t);
	grid_conf(s, &g, t, show);
	grid_choose(&g, t, labels, nl, show);
	grid_nas(&g);
	/* nothing measured: one line with the first reason given (a table
	 * whose columns are n/a each for one reason; in a brief, any table
	 * whose numbers are all n/a) */
	why1 = all_na(&g, show);
	if (why1 && (s->brief || (g.nrows > 1 && g.nnumna == g.nnum))) {
		lp_md_inline(&b, why1, 0);
		fprintf(s->out, "No numbers: %s.\n\n", lp_sb_str(&b));
	} else {
		grid_write(s, &g, t, labels, nl, show);
		if (g.nas.len)
			fprintf(s->out, "Not in the table: %s.\n\n",
			    lp_sb_str(&g.nas));
		/* a brief's chosen few: no list */
		if (g.left.len && !(s->brief && g.nkeep)) {
			fprintf(s->out, "More columns in ");
			sum_file(&b, path);
			fprintf(s->out, "%s: %s.\n\n", lp_sb_str(&b),
			    lp_sb_str(&g.left));
		}
	}
	grid_free(&g);
	lp_sb_free(&b);
}
