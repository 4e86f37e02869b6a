/*
 * lp-gpupair: the GPU the untraced timing run takes beside the capture
 * (make UNTRACED_GPU=N): the workload's GPU (-w, its CUDA_VISIBLE_DEVICES)
 * and that one (-u), as nvidia-smi lists them, in one table.  Refused
 * unless they are two GPUs of one kind (name, memory, maximum clocks,
 * power limit) and no process computes on the second: a run on another
 * kind, or beside another job, would not time the workload as it runs.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"

static const char synopsis[] = "lp-gpupair [-t seconds] -w gpu -u gpu";

/* nvidia-smi's --query-gpu fields: [0] the index, [1] the UUID, the rest
 * what makes two GPUs one kind */
static const char *const fields[] = { "index", "uuid", "name",
	"memory.total", "clocks.max.sm", "clocks.max.memory", "power.limit" };
#define NF (sizeof fields / sizeof fields[0])

static const struct lp_col cols[] = {
	{ "run", "Run", "text" }, { "index", "GPU", "text" },
	{ "uuid", "UUID", "code" }, { "name", "Name", "text" },
	{ "memory_mib", "Memory (MiB)", "text" },
	{ "sm_clock_max_mhz", "Max SM clock (MHz)", "text" },
	{ "mem_clock_max_mhz", "Max memory clock (MHz)", "text" },
	{ "power_limit_w", "Power limit (W)", "text" },
	{ "processes", "Processes", "int" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

struct gpu {
	char *f[NF];
	long procs;		/* compute processes on it */
};

struct smi {
	const char *what;	/* the query, for messages */
	const char *const *names;	/* its fields */
	int col[NF], have;	/* the header's columns of them */
	size_t nf;
	struct gpu *g;
	size_t n, cap;
};

/* s without the blanks around it, in place. */
static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		;
	*e = '\0';
	return s;
}

static int
on_rec(const struct lp_csv_rec *r, void *ctx)
{
	struct smi *s = ctx;
	struct gpu *g;
	size_t i;

	if (!s->have) {	/* "index, uuid, memory.total [MiB], ..." */
		struct lp_csv_hdr h;

		for (i = 0; i < r->n; i++) {
			char *t = trim(r->f[i]);

			memmove(r->f[i], t, strlen(t) + 1);
		}
		lp_csv_hdr_init(&h, r, s->what);
		for (i = 0; i < s->nf; i++)
			if ((s->col[i] = lp_csv_col_prefix(&h, s->names[i])) < 0)
				lp_die_at(LP_EXIT_DATA, s->what, r->line, 0, "no "
				    "column \"%s\"", s->names[i]);
		lp_csv_hdr_free(&h);
		s->have = 1;
		return 0;
	}
	s->g = lp_grow(s->g, s->n, &s->cap, 4, sizeof *s->g);
	g = &s->g[s->n++];
	memset(g, 0, sizeof *g);
	for (i = 0; i < s->nf; i++) {
		char *v = lp_xstrdup(lp_csv_field(r, s->col[i]));

		g->f[i] = lp_xstrdup(trim(v));
		free(v);
	}
	return 0;
}

/* nvidia-smi with query q, read as CSV into s: its nf fields names; it is
 * stopped after limit_s seconds. */
static void
smi(struct smi *s, const char *q, const char *const *names, size_t nf,
    long limit_s)
{
	char *argv[] = { "nvidia-smi", (char *)q, "--format=csv,nounits",
		NULL };
	struct lp_sb out = { 0 };
	FILE *m;
	int rc;

	s->what = q;
	s->names = names;
	s->nf = nf;
	if ((rc = lp_capture_within(argv, 2, (double)limit_s, &out)) == -1)
		lp_die(LP_EXIT_DATA, "nvidia-smi %s gave no answer within %ld "
		    "s (a wedged driver?): stopped; lp cannot tell the two GPUs "
		    "apart (UNTRACED_GPU= runs the untraced run after the "
		    "capture, on the workload's GPU)", q, limit_s);
	if (rc)
		lp_die(LP_EXIT_DATA, "nvidia-smi %s failed (exit %d): lp cannot "
		    "tell the two GPUs apart (UNTRACED_GPU= runs the untraced "
		    "run after the capture, on the workload's GPU)", q, rc);
	if (!(m = fmemopen(out.s ? out.s : "", out.len, "r")))
		lp_die_sys("fmemopen");
	lp_csv_read(m, q, on_rec, NULL, s);
	fclose(m);
	lp_sb_free(&out);
}

/* The GPU named by CUDA_VISIBLE_DEVICES's one entry v (an index or a
 * UUID), or NULL. */
static struct gpu *
find(struct smi *s, const char *v)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->g[i].f[0], v) || !strcmp(s->g[i].f[1], v))
			return &s->g[i];
	return NULL;
}

