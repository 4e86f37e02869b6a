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

FILE *out;	/* the document, written out when whole (lp_tab_out) */
int brief;	/* a brief (lp-brief's verdict): one screen, short headings */
struct lp_ynode *dcfg;	/* -c: the columns of a wide table, by tool */
const char *dpath;

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

const char *
base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
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

static void
list(struct lp_tsv *t, char **show, size_t ns)
{
	int cf = lp_csv_need(&t->hdr, "finding", "a list table");
	int ce = lp_csv_col(&t->hdr, "evidence"), ca = lp_csv_col(&t->hdr,
	    "artifact"), cn = lp_csv_col(&t->hdr, "next_step");
	int cs = lp_csv_col(&t->hdr, "saving_ns");
	int cp = lp_csv_col(&t->hdr, "per_step_ns"), cw = lp_csv_col(&t->hdr,
	    "step");
	struct lp_sb b = { 0 };
	double v, p;
	int k = 0;

	int ch = lp_csv_col(&t->hdr, "headline");
	int cr = lp_csv_col(&t->hdr, "rank"), cx = lp_csv_col(&t->hdr, "action");
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
	if (ch >= 0 && (size_t)cf < ns && !strcmp(show[cf], "hide"))
		cf = ch;
	if (ce >= 0 && (size_t)ce < ns && !strcmp(show[ce], "hide"))
		ce = -1;
	if (cn >= 0 && (size_t)cn < ns && !strcmp(show[cn], "hide"))
		cn = -1;

	while (lp_tab_next(t)) {
		const char *rank = cr >= 0 ? lp_tsv_get(t, cr) : "";

		lp_sb_printf(&b, "%d. ", ++k);
		if (!brief && anchor && slug(anchor, rank))
			lp_sb_printf(&b, "<a id=\"%s-%s\"></a>", anchor, rank);
		lp_sb_adds(&b, "**");
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
		} else if (cn < 0 && *lp_tsv_get(t, cx) && strcmp(lp_tsv_get(t,
		    cx), "-")) {	/* the short list: the step in a clause */
			lp_sb_adds(&b, " **Next:** ");
			lp_md_inline(&b, lp_tsv_get(t, cx), 0);
		}
		if (lp_tab_num(t, cs, &v) && v > 0) {
			lp_sb_adds(&b, " *Could save up to ");
			lp_fmt_num(&b, v / 1e6, 3);
			lp_sb_adds(&b, " ms");
			if (lp_tab_num(t, cp, &p) && *lp_tsv_get(t, cw)) {
				lp_sb_adds(&b, ", ");
				lp_fmt_num(&b, p / 1e6, 3);
				lp_sb_adds(&b, " ms a ");
				lp_md_text(&b, lp_tsv_get(t, cw));
			} else if (!strcmp(lp_tsv_get(t, cw), "once"))
				lp_sb_adds(&b, ", once");
			lp_sb_adds(&b, ".*");
		}
		if (rl && slug(hash + 1, rank))
			lp_sb_printf(&b, " [Details](%s#%s-%s)", rl, hash + 1,
			    rank);
		fprintf(out, "%s\n", lp_sb_str(&b));
		lp_sb_reset(&b);
	}
	putc_out('\n');
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

/* The section's heading, where its numbers come from, its links (the
 * table's "# link:" lines) and its images ("# image:"). */
static void
heading(const char *path, const struct lp_tsv *t, const char *title,
    const char *tool, const char *src)
{
	struct lp_sb b = { 0 };
	size_t j;
	int nl = 0, own;

	if (brief && lp_tsv_comment(t, "verdict")) {
		/* the brief's own table: under the title, its file and links */
		lp_sb_adds(&b, "From ");
		lp_md_code(&b, base(path), 0);
		lp_sb_adds(&b, ".");
	} else if (brief) {	/* one line: the table's file says where from */
		lp_sb_adds(&b, "**");
		lp_md_inline(&b, title, 0);
		lp_sb_adds(&b, "** (");
		lp_md_code(&b, base(path), 0);
		lp_sb_adds(&b, ", by ");
		lp_md_text(&b, tool);
		lp_sb_adds(&b, ")");
		/* a list's notes ("5 more rows in details.md.") end this
		 * line, so the list keeps the screen */
		if (lp_tsv_comment(t, "style"))
			for (j = 0; j < t->ncomments; j++)
				if (!strncmp(t->comments[j], "note: ", 6)) {
					lp_sb_addc(&b, ' ');
					lp_md_inline(&b, t->comments[j] + 6, 0);
				}
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
	/* the brief's own table in a details page: its links and image
	 * are the brief's, the page they would point to or its roofline */
	own = !brief && lp_tsv_comment(t, "verdict");
	for (j = 0; j < t->ncomments && !own; j++) {
		const char *c = t->comments[j];

		/* a brief's image is a link beside the others: a thumbnail
		 * is too small to read and narrows the list it floats by */
		if (!strncmp(c, "link: ", 6) && plain(c + 6))
			c += 6;
		else if (brief && !strncmp(c, "image: ", 7) && plain(c + 7))
			c += 7;
		else
			continue;
		lp_sb_printf(&b, "%s[%s](%s)", nl++ ? ", " : !b.len ? "See " :
		    brief ? " See " : "\n\nSee ", c, c);
	}
	lp_sb_adds(&b, nl ? ".\n\n" : "\n\n");
	for (j = 0; j < t->ncomments && !own; j++) {
		const char *c = t->comments[j];

		if (!brief && !strncmp(c, "image: ", 7) && plain(c + 7))
			lp_sb_printf(&b, "<a href=\"%s\"><img "
			    "src=\"%s\" alt=\"%s\" height=\"170\" align=\"right\">"
			    "</a>\n\n", c + 7, c + 7, c + 7);
	}
	fputs(lp_sb_str(&b), out);
	lp_sb_free(&b);
}

/* A brief's figure, its alt text what it shows ("# alt:", else the
 * table's title), for a reader who cannot see it. */
static void
figure(const struct lp_tsv *t, const char *fig, const char *title)
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
notes(const struct lp_tsv *t)
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
			figure(&t, fig, title);
		else {
			if (style && !strcmp(style, "list"))
				list(&t, show, ns);
			else
				table(path, &t, labels, nl, show);
			if (!brief || !style)	/* else said in the heading */
				notes(&t);
			if (!brief)
				definitions(&t, labels, nl);
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
		lp_md_para(&b, ident);	/* it starts with the model's name */
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

	lp_start(argc, argv, synopsis);
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
	lp_yaml_free(dcfg);
	lp_tab_done(out);
	return 0;
}
