/*
 * lp-procs: procs.tsv, the processes that ran kernels (nsys nvtx_kern_sum's
 * PIDs) and the GPU each ran on: the Device of the cuda_gpu_trace
 * operation that starts exactly where one of the process's ranges starts
 * on the GPU (nvtx_gpu_proj_trace): the one device that has an operation
 * at every such start, as with many GPUs another GPU's operation can
 * start at the same nanosecond as one range.  Without that report, the one GPU of
 * cuda_gpu_trace whose kernels have the process's shortest and longest
 * durations of every kernel (nvtx_kern_sum's Min and Max): exact integers
 * that two GPUs' kernels do not share, or no GPU is said.  With -D, the
 * process on that device is the one ncu profiles ("# profiled:").  Whose
 * kernels alone the kernel tables of a multi-GPU run show ("# kernels:")
 * is always one process: never two processes' kernels added.  The traces
 * are read here once, for every table that needs a process's GPU.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "lp-procs/procs.h"

static const char synopsis[] =
    "lp-procs [-D device] [-g nvtx_gpu_proj_trace.csv] [-t cuda_gpu_trace.csv] "
    "[nvtx_kern_sum.csv]";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

/* The GPU each process ran on: the device with an operation at every
 * start of its ranges that has one (the GPU operations of one process
 * all on one device; several devices at one start narrowed by the
 * process's other starts).  One pass over the starts. */
static void
devices(const struct st *t, struct proc *p, size_t np)
{
	long **cand = lp_xcalloc(np + 1, sizeof *cand);
	size_t *ncand = lp_xcalloc(np + 1, sizeof *ncand);
	char *seen = lp_xcalloc(np + 1, 1);
	size_t i, j, k, m;

	for (i = 0; i < t->n; i++) {
		const struct start *s = &t->s[i];
		size_t q = (size_t)s->proc;

		if (!s->ndev)
			continue;
		if (!seen[q]) {
			seen[q] = 1;
			cand[q] = lp_xreallocarray(NULL, s->ndev, sizeof **cand);
			memcpy(cand[q], s->dev, s->ndev * sizeof **cand);
			ncand[q] = s->ndev;
			continue;
		}
		for (j = m = 0; j < ncand[q]; j++) {
			for (k = 0; k < s->ndev && s->dev[k] != cand[q][j]; k++)
				;
			if (k < s->ndev)
				cand[q][m++] = cand[q][j];
		}
		ncand[q] = m;
	}
	for (i = 0; i < np; i++) {
		if (!seen[i])
			p[i].why = "no range of the process starts at an "
			    "operation of cuda_gpu_trace";
		else if (ncand[i] == 0)
			p[i].why = "its ranges' GPU operations ran on several "
			    "devices";
		else if (ncand[i] > 1)
			p[i].why = "every start of its ranges has operations of "
			    "several devices";
		else
			p[i].dev = lp_xstrdup(lp_map_key(t->devs,
			    (size_t)cand[i][0]));
		free(cand[i]);
	}
	free(cand);
	free(ncand);
	free(seen);
}

/* The spans of owner o in sorted sp (by_span): *n of them from the one
 * returned. */
static const struct span *
spans_of(const struct spans *sp, size_t o, size_t *n)
{
	size_t i = 0, j;

	while (i < sp->n && sp->s[i].owner < o)
		i++;
	for (j = i; j < sp->n && sp->s[j].owner == o; j++)
		;
	*n = j - i;
	return sp->s + i;
}

/* Without nvtx_gpu_proj_trace: the one GPU whose kernels have exactly the
 * process's shortest and longest durations, kernel by kernel (the names
 * are not compared: one report may be mangled, the other not). */
static char *
device_by_sig(const struct st *t, const char *pid, const char **why)
{
	size_t o = (size_t)lp_map_get(t->pids, pid, 0), np, nd, d, i;
	const struct span *p = spans_of(&t->ps, o, &np), *q;
	const char *dv = NULL;

	for (d = 0; d < lp_map_len(t->devs); d++) {
		q = spans_of(&t->ds, d, &nd);
		for (i = 0; i < np && nd == np; i++)
			if (p[i].lo != q[i].lo || p[i].hi != q[i].hi)
				break;
		if (nd != np || i < np)
			continue;
		if (dv) {
			*why = "the run lacks the nvtx_gpu_proj_trace report and "
			    "the process's kernel durations are those of "
			    "several GPUs in cuda_gpu_trace";
			return NULL;
		}
		dv = lp_map_key(t->devs, d);
	}
	if (!dv)
		*why = "the run lacks the nvtx_gpu_proj_trace report and the "
		    "process's kernel durations (nvtx_kern_sum Min, Max) are "
		    "those of no one GPU in cuda_gpu_trace";
	return dv ? lp_xstrdup(dv) : NULL;
}

