/*
 * lp-waterfall: waterfall.tsv, where a step's time goes above what the
 * hardware allows.  For the decode step (its steady state) and the
 * prefill: the physical floor (the bytes the step must move, from the
 * model config, over the GPU's DRAM bandwidth, or its model FLOPs over
 * the dtype's peak, whichever is larger), then the GEMM and attention
 * kernels' time above that floor, the other kernels by operator class,
 * and the GPU's idle time, split by what the host was doing while the GPU
 * idled (hostside.tsv).
 * The parts add up to the measured step by construction; each names the
 * table it comes from.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"
#include "prec.h"

static const char synopsis[] = "lp-waterfall [-F figure] [-b dram_bw.tsv] "
    "-g gpu.tsv -i inputs.yaml -s stages.tsv -t steps.tsv [-H hostside.tsv] "
    "[-u untraced.tsv] [-o operators.tsv -c operators.yaml]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */
static struct lp_ops oc;	/* -c: which classes do the floor's work */
static struct lp_bwmeas bwm;	/* -b: the measured DRAM bandwidth, shown */

/* The stages a step is measured for, one column pair each. */
#define NST 2
static const char *const stname[NST] = { "decode_step", "prefill" };

static const struct lp_col cols[] = {
	{ "part", "Part of the step", "text" },
	{ "decode_step_ns", "decode_step (ms)", "ms" },
	{ "decode_step_pct", "Share", "pct" },
	{ "prefill_ns", "prefill (ms)", "ms" },
	{ "prefill_pct", "Share", "pct" },
	{ "from", "From", "code" },
	{ "kind", "Kind", "hide" },
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* A row: a part of the step, its time in each stage (have: measured). */
struct wpart {
	char *name;
	int rank;		/* rows go in this order, then as they come */
	double ns[NST];
	int have[NST];
	struct lp_sb from;
};
static struct wpart *wp;
static size_t nwp;
static double stepv[NST];	/* each stage's step, 0 before it is known */
static char *why[NST];		/* why a stage has no parts, or NULL */
static struct lp_sb floors;	/* what each stage's floor is */
static int untraced;		/* the steps are the untraced run's */
static int ranked;		/* decode_step runs in several processes */
static struct lp_sb over;	/* what the capture added (-u), said */

/* operators.tsv: GPU time per operator class in the profiled stage. */
struct opclass {
	char *name;
	double ns;
};

/* hostside.tsv's row for a stage ("decode_step:steady"), as sums over its
 * instances: the GPU's idle time and its parts by what the host thread
 * was doing then (inside a launch call, a synchronisation or copy, module
 * loading, another call, outside the API); NAN where the table has no
 * number. */
struct host {
	double kern, idle, launch, sync, copy, load, other, outside;
	int api;		/* the API columns are numbers */
	int split;		/* so are the idle columns */
	const char *why;	/* why the idle is not split */
};

static double
num(const struct lp_tsv *t, const char *col)
{
	int c = lp_csv_col(&t->hdr, col);
	double v;

	return c >= 0 && lp_tab_num(t, c, &v) ? v : NAN;
}

static void
host_get(const char *path, const char *key, struct host *h)
{
	struct lp_tsv t;
	FILE *fp;
	int c;

	memset(h, 0, sizeof *h);
	h->kern = NAN;
	h->why = "the run has no cuda_api_trace";
	if (!path)
		return;
	fp = lp_tab_open(&t, path, "lp-hostside");
	lp_tab_expect(&t, "lp-hostside");
	lp_csv_need(&t.hdr, "stage", "lp-hostside output");
	while (lp_tab_next(&t)) {
		if (strcmp(lp_tsv_get(&t, lp_csv_col(&t.hdr, "stage")), key))
			continue;
		h->kern = num(&t, "kernel_per_inst_ns");
		h->api = isfinite(num(&t, "api_ns"));
		h->idle = num(&t, "idle_ns");
		h->launch = num(&t, "idle_launch_ns");
		h->sync = num(&t, "idle_sync_ns");
		h->copy = num(&t, "idle_memcpy_ns");
		h->load = num(&t, "idle_load_ns");
		h->other = num(&t, "idle_other_ns");
		h->outside = num(&t, "idle_host_ns");
		h->split = isfinite(h->idle) && h->idle > 0 &&
		    isfinite(h->launch) && isfinite(h->sync) &&
		    isfinite(h->copy) && isfinite(h->load) &&
		    isfinite(h->other) && isfinite(h->outside);
		c = lp_csv_col(&t.hdr, "idle_ns");
		if (h->split || !h->api)
			;
		else if (c < 0)
			h->why = "hostside.tsv has no idle_ns";
		else if (strstr(lp_tsv_get(&t, c), "not known"))
			h->why = "the kernels' times are not known, see hostside.tsv";
		else
			h->why = "the traces show no idle time";
		break;
	}
	lp_tsv_close(&t);
	fclose(fp);
}

static size_t
ops_get(const char *path, struct opclass **ops, double *total)
{
	struct lp_tsv t;
	FILE *fp;
	size_t n = 0;
	int cc, ct;

	*ops = NULL;
	*total = 0;
	if (!path)
		return 0;
	fp = lp_tab_open(&t, path, "lp-ops");
	lp_tab_expect(&t, "lp-ops");
	cc = lp_csv_need(&t.hdr, "class", "lp-ops output");
	ct = lp_csv_need(&t.hdr, "time_ns", "lp-ops output");
	while (lp_tab_next(&t)) {
		double v;

		if (!lp_tab_num(&t, ct, &v))
			continue;
		*ops = lp_xrealloc(*ops, (n + 1) * sizeof **ops);
		(*ops)[n].name = lp_xstrdup(lp_tsv_get(&t, cc));
		(*ops)[n++].ns = v;
		*total += v;
	}
	lp_tsv_close(&t);
	fclose(fp);
	return n;
}

/* The order of the rows: the step, its floor, the kernels above it,
 * the other kernels, the GPU's idle time. */
static int
rank_of(const char *what)
{
	return !strcmp(what, "Measured step") ? 0 : !strncmp(what, "Floor", 5) ?
	    1 : strstr(what, "above the floor") ? 2 : !strncmp(what, "GPU idle",
	    8) ? 4 : 3;
}

/* What a part is, for a verdict taken from the parts (lp-brief): the
 * step, its floor, kernels above it, communication kernels, idle GPU. */
static const char *
kind_of(const char *what)
{
	static const char *const k[] = { "step", "floor", "kernels",
		"kernels", "idle" };
	int rk = rank_of(what);
	size_t n = strlen(what), sl = strlen(" kernels");
	char *cls;
	int comm = 0;

	/* a class's part is "CLASS kernels" (operators.tsv's classes) */
	if (rk == 3 && oc.n && n > sl && !strcmp(what + n - sl, " kernels")) {
		cls = lp_xstrdup(what);
		cls[n - sl] = '\0';
		comm = lp_ops_class_comm(&oc, cls);
		free(cls);
	}
	return comm ? "communication" : k[rk];
}

static void
part(int st, const char *what, double ns, const char *from)
{
	size_t i, j;

	for (i = 0; i < nwp && strcmp(wp[i].name, what); i++)
		;
	if (i == nwp) {
		int rk = rank_of(what);

		for (i = 0; i < nwp && wp[i].rank <= rk; i++)
			;
		wp = lp_xreallocarray(wp, nwp + 1, sizeof *wp);
		for (j = nwp++; j > i; j--)
			wp[j] = wp[j - 1];
		memset(&wp[i], 0, sizeof *wp);
		wp[i].name = lp_xstrdup(what);
		wp[i].rank = rk;
	}
	wp[i].ns[st] = ns;
	wp[i].have[st] = 1;
	if (!strstr(lp_sb_str(&wp[i].from), from))
		lp_sb_printf(&wp[i].from, "%s%s", wp[i].from.len ? " " : "",
		    from);
}

/* The figure in words, for its alt text: each step and its parts by
 * kind ("decode_step 63.579 ms: floor 0.028 ms, kernels above it 0.233 ms,
 * GPU idle 63.318 ms"). */
static void
alt(void)
{
	static const char *const kinds[] = { "floor", "kernels",
		"communication", "idle" };
	static const char *const said[] = { "floor", "kernels above it",
		"communication", "GPU idle" };
	struct lp_sb b = { 0 };
	double v[4];
	size_t i, k;
	int st, n;

	for (st = 0; st < NST; st++) {
		if (why[st] || !(stepv[st] > 0))
			continue;
		memset(v, 0, sizeof v);
		for (i = 0; i < nwp; i++)
			for (k = 0; k < 4; k++)
				if (wp[i].have[st] &&
				    !strcmp(kind_of(wp[i].name), kinds[k]))
					v[k] += wp[i].ns[st];
		lp_sb_printf(&b, "%s%s %.3f ms:", b.len ? "; " : "",
		    stname[st], stepv[st] / 1e6);
		for (k = n = 0; k < 4; k++)
			if (v[k] > 0 || k != 2)
				lp_sb_printf(&b, "%s %s %.3f ms", n++ ? "," : "",
				    said[k], v[k] / 1e6);
	}
	if (b.len)
		lp_tab_meta(out, "alt", "Where each step's time goes: %s",
		    lp_sb_str(&b));
	lp_sb_free(&b);
}

static void
na(int st, const char *fmt, const char *arg)
{
	struct lp_sb b = { 0 };

	lp_sb_printf(&b, fmt, arg);
	why[st] = lp_xstrdup(lp_sb_str(&b));
	lp_sb_free(&b);
}

static void
emit(void)
{
	size_t i;
	int st;

	if (!nwp)
		part(0, "Measured step", 0, "-"), wp[0].have[0] = 0;
	for (i = 0; i < nwp; i++) {
		struct lp_row r = { { 0 }, 0 };

		lp_row_text(&r, wp[i].name);
		for (st = 0; st < NST; st++) {
			if (why[st]) {	/* the share for the same reason */
				lp_row_text(&r, why[st]);
				lp_row_text(&r, why[st]);
			} else if (!wp[i].have[st]) {
				lp_row_text(&r, "-");
				lp_row_text(&r, "-");
			} else {
				lp_row_num(&r, wp[i].ns[st], 1);
				lp_row_g(&r, 100 * wp[i].ns[st] / stepv[st]);
			}
		}
		lp_row_text(&r, wp[i].from.len ? lp_sb_str(&wp[i].from) : "-");
		lp_row_text(&r, kind_of(wp[i].name));
		lp_row_end(&r, out);
		lp_sb_free(&r.b);
		free(wp[i].name);
		lp_sb_free(&wp[i].from);
	}
	free(wp);
	for (st = 0; st < NST; st++)
		free(why[st]);
}

/* The step's GPU idle time, split as the traces' idle time inside the
 * stage's instances falls in what the host thread was doing: inside a
 * launch call, a synchronisation or copy, module loading, or its own work
 * (outside the API, or another call).  Where hostside.tsv has no split,
 * one row says why. */
static void
idle_parts(int stage, double idle, const struct host *h)
{
	struct lp_sb b = { 0 };
	double w = h->idle;

	if (!h->split) {
		lp_sb_printf(&b, "GPU idle (not split: %s)", h->why);
		part(stage, lp_sb_str(&b), idle, h->api ? "hostside.tsv" :
		    "stages.tsv");
		lp_sb_free(&b);
		return;
	}
	part(stage, "GPU idle: launch calls", idle * h->launch / w,
	    "hostside.tsv");
	part(stage, "GPU idle: synchronisation and copies", idle * (h->sync +
	    h->copy) / w, "hostside.tsv");
	part(stage, "GPU idle: module loading", idle * h->load / w,
	    "hostside.tsv");
	part(stage, "GPU idle: the host's own work (and other CUDA calls)",
	    idle * (h->other + h->outside) / w, "hostside.tsv");
}

/* One stage's parts.  step: the step's time; kern: kernel time per step;
 * floor: the physical floor; by_class: split the kernels by operator. */
static void
stage_parts(int stage, double step, const char *step_from,
    double kern, const char *kern_from, double floor,
    const struct opclass *ops, size_t nops, double optotal,
    const struct host *h)
{
	double idle = step - kern, above, gemm = 0, rest;
	size_t i;

	stepv[stage] = step;
	part(stage, "Measured step", step, step_from);
	if (ops && nops && optotal > 0) {
		for (i = 0; i < nops; i++)
			if (lp_ops_is_floor(&oc, ops[i].name))
				gemm += kern * ops[i].ns / optotal;
	} else
		gemm = kern;
	/* the floor is the work GEMMs and attention must do; where they
	 * beat it, the other kernels' bytes are part of the floor too */
	if (floor > kern)
		floor = kern;
	part(stage, "Floor: the step's bytes or FLOPs at the GPU's peak", floor,
	    "inputs.yaml gpu.tsv");
	above = gemm - floor;
	rest = 0;
	if (above < 0) {
		rest = -above;		/* taken from the other kernels */
		above = 0;
	}
	part(stage, ops && nops ? "GEMM and attention kernels above the floor" :
	    "Kernels above the floor", above, kern_from);
	if (ops && nops && optotal > 0) {
		double others = kern - gemm, small = 0;
		int nsmall = 0;

		for (i = 0; i < nops; i++) {
			struct lp_sb b = { 0 };
			double v;

			if (lp_ops_is_floor(&oc, ops[i].name))
				continue;
			v = kern * ops[i].ns / optotal;
			if (others > 0)
				v -= rest * v / others;
			/* a class under 1 % of the step is one of "the others" */
			if (v < step / 100) {
				small += v;
				nsmall++;
				continue;
			}
			lp_sb_printf(&b, "%s kernels", ops[i].name);
			part(stage, lp_sb_str(&b), v, "operators.tsv");
			lp_sb_free(&b);
		}
		if (nsmall)
			part(stage, "Other kernels (classes each under 1 % of the "
			    "step)", small, "operators.tsv");
	}
	idle_parts(stage, idle > 0 ? idle : 0, h);
}

/* Stage st's row in stages.tsv and steps.tsv, or NULL where it can have
 * no parts (said in its bar: na). */
static const struct lp_stagerow *
stage_row(const struct lp_perf *p, int st)
{
	const struct lp_stagerow *s = lp_stagetab_get(p->rows, p->n,
	    stname[st]);
	double step;

	if (!s) {
		na(st, "n/a because the run has no stage %s", stname[st]);
		return NULL;
	}
	step = st == 0 ? s->steady : s->mean;
	if (!isfinite(step) || !(step > 0)) {
		na(st, "n/a because %s has no steady state (steps.tsv)",
		    s->stage);
		return NULL;
	}
	if (s->procs > 1) {
		na(st, "n/a because %s runs in several processes: its floor is one "
		    "GPU's, not theirs (rank_waterfall.tsv: a bar a rank)",
		    s->stage);
		ranked |= st == 0;
		return NULL;
	}
	return s;
}

/* Each stage's parts: its step, kernel time per step and floor (the
 * larger of the model's bytes over the DRAM bandwidth and its FLOPs over
 * the dense peak), or why it has none; the floors said in floors. */
static void
stages(const struct lp_perf *p, const char *hpath, const struct opclass *ops,
    size_t nops, double optotal)
{
	double w, kv, bytes, bw, peak;
	int fp, st;

	bw = p->pk.bw;
	fp = p->m.dtype ? lp_fp_of_dtype(p->m.dtype) : -1;
	peak = fp >= 0 ? lp_peak_of(&p->pk, fp) : 0;

	if (p->m.missing)
		for (st = 0; st < NST; st++)
			na(st, "n/a because the model config lacks %s (MODEL=NAME)",
			    p->m.missing);
	else if (!(bw > 0))
		for (st = 0; st < NST; st++)
			na(st, "n/a because %s", p->pk.why ? p->pk.why :
			    "gpu.tsv has no DRAM bandwidth");
	bytes = p->m.missing ? 0 : lp_model_step_bytes(&p->m, &w, &kv);
	for (st = 0; !p->m.missing && bw > 0 && st < NST; st++) {
		const struct lp_stagerow *s = stage_row(p, st);
		struct host h;
		struct lp_sb key = { 0 };
		double step, kern, flop, floor_b, floor_f;
		int decode = st == 0;

		if (!s)
			continue;
		step = decode ? s->steady : s->mean;
		flop = lp_model_flops(&p->m, s->stage);
		lp_sb_printf(&key, "%s%s", s->stage, decode ? ":steady" : "");
		host_get(hpath, lp_sb_str(&key), &h);
		lp_sb_free(&key);
		kern = isfinite(h.kern) ? h.kern : s->kernel / s->inst;
		floor_b = (decode ? bytes : w) / bw * 1e9;
		floor_f = peak > 0 ? flop / peak * 1e9 : 0;
		if (floor_f > floor_b)
			lp_sb_printf(&floors, "%s%s %.4g GFLOP at the %s peak",
			    floors.len ? ", " : "", s->stage, flop / 1e9,
			    p->m.dtype);
		else
			lp_sb_printf(&floors, "%s%s %.4g MB%s at %.3g TB/s",
			    floors.len ? ", " : "", s->stage, (decode ? bytes :
			    w) / 1e6, decode ? " (weights, KV cache)" : "",
			    bw / 1e12);
		untraced |= s->untraced;
		if (s->untraced && kern > step)
			lp_sb_printf(&over, "%s%s: the capture's kernel time a "
			    "step (%.3f ms) exceeds the untraced step (%.3f ms): "
			    "the tracer lengthened kernels, so the kernel parts "
			    "exceed the step and its idle time reads 0",
			    over.len ? "; " : "", s->stage, kern / 1e6,
			    step / 1e6);
		stage_parts(st, step, decode || s->untraced ? "steps.tsv" :
		    "stages.tsv", kern,
		    isfinite(h.kern) ? "hostside.tsv" : "stages.tsv",
		    floor_f > floor_b ? floor_f : floor_b, decode ? ops : NULL,
		    decode ? nops : 0, optotal, &h);
	}
}

/* What the capture added to each stage's step, from untraced.tsv, in a
 * sentence: it is beside the parts, not one of them. */
static void
overhead_read(const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-untraced");
	int cs, cc, ct, cu;
	struct lp_sb b = { 0 };
	double d, tr, un;
	int st;

	lp_tab_expect(&t, "lp-untraced");
	cs = lp_csv_need(&t.hdr, "stage", "lp-untraced output");
	cc = lp_csv_need(&t.hdr, "change_ns", "lp-untraced output");
	ct = lp_csv_need(&t.hdr, "traced_ns", "lp-untraced output");
	cu = lp_csv_need(&t.hdr, "untraced_ns", "lp-untraced output");
	while (lp_tab_next(&t))
		for (st = 0; st < NST; st++)
			if (!strcmp(lp_tsv_get(&t, cs), stname[st]) &&
			    lp_tab_num(&t, cc, &d) && lp_tab_num(&t, ct, &tr) &&
			    lp_tab_num(&t, cu, &un))
				lp_sb_printf(&b, "%s%s %+.3f ms (%.3f ms traced, "
				    "%.3f ms untraced)", b.len ? ", " : "",
				    stname[st], d / 1e6, tr / 1e6, un / 1e6);
	lp_tsv_close(&t);
	fclose(fp);
	if (b.len)
		lp_sb_printf(&over, "%sCapture overhead, beside the parts and "
		    "not in them: %s (%s; below 0: the workload's run-to-run "
		    "spread, not an overhead)", over.len ? "; " : "",
		    lp_sb_str(&b), path);
	lp_sb_free(&b);
}

/* The table's # lines: its sources, how its parts add up, the figure. */
static void
emit_meta(const struct lp_perf *p, const char *hpath, const char *opath,
    size_t nops, const char *fig)
{
	lp_tab_meta(out, "title", "Where Each Step's Time Goes");
	lp_tab_meta(out, "tool", "lp-waterfall");
	lp_tab_meta(out, "source", "step times from %s (decode_step: its "
	    "steady state, the median instance after the first) and %s "
	    "(prefill: its mean)%s; kernel time per step from %s%s; the floor "
	    "from the model config in %s and the peaks in %s%s%s", p->tpath,
	    untraced ? p->tpath : p->spath, untraced ? ", both the untraced "
	    "timing run's (the workload's own times)" : "", hpath ? hpath :
	    p->spath, hpath ?
	    " (the steady instances' mean)" : "", p->ipath, p->gpath,
	    nops ? "; operator classes from " : "", nops ? opath : "");
	lp_tab_meta(out, "note", "Parts add up to the step (lp-waterfall(1))%s"
	    "%s.%s", floors.len ? "; floor: " : "", lp_sb_str(&floors),
	    untraced && hpath ? " GPU idle = the untraced step less the "
	    "capture's kernel time (the tracer lengthens host calls, not "
	    "kernels), split by host activity in the capture's proportions." :
	    "");
	if (over.len)
		lp_tab_meta(out, "note", "%s.", lp_sb_str(&over));
	if (ranked)	/* the reports show rank_waterfall.tsv instead */
		lp_tab_meta(out, "omit", "decode_step runs in several "
		    "processes: rank_waterfall.tsv has a bar a rank");
	if (bwm.path)
		lp_bwmeas_meta(out, &p->pk, &bwm, "the floor is at it", 1);
	if (fig && (stepv[0] > 0 || stepv[1] > 0))
		alt();
	if (fig && (stepv[0] > 0 || stepv[1] > 0))	/* something to draw */
		lp_tab_meta(out, "figure", "%s", fig);
}

int
main(int argc, char **argv)
{
	struct lp_perf p;
	const char *hpath = NULL, *opath = NULL, *fig = NULL, *cpath = NULL;
	const char *upath = NULL;
	struct opclass *ops;
	double optotal;
	size_t nops, i;
	int c;

	lp_start(argc, argv, synopsis);
	memset(&p, 0, sizeof p);
	while ((c = lp_getopt(argc, argv, "F:H:b:c:g:i:o:s:t:u:", synopsis)) != -1) {
		switch (c) {
		case 'F': fig = optarg; break;
		case 'b': lp_bwmeas_read(&bwm, optarg); break;
		case 'c': cpath = optarg; break;
		case 'H': hpath = optarg; break;
		case 'g': p.gpath = optarg; break;
		case 'i': p.ipath = optarg; break;
		case 'o': opath = optarg; break;
		case 's': p.spath = optarg; break;
		case 't': p.tpath = optarg; break;
		case 'u': upath = optarg; break;
		}
	}
	if (!p.gpath || !p.ipath || !p.spath || !p.tpath || optind != argc ||
	    !opath != !cpath)
		lp_usage(synopsis);
	out = lp_tab_out();
	lp_perf_load(&p);
	nops = ops_get(opath, &ops, &optotal);
	if (cpath)
		lp_ops_load(&oc, cpath);
	stages(&p, hpath, ops, nops, optotal);
	if (upath)
		overhead_read(upath);
	emit_meta(&p, hpath, opath, nops, fig);
	lp_tab_header(out, cols, NCOLS);
	emit();
	lp_sb_free(&floors);
	lp_sb_free(&over);
	for (i = 0; i < nops; i++)
		free(ops[i].name);
	free(ops);
	if (cpath)
		lp_ops_free(&oc);
	lp_perf_free(&p);
	lp_bwmeas_free(&bwm);
	lp_tab_done(out);
	return 0;
}
