/*
 * lp-ncucmd: the exact ncu command for a run, from its resolved config and
 * the top-N selection: "ncu" around the workload, profiling only the
 * selected kernels inside the run's NVTX stage (default); the CSV export of
 * a report (-x); or, for error messages, the filters in words (-d).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-ncucmd [-0R] [-a metrics.avail] [-d | -n | -x] [-I injected.tsv] [-K procs.tsv] "
    "[-k topn.tsv] [-o base] "
    "[-p key] [-- workload-or-report...]";

/* The config key the settings are under: ncu_cli, or ncu_regions. */
static const char *pfx = "ncu_cli";
static const char *inj;	/* -I: injected.tsv, for target_processes auto */
static const char *kprocs;	/* -K: procs.tsv, the same */
/* Why the metrics are not what the preset says, for the command file. */
static const char *note;
static const char *const bools[] = { "true", "false", NULL };
static const char *const tensors[] = { "none", "dtype", "all", NULL };

/* "ncu_cli.sub", or under the -p key, in one of a few rotating buffers. */
static const char *
K(const char *sub)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%s.%s", pfx, sub);
	return buf[i];
}

static const char *const targets[] = { "all", "application-only", "auto",
	NULL };
static const char *const replays[] = { "kernel", "application", "range",
	"app-range", NULL };
static const char *const bases[] = { "mangled", "demangled", "function", NULL };
static const char *const units[] = { "base", "auto", NULL };
/* node: a CUDA graph's kernel nodes are profiled as kernels (ncu's
 * default, said here); "": not said */
static const char *const graphs[] = { "node", "graph", "", NULL };

/* An option and its value as two words, the form ncu was seen to take. */
static void
opt(struct lp_av *av, const char *name, const char *fmt, ...)
{
	struct lp_sb b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	lp_sb_vprintf(&b, fmt, ap);
	va_end(ap);
	lp_av_push(av, name);
	lp_av_push(av, lp_sb_str(&b));
	lp_sb_free(&b);
}

struct sel {
	char **names;
	size_t n;
	size_t pairs;	/* (kernel, launch configuration) rows; 0: kernels */
	long configs;	/* "# configs:": every configuration of them, or -1 */
	long stop;	/* "# stop:": the configurations up to the last pair
			 * selected, in the order the stage first runs them;
			 * -1 without one */
};

/* lp-topn's "# configs: N" or "# stop: N" (key: "configs: ", "stop: "),
 * counts of launch configurations (lp-topn(1)), or -1 without one. */
static long
topn_count(const struct lp_tsv *t, const char *name, const char *key)
{
	size_t i, kl = strlen(key);
	char *end;
	long n;

	for (i = 0; i < t->ncomments; i++) {
		const char *c = t->comments[i];

		if (strncmp(c, key, kl))
			continue;
		n = strtol(c + kl, &end, 10);
		if (end == c + kl || *end || n < 1 || n > 1000000)
			lp_die_at(LP_EXIT_DATA, name, 0, 0, "# %s: expected a "
			    "count of launch configurations", c);
		return n;
	}
	return -1;
}

/* The kernel column of lp-topn's TSV. */
static void
read_sel(struct sel *s, const char *path)
{
	struct lp_tsv t;
	const char *name;
	FILE *fp = lp_open_in(path, &name);
	struct lp_map *seen;
	int ck, cg;

	lp_tsv_open(&t, fp, name);
	lp_tab_expect(&t, "lp-topn");
	s->configs = topn_count(&t, name, "configs: ");
	s->stop = topn_count(&t, name, "stop: ");
	ck = lp_csv_need(&t.hdr, "kernel", "lp-topn output");
	seen = lp_map_new();
	cg = lp_csv_col(&t.hdr, "grid");
	while (lp_tab_next(&t)) {
		const char *k = lp_tsv_get(&t, ck);

		if (!*k)
			lp_die_at(LP_EXIT_DATA, name, t.line, ck + 1,
			    "empty kernel name");
		if (cg >= 0)
			s->pairs++;
		if (lp_map_get(seen, k, 0))
			continue;	/* another launch configuration of it */
		lp_map_put(seen, k, 1);
		s->names = lp_xreallocarray(s->names, s->n + 1, sizeof *s->names);
		s->names[s->n++] = lp_xstrdup(k);
	}
	if (!s->n)
		lp_die_at(LP_EXIT_DATA, name, t.line, 0, "no kernels selected: "
		    "ncu would profile nothing");
	lp_map_free(seen);
	lp_tsv_close(&t);
	lp_close_in(fp);
}

