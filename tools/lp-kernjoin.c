/*
 * lp-kernjoin: one table of kernels with time and calls from nsys and
 * metrics from ncu.  The two tools demangle names differently, so the join
 * is on mangled names where both sides have them, then on exact names, then
 * on a normalised name that must be unique on both sides.  A kernel that
 * cannot be matched gets no metrics; it never borrows another's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"

static const char synopsis[] =
    "lp-kernjoin [-d demangled.csv] [-G gpu] [-H hostside.tsv] [-M label] "
    "[-m metrics.tsv] [-P PID] [-r RANGE] [-T label] [file]";

/* Sums over the profiled launches, carried from lp-ncu2tsv's columns:
 * "flops" and "dram_bytes" as they are, and each also per launch. */
static const char *const sums[] = {
	"flops", "dram_bytes", "flops_tensor", "flops_nontensor",
	"flops_tc_fp16", "flops_tc_bf16", "flops_tc_tf32", "flops_tc_fp8",
	"flops_tc_int8", "flops_tc_fp64", "flops_fp32", "flops_fp16",
	"flops_fp64",
};
#define NSUMS (sizeof sums / sizeof sums[0])

struct ncu {
	char *kernel, *devices, *devname;
	double launches, time_ns;
	double sm, dram, sum[NSUMS];	/* NAN-free: have_* say if known */
	int have_sm, have_dram, have_sum[NSUMS];
	int used;
	long shapes;	/* rows of lp-ncu2tsv: (device, launch shape) */
};

struct ncuset {
	struct ncu *r;
	size_t n;
	struct lp_map *exact, *key;	/* key: index, or -2 if not unique */
};

/* The columns of lp-ncu2tsv's table that lp-kernjoin reads. */
struct ncucols {
	int k, d, l, t, s, r, n, g, b, sum[NSUMS];
};

static void
ncu_cols(struct ncucols *c, const struct lp_tsv *t)
{
	size_t q;

	c->k = lp_csv_need(&t->hdr, "kernel", "lp-ncu2tsv output");
	c->d = lp_csv_need(&t->hdr, "device", "lp-ncu2tsv output");
	c->l = lp_csv_need(&t->hdr, "launches", "lp-ncu2tsv output");
	c->t = lp_csv_need(&t->hdr, "gpu_time_ns", "lp-ncu2tsv output");
	c->s = lp_csv_need(&t->hdr, "sm_throughput_pct", "lp-ncu2tsv output");
	c->r = lp_csv_need(&t->hdr, "dram_throughput_pct", "lp-ncu2tsv output");
	for (q = 0; q < NSUMS; q++)
		c->sum[q] = lp_csv_col(&t->hdr, sums[q]);
	c->n = lp_csv_col(&t->hdr, "device_name");
	c->g = lp_csv_col(&t->hdr, "grid");
	c->b = lp_csv_col(&t->hdr, "block");
}

/* lp-ncu2tsv writes one row per kernel, device and shape: a second is an
 * error. */
static void
check_once(struct lp_map *pairs, const struct lp_tsv *t,
    const struct ncucols *c)
{
	struct lp_sb kd = { 0 };
	const char *k = lp_tsv_get(t, c->k);

	lp_sb_printf(&kd, "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", k,
	    lp_tsv_get(t, c->d), c->g >= 0 ? lp_tsv_get(t, c->g) : "",
	    c->b >= 0 ? lp_tsv_get(t, c->b) : "", c->sum[2] >= 0 ?
	    lp_tsv_get(t, c->sum[2]) : "", c->sum[3] >= 0 ?
	    lp_tsv_get(t, c->sum[3]) : "");
	if (lp_map_get(pairs, lp_sb_str(&kd), -1) >= 0)
		lp_die_at(LP_EXIT_DATA, t->file, t->line, 0, "kernel \"%s\" on "
		    "device %s with one launch shape twice", k,
		    lp_tsv_get(t, c->d));
	lp_map_put(pairs, lp_sb_str(&kd), 1);
	lp_sb_free(&kd);
}

/* The kernel's record, made on its first row; a device is listed once,
 * however many shapes ran on it. */
