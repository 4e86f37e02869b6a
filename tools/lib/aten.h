/*
 * aten.h: PyTorch operator ranges (nsys --pytorch=autograd-shapes-nvtx)
 * (aten.c): part of the readers' layer (nsight.h), depending on the
 * layers below it.
 */
#ifndef LP_ATEN_H
#define LP_ATEN_H

struct lp_sb;

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
/* NULL if the input sizes of one op range (lp_aten_parse's shapes) are
 * sizes a run can have, else why not: a size past 2^63 - 1 (which would
 * otherwise read as 2^63 - 1), a tensor of more elements than that, a
 * matrix product of more than 1e18 FLOPs in one call.  The reason is
 * borrowed until the next call. */
const char *lp_aten_check(const char *op, const char *shapes);

#endif
