#!/usr/bin/env bash
# The roofline, its chart, operator classes, top kernels, names that stay
# apart, and each findings rule.
. "$(dirname "$0")/lib.sh"

C=$ROOT/conf
P=$FIX/h200-probe
W=$FIX/h200-whole

rows() {
	sed "/^#/d" "$1" | sed 1d
}

# A real prefill: the nsys exports of a torch_decoder run and ncu on its
# prefill GEMMs with the tensor-core counters (another run of the same
# workload and shape: --layers 2 --prompt 128, fp16, d = 768).
test_expect_success 'setup: kernels of the real torch prefill, the H200 peaks' '
	lp-ncu2tsv "$P/torch_prefill_gemm_raw.csv" >"$TRASH/m.tsv" &&
	lp-kernjoin -d "$W/torch_nvtx_kern_sum.csv" -r :LLM@prefill -m "$TRASH/m.tsv" \
		"$W/torch_nvtx_kern_sum_mangled.csv" >"$TRASH/k.tsv" &&
	echo "{\"gpus\": [{\"name\": \"NVIDIA H200\"}]}" >"$TRASH/env.json" &&
	lp-gpu -t "$C/gpus.yaml" "$TRASH/env.json" >"$TRASH/gpu.tsv" &&
	lp-roofline -g "$TRASH/gpu.tsv" -m "$TRASH/m.tsv" "$TRASH/k.tsv" >"$TRASH/roofline.tsv"
'

