/* tap.h: the least TAP a C unit test needs, for prove. */
#ifndef TAP_H
#define TAP_H

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int tap_n, tap_failed;

#define ok(cond, ...) do {						\
	int ok_ = !!(cond);						\
	tap_n++;							\
	if (!ok_)							\
		tap_failed++;						\
	printf("%sok %d - ", ok_ ? "" : "not ", tap_n);			\
	printf(__VA_ARGS__);						\
	putchar('\n');							\
	if (!ok_)							\
		printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__,	\
		    #cond);						\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *g_ = (got), *w_ = (want);				\
	ok(g_ && w_ && !strcmp(g_, w_), __VA_ARGS__);			\
	if (!(g_ && w_ && !strcmp(g_, w_)))				\
		printf("#   got:  \"%s\"\n#   want: \"%s\"\n",		\
		    g_ ? g_ : "(null)", w_ ? w_ : "(null)");		\
} while (0)

/* The exit status of fn(arg) run in a child, its stderr dropped: for
 * library calls that end the program on bad input (lp_die_at); -1 if it
 * did not exit. */
static __attribute__((unused)) int
tap_exit(void (*fn)(const void *), const void *arg)
{
	pid_t pid;
	int st;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(125);
		fn(arg);
		_exit(0);
	}
	if (pid == -1 || waitpid(pid, &st, 0) == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	fflush(stdout);
	return tap_failed != 0;
}

#endif
