#!/usr/bin/env bash
# Issue 38's acceptance on a decoder lp's code was not written against
# (tests/gpu/heldout38.py), eager and graphed, through lp with the
# defaults, then each alone twice: the brief's step against the workload's
# own clock, the overhead stated, compare against the own clocks' ratio.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/heldout38.sh
set -u
S=/tmp/lph; rm -rf "$S"; export PYTHONUNBUFFERED=1
W="python3 tests/gpu/heldout38.py"
make -s -j16 >/dev/null 2>&1 || exit 1
for m in eager graph; do
	t0=$(date +%s)
	make --no-print-directory LP_STAGE2_DIR=$S RUN=h$m "WORK=$W --mode $m" MODEL=torch-decoder \
		stakeholder_summary.md >$S.$m.log 2>&1; echo "$m: make exit $? in $(( $(date +%s) - t0 )) s"
	awk '/^lp: timing the workload untraced/ { u = 1 } u && /decode_step_med/ { print "own untraced:", $0; exit }' $S.$m.log
	awk '/^lp: profiling with nsys:/ { u = 1 } u && /decode_step_med/ { print "own traced:", $0; exit }' $S.$m.log
	for i in 1 2; do $W --mode $m | sed 's/^/alone: /'; done
	head -3 $S/h$m/stakeholder_summary.md | tail -2
	sed '/^#/d' $S/h$m/brief.tsv | cut -f1-5
	sed '/^#/d' $S/h$m/untraced.tsv | cut -f1,3,7,8,9
	sed '/^#/d' $S/h$m/findings_top.tsv | cut -f1-3
	make -q --no-print-directory LP_STAGE2_DIR=$S RUN=h$m stakeholder_summary.md; echo "make -q: $?"
done
make --no-print-directory LP_STAGE2_DIR=$S RUN=hgraph BASE=heager compare.md >$S.cmp.log 2>&1; echo "compare exit $?"
grep "^decode_step	steady state" $S/hgraph/compare_stages.tsv
