/*
 * A stand-in for the CUDA driver (libcuda.so.1) on machines without a GPU,
 * for lp-bwprobe's tests: the calls lp-bwprobe makes, with the driver
 * API's signatures, and no GPU work.  What it does is set by the
 * environment:
 *   FAKE_CUDA_DEVICES  GPUs it shows (default 1); FAKE_CUDA_NODEVICE=1:
 *                      cuInit says CUDA_ERROR_NO_DEVICE (100), as the real
 *                      driver does on a machine without a GPU
 *   FAKE_CUDA_NAME     their name (default "NVIDIA H200")
 *   FAKE_CUDA_FREE     free bytes (cuMemGetInfo_v2; default 80 GiB)
 *   FAKE_CUDA_MS       the times cuEventElapsedTime gives, in turn, as a
 *                      comma-separated list of ms (default 1)
 *   FAKE_CUDA_FAIL     a symbol that fails with CUDA_ERROR_OUT_OF_MEMORY (2)
 * Built by make (bin/test/libcuda-fake.so), never installed.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUevent, *CUstream;
typedef unsigned long long CUdeviceptr;

static int calls;	/* cuEventElapsedTime calls so far */

static CUresult
fail(const char *sym)
{
	const char *f = getenv("FAKE_CUDA_FAIL");

	return f && !strcmp(f, sym) ? 2 : 0;
}

static long long
env(const char *k, long long d)
{
	const char *v = getenv(k);

	return v && *v ? atoll(v) : d;
}

CUresult cuInit(unsigned f) { (void)f; return env("FAKE_CUDA_NODEVICE", 0) ? 100 : fail("cuInit"); }
CUresult cuDriverGetVersion(int *v) { *v = 12080; return fail("cuDriverGetVersion"); }
CUresult cuDeviceGetCount(int *n) { *n = (int)env("FAKE_CUDA_DEVICES", 1); return fail("cuDeviceGetCount"); }
CUresult cuDeviceGet(CUdevice *d, int o) { *d = o; return fail("cuDeviceGet"); }
CUresult
cuDeviceGetName(char *s, int len, CUdevice d)
{
	const char *n = getenv("FAKE_CUDA_NAME");

	(void)d;
	snprintf(s, (size_t)len, "%s", n ? n : "NVIDIA H200");
	return fail("cuDeviceGetName");
}
CUresult cuDeviceGetPCIBusId(char *s, int len, CUdevice d) { snprintf(s, (size_t)len, "00000000:%02X:00.0", d + 0x18); return fail("cuDeviceGetPCIBusId"); }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { *c = (CUcontext)(long)(d + 1); return fail("cuDevicePrimaryCtxRetain"); }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return fail("cuDevicePrimaryCtxRelease_v2"); }
CUresult cuCtxSetCurrent(CUcontext c) { (void)c; return fail("cuCtxSetCurrent"); }
CUresult cuCtxSynchronize(void) { return fail("cuCtxSynchronize"); }
CUresult
cuMemGetInfo_v2(size_t *fr, size_t *total)
{
	*fr = (size_t)env("FAKE_CUDA_FREE", 80LL << 30);
	*total = 80ULL << 30;
	return fail("cuMemGetInfo_v2");
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { static CUdeviceptr next = 1 << 20; *p = next; next += n; return fail("cuMemAlloc_v2"); }
CUresult cuMemFree_v2(CUdeviceptr p) { (void)p; return fail("cuMemFree_v2"); }
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char c, size_t n) { (void)p; (void)c; (void)n; return fail("cuMemsetD8_v2"); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { (void)d; (void)s; (void)n; return fail("cuMemcpyDtoD_v2"); }
CUresult cuEventCreate(CUevent *e, unsigned f) { static long k = 1; (void)f; *e = (CUevent)k++; return fail("cuEventCreate"); }
CUresult cuEventDestroy_v2(CUevent e) { (void)e; return fail("cuEventDestroy_v2"); }
CUresult cuEventRecord(CUevent e, CUstream s) { (void)e; (void)s; return fail("cuEventRecord"); }
CUresult cuEventSynchronize(CUevent e) { (void)e; return fail("cuEventSynchronize"); }
CUresult
cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	const char *l = getenv("FAKE_CUDA_MS");
	char *copy, *tok, *save = NULL;
	int i = 0, n = 0;
	float v[64];

	(void)a;
	(void)b;
	copy = strdup(l && *l ? l : "1");
	for (tok = strtok_r(copy, ",", &save); tok && n < 64; tok = strtok_r(NULL, ",", &save))
		v[n++] = strtof(tok, NULL);
	free(copy);
	i = calls++ % (n ? n : 1);
	*ms = n ? v[i] : 1;
	return fail("cuEventElapsedTime");
}
CUresult
cuGetErrorString(CUresult r, const char **s)
{
	*s = r == 2 ? "out of memory" : r == 100 ? "no CUDA-capable device is detected" : "unknown error";
	return 0;
}
