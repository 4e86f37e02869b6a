/*
 * lp-linkprobe: what an all-reduce between the visible GPUs costs on this
 * machine, measured as nccl-tests measures it: NCCL's own all-reduce, one
 * thread and one communicator a GPU (ncclCommInitRank), float sums of
 * each size from 8 bytes (the per-collective latency) to 256 MiB (the bus
 * bandwidth: bytes / time x 2(n-1)/n, what each GPU's link carries in a
 * ring).  Each size is captured into a CUDA graph of several all-reduces
 * on each GPU's stream and the graph replayed: the host's launch cost is
 * out of the time, as it is out of a floor.
 *
 * Why NCCL and not peer copies: the floor is the collective's, and its
 * latency (the protocol's steps, the kernel's start) is NCCL's, not a
 * copy engine's.  lp links neither NCCL nor CUDA: both are loaded at run
 * time (dlopen), NCCL from -n or $LP_NCCL, else the loader's path, else
 * the NCCL of a Python framework's wheel (nvidia/nccl), the library the
 * workload runs.
 * A machine without them, or with one GPU, gets a message and a non-zero
 * exit, never a table.
 */
#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"

static const char synopsis[] = "lp-linkprobe [-c libcuda.so] [-n libnccl.so] "
    "[-g gpus] [-r replays]";

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef unsigned long long CUdeviceptr;
#define CU_ERROR_NO_DEVICE 100
#define CU_STREAM_NON_BLOCKING 1
#define CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1

static struct cuapi {
	CUresult (*Init)(unsigned int);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*StreamCreate)(CUstream *, unsigned int);
	CUresult (*StreamSynchronize)(CUstream);
	CUresult (*StreamBeginCapture)(CUstream, int);
	CUresult (*StreamEndCapture)(CUstream, CUgraph *);
	CUresult (*GraphInstantiate)(CUgraphExec *, CUgraph, unsigned long long);
	CUresult (*GraphLaunch)(CUgraphExec, CUstream);
	CUresult (*GraphExecDestroy)(CUgraphExec);
	CUresult (*GraphDestroy)(CUgraph);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
	CUresult (*EventCreate)(CUevent *, unsigned int);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*GetErrorString)(CUresult, const char **);
} cu;

typedef struct { char internal[128]; } ncclUniqueId;
typedef struct ncclComm *ncclComm_t;
#define NCCL_FLOAT32 7
#define NCCL_SUM 0
static struct ncclapi {
	int (*GetVersion)(int *);
	int (*GetUniqueId)(ncclUniqueId *);
	int (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
	int (*AllReduce)(const void *, void *, size_t, int, int, ncclComm_t,
	    CUstream);
	int (*CommDestroy)(ncclComm_t);
	const char *(*GetErrorString)(int);
} nc;

static const char *cupath = "libcuda.so.1";
static char ncpath[4096] = "";
static const char need[] = "older than lp needs (CUDA 11.4, NCCL 2.9)";

/* NCCL: -n, else the loader's libnccl.so.2, else a Python wheel's. */
static void *
nccl_open(void)
{
	static const char *const wheels[] = {
		"/opt/*/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
		"/usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
		"/usr/local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
		"/usr/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
	};
	const char *venv = getenv("VIRTUAL_ENV");
	void *h;
	size_t i;

	if (*ncpath) {
		if (!(h = dlopen(ncpath, RTLD_NOW | RTLD_LOCAL)))
			lp_die(LP_EXIT_USAGE, "cannot load NCCL: %s", dlerror());
		return h;
	}
	if ((h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL))) {
		snprintf(ncpath, sizeof ncpath, "libnccl.so.2");
		return h;
	}
	for (i = 0; i <= sizeof wheels / sizeof wheels[0]; i++) {
		char pat[4096];
		glob_t g;

		if (i == sizeof wheels / sizeof wheels[0]) {
			if (!venv)
				break;
			snprintf(pat, sizeof pat, "%s/lib/python3*/site-packages/"
			    "nvidia/nccl/lib/libnccl.so.2", venv);
		} else
			snprintf(pat, sizeof pat, "%s", wheels[i]);
		if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
			snprintf(ncpath, sizeof ncpath, "%s", g.gl_pathv[0]);
			globfree(&g);
			if ((h = dlopen(ncpath, RTLD_NOW | RTLD_LOCAL)))
				return h;
		} else
			globfree(&g);
	}
	lp_die(LP_EXIT_USAGE, "cannot find NCCL (libnccl.so.2 on the loader's "
	    "path or in a Python wheel's nvidia/nccl/lib): name it with -n "
	    "or the environment's LP_NCCL; no all-reduce to measure");
	return NULL;
}

