/*
 * lp-ncustop: runs an ncu command, its output passed through as it comes,
 * and counts the launches ncu has profiled ("==PROF== Profiling ...
 * passes" lines); with -n N it stops the workload once N are done, by
 * SIGTERM to every process below ncu (SIGKILL 10 s later), so that ncu
 * writes its report and exits.  ncu's per-launch-config filter never knows
 * it is done, so its --kill cannot end the run there; lp knows how many
 * launch configurations the stage has (lp-ncucmd -n).  Times each
 * profiled launch from its line's start to its end: the replay.
 */
#include <errno.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "table.h"

static const char synopsis[] =
    "lp-ncustop [-n N] [-t times.tsv] -- ncu-command [arg ...]";

#define PROF "==PROF== Profiling"
#define PROF_LEN (sizeof PROF - 1)
#define GRACE 10.0	/* seconds from SIGTERM to SIGKILL */

/* A stream of the command's output, read as it comes. */
struct stream {
	int fd, out;		/* the pipe; where it goes on */
	int bol;		/* at the start of a line */
	char head[PROF_LEN];	/* the line's first bytes */
	size_t hn;
	char tail[6];		/* its last bytes: "passes" */
	int prof;		/* the line is ncu's "Profiling" */
	double t0;		/* when the line began */
};

struct st {
	long want;		/* -n: stop after this many; 0: never */
	long done;
	double replay, t_start, t_stop, t_kill;
	pid_t child;
	int stopped, killed;
};

/* /proc/PID/WHAT into buf, NUL-ended; its length, or -1 when it is gone. */
static long
proc_read(pid_t pid, const char *what, char *buf, size_t cap)
{
	char path[64];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof path, "/proc/%ld/%s", (long)pid, what);
	if (!(fp = fopen(path, "r")))
		return -1;
	n = fread(buf, 1, cap - 1, fp);
	fclose(fp);
	buf[n] = 0;
	return (long)n;
}

/* The parent of a process (0 when it is gone), and its name. */
static pid_t
parent_of(pid_t pid, char *comm, size_t cap)
{
	char buf[512], *rp;
	size_t n;
	long pp;

	if (proc_read(pid, "stat", buf, sizeof buf) < 0)
		return 0;
	/* pid (comm) state ppid ...: comm may hold blanks and ')' */
	if (!(rp = strrchr(buf, ')')) || sscanf(rp + 1, " %*c %ld", &pp) != 1)
		return 0;
	n = (size_t)(rp - (strchr(buf, '(') + 1));
	if (n >= cap)
		n = cap - 1;
	memcpy(comm, strchr(buf, '(') + 1, n);
	comm[n] = 0;
	return (pid_t)pp;
}

/* Is pid below top (a descendant, not top itself)?  Follows the parents. */
static int
below(pid_t pid, pid_t top)
{
	char comm[64];
	int hops;

	for (hops = 0; hops < 64 && pid > 1; hops++) {
		pid = parent_of(pid, comm, sizeof comm);
		if (pid == top)
			return 1;
	}
	return 0;
}

/* Is pid ncu: by its name, or its command's first or second word (a
 * script run by its interpreter: "bash .../ncu")? */
static int
is_ncu(pid_t pid, const char *comm)
{
	char buf[4096], *w, *b;
	long n;
	size_t k;

	if (!strcmp(comm, "ncu"))
		return 1;
	if ((n = proc_read(pid, "cmdline", buf, sizeof buf)) < 0)
		return 0;
	for (w = buf, k = 0; k < 2 && w < buf + n; k++, w += strlen(w) + 1) {
		b = strrchr(w, '/');
		if (!strcmp(b ? b + 1 : w, "ncu"))
			return 1;
	}
	return 0;
}

/* Signals every process below an ncu process of the command's tree. */
static int
signal_workload(pid_t child, int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t ncu[16];
	size_t nn = 0, i;
	int sent = 0;
	char comm[64];

	if (!d)
		return 0;
	while ((e = readdir(d)) && nn < 16) {
		pid_t p = (pid_t)atol(e->d_name);

		if (p > 0 && parent_of(p, comm, sizeof comm) &&
		    is_ncu(p, comm) && (p == child || below(p, child)))
			ncu[nn++] = p;
	}
	rewinddir(d);
	while ((e = readdir(d))) {
		pid_t p = (pid_t)atol(e->d_name);

		for (i = 0; p > 0 && i < nn; i++)
			if (p != ncu[i] && below(p, ncu[i])) {
				sent += kill(p, sig) == 0;
				break;
			}
	}
	closedir(d);
	return sent;
}

static void
stop(struct st *s)
{
	int n = signal_workload(s->child, SIGTERM);

	s->stopped = 1;
	s->t_stop = lp_now_s();
	fprintf(stderr, "lp-ncustop: %ld launches profiled, all that were "
	    "asked: the workload is stopped (SIGTERM to %d processes below "
	    "ncu) so that ncu writes its report now\n", s->done, n);
}

