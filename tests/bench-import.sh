#!/usr/bin/env bash
# tests/bench-import.sh (make bench): lp-import on a hand-made PyTorch
# op-range capture of about 1 GB (LP_BENCH_IMPORT_MB, default 1000: the
# nvtx_pushpop_trace; its nvtx_sum beside it), as nsys profile
# --pytorch=autograd-shapes-nvtx writes one for a long eager decode
# (tests/fixtures/h100-aten has real ones of 2,500 ranges).  Every op range
# is named by its own op_id, so every row of both exports is a name of its
# own; lp-import's memory must stay with what is distinct (ops and their
# input shapes), not grow with the ranges.  Prints wall time and peak RSS
# at the full size and at a tenth of it; asserts nothing.  Needs GNU time.
#
#   LP_BENCH_IMPORT_MB=1000   size of the push/pop trace, in MB (10^6 bytes)
#   TMPDIR=/var/tmp           where the inputs are written (removed at exit)
set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BIN:-$root/bin}
mb=${LP_BENCH_IMPORT_MB:-1000}
case $mb in '' | *[!0-9]*) echo "bench-import: LP_BENCH_IMPORT_MB=$mb: a whole number of MB" >&2; exit 2 ;; esac
[ -x /usr/bin/time ] || { echo "bench-import: needs GNU time (apt-get install time)" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/lp-bench-import.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' HUP INT TERM

# gen DIR MB: the stage ranges :LLM@decode_all around :LLM@decode_step
# instances of 100 ops each, every op an aten::linear > aten::matmul >
# aten::mm (three ranges, op_ids unique, 8 input shapes), in the columns
# nsys stats writes (nvtx_pushpop_trace: 14; nvtx_sum: 10, one row a name).
gen() {
	mkdir -p "$1"
	awk -v want="$(($2 * 1000000))" -v dir="$1" '
	function range(s, e, name, lvl, parent, stack,    q, row) {
		q = "\"" name "\""
		row = sprintf("%.0f,%.0f,%.0f,0,%.0f,%s,7,7,%d,0,%d,%s,%s,%s", s, e, e - s, e - s, q, lvl, ++id,
			parent, stack ":" id, "\"" substr("------", 1, 2 * lvl) name "\"")
		print row > r
		size += length(row) + 1
		if (name ~ /^:aten/)
			printf "0.0,%.0f,1,%.0f.0,%.0f.0,%.0f,%.0f,0.0,PushPop,%s\n", e - s, e - s, e - s, e - s, e - s, q > sum
		return id
	}
	BEGIN {
		r = dir "/bench_nvtx_pushpop_trace.csv"; sum = dir "/bench_nvtx_sum.csv"
		print "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree" > r
		print "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range" > sum
		t = 1000000; d = 30000
		all = range(t, t + 1e15, ":LLM@decode_all", 0, "", "")
		for (steps = 0; size < want; steps++) {
			st = t + 1000
			sid = range(st, st + 100 * d + 500, ":LLM@decode_step", 1, all, ":" all)
			stepns += 100 * d + 500
			t = st + 100
			for (k = 0; k < 100; k++) {
				m = 64 * (1 + op % 8); sz = sprintf("sizes = [[1, %d], [%d, 768]], input_op_ids = [(%d,0), (0,-1)]", m, m, op)
				a = range(t, t + 20000, ":aten::linear, op_id = " (3 * op + 1) ", " sz, 2, sid, ":" all ":" sid)
				b = range(t + 100, t + 19000, ":aten::matmul, op_id = " (3 * op + 2) ", " sz, 3, a, ":" all ":" sid ":" a)
				range(t + 200, t + 18000, ":aten::mm, op_id = " (3 * op + 3) ", " sz, 4, b, ":" all ":" sid ":" a ":" b)
				t += d; op++
			}
			t = st + 100 * d + 500
		}
		printf "0.0,%.0f,%d,0.0,0.0,0,0,0.0,PushPop,:LLM@decode_step\n", stepns, steps > sum
		printf "0.0,%.0f,1,%.0f.0,%.0f.0,%.0f,%.0f,0.0,PushPop,:LLM@decode_all\n", 1e15, 1e15, 1e15, 1e15, 1e15 > sum
	}'
}

for m in $((mb / 10)) "$mb"; do
	[ "$m" -ge 1 ] || continue
	gen "$dir/$m" "$m"
	rows=$(($(wc -l <"$dir/$m/bench_nvtx_pushpop_trace.csv") - 1))
	size=$(du -cm "$dir/$m"/*.csv | tail -1 | cut -f1)
	/usr/bin/time -o "$dir/time" -f "%e %M" "$bin/lp-import" "$dir/$m"/*.csv >"$dir/out.mk" ||
		{ echo "bench-import: lp-import failed on the $m MB capture" >&2; exit 1; }
	read -r secs kb <"$dir/time"
	printf 'lp-import: %d op ranges (%d MB of exports: nvtx_pushpop_trace, nvtx_sum): %s s wall, %.1f MiB peak RSS\n' \
		"$rows" "$size" "$secs" "$(echo "$kb" | awk '{ print $1 / 1024 }')"
	rm -rf "${dir:?}/$m"
done
