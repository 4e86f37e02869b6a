/*
 * lp-bwprobe: the DRAM bandwidth each visible GPU reaches, measured by
 * device-to-device copies (cuMemcpyDtoD) timed with CUDA events: a
 * warm-up copy, then N timed copies of one buffer into another; each byte
 * is read once and written once, so a copy of S bytes in t seconds moves
 * 2 S / t bytes/s.  The datasheet figure (conf/gpus.yaml hbm_tbps) is
 * what the memory could do; this is what a plain copy gets from it.
 *
 * The CUDA driver is loaded at run time (dlopen of libcuda.so.1): lp
 * builds and runs without CUDA, and a machine without a driver or a GPU
 * gets a message and a non-zero exit, never a table.  The prototypes below
 * are the driver API's own (cuda.h), declared here for the few calls made,
 * under the symbol names the library exports (the _v2 ones where the
 * driver has two).
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"

static const char synopsis[] = "lp-bwprobe [-l libcuda.so] [-r copies] "
    "[-s bytes]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

/* The driver API's types, as cuda.h has them on 64-bit hosts. */
typedef int CUresult;		/* enum cudaError_enum; 0 is CUDA_SUCCESS */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;	/* CUdeviceptr_v2 */
#define CU_ERROR_NO_DEVICE 100
#define CU_EVENT_DEFAULT 0

static struct cuapi {
	CUresult (*Init)(unsigned int);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetPCIBusId)(char *, int, CUdevice);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxSynchronize)(void);
	CUresult (*MemGetInfo)(size_t *, size_t *);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
	CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
	CUresult (*EventCreate)(CUevent *, unsigned int);
	CUresult (*EventDestroy)(CUevent);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*GetErrorString)(CUresult, const char **);
} cu;

static const char *libpath = "libcuda.so.1";
static double *ms;	/* the timed copies of one GPU, ms (reused) */

/* Each entry point by the name the library exports: a driver too old to
 * have one is named with the symbol. */