/* Rows by GPU, then by PID as a number: the same order whichever
 * layout (one report, one per rank) the rows came from. */
static int
by_dev(const void *x, const void *y)
{
	const struct proc *a = x, *b = y;
	int c;

	if (!a->dev != !b->dev)
		return a->dev ? -1 : 1;
	if (a->dev && (c = strcmp(a->dev, b->dev)))
		return c;
	if (strlen(a->pid) != strlen(b->pid))
		return strlen(a->pid) < strlen(b->pid) ? -1 : 1;
	return strcmp(a->pid, b->pid);
}

/* Is dev "... (device)", as nsys names CUDA device N? */
static int
on_device(const char *dev, long device)
{
	struct lp_sb b = { 0 };
	size_t l = dev ? strlen(dev) : 0, len;
	int yes;

	lp_sb_printf(&b, "(%ld)", device);
	len = strlen(lp_sb_str(&b));
	yes = dev && l >= len && !strcmp(dev + l - len, lp_sb_str(&b));
	lp_sb_free(&b);
	return yes;
}

/* The GPUs a row's device names, for a message: "0, 1". */
static void
devices_seen(struct lp_sb *b, const struct proc *p, size_t np)
{
	size_t i;

	for (i = 0; i < np; i++)
		if (p[i].dev)
			lp_sb_printf(b, "%s%s", *lp_sb_str(b) ? ", " : "", p[i].dev);
}

/* Each process with its GPU or why it is not known, in by_dev's order;
 * *known: how many GPUs are known. */
static struct proc *
place_procs(const struct st *t, const struct opts *o, size_t *known)
{
	size_t i, np = lp_map_len(t->pids);
	struct proc *p = lp_xcalloc(np + 1, sizeof *p);

	for (i = 0; i < np; i++) {
		p[i].pid = lp_xstrdup(lp_map_key(t->pids, i));
		p[i].why = !o->dpath ? "the run lacks the cuda_gpu_trace report" :
		    t->proj_empty ? "nvtx_gpu_proj_trace is empty (no NVTX "
		    "range had GPU work), and nvtx_kern_sum has no Min and Max "
		    "to match the process's kernels with a GPU's" :
		    "the run lacks the nvtx_gpu_proj_trace report, and "
		    "nvtx_kern_sum has no Min and Max to match the process's "
		    "kernels with a GPU's in cuda_gpu_trace";
		if (t->sig)
			p[i].dev = device_by_sig(t, p[i].pid, &p[i].why);
	}
	if (o->gpath && o->dpath)
		devices(t, p, np);
	for (*known = 0, i = 0; i < np; i++)
		*known += p[i].dev != NULL;
	lp_qsort(p, np, sizeof *p, by_dev);
	return p;
}

/* The process ncu profiles (-D): only a question with several processes.
 * Two on its device, or none where every GPU is known or both traces are
 * given (then a process they do not place is one of another capture), are
 * an error, not a guess. NULL if not known. */
static const char *
profiled(const struct proc *p, size_t np, size_t known, const struct opts *o)
{
	struct lp_sb seen = { 0 };
	const char *found = NULL;
	size_t i;

	for (i = 0; np > 1 && o->device >= 0 && i < np; i++)
		if (on_device(p[i].dev, o->device)) {
			if (found)
				lp_die(LP_EXIT_DATA, "processes %s and %s both ran "
				    "on device %ld", found, p[i].pid, o->device);
			found = p[i].pid;
		}
	devices_seen(&seen, p, np);
	if (np > 1 && o->device >= 0 && !found && (known == np || (o->gpath &&
	    o->dpath)))
		lp_die(LP_EXIT_DATA, "%zu processes ran kernels and none is seen "
		    "on device %ld (theirs: %s; %s): set ncu_cli.device to one of "
		    "theirs, or -1 for every device", np, o->device,
		    *lp_sb_str(&seen) ? lp_sb_str(&seen) : "none known",
		    o->gpath && o->dpath ? "nvtx_gpu_proj_trace and "
		    "cuda_gpu_trace give each process's GPU" : "the run lacks "
		    "nvtx_gpu_proj_trace: cuda_gpu_trace's kernel durations give "
		    "each process's GPU");
	lp_sb_free(&seen);
	return found;
}

/* The process the kernel tables show, and why it: the profiled one; with
 * every device profiled, the one on the first GPU; when the GPU ncu
 * profiles holds none that is known, the first that is not. NULL with one
 * process. */
static const char *
shown_process(const struct proc *p, size_t np, long device,
    const char *found, const char **why)
{
	size_t i;

	if (found) {
		*why = "the rank ncu profiles";
		return found;
	}
	for (i = 0; np > 1 && i < np; i++)
		if (device < 0 || !p[i].dev) {
			*why = device < 0 ? (p[i].dev ? "the first GPU's "
			    "(ncu_cli.device is -1: every GPU profiled)" : "the "
			    "lowest PID (ncu_cli.device is -1: every GPU profiled; "
			    "no process's GPU is known)") : "the lowest PID of "
			    "those whose GPU is not known: which one ran on the "
			    "GPU ncu profiles is not known";
			return p[i].pid;
		}
	return NULL;
}

