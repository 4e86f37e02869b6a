/*
 * lp-tabtop: the first rows of one group of an lp table, with the table's
 * provenance lines and a note of how many rows of the group it left out.
 * The summary's Top Operators are one stage's first rows of aten_ops.tsv
 * and aten_opnames.tsv, which lp-atenops orders by time within a stage.
 * Memory holds the rows kept; the rest are counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"

static const char synopsis[] =
    "lp-tabtop [-q] [-w column=value] [-H column,...] [-n rows] [-l link] "
    "[table.tsv]";

/* The "# ..." lines above the header, the note of what was left out
 * before its labels (where lp-summary prints notes), then the header. */
/* Is column name in the comma-separated list? */
static int
listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

/* The "# show:" line with the columns of hide shown as "hide". */
static void
emit_show(FILE *out, const struct lp_tsv *t, const char *show,
    const char *hide)
{
	size_t i = 0;

	fputs("# show:", out);
	while (show) {
		const char *tab = strchr(show, '\t');
		int n = tab ? (int)(tab - show) : (int)strlen(show);

		fprintf(out, "%s", i ? "\t" : " ");
		if (i < t->hdr.n && listed(hide, t->hdr.names[i]))
			fputs("hide", out);
		else
			fprintf(out, "%.*s", n, show);
		show = tab ? tab + 1 : NULL;
		i++;
	}
	putc('\n', out);
}

static void
emit_head(FILE *out, const struct lp_tsv *t, size_t more, const char *link,
    const char *value, const char *hide, int quiet)
{
	size_t i, vl = strlen(value);
	int noted = 0;

	for (i = 0; i <= t->ncomments; i++) {
		const char *c = i < t->ncomments ? t->comments[i] : NULL;

		if (!noted && more && (!c || !strncmp(c, "labels:", 7) ||
		    !strncmp(c, "show:", 5))) {
			lp_tab_meta(out, "note", "%zu more rows in %s.", more,
			    link);
			noted = 1;
		}
		/* the kept value's coverage (lp-atenops: "coverage: STAGE:
		 * ..."), where lp-summary prints it: a note */
		if (c && !strncmp(c, "coverage: ", 10) && !strncmp(c + 10, value,
		    vl) && !strncmp(c + 10 + vl, ": ", 2))
			lp_tab_meta(out, "note", "Coverage of %s: %s", value,
			    c + 10 + vl + 2);
		if (c && quiet && !strncmp(c, "note: ", 6))
			continue;
		/* the rows' anchors are in the whole table, where link goes:
		 * each kept row links to its own */
		if (c && !strncmp(c, "anchor: ", 8)) {
			lp_tab_meta(out, "rowlink", "%s#%s-", link, c + 8);
			continue;
		}
		if (c && hide && !strncmp(c, "show: ", 6))
			emit_show(out, t, c + 6, hide);
		else if (c)
			fprintf(out, "# %s\n", c);
	}
	for (i = 0; i < t->hdr.n; i++) {
		if (i)
			putc('\t', out);
		lp_tsv_field(out, t->hdr.names[i]);
	}
	putc('\n', out);
}

/* The rows whose column col (-1: any row) holds want, at most max (0:
 * all), written as TSV into kept; *more: the matching rows past max.  No
 * row with -w is an error naming the values the rows have. */
static void
keep_rows(struct lp_tsv *t, const char *name, int col, const char *where,
    const char *want, long max, FILE *kept, size_t *more)
{
	struct lp_map *seen = lp_map_new();
	size_t nrows = 0, i;

	while (lp_tab_next(t)) {
		if (col >= 0 && strcmp(lp_tsv_get(t, col), want)) {
			if (lp_map_len(seen) < 8)
				lp_map_put(seen, lp_tsv_get(t, col), 1);
			continue;
		}
		if (max && (long)nrows >= max) {
			(*more)++;
			continue;
		}
		for (i = 0; i < t->n; i++) {
			if (i)
				putc('\t', kept);
			lp_tsv_field(kept, t->f[i]);
		}
		putc('\n', kept);
		nrows++;
	}
	if (fclose(kept))
		lp_die_sys("open_memstream");
	/* an empty table would read as "no ops": say what matched nothing */
	if (!nrows && where) {
		struct lp_sb b = { 0 };

		for (i = 0; i < lp_map_len(seen); i++)
			lp_sb_printf(&b, "%s\"%s\"", i ? ", " : "",
			    lp_map_key(seen, i));
		lp_die_at(LP_EXIT_DATA, name, t->line, 0, "no row has %s \"%s\" "
		    "(%s: %s)", where, want, b.len ? "the rows have" : "no rows",
		    b.len ? lp_sb_str(&b) : "an empty table");
	}
	lp_map_free(seen);
}

int
main(int argc, char **argv)
{
	struct lp_tsv t;
	const char *name, *link = NULL, *want = "", *hide = NULL;
	char *where = NULL, *eq;
	int quiet = 0;
	char *rows = NULL;
	size_t rowslen = 0, more = 0;
	long max = 0;
	int c, col;
	FILE *fp, *out, *kept;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "H:l:n:qw:", synopsis)) != -1) {
		switch (c) {
		case 'H': hide = optarg; break;
		case 'l': link = optarg; break;
		case 'n': max = lp_strtonum(optarg, 1, 1000000, "-n"); break;
		case 'q': quiet = 1; break;
		case 'w': where = optarg; break;
		}
	}
	if ((where && (!(eq = strchr(where, '=')) || eq == where)) ||
	    argc - optind > 1)
		lp_usage(synopsis);
	if (where) {
		*eq = '\0';
		want = eq + 1;
	}
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_tsv_open(&t, fp, name);
	if (!link)
		link = fp == stdin ? "the table" : strrchr(name, '/') ?
		    strrchr(name, '/') + 1 : name;
	col = where ? lp_csv_need(&t.hdr, where, "an lp table") : -1;
	out = lp_tab_out();
	if (!(kept = open_memstream(&rows, &rowslen)))
		lp_die_sys("open_memstream");
	keep_rows(&t, name, col, where, want, max, kept, &more);
	emit_head(out, &t, more, link, want, hide, quiet);
	fwrite(rows, 1, rowslen, out);
	free(rows);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_tab_done(out);
	return 0;
}
