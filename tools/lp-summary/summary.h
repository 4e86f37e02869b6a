/*
 * summary.h: what the parts of lp-summary share (tools/lp-summary.c and
 * the files beside this header): the document being written with the
 * details config (-c), common.c's helpers, and table.c's entry points.
 */
#ifndef LP_SUMMARY_H
#define LP_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"
#include "table.h"

/* The document and what shapes it, made by main and passed to each part. */
struct sum {
	FILE *out;	/* the document, written out when whole (lp_tab_out) */
	int brief;	/* a brief (lp-brief's verdict): one screen, short headings */
	struct lp_ynode *dcfg;	/* -c: the columns of a wide table, by tool */
	const char *dpath;
};

/* common.c: a file the document names, by its last part, as code (the
 * document lies beside it). */
void sum_file(struct lp_sb *b, const char *path);

/* table.c */
void table(const struct sum *s, const char *path, struct lp_tsv *t,
    char **labels, size_t nl, char **show);
/* The "# define: COLUMN: TEXT" lines of a table (lp-brief's key numbers)
 * as a list, each with its anchor, define-COLUMN, that the brief's
 * headers link to. */
void table_definitions(const struct sum *s, const struct lp_tsv *t,
    char **labels, size_t nl);

#endif
