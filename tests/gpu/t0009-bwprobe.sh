#!/usr/bin/env bash
# GPU: lp-bwprobe on the real CUDA driver (issue 31, item 3): every GPU
# of the machine probed, its best device-to-device copy between 50 % and
# 100 % of its datasheet DRAM bandwidth (conf/gpus.yaml hbm_tbps, as
# lp-gpu resolves the name the driver gives: H100 SXM 3.35 TB/s, H200 4.8
# TB/s), the median no faster than the best; then dram_bw.tsv from it.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/gpu/lib.sh"

test_expect_success 'lp-bwprobe: a row per GPU nvidia-smi lists, names as it gives them' '
	lp-bwprobe >p.tsv 2>err || { cat err; false; } &&
	test_must_be_empty err &&
	cat p.tsv &&
	nvidia-smi --query-gpu=name --format=csv,noheader >want &&
	table p.tsv name >got &&
	test_cmp want got &&
	table p.tsv bytes copies | sort -u >sz &&
	printf "1073741824\t10\n" >expect && test_cmp expect sz &&
	cp p.tsv "$S2/bwprobe.tsv"
'

test_expect_success 'best copy within 50 % to 100 % of the datasheet; median no faster than best' '
	table "$S2/bwprobe.tsv" name best_bytes_per_s median_bytes_per_s >rows &&
	while IFS="	" read -r name best med; do
		printf "gpu:\n  name: \"%s\"\n" "$name" >c.yaml &&
		lp-gpu -c c.yaml -t "$ROOT/conf/gpus.yaml" >g.tsv &&
		ds=$(table g.tsv path peak | awk -F"\t" "\$1 == \"dram\" { print \$2 }") &&
		test -n "$ds" || { echo "no datasheet bandwidth for $name"; return 1; }
		echo "$name: best $best median $med datasheet $ds" &&
		awk -v b="$best" -v m="$med" -v d="$ds" "BEGIN { exit !(b >= 0.5 * d && b <= d && m <= b && m > 0) }" ||
		{ echo "out of bounds: $name"; return 1; }
	done <rows
'

test_expect_success 'a smaller copy and fewer repetitions, and dram_bw.tsv from the probe' '
	lp-bwprobe -s 67108864 -r 3 >s.tsv &&
	table s.tsv bytes copies | sort -u >sz &&
	printf "67108864\t3\n" >expect && test_cmp expect sz &&
	name=$(table "$S2/bwprobe.tsv" name | head -1) &&
	printf "gpu:\n  name: \"%s\"\n" "$name" >c.yaml &&
	lp-gpu -c c.yaml -t "$ROOT/conf/gpus.yaml" >g.tsv &&
	lp-bwceil -g g.tsv -p "$S2/bwprobe.tsv" >b.tsv &&
	cat b.tsv &&
	test_grep "^# measured_bps: [0-9]" b.tsv &&
	test_grep "^# measured: the fastest of 10 device-to-device copies of 1073741824 bytes on " b.tsv
'

test_done
