/*
 * spawn.c: a command run by a tool (lp-gate, lp-ncuregions, lp-ncustop,
 * lp-ncumetrics): argv as given, no shell, its standard streams where the
 * tool says, and no other descriptor of the tool's (they are opened
 * close-on-exec).
 */
#include <sys/stat.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* lp_spawn's; pgrp: in a process group of its own, which can be killed
 * whole (what it starts too) */
static pid_t
spawn(char *const *argv, const char *in, int out, int err, int pgrp)
{
	pid_t pid;
	int i = -1, o, e;

	fflush(NULL);
	if ((pid = fork()) == -1)
		lp_die_sys("fork");
	if (pid)
		return pid;
	if (pgrp)
		setpgid(0, 0);
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

pid_t
lp_spawn(char *const *argv, const char *in, int out, int err)
{
	return spawn(argv, in, out, err, 0);
}

char *
lp_which(const char *name, size_t n)
{
	const char *p = getenv("PATH");
	struct lp_sb b = { 0 };
	struct stat st;

	while (p && *p) {
		size_t k = strcspn(p, ":");

		lp_sb_reset(&b);
		lp_sb_printf(&b, "%.*s/%.*s", (int)k, k ? p : ".", (int)n, name);
		if (!stat(b.s, &st) && S_ISREG(st.st_mode) && !access(b.s, X_OK))
			return lp_sb_steal(&b);
		p += k + (p[k] == ':');
	}
	lp_sb_free(&b);
	return NULL;
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

/* Reads fd into out until pid has exited (its code in *rc) or the time
 * end (lp_now_s) has come: 1 if it exited in time. */
static int
read_until_exit(pid_t pid, int fd, double end, struct lp_sb *out, int *rc)
{
	char buf[1 << 14];
	int eof = 0;

	for (;;) {
		double left = end - lp_now_s();
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t n;

		if (eof && lp_reaped(pid, rc))
			return 1;
		if (left <= 0)
			return 0;
		if (eof) {	/* output closed: wait for the exit, in steps */
			poll(NULL, 0, 10);
			continue;
		}
		if (poll(&pf, 1, left > 1 ? 1000 : (int)(left * 1000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			lp_die_sys("poll");
		}
		if (!pf.revents)
			continue;
		if ((n = read(fd, buf, sizeof buf)) > 0)
			lp_sb_addn(out, buf, (size_t)n);
		else if (n == 0)
			eof = 1;
		else if (errno != EINTR)
			lp_die_sys("read");
	}
}

int
lp_capture_within(char *const *argv, int err, double limit_s,
    struct lp_sb *out)
{
	pid_t pid;
	int p[2], rc, done;

	lp_pipe(p);
	pid = spawn(argv, NULL, p[1], err, 1);
	close(p[1]);
	lp_sb_reset(out);
	done = read_until_exit(pid, p[0], lp_now_s() + limit_s, out, &rc);
	close(p[0]);
	if (done)
		return rc;
	kill(-pid, SIGKILL);	/* (before its setpgid, only itself) */
	kill(pid, SIGKILL);
	lp_reap(pid);
	return -1;
}
