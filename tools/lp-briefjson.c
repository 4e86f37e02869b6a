/*
 * lp-briefjson: brief.json, the brief for machines (CI, dashboards).  It
 * copies the brief's tables into one JSON object: the verdict and
 * identity (brief.tsv's lines), what bounds the step (bound.tsv), the key
 * numbers (brief.tsv's row), the waterfall's parts (waterfall.tsv) and
 * the top findings (findings_top.tsv).  Nothing is computed but units: a
 * column in ns becomes one in seconds (NAME_ns -> NAME_s, the decimal
 * point moved: every digit the table has); a number stays a JSON number,
 * with its digits, an
 * "n/a because ..." cell is null with its reason beside it (NAME_why),
 * "-" (a part another stage has) null, other text a string.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"

static const char synopsis[] = "lp-briefjson -b brief.tsv -B bound.tsv "
    "-w waterfall.tsv -f findings_top.tsv";

static FILE *out;

/* ns in seconds, every digit: a plain decimal's point moved 9 places
 * (trailing zeros after the point dropped), else the double to 17 digits. */
static void
seconds(const char *cell, double v)
{
	struct lp_sb b = { 0 };
	const char *p = cell, *dot;
	size_t ni, i;
	int neg = *p == '-';

	p += neg;
	dot = strchr(p, '.');
	ni = dot ? (size_t)(dot - p) : strlen(p);
	if (!ni || strspn(p, "0123456789") != ni || (dot && strspn(dot + 1,
	    "0123456789") != strlen(dot + 1))) {
		fprintf(out, "%.17g", v / 1e9);
		return;
	}
	if (neg)
		lp_sb_addc(&b, '-');
	if (ni > 9)
		lp_sb_addn(&b, p, ni - 9);
	else
		lp_sb_addc(&b, '0');
	lp_sb_addc(&b, '.');
	for (i = ni; i < 9; i++)
		lp_sb_addc(&b, '0');
	lp_sb_addn(&b, p + (ni > 9 ? ni - 9 : 0), ni > 9 ? 9 : ni);
	if (dot)
		lp_sb_adds(&b, dot + 1);
	while (b.s[b.len - 1] == '0')
		b.s[--b.len] = '\0';
	if (b.s[b.len - 1] == '.')
		b.s[--b.len] = '\0';
	/* "0" or "-0" trimmed to nothing after the sign: write 0 */
	fputs(strcmp(b.s, neg ? "-0" : "0") ? b.s : "0", out);
	lp_sb_free(&b);
}

/* One cell as a JSON member: "name": value, in SI units. */
static void
member(const char *name, const char *cell, int *first)
{
	size_t n = strlen(name);
	int ns = !strcmp(name, "ns") || (n > 3 && !strcmp(name + n - 3, "_ns"));
	double v;

	fputs(*first ? "" : ", ", out);
	*first = 0;
	/* NAME_ns -> NAME_s, ns -> s */
	fprintf(out, "\"%.*s%s\": ", (int)(ns ? n - 2 : n), name, ns ? "s" :
	    "");
	if (!strcmp(cell, "-"))		/* not one of this column's */
		fputs("null", out);
	else if (!strncmp(cell, "n/a", 3)) {
		fprintf(out, "null, \"%.*s%s_why\": ", (int)(ns ? n - 2 : n),
		    name, ns ? "s" : "");
		lp_json_str(out, cell);
	} else if (lp_num_get(cell, &v) && isfinite(v)) {
		if (ns)
			seconds(cell, v);
		else if (lp_json_isnum(cell))	/* as the table has it */
			fputs(cell, out);
		else
			fprintf(out, "%.17g", v);
	} else
		lp_json_str(out, cell);
}

/* The rows of a table as JSON objects, comma-separated; skip: columns to
 * leave out (NULL-terminated). */
static void
rows(const char *path, const char *tool, const char *const *skip,
    struct lp_tsv *t, int one)
{
	size_t c, k;
	int first, nrow = 0;

	while (lp_tab_next(t)) {
		if (one && nrow)
			lp_die_at(LP_EXIT_DATA, path, t->line, 0, "a second "
			    "row: %s writes one", tool);
		fputs(nrow++ ? ",\n    {" : "{", out);
		first = 1;
		for (c = 0; c < t->hdr.n; c++) {
			for (k = 0; skip && skip[k] &&
			    strcmp(skip[k], t->hdr.names[c]); k++)
				;
			if (skip && skip[k])
				continue;
			member(t->hdr.names[c], lp_tsv_get(t, (int)c), &first);
		}
		fputs("}", out);
	}
	if (one && !nrow)
		fputs("null", out);
}

static void
section(const char *key, const char *path, const char *tool,
    const char *const *metas, const char *const *skip, int one)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, tool);
	size_t k;

	lp_tab_expect(&t, tool);
	fprintf(out, ",\n  \"%s\": {\"source\": ", key);
	lp_json_str(out, path);
	for (k = 0; metas && metas[k]; k++) {
		const char *v = lp_tsv_comment(&t, metas[k]);

		fprintf(out, ", \"%s\": ", metas[k]);
		if (v)
			lp_json_val(out, v, 1);
		else
			fputs("null", out);
	}
	fputs(one ? ", \"values\": " : ", \"rows\": [\n    ", out);
	rows(path, tool, skip, &t, one);
	fputs(one ? "}" : "]}", out);
	lp_tsv_close(&t);
	fclose(fp);
}

int
main(int argc, char **argv)
{
	static const char *const briefm[] = { "verdict", "identity", NULL };
	static const char *const boundm[] = { "verdict", "step", "bound_pct",
		"gpus", "why", NULL };
	static const char *const wfskip[] = { "from", NULL };
	static const char *const fskip[] = { "finding", "evidence",
		"next_step", NULL };
	const char *b = NULL, *bd = NULL, *w = NULL, *f = NULL;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "B:b:f:w:", synopsis)) != -1) {
		switch (c) {
		case 'B': bd = optarg; break;
		case 'b': b = optarg; break;
		case 'f': f = optarg; break;
		case 'w': w = optarg; break;
		}
	}
	if (!b || !bd || !w || !f || optind != argc)
		lp_usage(synopsis);
	out = lp_tab_out();
	fputs("{\"schema\": \"lp-brief/1\", \"units\": \"times in s (a "
	    "table's NAME_ns is NAME_s here), shares in %, rates per s\"", out);
	section("brief", b, "lp-brief", briefm, NULL, 1);
	section("bound", bd, "lp-bound", boundm, NULL, 0);
	section("waterfall", w, "lp-waterfall", NULL, wfskip, 0);
	section("findings", f, "lp-findings", NULL, fskip, 0);
	fputs("\n}\n", out);
	lp_tab_done(out);
	return 0;
}