/* NVTX include expressions: the preset's own, or the run's stage. */
static void
nvtx(const struct lp_ynode *cfg, const char *file, struct lp_av *out)
{
	const char **items;
	size_t n = lp_cfg_list(cfg, K("nvtx_include"), &items, file), i;

	for (i = 0; i < n; i++)
		lp_av_push(out, items[i]);
	free(items);
	if (!n) {
		const char *stage = lp_cfg_word(cfg, "run.stage", "", file);
		struct lp_stage st;
		struct lp_sb b = { 0 };

		if (!*stage)
			return;
		lp_stage_get(cfg, stage, &st, file);
		if (lp_nvtx_ncu_include(&b, &st))
			lp_die_at(LP_EXIT_DATA, file, 0, 0, "stage %s: range \"%s\" "
			    "has a '/', which ncu reads as nested ranges", stage,
			    st.range);
		lp_av_push(out, lp_sb_str(&b));
		lp_sb_free(&b);
	}
}

/* How many launches of what the preset says: launches_per_kernel,
 * launch_skip, stop_when_done (kfilter's and stop_count's one reading). */
struct counts {
	long per, skip;
	int stop;
};

static void
read_counts(const struct lp_ynode *cfg, const char *file, struct counts *c)
{
	c->per = lp_cfg_long(cfg, K("launches_per_kernel"), 1, 1, 1000, file);
	c->skip = lp_cfg_long(cfg, K("launch_skip"), 0, 0, 100000000, file);
	c->stop = !strcmp(lp_cfg_enum(cfg, K("stop_when_done"), "false", bools,
	    file), "true");
}

/* The kernel filter: exactly one launch of each selected kernel, or a
 * count that ncu applies to all of them together. */
static void
kfilter(const struct lp_ynode *cfg, const char *file, const struct sel *s,
    struct lp_av *av)
{
	struct lp_sb re = { 0 };
	struct counts c;
	size_t i;
	int colon = 0;

	read_counts(cfg, file, &c);

	opt(av, "--kernel-name-base", "%s", lp_cfg_enum(cfg,
	    K("kernel_name_base"), "mangled", bases, file));
	lp_sel_regex(&re, s->names, s->n);
	for (i = 0; i < s->n; i++)
		colon |= strchr(s->names[i], ':') != NULL;
	if (s->pairs) {
		/* launch configurations: ncu's per-launch-config filter
		 * counts each (kernel, grid, block, shared memory) apart, so
		 * every configuration of the selected kernels in the stage is
		 * profiled per times; when that is done is not known
		 * beforehand, so nothing is killed */
		opt(av, "--kernel-name", "%s", lp_sb_str(&re));
		opt(av, "--filter-mode", "%s", "per-launch-config");
		if (c.skip)
			opt(av, "--launch-skip", "%ld", c.skip);
		opt(av, "--launch-count", "%ld", c.per);
		c.stop = 0;
	} else if (c.per == 1 && c.skip == 0 && !colon) {
		/* ncu counts invocations per kernel here; the invocation
		 * number takes no regex (ncu 2025.3), so 1 is the only count
		 * that is per kernel.  ':' separates the fields of a kernel
		 * id, so demangled names with "::" cannot go this way. */
		opt(av, "--kernel-id", "::%s:1", lp_sb_str(&re));
		if (c.stop)
			opt(av, "--launch-count", "%zu", s->n);
	} else {
		opt(av, "--kernel-name", "%s", lp_sb_str(&re));
		if (c.skip)
			opt(av, "--launch-skip", "%ld", c.skip);
		opt(av, "--launch-count", "%ld", c.per * (long)s->n);
	}
	/* The rest of the workload is not needed once all are profiled. */
	if (c.stop)
		opt(av, "--kill", "%s", "yes");
	lp_sb_free(&re);
}

/* The metric names ncu --query-metrics listed for this GPU: the first
 * word of each line that names a metric ("unit__counter"). */
static struct lp_map *
read_avail(const char *path)
{
	struct lp_map *m = lp_map_new();
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;

	if (!fp)
		lp_die_sys("%s", path);
	while (getline(&line, &cap, fp) != -1) {
		size_t n = strcspn(line, " \t\r\n");

		line[n] = '\0';
		if (strstr(line, "__"))
			lp_map_put(m, line, 1);
	}
	if (ferror(fp))
		lp_die_sys("%s", path);
	free(line);
	fclose(fp);
	if (!lp_map_len(m))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "no metric names (not the "
		    "output of ncu --query-metrics)");
	return m;
}

