#!/usr/bin/env bash
# Issue 42, item 3: where a torch.compile'd decode's time under ncu goes.
# The compiled decoder (2 layers, as t0008 and t0010 run it) alone and
# under ncu with a kernel filter that matches nothing (no replay: the
# application under ncu alone), with Inductor's compile workers on (its
# default) and off (TORCHINDUCTOR_COMPILE_THREADS=1), and under ncu
# injecting the launched process only; the eager decoder likewise for
# comparison.  ncu's "==PROF== Connected to process" lines count the
# processes it injected.  Writes $OUT/explore42e.txt.
set -u
O=${OUT:-/tmp}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
T=python3\ tests/workloads/torch_decoder.py
N0="ncu --kernel-name regex:^lp_matches_nothing$"
timed() {	# LABEL CMD...: wall seconds, processes ncu injected, the step
	local l=$1 t0 t1; shift
	t0=$(now); "$@" >/tmp/x.out 2>&1; t1=$(now)
	printf '%-58s %7s s  injected %s  %s\n' "$l" "$(secs $t0 $t1)" "$(grep -c 'Connected to process' /tmp/x.out)" \
		"$(grep -o 'decode_step_med=[0-9.]*ms' /tmp/x.out | head -1)"
}
{
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1); torch $(python3 -c 'import torch; print(torch.__version__)')"
timed "compile alone (cold caches)" $T --mode compile --layers 2
timed "compile alone" $T --mode compile --layers 2
timed "compile under ncu, nothing matched, all processes" $N0 --target-processes all $T --mode compile --layers 2
grep 'Connected to process' /tmp/x.out | sed 's/^/    /' | head -8
timed "compile alone, COMPILE_THREADS=1" env TORCHINDUCTOR_COMPILE_THREADS=1 $T --mode compile --layers 2
timed "compile under ncu, nothing matched, COMPILE_THREADS=1" env TORCHINDUCTOR_COMPILE_THREADS=1 $N0 --target-processes all $T --mode compile --layers 2
timed "compile under ncu, nothing matched, application-only" $N0 --target-processes application-only $T --mode compile --layers 2
timed "eager alone" $T --mode eager --layers 2
timed "eager under ncu, nothing matched, all processes" $N0 --target-processes all $T --mode eager --layers 2
} 2>&1 | tee "$O/explore42e.txt"
true
