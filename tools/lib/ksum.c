/*
 * nsys kernel summaries: cuda_gpu_kern_sum (gpukernsum before 2023), and
 * nvtx_kern_sum (nvtxkernsum) narrowed to one NVTX range.  Columns are found
 * by header name; "Total Time (us)" and friends are scaled to ns.  One entry
 * per distinct kernel name, so memory follows the number of kernels.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "aten.h"

struct rd {
	struct lp_ksum *ks;
	const char *file;
	const char *range;
	const char *pid;	/* the process to keep, or NULL */
	struct lp_csv_hdr hdr;
	int have_hdr;
	int c_name, c_total, c_calls, c_range, c_pid;
	int c_std, c_min, c_max;	/* the launches' spread, -1: none */
	double tfactor;
	struct lp_map *ranges;	/* distinct ranges seen, for messages */
	long rows;
	long last;		/* the line the last record began on */
	struct lp_sb fp;
	struct lp_sb pre;	/* the first line skipped before the header */
	struct lp_agree agree;
};

static double
num(const struct rd *r, const struct lp_csv_rec *rec, int col,
    enum lp_dim dim, double factor, int whole)
{
	const char *s = lp_csv_field(rec, col), *why;
	double v;

	if (lp_num_parse(s, &v))
		lp_die_at(LP_EXIT_DATA, r->file, rec->line, col + 1,
		    "%s: not a number: \"%s\"", r->hdr.names[col], s);
	if ((why = lp_num_bad(dim, v * factor, whole)))
		lp_die_at(LP_EXIT_DATA, r->file, rec->line, col + 1,
		    "%s: %s: \"%s\"", r->hdr.names[col], why, s);
	return v * factor;
}

static void
header(struct rd *r, const struct lp_csv_rec *rec)
{
	const char *what = "an nsys kernel summary (cuda_gpu_kern_sum, "
	    "gpukernsum or nvtx_kern_sum)";
	int reads[4];	/* the columns read here, checked by num() */

	lp_csv_hdr_init(&r->hdr, rec, r->file);
	r->have_hdr = 1;
	r->c_range = lp_csv_col(&r->hdr, "NVTX Range");
	r->c_pid = lp_csv_col(&r->hdr, "PID");
	if (r->pid && r->c_pid < 0)
		lp_die(LP_EXIT_USAGE, "%s: one process's kernels (-P) need a "
		    "report with a PID column (nvtx_kern_sum)", r->file);
	if (r->c_range >= 0) {
		r->ks->per_range = 1;
		r->ks->report = lp_xstrdup("nvtx_kern_sum");
		r->c_name = lp_csv_need(&r->hdr, "Kernel Name", what);
		r->c_calls = lp_csv_need(&r->hdr, "Kern Inst", what);
	} else {
		r->ks->report = lp_xstrdup("cuda_gpu_kern_sum");
		if (lp_csv_col(&r->hdr, "Range") >= 0 &&
		    lp_csv_col(&r->hdr, "Style") >= 0)
			lp_die_at(LP_EXIT_DATA, r->file, rec->line, 0,
			    "an NVTX range summary (nvtx_sum), not %s", what);
		r->c_name = lp_csv_need(&r->hdr, "Name", what);
		r->c_calls = lp_csv_need(&r->hdr, "Instances", what);
	}
	r->c_total = lp_csv_col_prefix(&r->hdr, "Total Time");
	if (r->c_total < 0)
		lp_csv_need(&r->hdr, "Total Time (ns)", what);
	if (lp_header_time_factor(r->hdr.names[r->c_total], &r->tfactor))
		lp_die_at(LP_EXIT_DATA, r->file, rec->line, r->c_total + 1,
		    "unknown time unit in \"%s\"", r->hdr.names[r->c_total]);
	r->c_std = lp_csv_col_prefix(&r->hdr, "StdDev");
	r->c_min = lp_csv_col_prefix(&r->hdr, "Min (");
	r->c_max = lp_csv_col_prefix(&r->hdr, "Max (");
	reads[0] = r->c_total;
	reads[1] = r->c_calls;
	reads[2] = r->c_min;
	reads[3] = r->c_max;
	lp_agree_init(&r->agree, &r->hdr);
	lp_agree_reads(&r->agree, reads, 4);
	if (r->range && !r->ks->per_range)
		lp_die(LP_EXIT_USAGE, "%s: a range (-r) needs nvtx_kern_sum "
		    "input; this is cuda_gpu_kern_sum", r->file);
}

