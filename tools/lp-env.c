/*
 * lp-env: env.json, the provenance of a run: GPUs, driver and CUDA (from
 * nvidia-smi), nsys and ncu versions, host, time, lp's revision and what was
 * profiled.  A missing tool is recorded with where it was looked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"

extern char **environ;

static const char synopsis[] =
    "lp-env [-r revision] [-t seconds] [inputs.yaml]";

/* env.json goes to memory and reaches stdout whole (lp_tab_out), or not
 * at all: a probe's bad output found half-way leaves no half a file */
static FILE *jo;

/* how long one probe (nvidia-smi, nsys, ncu) may take: a wedged driver
 * makes nvidia-smi hang for minutes */
static long limit_s = 30;

static struct lp_sb notes;

static void
note(const char *fmt, const char *a, const char *b)
{
	if (notes.len)
		lp_sb_addc(&notes, '\x1f');
	lp_sb_printf(&notes, fmt, a, b);
}

/* The program's path, looked up in PATH as the shell would; NULL if
 * absent.  Caller frees. */
static char *
find_in_path(const char *name, const char *path)
{
	const char *p = path;

	while (p && *p) {
		size_t n = strcspn(p, ":");
		struct lp_sb b = { 0 };

		lp_sb_printf(&b, "%.*s/%s", (int)n, n ? p : ".", name);
		if (access(lp_sb_str(&b), X_OK) == 0)
			return lp_sb_steal(&b);
		lp_sb_free(&b);
		p += n + (p[n] == ':');
	}
	return NULL;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs argv (no shell) and returns its stdout; NULL if it could not run,
 * failed or took more than limit_s seconds (then it is killed with its
 * process group), with a note saying why. */
static char *
run(char *const *argv)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	struct lp_sb out = { 0 };
	int pfd[2], st, done = 0, eof = 0;
	pid_t pid;
	char buf[4096], *exe, lim[32];
	ssize_t n;
	const char *path = getenv("PATH");
	double end;

	if (!(exe = find_in_path(argv[0], path))) {
		note("%s not found on PATH (%s)", argv[0], path ? path : "");
		return NULL;
	}
	if (pipe(pfd))
		lp_die_sys("pipe");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* its own process group: what it starts is stopped with it */
	posix_spawnattr_init(&sa);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&sa, 0);
	errno = posix_spawn(&pid, exe, &fa, &sa, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&sa);
	close(pfd[1]);
	if (errno) {
		close(pfd[0]);
		note("%s: %s", exe, strerror(errno));
		free(exe);
		return NULL;
	}
	free(exe);
	end = now_s() + (double)limit_s;
	while (!done) {
		double left = end - now_s();
		struct pollfd pf = { pfd[0], POLLIN, 0 };

		if (left <= 0)
			break;
		if (eof) {
			/* output closed: wait for the exit, in steps */
			pid_t w = waitpid(pid, &st, WNOHANG);

			if (w == -1)
				lp_die_sys("waitpid");
			if (w == pid)
				done = 1;
			else
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
		n = read(pfd[0], buf, sizeof buf);
		if (n > 0)
			lp_sb_addn(&out, buf, (size_t)n);
		else if (n == 0)
			eof = 1;
		else if (errno != EINTR)
			lp_die_sys("read");
	}
	close(pfd[0]);
	if (!done) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		if (waitpid(pid, &st, 0) == -1)
			lp_die_sys("waitpid");
		snprintf(lim, sizeof lim, "%ld", limit_s);
		note("%s gave no answer within %s s (lp-env -t): stopped",
		    argv[0], lim);
		lp_sb_free(&out);
		return NULL;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !out.len) {
		note("%s %s failed", argv[0], argv[1] ? argv[1] : "");
		lp_sb_free(&out);
		return NULL;
	}
	return lp_sb_steal(&out);
}

/* The last line of s that contains key, trimmed; NULL if none. */
static char *
line_with(const char *s, const char *key)
{
	char *best = NULL;
	const char *p;

	for (p = s; *p; ) {
		size_t len = strcspn(p, "\n");
		char *l = lp_xstrndup(p, len);

		if (strstr(l, key)) {
			free(best);
			best = l;
		} else
			free(l);
		p += len + (p[len] == '\n');
	}
	if (best) {
		size_t n = strlen(best), k = strspn(best, " ");

		while (n > k && (best[n - 1] == ' ' || best[n - 1] == '\r'))
			best[--n] = '\0';
		memmove(best, best + k, n - k + 1);
	}
	return best;
}

static void
jkey(const char *k, int first)
{
	fprintf(jo, "%s\n  ", first ? "" : ",");
	lp_json_str(jo, k);
	fputs(": ", jo);
}

static void
jstr_or_null(const char *s)
{
	if (s)
		lp_json_str(jo, s);
	else
		fputs("null", jo);
}

struct gpu_ctx {
	int first;
};