/* Is a metric one ncu can collect here?  Its base name (up to the first
 * '.') must be listed, and range replay takes no SASS counters (ncu:
 * "not supported in range replay").  The launch attributes (launch__*)
 * are not counters: ncu --query-metrics lists none of them (H100, ncu
 * 2025.3.1), yet every kernel launch has them.  *why says why not. */
static int
usable(const char *metric, const struct lp_map *avail, int range,
    const char **why)
{
	char *b = lp_xstrndup(metric, strcspn(metric, "."));
	int ok = 1;

	if (range && (!strncmp(b, "sm__sass_", 9) || !strncmp(b, "smsp__sass_", 11))) {
		*why = "not supported in range replay";
		ok = 0;
	} else if (avail && strncmp(b, "launch__", 8) &&
	    lp_map_get(avail, b, 0) != 1) {
		*why = "not on this GPU (ncu --query-metrics)";
		ok = 0;
	}
	free(b);
	return ok;
}


/* The tensor-core counter of each precision; ncu's replay passes on an
 * H100/H200 (2025.3) beside the time: fp16 and int8 2, the others 1. */
static const char *const tc_counter[] = {
	[LP_FP_TC_FP16] = "sm__ops_path_tensor_src_fp16.sum",
	[LP_FP_TC_BF16] = "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
	[LP_FP_TC_TF32] = "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
	[LP_FP_TC_FP8] = "sm__ops_path_tensor_src_fp8.sum",
	[LP_FP_TC_INT8] = "sm__ops_path_tensor_src_int8.sum",
	[LP_FP_TC_FP64] = "sm__ops_path_tensor_src_fp64.sum",
};
/* The metrics asked for: the preset's list, then (regions) full_metrics
 * when full: true and the tensor-core counters: the model dtype's only
 * (tensor: dtype; an fp32 model's matmuls may run as TF32) or every
 * precision's (all, full: true, or no known model.dtype; *why says so). */
static size_t
wanted(const struct lp_ynode *cfg, const char *file, const char ***out,
    const char **why)
{
	const char **items, **more = NULL;
	size_t n = lp_cfg_list(cfg, K("metrics"), &items, file), nmore = 0;
	size_t m = 0, i;
	const char *tensor = lp_cfg_enum(cfg, K("tensor"), "none", tensors, file);
	int full = !strcmp(lp_cfg_enum(cfg, K("full"), "false", bools, file), "true");
	int fp = -1;
	const char **w;

	if (full && !(nmore = lp_cfg_list(cfg, K("full_metrics"), &more, file)))
		lp_die(LP_EXIT_DATA, "%s: %s is true but %s lists no metrics "
		    "(the regions preset has them)", file, K("full"),
		    K("full_metrics"));
	w = lp_xmalloc((n + nmore + 8) * sizeof *w);
	for (i = 0; i < n; i++)
		w[m++] = items[i];
	for (i = 0; i < nmore; i++)
		w[m++] = more[i];
	free(items);
	free(more);
	*why = NULL;
	if (!strcmp(tensor, "dtype") && !full) {
		fp = lp_fp_of_dtype(lp_cfg_word(cfg, "model.dtype", "", file));
		if (fp == LP_FP_FP32)
			fp = LP_FP_TC_TF32;
		else if (fp == LP_FP_FP64)
			fp = LP_FP_TC_FP64;
		if (fp < 0)
			*why = "no known model.dtype: the tensor-core counters of "
			    "every precision (MODEL= or SET=model.dtype=bf16 "
			    "takes one)";
	}
	if (fp >= 0 && fp < LP_FP_FP32)
		w[m++] = tc_counter[fp];
	else if (strcmp(tensor, "none"))
		for (i = 0; i < sizeof tc_counter / sizeof tc_counter[0]; i++)
			w[m++] = tc_counter[i];
	*out = w;
	return m;
}

/* The one process that ran the stage's kernels (lp-procs(1): a table of
 * one row), or -1. */
static long long
stage_pid(const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-procs");
	long long pid = -1;
	size_t n = 0;
	char *end;
	int c;

	lp_tab_expect(&t, "lp-procs");
	c = lp_csv_need(&t.hdr, "pid", "lp-procs output");
	while (lp_tab_next(&t)) {
		const char *v = lp_tsv_get(&t, c);

		pid = strtoll(v, &end, 10);
		if (end == v || *end)
			pid = -1;
		n++;
	}
	lp_tsv_close(&t);
	fclose(fp);
	return n == 1 ? pid : -1;
}

