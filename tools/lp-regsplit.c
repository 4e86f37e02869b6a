/*
 * lp-regsplit: the per-region files: each region's rows of
 * region_instances.tsv as CSV, Markdown and JSON in a folder, and on
 * standard output the table that lists them (for regions.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lp.h"

static const char synopsis[] =
    "lp-regsplit -d dir [-p prefix] [region_instances.tsv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static void
csvf(FILE *fp, const char *s)
{
	putc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', fp);
		putc(*s, fp);
	}
	putc('"', fp);
}

static void
jsonv(FILE *fp, const char *s)
{
	double v;

	if (lp_num_get(s, &v))
		fputs(s, fp);
	else
		lp_json_str(fp, s);
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

int
main(int argc, char **argv)
{
	static const struct lp_col cols[] = {
		{ "region", "Region", "text" }, { "instances", "Instances", "int" },
		{ "csv", "CSV", "code" }, { "markdown", "Markdown", "code" },
		{ "json", "JSON", "code" },
	};
	const char *dir = NULL, *prefix = "", *name;
	struct lp_tsv t;
	struct lp_row r = { 0 };
	char **rows = NULL, **regions = NULL;
	size_t n = 0, nreg = 0, i, j, k, nc;
	int c, cp;
	FILE *fp;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "d:hp:")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'p': prefix = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		default: lp_usage(synopsis);
		}
	}
	if (!dir || argc - optind > 1)
		lp_usage(synopsis);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_tsv_open(&t, fp, name);
	lp_tab_expect(&t, "lp-reginst");
	cp = lp_csv_need(&t.hdr, "path", "lp-reginst output");
	nc = t.hdr.n;
	while (lp_tsv_next(&t)) {
		lp_tab_check_row(&t);
		const char *p = lp_tsv_get(&t, cp), *leaf = strrchr(p, '>');

		rows = lp_xreallocarray(rows, (n + 1) * nc, sizeof *rows);
		for (i = 0; i < nc; i++)
			rows[n * nc + i] = lp_xstrdup(lp_tsv_get(&t, (int)i));
		n++;
		leaf = leaf ? leaf + 2 : p;
		for (j = 0; j < nreg && strcmp(regions[j], leaf); j++)
			;
		if (j == nreg) {
			regions = lp_xreallocarray(regions, nreg + 1, sizeof *regions);
			regions[nreg++] = lp_xstrdup(leaf);
		}
	}
	if (!n)
		lp_die_at(LP_EXIT_DATA, name, t.line, 0, "no region instances");

	lp_tab_meta(out, "title", "Region Files");
	lp_tab_meta(out, "tool", "lp-regsplit");
	lp_tab_meta(out, "source", "each region's rows of %s", name);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (j = 0; j < nreg; j++) {
		struct lp_sb safe = { 0 };
		const char *s;
		char *tmp[3], *final[3];
		FILE *f[3];
		size_t cnt = 0;
		int first = 1;

		/* a file name of the region's: plain characters only */
		for (s = regions[j]; *s; s++)
			lp_sb_addc(&safe, (*s >= 'a' && *s <= 'z') || (*s >= 'A' &&
			    *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
			    *s == '_' || *s == '.' ? *s : '_');
		f[0] = create(dir, lp_sb_str(&safe), "csv", &tmp[0], &final[0]);
		f[1] = create(dir, lp_sb_str(&safe), "md", &tmp[1], &final[1]);
		f[2] = create(dir, lp_sb_str(&safe), "json", &tmp[2], &final[2]);
		fprintf(f[1], "# Region %s\n\nFrom %s.\n\n|", regions[j], name);
		for (i = 0; i < nc; i++) {
			if (i)
				putc(',', f[0]);
			csvf(f[0], t.hdr.names[i]);
			fprintf(f[1], " %s |", t.hdr.names[i]);
		}
		fputs("\n|", f[1]);
		for (i = 0; i < nc; i++)
			fputs("---|", f[1]);
		fputs("\n[", f[2]);
		putc('\n', f[0]);
		putc('\n', f[1]);
		for (k = 0; k < n; k++) {
			const char *p = rows[k * nc + (size_t)cp], *leaf = strrchr(p, '>');
			struct lp_sb md = { 0 };

			leaf = leaf ? leaf + 2 : p;
			if (strcmp(leaf, regions[j]))
				continue;
			cnt++;
			fprintf(f[2], "%s\n  {", first ? "" : ",");
			first = 0;
			lp_sb_adds(&md, "|");
			for (i = 0; i < nc; i++) {
				const char *v = rows[k * nc + i];

				if (i)
					putc(',', f[0]);
				csvf(f[0], v);
				lp_sb_addc(&md, ' ');
				lp_md_escape(&md, v);
				lp_sb_adds(&md, " |");
				fprintf(f[2], "%s", i ? ", " : "");
				lp_json_str(f[2], t.hdr.names[i]);
				fputs(": ", f[2]);
				jsonv(f[2], v);
			}
			putc('\n', f[0]);
			fprintf(f[1], "%s\n", lp_sb_str(&md));
			putc('}', f[2]);
			lp_sb_free(&md);
		}
		fputs("\n]\n", f[2]);
		lp_row_text(&r, regions[j]);
		lp_row_num(&r, (double)cnt, 0);
		for (i = 0; i < 3; i++) {
			const char *b = strrchr(final[i], '/');
			struct lp_sb shown = { 0 };

			lp_sb_printf(&shown, "%s%s", prefix, b ? b + 1 : final[i]);
			lp_row_text(&r, lp_sb_str(&shown));
			lp_sb_free(&shown);
			finish(f[i], tmp[i], final[i]);
		}
		lp_row_end(&r, out);
		lp_sb_free(&safe);
	}
	for (i = 0; i < n * nc; i++)
		free(rows[i]);
	free(rows);
	for (j = 0; j < nreg; j++)
		free(regions[j]);
	free(regions);
	lp_sb_free(&r.b);
	lp_tsv_close(&t);
	lp_close_in(fp);
	lp_tab_done(out);
	return 0;
}
