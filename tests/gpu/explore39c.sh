#!/usr/bin/env bash
# Issue 39, items 1 and 2 (one device call, H100, 2026-11-27):
#  F. a forked engine core (torch_decoder.py --mode fork: the child
#     touches CUDA first, no exec): lp's nsys capture with and without
#     --trace-fork-before-exec=true, the untraced run's --trace=nvtx with
#     it, the child decoding from CUDA graphs, ncu --target-processes all;
#     each with the workload's own step times against --mode eager.
#  A. where the time goes when ncu profiles the model in a spawned child:
#     lp's own ncu command for --mode spawn, as is and with the workload in
#     one process (--mode eager), ncu's output time-stamped and the
#     processes sampled each second.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/explore39c.sh
set -u
out=/tmp/e39c-out; mkdir -p "$out"; w=/tmp/e39c; mkdir -p "$w"  # $OUT gets out.tgz from the caller
W="python3 tests/workloads/torch_decoder.py"
NS="nsys profile --sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --force-overwrite=true"
LPN="--trace=cuda,nvtx --cuda-graph-trace=node --gpu-metrics-devices=all --gpu-metrics-frequency=1000"
stamp() { python3 -u -c 'import sys, time
for l in sys.stdin: print("%.3f %s" % (time.time(), l), end="", flush=True)'; }
psloop() { while :; do echo "@ $(date +%s.%N)"; ps -eo pid,ppid,etimes,times,stat,rss,args --sort=pid |
	grep -E "python|ncu|nsys|Nsight|tv_" | grep -v "grep -E" | cut -c1-220; sleep 1; done; }
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "$(date +%s.%N) $s $rc $*" | awk '{ printf "%.2f s rc=%s:", $1 - $2, $3; for (i = 4; i <= NF; i++) printf " %s", $i; print "" }'; return $rc; }
{ nsys --version; ncu --version | tail -1; nvidia-smi -L; } >"$out/versions.txt" 2>&1
summ() { # $1 name, $2 report base: what the capture holds
	local d=$w/$1
	nsys stats --report nvtx_sum --report cuda_gpu_kern_sum --format csv --output="$d" "$2.nsys-rep" >"$d.stats.log" 2>&1
	echo "$1: ranges: $(grep -o 'LLM@[a-z_]*' "${d}_nvtx_sum.csv" 2>/dev/null | sort -u | tr '\n' ' ')" \
		"kernel names: $(($(wc -l <"${d}_cuda_gpu_kern_sum.csv" 2>/dev/null || echo 1) - 1))"
	cp "${d}_nvtx_sum.csv" "$out/$1_nvtx_sum.csv" 2>/dev/null
}

# --- F: the forked engine core --------------------------------------------
{
for i in 1 2; do
	for m in eager fork; do t timeout 120 $W --mode $m 2>&1 | tail -1; done
done
t timeout 120 $NS $LPN --output="$w/fork-plain" -- $W --mode fork >"$w/fork-plain.log" 2>&1; tail -2 "$w/fork-plain.log"
summ fork-plain "$w/fork-plain"
for i in 1 2; do
	t timeout 150 $NS $LPN --trace-fork-before-exec=true --output="$w/fork-tfbe$i" -- $W --mode fork >"$w/fork-tfbe$i.log" 2>&1
	grep torch_decoder "$w/fork-tfbe$i.log" | tail -1; summ fork-tfbe$i "$w/fork-tfbe$i"
	t timeout 150 $NS $LPN --output="$w/eager-lp$i" -- $W --mode eager >"$w/eager-lp$i.log" 2>&1
	grep torch_decoder "$w/eager-lp$i.log" | tail -1; summ eager-lp$i "$w/eager-lp$i"
	t timeout 150 $NS --trace=nvtx --trace-fork-before-exec=true --output="$w/fork-nvtx$i" -- $W --mode fork >"$w/fork-nvtx$i.log" 2>&1
	grep torch_decoder "$w/fork-nvtx$i.log" | tail -1; summ fork-nvtx$i "$w/fork-nvtx$i"
done
t timeout 150 $NS $LPN --trace-fork-before-exec=true --output="$w/forkg" -- $W --mode fork --child-mode graph >"$w/forkg.log" 2>&1
grep "torch_decoder\|rror" "$w/forkg.log" | tail -2; summ forkg "$w/forkg"
t timeout 150 $NS $LPN --output="$w/graphlp" -- $W --mode graph >"$w/graphlp.log" 2>&1
grep torch_decoder "$w/graphlp.log" | tail -1
t timeout 150 ncu --target-processes all --metrics gpu__time_duration.sum --nvtx --nvtx-include 'LLM@decode_all/' \
	--force-overwrite --export "$w/ncu-fork" -- $W --mode fork --tokens 4 >"$w/ncu-fork.log" 2>&1
grep "==PROF==\|rror\|torch_decoder" "$w/ncu-fork.log" | head -5
ncu --import "$w/ncu-fork.ncu-rep" --csv --page raw --metrics gpu__time_duration.sum >"$w/ncu-fork.csv" 2>&1
echo "ncu fork decode_all: $(($(wc -l <"$w/ncu-fork.csv") - 2)) kernels profiled"
} >"$out/fork.txt" 2>&1
cat "$out/fork.txt"

# --- A: ncu and a spawned child -------------------------------------------
{
for m in eager spawn; do t timeout 120 $W --mode $m 2>&1 | tail -1; done
export LP_AUTO_DEPS=0
t timeout 200 make -s RUN=sp "WORK=$W --mode spawn" MODEL=torch-decoder tmp/stage2/sp/ncu/profile.cmd >"$out/make-sp.log" 2>&1
cp tmp/stage2/sp/ncu/profile.cmd "$out/sp-ncu.cmd"
sed 's/--mode spawn/--mode eager/; s/report\.tmp/report-eager/' tmp/stage2/sp/ncu/profile.cmd >"$w/eager.cmd"
sed 's/report\.tmp/report-spawn/' tmp/stage2/sp/ncu/profile.cmd >"$w/spawn.cmd"
for m in eager spawn; do
	psloop >"$out/ps-$m.log" 2>&1 & pp=$!
	t timeout $([ $m = eager ] && echo 150 || echo 300) sh "$w/$m.cmd" 2>&1 | stamp >"$out/ncu-$m.log"
	kill $pp
	echo "$m: $(grep -c "==PROF== Profiling" "$out/ncu-$m.log") kernels profiled"
	grep "Connected\|Disconnected\|rror" "$out/ncu-$m.log" | head -8
done
} >"$out/spawn.txt" 2>&1
cat "$out/spawn.txt"
