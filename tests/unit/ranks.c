/* ranks.c: lp_ranks_untraced splits the untraced step's rest between
 * collectives and GPU idle without a negative part: (rest * comm) / comm
 * rounds one ulp above rest for some values, which left idle at -5e-10 ns
 * and a share lp-brief refuses ("pct: negative"). */
#include <stdlib.h>

#include "util.h"
#include "run.h"
#include "tap.h"

int
main(void)
{
	/* no idle in the capture: the rest is all communication */
	struct lp_rank r = { .compute = 1347506.0417503957,
		.comm = 215875.56295382284, .idle = 0 };
	struct lp_rank s = { .compute = 1e6, .comm = 3e5, .idle = 1e5 };
	double step = 4650074.310803562;

	lp_ranks_untraced(&r, 1, step);
	ok(r.idle == 0, "idle 0, not a rounding residue below it");
	ok(r.comm >= 0 && r.compute + r.comm <= step * (1 + 1e-15),
	    "communication the rest of the step");
	lp_ranks_untraced(&s, 1, 2e6);
	ok(s.comm == 7.5e5 && s.idle == 2.5e5,
	    "the rest split as the capture split it (3:1)");
	return tap_done();
}
