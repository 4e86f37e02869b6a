#!/usr/bin/env bash
# Issue 38, item 1 on the GPU: the graphed torch decoder profiled live with
# lp's defaults (the untraced timing run included), its own step time alone
# beside untraced.tsv, make -q after; then check-gpu's t0008 tests 1-6.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/explore38b.sh
set -u
out=${OUT:-/tmp/e38b}; mkdir -p "$out"
S=/tmp/lpg; export LP_GPU_STAGE2=$S PYTHONUNBUFFERED=1
make -s -j16 >"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
t0=$(date +%s)
timeout 240 make --no-print-directory RUN=g LP_STAGE2_DIR=$S WORK='python3 tests/workloads/torch_decoder.py --mode graph' \
	MODEL=torch-decoder stakeholder_summary.md >"$out/g.log" 2>&1
echo "make: exit $? in $(( $(date +%s) - t0 )) s"
make -q --no-print-directory RUN=g LP_STAGE2_DIR=$S stakeholder_summary.md; echo "make -q: $?"
for i in 1 2; do python3 tests/workloads/torch_decoder.py --mode graph | tail -1; done
grep -v "^# \(labels\|show\)" $S/g/untraced.tsv
cat $S/g/untraced/profile.cmd; tail -3 $S/g/untraced/stats.log
grep -h "decode_step\|^stage" $S/g/steps.tsv $S/g/untraced/steps.tsv | cut -f1-9
cat $S/g/profile_cost.tsv | grep -v "^# \(labels\|show\)" | cut -f1-4
tail -5 "$out/g.log"
(cd $S && tar czf "$out/g.tgz" --exclude='*.nsys-rep' --exclude='*.ncu-rep' --exclude='*.sqlite' g)
t1=$(date +%s)
LP_RUN=1-6 timeout 260 prove --exec '' -v tests/gpu/t0008-graphs.sh >"$out/t0008.log" 2>&1
echo "t0008 1-6: exit $? in $(( $(date +%s) - t1 )) s"; grep "^ok\|^not ok" "$out/t0008.log"
