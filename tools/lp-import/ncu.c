/*
 * lp-import's checks of the ncu exports: of the capture's GPU, of its
 * program (its kernels, or its costliest ones), and no ncu result given
 * twice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "import.h"

/* Does an ncu kernel name one of the capture's kernels?  By its whole
 * name (as each tool demangles it), or by its function alone where the
 * two spell names apart (mangled ncu names, demangled nsys ones): library
 * kernels (cuBLAS, PyTorch's elementwise templates) share a function
 * across programs, so that match is the weaker one. */
static int
known_kernel(const char *k, const struct lp_map *exact,
    const struct lp_map *keys, const struct lp_map *bases)
{
	char *s;
	int hit;

	if (lp_map_get(exact, k, -1) >= 0)
		return 1;
	s = bases ? lp_kname_base(k) : lp_kname_key(k);
	hit = lp_map_get(bases ? bases : keys, s, -1) >= 0;
	free(s);
	return hit;
}

static int
cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A file's kernel names in three spellings: as given (exact), as keys
 * (lp_kname_key) and as bases (lp_kname_base). */
static void
put_spellings(const struct file *f, struct lp_map *exact, struct lp_map *keys,
    struct lp_map *bases)
{
	size_t j;

	for (j = 0; j < f->names.len; j++) {
		const char *k = lp_map_key(f->names.idx, j);
		char *s;

		imp_put(exact, k);
		s = lp_kname_key(k);
		imp_put(keys, s);
		free(s);
		s = lp_kname_base(k);
		imp_put(bases, s);
		free(s);
	}
}

/* The names of the nsys capture's kernels: as given (exact), as keys
 * (lp_kname_key) and as bases (lp_kname_base).  Returns 0 when there is
 * no kernel summary; *mangled when one of them has mangled names. */
static int
capture_kernels(const struct file *fs, size_t n, struct lp_map *exact,
    struct lp_map *keys, struct lp_map *bases, int *mangled)
{
	size_t i;
	int nsys = 0;

	*mangled = 0;
	for (i = 0; i < n; i++) {
		if (fs[i].kind != K_KSUM && fs[i].kind != K_NVTX_KSUM)
			continue;
		nsys = 1;
		*mangled |= imp_variant(&fs[i]) == 1;
		put_spellings(&fs[i], exact, keys, bases);
	}
	return nsys;
}

/* The ncu exports tied to fs[i]: itself and those of its ncu process. */
static int
same_ncu(const struct file *fs, size_t i, size_t j)
{
	return fs[j].kind == K_NCU_KERN && (i == j || imp_shared(fs[i].pids,
	    fs[j].pids));
}

/* The share of the capture's kernel time (its kernel summary, either
 * spelling, whichever matches more) held by kernels that the ncu exports
 * tied to fs[i] profiled; -1 when no kernel summary gives the time. */
static double
profiled_share(const struct file *fs, size_t n, size_t i, int by_base)
{
	struct lp_map *exact = lp_map_new(), *keys = lp_map_new(),
	    *bases = lp_map_new();
	double best = -1;
	size_t j, k;
	int r;

	for (j = 0; j < n; j++) {
		if (!same_ncu(fs, i, j))
			continue;
		put_spellings(&fs[j], exact, keys, bases);
	}
	for (r = R_KSUM; r <= R_KSUM_M; r++) {
		double all = 0, got = 0;

		for (j = 0; j < n; j++) {
			if (fs[j].rep != r)
				continue;
			for (k = 0; k < fs[j].names.len; k++) {
				double t = fs[j].names.t[k];

				all += t;
				if (known_kernel(lp_map_key(fs[j].names.idx, k),
				    exact, keys, by_base ? bases : NULL))
					got += t;
			}
		}
		if (all > 0 && got / all > best)
			best = got / all;
	}
	lp_map_free(exact);
	lp_map_free(keys);
	lp_map_free(bases);
	return best;
}

/* The GPU models the nsys capture names, into m: those cuda_gpu_trace
 * ran on, those of an sqlite export with samples (TARGET_INFO_GPU); the
 * first file naming one in *from. */
