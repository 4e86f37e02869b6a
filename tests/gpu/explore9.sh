#!/usr/bin/env bash
# Issue 17 on the GPU machine (run from the repo root with $OUT set): where
# the ~1.2 s that each profiled kernel adds to the ncu step goes.  One nsys
# capture of torch_decoder, then the ncu step again under each setting
# (only the ncu step is redone: its config changed); its time from
# ncu/profile.time.  Prints a line per setting; writes $OUT/explore9.txt.
set -u
. .device/nsys-env.sh && . tests/gpu/device-env.sh >/dev/null
make -j16 >/dev/null 2>&1 || { echo build failed; exit 1; }
export LP_BIN=$PWD/bin
S=/tmp/lpe; mkdir -p $S
W="python3 tests/workloads/torch_decoder.py"
m() { make --no-print-directory LP_STAGE2_DIR=$S RUN=e WORK="$W" MODEL=torch-decoder "$@"; }
m kernels.tsv >/tmp/e0.log 2>&1 || { tail -20 /tmp/e0.log; exit 1; }
one() {	# LABEL make-args...
	label=$1; shift
	rm -f $S/e/ncu/report.ncu-rep
	m "$@" ncu/report.ncu-rep >/tmp/e.log 2>&1; rc=$?
	[ $rc = 0 ] || tail -5 /tmp/e.log
	printf '%-58s rc=%s ncu %s s\n' "$label" "$rc" "$(cut -f2 $S/e/ncu/profile.time 2>/dev/null)"
}
{
	echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
	echo "workload alone: $( (time -p $W >/dev/null 2>&1) 2>&1 | awk '/real/ { print $2 }') s"
	one "default (top 10, 5 sections + metrics)"
	one "default again"
	one "top 1" TOPN=1
	one "top 3" TOPN=3
	one "cache-control none, clock-control none" SET="ncu_cli.extra_args=--cache-control,none,--clock-control,none"
	one "light preset (SpeedOfLight + metrics)" NCU_PRESET=light
	one "light, time only" NCU_PRESET=light SET="ncu_cli.metrics=gpu__time_duration.sum ncu_cli.sections=SpeedOfLight"
	one "light, time only, top 1" NCU_PRESET=light TOPN=1 SET="ncu_cli.metrics=gpu__time_duration.sum ncu_cli.sections=SpeedOfLight"
	one "default, cache/clock none, top 1" TOPN=1 SET="ncu_cli.extra_args=--cache-control,none,--clock-control,none"
	echo "--- the default command"; m ncu/profile.cmd >/dev/null 2>&1; cat $S/e/ncu/profile.cmd
} 2>&1 | tee "${OUT:-/tmp}/explore9.txt"
