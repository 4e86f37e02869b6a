/*
 * CUDA API calls by name, as nsys's cuda_api_trace and cuda_api_sum name
 * them (with or without a version suffix, "cudaLaunchKernel_v7000"): the
 * calls that put kernels on the GPU, and those that launch a CUDA graph.
 */
#include <string.h>

#include "nsight.h"

static int
prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

int
lp_capi_graph_launch(const char *name)
{
	return prefix(name, "cudaGraphLaunch") || prefix(name, "cuGraphLaunch");
}

int
lp_capi_launch(const char *name)
{
	return prefix(name, "cudaLaunch") || prefix(name, "cuLaunch") ||
	    lp_capi_graph_launch(name);
}
