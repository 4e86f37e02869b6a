/*
 * Markdown (CommonMark with GitHub's tables, as cmark-gfm reads it), one
 * writer for each kind of text lp puts in a report, so that nothing a name
 * or an export holds is read as markup: no raw HTML, no link, no code span
 * closed early, no table cell split.
 *
 *   lp_md_text    plain text: "\ ` | [ ] * ~" backslash-escaped, and "_"
 *                 where it could open or close emphasis, ":" before "//"
 *                 or after "mailto" and "xmpp", "www." as
 *                 "www\.", an e-mail address's "@" followed by a zero-width
 *                 space (GitHub links URLs, www. and addresses in text), "<
 *                 > &" as entities (inside a code span they would show as
 *                 typed, so only text gets them)
 *   lp_md_code    a code span of any string: fenced with one backtick more
 *                 than the longest run inside, padded with a space where
 *                 it starts or ends with a backtick; in a table, "|" as "\|"
 *                 (cmark-gfm takes that out before it reads the cell); a
 *                 run of 80 backticks or more (cmark's limit) makes it text
 *   lp_md_inline  lp's own sentences (table notes, findings): plain text in
 *                 which backtick-fenced spans, paired as CommonMark pairs
 *                 them, are code; each part is written by the two above
 *   lp_md_para    a sentence that starts a line (the brief's identity, a
 *                 note's paragraph): lp_md_inline, with what would open a
 *                 block there written as text: "#" (a heading), "-", "+",
 *                 "=" and "1." or "1)" (lists, an underline) backslashed,
 *                 leading blanks (four make a code block) dropped
 *   lp_md_name    not Markdown but a name put into one of lp's sentences
 *                 (the model's, the GPU's): as it is, or a code span when
 *                 it holds a backtick, which lp_md_inline would pair
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

static int
alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* Does "@" at s start what GitHub links as an e-mail address: a domain of
 * letters, digits, '-' and '.', with a '.' in it? */
static int
mail_at(const char *s, const char *e)
{
	int dot = 0;

	if (++s >= e || !alnum((unsigned char)*s))
		return 0;
	for (; s < e && (alnum((unsigned char)*s) || *s == '-' || *s == '.'); s++)
		dot |= *s == '.' && s + 1 < e && alnum((unsigned char)s[1]);
	return dot;
}

/* Does the text before s (from s0) end in word w, any case? */
static int
after_word(const char *s0, const char *s, const char *w)
{
	size_t n = strlen(w), i;

	if ((size_t)(s - s0) < n)
		return 0;
	for (i = 0; i < n; i++)
		if ((s[-(long)n + (long)i] | 0x20) != w[i])
			return 0;
	return 1;
}

static void
text_n(struct lp_sb *b, const char *s, size_t len)
{
	const char *e = s + len, *s0 = s;

	while (s < e)
		switch (*s) {
		case '\\': case '`': case '|': case '[': case ']':
		case '*': case '~':	/* emphasis, strikethrough */
			lp_sb_addc(b, '\\');
			lp_sb_addc(b, *s++);
			break;
		case ':':	/* "scheme://", "mailto:": GitHub links them */
			if ((s + 2 < e && s[1] == '/' && s[2] == '/') ||
			    after_word(s0, s, "mailto") || after_word(s0, s, "xmpp"))
				lp_sb_addc(b, '\\');
			lp_sb_addc(b, *s++);
			break;
		case '_':	/* emphasis only where it can open or close */
			if (s == s0 || s + 1 >= e || !alnum((unsigned char)s[-1]) ||
			    !alnum((unsigned char)s[1]))
				lp_sb_addc(b, '\\');
			lp_sb_addc(b, *s++);
			break;
		case '.':	/* "www." starts a link */
			if (s - s0 >= 3 && (s[-1] | 0x20) == 'w' &&
			    (s[-2] | 0x20) == 'w' && (s[-3] | 0x20) == 'w')
				lp_sb_addc(b, '\\');
			lp_sb_addc(b, *s++);
			break;
		case '@':	/* an e-mail address: a zero-width space after */
			lp_sb_addc(b, *s++);
			if (mail_at(s - 1, e))
				lp_sb_adds(b, "\xe2\x80\x8b");
			break;
		/* HTML: a backslash, not an entity, so that a terminal reads
		 * the text as it renders ("->", "a > b", "R&D") */
		case '<':	/* a tag, an autolink */
			lp_sb_adds(b, "\\<");
			s++;
			break;
		case '>':	/* a block quote, only where a line starts */
			if (s == s0)
				lp_sb_addc(b, '\\');
			lp_sb_addc(b, *s++);
			break;
		case '&':	/* an entity: "&amp;", "&#60;" */
			if (s + 1 < e && (alnum((unsigned char)s[1]) || s[1] == '#'))
				lp_sb_addc(b, '\\');
			lp_sb_addc(b, *s++);
			break;
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

/* A paragraph: its inline text, then what would start another block at
 * its start escaped.  The text as written is what decides: a span of code
 * too long to fence comes out as text (code_n), so "``...`` # x" begins
 * with the '#' of a heading, not with a backtick. */
void
lp_md_para(struct lp_sb *b, const char *s)
{
	struct lp_sb t = { 0 };
	const char *o;
	size_t n;

	lp_md_inline(&t, s, 0);
	for (o = lp_sb_str(&t); space(*o); o++)
		;
	n = strspn(o, "0123456789");
	if (*o && strchr("#-+=>~", *o)) {
		lp_sb_addc(b, '\\');
		lp_sb_addc(b, *o++);
	} else if (n && n < 10 && (o[n] == '.' || o[n] == ')')) {
		lp_sb_addn(b, o, n);
		lp_sb_addc(b, '\\');
		lp_sb_addc(b, o[n]);
		o += n + 1;
	}
	lp_sb_adds(b, o);
	lp_sb_free(&t);
}

void
lp_md_name(struct lp_sb *b, const char *s)
{
	size_t i, run = 0, most = 0, len = strlen(s);
	int pad;

	for (i = 0; i < len; i++)
		if ((run = s[i] == '`' ? run + 1 : 0) > most)
			most = run;
	if (!most) {
		lp_sb_adds(b, s);
		return;
	}
	/* as code_n fences it, to be read back by lp_md_inline */
	pad = s[0] == '`' || s[len - 1] == '`' || (space(s[0]) &&
	    space(s[len - 1]));
	for (i = 0; i <= most; i++)
		lp_sb_addc(b, '`');
	if (pad)
		lp_sb_addc(b, ' ');
	lp_sb_adds(b, s);
	if (pad)
		lp_sb_addc(b, ' ');
	for (i = 0; i <= most; i++)
		lp_sb_addc(b, '`');
}
