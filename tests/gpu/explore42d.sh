#!/usr/bin/env bash
# Issue 42, items 2 and 3 on the GPU machine, after the first answer moved
# before the untraced timing run: for each workload given as
# NAME|MODEL|COMMAND, the workload alone (one warm-up, then two timed
# runs), lp's deep profile with each line of make's output stamped with
# the seconds since make started (the first answer, the untraced run,
# ncu, the whole brief), then profile_cost.tsv's floor.
# Writes $OUT/explore42d.txt and each run's briefs and cost table.
# X42=NAME X42_MORE=FILE: writes $OUT/exploreNAME.txt instead, and sources
# FILE after each run ($S, $n set) for more of it (explore42i.sh).
. "$(dirname "$0")/explore-lib.sh"
X42=${X42:-42d}
S=/tmp/lpx$X42
rm -rf $S && mkdir -p $S
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
	grep -e 'first answer' -e 'profiling with' -e 'took' -e 'timing the workload' -e 'lp-ncustop' -e '^ *[0-9.]* lp: ' $S/$n.make.log | cut -c1-200
	make --no-print-directory -q LP_STAGE2_DIR=$S RUN=$n stakeholder_summary.md && echo "make -q: true"
	make --no-print-directory LP_STAGE2_DIR=$S RUN=$n profile_cost.tsv >/dev/null 2>&1
	grep -e '^# note' $S/$n/profile_cost.tsv
	grep -v '^#' $S/$n/profile_cost.tsv
	mkdir -p "$O/$n" && cp $S/$n/first/stakeholder_summary.md "$O/$n/first.md" 2>/dev/null
	cp $S/$n/stakeholder_summary.md $S/$n/profile_cost.tsv $S/$n/untraced.tsv $S/$n.make.log "$O/$n/" 2>/dev/null
	sed -n 1,6p $S/$n/first/stakeholder_summary.md
	sed -n 1,6p $S/$n/stakeholder_summary.md
	[ -z "${X42_MORE:-}" ] || . "$X42_MORE"
done
} 2>&1 | tee "$O/explore$X42.txt"
true
