/*
 * lp-inputs: inputs.yaml, what a run profiles: the workload's argv (from
 * the WORK string, split like sh words but with nothing expanded), or the
 * exports it imports, and the model's identity from conf/model/NAME.yaml.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "table.h"
#include "run.h"

static const char synopsis[] =
    "lp-inputs [-i importfile] [-m model.yaml] [-w workfile]";

/* The first line of a recorded make variable; NULL if empty. */
static char *
slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!fp)
		lp_die_sys("%s", path);
	n = getline(&line, &cap, fp);
	if (ferror(fp))
		lp_die_sys("%s", path);
	fclose(fp);
	if (n <= 0) {
		free(line);
		return NULL;
	}
	if (memchr(line, '\0', (size_t)n))
		lp_die_at(LP_EXIT_DATA, path, 1, 0, "binary data (NUL byte)");
	if (n > LP_LINE_MAX)
		lp_die_at(LP_EXIT_DATA, path, 1, 0, "a line beyond 1 MiB: not a "
		    "command line");
	if (line[n - 1] == '\n')
		line[n - 1] = '\0';
	if (!*line) {
		free(line);
		return NULL;
	}
	return line;
}

static struct lp_ynode *
words(const char *path, const char *what, size_t *count)
{
	struct lp_ynode *seq = lp_yaml_seq();
	char *s = slurp(path), **argv;
	const char *err;
	size_t argc, i;

	*count = 0;
	if (!s)
		return seq;
	if (lp_sh_split(s, &argv, &argc, &err))
		lp_die_at(LP_EXIT_DATA, path, 1, 0, "%s: %s", what, err);
	for (i = 0; i < argc; i++)
		lp_yaml_push(seq, lp_yaml_scalar(argv[i], 1));
	*count = argc;
	lp_argv_free(argv, argc);
	free(s);
	return seq;
}

/* workload: WORK's words (*nw of them) and the file they were recorded in. */
static struct lp_ynode *
workload(const char *wfile, size_t *nw)
{
	struct lp_ynode *w = lp_yaml_map();

	lp_yaml_put(w, "argv", words(wfile, "WORK", nw));
	lp_yaml_put(w, "recorded_in", lp_yaml_scalar(wfile, 0));
	return w;
}

/* model: the scalars of the model config's "model:" mapping, and the
 * config's path. */
static struct lp_ynode *
model(const char *mfile)
{
	struct lp_ynode *doc = lp_yaml_load_path(mfile), *m;
	const struct lp_ynode *mm = lp_yaml_get(doc, "model");
	struct lp_model chk;
	size_t i;

	if (!mm || mm->type != LP_Y_MAP)
		lp_die_at(LP_EXIT_DATA, mfile, doc->line, 0, "no \"model:\" "
		    "mapping");
	/* the model's numbers are checked here, where they are
	 * written, not later in the tool that reads them */
	lp_model_get(&chk, doc, mfile);
	lp_model_free(&chk);
	m = lp_yaml_map();
	lp_yaml_put(m, "config", lp_yaml_scalar(mfile, 0));
	for (i = 0; i < mm->n; i++)
		if (mm->v[i]->type == LP_Y_SCALAR)
			lp_yaml_put(m, mm->keys[i], lp_yaml_scalar(
			    mm->v[i]->s, mm->v[i]->quoted));
	lp_yaml_free(doc);
	return m;
}

int
main(int argc, char **argv)
{
	const char *ifile = NULL, *mfile = NULL, *wfile = NULL;
	struct lp_ynode *root;
	size_t nw = 0, ni = 0;
	int c;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "i:m:w:", synopsis)) != -1) {
		switch (c) {
		case 'i': ifile = optarg; break;
		case 'm': mfile = optarg; break;
		case 'w': wfile = optarg; break;
		}
	}
	if (optind != argc)
		lp_usage(synopsis);
	root = lp_yaml_map();
	if (wfile)
		lp_yaml_put(root, "workload", workload(wfile, &nw));
	if (ifile)
		lp_yaml_put(root, "imports", words(ifile, "IMPORT", &ni));
	if (!nw && !ni)
		lp_die(LP_EXIT_USAGE, "nothing to profile: give the workload as "
		    "WORK='cmd args' or exports as IMPORT='files'");
	if (nw && ni)
		lp_die(LP_EXIT_USAGE, "a run either profiles WORK or imports "
		    "IMPORT, not both");
	if (mfile)
		lp_yaml_put(root, "model", model(mfile));
	lp_yaml_emit(stdout, root, "What this run profiles (lp-inputs).");
	lp_yaml_free(root);
	lp_close_stdout();
	return 0;
}
