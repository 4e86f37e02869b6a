/*
 * lp-tracesort: an nsys trace export (cuda_api_trace, cuda_gpu_trace,
 * nvtx_pushpop_trace, lp-graphnodes' graph_node_trace) with its rows in
 * time order, for the readers that sweep a trace in time order.  Since
 * nsys 2025.6 the sqlite export does not promise row order, "including
 * timestamp order", so no reader may take an export's order for time's.
 *
 * The order is a function of the rows alone: by Start, then the longer
 * Duration first (a range before those nested in it at the same start),
 * then the row's bytes; the same rows in any order give the same file.
 * Several files (the per-process parts of one job) with one header are
 * one trace, the header written once.  Rows are sorted in runs of at most
 * RUN_BYTES, each written to a temporary file (in TMPDIR) and merged, up
 * to FANIN at a time: memory is bounded whatever the trace's size.
 *
 * One regular file packed (-p) whose rows come in order (nsys stats of a
 * capture that kept its time order, most imports) is packed as it is
 * read: no run, no merge.  Into a regular file (make's "> x.tmp") the
 * pack goes straight to standard output, else to a temporary file copied
 * out at the end.  The first row out of order drops that pack and reads
 * the file again from its start into the sort.  Either way the same
 * bytes.
 */
#include <sys/stat.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"

static const char synopsis[] = "lp-tracesort [-kp] [file ...]";

#define RUN_BYTES (32u << 20)
#define FANIN 256

struct rec {
	struct lp_tkey k;	/* the order's key; k.s the row as CSV, its
				 * newline included; with -p its fields,
				 * each ending in a NUL */
	long line;		/* where the row was, in file src */
	size_t src;
};

struct st {
	struct rec *r;		/* the run being filled */
	size_t n, cap, bytes;
	FILE **run;		/* runs written, each sorted */
	size_t nrun, caprun;
	struct lp_sb b;
	char **hdr;		/* the first file's header */
	size_t nhdr;
	const char *hfile;
	long hline;
	int pack;		/* -p: the packed form (pack.c) */
	const char **srcs;	/* the files, in order */
	size_t nsrc;
	struct lp_pack_w *pw;
	const char **fv;	/* a row's fields, for the pack */
	int keep;		/* -k: packed in the order they come */
	int stream;		/* -p, one file: packing rows as they come */
	int direct;		/* ... into standard output, not sfp */
	FILE *sfp;		/* ... into this temporary pack */
	struct lp_pack_s *sp;
};

static int
cmp_rec(const struct rec *a, const struct rec *b)
{
	return lp_tkey_cmp(&a->k, &b->k);
}

static int
cmp_qsort(const void *a, const void *b)
{
	return cmp_rec(a, b);
}

/* A temporary file in TMPDIR (or /tmp), gone when closed; NULL, errno
 * set and its path in p, when it cannot be made. */
static FILE *
tmp_try(struct lp_sb *p)
{
	const char *d = getenv("TMPDIR");
	FILE *fp;
	int fd;

	lp_sb_reset(p);
	lp_sb_printf(p, "%s/lp-tracesort.XXXXXX", d && *d ? d : "/tmp");
	if ((fd = mkstemp(p->s)) == -1)
		return NULL;
	if (unlink(p->s) == -1 || !(fp = fdopen(fd, "w+")))
		lp_die_sys("%s", p->s);
	return fp;
}

static FILE *
tmp_open(void)
{
	struct lp_sb p = { 0 };
	FILE *fp = tmp_try(&p);

	if (!fp)
		lp_die_sys("%s", p.s);
	lp_sb_free(&p);
	return fp;
}

/* A row's place in a run file: its key and where it came from, then its
 * bytes. */
struct key {
	double start, dur;
	long line;
	size_t src, len;
};

static void
put_rec(FILE *fp, const struct rec *r)
{
	struct key k = { r->k.start, r->k.dur, r->line, r->src, r->k.len };

	if (fwrite(&k, sizeof k, 1, fp) != 1 ||
	    fwrite(r->k.s, 1, r->k.len, fp) != r->k.len)
		lp_die_sys("writing a temporary file");
}

