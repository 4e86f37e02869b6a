/*
 * spawn.c: a command run by a tool (lp-gate, lp-ncuregions): argv as
 * given, no shell, its standard streams where the tool says.
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
	int fd;

	fflush(NULL);
	if ((pid = fork()) == -1)
		lp_die_sys("fork");
	if (!pid) {
		if ((fd = open(in ? in : "/dev/null", O_RDONLY)) == -1 ||
		    dup2(fd, 0) == -1 || (out != 1 && dup2(out, 1) == -1) ||
		    (err != 2 && dup2(err, 2) == -1))
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int
lp_reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			lp_die_sys("waitpid");
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}
