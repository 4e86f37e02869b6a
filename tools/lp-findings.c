/*
 * lp-findings: findings.tsv, what to do next, ranked by the time each
 * finding could save, each with its numbers, the artifact they come from
 * and a next step specific to what was seen.  The rules are the table in
 * lp-findings(1); every input is another tool's TSV, known by its "# tool:"
 * line.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "prec.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-findings [-I] [-n N] file.tsv...";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

struct f {
	size_t order;		/* when found: ties keep the rules' order */
	const char *rule;
	double save;		/* ns; NAN: not a time */
	char *head, *evidence, *artifact, *next;
};

static struct f *fs;
static size_t nf;
static int host_split;	/* a stage's savings split by hostside.tsv */

static char *
fmt(const char *f, va_list ap)
{
	struct lp_sb b = { 0 };

	lp_sb_vprintf(&b, f, ap);
	return lp_sb_steal(&b);
}

/* add(rule, save, artifact, next, head-format, ...): the evidence is set
 * by the caller through ev(). */
static struct f *
add(const char *rule, double save, const char *artifact, const char *next,
    const char *head, ...)
{
	va_list ap;
	struct f *x;

	fs = lp_xreallocarray(fs, nf + 1, sizeof *fs);
	x = &fs[nf++];
	memset(x, 0, sizeof *x);
	x->order = nf - 1;
	x->rule = rule;
	x->save = save;
	x->artifact = lp_xstrdup(artifact);
	x->next = lp_xstrdup(next);
	va_start(ap, head);
	x->head = fmt(head, ap);
	va_end(ap);
	return x;
}

static void
ev(struct f *x, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	x->evidence = fmt(f, ap);
	va_end(ap);
}

static double
ms(double ns)
{
	return ns / 1e6;
}

/* One table of the run, with its path. */
struct tab {
	const char *path;
	struct lp_tsv t;
	FILE *fp;
	char **row;		/* the rows, whole lines of fields */
	long *line;		/* each row's line in the file */
	size_t n, ncol;
};

static double
cell(const struct tab *t, size_t i, const char *col)
{
	int c = lp_csv_col(&t->t.hdr, col);
	double v;

	return c >= 0 && lp_tab_numval(t->path, t->line[i], col, c,
	    t->row[i * t->ncol + (size_t)c], &v) ? v : NAN;
}

/* A name as a code span of the sentences lp-summary renders (any name:
 * lp_md_code fences it with more backticks than it holds). */
static const char *
code(const char *s)
{
	static struct lp_sb b;

	lp_sb_reset(&b);
	lp_md_code(&b, s, 0);
	return lp_sb_str(&b);
}

static const char *
text(const struct tab *t, size_t i, const char *col)
{
	int c = lp_csv_col(&t->t.hdr, col);

	return c >= 0 ? t->row[i * t->ncol + (size_t)c] : "";
}

static void
load(struct tab *t, const char *path)
{
	size_t i;

	t->path = path;
	t->fp = lp_tab_open(&t->t, path, "its lp tool");
	t->ncol = t->t.hdr.n;
	while (lp_tsv_next(&t->t)) {
		t->row = lp_xreallocarray(t->row, (t->n + 1) * t->ncol,
		    sizeof *t->row);
		t->line = lp_xreallocarray(t->line, t->n + 1, sizeof *t->line);
		t->line[t->n] = t->t.line;
		for (i = 0; i < t->ncol; i++)
			t->row[t->n * t->ncol + i] = lp_xstrdup(lp_tsv_get(&t->t,
			    (int)i));
		t->n++;
	}
}

/* The row of a table whose column col is val; -1 if none. */
static long
row_of(const struct tab *t, const char *col, const char *val)
{
	size_t i;

	for (i = 0; t && i < t->n; i++)
		if (!strcmp(text(t, i, col), val))
			return (long)i;
	return -1;
}

/* Is the stage's warm-up its own finding (steps.tsv says so)? */
static int
is_warm(const struct tab *sp, const char *stage)
{
	long w = row_of(sp, "stage", stage);

	return w >= 0 && !strcmp(text(sp, (size_t)w, "warmup"), "yes");
}

/* The host-side rows of a stage (hostside.tsv): all instances, and the
 * steady state; 0 when the table has no numbers for it. */
static int
host_rows(const struct tab *hs, const char *stage, long *a, long *b)
{
	struct lp_sb k = { 0 };

	lp_sb_printf(&k, "%s:steady", stage);
	*a = row_of(hs, "stage", stage);
	*b = row_of(hs, "stage", lp_sb_str(&k));
	lp_sb_free(&k);
	if (*b >= 0 && isnan(cell(hs, (size_t)*b, "api_ns")))
		*b = -1;
	return *a >= 0 && !isnan(cell(hs, (size_t)*a, "api_ns"));
}

/* A stage as hostside.tsv sees it: its rows for all instances (a) and the
 * one that speaks (r: the steady state where there is one), and its idle
 * GPU time. */
struct host {
	const struct tab *hs;
	const char *stage;
	size_t a, r;
	int warm, steady;
	double inst, rinst;
	double sc;	/* the steady state's per instance times all instances */
	double idle;
};

/* Rule module-loading: a tenth or more of the stage's idle GPU time in
 * loading CUDA modules, when its warm-up is not a finding of its own.
 * Returns the loading time, 0 when the rule did not fire. */
static double
module_loading(const struct host *h)
{
	const struct tab *hs = h->hs;
	double load;
	struct f *x;

	if (h->warm || !(cell(hs, h->a, "api_load_ns") >= 0.1 * h->idle))
		return 0;
	load = cell(hs, h->a, "api_load_ns");
	x = add("module-loading", load, hs->path, "Load the CUDA modules "
	    "before the measured work: run the stage once as a warm-up "
	    "(a throw-away pass of the same shapes) or load them eagerly "
	    "(CUDA_MODULE_LOADING=EAGER). A CUDA graph does not remove "
	    "it; at most the loading time is saved, once per process.",
	    "%s spends %.1f ms of its %.1f ms loading CUDA modules.",
	    h->stage, ms(load), ms(cell(hs, h->a, "wall_ns")));
	ev(x, "%s, over %.0f instance%s (%.3g%% of the stage's idle "
	    "GPU time)", text(hs, h->a, "load_calls"), h->inst, h->inst == 1 ?
	    "" : "s", 100 * load / h->idle);
	return load;
}

/* Rule host-sync: a tenth or more of the stage's idle GPU time in
 * synchronisations and copies.  Returns their time, 0 when the rule did
 * not fire. */
static double
host_sync(const struct host *h)
{
	const struct tab *hs = h->hs;
	size_t r = h->warm && h->steady ? h->r : h->a;
	double sc = h->warm && h->steady ? h->sc : 1, blocked, sync;
	struct lp_sb e = { 0 };
	struct f *x;

	/* the part spent waiting for kernels still running is GPU time,
	 * not idle: removing the call does not give it back */
	blocked = cell(hs, r, "blocked_ns");
	if (isnan(blocked))
		blocked = 0;
	sync = (cell(hs, r, "api_sync_ns") + cell(hs, r, "api_memcpy_ns") -
	    blocked) * sc;
	if (!(sync >= 0.1 * h->idle))
		return 0;
	x = add("host-sync", sync, hs->path, "Remove these "
	    "synchronisations and copies to the host from the loop: keep "
	    "the values on the GPU (no .item(), .cpu(), .tolist() or "
	    "printing of tensors per step), or copy asynchronously into "
	    "pinned memory and read the result a step later. At most the "
	    "time inside them is saved.", "%s waits %.1f ms in "
	    "synchronisations and memory copies with the GPU idle.",
	    h->stage, ms(sync));
	if (blocked > 0)
		lp_sb_printf(&e, "; less %.3f ms blocked on the GPU's earlier "
		    "work (blocked_ns)", ms(blocked * sc));
	ev(x, "%s (%s)%s", text(hs, r, "sync_calls"), h->warm && h->steady ?
	    "steady state, times all instances" : "all instances",
	    lp_sb_str(&e));
	lp_sb_free(&e);
	return sync;
}

