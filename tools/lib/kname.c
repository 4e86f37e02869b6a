/*
 * Kernel names across tools.  nsys and ncu demangle the same symbol
 * differently: nsys keeps casts and namespaces ("internal::gemvx::kernel<
 * ..., (bool)0, ...>"), ncu drops them ("internal::kernel<..., 0, ...>").
 * lp joins on mangled names; when only demangled ones exist, this key is
 * the fallback, and callers accept a match only when it is unique.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lp.h"

static int
idstart(int c)
{
	return isalpha(c) || c == '_';
}

static int
idchar(int c)
{
	return isalnum(c) || c == '_';
}

/* At '(': length of a cast like "(bool)" or "(unsigned long)" that is
 * followed by a number, else 0. */
static size_t
cast_len(const char *s)
{
	size_t i = 1;

	if (!idstart((unsigned char)s[1]))
		return 0;
	while (idchar((unsigned char)s[i]) || s[i] == ' ' || s[i] == ':')
		i++;
	if (s[i] != ')')
		return 0;
	i++;
	if (isdigit((unsigned char)s[i]) ||
	    (s[i] == '-' && isdigit((unsigned char)s[i + 1])))
		return i;
	return 0;
}

char *
lp_kname_key(const char *name)
{
	struct lp_sb b = { 0 };
	const char *s = name;
	int space = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (!strncmp(s, "void ", 5))
		s += 5;
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n;

		if (isspace(c)) {
			space = 1;
			s++;
			continue;
		}
		if (space && b.len)
			lp_sb_addc(&b, ' ');
		space = 0;
		if (c == '(' && (n = cast_len(s))) {
			s += n;		/* "(bool)0" becomes "0" */
			continue;
		}
		/* anonymous namespaces, as each tool spells them */
		if (!strncmp(s, "<unnamed>::", 11)) {
			s += 11;
			continue;
		}
		if (!strncmp(s, "(anonymous namespace)::", 23)) {
			s += 23;
			continue;
		}
		if (idstart(c)) {
			const char *e = s;

			while (idchar((unsigned char)*e))
				e++;
			if (e[0] == ':' && e[1] == ':') {
				s = e + 2;	/* drop "ns::" */
				continue;
			}
			lp_sb_addn(&b, s, (size_t)(e - s));
			s = e;
			continue;
		}
		lp_sb_addc(&b, c);
		s++;
	}
	return lp_sb_steal(&b);
}

void
lp_md_escape(struct lp_sb *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			lp_sb_adds(b, "\\|");
		else if (*s == '\n' || *s == '\r' || *s == '\t')
			lp_sb_addc(b, ' ');
		else
			lp_sb_addc(b, *s);
	}
}

/* Copies s with the insides of bracket pairs open..close at depth >= 1
 * replaced by "...". */
static void
fold(struct lp_sb *b, const char *s, char open, char close)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == open) {
			if (depth++ == 0) {
				lp_sb_addc(b, open);
				lp_sb_adds(b, "...");
			}
		} else if (*s == close && depth > 0) {
			if (--depth == 0)
				lp_sb_addc(b, close);
		} else if (depth == 0)
			lp_sb_addc(b, *s);
	}
	if (depth > 0)
		lp_sb_addc(b, close);
}

void
lp_kname_md(struct lp_sb *b, const char *name, size_t max)
{
	struct lp_sb t = { 0 }, u = { 0 };
	const char *s = name;

	if (strlen(s) > max) {
		fold(&t, s, '<', '>');
		s = lp_sb_str(&t);
	}
	if (strlen(s) > max) {
		fold(&u, s, '(', ')');
		s = lp_sb_str(&u);
	}
	if (strlen(s) > max) {
		struct lp_sb v = { 0 };

		lp_sb_addn(&v, s, max > 3 ? max - 3 : 0);
		lp_sb_adds(&v, "...");
		lp_md_escape(b, lp_sb_str(&v));
		lp_sb_free(&v);
	} else
		lp_md_escape(b, s);
	lp_sb_free(&t);
	lp_sb_free(&u);
}
