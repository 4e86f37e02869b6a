/*
 * lp-findings: findings.tsv, what to do next, ranked by the time each
 * finding could save, each with its numbers, the artifact they come from
 * and a next step specific to what was seen.  The rules are the table in
 * lp-findings(1); every input is another tool's TSV, known by its "# tool:"
 * line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"
#include "lp-findings/find.h"

static const char synopsis[] = "lp-findings [-I] [-n N] file.tsv...";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static void
load(struct tab *t, const char *path)
{
	size_t i;

	t->path = path;
	t->fp = lp_tab_open(&t->t, path, "its lp tool");
	t->ncol = t->t.hdr.n;
	while (lp_tab_next(&t->t)) {
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

/* Rule missing: what the run lacks, from the tables' "# missing:" and
 * gpu.tsv's "# why:". */
static void
missing(struct findings *fs, const struct tab *tabs, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < tabs[i].t.ncomments; j++) {
			const char *c = tabs[i].t.comments[j];
			struct f *x;

			if (strncmp(c, "missing:", 8) && strncmp(c, "why:", 4))
				continue;
			x = add(fs, "missing", NAN, tabs[i].path, "Give what it names "
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
	const struct tab *st, *sp, *rf, *tk, *rk, *ov, *hs, *gm, *mf, *mb, *ut;
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
		else if (!strcmp(tool, "lp-untraced"))
			run->ut = t;
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

/* Where steps.tsv is the untraced timing run's ("# timing: untraced"),
 * stages.tsv's wall times are replaced by its, once, here: each stage's
 * total, mean and median untraced, and GPU busy the capture's kernel time
 * over the untraced total (lp_stagetab_load does the same for the other
 * tools).  Every rule then speaks of the workload's times. */
static void
set_cell(struct tab *t, size_t i, const char *col, const char *fmt, double v)
{
	int c = lp_csv_col(&t->t.hdr, col);
	struct lp_sb b = { 0 };

	if (c < 0)
		return;
	lp_sb_printf(&b, fmt, v);
	free(t->row[i * t->ncol + (size_t)c]);
	t->row[i * t->ncol + (size_t)c] = lp_xstrdup(lp_sb_str(&b));
	lp_sb_free(&b);
}

static void
untraced_walls(struct run *run)
{
	const char *tm = run->sp ? lp_tsv_comment(&run->sp->t, "timing") : NULL;
	struct tab *st = (struct tab *)run->st;
	struct lp_stagerow *rows;
	size_t i, n;

	if (!st || !tm || strcmp(tm, "untraced"))
		return;
	/* the numbers as every other tool has them, refusals included */
	n = lp_stagetab_load(st->path, run->sp->path, &rows);
	for (i = 0; i < st->n; i++) {
		const struct lp_stagerow *r = lp_stagetab_get(rows, n,
		    text(st, i, "stage"));

		if (!r || !r->in_steps)
			continue;
		if (isnan(r->mean)) {	/* no wall time untraced */
			static const char *const wc[] = { "wall_total_ns",
			    "wall_mean_ns", "wall_median_ns", "busy_pct" };
			size_t c;

			for (c = 0; c < 4; c++)
				set_cell(st, i, wc[c], "n/a because the untraced "
				    "timing run has no instance of the stage "
				    "(steps.tsv)", 0);
			continue;
		}
		set_cell(st, i, "wall_total_ns", "%.1f", r->total);
		set_cell(st, i, "wall_mean_ns", "%.1f", r->mean);
		set_cell(st, i, "wall_median_ns", "%.1f", r->median);
		if (isnan(r->busy))
			set_cell(st, i, "busy_pct", r->busy_why ? "n/a because "
			    "the capture's kernels take longer than the stage "
			    "untraced" : "n/a because the stage has no kernel "
			    "time (stages.tsv)", 0);
		else
			set_cell(st, i, "busy_pct", "%.17g", r->busy);
	}
	lp_stagetab_free(rows, n);
}

/* Rule op-ranges: in a capture with PyTorch op ranges (stages.tsv's
 * "# op_ranges:"), every finding about host time says that the ranges
 * themselves slow the host, and asks for a capture without them first. */
static void
op_ranges(struct findings *fs, const struct tab *st)
{
	static const char *const host[] = { "launch-bound", "cold-call",
		"host-sync", "graph-bound" };
	const char *c = st ? lp_tsv_comment(&st->t, "op_ranges") : NULL;
	struct lp_sb b = { 0 };
	struct f *x;
	size_t j;

	if (!c)
		return;
	for (x = fs->f; x < fs->f + fs->n; x++)
		for (j = 0; j < sizeof host / sizeof host[0]; j++) {
			if (strcmp(x->rule, host[j]))
				continue;
			lp_sb_reset(&b);
			lp_sb_printf(&b, "%s The capture's %s PyTorch op ranges "
			    "(OPS=aten, nsys --pytorch=autograd-shapes-nvtx) slow "
			    "this host time themselves.", x->head, c);
			free(x->head);
			x->head = lp_xstrdup(lp_sb_str(&b));
			lp_sb_reset(&b);
			lp_sb_printf(&b, "Capture the stage again without the op "
			    "ranges (no OPS=aten) before acting on this: they "
			    "stretch wall times 1.6 to 1.8x (lp(7)), so the host "
			    "time and the saving here are the capture's, not the "
			    "workload's. %s", x->next);
			free(x->next);
			x->next = lp_xstrdup(lp_sb_str(&b));
			free(x->act);	/* that comes first now */
			x->act = NULL;
		}
	lp_sb_free(&b);
}

/* Each rule over the tables it reads, in the order of lp-findings(1). */
static void
apply_rules(struct findings *fs, const struct run *run, size_t maxk,
    int imported)
{
	if (run->st)
		host_launch_bound(fs, run->st, run->hs, run->sp, run->ut);
	if (run->sp)
		host_warmup(fs, run->sp, run->st, run->hs);
	if (run->rf)
		kern_roof(fs, run->rf, run->tk, run->hs, maxk);
	kern_dominant(fs, run->tk, imported);
	if (run->rf && run->have_pk)
		kern_fp32(fs, run->rf, run->tk, &run->pk);
	if (run->rk)
		ranks_straggler(fs, run->rk);
	if (run->ov)
		ranks_communication(fs, run->ov, run->rk);
	if (run->gm && run->mf)
		gm_measured_tensor(fs, run->gm, run->mf);
	if (run->gm && run->mb)
		gm_measured_dram(fs, run->gm, run->mb);
	op_ranges(fs, run->st);
	missing(fs, run->tabs, run->n);
}

static void
emit_meta(int hostside)
{
	static const struct lp_col cols[] = {
		{ "rank", "#", "int" }, { "rule", "Rule", "text" },
		{ "saving_ns", "Could save (ms)", "ms" },
		{ "finding", "Finding", "text" }, { "evidence", "Evidence", "text" },
		{ "artifact", "From", "code" }, { "next_step", "Next step", "text" },
		{ "per_step_ns", "Per step (ms)", "ms" }, { "step", "Step", "text" },
		{ "headline", "Headline", "hide" },
		{ "action", "Action", "hide" },
		{ "subject_kind", "About", "hide" },
		{ "subject", "What", "hide" },
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
	lp_tab_meta(out, "note", "Per step: of the steady step, as the key "
	    "numbers and the waterfall give it (the median instance after the "
	    "first, steps.tsv): a finding of idle GPU time saves its share of "
	    "its stage's idle time in the steady step's (the step less its "
	    "kernel time), so a step's savings add up to no more than its idle "
	    "time; any other saving is its stage's spread over the steps in "
	    "proportion to the steady step's kernel time (a kernel's) or "
	    "wall time (the rest) against the mean instance's.");
	lp_tab_meta(out, "style", "list");
	/* each row an anchor in details.md: findings-RANK */
	lp_tab_meta(out, "anchor", "findings");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
}

/* The findings as ranked, or one row saying that no rule fired. */
static void
emit_findings(const struct findings *fs, const struct tab *st,
    const struct tab *sp, const struct tab *hs)
{
	struct lp_row r = { 0 };
	struct lp_sb h = { 0 };
	const struct f *x;

	for (x = fs->f; x < fs->f + fs->n; x++) {
		lp_row_num(&r, (double)(x - fs->f + 1), 0);
		lp_row_text(&r, x->rule);
		if (isnan(x->save))
			lp_row_na(&r, "this finding is not a time");
		else
			lp_row_num(&r, x->save > 0 ? x->save : 0, 0);
		lp_row_text(&r, x->head);
		lp_row_text(&r, x->evidence ? x->evidence : "");
		lp_row_text(&r, x->artifact);
		lp_row_text(&r, x->next);
		step_saving(&r, st, sp, hs, x);
		step_headline(&h, x->head);
		lp_row_text(&r, lp_sb_str(&h));
		lp_sb_reset(&h);
		if (x->act)
			lp_sb_printf(&h, "%s", x->act);
		else
			step_first_clause(&h, x->next);
		lp_row_text(&r, lp_sb_str(&h));
		/* what it is about, for lp-realized: a kernel, else a stage */
		lp_row_text(&r, x->kernel ? "kernel" : x->stage ? "stage" :
		    "-");
		lp_row_text(&r, x->kernel ? x->kernel : x->stage ?
		    x->stage : "-");
		lp_row_end(&r, out);
	}
	if (!fs->n) {
		lp_row_text(&r, "0");
		lp_row_text(&r, "none");
		lp_row_na(&r, "no rule fired");
		lp_row_text(&r, "No rule fired: no stage leaves the GPU idle, no "
		    "warm-up, no kernel far from its roof, and every input was "
		    "present.");
		lp_row_text(&r, "");
		lp_row_text(&r, "-");
		lp_row_text(&r, "-");
		lp_row_na(&r, "no rule fired");
		lp_row_text(&r, "-");
		lp_row_text(&r, "No rule fired.");
		lp_row_text(&r, "-");
		lp_row_text(&r, "-");
		lp_row_text(&r, "-");
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
	lp_sb_free(&h);
}

static void
free_findings(struct findings *fs)
{
	struct f *x;

	for (x = fs->f; x < fs->f + fs->n; x++) {
		free(x->head);
		free(x->evidence);
		free(x->artifact);
		free(x->next);
		free(x->act);
		free(x->kernel);
		free(x->stage);
	}
	free(fs->f);
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
	struct findings fs = { 0 };
	struct run run;
	long maxk = 5;
	int c, imported = 0;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "In:", synopsis)) != -1) {
		switch (c) {
		case 'I': imported = 1; break;
		case 'n': maxk = lp_strtonum(optarg, 0, 1000, "-n"); break;
		}
	}
	if (optind == argc)
		lp_usage(synopsis);
	load_run(&run, argv + optind, (size_t)(argc - optind));
	untraced_walls(&run);
	apply_rules(&fs, &run, (size_t)maxk, imported);
	lp_qsort(fs.f, fs.n, sizeof *fs.f, by_save);
	emit_meta(fs.host_split);
	emit_findings(&fs, run.st, run.sp, run.hs);
	free_findings(&fs);
	free_run(&run);
	lp_tab_done(out);
	return 0;
}
