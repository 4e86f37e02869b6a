/*
 * lp-brief: brief.tsv, the answer first.  A verdict on the profiled stage
 * (the GPU idles, or which kernel keeps it busy), one line of identity
 * (model, GPU, stage, imported or live) and at most six key numbers, each
 * copied from the table that computed it: the steady step and its tokens/s
 * (steps.tsv), the first step against the steady one, the stage's GPU busy
 * (stages.tsv), MBU in the steady step (mbu.tsv), the top kernel and its
 * roofline class (top_kernels.tsv).  It computes nothing but the verdict's
 * choice.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "esc.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-brief -c config.yaml -e environment.tsv "
    "-s stages.tsv -t steps.tsv [-b mbu.tsv] [-G gpumetrics.tsv] "
    "[-k top_kernels.tsv] "
    "[-I image] [-L link]...";

static FILE *out;	/* the table, written out when whole (lp_tab_out) */

static struct lp_col cols[] = {
	{ "steady_ns", "Steady step (ms)", "ms" },
	{ "tokens_per_s", "Tokens/s", "num1" },
	{ "first_over_steady", "First / steady", "x" },
	{ "busy_pct", "GPU busy", "pct" },
	{ "mbu_steady_pct", "MBU (steady)", "pct" },
	{ "dram_sampled_pct", "DRAM (sampled)", "pct" },
	{ "tensor_sampled_pct", "Tensor active (sampled)", "pct" },
	{ "top_kernel", "Top kernel", "code" },
	{ "top_class", "Its class", "text" },
	{ "top_share_pct", "Its share", "pct" },
};
#define NCOLS (sizeof cols / sizeof cols[0])
#define GM 5		/* the two sampled columns, with -G only */

/* The sampled metrics the brief shows, in gpumetrics.tsv's words. */
static const char *const gm_metric[] = { "DRAM Read Bandwidth [Throughput %]",
    "DRAM Write Bandwidth [Throughput %]", "Tensor Active [Throughput %]" };
#define NGM (sizeof gm_metric / sizeof gm_metric[0])

/* gpumetrics.tsv's means of gm_metric over stage's instances, in one
 * reading (NAN where the table has none); 0 for a table that says it has
 * no samples ("# omit:": sampling off, several GPUs), whose columns go. */
static int
gm_read(const char *path, const char *stage, double *v)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-gpumetrics");
	int cs, cm, cv, have = !lp_tsv_comment(&t, "omit");
	size_t k;
	double x;

	lp_tab_expect(&t, "lp-gpumetrics");
	cs = lp_csv_need(&t.hdr, "stage", "lp-gpumetrics output");
	cm = lp_csv_need(&t.hdr, "metric", "lp-gpumetrics output");
	cv = lp_csv_need(&t.hdr, "mean", "lp-gpumetrics output");
	for (k = 0; k < NGM; k++)
		v[k] = NAN;
	while (have && lp_tab_next(&t))
		for (k = 0; k < NGM; k++)
			if (!strcmp(lp_tsv_get(&t, cs), stage) &&
			    !strcmp(lp_tsv_get(&t, cm), gm_metric[k]) &&
			    lp_tab_num(&t, cv, &x))
				v[k] = x;
	lp_tsv_close(&t);
	fclose(fp);
	return have;
}

/* The sampled DRAM (read + write) and tensor-pipe activity of the steady
 * step, beside the model's MBU: what the GPU did, not the arithmetic. */
static void
sampled(struct lp_row *r, const double *v, const char *stage)
{
	if (isfinite(v[0]) && isfinite(v[1]))
		lp_row_g(r, v[0] + v[1]);
	else
		lp_row_na(r, "no DRAM samples for %s (gpumetrics.tsv)", stage);
	if (isfinite(v[2]))
		lp_row_g(r, v[2]);
	else
		lp_row_na(r, "no Tensor Active samples for %s (gpumetrics.tsv)",
		    stage);
}

/*
 * The cells of the first row of an lp table whose column keycol holds key
 * (any row when keycol is NULL), copied into want[i] for the column names
 * names[i] ("" where the table has no such column); 0 when no row matched.
 * The caller frees each cell.
 */