/* A kernel's fingerprint with a row's added: its rows' fingerprints (each
 * ended by 0x1e) in byte order, so the demangled and mangled variants
 * pair whatever order each has its rows in.  Caller frees. */
static char *
fp_insert(const char *fp, const char *row)
{
	struct lp_sb b = { 0 };
	const char *p = fp, *e;

	while (*p && (e = strchr(p, '\x1e')) &&
	    strncmp(p, row, (size_t)(e - p) + 1) <= 0)
		p = e + 1;
	lp_sb_addn(&b, fp, (size_t)(p - fp));
	lp_sb_adds(&b, row);
	lp_sb_adds(&b, p);
	return lp_sb_steal(&b);
}

/* A line before the header: nsys stats writing to a pipe may print
 * "Processing [...]" and a title first; the header is the line with the
 * time. */
static void
before_header(struct rd *r, const struct lp_csv_rec *rec)
{
	size_t c;

	if (lp_csv_rec_has(rec, "Total Time")) {
		header(r, rec);
		return;
	}
	if (!r->pre.len)
		for (c = 0; c < rec->n; c++)
			lp_sb_printf(&r->pre, "%s%s", c ? "," : "", rec->f[c]);
}

/* The entry of kernel name, made at its first row, with the row's
 * fingerprint added. */
static struct lp_kern *
kern_of(struct rd *r, const struct lp_csv_rec *rec, const char *name)
{
	struct lp_ksum *ks = r->ks;
	struct lp_kern *k;
	long i;
	size_t c;

	/* Every other column: equal in the demangled and mangled variants of
	 * one report, so it pairs their rows. */
	lp_sb_reset(&r->fp);
	for (c = 0; c < rec->n; c++)
		if ((int)c != r->c_name) {
			lp_sb_adds(&r->fp, rec->f[c]);
			lp_sb_addc(&r->fp, '\x1f');
		}
	lp_sb_addc(&r->fp, '\x1e');
	if ((i = lp_map_get(ks->idx, name, -1)) >= 0) {
		/* several threads ran the range: one kernel, several rows */
		char *fp = fp_insert(ks->k[i].fp, lp_sb_str(&r->fp));

		free(ks->k[i].fp);
		ks->k[i].fp = fp;
		return &ks->k[i];
	}
	ks->k = lp_grow(ks->k, ks->n, &ks->cap, 64, sizeof *ks->k);
	lp_map_put(ks->idx, name, (long)ks->n);
	k = memset(&ks->k[ks->n++], 0, sizeof *k);
	k->name = lp_xstrdup(name);
	k->fp = lp_xstrdup(lp_sb_str(&r->fp));
	k->min_ns = k->max_ns = NAN;
	k->spread = r->c_std >= 0;
	return k;
}

static int
row(const struct lp_csv_rec *rec, void *ctx)
{
	struct rd *r = ctx;
	struct lp_kern *k;
	const char *name;
	double total, calls;

	r->last = rec->line;
	if (!r->have_hdr) {
		before_header(r, rec);
		return 0;
	}
	if (rec->n == 1 && !rec->f[0][0])
		return 0;
	lp_csv_width(&r->hdr, rec->n, rec->line);
	lp_agree_row(&r->agree, rec);
	if (r->pid && strcmp(lp_csv_field(rec, r->c_pid), r->pid))
		return 0;
	if (r->c_range >= 0) {
		const char *rg = lp_csv_field(rec, r->c_range);

		if (lp_map_get(r->ranges, rg, -1) < 0)
			lp_map_put(r->ranges, rg, 1);
		if (!r->range || !lp_nvtx_range_match(r->range, rg))
			return 0;
	}
	r->rows++;
	name = lp_csv_field(rec, r->c_name);
	if (!*name)
		lp_die_at(LP_EXIT_DATA, r->file, rec->line, r->c_name + 1,
		    "empty kernel name");
	total = num(r, rec, r->c_total, LP_DIM_TIME, r->tfactor, 0);
	calls = num(r, rec, r->c_calls, LP_DIM_COUNT, 1, 1);
	k = kern_of(r, rec, name);
	/* the launches' spread over the rows of one kernel: sums of
	 * squares add (sample variance: (n - 1) s^2 + n mean^2 each) */
	if (k->spread && r->c_std >= 0 && calls > 0) {
		double sd = num(r, rec, r->c_std, LP_DIM_TIME, r->tfactor, 0);
		double m = total / calls;

		lp_xsum_add(&k->sumsq, (calls - 1) * sd * sd + calls * m * m);
		if (r->c_min >= 0) {
			double lo = num(r, rec, r->c_min, LP_DIM_TIME, r->tfactor, 0);
			double hi = num(r, rec, r->c_max >= 0 ? r->c_max : r->c_min,
			    LP_DIM_TIME, r->tfactor, 0);

			if (isnan(k->min_ns) || lo < k->min_ns)
				k->min_ns = lo;
			if (isnan(k->max_ns) || hi > k->max_ns)
				k->max_ns = hi;
		}
	} else
		k->spread = 0;
	k->total_ns += total;
	k->calls += calls;
	r->ks->total_ns += total;
	r->ks->calls += calls;
	return 0;
}

