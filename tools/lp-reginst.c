/*
 * lp-reginst: region_instances.tsv, every instance of every NVTX region as
 * ncu measured it, beside nsys's projection of the same instance on the GPU
 * (the k-th instance of the k-th process of each), the first of each
 * process flagged when it is far above the steady state.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "run.h"

static const char synopsis[] =
    "lp-reginst -c config.yaml [-p nvtx_gpu_proj_trace.csv] [-w ratio] -l exports.list";

/* Process index and instance index within it, in order of appearance. */
static void
place(const struct lp_rinsts *x, size_t i, size_t *proc, size_t *k)
{
	size_t a, b;

	*proc = *k = 0;
	for (a = 0; a < i; a++)
		if (!strcmp(x->in[a].pid, x->in[i].pid))
			(*k)++;
	for (a = 0; a < x->n; a++) {
		int first = 1;

		for (b = 0; b < a && first; b++)
			first = strcmp(x->in[b].pid, x->in[a].pid) != 0;
		if (!first)
			continue;
		if (!strcmp(x->in[a].pid, x->in[i].pid))
			return;
		(*proc)++;
	}
}

static const struct lp_col cols[] = {
	{ "path", "Region", "text" }, { "instance", "#", "int" },
	{ "process", "Process", "text" }, { "device", "Device", "text" },
	{ "gpu_ns", "On GPU, ncu (ms)", "ms" },
	{ "nsys_gpu_ns", "On GPU, nsys (ms)", "ms" },
	{ "ncu_over_nsys", "ncu / nsys", "x" },
	{ "gpu_ops", "GPU ops (nsys)", "int" },
	{ "first", "Warm-up", "text" },
	{ "sm_pct", "SM %", "num1" }, { "dram_pct", "DRAM %", "num1" },
	{ "flop_tensor", "Tensor FLOP", "flop" },
	{ "dram_bytes", "DRAM", "bytes" },
};

static void
emit_meta(FILE *out, const struct lp_rset *rs, const struct lp_regopts *o)
{
	(void)rs;
	lp_tab_meta(out, "title", "Region Instances");
	lp_tab_meta(out, "tool", "lp-reginst");
	lp_tab_meta(out, "source", "each instance's GPU duration, SOL %% , "
	    "tensor-core FLOPs and DRAM bytes from ncu (exports listed in %s); "
	    "the same instance projected on the GPU by nsys (%s)", o->lpath,
	    o->ppath ? o->ppath : "no nvtx_gpu_proj_trace");
	lp_tab_meta(out, "note", "ncu's run and nsys's are two executions: an "
	    "instance is paired with nsys's by its order in its process. The "
	    "first instance of a process is a warm-up when it took more than %g "
	    "times the median of the others.", o->ratio);
}

/* nsys's instance paired with ncu's i-th (the k-th of the p-th process of
 * each, processes in order of their first instance), or NULL; *k gets i's
 * index within its process. */
static const struct lp_rinst *
nsys_twin(const struct lp_rinsts *x, size_t i, const struct lp_rnsys *y,
    size_t *k)
{
	size_t p;

	place(x, i, &p, k);
	if (p < y->np && *k < y->p[p].n)
		return &y->p[p].in[*k];
	return NULL;
}

/* What ncu counted in the instance: SOL %, tensor-core FLOPs, DRAM bytes. */
static void
emit_counters(struct lp_row *r, const struct lp_rinst *in)
{
	double ft = 0;
	int q;

	if (in->have_sm)
		lp_row_num(r, in->sm, 2);
	else
		lp_row_text(r, "n/a");
	if (in->have_dram)
		lp_row_num(r, in->dram, 2);
	else
		lp_row_text(r, "n/a");
	for (q = 0; q < LP_FP_FP32; q++)
		ft += in->f.f[q];
	if (in->f.have_tensor)
		lp_row_num(r, ft, 0);
	else
		lp_row_na(r, "no tensor-core counters");
	if (in->have_bytes)
		lp_row_num(r, in->bytes, 0);
	else
		lp_row_na(r, "no dram__bytes.sum");
}

/* The i-th instance of region PATH beside its nsys twin; the first of its
 * process flagged against the region's steady state. */
static void
emit_instance(FILE *out, struct lp_row *r, const char *path,
    const struct lp_rinsts *x, size_t i, const struct lp_rnsys *y,
    double steady, const struct lp_regopts *o)
{
	const struct lp_rinst *in = &x->in[i], *ny;
	size_t k;

	ny = nsys_twin(x, i, y, &k);
	lp_row_text(r, path);
	lp_row_num(r, (double)(i + 1), 0);
	lp_row_text(r, in->pid);
	lp_row_text(r, *in->device ? in->device : "-");
	lp_row_num(r, in->gpu_ns, 0);
	if (ny) {
		lp_row_num(r, ny->gpu_ns, 0);
		lp_row_g(r, in->gpu_ns / ny->gpu_ns);
		if (isnan(ny->ops))
			lp_row_text(r, "n/a");
		else
			lp_row_num(r, ny->ops, 0);
	} else {
		lp_row_na(r, "%s", o->ppath ? "nsys has no such instance" :
		    "the run has no nvtx_gpu_proj_trace report");
		lp_row_text(r, "n/a");
		lp_row_text(r, "n/a");
	}
	lp_row_text(r, k == 0 && !isnan(steady) &&
	    in->gpu_ns > o->ratio * steady ? "yes" : k == 0 &&
	    !isnan(steady) ? "no" : "-");
	emit_counters(r, in);
	lp_row_end(r, out);
}

static void
emit_region(FILE *out, struct lp_row *r, struct lp_rset *rs, size_t j,
    const struct lp_regopts *o)
{
	const struct lp_rinsts *x = &rs->ncu[j];
	char *path = lp_region_path(rs->rg, rs->n, j);
	double first, steady = lp_rinsts_steady(x, &first);
	size_t i;

	for (i = 0; i < x->n; i++)
		emit_instance(out, r, path, x, i, &rs->nsys[j], steady, o);
	free(path);
}

int
main(int argc, char **argv)
{
	/* instances are paired, not summed up: no steady state */
	static const struct lp_regtool t = { "c:l:p:w:", synopsis, cols,
	    sizeof cols / sizeof cols[0], 1, emit_meta, emit_region };

	return lp_regtool_main(argc, argv, &t);
}