/* The next row of a run into r (its buffer reused); 0 at the run's end. */
static int
get_rec(FILE *fp, struct rec *r, size_t *cap)
{
	struct key k;

	if (fread(&k, sizeof k, 1, fp) != 1) {
		if (ferror(fp))
			lp_die_sys("reading a temporary file");
		return 0;
	}
	r->k.start = k.start;
	r->k.dur = k.dur;
	r->line = k.line;
	r->src = k.src;
	r->k.len = k.len;
	if (r->k.len > *cap) {
		*cap = r->k.len;
		r->k.s = lp_xrealloc(r->k.s, *cap);
	}
	if (fread(r->k.s, 1, r->k.len, fp) != r->k.len)
		lp_die_sys("reading a temporary file");
	return 1;
}

/* Is run a's head before run b's?  Equal rows by their run, so that the
 * merge is the same whatever the heap's shape. */
static int
before(const struct rec *r, size_t a, size_t b)
{
	int c = cmp_rec(&r[a], &r[b]);

	return c < 0 || (!c && a < b);
}

static void
sift(size_t *h, size_t n, size_t i, const struct rec *r)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, x;

		if (l < n && before(r, h[l], h[m]))
			m = l;
		if (l + 1 < n && before(r, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

/* Rows already in order (an export that kept its time order) need no
 * sort. */
static void
sort_run(struct rec *r, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (cmp_rec(&r[i - 1], &r[i]) > 0) {
			lp_qsort(r, n, sizeof *r, cmp_qsort);
			return;
		}
}

/* The run in memory, sorted, to a temporary file. */
static void
spill(struct st *t)
{
	FILE *fp;
	size_t i;

	sort_run(t->r, t->n);
	fp = tmp_open();
	for (i = 0; i < t->n; i++) {
		put_rec(fp, &t->r[i]);
		free(t->r[i].k.s);
	}
	if (fflush(fp) == EOF || fseek(fp, 0, SEEK_SET) == -1)
		lp_die_sys("writing a temporary file");
	t->run = lp_grow(t->run, t->nrun, &t->caprun, 16, sizeof *t->run);
	t->run[t->nrun++] = fp;
	t->n = t->bytes = 0;
}

/* A row out: as CSV, or into the pack (its fields split at their NULs). */
static void
out_rec(struct st *t, const struct rec *r)
{
	const char *p = r->k.s;
	size_t i;

	if (!t->pack) {
		if (fwrite(r->k.s, 1, r->k.len, stdout) != r->k.len)
			lp_die_sys("writing standard output");
		return;
	}
	for (i = 0; i < t->nhdr; i++) {
		t->fv[i] = p;
		p += strlen(p) + 1;
	}
	lp_pack_row(t->pw, r->src, r->line, t->fv);
}

/* Runs run[0..n) merged into out: rows out (out_rec), or another run
 * (out set). */
static void
merge(struct st *t, FILE **run, size_t n, FILE *out)
{
	struct rec *r = lp_xcalloc(n, sizeof *r);
	size_t *cap = lp_xcalloc(n, sizeof *cap), *h = lp_xcalloc(n,
	    sizeof *h), nl = 0, i;

	/* the runs' heads in a heap, least first: a few hundred runs cost
	 * a few comparisons a row, not one a run */
	for (i = 0; i < n; i++)
		if (get_rec(run[i], &r[i], &cap[i]))
			h[nl++] = i;
	for (i = nl / 2; i-- > 0;)
		sift(h, nl, i, r);
	while (nl) {
		i = h[0];
		if (out)
			put_rec(out, &r[i]);
		else
			out_rec(t, &r[i]);
		if (!get_rec(run[i], &r[i], &cap[i]))
			h[0] = h[--nl];
		sift(h, nl, 0, r);
	}
	for (i = 0; i < n; i++) {
		free(r[i].k.s);
		fclose(run[i]);
	}
	free(r);
	free(cap);
	free(h);
}

/* The header once; every other file's must be the same. */
static void
check_header(struct st *t, const struct lp_csv_hdr *h, const char *file)
{
	size_t i;

	if (!t->hdr) {
		t->nhdr = h->n;
		t->hdr = lp_xcalloc(h->n, sizeof *t->hdr);
		for (i = 0; i < h->n; i++) {
			t->hdr[i] = lp_xstrdup(h->names[i]);
			if (t->pack)
				continue;
			lp_csv_put(stdout, h->names[i], 0);
			putchar(i + 1 < h->n ? ',' : '\n');
		}
		t->hfile = file;
		t->hline = h->line;
		return;
	}
	for (i = 0; i < h->n && i < t->nhdr; i++)
		if (strcmp(h->names[i], t->hdr[i]))
			break;
	if (i < h->n || h->n != t->nhdr)
		lp_die_at(LP_EXIT_DATA, file, h->line, 0, "its header is not "
		    "that of %s: one trace's parts have one header", t->hfile);
}

/* A row into the run, as CSV (quoted where RFC 4180 needs it, as nsys
 * quotes); a full run goes to a temporary file. */
static void
add_row(struct st *t, const struct lp_rep_row *rr)
{
	struct rec *r;
	size_t i;

	t->r = lp_grow(t->r, t->n, &t->cap, 1024, sizeof *t->r);
	r = &t->r[t->n++];
	r->k.start = lp_rep_time(rr, 0);
	r->k.dur = rr->col[1] >= 0 ? lp_rep_time(rr, 1) : 0;
	r->line = rr->line;
	r->src = t->nsrc - 1;
	lp_sb_reset(&t->b);
	if (t->pack)
		lp_trace_key(&t->b, rr->rec);
	for (i = 0; !t->pack && i < rr->rec->n; i++) {
		const char *f = rr->rec->f[i];

		if (strpbrk(f, ",\"\r\n")) {
			lp_sb_addc(&t->b, '"');
			for (; *f; f++) {
				if (*f == '"')
					lp_sb_addc(&t->b, '"');
				lp_sb_addc(&t->b, *f);
			}
			lp_sb_addc(&t->b, '"');
		} else
			lp_sb_adds(&t->b, f);
		lp_sb_addc(&t->b, i + 1 < rr->rec->n ? ',' : '\n');
	}
	r->k.len = t->b.len;
	r->k.s = lp_sb_steal(&t->b);
	t->bytes += r->k.len + sizeof *r;
	if (t->bytes >= RUN_BYTES)
		spill(t);
}

static const char *const trace_cols[] = { "Start", "?Duration" };

/* A row packed as it comes while the rows keep their order; else the
 * sort takes over.  1: the file must be read again, into the sort. */
static int
stream_row(struct st *t, const struct lp_rep_in *in,
    const struct lp_rep_row *rr, const char *name)
{
	if (!t->sp) {
		struct lp_sb p = { 0 };

		/* no temporary file: the rows sorted in memory, as before,
		 * and a trace over RUN_BYTES refused there */
		if (t->direct)
			t->sfp = stdout;
		else if (!(t->sfp = tmp_try(&p))) {
			lp_sb_free(&p);
			t->stream = 0;
			add_row(t, rr);
			return 0;
		}
		lp_sb_free(&p);
		check_header(t, lp_rep_header(in), name);
		t->sp = lp_pack_sopen(t->sfp, t->srcs, t->nsrc,
		    lp_rep_header(in), 1);
	}
	return lp_pack_srow(t->sp, t->nsrc - 1, rr);
}

/* Out of order after all: the pack made so far is dropped (standard
 * output emptied, or the temporary pack closed), and the file read again
 * from its start into the run. */
static struct lp_rep_in *
restart(struct st *t, struct lp_rep_in *in, FILE *fp, const char *name)
{
	lp_pack_send(t->sp);
	t->sp = NULL;
	if (!t->direct)
		fclose(t->sfp);
	else if (fflush(stdout) == EOF || ftruncate(fileno(stdout), 0) == -1 ||
	    fseek(stdout, 0, SEEK_SET) == -1)
		lp_die_sys("standard output");
	t->sfp = NULL;
	t->stream = t->direct = 0;
	lp_rep_close(in);
	if (fseek(fp, 0, SEEK_SET) == -1)
		lp_die_sys("%s", name);
	in = lp_rep_from(fp, name, "an nsys trace", trace_cols, 2);
	lp_rep_empty_ok(in);
	return in;
}

/* A regular file (empty, at its start)?  The input must be one to be
 * packed as it is read (it is read again if a row is out of order), and
 * standard output one for the pack to go straight into it. */
static int
regular(FILE *fp, int empty)
{
	struct stat sb;

	return fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (!empty || (sb.st_size == 0 && ftello(fp) == 0));
}

/* One file's rows; an empty file is a report without rows (nsys writes
 * no header then), a header alone one too (lp-graphnodes' of a capture
 * without graphs). */
static void
read_file(struct st *t, const char *path)
{
	const struct lp_rep_row *rr;
	struct lp_rep_in *in;
	const char *name;
	FILE *fp = lp_open_in(path, &name);
	int c = getc(fp);

	if (c == EOF) {
		if (ferror(fp))
			lp_die_sys("%s", name);
		lp_close_in(fp);
		return;
	}
	ungetc(c, fp);
	t->srcs = lp_xreallocarray(t->srcs, t->nsrc + 1, sizeof *t->srcs);
	t->srcs[t->nsrc++] = name;
	in = lp_rep_from(fp, name, "an nsys trace", trace_cols, 2);
	lp_rep_empty_ok(in);
	t->stream = t->stream && regular(fp, 0);
	t->direct = t->stream && regular(stdout, 1);
	while ((rr = lp_rep_next(in)))
		if (!t->stream)
			add_row(t, rr);
		else if (stream_row(t, in, rr, name))
			in = restart(t, in, fp, name);
	check_header(t, lp_rep_header(in), name);
	lp_rep_close(in);
	lp_close_in(fp);
}

static const char *const keep_cols[] = { "Name" };

/* -k, file src of srcs (opened as path): its rows out (packed with -p,
 * else as CSV) as they come, after those of the files before it; its
 * header checked against the first's before any row (the pack opened at
 * the first row, or by main for a header alone). */
static void
keep_file(struct st *t, const char *path, size_t src)
{
	const struct lp_rep_row *rr;
	struct lp_rep_in *in;
	const char *name;
	FILE *fp = lp_open_in(path, &name);
	int c = getc(fp), checked = 0;

	if (c == EOF) {		/* a report without rows */
		if (ferror(fp))
			lp_die_sys("%s", name);
		lp_close_in(fp);
		return;
	}
	ungetc(c, fp);
	in = lp_rep_from(fp, name, "an nsys trace", keep_cols, 1);
	lp_rep_empty_ok(in);
	while ((rr = lp_rep_next(in))) {
		size_t i;

		if (!checked++)
			check_header(t, lp_rep_header(in), name);
		if (t->pack && !t->sp)
			t->sp = lp_pack_sopen(stdout, t->srcs, t->nsrc,
			    lp_rep_header(in), 0);
		if (t->pack) {
			lp_pack_srow(t->sp, src, rr);
			continue;
		}
		for (i = 0; i < rr->rec->n; i++) {
			lp_csv_put(stdout, rr->rec->f[i], 0);
			putchar(i + 1 < rr->rec->n ? ',' : '\n');
		}
	}
	if (!checked)
		check_header(t, lp_rep_header(in), name);
	lp_rep_close(in);
	lp_close_in(fp);
}

/* -k: the files named that hold anything (an empty file is a report
 * without rows), each by the name lp_open_in gives it, then each one's
 * rows: no sort, nothing in memory (a pack of the projection, or its CSV
 * from a pack). */
static void
keep_all(struct st *t, char **paths, size_t n)
{
	char **open_as = lp_xcalloc(n, sizeof *open_as);
	struct stat sb;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(paths[i], "-") && stat(paths[i], &sb) == 0 &&
		    S_ISREG(sb.st_mode) && sb.st_size == 0)
			continue;
		t->srcs = lp_xreallocarray(t->srcs, t->nsrc + 1,
		    sizeof *t->srcs);
		open_as[t->nsrc] = paths[i];
		t->srcs[t->nsrc] = paths[i];
		if (!strcmp(paths[i], "-"))	/* its name, opening nothing */
			lp_open_in("-", &t->srcs[t->nsrc]);
		t->nsrc++;
	}
	for (i = 0; i < t->nsrc; i++)
		keep_file(t, open_as[i], i);
	free(open_as);
}

