/* yml.c: load, merge, get, set and emit YAML. */
#include <stdlib.h>

#include "table.h"
#include "tap.h"

static struct lp_ynode *
load(const char *text)
{
	FILE *m = fmemopen((void *)text, strlen(text), "r");
	struct lp_ynode *n = lp_yaml_load(m, "<mem>");

	fclose(m);
	return n;
}

static void
load_v(const void *text)
{
	lp_yaml_free(load(text));
}

static char *
emit(const struct lp_ynode *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	lp_yaml_emit(m, n, "a comment\nsecond line");
	fclose(m);
	return buf;
}

int
main(void)
{
	struct lp_ynode *a = load("run:\n  mode: deep\n  top: 10\nlist: [x, y]\n"
	    "env:\n  K: \"0\"\n");
	struct lp_ynode *b = load("run:\n  top: 5\n  extra: yes\nlist: [z]\nnew: 1\n");
	struct lp_ynode *c;
	char *out;

	ok(a->type == LP_Y_MAP && a->n == 3, "a map of three keys");
	is_str(lp_yaml_str(a, "run.mode", NULL), "deep", "nested get");
	ok(lp_yaml_get(a, "run.none") == NULL, "absent key");
	is_str(lp_yaml_str(a, "list.1", NULL), "y", "list index");
	ok(lp_yaml_get(a, "list.2") == NULL, "index past the end");
	ok(lp_yaml_get(a, "env.K")->quoted, "quoted scalar remembered");
	ok(lp_yaml_get(a, "run.mode")->line == 2, "line numbers kept");
	lp_yaml_merge(a, b);
	is_str(lp_yaml_str(a, "run.top", NULL), "5", "later file wins");
	is_str(lp_yaml_str(a, "run.mode", NULL), "deep", "maps merge key by key");
	is_str(lp_yaml_str(a, "run.extra", NULL), "yes", "new nested key added");
	ok(lp_yaml_get(a, "list")->n == 1, "lists are replaced, not appended");
	is_str(lp_yaml_str(a, "new", NULL), "1", "new top-level key");
	ok(lp_yaml_set(a, "run.mode", "light") == 0 &&
	    !strcmp(lp_yaml_str(a, "run.mode", ""), "light"), "set a scalar");
	ok(lp_yaml_set(a, "run.nosuch", "1") == -1, "set refuses a new key");
	ok(lp_yaml_set(a, "run", "1") == -4, "set refuses a whole mapping");
	ok(lp_yaml_set(a, "new", "many") == -2 &&
	    !strcmp(lp_yaml_str(a, "new", ""), "1"), "a number stays a number");
	ok(lp_yaml_set(a, "new", "2.5e3") == 0, "a number for a number");
	ok(lp_yaml_set(a, "list", "p,q") == 0 && lp_yaml_get(a, "list")->n == 2 &&
	    !strcmp(lp_yaml_str(a, "list.1", ""), "q"), "set a list from a,b");
	ok(lp_yaml_set(a, "list", "") == 0 && lp_yaml_get(a, "list")->n == 0,
	    "set the empty list");
	out = emit(a);
	ok(!strncmp(out, "# a comment\n# second line\n", 26), "comment lines first");
	ok(strstr(out, "K: \"0\"") != NULL, "quoted scalar stays quoted");
	ok(strstr(out, "list: []") != NULL, "empty list in flow style");
	c = load(out + 26);
	is_str(lp_yaml_str(c, "run.mode", NULL), "light", "emit then load");
	is_str(lp_yaml_str(c, "env.K", NULL), "0", "quoted value survives");
	free(out);
	lp_yaml_free(a);
	lp_yaml_free(c);
	/* every YAML lp reads is a mapping: an empty one would read as a map
	 * without keys, and the error would blame a missing key */
	ok(tap_exit(load_v, "") == 1, "an empty file is refused");
	ok(tap_exit(load_v, "\xef\xbb\xbf") == 1, "a BOM alone is refused");
	ok(tap_exit(load_v, "# only a comment\n\n") == 1,
	    "comments alone are refused");
	ok(tap_exit(load_v, "- a\n") == 1, "a list is refused");
	ok(tap_exit(load_v, "a: 1\n") == 0, "a mapping is read");
	c = load("{\"a\": [\"x\", null], \"b\": {\"c\": \"d\"}}");
	is_str(lp_yaml_str(c, "b.c", NULL), "d", "JSON reads as YAML");
	is_str(lp_yaml_str(c, "a.1", NULL), "null", "null is a plain scalar");
	ok(!lp_yaml_get(c, "a.1")->quoted, "and not quoted");
	lp_yaml_free(c);
	return tap_done();
}
