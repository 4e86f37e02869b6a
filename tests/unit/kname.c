/* kname.c: one key for nsys's and ncu's spelling of a kernel. */
#include <stdlib.h>

#include "util.h"
#include "table.h"
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

	/* the operation of PyTorch's elementwise, reduce and copy templates,
	 * names from the real captures (tests/fixtures/h100-aten, h200-*) */
	{
		static const char *const cases[][2] = {
			{ "void at::native::vectorized_elementwise_kernel<(int)8, "
			  "at::native::AUnaryFunctor<c10::Half, c10::Half, c10::Half, "
			  "at::native::binary_internal::MulFunctor<float>>, std::array<"
			  "char *, (unsigned long)2>>(int, T2, T3)", "MulFunctor" },
			{ "void at::native::vectorized_elementwise_kernel<(int)8, "
			  "at::native::CUDAFunctor_add<c10::Half>, std::array<char *, "
			  "(unsigned long)3>>(int, T2, T3)", "CUDAFunctor_add" },
			{ "void at::native::elementwise_kernel<(int)128, (int)4, void "
			  "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_"
			  "kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance "
			  "3)]::operator ()() const::[lambda() (instance 10)]::operator "
			  "()() const::[lambda(c10::Half) (instance 1)]>(at::TensorIterator"
			  "Base &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)",
			  "direct_copy" },
			{ "void at::native::elementwise_kernel<(int)128, (int)4, void "
			  "at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<"
			  "float, float, float, at::native::binary_internal::MulFunctor<"
			  "float>>>(at::TensorIteratorBase &, const T1 &)::[lambda(int) "
			  "(instance 1)]>(int, T3)", "MulFunctor" },
			{ "void at::native::vectorized_elementwise_kernel<(int)8, at::"
			  "native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::"
			  "[lambda(float) (instance 1)], std::array<char *, (unsigned "
			  "long)2>>(int, T2, T3)", "bfloat16_copy" },
			{ "void at::native::vectorized_elementwise_kernel<(int)8, at::"
			  "native::<unnamed>::silu_kernel(at::TensorIteratorBase &)::["
			  "lambda() (instance 1)]::operator ()() const::[lambda() "
			  "(instance 6)]::operator ()() const::[lambda(c10::BFloat16) "
			  "(instance 1)], std::array<char *, (unsigned long)2>>(int, T2, "
			  "T3)", "silu" },
			{ "void at::native::reduce_kernel<(int)512, (int)1, at::native::"
			  "ReduceOp<c10::Half, at::native::ArgMaxOps<float>, unsigned "
			  "int, long, (int)4, (int)4>>(T3)", "ArgMaxOps" },
			{ "void at::native::vectorized_elementwise_kernel<(int)8, at::"
			  "native::<unnamed>::launch_clamp_scalar(at::TensorIteratorBase "
			  "&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)"
			  "::[lambda() (instance 1)]::operator ()() const::[lambda() "
			  "(instance 8)]::operator ()() const::[lambda(c10::Half) "
			  "(instance 1)], std::array<char *, (unsigned long)2>>(int, T2, "
			  "T3)", "clamp_scalar" },
		};
		size_t i;

		for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			char *op = lp_kname_op(cases[i][0]);

			is_str(op, cases[i][1], "operation %s", cases[i][1]);
			free(op);
		}
		ok(!lp_kname_op("void at::native::<unnamed>::vectorized_layer_"
		    "norm_kernel<c10::Half, float, (bool)0>(int, T2, const T1 *)"),
		    "no operation for a kernel that is not a template of one");
		ok(!lp_kname_op("nvjet_sm90_hsh_64x32_64x16_4x2_h_bz_bias_NNT"),
		    "none for a GEMM");
		{
			/* two sum reductions as nsys spells them (issue 28):
			 * the functor's call operator carries the lambda */
			char *sums[2] = { "void at::native::reduce_kernel<(int)512, "
			    "(int)1, at::native::ReduceOp<float, at::native::func_"
			    "wrapper_t<float, at::native::sum_functor<float, float, "
			    "float>::operator ()(at::TensorIterator &)::[lambda("
			    "float, float) (instance 1)]>, unsigned int, float, "
			    "(int)4, (int)4>>(T3)", "void at::native::reduce_kernel<"
			    "(int)128, (int)4, at::native::ReduceOp<float, at::"
			    "native::func_wrapper_t<float, at::native::sum_functor<"
			    "float, float, float>::operator ()(at::TensorIterator &)"
			    "::[lambda(float, float) (instance 1)]>, unsigned int, "
			    "float, (int)4>>(T3)" }, *sh[2];
			char *op = lp_kname_op(sums[0]);

			is_str(op, "sum", "a sum reduction's operation");
			free(op);
			lp_kname_unique(sums, 2, 60, sh);
			ok(strcmp(sh[0], sh[1]) && !strncmp(sh[0], "sum: ", 5) &&
			    !strncmp(sh[1], "sum: ", 5), "two sum reductions: both "
			    "say sum, apart (%s | %s)", sh[0], sh[1]);
			free(sh[0]);
			free(sh[1]);
		}
		lp_kname_md(&b, cases[0][0], 60);
		is_str(lp_sb_str(&b), "`MulFunctor: void at::native::vectorized_"
		    "elementwise_kerne...`", "a display name leads with the "
		    "operation");
		lp_sb_free(&b);
	}
	return tap_done();
}
