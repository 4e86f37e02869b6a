#!/usr/bin/env bash
# make bench-traces: the readers of nsys's per-instance traces on inputs
# of about 1 GB (tests/gen-traces.sh: real captures repeated, latencies
# and durations spread): lp-hostside on a 1 GB cuda_api_trace (with its
# 2.3 GB cuda_gpu_trace), lp-regions and lp-reginst on a 1 GB
# nvtx_gpu_proj_trace.  Prints wall time, CPU time and peak RSS of each,
# one run, pinned to one core; asserts nothing.  Needs GNU time.
#
#   LP_BENCH_TRACES_MB=1000  MB (10^6 bytes) of the API trace and of the
#                            projection
#   LP_BENCH_JITTER=997      ns of spread (gen-traces.sh; 0: the real
#                            values repeated as they are)
#   LP_BIN_BEFORE=DIR        also run the tools of another build (a
#                            checkout's bin/) on the same inputs
#   TMPDIR=/var/tmp          where the inputs are written (removed at exit)
set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BIN:-$root/bin}
mb=${LP_BENCH_TRACES_MB:-1000}
jit=${LP_BENCH_JITTER:-997}
[ -x /usr/bin/time ] || { echo "bench-traces: needs GNU time (apt-get install time)" >&2; exit 2; }
pin=()
! command -v taskset >/dev/null || pin=(taskset -c 0)
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/lp-bench-traces.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' HUP INT TERM

# about 4.4 GB for 1000 MB; with less room, everything shrinks
free=$(df -Pk "$dir" | awk 'NR == 2 { printf "%d", $4 * 1024 / 1e6 }')
if [ "$free" -lt $((mb * 5)) ]; then
	mb=$((free / 5))
	echo "bench-traces: only $free MB free in $dir: inputs scaled down to $mb MB"
	[ "$mb" -ge 10 ] || { echo "bench-traces: too little space" >&2; exit 2; }
fi

"$bin/lp-confmerge" "$root/conf/runner/stage2.yaml" "$root/conf/profiling/nsys/nsys.default.yaml" \
	"$root/conf/model/torch-decoder.yaml" >"$dir/cfg.yaml"
"$bin/lp-confmerge" "$root/conf/runner/stage2.yaml" "$root/conf/profiling/ncu/ncu.regions.yaml" \
	"$root/conf/model/torch-decoder.yaml" >"$dir/td.yaml"
v2=$root/tests/fixtures/h200-torch-v2
printf '%s\n' "$v2/torch_d0_regions.csv" "$v2/torch_d1_regions.csv" >"$dir/exports.list"

start=$(date +%s)
"$root/tests/gen-traces.sh" "$dir" "$mb" "$jit" 2>&1 | sed 's/^/bench-traces: /'
size() {
	awk -v b="$(wc -c <"$1")" 'BEGIN { printf "%.1f MB", b / 1e6 }'
}
echo "bench-traces: inputs written in $(($(date +%s) - start)) s (not timed): cuda_api_trace $(size "$dir/cuda_api_trace.csv"), cuda_gpu_trace $(size "$dir/cuda_gpu_trace.csv"), nvtx_gpu_proj_trace $(size "$dir/nvtx_gpu_proj_trace.csv"); latencies and durations spread by up to $jit ns"

# run LABEL TOOL ARGS...: one run on core 0 with its figures; the table
# kept to compare with the other build's
run() {
	local label=$1 tool=$2 rc=0
	shift 2
	${pin[@]+"${pin[@]}"} /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$tool" "$@" >"$dir/out.$label.${tool##*/}" \
		2>"$dir/err" || rc=$?
	read -r wall user sys kib < <(tail -n 1 "$dir/time")
	if [ "$rc" = 0 ]; then
		printf '  %-7s %-12s %8s s wall %8s s CPU %9.1f MiB peak RSS\n' "$label" "${tool##*/}" "$wall" \
			"$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')" \
			"$(awk -v k="$kib" 'BEGIN { print k / 1024 }')"
	else
		printf '  %-7s %-12s failed (exit %s) after %s s, %.1f MiB peak RSS: %s\n' "$label" "${tool##*/}" "$rc" \
			"$wall" "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$(head -c 200 "$dir/err")"
	fi
}

builds=("now:$bin")
[ -z "${LP_BIN_BEFORE:-}" ] || builds=("before:$LP_BIN_BEFORE" "${builds[@]}")
for b in "${builds[@]}"; do
	label=${b%%:*}
	b=${b#*:}
	echo "bench-traces: $label ($b)"
	run "$label" "$b/lp-hostside" -c "$dir/cfg.yaml" -a "$dir/cuda_api_trace.csv" \
		-g "$dir/cuda_gpu_trace.csv" "$dir/nvtx_pushpop_trace.csv"
	run "$label" "$b/lp-regions" -c "$dir/td.yaml" -k "$v2/torch_nvtx_kern_sum.csv" \
		-p "$dir/nvtx_gpu_proj_trace.csv" -l "$dir/exports.list"
	run "$label" "$b/lp-reginst" -c "$dir/td.yaml" -p "$dir/nvtx_gpu_proj_trace.csv" \
		-l "$dir/exports.list"
done
if [ -n "${LP_BIN_BEFORE:-}" ]; then
	for t in lp-hostside lp-regions lp-reginst; do
		if [ -s "$dir/out.before.$t" ] && [ -s "$dir/out.now.$t" ]; then
			cmp -s <(grep -v '^# source' "$dir/out.before.$t") <(grep -v '^# source' "$dir/out.now.$t") &&
				echo "  $t: the same table from both builds" ||
				echo "  $t: the tables DIFFER between the builds"
		fi
	done
fi
echo "Target (not asserted): each under 100 MiB peak RSS at 1 GB."
