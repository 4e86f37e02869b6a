/*
 * esc.h: the escapers, one per output format (utf8.c, md.c, xml.c,
 * json.c): whatever bytes a name holds, the document stays well-formed and
 * the name stays data.  Base layer beside util.h; depends on nothing above
 * it (struct lp_sb is util.h's).
 */
#ifndef LP_ESC_H
#define LP_ESC_H

#include <stddef.h>
#include <stdio.h>

struct lp_sb;

/* utf8.c: the length of the UTF-8 character at s (0 at the end) and its
 * code point in *cp; a byte that starts no valid one is 1 byte, *cp -1. */
size_t lp_utf8_dec(const char *s, long *cp);
/* md.c: Markdown as cmark-gfm reads it (md.c says how each escapes).
 * table: the text goes in a table cell ("|" escaped in code spans too). */
void lp_md_text(struct lp_sb *b, const char *s);	/* plain text */
void lp_md_code(struct lp_sb *b, const char *s, int table); /* "": nothing */
/* lp's sentences: plain text with `code` spans. */
void lp_md_inline(struct lp_sb *b, const char *s, int table);
/* A sentence that starts a line: no block opens there. */
void lp_md_para(struct lp_sb *b, const char *s);
/* A name into a sentence (the sentence is not Markdown yet): as it is, or
 * a code span where it holds a backtick. */
void lp_md_name(struct lp_sb *b, const char *s);
/* mdcell.c: a cell of a Markdown table as its column's "# show:" kind
 * says (lp-summary(1)); unit: the row's unit column, for "si" and "q". */
void lp_md_cell(struct lp_sb *b, const char *show, const char *s,
    const char *unit);
/* xml.c: XML 1.0 character data or attribute value. */
void lp_xml_text(struct lp_sb *b, const char *s);
/* json.c: a JSON string, quoted, escaped, UTF-8. */
void lp_json_str(FILE *fp, const char *s);
/* Is s a number as JSON writes numbers (no "007", ".5", "+1", "inf")? */
int lp_json_isnum(const char *s);
/* A cell: bare where num and lp_json_isnum, else a string. */
void lp_json_val(FILE *fp, const char *s, int num);

#endif
