#!/usr/bin/env bash
# tests/gen-import.sh DIR MB: a whole nsys import of about MB megabytes
# (10^6 bytes, all files together) for make bench, made of the real Llama
# capture of tests/fixtures/h100-hostside (a bf16 decode on an H100:
# 38,789 API calls, 16,365 GPU operations, 18 NVTX ranges) repeated: each
# copy of the four traces (cuda_api_trace, cuda_gpu_trace,
# nvtx_pushpop_trace, nvtx_gpu_proj_trace) moved by the capture's span
# and 1 ms, its correlation IDs past the copy before; the summaries
# (cuda_gpu_kern_sum and its mangled twin, nvtx_sum, nvtx_kern_sum and
# its twin, cuda_api_sum, cuda_gpu_mem_time_sum) with their totals and
# counts multiplied by the copies, so that they are the summaries of the
# traces written.  The files are named llama_REPORT.csv, as lp imports
# them.  Prints the copies made.
set -eu
export LC_ALL=C
dir=$1
mb=$2
root=$(cd "$(dirname "$0")/.." && pwd)
hs=$root/tests/fixtures/h100-hostside/llama
mkdir -p "$dir"
total=$(cat "${hs}"_*.csv | wc -c)
reps=$(((mb * 1000000 + total - 1) / total))

# The traces.  Start is the first column of each but the projection
# (Projected Start 2nd, Orig Start 4th); End the 2nd of the push/pop
# trace; CorrID the 5th of the API trace, CorrId the 3rd of the GPU trace
# (the columns before a quoted name hold no comma, so splitting on ","
# and joining again keeps every row as it was).
awk -F, -v OFS=, -v reps="$reps" -v dir="$dir" '
	FNR == 1 { f++; head[f] = $0; next }
	f == 1 { pp[++npp] = $0; lo = min($1, lo); hi = max($2, hi) }
	f == 2 { api[++napi] = $0; lo = min($1, lo); hi = max($1 + $2, hi); mc = max($5, mc) }
	f == 3 { gpu[++ngpu] = $0; lo = min($1, lo); hi = max($1 + $2, hi); mc = max($3, mc) }
	f == 4 { pj[++npj] = $0 }
	function min(a, b) { return b == "" || a + 0 < b + 0 ? a + 0 : b + 0 }
	function max(a, b) { return b == "" || a + 0 > b + 0 ? a + 0 : b + 0 }
	END {
		span = hi - lo + 1000000
		p = dir "/llama_nvtx_pushpop_trace.csv"; a = dir "/llama_cuda_api_trace.csv"
		g = dir "/llama_cuda_gpu_trace.csv"; j = dir "/llama_nvtx_gpu_proj_trace.csv"
		print head[1] > p; print head[2] > a; print head[3] > g; print head[4] > j
		for (r = 0; r < reps; r++) {
			dt = r * span; dc = r * (mc + 1)
			for (i = 1; i <= npp; i++) {
				$0 = pp[i]; $1 = sprintf("%.0f", $1 + dt); $2 = sprintf("%.0f", $2 + dt); print > p
			}
			for (i = 1; i <= napi; i++) {
				$0 = api[i]; $1 = sprintf("%.0f", $1 + dt); $5 = sprintf("%.0f", $5 + dc); print > a
			}
			for (i = 1; i <= ngpu; i++) {
				$0 = gpu[i]; $1 = sprintf("%.0f", $1 + dt); $3 = sprintf("%.0f", $3 + dc); print > g
			}
			for (i = 1; i <= npj; i++) {
				$0 = pj[i]; $2 = sprintf("%.0f", $2 + dt); $4 = sprintf("%.0f", $4 + dt); print > j
			}
		}
	}' "${hs}_nvtx_pushpop_trace.csv" "${hs}_cuda_api_trace.csv" "${hs}_cuda_gpu_trace.csv" \
	"${hs}_nvtx_gpu_proj_trace.csv"

# The summaries: the columns of totals and counts (found by name in the
# header; each before the first quoted field) multiplied by the copies.
for r in cuda_gpu_kern_sum cuda_gpu_kern_sum_mangled nvtx_sum nvtx_kern_sum nvtx_kern_sum_mangled \
	cuda_api_sum cuda_gpu_mem_time_sum; do
	awk -F, -v OFS=, -v reps="$reps" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^(Total Time|Instances|Num Calls|Count|Kern Inst|NVTX Inst)/) m[i] = 1
			print; next }
		{ for (i in m) if ($i != "") $i = sprintf("%.0f", $i * reps); print }' "${hs}_$r.csv" >"$dir/llama_$r.csv"
done
echo "$reps copies of the Llama capture"