static struct ncu *
ncu_record(struct ncuset *ns, const struct lp_tsv *t, const struct ncucols *c)
{
	const char *k = lp_tsv_get(t, c->k), *d = lp_tsv_get(t, c->d), *p;
	long i = lp_map_get(ns->exact, k, -1);
	struct lp_sb b = { 0 };
	size_t q, dl = strlen(d);
	struct ncu *r;
	int seen = 0;

	if (i < 0) {
		char *key = lp_kname_key(k);

		ns->r = lp_xreallocarray(ns->r, ns->n + 1, sizeof *ns->r);
		i = (long)ns->n++;
		r = &ns->r[i];
		memset(r, 0, sizeof *r);
		r->kernel = lp_xstrdup(k);
		r->devices = lp_xstrdup(d);
		r->devname = lp_xstrdup(lp_tsv_get(t, c->n));
		r->have_sm = r->have_dram = 1;
		for (q = 0; q < NSUMS; q++)
			r->have_sum[q] = 1;
		lp_map_put(ns->exact, k, i);
		lp_map_put(ns->key, key,
		    lp_map_get(ns->key, key, -1) == -1 ? i : -2);
		free(key);
		return r;
	}
	r = &ns->r[i];
	for (p = r->devices; p && !seen; p = strchr(p, ','))
		seen = !strncmp(p += *p == ',', d, dl) &&
		    (p[dl] == ',' || !p[dl]);
	if (!seen) {
		lp_sb_printf(&b, "%s,%s", r->devices, d);
		free(r->devices);
		r->devices = lp_sb_steal(&b);
	}
	return r;
}

/* Adds a row's launches, time and sums to its kernel's record. */
static void
fold_row(struct ncu *r, const struct lp_tsv *t, const struct ncucols *c,
    double l, double time_ns)
{
	size_t q;
	double v;

	r->shapes++;
	r->launches += l;
	r->time_ns += time_ns;
	r->have_sm &= lp_tab_num(t, c->s, &v);
	if (r->have_sm)
		r->sm += v * l;
	r->have_dram &= lp_tab_num(t, c->r, &v);
	if (r->have_dram)
		r->dram += v * l;
	for (q = 0; q < NSUMS; q++) {
		r->have_sum[q] &= lp_tab_num(t, c->sum[q], &v);
		if (r->have_sum[q])
			r->sum[q] += v;
	}
}

/* Reads lp-ncu2tsv output, one record per kernel (devices and launch
 * shapes combined, means weighted by launches): nsys times a kernel by
 * its name alone, so its time is never split between shapes here;
 * lp-roofline draws a point per shape. */
static void
read_ncu(struct ncuset *ns, const char *path)
{
	struct lp_map *pairs;
	struct ncucols c;
	struct lp_tsv t;
	const char *name;
	FILE *fp = lp_open_in(path, &name);

	lp_tsv_open(&t, fp, name);
	lp_tab_expect(&t, "lp-ncu2tsv");
	ncu_cols(&c, &t);
	ns->exact = lp_map_new();
	ns->key = lp_map_new();
	pairs = lp_map_new();
	while (lp_tab_next(&t)) {
		double l, v;

		check_once(pairs, &t, &c);
		if (!lp_tab_num(&t, c.l, &l) || l <= 0 ||
		    !lp_tab_num(&t, c.t, &v))
			lp_die_at(LP_EXIT_DATA, name, t.line, 0,
			    "bad launches or gpu_time_ns");
		fold_row(ncu_record(ns, &t, &c), &t, &c, l, v);
	}
	if (!ns->n)
		lp_die_at(LP_EXIT_DATA, name, t.line, 0, "no kernels in ncu "
		    "metrics");
	lp_map_free(pairs);
	lp_tsv_close(&t);
	lp_close_in(fp);
}

struct opts {
	const char *dpath, *mpath, *range, *pid, *gpu, *tlabel, *mlabel;
};

/* The join: nsys's kernels (ks), their display names, the ncu records
 * and which one each kernel matched, by which rule. */
struct join {
	struct lp_ksum ks, dks;
	struct ncuset ns;
	char **display, **keys;
	struct lp_map *nkey;
	long *match;	/* ncu record for nsys kernel i, or -1 */
	int *how;	/* the rule used: an index of hows[] */
	size_t nmatch[4], ambiguous;
	int mangled;
};

static const char *const hows[] = { "-", "mangled", "exact", "normalised" };

/* Display names: the demangled variant of the same report, paired row by
 * row through the statistics columns they share. */
static void
pair_names(struct join *j, const struct opts *o)
{
	const char *dname;
	FILE *dfp;
	long *to;
	size_t i;

	j->display = lp_xcalloc(j->ks.n, sizeof *j->display);
	j->mangled = o->dpath != NULL;
	for (i = 0; i < j->ks.n; i++)
		j->display[i] = j->ks.k[i].name;
	if (!o->dpath)
		return;
	dfp = lp_open_in(o->dpath, &dname);
	lp_ksum_read(&j->dks, dfp, dname, o->range, o->pid);
	lp_close_in(dfp);
	to = lp_ksum_pair(&j->ks, &j->dks);
	for (i = 0; i < j->ks.n; i++)
		if (to[i] >= 0)
			j->display[i] = j->dks.k[to[i]].name;
		else
			j->ambiguous++;
	free(to);
}

