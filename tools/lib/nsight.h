/*
 * nsight.h: the Nsight readers layer: nsys reports by column (rep.c) and
 * kernel summaries (ksum.c), NVTX ranges as each tool spells them (nvtx.c),
 * ncu exports (ncuin.c).  Depends on util.h, table.h and prec.h; the types
 * of those used here by pointer only are declared, not included.
 */
#ifndef LP_NSIGHT_H
#define LP_NSIGHT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

struct lp_csv_hdr;
struct lp_csv_rec;
struct lp_ynode;
struct lp_flops;

/* nvtx.c: one stage (an NVTX push/pop range), spelled for each tool. */
struct lp_stage {
	const char *name;	/* lp's stage name */
	const char *domain;	/* "" for the default domain */
	const char *range;	/* the range's message */
};
/* Fills st from stages.NAME of a resolved config; dies if absent. */
void lp_stage_get(const struct lp_ynode *cfg, const char *name,
    struct lp_stage *st, const char *file);
/* nsys --nvtx-capture: RANGE@DOMAIN or RANGE; -1 when nsys cannot say it. */
int lp_nvtx_nsys_capture(struct lp_sb *b, const struct lp_stage *st);
/* ncu --nvtx-include: DOMAIN@RANGE/ or RANGE/ with '@' escaped; -1 on '/'. */
int lp_nvtx_ncu_include(struct lp_sb *b, const struct lp_stage *st);
/* The "Range" nsys stats prints: "LLM:decode_all", ":LLM@decode_all". */
void lp_nvtx_nsys_name(struct lp_sb *b, const struct lp_stage *st);
/* The configured stages of a resolved config, in order: names (borrowed
 * from cfg) and ranges as nsys names them (caller frees each range and
 * both arrays).  Dies naming the file when there are none, or when two
 * stages name one range. */
size_t lp_stage_ranges(const struct lp_ynode *cfg, const char *file,
    const char ***names, char ***ranges);
/* The same as a tool's stage table: *n elements of size bytes (zeroed,
 * and extra more after them), each with its name and range stored at the
 * offsets given (a struct's const char *name and char *range). */
void *lp_stage_table(const struct lp_ynode *cfg, const char *file, size_t *n,
    size_t extra, size_t size, size_t name_at, size_t range_at);
/* Does an nsys "Range"/"NVTX Range" value name this range? */
int lp_nvtx_range_match(const char *want, const char *got);

/* capi.c: CUDA API calls by name: a kernel launch (cudaLaunch*, cuLaunch*,
 * and the graph launches), a graph launch (cudaGraphLaunch*,
 * cuGraphLaunch*). */
int lp_capi_launch(const char *name);
int lp_capi_graph_launch(const char *name);

/* rep.c: nsys reports read by column name (nvtx_sum, nvtx_kern_sum, the
 * traces).  cols[0] finds the header; a name starting with '?' is optional;
 * time columns are named without their unit and scaled to ns.  A column
 * named twice or a row of another width than the header is an error. */
struct lp_rep_row {
	const char *const *v;	/* the asked-for fields, "" if absent */
	const double *factor;	/* to ns, for time columns; else 1 */
	const int *col;		/* column index of each, -1 if absent */
	const char *const *names;
	const char *file;
	long line;
	const struct lp_csv_rec *rec;	/* the whole row (lp-tracesort) */
};
typedef void (*lp_rep_fn)(const struct lp_rep_row *r, void *ctx);
void lp_rep_read(FILE *fp, const char *file, const char *what,
    const char *const *cols, size_t n, lp_rep_fn fn, void *ctx);
/* The same from a file (NULL or "-": standard input), opened and closed. */
void lp_rep_file(const char *path, const char *what,
    const char *const *cols, size_t n, lp_rep_fn fn, void *ctx);
/* The same pulled a row at a time, for tools that merge several traces
 * in time order (lp-atenops): lp_rep_next returns the next row (valid
 * until the next call) or NULL at the end. */
