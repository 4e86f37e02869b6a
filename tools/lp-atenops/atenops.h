/*
 * atenops.h: what the parts of lp-atenops share (tools/lp-atenops.c and
 * the files beside this header): the sweep's state struct at, the rows
 * it makes, the ncu numbers and the stage totals the table reads, and
 * each part's entry points (each given the state).  struct at owns
 * everything it points to.
 */
#ifndef LP_ATENOPS_H
#define LP_ATENOPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "nsight.h"

/* GMAX: graph launches held whose kernels may still come */
enum { MAXNAMES = 3, GMAX = 1024 };

struct shape {			/* one kernel at one launch shape, in a row */
	long kid;
	char *grid, *block;
	double n, ns;
};

struct row {
	int stage;
	char *op, *shapes;	/* shapes: NULL in the row outside any op */
	double calls, host_ns, kern_ns, kernels;
	struct shape *sh;
	size_t nsh;
	double nshapes;		/* -N: the shapes of the op */
	double flops2;		/* 2MNK of all calls */
	int no2;		/* 2MNK unknown, why2 says why */
	const char *why2;
};

struct ent {			/* an open range on a thread's stack */
	double end;
	int stage;		/* a configured stage, or -1: an op */
	long *rows;		/* op: its row in each stage open, or -1 */
	long line;
	long opk;		/* -n: the op and shapes (iop), else -1 */
	long inst;		/* -n: its graph-capturing instance, or -1 */
};

struct thr {
	struct ent *e;
	size_t n, cap;
	int64_t corr;		/* CorrID of its last launch call, 0: none */
	long corr_line;		/* that call's line in cuda_api_trace */
};

struct pend {			/* a launch whose kernel has not started */
	int64_t corr;
	long slot;		/* rows of it: pool[slot * nst ...] */
	long seq;		/* launch calls before it */
	int graph;		/* a graph launch: many kernels, one CorrId */
};

struct glaunch {		/* a graph launch held for its kernels */
	int64_t corr;
	long seq;
	double strm;		/* the stream of its first kernel */
};

struct inst {			/* an op range that captured graph nodes */
	long opk;
	long last;		/* the graph launch (seq) that last ran it */
};

struct gkern {			/* a graph_node_trace kernel row in flight */
	double t;
	int64_t corr;
	long inst;		/* -1: captured outside ops; -2: no create row */
};

struct at {
	const char *apath, *gpath, *rpath, *cpath;
	const char *mpath, *dpath, *Dpath;
	int byname;
	size_t nst;
	const char **stnames;
	char **stranges;
	int *stseen;
	struct row *r;
	size_t nr, rcap;
	struct lp_map *ridx, *tidx, *kidx, *mangled;
	char **mangled_names;
	struct thr *t;
	size_t nt;
	struct pend *ph;	/* open addressing, corr 0 free */
	size_t phcap, phn;
	long *pool, *freel;	/* pool: a launch's row per stage, -1 none,
				 * -2 a graph launch's outside ops, not made */
	size_t npool, nfree, poolcap;
	double nops, nlaunch, nkern, nolaunch, outside_stage, maxpend;
	struct lp_sb key, op, shapes;
	/* CUDA graphs; -n: lp-graphnodes' graph_node_trace */
	const char *npath;
	struct glaunch *gwait, *gseen;	/* no kernel yet; kernels seen */
	size_t nwait, nseen;
	double *stgraph;	/* per stage: kernels from graph launches */
	double ngraph, gop, gnoop, gnorow, gstale, gdropped, gkrows;
	struct lp_map *opidx, *gnode;	/* op\x1fshapes -> iop; node -> inst */
	char **iop, **ishapes;
	struct inst *in;
	size_t ninst;
	struct gkern *gk;
	size_t ngk;
	struct ncu {
		double flops, tflops, bytes, ns, f[LP_FP_N];	/* per launch */
		int have_flops, have_bytes;
	} *ncu;		/* by lp_map index of "mangled\x1fgrid\x1fblock" */
	struct lp_map *ncuidx;
	double *stage_ns;
	double *cov_ns, *cov_kern;	/* per stage: in ops with shapes; kernels */
	FILE *out;	/* the table, written out when whole (lp_tab_out) */
};

/* sweep.c: a row of each trace, as the reader merges them in time order
 * (at: its start in ns); sweep_gkind, which kind of graph_node_trace row
 * it is; sweep_add_shape, a kernel at a launch shape into a row. */
void sweep_range(struct at *a, const struct lp_rep_row *rr);
void sweep_launch(struct at *a, const struct lp_rep_row *rr, double at);
void sweep_kernel(struct at *a, const struct lp_rep_row *rr);
int sweep_gkind(const struct lp_rep_row *rr);
void sweep_create(struct at *a, const struct lp_rep_row *rr, double at);
void sweep_gkernel(struct at *a, const struct lp_rep_row *rr, double at);
void sweep_add_shape(struct row *r, long kid, const char *grid,
    const char *block, double n, double ns);

/* emit.c: the table, its meta lines and its rows. */
void emit_table(struct at *a);

#endif