/* Rule launch-bound from the host side: where the host time goes decides
 * the advice; the saving is bound, the idle time the other two findings
 * (load, sync: 0 when they did not fire) leave. */
static void
host_launch(const struct host *h, double busy, double bound, double load,
    double sync)
{
	const struct tab *hs = h->hs;
	size_t r = h->r;
	double rinst = h->rinst, p50, p90, out_pct, launch_pct;
	struct f *x;

	p50 = cell(hs, r, "launch_lat_p50_ns");
	p90 = cell(hs, r, "launch_lat_p90_ns");
	out_pct = cell(hs, r, "host_other_pct");
	launch_pct = 100 * cell(hs, r, "api_launch_ns") / cell(hs, r, "wall_ns");
	if (p50 < 50e3 && out_pct + launch_pct >= 50) {
		x = add("launch-bound", bound, hs->path, "Capture the stage in a "
		    "CUDA graph: torch.compile(mode=\"reduce-overhead\") or "
		    "torch.cuda.CUDAGraph (cudaGraphLaunch outside PyTorch) replays "
		    "its kernels without the framework's per-operation work and "
		    "without a launch call each; fusing operations "
		    "(torch.compile) also cuts the launches. At best the stage "
		    "takes its kernel time: that bounds the saving.",
		    "%s keeps the GPU busy only %.3g%% of its wall time: the host "
		    "is outside the CUDA API %.3g%% of the %s (the framework's own "
		    "work) and kernels start %.1f us after their launch call "
		    "(median), so the GPU waits for the host.", h->stage, busy,
		    out_pct, h->steady ? "steady state" : "stage", p50 / 1e3);
	} else
		x = add("launch-bound", bound, hs->path, "Capture the stage in a "
		    "CUDA graph (torch.cuda.CUDAGraph, "
		    "torch.compile(mode=\"reduce-overhead\"), cudaGraphLaunch) so "
		    "its launches go out at once; batch more sequences per step "
		    "so each launch does more work.",
		    "%s keeps the GPU busy only %.3g%% of its wall time.", h->stage,
		    busy);
	ev(x, "%s: %.3f ms wall per instance over %.0f instance%s, %.3g%% of "
	    "it in CUDA API calls (launch %.3f ms, synchronisation %.3f ms, copy "
	    "and set %.3f ms, module loading %.3f ms, other %.3f ms per "
	    "instance); %.3f ms of kernels and %.1f launches per instance; "
	    "launch to kernel start p50 %.1f us, p90 %.1f us. Savings: "
	    "%s%s%s", h->steady ? "steady state" : "all instances",
	    ms(cell(hs, r, "wall_ns") / rinst), rinst, rinst == 1 ? "" : "s",
	    cell(hs, r, "api_pct"), ms(cell(hs, r, "api_launch_ns") / rinst),
	    ms(cell(hs, r, "api_sync_ns") / rinst), ms(cell(hs, r,
	    "api_memcpy_ns") / rinst), ms(cell(hs, r, "api_load_ns") / rinst),
	    ms(cell(hs, r, "api_other_ns") / rinst), ms(cell(hs, r,
	    "kernel_per_inst_ns")), cell(hs, r, "launches_per_inst"), p50 / 1e3,
	    p90 / 1e3, h->warm && h->steady ? "the steady state's idle GPU time "
	    "times the instances (the first instance's excess is the warm-up "
	    "finding's)" : "the idle GPU time (wall - kernels)", load > 0 ?
	    ", less the module loading (its own finding)" : "", sync > 0 ?
	    ", less the synchronisations and copies (their own finding)" : "");
}

/* The share of a stage's kernel time its CUDA graphs ran (hostside.tsv,
 * the row that speaks); NAN when not known. */
static double
graph_pct(const struct tab *hs, size_t r)
{
	return cell(hs, r, "graph_kernel_pct");
}

/* Does hostside.tsv say CUDA graphs ran half the stage's kernel time or
 * more (its row over all instances)? */
static int
graphed_stage(const struct tab *hs, const char *stage)
{
	long a, b;

	return hs && host_rows(hs, stage, &a, &b) && graph_pct(hs, (size_t)a) >= 50;
}

/* Rule graph-bound: the stage's kernels run from CUDA graphs, yet the GPU
 * idles.  No graph advice (it has them): what bounds it per instance, the
 * graph launch calls, the host's own work between replays and the time
 * the host waits blocked on the GPU; the saving as launch-bound's. */
static void
graph_bound(const struct host *h, double busy, double bound, double load,
    double sync)
{
	const struct tab *hs = h->hs;
	size_t r = h->r;
	double n = h->rinst, wall = cell(hs, r, "wall_ns") / n;
	double launch = cell(hs, r, "api_launch_ns") / n;
	double blocked = cell(hs, r, "blocked_ns") / n;
	double kern = cell(hs, r, "kernel_per_inst_ns");
	double own, gl = cell(hs, r, "graph_launches") / n;
	struct f *x;

	if (isnan(blocked))
		blocked = 0;
	own = wall - launch - blocked;	/* the host's other work */
	if (busy >= 50)		/* its kernels take most of it */
		x = add("graph-bound", bound, hs->path, "The stage is graphed "
		    "already and its kernels take most of its time: make them "
		    "faster (the kernel findings: fewer bytes, fuller launches, "
		    "fusion) first. The rest is the GPU waiting for the host "
		    "between replays: launch the next step's graph before reading "
		    "this step's result (an asynchronous copy into pinned memory, "
		    "read a step later), or capture several steps in one graph. "
		    "nsys's node tracing (--cuda-graph-trace=node) lengthens each "
		    "graph launch itself: the workload timed alone (make RUN=x "
		    "alone.tsv) shows the step without it.",
		    "%s runs %.3g%% of its kernel time from CUDA graphs and keeps "
		    "the GPU busy %.3g%% of its wall time: its kernels bound it; "
		    "between replays the GPU waits %.3f ms an instance in the "
		    "graph launch calls and %.3f ms in the host's own work.",
		    h->stage, graph_pct(hs, r), busy, ms(launch), ms(own));
	else
		x = add("graph-bound", bound, hs->path, launch >= own ?
		    "The stage is graphed already: the host's cudaGraphLaunch is what "
		    "the GPU waits for. Launch the next step's graph before reading "
		    "this step's result (copy it asynchronously into pinned memory and "
		    "read it a step later) so the launch overlaps the GPU's work, or "
		    "capture several steps in one graph; fewer nodes (fused kernels, "
		    "torch.compile) make a launch cheaper. nsys's node tracing "
		    "(--cuda-graph-trace=node) lengthens each graph launch itself: the "
		    "workload timed alone (make RUN=x alone.tsv) shows the step without "
		    "it." : "The stage is graphed already: the host's own work between "
		    "replays (Python, sampling, preparing the next step's inputs) is "
		    "what the GPU waits for. Move it off the critical path: prepare the "
		    "next step while the GPU runs this one (launch first, then read "
		    "results a step late), keep sampling on the GPU, or capture more of "
		    "the step in the graph.",
		    "%s runs %.3g%% of its kernel time from CUDA graphs, yet keeps the "
		    "GPU busy only %.3g%% of its wall time: the GPU waits for the host "
		    "between graph replays, %.3f ms an instance in the graph launch "
		    "calls and %.3f ms in the host's own work.", h->stage, graph_pct(hs,
		    r), busy, ms(launch), ms(own));
	ev(x, "%s: %.3f ms wall per instance over %.0f instance%s: %.3f ms of "
	    "kernels, %.2f graph launches (%.3f ms in launch calls), first "
	    "kernel %.1f us after the graph launch call starts (p50); the host "
	    "blocked on the GPU %.3f ms (%s); other host time %.3f ms. Savings: "
	    "%s%s%s", h->steady ? "steady state" : "all instances", ms(wall), n,
	    n == 1 ? "" : "s", ms(kern), gl, ms(launch), cell(hs, r,
	    "graph_lat_p50_ns") / 1e3, ms(blocked), text(hs, r, "sync_calls"),
	    ms(own), h->warm && h->steady ? "the steady state's idle GPU time "
	    "times the instances" : "the idle GPU time (wall - kernels)",
	    load > 0 ? ", less the module loading (its own finding)" : "",
	    sync > 0 ? ", less the synchronisations and copies (their own "
	    "finding)" : "");
}

