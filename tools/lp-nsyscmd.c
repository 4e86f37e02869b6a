/*
 * lp-nsyscmd: the exact nsys command for a run, from its resolved config:
 * "nsys profile" around the workload (default), "nsys stats" over a report
 * (-s), "nsys export --type sqlite" of a report (-e), or the name nsys stats
 * gives the run's stage (-r).  -u gives the profile and the stats of the
 * untraced timing run instead: NVTX alone, the whole run.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static const char synopsis[] =
    "lp-nsyscmd [-0u] [-e | -r | -s] [-g gpu] [-o base] "
    "[-- workload-or-report...]";

static const char *const ranges[] = { "nvtx", "none", NULL };
static const char *const ends[] = { "stop", "stop-shutdown", "repeat",
	"repeat-shutdown", "none", NULL };
/* "": nsys's own default, which traces a CUDA graph whole (graph) */
static const char *const graph_traces[] = { "node", "graph", "", NULL };

static int
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* The capture window the workload opens itself (capture.window in its
 * model file): cuda_profiler_api, cudaProfilerStart to cudaProfilerStop,
 * as serving engines' profiling endpoints do; else nvtx, lp's gate. */
static const char *const windows[] = { "nvtx", "cuda_profiler_api", NULL };

/* --capture-range=cudaProfilerApi for a workload that opens its own
 * window; else --capture-range=nvtx on the run's stage, where nsys can
 * name it. */
static void
capture_range(const struct lp_ynode *cfg, const char *file, struct lp_av *av)
{
	struct lp_stage st;
	struct lp_sb b = { 0 };
	const char *stage;

	if (!strcmp(lp_cfg_enum(cfg, "capture.window", "nvtx", windows, file),
	    "cuda_profiler_api")) {
		lp_av_push(av, "--capture-range=cudaProfilerApi");
		/* stop: the workload runs on after cudaProfilerStop and
		 * keeps its exit code (stop-shutdown would kill it) */
		lp_av_pushf(av, "--capture-range-end=%s", lp_cfg_enum(cfg,
		    "nsys_cli.capture_range_end", "stop", ends, file));
		return;
	}
	if (strcmp(lp_cfg_enum(cfg, "nsys_cli.capture_range", "nvtx", ranges,
	    file), "nvtx"))
		return;
	stage = lp_cfg_word(cfg, "run.stage", "", file);
	if (!*stage)
		lp_die_at(LP_EXIT_DATA, file, 0, 0, "nsys_cli.capture_range "
		    "is nvtx but run.stage is not set");
	lp_stage_get(cfg, stage, &st, file);
	if (lp_nvtx_nsys_capture(&b, &st) == 0) {
		lp_av_push(av, "--capture-range=nvtx");
		lp_av_pushf(av, "--nvtx-capture=%s", lp_sb_str(&b));
		/* stop-shutdown, nsys's default with a capture range,
		 * kills the workload and loses its exit code */
		lp_av_pushf(av, "--capture-range-end=%s", lp_cfg_enum(cfg,
		    "nsys_cli.capture_range_end", "stop", ends, file));
	} else
		lp_warn("stage %s: nsys cannot gate a capture on range "
		    "\"%s\"%s%s (it drops '@' from capture names); "
		    "profiling the whole run, the stage is taken from "
		    "nvtx_kern_sum", stage, st.range, *st.domain ?
		    " in domain " : "", st.domain);
	lp_sb_free(&b);
}

/* --env-var=NAME=value,... from nsys_cli.env, and the untraced run's GPU
 * (-g: CUDA_VISIBLE_DEVICES) where it has one of its own. */
static void
env_vars(const struct lp_ynode *cfg, const char *file, const char *gpu,
    struct lp_av *av)
{
	const struct lp_ynode *env = lp_yaml_get(cfg, "nsys_cli.env");
	struct lp_sb b = { 0 };
	size_t i;

	if (env && env->type != LP_Y_MAP)
		lp_die_at(LP_EXIT_DATA, file, env->line, 0, "nsys_cli.env: "
		    "expected a mapping of NAME: value");
	for (i = 0; env && i < env->n; i++) {
		const struct lp_ynode *v = env->v[i];

		if (v->type != LP_Y_SCALAR || strchr(v->s, ',') ||
		    strchr(env->keys[i], '=') || strchr(env->keys[i], ','))
			lp_die_at(LP_EXIT_DATA, file, v->line, 0, "nsys_cli.env.%s: "
			    "expected a value without ','", env->keys[i]);
		if (gpu && !strcmp(env->keys[i], "CUDA_VISIBLE_DEVICES"))
			lp_die_at(LP_EXIT_DATA, file, v->line, 0, "nsys_cli.env."
			    "CUDA_VISIBLE_DEVICES and UNTRACED_GPU both name the "
			    "untraced run's GPU: give one");
		lp_sb_printf(&b, "%s%s=%s", i ? "," : "", env->keys[i], v->s);
	}
	if (gpu)
		lp_sb_printf(&b, "%sCUDA_VISIBLE_DEVICES=%s", b.len ? "," : "",
		    gpu);
	if (b.len)
		lp_av_pushf(av, "--env-var=%s", lp_sb_str(&b));
	lp_sb_free(&b);
}

