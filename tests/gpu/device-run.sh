#!/usr/bin/env bash
# One call on the GPU machine (the device tool): build lp and tinyllm, run
# make check-gpu with the runs kept in /tmp/lpg, and put the log and the
# runs' exports (no .nsys-rep/.ncu-rep) under $OUT for fixtures.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/device-run.sh
set -u
out=${OUT:-$PWD/explore-out}
mkdir -p "$out"
export LP_GPU_STAGE2=${LP_GPU_STAGE2:-/tmp/lpg}
make -s -j16 >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
start=$(date +%s)
make check-gpu 2>&1 | tee "$out/check-gpu.log"
rc=${PIPESTATUS[0]}
echo "check-gpu: exit $rc in $(( $(date +%s) - start )) s" | tee -a "$out/check-gpu.log"
(cd "$LP_GPU_STAGE2" && tar czf "$out/runs.tgz" --exclude='*.nsys-rep' --exclude='*.ncu-rep' \
	--exclude='*.sqlite' --exclude='*.log' . 2>/dev/null)
exit "$rc"