/* The warmest steady state of the run (hostside.tsv's STAGE:steady rows):
 * its host time per launch, (wall - kernels) / launches, and its stage;
 * NAN when no stage has one. */
static double
steady_host_per_launch(const struct tab *hs, const char **stage)
{
	double best = NAN;
	size_t i, n;

	for (i = 0; i < hs->n; i++) {
		const char *st = text(hs, i, "stage");
		double w = cell(hs, i, "wall_ns"), k = cell(hs, i, "kernel_ns");
		double l = cell(hs, i, "launches"), p;

		n = strlen(st);
		if (n < 7 || strcmp(st + n - 7, ":steady") || !(l > 0) ||
		    isnan(w) || isnan(k))
			continue;
		p = (w - k) / l;
		if (isnan(best) || p < best) {
			best = p;
			*stage = st;
		}
	}
	return best;
}

/* Rule cold-call: a stage run once per process, whose host time per
 * launch is at least twice the warmest steady state's, is a cold first
 * call (module loading, allocator growth, autotuning, the framework's
 * first dispatch): a CUDA graph needs a warm run to capture, so its
 * advice and the whole idle time are not what the stage offers.  The
 * saving is the excess over the steady rate (less the loading and the
 * synchronisations, their own findings).  Returns 0 when the rule does
 * not apply. */
static int
cold_call(const struct host *h, double load, double sync, double bound)
{
	const struct tab *hs = h->hs;
	const char *ref = NULL;
	double wall = cell(hs, h->a, "wall_ns"), k = cell(hs, h->a, "kernel_ns");
	double l = cell(hs, h->a, "launches"), ps, pc, warm_idle, save;
	struct f *x;
	size_t n;

	if (h->steady || h->rinst != 1 || !(l > 0))
		return 0;
	ps = steady_host_per_launch(hs, &ref);
	pc = (wall - k) / l;
	if (isnan(ps) || !(ps > 0) || !(pc >= 2 * ps))
		return 0;
	warm_idle = l * ps;
	save = wall - k - warm_idle - load - sync;
	if (save > bound)
		save = bound;
	if (save < 0)
		save = 0;
	n = strlen(ref) - 7;
	x = add("cold-call", save, hs->path, "Warm it up: run one throw-away "
	    "pass of the same shapes before the measured one (or load the "
	    "modules eagerly, CUDA_MODULE_LOADING=EAGER), then measure a warm "
	    "instance. A CUDA graph needs a warm run to capture, so whether "
	    "the stage is launch-bound shows only on a warm instance. At most "
	    "the excess over the steady rate is saved.",
	    "%s ran once, cold: %.0f us of host time per launch against "
	    "%.0f us in the steady state of %.*s (%.3gx), so its wall time is "
	    "first-call cost, not launch overhead a CUDA graph removes.",
	    h->stage, pc / 1e3, ps / 1e3, (int)n, ref, pc / ps);
	ev(x, "one instance per process: %.3f ms wall, %.3f ms of kernels, %.0f "
	    "launches, launch to kernel start p50 %.1f us; at the steady rate "
	    "of %.*s a warm instance would leave the GPU idle about %.3f ms "
	    "(launches x host time per launch): the launch-bound advice "
	    "(CUDA graphs) is for that part, measured warm. Saving: the idle "
	    "GPU time (wall - kernels) less that%s%s", ms(wall), ms(k), l,
	    cell(hs, h->a, "launch_lat_p50_ns") / 1e3, (int)n, ref,
	    ms(warm_idle), load > 0 ? ", less the module loading (its own "
	    "finding)" : "", sync > 0 ? ", less the synchronisations and "
	    "copies (their own finding)" : "");
	return 1;
}

/*
 * Rule launch-bound with the host side of the stage (hostside.tsv): the
 * advice follows where the host time goes.  Module loading: warm up or
 * load eagerly, at most the loading saved.  Synchronisations and copies:
 * remove them, at most their time saved.  The host outside the CUDA API
 * (or in the launch calls) with kernels starting soon after their launch:
 * CUDA graphs, at most the idle time left (the stage still takes its
 * kernel time).  The three are disjoint parts of the wall time; when the
 * stage's warm-up is a finding of its own, the others count the steady
 * state only (per instance, times the instances), so no time is in two
 * findings.  Returns 0 when the table has nothing for the stage.
 */
static int
host_side(const struct tab *s, size_t i, const struct tab *hs,
    const struct tab *sp)
{
	const char *stage = text(s, i, "stage");
	double busy = cell(s, i, "busy_pct"), wall = cell(s, i, "wall_total_ns");
	double k = cell(s, i, "kernel_ns"), kr, load, sync, bound;
	struct host h;
	long a, b;

	if (!host_rows(hs, stage, &a, &b))
		return 0;
	h.hs = hs;
	h.stage = stage;
	h.warm = is_warm(sp, stage);
	h.a = (size_t)a;
	h.r = (size_t)(b >= 0 ? b : a);
	h.steady = b >= 0;
	h.inst = cell(hs, h.a, "instances");
	h.rinst = cell(hs, h.r, "instances");
	/* the steady state per instance, times all instances, when the
	 * warm-up finding speaks for the first */
	h.sc = h.warm && h.steady && h.rinst > 0 ? h.inst / h.rinst : 1;
	kr = cell(hs, h.warm && h.steady ? h.r : h.a, "kernel_ns");
	if (h.warm && h.steady && !isnan(kr))
		h.idle = (cell(hs, h.r, "wall_ns") - kr) * h.sc;
	else
		h.idle = wall - k;
	load = module_loading(&h);
	sync = host_sync(&h);
	bound = h.idle - load - sync;
	/* the steady state's mean may exceed its median: never more than
	 * what the warm-up finding leaves of the stage's idle time */
	if (h.warm) {
		long w = row_of(sp, "stage", stage);
		double rest = wall - k - (cell(sp, (size_t)w, "first_ns") -
		    cell(sp, (size_t)w, "steady_ns")) - load - sync;

		if (rest < bound)
			bound = rest;
	}
	if (bound < 0)
		bound = 0;
	/* its kernels run from CUDA graphs: no advice to capture one */
	if (graph_pct(hs, h.r) >= 50)
		graph_bound(&h, busy, bound, load, sync);
	else if (!cold_call(&h, load, sync, bound))
		host_launch(&h, busy, bound, load, sync);
	return 1;
}