static void
capture_gpus(const struct file *fs, size_t n, struct lp_map *m,
    const char **from)
{
	size_t i, j;

	*from = NULL;
	for (i = 0; i < n; i++) {
		if (fs[i].kind == K_GPU_TRACE)
			for (j = 0; j < lp_map_len(fs[i].devs); j++) {
				char *g = imp_gpu_model(lp_map_key(fs[i].devs, j));

				imp_put(m, g);
				free(g);
			}
		if (fs[i].kind == K_SQLITE_GM)
			for (j = 0; j < lp_map_len(fs[i].gpus); j++)
				imp_put(m, lp_map_key(fs[i].gpus, j));
		if (!*from && lp_map_len(m))
			*from = fs[i].path;
	}
}

/* An ncu export profiled the capture's GPU: each GPU it names
 * (device__attribute_display_name) is a model the capture ran on, or its
 * peaks, MFU, MBU and roofline would be another GPU's.  Where the capture
 * names none (no cuda_gpu_trace, no sqlite export with samples), the ncu
 * exports name one model; an export that names none (ncu's details page)
 * is not compared. */
static void
check_ncu_gpu(const struct file *fs, size_t n)
{
	struct lp_map *m = lp_map_new();
	const char *from;
	size_t i, j;

	capture_gpus(fs, n, m, &from);
	for (i = 0; i < n; i++) {
		if (fs[i].kind != K_NCU_KERN && fs[i].kind != K_NCU_RANGE)
			continue;
		/* a capture that names none: the first ncu export that does
		 * stands for it (the others profiled the same GPUs) */
		for (j = 0; !from && j < lp_map_len(fs[i].gpus); j++)
			lp_map_put(m, lp_map_key(fs[i].gpus, j), 1);
		if (!from && lp_map_len(m)) {
			from = fs[i].path;
			continue;
		}
		for (j = 0; j < lp_map_len(fs[i].gpus); j++)
			if (lp_map_get(m, lp_map_key(fs[i].gpus, j), -1) < 0)
				lp_die(LP_EXIT_DATA, "IMPORT: %s profiled an %s "
				    "(device__attribute_display_name) and %s names "
				    "an %s%s: their peaks, MFU, MBU and roofline "
				    "would be another GPU's.  Import the ncu export "
				    "of this capture's GPU, or none", fs[i].path,
				    lp_map_key(fs[i].gpus, j), from, lp_map_key(m,
				    0), lp_map_len(m) > 1 ? " (and other models)" :
				    "");
	}
	lp_map_free(m);
}

/* An ncu export refused: the hit kernels it shares with the capture, of
 * that share of its kernel time (-1: unknown), are library kernels; other
 * is one that never ran there. */
static _Noreturn void
refuse_shared(const struct file *f, size_t hit, double share,
    const char *other)
{
	struct lp_sb why = { 0 };

	if (share >= 0)
		lp_sb_printf(&why, "hold %.1f %% of the capture's kernel "
		    "time", 100 * share);
	else
		lp_sb_printf(&why, "cannot be weighed (no kernel summary "
		    "gives the capture's kernel time)");
	lp_die(LP_EXIT_DATA, "IMPORT: %s: %zu of its %zu ncu kernels "
	    "(process %s) never ran in the nsys capture (%s ...), and "
	    "the %zu it shares with it %s: kernels that many programs "
	    "run, not evidence of one program.  An ncu export of the "
	    "capture's program profiles only the capture's kernels, or "
	    "its costliest (half its kernel time or more).  Import the "
	    "ncu export of this capture, or none", f->path,
	    f->names.len - hit, f->names.len, f->procname ? f->procname :
	    "unnamed", other, hit, lp_sb_str(&why));
}

