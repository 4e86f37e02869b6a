/*
 * csvout.c: one CSV field written (RFC 4180), for the tools that write CSV
 * (lp-graphnodes' graph_node_trace, lp-regsplit's per-region files).
 */
#include <stdio.h>
#include <string.h>

#include "table.h"

void
lp_csv_put(FILE *fp, const char *s, int quote)
{
	if (!quote && !strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	putc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', fp);
		putc(*s, fp);
	}
	putc('"', fp);
}