/* Rule launch-bound: a stage whose GPU is mostly idle. */
static void
launch_bound(const struct tab *s, const struct tab *hs, const struct tab *sp)
{
	double seen_k = -1, seen_l = -1;
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		double busy = cell(s, i, "busy_pct"), wall = cell(s, i,
		    "wall_total_ns"), k = cell(s, i, "kernel_ns");
		double l = cell(s, i, "launches"), lpi = cell(s, i,
		    "launches_per_inst"), inst = cell(s, i, "instances");
		size_t best = i;
		long a, b;
		double warm;
		struct f *x;

		/* a stage its CUDA graphs run is said even when the GPU is
		 * busy half its time or more: what bounds it, never silence */
		if (isnan(busy) || !(wall > 0) || (busy >= 50 &&
		    !graphed_stage(hs, text(s, i, "stage"))))
			continue;
		/* a nested stage with the same kernels adds nothing */
		if (k == seen_k && l == seen_l)
			continue;
		seen_k = k;
		seen_l = l;
		/* with the host side known, of the nested stages with the same
		 * kernels the one with the most instances speaks: its steady
		 * state is per step */
		for (j = i + 1; hs && j < s->n && cell(s, j, "kernel_ns") == k &&
		    cell(s, j, "launches") == l; j++)
			if (cell(s, j, "instances") > cell(s, best, "instances") &&
			    host_rows(hs, text(s, j, "stage"), &a, &b))
				best = j;
		if (hs && host_side(s, best, hs, sp)) {
			host_split = 1;
			continue;
		}
		/* the warm-up finding of this stage, or of a nested one with the
		 * same kernels (decode_step in decode_all), is in its idle time:
		 * counted there once, not here again */
		warm = 0;
		for (j = i; j < s->n && (j == i || (cell(s, j, "kernel_ns") == k &&
		    cell(s, j, "launches") == l)); j++) {
			long w = row_of(sp, "stage", text(s, j, "stage"));
			double e;

			if (w >= 0 && is_warm(sp, text(s, j, "stage")) &&
			    (e = cell(sp, (size_t)w, "first_ns") - cell(sp,
			    (size_t)w, "steady_ns")) > warm)
				warm = e;
		}
		x = add("launch-bound", wall - k - warm > 0 ? wall - k - warm : 0,
		    s->path, l > 0 && k / l < 20e3 ?
		    "Capture the stage in a CUDA graph (torch.cuda.CUDAGraph, "
		    "torch.compile(mode=\"reduce-overhead\"), cudaGraphLaunch) so "
		    "its launches go out at once; remove host synchronisations "
		    "(.item(), cudaMemcpy to the host) inside the loop; batch more "
		    "sequences per step so each launch does more work." :
		    "The GPU waits for the host between larger kernels: profile "
		    "the CPU side (nsys --sample=cpu) to see what it does there, "
		    "and overlap it with GPU work (CUDA streams, prefetching the "
		    "next step's inputs).",
		    "%s keeps the GPU busy only %.3g%% of its wall time.",
		    text(s, i, "stage"), busy);
		ev(x, "%.3f ms of kernels in %.3f ms of wall time over %.0f "
		    "launches (%.1f per instance over %.0f instance%s; mean "
		    "kernel %.2f us)%s", ms(k), ms(wall), l, lpi, inst, inst == 1 ?
		    "" : "s", l > 0 ? k / l / 1e3 : 0, warm > 0 ? "; saving: the "
		    "idle GPU time less the warm-up's excess (its own finding)" :
		    "");
	}
}

/* Rule warm-up: the first instance far above the steady state; with the
 * host side known, the module loading inside it named. */
static void
warmup(const struct tab *t, const struct tab *s, const struct tab *hs)
{
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		const char *stage = text(t, i, "stage");
		double first = cell(t, i, "first_ns"), st = cell(t, i, "steady_ns");
		double tok = cell(t, i, "tokens_per_s"), tot = NAN, load = NAN;
		long a, b;
		struct lp_sb e = { 0 };
		struct f *x;

		if (strcmp(text(t, i, "warmup"), "yes"))
			continue;
		for (j = 0; s && j < s->n; j++)
			if (!strcmp(text(s, j, "stage"), stage))
				tot = cell(s, j, "wall_total_ns");
		/* loading in the first instance of each process, per process */
		if (host_rows(hs, stage, &a, &b) && b >= 0 &&
		    cell(hs, (size_t)a, "instances") > cell(hs, (size_t)b,
		    "instances"))
			load = (cell(hs, (size_t)a, "api_load_ns") - cell(hs,
			    (size_t)b, "api_load_ns")) / (cell(hs, (size_t)a,
			    "instances") - cell(hs, (size_t)b, "instances"));
		if (load > 0 && load >= 0.05 * (first - st)) {
			x = add("warm-up", first - st, hs->path, "Load the CUDA "
			    "modules before the measured work: run one throw-away "
			    "generation of the same shapes first, or load them "
			    "eagerly (CUDA_MODULE_LOADING=EAGER; that alone saves at "
			    "most the loading time), and quote the steady state, "
			    "not the mean.", "The first %s took %.3gx the steady "
			    "state%s; %.1f ms of it loading CUDA modules.", stage,
			    first / st, tot > 0 && (first - st) / tot > 0.2 ?
			    ", warm-up dominating this short run" : "", ms(load));
			lp_sb_printf(&e, "module loading %.3f ms in the first "
			    "instance (all instances' %.3f ms less the steady "
			    "state's %.3f ms: %s); ", ms(load), ms(cell(hs,
			    (size_t)a, "api_load_ns")), ms(cell(hs, (size_t)b,
			    "api_load_ns")), text(hs, (size_t)a, "load_calls"));
		} else
			x = add("warm-up", first - st, t->path, "Run one throw-away "
			    "generation before the measured one, load CUDA modules "
			    "eagerly (CUDA_MODULE_LOADING=EAGER) or capture a CUDA "
			    "graph first, and quote the steady state, not the mean.",
			    "The first %s took %.3gx the steady state%s.", stage,
			    first / st, tot > 0 && (first - st) / tot > 0.2 ?
			    ": warm-up dominates this short run" : "");
		if (e.len)	/* the times are steps.tsv's */
			lp_sb_printf(&e, "from %s: ", t->path);
		if (isnan(tok))
			ev(x, "%sfirst %.3f ms, median of the rest %.3f ms",
			    lp_sb_str(&e), ms(first), ms(st));
		else
			ev(x, "%sfirst %.3f ms, median of the rest %.3f ms; steady "
			    "state %.4g tokens/s", lp_sb_str(&e), ms(first), ms(st),
			    tok);
		lp_sb_free(&e);
	}
}

/* The share of a kernel's nsys time that one roofline point (a launch
 * shape) stands for: its own nsys time where roofline.tsv has it (the
 * launch configurations of cuda_gpu_trace, lp-shapes), else by ncu time. */
static double
shape_share(const struct tab *rf, size_t i)
{
	double all = 0, mine = NAN;
	size_t j;

	if (!isnan(cell(rf, i, "nsys_ns"))) {
		for (j = 0; j < rf->n; j++)
			if (!strcmp(text(rf, j, "kernel"), text(rf, i, "kernel")) &&
			    !isnan(cell(rf, j, "nsys_ns")))
				all += cell(rf, j, "nsys_ns");
		return all > 0 ? cell(rf, i, "nsys_ns") / all : 1;
	}
	for (j = 0; j < rf->n; j++) {
		double v = cell(rf, j, "ncu_launches") * cell(rf, j,
		    "ncu_ns_per_launch");

		if (strcmp(text(rf, j, "kernel"), text(rf, i, "kernel")))
			continue;
		if (isnan(v))
			return 1;	/* one point per kernel */
		all += v;
		if (j == i)
			mine = v;
	}
	return all > 0 ? mine / all : 1;
}

/* A top kernel's launch shape: its row of roofline.tsv and its time in
 * the run (top_kernels.tsv), the shape's part of it where a kernel has
 * several. */
struct shape {
	const char *cls, *roof, *name, *prec, *why, *grid;
	const char *op;		/* its operator class (top_kernels.tsv) */
	double frac, dram, ai, tot, share, part;
	const char *sh;		/* " (grid ...)" for a kernel of several shapes */
};

/* Does a kernel of this operator class run in tiles (a GEMM, a
 * convolution), so that tile sizes are advice for it?  A LayerNorm's
 * are not. */
static int
tiled(const char *op)
{
	return op && (!strncmp(op, "GEMM", 4) || !strncmp(op, "Convolution", 11) ||
	    !strncmp(op, "Attention", 9));
}

/* Rules memory-bound, compute-bound, alignment, under-filled, below-roof:
 * which one the shape's class says. */
