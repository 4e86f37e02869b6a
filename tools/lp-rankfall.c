/*
 * lp-rankfall: rank_waterfall.tsv, a decode step run by several ranks
 * (tensor parallel), one bar a rank: its step split into its kernels
 * other than communication (the floor of the bytes that rank must read,
 * and the kernels above it), its communication kernels (the floor of the
 * bytes each all-reduce must move over its link, and the rest: waiting
 * for the other ranks and the collective's own overhead) and the GPU's
 * idle time.  The parts add up to the rank's step.
 *
 * Floors: the model's bytes a step (lp_model_step_bytes: weights and the
 * KV cache) over the ranks (sharded: model.tensor_parallel, else the
 * processes of ranks.tsv) at the GPU's DRAM bandwidth (gpu.tsv); the
 * all-reduces of a step, model.layers x model.allreduces_per_layer (2 in
 * a Megatron-style layer: attention and MLP) of model.batch x
 * model.hidden elements of model.dtype, a ring moving 2(n-1)/n of each
 * over every GPU's link, at gpu.tsv's "# link:" bandwidth.  No latency
 * floor: no link probe has run (issue 41, item 4), and the line says so.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-rankfall -g gpu.tsv -i inputs.yaml "
    "[-t steps.tsv] ranks.tsv";

#define STAGE "decode_step"

struct floors {
	double tp, mem, comm;	/* ranks; ns a step; NAN: n/a */
	struct lp_sb why_mem, why_comm, msgs;
};

static void
floors(struct floors *f, const char *ipath, const char *gpath, size_t nr,
    struct lp_sb *dram, struct lp_sb *link)
{
	struct lp_ynode *in = lp_yaml_load_path(ipath);
	struct lp_model m;
	struct lp_peaks pk;
	long ar = lp_cfg_long(in, "model.allreduces_per_layer", 2, 0, 64, ipath);
	long tp = lp_cfg_long(in, "model.tensor_parallel", (long)nr, 1, 4096,
	    ipath);
	double w, kv, lbw, msg, wire;

	lp_model_get(&m, in, ipath);
	lp_peaks_read(&pk, gpath);
	f->tp = (double)tp;
	f->mem = f->comm = NAN;
	lbw = pk.link;
	if (lbw > 0)
		lp_sb_printf(link, "%.0f B/s (each direction, per GPU: %s's link "
		    "row, from %s link_gbps)", lbw, gpath, pk.link_from ?
		    pk.link_from : "?");
	else
		lp_sb_printf(link, "n/a because %s has no link bandwidth for "
		    "this GPU (conf/gpus.yaml link_gbps)", gpath);
	if (pk.bw > 0)
		lp_sb_printf(dram, "%.0f B/s (%s, %s)", pk.bw, gpath,
		    pk.gpu ? pk.gpu : "its GPU");
	else
		lp_sb_printf(dram, "n/a because %s", pk.why);
	if (m.missing)
		lp_sb_printf(&f->why_mem, "n/a because the model config lacks "
		    "%s", m.missing);
	else if (!(pk.bw > 0))
		lp_sb_printf(&f->why_mem, "n/a because %s", pk.why);
	else
		f->mem = lp_model_step_bytes(&m, &w, &kv) / f->tp / pk.bw * 1e9;
	msg = m.batch * m.hidden * m.dtype_bytes;
	wire = 2 * (f->tp - 1) / f->tp * msg;
	lp_sb_printf(&f->msgs, "%ld x %ld all-reduces of %.0f bytes a step "
	    "(model.layers x model.allreduces_per_layer; model.batch x "
	    "model.hidden x the dtype's %g bytes), a ring moving 2(n-1)/n = "
	    "%.0f bytes of each over every GPU's link", (long)m.layers, ar, msg,
	    m.dtype_bytes, wire);
	if (m.missing)
		lp_sb_printf(&f->why_comm, "n/a because the model config lacks "
		    "%s", m.missing);
	else if (!(lbw > 0))
		lp_sb_printf(&f->why_comm, "%s", lp_sb_str(link));
	else
		f->comm = m.layers * (double)ar * wire / lbw * 1e9;
	lp_model_free(&m);
	lp_peaks_free(&pk);
	lp_yaml_free(in);
}

/* A floor part of a measured total: the floor, at most the total. */
static void
floor_cells(struct lp_row *r, double total, double fl, const char *why)
{
	if (isnan(fl)) {
		lp_row_na(r, "%s", why + (strncmp(why, "n/a because ", 12) ?
		    0 : 12));
		lp_row_na(r, "%s", "its floor is n/a");
		return;
	}
	fl = fl < total ? fl : total;
	lp_row_num(r, fl, 1);
	lp_row_num(r, total - fl, 1);
}

