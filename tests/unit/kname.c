/* kname.c: one key for nsys's and ncu's spelling of a kernel. */
#include <stdlib.h>

#include "lp.h"
#include "tap.h"

static int
same(const char *a, const char *b)
{
	char *x = lp_kname_key(a), *y = lp_kname_key(b);
	int r = !strcmp(x, y);

	if (!r)
		printf("#   %s\n#   %s\n", x, y);
	free(x);
	free(y);
	return r;
}

int
main(void)
{
	struct lp_sb b = { 0 };
	char *k;

	/* real pairs: nsys cuda_gpu_kern_sum vs ncu --page raw, same H200 */
	ok(same("std::enable_if<!T7, void>::type internal::gemvx::kernel<int, "
	    "int, float, float, float, float, (bool)0, (bool)1, (bool)0, (bool)0, "
	    "(int)9, (bool)0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched"
	    "<const float>, cublasGemvTensorStridedBatched<const float>, "
	    "cublasGemvTensorStridedBatched<float>, float>>(T13)",
	    "std::enable_if<!T7, void>::type internal::kernel<int, int, float, "
	    "float, float, float, 0, 1, 0, 0, 9, 0, cublasGemvParamsEx<int, "
	    "cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStrided"
	    "Batched<const float>, cublasGemvTensorStridedBatched<float>, float>>"
	    "(T13)"), "gemvx: casts and a namespace dropped");
	ok(same("void cublasLt::splitKreduce_kernel<(int)32, (int)16, int>(int)",
	    "void cublasLt::splitKreduce_kernel<32, 16, int>(int)"), "splitK");
	ok(same("at::native::<unnamed>::f<(long)-1>(int)",
	    "at::native::(anonymous namespace)::f<-1>(int)"),
	    "anonymous namespaces, negative literal");
	ok(!same("(anonymous) f(int)", "f(long)"), "different kernels differ");
	k = lp_kname_key("  void  a::b<(unsigned long)3>( int )  ");
	is_str(k, "b<3>( int )", "spaces folded, leading void dropped");
	free(k);
	k = lp_kname_key("foo(T1::Params)");
	is_str(k, "foo(Params)", "qualifier dropped everywhere");
	free(k);

	/* a code span for a list, not a table: '|' as it is, a backtick
	 * fenced by two */
	lp_kname_md(&b, "a|b", 80);
	is_str(lp_sb_str(&b), "`a|b`", "a code span, pipe as it is");
	lp_sb_reset(&b);
	lp_kname_md(&b, "a`b", 80);
	is_str(lp_sb_str(&b), "``a`b``", "a backtick fenced by two");
	lp_sb_reset(&b);
	lp_kname_md(&b, "void ns::k<int, float, (bool)1>(int *, float)", 20);
	is_str(lp_sb_str(&b), "`void ns::k<...>(...)`", "templates then args folded");
	lp_sb_reset(&b);
	lp_kname_md(&b, "short(int)", 20);
	is_str(lp_sb_str(&b), "`short(int)`", "short names untouched");
	lp_sb_reset(&b);
	lp_kname_md(&b, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 10);
	is_str(lp_sb_str(&b), "`aaaaaaa...`", "cut with an ellipsis");
	lp_sb_free(&b);
	return tap_done();
}
