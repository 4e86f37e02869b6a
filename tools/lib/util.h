/*
 * util.h: lp's base layer: errors and exits, checked allocation, growable
 * strings, string maps, numbers and units, statistics, shell words.
 * Depends on nothing but libc; every other header of tools/lib sits on it.
 *
 * Ownership, once for all (every header of tools/lib): a function that
 * returns a pointer to char or to a struct the caller must free says
 * "caller frees" (with free() or the family's *_free()).  Every other
 * returned pointer is borrowed: it lives as long as the object it came
 * from.  Allocation failure is fatal (lp_x*), so no function returns NULL
 * for lack of memory.
 */
#ifndef LP_UTIL_H
#define LP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit codes, as the man pages state them. */
enum {
	LP_EXIT_OK = 0,
	LP_EXIT_DATA = 1,	/* bad input data */
	LP_EXIT_USAGE = 2,	/* usage or system error */
	LP_EXIT_REGRESSED = 3,	/* a gate (-r): the run regressed */
};

/* err.c: "lp-NAME: where: what" on stderr, named exit codes. */
void lp_init(const char *argv0);
/* lp_init, then the long options every tool answers before its own:
 * --help (the usage line and where the manual is, exit 0) and --version
 * (the tool, lp and LP_VERSION, exit 0). */
void lp_start(int argc, char **argv, const char *synopsis);
#define LP_VERSION "0.40"
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
/* getopt(3) with every tool's -h (the synopsis, exit 0) and its usage
 * error (exit 2) handled: the options of opts, or -1 at their end. */
int lp_getopt(int argc, char *const argv[], const char *opts,
    const char *synopsis);
/* A tool of no option but -h and one operand: that operand. */
const char *lp_operand(int argc, char *const argv[], const char *synopsis);
void *lp_xmalloc(size_t n);
void *lp_xcalloc(size_t n, size_t size);
void *lp_xrealloc(void *p, size_t n);
void *lp_xreallocarray(void *p, size_t n, size_t size);
/* An array p of n elements of size bytes, room for *cap, with room for
 * one more: when full, the room doubles (first, the first time). */
void *lp_grow(void *p, size_t n, size_t *cap, size_t first, size_t size);
char *lp_xstrdup(const char *s);		/* caller frees */
char *lp_xstrndup(const char *s, size_t n);	/* caller frees */
long lp_strtonum(const char *s, long min, long max, const char *what);
double lp_strtopct(const char *s, const char *what);
/* A warm-up ratio (-w of lp-steps, lp-regions, lp-reginst): how many times
 * the steady state a first instance takes to be a warm-up, 1 to 100. */
double lp_strtoratio(const char *s, const char *what);
FILE *lp_open_in(const char *path, const char **name);	/* "-"/NULL: stdin */
void lp_close_in(FILE *fp);
/* NULL when path is a regular file (after links), its size in *size; else
 * what it is ("a FIFO", "a character device", "a folder", ...).  It looks
 * without opening (a FIFO would wait for a writer); stat failing dies. */
const char *lp_file_nonregular(const char *path, long long *size);
const char *lp_fd_nonregular(int fd);	/* the same of an open file */
void lp_close_stdout(void);	/* flush, check, close: a failed write dies */
/* Seconds on the monotonic clock: for spans of time, never dates. */
double lp_now_s(void);
/* qsort(3) that takes an empty array (NULL, 0) too. */
void lp_qsort(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *));
/* The longest line lp reads from an export, a table or a recorded
 * setting: kernel names run to a few kB, 1 MiB is none of them. */
#define LP_LINE_MAX (1 << 20)
/* getline(3) whose buffer a fuzz build tracks like lp_x* memory. */
ssize_t lp_getline(char **buf, size_t *cap, FILE *fp);

/*
 * Fuzz builds (make fuzz, -DLP_FUZZ) track what the library allocates and
 * turn a die into a return to the harness (fuzztrack.h says how).  Normal
 * builds compile none of it.
 */
#ifdef LP_FUZZ
#include "fuzztrack.h"
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
/* Room for n more bytes (and the NUL) at s + len, for a caller that
 * writes them itself, then moves len and puts the NUL back. */
void lp_sb_room(struct lp_sb *b, size_t n);
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
/* The length of a device's model in nsys's Device column, "NVIDIA H200
 * (1)" (CUDA device 1) read as "NVIDIA H200" (gpu.c). */
size_t lp_gpu_model_len(const char *dev);
int lp_unit_factor(enum lp_dim dim, const char *unit, double *factor);
const char *lp_dim_name(enum lp_dim dim);
/* "Total Time (us)" -> factor to ns from the unit in parentheses. */
int lp_header_time_factor(const char *header, double *factor);
void lp_fmt_num(struct lp_sb *b, double v, int decimals);	/* no -0 */
void lp_fmt_ms(struct lp_sb *b, double ns);		/* ns as ms, 3 places */
/* ns as us, 3 places: to the nanosecond */
void lp_fmt_us(struct lp_sb *b, double ns);
/* A percentage with at least two significant digits: 0.11%, 0.0038%. */
void lp_fmt_pct(struct lp_sb *b, double v);
void lp_fmt_time(struct lp_sb *b, double ns);		/* 12.3 us, 4.56 ms */
/* v in the fewest digits that read back as v (%.15g, else %.17g) into s, a
 * buffer of LP_EXACT_MAX: a table's numbers are rounded once, when shown. */
