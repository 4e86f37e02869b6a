/* Messages, exits and checked allocation for every lp tool. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static const char *prog = "lp";

#ifdef LP_FUZZ	/* fuzztrack.c */
#define TRACK(p) lp_fuzz_track(p)
#define UNTRACK(p) lp_fuzz_untrack(p)
#else
#define TRACK(p) ((void)0)
#define UNTRACK(p) ((void)0)
#endif

/* Every way out of an lp tool on an error: exit, or in a fuzz build back
 * to the harness. */
static _Noreturn void
finish(int code)
{
#ifdef LP_FUZZ
	if (lp_fuzz_jmp)
		longjmp(*lp_fuzz_jmp, 1);
#endif
	exit(code);
}

/* LP_OUTPUT=PATH (rules.mk's LP_TO): standard output goes to PATH.tmp,
 * renamed to PATH once the tool has closed it whole (lp_close_stdout);
 * an exit before that removes it.  Read once and taken out of the
 * environment: no process the tool starts writes there too. */
static char *out_path, *out_tmp;

static void
out_drop(void)
{
	if (out_tmp)
		unlink(out_tmp);
}

static void
out_open(void)
{
	const char *p = getenv("LP_OUTPUT");
	size_t n;
	int fd;

	if (!p || !*p)
		return;
	n = strlen(p);
	out_path = lp_xstrdup(p);
	out_tmp = lp_xmalloc(n + sizeof ".tmp");
	memcpy(out_tmp, p, n);
	memcpy(out_tmp + n, ".tmp", sizeof ".tmp");
	unsetenv("LP_OUTPUT");
	/* made afresh: a file or link planted there is not written through */
	if (unlink(out_tmp) && errno != ENOENT)
		fd = -1;
	else
		fd = open(out_tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
	if (fd < 0) {
		p = out_tmp;
		out_tmp = NULL;
		lp_die_sys("%s", p);
	}
	atexit(out_drop);
	if (fd != STDOUT_FILENO && (dup2(fd, STDOUT_FILENO) < 0 || close(fd)))
		lp_die_sys("%s", out_tmp);
}

void
lp_init(const char *argv0)
{
	const char *p;

	if (argv0 && *argv0) {
		p = strrchr(argv0, '/');
		prog = p ? p + 1 : argv0;
	}
	/* A reader that went away (| head) ends us quietly, as in sh. */
	signal(SIGPIPE, SIG_DFL);
	out_open();
}

void
lp_start(int argc, char **argv, const char *synopsis)
{
	lp_init(argc > 0 ? argv[0] : NULL);
	if (argc < 2)
		return;
	if (!strcmp(argv[1], "--help")) {
		printf("usage: %s\n%s(1) has the whole manual: man %s.\n",
		    synopsis, prog, prog);
		finish(LP_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("%s (lp) %s\n", prog, LP_VERSION);
		finish(LP_EXIT_OK);
	}
}

/* A message quotes what it was given (a field, a name, a path): a control
 * character in it is written as \xNN, so that an export's line break or
 * terminal escape never reads as a line of lp's own or moves the cursor.
 * A message is one line. */
static void
put_text(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
}

static void
vmsg(const char *file, long line, long col, const char *fmt, va_list ap,
    int errnum)
{
#ifdef LP_FUZZ
	if (lp_fuzz_jmp)
		return;
#endif
	char buf[1024], *big = NULL;
	va_list aq;
	int n;

	fflush(stdout);
	fprintf(stderr, "%s: ", prog);
	if (file) {
		put_text(file, strlen(file));
		if (line > 0)
			fprintf(stderr, ":%ld", line);
		if (col > 0)
			fprintf(stderr, ":%ld", col);
		fputs(": ", stderr);
	}
	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof buf, fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof buf && (big = malloc((size_t)n + 1)))
		n = vsnprintf(big, (size_t)n + 1, fmt, ap);
	if (n >= 0)
		put_text(big ? big : buf, big || (size_t)n < sizeof buf ?
		    (size_t)n : sizeof buf - 1);
	free(big);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

void
lp_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, 0, 0, fmt, ap, 0);
	va_end(ap);
	finish(code);
}

void
lp_die_at(int code, const char *file, long line, long col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(file, line, col, fmt, ap, 0);
	va_end(ap);
	finish(code);
}

void
lp_die_sys(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	va_start(ap, fmt);
	vmsg(NULL, 0, 0, fmt, ap, e);
	va_end(ap);
	finish(LP_EXIT_USAGE);
}

void
lp_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, 0, 0, fmt, ap, 0);
	va_end(ap);
}

void
lp_warn_at(const char *file, long line, long col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(file, line, col, fmt, ap, 0);
	va_end(ap);
}