/* GPU Metrics sampling: --gpu-metrics-devices and --gpu-metrics-frequency
 * from nsys_cli.gpu_metrics_devices and gpu_metrics_frequency (Hz, 0: off);
 * the flags are the keys' alone, so extra_args must not carry them. */
static void
gpu_metrics(const struct lp_ynode *cfg, const char *file, struct lp_av *av)
{
	const struct lp_ynode *x = lp_yaml_get(cfg, "nsys_cli.extra_args");
	const char **items, *dev;
	long hz;
	size_t n, i;

	n = lp_cfg_list(cfg, "nsys_cli.extra_args", &items, file);
	for (i = 0; i < n; i++)
		if (!strncmp(items[i], "--gpu-metrics", 13)) {
			free(items);
			lp_die_at(LP_EXIT_DATA, file, x ? x->line : 0, 0,
			    "nsys_cli.extra_args: GPU Metrics sampling is set by "
			    "nsys_cli.gpu_metrics_frequency (Hz, 0: off) and "
			    "gpu_metrics_devices, not by extra_args");
		}
	free(items);
	hz = lp_cfg_long(cfg, "nsys_cli.gpu_metrics_frequency", 1000, 0,
	    200000, file);
	if (!hz)
		return;
	if (hz < 10) {
		x = lp_yaml_get(cfg, "nsys_cli.gpu_metrics_frequency");
		lp_die_at(LP_EXIT_DATA, file, x ? x->line : 0, 0, "nsys_cli."
		    "gpu_metrics_frequency: nsys samples at 10 to 200000 Hz, "
		    "got %ld (0 turns sampling off)", hz);
	}
	dev = lp_cfg_word(cfg, "nsys_cli.gpu_metrics_devices", "all", file);
	if (!*dev || !strcmp(dev, "none")) {
		x = lp_yaml_get(cfg, "nsys_cli.gpu_metrics_devices");
		lp_die_at(LP_EXIT_DATA, file, x ? x->line : 0, 0, "nsys_cli."
		    "gpu_metrics_devices: name the GPUs (all, or nsys's device "
		    "indices); nsys_cli.gpu_metrics_frequency: 0 turns sampling "
		    "off");
	}
	lp_av_pushf(av, "--gpu-metrics-devices=%s", dev);
	lp_av_pushf(av, "--gpu-metrics-frequency=%ld", hz);
}

static void
profile(const struct lp_ynode *cfg, const char *file, const char *base,
    char **work, size_t nwork, struct lp_av *av)
{
	const char **items, *py;
	struct lp_sb b = { 0 };
	size_t n, i;

	lp_av_push(av, "nsys");
	lp_av_push(av, "profile");
	n = lp_cfg_list(cfg, "nsys_cli.trace", &items, file);
	for (i = 0; i < n; i++)
		lp_sb_printf(&b, "%s%s", i ? "," : "", items[i]);
	free(items);
	if (n)
		lp_av_pushf(av, "--trace=%s", lp_sb_str(&b));
	lp_sb_free(&b);
	lp_av_pushf(av, "--sample=%s", lp_cfg_word(cfg, "nsys_cli.sample",
	    "none", file));
	lp_av_pushf(av, "--cpuctxsw=%s", lp_cfg_word(cfg, "nsys_cli.cpuctxsw",
	    "none", file));
	capture_range(cfg, file, av);
	env_vars(cfg, file, NULL, av);
	/* PyTorch's own NVTX ranges (OPS=aten: autograd-shapes-nvtx) */
	py = lp_cfg_word(cfg, "nsys_cli.pytorch", "", file);
	if (*py)
		lp_av_pushf(av, "--pytorch=%s", py);
	/* node: a graph's kernels one by one, in the range open at its
	 * cudaGraphLaunch; nsys's default (graph) leaves them in none */
	py = lp_cfg_enum(cfg, "nsys_cli.cuda_graph_trace", "", graph_traces, file);
	if (*py)
		lp_av_pushf(av, "--cuda-graph-trace=%s", py);
	gpu_metrics(cfg, file, av);
	lp_av_push(av, "--force-overwrite=true");
	lp_av_pushf(av, "--output=%s", base);
	lp_av_workload(av, cfg, "nsys_cli.extra_args", work, nwork, file);
}

/* -u: the untraced timing run.  NVTX alone (the stages' push/pop, which
 * cost a graphed step about 1 % on an H100, where the CUDA trace cost it
 * 39-64 %): no CUDA trace, no graph node tracing, no GPU Metrics, no
 * PyTorch op ranges; the capture range, the environment and extra_args as
 * the capture has them, so that both runs time the same window (a
 * workload that pushes its stage twice, after a warm-up pass, has one
 * instance of it in each) and the workload runs as it needs. */
