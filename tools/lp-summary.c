/*
 * lp-summary: stakeholder_summary.md from the run's table artifacts.  It
 * computes nothing: each TSV (tab.c) becomes a section, its "# title:" the
 * heading, its "# source:" and "# note:" lines the text around the table,
 * its "# labels:" the column headings, and its "# show:" how each number is
 * written (lp-summary(1)).  A cell that is not a number is shown as it is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"
#include "run.h"

static const char synopsis[] =
    "lp-summary [-c details.yaml] [-t title] file.tsv...";

static FILE *out;	/* the document, written out when whole (lp_tab_out) */
static int brief;	/* a brief (lp-brief's verdict): one screen, short headings */
static struct lp_ynode *dcfg;	/* -c: the columns of a wide table, by tool */
static struct lp_sb floats;	/* a brief's images, until its list */
static const char *dpath;
#define putc_out(c) fputc((c), out)

/* 1.23 GFLOP, 4.5 TB/s: three significant digits and an SI prefix. */
static void
si(struct lp_sb *b, double v, const char *unit)
{
	static const char *const p[] = { "", "k", "M", "G", "T", "P", "E" };
	int i = 0;

	while (fabs(v) >= 1000 && i < 6) {
		v /= 1000;
		i++;
	}
	lp_sb_printf(b, "%.3g %s%s", v, p[i], unit);
}

static void
cell(struct lp_sb *b, const char *show, const char *s, const char *unit)
{
	double v;

	if (!lp_num_get(s, &v) || !strcmp(show, "text") || !strcmp(show, "code")) {
		if (!strcmp(show, "code") && *s && strncmp(s, "n/a", 3))
			lp_md_code(b, s, 1);
		else
			lp_md_inline(b, *s ? s : "-", 1);
		return;
	}
	if (!strcmp(show, "int"))
		lp_fmt_num(b, v, 0);
	else if (!strcmp(show, "ms"))
		lp_fmt_num(b, v / 1e6, 3);
	else if (!strcmp(show, "us"))
		lp_fmt_us(b, v);
	else if (!strcmp(show, "pct"))
		lp_fmt_pct(b, v);
	else if (!strcmp(show, "x"))
		lp_sb_printf(b, "%.3gx", v);
	else if (!strcmp(show, "num1"))
		lp_fmt_num(b, v, 1);
	else if (!strcmp(show, "num2"))
		lp_fmt_num(b, v, 2);
	else if (!strcmp(show, "flop"))
		si(b, v, "FLOP");
	else if (!strcmp(show, "flops"))
		si(b, v, "FLOP/s");
	else if (!strcmp(show, "bytes"))
		si(b, v, "B");
	else if (!strcmp(show, "Bps"))
		si(b, v, "B/s");
	else if (!strcmp(show, "si"))
		si(b, v, unit);
	else if (!strcmp(show, "q") && !strcmp(unit, "ns"))
		lp_fmt_time(b, v);
	else if (!strcmp(show, "q") && !strcmp(unit, "count"))
		lp_fmt_num(b, v, v == floor(v) ? 0 : 1);
	else if (!strcmp(show, "q") && !strcmp(unit, "pct"))
		lp_fmt_pct(b, v);
	else if (!strcmp(show, "q") && *unit)
		lp_sb_printf(b, "%.4g %s", v, unit);
	else
		lp_sb_adds(b, s);
}

/* The tab-separated list of a "# key:" line, split in place. */
static size_t
split(char *s, char ***words)
{
	size_t n = 0;

	*words = NULL;
	while (s) {
		char *tab = strchr(s, '\t');

		if (tab)
			*tab++ = '\0';
		*words = lp_xreallocarray(*words, n + 1, sizeof **words);
		(*words)[n++] = s;
		s = tab;
	}
	return n;
}