struct lp_rep_in;
struct lp_rep_in *lp_rep_open(const char *path, const char *what,
    const char *const *cols, size_t n);
/* ... from fp, the caller's to close */
struct lp_rep_in *lp_rep_from(FILE *fp, const char *file, const char *what,
    const char *const *cols, size_t n);
const struct lp_rep_row *lp_rep_next(struct lp_rep_in *in);
/* The same fed a record at a time by a reader of its own (lp-import):
 * lp_rep_feed checks the record as lp_rep_next does and returns the row
 * it is, or NULL (a title above the header, the header, a blank line). */
struct lp_rep_in *lp_rep_push(const char *file, const char *what,
    const char *const *cols, size_t n);
const struct lp_rep_row *lp_rep_feed(struct lp_rep_in *in,
    const struct lp_csv_rec *rec);
/* The file the rows come from, as the user knows it: a packed trace's
 * (first) CSV, else the path given (valid until lp_rep_close). */
const char *lp_rep_name(const struct lp_rep_in *in);
/* The header once lp_rep_next has found it, else NULL. */
const struct lp_csv_hdr *lp_rep_header(const struct lp_rep_in *in);
/* A header without rows is a whole report, not a cut one (lp-graphnodes'
 * trace of a capture without graphs). */
void lp_rep_empty_ok(struct lp_rep_in *in);
void lp_rep_close(struct lp_rep_in *in);
double lp_rep_time(const struct lp_rep_row *r, size_t i);  /* ns, >= 0 */
double lp_rep_count(const struct lp_rep_row *r, size_t i); /* whole, >= 0 */
int lp_rep_has(const struct lp_rep_row *r, size_t i);	/* a value there */
/* A PID in digits; "" only in an optional ("?PID") column. */
const char *lp_rep_pid(const struct lp_rep_row *r, size_t i);
/* An ID that joins two reports (a correlation ID): digits only, as a PID,
 * never a number spelt otherwise ("1e3", "1000.0") that would join rows
 * nsys never joined. */
int64_t lp_rep_id(const struct lp_rep_row *r, size_t i);
/* pack.c: an nsys trace in lp's packed form (lp-tracesort -p): rows
 * already read and checked, long repeated fields written once.  rep.c
 * reads a pack wherever it reads a trace's CSV. */
struct lp_pack_w;
struct lp_pack_w *lp_pack_wopen(FILE *fp, const char *const *srcs,
    size_t nsrc, const char *const *names, size_t ncols, long hline);
void lp_pack_row(struct lp_pack_w *w, size_t src, long line,
    const char *const *f);	/* ncols fields */
void lp_pack_wend(struct lp_pack_w *w);
/* A trace packed as its rows come.  ordered: while they keep
 * lp-tracesort's order (Start, the longer Duration first, then the row's
 * fields end to end), rr's columns 0 and 1 being Start and Duration
 * (lp_rep_*'s "Start", "?Duration"); lp_pack_srow packs the row and
 * returns 0, or returns 1, writing nothing, at the first row out of that
 * order.  Else in the order they come (nvtx_gpu_proj_trace). */
struct lp_pack_s;
struct lp_pack_s *lp_pack_sopen(FILE *fp, const char *const *srcs,
    size_t nsrc, const struct lp_csv_hdr *h, int ordered);
int lp_pack_srow(struct lp_pack_s *s, size_t src,
    const struct lp_rep_row *rr);
void lp_pack_send(struct lp_pack_s *s);	/* the pack ended, s freed */
/* That order, of two rows' keys: start, duration (ns), and fields end to
 * end, each with its NUL (lp_trace_key writes them). */
