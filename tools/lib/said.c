/*
 * said.c: what a probe left behind when it could not run: an empty
 * table, and its stderr, kept beside it, as one line; and a file's bytes
 * copied on (lp_file_copy), or a small file written whole (lp_file_put)
 * or read whole (lp_file_get); a profiling step's report kept and its
 * time (lp_step_kept, lp_step_took).
 */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int
lp_file_empty(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && !sb.st_size;
}

/* What the probe said when it could not run (its stderr), one line. */
char *
lp_file_said(const char *lpath)
{
	struct lp_sb b = { 0 };
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!lpath)
		return lp_xstrdup("it wrote no table");
	if (!(fp = fopen(lpath, "r")))
		lp_die_sys("%s", lpath);
	while ((n = lp_getline(&line, &cap, fp)) > 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n)
			lp_sb_printf(&b, "%s%s", b.len ? " " : "", line);
	}
	if (ferror(fp))
		lp_die_sys("%s", lpath);
	fclose(fp);
	free(line);
	if (!b.len)
		lp_sb_adds(&b, "it wrote no table and said nothing");
	return lp_sb_steal(&b);
}

void
lp_file_copy(FILE *in, const char *iname, FILE *out, const char *oname)
{
	char buf[1 << 16];
	size_t n;

	while ((n = fread(buf, 1, sizeof buf, in)))
		if (fwrite(buf, 1, n, out) != n)
			lp_die_sys("%s", oname);
	if (ferror(in))
		lp_die_sys("%s", iname);
}

void
lp_file_put(const char *path, const char *s)
{
	struct lp_sb t = { 0 };
	FILE *fp;

	lp_sb_printf(&t, "%s.tmp", path);
	if (!(fp = fopen(t.s, "w")) || fputs(s, fp) == EOF ||
	    fclose(fp) == EOF || rename(t.s, path))
		lp_die_sys("%s", path);
	lp_sb_free(&t);
}

char *
lp_file_get(const char *path)
{
	struct lp_sb b = { 0 };
	char buf[1 << 14];
	size_t n;
	FILE *fp = fopen(path, "r");
	int bad;

	if (!fp)
		return NULL;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		lp_sb_addn(&b, buf, n);
	bad = ferror(fp);
	fclose(fp);
	if (bad) {
		lp_sb_free(&b);
		return NULL;
	}
	return lp_sb_steal(&b);
}

int
lp_step_kept(const char *report, const char *cpath, const char *cmd)
{
	char *was = access(report, F_OK) ? NULL : lp_file_get(cpath);
	int same = was && !strcmp(was, cmd);

	free(was);
	return same;
}

void
lp_step_took(const char *path, const char *step, double t0, const char *runs)
{
	struct lp_sb b = { 0 };
	double s = lp_now_s() - t0;

	lp_sb_printf(&b, "%s\t%.2f\t%s\n", step, s, runs);
	lp_file_put(path, b.s);
	printf("lp: %s took %.2f s\n", step, s);
	fflush(stdout);
	lp_sb_free(&b);
}