static const char *
base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void
list(struct lp_tsv *t, char **show, size_t ns)
{
	int cf = lp_csv_need(&t->hdr, "finding", "a list table");
	int ce = lp_csv_col(&t->hdr, "evidence"), ca = lp_csv_col(&t->hdr,
	    "artifact"), cn = lp_csv_col(&t->hdr, "next_step");
	int cs = lp_csv_col(&t->hdr, "saving_ns");
	struct lp_sb b = { 0 };
	double v;
	int k = 0;

	/* a column the table hides (a brief's short list) is left out */
	if (ce >= 0 && (size_t)ce < ns && !strcmp(show[ce], "hide"))
		ce = -1;
	if (cn >= 0 && (size_t)cn < ns && !strcmp(show[cn], "hide"))
		cn = -1;

	while (lp_tab_next(t)) {
		lp_sb_printf(&b, "%d. **", ++k);
		lp_md_inline(&b, lp_tsv_get(t, cf), 0);
		lp_sb_adds(&b, "**");
		if (*lp_tsv_get(t, ce)) {
			lp_sb_addc(&b, ' ');
			lp_md_inline(&b, lp_tsv_get(t, ce), 0);
		}
		if (*lp_tsv_get(t, ca) && strcmp(lp_tsv_get(t, ca), "-")) {
			lp_sb_adds(&b, " (");
			lp_md_code(&b, base(lp_tsv_get(t, ca)), 0);
			lp_sb_adds(&b, ")");
		}
		lp_sb_adds(&b, ".");
		if (*lp_tsv_get(t, cn) && strcmp(lp_tsv_get(t, cn), "-")) {
			lp_sb_adds(&b, " Next: ");
			lp_md_inline(&b, lp_tsv_get(t, cn), 0);
		}
		if (lp_tab_num(t, cs, &v) && v > 0) {
			lp_sb_adds(&b, " *Could save up to ");
			lp_fmt_num(&b, v / 1e6, 3);
			lp_sb_adds(&b, " ms.*");
		}
		fprintf(out, "%s\n", lp_sb_str(&b));
		lp_sb_reset(&b);
	}
	putc_out('\n');
	lp_sb_free(&b);
}

/* The "# show:" and "# labels:" lines, one entry a column, each show a
 * kind this tool knows. */
static void
check_columns(const char *path, const struct lp_tsv *t, char **show,
    size_t ns, size_t nl)
{
	static const char *const kinds[] = { "text", "code", "hide", "int",
		"ms", "us", "pct", "x", "num1", "num2", "flop", "flops", "bytes",
		"Bps", "si", "q", NULL };
	size_t i, j;

	if (ns != t->hdr.n)
		lp_die_at(LP_EXIT_DATA, path, t->hdr.line, 0, "%zu \"# show:\" "
		    "entries for %zu columns", ns, t->hdr.n);
	if (nl && nl != t->hdr.n)
		lp_die_at(LP_EXIT_DATA, path, t->hdr.line, 0, "%zu \"# labels:\" "
		    "for %zu columns", nl, t->hdr.n);
	for (i = 0; i < ns; i++) {
		for (j = 0; kinds[j] && strcmp(kinds[j], show[i]); j++)
			;
		if (!kinds[j])
			lp_die_at(LP_EXIT_DATA, path, t->hdr.line, (long)i + 1,
			    "unknown \"# show:\" kind \"%s\"", show[i]);
	}
}

