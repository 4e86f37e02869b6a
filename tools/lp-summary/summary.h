/*
 * summary.h: what the parts of lp-summary share (tools/lp-summary.c and
 * the files beside this header): the document being written, the
 * details config (-c), and table.c's entry point.
 */
#ifndef LP_SUMMARY_H
#define LP_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"
#include "table.h"

extern FILE *out;	/* the document, written out when whole (lp_tab_out) */
extern struct lp_ynode *dcfg;	/* -c: the columns of a wide table, by tool */
extern const char *dpath;
extern int brief;	/* a brief: one screen */
#define putc_out(c) fputc((c), out)

/* lp-summary.c */
const char *base(const char *p);

/* table.c */
void table(const char *path, struct lp_tsv *t, char **labels, size_t nl,
    char **show);
/* The "# define: COLUMN: TEXT" lines of a table (lp-brief's key numbers)
 * as a list, each with its anchor, define-COLUMN, that the brief's
 * headers link to. */
void definitions(const struct lp_tsv *t, char **labels, size_t nl);

#endif
