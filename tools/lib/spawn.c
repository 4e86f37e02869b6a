/*
 * spawn.c: a command run by a tool (lp-gate, lp-ncuregions, lp-ncustop,
 * lp-ncumetrics): argv as given, no shell, its standard streams where the
 * tool says, and no other descriptor of the tool's (they are opened
 * close-on-exec).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

pid_t
lp_spawn(char *const *argv, const char *in, int out, int err)
{
	pid_t pid;
	int i = -1, o, e;

	fflush(NULL);
	if ((pid = fork()) == -1)
		lp_die_sys("fork");
	if (pid)
		return pid;
	/* out and err above 2 first: a tool started with a standard stream
	 * closed has its own files there, which the dup2s below would
	 * overwrite before they are read */
	if ((o = fcntl(out, F_DUPFD, 3)) == -1 ||
	    (e = fcntl(err, F_DUPFD, 3)) == -1 ||
	    (in && ((i = open(in, O_RDONLY)) == -1 || dup2(i, 0) == -1)) ||
	    dup2(o, 1) == -1 || dup2(e, 2) == -1)
		_exit(126);
	if (in && i > 2)
		close(i);
	close(o);
	close(e);
	execvp(argv[0], argv);
	lp_warn("%s: %s", argv[0], strerror(errno));
	_exit(127);
}

void
lp_pipe(int p[2])
{
	if (pipe(p) == -1 || fcntl(p[0], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(p[1], F_SETFD, FD_CLOEXEC) == -1)
		lp_die_sys("pipe");
}

static int
code(int st)
{
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

int
lp_reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			lp_die_sys("waitpid");
	return code(st);
}

int
lp_reaped(pid_t pid, int *rc)
{
	int st;
	pid_t r;

	while ((r = waitpid(pid, &st, WNOHANG)) == -1)
		if (errno != EINTR)
			lp_die_sys("waitpid");
	if (r != pid)
		return 0;
	*rc = code(st);
	return 1;
}

int
lp_capture(char *const *argv, const char *in, int err, struct lp_sb *out)
{
	char buf[1 << 14];
	ssize_t n;
	pid_t pid;
	int p[2];

	lp_pipe(p);
	pid = lp_spawn(argv, in, p[1], err);
	close(p[1]);
	lp_sb_reset(out);
	while ((n = read(p[0], buf, sizeof buf)) != 0) {
		if (n < 0 && errno != EINTR)
			lp_die_sys("reading %s", argv[0]);
		if (n > 0)
			lp_sb_addn(out, buf, (size_t)n);
	}
	close(p[0]);
	return lp_reap(pid);
}
