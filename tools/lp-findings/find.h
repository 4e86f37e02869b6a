/*
 * find.h: what the parts of lp-findings share (tools/lp-findings.c and the
 * rule families beside this header): the findings found so far, the run's
 * tables, the helpers over both (common.c) and the rules each family adds
 * to the findings.  A finding's strings are its own (add, ev copy them); a
 * table's text is borrowed from it.
 */
#ifndef LP_FIND_H
#define LP_FIND_H

#include <stddef.h>

#include "table.h"
#include "run.h"

struct f {
	size_t order;		/* when found: ties keep the rules' order */
	const char *rule;
	double save;		/* ns; NAN: not a time */
	char *head, *evidence, *artifact, *next;
	char *act;		/* the next step in one clause (act()), or NULL:
				 * then the next step's first clause */
	char *stage;		/* the stage (name or range) it is spent in */
	char *kernel;		/* the kernel a kernel finding is about */
	int once;		/* a one-time cost, not per step */
	int rank;		/* one process's time (the kernel tables) */
	/* a host finding: the idle GPU time (ns) of its stage's instances
	 * that its saving is a share of, the shares adding up to no more;
	 * 0 for another finding */
	double pool;
};

/* The findings in the order found, made in main and passed to each rule,
 * with what the rules say about them all. */
struct findings {
	struct f *f;
	size_t n;
	int host_split;	/* a stage's savings split by hostside.tsv */
};

/* common.c */
/* add(fs, rule, save, artifact, next, head-format, ...): the evidence is
 * set by the caller through ev(). */
struct f *add(struct findings *fs, const char *rule, double save,
    const char *artifact, const char *next, const char *head, ...)
    __attribute__((format(printf, 6, 7)));
void ev(struct f *x, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* The next step in one clause, for the brief, where the next step's own
 * first clause is not one (it says why before what). */
void act(struct f *x, const char *clause);
/* The stage a finding's saving is spent in (its name or range), or that
 * the saving is a one-time cost. */
void at_stage(struct f *x, const char *stage, int once);
double ms(double ns);

/* One table of the run, with its path. */
struct tab {
	const char *path;
	struct lp_tsv t;
	FILE *fp;
	char **row;		/* the rows, whole lines of fields */
	long *line;		/* each row's line in the file */
	size_t n, ncol;
};

double cell(const struct tab *t, size_t i, const char *col);
const char *code(const char *s);	/* valid until the next call */
const char *text(const struct tab *t, size_t i, const char *col);
long row_of(const struct tab *t, const char *col, const char *val);
/* The share of a stage's kernel time its CUDA graphs ran (hostside.tsv,
 * row r); NAN when not known. */
double graph_pct(const struct tab *hs, size_t r);

/* steps.c */
/* The saving per step and what a step is: two cells of its row, from
 * stages.tsv (st), steps.tsv (sp) and hostside.tsv (hs; NULL if none). */
void step_saving(struct lp_row *r, const struct tab *st, const struct tab *sp,
    const struct tab *hs, const struct f *x);

/* The finding's first clause, for a short list (the brief). */
void step_headline(struct lp_sb *b, const char *finding);
/* The next step's first clause: up to the first ": ", "; ", " (" or ". "
 * outside a code span, with a full stop. */
void step_first_clause(struct lp_sb *b, const char *next);

/* The rules: each adds its findings to fs. */
/* host.c */
/* ut: untraced.tsv (what the capture added to each stage), or NULL. */
void host_launch_bound(struct findings *fs, const struct tab *s,
    const struct tab *hs, const struct tab *sp, const struct tab *ut);
void host_warmup(struct findings *fs, const struct tab *t, const struct tab *s,
    const struct tab *hs);
/* kernels.c */
void kern_roof(struct findings *fs, const struct tab *rf, const struct tab *tk,
    const struct tab *hs, size_t max);
void kern_dominant(struct findings *fs, const struct tab *tk, int imported);
void kern_fp32(struct findings *fs, const struct tab *rf, const struct tab *tk,
    const struct lp_peaks *pk);
/* ranks.c */
void ranks_straggler(struct findings *fs, const struct tab *k);
void ranks_communication(struct findings *fs, const struct tab *o,
    const struct tab *k);
/* gpumetrics.c */
void gm_measured_tensor(struct findings *fs, const struct tab *gm,
    const struct tab *mf);
void gm_measured_dram(struct findings *fs, const struct tab *gm,
    const struct tab *mb);

#endif
