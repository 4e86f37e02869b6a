#!/usr/bin/env bash
# Issue 18, items 3-5: a roofline point per launch shape with its waves,
# classes from what the launch shows (the GPT-2 LM head is an align1 GEMM
# over the vocabulary, not under-filled), TF32 advice for matmuls only,
# and names that say the operation.  Real captures: GPT-2 prefill GEMMs on
# an H100 (h100-hostside, ncu with LaunchStats and the tensor counters),
# the torch-decoder prefill on an H200 (h200-prefill).
. "$(dirname "$0")/lib.sh"

H=$FIX/h100-hostside

# Per launch shape, from the export alone: kernel, grid, launches, tensor
# FLOPs per launch, CTAs, the tightest occupancy limit, SMs and waves.
shapes_awk='
NR == 1 { n = csv($0, f); col(f, n, c); next } NR == 2 { next }
{ n = csv($0, f); k = f[c["Kernel Name"]] SUBSEP f[c["Grid Size"]]
	if (!(k in l)) { o[++m] = k; kn[k] = f[c["Kernel Name"]]; g[k] = f[c["Grid Size"]] }
	l[k]++; tf[k] += num(f[c["sm__ops_path_tensor_src_fp16.sum"]])
	ctas[k] = num(f[c["launch__grid_size"]]); sms[k] = num(f[c["device__attribute_multiprocessor_count"]])
	split("barriers blocks registers shared_mem warps", lim, " "); per = 1e9
	for (i = 1; i <= 5; i++) { v = num(f[c["launch__occupancy_limit_" lim[i]]]); if (v < per) per = v }
	ps[k] = per }
END { for (i = 1; i <= m; i++) { k = o[i]
	printf "%s\t%s\t%d\t%.0f\t%d\t%d\t%d\t%.2f\n", kn[k], g[k], l[k], tf[k] / l[k], ctas[k], ps[k], sms[k], ctas[k] / (sms[k] * ps[k]) } }'

test_expect_success 'lp-ncu2tsv: a row per launch shape; QKV and MLP-up apart, each 2MNK exactly' '
	lp-ncu2tsv "$H/gpt2_ncu_raw.csv" >"$TRASH/m.tsv" 2>err &&
	test_must_be_empty err &&
	table "$TRASH/m.tsv" kernel grid launches flops_tc_fp16 ctas ctas_per_sm sm_count waves |
		awk -F"\t" -v OFS="\t" "{ \$4 = sprintf(\"%.0f\", \$4 / \$3); print }" | sort >got &&
	A "$shapes_awk" "$H/gpt2_ncu_raw.csv" | sort >expect &&
	test_cmp expect got &&
	test $(wc -l <got) = 5 &&
	# GPT-2 small, 64 prompt tokens: QKV 64 x 768 -> 2304, MLP up -> 3072
	grep -F "bias_NNT	(8, 9, 1)	12	$((2 * 64 * 768 * 2304))	72	1	132	0.55" got &&
	grep -F "bias_NNT	(8, 12, 1)	12	$((2 * 64 * 768 * 3072))	96	1	132	0.73" got &&
	# the LM head: 800 CTAs, 2 per SM, 3.03 waves; its count is the padded
	# tiles, 2 x 128 x 768 x 50304, twice 2MNK for M = 64, N = 50257
	grep -F "align1>(T1::Params)	(8, 50, 2)	1	$((2 * 128 * 768 * 50304))	800	2	132	3.03" got
'

test_expect_success 'lp-kernjoin: a kernel of two shapes is one row, its nsys time whole' '
	lp-kernjoin -m "$TRASH/m.tsv" -d "$H/gpt2_cuda_gpu_kern_sum.csv" "$H/gpt2_cuda_gpu_kern_sum_mangled.csv" >k.tsv &&
	table k.tsv kernel calls ncu_launches ncu_shapes |
		grep "^nvjet_sm90_hsh_64x32_64x16_4x2_h_bz_bias_NNT	" | cut -f2- >got &&
	A "NR > 1 { n = csv(\$0, f); if (f[n] == \"nvjet_sm90_hsh_64x32_64x16_4x2_h_bz_bias_NNT\") print f[3] \"\t24\t2\" }" \
		"$H/gpt2_cuda_gpu_kern_sum.csv" >expect &&
	test_cmp expect got
'

