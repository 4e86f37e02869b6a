/* tsv.c: lp's tab-separated files round-trip any name. */
#include <stdlib.h>

#include "table.h"
#include "tap.h"

int
main(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct lp_tsv t;
	const char *odd = "tab\there, newline\nthere, back\\slash";

	fputs("# time: nsys\n# match: 1 of 1\nkernel\tcalls\n", m);
	lp_tsv_field(m, odd);
	fputs("\t3\n\nplain\t4\n", m);
	fclose(m);
	m = fmemopen(buf, len, "r");
	lp_tsv_open(&t, m, "<mem>");
	ok(t.ncomments == 2, "two comment lines");
	is_str(t.comments[0], "time: nsys", "comment without '# '");
	ok(lp_csv_col(&t.hdr, "calls") == 1, "header columns");
	ok(lp_tsv_next(&t) == 1, "first row");
	is_str(lp_tsv_get(&t, 0), odd, "escaped field comes back whole");
	is_str(lp_tsv_get(&t, 1), "3", "second field");
	ok(lp_tsv_next(&t) == 1, "blank line skipped");
	is_str(lp_tsv_get(&t, 0), "plain", "next row");
	is_str(lp_tsv_get(&t, 5), "", "absent field is empty");
	ok(lp_tsv_next(&t) == 0, "end");
	lp_tsv_close(&t);
	fclose(m);
	free(buf);
	return tap_done();
}