/* The two GPUs, refused unless of one kind and the second idle. */
static void
check(const struct gpu *w, const struct gpu *u, const char *wv)
{
	size_t i;

	if (w == u)
		lp_die(LP_EXIT_DATA, "UNTRACED_GPU=%s is the workload's GPU "
		    "(CUDA_VISIBLE_DEVICES=%s): give another, idle GPU of the same "
		    "kind, or UNTRACED_GPU= to time the workload after the "
		    "capture", u->f[0], wv);
	for (i = 2; i < NF; i++)
		if (strcmp(w->f[i], u->f[i]))
			lp_die(LP_EXIT_DATA, "GPU %s is not of the workload's "
			    "kind: its %s is %s, GPU %s's %s (nvidia-smi); an "
			    "untraced run there would not time the workload as it "
			    "runs: give a GPU of the same kind, or UNTRACED_GPU=",
			    u->f[0], fields[i], u->f[i], w->f[0], w->f[i]);
	if (u->procs)
		lp_die(LP_EXIT_DATA, "GPU %s runs %ld other process%s "
		    "(nvidia-smi --query-compute-apps): an untraced run beside "
		    "them would time them too; give an idle GPU, or UNTRACED_GPU=",
		    u->f[0], u->procs, u->procs == 1 ? "" : "es");
}

static void
emit(FILE *out, const struct gpu *w, const struct gpu *u)
{
	struct lp_row r = { { 0 }, 0 };
	const struct gpu *g[2] = { w, u };
	size_t i, k;

	lp_tab_meta(out, "title", "The untraced run's GPU");
	lp_tab_meta(out, "tool", "lp-gpupair");
	lp_tab_meta(out, "source", "nvidia-smi --query-gpu=index,uuid,name,"
	    "memory.total,clocks.max.sm,clocks.max.memory,power.limit and "
	    "--query-compute-apps=gpu_uuid (before the two runs)");
	lp_tab_meta(out, "note", "The untraced timing run ran on GPU %s beside "
	    "the capture on GPU %s (UNTRACED_GPU): two GPUs of one kind, no "
	    "process on the second when lp looked.", u->f[0], w->f[0]);
	lp_tab_header(out, cols, NCOLS);
	for (k = 0; k < 2; k++) {
		lp_row_text(&r, k ? "untraced timing run" : "capture (workload)");
		for (i = 0; i < NF; i++)
			lp_row_text(&r, g[k]->f[i]);
		lp_row_num(&r, (double)g[k]->procs, 0);
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
}

/* nvidia-smi's GPUs and compute processes (static: reachable where a
 * check dies) */
static struct smi gs, as;

int
main(int argc, char **argv)
{
	static const char *const apps[] = { "gpu_uuid" };
	const char *wv = NULL, *uv = NULL;
	struct gpu *w, *u;
	long limit_s = LP_PROBE_S;
	FILE *out;
	size_t i;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "t:u:w:", synopsis)) != -1)
		switch (c) {
		case 't': limit_s = lp_strtonum(optarg, 1, 3600, "-t"); break;
		case 'u': uv = optarg; break;
		case 'w': wv = optarg; break;
		}
	if (!wv || !uv || optind != argc)
		lp_usage(synopsis);
	if (!*wv || strchr(wv, ','))
		lp_die(LP_EXIT_DATA, "UNTRACED_GPU=%s needs the workload on one "
		    "GPU named by CUDA_VISIBLE_DEVICES (it is \"%s\"): lp cannot "
		    "tell which GPUs the workload takes otherwise", uv, wv);
	smi(&gs, "--query-gpu=index,uuid,name,memory.total,clocks.max.sm,"
	    "clocks.max.memory,power.limit", fields, NF, limit_s);
	if (!(w = find(&gs, wv)))
		lp_die(LP_EXIT_DATA, "CUDA_VISIBLE_DEVICES=%s: nvidia-smi lists "
		    "no such GPU", wv);
	if (!(u = find(&gs, uv)))
		lp_die(LP_EXIT_DATA, "UNTRACED_GPU=%s: nvidia-smi lists no such "
		    "GPU", uv);
	smi(&as, "--query-compute-apps=gpu_uuid", apps, 1, limit_s);
	for (i = 0; i < as.n; i++)
		for (c = 0; c < (int)gs.n; c++)
			gs.g[c].procs += !strcmp(as.g[i].f[0], gs.g[c].f[1]);
	check(w, u, wv);
	out = lp_tab_out();
	emit(out, w, u);
	lp_tab_done(out);
	return 0;
}