test_expect_success 'setup: the GPT-2 prefill imported (mangled ncu export), the model config' '
	lpmake RUN=g "IMPORT=$(ls "$H"/gpt2_*.csv | grep -v "trace.csv\|ncu_raw.csv" | tr "\n" " ")" \
		MODEL=hf-gpt2 STAGE=prefill stakeholder_summary.md >/dev/null
'

test_expect_success 'roofline.tsv: QKV and MLP-up are two points of exactly 2MNK, with grid and waves' '
	table "$S2/g/roofline.tsv" rank grid ncu_launches flop_per_launch ctas waves flop_counters class |
		grep "^1	" >got &&
	cat >expect <<-EOF &&
	1	(8, 12, 1)	12	$((2 * 64 * 768 * 3072))	96	0.73	tensor cores only (no SASS counters)	latency / under-filled
	1	(8, 9, 1)	12	$((2 * 64 * 768 * 2304))	72	0.55	tensor cores only (no SASS counters)	latency / under-filled
	EOF
	test_cmp expect got &&
	test_grep "^# note: FLOPs: [0-9]* points count tensor-core FLOPs only" "$S2/g/roofline.tsv"
'

test_expect_success 'roofline.tsv: the LM head is alignment-limited, not under-filled; the vocabulary named' '
	table "$S2/g/roofline.tsv" kernel waves class why | grep -F align1 >got &&
	test $(wc -l <got) = 1 &&
	test "$(cut -f2,3 got)" = "3.03	alignment-limited" &&
	grep -F "the model'"'"'s vocab 50257 is not a multiple of 8" got &&
	# 9,890,168,832 = 2 x 128 x 768 x 50304: both M and N padded (t0045)
	grep -F "2 x 128 x 768 x 50304: N, the vocabulary 50257, padded to 50304, and M, 64 tokens a forward, padded to 128 rows" got
'

