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
#include <stdio.h>

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
};
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
const char *lp_yaml_str(const struct lp_ynode *root, const char *path,
    const char *dflt);
/* Sets an existing scalar at a dotted path; -1 if the path is absent. */
int lp_yaml_set(struct lp_ynode *root, const char *path, const char *value);

/* json.c: the JSON that env.json needs. */
void lp_json_str(FILE *fp, const char *s);	/* quoted and escaped */

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
/* Does an nsys "Range"/"NVTX Range" value name this range? */
int lp_nvtx_range_match(const char *want, const char *got);

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
/* range: the NVTX range to keep (nvtx_kern_sum input only; NULL: none). */
void lp_ksum_read(struct lp_ksum *ks, FILE *fp, const char *file,
    const char *range);
void lp_ksum_sort(struct lp_ksum *ks);	/* total desc, then name */
void lp_ksum_free(struct lp_ksum *ks);

/* kname.c: kernel names across tools and in Markdown. */
/* A key equal for nsys's and ncu's demangling of one kernel: casts like
 * "(bool)" and namespace qualifiers dropped, spaces folded. Caller frees. */
char *lp_kname_key(const char *name);
/* Readable in a table: templates shortened to <...>, '|' escaped. */
void lp_kname_md(struct lp_sb *b, const char *name, size_t max);
void lp_md_escape(struct lp_sb *b, const char *s);

#endif
