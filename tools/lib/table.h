/*
 * table.h: the formats layer: CSV exports (csvin.c), lp's TSV tables read
 * (tsv.c) and written (tab.c), YAML configs (yml.c), kernel names
 * (kname.c).  Depends on util.h and esc.h only.
 */
#ifndef LP_TABLE_H
#define LP_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

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
/* A record's fields end to end, each with its NUL, as one span of *len
 * bytes (valid as its fields are): one copy instead of one a field.  Not
 * after lp_csv_keep, which leaves fields out; NULL for a record this
 * reader did not make (lp_rep's rows of a pack). */
const char *lp_csv_span(const struct lp_csv_rec *r, size_t *len);
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
/* The same reader pulled a record at a time: lp_csv_next fills rec (valid
 * until the next call) and returns 0 at the end, after the end's checks. */
struct lp_csv_in;
struct lp_csv_in *lp_csv_open(FILE *fp, const char *file,
    void (*msg)(const char *line, long lineno, void *ctx), void *ctx);
int lp_csv_next(struct lp_csv_in *in, struct lp_csv_rec *rec);
void lp_csv_close(struct lp_csv_in *in);
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

/* csvout.c: a CSV field, quoted (quote, or where it holds , " CR or LF)
 * with its quotes doubled. */
void lp_csv_put(FILE *fp, const char *s, int quote);

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
	int *key;		/* lp_tab_key's columns, nkey of them */
	size_t nkey;
	char *keynames;		/* "stage and op", for messages */
	struct lp_map *seen;	/* each row's key -> its line */
	struct lp_sb kb;
	int started;		/* lp_tab_next has read a row */
};
/* Dies on no header. */
void lp_tsv_open(struct lp_tsv *t, FILE *fp, const char *file);
/* 1 row read, 0 at end; its width checked.  Readers of lp's tables use
 * lp_tab_next (tab.c), which checks its values too. */
int lp_tsv_next(struct lp_tsv *t);
const char *lp_tsv_get(const struct lp_tsv *t, int col);	/* "" if absent */
/* The text of comment "# KEY: text" above the header; NULL if none. */
const char *lp_tsv_comment(const struct lp_tsv *t, const char *key);
void lp_tsv_close(struct lp_tsv *t);
/* The table has one row per value of these columns (names separated by
 * spaces, as a "# key:" line gives them; each must be in the header): a
 * second row with the values of an earlier one dies naming its file, line
 * and first key column and the earlier row's line.  The writer states it
 * with lp_tab_meta(out, "key", ...); a reader that counts on it sets it
 * itself.  Memory holds one entry per row (rows of lp's tables are
 * distinct kernels, stages and ops). */
void lp_tab_key(struct lp_tsv *t, const char *cols);
/* lp_tsv_next and every check of the row before it is returned: its
 * numbers (lp_tab_check_row), its cells that must agree (lp_tab_agree) and
 * its key (lp_tab_key, from a "# key: COL ..." line unless the reader set
 * one before its first row). */
int lp_tab_next(struct lp_tsv *t);
/* Cells of the row that must agree (a count of 0 with a time above 0, a
 * mean that is not total / count), found by column name; dies naming the
 * cell.  lp_tab_next checks every row with it. */
void lp_tab_agree(const struct lp_tsv *t);

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
/* 100 part / whole as lp_row_g; "n/a because why" where whole <= 0 */
void lp_row_share(struct lp_row *r, double part, double whole, const char *why);
void lp_row_na(struct lp_row *r, const char *fmt, ...)	/* "n/a because ..." */
    __attribute__((format(printf, 2, 3)));
/* A percentage that cannot pass max (MFU, MBU: 100; GPU busy: 128 kernels
 * at once, 12800): v as lp_row_g, or, beyond, "n/a because WHAT would be
 * V %, beyond MAX %: CAUSE" (the cause printf-style).  1 when beyond. */
int lp_row_pct(struct lp_row *r, double v, double max, const char *what,
    const char *cause, ...) __attribute__((format(printf, 5, 6)));
void lp_row_end(struct lp_row *r, FILE *fp);
/* lp_row_end after "n/a" in each cell left of the row's ncols. */
void lp_row_end_na(struct lp_row *r, size_t ncols, FILE *fp);
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
/* Checks each cell of the current row that "# show:" makes a number;
 * one shown "int" is a whole number.  lp_tab_next calls it. */
void lp_tab_check_row(const struct lp_tsv *t);
/* Dies unless the table's "# tool:" line names this tool. */
void lp_tab_expect(const struct lp_tsv *t, const char *tool);

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

/* kname.c: kernel names across tools and in Markdown. */
/* A key equal for nsys's and ncu's demangling of one kernel: casts like
 * "(bool)" and namespace qualifiers dropped, spaces folded. Caller frees. */
char *lp_kname_key(const char *name);
/* Readable: templates shortened to <...>, as a Markdown code span
 * (lp_md_code) outside a table. */
/* The width every report shortens a kernel name to, so that one kernel
 * reads the same in each (kernels.md, the summary's tables, compare). */
#define LP_KNAME_MAX 70
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

#endif
