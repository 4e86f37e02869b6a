/*
 * run.h: the run's layer: its config read typed (cfg.c), operator classes
 * (ops.c), ncu selections (sel.c), stage tables (stagetab.c), model
 * (model.c), GPU peaks (gpu.c), regions (region.c, regdata.c) and the
 * inputs of the utilisation tables (perf.c).  The top layer: depends on
 * any header below (util.h, esc.h, prec.h, table.h, nsight.h); the types
 * of those used here by pointer only are declared, not included.
 */
#ifndef LP_RUN_H
#define LP_RUN_H

#include <regex.h>
#include <stddef.h>
#include <stdio.h>

#include "prec.h"

struct lp_av;
struct lp_col;
struct lp_map;
struct lp_row;
struct lp_sb;
struct lp_ynode;

/* cfg.c: typed, checked reads of a resolved config; errors name the file
 * and the key's line. */
const char *lp_cfg_enum(const struct lp_ynode *cfg, const char *path,
    const char *dflt, const char *const *allowed, const char *file);
long lp_cfg_long(const struct lp_ynode *cfg, const char *path, long dflt,
    long min, long max, const char *file);
/* Pushes the config's extra_args at path, "--" and the workload, which
 * must be there and must not look like an option. */
void lp_av_workload(struct lp_av *av, const struct lp_ynode *cfg,
    const char *extra_path, char **work, size_t nwork, const char *file);
/* A scalar without spaces, quotes or control characters ("" allowed). */
const char *lp_cfg_word(const struct lp_ynode *cfg, const char *path,
    const char *dflt, const char *file);
/* Items of a list of scalars (borrowed); a missing key is an empty list. */
size_t lp_cfg_list(const struct lp_ynode *cfg, const char *path,
    const char ***items, const char *file);

/* Dies unless env is an env.json as lp-env writes it (types checked). */
void lp_env_check(const struct lp_ynode *env, const char *file);

/* sel.c: ncu kernel selections. */
void lp_re_escape(struct lp_sb *b, const char *s);
/* "regex:^(a|b)$" matching exactly the given names. */
void lp_sel_regex(struct lp_sb *b, char *const *names, size_t n);

/* ops.c: operator classes of conf/operators.yaml. */
struct lp_ops {
	size_t n;		/* classes; index n is "Other" */
	const char **names;	/* n + 1, borrowed from conf */
	int *comm;		/* class marked comm: true (NCCL) */
	int *floor;		/* class marked floor: true (does a step's floor work) */
	regex_t *re;		/* n patterns */
	size_t nre;
	struct lp_ynode *conf;
	const struct lp_ynode *wrappers;
	struct lp_map *memo;	/* kernel name -> class, as found */
};
void lp_ops_load(struct lp_ops *o, const char *path);	/* dies on bad */
/* Is the class of that name marked floor: true (GEMMs, attention: the
 * kernels that move a step's weights and KV cache, lp-waterfall(1))? */
int lp_ops_is_floor(const struct lp_ops *o, const char *class_name);
/* Is the class of that name marked comm: true (NCCL)? */
int lp_ops_class_comm(const struct lp_ops *o, const char *class_name);
size_t lp_ops_class(const struct lp_ops *o, const char *kernel);
int lp_ops_is_comm(const struct lp_ops *o, const char *kernel);
void lp_ops_free(struct lp_ops *o);

/* stagetab.c: stages.tsv and steps.tsv read back, one row per stage;
 * a value that was not a number is NAN. */
struct lp_stagerow {
	char *stage, *range;
	double inst, total, mean, median, min, max, kernel, launches, busy;
	double first, steady, steady_min, steady_max, tokens_per_s;
	double steady_p25, steady_p75;	/* NAN in a steps.tsv without them */
	int in_steps;		/* rows of steps.tsv read for it */
	double procs;		/* processes (ranks) of the run: 1, or N */
	int warmup;
	/* steps.tsv is the untraced timing run's ("# timing: untraced"):
	 * total, mean and busy are the untraced wall time's, kernel and
	 * launches still the capture's; min and max unknown */
	int untraced;
	const char *busy_why;	/* why busy is NAN (static), or NULL */
};
/* Either path may be NULL.  Returns the row count; caller frees.  Where
 * steps.tsv is the untraced timing run's, its wall times replace the
 * capture's: a stage's mean and total are the untraced ones and GPU busy
 * is the capture's kernel time over the untraced wall time (the tracer
 * lengthens host calls, not kernels; where the kernels outlast the
 * untraced wall time busy is NAN and busy_why says so).  A stage counted
 * with other instances in each table dies naming both. */
