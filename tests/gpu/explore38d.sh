#!/usr/bin/env bash
# Issue 38: tinyllm unfused against fused (check-gpu t0005), each timed
# untraced (nsys --trace=nvtx, as lp's untraced run) and traced (lp's
# default capture), rounds alternated; decode_step median of each run
# from nsys stats nvtx_pushpop_trace.  Prints mode, round, capture, median
# ns, count.
#   . .device/nsys-env.sh && bash tests/gpu/explore38d.sh [ROUNDS]
set -u
rounds=${1:-3}
w=/tmp/e38d; mkdir -p "$w"
make -s bin/tinyllm >/dev/null || exit 1
common="--sample=none --cpuctxsw=none --force-overwrite=true"
for r in $(seq 1 "$rounds"); do
	for m in unfused fused fused unfused; do
		a=; [ $m = unfused ] && a=--unfused
		for cap in nvtx lp; do
			if [ $cap = nvtx ]; then t="--trace=nvtx"; else t="--trace=cuda,nvtx --cuda-graph-trace=node --gpu-metrics-devices=all --gpu-metrics-frequency=1000"; fi
			nsys profile $t $common --output="$w/x" -- bin/tinyllm $a >/dev/null 2>&1
			nsys stats --report nvtx_pushpop_trace --format csv --force-export=true --output "$w/x" "$w/x.nsys-rep" >/dev/null 2>&1
			awk -F, -v m=$m -v r=$r -v c=$cap 'NR > 1 && $6 == "LLM:decode_step" { v[++n] = $3 }
				END { for (i = 2; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
				k = n - 1; printf "%s\t%s\t%s\t%.0f\t%d\n", m, r, c, (k % 2 ? v[2 + (k - 1) / 2] : (v[1 + k / 2] + v[2 + k / 2]) / 2), n }' "$w/x_nvtx_pushpop_trace.csv"
			rm -f "$w"/x*
		done
	done
done
