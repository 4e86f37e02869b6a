/*
 * The frame of every lp fuzz harness (make fuzz): each input is read as a
 * FILE from memory; a reader that refuses it dies back here (LP_FUZZ's
 * longjmp), what it allocated is freed, and the next input comes.  An
 * input read to the end must leave nothing allocated: a block still
 * tracked then is a leak, reported by abort().
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

#undef free

typedef void (*fuzz_fn)(FILE *fp);

/* Runs fn over the input; 1 if it read it whole, 0 if it refused it. */
static int
fuzz_run(fuzz_fn fn, const unsigned char *data, size_t size)
{
	jmp_buf jb;
	FILE *volatile fp;
	int whole = 0;

	fp = fmemopen((void *)data, size, "r");
	if (!fp)
		return 0;
	lp_fuzz_jmp = &jb;
	if (setjmp(jb) == 0) {
		fn(fp);
		whole = 1;
		if (lp_fuzz_live()) {
			fprintf(stderr, "fuzz: %zu blocks left allocated by an "
			    "input read whole: a leak\n", lp_fuzz_live());
			abort();
		}
	} else
		lp_fuzz_reset();
	lp_fuzz_jmp = NULL;
	fclose(fp);
	return whole;
}
