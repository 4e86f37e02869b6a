#!/usr/bin/env bash
# Issue 42, item 3, after explore42h.sh: lp's deep profile with lp-topn's
# "# stop:" (lp-ncustop stops ncu once every selected (kernel, launch
# configuration) pair is profiled, in the order the stage first runs
# them, not waiting for a configuration of a selected kernel first run
# later).  For each workload given as NAME|MODEL|COMMAND: the workload
# alone (a warm-up, then two timed runs), lp's deep profile stamped with
# the seconds since make started, topn.tsv's counts, the first launch of
# every configuration of the selected kernels (shapes.tsv, seconds after
# the stage's first), lp-ncustop's table and the steps' times.
# explore42d.sh's runs, with this file sourced after each (X42_MORE);
# writes $OUT/explore42i.txt.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	X42=42i X42_MORE=$(cd "$(dirname "$0")" && pwd)/$(basename "$0") exec bash "$(dirname "$0")/explore42d.sh" "$@"
fi
# sourced by explore42d.sh after a run: $S, $n
grep -e '^# kernels' -e '^# configs' -e '^# stop' -e '^# cover' $S/$n/topn.tsv
table $S/$n/topn.tsv "kernel grid block" | sed 's/\t/|/g' >$S/$n.sel
table $S/$n/topn.tsv kernel | sort -u >$S/$n.kern
table $S/$n/shapes.tsv "kernel grid block first_ns calls" |
	awk -F'\t' -v sel=$S/$n.sel -v kern=$S/$n.kern 'BEGIN { while ((getline l < sel) > 0) s[l] = 1; while ((getline l < kern) > 0) k[l] = 1 }
		($1 in k) { print $4 "\t" (($1 "|" $2 "|" $3) in s ? "selected" : "not selected") "\t" $5 " calls\t" $2 "\t" substr($1, 1, 60) }' |
	sort -n | awk -F'\t' 'NR == 1 { t = $1 } { printf "  %9.3f s  %s\n", ($1 - t) / 1e9, substr($0, index($0, "\t") + 1) }'
echo "lp-ncustop:"; cat $S/$n/ncu/profile.stop.tsv 2>/dev/null | grep -v '^#' | head -5
grep -h . $S/$n/ncu/*.time $S/$n/nsys/*.time $S/$n/untraced/*.time 2>/dev/null
grep -e 'covers' -e 'coverage' $S/$n/kernels.tsv 2>/dev/null | head -3
grep '^# match' $S/$n/kernels.tsv 2>/dev/null | head -3
