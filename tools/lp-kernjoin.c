/*
 * lp-kernjoin: one table of kernels with time and calls from nsys and
 * metrics from ncu.  The two tools demangle names differently, so the join
 * is on mangled names where both sides have them, then on exact names, then
 * on a normalised name that must be unique on both sides.  A kernel that
 * cannot be matched gets no metrics; it never borrows another's.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "nsight.h"

static const char synopsis[] =
    "lp-kernjoin [-d demangled.csv] [-M label] [-m metrics.tsv] [-P PID] "
    "[-r RANGE] [-T label] [file]";

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

/* Reads lp-ncu2tsv output, one record per kernel (devices and launch
 * shapes combined, means weighted by launches): nsys times a kernel by
 * its name alone, so its time is never split between shapes here;
 * lp-roofline draws a point per shape. */
static void
read_ncu(struct ncuset *ns, const char *path)
{
	struct lp_map *pairs;
	struct lp_tsv t;
	const char *name;
	FILE *fp = lp_open_in(path, &name);
	int ck, cd, cl, ct, cs, cr, cn, cg, cb, csum[NSUMS];
	size_t q;

	lp_tsv_open(&t, fp, name);
	ck = lp_csv_need(&t.hdr, "kernel", "lp-ncu2tsv output");
	cd = lp_csv_need(&t.hdr, "device", "lp-ncu2tsv output");
	cl = lp_csv_need(&t.hdr, "launches", "lp-ncu2tsv output");
	ct = lp_csv_need(&t.hdr, "gpu_time_ns", "lp-ncu2tsv output");
	cs = lp_csv_need(&t.hdr, "sm_throughput_pct", "lp-ncu2tsv output");
	cr = lp_csv_need(&t.hdr, "dram_throughput_pct", "lp-ncu2tsv output");
	for (q = 0; q < NSUMS; q++)
		csum[q] = lp_csv_col(&t.hdr, sums[q]);
	cn = lp_csv_col(&t.hdr, "device_name");
	cg = lp_csv_col(&t.hdr, "grid");
	cb = lp_csv_col(&t.hdr, "block");
	ns->exact = lp_map_new();
	ns->key = lp_map_new();
	pairs = lp_map_new();
	while (lp_tsv_next(&t)) {
		const char *k = lp_tsv_get(&t, ck);
		long i = lp_map_get(ns->exact, k, -1);
		struct ncu *r;
		struct lp_sb kd = { 0 };
		double l, v;

		/* lp-ncu2tsv writes one row per kernel, device and shape */
		lp_sb_printf(&kd, "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", k,
		    lp_tsv_get(&t, cd), cg >= 0 ? lp_tsv_get(&t, cg) : "",
		    cb >= 0 ? lp_tsv_get(&t, cb) : "", csum[2] >= 0 ?
		    lp_tsv_get(&t, csum[2]) : "", csum[3] >= 0 ?
		    lp_tsv_get(&t, csum[3]) : "");
		if (lp_map_get(pairs, lp_sb_str(&kd), -1) >= 0)
			lp_die_at(LP_EXIT_DATA, name, t.line, 0, "kernel \"%s\" on "
			    "device %s with one launch shape twice", k,
			    lp_tsv_get(&t, cd));
		lp_map_put(pairs, lp_sb_str(&kd), 1);
		lp_sb_free(&kd);

		if (!lp_tab_num(&t, cl, &l) || l <= 0 ||
		    !lp_tab_num(&t, ct, &v))
			lp_die_at(LP_EXIT_DATA, name, t.line, 0,
			    "bad launches or gpu_time_ns");
		if (i < 0) {
			char *key = lp_kname_key(k);

			ns->r = lp_xreallocarray(ns->r, ns->n + 1, sizeof *ns->r);
			i = (long)ns->n++;
			r = &ns->r[i];
			memset(r, 0, sizeof *r);
			r->kernel = lp_xstrdup(k);
			r->devices = lp_xstrdup(lp_tsv_get(&t, cd));
			r->devname = lp_xstrdup(lp_tsv_get(&t, cn));
			r->have_sm = r->have_dram = 1;
			for (q = 0; q < NSUMS; q++)
				r->have_sum[q] = 1;
			lp_map_put(ns->exact, k, i);
			lp_map_put(ns->key, key,
			    lp_map_get(ns->key, key, -1) == -1 ? i : -2);
			free(key);
		} else {
			struct lp_sb b = { 0 };
			const char *d = lp_tsv_get(&t, cd), *p;
			size_t dl = strlen(d);
			int seen = 0;

			r = &ns->r[i];
			/* a device once, however many shapes ran on it */
			for (p = r->devices; p && !seen; p = strchr(p, ','))
				seen = !strncmp(p += *p == ',', d, dl) &&
				    (p[dl] == ',' || !p[dl]);
			if (!seen) {
				lp_sb_printf(&b, "%s,%s", r->devices, d);
				free(r->devices);
				r->devices = lp_sb_steal(&b);
			}
		}
		r->shapes++;
		r->launches += l;
		r->time_ns += v;
		r->have_sm &= lp_tab_num(&t, cs, &v);
		if (r->have_sm)
			r->sm += v * l;
		r->have_dram &= lp_tab_num(&t, cr, &v);
		if (r->have_dram)
			r->dram += v * l;
		for (q = 0; q < NSUMS; q++) {
			r->have_sum[q] &= lp_tab_num(&t, csum[q], &v);
			if (r->have_sum[q])
				r->sum[q] += v;
		}
	}
	if (!ns->n)
		lp_die_at(LP_EXIT_DATA, name, t.line, 0, "no kernels in ncu "
		    "metrics");
	lp_map_free(pairs);
	lp_tsv_close(&t);
	lp_close_in(fp);
}

