/*
 * Order statistics of a stage's instances.  The per-instance reports are the
 * one input lp keeps whole, and only the durations of configured stages.
 */
#include <math.h>
#include <stdlib.h>

#include "util.h"

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
lp_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	lp_qsort(v, n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The q-quantile, linear between the order statistics around (n - 1) q
 * (Hyndman and Fan's type 7, R's and numpy's default); sorts v. */
double
lp_quantile(double *v, size_t n, double q)
{
	double h, lo;
	size_t i;

	if (!n)
		return NAN;
	lp_qsort(v, n, sizeof *v, cmp);
	h = (double)(n - 1) * q;
	lo = floor(h);
	i = (size_t)lo;
	return i + 1 < n ? v[i] + (h - lo) * (v[i + 1] - v[i]) : v[i];
}
