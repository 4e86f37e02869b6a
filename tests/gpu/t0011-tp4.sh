#!/usr/bin/env bash
# GPU, four GPUs (issue 41): the repo's tensor-parallel decode under
# torchrun --nproc-per-node 4 (tests/workloads/tp_decode.py, 16 layers),
# the whole deep profile: the link probe measured all-reduces on 2 and 4
# GPUs; ranks.tsv and overlap.tsv are awk's recomputation from the run's
# own exports; each rank's bar adds up to the untraced step; the brief's
# verdict names 4 GPUs and agrees with the ranks; GPU Metrics have a row a
# GPU.  Then a straggler made on purpose (rank 2, 40 extra matrix products
# a step) is named, with its kernels as the cause.  Fewer than 4 GPUs: skip.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/gpu/lib.sh"
. "$ROOT/tests/ranks.sh"

need_gpus 4
TR="python3 -m torch.distributed.run --nproc-per-node 4"
TPW="tests/workloads/tp_decode.py --layers 16 --tokens 16"
SETS="model.layers=16 model.params=2147483648 model.decode_tokens=16"
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0)
NS=nsys/report_

test_expect_success 'torchrun, four ranks: the whole run, every artifact' '
	lpmake RUN=tp4 "WORK=$TR $TPW --overlap-matmuls 2" MODEL=tp-mlp "SET=$SETS" \
		stakeholder_summary.md >log 2>&1 || { tail -40 log; false; } &&
	cp log "$S2/tp4.log"
'

test_expect_success 'the link probe: all-reduces on 2 and 4 GPUs, latency and bus bandwidth' '
	r=$S2/tp4 &&
	table "$r/linkprobe.tsv" gpus | sort -u >g && printf "2\n4\n" >want && test_cmp want g &&
	table "$r/linkprobe.tsv" gpus bytes best_ns busbw_best | awk -F"\t" "\$1 == 4 && (\$2 == 8 || \$2 == 268435456)" >four &&
	cat four && test $(wc -l <four) = 2 &&
	awk -F"\t" "!(\$3 > 0 && \$4 > 0) { exit 1 }" four
'

test_expect_success 'ranks.tsv and overlap.tsv: four ranks as awk recomputes them from the exports' '
	r=$S2/tp4 &&
	check_ranks "$r" "$r/$NS" "$GPU" 4
'

test_expect_success 'a bar a rank, adding up to the untraced step (within 2 %), the floor from the probe and the datasheet' '
	r=$S2/tp4 &&
	ut=$(table "$r/steps.tsv" stage steady_ns | awk -F"\t" "\$1 == \"decode_step\" { print \$2 }") &&
	test_grep "^# timing: untraced" "$r/steps.tsv" &&
	table "$r/rank_waterfall.tsv" pid step_ns mem_floor_ns compute_above_ns comm_floor_ns comm_above_ns idle_ns >w &&
	cat w && test $(wc -l <w) = 4 &&
	awk -F"\t" -v u="$ut" "{ s = \$3 + \$4 + \$5 + \$6 + \$7; if (s < 0.98 * u || s > 1.02 * u) bad++ } END { exit bad > 0 }" w &&
	test_grep "^# latency: [0-9]* ns an all-reduce (the best 8-byte all-reduce on 4 GPUs, " "$r/rank_waterfall.tsv" &&
	test_grep "^# link: 450000000000 B/s .*; measured: [0-9]* B/s bus bandwidth" "$r/rank_waterfall.tsv" &&
	test_grep "^\*\*Each Rank.s Step (ms)\*\*" "$r/stakeholder_summary.md"
'

test_expect_success 'the verdict: 4 GPUs named, the bound the ranks give; GPU Metrics a row a GPU' '
	r=$S2/tp4 &&
	head -1 "$r/stakeholder_summary.md" >title && cat title &&
	test_grep "^# decode_all is [a-z-]* on 4 x $GPU: " title &&
	v=$(sed -n "s/^# verdict: //p" "$r/bound.tsv") &&
	e=$(table "$r/bound.tsv" kind pct process | awk -F"\t" "\$3 != \"-\" && \$1 == \"communication\" {
		n++; if (\$2 >= 60) many++ } END { print (many == n ? \"communication-bound\" : \"other\") }") &&
	echo "verdict $v; every rank 60 % in collectives: $e" &&
	{ test "$e" = other || test "$v" = "$e"; } &&
	table "$r/gpumetrics.tsv" gpu | sort -u >gg && printf "$GPU (%s)\n" 0 1 2 3 >want && test_cmp want gg
'

test_expect_success 'a straggler made on purpose (rank 2, 40 extra products a step) is named, its kernels the cause' '
	lpmake RUN=tp4s "WORK=$TR $TPW --straggle-rank 2 --straggle-matmuls 40" MODEL=tp-mlp "SET=$SETS" \
		ranks.tsv bound.tsv rank_waterfall.tsv >log 2>&1 || { tail -40 log; false; } &&
	r=$S2/tp4s &&
	table "$r/ranks.tsv" stage device straggler >s && cat s &&
	test_grep "^decode_step	$GPU (2)	yes$" s &&
	pid=$(table "$r/ranks.tsv" stage device pid | awk -F"\t" -v d="$GPU (2)" "\$1 == \"decode_step\" && \$2 == d { print \$3 }") &&
	sed -n "s/^# why: //p" "$r/bound.tsv" >why && cat why &&
	test_grep "^ranks wait for process $pid.s kernels$" why
'

test_done