static void
emit_meta(const struct st *t, const struct opts *o, const struct proc *p,
    size_t np, const char *found, const char *shown, const char *shown_why)
{
	const char *sdev = NULL;
	size_t i;

	static const struct lp_col cols[] = {
		{ "pid", "Process", "text" }, { "device", "GPU", "text" },
		{ "profiled", "Profiled by ncu", "text" },
	};
	int both = o->gpath && o->dpath;

	lp_tab_meta(out, "title", "Processes and their GPUs");
	lp_tab_meta(out, "tool", "lp-procs");
	lp_tab_meta(out, "source", "processes that ran kernels from nsys "
	    "nvtx_kern_sum (%s); each one's GPU %s%s%s (%s)", o->kpath ?
	    o->kpath : "<stdin>", both ? "from nvtx_gpu_proj_trace and "
	    "cuda_gpu_trace" : t->sig ? "from cuda_gpu_trace: the one GPU "
	    "whose kernels have the process's shortest and longest duration of "
	    "each kernel (nvtx_kern_sum Min, Max; " : "from "
	    "nvtx_gpu_proj_trace and cuda_gpu_trace", !both && t->sig ?
	    (t->proj_empty ? "nvtx_gpu_proj_trace is empty: no NVTX range had "
	    "GPU work" : "the run lacks nvtx_gpu_proj_trace") : "", !both &&
	    t->sig ? ")" : "", both ? o->dpath : t->sig ? o->dpath : "missing");
	lp_tab_meta(out, "processes", "%zu", np);
	if (found)
		lp_tab_meta(out, "profiled", "%s", found);
	for (i = 0; shown && i < np; i++)
		if (!strcmp(p[i].pid, shown))
			sdev = p[i].dev;
	if (shown) {
		/* the GPU too: the kernel tables say whose kernels they show */
		lp_tab_meta(out, "kernels", "%s", shown);
		if (sdev)
			lp_tab_meta(out, "kernels_gpu", "%s", sdev);
		lp_tab_meta(out, "note", "the kernel tables show process %s%s%s "
		    "alone, %s; every process: ranks.tsv", shown, sdev ?
		    " on " : "", sdev ? sdev : "", shown_why);
	}
	lp_tab_meta(out, "omit", "an input of ranks.tsv and the kernel tables");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
}

static void
emit_rows(const struct proc *p, size_t np, const char *found, long device)
{
	struct lp_row r = { 0 };
	size_t i;

	for (i = 0; i < np; i++) {
		lp_row_text(&r, p[i].pid);
		if (p[i].dev)
			lp_row_text(&r, p[i].dev);
		else
			lp_row_na(&r, "%s", p[i].why);
		if (found)
			lp_row_text(&r, !strcmp(found, p[i].pid) ? "yes" : "no");
		else if (np < 2)
			lp_row_text(&r, "n/a: one process");
		else if (device < 0)
			lp_row_text(&r, "yes");
		else
			lp_row_na(&r, "which process ran on device %ld is not "
			    "known", device);
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
}

static void
free_state(struct st *t, struct proc *p, size_t np)
{
	size_t i;

	for (i = 0; i < np; i++) {
		free(p[i].pid);
		free(p[i].dev);
	}
	free(p);
	for (i = 0; i < t->n; i++)
		free(t->s[i].dev);
	free(t->s);
	free(t->ps.s);
	free(t->ds.s);
	lp_map_free(t->ps.idx);
	lp_map_free(t->ds.idx);
	lp_map_free(t->devs);
	lp_map_free(t->pids);
	lp_map_free(t->kept);
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, NULL, NULL, -1 };
	const char *found, *shown, *shown_why = NULL;
	struct st t = { 0 };
	struct proc *p;
	size_t np, known;
	int c;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	while ((c = lp_getopt(argc, argv, "D:g:t:", synopsis)) != -1) {
		switch (c) {
		case 'D': o.device = lp_strtonum(optarg, -1, 1023, "-D"); break;
		case 'g': o.gpath = optarg; break;
		case 't': o.dpath = optarg; break;
		}
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	o.kpath = optind < argc ? argv[optind] : NULL;
	load_reports(&t, &o);
	p = place_procs(&t, &o, &known);
	np = lp_map_len(t.pids);
	found = profiled(p, np, known, &o);
	shown = shown_process(p, np, o.device, found, &shown_why);

	emit_meta(&t, &o, p, np, found, shown, shown_why);
	emit_rows(p, np, found, o.device);
	free_state(&t, p, np);
	lp_tab_done(out);
	return 0;
}