static const struct lp_dlsym cs[] = {
#define S(f, name) { name, offsetof(struct cuapi, f) }
	/* first what counting the GPUs needs */
	S(Init, "cuInit"),
	S(DeviceGetCount, "cuDeviceGetCount"),
	S(GetErrorString, "cuGetErrorString"),
	S(DeviceGet, "cuDeviceGet"),
	S(DeviceGetName, "cuDeviceGetName"),
	S(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
	S(CtxSetCurrent, "cuCtxSetCurrent"),
	S(StreamCreate, "cuStreamCreate"),
	S(StreamSynchronize, "cuStreamSynchronize"),
	S(StreamBeginCapture, "cuStreamBeginCapture_v2"),
	S(StreamEndCapture, "cuStreamEndCapture"),
	S(GraphInstantiate, "cuGraphInstantiateWithFlags"),
	S(GraphLaunch, "cuGraphLaunch"),
	S(GraphExecDestroy, "cuGraphExecDestroy"),
	S(GraphDestroy, "cuGraphDestroy"),
	S(MemAlloc, "cuMemAlloc_v2"),
	S(MemFree, "cuMemFree_v2"),
	S(MemsetD8, "cuMemsetD8_v2"),
	S(EventCreate, "cuEventCreate"),
	S(EventRecord, "cuEventRecord"),
	S(EventSynchronize, "cuEventSynchronize"),
	S(EventElapsedTime, "cuEventElapsedTime"),
#undef S
};
#define NCOUNT 3	/* cs[0..NCOUNT): enough to count the GPUs */
static void *cuh;

/* The CUDA driver, the entry points that count the GPUs. */
static void
load_cuda(void)
{
	if (!(cuh = dlopen(cupath, RTLD_NOW | RTLD_LOCAL)))
		lp_die(LP_EXIT_USAGE, "cannot load the CUDA driver: %s; no "
		    "link to measure on this machine", dlerror());
	lp_dl_bind(cuh, cupath, cs, NCOUNT, &cu, need);
}

/* The rest of the driver's entry points, and NCCL's. */
static void
load_rest(void)
{
	static const struct lp_dlsym ns[] = {
#define S(f, name) { name, offsetof(struct ncclapi, f) }
		S(GetVersion, "ncclGetVersion"),
		S(GetUniqueId, "ncclGetUniqueId"),
		S(CommInitRank, "ncclCommInitRank"),
		S(AllReduce, "ncclAllReduce"),
		S(CommDestroy, "ncclCommDestroy"),
		S(GetErrorString, "ncclGetErrorString"),
#undef S
	};

	lp_dl_bind(cuh, cupath, cs + NCOUNT, sizeof cs / sizeof cs[0] - NCOUNT,
	    &cu, need);
	/* NVLink multicast stays off unless the caller chose: a program
	 * using it can take a shared host's GPUs out of service. */
	setenv("NCCL_NVLS_ENABLE", "0", 0);
	lp_dl_bind(nccl_open(), ncpath, ns, sizeof ns / sizeof ns[0], &nc, need);
}

static void
cucheck(CUresult r, const char *call, int dev)
{
	const char *s = NULL;

	if (r == 0)
		return;
	if (cu.GetErrorString(r, &s) != 0 || !s)
		s = "unknown error";
	lp_die(LP_EXIT_USAGE, "GPU %d: %s failed: %s (CUresult %d)", dev, call,
	    s, r);
}

static void
nccheck(int r, const char *call, int dev)
{
	if (r != 0)
		lp_die(LP_EXIT_USAGE, "GPU %d: %s failed: %s (ncclResult %d)",
		    dev, call, nc.GetErrorString(r), r);
}

/* The sizes: 8 bytes (latency) to 256 MiB (bandwidth), and the number of
 * all-reduces in each size's graph. */
static const size_t sizes[] = { 8, 1024, 65536, 1 << 20, 16 << 20, 256 << 20 };
static const int ops[] = { 50, 50, 50, 20, 10, 5 };
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAXR 100

struct gpu {
	int ord, n;
	long reps;
	ncclUniqueId id;
	pthread_barrier_t *bar;
	char name[256];
	double ms[NSIZES][MAXR];	/* each replay's time an all-reduce */
};

/* A rank's stream, events, buffer and communicator. */
struct rank {
	CUstream st;
	CUevent e0, e1;
	CUdeviceptr buf;
	ncclComm_t comm;
};

static void
allreduce(const struct gpu *g, struct rank *k, size_t cnt)
{
	nccheck(nc.AllReduce((void *)k->buf, (void *)k->buf, cnt, NCCL_FLOAT32,
	    NCCL_SUM, k->comm, k->st), "ncclAllReduce", g->ord);
}

/* One size: 3 warm-up all-reduces, then ops[s] of them captured into a
 * graph, replayed g->reps times between two events, each replay's time
 * an all-reduce in g->ms[s]. */
static void
time_size(struct gpu *g, struct rank *k, size_t s)
{
	CUgraph gr;
	CUgraphExec ex;
	size_t cnt = sizes[s] / 4;
	long r;
	int i;

	for (i = 0; i < 3; i++)	/* warm: connections set up, clocks up */
		allreduce(g, k, cnt);
	cucheck(cu.StreamSynchronize(k->st), "cuStreamSynchronize", g->ord);
	cucheck(cu.StreamBeginCapture(k->st, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
	    "cuStreamBeginCapture", g->ord);
	for (i = 0; i < ops[s]; i++)
		allreduce(g, k, cnt);
	cucheck(cu.StreamEndCapture(k->st, &gr), "cuStreamEndCapture", g->ord);
	cucheck(cu.GraphInstantiate(&ex, gr, 0), "cuGraphInstantiateWithFlags",
	    g->ord);
	cucheck(cu.GraphLaunch(ex, k->st), "cuGraphLaunch", g->ord);
	cucheck(cu.StreamSynchronize(k->st), "cuStreamSynchronize", g->ord);
	for (r = 0; r < g->reps; r++) {
		float t;

		pthread_barrier_wait(g->bar);
		cucheck(cu.EventRecord(k->e0, k->st), "cuEventRecord", g->ord);
		cucheck(cu.GraphLaunch(ex, k->st), "cuGraphLaunch", g->ord);
		cucheck(cu.EventRecord(k->e1, k->st), "cuEventRecord", g->ord);
		cucheck(cu.EventSynchronize(k->e1), "cuEventSynchronize", g->ord);
		cucheck(cu.EventElapsedTime(&t, k->e0, k->e1),
		    "cuEventElapsedTime", g->ord);
		g->ms[s][r] = t / ops[s];
	}
	cucheck(cu.GraphExecDestroy(ex), "cuGraphExecDestroy", g->ord);
	cucheck(cu.GraphDestroy(gr), "cuGraphDestroy", g->ord);
}

/* A GPU's thread: its context, stream, buffer and communicator, then
 * every size. */
static void *
rank_main(void *arg)
{
	struct gpu *g = arg;
	struct rank k;
	CUdevice dev;
	CUcontext ctx;
	size_t s;

	cucheck(cu.DeviceGet(&dev, g->ord), "cuDeviceGet", g->ord);
	cucheck(cu.DeviceGetName(g->name, sizeof g->name, dev),
	    "cuDeviceGetName", g->ord);
	g->name[sizeof g->name - 1] = '\0';
	cucheck(cu.DevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain",
	    g->ord);
	cucheck(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent", g->ord);
	cucheck(cu.StreamCreate(&k.st, CU_STREAM_NON_BLOCKING), "cuStreamCreate",
	    g->ord);
	cucheck(cu.MemAlloc(&k.buf, sizes[NSIZES - 1]), "cuMemAlloc_v2", g->ord);
	cucheck(cu.MemsetD8(k.buf, 0, sizes[NSIZES - 1]), "cuMemsetD8_v2",
	    g->ord);
	cucheck(cu.EventCreate(&k.e0, 0), "cuEventCreate", g->ord);
	cucheck(cu.EventCreate(&k.e1, 0), "cuEventCreate", g->ord);
	nccheck(nc.CommInitRank(&k.comm, g->n, g->id, g->ord),
	    "ncclCommInitRank", g->ord);
	for (s = 0; s < NSIZES; s++)
		time_size(g, &k, s);
	nccheck(nc.CommDestroy(k.comm), "ncclCommDestroy", g->ord);
	cucheck(cu.MemFree(k.buf), "cuMemFree_v2", g->ord);
	return NULL;
}

/* v[0..reps): each replay's time an all-reduce, its slowest GPU's (the
 * collective ends there), sorted; returns the median. */
static double
slowest(const struct gpu *g, int n, size_t s, long reps, double *v)
{
	long r;
	int i;

	for (r = 0; r < reps; r++) {
		v[r] = 0;
		for (i = 0; i < n; i++)
			if (g[i].ms[s][r] > v[r])
				v[r] = g[i].ms[s][r];
	}
	return lp_median(v, (size_t)reps);
}

static const struct lp_col cols[] = {
	{ "gpus", "GPUs", "int" }, { "bytes", "Message", "bytes" },
	{ "ops", "All-reduces a graph", "int" },
	{ "replays", "Timed replays", "int" },
	{ "best_ns", "Best (ms)", "ms" }, { "median_ns", "Median (ms)", "ms" },
	{ "busbw_best", "Bus bandwidth, best", "Bps" },
	{ "busbw_median", "Bus bandwidth, median", "Bps" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* One measurement on GPUs 0..n-1: a thread a GPU, each size's times in
 * g[i].ms. */
static void
measure(struct gpu *g, int n, long reps)
{
	pthread_t *th = lp_xcalloc((size_t)n, sizeof *th);
	pthread_barrier_t bar;
	ncclUniqueId id;
	int i;

	nccheck(nc.GetUniqueId(&id), "ncclGetUniqueId", -1);
	if (pthread_barrier_init(&bar, NULL, (unsigned)n))
		lp_die(LP_EXIT_USAGE, "pthread_barrier_init failed");
	for (i = 0; i < n; i++) {
		g[i].ord = i;
		g[i].n = n;
		g[i].reps = reps;
		g[i].id = id;
		g[i].bar = &bar;
		if (pthread_create(&th[i], NULL, rank_main, &g[i]))
			lp_die(LP_EXIT_USAGE, "pthread_create failed");
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);
	free(th);
}

/* The GPUs to measure: all the driver shows, or -g's first want. */
static int
visible(long want)
{
	int c, n;

	load_cuda();
	c = cu.Init(0);
	if (c == CU_ERROR_NO_DEVICE)
		lp_die(LP_EXIT_USAGE, "cuInit: the CUDA driver (%s) sees no "
		    "GPU: no link to measure on this machine", cupath);
	cucheck(c, "cuInit", -1);
	cucheck(cu.DeviceGetCount(&n), "cuDeviceGetCount", -1);
	if (want > n)
		lp_die(LP_EXIT_USAGE, "-g %ld: only %d GPUs visible", want, n);
	return want ? (int)want : n;
}

/* One GPU: nothing to measure, and nothing wrong: an empty table. */
static void
emit_none(FILE *out, int n)
{
	lp_tab_meta(out, "title", "All-Reduce Between the GPUs, Measured");
	lp_tab_meta(out, "tool", "lp-linkprobe");
	lp_tab_meta(out, "source", "none: %d GPU visible (%s)", n, cupath);
	lp_tab_meta(out, "omit", "one GPU: no link between GPUs");
	lp_tab_header(out, cols, NCOLS);
}

/* The table: the measurements g[k] on cnt[k] GPUs, k < nk, a row a
 * number of GPUs and size. */
static void
emit(FILE *out, struct gpu *const *g, const int *cnt, int nk, long reps,
    int ver, const char *counts)
{
	struct lp_row row = { { 0 }, 0 };
	double v[MAXR];
	size_t s;
	int k;

	lp_tab_meta(out, "title", "All-Reduce Between the GPUs, Measured");
	lp_tab_meta(out, "tool", "lp-linkprobe");
	lp_tab_meta(out, "source", "NCCL %d.%d.%d (%s) all-reduce (float sum, "
	    "in place) on GPUs 0 to n-1 for n = %s (%s), one thread and "
	    "communicator a GPU; each size captured into a CUDA graph of "
	    "several all-reduces on each GPU's stream, 3 warm-ups, then %ld "
	    "timed replays between two CUDA events (a replay's time is its "
	    "slowest GPU's); NCCL_NVLS_ENABLE=%s", ver / 10000, ver / 100 % 100,
	    ver % 100, ncpath, counts, g[0][0].name, reps,
	    getenv("NCCL_NVLS_ENABLE"));
	lp_tab_meta(out, "key", "gpus\tbytes");
	lp_tab_meta(out, "note", "Time = a replay's time over its all-reduces. "
	    "Bus bandwidth = bytes / time x 2(n-1)/n (nccl-tests' busbw: what "
	    "each GPU's link carries in a ring). The %zu-byte all-reduce is "
	    "the per-collective latency; the %zu-byte one, the bandwidth.",
	    sizes[0], sizes[NSIZES - 1]);
	lp_tab_header(out, cols, NCOLS);
	for (k = 0; k < nk; k++) {
		double busf = 2.0 * (cnt[k] - 1) / cnt[k];

		for (s = 0; s < NSIZES; s++) {
			double med = slowest(g[k], cnt[k], s, reps, v), best = v[0];

			lp_row_num(&row, cnt[k], 0);
			lp_row_num(&row, (double)sizes[s], 0);
			lp_row_num(&row, ops[s], 0);
			lp_row_num(&row, (double)reps, 0);
			lp_row_num(&row, best * 1e6, 0);
			lp_row_num(&row, med * 1e6, 0);
			lp_row_g(&row, sizes[s] / (best * 1e-3) * busf);
			lp_row_g(&row, sizes[s] / (med * 1e-3) * busf);
			lp_row_end(&row, out);
		}
	}
	lp_sb_free(&row.b);
}

int
main(int argc, char **argv)
{
	struct gpu *g[16];
	int cnt[16], nk = 0;
	struct lp_sb counts = { 0 };
	FILE *out;
	long reps = 20, want = 0;
	int c, n, k, ver = 0;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "c:g:n:r:", synopsis)) != -1) {
		switch (c) {
		case 'c': cupath = optarg; break;
		case 'g': want = lp_strtonum(optarg, 2, 1024, "-g"); break;
		case 'n': snprintf(ncpath, sizeof ncpath, "%s", optarg); break;
		case 'r': reps = lp_strtonum(optarg, 1, MAXR, "-r"); break;
		}
	}
	if (optind != argc)
		lp_usage(synopsis);
	if (!*ncpath && getenv("LP_NCCL") && *getenv("LP_NCCL"))
		snprintf(ncpath, sizeof ncpath, "%s", getenv("LP_NCCL"));
	if ((n = visible(want)) < 2) {
		out = lp_tab_out();
		emit_none(out, n);
		lp_tab_done(out);
		return LP_EXIT_OK;
	}
	load_rest();
	nccheck(nc.GetVersion(&ver), "ncclGetVersion", -1);
	/* 2, 4, 8 ... GPUs and all of them: a run of fewer ranks than the
	 * machine has GPUs finds its own count */
	for (k = 2; nk < 15; k *= 2) {
		cnt[nk++] = k < n ? k : n;
		lp_sb_printf(&counts, "%s%d", nk > 1 ? ", " : "", cnt[nk - 1]);
		if (k >= n)
			break;
	}
	for (k = 0; k < nk; k++) {
		g[k] = lp_xcalloc((size_t)cnt[k], sizeof *g[k]);
		measure(g[k], cnt[k], reps);
	}
	out = lp_tab_out();
	emit(out, g, cnt, nk, reps, ver, lp_sb_str(&counts));
	for (k = 0; k < nk; k++)
		free(g[k]);
	lp_sb_free(&counts);
	lp_tab_done(out);
	return LP_EXIT_OK;
}
