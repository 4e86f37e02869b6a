#!/usr/bin/env bash
# Issue 42, item 2 on the GPU machine: when the first answer
# (first/stakeholder_summary.md, the nsys passes alone) appears in lp's
# deep profile of the TinyLlama-shaped Llama, against the workload alone
# and the whole profile; each line of make's output stamped with the
# seconds since make started.  Writes $OUT/explore42c.txt.
set -u
O=${OUT:-/tmp}
S=/tmp/lpx42c
rm -rf $S && mkdir -p $S
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
export PATH=$PWD/bin:$PATH
L="python3 tests/workloads/hf_llama.py"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
{
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
$L >/dev/null 2>&1	# warm-up
for i in 1 2; do t0=$(now); $L >/dev/null 2>&1; t1=$(now); echo "alone: $(secs $t0 $t1) s"; done
t0=$(now)
timeout 300 make --no-print-directory LP_STAGE2_DIR=$S RUN=ll "WORK=$L" MODEL=hf-llama stakeholder_summary.md 2>&1 |
	while IFS= read -r line; do printf '%7s %s\n' "$(secs $t0 $(now))" "$line"; done >$S/make.log
t1=$(now)
echo "deep profile: $(secs $t0 $t1) s"
grep -e 'first answer' -e 'profiling with' -e 'took' -e 'lp-ncustop' -e 'MD ' $S/make.log | cut -c1-160
sed -n 1,12p $S/ll/first/stakeholder_summary.md
} 2>&1 | tee "$O/explore42c.txt"
true
