#!/usr/bin/env bash
# Issue 17 on the GPU machine (run from the repo root with $OUT set): where
# in time each profiled kernel's ~1.2 s goes.  lp writes the ncu command for
# torch_decoder's top 10 (and tinyllm's); each variant of it then runs with
# every chunk of ncu's and the workload's output stamped with the seconds
# since the start, so that the gap between "==PROF== Profiling" lines (one
# kernel's passes) can be told from the workload's own time.
# Writes $OUT/explore11.txt.
set -u
. .device/nsys-env.sh && . tests/gpu/device-env.sh >/dev/null
make -j16 >/dev/null 2>&1 && make bin/tinyllm >/dev/null 2>&1 || { echo build failed; exit 1; }
export LP_BIN=$PWD/bin
S=/tmp/lpe; mkdir -p $S
stamp() { python3 -u -c '
import os, sys, time
t0 = time.time(); part = b""
while True:
    b = os.read(0, 65536)
    if not b: break
    part += b
    while b"\n" in part:
        line, part = part.split(b"\n", 1)
        sys.stdout.write("%7.3f %s\n" % (time.time() - t0, line[:150].decode("utf-8", "replace")))
    if part:
        sys.stdout.write("%7.3f ...%s\n" % (time.time() - t0, part[-60:].decode("utf-8", "replace")))
        sys.stdout.flush()
'; }
# variant NAME CMDFILE sed-expr [env...]: run the command with the sed applied
variant() {
	name=$1 f=$2 e=$3; shift 3
	sed -e "$e" -e "s#--export [^ ]*#--export /tmp/v-$name#" "$f" > /tmp/v-$name.cmd
	echo "=== $name: $(cut -c1-400 /tmp/v-$name.cmd)"
	t0=$(date +%s.%N)
	env "$@" sh /tmp/v-$name.cmd 2>&1 | stamp | grep -v '^ *[0-9.]* *$' | grep -e PROF -e '\.\.\.' -e stage -e ms -e tok | head -60
	t1=$(date +%s.%N)
	awk -v a=$t0 -v b=$t1 -v n=$name 'BEGIN { printf "=== %s: %.2f s\n", n, b - a }'
}
TIME='s#--section [^ ]* ##g; s#--metrics [^ ]*#--metrics gpu__time_duration.sum#'
{
	echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
	W="python3 tests/workloads/torch_decoder.py"
	echo "torch_decoder alone: $( (time -p $W >/dev/null 2>&1) 2>&1 | awk '/real/ { print $2 }') s"
	echo "torch_decoder alone, stamped:"; $W 2>&1 | stamp | tail -15
	make --no-print-directory LP_STAGE2_DIR=$S RUN=t WORK="$W" MODEL=torch-decoder TOPN= NCU_PRESET= SET= $S/t/ncu/profile.cmd >/tmp/e0.log 2>&1 || { tail -20 /tmp/e0.log; exit 1; }
	C=$S/t/ncu/profile.cmd
	variant base $C ''
	variant time $C "$TIME"
	variant time-noflush $C "$TIME; s#--replay-mode kernel#--replay-mode kernel --cache-control none --clock-control none#"
	variant time-nonvtx $C "$TIME; s#--nvtx --nvtx-include [^ ]* ##"
	variant sass $C 's#--section [^ ]* ##g; s#--metrics [^ ]*#--metrics sm__sass_thread_inst_executed_op_ffma_pred_on.sum#'
	variant time-eager $C "$TIME" CUDA_MODULE_LOADING=EAGER
	variant time-noid $C "$TIME; s#--kernel-id [^ ]*#--kernel-id ::regex:.:1#"
	echo "=== tinyllm"
	echo "tinyllm alone: $( (time -p bin/tinyllm >/dev/null 2>&1) 2>&1 | awk '/real/ { print $2 }') s"
	make --no-print-directory LP_STAGE2_DIR=$S RUN=y WORK=bin/tinyllm MODEL=tinyllm TOPN= NCU_PRESET= SET= $S/y/ncu/profile.cmd >/tmp/e1.log 2>&1 || { tail -20 /tmp/e1.log; exit 1; }
	variant tiny-base $S/y/ncu/profile.cmd ''
	variant tiny-time $S/y/ncu/profile.cmd "$TIME"
	cat $S/t/nsys/profile.time $S/t/ncu/metrics.avail.time 2>/dev/null
} 2>&1 | tee "${OUT:-/tmp}/explore11.txt"
