/*
 * lp-findings' rules of multi-GPU runs (ranks.tsv, overlap.tsv): straggler
 * and communication.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "run.h"
#include "find.h"

/* Rule straggler (ranks.tsv): per process, the stage where it keeps the
 * other ranks waiting longest. */
void
ranks_straggler(struct findings *fs, const struct tab *k)
{
	size_t i, j;
	int more;

	for (i = 0; i < k->n; i++) {
		double gap = cell(k, i, "gap_ns"), n = cell(k, i, "instances");
		double best = gap * n;
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
		more = lp_straggler_more_work(cell(k, i, "compute_ns"),
		    cell(k, f, "compute_ns"), gap, cell(k, i, "launches"),
		    cell(k, f, "launches"));
		x = add(fs, "straggler", best, k->path, more ? "It does more work "
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
		act(x, more ? "Balance the shards across the ranks." :
		    "Find the host delay on that rank (nsys --sample=cpu).");
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

/* The same collectives (as many communication kernels) far faster on
 * another GPU than on GPU i: this one waits in them for a slower rank,
 * which overlap cannot remove.  Returns 0 when no other GPU is that fast. */
static int
comm_wait(struct findings *fs, const struct tab *o, size_t i)
{
	double share = cell(o, i, "comm_pct"), ov = cell(o, i, "overlap_pct");
	double ex = cell(o, i, "exposed_ns"), comm = cell(o, i, "comm_ns");
	double fast = NAN;
	size_t j, fj = 0;
	struct f *x;

	for (j = 0; j < o->n; j++)
		if (j != i && cell(o, j, "comm_kernels") == cell(o, i,
		    "comm_kernels") && cell(o, j, "comm_ns") > 0 &&
		    (isnan(fast) || cell(o, j, "comm_ns") < fast)) {
			fast = cell(o, j, "comm_ns");
			fj = j;
		}
	if (!(fast > 0 && comm >= 2 * fast))
		return 0;
	x = add(fs, "communication", ex < fast ? ex : fast, o->path, "Find "
	    "what delays the other ranks before the collectives (the ranks "
	    "table: a straggler, an uneven shard, host work only they do) and "
	    "balance it: overlap cannot remove a wait. Overlapping the "
	    "collectives with compute (async all-reduce on a side stream, "
	    "bucketing) saves at most the fastest rank's communication time.",
	    "Communication is %.3g%% of the kernel time on %s, but the same "
	    "collectives take %.3f ms on %s against %.3f ms here (%.3gx): %s "
	    "waits in them for a slower rank (load imbalance or a straggler on "
	    "the other rank), not for the transfer.", share, text(o, i,
	    "device"), ms(fast), text(o, fj, "device"), ms(comm), comm / fast,
	    text(o, i, "device"));
	ev(x, "%.0f communication kernels on each GPU; %.3f ms of communication "
	    "kernels here, %.3f ms exposed (%.3g%% overlapped), %.3f ms of "
	    "compute (whole capture); saving: at most the fastest rank's "
	    "communication time (%s)", cell(o, i, "comm_kernels"), ms(comm),
	    ms(ex), ov, ms(cell(o, i, "compute_ns")), text(o, fj, "device"));
	return 1;
}

/* Rule communication (overlap.tsv): a GPU whose kernel time is mostly
 * communication that compute does not hide. */
void
ranks_communication(struct findings *fs, const struct tab *o,
    const struct tab *k)
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
		struct f *x;

		if (!(share >= 25) || !(ov < 50) || comm_wait(fs, o, i))
			continue;
		x = add(fs, "communication", ex, o->path, "Where the share is far "
		    "above the other GPUs', this one waits for a straggler (the "
		    "ranks table). Otherwise overlap the collectives with compute "
		    "(async all-reduce on a side stream, bucketing small "
		    "all-reduces), or use fewer GPUs per model replica.",
		    "Communication is %.3g%% of the kernel time on %s, %.3g%% of "
		    "it overlapped with compute.", share, text(o, i, "device"), ov);
		act(x, "Overlap the collectives with compute, or find the "
		    "straggler it waits for.");
		ev(x, "%.3f ms of communication kernels, %.3f ms exposed, "
		    "%.3f ms of compute (whole capture)", ms(cell(o, i,
		    "comm_ns")), ms(ex), ms(cell(o, i, "compute_ns")));
	}
}
