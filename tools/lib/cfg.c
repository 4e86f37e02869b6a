/*
 * Typed reads of a resolved config.  The command builders take every
 * option from the presets, so a bad value must stop them with the key and
 * its line, never reach nsys or ncu.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "run.h"

static const struct lp_ynode *
scalar(const struct lp_ynode *cfg, const char *path, const char *file)
{
	const struct lp_ynode *n = lp_yaml_get(cfg, path);

	if (n && n->type != LP_Y_SCALAR)
		lp_die_at(LP_EXIT_DATA, file, n->line, 0, "%s: expected a single "
		    "value", path);
	return n;
}

const char *
lp_cfg_enum(const struct lp_ynode *cfg, const char *path, const char *dflt,
    const char *const *allowed, const char *file)
{
	const struct lp_ynode *n = scalar(cfg, path, file);
	const char *v = n ? n->s : dflt;
	const char *const *a;
	struct lp_sb b = { 0 };

	for (a = allowed; *a; a++)
		if (!strcmp(*a, v))
			return v;
	for (a = allowed; *a; a++)
		lp_sb_printf(&b, "%s%s", a == allowed ? "" : a[1] ? ", " : " or ",
		    *a);
	lp_die_at(LP_EXIT_DATA, file, n ? n->line : 0, 0,
	    "%s: expected %s, got \"%s\"", path, lp_sb_str(&b), v);
}

long
lp_cfg_long(const struct lp_ynode *cfg, const char *path, long dflt, long min,
    long max, const char *file)
{
	const struct lp_ynode *n = scalar(cfg, path, file);
	char *end;
	long v;

	if (!n)
		return dflt;
	errno = 0;
	v = strtol(n->s, &end, 10);
	if (!*n->s || *end || errno || v < min || v > max)
		lp_die_at(LP_EXIT_DATA, file, n->line, 0, "%s: expected a whole "
		    "number from %ld to %ld, got \"%s\"", path, min, max, n->s);
	return v;
}

static void
check_word(const char *s, const char *path, long line, const char *file)
{
	const char *p;

	for (p = s; *p; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p) ||
		    *p == '"' || *p == '\'')
			lp_die_at(LP_EXIT_DATA, file, line, 0, "%s: \"%s\" has a "
			    "space, quote or control character", path, s);
}

const char *
lp_cfg_word(const struct lp_ynode *cfg, const char *path, const char *dflt,
    const char *file)
{
	const struct lp_ynode *n = scalar(cfg, path, file);

	if (!n)
		return dflt;
	check_word(n->s, path, n->line, file);
	return n->s;
}

size_t
lp_cfg_list(const struct lp_ynode *cfg, const char *path, const char ***items,
    const char *file)
{
	const struct lp_ynode *n = lp_yaml_get(cfg, path);
	size_t i;

	*items = NULL;
	if (!n)
		return 0;
	if (n->type == LP_Y_SCALAR && !*n->s)
		return 0;
	if (n->type != LP_Y_SEQ)
		lp_die_at(LP_EXIT_DATA, file, n->line, 0, "%s: expected a list",
		    path);
	*items = lp_xcalloc(n->n, sizeof **items);
	for (i = 0; i < n->n; i++) {
		if (n->v[i]->type != LP_Y_SCALAR)
			lp_die_at(LP_EXIT_DATA, file, n->v[i]->line, 0,
			    "%s: expected a list of single values", path);
		check_word(n->v[i]->s, path, n->v[i]->line, file);
		(*items)[i] = n->v[i]->s;
	}
	return n->n;
}

void
lp_av_workload(struct lp_av *av, const struct lp_ynode *cfg,
    const char *extra_path, char **work, size_t nwork, const char *file)
{
	const char **items;
	size_t n, i;

	if (!nwork)
		lp_die(LP_EXIT_USAGE, "no workload: give its argv after --");
	if (work[0][0] == '-')
		lp_die(LP_EXIT_USAGE, "workload \"%s\" starts with '-': the "
		    "profiler would read it as an option", work[0]);
	n = lp_cfg_list(cfg, extra_path, &items, file);
	for (i = 0; i < n; i++)
		lp_av_push(av, items[i]);
	free(items);
	lp_av_push(av, "--");
	for (i = 0; i < nwork; i++)
		lp_av_push(av, work[i]);
}

/*
 * env.json as lp-env writes it: a mapping, not empty, gpus a list of
 * mappings of values, notes and imports lists of values.  Anything else
 * (an empty or cut file, an edited one) is refused, naming its line.
 */
void
lp_env_check(const struct lp_ynode *env, const char *file)
{
	static const char *const lists[] = { "notes", "imports", NULL };
	const struct lp_ynode *n;
	size_t i, j;

	if (env->type != LP_Y_MAP || !env->n)
		lp_die_at(LP_EXIT_DATA, file, env->line, 0, "not an env.json of "
		    "lp-env (%s)", env->type != LP_Y_MAP ? "not a mapping" :
		    "empty");
	for (i = 0; i < env->n; i++)
		if (env->v[i]->type == LP_Y_MAP)
			lp_die_at(LP_EXIT_DATA, file, env->v[i]->line, 0, "%s: "
			    "expected a value or a list, got a mapping",
			    env->keys[i]);
	lp_yaml_str(env, "created_utc", "");
	if ((n = lp_yaml_get(env, "gpus")) && n->type != LP_Y_SEQ &&
	    !(n->type == LP_Y_SCALAR && !n->quoted && !strcmp(n->s, "null")))
		lp_die_at(LP_EXIT_DATA, file, n->line, 0, "gpus: expected a list");
	for (i = 0; n && n->type == LP_Y_SEQ && i < n->n; i++) {
		const struct lp_ynode *g = n->v[i];

		if (g->type != LP_Y_MAP)
			lp_die_at(LP_EXIT_DATA, file, g->line, 0, "gpus: each "
			    "GPU is a mapping");
		for (j = 0; j < g->n; j++)
			if (g->v[j]->type != LP_Y_SCALAR)
				lp_die_at(LP_EXIT_DATA, file, g->v[j]->line, 0,
				    "gpus: %s: expected a value", g->keys[j]);
	}
	for (i = 0; lists[i]; i++)
		if ((n = lp_yaml_get(env, lists[i])) && n->type == LP_Y_SEQ)
			for (j = 0; j < n->n; j++)
				if (n->v[j]->type != LP_Y_SCALAR)
					lp_die_at(LP_EXIT_DATA, file,
					    n->v[j]->line, 0, "%s: expected a "
					    "list of values", lists[i]);
}
