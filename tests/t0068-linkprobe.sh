#!/usr/bin/env bash
# The measured link (issue 41, item 4): lp-linkprobe fails loudly where it
# cannot measure (no driver, no GPU) and writes an empty table with one
# GPU; lp-rankfall adds its measured latency to each all-reduce's floor,
# shows its bus bandwidth beside the datasheet's, and says why where it
# has none (the probe could not run, it measured another number of GPUs,
# the run is imported).  The live measurement is check-gpu's (t0006).
. "$(dirname "$0")/lib.sh"

FAKE=$ROOT/bin/test/libcuda-fake.so
TP=$FIX/h200-tp
lpmake RUN=tp "IMPORT=$(echo "$TP"/tps_*.csv)" MODEL=tp-mlp rank_waterfall.tsv >/dev/null 2>&1
R=$S2/tp

test_expect_success 'no driver, no GPU: a message, exit 2, no table; one GPU: an empty table, exit 0' '
	test_expect_code 2 lp-linkprobe -c /nonexistent/libcuda.so.1 >out 2>err &&
	test_grep "cannot load the CUDA driver" err && test ! -s out &&
	FAKE_CUDA_NODEVICE=1 test_expect_code 2 lp-linkprobe -c "$FAKE" >out 2>err &&
	test_grep "sees no GPU: no link to measure" err && test ! -s out &&
	lp-linkprobe -c "$FAKE" >one.tsv &&
	test_grep "^# omit: one GPU: no link between GPUs$" one.tsv &&
	test "$(table one.tsv gpus | wc -l)" = 0
'

probe() {
	printf "# title: All-Reduce Between the GPUs, Measured\n# tool: lp-linkprobe\n"
	printf "gpus\tbytes\tops\treplays\tbest_ns\tmedian_ns\tbusbw_best\tbusbw_median\n"
	printf "%s\t8\t50\t20\t%s\t%s\t1\t1\n" "$1" "$2" "$2"
	printf "%s\t268435456\t5\t20\t1000000\t1100000\t%s\t300000000000\n" "$1" "$3"
}

test_expect_success 'a probe of 2 GPUs: the link floor is each all-reduce wire bytes at 450 GB/s plus its latency' '
	probe 2 2500 340000000000 >lp.tsv &&
	lp-rankfall -g "$R/gpu.tsv" -i "$R/inputs.yaml" -l lp.tsv "$R/ranks.tsv" >w.tsv &&
	# 4 layers x 1 all-reduce x (8192 bytes x 2(2-1)/2 / 450e9 s + 2500 ns)
	fl=$(awk "BEGIN { printf \"%.1f\", 4 * (8192 / 450e9 * 1e9 + 2500) }") &&
	table "$R/ranks.tsv" stage pid comm_ns | awk -F"\t" -v f="$fl" "\$1 == \"decode_step\" {
		x = f < \$3 ? f : \$3; printf \"%s\t%.1f\t%.1f\n\", \$2, x, \$3 - x }" >expect &&
	table w.tsv pid comm_floor_ns comm_above_ns | awk -F"\t" -v OFS="\t" "{ \$2 = sprintf(\"%.1f\", \$2); \$3 = sprintf(\"%.1f\", \$3); print }" >got &&
	test_cmp expect got &&
	test_grep "^# latency: 2500 ns an all-reduce (the best 8-byte all-reduce on 2 GPUs, lp.tsv)$" w.tsv &&
	test_grep "^# link: 450000000000 B/s (each direction, per GPU: .*link_gbps); measured: 340000000000 B/s bus bandwidth (the best 268435456-byte all-reduce on 2 GPUs, lp.tsv)$" w.tsv
'

test_expect_success 'no latency, with why: a probe of 4 GPUs only, an empty probe with its log, an import' '
	probe 4 2500 340000000000 >p4.tsv &&
	lp-rankfall -g "$R/gpu.tsv" -i "$R/inputs.yaml" -l p4.tsv "$R/ranks.tsv" >w4.tsv &&
	test_grep "^# latency: n/a because the link probe (p4.tsv) measured no all-reduce on 2 GPUs, the run.s ranks: the link floor is the transfer alone$" w4.tsv &&
	: >empty.tsv && echo "lp-linkprobe: cannot find NCCL" >empty.log &&
	lp-rankfall -g "$R/gpu.tsv" -i "$R/inputs.yaml" -l empty.tsv -e empty.log "$R/ranks.tsv" >we.tsv &&
	test_grep "^# latency: n/a because the link probe could not run on the run.s machine (lp-linkprobe: lp-linkprobe: cannot find NCCL)" we.tsv &&
	test_grep "^# latency: n/a because the run is imported: lp did not run on its machine, so there is no link probe of its GPUs" "$R/rank_waterfall.tsv" &&
	test_expect_code 2 lp-rankfall -g "$R/gpu.tsv" -i "$R/inputs.yaml" -l p4.tsv -P why "$R/ranks.tsv" >/dev/null 2>&1
'

test_expect_success 'a probe table with a bad cell: file, line and column, no table' '
	probe 2 abc 1 >bad.tsv &&
	test_expect_code 1 lp-rankfall -g "$R/gpu.tsv" -i "$R/inputs.yaml" -l bad.tsv "$R/ranks.tsv" >o 2>e &&
	test_grep "bad.tsv:4:5: best_ns" e && test ! -s o
'

test_done
