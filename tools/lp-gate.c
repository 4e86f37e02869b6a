/*
 * lp-gate: make check-regression, the CI gate of two runs.  Runs the
 * gates it is given, each a command after a "--" (lp-stagediff -r, then
 * lp-diff -r, then with -c lp-realized), their tables thrown away and
 * their words on standard error, and says what they found as one exit
 * code: 0 no regression, 3 regressed, else it cannot compare (the first
 * gate's error).  The stages' gate comes first: the kernels' runs where
 * it passed or found a regression, and a kernel's data error (1, 2)
 * outweighs a regression found; the claimed advice's gate then where
 * both found something to judge.  Writes "CODE<TAB>WORD<TAB>BASE" to -o
 * for lp-brief's record of the gate.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static const char synopsis[] =
    "lp-gate -R run -B base -t pct [-c claim -m pct] -o gate.rc "
    "-- stage-gate ... -- kernel-gate ... [-- advice-gate ...]";

struct gate {
	const char *run, *base, *pct, *claim, *realized, *out;
};

/* A gate's command run, its stdout thrown away; its exit code. */
static int
run(char **argv)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC), rc;

	if (fd == -1)
		lp_die_sys("/dev/null");
	rc = lp_reap(lp_spawn(argv, NULL, fd, 2));
	close(fd);
	return rc;
}

static int
judged(int rc)
{
	return rc == 0 || rc == LP_EXIT_REGRESSED;
}

/* The gates' codes as one. */
static int
verdict(const struct gate *g, char ***cmd, size_t ncmd)
{
	int rc = run(cmd[0]), r;

	if (judged(rc) && (r = run(cmd[1])) &&
	    !(rc == LP_EXIT_REGRESSED && r != 1 && r != 2))
		rc = r;
	if (ncmd > 2 && judged(rc) && (r = run(cmd[2]))) {
		if (r == LP_EXIT_REGRESSED)
			fprintf(stderr, "lp: run %s's %s advice realized under "
			    "%s %% of its prediction in run %s\n", g->base,
			    g->claim, g->realized, g->run);
		rc = r;
	}
	return rc;
}

static void
say(const struct gate *g, int rc)
{
	const char *w = rc == 0 ? "passed" : rc == LP_EXIT_REGRESSED ? "regressed" :
	    "cannot compare";
	struct lp_sb b = { 0 };

	if (rc == LP_EXIT_REGRESSED)
		fprintf(stderr, "lp: run %s regressed against run %s "
		    "(REGRESSION=%s %%)\n", g->run, g->base, g->pct);
	else if (rc == 0)
		printf("lp: run %s against run %s: no regression beyond %s %%\n",
		    g->run, g->base, g->pct);
	else
		fprintf(stderr, "lp: run %s against run %s: cannot compare "
		    "(above); the gate did not pass\n", g->run, g->base);
	lp_sb_printf(&b, "%d\t%s\t%s\n", rc, w, g->base);
	lp_file_put(g->out, b.s);
	lp_sb_free(&b);
}

/* The commands after each "--", each ended by NULL in argv itself. */
static size_t
split(char **argv, int argc, char ***cmd)
{
	size_t n = 0;
	int i;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		argv[i] = NULL;
		if (n == 3 || i + 1 == argc || !strcmp(argv[i + 1], "--"))
			lp_usage(synopsis);
		cmd[n++] = argv + i + 1;
	}
	return n;
}

int
main(int argc, char **argv)
{
	struct gate g = { 0 };
	char **cmd[3];
	size_t ncmd;
	int c, rc;

	lp_start(argc, argv, synopsis);
	while ((c = lp_getopt(argc, argv, "+B:c:m:o:R:t:", synopsis)) != -1) {
		switch (c) {
		case 'B': g.base = optarg; break;
		case 'c': g.claim = optarg; break;
		case 'm': g.realized = optarg; break;
		case 'o': g.out = optarg; break;
		case 'R': g.run = optarg; break;
		case 't': g.pct = optarg; break;
		}
	}
	/* getopt took the first "--": it begins the first command */
	if (optind < 1 || strcmp(argv[optind - 1], "--"))
		lp_usage(synopsis);
	optind--;
	ncmd = split(argv + optind, argc - optind, cmd);
	if (!g.run || !g.base || !g.pct || !g.out || ncmd < 2 ||
	    ncmd != 2u + !!g.claim || (g.claim && !g.realized))
		lp_usage(synopsis);
	rc = verdict(&g, cmd, ncmd);
	say(&g, rc);
	lp_close_stdout();
	return rc;
}