static int
row_of(const char *path, const char *tool, const char *keycol,
    const char *key, const char *const *names, char **want, size_t n)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, tool);
	int kc = keycol ? lp_csv_need(&t.hdr, keycol, tool) : -1, found = 0;
	size_t i;

	lp_tab_expect(&t, tool);
	for (i = 0; i < n; i++)
		want[i] = NULL;
	while (!found && lp_tab_next(&t)) {
		if (kc >= 0 && strcmp(lp_tsv_get(&t, kc), key))
			continue;
		for (i = 0; i < n; i++) {
			int c = lp_csv_col(&t.hdr, names[i]);

			want[i] = lp_xstrdup(c >= 0 ? lp_tsv_get(&t, c) : "");
		}
		found = 1;
	}
	lp_tsv_close(&t);
	fclose(fp);
	return found;
}

static void
freecells(char **c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(c[i]);
}

static void
cellv(struct lp_row *r, const char *v, const char *why)
{
	lp_row_text(r, v && *v ? v : why);
}

/* The values of environment.tsv's items, in one reading, each up to its
 * first " (" (the source it names); "n/a" for an item it lacks. */
static void
env_items(const char *path, const char *const *items, char **v, size_t n)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-envtab");
	int ci = lp_csv_need(&t.hdr, "item", "lp-envtab output");
	int cv = lp_csv_need(&t.hdr, "value", "lp-envtab output");
	size_t k;

	lp_tab_expect(&t, "lp-envtab");
	for (k = 0; k < n; k++)
		v[k] = NULL;
	while (lp_tab_next(&t))
		for (k = 0; k < n; k++)
			if (!v[k] && !strcmp(lp_tsv_get(&t, ci), items[k])) {
				char *p;

				v[k] = lp_xstrdup(lp_tsv_get(&t, cv));
				if ((p = strstr(v[k], " (")) && strncmp(v[k],
				    "n/a", 3))
					*p = '\0';
			}
	for (k = 0; k < n; k++)
		if (!v[k])
			v[k] = lp_xstrdup("n/a");
	lp_tsv_close(&t);
	fclose(fp);
}

