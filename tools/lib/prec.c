/*
 * The precisions lp counts FLOPs in, each by the names the inputs give it:
 * ncu's counters (lp_fp_names), gpu.tsv's path and precision, a model's
 * dtype, and the label the tables show.
 */
#include <string.h>

#include "prec.h"

const char *const lp_fp_names[LP_FP_N] = {
	"tc_fp16", "tc_bf16", "tc_tf32", "tc_fp8", "tc_int8", "tc_fp64",
	"fp32", "fp16", "fp64",
};

static const struct {
	const char *path, *prec;
	int fp;
	const char *label;
} precs[] = {
	{ "tensor", "fp16", LP_FP_TC_FP16, "tensor fp16" },
	{ "tensor", "bf16", LP_FP_TC_BF16, "tensor bf16" },
	{ "tensor", "tf32", LP_FP_TC_TF32, "tensor tf32" },
	{ "tensor", "fp8", LP_FP_TC_FP8, "tensor fp8" },
	{ "tensor", "int8", LP_FP_TC_INT8, "tensor int8" },
	{ "tensor", "fp64", LP_FP_TC_FP64, "tensor fp64" },
	{ "cuda", "fp32", LP_FP_FP32, "fp32 (CUDA cores)" },
	{ "cuda", "fp16", LP_FP_FP16, "fp16 (CUDA cores)" },
	{ "cuda", "fp64", LP_FP_FP64, "fp64 (CUDA cores)" },
};
#define NPRECS (sizeof precs / sizeof precs[0])

int
lp_fp_of_path(const char *path, const char *prec)
{
	size_t i;

	for (i = 0; i < NPRECS; i++)
		if (!strcmp(path, precs[i].path) && !strcmp(prec, precs[i].prec))
			return precs[i].fp;
	return -1;
}

int
lp_fp_of_dtype(const char *dtype)
{
	static const struct { const char *d; int fp; } m[] = {
		{ "fp16", LP_FP_TC_FP16 }, { "bf16", LP_FP_TC_BF16 },
		{ "tf32", LP_FP_TC_TF32 }, { "fp8", LP_FP_TC_FP8 },
		{ "int8", LP_FP_TC_INT8 }, { "fp32", LP_FP_FP32 },
		{ "fp64", LP_FP_FP64 },
	};
	size_t i;

	for (i = 0; dtype && i < sizeof m / sizeof m[0]; i++)
		if (!strcmp(dtype, m[i].d))
			return m[i].fp;
	return -1;
}

const char *
lp_fp_label(int fp)
{
	size_t i;

	for (i = 0; i < NPRECS; i++)
		if (precs[i].fp == fp)
			return precs[i].label;
	return "?";
}

int
lp_fp_of_name(const char *name)
{
	int q;

	for (q = 0; q < LP_FP_N; q++)
		if (!strcmp(name, lp_fp_names[q]))
			return q;
	return -1;
}
