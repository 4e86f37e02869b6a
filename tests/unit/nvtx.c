/* nvtx.c: one stage spelled for nsys capture, ncu include, nsys stats. */
#include "util.h"
#include "nsight.h"
#include "tap.h"

int
main(void)
{
	struct lp_sb b = { 0 };
	struct lp_stage named = { "decode_all", "LLM", "decode_all" };
	struct lp_stage torch = { "decode_all", "", "LLM@decode_all" };
	struct lp_stage plain = { "decode_all", "", "decode_all" };
	struct lp_stage slash = { "x", "", "a/b" };

	ok(lp_nvtx_nsys_capture(&b, &named) == 0, "named domain gates nsys");
	is_str(lp_sb_str(&b), "decode_all@LLM", "nsys order is range@domain");
	lp_sb_reset(&b);
	ok(lp_nvtx_nsys_capture(&b, &plain) == 0, "default domain");
	is_str(lp_sb_str(&b), "decode_all", "just the range");
	lp_sb_reset(&b);
	ok(lp_nvtx_nsys_capture(&b, &torch) == -1,
	    "nsys cannot gate on a name with '@'");
	lp_sb_reset(&b);
	ok(lp_nvtx_ncu_include(&b, &named) == 0, "ncu named");
	is_str(lp_sb_str(&b), "LLM@decode_all/", "ncu order is domain@range/");
	lp_sb_reset(&b);
	ok(lp_nvtx_ncu_include(&b, &torch) == 0, "ncu PyTorch style");
	is_str(lp_sb_str(&b), "LLM\\@decode_all/", "'@' escaped for ncu");
	lp_sb_reset(&b);
	ok(lp_nvtx_ncu_include(&b, &slash) == -1, "'/' refused for ncu");
	lp_sb_reset(&b);
	lp_nvtx_nsys_name(&b, &named);
	is_str(lp_sb_str(&b), "LLM:decode_all", "nsys stats name, named domain");
	lp_sb_reset(&b);
	lp_nvtx_nsys_name(&b, &torch);
	is_str(lp_sb_str(&b), ":LLM@decode_all", "nsys stats name, default domain");
	ok(lp_nvtx_range_match(":LLM@decode_all", "LLM@decode_all"),
	    "default domain with or without ':'");
	ok(lp_nvtx_range_match("LLM@decode_all", ":LLM@decode_all"), "either way");
	ok(!lp_nvtx_range_match("LLM:decode_all", "LLM:decode_step"), "differs");
	ok(!lp_nvtx_range_match("LLM:decode_all", ":LLM:decode_all"),
	    "a named domain is not the default one");
	lp_sb_free(&b);
	return tap_done();
}
