/*
 * lp-summary: stakeholder_summary.md from the run's table artifacts.  It
 * computes nothing: each TSV (tab.c) becomes a section, its "# title:" the
 * heading, its "# source:" and "# note:" lines the text around the table,
 * its "# labels:" the column headings, and its "# show:" how each number is
 * written (lp-summary(1)).  A cell that is not a number is shown as it is.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"
#include "run.h"
#include "lp-summary/summary.h"

static const char synopsis[] =
    "lp-summary [-c details.yaml] [-t title] file.tsv...";

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

static int plain(const char *f);

/* A row's anchor or link: "NAME-RANK" where the table names its anchor
 * (a word of lowercase letters) and the row has a whole-number rank. */
static int
slug(const char *a, const char *rank)
{
	return *a && strspn(a, "abcdefghijklmnopqrstuvwxyz") == strlen(a) &&
	    *rank && strspn(rank, "0123456789") == strlen(rank);
}

/* The columns of a list table (-1: none). */
struct lcols {
	int f, e, a, n, s, p, w, r, x;
};

/* A list item's text: the finding, its evidence and artifact, the next
 * step and what it could save. */
static void
item(struct lp_sb *b, const struct lp_tsv *t, const struct lcols *c)
{
	double v, p;

	lp_sb_adds(b, "**");
	lp_md_inline(b, lp_tsv_get(t, c->f), 0);
	lp_sb_adds(b, "**");
	if (*lp_tsv_get(t, c->e)) {
		lp_sb_addc(b, ' ');
		lp_md_inline(b, lp_tsv_get(t, c->e), 0);
	}
	if (*lp_tsv_get(t, c->a) && strcmp(lp_tsv_get(t, c->a), "-")) {
		lp_sb_adds(b, " (");
		sum_file(b, lp_tsv_get(t, c->a));
		lp_sb_adds(b, ")");
	}
	lp_sb_adds(b, ".");
	if (*lp_tsv_get(t, c->n) && strcmp(lp_tsv_get(t, c->n), "-")) {
		lp_sb_adds(b, " Next: ");
		lp_md_inline(b, lp_tsv_get(t, c->n), 0);
	} else if (c->n < 0 && *lp_tsv_get(t, c->x) && strcmp(lp_tsv_get(t,
	    c->x), "-")) {	/* the short list: the step in a clause */
		lp_sb_adds(b, " **Next:** ");
		lp_md_inline(b, lp_tsv_get(t, c->x), 0);
	}
	if (lp_tab_num(t, c->s, &v) && v > 0) {
		lp_sb_adds(b, " *Could save up to ");
		lp_fmt_num(b, v / 1e6, 3);
		lp_sb_adds(b, " ms");
		if (lp_tab_num(t, c->p, &p) && *lp_tsv_get(t, c->w)) {
			lp_sb_adds(b, ", ");
			lp_fmt_num(b, p / 1e6, 3);
			lp_sb_adds(b, " ms a ");
			lp_md_text(b, lp_tsv_get(t, c->w));
		} else if (!strcmp(lp_tsv_get(t, c->w), "once"))
			lp_sb_adds(b, ", once");
		lp_sb_adds(b, ".*");
	}
}

