/*
 * lp-ncuregions: the region step.  Runs the ncu commands of
 * ncu/regions/profile.cmd (one a nesting depth, lp-ncucmd -R) one after
 * the other, each report written under tmp.dN and renamed dN.ncu-rep when
 * whole, beside dN.cmd (the command that made it), dN.log (what ncu said)
 * and dN.time (lp-cost); a depth whose command did not change keeps its
 * report.  Each report is exported (lp-ncucmd -x: --page raw) to dN.csv,
 * which must hold a range.  Writes the exports to -l, a line each
 * (exports.list); what it does, on standard output as make's steps do.
 * With -C and -r, imported region exports instead: a CSV copied
 * (impN.csv), an ncu report exported with the local ncu.
 *
 * Region replay is long: each "==PROF== Profiling" line of ncu is said as
 * it comes, with its depth and count.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static const char synopsis[] =
    "lp-ncuregions -c config.yaml -l exports.list -o dir "
    "[-C export.csv | -r report.ncu-rep ...] < profile.cmd";

#define PROF "==PROF== Profiling"

struct ctx {
	const char *cfg, *dir;
	FILE *list;		/* -l: the exports, a line each */
	char *ncucmd;		/* lp-ncucmd beside this tool, or on PATH */
};

/* dir/NAME, the number put in NAME ("d%ld.log"). */
static char *
at(const struct ctx *x, const char *fmt, long n)
{
	struct lp_sb b = { 0 };

	lp_sb_printf(&b, "%s/", x->dir);
	lp_sb_printf(&b, fmt, n);
	return lp_sb_steal(&b);
}

/* What lp-ncucmd ARGS prints, the config on its stdin, into b. */
static void
ncucmd(const struct ctx *x, const char *const *args, struct lp_sb *b)
{
	struct lp_av av = { 0 };
	int rc;

	lp_av_push(&av, x->ncucmd);
	for (; *args; args++)
		lp_av_push(&av, *args);
	av.w = lp_xreallocarray(av.w, av.n + 1, sizeof *av.w);
	av.w[av.n] = NULL;	/* for execvp */
	if ((rc = lp_capture(av.w, x->cfg, 2, b)))
		lp_die(LP_EXIT_DATA, "%s %s failed with exit code %d",
		    x->ncucmd, av.w[1], rc);
	if (!b->s)
		lp_sb_addc(b, '\n');	/* never NULL: read as lines */
	lp_av_free(&av);
}

/* What went wrong (its words in msg), then the depth's filters
 * (lp-ncucmd -R -d); out. */
_Noreturn static void
filters_used(const struct ctx *x, long n, const char *msg)
{
	static const char *const args[] = { "-p", "ncu_regions", "-R", "-d",
	    NULL };
	struct lp_sb b = { 0 };
	const char *s;
	long i;

	fprintf(stderr, "lp: %s. Filters used:\n", msg);
	ncucmd(x, args, &b);
	for (s = b.s, i = 0; *s && i < n; s++)
		i += *s == '\n';
	fprintf(stderr, "%.*s\n", (int)strcspn(s, "\n"), s);
	exit(1);
}

/* Is the file there with something in it ([ -s ])? */
static int
nonempty(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && sb.st_size > 0;
}

/* A line of ncu's, said when it is one of its "Profiling" lines. */
static void
progress(long depth, long k, const char *line)
{
	const char *p = line + sizeof PROF - 1;

	printf("lp: regions depth %ld, %ld profiled:", depth, k);
	for (; *p && *p != '\n'; p++)
		putchar((unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p);
	putchar('\n');
	fflush(stdout);
}

/* The "==PROF== Profiling" lines among n bytes of ncu's output, said;
 * a line's start kept in l across reads (its first LINE_KEEP bytes). */
#define LINE_KEEP 1024
static void
scan(struct lp_sb *l, const char *b, size_t n, long depth, long *k)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (b[i] != '\n') {
			if (l->len < LINE_KEEP)
				lp_sb_addc(l, b[i]);
			continue;
		}
		if (l->len && !strncmp(l->s, PROF, sizeof PROF - 1))
			progress(depth, ++*k, l->s);
		lp_sb_reset(l);
	}
}

/* sh -c cmd, its output into log, which ncu writes itself (what the
 * workload leaves running cannot hold the step); the log followed as it
 * grows, its progress said, until ncu is gone.  Its exit code. */
