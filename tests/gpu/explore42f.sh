#!/usr/bin/env bash
# Issue 42, item 3: which of lp's ncu options cost the compiled decode its
# time under ncu.  lp's run of the compiled decoder (2 layers) up to
# ncu/profile.cmd, then that command (each profiling the same launches:
# the filter is lp's), without --nvtx/--nvtx-include, without
# --graph-profiling node, and without both.  (As first run, a sed meant
# to make the kernel filter match nothing targeted --kernel-id, which a
# per-launch-config command does not have: it changed nothing, and is
# left out here.)  Writes $OUT/explore42f.txt.
set -u
O=${OUT:-/tmp}
S=/tmp/lpx42f
rm -rf $S && mkdir -p $S
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
export PATH=$PWD/bin:$PATH
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
C="python3 tests/workloads/torch_decoder.py --mode compile --layers 2"
timed() {	# LABEL FILE: wall seconds of sh FILE, the workload's step
	local t0 t1
	t0=$(now); sh "$2" >/tmp/x.out 2>&1; t1=$(now)
	printf '%-44s %7s s  injected %s  %s\n' "$1" "$(secs $t0 $t1)" "$(grep -c 'Connected to process' /tmp/x.out)" \
		"$(grep -o 'decode_step_med=[0-9.]*ms' /tmp/x.out | head -1)"
}
{
make --no-print-directory LP_STAGE2_DIR=$S RUN=c "WORK=$C" MODEL=torch-decoder $S/c/ncu/profile.cmd >$S/make.log 2>&1 ||
	{ tail -20 $S/make.log; exit 1; }
p=$S/c/ncu/profile.cmd
grep -o -e '--graph-profiling [a-z]*' -e '--filter-mode [a-z-]*' -e "--nvtx-include '[^']*'" -e '--replay-mode [a-z]*' $p | tr '\n' ' '; echo
cp $p $S/none.cmd
sed "s/--nvtx --nvtx-include '[^']*'//" $S/none.cmd >$S/nonvtx.cmd
sed "s/--graph-profiling node//" $S/none.cmd >$S/nograph.cmd
sed "s/--graph-profiling node//" $S/nonvtx.cmd >$S/neither.cmd
t0=$(now); $C >/tmp/x.out 2>&1; t1=$(now); echo "alone: $(secs $t0 $t1) s $(grep -o 'decode_step_med=[0-9.]*ms' /tmp/x.out)"
timed "lp's ncu command" $S/none.cmd
timed "  without --nvtx" $S/nonvtx.cmd
timed "  without --graph-profiling node" $S/nograph.cmd
timed "  without both" $S/neither.cmd
} 2>&1 | tee "$O/explore42f.txt"
true
