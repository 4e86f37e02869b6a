/*
 * import.h: what the parts of lp-import share (tools/lp-import.c and the
 * files beside this header): the kinds of files and the nsys reports
 * rules.mk names, the files as read, their counts by name, and each
 * part's entry points.  A struct file owns what it points to (file_free
 * in lp-import.c); the names of kind_name and rep_var are static.
 */
#ifndef LP_IMPORT_H
#define LP_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum kind {
	K_NONE, K_KSUM, K_NVTX_SUM, K_NVTX_KSUM, K_API_SUM, K_MEM_SUM,
	K_PUSHPOP, K_PROJ, K_PROJ_SUM, K_EMPTY, K_CALL_SUM, K_GPU_TRACE,
	K_API_TRACE,
	K_GRAPH_NODES,
	K_NCU_KERN, K_NCU_RANGE, K_NSYS_REP, K_NCU_REP, K_NCU_REP_RANGE,
	K_SQLITE_GM, K_SQLITE,
};

/* The nsys reports lp reads, as rules.mk names their variables. */
enum rep {
	R_KSUM, R_KSUM_M, R_NVTX_SUM, R_NVTX_KSUM, R_NVTX_KSUM_M, R_API_SUM,
	R_MEM_SUM, R_PUSHPOP, R_PROJ, R_GPU_TRACE, R_GPU_TRACE_M, R_API_TRACE,
	R_GRAPH_NODES, R_N
};
extern const char *const rep_var[R_N];
extern const char *const kind_name[];

/* Counts by name: launches of a kernel, instances of a range, and their
 * time.  Added up (C_SUM), or per row of nvtx_kern_sum (C_ROW): n the most
 * launches of one row, t the most time of one row, and lo, hi the least
 * and the most time of the rows with n launches. */
struct counts {
	struct lp_map *idx;
	double *n, *t, *lo, *hi;
	size_t len, cap;
};
enum { C_SUM, C_ROW };

struct file {
	const char *path;
	/* -P: its rows packed as they are read (a trace's), into a
	 * temporary file beside packto's; pack its path once whole */
	const char *packto;
	char *pack;
	char *base;		/* its export set: BASE of BASE_REPORT.csv */
	enum kind kind;
	int details;		/* ncu --page details */
	long dem, mang;		/* names seen demangled, mangled */
	int rep;		/* enum rep, or -1 */
	struct lp_map *pids, *devs;
	struct counts names;	/* kernels or ranges, by count */
	struct counts sub;	/* nvtx_kern_sum: NVTX instances by range */
	double launches, time;	/* kernel rows of a trace, summed */
	double tunit;		/* its times' unit in ns (1000: us), 0 none */
	char *procname;
	size_t ops;		/* nvtx_sum: PyTorch op ranges */
	char *notcu;		/* a summary's first name not cuda* or cu* */
	uint64_t *keys;		/* ncu: a hash of each result */
	size_t nkeys;
	/* the GPU models it names: ncu's device__attribute_display_name, an
	 * sqlite export's TARGET_INFO_GPU */
	struct lp_map *gpus;
	/* an nsys sqlite export with samples: what ties it to its capture's
	 * CSVs (join.c): its NVTX push/pop ranges, their time in ns and
	 * their processes (-1: no table NVTX_EVENTS), its kernels and their
	 * time (-1: no table CUPTI_ACTIVITY_KIND_KERNEL) */
	double sq_ranges, sq_range_ns, sq_kerns, sq_kern_ns;
	struct lp_map *sq_pids;
};

/* common.c */
void counts_add(struct counts *c, const char *key, double n, double t,
    int mode);
double counts_get(const struct counts *c, const char *key);	/* -1: none */
double counts_time(const struct counts *c, const char *key);	/* -1: none */
void counts_total(const struct counts *c, double *n, double *t);
void counts_free(struct counts *c);
/* Most names decide: 1 mangled, 0 demangled, -1 neither seen. */
int imp_variant(const struct file *f);
/* A key into the set m, once; an empty key is none. */
void imp_put(struct lp_map *m, const char *key);
/* The first key of a found in b; NULL if none (or either is NULL). */
const char *imp_shared(const struct lp_map *a, const struct lp_map *b);
/* A GPU's model from cuda_gpu_trace's Device ("NVIDIA H200 (1)": its
 * model, less the CUDA device number); the caller frees it. */
char *imp_gpu_model(const char *dev);

/* read.c: the file's kind and what it holds; dies on bad data. */
void read_file(struct file *f);
/* join.c */
void join_check_report(const struct file *fs, size_t n, int rep);
void join_check_together(const struct file *fs, size_t n);
/* ncu.c */
void ncu_check_program(const struct file *fs, size_t n);
void ncu_check_twice(const struct file *fs, size_t n);

#endif