size_t lp_stagetab_load(const char *stages, const char *steps,
    struct lp_stagerow **rows);
const struct lp_stagerow *lp_stagetab_get(const struct lp_stagerow *rows,
    size_t n, const char *stage);
void lp_stagetab_free(struct lp_stagerow *rows, size_t n);

/* model.c: a model config's numbers (inputs.yaml "model:"). */
struct lp_model {
	const char *name, *dtype;
	double params, layers, hidden, heads, kv_heads, batch, prompt, decode;
	double vocab;		/* 0 when not given */
	int logits_last;	/* prefill computes the LM head for the last token */
	double dtype_bytes, kv_bytes;	/* per element */
	char *missing;		/* "model.params, model.layers" or NULL */
};
/* Dies naming file and line on a key that is not a whole number. */
void lp_model_get(struct lp_model *m, const struct lp_ynode *inputs,
    const char *file);
void lp_model_free(struct lp_model *m);
/* Model FLOPs of a stage (0 if the stage is not one this knows):
 * prefill B(2NP + 2LdP^2), or with prefill_logits: last (the LM head, V*d of
 * N, run for the last prompt token only) B(2(N - Vd)P + 2Vd + 2LdP^2);
 * decode_all B(2NT + 4Ld(PT + T(T-1)/2));
 * decode_step = decode_all / T. */
double lp_model_flops(const struct lp_model *m, const char *stage);
/* Bytes a decode step must read: weights N*b plus the KV cache,
 * 2*L*B*kv_dim*b_kv*(P + (T+1)/2) on average over the T steps. */
double lp_model_step_bytes(const struct lp_model *m, double *weights,
    double *kv);

/* gpu.c: the GPU's dense peaks, from gpu.tsv (lp-gpu(1)). */
struct lp_peaks {
	char *gpu;		/* the GPU's name; NULL if unknown */
	char *why;		/* why a peak is missing, for "n/a because" */
	double flops[LP_FP_N];	/* FLOP/s per precision; 0: unknown */
	double bw;		/* DRAM bytes/s; 0: unknown */
	double link;		/* GPU-to-GPU link bytes/s, each way; 0: unknown */
	char *link_from;	/* the link row's "from"; NULL if none */
};
void lp_peaks_read(struct lp_peaks *p, const char *path);
/* A filter of one table against the peaks (-g gpath, needed; the table
 * the one operand, else standard input): the peaks read, the table
 * opened into t; its FILE returned, for lp_close_in. */
struct lp_tsv;
FILE *lp_peaks_tsv_open(struct lp_peaks *p, const char *gpath, int argc,
    char **argv, const char *synopsis, struct lp_tsv *t);
void lp_peaks_free(struct lp_peaks *p);
/* Peak FLOP/s of one precision (an LP_FP_* index); 0 if unknown. */
double lp_peak_of(const struct lp_peaks *p, int fp);
/* Where flop FLOPs of precision fp (-1: none) over bytes of DRAM in ns
 * stand on the roofline (bytes, ns > 0): bound by DRAM bandwidth with no
 * FLOPs or below the ridge (peak / bandwidth), by the peak above it;
 * peak 0 and frac NAN when the peak or the bandwidth is unknown. */
struct lp_roof {
	double ai, fps, bps;	/* FLOP/byte, FLOP/s, bytes/s */
	double peak, ridge, frac;	/* frac: of the roof that bounds */
	int mem;
};
void lp_roof_at(const struct lp_peaks *p, int fp, double flop, double bytes,
    double ns, struct lp_roof *r);
/* The roofline columns of a table of points (roofline.tsv, op_roofline.tsv),
 * from the arithmetic intensity to the roof's share, as lp_roof_at gives
 * them. */
#define LP_ROOF_COLS \
	{ "ai", "AI (FLOP/B)", "num2" }, \
	{ "flop_per_s", "Achieved FLOP/s", "flops" }, \
	{ "bytes_per_s", "Achieved DRAM B/s", "Bps" }, \
	{ "peak_flop_per_s", "Peak FLOP/s", "flops" }, \
	{ "ridge", "Ridge (FLOP/B)", "num1" }, \
	{ "roof", "Bound by", "text" }, \
	{ "roof_pct", "% of roof", "pct" }

/* gpu.c too: dram_bw.tsv (lp-bwceil(1)) read back, the DRAM bandwidth
 * measured on the run's machine, shown beside the datasheet's (gpu.tsv),
 * never in its place. */
