/*
 * roofline.h: what the parts of lp-roofline share (tools/lp-roofline.c
 * and the files beside this header): the points, the stage's launch
 * configurations (-s), the launch shapes of metrics.tsv (-m), and each
 * part's entry points.  struct points and struct shapes own everything
 * they point to (free_points in lp-roofline.c).
 */
#ifndef LP_ROOFLINE_H
#define LP_ROOFLINE_H

#include <stddef.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "run.h"

/* One point: a kernel (kernels.tsv), or one launch shape of it
 * (metrics.tsv, with -m). */
struct k {
	char *kernel, *grid, *block;
	long rank;
	double f[LP_FP_N], flop, bytes, ns, tensor, launches, ctas, waves;
	int have_f[LP_FP_N], have_flop, have_bytes, have_ns, metrics;
	int have_tensor, have_launches, have_ctas, have_waves;
	double nsys_ns, nsys_calls, nsys_pct;	/* -s: the shape's in the stage */
	int have_nsys, unmeasured;	/* -s: a configuration ncu did not meet */
};

/* -s: lp-shapes(1)'s launch configurations of the stage (by "kernel \x1f
 * grid \x1f block" in idx); whether a point took one, whether ncu measured
 * it. */
struct sshape {
	char *kernel, *grid, *block;
	double ns, calls, pct;
	int taken, measured;
};
struct stage_shapes {
	struct lp_map *idx;
	struct sshape *s;
	size_t n;
	double total;
	const char *path;
	char *why;		/* lp-shapes says why it has none */
	char *range;		/* the stage's range, as lp-shapes names it */
};

/* The points, ks[0..nk), and the stage's configurations they took (ss),
 * as points.c loads them for the main to write out. */
struct points {
	struct k *ks;
	size_t nk;
	struct stage_shapes ss;
};

/* metrics.tsv (lp-ncu2tsv): a point per kernel and launch shape, devices
 * with the same shape together. */
struct shapes {
	struct k *r;
	size_t n;
};

/* points.c */
void points_read_shapes(const char *path, struct shapes *sh);
void points_read_stage(const char *path, struct stage_shapes *ss);
size_t points_load(struct points *p, struct lp_tsv *t, int ck, int cnk,
    const struct shapes *sh, long top);

/* cells.c */
void cells_read_model(const char *path);
void cells_roof(struct lp_row *r, const struct k *k, const struct lp_peaks *pk,
    struct lp_sb *w);
void cells_shape(struct lp_row *sr, const struct k *k, const char *mpath,
    const struct stage_shapes *ss);

#endif
