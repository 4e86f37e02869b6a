#!/usr/bin/env bash
# Issue 42, item 3, after explore42h.sh: lp's deep profile with lp-topn's
# "# stop:" (lp-ncustop stops ncu once every selected (kernel, launch
# configuration) pair is profiled, in the order the stage first runs
# them, not waiting for a configuration of a selected kernel first run
# later).  For each workload given as NAME|MODEL|COMMAND: the workload
# alone (a warm-up, then two timed runs), lp's deep profile stamped with
# the seconds since make started, topn.tsv's counts, the first launch of
# every configuration of the selected kernels (shapes.tsv, seconds after
# the stage's first), lp-ncustop's table and profile_cost.tsv.
# Writes $OUT/explore42i.txt.
set -u
O=${OUT:-/tmp}
S=/tmp/lpx42i
rm -rf $S && mkdir -p $S
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
export PATH=$PWD/bin:$PATH
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
{
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1); $(nsys --version)"
for w in "$@"; do
	IFS='|' read -r n m c <<<"$w"
	echo "== $n: $c (MODEL=$m)"
	$c >/dev/null 2>&1	# warm-up (compile caches, page cache)
	for i in 1 2; do t0=$(now); $c >/dev/null 2>&1; t1=$(now); echo "alone: $(secs $t0 $t1) s"; done
	t0=$(now)
	timeout 400 make --no-print-directory LP_STAGE2_DIR=$S RUN=$n "WORK=$c" MODEL=$m stakeholder_summary.md 2>&1 |
		while IFS= read -r line; do printf '%7s %s\n' "$(secs $t0 $(now))" "$line"; done >$S/$n.make.log
	t1=$(now)
	echo "deep profile: $(secs $t0 $t1) s"
	grep -e 'first answer' -e 'profiling with' -e 'took' -e 'timing the workload' -e 'lp-ncustop' -e '^ *[0-9.]* lp: ' $S/$n.make.log | cut -c1-160
	grep -e '^# kernels' -e '^# configs' -e '^# stop' -e '^# cover' $S/$n/topn.tsv
	table() { awk -F'\t' -v want="$2" '/^#/ { next } !h { n = split(want, w, " "); for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
		{ s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? "\t" : "") $c[w[i]]; print s }' "$1"; }
	table $S/$n/topn.tsv "kernel grid block" | sed 's/\t/|/g' >$S/$n.sel
	table $S/$n/topn.tsv kernel | sort -u >$S/$n.kern
	table $S/$n/shapes.tsv "kernel grid block first_ns calls" |
		awk -F'\t' -v sel=$S/$n.sel -v kern=$S/$n.kern 'BEGIN { while ((getline l < sel) > 0) s[l] = 1; while ((getline l < kern) > 0) k[l] = 1 }
			($1 in k) { print $4 "\t" (($1 "|" $2 "|" $3) in s ? "selected" : "not selected") "\t" $5 " calls\t" $2 "\t" substr($1, 1, 60) }' |
		sort -n | awk -F'\t' 'NR == 1 { t = $1 } { printf "  %9.3f s  %s\n", ($1 - t) / 1e9, substr($0, index($0, "\t") + 1) }'
	echo "lp-ncustop:"; cat $S/$n/ncu/profile.stop.tsv 2>/dev/null | grep -v '^#' | head -5
	grep -h . $S/$n/ncu/*.time $S/$n/nsys/*.time $S/$n/untraced/*.time 2>/dev/null
	make --no-print-directory -q LP_STAGE2_DIR=$S RUN=$n stakeholder_summary.md && echo "make -q: true"
	make --no-print-directory LP_STAGE2_DIR=$S RUN=$n profile_cost.tsv >/dev/null 2>&1
	grep -e '^# note' $S/$n/profile_cost.tsv
	grep -v '^#' $S/$n/profile_cost.tsv
	grep -e 'covers' -e 'coverage' $S/$n/kernels.tsv 2>/dev/null | head -3
	grep '^# match' $S/$n/kernels.tsv 2>/dev/null | head -3
done
} 2>&1 | tee "$O/explore42i.txt"
true