/* One line's bytes, as they come: is it ncu's, and has it ended? */
static void
scan(struct st *s, struct stream *m, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (m->bol) {
			m->bol = 0;
			m->hn = 0;
			m->prof = 0;
			m->t0 = lp_now_s();
			memset(m->tail, 0, sizeof m->tail);
		}
		if (b[i] == '\n') {
			if (m->prof && !memcmp(m->tail, "passes", 6)) {
				s->done++;
				s->replay += lp_now_s() - m->t0;
			}
			m->bol = 1;
			continue;
		}
		if (m->hn < PROF_LEN) {
			m->head[m->hn++] = b[i];
			m->prof = m->hn == PROF_LEN && !memcmp(m->head, PROF,
			    PROF_LEN);
		}
		memmove(m->tail, m->tail + 1, sizeof m->tail - 1);
		m->tail[sizeof m->tail - 1] = b[i];
	}
	if (s->want > 0 && s->done >= s->want && !s->stopped)
		stop(s);
}

static void
pass(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return;	/* a closed reader: keep counting */
		b += w;
		n -= (size_t)w;
	}
}

/* Both streams until they close, or ncu is gone and they are drained (a
 * process the workload left running may hold them open); the stop and
 * its SIGKILL on time.  ncu's exit code. */
static int
relay(struct st *s, struct stream *m)
{
	struct pollfd p[2];
	char buf[65536];
	int open = 2, i, rc = 0, gone = 0, got;

	while (open) {
		for (i = 0; i < 2; i++) {
			p[i].fd = m[i].fd;
			p[i].events = POLLIN;
		}
		if ((got = poll(p, 2, gone ? 0 : 500)) < 0 && errno != EINTR)
			lp_die_sys("poll");
		if (gone && got <= 0)
			break;
		for (i = 0; i < 2; i++) {
			ssize_t r;

			if (m[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP |
			    POLLERR)))
				continue;
			if ((r = read(m[i].fd, buf, sizeof buf)) < 0 &&
			    errno == EINTR)
				continue;
			if (r <= 0) {
				close(m[i].fd);
				m[i].fd = -1;
				open--;
				continue;
			}
			pass(m[i].out, buf, (size_t)r);
			scan(s, &m[i], buf, (size_t)r);
		}
		if (s->stopped && !s->killed && lp_now_s() - s->t_stop > GRACE) {
			s->killed = 1;
			signal_workload(s->child, SIGKILL);
		}
		if (!gone)
			gone = lp_reaped(s->child, &rc);
	}
	return gone ? rc : lp_reap(s->child);
}

static void
write_times(const char *path, const struct st *s, double wall)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		lp_die_sys("%s", path);
	lp_tab_meta(fp, "tool", "lp-ncustop");
	lp_tab_meta(fp, "source", "ncu's \"==PROF== Profiling\" lines, each "
	    "timed from its start to its end (the launch's replay)");
	fprintf(fp, "launches\treplay_s\tstopped\tstopped_at_s\twall_s\n"
	    "%ld\t%.2f\t%s\t", s->done, s->replay, s->stopped ? "yes" : "no");
	if (s->stopped)
		fprintf(fp, "%.2f\t", s->t_stop - s->t_start);
	else
		fprintf(fp, "n/a because the workload ran to its end\t");
	fprintf(fp, "%.2f\n", wall);
	if (fclose(fp) == EOF)
		lp_die_sys("%s", path);
}

int
main(int argc, char **argv)
{
	struct st s = { 0 };
	struct stream m[2];
	const char *tpath = NULL;
	int fo[2], fe[2], c, rc;
	char *end;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "n:t:", synopsis)) != -1) {
		switch (c) {
		case 'n':
			s.want = strtol(optarg, &end, 10);
			if (end == optarg || *end || s.want < 0)
				lp_die(LP_EXIT_USAGE, "-n %s: expected a count "
				    "from 0", optarg);
			break;
		case 't': tpath = optarg; break;
		}
	}
	if (optind == argc)
		lp_usage(synopsis);
	lp_pipe(fo);
	lp_pipe(fe);
	s.t_start = lp_now_s();
	s.child = lp_spawn(argv + optind, NULL, fo[1], fe[1]);
	close(fo[1]);
	close(fe[1]);
	memset(m, 0, sizeof m);
	m[0].fd = fo[0]; m[0].out = 1; m[0].bol = 1;
	m[1].fd = fe[0]; m[1].out = 2; m[1].bol = 1;
	rc = relay(&s, m);
	if (tpath)
		write_times(tpath, &s, lp_now_s() - s.t_start);
	return rc;
}
