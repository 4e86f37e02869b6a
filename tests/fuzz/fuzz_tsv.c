/* lp's own tables (tsv.c): provenance lines, header, rows, numbers. */
#include "fuzz.h"
#include "table.h"

static double sink;

static void
tsv(FILE *fp)
{
	struct lp_tsv t;
	size_t i;
	double v;

	lp_tsv_open(&t, fp, "in");
	if (lp_tsv_comment(&t, "title"))
		sink++;
	lp_csv_col(&t.hdr, "kernel");
	lp_csv_col_prefix(&t.hdr, "total");
	while (lp_tab_next(&t))
		for (i = 0; i < t.n; i++)
			if (lp_tab_num(&t, (int)i, &v))
				sink += v;
	lp_tsv_close(&t);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	fuzz_run(tsv, data, size);
	return 0;
}
