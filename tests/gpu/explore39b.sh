#!/usr/bin/env bash
# Issue 39, items 2 and 3 (one device call, H100):
#  B. the CUDA profiler API window: what nsys 2025.3.1 captures with
#     --capture-range=cudaProfilerApi --capture-range-end=stop around the
#     repo decoder's decode (--profiler-api decode), with and without NVTX
#     ranges (the reports lp reads, and the sqlite's window bounds), and
#     which kernels ncu --profile-from-start off profiles; ncu on a forked
#     engine core (--mode fork).
#  A. where the time goes when ncu profiles the model in a spawned child:
#     lp's own ncu command for --mode spawn, run as is and with the
#     workload in one process (--mode eager), ncu's output time-stamped and
#     the processes sampled each second.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/explore39b.sh
set -u
out=${OUT:-/tmp}/e39b; mkdir -p "$out"; w=/tmp/e39b; mkdir -p "$w"
W="python3 tests/workloads/torch_decoder.py"
stamp() { python3 -u -c 'import sys, time
for l in sys.stdin: print("%.3f %s" % (time.time(), l), end="", flush=True)'; }
psloop() { while :; do echo "@ $(date +%s.%N)"; ps -eo pid,ppid,etimes,times,stat,rss,args --sort=pid |
	grep -E "python|ncu|nsys|Nsight|tv_" | grep -v "grep -E" | cut -c1-220; sleep 1; done; }
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "$(date +%s.%N) $s $rc $*" | awk '{ printf "%.2f s rc=%s:", $1 - $2, $3; for (i = 4; i <= NF; i++) printf " %s", $i; print "" }'; return $rc; }
{ nsys --version; ncu --version | tail -1; nvidia-smi -L; } >"$out/versions.txt" 2>&1

# --- B: the profiler API window ---------------------------------------
for r in nvtx none; do
	d=$out/pa-$r; mkdir -p "$d"
	t nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 \
		--cuda-graph-trace=node --capture-range=cudaProfilerApi --capture-range-end=stop \
		--force-overwrite=true --output="$w/pa-$r" -- $W --tokens 8 --profiler-api decode --ranges $r \
		>"$d/profile.log" 2>&1; tail -3 "$d/profile.log"
	nsys export --type sqlite --force-overwrite=true --output="$d/report.sqlite" "$w/pa-$r.nsys-rep" >"$d/export.log" 2>&1
	nsys stats --report cuda_gpu_kern_sum --report nvtx_sum --report nvtx_kern_sum --report cuda_api_sum \
		--report nvtx_pushpop_trace --report nvtx_gpu_proj_trace --report cuda_gpu_trace --report cuda_api_trace \
		--format csv --output="$d/report" "$d/report.sqlite" >"$d/stats.log" 2>&1
	python3 - "$d/report.sqlite" >"$d/sqlite.txt" 2>&1 <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for q in ("SELECT name FROM sqlite_master WHERE type = 'table'", "SELECT * FROM ANALYSIS_DETAILS",
          "SELECT * FROM TARGET_INFO_SESSION_START_TIME",
          "SELECT s.value, count(*), min(r.start), max(r.end) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId GROUP BY s.value ORDER BY min(r.start) LIMIT 8",
          "SELECT s.value, r.start, r.end, r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId WHERE s.value LIKE '%rofiler%'",
          "SELECT count(*), min(start), max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL",
          "SELECT * FROM NVTX_EVENTS LIMIT 5"):
    print("==", q)
    try:
        for row in c.execute(q):
            print(row)
    except Exception as e:
        print("error:", e)
PY
	rm -f "$d/report.sqlite"
done
# ncu: only the window (profile-from-start off), with and without the NVTX filter
for r in nvtx none; do
	d=$out/ncu-pa-$r; mkdir -p "$d"
	t ncu --target-processes all --profile-from-start off --metrics gpu__time_duration.sum \
		--force-overwrite --export "$w/ncu-pa-$r" -- $W --tokens 4 --profiler-api decode --ranges $r >"$d/profile.log" 2>&1
	ncu --import "$w/ncu-pa-$r.ncu-rep" --csv --page raw --metrics gpu__time_duration.sum >"$d/raw.csv" 2>&1
	echo "ncu window ranges=$r: $(($(wc -l <"$d/raw.csv") - 2)) kernels profiled"
done
# the same decode, all kernels of the ranged generation (NVTX filter): the count to compare
d=$out/ncu-nvtx; mkdir -p "$d"
t ncu --target-processes all --metrics gpu__time_duration.sum --nvtx --nvtx-include 'LLM\@decode_all/' \
	--force-overwrite --export "$w/ncu-nvtx" -- $W --tokens 4 >"$d/profile.log" 2>&1
ncu --import "$w/ncu-nvtx.ncu-rep" --csv --page raw --metrics gpu__time_duration.sum >"$d/raw.csv" 2>&1
echo "ncu nvtx decode_all: $(($(wc -l <"$d/raw.csv") - 2)) kernels profiled"
# ncu on a forked engine core
d=$out/ncu-fork; mkdir -p "$d"
t ncu --target-processes all --metrics gpu__time_duration.sum --nvtx --nvtx-include 'LLM\@decode_all/' \
	--force-overwrite --export "$w/ncu-fork" -- $W --mode fork --tokens 4 >"$d/profile.log" 2>&1
ncu --import "$w/ncu-fork.ncu-rep" --csv --page raw --metrics gpu__time_duration.sum >"$d/raw.csv" 2>&1
echo "ncu fork decode_all: $(($(wc -l <"$d/raw.csv") - 2)) kernels profiled"; grep "==PROF==\|rror" "$d/profile.log" | head -5

# --- A: ncu and a spawned child -----------------------------------------
for m in eager spawn; do t $W --mode $m 2>&1 | tail -2; done
export LP_AUTO_DEPS=0
t make -s RUN=sp "WORK=$W --mode spawn" MODEL=torch-decoder tmp/stage2/sp/ncu/profile.cmd >"$out/make-sp.log" 2>&1
cp tmp/stage2/sp/ncu/profile.cmd "$out/sp-ncu.cmd"; ls tmp/stage2/sp/*/*.time 2>/dev/null | while read f; do echo "$f $(cat "$f")"; done >"$out/sp-times.txt"
sed 's/--mode spawn/--mode eager/; s/report\.tmp/report-eager/' tmp/stage2/sp/ncu/profile.cmd >"$w/eager.cmd"
sed 's/report\.tmp/report-spawn/' tmp/stage2/sp/ncu/profile.cmd >"$w/spawn.cmd"
for m in eager spawn; do
	psloop >"$out/ps-$m.log" 2>&1 & pp=$!
	t timeout 330 sh "$w/$m.cmd" 2>&1 | stamp >"$out/ncu-$m.log"
	kill $pp
	echo "$m: $(grep -c "==PROF== Profiling" "$out/ncu-$m.log") kernels profiled"
	grep "Connected\|Disconnected\|rror" "$out/ncu-$m.log" | head -8
done