/* target_processes; auto: application-only where the process nsys
 * launched (injected.tsv, -I) made CUDA calls and is the one process that
 * ran the stage's kernels (procs.tsv, -K; without it, where no other
 * process made CUDA calls), else all.  ncu injected into a second process
 * (torch.compile's compile worker, a spawned engine core) makes each later
 * launch of a selected kernel wait about 0.1 s (H200, ncu 2025.3.1: a
 * compiled decode step of 2.2 s against 6 ms with application-only;
 * tests/gpu/README.md). */
static const char *
target(const struct lp_ynode *cfg, const char *file)
{
	const char *t = lp_cfg_enum(cfg, K("target_processes"), "all",
	    targets, file);
	long long launched;
	char *cu = NULL;
	enum lp_inj k;

	if (strcmp(t, "auto"))
		return t;
	if (!inj)
		return "all";
	k = lp_injected(inj, &launched, &cu);
	free(cu);
	if (k != LP_INJ_ALONE && k != LP_INJ_BESIDE)
		return "all";
	if (kprocs)
		return stage_pid(kprocs) == launched ? "application-only" : "all";
	return k == LP_INJ_ALONE ? "application-only" : "all";
}

/* ncu, the replay mode, the sections and metrics this GPU can give. */
static const char *const windows[] = { "nvtx", "cuda_profiler_api", NULL };

static void
head(const struct lp_ynode *cfg, const char *file, struct lp_av *av,
    const struct lp_map *avail, struct lp_sb *dropped)
{
	const char **items;
	const char *set, *replay;
	size_t n, i;
	struct lp_sb b = { 0 };
	long dev;
	int range;

	lp_av_push(av, "ncu");
	opt(av, "--target-processes", "%s", target(cfg, file));
	dev = lp_cfg_long(cfg, K("device"), -1, -1, 1023, file);
	if (dev >= 0)	/* one rank of a multi-GPU run: its GPU's kernels */
		opt(av, "--devices", "%ld", dev);
	/* a workload that opens its own capture window (capture.window):
	 * only the kernels between its cudaProfilerStart and Stop */
	if (!strcmp(lp_cfg_enum(cfg, "capture.window", "nvtx", windows, file),
	    "cuda_profiler_api"))
		opt(av, "--profile-from-start", "%s", "off");
	replay = lp_cfg_enum(cfg, K("replay_mode"), "kernel", replays, file);
	range = !strcmp(replay, "range") || !strcmp(replay, "app-range");
	opt(av, "--replay-mode", "%s", replay);
	set = lp_cfg_enum(cfg, K("graph_profiling"), "", graphs, file);
	if (*set)
		opt(av, "--graph-profiling", "%s", set);
	set = lp_cfg_word(cfg, K("set"), "", file);
	if (*set)
		opt(av, "--set", "%s", set);
	n = lp_cfg_list(cfg, K("sections"), &items, file);
	for (i = 0; i < n; i++)
		opt(av, "--section", "%s", items[i]);
	free(items);
	if (!strcmp(lp_cfg_enum(cfg, K("apply_rules"), "true", bools, file),
	    "false"))
		opt(av, "--apply-rules", "%s", "no");
	n = wanted(cfg, file, &items, &note);
	lp_sb_reset(dropped);
	for (i = 0; i < n; i++) {
		const char *why;

		if (usable(items[i], avail, range, &why))
			lp_sb_printf(&b, "%s%s", b.len ? "," : "", items[i]);
		else
			lp_sb_printf(dropped, "%s%s (%s)", dropped->len ? ", " :
			    "", items[i], why);
	}
	free(items);
	if (b.len)
		opt(av, "--metrics", "%s", lp_sb_str(&b));
	lp_sb_free(&b);
}

static void
profile(const struct lp_ynode *cfg, const char *file, const char *base,
    const struct sel *s, char **work, size_t nwork, struct lp_av *av,
    const struct lp_map *avail, struct lp_sb *dropped)
{
	struct lp_av inc = { 0 };
	size_t i;

	head(cfg, file, av, avail, dropped);
	nvtx(cfg, file, &inc);
	if (inc.n)
		lp_av_push(av, "--nvtx");
	for (i = 0; i < inc.n; i++)
		opt(av, "--nvtx-include", "%s", inc.w[i]);
	lp_av_free(&inc);
	kfilter(cfg, file, s, av);
	lp_av_push(av, "--force-overwrite");
	opt(av, "--export", "%s", base);
	lp_av_workload(av, cfg, K("extra_args"), work, nwork, file);
}

