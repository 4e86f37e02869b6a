/*
 * lp-injected: injected.tsv, the processes nsys injected during a capture
 * and what each gave it, from nsys's sqlite export: the one nsys launched
 * ("Process was launched by the profiler"), and the NVTX and CUDA events
 * each collected ("Number of NVTX events collected: N.", "Number of CUDA
 * events collected: N."), as nsys 2025.3 writes them into
 * DIAGNOSTIC_EVENT.  Whether the CUDA work ran in the process nsys
 * launched or in another one (an engine core the launched front end
 * started) decides how ncu can select kernels (lp-topn -i).
 *
 * Memory: one entry per process that has a diagnostic line.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "nsql.h"
#include "table.h"

static const char synopsis[] = "lp-injected report.sqlite";

struct proc {
	int64_t pid;
	int launched;
	int64_t nvtx, cuda;	/* -1: no such line */
};

static struct proc *
find(struct proc **ps, size_t *n, int64_t pid)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*ps)[i].pid == pid)
			return &(*ps)[i];
	*ps = lp_xreallocarray(*ps, *n + 1, sizeof **ps);
	(*ps)[*n] = (struct proc){ pid, 0, -1, -1 };
	return &(*ps)[(*n)++];
}

/* "Number of CUDA events collected: \t3909." -> 3909; -1 where the text
 * is not that line. */
static int64_t
count_of(const char *text, const char *what)
{
	char pfx[64];
	const char *p;
	char *end;
	long long v;

	snprintf(pfx, sizeof pfx, "Number of %s events collected:", what);
	if (strncmp(text, pfx, strlen(pfx)))
		return -1;
	p = text + strlen(pfx);
	p += strspn(p, " \t");
	v = strtoll(p, &end, 10);
	if (end == p || v < 0)
		return -1;
	return v;
}

static int
by_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The processes nsys's diagnostics name, their events and which one nsys
 * launched (nl of them; launched, the last); 0 for an export without
 * them. */
static int
read_diag(const char *path, struct proc **ps, size_t *n, size_t *nl,
    int64_t *launched)
{
	sqlite3 *db = lp_sql_open(path);
	sqlite3_stmt *st;
	struct proc *p;
	/* an export cut down to some tables (the tests' GPU Metrics one)
	 * says nothing of its processes: the table says so, as n/a */
	int have = lp_sql_has_table(db, path, "DIAGNOSTIC_EVENT");

	st = have ? lp_sql_query(db, path, "SELECT globalPid, text FROM "
	    "DIAGNOSTIC_EVENT WHERE globalPid IS NOT NULL AND globalPid != 0 "
	    "ORDER BY rowid") : NULL;
	while (st && lp_sql_step(db, path, st)) {
		/* globalPid: (hardware << 56) | (vm << 48) | (pid << 24) */
		int64_t pid = (sqlite3_column_int64(st, 0) >> 24) & 0xffffff;
		const char *text = (const char *)sqlite3_column_text(st, 1);
		int64_t v;

		if (!text)
			continue;
		p = find(ps, n, pid);
		if (!strncmp(text, "Process was launched by the profiler", 36)) {
			if (!p->launched)
				(*nl)++;
			p->launched = 1;
			*launched = pid;
		} else if ((v = count_of(text, "NVTX")) >= 0) {
			p->nvtx = v;
		} else if ((v = count_of(text, "CUDA")) >= 0) {
			p->cuda = v;
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return have;
}

/* A row for each process that said something lp reads. */
static void
emit_rows(FILE *out, const struct proc *ps, size_t n)
{
	struct lp_row r = { { 0 }, 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		char b[32];

		if (!ps[i].launched && ps[i].nvtx < 0 && ps[i].cuda < 0)
			continue;	/* a line about nothing lp reads */
		snprintf(b, sizeof b, "%" PRId64, ps[i].pid);
		lp_row_text(&r, b);
		lp_row_text(&r, ps[i].launched ? "yes" : "no");
		if (ps[i].nvtx >= 0)
			lp_row_num(&r, (double)ps[i].nvtx, 0);
		else
			lp_row_na(&r, "nsys said nothing of its NVTX events");
		if (ps[i].cuda >= 0)
			lp_row_num(&r, (double)ps[i].cuda, 0);
		else
			lp_row_na(&r, "nsys said nothing of its CUDA events");
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	static const struct lp_col cols[] = {
		{ "pid", "Process", "text" },
		{ "launched", "Launched by nsys", "text" },
		{ "nvtx_events", "NVTX events", "int" },
		{ "cuda_events", "CUDA events", "int" },
	};
	const char *path;
	struct proc *ps = NULL;
	size_t n = 0, i, nl = 0, ncuda = 0;
	int64_t launched = -1;
	struct lp_sb cud = { 0 };
	FILE *out;
	int have;

	lp_start(argc, argv, synopsis);
	path = lp_operand(argc, argv, synopsis);
	have = read_diag(path, &ps, &n, &nl, &launched);
	if (n)
		qsort(ps, n, sizeof *ps, by_pid);
	for (i = 0; i < n; i++)
		if (ps[i].cuda > 0) {
			lp_sb_printf(&cud, "%s%" PRId64, ncuda ? " " : "", ps[i].pid);
			ncuda++;
		}

	out = lp_tab_out();
	lp_tab_meta(out, "title", "Processes nsys injected");
	lp_tab_meta(out, "tool", "lp-injected");
	lp_tab_meta(out, "source", "nsys's diagnostics (DIAGNOSTIC_EVENT) in %s",
	    path);
	lp_tab_meta(out, "key", "pid");
	if (!have)
		lp_tab_meta(out, "launched", "n/a because the export has no "
		    "DIAGNOSTIC_EVENT table");
	else if (nl == 1)
		lp_tab_meta(out, "launched", "%" PRId64, launched);
	else
		lp_tab_meta(out, "launched", "n/a because nsys names %zu "
		    "processes as launched by the profiler", nl);
	lp_tab_meta(out, "cuda", "%s", ncuda ? lp_sb_str(&cud) : have ?
	    "n/a because no process collected CUDA events" :
	    "n/a because the export has no DIAGNOSTIC_EVENT table");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	emit_rows(out, ps, n);
	free(ps);
	lp_sb_free(&cud);
	lp_tab_done(out);
	return LP_EXIT_OK;
}
