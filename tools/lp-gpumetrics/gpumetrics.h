/*
 * gpumetrics.h: what the parts of lp-gpumetrics share
 * (tools/lp-gpumetrics.c and the files beside this header): the metrics
 * reported (common.c), the stages and their instances, the sqlite
 * export, and each part's entry points.  struct gm's stg owns everything
 * it points to (free_state in lp-gpumetrics.c).
 */
#ifndef LP_GPUMETRICS_H
#define LP_GPUMETRICS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "nsql.h"

/* The metrics lp reports, by nsys's name (common.c); bytes: a
 * bytes/s row follows, the % of the GPU's DRAM bandwidth
 * (TARGET_INFO_GPU.memoryBandwidth). */
enum { M_UNIT_PCT, M_UNIT_MHZ };
#define NM 8
extern const struct metric {
	const char *name;
	int unit, bytes;
} metrics[NM];
/* DRAM read and write in metrics[]: two shares of one bandwidth */
enum { M_DRAM_RD = 4, M_DRAM_WR = 5 };

/* A metric's samples in one instance, added up exactly, so the sum is
 * the same whatever order the export's rows come in: nsys writes whole
 * numbers (whole: % or MHz; hz: a clock in Hz, to MHz when read); frac
 * holds any that are not, in row order. */
struct sum {
	int64_t whole, hz;
	double frac;
};

struct inst {
	double start, end;
	char *pid;
	int64_t gpu;		/* the GPU its process ran on; -1: unknown */
	int first;		/* its process's first instance */
	struct sum sum[NM];
	long n[NM];
};
/* The sum of a metric's samples in one instance, in its unit (common.c). */
double inst_sum(const struct inst *in, size_t k);

struct stage {
	const char *name;
	char *range;
	struct inst *in;
	size_t n, cap;
	double *maxend;		/* the latest end of in[0..i] */
	int proj;		/* instances from the GPU projection */
};

/* The sqlite export and the stages the parts are given (the main's,
 * passed down: no globals). */
struct gm {
	const char *path;	/* the sqlite export */
	sqlite3 *db;
	struct stage *stg;
	size_t nstg;
};

/* export.c; gpu: the instances a sample counts for, those of processes
 * on that GPU (-1: all) */
void export_need_tables(const struct gm *gm);
size_t export_type_ids(const struct gm *gm, int64_t **out);
int64_t export_source_of(const struct gm *gm, const int64_t *t, size_t n,
    const char *want);
void export_metric_ids(const struct gm *gm, int64_t src, int64_t *id);
long export_read_samples(struct gm *gm, int64_t src, const int64_t *id,
    int64_t gpu);
void export_check_dram_sum(const struct gm *gm, int64_t src,
    const int64_t *id);

/* gpus.c: the metrics sources t[0..n) of a multi-GPU export, each with
 * its GPU (TARGET_INFO_GPU's id, "NAME (id)", its PCI bus), or why not
 * (why); and the GPU of each instance of gm's stages from its
 * process's kernels (several: the pids whose kernels ran on more than
 * one, their instances left out).  It reads the export, writes only
 * what it is given. */
struct gsrc {
	int64_t type, gpu;
	char *label, *bus;
};
size_t gpus_sources(const struct gm *gm, const int64_t *t, size_t n,
    struct gsrc **out, struct lp_sb *why);
void gpus_sources_free(struct gsrc *g, size_t n);
void gpus_place_insts(struct gm *gm, struct lp_sb *why,
    struct lp_sb *several);

/* insts.c */
void insts_read(struct gm *gm, const char *ppath, const char *tpath);

#endif
