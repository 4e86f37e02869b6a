/* cfg.c: typed config reads; bad values are reported, not used. */
#include <stdlib.h>

#include "table.h"
#include "run.h"
#include "tap.h"

int
main(void)
{
	const char *text = "a:\n  mode: kernel\n  n: 3\n  word: regex:.*SOL.*\n"
	    "  list: [x, y]\n  empty: \"\"\n";
	FILE *m = fmemopen((void *)text, strlen(text), "r");
	struct lp_ynode *c = lp_yaml_load(m, "<mem>");
	static const char *const modes[] = { "kernel", "range", NULL };
	const char **items;

	fclose(m);
	is_str(lp_cfg_enum(c, "a.mode", "range", modes, "f"), "kernel", "enum");
	is_str(lp_cfg_enum(c, "a.none", "range", modes, "f"), "range",
	    "enum default");
	ok(lp_cfg_long(c, "a.n", 1, 0, 10, "f") == 3, "long");
	ok(lp_cfg_long(c, "a.none", 7, 0, 10, "f") == 7, "long default");
	is_str(lp_cfg_word(c, "a.word", "", "f"), "regex:.*SOL.*", "word");
	ok(lp_cfg_list(c, "a.list", &items, "f") == 2 && !strcmp(items[1], "y"),
	    "list");
	free(items);
	ok(lp_cfg_list(c, "a.none", &items, "f") == 0, "absent list is empty");
	ok(lp_cfg_list(c, "a.empty", &items, "f") == 0, "\"\" is an empty list");
	lp_yaml_free(c);
	return tap_done();
}
