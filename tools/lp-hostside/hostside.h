/*
 * hostside.h: what the parts of lp-hostside share (tools/lp-hostside.c
 * and the files beside this header): the stages and their instances, the
 * calls held during the sweep, and each part's entry points.  struct st
 * owns everything it points to (free_state in lp-hostside.c).
 */
#ifndef LP_HOSTSIDE_H
#define LP_HOSTSIDE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"
#include "table.h"
#include "nsight.h"

/* The kinds of CUDA API call, in the table's column order. */
enum { K_LAUNCH, K_SYNC, K_MEMCPY, K_LOAD, K_OTHER, K_N };

struct inst {
	char *pid, *tid;
	double start, end;
	long line;
	int first;		/* its process's first instance of the stage */
	double api[K_N];
	double calls, launches, kern_ns, kernels;
	double glaunches, gkern_ns, gkernels, blocked;
	/* the GPU idle (no kernel running) inside it, and that time inside
	 * its thread's calls by kind (idle.c); b0: busy time up to its start */
	double gidle, idle[K_N], b0;
};

/* One call name's share of a row: calls, time, copies to the host. */
struct cstat {
	double n, ns, d2h;
};

struct stage {
	const char *name;
	char *range;
	struct inst *in;
	size_t n, cap;
	/* launch-to-start latencies of the launches in each process's
	 * first instance [0] and in the others [1]; graph launches to their
	 * first kernel apart */
	struct lp_vals lat[2], glat[2];
	/* per row (all, steady): latencies, their p50, p90; graph's p50 */
	double nlat[2], p50[2], p90[2], nglat[2], gp50[2];
	struct cstat *cs[2];	/* by call name id: all, steady */
	size_t ncs;
	double *bystart;	/* instances' starts, sorted, and the latest */
	double *maxend;		/* end up to each (any thread): who else ran */
	double other;		/* launch calls of other processes inside */
	char *other_pid;	/* the first of those processes */
	size_t hint;		/* find's last answer, where the next one
				 * usually is (calls come in time order) */
};

/* Calls held at most this many launch, copy and synchronisation calls
 * (any thread's) after their own: more than any GPU queues.  A call whose
 * GPU work has not started by then has none (a failed launch, a host
 * function, a record nsys dropped). */
enum { AGE = 1 << 16 };

/* A launch, copy or synchronisation call of some stage, while its GPU work
 * may still start. */
struct rec {
	uint64_t corr;
	double t, dur, kmin;	/* call start and duration; earliest kernel */
	double kend;		/* the latest end of its kernels (a copy's:
				 * its own end on the GPU) */
	double seq;		/* launch, copy and sync calls before it */
	double strm;		/* a graph launch's kernels' stream, or NAN */
	int kind, name, graph, live;
	long line;
	size_t thr;		/* its thread (struct thr) */
	size_t waits;		/* a launch or copy: the first sync waiting
				 * for its GPU work's end; a sync: the next
				 * (slot + 1) */
};

/* The idle split (idle.c): the kernels merged into busy spans, the
 * instances' bounds in time order, the calls not yet measured. */
struct ibound {
	double t;
	size_t stage, inst;
	int end;		/* the instance's end, else its start */
};
struct icall {
	double end, dur, b0;	/* b0: busy time up to its start */
	int kind;
};
struct idle {
	int on;			/* a GPU trace of one process is read */
	double bdone;		/* busy time of the spans closed */
	double bs, be;		/* the open span, NAN before the first */
	struct ibound *b;
	size_t nb, ib;		/* bounds, the next one to measure */
	struct icall *call;
	long *cinst;		/* each call's instance in each stage, -1 */
	size_t ncall, capcall;
	char *dev;		/* the first kernel's GPU (Device) */
	int devs;		/* 1, or 2 for more than one */
};

/* A thread's last launch or copy of some stage: what a later sync waits
 * for. */