/* Merged FANIN at a time until one merge writes the rows out. */
static void
emit(struct st *t)
{
	size_t i, k;

	if (!t->nrun) {
		sort_run(t->r, t->n);
		for (i = 0; i < t->n; i++) {
			out_rec(t, &t->r[i]);
			free(t->r[i].k.s);
		}
		return;
	}
	if (t->n)
		spill(t);
	while (t->nrun > FANIN) {
		for (i = k = 0; i < t->nrun; i += FANIN, k++) {
			size_t m = t->nrun - i < FANIN ? t->nrun - i : FANIN;
			FILE *fp = tmp_open();

			merge(t, t->run + i, m, fp);
			if (fflush(fp) == EOF || fseek(fp, 0, SEEK_SET) == -1)
				lp_die_sys("writing a temporary file");
			t->run[k] = fp;
		}
		t->nrun = k;
	}
	merge(t, t->run, t->nrun, NULL);
}

/* The rows kept their order: the pack is the output. */
static void
stream_out(struct st *t)
{
	lp_pack_send(t->sp);
	t->sp = NULL;
	if (t->direct)
		return;
	if (fflush(t->sfp) == EOF || fseek(t->sfp, 0, SEEK_SET) == -1)
		lp_die_sys("writing a temporary file");
	lp_file_copy(t->sfp, "a temporary file", stdout, "standard output");
	fclose(t->sfp);
}