struct lp_bwmeas {
	const char *path;	/* dram_bw.tsv, borrowed */
	double bps;		/* the copy probe's ceiling, bytes/s; 0: none */
	char *how;		/* how it was measured, or "n/a because ..." */
	double sampled;		/* the best the samples sustained; 0: none */
	char *sampled_how;	/* likewise */
};
void lp_bwmeas_read(struct lp_bwmeas *m, const char *path);
void lp_bwmeas_free(struct lp_bwmeas *m);
/* The "# dram:" line naming both figures and where the measured one
 * comes from (uses: what the table computes against the datasheet's, a
 * phrase), and "# dram_measured_bps:" for lp-roofsvg; with floor, what a
 * floor set by bytes would be at the measured figure. */
void lp_bwmeas_meta(FILE *out, const struct lp_peaks *pk,
    const struct lp_bwmeas *m, const char *uses, int floor);

/* roofcls.c: each of n kernels' roofline class from roofline.tsv (by its
 * "kernel" column): its points' class, "mixed: A (grid g1); B (grid g2)"
 * where its launch shapes' differ, "n/a ..." where ncu measured none of
 * them, NULL where the table has no row for it.  Caller frees each and
 * the array. */
char **lp_roof_classes(const char *rpath, char *const *kernels, size_t n);

/* perf.c: what the utilisation tables (lp-mfu, lp-mbu) divide, read from
 * the options they share: -g gpu.tsv -i inputs.yaml -s stages.tsv
 * [-t steps.tsv]. */
struct lp_perf {
	const char *gpath, *ipath, *spath, *tpath;	/* tpath may be NULL */
	struct lp_ynode *inputs;
	struct lp_model m;
	struct lp_peaks pk;
	struct lp_stagerow *rows;
	size_t n;
};
/* getopt(3) of those options; -h prints the synopsis and exits 0. */
void lp_perf_opts(struct lp_perf *p, int argc, char **argv,
    const char *synopsis);
/* The model of inputs.yaml, the peaks, the stage rows; dies on bad data. */
void lp_perf_load(struct lp_perf *p);
/* A utilisation table's opening: lp_init, the options, the load, and the
 * table (lp_tab_out) with its title and tool; returns the table. */
FILE *lp_perf_open(struct lp_perf *p, int argc, char **argv,
    const char *synopsis, const char *title, const char *tool);
/* The processes of a multi-GPU run (stages.tsv's # processes) share the
 * model's what ("work", "bytes"): one GPU's peak times their count, said
 * in a note that names the peak ("peak", "bandwidth"). */
double lp_perf_share(const struct lp_perf *p, FILE *out, double peak,
    const char *what, const char *name);
/* The table's "missing" line (no TITLE: why) when the model config lacks
 * a key or there is no peak. */
void lp_perf_missing(const struct lp_perf *p, FILE *out, const char *title,
    double peak);
void lp_perf_free(struct lp_perf *p);

/* region.c: NVTX regions to profile as a whole: the stages (with their
 * optional "parent:") plus the list at key, each with its depth. */
struct lp_region {
	char *name, *domain, *range, *parent;	/* parent NULL at depth 0 */
	char *nsys;		/* as nsys stats spells it: "LLM:decode_step" */
	int depth;
};
size_t lp_regions_get(const struct lp_ynode *cfg, const char *key,
    struct lp_region **out, const char *file);	/* caller frees */
char *lp_region_path(const struct lp_region *r, size_t n, size_t i);
int lp_regions_depth(const struct lp_region *r, size_t n);	/* deepest */
void lp_regions_free(struct lp_region *r, size_t n);

/* regdata.c: regions as ncu measured them (one result per instance, range
 * or app-range replay) and as nsys saw them. */
struct lp_rinst {
	char *pid, *device;
	double start, gpu_ns;	/* nsys: projected start and span on the GPU */
	double sm, dram, bytes, ops;	/* ops: nsys NumGPUOps, NAN if absent */
	int have_sm, have_dram, have_bytes;
	struct lp_flops f;
	long line;
	long part;		/* ncu: its export's place in the list */
	double id;		/* ncu: its result ID there */
};
struct lp_rinsts {
	struct lp_rinst *in;	/* by export, then result ID: time order */
	size_t n, cap;
};
/* nsys's instances of a region (nvtx_gpu_proj_trace), read as a stream:
 * memory grows with the processes and the distinct durations, not with
 * the instances.  A process keeps its earliest instances (by start, then
 * the longer span), as many as ncu measured in any one process of the
 * region, to be paired with ncu's by order (lp-reginst); in[0] is its
 * first. */
