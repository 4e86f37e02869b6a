#!/usr/bin/env bash
# Issues 17 and 19 on the GPU machine (run from the repo root with $OUT set):
# OPS=aten deep profiles of hf_gpt2 and torch_decoder, and depth 0 of the
# torch_decoder regions with the default metric set and with full=true, for
# their passes, times and values.  Writes $OUT/gpuB.tgz.
set -u
. .device/nsys-env.sh && . tests/gpu/device-env.sh >/dev/null
make -j16 >/dev/null 2>&1 || { echo build failed; exit 1; }
export LP_BIN=$PWD/bin
S=/tmp/lpb; mkdir -p $S /tmp/ob
m() { make --no-print-directory LP_STAGE2_DIR=$S "$@"; }
# issue 19: OPS=aten on both workloads
for w in gpt2 torch; do
	case $w in
	gpt2) work="python3 tests/workloads/hf_gpt2.py"; model=hf-gpt2 ;;
	torch) work="python3 tests/workloads/torch_decoder.py"; model=torch-decoder ;;
	esac
	s=$(date +%s.%N); timeout 150 make --no-print-directory LP_STAGE2_DIR=$S RUN=a$w WORK="$work" MODEL=$model OPS=aten stakeholder_summary.md >/tmp/ob/a$w.log 2>&1; echo "a$w rc=$? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s"
done
# issue 17: region depth 0 of the same workload, the default set and the full one
m RUN=rt WORK="python3 tests/workloads/torch_decoder.py" MODEL=torch-decoder $S/rt/ncu/regions/profile.cmd >/dev/null 2>&1
d0=$(grep -v '^#' $S/rt/ncu/regions/profile.cmd | head -1)
s=$(date +%s.%N); sh -c "$d0" >/tmp/ob/rdef.log 2>&1; echo "default d0 rc=$? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s"
ncu --import $S/rt/ncu/regions/tmp.d0.ncu-rep --page raw --csv --print-units base > /tmp/ob/rdef.csv 2>&1
m RUN=rf WORK="python3 tests/workloads/torch_decoder.py" MODEL=torch-decoder SET=ncu_regions.full=true $S/rf/ncu/regions/profile.cmd >/dev/null 2>&1
f0=$(grep -v '^#' $S/rf/ncu/regions/profile.cmd | head -1)
s=$(date +%s.%N); timeout 230 sh -c "$f0" >/tmp/ob/rfull.log 2>&1; echo "full d0 rc=$? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s"
ncu --import $S/rf/ncu/regions/tmp.d0.ncu-rep --page raw --csv --print-units base > /tmp/ob/rfull.csv 2>&1
echo "$d0" > /tmp/ob/cmds.txt; echo "$f0" >> /tmp/ob/cmds.txt
cd $S && tar czf $OUT/gpuB.tgz --exclude='*.ncu-rep' --exclude='*.nsys-rep' --exclude='*.sqlite' --exclude='*.avail' --exclude='report_*trace*.csv' agpt2 atorch /tmp/ob 2>/dev/null