int
main(int argc, char **argv)
{
	struct st t = { 0 };
	size_t i;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "kp", synopsis)) != -1) {
		switch (c) {
		case 'k':
			t.keep = 1;
			break;
		case 'p':
			t.pack = 1;
			break;
		}
	}
	t.stream = t.pack && argc - optind <= 1;
	if (t.keep)
		keep_all(&t, optind < argc ? argv + optind : (char *[]){ "-" },
		    optind < argc ? (size_t)(argc - optind) : 1);
	else if (optind == argc)
		read_file(&t, "-");
	for (i = (size_t)optind; !t.keep && i < (size_t)argc; i++)
		read_file(&t, argv[i]);
	if (t.sp && t.keep) {
		lp_pack_send(t.sp);
		goto done;
	}
	if (t.sp) {
		stream_out(&t);
		goto done;
	}
	/* no header: every file empty, as nsys writes a report without
	 * rows; the pack is then empty too */
	if (t.pack && t.hdr) {
		if (!t.fv)
			t.fv = lp_xcalloc(t.nhdr, sizeof *t.fv);
		t.pw = lp_pack_wopen(stdout, t.srcs, t.nsrc,
		    (const char *const *)t.hdr, t.nhdr, t.hline);
	}
	emit(&t);
	if (t.pw)
		lp_pack_wend(t.pw);
done:
	free(t.fv);
	free(t.srcs);
	for (i = 0; i < t.nhdr; i++)
		free(t.hdr[i]);
	free(t.hdr);
	free(t.r);
	free(t.run);
	lp_sb_free(&t.b);
	lp_close_stdout();
	return 0;
}
