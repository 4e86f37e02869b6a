#!/usr/bin/env bash
# GPU, two GPUs: a tensor-parallel decode under torchrun (tests/workloads/
# tp_decode.py, one process a GPU, NCCL all-reduces started asynchronously
# beside matrix products so that communication overlaps compute) is a
# normal run: the per-rank stage medians, NCCL share and overlap of the
# summary match awk's recomputation from the run's own nsys exports; ncu
# profiled rank 0's GPU and no NCCL kernel.  Then a straggler made on
# purpose (rank 1, extra matrix products each step) is named, with its gap.
# On a machine with one GPU the test is skipped.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/gpu/lib.sh"
. "$ROOT/tests/ranks.sh"

need_gpus 2
TR="python3 -m torch.distributed.run --nproc-per-node 2"
# the GPUs' name as nsys writes it ("NVIDIA H100 80GB HBM3 (0)")
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0)
TPW="tests/workloads/tp_decode.py --tokens 8"
NS=nsys/report_

test_expect_success 'torchrun, two ranks: the whole run, every artifact' '
	lpmake RUN=tp2 "WORK=$TR $TPW --overlap-matmuls 2" MODEL=tp-mlp SET=model.decode_tokens=8 \
		stakeholder_summary.md >log 2>&1 || { tail -40 log; false; } &&
	cp "$S2/tp2/details.md" "$S2/summary-tp2.md"
'

test_expect_success 'ranks.tsv: each rank alone, as awk recomputes it from the exports' '
	r=$S2/tp2 &&
	ranks "$r/${NS}nvtx_gpu_proj_trace.csv" "$r/${NS}cuda_gpu_trace.csv" \
		"$r/${NS}nvtx_pushpop_trace.csv" "$r/${NS}nvtx_kern_sum.csv" >expect &&
	cat expect &&
	test $(wc -l <expect) = 6 &&
	table "$r/ranks.tsv" $RCOLS | rnd "%.1f" 11 | sort >got &&
	test_cmp expect got &&
	cut -f3 got | sort -u >devs &&
	printf "$GPU (0)\n$GPU (1)\n" >want && test_cmp want devs
'

test_expect_success 'NCCL share and overlap per GPU, as awk recomputes them' '
	r=$S2/tp2 &&
	overlap "$r/${NS}cuda_gpu_trace.csv" >expect && cat expect &&
	table "$r/overlap.tsv" $OCOLS | sort >got &&
	test_cmp expect got &&
	table "$r/ranks.tsv" stage comm_pct | awk -F"\t" "\$1 == \"decode_step\" && !(\$2 > 0) { exit 1 }" &&
	# overlap on a GPU at least: the rank that arrives last at an
	# all-reduce finds its peer there, and its NCCL kernel may end before
	# its matrix products start (rank 1 once had none: tests/gpu/README.md)
	table "$r/overlap.tsv" overlap_ns | awk "\$1 > 0 { n++ } END { exit !n }"
'

test_expect_success 'the summary shows ranks and overlap; ncu measured GPU 0 and no NCCL kernel' '
	r=$S2/tp2 &&
	test_grep "^## Ranks: each stage per process$" "$r/details.md" &&
	test_grep "^## Communication and Compute Overlap$" "$r/details.md" &&
	test_grep "^# processes: 2$" "$r/stages.tsv" &&
	test_grep -- "--devices 0" "$r/ncu/profile.cmd" &&
	! cut -f2 "$r/topn.tsv" | grep -i nccl &&
	check_ncu_profiled_selected tp2
'

test_expect_success 'a straggler made on purpose (rank 1, 40 extra products a step) is named' '
	lpmake RUN=tp3 "WORK=$TR $TPW --straggle-rank 1 --straggle-matmuls 40" MODEL=tp-mlp \
		SET=model.decode_tokens=8 ranks.tsv overlap.tsv >log 2>&1 || { tail -40 log; false; } &&
	r=$S2/tp3 &&
	ranks "$r/${NS}nvtx_gpu_proj_trace.csv" "$r/${NS}cuda_gpu_trace.csv" \
		"$r/${NS}nvtx_pushpop_trace.csv" "$r/${NS}nvtx_kern_sum.csv" >expect &&
	table "$r/ranks.tsv" $RCOLS | rnd "%.1f" 11 | sort >got &&
	test_cmp expect got &&
	table "$r/ranks.tsv" stage device straggler gap_ns >s && cat s &&
	test_grep "^decode_step	$GPU (1)	yes	" s &&
	lp-findings "$r/ranks.tsv" "$r/overlap.tsv" >f.tsv &&
	grep -m 1 "	straggler	" f.tsv >top && cat top &&
	test_grep "($GPU (1)) is the straggler of decode_" top &&
	test_grep "It does more work than the others" top
'

test_done
