/* The nsys readers: kernel summaries (ksum.c) and reports by column name
 * (rep.c) as lp-stages, lp-steps and lp-regions read them; a trace as
 * lp-overlap and lp-hostside read it, CSV or packed (pack.c: an input
 * that starts with the pack's first byte is read as one). */
#include <string.h>

#include "fuzz.h"
#include "nsight.h"

static void
ksum(FILE *fp)
{
	struct lp_ksum ks;

	lp_ksum_read(&ks, fp, "in", NULL, NULL);
	lp_ksum_sort(&ks);
	lp_ksum_free(&ks);
}

static void
ksum_range(FILE *fp)
{
	struct lp_ksum ks;

	lp_ksum_read(&ks, fp, "in", ":LLM@decode_all", NULL);
	lp_ksum_free(&ks);
}

static double sink;

static void
row(const struct lp_rep_row *r, void *ctx)
{
	(void)ctx;
	sink += lp_rep_time(r, 0) + lp_rep_count(r, 1);
	if (lp_rep_has(r, 3))
		sink += lp_rep_time(r, 3);
}

static void
nvtx_sum(FILE *fp)
{
	static const char *const cols[] = { "Total Time", "Instances", "Range",
		"?Med" };

	lp_rep_read(fp, "in", "nvtx_sum", cols, 4, row, NULL);
}

static void
trace_row(const struct lp_rep_row *r, void *ctx)
{
	(void)ctx;
	sink += lp_rep_time(r, 0) + lp_rep_time(r, 1);
	if (lp_rep_has(r, 4))
		sink += lp_rep_count(r, 4);
}

static void
proj_trace(FILE *fp)
{
	static const char *const cols[] = { "Projected Start",
		"Projected Duration", "Name", "PID", "?NumGPUOps" };

	lp_rep_read(fp, "in", "nvtx_gpu_proj_trace", cols, 5, trace_row, NULL);
}

static void
gpu_trace(FILE *fp)
{
	static const char *const cols[] = { "Start", "Duration", "Name",
		"?CorrId", "?Device" };

	lp_rep_read(fp, "in", "cuda_gpu_trace", cols, 5, trace_row, NULL);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	fuzz_run(ksum, data, size);
	fuzz_run(ksum_range, data, size);
	fuzz_run(nvtx_sum, data, size);
	fuzz_run(proj_trace, data, size);
	fuzz_run(gpu_trace, data, size);
	return 0;
}
