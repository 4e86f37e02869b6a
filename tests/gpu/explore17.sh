#!/usr/bin/env bash
# Issue 27 on the GPU machine (run from the repo root with $OUT set): ncu
# on every (kernel, launch configuration) of a decode step, as exports for
# the CPU tests and as seconds.  The TinyLlama-shaped bf16 Llama
# (hf_llama.py, 22 layers, batch 4) captured by lp's nsys step (its
# cuda_gpu_trace gives each launch's grid and block), then ncu inside
# LLM@decode_step with --filter-mode per-launch-config --launch-count 1:
# with a one-pass set (time, DRAM bytes, the bf16 tensor counter, launch
# statistics) and with lp's default set; one launch in all with the
# one-pass set, for the floor; and the graphed torch_decoder the same way
# (per-launch-config inside CUDA graphs).  Writes $OUT/explore17.txt and
# $OUT/plc.tgz (the exports, the ncu commands and the nsys reports).
set -u
S=/tmp/lpx17
O=${OUT:-/tmp}
mkdir -p $S/x
export PATH=$PWD/bin:$PATH
L="python3 tests/workloads/hf_llama.py"
T="python3 tests/workloads/torch_decoder.py --mode graph"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
ONE=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum,launch__grid_size,launch__sm_count,launch__occupancy_limit_barriers,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps
FULL=$(sed -n 's/^    - \([a-z_.]*\)$/\1/p' conf/profiling/ncu/ncu.default.yaml | paste -sd, -)
HEAD="ncu --target-processes all --devices 0 --replay-mode kernel --graph-profiling node --apply-rules no --kernel-name-base mangled"
ncu_run() {	# NAME TIMEOUT NCU-ARGS... -- WORK...
	name=$1 tmo=$2; shift 2
	echo "$HEAD $*" >$S/x/$name.cmd
	t0=$(now); timeout "$tmo" $HEAD --force-overwrite --export $S/$name "$@" >$S/$name.log 2>&1; rc=$?; t1=$(now)
	ncu --import $S/$name.ncu-rep --page raw --csv --print-kernel-base mangled --print-units base >$S/x/$name.csv 2>/dev/null
	printf '%-10s %7s s  exit %s  results %s  passes %s\n' $name "$(secs $t0 $t1)" $rc \
		"$(($(grep -c . $S/x/$name.csv 2>/dev/null || echo 2) - 2))" \
		"$(grep -o 'profiler__replayer_passes' $S/x/$name.csv | head -1)"
	grep -h "==WARNING==\|==ERROR==" $S/$name.log | sort | uniq -c | head -5
}
{
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
t0=$(now); timeout 60 $L >$S/alone.log 2>&1; t1=$(now); echo "llama alone: $(secs $t0 $t1) s: $(tail -1 $S/alone.log)"
t0=$(now); timeout 120 make --no-print-directory LP_STAGE2_DIR=$S RUN=ll "WORK=$L" MODEL=hf-llama nsys/stats.log >$S/ll.log 2>&1
t1=$(now); echo "llama nsys + stats (lp): $(secs $t0 $t1) s, exit $?"
ncu_run one1 90 --metrics $ONE --nvtx --nvtx-include 'LLM\@decode_step/' --launch-count 1 -- $L
ncu_run plc1 150 --metrics $ONE --nvtx --nvtx-include 'LLM\@decode_step/' --filter-mode per-launch-config --launch-count 1 -- $L
ncu_run plcf 240 --metrics $FULL --nvtx --nvtx-include 'LLM\@decode_step/' --filter-mode per-launch-config --launch-count 1 -- $L
ncu_run tgplc 120 --metrics $ONE --nvtx --nvtx-include 'LLM\@decode_step/' --filter-mode per-launch-config --launch-count 1 -- $T
} 2>&1 | tee $O/explore17.txt
cp $S/ll/nsys/report_*.csv $S/ll/nsys/*.cmd $S/x/ 2>/dev/null
tar czf $O/plc.tgz -C $S/x .
ls -la $O
