#!/usr/bin/env bash
# tests/gen-traces.sh DIR MB [JITTER]: per-instance nsys traces of about MB
# megabytes (10^6 bytes) for make bench-traces, made of real rows repeated:
#
#   DIR/nvtx_pushpop_trace.csv, cuda_api_trace.csv, cuda_gpu_trace.csv:
#     the Llama capture of tests/fixtures/h100-hostside (a bf16 decode on
#     an H100: prefill, decode_all, 16 decode steps; 38,789 API calls,
#     16,365 GPU operations) repeated until the API trace holds MB: each
#     copy moved by the capture's span and 1 ms, its correlation IDs past
#     the copy before, so that the traces stay sorted by start and every
#     launch keeps its kernel.  The API trace of 1000 MB comes with a GPU
#     trace of about 2.3 GB (each rep as the real one's).
#   DIR/nvtx_gpu_proj_trace.csv: the PyTorch decode of
#     tests/fixtures/h200-torch-v2 (prefill, decode_all, 32 decode steps of
#     one process) repeated to MB the same way, one process throughout.
#
# JITTER (default 0) ns: copy r's GPU operations start (r * 7919) % JITTER
# ns later and its projected durations are as much longer, so that the
# launch latencies and region durations are not the same few values
# again and again (lp keeps the distinct ones for its exact quantiles).
# A real long capture has such spread; 0 gives the real values repeated.
set -eu
export LC_ALL=C
dir=$1
mb=$2
jit=${3:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
hs=$root/tests/fixtures/h100-hostside/llama
pj=$root/tests/fixtures/h200-torch-v2/torch_nvtx_gpu_proj_trace.csv
mkdir -p "$dir"

# The capture's copies: the three traces read once, then written copy by
# copy.  Start is the first column of each; CorrID the 5th of the API
# trace, CorrId the 3rd of the GPU trace (the columns before a quoted
# kernel name hold no comma, so splitting on "," and joining again keeps
# every row as it was).
awk -F, -v OFS=, -v want="$((mb * 1000000))" -v jit="$jit" -v dir="$dir" '
	FNR == 1 { f++; head[f] = $0; next }
	f == 1 { pp[++npp] = $0; lo = min($1, lo); hi = max($2, hi) }
	f == 2 { api[++napi] = $0; lo = min($1, lo); hi = max($1 + $2, hi); mc = max($5, mc); abytes += length($0) + 1 }
	f == 3 { gpu[++ngpu] = $0; lo = min($1, lo); hi = max($1 + $2, hi); mc = max($3, mc) }
	function min(a, b) { return b == "" || a + 0 < b + 0 ? a + 0 : b + 0 }
	function max(a, b) { return b == "" || a + 0 > b + 0 ? a + 0 : b + 0 }
	END {
		span = hi - lo + 1000000
		reps = int((want + abytes - 1) / abytes)
		p = dir "/nvtx_pushpop_trace.csv"; a = dir "/cuda_api_trace.csv"; g = dir "/cuda_gpu_trace.csv"
		print head[1] > p; print head[2] > a; print head[3] > g
		for (r = 0; r < reps; r++) {
			dt = r * span; dc = r * (mc + 1); j = jit ? (r * 7919) % jit : 0
			for (i = 1; i <= npp; i++) {
				$0 = pp[i]; $1 = sprintf("%.0f", $1 + dt); $2 = sprintf("%.0f", $2 + dt); print > p
			}
			for (i = 1; i <= napi; i++) {
				$0 = api[i]; $1 = sprintf("%.0f", $1 + dt); $5 = sprintf("%.0f", $5 + dc); print > a
			}
			for (i = 1; i <= ngpu; i++) {
				$0 = gpu[i]; $1 = sprintf("%.0f", $1 + dt + j); $3 = sprintf("%.0f", $3 + dc); print > g
			}
		}
		printf "%d copies of the Llama capture\n", reps
	}' "${hs}_nvtx_pushpop_trace.csv" "${hs}_cuda_api_trace.csv" "${hs}_cuda_gpu_trace.csv"

# The projection: Projected Start (2nd) and Orig Start (4th) moved,
# Projected Duration (3rd) longer by the jitter.
awk -F, -v OFS=, -v want="$((mb * 1000000))" -v jit="$jit" '
	NR == 1 { print; next }
	{ row[++n] = $0; bytes += length($0) + 1
	  if (lo == "" || $2 + 0 < lo) lo = $2 + 0
	  if ($2 + $3 > hi) hi = $2 + $3 }
	END {
		span = hi - lo + 1000000
		reps = int((want + bytes - 1) / bytes)
		for (r = 0; r < reps; r++) {
			dt = r * span; j = jit ? (r * 7919) % jit : 0
			for (i = 1; i <= n; i++) {
				$0 = row[i]
				$2 = sprintf("%.0f", $2 + dt); $3 = sprintf("%.0f", $3 + j); $4 = sprintf("%.0f", $4 + dt)
				print
			}
		}
		printf "%d copies of the PyTorch projection\n", reps > "/dev/stderr"
	}' "$pj" >"$dir/nvtx_gpu_proj_trace.csv"
