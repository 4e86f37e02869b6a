/*
 * lp-env: env.json, the provenance of a run: GPUs, driver and CUDA (from
 * nvidia-smi), nsys and ncu versions, host, time, lp's revision and what was
 * profiled.  A missing tool is recorded with where it was looked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lp.h"

extern char **environ;

static const char synopsis[] = "lp-env [-r revision] [inputs.yaml]";

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

/* Runs argv (no shell) and returns its stdout; NULL if it could not run or
 * failed, with a note saying why. */
static char *
run(char *const *argv)
{
	posix_spawn_file_actions_t fa;
	struct lp_sb out = { 0 };
	int pfd[2], st;
	pid_t pid;
	char buf[4096], *exe;
	ssize_t n;
	const char *path = getenv("PATH");

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
	errno = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (errno) {
		close(pfd[0]);
		note("%s: %s", exe, strerror(errno));
		free(exe);
		return NULL;
	}
	free(exe);
	while ((n = read(pfd[0], buf, sizeof buf)) > 0)
		lp_sb_addn(&out, buf, (size_t)n);
	close(pfd[0]);
	if (waitpid(pid, &st, 0) == -1)
		lp_die_sys("waitpid");
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
	printf("%s\n  ", first ? "" : ",");
	lp_json_str(stdout, k);
	fputs(": ", stdout);
}

static void
jstr_or_null(const char *s)
{
	if (s)
		lp_json_str(stdout, s);
	else
		fputs("null", stdout);
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
	printf("%s\n    {", g->first ? "" : ",");
	for (i = 0; i < 4; i++) {
		const char *v = r->f[i];

		while (*v == ' ')
			v++;
		printf("%s", i ? ", " : "");
		lp_json_str(stdout, keys[i]);
		fputs(": ", stdout);
		lp_json_str(stdout, v);
	}
	putchar('}');
	g->first = 0;
	return 0;
}

static void
seq(const struct lp_ynode *n)
{
	size_t i;

	if (!n || n->type != LP_Y_SEQ) {
		fputs("null", stdout);
		return;
	}
	putchar('[');
	for (i = 0; i < n->n; i++) {
		if (i)
			fputs(", ", stdout);
		jstr_or_null(n->v[i]->type == LP_Y_SCALAR ? n->v[i]->s : NULL);
	}
	putchar(']');
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
	while ((c = getopt(argc, argv, "hr:")) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'r': rev = optarg; break;
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

	putchar('{');
	jkey("lp_revision", 1);
	jstr_or_null(rev && *rev ? rev : NULL);
	jkey("created_utc", 0);
	lp_json_str(stdout, when);
	jkey("host", 0);
	lp_json_str(stdout, host);
	jkey("mode", 0);
	lp_json_str(stdout, live ? "live" : "import");
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
		putchar('[');
		if ((out = run(smi_q))) {
			struct gpu_ctx g = { 1 };
			FILE *m = fmemopen(out, strlen(out), "r");

			if (!m)
				lp_die_sys("fmemopen");
			lp_csv_read(m, "nvidia-smi", gpu_row, NULL, &g);
			fclose(m);
			free(out);
		}
		fputs("\n  ]", stdout);
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
	putchar('[');
	for (const char *p = lp_sb_str(&notes); *p; ) {
		size_t n = strcspn(p, "\x1f");
		char *s = lp_xstrndup(p, n);

		if (p != lp_sb_str(&notes))
			fputs(", ", stdout);
		lp_json_str(stdout, s);
		free(s);
		p += n + (p[n] == '\x1f');
	}
	puts("]\n}");
	lp_sb_free(&notes);
	lp_yaml_free(in);
	lp_close_stdout();
	return 0;
}
