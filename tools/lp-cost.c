/*
 * lp-cost: profile_cost.tsv, what each profiling step of a live run cost:
 * its wall time (timing files the make recipes write), the application runs
 * it made, the replay passes ncu made (profiler__replayer_passes of the
 * kernel export and of each region depth's export), and its wall time over
 * that of the workload run alone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "lp-cost/cost.h"

static const char synopsis[] =
    "lp-cost [-b] [-a alone.tsv] [-c roofline.tsv] [-k kernels.csv] "
    "[-m app-range|range] [-R run] [-r exports.list] [-s profile.stop.tsv] "
    "[timing.tsv ...]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static struct cell
na(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static struct cell
na(const char *fmt, ...)
{
	struct lp_sb b = { 0 };
	struct cell x = { NAN, NULL };
	va_list ap;

	va_start(ap, fmt);
	lp_sb_vprintf(&b, fmt, ap);
	va_end(ap);
	x.why = lp_sb_steal(&b);
	return x;
}

static struct cell
num(double v)
{
	struct cell x = { v, NULL };

	return x;
}

static struct cell
compute_passes(const struct cost *c, const struct step *s)
{
	switch (s->kind) {
	case S_NSYS:
		return na("nsys does not replay");
	case S_KERNEL:
		return c->kpath ? num(c->kern.sum) : na("the kernel export "
		    "was not given (-k)");
	case S_REGION:
		return c->rpath ? num(c->reg[s->depth].max) : na("the region "
		    "exports were not given (-r)");
	default:
		return na("%s profiles no kernel", s->name);
	}
}

static struct cell
compute_runs(const struct cost *c, const struct step *s)
{
	if (s->runs >= 0)
		return num((double)s->runs);
	if (!c->rpath)
		return na("the step's runs come from its region export (-r "
		    "exports.list -m MODE)");
	/* app-range: one application run per replay pass */
	return num(!strcmp(c->mode, "range") ? 1 : c->reg[s->depth].max);
}

/*
 * The timing files the recipes write hold hundredths of a second (lp_took
 * in rules.mk): a workload alone under that is below what they resolve,
 * and a ratio to it means nothing (1.25 s over 1e-23 s was 24 digits).
 */
#define ALONE_MIN_S 0.01

static void
emit_ratio(struct lp_row *r, const struct cost *c, double wall)
{
	if (!c->apath)
		lp_row_na(r, "the workload alone was not timed (make RUN=x "
		    "alone.tsv)");
	else if (!(c->alone.wall > 0))
		lp_row_na(r, "the workload alone took 0 s (%s)", c->alone.file);
	else if (c->alone.wall < ALONE_MIN_S)
		lp_row_na(r, "the workload alone took %.3g s (%s), under the "
		    "0.01 s a timing file resolves", c->alone.wall,
		    c->alone.file);
	else
		lp_row_num(r, wall / c->alone.wall, 2);
}

static void
emit_cell(struct lp_row *r, struct cell *x)
{
	if (x->why)
		lp_row_na(r, "%s", x->why);
	else
		lp_row_num(r, x->v, 0);
}

/* Adds a cell to a total; the total says which step it lacks. */
static void
add_cell(struct cell *tot, const struct cell *x, const char *step, int skip)
{
	if (skip || tot->why)
		return;
	if (x->why)
		*tot = na("%s has none: %s", step, x->why);
	else
		tot->v += x->v;
}

static void
emit_rows(const struct cost *c)
{
	struct lp_row r = { 0 };
	struct cell runs, pass, truns = { 0, NULL }, tpass = { 0, NULL };
	double wall = 0;
	size_t i, nrep = 0;

	for (i = 0; i < c->n; i++) {
		const struct step *s = &c->st[i];

		runs = compute_runs(c, s);
		pass = compute_passes(c, s);
		lp_row_text(&r, s->name);
		lp_row_num(&r, s->wall, 3);
		emit_cell(&r, &runs);
		emit_cell(&r, &pass);
		emit_ratio(&r, c, s->wall);
		lp_row_end(&r, out);
		wall += s->wall;
		add_cell(&truns, &runs, s->name, 0);
		/* steps that replay nothing add nothing to the passes */
		add_cell(&tpass, &pass, s->name, s->kind == S_NSYS ||
		    s->kind == S_OTHER);
		nrep += s->kind == S_KERNEL || s->kind == S_REGION;
		free(runs.why);
		free(pass.why);
	}
	wall -= c->overlap;
	lp_row_text(&r, "total");
	lp_row_num(&r, wall, 3);
	emit_cell(&r, &truns);
	if (!nrep)
		tpass = na("no step ran ncu");
	emit_cell(&r, &tpass);
	emit_ratio(&r, c, wall);
	lp_row_end(&r, out);
	free(truns.why);
	free(tpass.why);
	lp_sb_free(&r.b);
}