static void
untraced(const struct lp_ynode *cfg, const char *file, const char *base,
    char **work, size_t nwork, const char *gpu, struct lp_av *av)
{
	lp_av_push(av, "nsys");
	lp_av_push(av, "profile");
	lp_av_push(av, "--trace=nvtx");
	lp_av_push(av, "--sample=none");
	lp_av_push(av, "--cpuctxsw=none");
	capture_range(cfg, file, av);
	env_vars(cfg, file, gpu, av);
	lp_av_push(av, "--force-overwrite=true");
	lp_av_pushf(av, "--output=%s", base);
	lp_av_workload(av, cfg, "nsys_cli.extra_args", work, nwork, file);
}

/* The reports of -s: stats_reports, or with -u (an untraced run: its
 * instances are all it has) nvtx_pushpop_trace alone. */
static void
stats(const struct lp_ynode *cfg, const char *file, const char *base,
    char **rep, size_t nrep, int unt, struct lp_av *av)
{
	const char **items;
	size_t n, i;

	if (nrep != 1)
		lp_die(LP_EXIT_USAGE, "-s: give one .nsys-rep after --");
	if (unt) {
		items = lp_xcalloc(1, sizeof *items);
		items[0] = "nvtx_pushpop_trace";
		n = 1;
	} else
		n = lp_cfg_list(cfg, "nsys_cli.stats_reports", &items, file);
	if (!n)
		lp_die_at(LP_EXIT_DATA, file, 0, 0, "nsys_cli.stats_reports is "
		    "empty");
	lp_av_push(av, "nsys");
	lp_av_push(av, "stats");
	for (i = 0; i < n; i++) {
		lp_av_push(av, "--report");
		lp_av_push(av, items[i]);
	}
	free(items);
	lp_av_push(av, "--format");
	lp_av_push(av, "csv");
	/* a report is exported to sqlite first, again each time; an
	 * export (-e) is read as it is */
	if (!has_suffix(rep[0], ".sqlite"))
		lp_av_push(av, "--force-export=true");
	lp_av_pushf(av, "--output=%s", base);
	lp_av_push(av, rep[0]);
}

/* -e: the report's sqlite export, the one file that holds the GPU Metrics
 * samples (and what nsys stats then reads). */
static void
export(const char *out, char **rep, size_t nrep, struct lp_av *av)
{
	if (nrep != 1 || !has_suffix(rep[0], ".nsys-rep"))
		lp_die(LP_EXIT_USAGE, "-e: give one .nsys-rep after --");
	if (!has_suffix(out, ".sqlite"))
		lp_die(LP_EXIT_USAGE, "-e: -o names the export, a file ending "
		    "in .sqlite");
	lp_av_push(av, "nsys");
	lp_av_push(av, "export");
	lp_av_push(av, "--type");
	lp_av_push(av, "sqlite");
	lp_av_push(av, "--force-overwrite=true");
	lp_av_pushf(av, "--output=%s", out);
	lp_av_push(av, rep[0]);
}

/* -r: the run's stage as nsys stats names its range. */
static void
stage_name(const struct lp_ynode *cfg, const char *file)
{
	struct lp_sb b = { 0 };
	struct lp_stage st;

	lp_stage_get(cfg, lp_cfg_word(cfg, "run.stage", "", file), &st, file);
	lp_nvtx_nsys_name(&b, &st);
	puts(lp_sb_str(&b));
	lp_sb_free(&b);
}

int
main(int argc, char **argv)
{
	struct lp_ynode *cfg;
	struct lp_av av = { 0 };
	const char *base = NULL, *name, *gpu = NULL;
	int c, nul = 0, emode = 0, rmode = 0, smode = 0, umode = 0;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "0eg:o:rsu", synopsis)) != -1) {
		switch (c) {
		case '0': nul = 1; break;
		case 'e': emode = 1; break;
		case 'g': gpu = optarg; break;
		case 'o': base = optarg; break;
		case 'r': rmode = 1; break;
		case 's': smode = 1; break;
		case 'u': umode = 1; break;
		}
	}
	if (emode + rmode + smode > 1)
		lp_die(LP_EXIT_USAGE, "-e, -r and -s do not go together");
	if (umode && (emode || rmode))
		lp_die(LP_EXIT_USAGE, "-u goes with the profile or -s, not with "
		    "-%c", emode ? 'e' : 'r');
	if (gpu && (!umode || smode))
		lp_die(LP_EXIT_USAGE, "-g goes with -u's profile alone");
	if (!rmode && (!base || !*base))
		lp_die(LP_EXIT_USAGE, "-o base is required");
	name = "<stdin>";
	cfg = lp_yaml_load(stdin, name);
	if (rmode) {
		if (optind < argc)
			lp_usage(synopsis);
		stage_name(cfg, name);
	} else {
		if (emode)
			export(base, argv + optind, (size_t)(argc - optind),
			    &av);
		else if (smode)
			stats(cfg, name, base, argv + optind,
			    (size_t)(argc - optind), umode, &av);
		else if (umode)
			untraced(cfg, name, base, argv + optind,
			    (size_t)(argc - optind), gpu, &av);
		else
			profile(cfg, name, base, argv + optind,
			    (size_t)(argc - optind), &av);
		lp_av_print(stdout, &av, nul);
		lp_av_free(&av);
	}
	lp_yaml_free(cfg);
	lp_close_stdout();
	return 0;
}
