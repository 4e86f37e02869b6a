/*
 * lp-confget: one value of a YAML file for a shell or a Makefile: a scalar,
 * the items of a list, or the keys of a mapping, one a line (or NUL-ended);
 * with -l, every key under it and its value, as SET= names and gives them.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"

static const char synopsis[] = "lp-confget [-0l] [-d default] key [file]";

/* The value at key of name's document (n; NULL if absent), one item a
 * line: the scalar, the items of a list, the keys of a mapping. */
static void
emit(const struct lp_ynode *n, const char *name, const char *key,
    const char *dflt, int end)
{
	size_t i;

	if (!n) {
		if (!dflt)
			lp_die(LP_EXIT_DATA, "%s: no key \"%s\"", name, key);
		fputs(dflt, stdout);
		putchar(end);
	} else if (n->type == LP_Y_SCALAR) {
		fputs(n->s, stdout);
		putchar(end);
	} else {
		for (i = 0; i < n->n; i++) {
			if (n->type == LP_Y_MAP)
				fputs(n->keys[i], stdout);
			else if (n->v[i]->type == LP_Y_SCALAR)
				fputs(n->v[i]->s, stdout);
			else
				lp_die(LP_EXIT_DATA, "%s: %s.%zu is not a scalar",
				    name, key, i);
			putchar(end);
		}
	}
}

/* -l: each scalar, or list of scalars, under n: its dotted path, a tab
 * and its value (a list's items joined by commas, as SET= takes one). */
static void
leaves(const struct lp_ynode *n, struct lp_sb *path, int end)
{
	size_t i, len = path->len;

	if (n->type == LP_Y_MAP) {
		for (i = 0; i < n->n; i++) {
			lp_sb_printf(path, "%s%s", len ? "." : "", n->keys[i]);
			leaves(n->v[i], path, end);
			path->len = len;
			path->s[len] = '\0';
		}
		return;
	}
	printf("%s\t", lp_sb_str(path));
	if (n->type == LP_Y_SCALAR)
		fputs(n->s, stdout);
	for (i = 0; n->type == LP_Y_SEQ && i < n->n; i++)
		printf("%s%s", i ? "," : "", n->v[i]->type == LP_Y_SCALAR ? n->v[i]->s : "...");
	putchar(end);
}

int
main(int argc, char **argv)
{
	struct lp_ynode *root;
	const char *dflt = NULL, *name;
	const struct lp_ynode *n;
	struct lp_sb path = { 0 };
	int c, end = '\n', list = 0;
	FILE *fp;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "0d:l", synopsis)) != -1) {
		switch (c) {
		case '0':
			end = '\0';
			break;
		case 'd':
			dflt = optarg;
			break;
		case 'l':
			list = 1;
			break;
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		lp_usage(synopsis);
	fp = lp_open_in(argc - optind == 2 ? argv[optind + 1] : NULL, &name);
	root = lp_yaml_load(fp, name);
	lp_close_in(fp);
	n = strcmp(argv[optind], ".") ? lp_yaml_get(root, argv[optind]) : root;
	if (list && n) {
		lp_sb_adds(&path, strcmp(argv[optind], ".") ? argv[optind] : "");
		leaves(n, &path, end);
		lp_sb_free(&path);
	} else
		emit(n, name, argv[optind], dflt, end);
	lp_yaml_free(root);
	lp_close_stdout();
	return 0;
}
