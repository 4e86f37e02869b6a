/*
 * The peaks a run is measured against, as lp-gpu(1) resolved them into
 * gpu.tsv: dense FLOP/s per path and precision and DRAM bandwidth.  A peak
 * that is not there stays 0 here, and the tools say "n/a because" with the
 * reason gpu.tsv gives.
 */
#include <stdlib.h>
#include <string.h>

#include "lp.h"

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

void
lp_peaks_read(struct lp_peaks *p, const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-gpu, make RUN=... gpu.tsv");
	int cp = lp_csv_need(&t.hdr, "path", "lp-gpu output");
	int cr = lp_csv_need(&t.hdr, "precision", "lp-gpu output");
	int cv = lp_csv_need(&t.hdr, "peak", "lp-gpu output");
	const char *s;
	size_t i;

	lp_tab_expect(&t, "lp-gpu");
	memset(p, 0, sizeof *p);
	if ((s = lp_tsv_comment(&t, "gpu")) && *s)
		p->gpu = lp_xstrdup(s);
	if ((s = lp_tsv_comment(&t, "why")) && *s)
		p->why = lp_xstrdup(s);
	while (lp_tsv_next(&t)) {
		const char *pa = lp_tsv_get(&t, cp), *pr = lp_tsv_get(&t, cr);
		double v;

		if (!lp_tab_num(&t, cv, &v))
			continue;
		if (v <= 0)
			lp_die_at(LP_EXIT_DATA, path, t.line, cv + 1, "peak %s %s "
			    "is not above zero", pa, pr);
		if (!strcmp(pa, "dram")) {
			if (p->bw > 0)
				lp_die_at(LP_EXIT_DATA, path, t.line, cp + 1,
				    "the DRAM bandwidth twice");
			p->bw = v;
		}
		for (i = 0; i < NPRECS; i++)
			if (!strcmp(pa, precs[i].path) && !strcmp(pr, precs[i].prec)) {
				if (p->flops[precs[i].fp] > 0)
					lp_die_at(LP_EXIT_DATA, path, t.line, cp + 1,
					    "peak %s %s twice", pa, pr);
				p->flops[precs[i].fp] = v;
			}
	}
	if (!p->why)
		p->why = lp_xstrdup(p->gpu ? "gpu.tsv has no such peak" :
		    "the GPU is unknown");
	lp_tsv_close(&t);
	fclose(fp);
}

void
lp_peaks_free(struct lp_peaks *p)
{
	free(p->gpu);
	free(p->why);
	memset(p, 0, sizeof *p);
}

double
lp_peak_of(const struct lp_peaks *p, int fp)
{
	return fp >= 0 && fp < LP_FP_N ? p->flops[fp] : 0;
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
