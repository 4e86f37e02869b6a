/*
 * lp-atenops' table: a row for each (stage, op, shapes), its kernel
 * names and ncu cells, and the notes on its sources and the graphs.
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
#include "atenops.h"

/* ---- emit ---- */

static void
names_cell(struct at *a, struct lp_row *o, const struct row *r)
{
	struct lp_sb b = { 0 };
	char *l, *seen[MAXNAMES];
	size_t i, j, shown = 0, more = 0;

	/* the row's kernels by their time, each label once */
	for (i = 0; i < r->nsh; i++) {
		l = lp_kname_label(lp_map_key(a->kidx, (size_t)r->sh[i].kid));
		for (j = 0; j < shown && strcmp(seen[j], l); j++)
			;
		if (j < shown || shown == MAXNAMES) {
			more += j == shown;
			free(l);
			continue;
		}
		lp_sb_printf(&b, "%s%s", shown ? "; " : "", l);
		seen[shown++] = l;
	}
	if (more)
		lp_sb_printf(&b, "; and %zu more", more);
	lp_row_text(o, b.len ? lp_sb_str(&b) : "-");
	for (j = 0; j < shown; j++)
		free(seen[j]);
	lp_sb_free(&b);
}

static const struct ncu *
ncu_of(struct at *a, const struct shape *s)
{
	const char *k = lp_map_key(a->kidx, (size_t)s->kid);
	long m = a->mangled ? lp_map_get(a->mangled, k, -1) : -1;
	long i;

	lp_sb_reset(&a->key);
	lp_sb_printf(&a->key, "%s\x1f%s\x1f%s", m >= 0 ? a->mangled_names[m] : k,
	    s->grid, s->block);
	i = lp_map_get(a->ncuidx, lp_sb_str(&a->key), -1);
	return i >= 0 ? &a->ncu[i] : NULL;
}

enum { NCU_CELLS = 6 };

/* ncu's FLOPs, of them on the tensor cores (2MNK's peer), DRAM bytes,
 * FLOP/byte, the precision of most FLOPs and ncu's time, per call, over the kernels of the row at their shapes
 * (the op's roofline position: lp-oproof) */
static void
ncu_cells(struct at *a, struct lp_row *o, const struct row *r)
{
	double f = 0, tf = 0, by = 0, ns = 0, fq[LP_FP_N] = { 0 };
	size_t i;
	int q, dom = -1;

	if (!a->mpath || !r->nsh) {
		for (i = 0; i < NCU_CELLS; i++)
			lp_row_na(o, "%s", !r->nsh ? "no kernel" : "no ncu metrics "
			    "(metrics.tsv, -m)");
		return;
	}
	for (i = 0; i < r->nsh; i++) {
		const struct ncu *n = ncu_of(a, &r->sh[i]);

		if (!n || !n->have_flops || !n->have_bytes) {
			const struct shape *sh = &r->sh[i];
			char *l = lp_kname_label(lp_map_key(a->kidx,
			    (size_t)sh->kid));
			int c;

			for (c = 0; c < NCU_CELLS; c++)
				lp_row_na(o, "ncu %s %s at grid %s, block %s",
				    n ? "counted no FLOPs or no DRAM bytes of" :
				    "did not profile", l, sh->grid, sh->block);
			free(l);
			return;
		}
		f += n->flops * r->sh[i].n;
		tf += n->tflops * r->sh[i].n;
		by += n->bytes * r->sh[i].n;
		ns += n->ns * r->sh[i].n;
		for (q = 0; q < LP_FP_N; q++)
			fq[q] += n->f[q] * r->sh[i].n;
	}
	for (q = 0; q < LP_FP_N; q++)
		if (fq[q] > 0 && (dom < 0 || fq[q] > fq[dom]))
			dom = q;
	lp_row_num(o, f / r->calls, 0);
	if (isfinite(tf))
		lp_row_num(o, tf / r->calls, 0);
	else
		lp_row_na(o, "the ncu export lacks the tensor-core counters");
	lp_row_num(o, by / r->calls, 0);
	if (by > 0)
		lp_row_num(o, f / by, 2);
	else
		lp_row_na(o, "no DRAM bytes");
	if (dom >= 0)
		lp_row_text(o, lp_fp_names[dom]);
	else
		lp_row_na(o, "ncu counted no FLOPs");
	if (isfinite(ns))
		lp_row_num(o, ns / r->calls, 1);
	else
		lp_row_na(o, "the ncu export lacks gpu__time_duration.sum");
}

