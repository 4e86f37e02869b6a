/*
 * lp-regsplit: the per-region files: each region's rows of
 * region_instances.tsv as CSV, Markdown and JSON in a folder, and on
 * standard output the table that lists them (for regions.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"

static const char synopsis[] =
    "lp-regsplit -d dir [-p prefix] [region_instances.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

/* The region of a path "a > b > c": what follows the last " > ". */
static const char *
leaf_of(const char *p)
{
	const char *s, *leaf = p;

	for (s = p; (s = strstr(s, " > ")); s += 3)
		leaf = s + 3;
	return leaf;
}

/*
 * A file name for each region: letters, digits, '-', '_' and '.' kept,
 * anything else '_', no leading dot (no hidden file, no "." or ".."), at
 * most 64 bytes; where two regions would get one name (case aside, for
 * the file systems that ignore it) the later gets "-2", "-3", ..., and
 * so does a region named like one of ncu's exports beside it (d0, imp1).
 */
/* The folder also holds ncu's exports, dN.csv (a depth) and impN.csv (an
 * import): a region may not take their names. */
static int
reserved(const char *name)
{
	const char *s = name;

	if (!strncasecmp(s, "imp", 3))
		s += 3;
	else if (*s == 'd' || *s == 'D')
		s++;
	else
		return 0;
	if (!*s)
		return 0;
	while (*s >= '0' && *s <= '9')
		s++;
	return !*s;
}

