#!/usr/bin/env bash
# Issue 42, item 3, after explore42f.sh (neither --nvtx nor --graph-profiling
# node is what costs the compiled decode under lp's ncu command): lp's ncu
# command for the compiled decoder (its own kernel filter: the same
# launches profiled), without --filter-mode per-launch-config, and with
# one metric instead of lp's list.
# With the argument nosass: lp's metric list less its SASS instruction
# counters (sm__sass_thread_inst_executed_op_*), per-launch-config kept.
# Writes $OUT/explore42g.txt.
set -u
O=${OUT:-/tmp}
S=/tmp/lpx42f
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
export PATH=$PWD/bin:$PATH
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
C="python3 tests/workloads/torch_decoder.py --mode compile --layers 2"
timed() {
	local t0 t1
	t0=$(now); timeout 100 sh "$2" >/tmp/x.out 2>&1; t1=$(now)
	printf '%-44s %7s s  injected %s  %s\n' "$1" "$(secs $t0 $t1)" "$(grep -c 'Connected to process' /tmp/x.out)" \
		"$(grep -o 'decode_step_med=[0-9.]*ms' /tmp/x.out | head -1)"
}
{
p=$S/c/ncu/profile.cmd
if [ ! -s $p ]; then
	mkdir -p $S
	make --no-print-directory LP_STAGE2_DIR=$S RUN=c "WORK=$C" MODEL=torch-decoder $p >$S/make.log 2>&1 ||
		{ tail -20 $S/make.log; exit 1; }
fi
cp $p $S/none.cmd
sed "s/--filter-mode per-launch-config//" $S/none.cmd >$S/noplc.cmd
sed "s/--metrics [^ ]*/--metrics gpu__time_duration.sum/" $S/none.cmd >$S/onemetric.cmd
sed -E "s/sm__sass_thread_inst_executed_op_[a-z]+_pred_on\.sum,//g" $S/none.cmd >$S/nosass.cmd
grep -c sm__sass $S/nosass.cmd
case ${1:-} in
nosass) timed "  without the SASS instruction counters" $S/nosass.cmd ;;
*) timed "  without --filter-mode per-launch-config" $S/noplc.cmd
   timed "  with one metric (gpu__time_duration.sum)" $S/onemetric.cmd ;;
esac
} 2>&1 | tee "$O/explore42g.txt"
true
