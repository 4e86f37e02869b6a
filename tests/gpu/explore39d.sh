#!/usr/bin/env bash
# Issue 39 (one device call, H100, 2026-11-27), after explore39c.sh found
# the spawned engine core's decode steps at 7.67 s each under lp's ncu
# command (both processes idle, the in-process steps as usual):
#  S. which part of the ncu command makes the spawned child wait: lp's
#     command and variants, --tokens 2 --warmup 0, the workload's own
#     decode_step_med printed by each;
#  K. the forked core under --trace-fork-before-exec=true: what the
#     export holds (kernels, ranges) and what nsys says;
#  B. the profiler API window (nsys --capture-range=cudaProfilerApi, ncu
#     --profile-from-start off), with and without NVTX ranges;
#  T. check-gpu t0008 tests 11 and 12 (fork refused, the window live).
# Needs tmp/stage2/sp/ncu/profile.cmd from explore39c.sh's make (rebuilt
# here).
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/explore39d.sh
set -u
out=/tmp/e39d-out; mkdir -p "$out"; w=/tmp/e39d; mkdir -p "$w"
W="python3 tests/workloads/torch_decoder.py"
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "$(date +%s.%N) $s $rc $*" | awk '{ printf "%.2f s rc=%s:", $1 - $2, $3; for (i = 4; i <= NF; i++) printf " %s", $i; print "" }'; return $rc; }
export LP_AUTO_DEPS=0

# --- S -------------------------------------------------------------------
{
make -s RUN=sp "WORK=$W --mode spawn --tokens 2 --warmup 0" MODEL=torch-decoder tmp/stage2/sp/ncu/profile.cmd >"$w/make-sp.log" 2>&1 || tail "$w/make-sp.log"
lp=$(cat tmp/stage2/sp/ncu/profile.cmd)
v() { # name, command
	echo "== $1"; t timeout 80 sh -c "$2" >"$w/$1.log" 2>&1
	grep "torch_decoder:" "$w/$1.log" | sed 's/.*time=/time=/'; echo "profiled: $(grep -c '==PROF== Profiling' "$w/$1.log")"
}
v lp-spawn "$lp"
v lp-eager "$(echo "$lp" | sed 's/--mode spawn/--mode eager/')"
v nomatch-spawn "ncu --target-processes all --kernel-name regex:^NOMATCH\$ -- $W --mode spawn --tokens 2 --warmup 0"
v nvtx-spawn "ncu --target-processes all --nvtx --nvtx-include 'LLM\\@decode_all/' --kernel-name regex:^NOMATCH\$ -- $W --mode spawn --tokens 2 --warmup 0"
v lc-spawn "$(echo "$lp" | sed 's/--filter-mode per-launch-config --launch-count 1/--launch-count 11/')"
v plc-spawn "ncu --target-processes all --metrics gpu__time_duration.sum --filter-mode per-launch-config --launch-count 1 --kernel-name regex:nvjet -- $W --mode spawn --tokens 2 --warmup 0"
v one-spawn "ncu --target-processes all --metrics gpu__time_duration.sum --launch-count 1 -- $W --mode spawn --tokens 2 --warmup 0"
} >"$out/spawn.txt" 2>&1
cat "$out/spawn.txt"

# --- K -------------------------------------------------------------------
{
t timeout 100 nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --cuda-graph-trace=node --trace-fork-before-exec=true \
	--force-overwrite=true --output="$w/tfbe" -- $W --mode fork >"$w/tfbe.log" 2>&1
cat "$w/tfbe.log" | tail -15
nsys stats --report nvtx_sum --report cuda_gpu_kern_sum --report cuda_api_sum --format csv --output="$w/tfbe" "$w/tfbe.nsys-rep" 2>&1 | tail -8
head -3 "$w/tfbe_cuda_gpu_kern_sum.csv" "$w/tfbe_cuda_api_sum.csv" "$w/tfbe_nvtx_sum.csv" 2>&1
nsys export --type sqlite --force-overwrite=true --output="$w/tfbe.sqlite" "$w/tfbe.nsys-rep" >/dev/null 2>&1
python3 - "$w/tfbe.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for q in ("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'CUPTI%'",
          "SELECT globalTid / 16777216 % 16777216 AS pid, count(*) FROM NVTX_EVENTS GROUP BY pid",
          "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME",
          "SELECT * FROM PROCESSES"):
    print("==", q)
    try:
        for row in c.execute(q): print(row)
    except Exception as e: print("error:", e)
PY
} >"$out/fork.txt" 2>&1
cat "$out/fork.txt"

# --- B -------------------------------------------------------------------
{
for r in nvtx none; do
	d=$w/pa-$r; mkdir -p "$d"
	t timeout 100 nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 \
		--cuda-graph-trace=node --capture-range=cudaProfilerApi --capture-range-end=stop \
		--force-overwrite=true --output="$d/r" -- $W --tokens 8 --profiler-api decode --ranges $r >"$d/profile.log" 2>&1
	tail -3 "$d/profile.log"
	nsys stats --report nvtx_sum --report cuda_gpu_kern_sum --format csv --output="$d/r" "$d/r.nsys-rep" >"$d/stats.log" 2>&1
	echo "-- pa-$r nvtx_sum:"; cat "$d/r_nvtx_sum.csv" 2>&1 | head -5
	echo "-- pa-$r kernels: $(($(wc -l <"$d/r_cuda_gpu_kern_sum.csv") - 1)) names, instances $(python3 -c 'import csv,sys; print(sum(int(r["Instances"]) for r in csv.DictReader(open(sys.argv[1]))))' "$d/r_cuda_gpu_kern_sum.csv")"
done
for r in nvtx none; do
	t timeout 100 ncu --target-processes all --profile-from-start off --metrics gpu__time_duration.sum \
		--force-overwrite --export "$w/ncu-pa-$r" -- $W --tokens 4 --profiler-api decode --ranges $r >"$w/ncu-pa-$r.log" 2>&1
	echo "ncu window ranges=$r: $(grep -c '==PROF== Profiling' "$w/ncu-pa-$r.log") kernels profiled"
done
t timeout 100 ncu --target-processes all --metrics gpu__time_duration.sum --nvtx --nvtx-include 'LLM\@decode_all/' \
	--force-overwrite --export "$w/ncu-nvtx" -- $W --tokens 4 >"$w/ncu-nvtx.log" 2>&1
echo "ncu nvtx decode_all: $(grep -c '==PROF== Profiling' "$w/ncu-nvtx.log") kernels profiled"
} >"$out/window.txt" 2>&1
cat "$out/window.txt"

# --- T -------------------------------------------------------------------
export LP_GPU_STAGE2=/tmp/lpg
LP_RUN="11 12" timeout 200 prove --exec '' -v tests/gpu/t0008-graphs.sh >"$out/t0008.txt" 2>&1
tail -40 "$out/t0008.txt"
(cd /tmp/lpg && tar czf "$out/papi.tgz" --exclude='*.nsys-rep' --exclude='*.ncu-rep' --exclude='*.sqlite' papi forked 2>/dev/null)
