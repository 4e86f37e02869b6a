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
 * over every GPU's link, at gpu.tsv's "# link:" bandwidth, plus each
 * all-reduce's latency as lp-linkprobe measured it on the run's machine
 * (its best 8-byte all-reduce on as many GPUs as the run has ranks); its
 * measured bus bandwidth is shown beside the datasheet's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"

static const char synopsis[] = "lp-rankfall -g gpu.tsv -i inputs.yaml "
    "[-t steps.tsv] [-l linkprobe.tsv [-e linkprobe.log] | -P why] ranks.tsv";

#define STAGE "decode_step"

struct floors {
	double tp, mem, comm;	/* ranks; ns a step; NAN: n/a */
	struct lp_sb why_mem, why_comm, msgs;
};

/* The link probe's figures for n GPUs: latency (ns) and bus bandwidth
 * (B/s), NAN with why where there are none. */
struct probe {
	double lat, busbw;
	struct lp_sb why, how;
};

static void
read_probe(struct probe *p, const char *tpath, const char *lpath,
    const char *na, double n)
{
	struct lp_tsv t;
	FILE *fp;
	int cg, cb, cs, cw;
	double g, b, best, bw, minb = 0, maxb = 0;

	p->lat = p->busbw = NAN;
	if (!tpath) {
		lp_sb_printf(&p->why, "%s", na ? na : "no link probe ran on the "
		    "run's machine");
		return;
	}
	if (lp_file_empty(tpath)) {
		char *said = lp_file_said(lpath);

		lp_sb_printf(&p->why, "the link probe could not run on the run's "
		    "machine (lp-linkprobe: %s)", said);
		free(said);
		return;
	}
	fp = lp_tab_open(&t, tpath, "lp-linkprobe");
	lp_tab_expect(&t, "lp-linkprobe");
	cg = lp_csv_need(&t.hdr, "gpus", "lp-linkprobe output");
	cb = lp_csv_need(&t.hdr, "bytes", "lp-linkprobe output");
	cs = lp_csv_need(&t.hdr, "best_ns", "lp-linkprobe output");
	cw = lp_csv_need(&t.hdr, "busbw_best", "lp-linkprobe output");
	while (lp_tab_next(&t)) {
		if (!lp_tab_num(&t, cg, &g) || !lp_tab_num(&t, cb, &b) ||
		    !lp_tab_num(&t, cs, &best) || !(best > 0) ||
		    !lp_tab_num(&t, cw, &bw) || !(bw > 0) || !(b > 0))
			lp_die_at(LP_EXIT_DATA, tpath, t.line, cg + 1, "gpus, "
			    "bytes, best_ns, busbw_best: expected numbers above 0");
		if (g != n)
			continue;
		if (isnan(p->lat) || b < minb) {	/* the smallest: latency */
			minb = b;
			p->lat = best;
		}
		if (b > maxb) {				/* the largest: bandwidth */
			maxb = b;
			p->busbw = bw;
		}
	}
	lp_tsv_close(&t);
	fclose(fp);
	if (isnan(p->lat)) {
		lp_sb_printf(&p->why, "the link probe (%s) measured no "
		    "all-reduce on %.0f GPUs, the run's ranks", tpath, n);
		return;
	}
	lp_sb_printf(&p->how, "%.0f ns an all-reduce (the best %.0f-byte "
	    "all-reduce on %.0f GPUs, %s)", p->lat, minb, n, tpath);
	lp_sb_printf(&p->why, "measured: %.0f B/s bus bandwidth (the best "
	    "%.0f-byte all-reduce on %.0f GPUs, %s)", p->busbw, maxb, n, tpath);
}

static void
floors(struct floors *f, const char *ipath, const char *gpath, size_t nr,
    struct lp_sb *dram, struct lp_sb *link, struct probe *p,
    const char *const popt[3])
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
	read_probe(p, popt[0], popt[1], popt[2], f->tp);
	lbw = pk.link;
	if (lbw > 0)
		lp_sb_printf(link, "%.0f B/s (each direction, per GPU: %s's link "
		    "row, from %s link_gbps); %s%s", lbw, gpath, pk.link_from ?
		    pk.link_from : "?", isnan(p->lat) ? "no measurement: " : "",
		    lp_sb_str(&p->why));
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
		f->comm = m.layers * (double)ar * (wire / lbw * 1e9 +
		    (isnan(p->lat) ? 0 : p->lat));
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

/* The GPU's ordinal, "2" of nsys's "NVIDIA H100 80GB HBM3 (2)": the
 * brief's short column (its title names the model); else the name. */
