/*
 * lp-findings' rules of host time (hostside.tsv, stages.tsv, steps.tsv):
 * launch-bound, module-loading, host-sync, graph-bound, cold-call and
 * warm-up.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "run.h"
#include "find.h"

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
	struct findings *fs;	/* where its findings go */
	const struct tab *hs;
	const char *stage;
	size_t a, r;
	int warm, steady;
	double inst, rinst;
	double sc;	/* the steady state's per instance times all instances */
	double idle;
	/* the idle time the findings share (avail): idle, or less where the
	 * cap binds (capped): the stage's idle time (wall - kernels, widle)
	 * less the warm-up's excess (wexcess); the savings of module-loading
	 * and host-sync (0: they did not fire), each within what is left of
	 * it, and what the launch-bound or graph-bound one is: the rest */
	double avail, load, sync, bound, widle, wexcess;
	int capped;
	/* steps.tsv is the untraced timing run's: the idle time above is
	 * the untraced step's; added: what the capture added to the steady
	 * instance (untraced.tsv), NAN if not known */
	int untraced;
	double added;
	double sidle;	/* the steady step's idle untraced, as the waterfall's */
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
	x = add(h->fs, "module-loading", load < h->avail ? load : h->avail, hs->path,
	    "Load the CUDA modules "
	    "before the measured work: run the stage once as a warm-up "
	    "(a throw-away pass of the same shapes) or load them eagerly "
	    "(CUDA_MODULE_LOADING=EAGER). A CUDA graph does not remove "
	    "it; at most the loading time is saved, once per process.",
	    "%s spends %.1f ms of its %.1f ms loading CUDA modules.",
	    h->stage, ms(load), ms(cell(hs, h->a, "wall_ns")));
	at_stage(x, h->stage, 1);
	ev(x, "%s, over %.0f instance%s (%.3g%% of the stage's idle "
	    "GPU time)%s", text(hs, h->a, "load_calls"), h->inst, h->inst == 1 ?
	    "" : "s", 100 * load / h->idle, load > h->avail ? "; saving "
	    "capped at the stage's idle GPU time: the rest of the loading "
	    "overlaps the GPU's work" : "");
	return x->save;
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
	x = add(h->fs, "host-sync", sync < h->avail - h->load ? sync : h->avail -
	    h->load, hs->path, "Remove these "
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
	if (x->save < sync)
		lp_sb_printf(&e, "; saving %.3f ms, capped at the stage's idle "
		    "GPU time%s: the rest of the calls overlap the GPU's work",
		    ms(x->save), h->load > 0 ? " less the module loading" : "");
	at_stage(x, h->stage, 0);
	x->pool = h->avail - h->load;
	ev(x, "%s (%s)%s", text(hs, r, "sync_calls"), h->warm && h->steady ?
	    "steady state, times all instances" : "all instances",
	    lp_sb_str(&e));
	lp_sb_free(&e);
	return x->save;
}

/* The saving of launch-bound or graph-bound as its evidence says it:
 * its number, and how it comes from the idle time, or from the cap where
 * that binds (the steady state's mean instance above its median: the
 * warm-up's excess is measured from the median). */
static void
saving_said(struct lp_sb *b, const struct host *h)
{
	lp_sb_printf(b, "Saving %.3f ms: ", ms(h->bound));
	if (h->capped)
		lp_sb_printf(b, "the stage's idle GPU time (wall - kernels, "
		    "%.3f ms) less the warm-up's excess over the median (%.3f ms, "
		    "its own finding)", ms(h->widle), ms(h->wexcess));
	else if (h->warm && h->steady)
		lp_sb_printf(b, "the steady state's idle GPU time times the "
		    "instances (%.3f ms; the first instance's excess is the "
		    "warm-up finding's)", ms(h->idle));
	else
		lp_sb_printf(b, "the idle GPU time (wall - kernels, %.3f ms)",
		    ms(h->idle));
	if (h->load > 0)
		lp_sb_printf(b, ", less the module loading (%.3f ms, its own "
		    "finding)", ms(h->load));
	if (h->sync > 0)
		lp_sb_printf(b, ", less the synchronisations and copies (%.3f "
		    "ms, their own finding)", ms(h->sync));
	if (h->capped)
		lp_sb_printf(b, ": the cap, less than the steady state's idle "
		    "GPU time times the instances (%.3f ms), its mean instance "
		    "being above its median", ms(h->idle));
	if (!(h->bound > 0))
		lp_sb_adds(b, "; nothing is left");
}

