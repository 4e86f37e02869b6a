/*
 * NVTX regions: the stages of the config (each with an optional parent
 * stage) plus any extra regions a preset lists, with their nesting depth.
 * ncu's app-range replay profiles only the outermost of nested ranges it
 * is asked for, so lp runs ncu once per depth.
 */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "nsight.h"
#include "run.h"

static void
push(struct lp_region **r, size_t *n, const char *name, const char *domain,
    const char *range, const char *parent)
{
	struct lp_region *x;
	struct lp_stage st;
	struct lp_sb b = { 0 };

	*r = lp_xreallocarray(*r, *n + 1, sizeof **r);
	x = &(*r)[(*n)++];
	memset(x, 0, sizeof *x);
	x->name = lp_xstrdup(name);
	x->domain = lp_xstrdup(domain);
	x->range = lp_xstrdup(range);
	x->parent = parent && *parent ? lp_xstrdup(parent) : NULL;
	st.name = name;
	st.domain = domain;
	st.range = range;
	lp_nvtx_nsys_name(&b, &st);
	x->nsys = lp_sb_steal(&b);
	x->depth = -1;
}

/* Each region's depth: its parent's + 1, 0 without one; a parent that is
 * not there or a cycle is refused. */
static void
depths(struct lp_region *r, size_t n, const char *file)
{
	size_t i, j;
	int changed = 1;

	for (i = 0; i < n; i++) {
		if (!r[i].parent) {
			r[i].depth = 0;
			continue;
		}
		for (j = 0; j < n && strcmp(r[j].name, r[i].parent); j++)
			;
		if (j == n)
			lp_die_at(LP_EXIT_DATA, file, 0, 0, "region %s: no stage or "
			    "region \"%s\" to be its parent", r[i].name, r[i].parent);
	}
	/* depth = the parent's + 1; a cycle never settles */
	for (i = 0; changed && i <= n; i++) {
		size_t k;

		changed = 0;
		for (k = 0; k < n; k++)
			for (j = 0; j < n; j++)
				if (r[k].parent && !strcmp(r[j].name, r[k].parent) &&
				    r[j].depth >= 0 && r[k].depth != r[j].depth + 1) {
					r[k].depth = r[j].depth + 1;
					changed = 1;
				}
	}
	for (i = 0; i < n; i++)
		if (r[i].depth < 0 || r[i].depth > (int)n)
			lp_die_at(LP_EXIT_DATA, file, 0, 0, "region %s: its parents "
			    "form a cycle", r[i].name);
}

size_t
lp_regions_get(const struct lp_ynode *cfg, const char *key,
    struct lp_region **out, const char *file)
{
	const struct lp_ynode *stages = lp_yaml_get(cfg, "stages");
	const struct lp_ynode *extra = key ? lp_yaml_get(cfg, key) : NULL;
	struct lp_region *r = NULL;
	size_t n = 0, i, j;

	for (i = 0; stages && stages->type == LP_Y_MAP && i < stages->n; i++) {
		struct lp_stage st;

		lp_stage_get(cfg, stages->keys[i], &st, file);
		push(&r, &n, st.name, st.domain, st.range, lp_yaml_str(stages->v[i],
		    "parent", NULL));
	}
	if (extra && !(extra->type == LP_Y_SCALAR && !*extra->s) &&
	    extra->type != LP_Y_SEQ)
		lp_die_at(LP_EXIT_DATA, file, extra->line, 0, "%s: expected a list "
		    "of {name, domain, range, parent}", key);
	for (i = 0; extra && extra->type == LP_Y_SEQ && i < extra->n; i++) {
		const struct lp_ynode *e = extra->v[i];
		const char *nm = e->type == LP_Y_MAP ? lp_yaml_str(e, "name", NULL) :
		    NULL;
		const char *rg = nm ? lp_yaml_str(e, "range", nm) : NULL;

		if (!nm || !*nm || !*rg)
			lp_die_at(LP_EXIT_DATA, file, e->line, 0, "%s: each region "
			    "needs a name (and a range, if it differs)", key);
		for (j = 0; j < n; j++)
			if (!strcmp(r[j].name, nm))
				lp_die_at(LP_EXIT_DATA, file, e->line, 0, "%s: region "
				    "\"%s\" is already a stage or region", key, nm);
		push(&r, &n, nm, lp_yaml_str(e, "domain", ""), rg,
		    lp_yaml_str(e, "parent", NULL));
	}
	depths(r, n, file);
	*out = r;
	return n;
}

/* "decode_all > decode_step": the region's place in the tree. */
char *
lp_region_path(const struct lp_region *r, size_t n, size_t i)
{
	struct lp_sb b = { 0 };
	size_t j, guard = 0;
	const char *chain[64];
	size_t nc = 0;

	chain[nc++] = r[i].name;
	for (j = i; r[j].parent && nc < 64 && guard++ < n; ) {
		size_t k;

		for (k = 0; k < n && strcmp(r[k].name, r[j].parent); k++)
			;
		if (k == n)
			break;
		chain[nc++] = r[k].name;
		j = k;
	}
	while (nc--)
		lp_sb_printf(&b, "%s%s", b.len ? " > " : "", chain[nc]);
	return lp_sb_steal(&b);
}

int
lp_regions_depth(const struct lp_region *r, size_t n)
{
	int d = -1;
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].depth > d)
			d = r[i].depth;
	return d;
}

void
lp_regions_free(struct lp_region *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].name);
		free(r[i].domain);
		free(r[i].range);
		free(r[i].parent);
		free(r[i].nsys);
	}
	free(r);
}
