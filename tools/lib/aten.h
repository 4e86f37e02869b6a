/*
 * aten.h: PyTorch operator ranges (nsys --pytorch=autograd-shapes-nvtx)
 * and the pull reader that merges the nsys traces in time order: part of
 * the readers' layer (nsight.h), depending on the layers below it.
 */
#ifndef LP_ATEN_H
#define LP_ATEN_H

#include "util.h"
#include "table.h"
#include "nsight.h"

/* aten.c: one op range's name, as nsys spells it,
 *   ":aten::addmm, op_id = 568, sizes = [[2304], [64, 768]], input_op_ids = [...]"
 * (the default domain's ':' first; "seq = N, " may come before op_id).
 * Returns 1 for an op range and sets op ("aten::addmm") and shapes (the
 * sizes list, "" when there is none); 0 for any other range. */
int lp_aten_parse(const char *name, struct lp_sb *op, struct lp_sb *shapes);
int lp_aten_is_op(const char *name);
/* 2MNK of one call of a matrix product from its input shapes: aten::mm,
 * addmm, bmm (2BMNK), linear, matmul.  Returns 1 and sets *flops, or 0
 * with *why saying why not (another op, shapes that do not multiply). */
int lp_aten_2mnk(const char *op, const char *shapes, double *flops,
    const char **why);

/* reppull.c: an nsys report read a row at a time (lp_rep_read's columns,
 * checks and row type), so that several sorted traces can be merged.
 * Memory holds one record. */
struct lp_repp;
struct lp_repp *lp_repp_open(const char *path, const char *what,
    const char *const *cols, size_t n);		/* caller closes */
/* The next data row (valid until the next call), NULL at the end; dies on
 * bad data like lp_rep_read, and on a report without rows. */
const struct lp_rep_row *lp_repp_next(struct lp_repp *p);
const char *lp_repp_file(const struct lp_repp *p);
void lp_repp_close(struct lp_repp *p);

#endif