static int
gpu_row(const struct lp_csv_rec *r, void *ctx)
{
	struct gpu_ctx *g = ctx;
	static const char *const keys[] = { "index", "name", "uuid", "driver" };
	size_t i;

	if (r->n < 4)
		return 0;
	fprintf(jo, "%s\n    {", g->first ? "" : ",");
	for (i = 0; i < 4; i++) {
		const char *v = r->f[i];

		while (*v == ' ')
			v++;
		fprintf(jo, "%s", i ? ", " : "");
		lp_json_str(jo, keys[i]);
		fputs(": ", jo);
		lp_json_str(jo, v);
	}
	putc('}', jo);
	g->first = 0;
	return 0;
}

static void
seq(const struct lp_ynode *n)
{
	size_t i;

	if (!n || n->type != LP_Y_SEQ) {
		fputs("null", jo);
		return;
	}
	putc('[', jo);
	for (i = 0; i < n->n; i++) {
		if (i)
			fputs(", ", jo);
		jstr_or_null(n->v[i]->type == LP_Y_SCALAR ? n->v[i]->s : NULL);
	}
	putc(']', jo);
}

int
main(int argc, char **argv)
{
	const char *rev = NULL, *name;
	struct lp_ynode *in;
	const struct lp_ynode *imports;
	char host[256], when[64], *out, *v;
	time_t now = time(NULL);
	FILE *fp;
	int c, live;

	lp_init(argv[0]);
	jo = lp_tab_out();
	while ((c = getopt(argc, argv, "hr:t:")) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'r': rev = optarg; break;
		case 't': limit_s = lp_strtonum(optarg, 1, 3600, "-t"); break;
		default: lp_usage(synopsis);
		}
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	in = lp_yaml_load(fp, name);
	lp_close_in(fp);
	imports = lp_yaml_get(in, "imports");
	live = imports == NULL;
	if (gethostname(host, sizeof host))
		lp_die_sys("gethostname");
	host[sizeof host - 1] = '\0';
	/* reproducible runs (tests, archives) fix the clock, as builds do */
	if ((v = getenv("SOURCE_DATE_EPOCH")) && *v)
		now = (time_t)lp_strtonum(v, 0, 253402300799L, "SOURCE_DATE_EPOCH");
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));

	putc('{', jo);
	jkey("lp_revision", 1);
	jstr_or_null(rev && *rev ? rev : NULL);
	jkey("created_utc", 0);
	lp_json_str(jo, when);
	jkey("host", 0);
	lp_json_str(jo, host);
	jkey("mode", 0);
	lp_json_str(jo, live ? "live" : "import");
	jkey("workload_argv", 0);
	seq(lp_yaml_get(in, "workload.argv"));
	jkey("imports", 0);
	seq(imports);
	jkey("model", 0);
	jstr_or_null(lp_yaml_str(in, "model.name", NULL));
	if (live) {
		char *smi_q[] = { "nvidia-smi", "--query-gpu=index,name,uuid,"
		    "driver_version", "--format=csv,noheader", NULL };
		char *smi[] = { "nvidia-smi", NULL };
		char *nsys[] = { "nsys", "--version", NULL };
		char *ncu[] = { "ncu", "--version", NULL };

		jkey("gpus", 0);
		putc('[', jo);
		if ((out = run(smi_q))) {
			struct gpu_ctx g = { 1 };
			FILE *m = fmemopen(out, strlen(out), "r");

			if (!m)
				lp_die_sys("fmemopen");
			lp_csv_read(m, "nvidia-smi", gpu_row, NULL, &g);
			fclose(m);
			free(out);
		}
		fputs("\n  ]", jo);
		v = NULL;
		if ((out = run(smi))) {
			char *l = line_with(out, "CUDA Version:");

			if (l) {
				char *p = strstr(l, "CUDA Version:") + 13;

				p += strspn(p, " ");
				v = lp_xstrndup(p, strcspn(p, " |"));
				free(l);
			}
			free(out);
		}
		jkey("cuda_driver_api", 0);
		jstr_or_null(v);
		free(v);
		v = NULL;
		if ((out = run(nsys))) {
			v = line_with(out, "ersion");
			free(out);
		}
		jkey("nsys_version", 0);
		jstr_or_null(v);
		free(v);
		v = NULL;
		if ((out = run(ncu))) {
			v = line_with(out, "Version");
			free(out);
		}
		jkey("ncu_version", 0);
		jstr_or_null(v);
		free(v);
	} else {
		note("imported exports: profiled elsewhere, so this machine's "
		    "GPU and tools%s%s are not recorded", "", "");
	}
	jkey("notes", 0);
	putc('[', jo);
	for (const char *p = lp_sb_str(&notes); *p; ) {
		size_t n = strcspn(p, "\x1f");
		char *s = lp_xstrndup(p, n);

		if (p != lp_sb_str(&notes))
			fputs(", ", jo);
		lp_json_str(jo, s);
		free(s);
		p += n + (p[n] == '\x1f');
	}
	fputs("]\n}\n", jo);
	lp_sb_free(&notes);
	lp_yaml_free(in);
	lp_tab_done(jo);
	return 0;
}