static void
emit_row(struct at *a, const struct row *r)
{
	struct lp_row o = { 0 };
	int out_op = !r->shapes && !r->nshapes;

	lp_row_text(&o, a->stnames[r->stage]);
	lp_row_text(&o, r->op);
	if (a->byname)
		lp_row_num(&o, r->nshapes, 0);
	else
		lp_row_text(&o, r->shapes ? r->shapes : "-");
	lp_row_num(&o, r->calls, 0);
	lp_row_num(&o, r->kern_ns, 0);
	if (a->stage_ns[r->stage] > 0)
		lp_row_num(&o, 100 * r->kern_ns / a->stage_ns[r->stage], 2);
	else
		lp_row_na(&o, "no kernel time in the stage");
	lp_row_num(&o, r->kernels, 0);
	if (out_op) {
		lp_row_na(&o, "kernels outside every op range are not calls");
		lp_row_na(&o, "kernels outside every op range are not calls");
		lp_row_na(&o, "no op range");
	} else {
		lp_row_num(&o, r->kernels / r->calls, 2);
		lp_row_num(&o, r->kern_ns / r->calls, 1);
		lp_row_num(&o, r->host_ns / r->calls, 1);
	}
	names_cell(a, &o, r);
	if (r->no2)
		lp_row_na(&o, "%s", a->byname ? "not every shape of it is a "
		    "matrix product with sizes" : r->why2);
	else
		lp_row_num(&o, r->flops2 / r->calls, 0);
	ncu_cells(a, &o, r);
	lp_row_end(&o, a->out);
	lp_sb_free(&o.b);
}

/* Where the kernels of CUDA graph launches went; nothing for a capture
 * without them. */
static void
graph_notes(struct at *a)
{
	struct lp_sb b = { 0 };

	if (a->ngraph > 0 && !a->npath)
		lp_tab_meta(a->out, "note", "%.0f kernels ran from CUDA graph "
		    "launches (cudaGraphLaunch): each counts for the op open at "
		    "the launch call, \"(outside any op)\" when none, not for the "
		    "op that captured it (PyTorch pushes op ranges when a graph "
		    "is captured, not when it is replayed). lp-graphnodes(1) on "
		    "the sqlite export of a capture made with nsys profile "
		    "--cuda-graph-trace=node gives that op (-n).", a->ngraph);
	if (a->npath && (a->ngraph > 0 || a->gkrows > 0)) {
		lp_sb_printf(&b, "%.0f kernels ran from CUDA graph launches: "
		    "%.0f counted for the op open on the capturing thread when "
		    "their graph node was captured, in the stages open at the "
		    "cudaGraphLaunch (a call: one replay of the op; no host "
		    "time)", a->ngraph, a->gop);
		if (a->gnoop > 0)
			lp_sb_printf(&b, "; %.0f whose node was captured outside "
			    "every op range", a->gnoop);
		if (a->gnorow > 0)
			lp_sb_printf(&b, "; %.0f with no kernel row (Start, "
			    "CorrId) or no create row in %s", a->gnorow, a->npath);
		if (a->gnoop > 0 || a->gnorow > 0)
			lp_sb_adds(&b, " (these count for the op open at the "
			    "launch call, \"(outside any op)\" when none)");
		if (a->gstale > 0)
			lp_sb_printf(&b, "; %.0f of its %.0f kernel rows matched "
			    "no kernel of cuda_gpu_trace (another capture's "
			    "export?)", a->gstale, a->gkrows);
		lp_tab_meta(a->out, "note", "%s.", lp_sb_str(&b));
	}
	if (a->gdropped > 0)
		lp_tab_meta(a->out, "note", "%.0f CUDA graph launches were let go "
		    "with more than %d held at once: a kernel of theirs that ran "
		    "later has no launch call (a graph that nsys traced whole, "
		    "--cuda-graph-trace=graph, has no kernels to wait for)",
		    a->gdropped, GMAX);
	lp_sb_free(&b);
}

/* The stages with no instance, and each one's share of kernel time in
 * ops with input shapes. */
static void
stage_notes(struct at *a)
{
	size_t i;
	struct lp_sb b = { 0 };

	for (i = 0; i < a->nst; i++)
		if (!a->stseen[i])
			lp_sb_printf(&b, "%s%s (%s)", b.len ? ", " : "",
			    a->stnames[i], a->stranges[i]);
	if (b.len)
		lp_tab_meta(a->out, "note", "Stages with no instance in the trace: "
		    "%s.", lp_sb_str(&b));
	lp_sb_free(&b);
	for (i = 0; i < a->nst; i++) {
		if (!a->stseen[i])
			continue;
		if (a->stage_ns[i] > 0)
			lp_tab_meta(a->out, "coverage", "%s: %.1f %% of its kernel "
			    "time (%.0f kernels, of which %.0f from CUDA graphs) in "
			    "ops with input shapes", a->stnames[i], 100 * a->cov_ns[i] /
			    a->stage_ns[i], a->cov_kern[i], a->stgraph[i]);
		else
			lp_tab_meta(a->out, "coverage", "%s: no kernel time (%.0f "
			    "kernels, of which %.0f from CUDA graphs)",
			    a->stnames[i], a->cov_kern[i], a->stgraph[i]);
	}
}

