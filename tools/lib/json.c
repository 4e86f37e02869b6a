/*
 * JSON (RFC 8259), as env.json and the region files need it: strings
 * escaped, and valid UTF-8 whatever the name held (a byte that is not
 * UTF-8 becomes U+FFFD); a number only where the value is one and is
 * spelled as JSON spells numbers ("007", ".5", "1,000" and "inf" are not).
 */
#include <ctype.h>
#include <string.h>

#include "esc.h"

void
lp_json_str(FILE *fp, const char *s)
{
	long c;
	size_t n;

	fputc('"', fp);
	for (; *s; s += n) {
		n = lp_utf8_dec(s, &c);
		switch (c) {
		case '"': fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\r': fputs("\\r", fp); break;
		case '\t': fputs("\\t", fp); break;
		case -1: fputs("\\ufffd", fp); break;
		default:
			if (c < 0x20)
				fprintf(fp, "\\u%04lx", c);
			else
				fwrite(s, 1, n, fp);
		}
	}
	fputc('"', fp);
}

static size_t
digits(const char *s)
{
	size_t n = 0;

	while (isdigit((unsigned char)s[n]))
		n++;
	return n;
}

int
lp_json_isnum(const char *s)
{
	size_t n;

	if (*s == '-')
		s++;
	if (!(n = digits(s)) || (s[0] == '0' && n > 1))
		return 0;
	s += n;
	if (*s == '.') {
		if (!(n = digits(++s)))
			return 0;
		s += n;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(n = digits(s)))
			return 0;
		s += n;
	}
	return !*s;
}

void
lp_json_val(FILE *fp, const char *s, int num)
{
	if (num && lp_json_isnum(s))
		fputs(s, fp);
	else
		lp_json_str(fp, s);
}
