/*
 * liblp: the code the lp-* filters share.  One function family per file.
 *
 * Ownership, once for all: a function that returns a pointer to char or to
 * a struct the caller must free says "caller frees" (with free() or the
 * family's *_free()).  Every other returned pointer is borrowed: it lives as
 * long as the object it came from.  Allocation failure is fatal (lp_x*), so
 * no function returns NULL for lack of memory.
 */
#ifndef LP_H
#define LP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <regex.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit codes, as the man pages state them. */
enum {
	LP_EXIT_OK = 0,
	LP_EXIT_DATA = 1,	/* bad input data */
	LP_EXIT_USAGE = 2,	/* usage or system error */
};

/* err.c: "lp-NAME: where: what" on stderr, named exit codes. */
void lp_init(const char *argv0);
_Noreturn void lp_die(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
_Noreturn void lp_die_at(int code, const char *file, long line, long col,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
_Noreturn void lp_die_sys(const char *fmt, ...)	/* appends strerror(errno) */
    __attribute__((format(printf, 1, 2)));
void lp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lp_warn_at(const char *file, long line, long col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
_Noreturn void lp_usage(const char *synopsis);
void *lp_xmalloc(size_t n);
void *lp_xcalloc(size_t n, size_t size);
void *lp_xrealloc(void *p, size_t n);
void *lp_xreallocarray(void *p, size_t n, size_t size);
char *lp_xstrdup(const char *s);		/* caller frees */
char *lp_xstrndup(const char *s, size_t n);	/* caller frees */
long lp_strtonum(const char *s, long min, long max, const char *what);
double lp_strtopct(const char *s, const char *what);
FILE *lp_open_in(const char *path, const char **name);	/* "-"/NULL: stdin */
void lp_close_in(FILE *fp);
void lp_close_stdout(void);	/* flush, check, close: a failed write dies */
/* qsort(3) that takes an empty array (NULL, 0) too. */
void lp_qsort(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *));
/* The longest line lp reads from an export, a table or a recorded
 * setting: kernel names run to a few kB, 1 MiB is none of them. */
#define LP_LINE_MAX (1 << 20)
/* getline(3) whose buffer a fuzz build tracks like lp_x* memory. */
ssize_t lp_getline(char **buf, size_t *cap, FILE *fp);

/*
 * Fuzz builds (make fuzz, -DLP_FUZZ): a die returns to the harness by
 * longjmp instead of exiting, quietly, and what the library allocates is
 * tracked (lp_x*, lp_getline, libcsv's buffers) so the harness can free
 * what a refused input left behind.  Foreign state that a die would strand
 * (libyaml's parser) is handed over with LP_DEFER and taken back with
 * LP_UNDEFER.  Normal builds compile none of it.
 */
#ifdef LP_FUZZ
#include <setjmp.h>
extern jmp_buf *lp_fuzz_jmp;
void lp_fuzz_reset(void);	/* after a die: free all tracked, run defers */
size_t lp_fuzz_live(void);	/* tracked blocks still allocated */
void lp_fuzz_free(void *p);
void *lp_fuzz_realloc(void *p, size_t n);
void lp_fuzz_defer(void (*fn)(void *), void *arg);
void lp_fuzz_undefer(void);
#define free(p) lp_fuzz_free(p)
#define LP_DEFER(fn, arg) lp_fuzz_defer((fn), (arg))
#define LP_UNDEFER() lp_fuzz_undefer()
#else
#define LP_DEFER(fn, arg) ((void)0)
#define LP_UNDEFER() ((void)0)
#endif

/* sb.c: growable strings. */
struct lp_sb {
	char *s;	/* always NUL-terminated once anything was added */
	size_t len, cap;
};
void lp_sb_addn(struct lp_sb *b, const char *s, size_t n);
void lp_sb_adds(struct lp_sb *b, const char *s);
void lp_sb_addc(struct lp_sb *b, int c);
void lp_sb_printf(struct lp_sb *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lp_sb_vprintf(struct lp_sb *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
void lp_sb_reset(struct lp_sb *b);
const char *lp_sb_str(struct lp_sb *b);	/* "" when empty */
char *lp_sb_steal(struct lp_sb *b);	/* caller frees; b is reset */
void lp_sb_free(struct lp_sb *b);

/* map.c: string keys to long values (insertion order kept). */
struct lp_map;
struct lp_map *lp_map_new(void);
void lp_map_free(struct lp_map *m);
long lp_map_get(const struct lp_map *m, const char *key, long dflt);
void lp_map_put(struct lp_map *m, const char *key, long val);	/* copies key */
size_t lp_map_len(const struct lp_map *m);
const char *lp_map_key(const struct lp_map *m, size_t i);	/* i-th inserted */

/* csvin.c: streaming CSV through libcsv.  Memory holds one record. */
struct lp_csv_rec {
	size_t n;		/* fields in this record */
	char **f;		/* NUL-terminated fields, valid until next callback */
	long line;		/* input line where the record starts */
	void *rd;		/* the reader, for lp_csv_keep */
};
/* From a record callback: keep only the fields whose mask[i] is set in the
 * records that follow (the others read as ""; the count is kept), so a
 * 1,300-column export costs no copies of columns nobody reads.  The mask
 * (n entries; fields beyond are kept) is the caller's until the end. */
void lp_csv_keep(const struct lp_csv_rec *r, const unsigned char *mask,
    size_t n);
struct lp_csv_hdr {
	size_t n;
	char **names;		/* owned copies */
	const char *file;
	long line;
};
/*
 * Calls rec() for each record of fp.  Dies naming file and line on NUL
 * bytes, a malformed or cut-off quoted field, or a read error.  Lines that
 * a tool printed instead of CSV ("==ERROR== ...", at a record boundary) go
 * to msg() when it is set, and are otherwise an error.  rec() returns
 * nonzero to stop early.
 */
void lp_csv_read(FILE *fp, const char *file,
    int (*rec)(const struct lp_csv_rec *r, void *ctx),
    void (*msg)(const char *line, long lineno, void *ctx), void *ctx);
void lp_csv_hdr_init(struct lp_csv_hdr *h, const struct lp_csv_rec *r,
    const char *file);
void lp_csv_hdr_free(struct lp_csv_hdr *h);
/* A data row's width against the header: refused unless equal. */
void lp_csv_width(const struct lp_csv_hdr *h, size_t n, long line);
int lp_csv_col(const struct lp_csv_hdr *h, const char *name);	/* -1: none */
int lp_csv_col_prefix(const struct lp_csv_hdr *h, const char *prefix);
/* Dies "FILE:LINE: no column "NAME" (not WHAT)" when absent. */
int lp_csv_need(const struct lp_csv_hdr *h, const char *name, const char *what);
const char *lp_csv_field(const struct lp_csv_rec *r, int col);	/* "" if short */
/* Does a field of the record start with prefix?  Finds the header of an
 * nsys report (its "Total Time" column) below what nsys printed first. */
int lp_csv_rec_has(const struct lp_csv_rec *r, const char *prefix);

/* num.c: numbers as nsys and ncu print them, and their units. */
enum lp_dim {
	LP_DIM_TIME,	/* to ns */
	LP_DIM_BYTES,	/* to byte */
	LP_DIM_BYTERATE,/* to byte/s */
	LP_DIM_PCT,	/* to % */
	LP_DIM_FREQ,	/* to cycle/s */
	LP_DIM_COUNT,	/* to 1 (inst, cycle, none) */
	LP_DIM_PERCYCLE,/* to 1 per cycle (inst/cycle) */
};
int lp_num_isna(const char *s);		/* "", "n/a", "N/A", "-" */
int lp_num_parse(const char *s, double *out);	/* 0 ok; -1 not a number */
int lp_num_get(const char *s, double *out);	/* 1 if s is a number */
/* NULL if v (base units) is a value a run can hold, else why not:
 * negative, not finite, beyond 1e18, a percentage above 110, a fraction
 * where whole. */
const char *lp_num_bad(enum lp_dim dim, double v, int whole);
/* 1 if s is a process ID as the tools print one: 1 to 19 digits ("1e3",
 * "1087.0" and "1,087" would read as numbers and name another process) */
int lp_num_pid(const char *s);
int lp_unit_factor(enum lp_dim dim, const char *unit, double *factor);
const char *lp_dim_name(enum lp_dim dim);
/* "Total Time (us)" -> factor to ns from the unit in parentheses. */
int lp_header_time_factor(const char *header, double *factor);
void lp_fmt_num(struct lp_sb *b, double v, int decimals);	/* no -0 */
void lp_fmt_ms(struct lp_sb *b, double ns);		/* ns as ms, 3 places */
void lp_fmt_time(struct lp_sb *b, double ns);		/* 12.3 us, 4.56 ms */
void lp_fmt_known(struct lp_sb *b, int have, double v, int decimals); /* or "-" */

/* tsv.c: lp's own tab-separated files (header line, '#' comments above). */
void lp_tsv_field(FILE *fp, const char *s);	/* escapes \t \n \r \\ */
struct lp_tsv {
	FILE *fp;
	const char *file;
	long line;
	char *buf;
	size_t cap;
	size_t n;		/* fields in the current row */
	char **f;
	size_t fcap;
	char **comments;	/* "# ..." lines above the header, '#' dropped */
	size_t ncomments;
	struct lp_csv_hdr hdr;
};
void lp_tsv_open(struct lp_tsv *t, FILE *fp, const char *file);	/* dies on no header */
int lp_tsv_next(struct lp_tsv *t);	/* 1 row read, 0 at end */
const char *lp_tsv_get(const struct lp_tsv *t, int col);	/* "" if absent */
/* The text of comment "# KEY: text" above the header; NULL if none. */
const char *lp_tsv_comment(const struct lp_tsv *t, const char *key);
void lp_tsv_close(struct lp_tsv *t);
/* Cells of the row that must agree (a count of 0 with a time above 0, a
 * mean that is not total / count), found by column name; dies naming the
 * cell.  lp_tsv_next checks every row with it (tab.c). */
void lp_tab_agree(const struct lp_tsv *t);

/* yml.c: YAML through libyaml, as a small tree. */
enum lp_ytype { LP_Y_SCALAR, LP_Y_SEQ, LP_Y_MAP };
struct lp_ynode {
	enum lp_ytype type;
	char *s;		/* scalar text */
	int quoted;		/* scalar was quoted: emit it quoted again */
	size_t n;		/* children */
	char **keys;		/* map keys */
	struct lp_ynode **v;	/* children */
	long line;		/* 1-based line in its source, 0 if made here */
	const char *file;	/* its source (borrowed from the loader's caller) */
};
struct lp_ynode *lp_yaml_load(FILE *fp, const char *file);	/* caller frees */
struct lp_ynode *lp_yaml_load_path(const char *path);	/* caller frees */
void lp_yaml_free(struct lp_ynode *n);
void lp_yaml_emit(FILE *fp, const struct lp_ynode *root, const char *comment);
struct lp_ynode *lp_yaml_map(void);				/* caller frees */
struct lp_ynode *lp_yaml_seq(void);				/* caller frees */
struct lp_ynode *lp_yaml_scalar(const char *s, int quoted);	/* caller frees */
void lp_yaml_put(struct lp_ynode *map, const char *key, struct lp_ynode *v);
void lp_yaml_push(struct lp_ynode *seq, struct lp_ynode *v);
void lp_yaml_merge(struct lp_ynode *dst, struct lp_ynode *src);	/* frees src */
const struct lp_ynode *lp_yaml_get(const struct lp_ynode *root, const char *path);
/* The scalar at path, or dflt when there is none; dies naming the file and
 * line when the path holds a mapping or a list instead. */
const char *lp_yaml_str(const struct lp_ynode *root, const char *path,
    const char *dflt);
/* Sets an existing scalar or list ("a,b,c") at a dotted path, of the type
 * the existing value has: -1 the path is absent, -2 not a number where the
 * value is one, -3 not true or false where the value is, -4 a mapping,
 * -5 a flow collection ("{...}", "[...]"), -6 a fraction where the value
 * is a whole number, -7 a negative number where the value is from 0 (but
 * -1 where the key is "device": every device, as the ncu presets say). */
int lp_yaml_set(struct lp_ynode *root, const char *path, const char *value);

/*
 * The writers of each output format (md.c, xml.c, json.c): whatever bytes
 * a name holds, the document stays well-formed and the name stays data.
 */
/* utf8.c: the length of the UTF-8 character at s (0 at the end) and its
 * code point in *cp; a byte that starts no valid one is 1 byte, *cp -1. */
size_t lp_utf8_dec(const char *s, long *cp);
/* md.c: Markdown as cmark-gfm reads it (md.c says how each escapes).
 * table: the text goes in a table cell ("|" escaped in code spans too). */
void lp_md_text(struct lp_sb *b, const char *s);	/* plain text */
void lp_md_code(struct lp_sb *b, const char *s, int table); /* "": nothing */
/* lp's sentences: plain text with `code` spans. */
void lp_md_inline(struct lp_sb *b, const char *s, int table);
/* xml.c: XML 1.0 character data or attribute value. */
void lp_xml_text(struct lp_sb *b, const char *s);
/* json.c: a JSON string, quoted, escaped, UTF-8. */
void lp_json_str(FILE *fp, const char *s);
/* Is s a number as JSON writes numbers (no "007", ".5", "+1", "inf")? */
int lp_json_isnum(const char *s);
/* A cell: bare where num and lp_json_isnum, else a string. */
void lp_json_val(FILE *fp, const char *s, int num);

/* sh.c: POSIX shell words. */
void lp_sh_quote(struct lp_sb *b, const char *word);
/* Splits like sh without expanding anything; -1 and *err on bad quoting. */
int lp_sh_split(const char *s, char ***argv, size_t *argc, const char **err);
void lp_argv_free(char **argv, size_t argc);
/* A command being built, word by word; words are owned copies. */
struct lp_av {
	char **w;
	size_t n;
};
void lp_av_push(struct lp_av *av, const char *word);
void lp_av_pushf(struct lp_av *av, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* One line of sh-quoted words, or each word NUL-ended when nul is set. */
void lp_av_print(FILE *fp, const struct lp_av *av, int nul);
void lp_av_free(struct lp_av *av);

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

/* ops.c: operator classes of conf/operators.yaml. */
struct lp_ops {
	size_t n;		/* classes; index n is "Other" */
	const char **names;	/* n + 1, borrowed from conf */
	int *comm;		/* class marked comm: true (NCCL) */
	regex_t *re;		/* n patterns */
	size_t nre;
	struct lp_ynode *conf;
	const struct lp_ynode *wrappers;
};
void lp_ops_load(struct lp_ops *o, const char *path);	/* dies on bad */
size_t lp_ops_class(const struct lp_ops *o, const char *kernel);
int lp_ops_is_comm(const struct lp_ops *o, const char *kernel);
void lp_ops_free(struct lp_ops *o);

/* sel.c: ncu kernel selections. */
void lp_re_escape(struct lp_sb *b, const char *s);
/* "regex:^(a|b)$" matching exactly the given names. */
void lp_sel_regex(struct lp_sb *b, char *const *names, size_t n);

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
 * both arrays).  Dies naming the file when there are none. */
size_t lp_stage_ranges(const struct lp_ynode *cfg, const char *file,
    const char ***names, char ***ranges);
/* Does an nsys "Range"/"NVTX Range" value name this range? */
int lp_nvtx_range_match(const char *want, const char *got);

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

/* ksum.c: nsys kernel summaries (cuda_gpu_kern_sum, gpukernsum,
 * nvtx_kern_sum with one range), one row per distinct kernel. */
struct lp_kern {
	char *name;		/* exactly as in the input */
	char *fp;		/* statistics fingerprint (pairs name styles) */
	double total_ns;
	double calls;
};
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
void lp_ksum_free(struct lp_ksum *ks);

/* kname.c: kernel names across tools and in Markdown. */
/* A key equal for nsys's and ncu's demangling of one kernel: casts like
 * "(bool)" and namespace qualifiers dropped, spaces folded. Caller frees. */
char *lp_kname_key(const char *name);
/* Readable: templates shortened to <...>, as a Markdown code span
 * (lp_md_code) outside a table. */
void lp_kname_md(struct lp_sb *b, const char *name, size_t max);
/* Display names for the rows of one table, no two the same: each as short
 * as lp_kname_md makes it, lengthened (template arguments, then the whole
 * name, then a " [#k]") only where it would read like another row's.
 * out[i] is for names[i]; caller frees each. */
void lp_kname_unique(char *const *names, size_t n, size_t max, char **out);
/* The function a kernel runs, without return type, template arguments and
 * parameters: "at::native::vectorized_elementwise_kernel"; mangled names
 * too ("_Z7rmsnormPfii" -> "rmsnorm").  Caller frees. */
char *lp_kname_base(const char *name);
/* The operation a PyTorch elementwise, reduce or copy kernel template runs:
 * the function of its lambda ("direct_copy", "bfloat16_copy", "neg",
 * "silu") or its functor ("MulFunctor", "CUDAFunctor_add", "ArgMaxOps");
 * NULL for other kernels.  Display names (lp_kname_md, lp_kname_unique)
 * lead with it.  Caller frees. */
char *lp_kname_op(const char *name);
/* The base name led by the operation where there is one ("MulFunctor:
 * at::native::vectorized_elementwise_kernel").  Caller frees. */
char *lp_kname_label(const char *name);
/* Its first template argument ("cutlass::Kernel2<X, ...>" -> "X"); NULL if
 * none.  Caller frees. */
char *lp_kname_targ(const char *name);

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
extern const struct lp_mdef lp_mdefs[];
extern const size_t lp_nmdefs;
struct lp_launch {
	double v[LP_M_N];
	int prio[LP_M_N];	/* index into lp_mdefs + 1; 0: no value */
};
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
};
typedef void (*lp_rep_fn)(const struct lp_rep_row *r, void *ctx);
void lp_rep_read(FILE *fp, const char *file, const char *what,
    const char *const *cols, size_t n, lp_rep_fn fn, void *ctx);
/* The same from a file (NULL or "-": standard input), opened and closed. */
void lp_rep_file(const char *path, const char *what,
    const char *const *cols, size_t n, lp_rep_fn fn, void *ctx);
double lp_rep_time(const struct lp_rep_row *r, size_t i);  /* ns, >= 0 */
double lp_rep_count(const struct lp_rep_row *r, size_t i); /* whole, >= 0 */
int lp_rep_has(const struct lp_rep_row *r, size_t i);	/* a value there */
/* A PID in digits; "" only in an optional ("?PID") column. */
const char *lp_rep_pid(const struct lp_rep_row *r, size_t i);
/* Columns of an nsys report's row that must agree (End - Start = Duration,
 * no Total Time without Instances, Avg x Instances = Total Time, Min <= Avg
 * <= Max), found by name; lp_agree_row dies naming the row that breaks
 * them.  lp_rep_read checks every row; the kernel summaries (ksum.c) too. */
enum { LP_AGREE_INST = 4, LP_AGREE_N = 8 };
struct lp_agree {
	const struct lp_csv_hdr *hdr;
	int col[LP_AGREE_N];
	double f[LP_AGREE_N];
};
void lp_agree_init(struct lp_agree *a, const struct lp_csv_hdr *h);
void lp_agree_row(const struct lp_agree *a, const struct lp_csv_rec *rec);

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
};
/* Either path may be NULL.  Returns the row count; caller frees. */
size_t lp_stagetab_load(const char *stages, const char *steps,
    struct lp_stagerow **rows);
const struct lp_stagerow *lp_stagetab_get(const struct lp_stagerow *rows,
    size_t n, const char *stage);
void lp_stagetab_free(struct lp_stagerow *rows, size_t n);

/* stat.c */
double lp_median(double *v, size_t n);	/* sorts v; NAN when n == 0 */
double lp_quantile(double *v, size_t n, double q);	/* type 7; sorts v */

/* tab.c: lp's table artifacts: "# key: text" provenance lines, labels and
 * how each column is shown (lp-summary(1)), a header, rows. */
struct lp_col {
	const char *name, *label, *show;
};
void lp_tab_meta(FILE *fp, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lp_tab_header(FILE *fp, const struct lp_col *cols, size_t n);
struct lp_row {
	struct lp_sb b;
	size_t n;
};
void lp_row_text(struct lp_row *r, const char *s);
/* a number that is not finite (a division by zero somewhere) goes out as
 * "n/a because ...", never as "inf" or "nan" */
void lp_row_num(struct lp_row *r, double v, int decimals);
void lp_row_g(struct lp_row *r, double v);	/* 4 significant digits */
void lp_row_na(struct lp_row *r, const char *fmt, ...)	/* "n/a because ..." */
    __attribute__((format(printf, 2, 3)));
/* A percentage that cannot pass max (MFU, MBU: 100; GPU busy: 128 kernels
 * at once, 12800): v as lp_row_g, or, beyond, "n/a because WHAT would be
 * V %, beyond MAX %: CAUSE" (the cause printf-style).  1 when beyond. */
int lp_row_pct(struct lp_row *r, double v, double max, const char *what,
    const char *cause, ...) __attribute__((format(printf, 5, 6)));
void lp_row_end(struct lp_row *r, FILE *fp);
/* The stream a table tool writes to: memory, copied to stdout by
 * lp_tab_done (which also closes stdout) only when the tool succeeds. */
FILE *lp_tab_out(void);
void lp_tab_done(FILE *out);
/* Opens a TSV that must exist; dies naming the file and what makes it. */
FILE *lp_tab_open(struct lp_tsv *t, const char *path, const char *maker);
/* A numeric cell of the current row, checked as lp_tab_numval does. */
int lp_tab_num(const struct lp_tsv *t, int col, double *v);
/* The same for a cell kept apart from its table: 1 and *v for a number the
 * column (by its name) may hold; 0 for "", "-" and "n/a ..."; dies naming
 * file, line and column on text, a negative time, a fractional count, a
 * share above 110%. */
int lp_tab_numval(const char *file, long line, const char *col, int colno,
    const char *s, double *v);
/* Checks each cell of the current row that "# show:" makes a number. */
void lp_tab_check_row(const struct lp_tsv *t);
/* Dies unless the table's "# tool:" line names this tool. */
void lp_tab_expect(const struct lp_tsv *t, const char *tool);

/* gpu.c: the GPU's dense peaks, from gpu.tsv (lp-gpu(1)). */
struct lp_peaks {
	char *gpu;		/* the GPU's name; NULL if unknown */
	char *why;		/* why a peak is missing, for "n/a because" */
	double flops[LP_FP_N];	/* FLOP/s per precision; 0: unknown */
	double bw;		/* DRAM bytes/s; 0: unknown */
};
void lp_peaks_read(struct lp_peaks *p, const char *path);
void lp_peaks_free(struct lp_peaks *p);
/* Peak FLOP/s of one precision (an LP_FP_* index); 0 if unknown. */
double lp_peak_of(const struct lp_peaks *p, int fp);
/* The precision index a model dtype runs its matmuls in ("fp16" -> tensor
 * fp16, "fp32" -> CUDA-core fp32); -1 if unknown. */
int lp_fp_of_dtype(const char *dtype);
const char *lp_fp_label(int fp);	/* "tensor fp16", "fp32 (CUDA cores)" */

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

/* regdata.c: regions as ncu measured them (one result per instance, range
 * or app-range replay) and as nsys saw them. */
struct lp_rinst {
	char *pid, *device;
	double start, gpu_ns;	/* nsys: projected start and span on the GPU */
	double sm, dram, bytes, ops;	/* ops: nsys NumGPUOps, NAN if absent */
	int have_sm, have_dram, have_bytes;
	struct lp_flops f;
	long line;
};
struct lp_rinsts {
	struct lp_rinst *in;	/* ncu: in result order; nsys: by start */
	size_t n, cap;
};
struct lp_rset {
	struct lp_region *rg;
	size_t n;
	struct lp_rinsts *ncu, *nsys;	/* [n] */
	double *kern_ns, *kern_n, *nvtx_n;	/* nvtx_kern_sum, per region */
	int have_kern, have_proj;
	struct lp_map *seen;
};
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

#endif