/* "10 kernels x 19 passes", or "10 kernels, 12 to 19 passes each". */
static void
describe(struct lp_sb *b, const struct passes *p, const char *what)
{
	lp_sb_printf(b, "%ld %s", p->n, what);
	if (p->min == p->max)
		lp_sb_printf(b, " x %.0f passes", p->max);
	else
		lp_sb_printf(b, ", %.0f to %.0f passes each", p->min, p->max);
}

static void
emit_meta(const struct cost *c)
{
	struct lp_sb b = { 0 };
	size_t i;

	lp_sb_adds(&b, "step wall times and application runs from ");
	for (i = 0; i < c->n; i++)
		lp_sb_printf(&b, "%s%s", i ? ", " : "", c->st[i].file);
	if (c->kpath)
		lp_sb_printf(&b, "; ncu profile's passes from %s "
		    "(profiler__replayer_passes, summed over its kernels)",
		    c->kern.file);
	if (c->rpath) {
		lp_sb_printf(&b, "; the region depths' passes from the "
		    "exports listed in %s (", c->rpath);
		for (i = 0; i < c->nreg; i++)
			lp_sb_printf(&b, "%s%s", i ? ", " : "", c->reg[i].file);
		lp_sb_printf(&b, "; profiler__replayer_passes, the most of its "
		    "ranges), %s replay", c->mode);
	}
	if (c->apath)
		lp_sb_printf(&b, "; the workload alone from %s", c->apath);
	lp_tab_meta(out, "source", "%s", lp_sb_str(&b));
	lp_sb_free(&b);
}

static const struct step *
step_named(const struct cost *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->st[i].name, name))
			return &c->st[i];
	return NULL;
}

/* -b: the shorter of the capture and the untraced run, which ran at once
 * on two GPUs, counted once. */
static void
beside(struct cost *c)
{
	const struct step *ns = step_named(c, "nsys profile");
	const struct step *nu = step_named(c, "nsys untraced profile");

	if (!c->beside || !ns || !nu)
		return;
	c->overlap = fmin(ns->wall, nu->wall);
}

/* ncu profile split into its replay and the application under ncu (-s),
 * and the floor: the application runs the profile is made of, nsys's
 * capture, the untraced timing run where there is one and ncu's (with
 * the replay), which no deep profile that times the workload untraced
 * goes under; the rest is lp's own steps. */