/* The --nvtx-include of each region at one depth. */
static void
region_includes(const struct lp_region *rg, size_t n, int depth,
    struct lp_av *out, const char *file)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct lp_stage st = { rg[i].name, rg[i].domain, rg[i].range };
		struct lp_sb b = { 0 };

		if (rg[i].depth != depth)
			continue;
		if (lp_nvtx_ncu_include(&b, &st))
			lp_die_at(LP_EXIT_DATA, file, 0, 0, "region %s: range "
			    "\"%s\" has a '/', which ncu reads as nested ranges",
			    rg[i].name, rg[i].range);
		lp_av_push(out, lp_sb_str(&b));
		lp_sb_free(&b);
	}
}

/* Metrics ncu lacks are said, not silently lost: on stderr and in the
 * command file, where the summary finds them. */
static void
say_dropped(const struct lp_sb *dropped, int nul)
{
	lp_warn("dropped metrics: %s", dropped->s);
	if (!nul)
		printf("# lp: dropped metrics: %s\n", dropped->s);
}

/* Regions: one ncu run per nesting depth, as app-range replay profiles
 * only the outermost of nested ranges; each writes BASE<depth>. */
static void
regions(const struct lp_ynode *cfg, const char *file, const char *base,
    char **work, size_t nwork, const struct lp_map *avail,
    struct lp_sb *dropped, int nul, int words)
{
	struct lp_region *rg;
	size_t n = lp_regions_get(cfg, K("regions"), &rg, file), i;
	int d, deepest = lp_regions_depth(rg, n);

	if (!n)
		lp_die_at(LP_EXIT_DATA, file, 0, 0, "no regions: no stages and no "
		    "%s", K("regions"));
	for (d = 0; d <= deepest; d++) {
		struct lp_av av = { 0 }, inc = { 0 };

		region_includes(rg, n, d, &inc, file);
		if (words) {
			printf("depth %d: NVTX include:", d);
			for (i = 0; i < inc.n; i++)
				printf(" %s", inc.w[i]);
			putchar('\n');
			lp_av_free(&inc);
			continue;
		}
		head(cfg, file, &av, avail, dropped);
		if (!d && dropped->len)
			say_dropped(dropped, nul);
		if (!d && note && !nul)
			printf("# lp: %s\n", note);
		lp_av_push(&av, "--nvtx");
		for (i = 0; i < inc.n; i++)
			opt(&av, "--nvtx-include", "%s", inc.w[i]);
		lp_av_push(&av, "--force-overwrite");
		opt(&av, "--export", "%s%d", base, d);
		lp_av_workload(&av, cfg, K("extra_args"), work, nwork, file);
		lp_av_print(stdout, &av, nul);
		lp_av_free(&av);
		lp_av_free(&inc);
	}
	lp_regions_free(rg, n);
}

static void
export(const struct lp_ynode *cfg, const char *file, char **rep, size_t nrep,
    struct lp_av *av)
{
	if (nrep != 1)
		lp_die(LP_EXIT_USAGE, "-x: give one .ncu-rep after --");
	lp_av_push(av, "ncu");
	opt(av, "--import", "%s", rep[0]);
	opt(av, "--page", "%s", "raw");
	lp_av_push(av, "--csv");
	opt(av, "--print-kernel-base", "%s", lp_cfg_enum(cfg,
	    K("kernel_name_base"), "mangled", bases, file));
	opt(av, "--print-units", "%s", lp_cfg_enum(cfg,
	    K("print_units"), "base", units, file));
}

/* -d: the NVTX ranges and kernels the command would select, in words. */
static void
describe(const struct lp_ynode *cfg, const char *file, const struct sel *s,
    const char *topn)
{
	struct lp_av inc = { 0 }, kf = { 0 };
	size_t i;

	nvtx(cfg, file, &inc);
	kfilter(cfg, file, s, &kf);
	printf("NVTX include:");
	for (i = 0; i < inc.n; i++)
		printf(" %s", inc.w[i]);
	printf("%s\nkernel filter:", inc.n ? "" : " (none)");
	for (i = 0; i < kf.n; i++)
		printf(" %s", kf.w[i]);
	printf("\nselected kernels: %zu", s->n);
	if (s->pairs)
		printf(", in %zu launch configurations (every configuration "
		    "of them in the stage is profiled)", s->pairs);
	printf(" (from %s)\n", topn);
	lp_av_free(&inc);
	lp_av_free(&kf);
}