/*
 * The ranges named in a message: the first LIST_MAX that are not PyTorch op
 * ranges (--pytorch=autograd-shapes-nvtx makes one name per call), the
 * rest counted.  When want is a named-domain range ("LLM:decode_all") and
 * the default-domain spelling of the same text (":LLM@decode_all", what
 * PyTorch's range_push("LLM@decode_all") makes) is there, say so.
 */
enum { LIST_MAX = 20 };

static void
list_ranges(struct lp_sb *b, const struct lp_map *m, const char *want)
{
	size_t i, shown = 0, ops = 0, more = 0;
	struct lp_sb alt = { 0 };
	const char *c = want ? strchr(want, ':') : NULL;
	int have_alt = 0;

	if (c && c > want) {
		lp_sb_addc(&alt, ':');
		lp_sb_addn(&alt, want, (size_t)(c - want));
		lp_sb_addc(&alt, '@');
		lp_sb_adds(&alt, c + 1);
	}
	for (i = 0; i < lp_map_len(m); i++) {
		const char *k = lp_map_key(m, i);

		if (alt.len && !strcmp(k, lp_sb_str(&alt)))
			have_alt = 1;
		if (lp_aten_is_op(k))
			ops++;
		else if (shown++ < LIST_MAX)
			lp_sb_printf(b, "%s\"%s\"", shown > 1 ? ", " : "",
			    *k ? k : "(none)");
		else
			more++;
	}
	if (more)
		lp_sb_printf(b, " and %zu more", more);
	if (ops)
		lp_sb_printf(b, "%s%zu PyTorch op ranges", shown ? "; " : "", ops);
	if (have_alt)
		lp_sb_printf(b, "; the capture has \"%s\": that text pushed in "
		    "the default domain, as PyTorch's range_push does: set the "
		    "stages of a PyTorch workload (MODEL=torch-decoder or "
		    "hf-gpt2, or a conf/model file with domain: \"\")",
		    lp_sb_str(&alt));
	lp_sb_free(&alt);
}

/* Why the stage may have no kernel rows, from hostside.tsv (lp_ksum_check);
 * said after "no kernel rows in range". */
static char *hint;

void
lp_ksum_check(const char *hostside, const char *range)
{
	struct lp_tsv t;
	FILE *fp;
	int cs, cr, cc, cw;
	char *check = NULL, *why = NULL;
	const char *graphs;

	fp = lp_tab_open(&t, hostside, "lp-hostside");
	cs = lp_csv_need(&t.hdr, "stage", "hostside.tsv");
	cr = lp_csv_need(&t.hdr, "range", "hostside.tsv");
	cc = lp_csv_need(&t.hdr, "stage_check", "hostside.tsv");
	cw = lp_csv_need(&t.hdr, "check_why", "hostside.tsv");
	while (lp_tab_next(&t))
		if (!check && lp_nvtx_range_match(range, lp_tsv_get(&t, cr)) &&
		    !strstr(lp_tsv_get(&t, cs), ":steady")) {
			check = lp_xstrdup(lp_tsv_get(&t, cc));
			why = lp_xstrdup(lp_tsv_get(&t, cw));
		}
	graphs = lp_tsv_comment(&t, "graphs");
	free(hint);
	hint = NULL;
	/* "ok", "no launches" (the summary says it has no rows) and n/a
	 * leave the summary to speak; any other check is a refusal */
	if (check && strcmp(check, "ok") && strcmp(check, "no launches") &&
	    strncmp(check, "n/a", 3))
		lp_die(LP_EXIT_DATA, "range \"%s\": %s (%s, made by lp-hostside, "
		    "has the stage's wall time, graph launches and host side; "
		    "stages.tsv beside it its wall time)", range, why, hostside);
	if (why && strcmp(why, "-") && strcmp(why, "n/a") && strcmp(check, "ok"))
		hint = lp_xstrdup(why);
	else if (graphs)
		hint = lp_xstrdup(graphs);
	free(check);
	free(why);
	lp_tsv_close(&t);
	fclose(fp);
}

