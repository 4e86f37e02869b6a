/*
 * The peaks a run is measured against, as lp-gpu(1) resolved them into
 * gpu.tsv: dense FLOP/s per path and precision and DRAM bandwidth.  A peak
 * that is not there stays 0 here, and the tools say "n/a because" with the
 * reason gpu.tsv gives.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "prec.h"
#include "table.h"
#include "run.h"

FILE *
lp_peaks_tsv_open(struct lp_peaks *p, const char *gpath, int argc,
    char **argv, const char *synopsis, struct lp_tsv *t)
{
	const char *name;
	FILE *fp;

	if (!gpath || argc - optind > 1)
		lp_usage(synopsis);
	lp_peaks_read(p, gpath);
	fp = lp_open_in(optind < argc ? argv[optind] : NULL, &name);
	lp_tsv_open(t, fp, name);
	return fp;
}

void
lp_peaks_read(struct lp_peaks *p, const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-gpu, make RUN=... gpu.tsv");
	int cp = lp_csv_need(&t.hdr, "path", "lp-gpu output");
	int cr = lp_csv_need(&t.hdr, "precision", "lp-gpu output");
	int cv = lp_csv_need(&t.hdr, "peak", "lp-gpu output");
	int cf = lp_csv_col(&t.hdr, "from");
	const char *s;
	int prec;

	lp_tab_expect(&t, "lp-gpu");
	memset(p, 0, sizeof *p);
	if ((s = lp_tsv_comment(&t, "gpu")) && *s)
		p->gpu = lp_xstrdup(s);
	if ((s = lp_tsv_comment(&t, "why")) && *s)
		p->why = lp_xstrdup(s);
	while (lp_tab_next(&t)) {
		const char *pa = lp_tsv_get(&t, cp), *pr = lp_tsv_get(&t, cr);
		double v;

		if (!lp_tab_num(&t, cv, &v))
			continue;
		if (v <= 0)
			lp_die_at(LP_EXIT_DATA, path, t.line, cv + 1, "peak %s %s "
			    "is not above zero", pa, pr);
		if (!strcmp(pa, "link")) {
			if (p->link > 0)
				lp_die_at(LP_EXIT_DATA, path, t.line, cp + 1,
				    "the link bandwidth twice");
			p->link = v;
			if (cf >= 0)
				p->link_from = lp_xstrdup(lp_tsv_get(&t, cf));
		}
		if (!strcmp(pa, "dram")) {
			if (p->bw > 0)
				lp_die_at(LP_EXIT_DATA, path, t.line, cp + 1,
				    "the DRAM bandwidth twice");
			p->bw = v;
		}
		if ((prec = lp_fp_of_path(pa, pr)) >= 0) {
			if (p->flops[prec] > 0)
				lp_die_at(LP_EXIT_DATA, path, t.line, cp + 1,
				    "peak %s %s twice", pa, pr);
			p->flops[prec] = v;
		}
	}
	if (!p->why)
		p->why = lp_xstrdup(p->gpu ? "gpu.tsv has no such peak" :
		    "the GPU is unknown");
	lp_tsv_close(&t);
	fclose(fp);
}

void
lp_peaks_free(struct lp_peaks *p)
{
	free(p->gpu);
	free(p->why);
	free(p->link_from);
	memset(p, 0, sizeof *p);
}

double
lp_peak_of(const struct lp_peaks *p, int fp)
{
	return fp >= 0 && fp < LP_FP_N ? p->flops[fp] : 0;
}

void
lp_roof_at(const struct lp_peaks *p, int fp, double flop, double bytes,
    double ns, struct lp_roof *r)
{
	r->ai = flop / bytes;
	r->fps = flop / (ns * 1e-9);
	r->bps = bytes / (ns * 1e-9);
	r->peak = lp_peak_of(p, fp);
	r->ridge = r->peak > 0 && p->bw > 0 ? r->peak / p->bw : NAN;
	r->mem = fp < 0 || (r->peak > 0 && r->ai < r->ridge);
	if (!(p->bw > 0) || (fp >= 0 && !(r->peak > 0)))
		r->frac = NAN;
	else
		r->frac = r->mem ? r->bps / p->bw : r->fps / r->peak;
}

/* dram_bw.tsv's "# KEY: bytes/s" line: its figure, 0 where it has none. */
static double
bps_line(const struct lp_tsv *t, const char *path, const char *key)
{
	const char *s = lp_tsv_comment(t, key);
	double v = 0;

	if (s && (!lp_num_get(s, &v) || !isfinite(v) || !(v > 0)))
		lp_die_at(LP_EXIT_DATA, path, 0, 0, "# %s: expected bytes/s "
		    "above 0, got \"%s\"", key, s);
	return v;
}

