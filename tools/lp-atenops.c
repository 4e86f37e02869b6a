/*
 * lp-atenops: aten_ops.tsv, the GPU time of each PyTorch operator per
 * stage, from a capture made with nsys profile
 * --pytorch=autograd-shapes-nvtx: one row per (op, input shapes) of each
 * stage (-N: per op name), with its calls, kernel time, kernels per call,
 * host time per call, kernel names and share of the stage's kernel time.
 *
 * Each kernel launch call (cuda_api_trace) belongs to the innermost op
 * range open on its thread at the call's start (nvtx_pushpop_trace), and
 * the kernel's GPU time (cuda_gpu_trace) to the launch by correlation ID.
 * The three traces are sorted by start time and swept together, ranges
 * before launches before kernels at equal times; a kernel starts on the
 * GPU after its launch call starts, so only launches whose kernel has not
 * started yet are held.  Memory follows the distinct (stage, op, shapes)
 * rows, the depth of the open ranges and the kernels in flight, not the
 * number of ranges or launches.
 *
 * A CUDA graph's kernels all carry the correlation ID of its
 * cudaGraphLaunch, and PyTorch pushed their op ranges when it captured
 * the graph, not when it replays it.  With -n, lp-graphnodes' trace is
 * swept too: at each graph node's capture ("create") the op open on the
 * capturing thread is remembered for the node, and each replayed kernel
 * ("kernel": its start, CorrId and node) counts for that op, in the
 * stages open at the cudaGraphLaunch.  A graph launch is held until a
 * later launch's kernel starts on its stream (at most GMAX at once), so
 * memory follows the graph nodes and the launches in flight.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "nsight.h"
#include "aten.h"
#include "lp-atenops/atenops.h"

static const char synopsis[] =
    "lp-atenops -a cuda_api_trace.csv -c config.yaml -g cuda_gpu_trace.csv "
    "[-N] [-m metrics.tsv -d cuda_gpu_kern_sum.csv -D "
    "cuda_gpu_kern_sum_mangled.csv] [-n graph_node_trace.csv] "
    "nvtx_pushpop_trace.csv";

/* ---- reading: the three traces merged in time order ---- */

struct src {
	struct lp_rep_in *p;
	const struct lp_rep_row *rr;
	double t, last;
	long lastline;
};

/* The sources' order at one time: the graph nodes (3) before the kernels
 * (2), since a replayed kernel waits for its node's row. */
static int
order(int i)
{
	return i == 3 ? 2 : i == 2 ? 3 : i;
}

static void
advance(struct src *s)
{
	if (!(s->rr = lp_rep_next(s->p)))
		return;
	s->t = lp_rep_time(s->rr, 0);
	if (s->t < s->last)
		lp_die_at(LP_EXIT_DATA, s->rr->file, s->rr->line, s->rr->col[0] + 1,
		    "%s: starts before the row on line %ld: the trace is not "
		    "sorted by start time (lp-tracesort sorts it)",
		    s->rr->v[0],
		    s->lastline);
	s->last = s->t;
	s->lastline = s->rr->line;
}

static void
load(struct at *a)
{
	static const char *const rcols[] = { "Start", "End", "Name", "PID",
		"TID" };
	static const char *const acols[] = { "Start", "Name", "CorrID", "Pid",
		"Tid" };
	static const char *const ncols[] = { "Start", "Event", "Graph Node ID",
		"?CorrId", "?Pid", "?Tid" };
	static const char *const gcols[] = { "Start", "Duration", "CorrId",
		"GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ", "Name", "?Strm" };
	struct src s[4];
	int i, k, n = a->npath ? 4 : 3;

	/* at one time: ranges, then launches, then graph nodes, then kernels */
	s[0].p = lp_rep_open(a->rpath, "nsys stats --report nvtx_pushpop_trace",
	    rcols, 5);
	s[1].p = lp_rep_open(a->apath, "nsys stats --report cuda_api_trace",
	    acols, 5);
	s[2].p = lp_rep_open(a->gpath, "nsys stats --report cuda_gpu_trace",
	    gcols, 11);
	if (a->npath) {
		s[3].p = lp_rep_open(a->npath, "lp-graphnodes output", ncols, 6);
		lp_rep_empty_ok(s[3].p);	/* a capture without graphs */
	}
	for (i = 0; i < n; i++) {
		s[i].last = -1;
		s[i].lastline = 0;
		advance(&s[i]);
	}
	for (;;) {
		for (k = -1, i = 0; i < n; i++)	/* ties: the order above */
			if (s[i].rr && (k < 0 || s[i].t < s[k].t || (s[i].t ==
			    s[k].t && order(i) < order(k))))
				k = i;
		if (k < 0)
			break;
		if (k == 0)
			sweep_range(a, s[0].rr);
		else if (k == 1)
			sweep_launch(a, s[1].rr, s[1].t);
		else if (k == 2)
			sweep_kernel(a, s[2].rr);
		else if (sweep_gkind(s[3].rr))
			sweep_gkernel(a, s[3].rr, s[3].t);
		else
			sweep_create(a, s[3].rr, s[3].t);
		advance(&s[k]);
	}
	for (i = 0; i < n; i++)
		lp_rep_close(s[i].p);
	a->gstale += (double)a->ngk;
	if (!a->nops)
		lp_die_at(LP_EXIT_DATA, a->rpath, 0, 0, "no PyTorch op ranges (names "
		    "like \":aten::mm, op_id = 7, sizes = [[64, 768], [768, "
		    "2304]]\"): capture with nsys profile "
		    "--pytorch=autograd-shapes-nvtx (make ... OPS=aten)");
}

