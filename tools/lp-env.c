/*
 * lp-env: env.json, the provenance of a run: GPUs, driver and CUDA (from
 * nvidia-smi), nsys and ncu versions, host, time, lp's revision and what was
 * profiled.  A missing tool is recorded with where it was looked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"

static const char synopsis[] =
    "lp-env [-r revision] [-t seconds] [inputs.yaml]";

/* env.json goes to memory and reaches stdout whole (lp_tab_out), or not
 * at all: a probe's bad output found half-way leaves no half a file */
static FILE *jo;

/* how long one probe (nvidia-smi, nsys, ncu) may take: a wedged driver
 * makes nvidia-smi hang for minutes */
static long limit_s = LP_PROBE_S;

static struct lp_sb notes;

static void
note(const char *fmt, const char *a, const char *b)
{
	if (notes.len)
		lp_sb_addc(&notes, '\x1f');
	lp_sb_printf(&notes, fmt, a, b);
}

/* Runs argv (no shell) and returns its stdout; NULL if it could not run,
 * failed or took more than limit_s seconds (then it is killed with its
 * process group), with a note saying why. */
static char *
run(char *const *argv)
{
	struct lp_sb out = { 0 };
	const char *path = getenv("PATH");
	char *exe = lp_which(argv[0], strlen(argv[0])), lim[32];
	int rc, null;

	if (!exe) {
		note("%s not found on PATH (%s)", argv[0], path ? path : "");
		return NULL;
	}
	free(exe);
	if ((null = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1)
		lp_die_sys("/dev/null");
	rc = lp_capture_within(argv, null, (double)limit_s, &out);
	close(null);
	if (rc == -1) {
		snprintf(lim, sizeof lim, "%ld", limit_s);
		note("%s gave no answer within %s s (lp-env -t): stopped",
		    argv[0], lim);
	} else if (rc || !out.len)
		note("%s %s failed", argv[0], argv[1] ? argv[1] : "");
	if (rc || !out.len) {
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

/* This machine's name, for "host". */
static void
host_name(char *host, size_t size)
{
	if (gethostname(host, size))
		lp_die_sys("gethostname");
	host[size - 1] = '\0';
}

/* The time lp-env started, in UTC as ISO 8601, for "created_utc". */
static void
utc_time(time_t now, char *when, size_t size)
{
	char *v;

	/* reproducible runs (tests, archives) fix the clock, as builds do */
	if ((v = getenv("SOURCE_DATE_EPOCH")) && *v)
		now = (time_t)lp_strtonum(v, 0, 253402300799L, "SOURCE_DATE_EPOCH");
	strftime(when, size, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

/* What is known without a probe: lp's revision, time, host and what
 * inputs.yaml says was profiled. */
static void
emit_run(const char *rev, const char *when, const char *host, int live,
    const struct lp_ynode *in)
{
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
	seq(lp_yaml_get(in, "imports"));
	jkey("model", 0);
	jstr_or_null(lp_yaml_str(in, "model.name", NULL));
}

/* "gpus": a record per GPU nvidia-smi lists. */
static void
emit_gpus(void)
{
	char *smi_q[] = { "nvidia-smi", "--query-gpu=index,name,uuid,"
	    "driver_version", "--format=csv,noheader", NULL };
	char *out;

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
}

/* The CUDA version nvidia-smi's banner gives (the driver's API); NULL if
 * none.  Caller frees. */
static char *
cuda_version(void)
{
	char *smi[] = { "nvidia-smi", NULL };
	char *out, *v = NULL;

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
	return v;
}

/* The last line of argv's output that holds key; NULL if none.  Caller
 * frees. */
static char *
probe_line(char *const *argv, const char *key)
{
	char *out, *v = NULL;

	if ((out = run(argv))) {
		v = line_with(out, key);
		free(out);
	}
	return v;
}

/* What this machine has: its GPUs, CUDA, nsys and ncu. */
static void
emit_probes(void)
{
	char *nsys[] = { "nsys", "--version", NULL };
	char *ncu[] = { "ncu", "--version", NULL };
	char *v;

	emit_gpus();
	v = cuda_version();
	jkey("cuda_driver_api", 0);
	jstr_or_null(v);
	free(v);
	v = probe_line(nsys, "ersion");
	jkey("nsys_version", 0);
	jstr_or_null(v);
	free(v);
	v = probe_line(ncu, "Version");
	jkey("ncu_version", 0);
	jstr_or_null(v);
	free(v);
}

/* "notes", the list note() gathered, and the end of the object. */
static void
emit_notes(void)
{
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
}

int
main(int argc, char **argv)
{
	const char *rev = NULL, *name;
	struct lp_ynode *in;
	char host[256], when[64];
	time_t now = time(NULL);
	FILE *fp;
	int c, live;

	lp_start(argc, argv, synopsis);
	jo = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "r:t:", synopsis)) != -1) {
		switch (c) {
		case 'r': rev = optarg; break;
		case 't': limit_s = lp_strtonum(optarg, 1, 3600, "-t"); break;
		}
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	in = lp_yaml_load(fp, name);
	lp_close_in(fp);
	live = lp_yaml_get(in, "imports") == NULL;
	host_name(host, sizeof host);
	utc_time(now, when, sizeof when);
	emit_run(rev, when, host, live, in);
	if (live)
		emit_probes();
	else
		note("imported exports: profiled elsewhere, so this machine's "
		    "GPU and tools%s%s are not recorded", "", "");
	emit_notes();
	lp_sb_free(&notes);
	lp_yaml_free(in);
	lp_tab_done(jo);
	return 0;
}
