/*
 * lp-gpumetrics' GPUs of a multi-GPU export: which GPU each metrics
 * source (typeId) samples, and on which GPU each process ran, so that a
 * sample counts only for the instances of the processes on its GPU.
 *
 * What ties them, as nsys 2025.3.1 wrote a 4-H100 capture (tests/gpu/
 * README.md, "GPU Metrics of several GPUs"): the typeIds of
 * TARGET_INFO_GPU_METRICS differ only in their low byte, which is the id
 * of a row of TARGET_INFO_GPU (its busLocation the PCI bus nvidia-smi
 * gives that GPU); a process's kernels (CUPTI_ACTIVITY_KIND_KERNEL) name
 * its CUDA device (deviceId), which TARGET_INFO_CUDA_DEVICE maps to that
 * GPU id for that process (gpuId, cudaId, pid; the pid is globalPid's
 * bits 24-47).  Anything else, and the export is refused for placing,
 * with the reason.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "nsql.h"
#include "gpumetrics.h"

/* TARGET_INFO_GPU's row of id, "NAME (id)" and its bus in *label and
 * *bus; 0 where the table has none. */
static int
gpu_row(sqlite3 *db, const char *path, int64_t id, char **label, char **bus)
{
	sqlite3_stmt *st = lp_sql_query(db, path, "SELECT name, busLocation "
	    "FROM TARGET_INFO_GPU WHERE id = ?1");
	int found = 0;

	sqlite3_bind_int64(st, 1, id);
	if (lp_sql_step(db, path, st)) {
		const unsigned char *n = sqlite3_column_text(st, 0);
		const unsigned char *b = sqlite3_column_text(st, 1);
		struct lp_sb s = { 0 };

		lp_sb_printf(&s, "%s (%" PRId64 ")", n ? (const char *)n :
		    "GPU", id);
		*label = lp_sb_steal(&s);
		*bus = lp_xstrdup(b ? (const char *)b : "?");
		found = 1;
		while (lp_sql_step(db, path, st))
			;
	}
	sqlite3_finalize(st);
	return found;
}

size_t
gpus_sources(const struct gm *gm, const int64_t *t, size_t n,
    struct gsrc **out, struct lp_sb *why)
{
	struct gsrc *g = lp_xcalloc(n, sizeof *g);
	int64_t high = t[0] & ~(int64_t)0xff;
	size_t i;

	*out = g;
	for (i = 0; i < n; i++) {
		g[i].type = t[i];
		g[i].gpu = t[i] & 0xff;
	}
	if (!lp_sql_has_table(gm->db, gm->path, "TARGET_INFO_GPU")) {
		lp_sb_printf(why, "%s has no TARGET_INFO_GPU to tie its samples "
		    "to GPUs", gm->path);
		return n;
	}
	for (i = 1; i < n && !why->len; i++)
		if ((t[i] & ~(int64_t)0xff) != high)
			lp_sb_printf(why, "its typeIds %" PRId64 " and %" PRId64
			    " differ beyond their low byte (the GPU's id in "
			    "TARGET_INFO_GPU, as nsys 2025.3.1 writes them)",
			    t[0], t[i]);
	for (i = 0; i < n && !why->len; i++)
		if (!gpu_row(gm->db, gm->path, g[i].gpu, &g[i].label, &g[i].bus))
			lp_sb_printf(why, "typeId %" PRId64 " has no GPU %" PRId64
			    " in TARGET_INFO_GPU (its low byte, the GPU's id "
			    "as nsys 2025.3.1 writes them)", g[i].type,
			    g[i].gpu);
	return n;
}

void
gpus_sources_free(struct gsrc *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(g[i].label);
		free(g[i].bus);
	}
	free(g);
}

/* The GPU id of process pid's CUDA device dev: TARGET_INFO_CUDA_DEVICE's,
 * else (an export without the table) dev itself. */
static int64_t
gpu_of(sqlite3 *db, const char *path, int64_t pid, int64_t dev, int have_map)
{
	sqlite3_stmt *st;
	int64_t g = dev;

	if (!have_map)
		return dev;
	st = lp_sql_query(db, path, "SELECT gpuId FROM TARGET_INFO_CUDA_DEVICE "
	    "WHERE pid = ?1 AND cudaId = ?2");
	sqlite3_bind_int64(st, 1, pid);
	sqlite3_bind_int64(st, 2, dev);
	if (lp_sql_step(db, path, st)) {
		g = sqlite3_column_int64(st, 0);
		while (lp_sql_step(db, path, st))
			;
	}
	sqlite3_finalize(st);
	return g;
}

void
gpus_place_insts(struct gm *gm, struct lp_sb *why, struct lp_sb *several)
{
	struct lp_map *gpu = lp_map_new();	/* pid -> GPU id + 1, -1: many */
	struct stage *stages = gm->stg;
	sqlite3 *db = gm->db;
	const char *path = gm->path;
	sqlite3_stmt *st;
	int have_map;
	size_t i, k;

	if (!lp_sql_has_table(db, path, "CUPTI_ACTIVITY_KIND_KERNEL")) {
		lp_sb_printf(why, "%s has no kernels (CUPTI_ACTIVITY_KIND_KERNEL) "
		    "to tell on which GPU each process ran", path);
		lp_map_free(gpu);
		return;
	}
	have_map = lp_sql_has_table(db, path, "TARGET_INFO_CUDA_DEVICE");
	st = lp_sql_query(db, path, "SELECT DISTINCT (globalPid >> 24) & "
	    "16777215, deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL");
	while (lp_sql_step(db, path, st)) {
		int64_t pid = sqlite3_column_int64(st, 0);
		int64_t g = gpu_of(db, path, pid, sqlite3_column_int64(st, 1),
		    have_map);
		char key[32];
		long was;

		snprintf(key, sizeof key, "%" PRId64, pid);
		was = lp_map_get(gpu, key, 0);
		if (!was)
			lp_map_put(gpu, key, (long)g + 1);
		else if (was != (long)g + 1 && was != -1) {
			lp_map_put(gpu, key, -1);
			lp_sb_printf(several, "%s%s", several->len ? ", " : "",
			    key);
		}
	}
	sqlite3_finalize(st);
	for (i = 0; i < gm->nstg; i++)
		for (k = 0; k < stages[i].n; k++) {
			long g = lp_map_get(gpu, stages[i].in[k].pid, 0);

			stages[i].in[k].gpu = g > 0 ? g - 1 : -1;
		}
	lp_map_free(gpu);
}