/* Each nsys kernel's ncu record: by mangled name, then exact, then by a
 * normalised name unique on both sides; an ncu record is used once. */
static void
match_kernels(struct join *j, int have_ncu)
{
	size_t i;

	j->keys = lp_xcalloc(j->ks.n, sizeof *j->keys);
	j->nkey = lp_map_new();
	for (i = 0; i < j->ks.n; i++) {
		j->keys[i] = lp_kname_key(j->display[i]);
		lp_map_put(j->nkey, j->keys[i],
		    lp_map_get(j->nkey, j->keys[i], 0) + 1);
	}
	j->match = lp_xcalloc(j->ks.n, sizeof *j->match);
	j->how = lp_xcalloc(j->ks.n, sizeof *j->how);
	for (i = 0; i < j->ks.n; i++) {
		const char *kn = j->ks.k[i].name;
		long m = -1;

		j->match[i] = -1;
		if (!have_ncu)
			continue;
		if ((m = lp_map_get(j->ns.exact, kn, -1)) >= 0)
			j->how[i] = j->mangled || !strncmp(kn, "_Z", 2) ? 1 : 2;
		else if ((m = lp_map_get(j->ns.exact, j->display[i], -1)) >= 0)
			j->how[i] = 2;
		else if (lp_map_get(j->nkey, j->keys[i], 0) == 1 &&
		    (m = lp_map_get(j->ns.key, j->keys[i], -1)) >= 0)
			j->how[i] = 3;
		if (m >= 0 && !j->ns.r[m].used) {
			j->ns.r[m].used = 1;
			j->match[i] = m;
			j->nmatch[j->how[i]]++;
		} else
			j->how[i] = 0;
	}
}

/* The "#" lines: where times, names and metrics come from, the match. */
static void
emit_meta(FILE *out, const struct join *j, const struct opts *o)
{
	size_t i, un = 0;

	lp_tab_meta(out, "tool", "lp-kernjoin");
	lp_tab_meta(out, "time", "%s", o->tlabel);
	if (o->range)
		lp_tab_meta(out, "range", "%s", o->range);
	if (o->pid)
		lp_tab_meta(out, "process", "%s%s%s only, one rank of a "
		    "multi-GPU run (which and why: procs.tsv; every rank: "
		    "ranks.tsv)", o->pid, o->gpu ? " on " : "", o->gpu ?
		    o->gpu : "");
	if (o->dpath)
		lp_tab_meta(out, "names", "demangled names from %s%s", o->dpath,
		    j->ambiguous ? "; kernels with statistics equal to "
		    "another's keep their mangled name" : "");
	if (!o->mpath)
		return;
	lp_tab_meta(out, "metrics", "%s", o->mlabel ? o->mlabel : o->mpath);
	for (i = 0; i < j->ns.n; i++)
		un += !j->ns.r[i].used;
	lp_tab_meta(out, "match", "%zu of %zu ncu kernels matched (mangled "
	    "%zu, exact %zu, normalised %zu); %zu unmatched",
	    j->nmatch[1] + j->nmatch[2] + j->nmatch[3], j->ns.n, j->nmatch[1],
	    j->nmatch[2], j->nmatch[3], un);
	for (i = 0; i < j->ns.n; i++)
		if (!j->ns.r[i].used) {
			fputs("# unmatched: ", out);
			lp_tsv_field(out, j->ns.r[i].kernel);
			putc('\n', out);
		}
}

static void
numcell(struct lp_row *row, double v, int have, int dec)
{
	if (have)
		lp_row_num(row, v, dec);
	else
		lp_row_text(row, "");
}

/* One row: nsys's time and calls, then what ncu measured, if matched. */
static void
emit_row(FILE *out, struct lp_row *row, const struct join *j, size_t i,
    double share, double cum)
{
	const struct lp_kern *k = &j->ks.k[i];
	const struct ncu *r = j->match[i] >= 0 ? &j->ns.r[j->match[i]] : NULL;
	size_t q;

	lp_row_num(row, i + 1, 0);
	lp_row_text(row, j->display[i]);
	lp_row_num(row, k->total_ns, 0);
	lp_row_num(row, k->calls, 0);
	lp_row_num(row, k->calls > 0 ? k->total_ns / k->calls : 0, 1);
	lp_row_g(row, share);
	lp_row_g(row, cum > 100 ? 100 : cum);
	lp_row_text(row, r ? r->devices : "");
	numcell(row, r ? r->launches : 0, r != NULL, 0);
	numcell(row, r ? r->time_ns : 0, r != NULL, 0);
	numcell(row, r && r->have_sm ? r->sm / r->launches : 0,
	    r && r->have_sm, 2);
	numcell(row, r && r->have_dram ? r->dram / r->launches : 0,
	    r && r->have_dram, 2);
	numcell(row, r ? r->sum[0] : 0, r && r->have_sum[0], 0);
	numcell(row, r ? r->sum[1] : 0, r && r->have_sum[1], 0);
	lp_row_text(row, r ? r->devname : "");
	lp_row_text(row, hows[j->how[i]]);
	lp_row_text(row, j->mangled ? k->name : "");
	lp_row_text(row, r ? r->kernel : "");
	numcell(row, r ? r->time_ns / r->launches : 0, r != NULL, 1);
	for (q = 0; q < NSUMS; q++)
		numcell(row, r ? r->sum[q] / r->launches : 0,
		    r && r->have_sum[q], 1);
	numcell(row, r ? (double)r->shapes : 0, r != NULL, 0);
	/* the launches' spread in nsys (lp-diff's regression gate) */
	numcell(row, lp_kern_std(k), !isnan(lp_kern_std(k)), 1);
	numcell(row, k->min_ns, !isnan(k->min_ns), 0);
	numcell(row, k->max_ns, !isnan(k->max_ns), 0);
	lp_row_end(row, out);
}

