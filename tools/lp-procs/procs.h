/*
 * procs.h: what the parts of lp-procs share (tools/lp-procs.c and the
 * files beside this header): the starts, processes and duration
 * signatures the reports give, the options, and read.c's entry point.
 * struct st owns everything it points to (free_state in lp-procs.c).
 */
#ifndef LP_PROCS_H
#define LP_PROCS_H

#include <stddef.h>

#include "util.h"

enum { MAX_STARTS = 64, MAX_PROCS = 4096 };

struct start {			/* a range's projected start, its GPUs */
	double t;
	long proc;		/* index in pids */
	long *dev;		/* index in devs of each Device with an */
	size_t ndev;		/* operation starting at t */
};

struct proc {
	char *pid;
	char *dev;		/* NULL if not known */
	const char *why;	/* why not */
};

/* A kernel's shortest and longest duration in one process or on one GPU,
 * the process's (or GPU's) signature: owner indexes t.pids or t.devs. */
struct span {
	size_t owner;
	double lo, hi;
};

struct spans {
	struct lp_map *idx;	/* "owner\037kernel" -> index in s */
	struct span *s;
	size_t n, cap;
};

struct st {
	struct lp_map *pids;	/* processes that ran kernels -> index */
	struct lp_map *kept;	/* starts kept per process */
	struct start *s;
	size_t n, cap;
	int sig;		/* match signatures: no nvtx_gpu_proj_trace */
	int minmax;		/* nvtx_kern_sum has Min and Max */
	struct lp_map *devs;	/* Device names of cuda_gpu_trace -> index */
	struct spans ps, ds;	/* per process, per GPU */
	int proj_empty;		/* nvtx_gpu_proj_trace was an empty file */
};

struct opts {
	const char *gpath, *dpath, *kpath;
	long device;
};

/* read.c */
void load_reports(struct st *t, struct opts *o);

#endif