# The QKV projection: 128 tokens x 768 -> 2304 is 2MNK = 452,984,832 FLOPs
# on the tensor cores, exactly; the bias add is CUDA-core work beside it.
test_expect_success 'tensor-core FLOPs of a GEMM of known shape are 2MNK exactly' '
	grep -F nvjet_sm90_hsh_48x64_64x15_4x2_h_bz_bias_TNN "$TRASH/m.tsv" | cut -f3,12 >got &&
	printf "2\t905969664\n" >expect &&
	test_cmp expect got &&
	test $((905969664 / 2)) = $((2 * 128 * 768 * 2304)) &&
	sed "/^#/d" "$TRASH/k.tsv" | awk -F"\t" "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
		\$c[\"kernel\"] ~ /48x64_64x15/ { print \$c[\"flops_tc_fp16_per_launch\"] }" >got &&
	echo 452984832.0 >expect &&
	test_cmp expect got
'

# AI = 453,279,744 FLOP / 3,758,336 B = 120.6; 60.0 TFLOP/s in 7,552 ns; the
# fp16 tensor ridge of the H200 is 989.4e12 / 4.8e12 = 206.1, so the memory
# roof bounds it: 3,758,336 B / 7,552 ns = 497.7 GB/s, 10.37% of 4.8 TB/s.
test_expect_success 'roofline point of that GEMM where the hand calculation puts it' '
	rows "$TRASH/roofline.tsv" | grep 48x64_64x15 | cut -f4-16 | g4 5 6 7 8 9 11 12 >got &&
	printf "tensor fp16\t453279744\t3758336\t7552.0\t120.6\t6.002e+13\t4.977e+11\t9.894e+14\t206.1\tmemory\t10.37\t10.37\tlatency / under-filled\n" >expect &&
	test_cmp expect got
'

test_expect_success 'roofline: kernels ncu did not profile say so; a missing counter is named' '
	rows "$TRASH/roofline.tsv" | grep vectorized_layer_norm | cut -f4 >got &&
	echo "n/a because ncu did not profile it (outside the top-N selection, or not matched by name)" >expect &&
	test_cmp expect got &&
	lp-ncu2tsv "$FIX/h200-live/n2.csv" >m2.tsv &&
	lp-kernjoin -m m2.tsv "$FIX/h200-live/t1_cuda_gpu_kern_sum_mangled.csv" >k2.tsv &&
	lp-roofline -g "$TRASH/gpu.tsv" k2.tsv >r2.tsv &&
	test_grep "^# missing: roofline points for [0-9]* profiled kernels: their ncu export has their DRAM bytes (the table gives their DRAM figures) but lacks FLOP counters" r2.tsv &&
	rows r2.tsv | grep rmsnorm | cut -f4 >got &&
	echo "n/a because the ncu export lacks the tensor-core counters (sm__ops_path_tensor_src_*)" >expect &&
	test_cmp expect got
'

test_expect_success 'roofline: with no peaks it says why, never 0' '
	echo "{\"gpus\": [{\"name\": \"NVIDIA Quadro K600\"}]}" >env.json &&
	lp-gpu -t "$C/gpus.yaml" env.json >gpu.tsv &&
	lp-roofline -g gpu.tsv "$TRASH/k.tsv" >r.tsv &&
	rows r.tsv | grep 48x64_64x15 | cut -f11 >got &&
	test_grep "^n/a because GPU \"NVIDIA Quadro K600\" is not in" got
'

test_expect_success 'roofline.svg: valid SVG with the roofs and a point per kernel' '
	lp-roofsvg -g "$TRASH/gpu.tsv" "$TRASH/roofline.tsv" >r.svg &&
	test_grep "^<svg xmlns=\"http://www.w3.org/2000/svg\"" r.svg &&
	test $(grep -c "<circle" r.svg) = 4 &&
	test_grep "tensor fp16, tensor bf16 989.4 TFLOP/s" r.svg &&
	test_grep ">DRAM 4.8 TB/s<" r.svg &&
	test_grep "not drawn (no FLOPs, DRAM bytes or ncu metrics): #1, #2" r.svg &&
	if command -v xmllint >/dev/null; then xmllint --noout r.svg; else echo "# no xmllint"; fi &&
	if command -v rsvg-convert >/dev/null; then rsvg-convert r.svg -o r.png && test -s r.png; else echo "# no rsvg-convert"; fi
'

test_expect_success 'roofline.svg: names with markup characters are escaped' '
	printf "# tool: lp-roofline\nrank\tname\tai\tflop_per_s\tclass\n1\ta<b>&\"c\"\t10\t1e12\tmemory-bound\n" >x.tsv &&
	lp-roofsvg -g "$TRASH/gpu.tsv" x.tsv >x.svg &&
	test_grep "a&lt;b&gt;&amp;&quot;c&quot;" x.svg &&
	if command -v xmllint >/dev/null; then xmllint --noout x.svg; fi
'

# Seen on DeepSeek-OCR decode: FlashAttention classed as GEMM because
# "cutlass" is in its template arguments.  Names are real kernel names.
test_expect_success 'operator classes match the base name, not template arguments' '
	{
		printf "# tool: lp-kernjoin\nrank\tkernel\ttotal_ns\tcalls\n"
		printf "1\tvoid flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t>>, false, true>(Flash_fwd_params)\t500\t1\n"
		printf "2\tncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)\t400\t2\n"
		printf "3\tvoid cutlass::device_kernel<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, int>>>(T1::Params)\t300\t1\n"
		printf "4\tvoid cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(T1::Params)\t200\t1\n"
		printf "5\t_Z7rmsnormPfii\t100\t4\n"
		printf "6\tmystery_kernel\t50\t1\n"
	} >k.tsv &&
	lp-ops -o "$C/operators.yaml" k.tsv >o.tsv &&
	rows o.tsv | cut -f1-5 | g4 3 >got &&
	cat >expect <<-\EOF &&
	Attention	800	51.61	2	2
	Communication (NCCL)	400	25.81	2	1
	GEMM / GEMV	200	12.9	1	1
	Normalisation	100	6.452	4	1
	Other	50	3.226	1	1
	EOF
	test_cmp expect got &&
	test_grep "^# source: the kernels of k.tsv (nsys, the whole capture: no NVTX range)" o.tsv
'

test_expect_success 'names you can tell apart: an add, a mul and a copy' '
	{
		printf "# tool: lp-kernjoin\nrank\tkernel\ttotal_ns\tcalls\n"
		printf "1\tvoid at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<c10::Half>, std::array<char *, (unsigned long)3>>(int, T2, T3)\t300\t1\n"
		printf "2\tvoid at::native::vectorized_elementwise_kernel<(int)4, at::native::MulFunctor<float>, std::array<char *, (unsigned long)3>>(int, T2, T3)\t200\t1\n"
		printf "3\tvoid at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, std::array<char *, (unsigned long)3>>(int, T2, T3)\t150\t1\n"
		printf "4\tvoid at::native::vectorized_elementwise_kernel<(int)8, at::native::float16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)\t100\t1\n"
		printf "5\trmsnorm(float *, int, int)\t50\t1\n"
	} >k.tsv &&
	lp-topk k.tsv >lp.out && <lp.out sed "/^#/d" | cut -f2 >got &&
	cat >expect <<-\EOF &&
	name
	CUDAFunctor_add: vectorized_elementwise_kernel<4, CUDAFunctor_add<Half>, array<char *, 3>>(...)
	MulFunctor: void at::native::vectorized_elementwise_kernel<...>(...)
	CUDAFunctor_add: vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, array<char *, 3>>(...)
	float16_copy: void at::native::vectorized_elementwise_kernel<...>(...)
	rmsnorm(float *, int, int)
	EOF
	test_cmp expect got &&
	lp-kernmd -w 60 k.tsv >km.tsv && lp-summary km.tsv >lp.out && <lp.out grep "^| [0-9]" | cut -d"|" -f3 | sort | uniq -d >dups &&
	test_must_be_empty dups
'

test_expect_success 'names: two whole names alike are numbered, not merged' '
	printf "# tool: lp-kernjoin\nrank\tkernel\ttotal_ns\tcalls\n1\tk(int)\t2\t1\n2\tk(int)\t1\t1\n" >k.tsv &&
	lp-topk k.tsv >lp.out && <lp.out sed "/^#/d" | sed 1d | cut -f2 >got &&
	printf "k(int) [#1]\nk(int) [#2]\n" >expect &&
	test_cmp expect got
'

# The findings rules, each on a hand-made table standing for its tool's.
tab() {
	# tab TOOL FILE: a table of that tool, header and rows on stdin
	{ echo "# tool: $1"; cat; } >"$2"
}

test_expect_success 'findings: launch-bound stage, nested duplicate skipped' '
	printf "stage\twall_total_ns\tkernel_ns\tlaunches\tbusy_pct\tlaunches_per_inst\tinstances\n" >h &&
	{ cat h; printf "decode_all\t100000000\t1000000\t500\t1\t500\t1\ndecode_step\t99000000\t1000000\t500\t1.01\t50\t10\n"; } | tab lp-stages s.tsv &&
	lp-findings s.tsv >f.tsv &&
	rows f.tsv | cut -f1-4 >got &&
	printf "1\tlaunch-bound\t99000000\tdecode_all keeps the GPU busy only 1%% of its wall time.\n" >expect &&
	test_cmp expect got &&
	rows f.tsv | cut -f7 | test_grep "CUDA graph"
'

test_expect_success 'findings: warm-up dominating a short run' '
	printf "stage\twall_total_ns\tkernel_ns\tlaunches\tbusy_pct\tlaunches_per_inst\tinstances\ndecode_step\t30000000\t3000000\t10\t90\t1\t10\n" |
		tab lp-stages s.tsv &&
	printf "stage\tfirst_ns\tsteady_ns\twarmup\ttokens_per_s\ndecode_step\t21000000\t1000000\tyes\t1000\n" | tab lp-steps t.tsv &&
	lp-findings s.tsv t.tsv >f.tsv &&
	rows f.tsv | cut -f2-5 >got &&
	printf "warm-up\t20000000\tThe first decode_step took 21x the steady state: warm-up dominates this short run.\tfirst 21.000 ms, median of the rest 1.000 ms; steady state 1000 tokens/s\n" >expect &&
	test_cmp expect got
'

test_expect_success 'findings: memory-bound GEMV, GEMM at a share of the tensor roof, an under-filled kernel, ranked by time' '
	printf "rank\tname\tkernel\tprecision\tai\troof\troof_pct\tdram_pct\tclass\n" >h &&
	{ cat h
	  printf "1\tgemv\tgemv\tfp32 (CUDA cores)\t0.5\tmemory\t80\t80\tmemory-bound\n"
	  printf "2\tgemm\tgemm\ttensor fp16\t300\tcompute\t70\t20\tcompute-bound\n"
	  printf "3\tnorm\tnorm\tfp32 (CUDA cores)\t1\tmemory\t5\t5\tlatency / under-filled\n"; } | tab lp-roofline r.tsv &&
	printf "rank\tname\tkernel\ttotal_ns\tshare_pct\tclass\n1\tgemv\tgemv\t10000000\t50\tmemory-bound\n2\tgemm\tgemm\t5000000\t25\tcompute-bound\n3\tnorm\tnorm\t4000000\t20\tlatency / under-filled\n" |
		tab lp-topk t.tsv &&
	lp-findings r.tsv t.tsv >f.tsv &&
	rows f.tsv | cut -f2,3 >got &&
	printf "under-filled\t3800000\nmemory-bound\t2000000\ncompute-bound\t1500000\n" >expect &&
	test_cmp expect got &&
	test_grep "\`gemv\` is memory-bound at 80% of DRAM bandwidth." f.tsv &&
	test_grep "\`gemm\` reaches 70% of the tensor fp16 roof." f.tsv &&
	test_grep "\`norm\` reaches only 5% of its memory roof." f.tsv
'

test_expect_success 'findings: a dominant kernel without a roofline point' '
	printf "rank\tname\tkernel\ttotal_ns\tshare_pct\tsm_pct\tclass\n1\tbig\tbig\t9000000\t60\tn/a because no ncu metrics for it\tn/a because no roofline point\n" |
		tab lp-topk t.tsv &&
	lp-findings t.tsv >f.tsv &&
	rows f.tsv | cut -f2-4 >got &&
	printf "dominant\tn/a because this finding is not a time\tOne kernel takes 60%% of the stage'"'"'s GPU time and has no roofline point.\n" >expect &&
	test_cmp expect got &&
	test_grep "raise TOPN" f.tsv
'

test_expect_success 'findings: fp32 matmuls with tensor cores idle' '
	printf "rank\tname\tkernel\tprecision\tai\troof\troof_pct\tdram_pct\tclass\n1\tsgemm\tsgemm\tfp32 (CUDA cores)\t50\tcompute\t70\t10\tcompute-bound\n" |
		tab lp-roofline r.tsv &&
	printf "rank\tname\tkernel\ttotal_ns\tshare_pct\tclass\toperator\n1\tsgemm\tsgemm\t10000000\t90\tcompute-bound\tGEMM / GEMV\n" | tab lp-topk t.tsv &&
	lp-findings -n 0 r.tsv t.tsv "$TRASH/gpu.tsv" >f.tsv &&
	rows f.tsv | cut -f2,3 >got &&
	printf "fp32\t8647665\n" >expect &&
	test_cmp expect got &&
	test_grep "Enable TF32" f.tsv
'

test_expect_success 'findings: missing inputs come last, with what they name' '
	printf "# missing: no MFU: the model config lacks model.params (MODEL=NAME)\nstage\tmodel_flop\n" | tab lp-mfu m.tsv &&
	printf "stage\twall_total_ns\tkernel_ns\tlaunches\tbusy_pct\tlaunches_per_inst\tinstances\nx\t10\t1\t1\t10\t1\t1\n" | tab lp-stages s.tsv &&
	lp-findings m.tsv s.tsv >f.tsv &&
	rows f.tsv | cut -f2 >got &&
	printf "launch-bound\nmissing\n" >expect &&
	test_cmp expect got &&
	test_grep "no MFU: the model config lacks model.params" f.tsv
'

test_expect_success 'findings: nothing to say is said' '
	printf "stage\twall_total_ns\tkernel_ns\tlaunches\tbusy_pct\tlaunches_per_inst\tinstances\nx\t10\t9\t1\t90\t1\t1\n" | tab lp-stages s.tsv &&
	lp-findings s.tsv >f.tsv &&
	test_grep "No rule fired" f.tsv &&
	printf "a\tb\n" >plain.tsv &&
	test_expect_code 1 lp-findings plain.tsv >out 2>err &&
	test_must_be_empty out && test_grep "no \"# tool:\" line" err
'

test_done
