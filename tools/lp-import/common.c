/*
 * lp-import's helpers, for the main and its parts alike: the names of the
 * kinds and reports, counts by name, and the sets of keys the checks
 * compare.
 */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "import.h"

const char *const rep_var[R_N] = {
	"cuda_gpu_kern_sum", "cuda_gpu_kern_sum_mangled", "nvtx_sum",
	"nvtx_kern_sum", "nvtx_kern_sum_mangled", "cuda_api_sum",
	"cuda_gpu_mem_time_sum", "nvtx_pushpop_trace", "nvtx_gpu_proj_trace",
	"cuda_gpu_trace", "cuda_gpu_trace_mangled", "cuda_api_trace",
	"graph_node_trace",
};

const char *const kind_name[] = {
	"not an export lp knows", "nsys cuda_gpu_kern_sum", "nsys nvtx_sum",
	"nsys nvtx_kern_sum", "nsys cuda_api_sum", "nsys cuda_gpu_mem_time_sum",
	"nsys nvtx_pushpop_trace", "nsys nvtx_gpu_proj_trace",
	"nsys nvtx_gpu_proj_sum (not read)",
	"an empty file (not read: nsys stats writes one for a report without "
	"rows)",
	"an nsys summary of calls that are not CUDA API calls (not read: "
	"osrt_sum, or another report lp does not read)", "nsys cuda_gpu_trace",
	"nsys cuda_api_trace", "lp-graphnodes graph_node_trace",
	"ncu kernel export",
	"ncu range export (regions)", "nsys report", "ncu report",
	"ncu report of regions",
	"nsys sqlite export with GPU Metrics samples (GPU_METRICS)",
	"nsys sqlite export without GPU Metrics samples (not read: no table "
	"GPU_METRICS)",
};

void
counts_add(struct counts *c, const char *key, double n, double t, int mode)
{
	long i = lp_map_get(c->idx, key, -1);

	if (i < 0) {
		if (c->len == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 64;
			c->n = lp_xreallocarray(c->n, c->cap, sizeof *c->n);
			c->t = lp_xreallocarray(c->t, c->cap, sizeof *c->t);
			c->lo = lp_xreallocarray(c->lo, c->cap, sizeof *c->lo);
			c->hi = lp_xreallocarray(c->hi, c->cap, sizeof *c->hi);
		}
		i = (long)c->len++;
		c->n[i] = c->t[i] = 0;
		c->lo[i] = c->hi[i] = t;
		lp_map_put(c->idx, key, i);
	}
	if (mode == C_SUM) {
		c->n[i] += n;
		c->t[i] += t;
		return;
	}
	if (n > c->n[i]) {
		c->n[i] = n;
		c->lo[i] = c->hi[i] = t;
	} else if (n == c->n[i]) {
		c->lo[i] = t < c->lo[i] ? t : c->lo[i];
		c->hi[i] = t > c->hi[i] ? t : c->hi[i];
	}
	c->t[i] = t > c->t[i] ? t : c->t[i];
}

double
counts_get(const struct counts *c, const char *key)
{
	long i = lp_map_get(c->idx, key, -1);

	return i < 0 ? -1 : c->n[i];
}

double
counts_time(const struct counts *c, const char *key)
{
	long i = lp_map_get(c->idx, key, -1);

	return i < 0 ? -1 : c->t[i];
}

void
counts_free(struct counts *c)
{
	lp_map_free(c->idx);
	free(c->n);
	free(c->t);
	free(c->lo);
	free(c->hi);
	memset(c, 0, sizeof *c);
}

void
counts_total(const struct counts *c, double *n, double *t)
{
	size_t i;

	*n = *t = 0;
	for (i = 0; i < c->len; i++) {
		*n += c->n[i];
		*t += c->t[i];
	}
}

/* Most names decide: one odd name does not turn an export around. */
int
imp_variant(const struct file *f)
{
	return f->mang > f->dem ? 1 : f->dem ? 0 : -1;
}

void
imp_put(struct lp_map *m, const char *key)
{
	if (*key && lp_map_get(m, key, -1) < 0)
		lp_map_put(m, key, 1);
}

const char *
imp_shared(const struct lp_map *a, const struct lp_map *b)
{
	size_t i;

	if (!a || !b)
		return NULL;
	for (i = 0; i < lp_map_len(a); i++)
		if (lp_map_get(b, lp_map_key(a, i), -1) >= 0)
			return lp_map_key(a, i);
	return NULL;
}

char *
imp_gpu_model(const char *dev)
{
	return lp_xstrndup(dev, lp_gpu_model_len(dev));
}
