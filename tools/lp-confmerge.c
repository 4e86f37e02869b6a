/*
 * lp-confmerge: the run's resolved config from YAML presets (later files
 * override earlier ones, mappings merge key by key) and KEY=VALUE overrides
 * that may only change keys the presets already have.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lp.h"

static const char synopsis[] =
    "lp-confmerge [-S overrides] [-s key=value]... file...";

static void
apply(struct lp_ynode *root, const char *kv, const char *where)
{
	const char *eq = strchr(kv, '=');
	char *key;

	if (!eq || eq == kv)
		lp_die(LP_EXIT_USAGE, "%s: expected KEY=VALUE, got \"%s\"", where,
		    kv);
	key = lp_xstrndup(kv, (size_t)(eq - kv));
	switch (lp_yaml_set(root, key, eq + 1)) {
	case 0:
		break;
	case -1:
		lp_die(LP_EXIT_USAGE, "%s: no setting \"%s\" in the presets "
		    "(misspelt?)", where, key);
	case -2:
		lp_die(LP_EXIT_USAGE, "%s: %s: expected a number, as the presets "
		    "have, got \"%s\"", where, key, eq + 1);
	case -3:
		lp_die(LP_EXIT_USAGE, "%s: %s: expected true or false, as the "
		    "presets have, got \"%s\"", where, key, eq + 1);
	case -5:
		lp_die(LP_EXIT_USAGE, "%s: %s: a value is plain text, not YAML; "
		    "a list is given as a,b,c", where, key);
	case -6:
		lp_die(LP_EXIT_USAGE, "%s: %s: expected a whole number, as the "
		    "presets have, got \"%s\"", where, key, eq + 1);
	case -7:
		lp_die(LP_EXIT_USAGE, "%s: %s: expected a number from 0%s, as the "
		    "presets have, got \"%s\"", where, key, !strcmp(strrchr(key,
		    '.') ? strrchr(key, '.') + 1 : key, "device") ? " (or -1, "
		    "every device)" : "", eq + 1);
	default:
		lp_die(LP_EXIT_USAGE, "%s: %s is a section, not a setting: set "
		    "its keys (%s.KEY=VALUE)", where, key, key);
	}
	free(key);
}

int
main(int argc, char **argv)
{
	struct lp_ynode *root = NULL;
	struct lp_sb note = { 0 };
	char **sets = NULL;
	const char *sfile = NULL;
	size_t nsets = 0, i;
	int c;

	lp_init(argv[0]);
	while ((c = getopt(argc, argv, "hS:s:")) != -1) {
		switch (c) {
		case 'h':
			printf("usage: %s\n", synopsis);
			return 0;
		case 'S':
			sfile = optarg;
			break;
		case 's':
			sets = lp_xreallocarray(sets, nsets + 1, sizeof *sets);
			sets[nsets++] = optarg;
			break;
		default:
			lp_usage(synopsis);
		}
	}
	if (optind == argc)
		lp_usage(synopsis);
	lp_sb_adds(&note, "Resolved by lp-confmerge from:");
	for (i = (size_t)optind; i < (size_t)argc; i++) {
		struct lp_ynode *n = lp_yaml_load_path(argv[i]);

		if (n->type != LP_Y_MAP || !n->n) {
			long line = n->line;
			int empty = n->type == LP_Y_MAP;

			lp_yaml_free(n);
			lp_yaml_free(root);
			lp_die_at(LP_EXIT_DATA, argv[i], line, 0, empty ? "an empty "
			    "preset (a cut or blank file?)" : "a preset must be a "
			    "YAML mapping");
		}
		if (root)
			lp_yaml_merge(root, n);
		else
			root = n;
		lp_sb_printf(&note, " %s", argv[i]);
	}
	if (sfile) {
		FILE *fp = fopen(sfile, "r");
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		long lineno = 0;

		if (!fp)
			lp_die_sys("%s", sfile);
		while ((len = getline(&line, &cap, fp)) != -1) {
			struct lp_sb w = { 0 };

			lineno++;
			if (memchr(line, '\0', (size_t)len) || len > LP_LINE_MAX)
				lp_die_at(LP_EXIT_DATA, sfile, lineno, 0, "%s",
				    len > LP_LINE_MAX ? "a line beyond 1 MiB" :
				    "binary data (NUL byte)");
			if (len && line[len - 1] == '\n')
				line[--len] = '\0';
			if (!*line || *line == '#')
				continue;
			lp_sb_printf(&w, "%s:%ld", sfile, lineno);
			apply(root, line, lp_sb_str(&w));
			lp_sb_printf(&note, "%s %s", lineno == 1 ?
			    "\noverrides:" : "", line);
			lp_sb_free(&w);
		}
		free(line);
		fclose(fp);
	}
	for (i = 0; i < nsets; i++) {
		apply(root, sets[i], "-s");
		lp_sb_printf(&note, "\n-s %s", sets[i]);
	}
	/* the stage the run profiles must be one of the stages */
	{
		const char *st = lp_yaml_str(root, "run.stage", NULL);
		const struct lp_ynode *stages = lp_yaml_get(root, "stages");

		if (st && *st && stages && stages->type == LP_Y_MAP &&
		    !lp_yaml_get(stages, st)) {
			struct lp_sb b = { 0 };

			lp_sb_printf(&b, "run.stage: no stage \"%s\" (stages:", st);
			for (i = 0; i < stages->n; i++)
				lp_sb_printf(&b, "%s %s", i ? "," : "",
				    stages->keys[i]);
			lp_yaml_free(root);
			free(sets);
			lp_sb_free(&note);
			lp_die(LP_EXIT_USAGE, "%s)", lp_sb_str(&b));
		}
	}
	lp_yaml_emit(stdout, root, lp_sb_str(&note));
	lp_yaml_free(root);
	free(sets);
	lp_sb_free(&note);
	lp_close_stdout();
	return 0;
}
