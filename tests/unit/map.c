/* map.c: string keys, insertion order, growth. */
#include <stdio.h>

#include "util.h"
#include "tap.h"

int
main(void)
{
	struct lp_map *m = lp_map_new();
	char key[32];
	long i, bad = 0;

	lp_map_put(m, "a", 1);
	lp_map_put(m, "b", 2);
	lp_map_put(m, "a", 3);
	ok(lp_map_get(m, "a", -1) == 3 && lp_map_get(m, "b", -1) == 2,
	    "put replaces");
	ok(lp_map_get(m, "c", -1) == -1, "default for absent keys");
	ok(lp_map_len(m) == 2, "two keys");
	for (i = 0; i < 10000; i++) {
		snprintf(key, sizeof key, "k%ld", i);
		lp_map_put(m, key, i);
	}
	for (i = 0; i < 10000; i++) {
		snprintf(key, sizeof key, "k%ld", i);
		bad += lp_map_get(m, key, -1) != i;
	}
	ok(!bad, "10000 keys after growth");
	is_str(lp_map_key(m, 0), "a", "first inserted");
	is_str(lp_map_key(m, 2), "k0", "insertion order");
	ok(lp_map_key(m, 99999) == NULL, "past the end");
	lp_map_free(m);
	return tap_done();
}
