/*
 * lp-runstep: one profiling step of a run (an nsys capture or export, nsys
 * stats, ncu), as rules.mk declares it: the command run as given (no
 * shell, so a path holds any character), its output kept in a log where
 * asked, what it must have written checked, lp's words where it failed,
 * its wall time said and kept for lp-cost, and a capture's report put in
 * place under its target's name.
 */
#include <sys/stat.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static const char synopsis[] =
    "lp-runstep [-ag] [-c cmdfile] [-e text] [-k target] [-L failed-log] "
    "[-l log | -O out] [-n prog:hint] [-p text] [-T time-file -t step] "
    "[-f file | -o file [-m text]] ... -- command [arg ...]";

/* What the step must have done: a file written (-f), a file written and
 * not empty (-o); the words for it. */
struct check {
	int kind;
	const char *what, *msg;
};

struct step {
	const char *cmdfile, *fail, *keep, *failed_log, *log, *need, *say;
	const char *time_file, *name, *out;
	int app, grep;
	struct check *ck;
	size_t nck;
	char *cmd;		/* cmdfile's text */
	size_t cmdlen;		/* ... as %c says it: trailing newlines cut */
};

/* "lp: " and text to fp, %c the command file's text, %r the exit code. */
static void
say(FILE *fp, const struct step *s, const char *text, int rc)
{
	const char *p;

	fputs("lp: ", fp);
	for (p = text; *p; p++) {
		if (*p == '%' && p[1] == 'c')
			fwrite(s->cmd, 1, s->cmdlen, fp);
		else if (*p == '%' && p[1] == 'r')
			fprintf(fp, "%d", rc);
		else if (*p == '%' && p[1] == '%')
			fputc('%', fp);
		else {
			fputc(*p, fp);
			continue;
		}
		p++;
	}
	fputc('\n', fp);
	fflush(fp);
}

/* path read whole (caller frees), or the tool dies naming it. */
static char *
must_get(const char *path)
{
	char *t = lp_file_get(path);

	if (!t)
		lp_die_sys("%s", path);
	return t;
}

/* The tool the step needs on PATH ("prog:what to do without it"). */
static void
need(const char *spec)
{
	const char *hint = strchr(spec, ':'), *path = getenv("PATH");
	size_t n = hint ? (size_t)(hint - spec) : strlen(spec);
	char *found = lp_which(spec, n);

	if (found) {
		free(found);
		return;
	}
	fprintf(stderr, "lp: %.*s not found on PATH (%s): %s\n", (int)n,
	    spec, path ? path : "", hint ? hint + 1 : "");
	exit(127);
}

/* -k: a report made by the same command is kept (its time renewed). */
static void
keep_or_clear(const struct step *s)
{
	struct lp_sb path = { 0 };

	lp_sb_printf(&path, "%s.cmd", s->keep);
	if (lp_step_kept(s->keep, path.s, s->cmd) &&
	    !utimensat(AT_FDCWD, s->keep, NULL, 0)) {
		lp_sb_free(&path);
		exit(LP_EXIT_OK);
	}
	if (s->need)
		need(s->need);
	if ((unlink(s->keep) && errno != ENOENT) ||
	    (unlink(path.s) && errno != ENOENT))
		lp_die_sys("removing %s", s->keep);
	lp_sb_free(&path);
}

/* The log to stderr: whole, or (grep) its lines that say skip or error,
 * in any case, as grep -i -e skip -e error shows them. */
static void
show_log(const char *log, int grep)
{
	char *b = must_get(log), *low = lp_xstrdup(b), *line, *end;
	size_t i, n;

	for (i = 0; low[i]; i++)
		low[i] = (char)tolower((unsigned char)low[i]);
	for (line = low; *line; line += n) {
		end = strchr(line, '\n');
		n = end ? (size_t)(end - line) + 1 : strlen(line);
		if (end)
			*end = 0;
		if (!grep || strstr(line, "skip") || strstr(line, "error"))
			fwrite(b + (line - low), 1, n, stderr);
	}
	fflush(stderr);
	free(low);
	free(b);
}

/* The first check the step failed, or NULL. */
static const struct check *
failed(const struct step *s)
{
	const struct check *c;
	struct stat st;
	size_t i;

	for (i = 0; i < s->nck; i++) {
		c = &s->ck[i];
		if (stat(c->what, &st) || (c->kind == 'o' && st.st_size == 0))
			return c;
	}
	return NULL;
}

