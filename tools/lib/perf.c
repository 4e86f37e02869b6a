/*
 * What the utilisation tables (lp-mfu, lp-mbu) divide, from the options
 * they share: the model's work (inputs.yaml), the GPU's peaks (gpu.tsv)
 * and the measured stage times (stages.tsv, steps.tsv).
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
	while ((c = getopt(argc, argv, "g:hi:s:t:")) != -1) {
		switch (c) {
		case 'g': p->gpath = optarg; break;
		case 'h':
			printf("usage: %s\n", synopsis);
			exit(LP_EXIT_OK);
		case 'i': p->ipath = optarg; break;
		case 's': p->spath = optarg; break;
		case 't': p->tpath = optarg; break;
		default: lp_usage(synopsis);
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

void
lp_perf_free(struct lp_perf *p)
{
	lp_stagetab_free(p->rows, p->n);
	lp_peaks_free(&p->pk);
	lp_model_free(&p->m);
	lp_yaml_free(p->inputs);
}
