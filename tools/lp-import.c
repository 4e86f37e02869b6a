/*
 * lp-import: what each file of IMPORT= is, read from its content (never its
 * name), and whether the files belong together.  Prints the make variables
 * rules.mk includes (import.mk): the files of each nsys report, the ncu
 * kernel exports, the ncu region exports.
 *
 * Belonging together: several exports of one nsys report are joined only
 * when each is tied to its processes (the PID of its own rows, or of the
 * exports written beside it by one "nsys stats -o BASE") and to its GPU
 * (a cuda_gpu_trace of its set), and no process or GPU is in two of them,
 * as per-rank exports of one job are; exports of different reports must
 * agree where they overlap (launch and range counts, and their times); an
 * ncu export must profile the capture's kernels (or its costliest ones),
 * not merely share library kernels with it, and no ncu result may be
 * given twice.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "lp-import/import.h"

static const char synopsis[] = "lp-import [-P prefix] file ...";

/* Which report variable each nsys export fills. */
static void
assign(struct file *fs, size_t n)
{
	int seen[R_N] = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		struct file *f = &fs[i];

		switch (f->kind) {
		case K_KSUM:
			f->rep = imp_variant(f) == 1 ? R_KSUM_M : R_KSUM;
			break;
		case K_NVTX_KSUM:
			f->rep = imp_variant(f) == 1 ? R_NVTX_KSUM_M : R_NVTX_KSUM;
			break;
		case K_GPU_TRACE:
			f->rep = imp_variant(f) == 1 ? R_GPU_TRACE_M : R_GPU_TRACE;
			break;
		case K_NVTX_SUM: f->rep = R_NVTX_SUM; break;
		case K_API_SUM: f->rep = R_API_SUM; break;
		case K_MEM_SUM: f->rep = R_MEM_SUM; break;
		case K_PUSHPOP: f->rep = R_PUSHPOP; break;
		case K_PROJ: f->rep = R_PROJ; break;
		case K_API_TRACE: f->rep = R_API_TRACE; break;
		case K_GRAPH_NODES: f->rep = R_GRAPH_NODES; break;
		default: break;
		}
		if (f->rep >= 0 && imp_variant(f) != -1)
			seen[f->rep]++;
	}
	/* names that read the same both ways (extern "C" kernels only) fill
	 * the demangled report, or the mangled one beside a demangled set */
	for (i = 0; i < n; i++) {
		struct file *f = &fs[i];

		if (imp_variant(f) != -1 || f->rep < 0)
			continue;
		if ((f->rep == R_KSUM && seen[R_KSUM] && !seen[R_KSUM_M]) ||
		    (f->rep == R_NVTX_KSUM && seen[R_NVTX_KSUM] &&
		    !seen[R_NVTX_KSUM_M]))
			f->rep++;
	}
}

/* IMPORT paths reach recipes as they are: plain characters only. */
static void
check_path(const char *p)
{
	const char *ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-/+@=,:~";

	if (!*p || p[strspn(p, ok)])
		lp_die(LP_EXIT_USAGE, "IMPORT: \"%s\": use paths of letters, "
		    "digits and . _ - / + @ = , : ~ only (copy the file to a "
		    "plain name)", p);
}

/*
 * import.mk is read by make, so it holds lp's own words and nothing else:
 * the paths (check_path took them), process IDs (digits: read.c refused
 * any other) and counts.  A name from an export is shown only when it is
 * a plain word.  mk_put() is the last guard under all of it: a byte that
 * would end a comment line or carry it on to the next ('\n', '\\'), or
 * that make or a shell reads ('$', '`', '#' past a comment's start), never
 * reaches the file; lp-import stops instead.
 */
static void
mk_put(const char *s, int comment)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p > 0x7e || strchr("\\$`'\"", *p) ||
		    (*p == '#' && !comment))
			lp_die(LP_EXIT_DATA, "import.mk: byte 0x%02x in \"%.40s\" "
			    "is not lp's to write there (a bug: report it)", *p,
			    s);
	fputs(s, stdout);
}