struct lp_tkey {
	double start, dur;
	char *s;
	size_t len;
};
int lp_tkey_cmp(const struct lp_tkey *a, const struct lp_tkey *b);
void lp_trace_key(struct lp_sb *b, const struct lp_csv_rec *rec);
struct lp_pack_r;
int lp_pack_is(FILE *fp);	/* by its first byte, put back */
struct lp_pack_r *lp_pack_ropen(FILE *fp, const char *file);
size_t lp_pack_cols(const struct lp_pack_r *r, char ***names, long *hline);
const char *lp_pack_src(const struct lp_pack_r *r, size_t i);
/* The next row's fields (valid until the next call), its file and line
 * there; 0 at the end. */
int lp_pack_next(struct lp_pack_r *r, const char *const **f, size_t *src,
    long *line);
void lp_pack_rclose(struct lp_pack_r *r);

/* Columns of an nsys report's row that must agree (End - Start = Duration,
 * no Total Time without Instances, Avg x Instances = Total Time, Min <= Avg
 * <= Max), found by name; lp_agree_row dies naming the row that breaks
 * them.  lp_rep_read checks every row; the kernel summaries (ksum.c) too.
 * Of these columns, those the tool does not read itself (lp_agree_reads
 * names the others) must hold a value a run can have: End "n/a" beside
 * the Start and Duration a tool reads is refused, not passed over. */
enum { LP_AGREE_INST = 4, LP_AGREE_N = 8 };
struct lp_agree {
	const struct lp_csv_hdr *hdr;
	int col[LP_AGREE_N];
	double f[LP_AGREE_N];
	int read[LP_AGREE_N];	/* the tool reads and checks it itself */
};
void lp_agree_init(struct lp_agree *a, const struct lp_csv_hdr *h);
/* The header columns the tool reads (n of them, -1 for none). */
void lp_agree_reads(struct lp_agree *a, const int *cols, size_t n);
void lp_agree_row(const struct lp_agree *a, const struct lp_csv_rec *rec);

/* ksum.c: nsys kernel summaries (cuda_gpu_kern_sum, gpukernsum,
 * nvtx_kern_sum with one range), one row per distinct kernel. */
struct lp_kern {
	char *name;		/* exactly as in the input */
	char *fp;		/* statistics fingerprint (pairs name styles) */
	double total_ns;
	double calls;
	/* the launches' spread, where the summary has StdDev (Min, Max):
	 * the sum of their squares over all its rows (exact, the same in
	 * any order of the rows), and the extremes */
	int spread;
	struct lp_xsum sumsq;
	double min_ns, max_ns;
};
/* A kernel's launch standard deviation (sample), NAN when not known. */
double lp_kern_std(const struct lp_kern *k);
struct lp_ksum {
	struct lp_kern *k;
	size_t n, cap;
	double total_ns, calls;
	int per_range;		/* input was nvtx_kern_sum */
	char *report;		/* "cuda_gpu_kern_sum", "nvtx_kern_sum" */
	struct lp_map *idx;
};
/* range: the NVTX range to keep (nvtx_kern_sum input only; NULL: none);
 * pid: the one process whose rows to keep (a report with a PID column;
 * NULL or "": every process). */
void lp_ksum_read(struct lp_ksum *ks, FILE *fp, const char *file,
    const char *range, const char *pid);
void lp_ksum_sort(struct lp_ksum *ks);	/* total desc, then name */
/* Before lp_ksum_read: whether hostside.tsv (lp-hostside) says the stage of
 * this nsys range has its kernels where the summaries show them.  Dies
 * (exit 1, its check_why) on graphs traced whole or kernels launched by
 * another process than the range's; otherwise keeps what it says of an
 * empty stage, for "no kernel rows" to say why. */
void lp_ksum_check(const char *hostside, const char *range);
void lp_ksum_free(struct lp_ksum *ks);
/* The same kernels in two spellings of one summary (mangled and demangled
 * names): for each kernel of a, the index in b of the one with its
 * statistics fingerprint, or -1 where it has none or shares it with
 * another kernel on either side.  Caller frees. */
long *lp_ksum_pair(const struct lp_ksum *a, const struct lp_ksum *b);