void
lp_bwmeas_read(struct lp_bwmeas *m, const char *path)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-bwceil, make RUN=... dram_bw.tsv");
	const char *s;

	lp_tab_expect(&t, "lp-bwceil");
	memset(m, 0, sizeof *m);
	m->path = path;
	m->bps = bps_line(&t, path, "measured_bps");
	m->sampled = bps_line(&t, path, "sampled_bps");
	s = lp_tsv_comment(&t, "measured");
	m->how = lp_xstrdup(s ? s : "n/a because the table does not say");
	s = lp_tsv_comment(&t, "sampled");
	m->sampled_how = lp_xstrdup(s ? s : "n/a because the table does not "
	    "say");
	lp_tsv_close(&t);
	fclose(fp);
}

void
lp_bwmeas_free(struct lp_bwmeas *m)
{
	free(m->how);
	free(m->sampled_how);
	memset(m, 0, sizeof *m);
}

void
lp_bwmeas_meta(FILE *out, const struct lp_peaks *pk,
    const struct lp_bwmeas *m, const char *uses, int floor)
{
	struct lp_sb b = { 0 };
	char ex[LP_EXACT_MAX];

	if (pk->bw > 0)
		lp_sb_printf(&b, "datasheet %.4g TB/s (gpu.tsv, %s; %s)",
		    pk->bw / 1e12, pk->gpu ? pk->gpu : "GPU unknown", uses);
	else
		lp_sb_printf(&b, "datasheet n/a because %s", pk->why);
	if (m->bps > 0) {
		lp_sb_printf(&b, "; measured copy %.4g TB/s", m->bps / 1e12);
		if (pk->bw > 0)
			lp_sb_printf(&b, ", %.1f %% of the datasheet's",
			    100 * m->bps / pk->bw);
		lp_sb_printf(&b, " (%s: %s)", m->path, m->how);
		if (floor && pk->bw > 0)
			lp_sb_printf(&b, "; at it, a floor set by bytes would be "
			    "%.3gx the one shown", pk->bw / m->bps);
	} else
		lp_sb_printf(&b, "; measured copy %s (%s)", m->how, m->path);
	if (m->sampled > 0)
		lp_sb_printf(&b, "; best sustained in the GPU Metrics samples "
		    "%.4g TB/s (%s)", m->sampled / 1e12, m->sampled_how);
	lp_tab_meta(out, "dram", "%s", lp_sb_str(&b));
	if (m->bps > 0)
		lp_tab_meta(out, "dram_measured_bps", "%s",
		    lp_fmt_exact(m->bps, ex));
	lp_sb_free(&b);
}

size_t
lp_gpu_model_len(const char *dev)
{
	size_t n = strlen(dev);
	const char *p = n ? strrchr(dev, '(') : NULL;

	/* "NVIDIA H200 (1)": CUDA device 1, an NVIDIA H200 */
	if (p && p > dev && p[-1] == ' ' && dev[n - 1] == ')' && n -
	    (size_t)(p - dev) > 2 && strspn(p + 1, "0123456789") == n -
	    (size_t)(p - dev) - 2)
		n = (size_t)(p - dev) - 1;
	return n;
}
