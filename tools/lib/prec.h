/*
 * prec.h: the precision vocabulary (prec.c): the paths and precisions a
 * FLOP is counted in, shared by ncu's counters (nsight.h) and the GPU's
 * peaks (run.h).  Depends on nothing.
 */
#ifndef LP_PREC_H
#define LP_PREC_H

/* FLOPs by path and precision: tensor cores (tc_*), then CUDA cores. */
enum {
	LP_FP_TC_FP16, LP_FP_TC_BF16, LP_FP_TC_TF32, LP_FP_TC_FP8, LP_FP_TC_INT8,
	LP_FP_TC_FP64, LP_FP_FP32, LP_FP_FP16, LP_FP_FP64, LP_FP_N
};
extern const char *const lp_fp_names[LP_FP_N];	/* "tc_fp16", "fp32" */
struct lp_flops {
	double f[LP_FP_N];
	int have_tensor, have_sass;	/* which counters the result had */
};
/* The precision index a model dtype runs its matmuls in ("fp16" -> tensor
 * fp16, "fp32" -> CUDA-core fp32); -1 if unknown. */
int lp_fp_of_dtype(const char *dtype);
const char *lp_fp_label(int fp);	/* "tensor fp16", "fp32 (CUDA cores)" */
int lp_fp_of_name(const char *name);	/* of lp_fp_names; -1 if none */
/* The index of a peak as gpu.tsv names it ("tensor" "fp16", "cuda"
 * "fp32"); -1 if it is none of them. */
int lp_fp_of_path(const char *path, const char *prec);

#endif