static struct f *
roof_finding(const char *path, const struct shape *p, int graphed)
{
	double save = p->tot * (1 - p->frac / 100);

	if (!strcmp(p->cls, "memory-bound"))
		return add("memory-bound", save, path,
		    "Only fewer bytes help: weight-only int8/fp8 "
		    "quantisation, a lower-precision KV cache, fusing it "
		    "with its producer or consumer, or batching decode so "
		    "each weight read serves more tokens.",
		    "%s%s is memory-bound at %.3g%% of DRAM bandwidth.",
		    code(p->name), p->sh, p->dram);
	if (!strcmp(p->cls, "compute-bound"))
		return add("compute-bound", save, path,
		    "It is near its roof: only less math or a faster "
		    "precision helps (fp8 tensor cores where accuracy "
		    "allows, fewer FLOPs through fusion or sparsity).",
		    "%s%s reaches %.3g%% of the %s roof.", code(p->name),
		    p->sh, p->frac, p->prec);
	if (!strcmp(p->cls, "alignment-limited"))
		return add("alignment", save, path,
		    strstr(p->why, "vocab") ? "Pad the vocabulary to a "
		    "multiple of 64 (model.resize_token_embeddings(n, "
		    "pad_to_multiple_of=64)) so cuBLAS picks its aligned "
		    "kernels, and in prefill compute the logits of the "
		    "last token only." : "Pad the GEMM's odd dimension "
		    "(a leading dimension that is not a multiple of 8 "
		    "elements) to a multiple of 64 so cuBLAS picks its "
		    "aligned kernels.",
		    "%s%s is a GEMM for unaligned operands at %.3g%% of "
		    "its %s roof%s.", code(p->name), p->sh, p->frac,
		    p->roof, strstr(p->why, "vocab") ? ": the vocabulary is "
		    "not a multiple of 8" : "");
	if (!strncmp(p->cls, "latency", 7))
		return add("under-filled", save, path,
		    strcmp(p->roof, "memory") ? (tiled(p->op) ? "Compute units "
		    "idle at this intensity: check occupancy and stall reasons "
		    "in ncu's sections (NCU_PRESET=high), and tile sizes for the "
		    "shape." : "Compute units idle at this intensity: check "
		    "occupancy and stall reasons in ncu's sections "
		    "(NCU_PRESET=high), and the launch's grid and block sizes.") :
		    graphed ? "Too little work per launch to fill the GPU or "
		    "hide memory latency: give it more (larger batch, fuse "
		    "neighbouring kernels, split-K or stream-K for skinny "
		    "GEMMs); its stage runs from CUDA graphs already, so launch "
		    "gaps are not what starves it." : "Too little work per "
		    "launch to fill the GPU or hide memory latency: give it more "
		    "(larger batch, fuse neighbouring kernels, split-K or "
		    "stream-K for skinny GEMMs) and hide launch gaps with CUDA "
		    "graphs.",
		    "%s%s reaches only %.3g%% of its %s roof.", code(p->name),
		    p->sh, p->frac, p->roof);
	/* roofline.tsv's "below roof" without ", GPU filled": no launch
	 * statistics, so whether it fills the GPU is not known */
	if (!strstr(p->cls, "filled"))
		return add("below-roof", save, path,
		    "Profile it with the launch statistics (ncu's LaunchStats "
		    "and Occupancy sections; lp's default preset has them) to "
		    "see whether it fills the GPU: under a wave it needs more "
		    "work per launch (larger batch, fusion, split-K); with a "
		    "full GPU, look at its stall reasons and memory access "
		    "pattern (NCU_PRESET=high) and the library's choice of "
		    "kernel for this shape.",
		    "%s%s reaches only %.3g%% of its %s roof; whether it fills "
		    "the GPU is not known (waves unknown: the export lacks the "
		    "launch statistics).", code(p->name), p->sh, p->frac,
		    p->roof);
	return add("below-roof", save, path,
	    "The GPU is full, yet the kernel is far from its roof: "
	    "look at its stall reasons and memory access pattern "
	    "in ncu's sections (NCU_PRESET=high) and at the "
	    "library's choice of kernel for this shape.",
	    "%s%s reaches only %.3g%% of its %s roof with a full "
	    "GPU.", code(p->name), p->sh, p->frac, p->roof);
}

/* The top kernels (each launch shape) against their roof (roofline.tsv),
 * with their run time from top_kernels.tsv: one of the rules of
 * roof_finding each, for at most max shapes. */
static void
kernels(const struct tab *rf, const struct tab *tk, const struct tab *hs,
    size_t max)
{
	size_t i, j, done = 0;
	int graphed = 0;

	/* the top kernels' stage (top_kernels.tsv's range) runs from CUDA
	 * graphs: no advice to hide launch gaps with them */
	if (tk && hs && lp_tsv_comment(&tk->t, "range"))
		for (i = 0; i < hs->n; i++)
			if (!strcmp(text(hs, i, "range"), lp_tsv_comment(&tk->t,
			    "range")) && !strstr(text(hs, i, "stage"), ":steady") &&
			    graph_pct(hs, i) >= 50)
				graphed = 1;

	for (i = 0; i < rf->n && done < max; i++) {
		struct shape p;
		struct lp_sb sh = { 0 };
		struct f *x;
		int own;

		p.cls = text(rf, i, "class");
		p.roof = text(rf, i, "roof");
		p.name = text(rf, i, "name");
		p.prec = text(rf, i, "precision");
		p.why = text(rf, i, "why");
		p.grid = text(rf, i, "grid");
		p.frac = cell(rf, i, "roof_pct");
		p.dram = cell(rf, i, "dram_pct");
		p.ai = cell(rf, i, "ai");
		p.tot = NAN;
		p.share = NAN;
		p.op = NULL;
		p.part = shape_share(rf, i);
		if (isnan(p.frac))
			continue;
		for (j = 0; tk && j < tk->n; j++)
			if (!strcmp(text(tk, j, "kernel"), text(rf, i, "kernel"))) {
				p.tot = cell(tk, j, "total_ns");
				p.share = cell(tk, j, "share_pct");
				p.op = text(tk, j, "operator");
			}
		if (isnan(p.tot))
			continue;
		done++;
		/* a kernel of several shapes: this shape's part of its time,
		 * its own nsys time where roofline.tsv has it */
		own = !isnan(cell(rf, i, "nsys_ns"));
		if (own) {
			p.tot = cell(rf, i, "nsys_ns");
			p.share = cell(rf, i, "stage_pct");
		}
		if (p.part < 1) {
			if (!own) {
				p.tot *= p.part;
				p.share *= p.part;
			}
			lp_sb_printf(&sh, " (grid %s)", p.grid);
		} else
			lp_sb_adds(&sh, "");
		p.sh = lp_sb_str(&sh);
		x = roof_finding(rf->path, &p, graphed);
		ev(x, "%.3f ms in the stage (%.3g%% of its GPU time%s); AI %.4g "
		    "FLOP/B, %s, %.3g%% of DRAM bandwidth (ncu)%s%s", ms(p.tot),
		    p.share, own ? (p.part < 1 ? ", this launch configuration's "
		    "own (nsys cuda_gpu_trace)" : "") : p.part < 1 ? ", the "
		    "shape's part by ncu time" : "", p.ai, p.prec, p.dram,
		    *p.why ? "; " : "", p.why);
		lp_sb_free(&sh);
	}
}

/* Rule dominant: one kernel with a large share and no roofline point.
 * An import selected nothing: raising TOPN would not profile it. */
static void
dominant(const struct tab *tk, int imported)
{
	struct f *x;
	double share;
	const char *cls;
	int profiled;

	if (!tk || !tk->n || !((share = cell(tk, 0, "share_pct")) >= 25))
		return;
	cls = text(tk, 0, "class");
	/* a class is a roofline point (lp-topk writes "n/a because ..."
	 * otherwise), or communication: a collective's time is the ranks
	 * waiting; rules straggler and communication speak for it */
	if (strncmp(cls, "n/a", 3))
		return;
	profiled = !isnan(cell(tk, 0, "sm_pct"));
	x = add("dominant", NAN, tk->path, profiled && imported ? "Profile it "
	    "again with ncu collecting the tensor-core and SASS FLOP counters "
	    "and dram__bytes.sum (--set roofline, or lp's own run: make RUN=new "
	    "WORK=...) and import that export, so it gets a roofline point." :
	    profiled ? "Re-run the ncu step with "
	    "a preset that collects the tensor-core and SASS FLOP counters and "
	    "dram__bytes.sum (NCU_PRESET=default), so it gets a roofline point." :
	    imported ? "Profile it with ncu: the imported ncu export does not "
	    "hold it (lp selects the kernels to profile only for the runs it "
	    "profiles itself: make RUN=new WORK=...), or look at the unmatched "
	    "kernels under kernels.md." : "Profile it: raise TOPN, or look at "
	    "the unmatched kernels under kernels.md.", "One kernel takes %.3g%% of the stage's GPU time and "
	    "has no roofline point.", share);
	ev(x, "%s, %.3f ms; %s", code(text(tk, 0, "name")), ms(cell(tk, 0,
	    "total_ns")), profiled ? "ncu measured it (SM % and DRAM % in "
	    "top_kernels.tsv) without the FLOP counters" : "ncu did not measure "
	    "it");
}