/* ---- ncu: FLOPs and DRAM bytes per launch of a kernel at a shape ---- */

static void
load_names(struct at *a)
{
	struct lp_ksum d, m;
	FILE *f;
	const char *name;
	long *to;
	size_t i;

	f = lp_open_in(a->dpath, &name);
	lp_ksum_read(&d, f, name, NULL, NULL);
	lp_close_in(f);
	f = lp_open_in(a->Dpath, &name);
	lp_ksum_read(&m, f, name, NULL, NULL);
	lp_close_in(f);
	to = lp_ksum_pair(&d, &m);
	for (i = 0; i < d.n; i++)
		if (to[i] >= 0)
			lp_map_put(a->mangled, d.k[i].name, to[i]);
	free(to);
	a->mangled_names = lp_xcalloc(m.n + 1, sizeof *a->mangled_names);
	for (i = 0; i < m.n; i++)
		a->mangled_names[i] = lp_xstrdup(m.k[i].name);
	lp_ksum_free(&d);
	lp_ksum_free(&m);
}

static void
load_ncu(struct at *a)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, a->mpath, "lp-ncu2tsv");
	int ck, cl, cg, cb, cf, ct, cd, cn, cp[LP_FP_N], q;
	double l;
	struct lp_sb k = { 0 };

	ck = lp_csv_need(&t.hdr, "kernel", "lp-ncu2tsv output");
	cl = lp_csv_need(&t.hdr, "launches", "lp-ncu2tsv output");
	cg = lp_csv_need(&t.hdr, "grid", "lp-ncu2tsv output");
	cb = lp_csv_need(&t.hdr, "block", "lp-ncu2tsv output");
	cf = lp_csv_need(&t.hdr, "flops", "lp-ncu2tsv output");
	ct = lp_csv_need(&t.hdr, "flops_tensor", "lp-ncu2tsv output");
	cd = lp_csv_need(&t.hdr, "dram_bytes", "lp-ncu2tsv output");
	cn = lp_csv_need(&t.hdr, "gpu_time_ns", "lp-ncu2tsv output");
	for (q = 0; q < LP_FP_N; q++) {
		lp_sb_reset(&k);
		lp_sb_printf(&k, "flops_%s", lp_fp_names[q]);
		cp[q] = lp_csv_need(&t.hdr, lp_sb_str(&k), "lp-ncu2tsv output");
	}
	a->ncuidx = lp_map_new();
	while (lp_tab_next(&t)) {
		struct ncu *n;
		size_t i = lp_map_len(a->ncuidx);

		if (!lp_tab_num(&t, cl, &l) || !(l > 0))
			lp_die_at(LP_EXIT_DATA, a->mpath, t.line, cl + 1,
			    "launches: expected a number above 0");
		lp_sb_reset(&k);
		lp_sb_printf(&k, "%s\x1f%s\x1f%s", lp_tsv_get(&t, ck),
		    lp_tsv_get(&t, cg), lp_tsv_get(&t, cb));
		lp_map_put(a->ncuidx, lp_sb_str(&k), (long)i);
		a->ncu = lp_xreallocarray(a->ncu, i + 1, sizeof *a->ncu);
		n = &a->ncu[i];
		memset(n, 0, sizeof *n);
		if (!lp_tab_num(&t, ct, &n->tflops))
			n->tflops = NAN;
		n->have_flops = lp_tab_num(&t, cf, &n->flops);
		if (!n->have_flops && isfinite(n->tflops)) {
			n->flops = n->tflops;
			n->have_flops = 1;
		}
		n->have_bytes = lp_tab_num(&t, cd, &n->bytes);
		n->flops /= l;
		n->tflops /= l;
		n->bytes /= l;
		if (lp_tab_num(&t, cn, &n->ns))
			n->ns /= l;
		else
			n->ns = NAN;
		for (q = 0; q < LP_FP_N; q++)
			if (lp_tab_num(&t, cp[q], &n->f[q]))
				n->f[q] /= l;
	}
	lp_sb_free(&k);
	lp_tsv_close(&t);
	fclose(fp);
}

/* ---- compute: rows by op name (-N), each stage's total, the order ---- */

