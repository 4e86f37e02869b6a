#!/usr/bin/env bash
# Issue 38, item 3: what each nsys capture option costs a decode step.
# The PyTorch decoder (tests/workloads/torch_decoder.py) in eager, graph
# (one CUDA graph per step) and compile modes, each timed by its own clock
# (decode_step_med: the median of its 32 steps, perf_counter around each
# step, which ends with the token's copy to the host) alone and under each
# capture, ROUNDS rounds with the captures alternated within a round.
# Prints one TSV row per run: mode, round, capture, median step ms,
# fastest step ms, whole generation ms.
#   . .device/nsys-env.sh && bash tests/gpu/explore38.sh [ROUNDS] [MODES]
set -u
rounds=${1:-3}
modes=${2:-eager graph compile}
out=${OUT:-/tmp}/explore38.tsv
w=/tmp/e38
mkdir -p "$w"
common="--sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --force-overwrite=true"
# name and nsys arguments of each capture ("" runs it alone)
caps=(
	"alone|"
	"nvtx|--trace=nvtx $common"
	"cuda-graph|--trace=cuda,nvtx $common --cuda-graph-trace=graph"
	"cuda-node|--trace=cuda,nvtx $common --cuda-graph-trace=node"
	"lp-default|--trace=cuda,nvtx $common --cuda-graph-trace=node --gpu-metrics-devices=all --gpu-metrics-frequency=1000"
	"nvtx-gm|--trace=nvtx $common --gpu-metrics-devices=all --gpu-metrics-frequency=1000"
)
printf 'mode\tround\tcapture\tstep_med_ms\tstep_min_ms\tgeneration_ms\n' | tee "$out"
for r in $(seq 1 "$rounds"); do
	for m in $modes; do
		# alternate the order of the captures between rounds
		if [ $((r % 2)) = 0 ]; then order=$(seq $((${#caps[@]} - 1)) -1 0); else order=$(seq 0 $((${#caps[@]} - 1))); fi
		for i in $order; do
			name=${caps[$i]%%|*} args=${caps[$i]#*|}
			if [ -z "$args" ]; then
				line=$(python3 tests/workloads/torch_decoder.py --mode "$m" 2>&1 | grep "^torch_decoder: mode=")
			else
				line=$(nsys profile $args --output="$w/$m-$name-$r" -- \
					python3 tests/workloads/torch_decoder.py --mode "$m" 2>&1 | grep "^torch_decoder: mode=")
				rm -f "$w/$m-$name-$r".*
			fi
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$r" "$name" \
				"$(echo "$line" | sed -n 's/.*decode_step_med=\([0-9.]*\)ms.*/\1/p')" \
				"$(echo "$line" | sed -n 's/.*decode_step_min=\([0-9.]*\)ms.*/\1/p')" \
				"$(echo "$line" | sed -n 's/.* time=\([0-9.]*\)ms.*/\1/p')" | tee -a "$out"
		done
	done
done
