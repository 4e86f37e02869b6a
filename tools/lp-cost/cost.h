/*
 * cost.h: what the parts of lp-cost share (tools/lp-cost.c and the files
 * beside this header): the steps of the timing files, the replay passes of
 * the ncu exports, the run's cost, and read.c's entry points.  struct cost
 * owns everything it points to (free_cost in lp-cost.c).
 */
#ifndef LP_COST_H
#define LP_COST_H

#include <stddef.h>

#include "util.h"
#include "table.h"

enum kind { S_NSYS, S_KERNEL, S_REGION, S_OTHER };

/* One line of a timing file: STEP<TAB>WALL_S<TAB>APP_RUNS. */
struct step {
	char *name;
	const char *file;
	long line;
	double wall;
	long runs;		/* -1: "-", from the region export */
	enum kind kind;
	long depth;		/* S_REGION: N of "ncu regions depth N" */
};

/* profiler__replayer_passes of one export, over its results. */
struct passes {
	const char *file;
	char *path;		/* owned copy (regions), or NULL */
	long line;		/* in the list that names it (regions) */
	long n;			/* results: kernel launches or ranges */
	double sum, min, max;
	int c_id, c_pass;	/* columns; -1 before the header */
	int state;		/* 0 header, 1 units row, 2 results */
	struct lp_csv_hdr hdr;
};

/* A computed cell: a number, or why there is none ("n/a because ..."). */
struct cell {
	double v;
	char *why;		/* caller frees; NULL: v holds */
};

struct cost {
	struct step *st;
	size_t n;
	struct passes kern;
	struct passes *reg;	/* one per depth, in list order */
	size_t nreg;
	struct step alone;
	const char *apath, *kpath, *mode, *rpath, *cpath, *spath;
	char *coverage;		/* -c: roofline.tsv's "# coverage:" */
	/* -s: what lp-ncustop saw of ncu profile */
	double launches, replay;
	int stopped;
	/* -b: the untraced timing run ran beside the capture, on another
	 * GPU; the shorter of the two, counted once in the total */
	int beside;
	double overlap;
};

#define REGION_PREFIX "ncu regions depth "

/* read.c */
void classify(struct step *s);
void load_step(struct step *s, const char *path);
void load_passes(struct passes *p, const char *path, long listline);
void load_regions(struct cost *c);
void check_join(const struct cost *c);
void load_stop(struct cost *c);
void load_alone(struct cost *c);
void load_coverage(struct cost *c);

#endif