test_expect_success 'findings: the LM head finding names the vocabulary; under-filled ones are under a wave' '
	table "$S2/g/findings.tsv" rule finding evidence next_step | grep -F align1 >got &&
	test "$(cut -f1 got)" = alignment &&
	grep -F "the vocabulary is not a multiple of 8" got &&
	grep -F "Pad the vocabulary to a multiple of 64" got &&
	! grep -F "give it more" got &&
	table "$S2/g/findings.tsv" rule evidence | grep "^under-filled" >uf &&
	test $(wc -l <uf) = 4 &&
	! grep -v "CTAs fill 0\.[0-9]* of a wave" uf &&
	# the two shapes of one kernel split its nsys time by ncu time, and say so
	test $(grep -c "the shape'"'"'s part by ncu time" uf) = 2
'

test_expect_success 'top_kernels.tsv: operator class beside the roofline class' '
	table "$S2/g/top_kernels.tsv" rank class operator | sed -n 1,3p >got &&
	printf "1\tlatency / under-filled\tGEMM / GEMV\n2\talignment-limited\tGEMM / GEMV\n3\tn/a because no roofline point (roofline.tsv says why)\tNormalisation\n" >expect &&
	test_cmp expect got
'

test_expect_success 'roofline.svg: a point per shape, told apart by grid' '
	grep -c "<circle" "$S2/g/roofline.svg" >n &&
	echo 5 >expect &&
	test_cmp expect n &&
	grep -F "grid (8, 9, 1)" "$S2/g/roofline.svg" &&
	grep -F "grid (8, 12, 1)" "$S2/g/roofline.svg"
'

# torch-decoder prefill on the H200, fp16: its LayerNorm accumulates in
# fp32 on CUDA cores and lands on the compute side of the roofline; TF32
# or bf16 autocast changes matmuls, not it.
test_expect_success 'findings: no TF32 advice for a fp16 model'"'"'s LayerNorm' '
	lpmake RUN=tp "IMPORT=$(echo "$FIX"/h200-prefill/tpre_*.csv)" MODEL=torch-decoder STAGE=prefill \
		findings.tsv >/dev/null &&
	! grep -F "Enable TF32" "$S2/tp/findings.tsv" &&
	table "$S2/tp/roofline.tsv" name precision roof | grep layer_norm >ln &&
	test "$(cut -f2,3 ln)" = "fp32 (CUDA cores)	compute" &&
	table "$S2/tp/top_kernels.tsv" name operator | grep layer_norm | cut -f2 >op &&
	echo Normalisation >expect &&
	test_cmp expect op &&
	table "$S2/tp/findings.tsv" rule | grep -vx "fp32"
'

# Every kernel name of every capture's kernel summary, as a kernels.tsv
# (rank, kernel, total_ns, calls): the tables' display names of PyTorch's
# elementwise, reduce and copy templates must lead with the operation.
allk_awk='
FNR == 1 { n = csv($0, f); col(f, n, c); next }
{ n = csv($0, f); k = f[c["Name"]]; if (!(k in seen)) { seen[k] = 1; o[++m] = k } }
END { print "# tool: lp-kernjoin"; print "rank\tkernel\ttotal_ns\tcalls"; for (i = 1; i <= m; i++) printf "%d\t%s\t%d\t1\n", i, o[i], 100000 - i }'
# a PyTorch template that runs an operation given to it
tmpl='at::native::(vectorized_|unrolled_)?elementwise_kernel<|::elementwise_kernel_with_index<|at::native::reduce_kernel<|distribution_elementwise_grid_stride_kernel<'

test_expect_success 'names: every capture'"'"'s elementwise/reduce/copy kernels show their operation' '
	ls "$FIX"/*/*cuda_gpu_kern_sum.csv >list &&
	test $(wc -l <list) -ge 10 &&
	A "$allk_awk" $(cat list) >all.tsv &&
	grep -cE "$tmpl" all.tsv >n &&
	test $(cat n) -ge 40 &&
	lp-topk -n 100000 -o "$ROOT/conf/operators.yaml" all.tsv >"$TRASH/tk.tsv" &&
	table "$TRASH/tk.tsv" kernel name | grep -E "^[^	]*($tmpl)" >shown &&
	test $(wc -l <shown) = $(cat n) &&
	# each display starts with an operation, "OP: ..."
	cut -f2 shown >names &&
	! grep -vE "^[A-Za-z_][A-Za-z0-9_]*: " names &&
	for op in MulFunctor CUDAFunctor_add direct_copy bfloat16_copy float16_copy neg silu ArgMaxOps \
		FillFunctor Gelu tanh rsqrt arange; do
		grep -q "^$op: " names || { echo "no $op"; return 1; }
	done &&
	lp-kernmd -n 100000 -w 60 all.tsv >km.tsv && lp-summary km.tsv >lp.out && <lp.out grep "^| [0-9]" >md &&
	test $(grep -cE "\`(MulFunctor|direct_copy|bfloat16_copy|neg|silu|ArgMaxOps|CUDAFunctor_add): " md) -ge 10 &&
	{ grep -E "^\| [0-9]+ \| \`(void )?(at::native::)?(vectorized_|unrolled_)?elementwise_kernel" md >bare || :; } &&
	test_must_be_empty bare
'

test_expect_success 'operator classes: copies and casts in elementwise templates are copies, not activations' '
	table "$TRASH/tk.tsv" name operator >cls &&
	for op in direct_copy bfloat16_copy float16_copy FillFunctor; do
		grep "^$op: " cls | cut -f2 | sort -u >got &&
		echo "Copy, layout and embedding" >expect &&
		test_cmp expect got || return 1
	done &&
	for op in MulFunctor CUDAFunctor_add silu neg Gelu; do
		grep "^$op: " cls | cut -f2 | sort -u >got &&
		echo "Activation and element-wise" >expect &&
		test_cmp expect got || return 1
	done &&
	grep "^ArgMaxOps: " cls | cut -f2 | sort -u >got &&
	echo "Reduction and sampling" >expect &&
	test_cmp expect got &&
	grep -A1 "name: Convolution" "$ROOT/conf/operators.yaml" >conv &&
	grep -q "match: .*conv" conv
'

# Stands for a held-out capture (issue 28): cuDNN runs a convolution as
# CUTLASS in its own namespace; its base name read "cutlass", a GEMM.
test_expect_success 'a cuDNN convolution (cutlass__5x_cudnn::Kernel<...ImplicitGemmConvolution...>) is a convolution' '
	lpmake RUN=g kernels.tsv >/dev/null &&
	k="void cutlass__5x_cudnn::Kernel<cutlass__5x_cudnn::conv::kernel::ImplicitGemmConvolution<cutlass__5x_cudnn::conv::threadblock::ImplicitGemmMultistage<cutlass__5x_cudnn::gemm::GemmShape<128, 128, 32>, cutlass__5x_cudnn::conv::threadblock::Conv2dFpropActivationTileAccessIteratorOptimized<>>, (cutlass__5x_cudnn::conv::Operator)0>>(T1::Params)" &&
	awk -F"\t" -v OFS="\t" -v k="$k" "/^#/ { print; next } !h { print; h = 1; next } !d { \$2 = k; d = 1 } { print }" \
		"$S2/g/kernels.tsv" >kc.tsv &&
	lp-ops -o "$ROOT/conf/operators.yaml" kc.tsv >ops.tsv &&
	table ops.tsv class largest >largest &&
	grep -q "^Convolution	void cutlass__5x_cudnn::Kernel<...>(T1::Params)$" largest
'

test_expect_success 'names in the GPT-2 run'"'"'s tables: top kernels, kernels.md, roofline, operators' '
	lpmake RUN=g operators.tsv >/dev/null &&
	{
		table "$S2/g/top_kernels.tsv" kernel name
		table "$S2/g/roofline.tsv" kernel name
	} | grep -E "^[^	]*($tmpl)" >shown &&
	test -s shown &&
	! cut -f2 shown | grep -vE "^[A-Za-z_][A-Za-z0-9_]*: " &&
	grep -F "| \`MulFunctor: " "$S2/g/kernels.md" &&
	grep -F "| \`ArgMaxOps: " "$S2/g/kernels.md" &&
	! grep -E "\| \`(void )?(at::native::)?(vectorized_|unrolled_)?elementwise_kernel" "$S2/g/kernels.md" &&
	table "$S2/g/operators.tsv" class largest | grep "^Activation" | cut -f2 | grep -E "^[A-Za-z_]+: "
'

# Region work, like with like: range replay counts tensor-core FLOPs only.
# tinyllm (h200-tinyllm-v2) is fp32 CUDA C + cuBLAS: its GEMMs and GEMVs
# run on CUDA cores (kernel replay counts their FLOPs), so its 0 tensor
# FLOPs are no "0x the model"; torch-decoder (h200-torch-v2) runs all its
# matmuls on tensor cores, so tensor FLOPs against the whole model stand.
test_expect_success 'region work: tensor-core FLOPs against the model math on tensor cores only' '
	lpmake RUN=tl "IMPORT=$(echo "$FIX"/h200-tinyllm-v2/tinyllm_*.csv)" MODEL=tinyllm regions.md >/dev/null &&
	table "$S2/tl/region_work.tsv" path hw_over_model >got &&
	! grep "	0$" got &&
	grep "^decode_all	n/a because the model'"'"'s matmuls ran on CUDA cores (9[5-9]\.[0-9]*% of its math, kernels.tsv of decode_all)" got &&
	grep "^decode_all > decode_step	n/a because the model'"'"'s matmuls ran on CUDA cores" got &&
	grep "^prefill	n/a because ncu counted no tensor-core FLOPs" got &&
	# the CUDA-core share: the GEMM-class kernels of kernels.tsv without
	# tensor work (FLOPs per launch x calls), per decode_all instance, over
	# the model formula of lp-mfu
	table "$S2/tl/kernels.tsv" kernel calls flops_tensor_per_launch flops_nontensor_per_launch |
		grep -iE "gemv|gemm|kernel<int, int, float" | grep -v splitKreduce |
		awk -F"\t" "\$3 == 0 { s += \$2 * \$4 } END { printf \"%.3g%%\n\", 100 * s / 1931345920 }" >share &&
	grep -F "($(cat share) of its math" got &&
	lpmake RUN=tv "IMPORT=$(echo "$FIX"/h200-torch-v2/torch_*.csv)" MODEL=torch-decoder regions.md >/dev/null &&
	table "$S2/tv/region_work.tsv" path hw_over_model compared |
		awk -F"\t" -v OFS="\t" "\$2 ~ /^[0-9]/ { \$2 = sprintf(\"%.4g\", \$2) } 1" >got &&
	grep -F "decode_all	12.42	tensor-core FLOPs with the model'"'"'s math, all of its matmuls on tensor cores (kernels.tsv of decode_all)" got &&
	grep -F "prefill	1.045	tensor-core FLOPs with all the model'"'"'s math, a lower bound" got
'

test_done