static void
emit_meta(struct at *a)
{
	lp_tab_meta(a->out, "title", "%s", a->byname ? "Top Operators (PyTorch ops, "
	    "by name)" : "Top Operators (PyTorch ops by input shapes)");
	lp_tab_meta(a->out, "tool", "lp-atenops");
	lp_tab_meta(a->out, "source", "op ranges of nsys profile "
	    "--pytorch=autograd-shapes-nvtx and the stages' ranges from nsys "
	    "nvtx_pushpop_trace (%s); kernel launch calls from nsys "
	    "cuda_api_trace (%s); each kernel's GPU time by correlation ID from "
	    "nsys cuda_gpu_trace (%s); stages from %s%s%s%s%s%s%s%s%s", a->rpath,
	    a->apath, a->gpath, a->cpath, a->mpath ? "; FLOPs and DRAM bytes per "
	    "launch shape from ncu (" : "", a->mpath ? a->mpath : "", a->mpath ?
	    ", kernel names paired by " : "", a->mpath ? a->dpath : "", a->mpath ?
	    ")" : "", a->npath ? "; the op that captured each CUDA graph "
	    "kernel's node from lp-graphnodes' graph_node_trace (" : "",
	    a->npath ? a->npath : "", a->npath ? ")" : "");
	lp_tab_meta(a->out, "link", "%s", a->byname ? "aten_opnames.tsv" :
	    "aten_ops.tsv");
	lp_tab_meta(a->out, "note", "A kernel counts for the innermost op range "
	    "open on its launching thread when the launch call starts "
	    "(aten::linear > aten::matmul > aten::mm: the mm), in every stage "
	    "open there; op_id, seq and input_op_ids are left out of the op, so "
	    "the calls of one op with one set of input shapes are one row. "
	    "Share: of the kernel time launched inside the stage. 2MNK: from "
	    "the input shapes of mm, addmm, bmm, linear and matmul, beside "
	    "ncu's tensor-core FLOPs, which count whole tiles (more than 2MNK "
	    "where a tile does not divide M or N: 8 rows for 1); ncu's total "
	    "adds the CUDA-core FLOPs (an addmm's bias: M x N).");
	lp_tab_meta(a->out, "note", "%.0f op ranges, %.0f kernel launch calls, "
	    "%.0f kernels; at most %.0f launches held at once%s", a->nops,
	    a->nlaunch, a->nkern, a->maxpend, a->nolaunch > 0 ? "" : ".");
	if (a->nolaunch > 0)
		lp_tab_meta(a->out, "note", "%.0f kernels have no launch call in "
		    "cuda_api_trace before them (CorrId): counted in no row",
		    a->nolaunch);
	graph_notes(a);
	stage_notes(a);
}

void
emit_table(struct at *a)
{
	static const struct lp_col cols[] = {
		{ "stage", "Stage", "text" }, { "op", "Op", "code" },
		{ "shapes", "Input shapes", "code" }, { "calls", "Calls", "int" },
		{ "kernel_ns", "GPU time (ms)", "ms" },
		{ "share_pct", "Share", "pct" }, { "kernels", "Kernels", "int" },
		{ "kernels_per_call", "Kernels / call", "num2" },
		{ "kernel_ns_per_call", "GPU / call (us)", "us" },
		{ "host_ns_per_call", "Host / call (us)", "us" },
		{ "kernel_names", "Kernels (by time)", "code" },
		{ "flops_2mnk_per_call", "2MNK / call", "flop" },
		{ "ncu_flops_per_call", "ncu FLOPs / call", "flop" },
		{ "ncu_tensor_flops_per_call", "of them tensor", "flop" },
		{ "ncu_dram_bytes_per_call", "ncu DRAM / call", "bytes" },
		{ "ncu_flop_per_byte", "FLOP / byte", "num2" },
		{ "ncu_precision", "ncu precision", "hide" },
		{ "ncu_ns_per_call", "ncu time / call", "hide" },
	};
	struct lp_col c[sizeof cols / sizeof cols[0]];
	size_t i;

	memcpy(c, cols, sizeof c);
	if (a->byname)
		c[2] = (struct lp_col){ "shapes", "Shapes", "int" };
	emit_meta(a);
	lp_tab_meta(a->out, "key", "%s", a->byname ? "stage op" : "stage op shapes");
	lp_tab_header(a->out, c, sizeof c / sizeof c[0]);
	for (i = 0; i < a->nr; i++)
		emit_row(a, &a->r[i]);
}