/* Rule fp32: top matmul kernels doing fp32 on CUDA cores, with tensor
 * cores idle: TF32 and bf16 change matmuls only, so a LayerNorm's fp32
 * accumulation is not one (top_kernels.tsv's operator class says). */
static void
fp32(const struct tab *rf, const struct tab *tk, const struct lp_peaks *pk)
{
	double t = 0, tf = lp_peak_of(pk, LP_FP_TC_TF32), f = lp_peak_of(pk,
	    LP_FP_FP32);
	size_t i, j, n = 0;
	struct f *x;

	for (i = 0; rf && i < rf->n; i++)
		if (!strcmp(text(rf, i, "precision"), "fp32 (CUDA cores)") &&
		    strcmp(text(rf, i, "roof"), "memory"))
			for (j = 0; tk && j < tk->n; j++)
				if (!strcmp(text(tk, j, "kernel"), text(rf, i,
				    "kernel")) && strstr(text(tk, j, "operator"),
				    "GEMM")) {
					t += cell(tk, j, "total_ns");
					n++;
				}
	if (!n || !(tf > 0) || !(f > 0))
		return;
	x = add("fp32", t * (1 - f / tf), rf->path, "Enable TF32 "
	    "(torch.backends.cuda.matmul.allow_tf32 = True, cublasSetMathMode "
	    "CUBLAS_TF32_TENSOR_OP_MATH) or run the model in bf16.",
	    "%zu compute-side top matmul kernels run fp32 on CUDA cores.", n);
	ev(x, "%.3f ms of their time; TF32 tensor cores have %.3gx the fp32 "
	    "peak (gpu.tsv)", ms(t), tf / f);
}

/* Rule straggler (ranks.tsv): per process, the stage where it keeps the
 * other ranks waiting longest. */
static void
straggler(const struct tab *k)
{
	size_t i, j;
	int more;

	for (i = 0; i < k->n; i++) {
		double gap = cell(k, i, "gap_ns"), n = cell(k, i, "instances");
		double best = gap * n, dc;
		size_t f = i;
		struct f *x;

		if (strcmp(text(k, i, "straggler"), "yes"))
			continue;
		for (j = 0; j < k->n; j++)	/* its largest stage only */
			if (j != i && !strcmp(text(k, j, "pid"), text(k, i, "pid")) &&
			    !strcmp(text(k, j, "straggler"), "yes") &&
			    cell(k, j, "gap_ns") * cell(k, j, "instances") > best)
				break;
		if (j < k->n)
			continue;
		for (j = 0; j < k->n; j++)	/* the fastest of the stage */
			if (!strcmp(text(k, j, "stage"), text(k, i, "stage")) &&
			    cell(k, j, "gap_ns") == 0)
				f = j;
		dc = cell(k, i, "compute_ns") - cell(k, f, "compute_ns");
		more = dc >= gap / 4 || cell(k, i, "launches") >= 1.2 * cell(k, f,
		    "launches");
		x = add("straggler", best, k->path, more ? "It does more work "
		    "than the others (GPU compute, kernel launches): compare the "
		    "ranks' kernels and balance the shards (an uneven split, work "
		    "only that rank does)." : "Its GPU is "
		    "idle while the others wait in the collective: the delay is "
		    "on its host (Python, data loading, a synchronisation, a "
		    "sleep). Profile that process's CPU (nsys --sample=cpu) and "
		    "its NVTX ranges.", "Process %s (%s) is the straggler of %s: "
		    "%.3f ms per instance more outside communication than "
		    "process %s, which waits for it.", text(k, i, "pid"),
		    text(k, i, "device"), text(k, i, "stage"), ms(gap),
		    text(k, f, "pid"));
		ev(x, "median %.3f ms vs %.3f ms; communication %.3f ms vs "
		    "%.3f ms per instance (%.3g%% vs %.3g%% of kernel time); "
		    "compute %.3f ms vs %.3f ms per instance; %.1f vs %.1f "
		    "launches per instance", ms(cell(k, i, "median_ns")),
		    ms(cell(k, f, "median_ns")), ms(cell(k, i, "comm_ns")),
		    ms(cell(k, f, "comm_ns")), cell(k, i, "comm_pct"),
		    cell(k, f, "comm_pct"), ms(cell(k, i, "compute_ns")),
		    ms(cell(k, f, "compute_ns")), cell(k, i, "launches"),
		    cell(k, f, "launches"));
	}
}

/* Rule communication (overlap.tsv): a GPU whose kernel time is mostly
 * communication that compute does not hide. */
static void
communication(const struct tab *o, const struct tab *k)
{
	size_t i, j;

	for (i = 0; i < o->n; i++) {
		/* a GPU that waits for another's straggler: rule straggler */
		for (j = 0; k && j < k->n; j++)
			if (!strcmp(text(k, j, "straggler"), "yes") &&
			    strcmp(text(k, j, "device"), text(o, i, "device")))
				break;
		if (k && j < k->n)
			continue;
		double share = cell(o, i, "comm_pct"), ov = cell(o, i,
		    "overlap_pct"), ex = cell(o, i, "exposed_ns");
		double comm = cell(o, i, "comm_ns"), fast = NAN;
		size_t fj = 0;
		struct f *x;

		if (!(share >= 25) || !(ov < 50))
			continue;
		/* the same collectives (as many communication kernels) far
		 * faster on another GPU: this one waits in them for a slower
		 * rank, which overlap cannot remove */
		for (j = 0; j < o->n; j++)
			if (j != i && cell(o, j, "comm_kernels") == cell(o, i,
			    "comm_kernels") && cell(o, j, "comm_ns") > 0 &&
			    (isnan(fast) || cell(o, j, "comm_ns") < fast)) {
				fast = cell(o, j, "comm_ns");
				fj = j;
			}
		if (fast > 0 && comm >= 2 * fast) {
			x = add("communication", ex < fast ? ex : fast, o->path,
			    "Find what delays the other ranks before the "
			    "collectives (the ranks table: a straggler, an "
			    "uneven shard, host work only they do) and balance "
			    "it: overlap cannot remove a wait. Overlapping the "
			    "collectives with compute (async all-reduce on a "
			    "side stream, bucketing) saves at most the fastest "
			    "rank's communication time.",
			    "Communication is %.3g%% of the kernel time on %s, "
			    "but the same collectives take %.3f ms on %s against "
			    "%.3f ms here (%.3gx): %s waits in them for a slower "
			    "rank (load imbalance or a straggler on the other "
			    "rank), not for the transfer.", share, text(o, i,
			    "device"), ms(fast), text(o, fj, "device"), ms(comm),
			    comm / fast, text(o, i, "device"));
			ev(x, "%.0f communication kernels on each GPU; %.3f ms of "
			    "communication kernels here, %.3f ms exposed (%.3g%% "
			    "overlapped), %.3f ms of compute (whole capture); "
			    "saving: at most the fastest rank's communication "
			    "time (%s)", cell(o, i, "comm_kernels"), ms(comm),
			    ms(ex), ov, ms(cell(o, i, "compute_ns")), text(o, fj,
			    "device"));
			continue;
		}
		x = add("communication", ex, o->path, "Where the share is far "
		    "above the other GPUs', this one waits for a straggler (the "
		    "ranks table). Otherwise overlap the collectives with compute "
		    "(async all-reduce on a side stream, bucketing small "
		    "all-reduces), or use fewer GPUs per model replica.",
		    "Communication is %.3g%% of the kernel time on %s, %.3g%% of "
		    "it overlapped with compute.", share, text(o, i, "device"), ov);
		ev(x, "%.3f ms of communication kernels, %.3f ms exposed, "
		    "%.3f ms of compute (whole capture)", ms(cell(o, i,
		    "comm_ns")), ms(ex), ms(cell(o, i, "compute_ns")));
	}
}