/* A name from an export (a call's), shown in import.mk's comments only
 * when it is a plain word. */
static int
plain_word(const char *s)
{
	return *s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")];
}

static void
emit_var(const char *var, const struct file *fs, size_t n, int rep,
    enum kind k1, enum kind k2)
{
	size_t i;

	printf("LP_IMP_%s :=", var);
	for (i = 0; i < n; i++)
		if ((rep >= 0 && fs[i].rep == rep) || (rep < 0 &&
		    (fs[i].kind == k1 || fs[i].kind == k2))) {
			putchar(' ');
			mk_put(fs[i].path, 0);
		}
	putchar('\n');
}

/* PyTorch op ranges (nsys --pytorch=autograd-shapes-nvtx) among the
 * ranges of nvtx_sum: the capture can say the GPU time per op. */
static void
emit_aten(const struct file *fs, size_t n)
{
	size_t i, ops = 0;

	for (i = 0; i < n; i++)
		if (fs[i].rep == R_NVTX_SUM)
			ops += fs[i].ops;
	if (!ops)
		return;
	printf("# %zu PyTorch op ranges (nsys --pytorch=autograd-shapes-nvtx)\n",
	    ops);
	printf("LP_IMP_ATEN := 1\n");
}

/* One comment line: what the file is, in lp's words. */
static void
emit_what(const struct file *f)
{
	size_t j;

	fputs("# ", stdout);
	mk_put(f->path, 1);
	fputs(": ", stdout);
	mk_put(f->rep == R_GRAPH_NODES ? "lp-graphnodes " : f->rep >= 0 ?
	    "nsys " : kind_name[f->kind], 1);
	mk_put(f->rep >= 0 ? rep_var[f->rep] : "", 1);
	if (f->details)
		fputs(" (--page details)", stdout);
	if (f->kind == K_CALL_SUM) {
		fputs(", its first call ", stdout);
		mk_put(plain_word(f->notcu) ? f->notcu : "not a plain name", 1);
	}
	if (lp_map_len(f->pids))
		fputs(", process", stdout);
	for (j = 0; j < lp_map_len(f->pids); j++) {
		putchar(' ');
		mk_put(lp_map_key(f->pids, j), 0);
	}
	putchar('\n');
}

static void
emit(const struct file *fs, size_t n)
{
	size_t i;
	int r;

	printf("# lp-import: what each imported file is, read from its "
	    "content\n");
	for (i = 0; i < n; i++)
		emit_what(&fs[i]);
	printf("LP_IMP_LOADED := 1\n");
	for (r = 0; r < R_N; r++)
		emit_var(rep_var[r], fs, n, r, K_NONE, K_NONE);
	emit_var("REP", fs, n, -1, K_NSYS_REP, K_NSYS_REP);
	emit_var("NCUREP", fs, n, -1, K_NCU_REP, K_NCU_REP);
	emit_var("NCUCSV", fs, n, -1, K_NCU_KERN, K_NCU_KERN);
	emit_var("REGCSV", fs, n, -1, K_NCU_RANGE, K_NCU_RANGE);
	emit_var("REGREP", fs, n, -1, K_NCU_REP_RANGE, K_NCU_REP_RANGE);
	emit_var("SQLITE", fs, n, -1, K_SQLITE_GM, K_SQLITE_GM);
	emit_var("OTHER", fs, n, -1, K_PROJ_SUM, K_CALL_SUM);
	emit_aten(fs, n);
}

/* The packs still in their temporary files when lp-import stops (a
 * refusal, or a signal: make interrupted): removed, none left beside the
 * run's reports. */
static struct file *volatile left;
static volatile size_t nleft;

static void
drop_packs(void)
{
	size_t i;

	for (i = 0; i < nleft; i++)
		if (left[i].pack)
			unlink(left[i].pack);
}