/* kernels.tsv: the "#" lines, the header, a row per nsys kernel. */
static void
emit_table(const struct join *j, const struct opts *o)
{
	FILE *out = lp_tab_out();
	struct lp_row row = { 0 };
	double cum = 0;
	size_t i, q;

	emit_meta(out, j, o);
	lp_tab_meta(out, "key", "kernel");
	fputs("rank\tkernel\ttotal_ns\tcalls\tavg_ns\tpct\tcum_pct\tdevice\t"
	    "ncu_launches\tncu_time_ns\tsm_throughput_pct\tdram_throughput_pct\t"
	    "flops\tdram_bytes\tdevice_name\tmatch\tmangled\tncu_kernel\t"
	    "ncu_ns_per_launch", out);
	for (q = 0; q < NSUMS; q++)
		fprintf(out, "\t%s_per_launch", sums[q]);
	fputs("\tncu_shapes\tstd_ns\tmin_ns\tmax_ns\n", out);
	for (i = 0; i < j->ks.n; i++) {
		double share = j->ks.total_ns > 0 ? 100.0 * j->ks.k[i].total_ns /
		    j->ks.total_ns : 0;

		cum += share;
		emit_row(out, &row, j, i, share, cum);
	}
	lp_sb_free(&row.b);
	lp_tab_done(out);
}

static void
free_join(struct join *j, int have_dks)
{
	size_t i;

	for (i = 0; i < j->ks.n; i++)
		free(j->keys[i]);
	for (i = 0; i < j->ns.n; i++) {
		free(j->ns.r[i].kernel);
		free(j->ns.r[i].devices);
		free(j->ns.r[i].devname);
	}
	free(j->ns.r);
	lp_map_free(j->ns.exact);
	lp_map_free(j->ns.key);
	lp_map_free(j->nkey);
	free(j->keys);
	free(j->display);
	free(j->match);
	free(j->how);
	if (have_dks)
		lp_ksum_free(&j->dks);
	lp_ksum_free(&j->ks);
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct join j;
	struct lp_sb b = { 0 };
	const char *name, *hpath = NULL;
	FILE *fp;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "d:G:H:M:m:P:r:T:", synopsis)) != -1) {
		switch (c) {
		case 'd': o.dpath = optarg; break;
		case 'G': o.gpu = *optarg ? optarg : NULL; break;
		case 'H': hpath = optarg; break;
		case 'M': o.mlabel = optarg; break;
		case 'm': o.mpath = optarg; break;
		case 'P': o.pid = optarg; break;
		case 'r': o.range = optarg; break;
		case 'T': o.tlabel = optarg; break;
		}
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	if (o.gpu && !o.pid)
		lp_die(LP_EXIT_USAGE, "-G needs -P: the process on that GPU");
	if (hpath && !o.range)
		lp_die(LP_EXIT_USAGE, "-H needs -r: the stage's range");
	if (hpath)
		lp_ksum_check(hpath, o.range);
	memset(&j, 0, sizeof j);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_ksum_read(&j.ks, fp, name, o.range, o.pid);
	lp_close_in(fp);
	lp_ksum_sort(&j.ks);
	if (!o.tlabel) {
		lp_sb_printf(&b, "nsys %s (%s)", j.ks.report, name);
		o.tlabel = lp_sb_str(&b);
	}
	pair_names(&j, &o);
	if (o.mpath)
		read_ncu(&j.ns, o.mpath);
	match_kernels(&j, o.mpath != NULL);
	emit_table(&j, &o);
	free_join(&j, o.dpath != NULL);
	lp_sb_free(&b);
	return 0;
}