#define LP_EXACT_MAX 32
const char *lp_fmt_exact(double v, char *s);

/* stat.c */
double lp_median(double *v, size_t n);	/* sorts v; NAN when n == 0 */
/* dl.c: the entry points s[0..n) of the library h (named lib) into the
 * struct api, each at its offset; a missing one dies naming it and need
 * (the oldest version that has them). */
struct lp_dlsym {
	const char *name;
	size_t off;
};
void lp_dl_bind(void *h, const char *lib, const struct lp_dlsym *s, size_t n,
    void *api, const char *need);
/* A probe's leavings (said.c): its table is an empty regular file; what
 * it said on stderr (lpath, NULL: none kept), one line, malloc'd. */
int lp_file_empty(const char *path);
char *lp_file_said(const char *lpath);
/* in's bytes to out, from where it stands; a fault names the file. */
void lp_file_copy(FILE *in, const char *iname, FILE *out, const char *oname);
/* s as the whole of path, written beside it (path.tmp) and renamed, so a
 * tool stopped on the way leaves no half of it. */
void lp_file_put(const char *path, const char *s);
/* A small file read whole (caller frees); NULL where it cannot be read. */
char *lp_file_get(const char *path);
/* A profiling step (lp-runstep, lp-ncuregions): whether report was made
 * by the command cmd (report there, its command file cpath holding cmd);
 * its wall time since t0 kept for lp-cost in path ("STEP<TAB>s<TAB>runs",
 * runs "0", "1" or "-") and said ("lp: STEP took s s"). */
int lp_step_kept(const char *report, const char *cpath, const char *cmd);
void lp_step_took(const char *path, const char *step, double t0,
    const char *runs);
double lp_quantile(double *v, size_t n, double q);	/* type 7; sorts v */
/* A multiset of numbers kept as its distinct values and their counts, for
 * order statistics of a stream: memory grows with the distinct values, not
 * with how many were added.  Zeroed is empty; the owner frees it.  The
 * quantile and median are lp_quantile's and lp_median's of the same
 * numbers, to the bit. */
struct lp_vals {
	double *v;		/* distinct values, ascending */
	uint32_t *c;		/* their counts */
	size_t nd;
	double *buf;		/* added since the last merge into v */
	size_t nb, capb;
	double n;		/* all values added */
};
void lp_vals_add(struct lp_vals *s, double x);		/* x not NaN */
double lp_vals_quantile(struct lp_vals *s, double q);	/* NAN when empty */
/* ... of the values of a and b together (b may be NULL) */
double lp_vals_quantile2(struct lp_vals *a, struct lp_vals *b, double q);
double lp_vals_median(struct lp_vals *s);		/* NAN when empty */
void lp_vals_free(struct lp_vals *s);

/* xsum.c: a sum of numbers from 0 that is the same whatever order they
 * are added in (an export's rows may come in any): each is cut to a
 * multiple of 2^-64 and added exactly; past 2^192 it is infinite.  A
 * negative or NaN term is a caller's bug: it dies.  Zeroed is 0. */
struct lp_xsum {
	uint64_t w[4];		/* units of 2^-64, 2^0, 2^64, 2^128 */
	int inf;
};
void lp_xsum_add(struct lp_xsum *s, double v);
void lp_xsum_addx(struct lp_xsum *s, const struct lp_xsum *t);	/* s += t */
double lp_xsum_get(const struct lp_xsum *s);

/* spawn.c: argv run (no shell), stdin from the file in (NULL: the
 * tool's own), stdout and stderr to the descriptors out and err; lp_reap
 * waits for it: its exit code, 128 + the signal that ended it.  127: it
 * could not run.  lp_pipe's ends are not passed on to what is spawned. */
pid_t lp_spawn(char *const *argv, const char *in, int out, int err);
int lp_reap(pid_t pid);
int lp_reaped(pid_t pid, int *rc);	/* without waiting: 1 when gone */
void lp_pipe(int p[2]);
/* The program name[0..n) on PATH, as sh's "command -v" finds it (a
 * regular file it may run; an empty entry is "."): its path, caller
 * frees; NULL where there is none. */
char *lp_which(const char *name, size_t n);
/* argv run as lp_spawn does, its standard output read whole into out (its
 * standard error to err); its exit code as lp_reap's. */
int lp_capture(char *const *argv, const char *in, int err, struct lp_sb *out);
/* The same for a probe that may hang (nvidia-smi on a wedged driver: for
 * minutes): argv in a process group of its own, given limit_s seconds;
 * -1 when it had not ended by then (it and what it started are killed). */
int lp_capture_within(char *const *argv, int err, double limit_s,
    struct lp_sb *out);
#define LP_PROBE_S 30	/* how long a probe of the machine may take */

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

#endif