static void
on_signal(int sig)
{
	drop_packs();	/* unlink(2) is safe in a handler */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
drop_packs_at_end(struct file *fs, size_t n)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGTERM, SIGPIPE };
	size_t i;

	left = fs;
	nleft = n;
	atexit(drop_packs);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], on_signal);
}

/* -P: the pack of report rep's one file, made as it was read, put at
 * PREFIXname.lpt; else none there (several parts, rows out of order: the
 * rule's lp-tracesort makes it). */
static void
place(struct file *fs, size_t n, const char *prefix, const char *name,
    int rep)
{
	struct file *one = NULL;
	struct lp_sb p = { 0 };
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (fs[i].rep == rep) {
			one = &fs[i];
			k++;
		}
	lp_sb_printf(&p, "%s%s.lpt", prefix, name);
	if (k == 1 && one->pack) {
		char *tmp = one->pack;

		if (rename(tmp, p.s) == -1)
			lp_die_sys("%s", p.s);
		one->pack = NULL;	/* (before free: a signal reads it) */
		free(tmp);
	} else if (unlink(p.s) == -1 && errno != ENOENT)
		lp_die_sys("%s", p.s);
	lp_sb_free(&p);
}

static void
place_packs(struct file *fs, size_t n, const char *prefix)
{
	size_t i;
	int gpu = R_GPU_TRACE_M;

	for (i = 0; i < n; i++)
		if (fs[i].rep == R_GPU_TRACE)
			gpu = R_GPU_TRACE;
	place(fs, n, prefix, "cuda_api_trace", R_API_TRACE);
	place(fs, n, prefix, "cuda_gpu_trace", gpu);
	place(fs, n, prefix, "nvtx_pushpop_trace", R_PUSHPOP);
	place(fs, n, prefix, "nvtx_gpu_proj_trace", R_PROJ);
	for (i = 0; i < n; i++)
		if (fs[i].pack && unlink(fs[i].pack) == -1)
			lp_die_sys("%s", fs[i].pack);
}

static void
file_free(struct file *f)
{
	free(f->pack);
	free(f->notcu);
	free(f->base);
	free(f->procname);
	free(f->keys);
	lp_map_free(f->pids);
	lp_map_free(f->devs);
	lp_map_free(f->gpus);
	lp_map_free(f->sq_pids);
	counts_free(&f->names);
	counts_free(&f->sub);
}

int
main(int argc, char **argv)
{
	struct file *fs;
	const char *prefix = NULL;
	size_t i, j, n;
	int r, c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "P:", synopsis)) != -1)
		prefix = optarg;
	if (optind == argc)
		lp_usage(synopsis);
	n = (size_t)(argc - optind);
	fs = lp_xcalloc(n, sizeof *fs);
	if (prefix)
		drop_packs_at_end(fs, n);
	for (i = 0; i < n; i++) {
		fs[i].path = argv[optind + i];
		fs[i].packto = prefix;
		check_path(fs[i].path);
		for (j = 0; j < i; j++)
			if (!strcmp(fs[j].path, fs[i].path))
				lp_die(LP_EXIT_USAGE, "IMPORT: %s is named twice",
				    fs[i].path);
		read_file(&fs[i]);
	}
	for (i = 0, j = 0; i < n; i++)
		if (fs[i].kind == K_SQLITE_GM && j++)
			lp_die(LP_EXIT_USAGE, "IMPORT: %s: a second nsys sqlite "
			    "export with GPU Metrics samples: lp-gpumetrics reads "
			    "one capture's samples (import one)", fs[i].path);
	assign(fs, n);
	for (r = 0; r < R_N; r++)
		join_check_report(fs, n, r);
	join_check_together(fs, n);
	/* ncu exports: of this capture's program, no result given twice */
	ncu_check_program(fs, n);
	ncu_check_twice(fs, n);
	emit(fs, n);
	if (prefix)
		place_packs(fs, n, prefix);
	nleft = 0;
	for (i = 0; i < n; i++)
		file_free(&fs[i]);
	free(fs);
	lp_close_stdout();
	return 0;
}
