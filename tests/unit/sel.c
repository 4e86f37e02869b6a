/* sel.c: an ncu regex that selects exactly the named kernels. */
#include <regex.h>

#include "util.h"
#include "run.h"
#include "tap.h"

int
main(void)
{
	struct lp_sb b = { 0 };
	char *names[] = { "_Z7rmsnormPfii", "void k<(int)1>(float *, int)",
		"a.b$c|d^e[f]{g}+?\\h" };
	regex_t re;
	int i;

	lp_sel_regex(&b, names, 1);
	is_str(lp_sb_str(&b), "regex:^(_Z7rmsnormPfii)$", "one mangled name");
	lp_sb_reset(&b);
	lp_sel_regex(&b, names, 3);
	is_str(lp_sb_str(&b), "regex:^(_Z7rmsnormPfii|void k<\\(int\\)1>\\(float "
	    "\\*, int\\)|a\\.b\\$c\\|d\\^e\\[f\\]\\{g\\}\\+\\?\\\\h)$",
	    "metacharacters escaped");
	/* the same pattern in POSIX ERE matches each name and nothing more */
	ok(regcomp(&re, lp_sb_str(&b) + 6, REG_EXTENDED | REG_NOSUB) == 0,
	    "compiles as ERE");
	for (i = 0; i < 3; i++)
		ok(regexec(&re, names[i], 0, NULL, 0) == 0, "matches name %d", i);
	ok(regexec(&re, "_Z7rmsnormPfiix", 0, NULL, 0) != 0, "anchored at the end");
	ok(regexec(&re, "x_Z7rmsnormPfii", 0, NULL, 0) != 0, "anchored at the start");
	ok(regexec(&re, "a_b$c|d^e[f]{g}+?\\h", 0, NULL, 0) != 0, "dot is literal");
	regfree(&re);
	lp_sb_free(&b);
	return tap_done();
}
