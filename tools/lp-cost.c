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

static const char synopsis[] =
    "lp-cost [-a alone.tsv] [-c roofline.tsv] [-k kernels.csv] "
    "[-m app-range|range] [-r exports.list] timing.tsv...";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

enum kind { S_NSYS, S_KERNEL, S_REGION, S_OTHER };

/* One line of a timing file: STEP<TAB>WALL_S<TAB>APP_RUNS. */
struct step {
	char *name;
	const char *file;
	long line;
	double wall;
	long runs;		/* -1: "-", from the region export */
	enum kind kind;
	long depth;		/* S_REGION: N of "ncu regions depth N" */
};

/* profiler__replayer_passes of one export, over its results. */
struct passes {
	const char *file;
	char *path;		/* owned copy (regions), or NULL */
	long line;		/* in the list that names it (regions) */
	long n;			/* results: kernel launches or ranges */
	double sum, min, max;
	int c_id, c_pass;	/* columns; -1 before the header */
	int state;		/* 0 header, 1 units row, 2 results */
	struct lp_csv_hdr hdr;
};

/* A computed cell: a number, or why there is none ("n/a because ..."). */
struct cell {
	double v;
	char *why;		/* caller frees; NULL: v holds */
};

struct cost {
	struct step *st;
	size_t n;
	struct passes kern;
	struct passes *reg;	/* one per depth, in list order */
	size_t nreg;
	struct step alone;
	const char *apath, *kpath, *mode, *rpath, *cpath;
	char *coverage;		/* -c: roofline.tsv's "# coverage:" */
};

#define REGION_PREFIX "ncu regions depth "

static void
classify(struct step *s)
{
	const char *p;
	char *end;

	s->kind = S_OTHER;
	if (!strncmp(s->name, "nsys ", 5))
		s->kind = S_NSYS;
	else if (!strcmp(s->name, "ncu profile"))
		s->kind = S_KERNEL;
	else if (!strncmp(s->name, REGION_PREFIX, strlen(REGION_PREFIX))) {
		p = s->name + strlen(REGION_PREFIX);
		s->depth = strtol(p, &end, 10);
		if (!*p || *end || strspn(p, "0123456789") != strlen(p) ||
		    s->depth > 1000)
			lp_die_at(LP_EXIT_DATA, s->file, s->line, 1, "STEP: "
			    "expected \"" REGION_PREFIX "N\", N a depth from 0, "
			    "got \"%s\"", s->name);
		s->kind = S_REGION;
	}
	if (s->runs < 0 && s->kind != S_REGION)
		lp_die_at(LP_EXIT_DATA, s->file, s->line, 3, "APP_RUNS: \"-\" is "
		    "for \"" REGION_PREFIX "N\" only (its runs come from its "
		    "export); \"%s\" needs a count", s->name);
}

/* The fields of a timing file's line, split in place; dies unless 3. */
static void
parse_step(struct step *s, char *line)
{
	char *f[3], *p = line;
	const char *why;
	size_t i;

	for (i = 0; i < 3; i++) {
		f[i] = p;
		p += strcspn(p, "\t");
		if (*p && i < 2)
			*p++ = '\0';
		else if (*p || i < 2)
			lp_die_at(LP_EXIT_DATA, s->file, s->line, 0, "expected 3 "
			    "fields STEP<TAB>WALL_S<TAB>APP_RUNS, got %s",
			    *p ? "more" : "fewer");
	}
	if (!*f[0])
		lp_die_at(LP_EXIT_DATA, s->file, s->line, 1, "STEP: empty");
	if (!lp_num_get(f[1], &s->wall))
		lp_die_at(LP_EXIT_DATA, s->file, s->line, 2, "WALL_S: expected "
		    "seconds, got \"%s\"", f[1]);
	if ((why = lp_num_bad(LP_DIM_TIME, s->wall, 0)))
		lp_die_at(LP_EXIT_DATA, s->file, s->line, 2, "WALL_S: %s: \"%s\"",
		    why, f[1]);
	if (!strcmp(f[2], "-"))
		s->runs = -1;
	else if (!*f[2] || strspn(f[2], "0123456789") != strlen(f[2]) ||
	    strlen(f[2]) > 9)
		lp_die_at(LP_EXIT_DATA, s->file, s->line, 3, "APP_RUNS: expected "
		    "a whole number of runs or \"-\", got \"%s\"", f[2]);
	else
		s->runs = atol(f[2]);
	s->name = lp_xstrdup(f[0]);
}

