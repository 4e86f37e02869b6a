/* ncu kernel selections that match exactly the kernels lp chose. */
#include <string.h>

#include "util.h"
#include "run.h"

/* Escapes the ECMAScript syntax characters (ncu's regex: flavour). */
void
lp_re_escape(struct lp_sb *b, const char *s)
{
	for (; *s; s++) {
		if (strchr("^$\\.*+?()[]{}|/", *s))
			lp_sb_addc(b, '\\');
		lp_sb_addc(b, *s);
	}
}

void
lp_sel_regex(struct lp_sb *b, char *const *names, size_t n)
{
	size_t i;

	lp_sb_adds(b, "regex:^(");
	for (i = 0; i < n; i++) {
		if (i)
			lp_sb_addc(b, '|');
		lp_re_escape(b, names[i]);
	}
	lp_sb_adds(b, ")$");
}
