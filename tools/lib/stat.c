/*
 * Order statistics of a stage's instances.  The per-instance reports are the
 * one input lp keeps whole, and only the durations of configured stages.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The buffer merged into the distinct values: sorted, then merged from the
 * back into v and c grown to the merged length, in place (a slot is
 * written only after the old value there was read). */
static void
vals_flush(struct lp_vals *s)
{
	size_t i, j, m, k;

	if (!s->nb)
		return;
	lp_qsort(s->buf, s->nb, sizeof *s->buf, cmp);
	/* the merged length: the old values and the buffer's new ones */
	for (m = s->nd, i = j = 0; i < s->nb; i++) {
		if (i && s->buf[i] == s->buf[i - 1])
			continue;
		while (j < s->nd && s->v[j] < s->buf[i])
			j++;
		m += !(j < s->nd && s->v[j] == s->buf[i]);
	}
	if (m > s->nd) {
		s->v = lp_xreallocarray(s->v, m, sizeof *s->v);
		s->c = lp_xreallocarray(s->c, m, sizeof *s->c);
	}
	i = s->nb;
	j = s->nd;
	for (k = m; k > 0; ) {
		double x = i && (!j || s->buf[i - 1] > s->v[j - 1]) ?
		    s->buf[i - 1] : s->v[j - 1];
		uint64_t c = 0;

		if (j && s->v[j - 1] == x)
			c = s->c[--j];
		while (i && s->buf[i - 1] == x) {
			c++;
			i--;
		}
		/* 2^32 times one value: 40 GB of trace rows at the least */
		if (c > UINT32_MAX)
			lp_die(LP_EXIT_DATA, "more than %lu values equal to %g: "
			    "lp counts at most that many of one value",
			    (unsigned long)UINT32_MAX, x);
		s->v[--k] = x;
		s->c[k] = (uint32_t)c;
	}
	s->nd = m;
	s->nb = 0;
}

void
lp_vals_add(struct lp_vals *s, double x)
{
	/* merged when the buffer holds an eighth of the distinct values (at
	 * least 4096): a merge's cost is paid by an eighth as many adds,
	 * and the buffer adds a byte a distinct value */
	if (s->nb == s->capb) {
		if (s->nb >= 4096 && s->nb >= s->nd / 8)
			vals_flush(s);
		else {
			s->capb = s->capb ? 2 * s->capb : 256;
			s->buf = lp_xreallocarray(s->buf, s->capb, sizeof *s->buf);
		}
	}
	s->buf[s->nb++] = x;
	s->n++;
}

/* The k-th smallest (from 0) of the values of a and b (b may be NULL). */
static double
vals_at(const struct lp_vals *a, const struct lp_vals *b, double k)
{
	size_t i = 0, j = 0, nb = b ? b->nd : 0;
	double below = 0, x = NAN, c;

	while (i < a->nd || j < nb) {
		if (j == nb || (i < a->nd && a->v[i] <= b->v[j])) {
			x = a->v[i];
			c = (double)a->c[i++];
		} else {
			x = b->v[j];
			c = (double)b->c[j++];
		}
		if ((below += c) > k)
			break;
	}
	return x;
}

double
lp_vals_quantile2(struct lp_vals *a, struct lp_vals *b, double q)
{
	double h, lo, x, n = a->n + (b ? b->n : 0);

	if (!(n > 0))
		return NAN;
	vals_flush(a);
	if (b)
		vals_flush(b);
	h = (n - 1) * q;
	lo = floor(h);
	x = vals_at(a, b, lo);
	return lo + 1 < n ? x + (h - lo) * (vals_at(a, b, lo + 1) - x) : x;
}

double
lp_vals_quantile(struct lp_vals *s, double q)
{
	return lp_vals_quantile2(s, NULL, q);
}

double
lp_vals_median(struct lp_vals *s)
{
	double h;

	if (!s->n)
		return NAN;
	vals_flush(s);
	h = floor(s->n / 2);
	return fmod(s->n, 2) ? vals_at(s, NULL, h) : (vals_at(s, NULL, h - 1) +
	    vals_at(s, NULL, h)) / 2;
}

void
lp_vals_free(struct lp_vals *s)
{
	free(s->v);
	free(s->c);
	free(s->buf);
	memset(s, 0, sizeof *s);
}