static void
emit(FILE *out, const char *rpath, const struct lp_rank *rk, size_t nr,
    struct floors *f, const char *dram, const char *link, int untraced)
{
	static const struct lp_col cols[] = {
		{ "pid", "Process", "text" },
		{ "device", "GPU", "text" },
		{ "step_ns", "Step (ms)", "ms" },
		{ "compute_ns", "Kernels (ms)", "ms" },
		{ "mem_floor_ns", "Memory floor (ms)", "ms" },
		{ "compute_above_ns", "Kernels above it (ms)", "ms" },
		{ "comm_ns", "Communication (ms)", "ms" },
		{ "comm_floor_ns", "Link floor (ms)", "ms" },
		{ "comm_above_ns", "Collectives above floor (ms)", "ms" },
		{ "idle_ns", "GPU idle (ms)", "ms" },
		{ "comm_pct", "Communication share", "pct" },
		{ "straggler", "Straggler", "text" },
	};
	struct lp_row r = { { 0 }, 0 };
	size_t i;

	lp_tab_meta(out, "title", "Each Rank's Step");
	lp_tab_meta(out, "tool", "lp-rankfall");
	lp_tab_meta(out, "source", "%s of each rank from %s (its median "
	    "instance%s; kernels and communication kernels a step); memory "
	    "floor at the DRAM's %s over %.0f ranks; link floor: %s, at %s; "
	    "no latency floor (no link probe ran)", STAGE, rpath, untraced ?
	    ", the untraced run's step for every rank" : "", dram, f->tp,
	    lp_sb_str(&f->msgs), link);
	lp_tab_meta(out, "key", "pid");
	if (nr < 2) {
		lp_tab_meta(out, "omit", "one process: the waterfall "
		    "(waterfall.tsv) splits the step");
	}
	lp_tab_meta(out, "sharding", "%.0f ranks (model.tensor_parallel, "
	    "else the processes of ranks.tsv)", f->tp);
	lp_tab_meta(out, "dram", "%s", dram);
	lp_tab_meta(out, "link", "%s", link);
	lp_tab_meta(out, "messages", "%s", lp_sb_str(&f->msgs));
	lp_tab_meta(out, "latency", "n/a because no link probe ran on the "
	    "run's machine: the link floor is the transfer alone");
	lp_tab_meta(out, "note", "Parts add up to the rank's step: kernels "
	    "(memory floor + above it) + communication (link floor + above "
	    "it: waiting for the other ranks and overhead) + GPU idle. Memory "
	    "floor: the model's bytes a step over the ranks at the DRAM "
	    "bandwidth; a floor above what was measured is shown at the "
	    "measured time.");
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	for (i = 0; i < nr; i++) {
		const struct lp_rank *k = &rk[i];

		lp_row_text(&r, k->pid);
		lp_row_text(&r, k->device);
		lp_row_num(&r, k->step, 1);
		lp_row_num(&r, k->compute, 1);
		floor_cells(&r, k->compute, f->mem, lp_sb_str(&f->why_mem));
		lp_row_num(&r, k->comm, 1);
		floor_cells(&r, k->comm, f->comm, lp_sb_str(&f->why_comm));
		lp_row_num(&r, k->idle, 1);
		lp_row_g(&r, 100 * k->comm / k->step);
		lp_row_text(&r, k->straggler ? "yes" : "no");
		lp_row_end(&r, out);
	}
	lp_sb_free(&r.b);
}

int
main(int argc, char **argv)
{
	const char *gpath = NULL, *ipath = NULL, *tpath = NULL;
	struct floors f = { 0 };
	struct lp_sb dram = { 0 }, link = { 0 };
	struct lp_rank *rk = NULL;
	size_t nr;
	double ut = NAN;
	FILE *out;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = getopt(argc, argv, "g:hi:t:")) != -1) {
		switch (c) {
		case 'g': gpath = optarg; break;
		case 'i': ipath = optarg; break;
		case 't': tpath = optarg; break;
		case 'h': printf("usage: %s\n", synopsis); return LP_EXIT_OK;
		default: lp_usage(synopsis);
		}
	}
	if (!gpath || !ipath || argc - optind != 1)
		lp_usage(synopsis);
	nr = lp_ranks_load(argv[optind], STAGE, &rk);
	if (nr > 1 && tpath && !isnan(ut = lp_steps_untraced(tpath, STAGE)))
		lp_ranks_untraced(rk, nr, ut);
	floors(&f, ipath, gpath, nr ? nr : 1, &dram, &link);
	out = lp_tab_out();
	emit(out, argv[optind], rk, nr > 1 ? nr : 0, &f, lp_sb_str(&dram),
	    lp_sb_str(&link), !isnan(ut));
	lp_ranks_free(rk, nr);
	lp_sb_free(&f.why_mem);
	lp_sb_free(&f.why_comm);
	lp_sb_free(&f.msgs);
	lp_sb_free(&dram);
	lp_sb_free(&link);
	lp_tab_done(out);
	return LP_EXIT_OK;
}
