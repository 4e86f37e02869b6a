#!/usr/bin/env bash
# GPU: exact FLOPs on the tensor cores.  The PyTorch decoder's prefill
# (128 tokens, d = 768, fp16) runs GEMMs of known shape: QKV 128x768 ->
# 2304, proj 768 -> 768, fc1 768 -> 3072, fc2 3072 -> 768.  The first
# launch of each GEMM kernel ncu profiles must count 2MNK FLOPs exactly, and
# its roofline point sit where the hand calculation puts it.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/gpu/lib.sh"

test_expect_success 'make RUN=tpre ... STAGE=prefill roofline.tsv' '
	lpmake RUN=tpre "WORK=python3 tests/workloads/torch_decoder.py" MODEL=torch-decoder STAGE=prefill \
		stakeholder_summary.md >log 2>&1 || { cat log; false; }
'

# 2MNK of each shape, and the bytes a GEMM must move at least: A (M x K),
# B (K x N) and C (M x N) in fp16, and the bias.
test_expect_success 'a GEMM of known shape: tensor FLOPs = 2MNK exactly' '
	r=$S2/tpre &&
	paste <(tcol "$r/kernels.tsv" kernel) <(tcol "$r/kernels.tsv" flops_tc_fp16_per_launch) \
		<(tcol "$r/kernels.tsv" dram_bytes_per_launch) <(tcol "$r/kernels.tsv" ncu_ns_per_launch) |
		awk -F"\t" "\$2 ~ /^[0-9]/ && \$2 > 0" >gemms &&
	cat gemms &&
	awk -F"\t" "BEGIN { s[2*128*768*2304] = \"qkv 128x768x2304\"; s[2*128*768*768] = \"proj 128x768x768\"
			s[2*128*768*3072] = \"fc1/fc2 128x768x3072\"; b[2*128*768*2304] = 2 * (128*768 + 768*2304 + 128*2304 + 2304)
			b[2*128*768*768] = 2 * (128*768 + 768*768 + 128*768 + 768); b[2*128*768*3072] = 2 * (128*768 + 768*3072 + 128*3072 + 3072) }
		{ f = \$2 + 0; if (f in s) { exact++; ai = f / \$3; hai = f / b[f]
			printf \"%s: FLOPs %.0f = 2MNK; DRAM %.0f B (hand %.0f); AI %.1f (hand %.1f); %.1f TFLOP/s\n\", s[f], f, \$3, b[f], ai, hai, f / \$4 / 1e3
			if (ai < 0.75 * hai || ai > 1.6 * hai) bad = 1 } }
		END { exit !exact || bad }" gemms >check &&
	cat check && cp check "$S2/prefill-check.txt"
'

test_expect_success 'its roofline point: below the fp16 ridge, on the memory side, as the hand calculation says' '
	r=$S2/tpre &&
	paste <(tcol "$r/roofline.tsv" precision) <(tcol "$r/roofline.tsv" ai) <(tcol "$r/roofline.tsv" ridge) \
		<(tcol "$r/roofline.tsv" roof) | grep "^tensor fp16" >pts &&
	test -s pts &&
	awk -F"\t" "\$2 >= \$3 && \$4 != \"compute\" { bad = 1 } \$2 < \$3 && \$4 != \"memory\" { bad = 1 } END { exit bad }" pts
'

test_done
