/*
 * What the utilisation tables (lp-mfu, lp-mbu) divide, from the options
 * they share: the model's work (inputs.yaml), the GPU's peaks (gpu.tsv)
 * and the measured stage times (stages.tsv, steps.tsv); and the lines the
 * two tables share (title, multi-GPU peak, what is missing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"

void
lp_perf_opts(struct lp_perf *p, int argc, char **argv, const char *synopsis)
{
	int c;

	memset(p, 0, sizeof *p);
	while ((c = lp_getopt(argc, argv, "g:i:s:t:", synopsis)) != -1) {
		switch (c) {
		case 'g': p->gpath = optarg; break;
		case 'i': p->ipath = optarg; break;
		case 's': p->spath = optarg; break;
		case 't': p->tpath = optarg; break;
		}
	}
	if (!p->gpath || !p->ipath || !p->spath || optind != argc)
		lp_usage(synopsis);
}

void
lp_perf_load(struct lp_perf *p)
{
	p->inputs = lp_yaml_load_path(p->ipath);
	lp_model_get(&p->m, p->inputs, p->ipath);
	lp_peaks_read(&p->pk, p->gpath);
	p->n = lp_stagetab_load(p->spath, p->tpath, &p->rows);
}

FILE *
lp_perf_open(struct lp_perf *p, int argc, char **argv, const char *synopsis,
    const char *title, const char *tool)
{
	FILE *out;

	lp_start(argc, argv, synopsis);
	out = lp_tab_out();
	lp_perf_opts(p, argc, argv, synopsis);
	lp_perf_load(p);
	lp_tab_meta(out, "title", "%s", title);
	lp_tab_meta(out, "tool", "%s", tool);
	return out;
}

double
lp_perf_share(const struct lp_perf *p, FILE *out, double peak,
    const char *what, const char *name)
{
	if (p->n && p->rows[0].procs > 1 && peak > 0) {
		peak *= p->rows[0].procs;
		lp_tab_meta(out, "note", "%.0f processes (one GPU each) share "
		    "the model's %s: the %s is %.0f GPUs' (stages.tsv's "
		    "# processes).", p->rows[0].procs, what, name,
		    p->rows[0].procs);
	}
	return peak;
}

void
lp_perf_missing(const struct lp_perf *p, FILE *out, const char *title,
    double peak)
{
	if (p->m.missing)
		lp_tab_meta(out, "missing", "no %s: the model config lacks "
		    "%s (MODEL=NAME, conf/model/NAME.yaml)", title,
		    p->m.missing);
	else if (!(peak > 0))
		lp_tab_meta(out, "missing", "no %s: %s", title, p->pk.why);
}

void
lp_perf_free(struct lp_perf *p)
{
	lp_stagetab_free(p->rows, p->n);
	lp_peaks_free(&p->pk);
	lp_model_free(&p->m);
	lp_yaml_free(p->inputs);
}
