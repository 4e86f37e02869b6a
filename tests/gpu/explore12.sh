#!/usr/bin/env bash
# Issue 17 on the GPU machine (run from the repo root with $OUT set):
# explore11 showed the ncu step's time is in the replay passes after all
# (top 10 of torch_decoder: 23.9 s with lp's 5 sections + 19 metrics, 19
# passes a kernel; 10.7 s with gpu__time_duration alone, 1 pass).  Which
# section costs what, and does lp's own metric list, without the sections
# (the section metrics lp reads named one by one), keep every number of
# metrics.tsv?  Per variant: ncu's wall time, passes a kernel, seconds a
# kernel; then metrics.tsv of each against the default's, kernel by kernel.
# Writes $OUT/explore12.txt.
. tests/gpu/ncu-times.sh
S=/tmp/lpe; mkdir -p $S /tmp/e12
variant() {	# NAME sed-expr: the default command with the sed applied
	name=$1 e=$2
	sed -e "$e" -e "s#--export [^ ]*#--export /tmp/e12/$name#" $C > /tmp/e12/$name.cmd
	t0=$(date +%s.%N)
	s=$(sh /tmp/e12/$name.cmd 2>&1 | ncu_times)
	t1=$(date +%s.%N)
	printf '%-12s %6.2f s  %s\n' $name "$(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }')" "$s"
	bin/lp-ncucmd -x -- /tmp/e12/$name.ncu-rep < $S/t/ncu/config.yaml > /tmp/e12/$name.x
	sh /tmp/e12/$name.x > /tmp/e12/$name.csv 2>/dev/null && bin/lp-ncu2tsv /tmp/e12/$name.csv 2>&1 | sed '/^#/d' > /tmp/e12/$name.tsv
}
LAUNCH=launch__grid_size,launch__sm_count,launch__occupancy_limit_barriers,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps
BASIC=gpu__time_duration.sum,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum
SOLM=sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed
NOSEC='s#--section [^ ]* ##g'
{
	torch_ncu_cmd || exit 1
	variant base ''
	variant new "$NOSEC; s#--metrics [^ ]*#--metrics $BASIC,$SOLM,$TC,$SASS$LAUNCH#"
	variant new-nosm "$NOSEC; s#--metrics [^ ]*#--metrics $BASIC,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,$TC,$SASS$LAUNCH#"
	variant metrics19 "$NOSEC"
	variant no-sass "$NOSEC; s#--metrics [^ ]*#--metrics $BASIC,$SOLM,$TC,$LAUNCH#"
	variant no-tc "$NOSEC; s#--metrics [^ ]*#--metrics $BASIC,$SOLM,${SASS}$LAUNCH#"
	for s in SpeedOfLight LaunchStats Occupancy MemoryWorkloadAnalysis ComputeWorkloadAnalysis; do
		variant sec-$s "$NOSEC; s#--metrics [^ ]*#--section $s --metrics gpu__time_duration.sum#"
	done
	variant base2 ''
	for v in base2 new new-nosm metrics19; do echo "  $v against base:"; cmp_metrics /tmp/e12/base.tsv /tmp/e12/$v.tsv; done
	echo "--- the default command"; cat $C
	echo "--- the new one"; cat /tmp/e12/new.cmd
} 2>&1 | tee "${OUT:-/tmp}/explore12.txt"
cp /tmp/e12/*.tsv "${OUT:-/tmp}/" 2>/dev/null