static void
ordinal(struct lp_row *r, const char *dev)
{
	size_t m = lp_gpu_model_len(dev), n = strlen(dev);
	struct lp_sb b = { 0 };

	if (m < n)	/* "NAME (N)": N */
		lp_sb_printf(&b, "%.*s", (int)(n - m - 3), dev + m + 2);
	lp_row_text(r, m < n ? lp_sb_str(&b) : dev);
	lp_sb_free(&b);
}

/* A row a rank: its step's parts, each kind split at its floor (f). */
static void
emit_rows(FILE *out, const struct lp_rank *rk, size_t nr, struct floors *f)
{
	struct lp_row r = { { 0 }, 0 };
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct lp_rank *k = &rk[i];

		lp_row_text(&r, k->pid);
		lp_row_text(&r, k->device);
		ordinal(&r, k->device);
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

static void
emit(FILE *out, const char *rpath, const struct lp_rank *rk, size_t nr,
    struct floors *f, const char *dram, const char *link, int untraced,
    struct probe *p)
{
	static const struct lp_col cols[] = {
		{ "pid", "Process", "text" },
		{ "device", "GPU", "text" },
		{ "gpu", "GPU", "text" },
		{ "step_ns", "Step", "ms" },
		{ "compute_ns", "Kernels", "ms" },
		{ "mem_floor_ns", "Mem. floor", "ms" },
		{ "compute_above_ns", "Kernels above", "ms" },
		{ "comm_ns", "Communication", "ms" },
		{ "comm_floor_ns", "Link floor", "ms" },
		{ "comm_above_ns", "Collectives above", "ms" },
		{ "idle_ns", "Idle", "ms" },
		{ "comm_pct", "Communication share", "pct" },
		{ "straggler", "Straggler", "text" },
	};

	lp_tab_meta(out, "title", "Each Rank's Step (ms)");
	lp_tab_meta(out, "tool", "lp-rankfall");
	lp_tab_meta(out, "source", "%s of each rank from %s (its median "
	    "instance%s; kernels and communication kernels a step), split in "
	    "parts that add up to it (lp-rankfall(1)); memory "
	    "floor at the DRAM's %s over %.0f ranks; link floor: %s, at %s, "
	    "plus %s a collective", STAGE, rpath, untraced ?
	    ", the untraced run's step for every rank: its kernels as the "
	    "capture timed them, the rest of the step split between "
	    "communication and GPU idle as the capture split it" : "", dram, f->tp,
	    lp_sb_str(&f->msgs), link, isnan(p->lat) ? "no latency" :
	    lp_sb_str(&p->how));
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
	if (isnan(p->lat))
		lp_tab_meta(out, "latency", "n/a because %s: the link floor is "
		    "the transfer alone", lp_sb_str(&p->why));
	else
		lp_tab_meta(out, "latency", "%s", lp_sb_str(&p->how));
	lp_tab_header(out, cols, sizeof cols / sizeof cols[0]);
	emit_rows(out, rk, nr, f);
}

int
main(int argc, char **argv)
{
	const char *gpath = NULL, *ipath = NULL, *tpath = NULL;
	const char *popt[3] = { NULL, NULL, NULL };	/* -l, -e, -P */
	struct probe pr = { NAN, NAN, { 0 }, { 0 } };
	struct floors f = { 0 };
	struct lp_sb dram = { 0 }, link = { 0 };
	struct lp_rank *rk = NULL;
	size_t nr;
	double ut = NAN;
	FILE *out;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "e:g:i:l:P:t:", synopsis)) != -1) {
		switch (c) {
		case 'e': popt[1] = optarg; break;
		case 'l': popt[0] = optarg; break;
		case 'P': popt[2] = optarg; break;
		case 'g': gpath = optarg; break;
		case 'i': ipath = optarg; break;
		case 't': tpath = optarg; break;
		}
	}
	if (!gpath || !ipath || argc - optind != 1 || (popt[0] && popt[2]) ||
	    (popt[1] && !popt[0]))
		lp_usage(synopsis);
	nr = lp_ranks_load(argv[optind], STAGE, &rk);
	if (nr > 1 && tpath && !isnan(ut = lp_steps_untraced(tpath, STAGE)))
		lp_ranks_untraced(rk, nr, ut);
	floors(&f, ipath, gpath, nr ? nr : 1, &dram, &link, &pr, popt);
	out = lp_tab_out();
	emit(out, argv[optind], rk, nr > 1 ? nr : 0, &f, lp_sb_str(&dram),
	    lp_sb_str(&link), !isnan(ut), &pr);
	lp_ranks_free(rk, nr);
	lp_sb_free(&f.why_mem);
	lp_sb_free(&f.why_comm);
	lp_sb_free(&f.msgs);
	lp_sb_free(&pr.why);
	lp_sb_free(&pr.how);
	lp_sb_free(&dram);
	lp_sb_free(&link);
	lp_tab_done(out);
	return LP_EXIT_OK;
}