static void
list(const struct sum *s, struct lp_tsv *t, char **show, size_t ns)
{
	struct lcols c = { lp_csv_need(&t->hdr, "finding", "a list table"),
	    lp_csv_col(&t->hdr, "evidence"), lp_csv_col(&t->hdr, "artifact"),
	    lp_csv_col(&t->hdr, "next_step"), lp_csv_col(&t->hdr, "saving_ns"),
	    lp_csv_col(&t->hdr, "per_step_ns"), lp_csv_col(&t->hdr, "step"),
	    lp_csv_col(&t->hdr, "rank"), lp_csv_col(&t->hdr, "action") };
	struct lp_sb b = { 0 };
	int k = 0;

	int ch = lp_csv_col(&t->hdr, "headline");
	const char *anchor = lp_tsv_comment(t, "anchor");
	const char *rowlink = lp_tsv_comment(t, "rowlink");
	char *rl = NULL, *hash;

	/* rowlink: FILE#NAME-, FILE plain and NAME an anchor's */
	if (rowlink) {
		rl = lp_xstrdup(rowlink);
		hash = strchr(rl, '#');
		if (!hash || hash[1] == '\0' || hash[strlen(hash) - 1] != '-')
			hash = NULL;
		else {
			*hash = '\0';
			hash[strlen(hash + 1)] = '\0';	/* the '-' */
			if (!plain(rl) || !slug(hash + 1, "1"))
				hash = NULL;
		}
		if (!hash) {
			free(rl);
			rl = NULL;
		}
	}

	/* a column the table hides (a brief's short list) is left out; a
	 * hidden finding gives way to its headline */
	if (ch >= 0 && (size_t)c.f < ns && !strcmp(show[c.f], "hide"))
		c.f = ch;
	if (c.e >= 0 && (size_t)c.e < ns && !strcmp(show[c.e], "hide"))
		c.e = -1;
	if (c.n >= 0 && (size_t)c.n < ns && !strcmp(show[c.n], "hide"))
		c.n = -1;

	while (lp_tab_next(t)) {
		const char *rank = c.r >= 0 ? lp_tsv_get(t, c.r) : "";

		lp_sb_printf(&b, "%d. ", ++k);
		if (!s->brief && anchor && slug(anchor, rank))
			lp_sb_printf(&b, "<a id=\"%s-%s\"></a>", anchor, rank);
		item(&b, t, &c);
		if (rl && slug(hash + 1, rank))
			lp_sb_printf(&b, " [Details](%s#%s-%s)", rl, hash + 1,
			    rank);
		fprintf(s->out, "%s\n", lp_sb_str(&b));
		lp_sb_reset(&b);
	}
	fputc('\n', s->out);
	lp_sb_free(&b);
	free(rl);
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

/* The heading's first line: in a brief the table's file, else its title
 * and where its numbers come from. */
static void
origin(const struct sum *s, struct lp_sb *b, const char *path,
    const struct lp_tsv *t, const char *title, const char *tool)
{
	const char *src = lp_tsv_comment(t, "source");
	size_t j;

	if (s->brief && lp_tsv_comment(t, "verdict")) {
		/* the brief's own table: under the title, its file and links */
		lp_sb_adds(b, "From ");
		sum_file(b, path);
		lp_sb_adds(b, ".");
		return;
	}
	if (s->brief) {	/* one line: the table's file says where from */
		lp_sb_adds(b, "**");
		lp_md_inline(b, title, 0);
		lp_sb_adds(b, "** (");
	} else {
		lp_sb_adds(b, "## ");
		lp_md_inline(b, title, 0);
		lp_sb_adds(b, "\n\nSource: ");
		if (src)
			source(b, path, src);
		else
			lp_sb_adds(b, "not said");
		lp_sb_adds(b, " (");
	}
	sum_file(b, path);
	lp_sb_adds(b, s->brief ? ", by " : ", made by ");
	lp_md_text(b, tool);
	lp_sb_adds(b, s->brief ? ")" : ").");
	/* a list's notes ("5 more rows in details.md.") end this
	 * line, so the list keeps the screen */
	if (s->brief && lp_tsv_comment(t, "style"))
		for (j = 0; j < t->ncomments; j++)
			if (!strncmp(t->comments[j], "note: ", 6)) {
				lp_sb_addc(b, ' ');
				lp_md_inline(b, t->comments[j] + 6, 0);
			}
}

/* The section's heading, where its numbers come from, its links (the
 * table's "# link:" lines) and its images ("# image:"). */
static void
heading(const struct sum *s, const char *path, const struct lp_tsv *t,
    const char *title, const char *tool)
{
	struct lp_sb b = { 0 };
	size_t j;
	int nl = 0, own;

	origin(s, &b, path, t, title, tool);
	/* the brief's own table in a details page: its links and image
	 * are the brief's, the page they would point to or its roofline */
	own = !s->brief && lp_tsv_comment(t, "verdict");
	for (j = 0; j < t->ncomments && !own; j++) {
		const char *c = t->comments[j];

		/* a brief's image is a link beside the others: a thumbnail
		 * is too small to read and narrows the list it floats by */
		if (!strncmp(c, "link: ", 6) && plain(c + 6))
			c += 6;
		else if (s->brief && !strncmp(c, "image: ", 7) && plain(c + 7))
			c += 7;
		else
			continue;
		lp_sb_printf(&b, "%s[%s](%s)", nl++ ? ", " : !b.len ? "See " :
		    s->brief ? " See " : "\n\nSee ", c, c);
	}
	lp_sb_adds(&b, nl ? ".\n\n" : "\n\n");
	for (j = 0; j < t->ncomments && !own; j++) {
		const char *c = t->comments[j];

		if (!s->brief && !strncmp(c, "image: ", 7) && plain(c + 7))
			lp_sb_printf(&b, "<a href=\"%s\"><img "
			    "src=\"%s\" alt=\"%s\" height=\"170\" align=\"right\">"
			    "</a>\n\n", c + 7, c + 7, c + 7);
	}
	fputs(lp_sb_str(&b), s->out);
	lp_sb_free(&b);
}

/* A brief's figure, its alt text what it shows ("# alt:", else the
 * table's title), for a reader who cannot see it. */
static void
figure(FILE *out, const struct lp_tsv *t, const char *fig, const char *title)
{
	struct lp_sb b = { 0 };
	const char *alt = lp_tsv_comment(t, "alt");

	lp_sb_printf(&b, "<img src=\"%s\" alt=\"", fig);
	lp_xml_text(&b, alt ? alt : title);
	lp_sb_adds(&b, "\" width=\"880\">\n\n");
	fputs(lp_sb_str(&b), out);
	lp_sb_free(&b);
}

/* Each "# note:" line, a paragraph of its own. */
static void
notes(FILE *out, const struct lp_tsv *t)
{
	struct lp_sb b = { 0 };
	size_t j;

	for (j = 0; j < t->ncomments; j++)
		if (!strncmp(t->comments[j], "note: ", 6)) {
			lp_md_para(&b, t->comments[j] + 6);
			fprintf(out, "%s\n\n", lp_sb_str(&b));
			lp_sb_reset(&b);
		}
	lp_sb_free(&b);
}

/* One table: its heading and source, its rows (a table or a list) and its
 * notes; nothing when its tool says it adds nothing. */
static void
section(const struct sum *s, const char *path)
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
		heading(s, path, &t, title, tool);
		if (s->brief && fig && plain(fig))	/* the rows are in the TSV */
			figure(s->out, &t, fig, title);
		else {
			if (style && !strcmp(style, "list"))
				list(s, &t, show, ns);
			else
				table(s, path, &t, labels, nl, show);
			if (!s->brief || !style)	/* else said in the heading */
				notes(s->out, &t);
			if (!s->brief)
				table_definitions(s, &t, labels, nl);
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
preamble(struct sum *s, const char *title, const char *first)
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
	fprintf(s->out, "# %s\n\n", lp_sb_str(&b));
	lp_sb_reset(&b);
	if (ident) {	/* the first table's links end this paragraph */
		lp_md_para(&b, ident);	/* it starts with the model's name */
		fprintf(s->out, "%s. ", lp_sb_str(&b));
	}
	lp_sb_free(&b);
	if (fp) {
		lp_tsv_close(&t);
		fclose(fp);
	}
	if (verdict) {	/* a brief: each table says where it comes from */
		s->brief = 1;
		return;
	}
	fprintf(s->out, "Made by lp-summary from the run's tables; every number below "
	    "is in the table file each section names (base units there: ns, "
	    "bytes, FLOP), with where it came from.\n\n");
}

int
main(int argc, char **argv)
{
	const char *title = NULL;
	struct sum s = { 0 };
	int c, i;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "c:t:", synopsis)) != -1) {
		switch (c) {
		case 'c':
			s.dpath = optarg;
			break;
		case 't': title = optarg; break;
		}
	}
	if (optind == argc)
		lp_usage(synopsis);
	s.out = lp_tab_out();	/* after the options: -h leaves nothing open */
	if (s.dpath)
		s.dcfg = lp_yaml_load_path(s.dpath);
	preamble(&s, title, argv[optind]);
	for (i = optind; i < argc; i++)
		section(&s, argv[i]);
	lp_yaml_free(s.dcfg);
	lp_tab_done(s.out);
	return 0;
}