/* The command, its output to the log (-l), its standard output to a
 * file (-O), or passed on; its exit code. */
static int
run(const struct step *s, char **argv)
{
	const char *to = s->log ? s->log : s->out;
	int fd = 1, rc;
	size_t i;

	for (i = 0; i < s->nck; i++)
		if (unlink(s->ck[i].what) && errno != ENOENT)
			lp_die_sys("removing %s", s->ck[i].what);
	if (to && (fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0666)) == -1)
		lp_die_sys("%s", to);
	rc = lp_reap(lp_spawn(argv, NULL, fd, s->log ? fd : 2));
	if (to)
		close(fd);
	if (rc) {
		for (i = 0; i < s->nck; i++)
			unlink(s->ck[i].what);
		if (s->log)
			show_log(s->log, 0);
		if (s->fail)
			say(stderr, s, s->fail, rc);
	}
	return rc;
}

/* -k: the command beside the report (what the next run compares), then
 * the report under the target's name. */
static void
put_in_place(const struct step *s)
{
	struct lp_sb path = { 0 };

	lp_sb_printf(&path, "%s.cmd", s->keep);
	lp_file_put(path.s, s->cmd);
	if (rename(s->ck[0].what, s->keep))
		lp_die_sys("%s", s->keep);
	lp_sb_free(&path);
}

static void
add_check(struct step *s, int kind, const char *what)
{
	s->ck = lp_xreallocarray(s->ck, s->nck + 1, sizeof *s->ck);
	s->ck[s->nck++] = (struct check){ kind, what, NULL };
}

static void
options(struct step *s, int argc, char **argv)
{
	int c;

	while ((c = lp_getopt(argc, argv, "ac:e:f:gk:L:l:m:n:O:o:p:T:t:",
	    synopsis)) != -1) {
		switch (c) {
		case 'a': s->app = 1; break;
		case 'c': s->cmdfile = optarg; break;
		case 'e': s->fail = optarg; break;
		case 'f': case 'o': add_check(s, c, optarg); break;
		case 'g': s->grep = 1; break;
		case 'k': s->keep = optarg; break;
		case 'L': s->failed_log = optarg; break;
		case 'l': s->log = optarg; break;
		case 'm':
			if (!s->nck)
				lp_usage(synopsis);
			s->ck[s->nck - 1].msg = optarg;
			break;
		case 'n': s->need = optarg; break;
		case 'O': s->out = optarg; break;
		case 'p': s->say = optarg; break;
		case 'T': s->time_file = optarg; break;
		case 't': s->name = optarg; break;
		}
	}
	if (optind == argc || !s->time_file != !s->name || (s->log && s->out) ||
	    (s->keep && (!s->cmdfile || s->nck != 1)))
		lp_usage(synopsis);
}

int
main(int argc, char **argv)
{
	static struct step s;	/* static: what it holds is reachable at exit */
	const struct check *bad;
	double t0;
	int rc;

	lp_start(argc, argv, synopsis);
	options(&s, argc, argv);
	if (s.cmdfile) {
		s.cmd = must_get(s.cmdfile);
		for (s.cmdlen = strlen(s.cmd); s.cmdlen &&
		    s.cmd[s.cmdlen - 1] == '\n'; s.cmdlen--)
			;
	}
	if (s.keep)
		keep_or_clear(&s);
	else if (s.need)
		need(s.need);
	if (s.say)
		say(stdout, &s, s.say, 0);
	t0 = lp_now_s();
	if ((rc = run(&s, argv + optind)))
		return rc;
	if ((bad = failed(&s))) {
		if (s.log)
			show_log(s.log, s.grep);
		if (s.log && s.failed_log && rename(s.log, s.failed_log))
			lp_die_sys("%s", s.failed_log);
		if (bad->msg)
			say(stderr, &s, bad->msg, 0);
		else
			fprintf(stderr, "lp: %s: not written\n", bad->what);
		return LP_EXIT_DATA;
	}
	if (s.name)
		lp_step_took(s.time_file, s.name, t0, s.app ? "1" : "0");
	if (s.keep)
		put_in_place(&s);
	free(s.cmd);
	free(s.ck);
	return LP_EXIT_OK;
}
