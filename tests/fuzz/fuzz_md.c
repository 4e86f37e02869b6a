/*
 * The Markdown writers (md.c): a name in, lp's Markdown of it out (a
 * heading, a sentence, a table row with the name as code, as text and as
 * a sentence, a list item, a paragraph that starts with it, as the
 * brief's identity line does, a sentence it was put in by lp_md_name),
 * read back by cmark-gfm with GitHub's tables, the parser GitHub renders
 * with.  The document must hold no HTML, no link or image, one heading,
 * one list, no other block than its paragraphs, one table of one row of
 * three cells, and the code cell the name exactly (unless a run of 80
 * backticks makes it text) (tabs and line ends as spaces, bytes that are
 * not UTF-8 and control characters as U+FFFD).
 */
#include <string.h>

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>

#include "fuzz.h"
#include "util.h"
#include "esc.h"

/* What lp_md_code promises to show: the name, cleaned as md.c says. */
static void
clean(struct lp_sb *b, const char *s)
{
	long c;
	size_t n;

	for (; *s; s += n) {
		n = lp_utf8_dec(s, &c);
		if (c == '\t' || c == '\n' || c == '\r')
			lp_sb_addc(b, ' ');
		else if (c < 0x20 || c == 0x7f)
			lp_sb_adds(b, "\xef\xbf\xbd");
		else
			lp_sb_addn(b, s, n);
	}
}

static void
fail(const char *why, const char *doc)
{
	fprintf(stderr, "fuzz_md: %s in:\n%s\n", why, doc);
	abort();
}

/* Counts nodes of a type under n; dies on HTML, links and images. */
static int
walk(cmark_node *n, const char *type, const char *doc)
{
	const char *t = cmark_node_get_type_string(n);
	int k = !strcmp(t, type);
	cmark_node *c;

	if (!strncmp(t, "html", 4) || !strcmp(t, "link") || !strcmp(t, "image"))
		fail(t, doc);
	for (c = cmark_node_first_child(n); c; c = cmark_node_next(c))
		k += walk(c, type, doc);
	return k;
}

static cmark_node *
find(cmark_node *n, const char *type)
{
	cmark_node *c, *f;

	if (!strcmp(cmark_node_get_type_string(n), type))
		return n;
	for (c = cmark_node_first_child(n); c; c = cmark_node_next(c))
		if ((f = find(c, type)))
			return f;
	return NULL;
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static cmark_syntax_extension *table;
	struct lp_sb name = { 0 }, doc = { 0 }, want = { 0 }, line = { 0 };
	cmark_parser *p;
	cmark_node *root, *row, *cell, *code;
	const char *s;
	size_t i, run, most;

	if (!table) {
		cmark_gfm_core_extensions_ensure_registered();
		table = cmark_find_syntax_extension("table");
	}
	lp_sb_addn(&name, (const char *)data, strnlen((const char *)data, size));
	s = lp_sb_str(&name);
	lp_sb_adds(&doc, "# Kernels of ");
	lp_md_text(&doc, s);
	lp_sb_adds(&doc, "\n\nSource: ");
	lp_md_inline(&doc, s, 0);
	lp_sb_adds(&doc, ".\n\n| Kernel | Device | Note |\n|:---|:---|:---|\n| ");
	lp_md_code(&doc, s, 1);
	lp_sb_adds(&doc, " | ");
	lp_md_text(&doc, s);
	lp_sb_adds(&doc, " | ");
	lp_md_inline(&doc, s, 1);
	lp_sb_adds(&doc, " |\n\n1. **");
	lp_md_inline(&doc, s, 0);
	lp_sb_adds(&doc, "** (");
	lp_md_code(&doc, s, 0);
	lp_sb_adds(&doc, ").\n\n");
	lp_md_para(&doc, s);
	lp_sb_adds(&doc, "\n\n");
	lp_md_name(&line, s);
	lp_sb_adds(&line, " on a GPU, with `code`.");
	lp_md_para(&doc, lp_sb_str(&line));
	lp_sb_adds(&doc, "\n");

	p = cmark_parser_new(CMARK_OPT_DEFAULT);
	cmark_parser_attach_syntax_extension(p, table);
	cmark_parser_feed(p, lp_sb_str(&doc), doc.len);
	root = cmark_parser_finish(p);
	if (walk(root, "heading", lp_sb_str(&doc)) != 1)
		fail("not one heading", lp_sb_str(&doc));
	if (walk(root, "list", lp_sb_str(&doc)) != 1)
		fail("not one list", lp_sb_str(&doc));
	if (walk(root, "code_block", lp_sb_str(&doc)) ||
	    walk(root, "block_quote", lp_sb_str(&doc)) ||
	    walk(root, "thematic_break", lp_sb_str(&doc)))
		fail("a block lp did not write", lp_sb_str(&doc));
	if (walk(root, "table", lp_sb_str(&doc)) != 1)
		fail("not one table", lp_sb_str(&doc));
	if (walk(root, "table_row", lp_sb_str(&doc)) != 1)
		fail("not one row under the header", lp_sb_str(&doc));
	if (walk(root, "table_cell", lp_sb_str(&doc)) != 6)
		fail("not three cells a row", lp_sb_str(&doc));
	row = find(root, "table_row");
	cell = cmark_node_first_child(row);
	code = cmark_node_first_child(cell);
	clean(&want, s);
	/* a run of 80 backticks or more is beyond cmark's code spans: text */
	for (i = run = most = 0; s[i]; i++)
		if ((run = s[i] == '`' ? run + 1 : 0) > most)
			most = run;
	if (*s && most < 80) {
		if (!code || strcmp(cmark_node_get_type_string(code), "code") ||
		    cmark_node_next(code))
			fail("the code cell is not one code span", lp_sb_str(&doc));
		if (strcmp(cmark_node_get_literal(code), lp_sb_str(&want)))
			fail("the code span is not the name", lp_sb_str(&doc));
	}
	cmark_node_free(root);
	cmark_parser_free(p);
	lp_sb_free(&name);
	lp_sb_free(&doc);
	lp_sb_free(&want);
	lp_sb_free(&line);
	if (lp_fuzz_live())
		fail("a block left allocated", "");
	return 0;
}
