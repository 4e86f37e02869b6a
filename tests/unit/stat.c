/* stat.c: lp_vals's quantiles and medians are lp_quantile's and
 * lp_median's of the same numbers, to the bit, whatever the order of the
 * adds and the repeats, of one multiset or two together. */
#include <math.h>
#include <stdlib.h>

#include "util.h"
#include "tap.h"

/* same: equal, or both NAN */
static int
same(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/* Adds n values of a pseudo-random series (spread distinct, or few
 * distinct with repeats) to s and to a copy in v; checks p0 to p100. */
static int
check(struct lp_vals *s, double *v, size_t n, unsigned seed, unsigned mod)
{
	static const double q[] = { 0, 0.1, 0.25, 0.5, 0.9, 0.99, 1 };
	double *w = lp_xcalloc(n + 1, sizeof *w);
	size_t i, k;
	int bad = 0;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = (double)(seed % mod) * 1.5;
		lp_vals_add(s, v[i]);
	}
	for (k = 0; k < sizeof q / sizeof q[0]; k++) {
		memcpy(w, v, n * sizeof *w);
		bad += !same(lp_vals_quantile(s, q[k]), lp_quantile(w, n, q[k]));
	}
	memcpy(w, v, n * sizeof *w);
	bad += !same(lp_vals_median(s), lp_median(w, n));
	free(w);
	return !bad;
}

int
main(void)
{
	static const size_t ns[] = { 0, 1, 2, 3, 10, 4095, 4096, 4097, 100000 };
	double *v = lp_xcalloc(200001, sizeof *v);
	struct lp_vals a = { 0 }, b = { 0 }, m = { 0 };
	size_t i;

	for (i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		struct lp_vals s = { 0 };

		ok(check(&s, v, ns[i], 7 + (unsigned)i, 1000003),
		    "%zu spread values", ns[i]);
		lp_vals_free(&s);
		ok(check(&s, v, ns[i], 11 + (unsigned)i, 37),
		    "%zu values, 37 distinct", ns[i]);
		ok(s.nd <= 37, "kept as at most 37 distinct values");
		lp_vals_free(&s);
	}
	/* two together: the quantiles of their union */
	check(&a, v, 100000, 3, 5000);
	check(&b, v + 100000, 100000, 5, 100);
	{
		double *w = lp_xcalloc(200001, sizeof *w);

		memcpy(w, v, 200000 * sizeof *w);
		ok(same(lp_vals_quantile2(&a, &b, 0.9), lp_quantile(w, 200000, 0.9)),
		    "p90 of two together");
		memcpy(w, v, 200000 * sizeof *w);
		ok(same(lp_vals_quantile2(&b, &a, 0.5), lp_quantile(w, 200000, 0.5)),
		    "p50 of two together, either first");
		ok(same(lp_vals_quantile2(&m, &a, 0.25), lp_vals_quantile(&a, 0.25)),
		    "with an empty one");
		ok(isnan(lp_vals_quantile2(&m, NULL, 0.5)), "none: NAN");
		free(w);
	}
	lp_vals_free(&a);
	lp_vals_free(&b);
	lp_vals_free(&m);
	free(v);
	return tap_done();
}