/* The mean of a metric over a stage's row of gpumetrics.tsv; NAN if none. */
static double
gm_mean(const struct tab *gm, const char *stage, const char *metric)
{
	size_t i;

	for (i = 0; gm && i < gm->n; i++)
		if (!strcmp(text(gm, i, "stage"), stage) && !strcmp(text(gm, i,
		    "metric"), metric))
			return cell(gm, i, "mean");
	return NAN;
}

/* Two utilisations further apart than GPU Metrics sampling can say: more
 * than 2x apart and more than 2 percentage points.  The samples are whole
 * percent (1 % resolution a sample): on the fixture's nearly idle decode
 * step the tensor pipes read 0.345 % against an MFU of 0.015 % (23x, 0.33
 * points: small-batch tiles padded), while the prefill's 0.63 % matched
 * its MFU of 0.61 %. */
static int
disagree(double meas, double model)
{
	double lo = meas < model ? meas : model, hi = meas < model ? model :
	    meas;

	return !isnan(meas) && !isnan(model) && hi - lo > 2 && hi > 2 * lo;
}

static const char TENSOR[] = "Tensor Active [Throughput %]";
static const char SMS[] = "SMs Active [Throughput %]";
static const char DRD[] = "DRAM Read Bandwidth [Throughput %]";
static const char DWR[] = "DRAM Write Bandwidth [Throughput %]";

/* The stage's row of gpumetrics.tsv that speaks: the steady state where
 * both it and the model table have one (steady_col numeric), else all
 * instances.  Returns the row's stage name in k. */
static int
gm_steady(const struct tab *gm, const struct tab *m, size_t i,
    const char *steady_col, const char *metric, struct lp_sb *k)
{
	const char *stage = text(m, i, "stage");

	lp_sb_reset(k);
	lp_sb_printf(k, "%s:steady", stage);
	if (!isnan(cell(m, i, steady_col)) && !isnan(gm_mean(gm,
	    lp_sb_str(k), metric)))
		return 1;
	lp_sb_reset(k);
	lp_sb_printf(k, "%s", stage);
	return 0;
}

/* Rule measured-tensor (gpumetrics.tsv, mfu.tsv): the tensor pipes'
 * measured activity against the model arithmetic's MFU. */
static void
measured_tensor(const struct tab *gm, const struct tab *mf)
{
	struct lp_sb k = { 0 }, b = { 0 };
	size_t i;

	for (i = 0; i < mf->n; i++) {
		int st = gm_steady(gm, mf, i, "mfu_steady_pct", TENSOR, &k);
		double t = gm_mean(gm, lp_sb_str(&k), TENSOR);
		double sm = gm_mean(gm, lp_sb_str(&k), SMS);
		double m = cell(mf, i, st ? "mfu_steady_pct" : "mfu_pct");
		double mk = cell(mf, i, "mfu_kernel_pct");
		struct f *x;

		if (!disagree(t, m))
			continue;
		x = add("measured-tensor", NAN, gm->path, t < m ? "Check the "
		    "model config against the model (model.* in inputs.yaml: "
		    "parameters, layers, batch, prompt and decode lengths): "
		    "MFU counts more FLOPs than the tensor pipes ran. Else the "
		    "matmuls ran off the tensor cores (fp32 on CUDA cores: the "
		    "roofline's precision column)." : "Check the model config "
		    "against the model (model.* in inputs.yaml): MFU counts "
		    "fewer FLOPs than ran. Else the GPU does work the model "
		    "arithmetic does not know (tiles padded for a small batch, "
		    "recomputation, extra matmuls): the top kernels say which.",
		    "Stage %s%s: the tensor pipes were active %.3g%% of the "
		    "time (nsys GPU Metrics), the model arithmetic says %.3g%% "
		    "(MFU): %.3gx %s.", text(mf, i, "stage"), st ? ", steady "
		    "state" : "", t, m, t < m ? m / t : t / m, t < m ? "less "
		    "measured than modelled" : "more measured than modelled");
		lp_sb_reset(&b);
		if (!isnan(mk))
			lp_sb_printf(&b, "; MFU over kernel time %.3g%%%s", mk,
			    mk > 2 * t && sm < 50 ? ": the kernels' time "
			    "share hides SMs that sat idle" : "");
		ev(x, "Tensor Active %.3g%% over %s (gpumetrics.tsv), MFU %.3g%% "
		    "(mfu.tsv, %s); SMs Active %.3g%%%s", t, lp_sb_str(&k), m,
		    st ? "steady state" : "mean", sm, lp_sb_str(&b));
	}
	lp_sb_free(&k);
	lp_sb_free(&b);
}

/* Rule measured-dram (gpumetrics.tsv, mbu.tsv): DRAM read + write
 * bandwidth as sampled against the model arithmetic's MBU. */
static void
measured_dram(const struct tab *gm, const struct tab *mb)
{
	struct lp_sb k = { 0 };
	size_t i;

	for (i = 0; i < mb->n; i++) {
		int st = gm_steady(gm, mb, i, "mbu_steady_pct", DRD, &k);
		double rd = gm_mean(gm, lp_sb_str(&k), DRD);
		double wr = gm_mean(gm, lp_sb_str(&k), DWR);
		double d = rd + wr;
		double m = cell(mb, i, st ? "mbu_steady_pct" : "mbu_pct");
		struct f *x;

		if (!disagree(d, m))
			continue;
		x = add("measured-dram", NAN, gm->path, d < m ? "Check the "
		    "model config against the model (model.* in inputs.yaml: "
		    "parameters, bytes per weight, KV heads, batch, lengths): "
		    "MBU counts more bytes than DRAM moved. Else the weights "
		    "were read from L2 or another memory, not DRAM." : "Check "
		    "the model config against the model (model.* in "
		    "inputs.yaml): MBU counts fewer bytes than DRAM moved. "
		    "Else the GPU moves bytes the model arithmetic does not "
		    "know (activations written and read back, unfused "
		    "elementwise kernels, copies): the top kernels say which.",
		    "Stage %s%s: DRAM read + write bandwidth was %.3g%% of peak "
		    "(nsys GPU Metrics), the model arithmetic says %.3g%% "
		    "(MBU): %.3gx %s.", text(mb, i, "stage"), st ? ", steady "
		    "state" : "", d, m, d < m ? m / d : d / m, d < m ? "less "
		    "measured than modelled" : "more measured than modelled");
		ev(x, "DRAM read %.3g%% + write %.3g%% over %s (gpumetrics.tsv), "
		    "MBU %.3g%% (mbu.tsv, %s)", rd, wr, lp_sb_str(&k), m, st ?
		    "steady state" : "mean");
	}
	lp_sb_free(&k);
}

/* Rule missing: what the run lacks, from the tables' "# missing:" and
 * gpu.tsv's "# why:". */
static void
missing(const struct tab *tabs, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < tabs[i].t.ncomments; j++) {
			const char *c = tabs[i].t.comments[j];
			struct f *x;

			if (strncmp(c, "missing:", 8) && strncmp(c, "why:", 4))
				continue;
			x = add("missing", NAN, tabs[i].path, "Give what it names "
			    "and re-run make: only the steps that read it run "
			    "again.", "The run lacks an input.");
			ev(x, "%s", c + (*c == 'm' ? 9 : 5));
		}
}

