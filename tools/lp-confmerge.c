/*
 * lp-confmerge: the run's resolved config from YAML presets (later files
 * override earlier ones, mappings merge key by key) and KEY=VALUE overrides
 * that may only change keys the presets already have.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"

static const char synopsis[] =
    "lp-confmerge [-S overrides] [-s key=value]... file...";

/*
 * The value of KEY=VALUE: as written, or, written in double quotes (the
 * way SET= gives a value with blanks), what is inside them, \" and \\
 * standing for a quote and a backslash.  A quote anywhere else is refused:
 * it would be kept as text, not the quoting the user meant.  The caller
 * frees the result.
 */
static char *
unquote(const char *v, const char *where, const char *key)
{
	struct lp_sb b = { 0 };
	size_t n = strlen(v), i;

	if (*v != '"') {
		if (strchr(v, '"'))
			lp_die(LP_EXIT_USAGE, "%s: %s: a value with a quote is "
			    "quoted whole: %s=\"a \\\"b\\\" c\"", where, key, key);
		return lp_xstrdup(v);
	}
	for (i = 1; i < n; i++) {
		if (v[i] == '\\' && (v[i + 1] == '"' || v[i + 1] == '\\'))
			i++;
		else if (v[i] == '"')
			break;
		lp_sb_addc(&b, v[i]);
	}
	if (i != n - 1) {
		lp_sb_free(&b);
		lp_die(LP_EXIT_USAGE, "%s: %s: %s", where, key, i >= n ?
		    "the quote of the value is not closed" : "text after "
		    "the closing quote (a quote inside is written \\\")");
	}
	return lp_sb_steal(&b);
}

static void
apply(struct lp_ynode *root, const char *kv, const char *where)
{
	const char *eq = strchr(kv, '=');
	char *key, *val;

	if (!eq || eq == kv)
		lp_die(LP_EXIT_USAGE, "%s: expected KEY=VALUE, got \"%s\"", where,
		    kv);
	key = lp_xstrndup(kv, (size_t)(eq - kv));
	val = unquote(eq + 1, where, key);
	switch (lp_yaml_set(root, key, val)) {
	case 0:
		break;
	case -1:
		lp_die(LP_EXIT_USAGE, "%s: no setting \"%s\" in the presets "
		    "(misspelt?)", where, key);
	case -2:
		lp_die(LP_EXIT_USAGE, "%s: %s: expected a number, as the presets "
		    "have, got \"%s\"", where, key, val);
	case -3:
		lp_die(LP_EXIT_USAGE, "%s: %s: expected true or false, as the "
		    "presets have, got \"%s\"", where, key, val);
	case -5:
		lp_die(LP_EXIT_USAGE, "%s: %s: a value is plain text, not YAML; "
		    "a list is given as a,b,c", where, key);
	case -6:
		lp_die(LP_EXIT_USAGE, "%s: %s: expected a whole number, as the "
		    "presets have, got \"%s\"", where, key, val);
	case -7:
		lp_die(LP_EXIT_USAGE, "%s: %s: expected a number from 0%s, as the "
		    "presets have, got \"%s\"", where, key, !strcmp(strrchr(key,
		    '.') ? strrchr(key, '.') + 1 : key, "device") ? " (or -1, "
		    "every device)" : "", val);
	default:
		lp_die(LP_EXIT_USAGE, "%s: %s is a section, not a setting: set "
		    "its keys (%s.KEY=VALUE)", where, key, key);
	}
	free(val);
	free(key);
}

/* The config being resolved, the options that change it, and the note
 * saying where it came from. */
struct merge {
	struct lp_ynode *root;
	struct lp_sb note;
	char **sets;	/* -s KEY=VALUE, in order */
	size_t nsets;
	const char *sfile;	/* -S: KEY=VALUE lines; NULL if none */
};

static void
merge_free(struct merge *m)
{
	lp_yaml_free(m->root);
	free(m->sets);
	lp_sb_free(&m->note);
}

/* A stage's name heads rows of every table and starts the reports'
 * sentences ("decode_all keeps the GPU busy ..."): letters, digits, '_',
 * '-' and '.', so that it is read as the word it is, never as Markdown
 * ("# x" a heading, "`x`" code) nor as another row's (":steady"). */