static int
profile_run(const char *cmd, const char *log, long depth)
{
	char *const argv[] = { "sh", "-c", (char *)cmd, NULL };
	const struct timespec nap = { 0, 100 * 1000 * 1000 };
	struct lp_sb l = { 0 };
	char buf[8192];
	ssize_t n;
	long k = 0;
	pid_t pid;
	int w, r, rc = 0, gone = 0;

	if ((w = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0666)) == -1 || (r = open(log, O_RDONLY | O_CLOEXEC)) == -1)
		lp_die_sys("%s", log);
	pid = lp_spawn(argv, "/dev/null", w, w);
	close(w);
	for (;;) {
		while ((n = read(r, buf, sizeof buf)) > 0)
			scan(&l, buf, (size_t)n, depth, &k);
		if (n < 0 && errno != EINTR)
			lp_die_sys("%s", log);
		if (gone)
			break;
		if (lp_reaped(pid, &rc))
			gone = 1;	/* what it wrote last, then out */
		else
			nanosleep(&nap, NULL);
	}
	close(r);
	lp_sb_free(&l);
	return rc;
}

/* ncu failed: its errors, what to do about range replay, out. */
_Noreturn static void
profile_failed(const char *log, long depth, int rc)
{
	char *s = lp_file_get(log), *l, *e;
	int more;

	for (l = s; l && *l; l = e + more) {
		e = l + strcspn(l, "\n");
		more = *e != '\0';
		*e = '\0';
		if (strstr(l, "==ERROR=="))
			fprintf(stderr, "%s\n", l);
		if (more)
			*e = '\n';
	}
	if (s && (strstr(s, "Unsupported API during capture") ||
	    strstr(s, "invalid capture range")))
		fprintf(stderr, "lp: ncu could not replay a region with replay "
		    "mode range (an API the range calls cannot be captured); "
		    "app-range replay can: SET=ncu_regions.replay_mode="
		    "app-range\n");
	fprintf(stderr, "lp: ncu (regions, depth %ld) failed with exit code "
	    "%d (log: %s); fix it and re-run make\n", depth, rc, log);
	exit(rc);
}

/* A file's bytes into another. */
static void
copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out;

	if (!in)
		lp_die_sys("%s", from);
	if (!(out = fopen(to, "wb")))
		lp_die_sys("%s", to);
	lp_file_copy(in, from, out, to);
	fclose(in);
	if (fclose(out) == EOF)
		lp_die_sys("%s", to);
}

static void
move(const char *from, const char *to)
{
	if (rename(from, to) == -1)
		lp_die_sys("%s -> %s", from, to);
}

/* A depth profiled, unless its report was made by this same command. */
static void
profile_depth(const struct ctx *x, long n, const char *cmd)
{
	char *rep = at(x, "d%ld.ncu-rep", n), *cpath = at(x, "d%ld.cmd", n);
	char *log = at(x, "d%ld.log", n), *tmp = at(x, "tmp.d%ld.ncu-rep", n);
	char *tpath = at(x, "d%ld.time", n);
	struct lp_sb want = { 0 }, b = { 0 };
	double t0;
	int rc;

	lp_sb_printf(&want, "%s\n", cmd);
	if (lp_step_kept(rep, cpath, want.s))
		goto done;
	if ((unlink(tmp) && errno != ENOENT) || (unlink(rep) && errno !=
	    ENOENT) || (unlink(cpath) && errno != ENOENT))
		lp_die_sys("%s: clearing depth %ld", x->dir, n);
	printf("lp: profiling regions (depth %ld) with ncu: %s\n", n,
	    cmd);
	t0 = lp_now_s();
	if ((rc = profile_run(cmd, log, n)))
		profile_failed(log, n, rc);
	if (!nonempty(tmp)) {
		lp_sb_printf(&b, "ncu profiled no region at depth %ld (no "
		    "report written)", n);
		filters_used(x, n, b.s);
	}
	/* kept for profile_cost.tsv, before the report is in place */
	lp_sb_printf(&b, "ncu regions depth %ld", n);
	lp_step_took(tpath, b.s, t0, "-");
	lp_file_put(cpath, want.s);
	move(tmp, rep);
done:
	lp_sb_free(&want);
	lp_sb_free(&b);
	free(tpath);
	free(tmp);
	free(log);
	free(cpath);
	free(rep);
}

/* An ncu report exported (lp-ncucmd -x: its argv, NUL-ended) into csv,
 * ncu's stderr into elog (NULL: standard error); else out. */