void
lp_ksum_read(struct lp_ksum *ks, FILE *fp, const char *file, const char *range,
    const char *pid)
{
	struct rd r;

	memset(ks, 0, sizeof *ks);
	ks->idx = lp_map_new();
	memset(&r, 0, sizeof r);
	r.ks = ks;
	r.file = file;
	r.range = range;
	r.pid = pid && *pid ? pid : NULL;
	r.ranges = lp_map_new();
	lp_csv_read(fp, file, row, NULL, &r);
	if (!r.have_hdr && !r.pre.len)
		lp_die_at(LP_EXIT_DATA, file, 0, 0, "%s (an nsys kernel "
		    "summary)", LP_EMPTY_REPORT);
	if (!r.have_hdr)
		lp_die_at(LP_EXIT_DATA, file, r.last, 0, "no header with a \"Total Time\" "
		    "column: not an nsys kernel summary (it begins \"%.80s\")",
		    lp_sb_str(&r.pre));
	if (ks->per_range && !range) {
		struct lp_sb b = { 0 };

		list_ranges(&b, r.ranges, NULL);
		lp_die(LP_EXIT_USAGE, "%s: nvtx_kern_sum holds kernels per NVTX "
		    "range; choose one with -r (ranges: %s)", file,
		    b.len ? lp_sb_str(&b) : "none");
	}
	if (!ks->n) {
		struct lp_sb b = { 0 };

		if (ks->per_range) {
			list_ranges(&b, r.ranges, range);
			lp_die_at(LP_EXIT_DATA, file, r.last, 0, "no kernel rows in "
			    "range \"%s\" (ranges: %s)%s%s", range,
			    b.len ? lp_sb_str(&b) : "none", hint ? ": " : "",
			    hint ? hint : "");
		}
		lp_die_at(LP_EXIT_DATA, file, r.last, 0, "no kernel rows (the "
		    "export ends after its header)");
	}
	lp_csv_hdr_free(&r.hdr);
	lp_map_free(r.ranges);
	lp_sb_free(&r.fp);
	lp_sb_free(&r.pre);
}

static int
cmp(const void *a, const void *b)
{
	const struct lp_kern *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

double
lp_kern_std(const struct lp_kern *k)
{
	double m, v;

	if (!k->spread || !(k->calls > 1))
		return NAN;
	m = k->total_ns / k->calls;
	v = (lp_xsum_get(&k->sumsq) - k->calls * m * m) / (k->calls - 1);
	return v > 0 ? sqrt(v) : 0;
}

void
lp_ksum_sort(struct lp_ksum *ks)
{
	size_t i;

	lp_qsort(ks->k, ks->n, sizeof *ks->k, cmp);
	lp_map_free(ks->idx);
	ks->idx = lp_map_new();
	for (i = 0; i < ks->n; i++)
		lp_map_put(ks->idx, ks->k[i].name, (long)i);
}

void
lp_ksum_free(struct lp_ksum *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++) {
		free(ks->k[i].name);
		free(ks->k[i].fp);
	}
	free(ks->k);
	free(ks->report);
	lp_map_free(ks->idx);
	memset(ks, 0, sizeof *ks);
}

/* Where fingerprints are unique (n >= 0) or shared (-2), in one map. */
static struct lp_map *
fp_index(const struct lp_ksum *ks)
{
	struct lp_map *m = lp_map_new();
	size_t i;

	for (i = 0; i < ks->n; i++)
		lp_map_put(m, ks->k[i].fp, lp_map_get(m, ks->k[i].fp, -1) == -1 ?
		    (long)i : -2);
	return m;
}

long *
lp_ksum_pair(const struct lp_ksum *a, const struct lp_ksum *b)
{
	struct lp_map *fa = fp_index(a), *fb = fp_index(b);
	long *to = lp_xcalloc(a->n + 1, sizeof *to);
	size_t i;

	for (i = 0; i < a->n; i++) {
		to[i] = lp_map_get(fb, a->k[i].fp, -1);
		if (to[i] < 0 || lp_map_get(fa, a->k[i].fp, -1) < 0)
			to[i] = -1;	/* none, or a fingerprint two kernels share */
	}
	lp_map_free(fa);
	lp_map_free(fb);
	return to;
}
