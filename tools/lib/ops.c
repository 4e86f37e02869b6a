/*
 * Operator classes (conf/operators.yaml): a kernel belongs to the first
 * class whose pattern matches its base name, or, for a wrapper such as
 * cutlass::device_kernel<...>, the base name of its first template
 * argument, or its operation (PyTorch's elementwise templates).  A class
 * marked "comm: true" is communication (NCCL): the
 * multi-process tables split kernel time on it and ncu leaves it out.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "run.h"

/* A class's true/false key (comm, floor), false when absent. */
static int
flag(const struct lp_ynode *entry, const char *key, const char *name,
    const char *path)
{
	const char *c = lp_yaml_str(entry, key, "false");

	if (strcmp(c, "true") && strcmp(c, "false"))
		lp_die_at(LP_EXIT_DATA, path, entry->line, 0,
		    "operators: %s: %s: expected true or false", name, key);
	return !strcmp(c, "true");
}

void
lp_ops_load(struct lp_ops *o, const char *path)
{
	const struct lp_ynode *list;
	size_t i;

	memset(o, 0, sizeof *o);
	o->conf = lp_yaml_load_path(path);
	list = lp_yaml_get(o->conf, "operators");
	o->wrappers = lp_yaml_get(o->conf, "wrappers");
	if (!list || list->type != LP_Y_SEQ)
		lp_die_at(LP_EXIT_DATA, path, o->conf->line, 0, "no "
		    "\"operators:\" list");
	if (o->wrappers && o->wrappers->type != LP_Y_SEQ)
		lp_die_at(LP_EXIT_DATA, path, o->wrappers->line, 0, "wrappers: "
		    "expected a list of names");
	for (i = 0; o->wrappers && i < o->wrappers->n; i++)
		if (o->wrappers->v[i]->type != LP_Y_SCALAR)
			lp_die_at(LP_EXIT_DATA, path, o->wrappers->v[i]->line, 0,
			    "wrappers: expected names");
	o->n = list->n;
	o->names = lp_xcalloc(o->n + 1, sizeof *o->names);
	o->re = lp_xcalloc(o->n + 1, sizeof *o->re);
	o->comm = lp_xcalloc(o->n + 1, sizeof *o->comm);
	o->floor = lp_xcalloc(o->n + 1, sizeof *o->floor);
	for (i = 0; i < o->n; i++) {
		const char *n = lp_yaml_str(list->v[i], "name", NULL);
		const char *m = lp_yaml_str(list->v[i], "match", NULL);
		int e;

		if (!n || !m)
			lp_die_at(LP_EXIT_DATA, path, list->v[i]->line, 0,
			    "operators: each entry needs name and match");
		o->names[i] = n;
		o->comm[i] = flag(list->v[i], "comm", n, path);
		o->floor[i] = flag(list->v[i], "floor", n, path);
		if ((e = regcomp(&o->re[i], m, REG_EXTENDED | REG_ICASE |
		    REG_NOSUB))) {
			char msg[256];

			regerror(e, &o->re[i], msg, sizeof msg);
			lp_die_at(LP_EXIT_DATA, path, list->v[i]->line, 0,
			    "operators: %s: bad pattern: %s", n, msg);
		}
		o->nre++;
	}
	o->names[o->n] = "Other";
	o->memo = lp_map_new();
}

/* The name a class pattern is matched against. */
static char *
base_for(const struct lp_ops *o, const char *kernel)
{
	char *b = lp_kname_base(kernel), *arg;
	size_t i;

	for (i = 0; o->wrappers && i < o->wrappers->n; i++)
		if (!strcmp(b, o->wrappers->v[i]->s) &&
		    (arg = lp_kname_targ(kernel))) {
			free(b);
			b = lp_kname_base(arg);
			free(arg);
			break;
		}
	return b;
}

/* A PyTorch elementwise template's base name says "elementwise", not
 * what it does: its operation (lp_kname_op: "direct_copy", "bfloat16_copy",
 * "silu") is matched too, so a copy or a cast is not an activation. */
static size_t
classify(const struct lp_ops *o, const char *kernel)
{
	char *b = base_for(o, kernel), *op = lp_kname_op(kernel);
	size_t j;

	for (j = 0; j < o->n; j++)
		if (!regexec(&o->re[j], b, 0, NULL, 0) ||
		    (op && !regexec(&o->re[j], op, 0, NULL, 0)))
			break;
	free(b);
	free(op);
	return j;
}

/* A trace names a few hundred kernels in millions of launches: each
 * name's class is found once (memo: name to class). */
size_t
lp_ops_class(const struct lp_ops *o, const char *kernel)
{
	long c = lp_map_get(o->memo, kernel, -1);

	if (c < 0) {
		c = (long)classify(o, kernel);
		lp_map_put(o->memo, kernel, c);
	}
	return (size_t)c;
}

int
lp_ops_is_comm(const struct lp_ops *o, const char *kernel)
{
	return o->comm[lp_ops_class(o, kernel)];
}

void
lp_ops_free(struct lp_ops *o)
{
	size_t i;

	for (i = 0; i < o->nre; i++)
		regfree(&o->re[i]);
	free(o->re);
	free(o->names);
	free(o->comm);
	free(o->floor);
	lp_map_free(o->memo);
	lp_yaml_free(o->conf);
	memset(o, 0, sizeof *o);
}

int
lp_ops_is_floor(const struct lp_ops *o, const char *class_name)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (!strcmp(o->names[i], class_name))
			return o->floor[i];
	return 0;
}

int
lp_ops_class_comm(const struct lp_ops *o, const char *class_name)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (!strcmp(o->names[i], class_name))
			return o->comm[i];
	return 0;
}
