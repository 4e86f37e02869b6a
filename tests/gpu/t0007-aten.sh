#!/usr/bin/env bash
# GPU: OPS=aten live (issue 19).  The PyTorch decoder's prefill under
# nsys --pytorch=autograd-shapes-nvtx: each kernel given to its aten op,
# each matmul op's ncu tensor FLOPs against 2MNK of its input shapes, and
# each op on the roofline (aten_roofline.tsv) as awk computes it from the
# op's ncu figures and gpu.tsv.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/gpu/lib.sh"

test_expect_success 'make RUN=taten ... OPS=aten STAGE=prefill stakeholder_summary.md' '
	lpmake RUN=taten "WORK=python3 tests/workloads/torch_decoder.py" MODEL=torch-decoder STAGE=prefill \
		OPS=aten stakeholder_summary.md >log 2>&1 || { cat log; false; }
'

test_expect_success 'the op rows of each stage add up to its kernel time (nvtx_kern_sum)' '
	r=$S2/taten &&
	check_kernels_in_nsys taten &&
	table "$r/aten_ops.tsv" stage kernel_ns | awk -F"\t" "{ t[\$1] += \$2 } END { for (s in t) printf \"%s %.0f\n\", s, t[s] }" |
		sort >got &&
	cat got &&
	grep -q "^prefill [1-9]" got
'

# Seen on the H100 (torch_decoder prefill, 128 rows): ncu's tensor-core
# FLOPs are 2MNK where the kernel's tile divides N, more where it does not
# (nvjet 72x64 tiles over N = 3072: 44 tiles, 3168 columns, +3.1 %), and
# 8x for the one-row LM head (8-row tiles); an addmm's bias epilogue adds
# M x N FLOPs on the CUDA cores to ncu's total (M x N + N, 0.8 % more, in
# the padded fc1).
test_expect_success 'each matmul op of the prefill that ncu profiled: tensor FLOPs 2MNK but for whole tiles, the bias M x N' '
	r=$S2/taten &&
	table "$r/aten_ops.tsv" stage op shapes flops_2mnk_per_call ncu_tensor_flops_per_call ncu_flops_per_call |
		awk -F"\t" "\$1 == \"prefill\" && (\$2 == \"aten::mm\" || \$2 == \"aten::addmm\") &&
			\$4 ~ /^[0-9]+\$/ && \$5 ~ /^[0-9]+\$/" >mm &&
	{ test -s mm || { echo "no matmul rows with 2MNK and ncu tensor FLOPs:"; table "$r/aten_ops.tsv" stage op shapes flops_2mnk_per_call ncu_tensor_flops_per_call ncu_flops_per_call | grep "^prefill" | head -20; false; }; } &&
	awk -F"\t" "{
			sh = \$3; gsub(/^\\[\\[|\\]\\]\$/, \"\", sh); n = split(sh, p, /\\], \\[/)
			a = (\$2 == \"aten::addmm\") ? 2 : 1
			split(p[a], x, /, /); split(p[a + 1], y, /, /); M = x[1]; N = y[2]
			t = \$5 / \$4; bias = \$6 - \$5
			printf \"%s %s: 2MNK %s, tensor %s (x%.4f), CUDA-core %s (M x N = %d)\\n\", \$2, \$3, \$4, \$5, t, bias, M * N
			if (\$5 == \$4) exact++
			if (\$5 < \$4) { print \"  fewer tensor FLOPs than 2MNK\"; bad = 1 }
			if (M >= 64 && t > 1.1) { print \"  more than a tile of padding\"; bad = 1 }
			# the bias adds M x N; a split-K GEMM (per-launch-config
			# profiling measures its reduce kernel too) adds M x N per
			# partial sum: a whole multiple of M x N (seen: 14 x on the H200)
			# (on the H100, the padded fc1 whose tiles overrun N: M x N + N)
			if (a == 2 && bias != 0 && (bias < M * N || (bias % (M * N) != 0 && !(t > 1 && bias == (M + 1) * N)))) { print \"  CUDA-core FLOPs not the bias and split-K sums\"; bad = 1 }
		}
		END { printf \"%d of %d exactly 2MNK\\n\", exact, NR; exit bad || !exact }" mm >check ||
		{ cat check; echo "the rows:"; cat mm; false; } &&
	cat check && cp check "$S2/aten-2mnk.txt"
'

test_expect_success 'each op on the roofline: aten_roofline.tsv recomputed by awk, and in the summary' '
	r=$S2/taten &&
	oproof_expect "$r/gpu.tsv" "$r/aten_ops.tsv" >expect &&
	test -s expect &&
	oproof_got "$r/aten_roofline.tsv" >got &&
	test_cmp expect got &&
	cp "$r/aten_roofline.tsv" "$S2/aten_roofline-taten.tsv" &&
	test_grep "^## Operators on the roofline" "$r/details.md"
'

test_done
