/*
 * lp-cost's readers: the timing files and the step each measures, the
 * replay passes of the kernel export and of each region depth's export,
 * the workload alone, the coverage of roofline.tsv, and the check that
 * each input has its step.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "cost.h"

void
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
void
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

void
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
void
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
void
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

void
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

/* The share of the stage's kernel time whose launch configurations ncu
 * measured: roofline.tsv's "# coverage:" line, up to its " (" (none
 * where the run had no kernel trace). */
void
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

/* lp-ncustop's table (-s): the launches ncu profiled, the seconds their
 * replay took, whether the workload was stopped after the last. */
void
load_stop(struct cost *c)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, c->spath, "lp-ncustop");
	int cl, cr, cs;

	lp_tab_expect(&t, "lp-ncustop");
	cl = lp_csv_need(&t.hdr, "launches", "lp-ncustop output");
	cr = lp_csv_need(&t.hdr, "replay_s", "lp-ncustop output");
	cs = lp_csv_need(&t.hdr, "stopped", "lp-ncustop output");
	if (!lp_tab_next(&t))
		lp_die_at(LP_EXIT_DATA, c->spath, t.line, 0, "no row");
	if (!lp_tab_num(&t, cl, &c->launches) || !lp_tab_num(&t, cr,
	    &c->replay))
		lp_die_at(LP_EXIT_DATA, c->spath, t.line, 0, "launches and "
		    "replay_s: expected numbers");
	c->stopped = !strcmp(lp_tsv_get(&t, cs), "yes");
	lp_tsv_close(&t);
	fclose(fp);
}
