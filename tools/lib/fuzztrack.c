/*
 * The fuzz build's allocation tracker and deferred frees (fuzztrack.h):
 * compiled only by make fuzz, with -DLP_FUZZ, never into bin/liblp.a.
 */
#ifndef LP_FUZZ
#error "fuzztrack.c is built only for fuzzing (make fuzz, -DLP_FUZZ)"
#endif
#include <stdint.h>
#include <stdlib.h>

#include "fuzztrack.h"

#undef free	/* the real one, under the tracking one */

jmp_buf *lp_fuzz_jmp;

/* The tracked blocks: an open-addressing set of pointers. */
static void **trk;
static size_t trk_cap, trk_n, trk_used;
#define TRK_GONE ((void *)1)

static size_t
trk_hash(const void *p)
{
	uintptr_t x = (uintptr_t)p;

	x ^= x >> 17;
	x *= 0xed5ad4bbU;
	x ^= x >> 11;
	return (size_t)x;
}

static void
trk_add(void *p)
{
	size_t i;

	if ((trk_used + 1) * 2 > trk_cap) {
		void **old = trk;
		size_t oc = trk_cap, j;

		trk_cap = trk_cap ? 2 * trk_cap : 1024;
		if (trk_n * 4 < oc)	/* mostly tombstones: same size */
			trk_cap = oc;
		trk = calloc(trk_cap, sizeof *trk);
		if (!trk)
			abort();
		trk_n = trk_used = 0;
		for (j = 0; j < oc; j++)
			if (old[j] && old[j] != TRK_GONE)
				trk_add(old[j]);
		free(old);
	}
	for (i = trk_hash(p) & (trk_cap - 1); trk[i] && trk[i] != TRK_GONE;
	    i = (i + 1) & (trk_cap - 1))
		;
	if (!trk[i])
		trk_used++;
	trk[i] = p;
	trk_n++;
}

static int
trk_del(void *p)
{
	size_t i;

	if (!trk_cap || !p)
		return 0;
	for (i = trk_hash(p) & (trk_cap - 1); trk[i];
	    i = (i + 1) & (trk_cap - 1))
		if (trk[i] == p) {
			trk[i] = TRK_GONE;
			trk_n--;
			return 1;
		}
	return 0;
}

void
lp_fuzz_track(void *p)
{
	trk_add(p);
}

void
lp_fuzz_untrack(void *p)
{
	trk_del(p);
}

void
lp_fuzz_free(void *p)
{
	trk_del(p);
	free(p);
}

void *
lp_fuzz_realloc(void *p, size_t n)
{
	void *q;

	trk_del(p);
	q = realloc(p, n);
	if (q)
		trk_add(q);
	else if (p)
		trk_add(p);
	return q;
}

static struct { void (*fn)(void *); void *arg; } defers[16];
static size_t ndefers;

void
lp_fuzz_defer(void (*fn)(void *), void *arg)
{
	if (ndefers == sizeof defers / sizeof defers[0])
		abort();
	defers[ndefers].fn = fn;
	defers[ndefers++].arg = arg;
}

void
lp_fuzz_undefer(void)
{
	if (!ndefers)
		abort();
	ndefers--;
}

size_t
lp_fuzz_live(void)
{
	return trk_n + ndefers;
}

void
lp_fuzz_reset(void)
{
	size_t i;

	while (ndefers) {
		ndefers--;
		defers[ndefers].fn(defers[ndefers].arg);
	}
	for (i = 0; i < trk_cap; i++) {
		if (trk[i] && trk[i] != TRK_GONE)
			free(trk[i]);
		trk[i] = NULL;
	}
	trk_n = trk_used = 0;
}