static void
floor_notes(const struct cost *c)
{
	const struct step *ns = step_named(c, "nsys profile");
	const struct step *nc = step_named(c, "ncu profile");
	const struct step *nu = step_named(c, "nsys untraced profile");
	double all = 0, fl;
	size_t i;

	if (c->spath && nc)
		lp_tab_meta(out, "note", "ncu profile: %.2f s replaying its %.0f "
		    "launches (each timed by lp-ncustop), %.2f s the application "
		    "under ncu; %s.", c->replay, c->launches, fmax(nc->wall -
		    c->replay, 0), c->stopped ? "the workload was stopped once "
		    "the last launch was profiled (lp-ncustop(1))" : "the "
		    "workload ran to its end");
	if (c->overlap > 0)
		lp_tab_meta(out, "note", "the untraced timing run ran beside the "
		    "capture, on another GPU of its kind (UNTRACED_GPU, "
		    "untraced/gpu.tsv): the total counts the shorter of the two, "
		    "%.2f s, once.", c->overlap);
	if (!ns || !nc)
		return;
	for (i = 0; i < c->n; i++)
		all += c->st[i].wall;
	all -= c->overlap;
	fl = ns->wall + nc->wall + (nu ? nu->wall : 0) - c->overlap;
	if (fl > 0 && nu && c->overlap > 0)
		lp_tab_meta(out, "note", "floor: %.2f s, the application runs one "
		    "after another (nsys profile %.2f s and the untraced timing "
		    "run %.2f s at once, on two GPUs: the longer; then ncu profile "
		    "%.2f s with its replay); the whole profile is %.2fx its "
		    "floor, the rest lp's own steps.", fl, ns->wall, nu->wall,
		    nc->wall, all / fl);
	else if (fl > 0 && nu)
		lp_tab_meta(out, "note", "floor: %.2f s, the three application "
		    "runs (nsys profile %.2f s, the untraced timing run %.2f s, "
		    "ncu profile %.2f s with its replay); the whole profile is "
		    "%.2fx its floor, the rest lp's own steps; the two "
		    "profiled runs alone are %.2f s.", fl, ns->wall, nu->wall,
		    nc->wall, all / fl, ns->wall + nc->wall);
	else if (fl > 0)
		lp_tab_meta(out, "note", "floor: %.2f s, the two profiled "
		    "application runs (nsys profile %.2f s, ncu profile %.2f s "
		    "with its replay); the whole profile is %.2fx its floor, "
		    "the rest lp's own steps.", fl, ns->wall, nc->wall, all / fl);
}

static void
emit_notes(const struct cost *c)
{
	struct lp_sb b = { 0 };
	size_t i;

	if (c->kpath) {
		describe(&b, &c->kern, "kernels");
		lp_tab_meta(out, "note", "ncu profile: %s%s%s%s; kernel replay "
		    "runs the application once and replays each kernel.",
		    lp_sb_str(&b), c->coverage ? ", the launch configurations "
		    "carrying " : "", c->coverage ? c->coverage : "",
		    c->coverage ? " of kernel time (roofline.tsv)" : "");
	}
	for (i = 0; i < c->nreg; i++) {
		lp_sb_reset(&b);
		describe(&b, &c->reg[i], "ranges");
		lp_tab_meta(out, "note", REGION_PREFIX "%zu: %s; %s.", i,
		    lp_sb_str(&b), !strcmp(c->mode, "range") ? "range replay "
		    "runs the application once" : "app-range replay runs the "
		    "application once per pass");
	}
	if (c->apath)
		lp_tab_meta(out, "note", "x_alone: the step's wall time over the "
		    "workload's alone, %.3f s.", c->alone.wall);
	floor_notes(c);
	lp_sb_free(&b);
}

static void
emit_table(const struct cost *c)
{
	static const struct lp_col cols[] = {
		{ "step", "Step", "text" },
		{ "wall_s", "Wall time (s)", "num2" },
		{ "app_runs", "Application runs", "int" },
		{ "ncu_passes", "ncu replay passes", "int" },
		{ "x_alone", "x workload alone", "x" },
	};

	lp_tab_meta(out, "title", "Profile Cost");
	lp_tab_meta(out, "tool", "lp-cost");
	emit_meta(c);
	emit_notes(c);
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	emit_rows(c);
}
static void
free_cost(struct cost *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->st[i].name);
	free(c->st);
	for (i = 0; i < c->nreg; i++)
		free(c->reg[i].path);
	free(c->reg);
	free(c->alone.name);
	free(c->coverage);
}

static int
there(const char *path)
{
	return access(path, F_OK) == 0;
}

/* -R: a live run's folder, its files found as lp's make rule names them:
 * the timing files there, ncu's export and roofline.tsv when ncu
 * profiled, what lp-ncustop saw, and with -r the regions' replay mode
 * (ncu/regions/config.yaml); each region depth's timing file comes with
 * exports.list (region_steps).  The paths it makes are kept in p, the
 * caller's to free. */
