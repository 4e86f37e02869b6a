#!/usr/bin/env bash
# Issue 42, item 3, after explore42h.sh: is the compiled decode's 2.2 s a
# step under ncu the cost of ncu's second process (an Inductor compile
# worker that ncu also injected)?  lp's ncu command for the compiled
# decoder (2 layers), run whole, with --target-processes application-only
# instead of all: seconds, processes ncu connected to, launches profiled,
# the workload's own decode step.  Writes $OUT/explore42j.txt.
. "$(dirname "$0")/explore-lib.sh"
S=/tmp/lpx42j
C="python3 tests/workloads/torch_decoder.py --mode compile --layers 2"
{
p=$S/c/ncu/profile.cmd
mkdir -p $S
make --no-print-directory LP_STAGE2_DIR=$S RUN=c "WORK=$C" MODEL=torch-decoder $p >$S/make.log 2>&1 ||
	{ tail -20 $S/make.log; exit 1; }
sed "s/--target-processes all/--target-processes application-only/" $p >$S/app.cmd
grep -c "application-only" $S/app.cmd
for v in app; do
	t0=$(now); timeout 200 sh $S/$v.cmd >$S/$v.out 2>&1; rc=$?; t1=$(now)
	printf '%-6s %7s s  rc %s  connected %s  profiled %s  %s\n' $v "$(secs $t0 $t1)" $rc \
		"$(grep -c 'Connected to process' $S/$v.out)" "$(grep -c '==PROF== Profiling' $S/$v.out)" \
		"$(grep -o 'decode_step_med=[0-9.]*ms' $S/$v.out | head -1)"
done
grep '^# configs\|^# stop' $S/c/topn.tsv
} 2>&1 | tee "$O/explore42j.txt"
true
