/*
 * mdcell.c: a table cell as a report shows it, by its column's "# show:"
 * kind (lp-summary(1) lists them): ns as ms or us, shares as %, SI
 * prefixes; text and code escaped for a Markdown table.  Every report
 * that writes a table's cells writes them through this one function.
 */
#include <math.h>
#include <string.h>

#include "util.h"
#include "esc.h"

/* 1.23 GFLOP, 4.5 TB/s: three significant digits and an SI prefix. */
static void
si(struct lp_sb *b, double v, const char *unit)
{
	static const char *const p[] = { "", "k", "M", "G", "T", "P", "E" };
	int i = 0;

	while (fabs(v) >= 1000 && i < 6) {
		v /= 1000;
		i++;
	}
	lp_sb_printf(b, "%.3g %s%s", v, p[i], unit);
}

void
lp_md_cell(struct lp_sb *b, const char *show, const char *s, const char *unit)
{
	double v;

	if (!lp_num_get(s, &v) || !strcmp(show, "text") || !strcmp(show, "code")) {
		if (!strcmp(show, "code") && *s && strncmp(s, "n/a", 3))
			lp_md_code(b, s, 1);
		else
			lp_md_inline(b, *s ? s : "-", 1);
		return;
	}
	if (!strcmp(show, "int"))
		lp_fmt_num(b, v, 0);
	else if (!strcmp(show, "ms"))
		lp_fmt_num(b, v / 1e6, 3);
	else if (!strcmp(show, "us"))
		lp_fmt_us(b, v);
	else if (!strcmp(show, "pct"))
		lp_fmt_pct(b, v);
	else if (!strcmp(show, "x"))
		lp_sb_printf(b, "%.3gx", v);
	else if (!strcmp(show, "num1"))
		lp_fmt_num(b, v, 1);
	else if (!strcmp(show, "num2"))
		lp_fmt_num(b, v, 2);
	else if (!strcmp(show, "flop"))
		si(b, v, "FLOP");
	else if (!strcmp(show, "flops"))
		si(b, v, "FLOP/s");
	else if (!strcmp(show, "bytes"))
		si(b, v, "B");
	else if (!strcmp(show, "Bps"))
		si(b, v, "B/s");
	else if (!strcmp(show, "si"))
		si(b, v, unit);
	else if (!strcmp(show, "q") && !strcmp(unit, "ns"))
		lp_fmt_time(b, v);
	else if (!strcmp(show, "q") && !strcmp(unit, "count"))
		lp_fmt_num(b, v, v == floor(v) ? 0 : 1);
	else if (!strcmp(show, "q") && !strcmp(unit, "pct"))
		lp_fmt_pct(b, v);
	else if (!strcmp(show, "q") && *unit)
		lp_sb_printf(b, "%.4g %s", v, unit);
	else
		lp_sb_adds(b, s);
}