static void
check_names(struct merge *m, struct lp_ynode *y, const char *file)
{
	const struct lp_ynode *stages = lp_yaml_get(y, "stages");
	size_t i;

	for (i = 0; stages && stages->type == LP_Y_MAP && i < stages->n; i++) {
		const char *k = stages->keys[i];
		long line = stages->v[i]->line;

		if (*k && strspn(k, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == strlen(k))
			continue;
		k = lp_xstrdup(k);	/* the message outlives the presets */
		lp_yaml_free(y);
		lp_yaml_free(m->root);
		lp_die_at(LP_EXIT_DATA, file, line, 0, "stage \"%s\": a "
		    "stage's name is letters, digits, '_', '-' and '.' (it "
		    "names the tables' rows and starts the reports' "
		    "sentences); its NVTX range may be anything (range: under "
		    "it)", k);
	}
}

/* Loads each preset, later ones merged over earlier ones. */
static void
load_presets(struct merge *m, char *const *files, size_t n)
{
	size_t i;

	lp_sb_adds(&m->note, "Resolved by lp-confmerge from:");
	for (i = 0; i < n; i++) {
		struct lp_ynode *y = lp_yaml_load_path(files[i]);

		if (y->type != LP_Y_MAP || !y->n) {
			long line = y->line;
			int empty = y->type == LP_Y_MAP;

			lp_yaml_free(y);
			lp_yaml_free(m->root);
			lp_die_at(LP_EXIT_DATA, files[i], line, 0, empty ? "an "
			    "empty preset (a cut or blank file?)" : "a preset "
			    "must be a YAML mapping");
		}
		check_names(m, y, files[i]);
		if (m->root)
			lp_yaml_merge(m->root, y);
		else
			m->root = y;
		lp_sb_printf(&m->note, " %s", files[i]);
	}
}

/* Applies the KEY=VALUE lines of the -S file (blank lines and # comments
 * skipped), each error located at its line. */
static void
apply_file(struct merge *m)
{
	FILE *fp = fopen(m->sfile, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;

	if (!fp)
		lp_die_sys("%s", m->sfile);
	while ((len = getline(&line, &cap, fp)) != -1) {
		struct lp_sb w = { 0 };

		lineno++;
		if (memchr(line, '\0', (size_t)len) || len > LP_LINE_MAX)
			lp_die_at(LP_EXIT_DATA, m->sfile, lineno, 0, "%s",
			    len > LP_LINE_MAX ? "a line beyond 1 MiB" :
			    "binary data (NUL byte)");
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!*line || *line == '#')
			continue;
		lp_sb_printf(&w, "%s:%ld", m->sfile, lineno);
		apply(m->root, line, lp_sb_str(&w));
		lp_sb_printf(&m->note, "%s %s", lineno == 1 ?
		    "\noverrides:" : "", line);
		lp_sb_free(&w);
	}
	free(line);
	fclose(fp);
}

static void
apply_sets(struct merge *m)
{
	size_t i;

	for (i = 0; i < m->nsets; i++) {
		apply(m->root, m->sets[i], "-s");
		lp_sb_printf(&m->note, "\n-s %s", m->sets[i]);
	}
}

/* The stage the run profiles must be one of the stages. */
static void
check_stage(struct merge *m)
{
	const char *st = lp_yaml_str(m->root, "run.stage", NULL);
	const struct lp_ynode *stages = lp_yaml_get(m->root, "stages");
	struct lp_sb b = { 0 };
	size_t i;

	if (!st || !*st || !stages || stages->type != LP_Y_MAP ||
	    lp_yaml_get(stages, st))
		return;
	lp_sb_printf(&b, "run.stage: no stage \"%s\" (stages:", st);
	for (i = 0; i < stages->n; i++)
		lp_sb_printf(&b, "%s %s", i ? "," : "", stages->keys[i]);
	merge_free(m);
	lp_die(LP_EXIT_USAGE, "%s)", lp_sb_str(&b));
}

int
main(int argc, char **argv)
{
	struct merge m = { 0 };
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "S:s:", synopsis)) != -1) {
		switch (c) {
		case 'S':
			m.sfile = optarg;
			break;
		case 's':
			m.sets = lp_xreallocarray(m.sets, m.nsets + 1,
			    sizeof *m.sets);
			m.sets[m.nsets++] = optarg;
			break;
		}
	}
	if (optind == argc)
		lp_usage(synopsis);
	load_presets(&m, argv + optind, (size_t)(argc - optind));
	if (m.sfile)
		apply_file(&m);
	apply_sets(&m);
	check_stage(&m);
	lp_yaml_emit(stdout, m.root, lp_sb_str(&m.note));
	merge_free(&m);
	lp_close_stdout();
	return 0;
}