static char *
file_name(const char *region, char **taken, size_t ntaken)
{
	struct lp_sb b = { 0 }, u = { 0 };
	const char *s;
	size_t i, k;

	for (s = region; *s && b.len < 64; s++)
		lp_sb_addc(&b, (*s >= 'a' && *s <= 'z') || (*s >= 'A' &&
		    *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		    *s == '_' || (*s == '.' && b.len) ? *s : '_');
	if (!b.len)
		lp_sb_adds(&b, "region");
	for (k = 1; ; k++) {
		lp_sb_reset(&u);
		lp_sb_adds(&u, lp_sb_str(&b));
		if (k > 1)
			lp_sb_printf(&u, "-%zu", k);
		for (i = 0; i < ntaken && strcasecmp(taken[i], lp_sb_str(&u));
		    i++)
			;
		if (i == ntaken && !reserved(lp_sb_str(&u)))
			break;
	}
	lp_sb_free(&b);
	return lp_sb_steal(&u);
}

static FILE *
create(const char *dir, const char *name, const char *ext, char **tmp,
    char **final)
{
	struct lp_sb b = { 0 };
	FILE *fp;

	lp_sb_printf(&b, "%s/%s.%s", dir, name, ext);
	*final = lp_sb_steal(&b);
	lp_sb_printf(&b, "%s.tmp", *final);
	*tmp = lp_sb_steal(&b);
	if (!(fp = fopen(*tmp, "w")))
		lp_die_sys("%s", *tmp);
	return fp;
}

static void
finish(FILE *fp, char *tmp, char *final)
{
	if (fflush(fp) || ferror(fp) || fclose(fp))
		lp_die_sys("%s", tmp);
	if (rename(tmp, final))
		lp_die_sys("%s", final);
	free(tmp);
	free(final);
}

static const struct lp_col cols[] = {
	{ "region", "Region", "text" }, { "instances", "Instances", "int" },
	{ "csv", "CSV", "code" }, { "markdown", "Markdown", "code" },
	{ "json", "JSON", "code" },
};

/* region_instances.tsv held whole: its rows (nc cells each) and its regions
 * (the leaves of the rows' paths) in the order they first appear. */
struct insts {
	const char *name;	/* the input's */
	const struct lp_tsv *t;
	char **rows;
	size_t n, nc;
	int cp;			/* the path column */
	char **regions;
	size_t nreg;
	int *show;		/* [nc]: a column of numbers */
	char **kind;		/* [nc]: its "# show:" kind, for the page */
	char **label;		/* [nc]: its "# labels:" heading, for the page */
};

static void
load_instances(struct lp_tsv *t, const char *name, struct insts *x)
{
	size_t i, j;

	memset(x, 0, sizeof *x);
	x->name = name;
	x->t = t;
	lp_tab_expect(t, "lp-reginst");
	x->cp = lp_csv_need(&t->hdr, "path", "lp-reginst output");
	x->nc = t->hdr.n;
	while (lp_tab_next(t)) {
		const char *leaf = leaf_of(lp_tsv_get(t, x->cp));

		x->rows = lp_xreallocarray(x->rows, (x->n + 1) * x->nc,
		    sizeof *x->rows);
		for (i = 0; i < x->nc; i++)
			x->rows[x->n * x->nc + i] = lp_xstrdup(lp_tsv_get(t,
			    (int)i));
		x->n++;
		for (j = 0; j < x->nreg && strcmp(x->regions[j], leaf); j++)
			;
		if (j == x->nreg) {
			x->regions = lp_xreallocarray(x->regions, x->nreg + 1,
			    sizeof *x->regions);
			x->regions[x->nreg++] = lp_xstrdup(leaf);
		}
	}
	if (!x->n)
		lp_die_at(LP_EXIT_DATA, name, t->line, 0, "no region instances");
}

/* The i-th tab-separated field of comment c, or dflt past its end. */
static char *
field(const char *c, size_t i, const char *dflt)
{
	size_t len;

	for (; c && *c && i; i--)
		c += strcspn(c, "\t") + (c[strcspn(c, "\t")] == '\t');
	if (!c || !*c)
		return lp_xstrdup(dflt);
	len = strcspn(c, "\t");
	return lp_xstrndup(c, len);
}

/* Each column's kind and heading from the table's "show" and "labels"
 * comments (text and its name where it has none), and which columns hold
 * numbers. */
static void
numeric_columns(struct insts *x)
{
	const char *sh = lp_tsv_comment(x->t, "show");
	const char *lb = lp_tsv_comment(x->t, "labels");
	size_t i;

	x->show = lp_xcalloc(x->nc + 1, sizeof *x->show);
	x->kind = lp_xcalloc(x->nc + 1, sizeof *x->kind);
	x->label = lp_xcalloc(x->nc + 1, sizeof *x->label);
	for (i = 0; i < x->nc; i++) {
		x->kind[i] = field(sh, i, "text");
		x->label[i] = field(lb, i, x->t->hdr.names[i]);
		/* lp_tab_next (lp_tab_check_row) made these numbers or "n/a ..." */
		x->show[i] = strcmp(x->kind[i], "text") &&
		    strcmp(x->kind[i], "code") && strcmp(x->kind[i], "hide");
	}
}

/* The title and header of a region's CSV, Markdown and JSON files. */
static void
write_heads(FILE **f, const struct insts *x, const char *region,
    struct lp_sb *md)
{
	const char *const *names = (const char *const *)x->t->hdr.names;
	size_t i;

	lp_sb_adds(md, "# Region ");
	lp_md_text(md, region);
	lp_sb_adds(md, "\n\nFrom ");
	lp_md_text(md, x->name);
	lp_sb_adds(md, ".\n\n|");
	for (i = 0; i < x->nc; i++) {
		if (i)
			putc(',', f[0]);
		lp_csv_put(f[0], names[i], 1);
		lp_sb_addc(md, ' ');
		lp_md_text(md, x->label[i]);
		lp_sb_adds(md, " |");
	}
	fprintf(f[1], "%s\n|", lp_sb_str(md));
	for (i = 0; i < x->nc; i++)
		fputs("---|", f[1]);
	fputs("\n[", f[2]);
	putc('\n', f[0]);
	putc('\n', f[1]);
}

/* One instance (row v) in the three files. */
static void
write_instance(FILE **f, const struct insts *x, char *const *v, int first,
    struct lp_sb *md)
{
	size_t i;

	fprintf(f[2], "%s\n  {", first ? "" : ",");
	lp_sb_reset(md);
	lp_sb_adds(md, "|");
	for (i = 0; i < x->nc; i++) {
		if (i)
			putc(',', f[0]);
		lp_csv_put(f[0], v[i], 1);
		lp_sb_addc(md, ' ');
		lp_md_cell(md, x->kind[i], v[i], "");
		lp_sb_adds(md, " |");
		fprintf(f[2], "%s", i ? ", " : "");
		lp_json_str(f[2], x->t->hdr.names[i]);
		fputs(": ", f[2]);
		/* a number only in a column of numbers: a region named "007"
		 * stays a string */
		lp_json_val(f[2], v[i], x->show[i]);
	}
	putc('\n', f[0]);
	fprintf(f[1], "%s\n", lp_sb_str(md));
	putc('}', f[2]);
}

/* The region's instances in its CSV, Markdown and JSON files; returns how
 * many there are. */
static size_t
write_region(FILE **f, const struct insts *x, const char *region)
{
	struct lp_sb md = { 0 };
	size_t k, cnt = 0;

	write_heads(f, x, region, &md);
	for (k = 0; k < x->n; k++) {
		char *const *v = &x->rows[k * x->nc];

		if (strcmp(leaf_of(v[x->cp]), region))
			continue;
		write_instance(f, x, v, !cnt++, &md);
	}
	lp_sb_free(&md);
	fputs("\n]\n", f[2]);
	return cnt;
}

/* Region j's files, under a name no earlier region took, and its row. */
static void
split_region(struct lp_row *r, const struct insts *x, size_t j, char **files,
    const char *dir, const char *prefix)
{
	static const char *const ext[3] = { "csv", "md", "json" };
	char *tmp[3], *final[3];
	FILE *f[3];
	size_t i, cnt;

	files[j] = file_name(x->regions[j], files, j);
	for (i = 0; i < 3; i++)
		f[i] = create(dir, files[j], ext[i], &tmp[i], &final[i]);
	cnt = write_region(f, x, x->regions[j]);
	lp_row_text(r, x->regions[j]);
	lp_row_num(r, (double)cnt, 0);
	for (i = 0; i < 3; i++) {
		const char *b = strrchr(final[i], '/');
		struct lp_sb shown = { 0 };

		lp_sb_printf(&shown, "%s%s", prefix, b ? b + 1 : final[i]);
		lp_row_text(r, lp_sb_str(&shown));
		lp_sb_free(&shown);
		finish(f[i], tmp[i], final[i]);
	}
	lp_row_end(r, out);
}

static void
free_instances(struct insts *x)
{
	size_t i;

	for (i = 0; i < x->n * x->nc; i++)
		free(x->rows[i]);
	free(x->rows);
	for (i = 0; i < x->nreg; i++)
		free(x->regions[i]);
	free(x->regions);
	for (i = 0; i < x->nc; i++) {
		free(x->kind[i]);
		free(x->label[i]);
	}
	free(x->kind);
	free(x->label);
	free(x->show);
}

int
main(int argc, char **argv)
{
	const char *dir = NULL, *prefix = "", *name;
	struct lp_tsv t;
	struct lp_row r = { 0 };
	struct insts x;
	char **files;
	size_t j;
	int c;
	FILE *fp;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "d:p:", synopsis)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'p': prefix = optarg; break;
		}
	}
	if (!dir || argc - optind > 1)
		lp_usage(synopsis);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_tsv_open(&t, fp, name);
	load_instances(&t, name, &x);

	lp_tab_meta(out, "title", "Region Files");
	lp_tab_meta(out, "tool", "lp-regsplit");
	lp_tab_meta(out, "source", "each region's rows of %s", name);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	files = lp_xcalloc(x.nreg + 1, sizeof *files);
	numeric_columns(&x);
	for (j = 0; j < x.nreg; j++)
		split_region(&r, &x, j, files, dir, prefix);

	for (j = 0; j < x.nreg; j++)
		free(files[j]);
	free(files);
	free_instances(&x);
	lp_sb_free(&r.b);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_tab_done(out);
	return 0;
}
