/* xsum.c: the same terms in any order give the same sum, to the bit;
 * whole numbers add up exactly; carries cross the 64-bit words; a sum
 * past 2^192 is infinite; a negative term is refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "tap.h"

/* v in a pseudo-random order */
static void
shuffle(double *v, size_t n, unsigned seed)
{
	size_t i, j;
	double t;

	for (i = n; i > 1; i--) {
		seed = seed * 1103515245u + 12345u;
		j = (seed >> 8) % i;
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

static double
sum(const double *v, size_t n)
{
	struct lp_xsum s = { { 0 }, 0 };
	size_t i;

	for (i = 0; i < n; i++)
		lp_xsum_add(&s, v[i]);
	return lp_xsum_get(&s);
}

static void
negative(const void *arg)
{
	struct lp_xsum s = { { 0 }, 0 };

	(void)arg;
	lp_xsum_add(&s, -1);
}

int
main(void)
{
	enum { N = 20000 };
	double *v = lp_xcalloc(N, sizeof *v), a, b, d = 0;
	struct lp_xsum s = { { 0 }, 0 }, t = { { 0 }, 0 };
	unsigned seed = 7;
	size_t i;
	int same = 1, k;

	lp_init("xsum");
	/* percentages to two places, as ncu prints them, scaled bytes */
	for (i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = (seed >> 8) % 10000 / 100.0 * (i % 3 ? 1 : 1e9);
	}
	a = sum(v, N);
	for (k = 0; k < 5; k++) {
		shuffle(v, N, 31u + (unsigned)k);
		same &= sum(v, N) == a;
	}
	ok(same, "%d terms in 6 orders: one sum, to the bit", N);
	for (i = 0; i < N; i++)
		d += v[i];
	ok(fabs(a - d) <= 1e-9 * a, "and a double sum's, to 1e-9");
	for (i = 0; i < N; i++)
		v[i] = (double)(i + 1);
	ok(sum(v, N) == (double)N * (N + 1) / 2, "whole numbers exactly");
	lp_xsum_add(&s, ldexp(1, 63));
	lp_xsum_add(&s, ldexp(1, 63));
	lp_xsum_add(&s, ldexp(1, -64));
	ok(s.w[2] == 1 && s.w[1] == 0 && s.w[0] == 1 && !s.w[3], "2^63 + 2^63 "
	    "+ 2^-64: the carry crosses a word");
	lp_xsum_add(&s, ldexp(1, -70));
	ok(s.w[0] == 1, "below 2^-64: cut");
	lp_xsum_addx(&t, &s);
	lp_xsum_addx(&t, &s);
	ok(lp_xsum_get(&t) == ldexp(1, 65), "a sum added to another");
	b = lp_xsum_get(&(struct lp_xsum){ { 0 }, 0 });
	ok(b == 0, "zeroed is 0");
	memset(&t, 0, sizeof t);
	lp_xsum_add(&t, ldexp(1, 191));
	ok(lp_xsum_get(&t) == ldexp(1, 191), "2^191");
	lp_xsum_add(&t, ldexp(1, 191));
	ok(isinf(lp_xsum_get(&t)), "2^191 + 2^191: past 2^192, infinite");
	memset(&t, 0, sizeof t);
	lp_xsum_add(&t, 1e300);
	ok(isinf(lp_xsum_get(&t)), "1e300: infinite");
	free(v);
	/* (after the free: the child exits through lp_die, and under
	 * ASan a block still held then is a leak, exit 23) */
	ok(tap_exit(negative, NULL) == LP_EXIT_USAGE, "a negative term: refused");
	return tap_done();
}