static void
run_dir(struct cost *c, const char *dir, struct lp_av *tv, struct lp_av *p)
{
	static const char *const times[] = { "nsys/profile.time",
		"untraced/profile.time", "untraced/stats.time",
		"nsys/export.time", "nsys/stats.time",
		"ncu/metrics.avail.time", "ncu/profile.time", "ncu/export.time" };
	struct lp_ynode *cfg;
	size_t i;
	int ncu = 0;		/* ncu profiled: its timing file is there */

	for (i = 0; i < sizeof times / sizeof *times; i++) {
		lp_av_pushf(p, "%s/%s", dir, times[i]);
		if (!there(p->w[p->n - 1]))
			continue;
		lp_av_push(tv, p->w[p->n - 1]);
		ncu |= !strcmp(times[i], "ncu/profile.time");
	}
	if (c->rpath && !c->mode) {
		lp_av_pushf(p, "%s/ncu/regions/config.yaml", dir);
		cfg = lp_yaml_load_path(p->w[p->n - 1]);
		lp_av_push(p, lp_yaml_str(cfg, "ncu_regions.replay_mode", ""));
		c->mode = p->w[p->n - 1];
		lp_yaml_free(cfg);
	}
	if (ncu && !c->kpath) {
		lp_av_pushf(p, "%s/ncu/report.csv", dir);
		c->kpath = p->w[p->n - 1];
		lp_av_pushf(p, "%s/roofline.tsv", dir);
		c->cpath = p->w[p->n - 1];
	}
	lp_av_pushf(p, "%s/ncu/profile.stop.tsv", dir);
	if (there(p->w[p->n - 1]) && !c->spath)
		c->spath = p->w[p->n - 1];
}

/* -R -r: each region depth's timing file beside its export (dN.csv:
 * dN.time), from exports.list as load_regions read it. */
static void
region_steps(const struct cost *c, struct lp_av *tv, struct lp_av *p)
{
	size_t i, n;

	for (i = 0; i < c->nreg; i++) {
		n = strlen(c->reg[i].path);
		if (n >= 4 && !strcmp(c->reg[i].path + n - 4, ".csv"))
			lp_av_pushf(p, "%.*s.time", (int)(n - 4),
			    c->reg[i].path);
		else
			lp_av_push(p, c->reg[i].path);
		lp_av_push(tv, p->w[p->n - 1]);
	}
}

int
main(int argc, char **argv)
{
	struct cost c = { 0 };
	struct lp_av tv = { 0 }, paths = { 0 };
	const char *rdir = NULL;
	int ch, i;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((ch = lp_getopt(argc, argv, "a:bc:k:m:R:r:s:", synopsis)) != -1) {
		switch (ch) {
		case 'a': c.apath = optarg; break;
		case 'b': c.beside = 1; break;
		case 'c': c.cpath = optarg; break;
		case 'k': c.kpath = optarg; break;
		case 'm': c.mode = optarg; break;
		case 'R': rdir = optarg; break;
		case 'r': c.rpath = optarg; break;
		case 's': c.spath = optarg; break;
		}
	}
	for (i = optind; i < argc; i++)
		lp_av_push(&tv, argv[i]);
	if (rdir)
		run_dir(&c, rdir, &tv, &paths);
	if (!c.rpath != !c.mode)
		lp_usage(synopsis);
	if (c.mode && strcmp(c.mode, "app-range") && strcmp(c.mode, "range"))
		lp_die(LP_EXIT_USAGE, "-m: expected app-range or range, got "
		    "\"%s\"", c.mode);
	if (c.rpath)
		load_regions(&c);
	if (c.rpath && rdir)
		region_steps(&c, &tv, &paths);
	if (!tv.n)
		lp_usage(synopsis);
	c.n = tv.n;
	c.st = lp_xcalloc(c.n, sizeof *c.st);
	for (i = 0; i < (int)tv.n; i++) {
		load_step(&c.st[i], tv.w[i]);
		classify(&c.st[i]);
	}
	if (c.kpath)
		load_passes(&c.kern, c.kpath, 0);
	if (c.apath)
		load_alone(&c);
	if (c.cpath)
		load_coverage(&c);
	if (c.spath)
		load_stop(&c);
	beside(&c);
	check_join(&c);
	emit_table(&c);
	free_cost(&c);
	lp_av_free(&tv);
	lp_av_free(&paths);
	lp_tab_done(out);
	return 0;
}
