#!/usr/bin/env bash
# Issue 27, item 4 on the GPU machine: where the ncu step's time goes on
# the TinyLlama-shaped Llama.  lp's own nsys step and selection (make ...
# ncu/profile.cmd), then lp's ncu command timed as it is, with ncu's cache
# and clock control off, with the fast preset's metrics, and with a kernel
# filter that matches nothing (the floor of an ncu run); the workload
# alone for scale.  Writes $OUT/explore20.txt.
set -u
O=${OUT:-/tmp}
S=/tmp/lpx20
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
export PATH=$PWD/bin:$PATH
L="python3 tests/workloads/hf_llama.py"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
timed() {	# NAME COMMAND-FILE
	t0=$(now); timeout 200 sh "$2" >"$S/$1.log" 2>&1; rc=$?; t1=$(now)
	n=$(grep -c '^==PROF== Profiling' "$S/$1.log")
	printf '%-22s %7s s  exit %s  profiled %s\n' "$1" "$(secs $t0 $t1)" "$rc" "$n"
}
{
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
$L >/dev/null 2>&1	# warm-up
t0=$(now); $L >/dev/null 2>&1; t1=$(now); echo "alone: $(secs $t0 $t1) s"
make --no-print-directory LP_STAGE2_DIR=$S RUN=ll "WORK=$L" MODEL=hf-llama $S/ll/ncu/profile.cmd >$S.make.log 2>&1 || tail -5 $S.make.log
c=$S/ll/ncu/profile.cmd
grep -v '^#' $c >$S/default.sh
sed 's/^ncu /ncu --cache-control none --clock-control none /' $S/default.sh >$S/noctl.sh
fast=gpu__time_duration.sum,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,launch__grid_size,launch__sm_count,launch__occupancy_limit_barriers,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps
sed "s/--metrics [^ ]*/--metrics $fast/" $S/default.sh >$S/fast.sh
sed 's/^ncu /ncu --cache-control none --clock-control none /' $S/fast.sh >$S/fastnoctl.sh
sed "s/--kernel-name '[^']*'/--kernel-name regex:^lp_matches_nothing\$/" $S/default.sh >$S/floor.sh
sed "s/--kernel-name '[^']*'/--kernel-name regex:^lp_matches_nothing\$/; s/--nvtx --nvtx-include '[^']*' //" $S/default.sh >$S/floor-nonvtx.sh
for v in floor floor-nonvtx default noctl fast fastnoctl; do timed $v $S/$v.sh; done
echo "topn: $(grep -vc '^#' $S/ll/topn.tsv) rows; $(grep '^# cover' $S/ll/topn.tsv)"
head -c 600 $S/default.sh; echo
} 2>&1 | tee "$O/explore20.txt"