static void
export_rep(const struct ctx *x, const char *rep, const char *csv,
    const char *elog)
{
	const char *args[] = { "-p", "ncu_regions", "-x", "-0", "--", rep,
	    NULL };
	struct lp_sb b = { 0 };
	char **argv = NULL, *s;
	size_t n = 0;
	int fd, efd = 2, rc;

	ncucmd(x, args, &b);
	for (s = b.s; s < b.s + b.len && *s; s += strlen(s) + 1) {
		argv = lp_xreallocarray(argv, n + 2, sizeof *argv);
		argv[n++] = s;
	}
	if (!n)
		lp_die(LP_EXIT_DATA, "%s -x printed no command", x->ncucmd);
	argv[n] = NULL;
	if ((fd = open(csv, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0666)) == -1 || (elog && (efd = open(elog, O_WRONLY | O_CREAT |
	    O_TRUNC | O_CLOEXEC, 0666)) == -1))
		lp_die_sys("%s", fd == -1 ? csv : elog);
	rc = lp_reap(lp_spawn(argv, NULL, fd, efd));
	close(fd);
	if (efd != 2)
		close(efd);
	if (rc) {
		char *said = elog ? lp_file_get(elog) : NULL;

		fprintf(stderr, "%s", said ? said : "");
		lp_die(LP_EXIT_DATA, "ncu could not export %s (exit code %d)",
		    rep, rc);
	}
	free(argv);
	lp_sb_free(&b);
}

/* A depth's report exported to dN.csv, which must hold a range. */
static char *
export_depth(const struct ctx *x, long n)
{
	char *rep = at(x, "d%ld.ncu-rep", n), *csv = at(x, "d%ld.csv", n);
	char *tmp = at(x, "d%ld.csv.tmp", n), *elog = at(x, "d%ld.export.log",
	    n), *s;
	struct lp_sb b = { 0 };

	export_rep(x, rep, tmp, elog);
	if (!(s = lp_file_get(tmp)) || !strstr(s, "\"range\"")) {
		unlink(rep);
		unlink(tmp);
		lp_sb_printf(&b, "ncu's report of depth %ld holds no range "
		    "(the NVTX filters matched nothing)", n);
		filters_used(x, n, b.s);
	}
	move(tmp, csv);
	free(s);
	free(elog);
	free(tmp);
	free(rep);
	return csv;
}

/* profile.cmd's commands, a depth a line ('#' lines are comments). */
static void
live(const struct ctx *x)
{
	char *line = NULL, *csv;
	size_t cap = 0;
	ssize_t len;
	long n = 0;

	while ((len = getline(&line, &cap, stdin)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		profile_depth(x, n, line);
		csv = export_depth(x, n++);
		fprintf(x->list, "%s\n", csv);
		free(csv);
	}
	if (ferror(stdin))
		lp_die_sys("reading the commands");
	free(line);
}

/* Imported region exports, in the order given: a CSV (-C) copied to
 * impN.csv, an ncu report (-r) exported there with the local ncu. */
static void
import(const struct ctx *x, const char *kinds, char **files, size_t nf)
{
	size_t i;

	for (i = 0; i < nf; i++) {
		char *csv = at(x, "imp%ld.csv", (long)i);
		char *tmp = at(x, "imp%ld.csv.tmp", (long)i);

		if (kinds[i] == 'r')
			export_rep(x, files[i], tmp, NULL);
		else
			copy_file(files[i], tmp);
		move(tmp, csv);
		fprintf(x->list, "%s\n", csv);
		free(tmp);
		free(csv);
	}
}

/* lp-ncucmd beside this tool when it was run by its path, else on PATH. */
static char *
sibling(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	struct lp_sb b = { 0 };

	if (!slash)
		return lp_xstrdup("lp-ncucmd");
	lp_sb_printf(&b, "%.*s/lp-ncucmd", (int)(slash - argv0), argv0);
	return lp_sb_steal(&b);
}

int
main(int argc, char **argv)
{
	struct ctx x = { 0 };
	char **files = NULL, *kinds = NULL;
	const char *lpath = NULL;
	size_t nf = 0;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "C:c:l:o:r:", synopsis)) != -1) {
		switch (c) {
		case 'C':
		case 'r':
			files = lp_xreallocarray(files, nf + 1, sizeof *files);
			kinds = lp_xrealloc(kinds, nf + 1);
			kinds[nf] = (char)c;
			files[nf++] = optarg;
			break;
		case 'c': x.cfg = optarg; break;
		case 'l': lpath = optarg; break;
		case 'o': x.dir = optarg; break;
		}
	}
	if (!x.cfg || !x.dir || !lpath || optind != argc)
		lp_usage(synopsis);
	if ((c = open(lpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0666)) == -1 || !(x.list = fdopen(c, "w")))
		lp_die_sys("%s", lpath);
	x.ncucmd = sibling(argv[0]);
	if (nf)
		import(&x, kinds, files, nf);
	else
		live(&x);
	if (fclose(x.list) == EOF)
		lp_die_sys("%s", lpath);
	free(files);
	free(kinds);
	free(x.ncucmd);
	lp_close_stdout();
	return 0;
}
