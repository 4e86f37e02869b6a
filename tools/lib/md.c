/*
 * Markdown (CommonMark with GitHub's tables, as cmark-gfm reads it), one
 * writer for each kind of text lp puts in a report, so that nothing a name
 * or an export holds is read as markup: no raw HTML, no link, no code span
 * closed early, no table cell split.
 *
 *   lp_md_text    plain text: "\ ` | [ ]" backslash-escaped, "< > &" as
 *                 entities (inside a code span they would show as typed,
 *                 so only text gets them)
 *   lp_md_code    a code span of any string: fenced with one backtick more
 *                 than the longest run inside, padded with a space where
 *                 it starts or ends with a backtick; in a table, "|" as "\|"
 *                 (cmark-gfm takes that out before it reads the cell); a
 *                 run of 80 backticks or more (cmark's limit) makes it text
 *   lp_md_inline  lp's own sentences (table notes, findings): plain text in
 *                 which backtick-fenced spans, paired as CommonMark pairs
 *                 them, are code; each part is written by the two above
 *
 * All three write tabs and line ends as spaces, other control characters
 * and bytes that are not UTF-8 as U+FFFD, so the document is UTF-8 text.
 */
#include <string.h>

#include "util.h"
#include "esc.h"

#define REPL "\xef\xbf\xbd"	/* U+FFFD */

/* One character of s into b, cleaned as above; returns the bytes read. */
static size_t
put(struct lp_sb *b, const char *s)
{
	long c;
	size_t n = lp_utf8_dec(s, &c);

	if (c == '\t' || c == '\n' || c == '\r')
		lp_sb_addc(b, ' ');
	else if (c < 0x20 || c == 0x7f)
		lp_sb_adds(b, REPL);
	else
		lp_sb_addn(b, s, n);
	return n;
}

static void
text_n(struct lp_sb *b, const char *s, size_t len)
{
	const char *e = s + len;

	while (s < e)
		switch (*s) {
		case '\\': case '`': case '|': case '[': case ']':
			lp_sb_addc(b, '\\');
			lp_sb_addc(b, *s++);
			break;
		case '<': lp_sb_adds(b, "&lt;"); s++; break;
		case '>': lp_sb_adds(b, "&gt;"); s++; break;
		case '&': lp_sb_adds(b, "&amp;"); s++; break;
		default:
			s += put(b, s);
		}
}

void
lp_md_text(struct lp_sb *b, const char *s)
{
	text_n(b, s, strlen(s));
}

static int
space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void
code_n(struct lp_sb *b, const char *s, size_t len, int table)
{
	size_t i, run = 0, most = 0;
	int pad, blank = 1;

	if (!len)
		return;
	for (i = 0; i < len; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > most)
			most = run;
		if (!space(s[i]))
			blank = 0;
	}
	/* cmark closes no span fenced with more than 80 backticks: such a
	 * name is written as text */
	if (most >= 80) {
		text_n(b, s, len);
		return;
	}
	/* CommonMark takes one space off each end when both ends have one */
	pad = s[0] == '`' || s[len - 1] == '`' ||
	    (space(s[0]) && space(s[len - 1]) && !blank);
	for (i = 0; i <= most; i++)
		lp_sb_addc(b, '`');
	if (pad)
		lp_sb_addc(b, ' ');
	for (i = 0; i < len; )
		if (s[i] == '|' && table) {
			lp_sb_adds(b, "\\|");
			i++;
		} else
			i += put(b, s + i);
	if (pad)
		lp_sb_addc(b, ' ');
	for (i = 0; i <= most; i++)
		lp_sb_addc(b, '`');
}

void
lp_md_code(struct lp_sb *b, const char *s, int table)
{
	code_n(b, s, strlen(s), table);
}

/* Length of the run of backticks at s. */
static size_t
ticks(const char *s)
{
	size_t n = 0;

	while (s[n] == '`')
		n++;
	return n;
}

void
lp_md_inline(struct lp_sb *b, const char *s, int table)
{
	while (*s) {
		const char *e, *p, *q;
		size_t n, m;

		if (*s != '`') {
			n = strcspn(s, "`");
			text_n(b, s, n);
			s += n;
			continue;
		}
		/* a span closes at the next run of as many backticks */
		n = ticks(s);
		for (p = s + n, m = 0; *p; p += m ? m : 1)
			if ((m = ticks(p)) == n)
				break;
		if (!*p) {
			text_n(b, s, n);	/* unpaired: backticks as typed */
			s += n;
			continue;
		}
		s += n;
		e = p;
		/* the span's content as CommonMark reads it, fenced anew */
		if (e - s >= 2 && space(*s) && space(e[-1])) {
			for (q = s; q < e && space(*q); q++)
				;
			if (q < e) {
				s++;
				e--;
			}
		}
		code_n(b, s, (size_t)(e - s), table);
		s = p + n;
	}
}
