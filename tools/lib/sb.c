/* Growable NUL-terminated strings. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void
grow(struct lp_sb *b, size_t more)
{
	size_t need = b->len + more + 1;

	if (need <= b->cap)
		return;
	b->cap = b->cap ? b->cap : 64;
	while (b->cap < need)
		b->cap *= 2;
	b->s = lp_xrealloc(b->s, b->cap);
}

void
lp_sb_room(struct lp_sb *b, size_t n)
{
	grow(b, n);
}

void
lp_sb_addn(struct lp_sb *b, const char *s, size_t n)
{
	grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
lp_sb_adds(struct lp_sb *b, const char *s)
{
	lp_sb_addn(b, s, strlen(s));
}

void
lp_sb_addc(struct lp_sb *b, int c)
{
	char ch = (char)c;

	lp_sb_addn(b, &ch, 1);
}

void
lp_sb_vprintf(struct lp_sb *b, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		lp_die_sys("vsnprintf");
	grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
lp_sb_printf(struct lp_sb *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lp_sb_vprintf(b, fmt, ap);
	va_end(ap);
}

void
lp_sb_reset(struct lp_sb *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

const char *
lp_sb_str(struct lp_sb *b)
{
	return b->s ? b->s : "";
}

char *
lp_sb_steal(struct lp_sb *b)
{
	char *s = b->s ? b->s : lp_xstrdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void
lp_sb_free(struct lp_sb *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}
