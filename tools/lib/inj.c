/*
 * inj.c: injected.tsv (lp-injected(1)), where a capture's CUDA work ran
 * against the process nsys launched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsight.h"
#include "table.h"
#include "util.h"

enum lp_inj
lp_injected(const char *path, long long *launched, char **cuda)
{
	struct lp_tsv t;
	FILE *fp = lp_tab_open(&t, path, "lp-injected");
	const char *l, *cu, *p;
	enum lp_inj k = LP_INJ_UNKNOWN;
	char *end;
	int in = 0, others = 0;

	lp_tab_expect(&t, "lp-injected");
	l = lp_tsv_comment(&t, "launched");
	cu = lp_tsv_comment(&t, "cuda");
	*cuda = NULL;
	if (l && cu && strncmp(cu, "n/a", 3)) {
		*launched = strtoll(l, &end, 10);
		if (end != l && !*end) {
			for (p = cu; *p; p = end + strspn(end, " ")) {
				long long v = strtoll(p, &end, 10);

				if (end == p)
					break;
				if (v == *launched)
					in = 1;
				else
					others = 1;
			}
			k = !in ? LP_INJ_ELSEWHERE : others ? LP_INJ_BESIDE :
			    LP_INJ_ALONE;
			*cuda = lp_xstrdup(cu);
		}
	}
	lp_tsv_close(&t);
	fclose(fp);
	return k;
}
