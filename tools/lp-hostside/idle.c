/*
 * lp-hostside's idle split: the time inside each instance when no kernel
 * ran on the GPU, by what the instance's thread was doing then (inside a
 * CUDA API call of some kind, or outside the API).  The kernels of
 * cuda_gpu_trace (all of them, any stream) are merged into busy spans as
 * they come, in start order; B(t), the busy time up to t, is known for
 * every t up to the start of the next kernel not read yet, so each
 * instance's bounds and each call's start and end are measured as the
 * sweep passes them.  A call's idle time is its duration less B(end) -
 * B(start).  Held: the instances' bounds in time order (two an instance)
 * and the calls the next kernel's start has not passed (a call in progress
 * on each thread).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "hostside.h"

/* The busy time (a kernel running) from the first kernel up to time x:
 * x at or after the open span's start (every kernel before x read). */
static double
busy_at(const struct idle *d, double x)
{
	double b = d->bdone;

	if (!isnan(d->bs) && x > d->bs)
		b += (x < d->be ? x : d->be) - d->bs;
	return b;
}

static int
by_time(const void *a, const void *b)
{
	const struct ibound *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

void
idle_init(struct st *t)
{
	struct idle *d = &t->idle;
	size_t i, k, n = 0;

	memset(d, 0, sizeof *d);
	d->bs = d->be = NAN;
	for (i = 0; i < t->ns; i++)
		n += t->s[i].n;
	d->b = lp_xcalloc(2 * n + 1, sizeof *d->b);
	for (i = 0; i < t->ns; i++)
		for (k = 0; k < t->s[i].n; k++) {
			struct ibound *x = &d->b[d->nb++];

			x->t = t->s[i].in[k].start;
			x->stage = i;
			x->inst = k;
			x->end = 0;
			x = &d->b[d->nb++];
			x->t = t->s[i].in[k].end;
			x->stage = i;
			x->inst = k;
			x->end = 1;
		}
	lp_qsort(d->b, d->nb, sizeof *d->b, by_time);
	d->on = 1;
}

void
idle_free(struct st *t)
{
	free(t->idle.b);
	free(t->idle.call);
	free(t->idle.cinst);
	free(t->idle.dev);
	memset(&t->idle, 0, sizeof t->idle);
}

/* A kernel's run on the GPU dev, from start to end, the kernels before
 * it read (cuda_gpu_trace is sorted by start).  The busy spans are one
 * GPU's: a second GPU is counted, and its idle time is not said. */
void
idle_kernel(struct st *t, double start, double end, const char *dev)
{
	struct idle *d = &t->idle;

	if (!d->on)
		return;
	if (!d->dev) {
		d->dev = lp_xstrdup(dev);
		d->devs = 1;
	} else if (strcmp(d->dev, dev))
		d->devs = 2;
	if (isnan(d->bs)) {
		d->bs = start;
		d->be = end;
	} else if (start <= d->be) {
		if (end > d->be)
			d->be = end;
	} else {
		d->bdone += d->be - d->bs;
		d->bs = start;
		d->be = end;
	}
}

/* A call of kind k inside the stages' instances inst[0 .. ns - 1] (-1:
 * none of that stage), every kernel before its start read. */
void
idle_call(struct st *t, int k, double start, double dur, const long *inst)
{
	struct idle *d = &t->idle;
	struct icall *c;

	if (!d->on)
		return;
	if (d->ncall == d->capcall) {
		d->capcall = d->capcall ? 2 * d->capcall : 16;
		d->call = lp_xreallocarray(d->call, d->capcall, sizeof *d->call);
		d->cinst = lp_xreallocarray(d->cinst, d->capcall * t->ns,
		    sizeof *d->cinst);
	}
	c = &d->call[d->ncall];
	c->end = start + dur;
	c->dur = dur;
	c->b0 = busy_at(d, start);
	c->kind = k;
	memcpy(d->cinst + d->ncall * t->ns, inst, t->ns * sizeof *inst);
	d->ncall++;
}

/* The call in slot j measured, its idle time credited to its instances'
 * kind; the last call moves to its slot. */
static void
call_done(struct st *t, size_t j)
{
	struct idle *d = &t->idle;
	const struct icall *c = &d->call[j];
	double idle = c->dur - (busy_at(d, c->end) - c->b0);
	size_t i;

	for (i = 0; i < t->ns; i++) {
		long in = d->cinst[j * t->ns + i];

		if (in >= 0)
			t->s[i].in[in].idle[c->kind] += idle;
	}
	if (j + 1 < d->ncall) {
		d->call[j] = d->call[d->ncall - 1];
		memcpy(d->cinst + j * t->ns, d->cinst + (d->ncall - 1) * t->ns,
		    t->ns * sizeof *d->cinst);
	}
	d->ncall--;
}

/* Every bound and call end at or before x measured: x is the start of the
 * next kernel not read (INFINITY once the GPU trace is read). */
void
idle_upto(struct st *t, double x)
{
	struct idle *d = &t->idle;
	size_t j;

	if (!d->on)
		return;
	for (; d->ib < d->nb && d->b[d->ib].t <= x; d->ib++) {
		const struct ibound *b = &d->b[d->ib];
		struct inst *in = &t->s[b->stage].in[b->inst];

		if (!b->end)
			in->b0 = busy_at(d, b->t);
		else
			in->gidle += in->end - in->start - (busy_at(d, b->t) -
			    in->b0);
	}
	for (j = 0; j < d->ncall;)
		if (d->call[j].end <= x)
			call_done(t, j);
		else
			j++;
}
