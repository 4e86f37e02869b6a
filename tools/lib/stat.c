/*
 * Order statistics of a stage's instances.  The per-instance reports are the
 * one input lp keeps whole, and only the durations of configured stages.
 */
#include <math.h>
#include <stdlib.h>

#include "lp.h"

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
