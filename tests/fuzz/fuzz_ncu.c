/* The ncu reader (ncuin.c), wide (--page raw) and long (--page details)
 * exports alike: every result's FLOPs, bytes and NVTX stack. */
#include "fuzz.h"
#include "util.h"
#include "prec.h"
#include "nsight.h"

static double sink;

static void
result(const struct lp_ncu_result *r, void *ctx)
{
	struct lp_flops f;
	double bytes;
	char **names;
	size_t n, i;

	(void)ctx;
	lp_launch_flops(&r->l, &f);
	if (lp_launch_bytes(&r->l, &bytes))
		sink += bytes;
	n = lp_ncu_nvtx_stack(r->nvtx, &names);
	for (i = 0; i < n; i++)
		sink += names[i][0];
	lp_argv_free(names, n);
}

static void
ncu(FILE *fp)
{
	lp_ncu_read(fp, "in", result, NULL);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	fuzz_run(ncu, data, size);
	return 0;
}