static void
group_by_name(struct at *a)
{
	struct row *g = NULL;
	size_t ng = 0, i, j;
	struct lp_map *idx = lp_map_new();

	for (i = 0; i < a->nr; i++) {
		struct row *r = &a->r[i];
		long at;

		lp_sb_reset(&a->key);
		lp_sb_printf(&a->key, "%d\x1f%s\x1f%d", r->stage, r->op, !r->shapes);
		if ((at = lp_map_get(idx, lp_sb_str(&a->key), -1)) < 0) {
			g = lp_xreallocarray(g, ng + 1, sizeof *g);
			memset(&g[ng], 0, sizeof *g);
			g[ng].stage = r->stage;
			g[ng].op = lp_xstrdup(r->op);
			lp_map_put(idx, lp_sb_str(&a->key), at = (long)ng++);
		}
		g[at].calls += r->calls;
		g[at].host_ns += r->host_ns;
		g[at].kern_ns += r->kern_ns;
		g[at].kernels += r->kernels;
		/* shapes: how many, kept as text; the launch shapes merged */
		g[at].nshapes += r->shapes != NULL;
		g[at].flops2 += r->flops2;
		g[at].no2 |= r->no2;
		for (j = 0; j < r->nsh; j++)
			sweep_add_shape(&g[at], r->sh[j].kid, r->sh[j].grid,
			    r->sh[j].block, r->sh[j].n, r->sh[j].ns);
	}
	lp_map_free(idx);
	for (i = 0; i < a->nr; i++) {
		free(a->r[i].op);
		free(a->r[i].shapes);
		for (j = 0; j < a->r[i].nsh; j++) {
			free(a->r[i].sh[j].grid);
			free(a->r[i].sh[j].block);
		}
		free(a->r[i].sh);
	}
	free(a->r);
	a->r = g;
	a->nr = ng;
}

static int
cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	if (x->kern_ns != y->kern_ns)
		return x->kern_ns > y->kern_ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if ((c = strcmp(x->op, y->op)))
		return c;
	return strcmp(x->shapes ? x->shapes : "", y->shapes ? y->shapes : "");
}

static int
cmp_shape(const void *a, const void *b)
{
	const struct shape *x = a, *y = b;

	return x->ns != y->ns ? (x->ns > y->ns ? -1 : 1) : 0;
}

static void
compute(struct at *a)
{
	size_t i;
	const char *why;

	a->cov_ns = lp_xcalloc(a->nst, sizeof *a->cov_ns);
	a->cov_kern = lp_xcalloc(a->nst, sizeof *a->cov_kern);
	for (i = 0; i < a->nr; i++) {
		struct row *r = &a->r[i];
		double f;

		if (r->shapes && *r->shapes)
			a->cov_ns[r->stage] += r->kern_ns;
		a->cov_kern[r->stage] += r->kernels;
		r->no2 = !r->shapes || !lp_aten_2mnk(r->op, r->shapes, &f, &why);
		r->flops2 = r->no2 ? 0 : f * r->calls;
		r->why2 = r->no2 ? (r->shapes ? why : "kernels launched outside "
		    "every op range") : NULL;
	}
	if (a->byname)
		group_by_name(a);
	a->stage_ns = lp_xcalloc(a->nst, sizeof *a->stage_ns);
	for (i = 0; i < a->nr; i++) {
		a->stage_ns[a->r[i].stage] += a->r[i].kern_ns;
		lp_qsort(a->r[i].sh, a->r[i].nsh, sizeof *a->r[i].sh, cmp_shape);
	}
	lp_qsort(a->r, a->nr, sizeof *a->r, cmp_rows);
}

static void
stages(struct at *a)
{
	struct lp_ynode *cfg = lp_yaml_load_path(a->cpath);
	size_t i;

	a->nst = lp_stage_ranges(cfg, a->cpath, &a->stnames, &a->stranges);
	a->stseen = lp_xcalloc(a->nst, sizeof *a->stseen);
	for (i = 0; i < a->nst; i++)
		a->stnames[i] = lp_xstrdup(a->stnames[i]);
	lp_yaml_free(cfg);
}

int
main(int argc, char **argv)
{
	static struct at a;	/* never freed: static keeps it reachable */
	int c;

	lp_start(argc, argv, synopsis);
	a.out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "a:c:D:d:g:m:Nn:", synopsis)) != -1) {
		switch (c) {
		case 'a': a.apath = optarg; break;
		case 'c': a.cpath = optarg; break;
		case 'D': a.Dpath = optarg; break;
		case 'd': a.dpath = optarg; break;
		case 'g': a.gpath = optarg; break;
		case 'm': a.mpath = optarg; break;
		case 'N': a.byname = 1; break;
		case 'n': a.npath = optarg; break;
		}
	}
	if (!a.apath || !a.cpath || !a.gpath || argc - optind != 1 ||
	    (a.mpath && (!a.dpath || !a.Dpath)) || (!a.mpath && (a.dpath ||
	    a.Dpath)))
		lp_usage(synopsis);
	a.rpath = argv[optind];
	a.ridx = lp_map_new();
	a.tidx = lp_map_new();
	a.kidx = lp_map_new();
	a.opidx = lp_map_new();
	a.gnode = lp_map_new();
	stages(&a);
	a.stgraph = lp_xcalloc(a.nst, sizeof *a.stgraph);
	if (a.mpath) {
		a.mangled = lp_map_new();
		load_names(&a);
		load_ncu(&a);
	}
	load(&a);
	compute(&a);
	emit_table(&a);
	lp_tab_done(a.out);
	return 0;
}
