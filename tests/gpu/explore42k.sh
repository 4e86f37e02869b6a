#!/usr/bin/env bash
# Issue 42, items 2 and 3: can the untraced timing run go beside the
# capture, on a second GPU of the same kind, and still time the workload
# as it runs alone?  On a machine of two GPUs, for each workload given as
# NAME|MODEL|COMMAND: lp's untraced run (nsys, NVTX alone) on GPU 1 and
# each NVTX range's median from nsys's nvtx_sum: alone on GPU 0 and on
# GPU 1, then on GPU 1 beside lp's traced capture on GPU 0, then on GPU 1
# over and over beside the rest of lp's deep profile on GPU 0 (its own
# untraced run and ncu), each run's seconds after make started beside
# make's stamped lines.  Writes $OUT/explore42k.txt.
. "$(dirname "$0")/explore-lib.sh"
S=/tmp/lpx42k
rm -rf $S && mkdir -p $S
# u GPU TAG COMMAND: the untraced run; prints its seconds and the
# NVTX ranges' medians (ms)
u() {
	local t0 t1
	t0=$(now)
	CUDA_VISIBLE_DEVICES=$1 nsys profile -t nvtx -s none --cpuctxsw=none -f true -o $S/$n.$2 $3 >$S/$n.$2.log 2>&1
	t1=$(now)
	nsys stats -q -r nvtx_sum -f csv -o $S/$n.$2 $S/$n.$2.nsys-rep >/dev/null 2>&1
	python3 - "$S/$n.$2_nvtx_sum.csv" "$2" "$(secs $T0 $t0)" "$(secs $T0 $t1)" "$(secs $t0 $t1)" <<-'EOF'
	import csv, sys
	f, tag, a, b, d = sys.argv[1:]
	out = []
	try:
	    for r in csv.DictReader(open(f)):
	        out.append("%s %s x%s med %.4f ms" % (r["Range"], "", r["Instances"], float(r["Med (ns)"]) / 1e6))
	except OSError:
	    out.append("no nvtx_sum")
	print("%-14s GPU run %6s..%6s s (%5s s): %s" % (tag, a, b, d, "; ".join(out)))
	EOF
}
{
nvidia-smi --query-gpu=index,name,clocks.max.sm,clocks.max.mem,memory.total,power.limit --format=csv
echo "$(ncu --version | tail -1); $(nsys --version)"
for w in "$@"; do
	IFS='|' read -r n m c <<<"$w"
	echo "== $n: $c (MODEL=$m)"
	CUDA_VISIBLE_DEVICES=1 $c >/dev/null 2>&1	# warm-up
	CUDA_VISIBLE_DEVICES=0 $c >/dev/null 2>&1
	T0=$(now)
	u 0 alone-gpu0 "$c"
	u 1 alone-gpu1 "$c"
	u 1 alone-gpu1b "$c"
	# beside the traced capture (its GPU Metrics sample every GPU)
	T0=$(now)
	CUDA_VISIBLE_DEVICES=0 make --no-print-directory LP_STAGE2_DIR=$S RUN=$n "WORK=$c" MODEL=$m nsys/report.nsys-rep >$S/$n.nsys.log 2>&1 &
	u 1 beside-nsys "$c"
	wait
	echo "traced capture on GPU 0: $(cat $S/$n/nsys/*.time 2>/dev/null | head -2 | tr '\n' ' ')"
	# beside the rest: lp's own untraced run and ncu on GPU 0
	T0=$(now)
	CUDA_VISIBLE_DEVICES=0 timeout 400 make --no-print-directory LP_STAGE2_DIR=$S RUN=$n "WORK=$c" MODEL=$m stakeholder_summary.md 2>&1 |
		while IFS= read -r line; do printf '%7s %s\n' "$(secs $T0 $(now))" "$line"; done >$S/$n.make.log &
	mk=$!
	i=0
	while kill -0 $mk 2>/dev/null && [ $i -lt 6 ]; do i=$((i + 1)); u 1 beside-rest$i "$c"; done
	wait
	echo "make on GPU 0, seconds after it started:"
	grep -e 'timing the workload' -e 'profiling with' -e 'took' -e 'lp-ncustop' -e 'first answer' $S/$n.make.log | cut -c1-160
	tail -1 $S/$n.make.log | cut -c1-160
	grep -h . $S/$n/ncu/*.time $S/$n/untraced/*.time 2>/dev/null
done
} 2>&1 | tee "$O/explore42k.txt"
true
