/*
 * lp-ncumetrics: the metrics this machine's ncu can collect, as ncu
 * --query-metrics lists them, for lp-ncucmd -a.  The query takes 1 to 2 s
 * and its answer depends on ncu's version and the GPUs alone, so with -c
 * it is kept in that folder, named by a hash of ncu --version and of the
 * GPUs' models and driver (nvidia-smi), and read from there the next
 * time.  Without nvidia-smi's answer nothing is kept: the query is made
 * each time.
 */
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static const char synopsis[] = "lp-ncumetrics [-c cachedir]";

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* FNV-1a, 64 bits. */
static uint64_t
fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* The GPUs' models and driver, one line a GPU, sorted, each once (the
 * same on every run of one machine), hashed into *h; 0 without
 * nvidia-smi's answer (none within LP_PROBE_S seconds: a wedged
 * driver). */
static int
gpus(uint64_t *h)
{
	static char *const argv[] = { "nvidia-smi",
		"--query-gpu=name,driver_version", "--format=csv,noheader", NULL };
	struct lp_sb out = { 0 };
	char **line = NULL, *p;
	size_t n = 0, cap = 0, i;
	int rc, null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	rc = lp_capture_within(argv, null >= 0 ? null : 2, LP_PROBE_S, &out);
	if (null >= 0)
		close(null);
	for (p = rc || !out.s ? NULL : strtok(out.s, "\n"); p;
	    p = strtok(NULL, "\n")) {
		line = lp_grow(line, n, &cap, 8, sizeof *line);
		line[n++] = p;
	}
	lp_qsort(line, n, sizeof *line, cmp_str);
	for (i = 0; i < n; i++)
		if (!i || strcmp(line[i], line[i - 1]))
			*h = fnv(fnv(*h, line[i]), "\n");
	free(line);
	lp_sb_free(&out);
	return n > 0;
}

/* The cache file in dir of this ncu (its --version) and the GPUs whose
 * hash is g (caller frees). */
static char *
cache_path(const char *dir, uint64_t g)
{
	static char *const argv[] = { "ncu", "--version", NULL };
	struct lp_sb b = { 0 }, v = { 0 };
	int rc;

	if ((rc = lp_capture(argv, NULL, 2, &v))) {
		lp_sb_free(&v);
		lp_die(rc, "ncu --version failed (exit %d)", rc);
	}
	lp_sb_printf(&b, "%s/%016llx.avail", dir,
	    (unsigned long long)fnv(g, lp_sb_str(&v)));
	lp_sb_free(&v);
	return lp_sb_steal(&b);
}

/* dir and the folders above it, as mkdir -p; a folder that cannot be
 * made only means nothing is kept. */
static void
mkdirs(const char *dir)
{
	char *d = lp_xstrdup(dir), *p;

	for (p = d + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(d, 0777) == -1 && errno != EEXIST)
				break;
			*p = '/';
		}
	(void)mkdir(d, 0777);
	free(d);
}

/* ncu --query-metrics to standard output, and into the cache file when
 * there is one: written beside it, renamed when whole; one that cannot be
 * written is only not kept. */
static void
query(const char *cpath)
{
	static char *const argv[] = { "ncu", "--query-metrics", NULL };
	struct lp_sb m = { 0 }, t = { 0 };
	FILE *cf;
	int rc;

	if ((rc = lp_capture(argv, NULL, 2, &m))) {
		fputs(lp_sb_str(&m), stdout);
		lp_sb_free(&m);
		lp_die(rc, "ncu --query-metrics failed (exit %d)", rc);
	}
	if (fwrite(m.s, 1, m.len, stdout) != m.len)
		lp_die_sys("standard output");
	if (cpath) {
		lp_sb_printf(&t, "%s.%ld", cpath, (long)getpid());
		if ((cf = fopen(t.s, "w"))) {
			int ok = fwrite(m.s, 1, m.len, cf) == m.len;

			if (fclose(cf) == EOF || !ok || rename(t.s, cpath))
				remove(t.s);
		}
	}
	lp_sb_free(&t);
	lp_sb_free(&m);
}

/* The cache file, or NULL: where query() may die, not a leak. */
static char *cpath;

int
main(int argc, char **argv)
{
	const char *dir = NULL;
	uint64_t g = 14695981039346656037u;
	FILE *fp = NULL;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "c:", synopsis)) != -1)
		if (c == 'c')
			dir = optarg;
	if (optind != argc)
		lp_usage(synopsis);
	if (dir && gpus(&g))
		cpath = cache_path(dir, g);
	if (cpath && (fp = fopen(cpath, "r")) && !lp_file_empty(cpath))
		lp_file_copy(fp, cpath, stdout, "standard output");
	else {
		if (cpath)
			mkdirs(dir);
		query(cpath);
	}
	if (fp)
		fclose(fp);
	free(cpath);
	lp_close_stdout();
	return 0;
}