/* A file beside the table, named plainly: the only names linked. */
static int
plain(const char *f)
{
	return *f && *f != '.' && strspn(f, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(f);
}

/* The source with the table's own folder left out of the paths it names:
 * the report lies in that folder, so "stages.tsv" is where to look. */
static void
source(struct lp_sb *b, const char *path, const char *src)
{
	const char *slash = strrchr(path, '/'), *p = src;
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
	struct lp_sb s = { 0 };

	if (!dl) {
		lp_md_inline(b, src, 0);
		return;
	}
	while (*p) {
		if (!strncmp(p, path, dl) && (p == src || strchr(" (,;", p[-1])))
			p += dl;
		else
			lp_sb_addc(&s, *p++);
	}
	lp_md_inline(b, lp_sb_str(&s), 0);
	lp_sb_free(&s);
}

/* The section's heading, where its numbers come from, its links (the
 * table's "# link:" lines) and its images ("# image:"). */
static void
heading(const char *path, const struct lp_tsv *t, const char *title,
    const char *tool, const char *src)
{
	struct lp_sb b = { 0 };
	size_t j;
	int nl = 0;

	if (brief && lp_tsv_comment(t, "verdict")) {
		/* the brief's own table: under the title, its links only */
		lp_sb_adds(&b, "From ");
		lp_md_code(&b, base(path), 0);
		lp_sb_adds(&b, ".");
	} else if (brief) {	/* one line: the table's file says where from */
		lp_sb_adds(&b, "**");
		lp_md_inline(&b, title, 0);
		lp_sb_adds(&b, "** (");
		lp_md_code(&b, base(path), 0);
		lp_sb_adds(&b, ", made by ");
		lp_md_text(&b, tool);
		lp_sb_adds(&b, ", with its sources)");
	} else {
		lp_sb_adds(&b, "## ");
		lp_md_inline(&b, title, 0);
		lp_sb_adds(&b, "\n\nSource: ");
		if (src)
			source(&b, path, src);
		else
			lp_sb_adds(&b, "not said");
		lp_sb_adds(&b, " (");
		lp_md_code(&b, base(path), 0);
		lp_sb_adds(&b, ", made by ");
		lp_md_text(&b, tool);
		lp_sb_adds(&b, ").");
	}
	for (j = 0; j < t->ncomments; j++) {
		const char *c = t->comments[j];

		if (!strncmp(c, "link: ", 6) && plain(c + 6))
			lp_sb_printf(&b, "%s[%s](%s)", nl++ ? ", " : brief ?
			    " See " : "\n\nSee ", c + 6, c + 6);
	}
	lp_sb_adds(&b, nl ? ".\n\n" : "\n\n");
	for (j = 0; j < t->ncomments; j++) {
		const char *c = t->comments[j];

		if (!strncmp(c, "image: ", 7) && plain(c + 7))
			lp_sb_printf(brief ? &floats : &b, "<a href=\"%s\"><img "
			    "src=\"%s\" alt=\"%s\" width=\"320\" align=\"right\">"
			    "</a>\n\n", c + 7, c + 7, c + 7);
	}
	/* a brief's images float beside its list (the findings), where
	 * they leave the tables and figures above their whole width */
	if (brief && floats.len && lp_tsv_comment(t, "style") &&
	    !strcmp(lp_tsv_comment(t, "style"), "list")) {
		lp_sb_adds(&b, lp_sb_str(&floats));
		lp_sb_reset(&floats);
	}
	fputs(lp_sb_str(&b), out);
	lp_sb_free(&b);
}

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

/*
 * The rows as a Markdown table: the labels as headings, hidden columns
 * left out, text to the left and numbers to the right.  The rows are read
 * first (a table is small): a column whose every cell is "n/a ..." is said
 * once, as a sentence under the table; past MAXCOLS columns the rest are
 * named under it (they are in the TSV); a reason repeated in a row is
 * written once; a table whose numbers are all n/a is one line.
 */
static void
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
	const char **keep = NULL;
	size_t nkeep = 0;

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
	if (wide > MAXCOLS && dcfg) {	/* the columns conf says, in order */
		struct lp_sb key = { 0 };

		lp_sb_printf(&key, "columns.%s", lp_tsv_comment(t, "tool"));
		nkeep = lp_cfg_list(dcfg, lp_sb_str(&key), &keep, dpath);
		lp_sb_free(&key);
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
		if (nkeep && !listed(keep, nkeep, t->hdr.names[i])) {
			lp_sb_adds(&left, left.len ? ", " : "");
			lp_md_inline(&left, lab, 0);
			continue;
		}
		if (shown == MAXCOLS) {
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
	if (nrows > 1 && nnum && nnumna == nnum) {
		/* nothing measured: one line with the first reason given */
		const char *why = NULL;

		for (j = 0; j < nna && !why; j++)
			if (strcmp(nawhy[j], "n/a in every row"))
				why = nawhy[j];
		lp_sb_reset(&b);
		lp_md_inline(&b, why ? why : "n/a in every row", 0);
		fprintf(out, "No numbers: %s.\n\n", lp_sb_str(&b));
		goto done;
	}
	fputs("|", out);
	for (i = 0; i < ncol; i++)
		if (vis[i]) {
			lp_sb_adds(&b, " ");
			lp_md_inline(&b, i < nl && *labels[i] ? labels[i] :
			    t->hdr.names[i], 1);
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
				cell(&b, show[i], c, units[r]);
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
	if (left.len) {
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
	lp_sb_free(&b);
	lp_sb_free(&left);
	lp_sb_free(&nas);
}

/* Each "# note:" line, a paragraph of its own. */
static void
notes(const struct lp_tsv *t)
{
	struct lp_sb b = { 0 };
	size_t j;

	for (j = 0; j < t->ncomments; j++)
		if (!strncmp(t->comments[j], "note: ", 6)) {
			lp_md_inline(&b, t->comments[j] + 6, 0);
			fprintf(out, "%s\n\n", lp_sb_str(&b));
			lp_sb_reset(&b);
		}
	lp_sb_free(&b);
}

/* One table: its heading and source, its rows (a table or a list) and its
 * notes; nothing when its tool says it adds nothing. */
static void
section(const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "its lp tool");
	const char *title = lp_tsv_comment(&t, "title");
	const char *tool = lp_tsv_comment(&t, "tool");
	const char *style = lp_tsv_comment(&t, "style");
	char *lab = lp_xstrdup(lp_tsv_comment(&t, "labels") ?
	    lp_tsv_comment(&t, "labels") : "");
	char *shw = lp_xstrdup(lp_tsv_comment(&t, "show") ?
	    lp_tsv_comment(&t, "show") : "");
	char **labels, **show;
	size_t nl = split(lab, &labels), ns = split(shw, &show);

	if (!title || !tool)
		lp_die_at(LP_EXIT_DATA, path, 1, 0, "no \"# title:\" and \"# "
		    "tool:\" lines: not a table an lp tool made");
	if (!lp_tsv_comment(&t, "omit")) {	/* its tool says it adds nothing */
		const char *fig = lp_tsv_comment(&t, "figure");

		check_columns(path, &t, show, ns, nl);
		heading(path, &t, title, tool, lp_tsv_comment(&t, "source"));
		if (brief && fig && plain(fig))	/* the rows are in the TSV */
			fprintf(out, "<img src=\"%s\" alt=\"%s\" width=\"760\">"
			    "\n\n", fig, fig);
		else {
			if (style && !strcmp(style, "list"))
				list(&t, show, ns);
			else
				table(path, &t, labels, nl, show);
			notes(&t);
		}
	}
	free(labels);
	free(show);
	free(lab);
	free(shw);
	lp_tsv_close(&t);
	fclose(fp);
}

/* The document's title and what it is made of: -t's title, or the first
 * table's verdict ("# verdict:", lp-brief) with its "# identity:" line. */
static void
preamble(const char *title, const char *first)
{
	struct lp_sb b = { 0 };
	const char *verdict = NULL, *ident = NULL;
	struct lp_tsv t;
	FILE *fp = NULL;

	if (!title) {
		fp = lp_tab_open(&t, first, "its lp tool");
		verdict = lp_tsv_comment(&t, "verdict");
		ident = lp_tsv_comment(&t, "identity");
	}
	if (title || !verdict)
		lp_md_text(&b, title ? title : "Stakeholder summary");
	else
		lp_md_inline(&b, verdict, 0);
	fprintf(out, "# %s\n\n", lp_sb_str(&b));
	lp_sb_reset(&b);
	if (ident) {	/* the first table's links end this paragraph */
		lp_md_inline(&b, ident, 0);
		fprintf(out, "%s. ", lp_sb_str(&b));
	}
	lp_sb_free(&b);
	if (fp) {
		lp_tsv_close(&t);
		fclose(fp);
	}
	if (verdict) {	/* a brief: each table says where it comes from */
		brief = 1;
		return;
	}
	fprintf(out, "Made by lp-summary from the run's tables; every number below "
	    "is in the table file each section names (base units there: ns, "
	    "bytes, FLOP), with where it came from.\n\n");
}

int
main(int argc, char **argv)
{
	const char *title = NULL;
	int c, i;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "c:ht:")) != -1) {
		switch (c) {
		case 'c':
			dpath = optarg;
			break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 't': title = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (optind == argc)
		lp_usage(synopsis);
	if (dpath)
		dcfg = lp_yaml_load_path(dpath);
	preamble(title, argv[optind]);
	for (i = optind; i < argc; i++)
		section(argv[i]);
	if (floats.len)	/* no list to float beside: at the end */
		fputs(lp_sb_str(&floats), out);
	lp_sb_free(&floats);
	lp_yaml_free(dcfg);
	lp_tab_done(out);
	return 0;
}
