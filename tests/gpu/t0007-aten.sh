#!/usr/bin/env bash
# GPU: OPS=aten live (issue 19).  The PyTorch decoder's prefill under
# nsys --pytorch=autograd-shapes-nvtx: each kernel given to its aten op,
# each matmul op's ncu FLOPs equal to 2MNK of its input shapes (128 rows:
# no padded tiles), and each op on the roofline (aten_roofline.tsv) as awk
# computes it from the op's ncu figures and gpu.tsv.
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

test_expect_success 'every matmul op of the prefill that ncu profiled: ncu FLOPs = 2MNK of its shapes' '
	r=$S2/taten &&
	table "$r/aten_ops.tsv" stage op shapes flops_2mnk_per_call ncu_flops_per_call |
		awk -F"\t" "\$1 == \"prefill\" && \$4 ~ /^[0-9]+\$/ && \$5 ~ /^[0-9]+\$/" >mm &&
	cat mm && cp mm "$S2/aten-2mnk.txt" &&
	test -s mm &&
	awk -F"\t" "\$4 != \$5 { print \"not 2MNK: \" \$0; bad = 1 } END { exit bad }" mm
'

test_expect_success 'each op on the roofline: aten_roofline.tsv recomputed by awk, and in the summary' '
	r=$S2/taten &&
	table "$r/gpu.tsv" path precision peak >peaks &&
	table "$r/aten_ops.tsv" stage op shapes ncu_flops_per_call ncu_dram_bytes_per_call ncu_precision ncu_ns_per_call |
		awk -F"\t" -v OFS="\t" "
			NR == FNR { pk[\$1 \" \" \$2] = \$3; next }
			\$4 !~ /^[0-9.]+\$/ || \$6 !~ /^tc_/ { next }
			{
				p = \$6; sub(/^tc_/, \"tensor \", p)
				peak = pk[p]; bw = pk[\"dram -\"]
				ai = \$4 / \$5; fps = \$4 / (\$7 * 1e-9); bps = \$5 / (\$7 * 1e-9)
				ridge = peak / bw; mem = ai < ridge
				print \$1, \$2, \$3, p, sprintf(\"%.4g\", ai), sprintf(\"%.4g\", fps),
					sprintf(\"%.4g\", peak), mem ? \"memory\" : \"compute\",
					sprintf(\"%.4g\", 100 * (mem ? bps / bw : fps / peak))
			}" peaks - >expect &&
	test -s expect &&
	table "$r/aten_roofline.tsv" stage op shapes precision ai flop_per_s peak_flop_per_s roof roof_pct |
		grep "	tensor " >got &&
	test_cmp expect got &&
	cp "$r/aten_roofline.tsv" "$S2/aten_roofline-taten.tsv" &&
	test_grep "^## Operators on the roofline" "$r/stakeholder_summary.md"
'

test_done
