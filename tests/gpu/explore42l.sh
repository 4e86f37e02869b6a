#!/usr/bin/env bash
# Issue 42, item 2 with UNTRACED_GPU: on a machine of two GPUs of one
# kind, for each workload given as NAME|MODEL|COMMAND, the workload alone
# on GPU 0 (a warm-up, then two timed runs), then lp's deep profile twice,
# make's lines stamped with the seconds since it started: as lp runs it by
# default (the untraced run after the capture, on GPU 0), and with
# CUDA_VISIBLE_DEVICES=0 UNTRACED_GPU=1 (the untraced run on GPU 1 beside
# the capture).  For each: when the first answer and the whole brief came,
# the brief's step, untraced.tsv's steps, untraced/gpu.tsv and
# profile_cost.tsv's notes.  Writes $OUT/explore42l.txt.
. "$(dirname "$0")/explore-lib.sh"
S=/tmp/lpx42l
rm -rf $S && mkdir -p $S
{
nvidia-smi --query-gpu=index,name,clocks.max.sm,memory.total --format=csv,noheader
for w in "$@"; do
	IFS='|' read -r n m c <<<"$w"
	echo "== $n: $c (MODEL=$m)"
	CUDA_VISIBLE_DEVICES=0 $c >/dev/null 2>&1	# warm-up
	CUDA_VISIBLE_DEVICES=1 $c >/dev/null 2>&1
	for i in 1 2; do t0=$(now); CUDA_VISIBLE_DEVICES=0 $c >$S/$n.alone$i 2>&1; t1=$(now)
		echo "alone: $(secs $t0 $t1) s $(grep -o 'decode_step_med=[0-9.]*ms' $S/$n.alone$i)"; done
	for mode in seq beside; do
		r=$n-$mode
		args=; [ $mode = beside ] && args=UNTRACED_GPU=1
		t0=$(now)
		CUDA_VISIBLE_DEVICES=0 timeout 280 make --no-print-directory LP_STAGE2_DIR=$S RUN=$r "WORK=$c" MODEL=$m $args stakeholder_summary.md 2>&1 |
			while IFS= read -r line; do printf '%7s %s\n' "$(secs $t0 $(now))" "$line"; done >$S/$r.make.log
		t1=$(now)
		echo "-- $mode: deep profile $(secs $t0 $t1) s"
		grep -e 'first answer' -e 'took' -e 'lp-ncustop' -e 'lp-gpupair' -e 'Error' $S/$r.make.log | cut -c1-150
		CUDA_VISIBLE_DEVICES=0 make --no-print-directory -q LP_STAGE2_DIR=$S RUN=$r stakeholder_summary.md && echo "make -q: true"
		CUDA_VISIBLE_DEVICES=0 make --no-print-directory LP_STAGE2_DIR=$S RUN=$r profile_cost.tsv >/dev/null 2>&1
		grep -e '^# note' $S/$r/profile_cost.tsv | cut -c1-400
		grep -v '^#' $S/$r/profile_cost.tsv
		table $S/$r/untraced.tsv "stage untraced_ns traced_ns traced_over_untraced" 2>/dev/null
		[ -f $S/$r/untraced/gpu.tsv ] && grep -v '^# [lst]' $S/$r/untraced/gpu.tsv
		sed -n 1,8p $S/$r/stakeholder_summary.md | cut -c1-300
		mkdir -p "$O/$r" && cp $S/$r/first/stakeholder_summary.md "$O/$r/first.md" 2>/dev/null; cp $S/$r/stakeholder_summary.md $S/$r/profile_cost.tsv $S/$r/untraced.tsv $S/$r.make.log "$O/$r/" 2>/dev/null
	done
done
} 2>&1 | tee "$O/explore42l.txt"
true
