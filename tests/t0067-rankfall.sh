#!/usr/bin/env bash
# A decode step run by several ranks, one bar a rank (issue 41, item 1, in
# part): rank_waterfall.tsv of the two-H200 tensor-parallel import
# (tests/fixtures/h200-tp, tests/workloads/tp_decode.py), each part
# recomputed here with awk from ranks.tsv and the model's numbers
# (conf/model/tp-mlp.yaml): the memory floor (weights + KV cache over 2
# ranks at 4.8 TB/s), the link floor (4 layers x 1 all-reduce of 1 x 4096
# fp16, a ring moving 2(n-1)/n of it, at 450 GB/s), the parts adding up to
# each rank's step.
. "$(dirname "$0")/lib.sh"

TP=$FIX/h200-tp
lpmake RUN=tp "IMPORT=$(echo "$TP"/tps_*.csv)" MODEL=tp-mlp details.md >/dev/null 2>&1
R=$S2/tp

test_expect_success 'each rank: memory floor, kernels above it, link floor, collectives above it, idle, as awk has them' '
	test -s "$R/rank_waterfall.tsv" &&
	# N b + 2 L B d b (P + (T+1)/2) bytes a step, over 2 ranks, at 4.8e12 B/s
	mem=$(awk "BEGIN { printf \"%.1f\", (536870912 * 2 + 2 * 4 * 1 * 4096 * 2 * (64 + 17 / 2)) / 2 / 4.8e12 * 1e9 }") &&
	link=$(awk "BEGIN { printf \"%.1f\", 4 * 1 * (2 * (2 - 1) / 2 * 1 * 4096 * 2) / 450e9 * 1e9 }") &&
	echo "floors: memory $mem ns, link $link ns" &&
	table "$R/ranks.tsv" stage pid median_ns kernel_ns comm_ns | awk -F"\t" -v m="$mem" -v l="$link" "\$1 == \"decode_step\" {
		c = \$4 - \$5; fm = m < c ? m : c; fl = l < \$5 ? l : \$5
		printf \"%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\n\", \$2, \$3, fm, c - fm, fl, \$5 - fl, \$3 - \$4 }" >expect &&
	table "$R/rank_waterfall.tsv" pid step_ns mem_floor_ns compute_above_ns comm_floor_ns comm_above_ns idle_ns |
		awk -F"\t" -v OFS="\t" "{ for (i = 2; i <= NF; i++) \$i = sprintf(\"%.1f\", \$i); print }" >got &&
	test_cmp expect got &&
	test $(wc -l <got) = 2 &&
	# the parts add up to each rank step
	awk -F"\t" "{ d = \$3 + \$4 + \$5 + \$6 + \$7 - \$2; if (d > 0.5 || d < -0.5) bad++ } END { exit bad > 0 }" got
'

test_expect_success 'the sources of each floor are said, and shown in details.md with the parts' '
	test_grep "^# dram: 4800000000000 B/s" "$R/rank_waterfall.tsv" &&
	test_grep "^# link: 450000000000 B/s (each direction, per GPU: .*gpu.tsv.s link row, from conf/gpus.yaml link_gbps)" "$R/rank_waterfall.tsv" &&
	table "$R/gpu.tsv" path peak from | grep "^link	450000000000	conf/gpus.yaml$" &&
	test_grep "^# messages: 4 x 1 all-reduces of 8192 bytes a step" "$R/rank_waterfall.tsv" &&
	test_grep "^# latency: n/a because the run is imported: lp did not run on its machine" "$R/rank_waterfall.tsv" &&
	grep -A8 "^## Each Rank.s Step" "$R/details.md" >sec &&
	test_grep "memory floor at the DRAM.s 4800000000000 B/s" sec &&
	test_grep "| Mem. floor | Kernels above | Link floor | Collectives above | Idle |" sec &&
	test $(grep -c "^| [0-9]" sec) = 2
'

test_expect_success 'a GPU without a link bandwidth: the link floor is n/a with why, the totals stay; one process: omitted' '
	grep -v "^link	" "$R/gpu.tsv" >gpu.tsv &&
	lp-rankfall -g gpu.tsv -i "$R/inputs.yaml" "$R/ranks.tsv" >nl.tsv &&
	table nl.tsv comm_floor_ns comm_above_ns | sort -u >cells &&
	test_grep "^n/a because gpu.tsv has no link bandwidth for this GPU (conf/gpus.yaml link_gbps)	n/a because its floor is n/a$" cells &&
	table nl.tsv comm_ns >c1 && table "$R/rank_waterfall.tsv" comm_ns >c2 && test_cmp c2 c1 &&
	awk -F"\t" -v OFS="\t" "/^#/ || \$1 != \"decode_step\" || !n++ { print }" "$R/ranks.tsv" >one.tsv &&
	lp-rankfall -g "$R/gpu.tsv" -i "$R/inputs.yaml" one.tsv >o.tsv &&
	test_grep "^# omit: one process" o.tsv && test "$(table o.tsv pid | wc -l)" = 0
'

test_expect_success 'on an untraced step: kernels kept, the rest split as the capture split it, parts add up to it' '
	# an untraced timing run whose decode step took 0.7 of the capture median
	med=$(table "$R/ranks.tsv" stage median_ns | awk -F"\t" "\$1 == \"decode_step\" { print \$2; exit }") &&
	ut=$(awk -v m="$med" "BEGIN { printf \"%.1f\", 0.7 * m }") &&
	awk -F"\t" -v OFS="\t" -v u="$ut" "
		/^# timing:/ { print \"# timing: untraced\"; t = 1; next }
		/^#/ { print; next }
		!h++ { for (i = 1; i <= NF; i++) c[\$i] = i; print; next }
		\$c[\"stage\"] == \"decode_step\" { \$c[\"steady_ns\"] = u }
		{ print }
		END { if (!t) exit 1 }" "$R/steps.tsv" >ut.tsv &&
	lp-rankfall -g "$R/gpu.tsv" -i "$R/inputs.yaml" -t ut.tsv "$R/ranks.tsv" >u.tsv &&
	table "$R/ranks.tsv" stage pid median_ns kernel_ns comm_ns | awk -F"\t" -v u="$ut" "\$1 == \"decode_step\" {
		c = \$4 - \$5; w = \$3 - c; cm = (u - c) * \$5 / w
		printf \"%s\t%.1f\t%.1f\t%.1f\t%.1f\n\", \$2, u, c, cm, u - c - cm }" >expect &&
	table u.tsv pid step_ns compute_ns comm_ns idle_ns |
		awk -F"\t" -v OFS="\t" "{ for (i = 2; i <= NF; i++) \$i = sprintf(\"%.1f\", \$i); print }" >got &&
	test_cmp expect got &&
	table u.tsv step_ns compute_ns comm_ns idle_ns | awk -F"\t" "{ d = \$2 + \$3 + \$4 - \$1; if (d > 0.5 || d < -0.5) bad++ } END { exit bad > 0 }" &&
	test_grep "the untraced run.s step for every rank: its kernels as the capture timed them, the rest of the step split between communication and GPU idle as the capture split it" u.tsv
'

test_done