/* The command that profiles the selected kernels. */
static void
kernels(const struct lp_ynode *cfg, const char *file, const char *base,
    const struct sel *s, char **work, size_t nwork,
    const struct lp_map *avail, int nul)
{
	struct lp_av av = { 0 };
	struct lp_sb dropped = { 0 };

	profile(cfg, file, base, s, work, nwork, &av, avail, &dropped);
	if (dropped.len)
		say_dropped(&dropped, nul);
	lp_av_print(stdout, &av, nul);
	lp_sb_free(&dropped);
	lp_av_free(&av);
}

/* -n: after how many profiled launches lp-ncustop(1) may stop the
 * workload.  The per-launch-config filter profiles each configuration of
 * the selected kernels (lp-topn's "# configs:") per times and never knows
 * it is done, so ncu cannot --kill.  One launch each and none skipped, it
 * meets them in the order the stage first runs them, and every selected
 * pair is profiled at lp-topn's "# stop:", which leaves out the
 * configurations that first run later (a compiled decode's rare shape
 * late in the stage kept ncu running the whole workload).  0 where ncu
 * stops the workload itself (--kill), where it must not (stop_when_done:
 * false) or where the count is not known. */
static void
stop_count(const struct lp_ynode *cfg, const char *file, const struct sel *s)
{
	struct counts c;
	long n = 0;

	read_counts(cfg, file, &c);
	if (c.stop && s->pairs && c.per == 1 && !c.skip && s->stop > 0)
		n = s->stop;
	else if (c.stop && s->pairs && s->configs > 0)
		n = c.per * s->configs;
	printf("%ld\n", n);
}

/* Which of the four commands, and what it needs. */
static void
check_modes(int dmode, int xmode, int rmode, const char *topn,
    const char *base)
{
	if (dmode && xmode)
		lp_die(LP_EXIT_USAGE, "-d, -n and -x do not go together");
	if (rmode && (xmode || topn))
		lp_die(LP_EXIT_USAGE, "-R (regions) takes neither -x nor -k");
	if (!xmode && !rmode && !topn)
		lp_die(LP_EXIT_USAGE, "-k topn.tsv is required");
	if (!xmode && !dmode && (!base || !*base))
		lp_die(LP_EXIT_USAGE, "-o base is required");
}

int
main(int argc, char **argv)
{
	struct lp_ynode *cfg;
	struct lp_av av = { 0 };
	struct sel s = { 0 };
	const char *base = NULL, *topn = NULL, *name = "<stdin>";
	const char *apath = NULL;
	struct lp_map *avail = NULL;
	struct lp_sb dropped = { 0 };
	char **work;
	size_t nwork;
	int c, nul = 0, dmode = 0, xmode = 0, rmode = 0, nmode = 0;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "0a:dI:K:k:no:p:Rx", synopsis)) != -1) {
		switch (c) {
		case '0': nul = 1; break;
		case 'I': inj = optarg; break;
		case 'K': kprocs = optarg; break;
		case 'p': pfx = optarg; break;
		case 'R': rmode = 1; break;
		case 'a': apath = optarg; break;
		case 'd': dmode = 1; break;
		case 'k': topn = optarg; break;
		case 'n': nmode = dmode = 1; break;
		case 'o': base = optarg; break;
		case 'x': xmode = 1; break;
		}
	}
	check_modes(dmode, xmode, rmode, topn, base);
	work = argv + optind;
	nwork = (size_t)(argc - optind);
	cfg = lp_yaml_load(stdin, name);
	if (!xmode && !rmode)
		read_sel(&s, topn);
	if (apath && !dmode && !xmode)
		avail = read_avail(apath);
	if (rmode)
		regions(cfg, name, base, work, nwork, avail, &dropped, nul, dmode);
	else if (xmode) {
		export(cfg, name, work, nwork, &av);
		lp_av_print(stdout, &av, nul);
	} else if (nmode)
		stop_count(cfg, name, &s);
	else if (dmode)
		describe(cfg, name, &s, topn);
	else
		kernels(cfg, name, base, &s, work, nwork, avail, nul);
	if (avail)
		lp_map_free(avail);
	lp_sb_free(&dropped);
	lp_av_free(&av);
	lp_argv_free(s.names, s.n);
	lp_yaml_free(cfg);
	lp_close_stdout();
	return 0;
}