/* A timing file: "#" lines, then exactly one step line. */
static void
load_step(struct step *s, const char *path)
{
	FILE *fp;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	long line = 0;

	memset(s, 0, sizeof *s);
	fp = lp_open_in(path, &s->file);
	while ((len = lp_getline(&buf, &cap, fp)) != -1) {
		line++;
		if (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (buf[0] == '#' || !buf[0])
			continue;
		if (s->name)
			lp_die_at(LP_EXIT_DATA, s->file, line, 0, "a second step "
			    "line (\"%s\" is on line %ld): a timing file holds "
			    "one step", s->name, s->line);
		s->line = line;
		parse_step(s, buf);
	}
	if (ferror(fp))
		lp_die_sys("%s", s->file);
	free(buf);
	lp_close_in(fp);
	if (!s->name)
		lp_die_at(LP_EXIT_DATA, s->file, 0, 0, "no line STEP<TAB>WALL_S"
		    "<TAB>APP_RUNS (did the step's recipe finish?)");
}

static int
on_pass_rec(const struct lp_csv_rec *r, void *ctx)
{
	struct passes *p = ctx;
	const char *s, *why;
	double v;

	if (p->state == 0) {
		lp_csv_hdr_init(&p->hdr, r, p->file);
		p->c_id = lp_csv_need(&p->hdr, "ID", "an ncu --page raw export");
		p->c_pass = lp_csv_need(&p->hdr, "profiler__replayer_passes",
		    "an ncu --page raw export with its replay passes");
		p->state = 1;
		return 0;
	}
	lp_csv_width(&p->hdr, r->n, r->line);
	if (p->state == 1) {	/* the units row: no ID */
		if (*lp_csv_field(r, p->c_id))
			lp_die_at(LP_EXIT_DATA, p->file, r->line, 0, "no units "
			    "row under the header (not an ncu --page raw "
			    "export?)");
		p->state = 2;
		return 0;
	}
	s = lp_csv_field(r, p->c_pass);
	if (!lp_num_get(s, &v) || (why = lp_num_bad(LP_DIM_COUNT, v, 1)))
		lp_die_at(LP_EXIT_DATA, p->file, r->line, p->c_pass + 1,
		    "profiler__replayer_passes: expected a whole number of "
		    "passes, got \"%s\"", s);
	p->sum += v;
	p->min = p->n ? fmin(p->min, v) : v;
	p->max = p->n ? fmax(p->max, v) : v;
	p->n++;
	return 0;
}

static void
on_pass_msg(const char *line, long lineno, void *ctx)
{
	const struct passes *p = ctx;

	if (!strncmp(line, "==ERROR==", 9))
		lp_die_at(LP_EXIT_DATA, p->file, lineno, 0, "ncu error instead "
		    "of CSV: %s", line);
	lp_warn_at(p->file, lineno, 0, "skipped ncu message: %s", line);
}

static void
load_passes(struct passes *p, const char *path, long listline)
{
	FILE *fp;

	memset(p, 0, sizeof *p);
	p->line = listline;
	fp = lp_open_in(path, &p->file);
	lp_csv_read(fp, p->file, on_pass_rec, on_pass_msg, p);
	lp_close_in(fp);
	lp_csv_hdr_free(&p->hdr);
	if (!p->n)
		lp_die_at(LP_EXIT_DATA, p->file, 0, 0, "no results in the "
		    "export (did ncu profile anything?)");
}

/* exports.list: one region export per line, depth 0 first. */
static void
load_regions(struct cost *c)
{
	FILE *fp = fopen(c->rpath, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	long line = 0;

	if (!fp)
		lp_die_sys("%s", c->rpath);
	while ((len = lp_getline(&buf, &cap, fp)) != -1) {
		line++;
		if (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (!*buf)
			continue;
		c->reg = lp_xreallocarray(c->reg, c->nreg + 1, sizeof *c->reg);
		load_passes(&c->reg[c->nreg], buf, line);
		c->reg[c->nreg].path = lp_xstrdup(buf);
		c->reg[c->nreg].file = c->reg[c->nreg].path;
		c->nreg++;
	}
	if (ferror(fp))
		lp_die_sys("%s", c->rpath);
	free(buf);
	fclose(fp);
	if (!c->nreg)
		lp_die_at(LP_EXIT_DATA, c->rpath, 0, 0, "names no ncu export");
}

/* Each input must have the step it measures, and each step one file. */
static void
check_join(const struct cost *c)
{
	size_t i, j, nkern = 0;

	for (i = 0; i < c->n; i++) {
		const struct step *s = &c->st[i];

		for (j = 0; j < i; j++)
			if (!strcmp(c->st[j].name, s->name))
				lp_die_at(LP_EXIT_DATA, s->file, s->line, 1, "step "
				    "\"%s\" again (%s:%ld has it)", s->name,
				    c->st[j].file, c->st[j].line);
		nkern += s->kind == S_KERNEL;
		if (s->kind == S_REGION && c->rpath &&
		    (size_t)s->depth >= c->nreg)
			lp_die_at(LP_EXIT_DATA, s->file, s->line, 1, "no export of "
			    "depth %ld: %s names %zu (depths 0 to %zu)", s->depth,
			    c->rpath, c->nreg, c->nreg - 1);
	}
	if (c->kpath && !nkern)
		lp_die_at(LP_EXIT_DATA, c->kpath, 0, 0, "no timing file of the "
		    "step \"ncu profile\" this export is of");
	for (j = 0; j < c->nreg; j++) {
		for (i = 0; i < c->n; i++)
			if (c->st[i].kind == S_REGION &&
			    (size_t)c->st[i].depth == j)
				break;
		if (i == c->n)
			lp_die_at(LP_EXIT_DATA, c->rpath, c->reg[j].line, 0, "no "
			    "timing file of the step \"" REGION_PREFIX "%zu\" "
			    "this export (%s) is of", j, c->reg[j].file);
	}
}

static void
load_alone(struct cost *c)
{
	struct step *a = &c->alone;

	load_step(a, c->apath);
	if (strcmp(a->name, "workload alone"))
		lp_die_at(LP_EXIT_DATA, a->file, a->line, 1, "STEP: expected "
		    "\"workload alone\", got \"%s\"", a->name);
	if (a->runs != 1)
		lp_die_at(LP_EXIT_DATA, a->file, a->line, 3, "APP_RUNS: the "
		    "workload alone is 1 run, got %ld", a->runs);
}

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

static void
emit_ratio(struct lp_row *r, const struct cost *c, double wall)
{
	if (!c->apath)
		lp_row_na(r, "the workload alone was not timed (make RUN=x "
		    "alone.tsv)");
	else if (!(c->alone.wall > 0))
		lp_row_na(r, "the workload alone took 0 s (%s)", c->alone.file);
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

/* The share of the stage's kernel time whose launch configurations ncu
 * measured: roofline.tsv's "# coverage:" line, up to its " (" (none
 * where the run had no kernel trace). */
static void
load_coverage(struct cost *c)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, c->cpath, "lp-roofline");
	const char *v;

	lp_tab_expect(&t, "lp-roofline");
	if ((v = lp_tsv_comment(&t, "coverage")))
		c->coverage = lp_xstrndup(v, strcspn(v, "("));
	if (c->coverage && *c->coverage)
		c->coverage[strlen(c->coverage) - 1] = '\0';	/* the blank */
	lp_tsv_close(&t);
	fclose(fp);
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

int
main(int argc, char **argv)
{
	struct cost c = { 0 };
	int ch, i;

	lp_init(argv[0]);
	out = lp_tab_out();
	while ((ch = getopt(argc, argv, "a:c:hk:m:r:")) != -1) {
		switch (ch) {
		case 'a': c.apath = optarg; break;
		case 'c': c.cpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'k': c.kpath = optarg; break;
		case 'm': c.mode = optarg; break;
		case 'r': c.rpath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (optind == argc || !c.rpath != !c.mode)
		lp_usage(synopsis);
	if (c.mode && strcmp(c.mode, "app-range") && strcmp(c.mode, "range"))
		lp_die(LP_EXIT_USAGE, "-m: expected app-range or range, got "
		    "\"%s\"", c.mode);
	c.n = (size_t)(argc - optind);
	c.st = lp_xcalloc(c.n, sizeof *c.st);
	for (i = 0; i < argc - optind; i++) {
		load_step(&c.st[i], argv[optind + i]);
		classify(&c.st[i]);
	}
	if (c.kpath)
		load_passes(&c.kern, c.kpath, 0);
	if (c.rpath)
		load_regions(&c);
	if (c.apath)
		load_alone(&c);
	if (c.cpath)
		load_coverage(&c);
	check_join(&c);
	emit_table(&c);
	free_cost(&c);
	lp_tab_done(out);
	return 0;
}
