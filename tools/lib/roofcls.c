/*
 * Each kernel's roofline class, as roofline.tsv (lp-roofline) gives it per
 * launch shape: the class of its points, or "mixed: A (grid g1); B (grid
 * g2)" where they differ.  A point ncu did not measure ("n/a ...") counts
 * only for a kernel that has no other.
 */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "run.h"

struct cls {
	char *cls, *grid1;	/* grid1: the first shape's grid */
	int mixed;
};

static void
add_class(struct cls *k, const char *cl, const char *g)
{
	struct lp_sb b = { 0 };

	if (k->cls && !strncmp(cl, "n/a", 3))
		return;
	if (k->cls && !strncmp(k->cls, "n/a", 3)) {
		free(k->cls);
		free(k->grid1);
		k->cls = NULL;
	}
	if (!k->cls) {
		k->cls = lp_xstrdup(cl);
		k->grid1 = lp_xstrdup(g);
		return;
	}
	if (!k->mixed && !strcmp(k->cls, cl))
		return;
	if (!k->mixed)
		lp_sb_printf(&b, "mixed: %s (grid %s)", k->cls, k->grid1);
	else
		lp_sb_adds(&b, k->cls);
	lp_sb_printf(&b, "; %s (grid %s)", cl, g);
	free(k->cls);
	k->cls = lp_sb_steal(&b);
	k->mixed = 1;
}

char **
lp_roof_classes(const char *rpath, char *const *kernels, size_t n)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, rpath, "lp-roofline, make RUN=... "
	    "roofline.tsv");
	struct lp_map *idx = lp_map_new();
	struct cls *c = lp_xcalloc(n + 1, sizeof *c);
	char **out = lp_xcalloc(n + 1, sizeof *out);
	int rk, rcl, rg;
	size_t i;

	lp_tab_expect(&t, "lp-roofline");
	rk = lp_csv_need(&t.hdr, "kernel", "lp-roofline output");
	rcl = lp_csv_need(&t.hdr, "class", "lp-roofline output");
	rg = lp_csv_col(&t.hdr, "grid");
	for (i = 0; i < n; i++)
		lp_map_put(idx, kernels[i], (long)i);
	while (lp_tab_next(&t)) {
		long j = lp_map_get(idx, lp_tsv_get(&t, rk), -1);

		if (j >= 0)
			add_class(&c[j], lp_tsv_get(&t, rcl), rg >= 0 ?
			    lp_tsv_get(&t, rg) : "");
	}
	for (i = 0; i < n; i++) {
		out[i] = c[i].cls;
		free(c[i].grid1);
	}
	free(c);
	lp_map_free(idx);
	lp_tsv_close(&t);
	fclose(fp);
	return out;
}