/* An ncu kernel export is of the capture's program when the kernels it
 * shares with the capture show it.  A shared name alone does not: every
 * PyTorch program runs at::native's elementwise, layer-norm and argmax
 * kernels and cuBLAS's split-K reduction, by the same mangled names (5 of
 * the 10 kernels of the torch decoder's ncu export are in GPT-2's capture,
 * issue 28 item 7).  What another program's export has is kernels the
 * capture never ran: its GEMMs, whose cuBLAS configuration follows its
 * shapes.  So an export is taken when every kernel it profiled ran in the
 * capture (a selection of the capture's kernels: lp's top N, one kernel
 * cut out), or when those that did hold at least half the capture's
 * kernel time (a profile of its costliest kernels, beside kernels launched
 * outside the nsys capture's window); the library kernels GPT-2 shares
 * with the torch decoder hold 34 % of its time, its own GEMMs the rest.
 * An export whose kernels miss where another export of the same ncu
 * process matches is judged with that one (a demangled name can miss). */
void
ncu_check_program(const struct file *fs, size_t n)
{
	struct lp_map *exact = lp_map_new(), *keys = lp_map_new(),
	    *bases = lp_map_new();
	size_t i, j, *hit;
	int nsys, nsys_mangled;

	check_ncu_gpu(fs, n);
	nsys = capture_kernels(fs, n, exact, keys, bases, &nsys_mangled);
	hit = lp_xcalloc(n ? n : 1, sizeof *hit);
	for (i = 0; i < n && nsys; i++) {
		const struct file *f = &fs[i];

		if (f->kind != K_NCU_KERN)
			continue;
		for (j = 0; j < f->names.len; j++)
			hit[i] += known_kernel(lp_map_key(f->names.idx, j), exact,
			    keys, imp_variant(f) == 1 && !nsys_mangled ? bases : NULL);
	}
	for (i = 0; i < n && nsys; i++) {
		const struct file *f = &fs[i];
		int by_base = imp_variant(f) == 1 && !nsys_mangled, ok = 0;
		const char *other = NULL;
		double share;
		size_t miss = f->names.len - hit[i];

		if (f->kind != K_NCU_KERN)
			continue;
		for (j = 0; j < n && !ok; j++)
			ok = hit[j] && same_ncu(fs, i, j);
		if (!ok)
			lp_die(LP_EXIT_DATA, "IMPORT: %s: none of its %zu ncu "
			    "kernels (%s, process %s) is a kernel of the nsys "
			    "capture: an export of another program or run? Import "
			    "the ncu export of this capture, or none", f->path,
			    f->names.len, lp_map_key(f->names.idx, 0),
			    f->procname ? f->procname : "unnamed");
		if (!miss)
			continue;
		share = profiled_share(fs, n, i, by_base);
		if (share >= 0.5)
			continue;
		for (j = 0; j < f->names.len && !other; j++)
			if (!known_kernel(lp_map_key(f->names.idx, j), exact, keys,
			    by_base ? bases : NULL))
				other = lp_map_key(f->names.idx, j);
		refuse_shared(f, hit[i], share, other);
	}
	free(hit);
	lp_map_free(exact);
	lp_map_free(keys);
	lp_map_free(bases);
}

/* The same result in two exports: raw and details pages of one report,
 * or one export given twice. */
void
ncu_check_twice(const struct file *fs, size_t n)
{
	size_t i, j, a, b;

	for (i = 0; i < n; i++)
		if (fs[i].nkeys)
			lp_qsort(fs[i].keys, fs[i].nkeys, sizeof *fs[i].keys,
			    cmp_key);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			if (!fs[i].nkeys || !fs[j].nkeys)
				continue;
			for (a = b = 0; a < fs[i].nkeys && b < fs[j].nkeys;) {
				if (fs[i].keys[a] == fs[j].keys[b])
					lp_die(LP_EXIT_DATA, "IMPORT: %s and %s hold "
					    "the same ncu results (same process, "
					    "result ID and kernel): two pages of "
					    "one report, or one export twice; "
					    "import one of them", fs[i].path,
					    fs[j].path);
				if (fs[i].keys[a] < fs[j].keys[b])
					a++;
				else
					b++;
			}
		}
}