/* Where the steps are the untraced run's: the host times of the evidence
 * are the traced capture's, the saving the untraced step's idle time. */
static void
traced_said(struct lp_sb *b, const struct host *h)
{
	if (!h->untraced)
		return;
	lp_sb_adds(b, ". The host times here are the traced capture's");
	if (!isnan(h->added))
		lp_sb_printf(b, ", which added %.3f ms to the %s (untraced.tsv)",
		    ms(h->added), h->steady ? "steady instance" : "stage's "
		    "instance");
	lp_sb_adds(b, ": the saving is out of the untraced step's idle time "
	    "(steps.tsv), never the capture's. A launch call's own time "
	    "untraced is not known: nsys times CUDA calls only while it traces "
	    "them, and tracing lengthens them (node tracing most, per graph "
	    "launch)");
}

/* Rule launch-bound from the host side: where the host time goes decides
 * the advice; the saving is h->bound, the idle time the other two
 * findings leave. */
static void
host_launch(const struct host *h, double busy)
{
	const struct tab *hs = h->hs;
	size_t r = h->r;
	double rinst = h->rinst, bound = h->bound, p50, p90, out_pct, launch_pct;
	struct lp_sb e = { 0 };
	struct f *x;

	p50 = cell(hs, r, "launch_lat_p50_ns");
	p90 = cell(hs, r, "launch_lat_p90_ns");
	out_pct = cell(hs, r, "host_other_pct");
	launch_pct = 100 * cell(hs, r, "api_launch_ns") / cell(hs, r, "wall_ns");
	if (p50 < 50e3 && out_pct + launch_pct >= 50) {
		x = add(h->fs, "launch-bound", bound, hs->path, "Capture the stage in a "
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
		x = add(h->fs, "launch-bound", bound, hs->path, "Capture the stage in a "
		    "CUDA graph (torch.cuda.CUDAGraph, "
		    "torch.compile(mode=\"reduce-overhead\"), cudaGraphLaunch) so "
		    "its launches go out at once; batch more sequences per step "
		    "so each launch does more work.",
		    "%s keeps the GPU busy only %.3g%% of its wall time.", h->stage,
		    busy);
	at_stage(x, h->stage, 0);
	x->pool = h->avail - h->load;
	saving_said(&e, h);
	traced_said(&e, h);
	ev(x, "%s: %.3f ms wall per instance over %.0f instance%s, %.3g%% of "
	    "it in CUDA API calls (launch %.3f ms, synchronisation %.3f ms, copy "
	    "and set %.3f ms, module loading %.3f ms, other %.3f ms per "
	    "instance); %.3f ms of kernels and %.1f launches per instance; "
	    "launch to kernel start p50 %.1f us, p90 %.1f us. %s",
	    h->steady ? "steady state" : "all instances",
	    ms(cell(hs, r, "wall_ns") / rinst), rinst, rinst == 1 ? "" : "s",
	    cell(hs, r, "api_pct"), ms(cell(hs, r, "api_launch_ns") / rinst),
	    ms(cell(hs, r, "api_sync_ns") / rinst), ms(cell(hs, r,
	    "api_memcpy_ns") / rinst), ms(cell(hs, r, "api_load_ns") / rinst),
	    ms(cell(hs, r, "api_other_ns") / rinst), ms(cell(hs, r,
	    "kernel_per_inst_ns")), cell(hs, r, "launches_per_inst"), p50 / 1e3,
	    p90 / 1e3, lp_sb_str(&e));
	lp_sb_free(&e);
}

/* Does hostside.tsv say CUDA graphs ran half the stage's kernel time or
 * more (its row over all instances)? */
static int
graphed_stage(const struct tab *hs, const char *stage)
{
	long a, b;

	return hs && host_rows(hs, stage, &a, &b) && graph_pct(hs, (size_t)a) >= 50;
}

/* The graph-bound advice's last sentence points at the workload timed
 * alone; where the steps are the untraced run's, they are that already. */
static void
untraced_next(struct f *x, const struct host *h)
{
	char *p;
	struct lp_sb b = { 0 };

	if (!h->untraced || !(p = strstr(x->next, " nsys's node tracing")))
		return;
	lp_sb_addn(&b, x->next, (size_t)(p - x->next));
	lp_sb_adds(&b, " The step here is timed untraced (steps.tsv): what "
	    "nsys's tracing adds to each graph launch is not in it "
	    "(untraced.tsv says how much it added).");
	free(x->next);
	x->next = lp_xstrdup(lp_sb_str(&b));
	lp_sb_free(&b);
}

/* What the GPU waits for between replays, per instance, a sentence: the
 * traced launch calls and host work; where the steps are untraced, the
 * untraced idle time first, since tracing lengthens those calls. */
static const char *
waits(struct lp_sb *b, const struct host *h, double launch, double own)
{
	if (h->untraced && !isnan(h->sidle))
		lp_sb_printf(b, "between replays the GPU idles %.3f ms a "
		    "steady step untraced (steps.tsv); in the traced capture, "
		    "which lengthens them, %.3f ms an instance in the graph "
		    "launch calls and %.3f ms in the host's own work.",
		    ms(h->sidle), ms(launch), ms(own));
	else
		lp_sb_printf(b, "between replays the GPU waits %.3f ms an "
		    "instance in the graph launch calls and %.3f ms in the "
		    "host's own work.", ms(launch), ms(own));
	return lp_sb_str(b);
}

/* The graph-bound finding with the advice for what the GPU waits for:
 * its kernels (busy half its wall time or more), the graph launch calls
 * (launch, per instance) or the host's own work between replays (own). */
static struct f *
graph_advice(const struct host *h, double busy, double launch, double own)
{
	const struct tab *hs = h->hs;
	size_t r = h->r;
	struct lp_sb w = { 0 };
	struct f *x;

	if (busy >= 50)		/* its kernels take most of it */
		x = add(h->fs, "graph-bound", h->bound, hs->path, "The stage "
		    "is graphed already and its kernels take most of its time: "
		    "make them faster (the kernel findings: fewer bytes, fuller "
		    "launches, fusion) first. The rest is the GPU waiting for the "
		    "host between replays: launch the next step's graph before "
		    "reading this step's result (an asynchronous copy into pinned "
		    "memory, read a step later), or capture several steps in one "
		    "graph. nsys's node tracing (--cuda-graph-trace=node) lengthens "
		    "each graph launch itself: the workload timed alone (make RUN=x "
		    "alone.tsv) shows the step without it.",
		    "%s runs %.3g%% of its kernel time from CUDA graphs and keeps "
		    "the GPU busy %.3g%% of its wall time: its kernels bound it; "
		    "%s", h->stage, graph_pct(hs, r), busy, waits(&w, h, launch,
		    own));
	else
		x = add(h->fs, "graph-bound", h->bound, hs->path, launch >= own ?
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
		    "between graph replays; %s", h->stage, graph_pct(hs, r), busy,
		    waits(&w, h, launch, own));
	act(x, busy >= 50 ? "Make its kernels faster (the kernel findings)." :
	    launch >= own ? "Launch the next step's graph before reading this "
	    "step's result." : "Move the host's work between replays off the "
	    "critical path.");
	lp_sb_free(&w);
	return x;
}

/* Rule graph-bound: the stage's kernels run from CUDA graphs, yet the GPU
 * idles.  No graph advice (it has them): what bounds it per instance, the
 * graph launch calls, the host's own work between replays and the time
 * the host waits blocked on the GPU; the saving as launch-bound's. */
static void
graph_bound(const struct host *h, double busy)
{
	const struct tab *hs = h->hs;
	size_t r = h->r;
	double n = h->rinst, wall = cell(hs, r, "wall_ns") / n;
	double launch = cell(hs, r, "api_launch_ns") / n;
	double blocked = cell(hs, r, "blocked_ns") / n;
	double kern = cell(hs, r, "kernel_per_inst_ns");
	double own, gl = cell(hs, r, "graph_launches") / n;
	struct lp_sb e = { 0 };
	struct f *x;

	if (isnan(blocked))
		blocked = 0;
	own = wall - launch - blocked;	/* the host's other work */
	x = graph_advice(h, busy, launch, own);
	at_stage(x, h->stage, 0);
	x->pool = h->avail - h->load;
	untraced_next(x, h);
	saving_said(&e, h);
	traced_said(&e, h);
	ev(x, "%s: %.3f ms wall per instance over %.0f instance%s: %.3f ms of "
	    "kernels, %.2f graph launches (%.3f ms in launch calls), first "
	    "kernel %.1f us after the graph launch call starts (p50); the host "
	    "blocked on the GPU %.3f ms (%s); other host time %.3f ms. %s",
	    h->steady ? "steady state" : "all instances", ms(wall), n,
	    n == 1 ? "" : "s", ms(kern), gl, ms(launch), cell(hs, r,
	    "graph_lat_p50_ns") / 1e3, ms(blocked), text(hs, r, "sync_calls"),
	    ms(own), lp_sb_str(&e));
	lp_sb_free(&e);
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

/* Rule cold-call's words, with the host side or without. */
static const char cold_next[] = "Warm it up: run one throw-away pass of "
    "the same shapes before the measured one (or load the modules eagerly, "
    "CUDA_MODULE_LOADING=EAGER), then measure a warm instance. A CUDA graph "
    "needs a warm run to capture, so whether the stage is launch-bound "
    "shows only on a warm instance. At most the excess over the steady rate "
    "is saved.";
static const char cold_act[] = "Warm it up: one throw-away pass of the same "
    "shapes first.";
#define cold_head "%s ran once, cold: %.0f us of host time per launch " \
    "against %.0f us in the steady state of %.*s (%.3gx), so its wall " \
    "time is first-call cost, not launch overhead a CUDA graph removes."

/* Rule cold-call: a stage run once per process, whose host time per
 * launch is at least twice the warmest steady state's, is a cold first
 * call (module loading, allocator growth, autotuning, the framework's
 * first dispatch): a CUDA graph needs a warm run to capture, so its
 * advice and the whole idle time are not what the stage offers.  The
 * saving is the excess over the steady rate (less the loading and the
 * synchronisations, their own findings).  Returns 0 when the rule does
 * not apply. */
static int
cold_call(const struct host *h)
{
	const struct tab *hs = h->hs;
	const char *ref = NULL;
	double wall = cell(hs, h->a, "wall_ns"), k = cell(hs, h->a, "kernel_ns");
	double l = cell(hs, h->a, "launches"), ps, pc, warm_idle, save;
	struct lp_sb e = { 0 };
	struct f *x;
	size_t n;

	if (h->steady || h->rinst != 1 || !(l > 0))
		return 0;
	ps = steady_host_per_launch(hs, &ref);
	pc = (wall - k) / l;
	if (isnan(ps) || !(ps > 0) || !(pc >= 2 * ps))
		return 0;
	warm_idle = l * ps;
	save = wall - k - warm_idle - h->load - h->sync;
	if (h->load > 0)
		lp_sb_printf(&e, ", less the module loading (%.3f ms, its own "
		    "finding)", ms(h->load));
	if (h->sync > 0)
		lp_sb_printf(&e, ", less the synchronisations and copies (%.3f "
		    "ms, their own finding)", ms(h->sync));
	if (save > h->bound) {
		save = h->bound;
		lp_sb_printf(&e, ": the cap, what the launch-bound saving would "
		    "be");
	}
	if (save < 0)
		save = 0;
	n = strlen(ref) - 7;
	x = add(h->fs, "cold-call", save, hs->path, cold_next, cold_head, h->stage,
	    pc / 1e3, ps / 1e3, (int)n, ref, pc / ps);
	act(x, cold_act);
	at_stage(x, h->stage, 1);
	ev(x, "one instance per process: %.3f ms wall, %.3f ms of kernels, %.0f "
	    "launches, launch to kernel start p50 %.1f us; at the steady rate "
	    "of %.*s a warm instance would leave the GPU idle about %.3f ms "
	    "(launches x host time per launch): the launch-bound advice "
	    "(CUDA graphs) is for that part, measured warm. Saving %.3f ms: "
	    "the idle GPU time (wall - kernels, %.3f ms) less that%s", ms(wall),
	    ms(k), l, cell(hs, h->a, "launch_lat_p50_ns") / 1e3, (int)n, ref,
	    ms(warm_idle), ms(save), ms(wall - k), lp_sb_str(&e));
	lp_sb_free(&e);
	return 1;
}

/* Whether steps.tsv is the untraced run's, what the capture added to the
 * stage (untraced.tsv, NAN if not known) and the steady step's untraced
 * idle time (its median less the capture's kernels a steady instance). */
static void
untraced_of(struct host *h, const struct tab *sp, const struct tab *ut)
{
	const char *tm = sp ? lp_tsv_comment(&sp->t, "timing") : NULL;
	long u = ut ? row_of(ut, "stage", h->stage) : -1;

	h->untraced = tm && !strcmp(tm, "untraced");
	h->added = u >= 0 ? cell(ut, (size_t)u, "change_ns") : NAN;
	h->sidle = NAN;
	if (h->untraced && h->steady)
		h->sidle = cell(sp, (size_t)row_of(sp, "stage", h->stage),
		    "steady_ns") - cell(h->hs, h->r, "kernel_per_inst_ns");
	if (h->sidle < 0)
		h->sidle = 0;
}

/* The stage's idle GPU time (stages.tsv's row i, or the steady state's
 * times the instances where the warm-up finding speaks for the first) and
 * the part of it the findings share (struct host's avail; h's other
 * fields zero: not capped, no warm-up excess). */
static void
idle_of(struct host *h, const struct tab *s, size_t i, const struct tab *sp)
{
	double wall = cell(s, i, "wall_total_ns"), k = cell(s, i, "kernel_ns");
	double kr = cell(h->hs, h->warm && h->steady ? h->r : h->a, "kernel_ns");

	/* untraced: the steady instances as the untraced run times them
	 * (its median), less the capture's kernels */
	if (h->warm && h->steady && !isnan(kr) && h->untraced)
		h->idle = (cell(sp, (size_t)row_of(sp, "stage", h->stage),
		    "steady_ns") * h->rinst - kr) * h->sc;
	else if (h->warm && h->steady && !isnan(kr))
		h->idle = (cell(h->hs, h->r, "wall_ns") - kr) * h->sc;
	else
		h->idle = wall - k;
	if (!(h->idle > 0))
		h->idle = 0;
	h->avail = h->idle;
	h->widle = wall - k;
	/* the steady state's mean may exceed its median: never more than
	 * what the warm-up finding leaves of the stage's idle time */
	if (h->warm) {
		long w = row_of(sp, "stage", h->stage);

		h->wexcess = cell(sp, (size_t)w, "first_ns") - cell(sp, (size_t)w,
		    "steady_ns");
		if (h->widle - h->wexcess < h->avail) {
			h->avail = h->widle - h->wexcess;
			h->capped = 1;
		}
	}
	if (!(h->avail > 0))
		h->avail = 0;
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
host_side(struct findings *fs, const struct tab *s, size_t i,
    const struct tab *hs, const struct tab *sp, const struct tab *ut)
{
	const char *stage = text(s, i, "stage");
	double busy = cell(s, i, "busy_pct");
	struct host h;
	long a, b;

	if (!host_rows(hs, stage, &a, &b))
		return 0;
	h = (struct host){ .fs = fs, .hs = hs, .stage = stage, .warm =
	    is_warm(sp, stage), .a = (size_t)a, .r = (size_t)(b >= 0 ? b : a),
	    .steady = b >= 0 };
	h.inst = cell(hs, h.a, "instances");
	h.rinst = cell(hs, h.r, "instances");
	/* the steady state per instance, times all instances, when the
	 * warm-up finding speaks for the first */
	h.sc = h.warm && h.steady && h.rinst > 0 ? h.inst / h.rinst : 1;
	untraced_of(&h, sp, ut);
	idle_of(&h, s, i, sp);
	/* the three share it: none takes more than the others leave */
	h.load = module_loading(&h);
	h.sync = host_sync(&h);
	h.bound = h.avail - h.load - h.sync;
	if (h.bound < 0)
		h.bound = 0;
	/* its kernels run from CUDA graphs: no advice to capture one */
	if (graph_pct(hs, h.r) >= 50)
		graph_bound(&h, busy);
	else if (!cold_call(&h))
		host_launch(&h, busy);
	return 1;
}

/* The warmest steady state without the host side: of the stages with
 * one (steps.tsv's median of the instances after the first), the least
 * time outside their kernels per launch, (steady - kernels per instance)
 * / launches per instance (stages.tsv), and its stage; NAN if none. */
static double
steady_per_launch(const struct tab *s, const struct tab *sp,
    const char **stage)
{
	double best = NAN;
	size_t i;

	for (i = 0; sp && i < sp->n; i++) {
		long r = row_of(s, "stage", text(sp, i, "stage"));
		double st = cell(sp, i, "steady_ns"), p;

		if (r < 0 || !(cell(s, (size_t)r, "launches_per_inst") > 0) ||
		    !(cell(s, (size_t)r, "instances") > 1) || isnan(st))
			continue;
		p = (st - cell(s, (size_t)r, "kernel_ns") / cell(s, (size_t)r,
		    "instances")) / cell(s, (size_t)r, "launches_per_inst");
		if (!isnan(p) && (isnan(best) || p < best)) {
			best = p;
			*stage = text(sp, i, "stage");
		}
	}
	return best;
}

/* Rule cold-call without the host side (stages.tsv, steps.tsv): a stage
 * run once per process, no loop around a nested stage, whose time outside
 * its kernels per launch is at least twice the warmest steady state's.
 * The demo's prefill: 1267.6 ms for 85 launches, 14.9 ms each against
 * decode_step's 0.745: module loading and first calls, which a CUDA
 * graph does not remove.  Returns 0 when the rule does not apply. */
static int
cold_stage(struct findings *fs, const struct tab *s, size_t i,
    const struct tab *sp)
{
	double wall = cell(s, i, "wall_total_ns"), k = cell(s, i, "kernel_ns");
	double l = cell(s, i, "launches"), inst = cell(s, i, "instances");
	double procs = lp_tsv_comment(&s->t, "processes") ?
	    atof(lp_tsv_comment(&s->t, "processes")) : 1, ps, pc, warm_idle;
	const char *ref = NULL;
	struct f *x;

	if (!(l > 0) || inst != (procs >= 1 ? procs : 1) ||
	    row_of(sp, "stage", text(s, i, "stage")) < 0 ||
	    !isnan(cell(sp, (size_t)row_of(sp, "stage", text(s, i, "stage")),
	    "steady_ns")))
		return 0;
	ps = steady_per_launch(s, sp, &ref);
	pc = (wall - k) / l;
	if (isnan(ps) || !(ps > 0) || !(pc >= 2 * ps) || !strcmp(ref, text(s, i,
	    "stage")))
		return 0;
	warm_idle = l * ps;
	x = add(fs, "cold-call", wall - k - warm_idle > 0 ? wall - k - warm_idle :
	    0, s->path, cold_next, cold_head, text(s, i, "stage"), pc / 1e3,
	    ps / 1e3, (int)strlen(ref), ref, pc / ps);
	act(x, cold_act);
	at_stage(x, text(s, i, "stage"), 1);
	ev(x, "%s: %.3f ms wall, %.3f ms of kernels, %.0f launches; the steady "
	    "state of %s (%s: its median instance after the first, less its "
	    "kernels, over its launches) at %.0f us a launch would leave the "
	    "GPU idle about %.3f ms in warm instances: the launch-bound advice "
	    "(CUDA graphs) is for that part, measured warm. Saving %.3f ms: "
	    "the idle GPU time (wall - kernels, %.3f ms) less that", inst > 1 ?
	    "one instance per process, all of them" : "one instance", ms(wall),
	    ms(k), l, ref, sp->path, ps / 1e3, ms(warm_idle), ms(x->save),
	    ms(wall - k));
	return 1;
}

/* The warm-up finding of stage i, or of a nested one with the same
 * kernels (decode_step in decode_all), is in its idle time: counted there
 * once, not in launch-bound's saving again.  Its excess, 0 if none. */
static double
nested_warm(const struct tab *s, size_t i, const struct tab *sp)
{
	double k = cell(s, i, "kernel_ns"), l = cell(s, i, "launches"), warm = 0;
	size_t j;

	for (j = i; j < s->n && (j == i || (cell(s, j, "kernel_ns") == k &&
	    cell(s, j, "launches") == l)); j++) {
		long w = row_of(sp, "stage", text(s, j, "stage"));
		double e;

		if (w >= 0 && is_warm(sp, text(s, j, "stage")) &&
		    (e = cell(sp, (size_t)w, "first_ns") - cell(sp, (size_t)w,
		    "steady_ns")) > warm)
			warm = e;
	}
	return warm;
}

/* Rule launch-bound without the host side: the idle GPU time less the
 * warm-up's excess (warm), said with its numbers where it is not wall -
 * kernels. */
static void
plain_launch(struct findings *fs, const struct tab *s, size_t i, double warm)
{
	double busy = cell(s, i, "busy_pct"), wall = cell(s, i, "wall_total_ns");
	double k = cell(s, i, "kernel_ns"), l = cell(s, i, "launches");
	double lpi = cell(s, i, "launches_per_inst"), inst = cell(s, i,
	    "instances");
	struct lp_sb e = { 0 };
	struct f *x;

	x = add(fs, "launch-bound", wall - k - warm > 0 ? wall - k - warm : 0,
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
	at_stage(x, text(s, i, "stage"), 0);
	x->pool = x->save;
	if (warm > 0)	/* the saving is not wall - kernels: said */
		lp_sb_printf(&e, "; saving %.3f ms: the idle GPU time (%.3f "
		    "ms) less the warm-up's excess (%.3f ms, its own "
		    "finding)", ms(x->save), ms(wall - k), ms(warm));
	ev(x, "%.3f ms of kernels in %.3f ms of wall time over %.0f "
	    "launches (%.1f per instance over %.0f instance%s; mean "
	    "kernel %.2f us)%s", ms(k), ms(wall), l, lpi, inst, inst == 1 ?
	    "" : "s", l > 0 ? k / l / 1e3 : 0, lp_sb_str(&e));
	lp_sb_free(&e);
}

/* Rule launch-bound: a stage whose GPU is mostly idle. */
void
host_launch_bound(struct findings *fs, const struct tab *s,
    const struct tab *hs, const struct tab *sp, const struct tab *ut)
{
	double seen_k = -1, seen_l = -1;
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		double busy = cell(s, i, "busy_pct"), wall = cell(s, i,
		    "wall_total_ns"), k = cell(s, i, "kernel_ns");
		double l = cell(s, i, "launches"), warm;
		size_t best = i;
		long a, b;

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
		if (hs && host_side(fs, s, best, hs, sp, ut)) {
			fs->host_split = 1;
			continue;
		}
		warm = nested_warm(s, i, sp);
		/* a stage run once, cold, with no loop inside: first-call
		 * cost, not launch overhead */
		if (!warm && (i + 1 >= s->n || cell(s, i + 1, "kernel_ns") != k ||
		    cell(s, i + 1, "launches") != l) && cold_stage(fs, s, i, sp))
			continue;
		plain_launch(fs, s, i, warm);
	}
}

/* The module loading in the first instance of each process, per
 * process, from hs's rows of all instances (*a) and of the steady state
 * (*b); NAN where hs cannot tell. */
static double
first_load(const struct tab *hs, const char *stage, long *a, long *b)
{
	double n;

	if (!host_rows(hs, stage, a, b) || *b < 0)
		return NAN;
	n = cell(hs, (size_t)*a, "instances") - cell(hs, (size_t)*b,
	    "instances");
	return n > 0 ? (cell(hs, (size_t)*a, "api_load_ns") - cell(hs,
	    (size_t)*b, "api_load_ns")) / n : NAN;
}

/* Rule warm-up: the first instance far above the steady state; with the
 * host side known, the module loading inside it named. */
void
host_warmup(struct findings *fs, const struct tab *t, const struct tab *s,
    const struct tab *hs)
{
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		const char *stage = text(t, i, "stage");
		double first = cell(t, i, "first_ns"), st = cell(t, i, "steady_ns");
		double tok = cell(t, i, "tokens_per_s"), tot = NAN, load;
		long a, b;
		struct lp_sb e = { 0 };
		struct f *x;

		if (strcmp(text(t, i, "warmup"), "yes"))
			continue;
		for (j = 0; s && j < s->n; j++)
			if (!strcmp(text(s, j, "stage"), stage))
				tot = cell(s, j, "wall_total_ns");
		load = first_load(hs, stage, &a, &b);
		if (load > 0 && load >= 0.05 * (first - st)) {
			x = add(fs, "warm-up", first - st, hs->path, "Load the CUDA "
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
			x = add(fs, "warm-up", first - st, t->path, "Run one throw-away "
			    "generation before the measured one or load CUDA modules "
			    "eagerly (CUDA_MODULE_LOADING=EAGER), and quote the "
			    "steady state, not the mean. A CUDA graph does not "
			    "remove a first step's cost: capturing one needs a warm "
			    "run.",
			    "The first %s took %.3gx the steady state%s.", stage,
			    first / st, tot > 0 && (first - st) / tot > 0.2 ?
			    ": warm-up dominates this short run" : "");
		if (e.len)	/* the times are steps.tsv's */
			lp_sb_printf(&e, "from %s: ", t->path);
		at_stage(x, stage, 1);
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
