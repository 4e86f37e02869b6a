#!/usr/bin/env bash
# Issue 42, item 3 on the GPU machine: lp's deep profile of the
# TinyLlama-shaped Llama with lp-ncustop (the workload stopped once every
# launch configuration of the selected kernels is profiled) and the metric
# list kept between runs: the steps' times of two runs in a row, what
# lp-ncustop saw, and whether the report holds every configuration.
# Writes $OUT/explore42b.txt.
set -u
O=${OUT:-/tmp}
S=/tmp/lpx42b
rm -rf $S && mkdir -p $S
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
export PATH=$PWD/bin:$PATH
L="python3 tests/workloads/hf_llama.py"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
{
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
$L >/dev/null 2>&1	# warm-up
t0=$(now); $L >/dev/null 2>&1; t1=$(now); echo "alone: $(secs $t0 $t1) s"
for run in ll ll2; do
	t0=$(now); timeout 280 make --no-print-directory LP_STAGE2_DIR=$S RUN=$run "WORK=$L" MODEL=hf-llama stakeholder_summary.md >$S/$run.log 2>&1
	rc=$?; t1=$(now)
	echo "== $run: lp deep profile $(secs $t0 $t1) s, exit $rc"
	[ $rc = 0 ] || tail -20 $S/$run.log
	for f in $(cd $S/$run && find . -name '*.time' | sort); do printf '  %-28s %s\n' "$f" "$(tr '\n' ' ' <$S/$run/$f)"; done
	grep '^lp-ncustop' $S/$run.log
	cat $S/$run/ncu/profile.stop.tsv
	grep '^# configs\|^# kernels\|^# cover' $S/$run/topn.tsv
	echo "ncu report rows: $(($(wc -l <$S/$run/ncu/report.csv) - 2))"
	grep -c '^==PROF== Profiling' $S/$run.log
	grep -i 'match' $S/$run/kernels.tsv | head -3
done
ls -la $S/.cache/ncu-metrics/
sed -n 1,12p $S/ll/stakeholder_summary.md
cat $S/ll/profile_cost.tsv
} 2>&1 | tee "$O/explore42b.txt"
true
