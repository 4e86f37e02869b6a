#!/usr/bin/env bash
# Issue 41, third call on 4 GPUs (nvidia-h100-x4): check-gpu's t0011 (4
# ranks) and the held-out acceptance (heldout41.sh), then t0006 (2 ranks)
# in the time left; logs and the runs' small artifacts under $OUT.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/explore41c.sh
set -u
out=${OUT:-/tmp/o41}; mkdir -p "$out"
export LP_GPU_STAGE2=/tmp/lpg LP_AUTO_DEPS=0 PYTHONUNBUFFERED=1; mkdir -p /tmp/lpg
T0=$(date +%s); el() { echo "[t+$(( $(date +%s) - T0 ))s] $*"; }
make -s -j16 >/dev/null 2>&1 || { make -j16 2>&1 | tail -20; exit 1; }
el built
timeout 260 prove --exec '' -v tests/gpu/t0011-tp4.sh >"$out/t0011.txt" 2>&1; el "t0011 exit $?"
grep -E "^(ok|not ok)|^# " "$out/t0011.txt" | head -60
H41_TIMEOUT=230 LP_GPU_STAGE2=/tmp/lph41 bash -c 'mkdir -p /tmp/lph41; bash tests/gpu/heldout41.sh' >"$out/heldout41.txt" 2>&1; el "heldout41 done"
cat "$out/heldout41.txt"
left=$(( 575 - ($(date +%s) - T0) ))
if [ $left -gt 60 ]; then
	timeout $left prove --exec '' -v tests/gpu/t0006-multigpu.sh >"$out/t0006.txt" 2>&1; el "t0006 exit $? (limit $left s)"
	grep -E "^(ok|not ok)" "$out/t0006.txt"
else el "t0006 not run: $left s left"; fi
(cd /tmp && tar czf "$out/runs41c.tgz" --exclude='*.nsys-rep' --exclude='*.ncu-rep' --exclude='*.sqlite' \
	--exclude='*cuda_api_trace.csv' --exclude='*cuda_gpu_trace.csv' lpg lph41 2>/dev/null); ls -la "$out"
el done
