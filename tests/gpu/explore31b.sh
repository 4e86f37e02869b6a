#!/usr/bin/env bash
# Issue 31, the pipeline with GPU Metrics on the GPU machine: lp's live run
# of the TinyLlama-shaped Llama (hf_llama.py) as it ships (sampling at
# 1 kHz, one sqlite export that nsys stats reads), to the summary; then
# nsys stats over the .nsys-rep itself (as lp ran it before) into another
# folder, diffed report by report against lp's (stats over the export);
# nsys's own word on the sampling flags.  Writes $OUT/explore31b.txt.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/explore31b.sh
set -u
O=${OUT:-/tmp}
S=/tmp/lpx31b
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
export PATH=$PWD/bin:$PATH
W="python3 tests/workloads/hf_llama.py"
{
echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $(nsys --version)"
nsys profile --help 2>&1 | grep -A4 -e '--gpu-metrics-frequency' -e '--gpu-metrics-devices' | head -24
rm -rf $S
make --no-print-directory LP_STAGE2_DIR=$S RUN=g "WORK=$W" MODEL=hf-llama stakeholder_summary.md 2>&1 | grep -e '^lp:' -e rror | head -20
echo "make: exit ${PIPESTATUS[0]}"
cat $S/g/nsys/profile.cmd $S/g/nsys/export.cmd $S/g/nsys/stats.cmd
ls -la $S/g/nsys/
mkdir -p $S/rep
sed "s|--output=[^ ]*|--output=$S/rep/report|; s| $S/g/nsys/report.sqlite\$| --force-export=true $S/g/nsys/report.nsys-rep|" \
	$S/g/nsys/stats.cmd >$S/rep.cmd; cat $S/rep.cmd
sh $S/rep.cmd >$S/rep.log 2>&1; echo "stats over the report: exit $?"
for f in $S/rep/report_*.csv; do
	b=$(basename $f)
	if cmp -s $f $S/g/nsys/$b; then echo "same: $b"; else echo "DIFFERS: $b"; diff $f $S/g/nsys/$b | head -4; fi
done
grep -v '^#' $S/g/gpumetrics.tsv | cut -f1,2,5-8 | head -40
grep -e measured- $S/g/findings.tsv | cut -f2,4,5
grep -v '^#' $S/g/mfu.tsv | cut -f1,5,7
grep -v '^#' $S/g/mbu.tsv | cut -f1,7,9
grep -v '^#' $S/g/profile_cost.tsv 2>/dev/null | head
grep '^## ' $S/g/details.md
} 2>&1 | tee "$O/explore31b.txt"