static int
by_save(const void *a, const void *b)
{
	const struct f *x = a, *y = b;

	if (isnan(x->save) != isnan(y->save))
		return isnan(x->save) ? 1 : -1;
	if (!isnan(x->save) && x->save != y->save)
		return x->save > y->save ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The run's tables, each known by its "# tool:" line. */
struct run {
	struct tab *tabs;
	size_t n;
	const struct tab *st, *sp, *rf, *tk, *rk, *ov, *hs, *gm, *mf, *mb;
	struct lp_peaks pk;
	int have_pk;
};

static void
load_run(struct run *run, char **paths, size_t n)
{
	size_t i;

	memset(run, 0, sizeof *run);
	run->n = n;
	run->tabs = lp_xcalloc(n, sizeof *run->tabs);
	for (i = 0; i < n; i++) {
		struct tab *t = &run->tabs[i];
		const char *tool;

		load(t, paths[i]);
		tool = lp_tsv_comment(&t->t, "tool");
		if (!tool)
			lp_die_at(LP_EXIT_DATA, t->path, 1, 0, "no \"# tool:\" "
			    "line: not a table an lp tool made");
		if (!strcmp(tool, "lp-stages"))
			run->st = t;
		else if (!strcmp(tool, "lp-steps"))
			run->sp = t;
		else if (!strcmp(tool, "lp-roofline"))
			run->rf = t;
		else if (!strcmp(tool, "lp-topk"))
			run->tk = t;
		else if (!strcmp(tool, "lp-ranks"))
			run->rk = t;
		else if (!strcmp(tool, "lp-overlap"))
			run->ov = t;
		else if (!strcmp(tool, "lp-hostside"))
			run->hs = t;
		else if (!strcmp(tool, "lp-mfu"))
			run->mf = t;
		else if (!strcmp(tool, "lp-mbu"))
			run->mb = t;
		/* a table without samples says so and adds nothing */
		else if (!strcmp(tool, "lp-gpumetrics") &&
		    !lp_tsv_comment(&t->t, "omit"))
			run->gm = t;
		else if (!strcmp(tool, "lp-gpu") && !run->have_pk) {
			lp_peaks_read(&run->pk, t->path);
			run->have_pk = 1;
		}
	}
}

/* Rule op-ranges: in a capture with PyTorch op ranges (stages.tsv's
 * "# op_ranges:"), every finding about host time says that the ranges
 * themselves slow the host, and asks for a capture without them first. */
static void
op_ranges(const struct tab *st)
{
	static const char *const host[] = { "launch-bound", "cold-call",
		"host-sync", "graph-bound" };
	const char *c = st ? lp_tsv_comment(&st->t, "op_ranges") : NULL;
	struct lp_sb b = { 0 };
	size_t i, j;

	if (!c)
		return;
	for (i = 0; i < nf; i++)
		for (j = 0; j < sizeof host / sizeof host[0]; j++) {
			if (strcmp(fs[i].rule, host[j]))
				continue;
			lp_sb_reset(&b);
			lp_sb_printf(&b, "%s The capture's %s PyTorch op ranges "
			    "(OPS=aten, nsys --pytorch=autograd-shapes-nvtx) slow "
			    "this host time themselves.", fs[i].head, c);
			free(fs[i].head);
			fs[i].head = lp_xstrdup(lp_sb_str(&b));
			lp_sb_reset(&b);
			lp_sb_printf(&b, "Capture the stage again without the op "
			    "ranges (no OPS=aten) before acting on this: they "
			    "stretch wall times 1.6 to 1.8x (lp(7)), so the host "
			    "time and the saving here are the capture's, not the "
			    "workload's. %s", fs[i].next);
			free(fs[i].next);
			fs[i].next = lp_xstrdup(lp_sb_str(&b));
		}
	lp_sb_free(&b);
}

/* Each rule over the tables it reads, in the order of lp-findings(1). */
static void
apply_rules(const struct run *run, size_t maxk, int imported)
{
	if (run->st)
		launch_bound(run->st, run->hs, run->sp);
	if (run->sp)
		warmup(run->sp, run->st, run->hs);
	if (run->rf)
		kernels(run->rf, run->tk, run->hs, maxk);
	dominant(run->tk, imported);
	if (run->rf && run->have_pk)
		fp32(run->rf, run->tk, &run->pk);
	if (run->rk)
		straggler(run->rk);
	if (run->ov)
		communication(run->ov, run->rk);
	if (run->gm && run->mf)
		measured_tensor(run->gm, run->mf);
	if (run->gm && run->mb)
		measured_dram(run->gm, run->mb);
	op_ranges(run->st);
	missing(run->tabs, run->n);
}

static void
emit_meta(int hostside)
{
	static const struct lp_col cols[] = {
		{ "rank", "#", "int" }, { "rule", "Rule", "text" },
		{ "saving_ns", "Could save (ms)", "ms" },
		{ "finding", "Finding", "text" }, { "evidence", "Evidence", "text" },
		{ "artifact", "From", "code" }, { "next_step", "Next step", "text" },
	};

	lp_tab_meta(out, "title", "Findings and Recommendations");
	lp_tab_meta(out, "tool", "lp-findings");
	lp_tab_meta(out, "source", "the rules of lp-findings(1) over the "
	    "run's tables; each finding names the table its numbers come from");
	lp_tab_meta(out, "note", "Ranked by the time each could save: wall "
	    "time for idle GPU and warm-up, GPU time above the roofline bound "
	    "for a kernel (which shortens the stage only once the GPU is the "
	    "bottleneck). Findings without a time come last. %s A kernel's "
	    "saving is GPU time inside its stage's kernel time: it overlaps "
	    "nothing above, and the kernels' savings add up to no more than "
	    "the stage's kernel time.", hostside ? "A stage's module loading, "
	    "synchronisations and copies, the rest of its idle GPU time and "
	    "its warm-up excess are disjoint parts of its wall time "
	    "(hostside.tsv): their savings do not overlap." : "A stage's idle "
	    "GPU time (launch-bound) leaves out its warm-up excess (warm-up), "
	    "its own or a nested stage's with the same kernels: the two do "
	    "not overlap. Without the host side (hostside.tsv from nsys "
	    "cuda_api_trace) lp cannot split the idle time further.");
	lp_tab_meta(out, "style", "list");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
}

/* The findings as ranked, or one row saying that no rule fired. */
static void
emit_findings(void)
{
	struct lp_row r = { 0 };
	size_t i;

	for (i = 0; i < nf; i++) {
		lp_row_num(&r, (double)(i + 1), 0);
		lp_row_text(&r, fs[i].rule);
		if (isnan(fs[i].save))
			lp_row_na(&r, "this finding is not a time");
		else
			lp_row_num(&r, fs[i].save > 0 ? fs[i].save : 0, 0);
		lp_row_text(&r, fs[i].head);
		lp_row_text(&r, fs[i].evidence ? fs[i].evidence : "");
		lp_row_text(&r, fs[i].artifact);
		lp_row_text(&r, fs[i].next);
		lp_row_end(&r, out);
	}
	if (!nf) {
		lp_row_text(&r, "0");
		lp_row_text(&r, "none");
		lp_row_na(&r, "no rule fired");
		lp_row_text(&r, "No rule fired: no stage leaves the GPU idle, no "
		    "warm-up, no kernel far from its roof, and every input was "
		    "present.");
		lp_row_text(&r, "");
		lp_row_text(&r, "-");
		lp_row_text(&r, "-");
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
}

static void
free_findings(void)
{
	size_t i;

	for (i = 0; i < nf; i++) {
		free(fs[i].head);
		free(fs[i].evidence);
		free(fs[i].artifact);
		free(fs[i].next);
	}
	free(fs);
}

static void
free_run(struct run *run)
{
	size_t i, j;

	for (i = 0; i < run->n; i++) {
		struct tab *t = &run->tabs[i];

		for (j = 0; j < t->n * t->ncol; j++)
			free(t->row[j]);
		free(t->row);
		free(t->line);
		lp_tsv_close(&t->t);
		fclose(t->fp);
	}
	free(run->tabs);
	if (run->have_pk)
		lp_peaks_free(&run->pk);
}

int
main(int argc, char **argv)
{
	struct run run;
	long maxk = 5;
	int c, imported = 0;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((c = getopt(argc, argv, "hIn:")) != -1) {
		switch (c) {
		case 'I': imported = 1; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'n': maxk = lp_strtonum(optarg, 0, 1000, "-n"); break;
		default: lp_usage(synopsis);
		}
	}
	if (optind == argc)
		lp_usage(synopsis);
	load_run(&run, argv + optind, (size_t)(argc - optind));
	apply_rules(&run, (size_t)maxk, imported);
	lp_qsort(fs, nf, sizeof *fs, by_save);
	emit_meta(host_split);
	emit_findings();
	free_findings();
	free_run(&run);
	lp_tab_done(out);
	return 0;
}
