/*
 * A stage is one NVTX push/pop range, configured once (domain, range) and
 * spelled differently by each tool:
 *   nsys --nvtx-capture   RANGE@DOMAIN, or RANGE in the default domain
 *   ncu  --nvtx-include   DOMAIN@RANGE/, or RANGE/ with '@' escaped
 *   nsys stats "Range"    DOMAIN:RANGE, or :RANGE in the default domain
 * nsys 2025.3 drops an '@' inside a capture range ("Discarded '@' in NVTX
 * capture range"), so a default-domain range like PyTorch's "LLM@decode_all"
 * cannot gate an nsys capture at all; see lp-nsyscmd(1).
 */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "nsight.h"

void
lp_stage_get(const struct lp_ynode *cfg, const char *name, struct lp_stage *st,
    const char *file)
{
	const struct lp_ynode *stages = lp_yaml_get(cfg, "stages"), *s = NULL;
	size_t i;

	if (stages && stages->type == LP_Y_MAP)
		for (i = 0; i < stages->n; i++)
			if (!strcmp(stages->keys[i], name))
				s = stages->v[i];
	if (!s || s->type != LP_Y_MAP) {
		struct lp_sb b = { 0 };

		if (stages && stages->type == LP_Y_MAP)
			for (i = 0; i < stages->n; i++)
				lp_sb_printf(&b, "%s%s", i ? ", " : "",
				    stages->keys[i]);
		lp_die_at(LP_EXIT_DATA, file, 0, 0,
		    "no stage \"%s\" under stages (stages: %s)", name,
		    b.len ? lp_sb_str(&b) : "none");
	}
	st->name = name;
	st->domain = lp_yaml_str(s, "domain", "");
	st->range = lp_yaml_str(s, "range", name);
	if (!*st->range)
		lp_die_at(LP_EXIT_DATA, file, s->line, 0,
		    "stage \"%s\": empty range", name);
}

int
lp_nvtx_nsys_capture(struct lp_sb *b, const struct lp_stage *st)
{
	if (strchr(st->range, '@') || strchr(st->domain, '@'))
		return -1;
	lp_sb_adds(b, st->range);
	if (*st->domain) {
		lp_sb_addc(b, '@');
		lp_sb_adds(b, st->domain);
	}
	return 0;
}

static void
esc_at(struct lp_sb *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '@')
			lp_sb_addc(b, '\\');
		lp_sb_addc(b, *s);
	}
}

int
lp_nvtx_ncu_include(struct lp_sb *b, const struct lp_stage *st)
{
	/* '/' separates nested push/pop ranges in ncu's syntax */
	if (strchr(st->range, '/') || strchr(st->domain, '/'))
		return -1;
	if (*st->domain) {
		esc_at(b, st->domain);
		lp_sb_addc(b, '@');
	}
	esc_at(b, st->range);
	lp_sb_addc(b, '/');
	return 0;
}

void
lp_nvtx_nsys_name(struct lp_sb *b, const struct lp_stage *st)
{
	lp_sb_adds(b, st->domain);
	lp_sb_addc(b, ':');
	lp_sb_adds(b, st->range);
}

/*
 * Every tool keeps one row per stage and finds it by its range, so two
 * stages naming one range would share a row (lp-stages read past its
 * stages): refused, naming both, at the later stage's range.
 */
static void
check_shared(const struct lp_ynode *stages, const char *const *names,
    char *const *ranges, size_t n, const char *file)
{
	const struct lp_ynode *at;
	size_t i, j;

	for (i = 1; i < n; i++)
		for (j = 0; j < i; j++) {
			if (!lp_nvtx_range_match(ranges[j], ranges[i]))
				continue;
			at = lp_yaml_get(stages->v[i], "range");
			lp_die_at(LP_EXIT_DATA, file, at ? at->line :
			    stages->v[i]->line, 0, "stages \"%s\" and \"%s\" "
			    "both name the NVTX range %s: each stage needs a "
			    "range of its own", names[j], names[i], ranges[i]);
		}
}

size_t
lp_stage_ranges(const struct lp_ynode *cfg, const char *file,
    const char ***names, char ***ranges)
{
	const struct lp_ynode *stages = lp_yaml_get(cfg, "stages");
	size_t i;

	if (!stages || stages->type != LP_Y_MAP || !stages->n)
		lp_die_at(LP_EXIT_DATA, file, cfg->line, 0, "no stages: (each "
		    "stage's NVTX domain and range)");
	*names = lp_xcalloc(stages->n, sizeof **names);
	*ranges = lp_xcalloc(stages->n, sizeof **ranges);
	for (i = 0; i < stages->n; i++) {
		struct lp_stage st;
		struct lp_sb b = { 0 };

		lp_stage_get(cfg, stages->keys[i], &st, file);
		lp_nvtx_nsys_name(&b, &st);
		(*names)[i] = stages->keys[i];
		(*ranges)[i] = lp_sb_steal(&b);
	}
	check_shared(stages, *names, *ranges, stages->n, file);
	return stages->n;
}

void *
lp_stage_table(const struct lp_ynode *cfg, const char *file, size_t *n,
    size_t extra, size_t size, size_t name_at, size_t range_at)
{
	const char **names;
	char **ranges, *t;
	size_t i;

	*n = lp_stage_ranges(cfg, file, &names, &ranges);
	t = lp_xcalloc(*n + extra, size);
	for (i = 0; i < *n; i++) {
		memcpy(t + i * size + name_at, &names[i], sizeof names[i]);
		memcpy(t + i * size + range_at, &ranges[i], sizeof ranges[i]);
	}
	free(names);
	free(ranges);
	return t;
}

int
lp_nvtx_range_match(const char *want, const char *got)
{
	if (!strcmp(want, got))
		return 1;
	/* default domain: ":LLM@prefill" in nsys 2025, "LLM@prefill" typed;
	 * a name with another ':' belongs to a named domain */
	if (want[0] == ':' && !strchr(want + 1, ':') && !strcmp(want + 1, got))
		return 1;
	if (got[0] == ':' && !strchr(got + 1, ':') && !strcmp(got + 1, want))
		return 1;
	return 0;
}