static void
load(void)
{
	static const struct lp_dlsym syms[] = {
#define S(f, name) { name, offsetof(struct cuapi, f) }
		S(Init, "cuInit"),
		S(DriverGetVersion, "cuDriverGetVersion"),
		S(DeviceGetCount, "cuDeviceGetCount"),
		S(DeviceGet, "cuDeviceGet"),
		S(DeviceGetName, "cuDeviceGetName"),
		S(DeviceGetPCIBusId, "cuDeviceGetPCIBusId"),
		S(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
		S(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
		S(CtxSetCurrent, "cuCtxSetCurrent"),
		S(CtxSynchronize, "cuCtxSynchronize"),
		S(MemGetInfo, "cuMemGetInfo_v2"),
		S(MemAlloc, "cuMemAlloc_v2"),
		S(MemFree, "cuMemFree_v2"),
		S(MemsetD8, "cuMemsetD8_v2"),
		S(MemcpyDtoD, "cuMemcpyDtoD_v2"),
		S(EventCreate, "cuEventCreate"),
		S(EventDestroy, "cuEventDestroy_v2"),
		S(EventRecord, "cuEventRecord"),
		S(EventSynchronize, "cuEventSynchronize"),
		S(EventElapsedTime, "cuEventElapsedTime"),
		S(GetErrorString, "cuGetErrorString"),
#undef S
	};
	void *h = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		lp_die(LP_EXIT_USAGE, "cannot load the CUDA driver: %s; no "
		    "GPU bandwidth to measure on this machine", dlerror());
	lp_dl_bind(h, libpath, syms, sizeof syms / sizeof syms[0], &cu,
	    "a CUDA driver older than lp needs (11.0)");
	/* the handle stays open until exit: the driver is in use till then */
}

/* Dies naming the call that failed, the device, and the driver's words. */
static void
check(CUresult r, const char *call, int dev)
{
	const char *s = NULL;

	if (r == 0)
		return;
	if (cu.GetErrorString(r, &s) != 0 || !s)
		s = "unknown error";
	if (dev < 0)
		lp_die(LP_EXIT_USAGE, "%s failed: %s (CUresult %d)", call, s, r);
	lp_die(LP_EXIT_USAGE, "GPU %d: %s failed: %s (CUresult %d)", dev, call,
	    s, r);
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct result {
	char name[256], bus[32];
	double best, median, best_ms, median_ms;
};

/* GPU ord's copies of src into dst (size bytes): a warm-up copy, then
 * reps timed copies, each between two events on the default stream, in
 * ms[0..reps). */
static void
copies(int ord, CUdeviceptr dst, CUdeviceptr src, size_t size, long reps)
{
	CUevent e0, e1;
	long i;

	check(cu.EventCreate(&e0, CU_EVENT_DEFAULT), "cuEventCreate", ord);
	check(cu.EventCreate(&e1, CU_EVENT_DEFAULT), "cuEventCreate", ord);
	check(cu.CtxSynchronize(), "cuCtxSynchronize", ord);
	/* the warm-up: clocks up, pages mapped, not timed */
	check(cu.MemcpyDtoD(dst, src, size), "cuMemcpyDtoD_v2", ord);
	check(cu.CtxSynchronize(), "cuCtxSynchronize", ord);
	for (i = 0; i < reps; i++) {
		float t;

		check(cu.EventRecord(e0, NULL), "cuEventRecord", ord);
		check(cu.MemcpyDtoD(dst, src, size), "cuMemcpyDtoD_v2", ord);
		check(cu.EventRecord(e1, NULL), "cuEventRecord", ord);
		check(cu.EventSynchronize(e1), "cuEventSynchronize", ord);
		check(cu.EventElapsedTime(&t, e0, e1), "cuEventElapsedTime",
		    ord);
		if (!(t > 0))
			lp_die(LP_EXIT_USAGE, "GPU %d: cuEventElapsedTime gave "
			    "%g ms for a copy of %zu bytes", ord, (double)t,
			    size);
		ms[i] = t;
	}
	check(cu.EventDestroy(e0), "cuEventDestroy_v2", ord);
	check(cu.EventDestroy(e1), "cuEventDestroy_v2", ord);
}

/* One GPU: two buffers of size bytes and their copies (copies). */
static void
probe(int ord, size_t size, long reps, struct result *res)
{
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr src, dst;
	size_t fr, total;

	ms = lp_xreallocarray(ms, (size_t)reps, sizeof *ms);
	check(cu.DeviceGet(&dev, ord), "cuDeviceGet", ord);
	check(cu.DeviceGetName(res->name, sizeof res->name, dev),
	    "cuDeviceGetName", ord);
	res->name[sizeof res->name - 1] = '\0';
	check(cu.DeviceGetPCIBusId(res->bus, sizeof res->bus, dev),
	    "cuDeviceGetPCIBusId", ord);
	res->bus[sizeof res->bus - 1] = '\0';
	check(cu.DevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain",
	    ord);
	check(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent", ord);
	check(cu.MemGetInfo(&fr, &total), "cuMemGetInfo_v2", ord);
	if (fr / 2 < size)
		lp_die(LP_EXIT_USAGE, "GPU %d (%s): two buffers of %zu bytes "
		    "do not fit in its %zu free bytes: a smaller -s", ord,
		    res->name, size, fr);
	check(cu.MemAlloc(&src, size), "cuMemAlloc_v2", ord);
	check(cu.MemAlloc(&dst, size), "cuMemAlloc_v2", ord);
	check(cu.MemsetD8(src, 0x5a, size), "cuMemsetD8_v2", ord);
	check(cu.MemsetD8(dst, 0, size), "cuMemsetD8_v2", ord);
	copies(ord, dst, src, size, reps);
	check(cu.MemFree(src), "cuMemFree_v2", ord);
	check(cu.MemFree(dst), "cuMemFree_v2", ord);
	check(cu.CtxSynchronize(), "cuCtxSynchronize", ord);
	check(cu.CtxSetCurrent(NULL), "cuCtxSetCurrent", ord);
	check(cu.DevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease_v2",
	    ord);
	qsort(ms, (size_t)reps, sizeof *ms, by_value);
	res->best_ms = ms[0];
	res->median_ms = lp_median(ms, (size_t)reps);
	res->best = 2.0 * (double)size / (res->best_ms * 1e-3);
	res->median = 2.0 * (double)size / (res->median_ms * 1e-3);
}

static const struct lp_col cols[] = {
	{ "device", "GPU", "int" }, { "name", "Name", "text" },
	{ "pci_bus", "PCI bus", "text" }, { "bytes", "Copy size", "bytes" },
	{ "copies", "Timed copies", "int" },
	{ "best_bytes_per_s", "Best (read + write)", "Bps" },
	{ "median_bytes_per_s", "Median (read + write)", "Bps" },
	{ "best_ns", "Best copy (ms)", "ms" },
	{ "median_ns", "Median copy (ms)", "ms" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* The driver loaded and started: its version in *ver; the number of
 * GPUs it sees, at least one. */
static int
start(int *ver)
{
	CUresult e;
	int n;

	load();
	e = cu.Init(0);
	if (e == CU_ERROR_NO_DEVICE)
		lp_die(LP_EXIT_USAGE, "cuInit: the CUDA driver (%s) sees no "
		    "GPU: no bandwidth to measure on this machine", libpath);
	check(e, "cuInit", -1);
	check(cu.DriverGetVersion(ver), "cuDriverGetVersion", -1);
	check(cu.DeviceGetCount(&n), "cuDeviceGetCount", -1);
	if (n < 1)
		lp_die(LP_EXIT_USAGE, "cuDeviceGetCount: no GPU visible "
		    "(CUDA_VISIBLE_DEVICES?): no bandwidth to measure");
	return n;
}

/* The table: its # lines, then a row a GPU. */
static void
emit(const struct result *res, int n, size_t size, long reps, int ver)
{
	struct lp_row r = { 0 };
	int i;

	lp_tab_meta(out, "title", "DRAM Bandwidth of a Device-to-Device Copy");
	lp_tab_meta(out, "tool", "lp-bwprobe");
	lp_tab_meta(out, "source", "cuMemcpyDtoD of a %zu-byte buffer into "
	    "another on each visible GPU (%s, CUDA driver API %d.%d), one "
	    "warm-up copy then %ld timed copies, each between two CUDA events "
	    "on the default stream", size, libpath, ver / 1000,
	    ver % 1000 / 10, reps);
	lp_tab_meta(out, "note", "Bandwidth = 2 x bytes / copy time: a copy "
	    "reads each byte once and writes it once, so this counts DRAM read "
	    "+ write, as the datasheet's figure does. Best = the fastest "
	    "copy; median = the median copy (type 7 median of %ld).", reps);
	lp_tab_header(out, cols, NCOLS);
	for (i = 0; i < n; i++) {
		lp_row_num(&r, i, 0);
		lp_row_text(&r, res[i].name);
		lp_row_text(&r, res[i].bus);
		lp_row_num(&r, (double)size, 0);
		lp_row_num(&r, (double)reps, 0);
		lp_row_g(&r, res[i].best);
		lp_row_g(&r, res[i].median);
		lp_row_num(&r, res[i].best_ms * 1e6, 0);
		lp_row_num(&r, res[i].median_ms * 1e6, 0);
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	struct result *res;
	size_t size = (size_t)1 << 30;
	long reps = 10;
	int c, n, i, ver = 0;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "l:r:s:", synopsis)) != -1) {
		switch (c) {
		case 'l': libpath = optarg; break;
		case 'r': reps = lp_strtonum(optarg, 1, 1000, "-r"); break;
		case 's':
			/* 1 MiB to 64 GiB: a copy long enough to time, and
			 * two buffers some GPU holds */
			size = (size_t)lp_strtonum(optarg, 1L << 20, 1L << 36,
			    "-s");
			break;
		}
	}
	if (optind != argc)
		lp_usage(synopsis);
	out = lp_tab_out();
	n = start(&ver);
	res = lp_xcalloc((size_t)n, sizeof *res);
	for (i = 0; i < n; i++)
		probe(i, size, reps, &res[i]);
	emit(res, n, size, reps, ver);
	free(res);
	free(ms);
	lp_tab_done(out);
	return LP_EXIT_OK;
}
