#!/usr/bin/env bash
# Issue 39, item 2, after lp-topn -i (one device call, H100, 2026-11-27):
# check-gpu t0008 test 9 (the spawned engine core through lp, its deep
# profile against the in-process one), then t0004, t0007 and t0003 (issue
# 38: not run since the untraced step); the spawn run's selection, command
# and step times under $OUT.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/explore39e.sh
set -u
out=${OUT:-/tmp}; export LP_GPU_STAGE2=/tmp/lpg LP_AUTO_DEPS=0
s=$(date +%s)
LP_RUN=9 timeout 300 prove --exec '' -v tests/gpu/t0008-graphs.sh >"$out/t0008-9.txt" 2>&1
echo "t0008 test 9: $(( $(date +%s) - s )) s"; tail -25 "$out/t0008-9.txt"
for r in eager spawn; do
	for f in /tmp/lpg/$r/*/*.time; do echo "$r $f $(cat "$f")"; done
done >"$out/times.txt"
cat "$out/times.txt"
cp /tmp/lpg/spawn/topn.tsv "$out/spawn-topn.tsv"; cp /tmp/lpg/spawn/ncu/profile.cmd "$out/spawn-ncu.cmd"
cp /tmp/lpg/spawn/injected.tsv "$out/spawn-injected.tsv" 2>/dev/null
s=$(date +%s)
timeout 240 prove --exec '' -v tests/gpu/t0004-prefill.sh tests/gpu/t0007-aten.sh tests/gpu/t0003-unseen.sh >"$out/t0437.txt" 2>&1
echo "t0004 t0007 t0003: $(( $(date +%s) - s )) s"; grep -E "^(ok|not ok)|^Result|^Files|wallclock" "$out/t0437.txt"