/* inj.c: where injected.tsv (lp-injected(1)) says the CUDA work ran:
 * in the process nsys launched alone, there and in others, only in
 * others, or not known (no "# launched:" pid, no process with CUDA
 * events).  Known: *launched is that pid and *cuda the "# cuda:" pids
 * (caller frees); else *cuda is NULL. */
enum lp_inj { LP_INJ_UNKNOWN, LP_INJ_ALONE, LP_INJ_BESIDE, LP_INJ_ELSEWHERE };
enum lp_inj lp_injected(const char *path, long long *launched, char **cuda);

/* ncuin.c: ncu CSV exports as a stream of results (kernel launches, or
 * range instances in range replay), values in base units. */
enum {
	LP_M_TIME, LP_M_SM, LP_M_DRAM,
	LP_M_BYTES, LP_M_BYTES_RD, LP_M_BYTES_WR, LP_M_BYTERATE,
	LP_M_FADD, LP_M_FMUL, LP_M_FFMA, LP_M_HADD, LP_M_HMUL, LP_M_HFMA,
	LP_M_DADD, LP_M_DMUL, LP_M_DFMA,
	LP_M_RFADD, LP_M_RFMUL, LP_M_RFFMA, LP_M_RHADD, LP_M_RHMUL, LP_M_RHFMA,
	LP_M_RDADD, LP_M_RDMUL, LP_M_RDFMA, LP_M_CLK,
	LP_M_TC_FP16, LP_M_TC_BF16, LP_M_TC_TF32, LP_M_TC_FP8, LP_M_TC_INT8,
	LP_M_TC_FP64,
	LP_M_CTAS, LP_M_NSM,	/* CTAs of the launch, SMs of the GPU */
	LP_M_OCC_BAR, LP_M_OCC_BLK, LP_M_OCC_REG, LP_M_OCC_SHM, LP_M_OCC_WARP,
	LP_M_N
};
struct lp_mdef {
	int m;
	const char *section;	/* long format: NULL matches any section */
	const char *name;
	enum lp_dim dim;
};
/* Why a report's CSV is empty, for the reader that meets one: nsys stats
 * writes an empty file ("PROCESSED (EMPTY RESULTS)") for a report the
 * capture holds no data of. */
#define LP_EMPTY_REPORT "empty: nsys stats writes an empty file for a " \
    "report the capture holds no data of (\"does not contain ... data\" " \
    "in its log): no NVTX range or no CUDA work was traced (a process " \
    "forked without exec is not traced; lp(7): forked workers)"
extern const struct lp_mdef lp_mdefs[];
extern const size_t lp_nmdefs;
struct lp_launch {
	double v[LP_M_N];
	int prio[LP_M_N];	/* index into lp_mdefs + 1; 0: no value */
};
struct lp_ncu_result {
	const char *kernel, *device, *devname, *id, *pid;
	const char *grid, *block;	/* "(8, 9, 1)" as ncu wrote them, or "" */
	const char *nvtx;	/* the thread's push/pop stack, as ncu wrote it */
	long line;
	struct lp_launch l;
};
int lp_launch_has(const struct lp_launch *l, int m);
void lp_launch_flops(const struct lp_launch *l, struct lp_flops *f);
int lp_launch_bytes(const struct lp_launch *l, double *bytes);	/* 1 if known */
/* CTAs one SM holds at once (the tightest occupancy limit); 1 if known. */
int lp_launch_ctas_per_sm(const struct lp_launch *l, double *ctas);
/* Calls cb for each result (borrowed, valid during the call); dies on bad
 * data and on an export with no result.  Returns the number of results. */
long lp_ncu_read(FILE *fp, const char *file,
    void (*cb)(const struct lp_ncu_result *r, void *ctx), void *ctx);
/* The NVTX push/pop stack of a result, outermost first, each spelled as
 * nsys stats does ("LLM:decode_step", ":LLM@decode_step").  Caller frees
 * (lp_argv_free). */
size_t lp_ncu_nvtx_stack(const char *col, char ***names);

#endif