struct lp_rproc {
	char *pid;
	struct lp_rinst *in;	/* pid and device NULL */
	size_t n;
};
struct lp_rnsys {
	struct lp_rproc *p;	/* by their first instance's start */
	size_t np;
	struct lp_map *idx;	/* pid -> p's index, while read */
	size_t keep;		/* instances kept a process, >= 1 */
	double n;		/* all instances */
	struct lp_vals rest;	/* durations after each process's first */
};
struct lp_rset {
	struct lp_region *rg;
	size_t n;
	struct lp_rinsts *ncu;	/* [n] */
	struct lp_rnsys *nsys;	/* [n] */
	double *kern_ns, *kern_n, *nvtx_n;	/* nvtx_kern_sum, per region */
	int have_kern, have_proj;
	long parts;		/* ncu exports read */
	int no_rest;		/* set before lp_rset_nsys: nsys's steady
				 * state not wanted (lp-reginst), its
				 * durations not kept */
	struct lp_map *seen;
	struct lp_ynode *cfg;	/* lp_rset_load's, freed with rs */
};
/* The regions of config cpath (ncu_regions.regions), with ncu's exports
 * that list lpath names read (lp_rset_init, lp_rset_ncu_list). */
void lp_rset_load(struct lp_rset *rs, const char *cpath, const char *lpath);
/* lp-regions' and lp-reginst's start: lp_start, the options (opts: those
 * of "c:k:l:p:w:" the tool takes; -c and -l needed, nothing after them),
 * the regions loaded, nsys's instances read (rs->no_rest as given). */
struct lp_regopts {
	const char *cpath, *kpath, *lpath, *ppath;
	double ratio;		/* -w, 1.5 unless given */
};
/* A region tool: its options (of -c -k -l -p -w), then the table: meta()
 * writes the # lines, region() region j's rows.  no_rest: instances are
 * paired, not summed up (no steady state). */
struct lp_regtool {
	const char *opts, *synopsis;
	const struct lp_col *cols;
	size_t ncols;
	int no_rest;
	void (*meta)(FILE *out, const struct lp_rset *rs,
	    const struct lp_regopts *o);
	void (*region)(FILE *out, struct lp_row *r, struct lp_rset *rs,
	    size_t j, const struct lp_regopts *o);
};
int lp_regtool_main(int argc, char **argv, const struct lp_regtool *t);
void lp_rset_init(struct lp_rset *rs, const struct lp_ynode *cfg,
    const char *key, const char *file);
void lp_rset_ncu(struct lp_rset *rs, const char *export_csv);
void lp_rset_ncu_list(struct lp_rset *rs, const char *list);
void lp_rset_nsys(struct lp_rset *rs, const char *kern_sum,
    const char *proj_trace);	/* either may be NULL */
void lp_rset_free(struct lp_rset *rs);
/* Median of the instances after each process's first (NAN if none);
 * *first gets the median of the firsts. */
double lp_rinsts_steady(const struct lp_rinsts *x, double *first);
double lp_rnsys_steady(struct lp_rnsys *y, double *first);

/* ranks.c: one stage's ranks from lp-ranks(1)'s table: each process's
 * median instance (step), its communication kernels, its other kernels
 * (compute) and the rest (idle), all ns a step; rows without numbers are
 * left out.  The caller frees with lp_ranks_free. */
struct lp_rank {
	char *pid, *device;
	double step, comm, compute, idle;
	double gap, launches;	/* lp-ranks' gap_ns and launches an instance */
	int straggler;		/* lp-ranks named it the straggler */
};
/* A straggler's cause, its own GPU's work (1) or its host (0): its compute
 * exceeds the fastest rank's by a quarter of its gap, or it launches 1.2
 * times as many kernels (lp-bound's verdict and lp-findings' rule). */
int lp_straggler_more_work(double compute, double fast_compute, double gap,
    double launches, double fast_launches);
size_t lp_ranks_load(const char *path, const char *stage,
    struct lp_rank **out);
void lp_ranks_free(struct lp_rank *r, size_t n);
/* The untraced steady step of stage in lp-steps(1)'s table; NAN where the
 * table's timing is not untraced or has none. */
double lp_steps_untraced(const char *path, const char *stage);
/* A live run's ranks on the untraced step: each rank's kernels (the
 * capture's durations) stay, the rest of step is split between its
 * communication and its GPU idle in the proportion the capture measured
 * (kernels longer than step are cut to it); the parts add up to step. */
void lp_ranks_untraced(struct lp_rank *r, size_t n, double step);

#endif