static void
field(FILE *fp, const char *s)
{
	putc('\t', fp);
	lp_tsv_field(fp, s);
}

static void
numfield(struct lp_sb *b, double v, int have, int dec)
{
	lp_sb_addc(b, '\t');
	if (have)
		lp_fmt_num(b, v, dec);
}

int
main(int argc, char **argv)
{
	struct lp_ksum ks, dks;
	struct ncuset ns;
	struct lp_map *nkey;
	const char *dpath = NULL, *mpath = NULL, *range = NULL, *pid = NULL;
	const char *tlabel = NULL, *mlabel = NULL, *name;
	char *tfree = NULL;
	char **display, **keys;
	size_t i, q, nmatch[4] = { 0 }, ambiguous = 0;
	int c, mangled;
	double cum = 0;
	FILE *fp;
	struct lp_sb b = { 0 };

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "d:hM:m:P:r:T:")) != -1) {
		switch (c) {
		case 'd': dpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'M': mlabel = optarg; break;
		case 'm': mpath = optarg; break;
		case 'P': pid = optarg; break;
		case 'r': range = optarg; break;
		case 'T': tlabel = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (argc - optind > 1)
		lp_usage(synopsis);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_ksum_read(&ks, fp, name, range, pid);
	lp_close_in(fp);
	lp_ksum_sort(&ks);
	if (!tlabel) {
		lp_sb_printf(&b, "nsys %s (%s)", ks.report, name);
		tlabel = tfree = lp_sb_steal(&b);
	}

	/* Display names: the demangled variant of the same report, paired
	 * row by row through the statistics columns they share. */
	display = lp_xcalloc(ks.n, sizeof *display);
	mangled = dpath != NULL;
	for (i = 0; i < ks.n; i++)
		display[i] = ks.k[i].name;
	if (dpath) {
		struct lp_map *fp_nsys = lp_map_new(), *fp_dem = lp_map_new();
		const char *dname;
		FILE *dfp = lp_open_in(dpath, &dname);

		lp_ksum_read(&dks, dfp, dname, range, pid);
		lp_close_in(dfp);
		for (i = 0; i < ks.n; i++)
			lp_map_put(fp_nsys, ks.k[i].fp, lp_map_get(fp_nsys,
			    ks.k[i].fp, -1) == -1 ? (long)i : -2);
		for (i = 0; i < dks.n; i++)
			lp_map_put(fp_dem, dks.k[i].fp, lp_map_get(fp_dem,
			    dks.k[i].fp, -1) == -1 ? (long)i : -2);
		for (i = 0; i < ks.n; i++) {
			long j = lp_map_get(fp_dem, ks.k[i].fp, -1);

			if (j >= 0 && lp_map_get(fp_nsys, ks.k[i].fp, -1) >= 0)
				display[i] = dks.k[j].name;
			else
				ambiguous++;
		}
		lp_map_free(fp_nsys);
		lp_map_free(fp_dem);
	}

	memset(&ns, 0, sizeof ns);
	if (mpath)
		read_ncu(&ns, mpath);
	keys = lp_xcalloc(ks.n, sizeof *keys);
	nkey = lp_map_new();
	for (i = 0; i < ks.n; i++) {
		keys[i] = lp_kname_key(display[i]);
		lp_map_put(nkey, keys[i], lp_map_get(nkey, keys[i], 0) + 1);
	}

	printf("# time: %s\n", tlabel);
	if (range)
		printf("# range: %s\n", range);
	if (pid)
		printf("# process: %s only, one rank of a multi-GPU run (which "
		    "and why: procs.tsv; every rank: ranks.tsv)\n", pid);
	if (dpath)
		printf("# names: demangled names from %s%s\n", dpath, ambiguous ?
		    "; kernels with statistics equal to another's keep their "
		    "mangled name" : "");
	if (mpath)
		printf("# metrics: %s\n", mlabel ? mlabel : mpath);

	/* match[i]: ncu record for nsys kernel i, how[i]: the rule used */
	long *match = lp_xcalloc(ks.n, sizeof *match);
	int *how = lp_xcalloc(ks.n, sizeof *how);
	static const char *const hows[] = { "-", "mangled", "exact", "normalised" };

	for (i = 0; i < ks.n; i++) {
		long j = -1;

		match[i] = -1;
		if (!mpath)
			continue;
		if ((j = lp_map_get(ns.exact, ks.k[i].name, -1)) >= 0)
			how[i] = mangled || !strncmp(ks.k[i].name, "_Z", 2) ? 1 : 2;
		else if ((j = lp_map_get(ns.exact, display[i], -1)) >= 0)
			how[i] = 2;
		else if (lp_map_get(nkey, keys[i], 0) == 1 &&
		    (j = lp_map_get(ns.key, keys[i], -1)) >= 0)
			how[i] = 3;
		if (j >= 0 && !ns.r[j].used) {
			ns.r[j].used = 1;
			match[i] = j;
			nmatch[how[i]]++;
		} else
			how[i] = 0;
	}
	if (mpath) {
		size_t un = 0;

		for (i = 0; i < ns.n; i++)
			un += !ns.r[i].used;
		printf("# match: %zu of %zu ncu kernels matched (mangled %zu, "
		    "exact %zu, normalised %zu); %zu unmatched\n",
		    nmatch[1] + nmatch[2] + nmatch[3], ns.n, nmatch[1], nmatch[2],
		    nmatch[3], un);
		for (i = 0; i < ns.n; i++)
			if (!ns.r[i].used) {
				fputs("# unmatched: ", stdout);
				lp_tsv_field(stdout, ns.r[i].kernel);
				putchar('\n');
			}
	}
	fputs("rank\tkernel\ttotal_ns\tcalls\tavg_ns\tpct\tcum_pct\tdevice\t"
	    "ncu_launches\tncu_time_ns\tsm_throughput_pct\tdram_throughput_pct\t"
	    "flops\tdram_bytes\tdevice_name\tmatch\tmangled\tncu_kernel\t"
	    "ncu_ns_per_launch", stdout);
	for (q = 0; q < NSUMS; q++)
		printf("\t%s_per_launch", sums[q]);
	fputs("\tncu_shapes\n", stdout);
	for (i = 0; i < ks.n; i++) {
		const struct lp_kern *k = &ks.k[i];
		const struct ncu *r = match[i] >= 0 ? &ns.r[match[i]] : NULL;
		double share = ks.total_ns > 0 ? 100.0 * k->total_ns / ks.total_ns : 0;

		cum += share;
		printf("%zu", i + 1);
		field(stdout, display[i]);
		lp_sb_reset(&b);
		numfield(&b, k->total_ns, 1, 0);
		numfield(&b, k->calls, 1, 0);
		numfield(&b, k->calls > 0 ? k->total_ns / k->calls : 0, 1, 1);
		numfield(&b, share, 1, 2);
		numfield(&b, cum > 100 ? 100 : cum, 1, 2);
		fputs(lp_sb_str(&b), stdout);
		field(stdout, r ? r->devices : "");
		lp_sb_reset(&b);
		numfield(&b, r ? r->launches : 0, r != NULL, 0);
		numfield(&b, r ? r->time_ns : 0, r != NULL, 0);
		numfield(&b, r && r->have_sm ? r->sm / r->launches : 0,
		    r && r->have_sm, 2);
		numfield(&b, r && r->have_dram ? r->dram / r->launches : 0,
		    r && r->have_dram, 2);
		numfield(&b, r ? r->sum[0] : 0, r && r->have_sum[0], 0);
		numfield(&b, r ? r->sum[1] : 0, r && r->have_sum[1], 0);
		fputs(lp_sb_str(&b), stdout);
		field(stdout, r ? r->devname : "");
		field(stdout, hows[how[i]]);
		field(stdout, mangled ? k->name : "");
		field(stdout, r ? r->kernel : "");
		lp_sb_reset(&b);
		numfield(&b, r ? r->time_ns / r->launches : 0, r != NULL, 1);
		for (q = 0; q < NSUMS; q++)
			numfield(&b, r ? r->sum[q] / r->launches : 0,
			    r && r->have_sum[q], 1);
		numfield(&b, r ? (double)r->shapes : 0, r != NULL, 0);
		puts(lp_sb_str(&b));
	}
	for (i = 0; i < ks.n; i++)
		free(keys[i]);
	for (i = 0; i < ns.n; i++) {
		free(ns.r[i].kernel);
		free(ns.r[i].devices);
		free(ns.r[i].devname);
	}
	free(ns.r);
	lp_map_free(ns.exact);
	lp_map_free(ns.key);
	lp_map_free(nkey);
	free(keys);
	free(display);
	free(match);
	free(how);
	if (dpath)
		lp_ksum_free(&dks);
	lp_ksum_free(&ks);
	lp_sb_free(&b);
	free(tfree);
	lp_close_stdout();
	return 0;
}