struct thr {
	size_t last;		/* its slot + 1 while held, else 0 */
	double kend;		/* its GPU work's end once let go, NAN: none */
};

struct st {
	struct stage *s;
	size_t ns;
	struct lp_map *names;	/* call name -> id */
	/* the calls held: slots, each with its instance in each stage (-1
	 * none) in inst[slot * ns ...]; a free list; by CorrID */
	struct rec *r;
	long *inst;
	size_t nr, capr, *freel, nfree;
	size_t *h;		/* open addressing: slot + 1, 0 empty */
	size_t caph, nh;
	size_t *q;		/* age queue (ring): slot + 1, oldest first */
	double *qseq;		/* the seq of the call queued there */
	size_t q0, qn, capq;
	struct gseen {		/* graph launches whose kernels started */
		size_t x;
		double seq;
	} *gseen;
	size_t ngseen, capgseen;
	double seq;		/* launch, copy and sync calls so far */
	int track;		/* calls are held: a GPU trace and one process */
	struct lp_map *ppids;	/* the processes of the stages' instances */
	double pidcalls;	/* API calls of one of those processes */
	char *pid1;		/* the first process with GPU work (launches,
				 * copies) in the API trace */
	long pids;		/* such processes: 1, or 2 for several */
	double nlaunch, unmatched;	/* the stages' launch calls; without a kernel */
	struct lp_map *thrs;	/* "pid\037tid" -> struct thr index */
	struct lp_map *kinds;	/* call name -> kind_of, as met */
	struct thr *th;
	size_t nth;
	/* the first reason the GPU trace is not of the API trace's capture,
	 * said once the API trace is read (several processes make it moot) */
	struct lp_sb err;
	const char *err_file;
	long err_line;
	int err_col, have_err;
	double cap_graphs;	/* cudaGraphLaunch calls of the capture
				 * (cuda_api_sum), -1: not known */
	struct lp_map *strms;	/* "device\037stream" -> index in sbusy */
	double *sbusy;		/* the latest end of the GPU work seen on
				 * each stream so far */
	struct lp_sb skey;	/* a stream's key, the row read */
	struct idle idle;	/* the idle split (idle.c) */
	long *cinst;		/* the call read: its instance in each stage */
};

/* The input files; NULL for a trace the run lacks. */
struct paths {
	const char *cpath, *apath, *gpath, *ppath, *spath;
	char *aname;		/* the API trace's CSV (a pack's source) */
};

/* common.c: a call's kind; the instance of a stage that holds a time. */
int kind_of(const char *name);		/* K_LAUNCH ... K_OTHER */
/* The instance of stage g on thread pid/tid that holds time t; NULL if
 * none.  Does any instance of g (any thread) hold t? */
struct inst *find(struct stage *g, const char *pid, const char *tid,
    double t);
int inside_any(const struct stage *g, double t);

/* sweep.c: a row of cuda_api_trace, of cuda_gpu_trace (start: its start
 * in ns), the calls still held once both are read; a held call's slot
 * given back. */
void sweep_api(struct st *t, const struct lp_rep_row *rr);
void sweep_gpu(struct st *t, const struct lp_rep_row *rr, double start);
void sweep_done(struct st *t);
void sweep_free_slot(struct st *t, size_t x);

/* idle.c: the idle split set up once the instances are read; a kernel
 * (start, end) of cuda_gpu_trace; a call of kind k inside the instances
 * inst[stage] (-1: none); every bound and call end up to time x measured
 * (x: the start of the next kernel not read, INFINITY after the last). */
void idle_init(struct st *t);
void idle_free(struct st *t);
void idle_kernel(struct st *t, double start, double end, const char *dev);
void idle_call(struct st *t, int k, double start, double dur,
    const long *inst);
void idle_upto(struct st *t, double x);

/* emit.c: the table's meta lines and header, then its rows, to out. */
void emit_meta(FILE *out, const struct st *t, const struct paths *p);
void emit_rows(FILE *out, const struct st *t, const struct paths *p);

#endif
