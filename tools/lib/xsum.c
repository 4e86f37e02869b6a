/*
 * Sums that do not depend on the order of their terms.  A double sum
 * rounds after each add, so the same numbers added in another order (an
 * export's rows, which nsys 2025.6 no longer promises in any order) can
 * end a few units in the last place apart, and a table shown to two
 * decimals says 5.90 one time and 5.91 the next.  Here each term is cut
 * to a multiple of 2^-64 (the same cut whatever the order) and added
 * exactly, in 256 bits of fixed point.  The terms are never negative, so
 * a sum past 2^192 is past it in any order: it reads as infinite.
 */
#include <math.h>
#include <stdint.h>

#include "util.h"

/* w += x << sh (sh < 256), carried up; past w[3] the sum is infinite. */
static void
add_at(struct lp_xsum *s, uint64_t x, int sh)
{
	int q = sh / 64, r = sh % 64, i;
	uint64_t part[2], c = 0;

	part[0] = x << r;
	part[1] = r ? x >> (64 - r) : 0;
	for (i = q; i < 4; i++) {
		uint64_t a = i - q < 2 ? part[i - q] : 0, t = s->w[i] + a;
		uint64_t c2 = t < a;

		s->w[i] = t + c;
		c = c2 + (s->w[i] < c);
	}
	if (c || (q == 3 && part[1]))
		s->inf = 1;
}

void
lp_xsum_add(struct lp_xsum *s, double v)
{
	int e, sh;
	uint64_t m;

	if (!(v >= 0))
		lp_die(LP_EXIT_USAGE, "lp_xsum_add: %g is not a number from 0 "
		    "(a caller's check is missing)", v);
	if (v == 0)
		return;
	if (isinf(v)) {
		s->inf = 1;
		return;
	}
	m = (uint64_t)ldexp(frexp(v, &e), 53);	/* v = m 2^(e - 53) */
	sh = e - 53 + 64;			/* in units of 2^-64 */
	if (sh < 0) {
		m = -sh < 64 ? m >> -sh : 0;
		sh = 0;
	}
	if (sh >= 256)
		s->inf = 1;
	else
		add_at(s, m, sh);
}

void
lp_xsum_addx(struct lp_xsum *s, const struct lp_xsum *t)
{
	int i;

	for (i = 0; i < 4; i++)
		add_at(s, t->w[i], 64 * i);
	s->inf |= t->inf;
}

double
lp_xsum_get(const struct lp_xsum *s)
{
	if (s->inf)
		return INFINITY;
	return ldexp((double)s->w[3], 128) + ldexp((double)s->w[2], 64) +
	    (double)s->w[1] + ldexp((double)s->w[0], -64);
}
