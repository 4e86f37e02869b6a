/* csvin.c: streaming CSV through libcsv. */
#include <stdlib.h>

#include "util.h"
#include "table.h"
#include "tap.h"

struct got {
	struct lp_sb s;
	int msgs;
	int stop_after;
	int n;
};

static int
rec(const struct lp_csv_rec *r, void *ctx)
{
	struct got *g = ctx;
	size_t i;

	lp_sb_printf(&g->s, "%ld:", r->line);
	for (i = 0; i < r->n; i++)
		lp_sb_printf(&g->s, "[%s]", r->f[i]);
	lp_sb_addc(&g->s, ';');
	return ++g->n == g->stop_after;
}

static void
msg(const char *line, long lineno, void *ctx)
{
	struct got *g = ctx;

	lp_sb_printf(&g->s, "msg%ld(%s);", lineno, line);
	g->msgs++;
}

static const char *
parse(const char *text, int stop_after)
{
	static struct got g;
	FILE *m = fmemopen((void *)text, strlen(text), "r");

	lp_sb_free(&g.s);
	memset(&g, 0, sizeof g);
	g.stop_after = stop_after;
	lp_csv_read(m, "<mem>", rec, msg, &g);
	fclose(m);
	return lp_sb_str(&g.s);
}

static void
parse_v(const void *text)
{
	parse(text, 0);
}

int
main(void)
{
	struct lp_csv_hdr h;
	struct lp_csv_rec r;
	char *f[] = { "Time (%)", "Total Time (ns)", "Name" };

	is_str(parse("a,b\n1,2\n", 0), "1:[a][b];2:[1][2];", "two records");
	is_str(parse("a,\"x, y\"\n", 0), "1:[a][x, y];", "quoted comma");
	is_str(parse("\"say \"\"hi\"\"\",2\n", 0), "1:[say \"hi\"][2];",
	    "doubled quotes");
	is_str(parse("\"multi\nline\",2\nnext,3\n", 0),
	    "1:[multi\nline][2];3:[next][3];", "record spanning lines keeps its start");
	is_str(parse("a,b\r\n1,2\r\n", 0), "1:[a][b];2:[1][2];", "CRLF");
	/* nsys and ncu end every line: without the last newline the last
	 * field may be cut ("1234" read as "12") */
	ok(tap_exit(parse_v, "a,b\n1,2") == 1, "no final newline: refused");
	ok(tap_exit(parse_v, "a,b\n1,2\n") == 0, "with it: read");
	is_str(parse("\xef\xbb\xbf" "a,b\n", 0), "1:[a][b];", "BOM dropped");
	is_str(parse("==PROF== hello\na,b\n", 0), "msg1(==PROF== hello);2:[a][b];",
	    "tool message at a record boundary");
	is_str(parse("\"x\n==ERROR== in a field\",1\n", 0),
	    "1:[x\n==ERROR== in a field][1];", "not a message inside quotes");
	is_str(parse("a\nb\nc\n", 2), "1:[a];2:[b];", "callback stops early");
	/* a bare CR ends a record inside a line and a quote left open
	 * carries the next one over: the open record's fields move to the
	 * front of the buffer each line (memory held to one record) */
	is_str(parse("1,\"x\n\",b0\rd0,\"c\n\",b1\rd1,\"c\n\",z\n", 0),
	    "1:[1][x\n][b0];2:[d0][c\n][b1];3:[d1][c\n][z];",
	    "records ended by a bare CR beside ones spanning lines");
	is_str(parse("1,\"x\n\",b0\rd0,\"c\n==ERROR== quoted\n\",z\n", 0),
	    "1:[1][x\n][b0];2:[d0][c\n==ERROR== quoted\n][z];",
	    "after a bare CR, a line inside an open quote is data, not a message");
	is_str(parse("a,b\n\n1,2\n", 0), "1:[a][b];3:[1][2];", "blank line skipped");

	r.n = 3;
	r.f = f;
	r.line = 1;
	lp_csv_hdr_init(&h, &r, "x.csv");
	ok(lp_csv_col(&h, "Name") == 2, "column by name");
	ok(lp_csv_col(&h, "Nope") == -1, "absent column");
	ok(lp_csv_col_prefix(&h, "Total Time") == 1, "column by prefix");
	is_str(lp_csv_field(&r, 7), "", "short record reads empty");
	lp_csv_hdr_free(&h);
	return tap_done();
}