void
lp_usage(const char *synopsis)
{
	fprintf(stderr, "usage: %s\n", synopsis);
	finish(LP_EXIT_USAGE);
}

int
lp_getopt(int argc, char *const argv[], const char *opts,
    const char *synopsis)
{
	char o[128];
	int c;

	/* every tool's -h: its synopsis, as --help gives it first */
	if ((size_t)snprintf(o, sizeof o, "%sh", opts) >= sizeof o)
		lp_die(LP_EXIT_USAGE, "lp_getopt: \"%s\": too many options",
		    opts);
	c = getopt(argc, argv, o);
	if (c == 'h') {
		printf("usage: %s\n", synopsis);
		finish(LP_EXIT_OK);
	}
	if (c == '?' || c == ':')
		lp_usage(synopsis);
	return c;
}

const char *
lp_operand(int argc, char *const argv[], const char *synopsis)
{
	lp_getopt(argc, argv, "", synopsis);
	if (argc - optind != 1)
		lp_usage(synopsis);
	return argv[optind];
}

void *
lp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		lp_die_sys("malloc");
	TRACK(p);
	return p;
}

void *
lp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		lp_die_sys("calloc");
	TRACK(p);
	return p;
}

void *
lp_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		lp_die_sys("realloc");
	if (q != p || !p) {
		UNTRACK(p);
		TRACK(q);
	}
	return q;
}

void *
lp_xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		lp_die_sys("realloc");
	}
	return lp_xrealloc(p, n * size);
}

void *
lp_grow(void *p, size_t n, size_t *cap, size_t first, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : first;
	return lp_xreallocarray(p, *cap, size);
}

char *
lp_xstrdup(const char *s)
{
	return lp_xstrndup(s, strlen(s));
}

char *
lp_xstrndup(const char *s, size_t n)
{
	char *p = lp_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

long
lp_strtonum(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno == ERANGE || v < min || v > max) {
		fprintf(stderr, "%s: %s: expected a whole number from %ld to %ld, "
		    "got \"%s\"\n", prog, what, min, max, s);
		finish(LP_EXIT_USAGE);
	}
	return v;
}

double
lp_strtopct(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno == ERANGE || !(v > 0.0 && v <= 100.0)) {
		fprintf(stderr, "%s: %s: expected a percentage above 0 and at "
		    "most 100, got \"%s\"\n", prog, what, s);
		finish(LP_EXIT_USAGE);
	}
	return v;
}

double
lp_strtoratio(const char *s, const char *what)
{
	double v = lp_strtopct(s, what);

	if (v < 1)
		lp_die(LP_EXIT_USAGE, "%s: expected a ratio from 1 to 100, "
		    "got \"%s\"", what, s);
	return v;
}

void
lp_qsort(void *base, size_t n, size_t size,
    int (*cmp)(const void *, const void *))
{
	if (n > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(base, n, size, cmp);
}

ssize_t
lp_getline(char **buf, size_t *cap, FILE *fp)
{
	char *old = *buf;
	ssize_t n = getline(buf, cap, fp);

	if (*buf != old) {
		UNTRACK(old);
		TRACK(*buf);
	}
	return n;
}

FILE *
lp_open_in(const char *path, const char **name)
{
	FILE *fp;

	if (!path || !strcmp(path, "-")) {
		*name = "<stdin>";
		return stdin;
	}
	*name = path;
	if (!(fp = fopen(path, "r")))
		lp_die_sys("%s", path);
	return fp;
}

static const char *
nonregular(const struct stat *sb)
{
	if (S_ISREG(sb->st_mode))
		return NULL;
	return S_ISFIFO(sb->st_mode) ? "a FIFO" : S_ISCHR(sb->st_mode) ?
	    "a character device" : S_ISBLK(sb->st_mode) ? "a block device" :
	    S_ISDIR(sb->st_mode) ? "a folder" : S_ISSOCK(sb->st_mode) ?
	    "a socket" : "not a regular file";
}

const char *
lp_file_nonregular(const char *path, long long *size)
{
	struct stat sb;

	if (stat(path, &sb))
		lp_die_sys("%s", path);
	*size = (long long)sb.st_size;
	return nonregular(&sb);
}

const char *
lp_fd_nonregular(int fd)
{
	struct stat sb;

	if (fstat(fd, &sb))
		lp_die_sys("fstat");
	return nonregular(&sb);
}

void
lp_close_in(FILE *fp)
{
	if (fp != stdin)
		fclose(fp);
}

void
lp_close_stdout(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		lp_die_sys("<stdout>");
	if (fclose(stdout) == EOF)
		lp_die_sys("<stdout>");
	if (out_tmp) {
		if (rename(out_tmp, out_path))
			lp_die_sys("%s", out_path);
		free(out_tmp);
		out_tmp = NULL;
	}
}

double
lp_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