int
main(int argc, char **argv)
{
	static const char *const stn[] = { "range", "busy_pct", "kernel_ns" };
	static const char *const spn[] = { "stage", "steady_ns", "tokens_per_s",
	    "first_over_rest" };
	static const char *const mbn[] = { "mbu_steady_pct" };
	static const char *const tkn[] = { "kernel", "share_pct", "class" };
	static const char *const envn[] = { "Model", "GPU", "Workload" };
	const char *cpath = NULL, *epath = NULL, *spath = NULL, *tpath = NULL;
	const char *bpath = NULL, *kpath = NULL, *stage, *image = NULL;
	const char *gpath = NULL;
	const char **links = NULL;
	size_t nlinks = 0, i;
	struct lp_ynode *cfg;
	struct lp_sb v = { 0 }, b = { 0 };
	char *st[3], *sp[4], *mb[1], *tk[3], *env[3], *model, *gpu, *work;
	double gm[NGM];
	const char *step;
	int c, have_st, have_sp, have_tk = 0;
	double busy;

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "G:I:L:b:c:e:hk:s:t:")) != -1) {
		switch (c) {
		case 'G': gpath = optarg; break;
		case 'I': image = optarg; break;
		case 'L':
			links = lp_xreallocarray(links, nlinks + 1,
			    sizeof *links);
			links[nlinks++] = optarg;
			break;
		case 'b': bpath = optarg; break;
		case 'c': cpath = optarg; break;
		case 'e': epath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			return LP_EXIT_OK;
		case 'k': kpath = optarg; break;
		case 's': spath = optarg; break;
		case 't': tpath = optarg; break;
		default: lp_usage(synopsis);
		}
	}
	if (!cpath || !epath || !spath || !tpath || optind != argc)
		lp_usage(synopsis);
	out = lp_tab_out();
	cfg = lp_yaml_load_path(cpath);
	stage = lp_cfg_word(cfg, "run.stage", NULL, cpath);

	have_st = row_of(spath, "lp-stages", "stage", stage, stn, st, 3);
	have_sp = row_of(tpath, "lp-steps", "tokens_basis", "steady-state step",
	    spn, sp, 4);
	if (kpath)
		have_tk = row_of(kpath, "lp-topk", NULL, NULL, tkn, tk, 3);
	env_items(epath, envn, env, 3);
	/* the steady step's samples, unless the table says it has none */
	lp_sb_printf(&b, "%s:steady", have_sp ? sp[0] : "decode_step");
	step = lp_sb_str(&b);
	if (gpath && !gm_read(gpath, step, gm))
		gpath = NULL;
	model = env[0];
	gpu = env[1];
	work = env[2];

	/* the verdict: the GPU idles, or what keeps it busy */
	lp_tab_meta(out, "title", "Key Numbers");
	lp_tab_meta(out, "tool", "lp-brief");
	if (!have_st || !lp_num_get(st[1], &busy))
		lp_sb_printf(&v, "%s: GPU busy not known (stages.tsv)", stage);
	else if (busy < 50) {
		lp_sb_printf(&v, "%s is host-bound: the GPU is busy ", stage);
		lp_fmt_pct(&v, busy);
	} else if (have_tk) {
		double share;

		lp_sb_printf(&v, "%s is GPU-bound (busy ", stage);
		lp_fmt_pct(&v, busy);
		lp_sb_adds(&v, "): ");
		lp_md_code(&v, tk[0], 0);
		if (lp_num_get(tk[1], &share)) {
			lp_sb_adds(&v, " takes ");
			lp_fmt_pct(&v, share);
			lp_sb_adds(&v, " of its kernel time");
		}
		if (*tk[2] && strncmp(tk[2], "n/a", 3))
			lp_sb_printf(&v, ", %s", tk[2]);
	} else {
		lp_sb_printf(&v, "%s is GPU-bound: the GPU is busy ", stage);
		lp_fmt_pct(&v, busy);
	}
	lp_tab_meta(out, "verdict", "%s", lp_sb_str(&v));
	lp_tab_meta(out, "identity", "Model %s on %s, stage %s, %s", model, gpu,
	    stage, !strncmp(work, "imported", 8) ? "imported exports" :
	    "profiled live");
	lp_tab_meta(out, "source", "steady step, tokens/s and first / steady "
	    "from %s; GPU busy from %s; MBU from %s;%s%s%s top kernel from %s",
	    tpath, spath, bpath ? bpath : "(no mbu.tsv)", gpath ?
	    " DRAM and tensor activity sampled by nsys, from " : "",
	    gpath ? gpath : "", gpath ? ";" : "", kpath ? kpath :
	    "(no top_kernels.tsv)");
	for (i = 0; i < nlinks; i++)
		lp_tab_meta(out, "link", "%s", links[i]);
	if (image)
		lp_tab_meta(out, "image", "%s", image);
	{
		static struct lp_sb l1, l4;
		struct lp_row r = { { 0 }, 0 };

		if (have_sp) {
			lp_sb_printf(&l1, "Steady %s (ms)", sp[0]);
			cols[0].label = lp_sb_str(&l1);
		}
		lp_sb_printf(&l4, "GPU busy");
		cols[3].label = lp_sb_str(&l4);
		if (!gpath)	/* no samples: the two sampled columns go */
			memmove(&cols[GM], &cols[GM + 2], (NCOLS - GM - 2) *
			    sizeof cols[0]);
		lp_tab_header(out, cols, gpath ? NCOLS : NCOLS - 2);
		if (have_sp) {
			cellv(&r, sp[1], "n/a because steps.tsv has no steady step");
			cellv(&r, sp[2], "n/a");
			cellv(&r, sp[3], "n/a");
		} else
			for (i = 0; i < 3; i++)
				lp_row_text(&r, "n/a because no stage has a steady "
				    "state (steps.tsv: one instance, or no "
				    "decode_step range)");
		cellv(&r, have_st ? st[1] : NULL, "n/a because stages.tsv has "
		    "no row for the stage");
		if (bpath && have_sp && row_of(bpath, "lp-mbu", "stage", sp[0],
		    mbn, mb, 1)) {
			cellv(&r, mb[0], "n/a");
			freecells(mb, 1);
		} else
			lp_row_text(&r, "n/a because mbu.tsv has no steady step");
		if (gpath)
			sampled(&r, gm, step);
		if (have_tk) {
			cellv(&r, tk[0], "n/a");
			cellv(&r, tk[2], "n/a because top_kernels.tsv has no class");
			cellv(&r, tk[1], "n/a");
			freecells(tk, 3);
		} else
			for (i = 0; i < 3; i++)
				lp_row_text(&r, "n/a because the run has no "
				    "top_kernels.tsv");
		lp_row_end(&r, out);
		lp_sb_free(&r.b);
		lp_sb_free(&l1);
		lp_sb_free(&l4);
	}
	if (have_st)
		freecells(st, 3);
	if (have_sp)
		freecells(sp, 4);
	free(model);
	free(gpu);
	free(work);
	lp_sb_free(&v);
	lp_sb_free(&b);
	lp_yaml_free(cfg);
	free(links);
	lp_tab_done(out);
	return 0;
}
