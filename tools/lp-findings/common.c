/*
 * common.c: what every part of lp-findings uses: the findings list the
 * rules add to (add, ev, act, at_stage) and a table's cells (cell, text,
 * row_of).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "esc.h"
#include "find.h"

static char *
fmt(const char *f, va_list ap)
{
	struct lp_sb b = { 0 };

	lp_sb_vprintf(&b, f, ap);
	return lp_sb_steal(&b);
}

struct f *
add(struct findings *fs, const char *rule, double save, const char *artifact,
    const char *next, const char *head, ...)
{
	va_list ap;
	struct f *x;

	fs->f = lp_xreallocarray(fs->f, fs->n + 1, sizeof *fs->f);
	x = &fs->f[fs->n++];
	memset(x, 0, sizeof *x);
	x->order = fs->n - 1;
	x->rule = rule;
	x->save = save;
	x->artifact = lp_xstrdup(artifact);
	x->next = lp_xstrdup(next);
	va_start(ap, head);
	x->head = fmt(head, ap);
	va_end(ap);
	return x;
}

void
act(struct f *x, const char *clause)
{
	free(x->act);
	x->act = lp_xstrdup(clause);
}

void
ev(struct f *x, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	x->evidence = fmt(f, ap);
	va_end(ap);
}

void
at_stage(struct f *x, const char *stage, int once)
{
	free(x->stage);
	x->stage = stage ? lp_xstrdup(stage) : NULL;
	x->once = once;
}

double
ms(double ns)
{
	return ns / 1e6;
}

double
cell(const struct tab *t, size_t i, const char *col)
{
	int c = lp_csv_col(&t->t.hdr, col);
	double v;

	return c >= 0 && lp_tab_numval(t->path, t->line[i], col, c,
	    t->row[i * t->ncol + (size_t)c], &v) ? v : NAN;
}

/* A name as a code span of the sentences lp-summary renders (any name:
 * lp_md_code fences it with more backticks than it holds). */
const char *
code(const char *s)
{
	static struct lp_sb b;

	lp_sb_reset(&b);
	lp_md_code(&b, s, 0);
	return lp_sb_str(&b);
}

const char *
text(const struct tab *t, size_t i, const char *col)
{
	int c = lp_csv_col(&t->t.hdr, col);

	return c >= 0 ? t->row[i * t->ncol + (size_t)c] : "";
}

/* The row of a table whose column col is val; -1 if none. */
long
row_of(const struct tab *t, const char *col, const char *val)
{
	size_t i;

	for (i = 0; t && i < t->n; i++)
		if (!strcmp(text(t, i, col), val))
			return (long)i;
	return -1;
}

/* The share of a stage's kernel time its CUDA graphs ran (hostside.tsv,
 * the row that speaks); NAN when not known. */
double
graph_pct(const struct tab *hs, size_t r)
{
	return cell(hs, r, "graph_kernel_pct");
}
