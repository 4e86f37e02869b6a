/* lp-summary's helpers, for the main and its parts alike. */
#include <string.h>

#include "esc.h"
#include "summary.h"

void
sum_file(struct lp_sb *b, const char *path)
{
	const char *s = strrchr(path, '/');

	lp_md_code(b, s ? s + 1 : path, 0);
}
