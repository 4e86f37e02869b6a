/*
 * fuzztrack.h: the fuzz build's side of util.h (fuzztrack.c, compiled only
 * by make fuzz with -DLP_FUZZ; util.h includes this header then).  A die
 * returns to the harness by longjmp instead of exiting, quietly, and what
 * the library allocates is tracked (lp_x*, lp_getline, libcsv's buffers)
 * so the harness can free what a refused input left behind.  Foreign state
 * that a die would strand (libyaml's parser) is handed over with LP_DEFER
 * and taken back with LP_UNDEFER.  Depends on nothing.
 */
#ifndef LP_FUZZTRACK_H
#define LP_FUZZTRACK_H

#include <setjmp.h>
#include <stddef.h>

extern jmp_buf *lp_fuzz_jmp;	/* set by the harness: where a die returns */
void lp_fuzz_reset(void);	/* after a die: free all tracked, run defers */
size_t lp_fuzz_live(void);	/* tracked blocks still allocated */
void lp_fuzz_track(void *p);	/* err.c: a block lp_x* or lp_getline got */
void lp_fuzz_untrack(void *p);	/* err.c: one they gave back */
void lp_fuzz_free(void *p);
void *lp_fuzz_realloc(void *p, size_t n);
void lp_fuzz_defer(void (*fn)(void *), void *arg);
void lp_fuzz_undefer(void);
#define free(p) lp_fuzz_free(p)
#define LP_DEFER(fn, arg) lp_fuzz_defer((fn), (arg))
#define LP_UNDEFER() lp_fuzz_undefer()

#endif
