/*
 * lp-hostside's helpers, beside the main and the parts that call them: a
 * call's kind by its name, and the instance of a stage that holds a time.
 */
#include <string.h>

#include "hostside.h"

static int
prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* The kind of a call, by its name without nsys's version suffix
 * ("cudaStreamIsCapturing_v10000"); lp-hostside(1) lists them. */
int
kind_of(const char *name)
{
	static const char *const copy[] = { "cudaMemcpy", "cuMemcpy",
		"cudaMemset", "cuMemset", NULL };
	static const char *const load[] = { "cuModuleLoad", "cuLibraryLoad",
		"cudaLibraryLoad", "cuLinkCreate", "cuLinkAdd", "cuLinkComplete",
		"cuModuleGetFunction", "cuLibraryGetKernel", "cuLibraryGetModule",
		"cuKernelGetFunction", NULL };
	size_t i;

	if (lp_capi_launch(name))
		return K_LAUNCH;
	if (strstr(name, "Synchronize"))
		return K_SYNC;
	for (i = 0; copy[i]; i++)
		if (prefix(name, copy[i]))
			return K_MEMCPY;
	for (i = 0; load[i]; i++)
		if (prefix(name, load[i]))
			return K_LOAD;
	return K_OTHER;
}

/* Does time t fall inside an instance of g (any process and thread)? */
int
inside_any(const struct stage *g, double t)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->bystart[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && g->maxend[lo - 1] > t;
}

/* Does instance m come at or before (pid, tid, t) in g's order? */
static int
at_or_before(const struct inst *m, const char *pid, const char *tid,
    double t)
{
	int c = strcmp(m->pid, pid);

	if (!c)
		c = strcmp(m->tid, tid);
	return c < 0 || (!c && m->start <= t);
}

/* The instance of g on thread (pid, tid) holding time t, or NULL.  The
 * last answer's place is tried first: calls come in time order, so it is
 * nearly always where the next one lies. */
struct inst *
find(struct stage *g, const char *pid, const char *tid, double t)
{
	size_t lo = g->hint, hi = g->n;
	struct inst *x;

	/* the last instance at or before (pid, tid, t) */
	if (lo > g->n || (lo && !at_or_before(&g->in[lo - 1], pid, tid, t)) ||
	    (lo < g->n && at_or_before(&g->in[lo], pid, tid, t))) {
		lo = 0;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (at_or_before(&g->in[mid], pid, tid, t))
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	g->hint = lo;
	if (!lo)
		return NULL;
	x = &g->in[lo - 1];
	if (strcmp(x->pid, pid) || strcmp(x->tid, tid) || t >= x->end)
		return NULL;
	return x;
}
