#!/usr/bin/env bash
# Issue 38, item 3, continued: which of nsys's default capture options
# costs a decode step, beyond explore38.sh's: CUDA event tracing,
# GPU Metrics on a capture with graph node tracing, graphs traced whole
# with GPU Metrics; nsys's own help on those options (its defaults).
#   . .device/nsys-env.sh && bash tests/gpu/explore38c.sh [ROUNDS] [MODES]
set -u
rounds=${1:-3}
modes=${2:-graph eager}
out=${OUT:-/tmp}
w=/tmp/e38c
mkdir -p "$w"
nsys --version
nsys profile --help 2>&1 | grep -A3 -e "--cuda-event-trace" -e "--cudabacktrace" -e "--cuda-graph-trace" \
	-e "--cuda-flush-interval" -e "--cuda-memory-usage" -e "--trace-fork-before-exec" >"$out/nsys-help.txt"
cat "$out/nsys-help.txt"
common="--sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --force-overwrite=true"
gm="--gpu-metrics-devices=all --gpu-metrics-frequency=1000"
caps=(
	"alone|"
	"nvtx|--trace=nvtx $common"
	"lp-default|--trace=cuda,nvtx $common --cuda-graph-trace=node $gm"
	"lp-no-events|--trace=cuda,nvtx $common --cuda-graph-trace=node $gm --cuda-event-trace=false"
	"node-no-gm|--trace=cuda,nvtx $common --cuda-graph-trace=node"
	"graph-gm|--trace=cuda,nvtx $common --cuda-graph-trace=graph $gm"
)
printf 'mode\tround\tcapture\tstep_med_ms\tstep_min_ms\n' | tee "$out/explore38c.tsv"
for r in $(seq 1 "$rounds"); do
	for m in $modes; do
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
			printf '%s\t%s\t%s\t%s\t%s\n' "$m" "$r" "$name" \
				"$(echo "$line" | sed -n 's/.*decode_step_med=\([0-9.]*\)ms.*/\1/p')" \
				"$(echo "$line" | sed -n 's/.*decode_step_min=\([0-9.]*\)ms.*/\1/p')" | tee -a "$out/explore38c.tsv"
		done
	done
done
