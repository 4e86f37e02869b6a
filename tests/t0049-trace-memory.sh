#!/usr/bin/env bash
# The per-instance traces are read as streams (issue 28, item 10): memory
# follows what is distinct (stages, instances, calls in flight, distinct
# latencies and durations), not the rows.  Inputs: real captures repeated
# by tests/gen-traces.sh (the Llama capture of tests/fixtures/h100-hostside
# 11 times, the PyTorch projection of tests/fixtures/h200-torch-v2 7,486
# times, 24 MB each, latencies and durations spread by up to 997 ns), each
# tool run in 32 MiB of address space, and every figure checked against
# the capture read once.  Before the change, lp-hostside, lp-regions and
# lp-reginst held every row they matched and died there ("realloc: Cannot
# allocate memory" at 48 MiB).
. "$(dirname "$0")/lib.sh"

HS=$FIX/h100-hostside
V2=$FIX/h200-torch-v2
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
	"$ROOT/conf/model/torch-decoder.yaml" >"$TRASH/cfg.yaml"
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/ncu/ncu.regions.yaml" \
	"$ROOT/conf/model/torch-decoder.yaml" >"$TRASH/td.yaml"
printf '%s\n' "$V2/torch_d0_regions.csv" "$V2/torch_d1_regions.csv" >"$TRASH/exports.list"
"$ROOT/tests/gen-traces.sh" "$TRASH/big" 24 997 >/dev/null 2>&1

# small CMD...: CMD in 32 MiB of address space; a sanitizer's shadow
# memory or valgrind needs far more, so there it runs unbounded
small() {
	case ${LP_VALGRIND:-}:$LP_BIN in
	1:* | *san*) "$@" ;;
	*) (ulimit -v 32768 && "$@") ;;
	esac
}

test_expect_success 'lp-hostside: 11 copies of a capture in 32 MiB, each stage 11 times the capture' '
	small lp-hostside -c "$TRASH/cfg.yaml" -a "$TRASH/big/cuda_api_trace.csv" \
		-g "$TRASH/big/cuda_gpu_trace.csv" "$TRASH/big/nvtx_pushpop_trace.csv" >big.tsv &&
	lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/llama_cuda_api_trace.csv" \
		-g "$HS/llama_cuda_gpu_trace.csv" "$HS/llama_nvtx_pushpop_trace.csv" >one.tsv &&
	cols="stage instances wall_ns api_ns api_launch_ns api_sync_ns launches kernel_ns graph_launches" &&
	table one.tsv $cols | grep -v ":steady" |
		awk -F"\t" -v OFS="\t" "{ for (i = 2; i <= NF; i++) \$i = sprintf(\"%.0f\", 11 * \$i); print }" >expect &&
	table big.tsv $cols | grep -v ":steady" >got &&
	test_cmp expect got &&
	test $(wc -l <got) = 3 &&
	! grep -q "^# warning" big.tsv
'

# Launch to start, recomputed: each direct launch of a decode step's
# thread inside one of its instances (the instances in order: the traces
# are sorted) to its kernel, by CorrID; the 50th and 90th percentiles.
lat='
FNR == 1 { f++; n = csv($0, x); delete h; col(x, n, h); next }
f == 1 { csv($0, x); if (x[h["Name"]] != ":LLM@decode_step") next
	k++; s[k] = x[h["Start (ns)"]] + 0; e[k] = x[h["End (ns)"]] + 0; p[k] = x[h["PID"]]; t[k] = x[h["TID"]]; next }
f == 2 { split($0, x, ","); nm = x[h["Name"]]
	if (nm !~ /^(cudaLaunch|cuLaunch)/) next
	st = x[h["Start (ns)"]] + 0
	while (i < k && e[i + 1] <= st) i++
	if (i < k && st >= s[i + 1] && x[h["Pid"]] == p[i + 1] && x[h["Tid"]] == t[i + 1]) ls[x[h["CorrID"]]] = st
	next }
f == 3 { split($0, x, ","); c = x[h["CorrId"]]
	if ((c in ls) && $0 !~ /\[CUDA mem/) { print x[h["Start (ns)"]] - ls[c]; delete ls[c] } }'
quantiles='{ v[++n] = $1 }
function q(p,    x, lo) { x = (n - 1) * p; lo = int(x)
	return lo + 1 < n ? v[lo + 1] + (x - lo) * (v[lo + 2] - v[lo + 1]) : v[lo + 1] }
END { printf "decode_step\t%.1f\t%.1f\n", q(0.5), q(0.9) }'

test_expect_success 'lp-hostside: the exact launch latency quantiles of 11 copies, by awk' '
	A "$lat" "$TRASH/big/nvtx_pushpop_trace.csv" "$TRASH/big/cuda_api_trace.csv" \
		"$TRASH/big/cuda_gpu_trace.csv" | sort -n | awk "$quantiles" >expect &&
	small lp-hostside -c "$TRASH/cfg.yaml" -a "$TRASH/big/cuda_api_trace.csv" \
		-g "$TRASH/big/cuda_gpu_trace.csv" "$TRASH/big/nvtx_pushpop_trace.csv" >big.tsv &&
	table big.tsv stage launch_lat_p50_ns launch_lat_p90_ns | grep "^decode_step	" >got &&
	test_cmp expect got
'

test_expect_success 'lp-hostside: an API trace not sorted by start is refused, naming file and line' '
	awk -F, -v OFS=, "NR == 101 { keep = \$0; next } { print } NR == 102 { print keep }" \
		"$HS/llama_cuda_api_trace.csv" >api.csv &&
	test_expect_code 1 lp-hostside -c "$TRASH/cfg.yaml" -a api.csv -g "$HS/llama_cuda_gpu_trace.csv" \
		"$HS/llama_nvtx_pushpop_trace.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-hostside: api.csv:102:1: [0-9]*: starts before the row on line 101: the trace is not sorted by start time (lp-tracesort sorts it)$" err
'

# nsys's steady projection: the median of every decode step but the
# process's first (the earliest), recomputed.
test_expect_success 'lp-regions: 7,486 copies of a projection in 32 MiB, its exact median by awk' '
	small lp-regions -c "$TRASH/td.yaml" -p "$TRASH/big/nvtx_gpu_proj_trace.csv" -l "$TRASH/exports.list" >big.tsv &&
	awk -F, "\$1 == \":LLM@decode_step\" { print \$2, \$3 }" "$TRASH/big/nvtx_gpu_proj_trace.csv" |
		sort -n -k1,1 | sed 1d | cut -d" " -f2 | sort -n |
		awk "{ v[++n] = \$1 } END { printf \"%.1f\n\", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }" >expect &&
	table big.tsv path nsys_steady_ns | grep "decode_step" | cut -f2 >got &&
	test_cmp expect got &&
	test "$(table big.tsv path instances | grep decode_step | cut -f2)" = 32
'

test_expect_success 'lp-reginst: 7,486 copies in 32 MiB pair the same instances as the projection once' '
	small lp-reginst -c "$TRASH/td.yaml" -p "$TRASH/big/nvtx_gpu_proj_trace.csv" -l "$TRASH/exports.list" >big.tsv &&
	lp-reginst -c "$TRASH/td.yaml" -p "$V2/torch_nvtx_gpu_proj_trace.csv" -l "$TRASH/exports.list" >one.tsv &&
	grep -v "^#" one.tsv >expect &&
	grep -v "^#" big.tsv >got &&
	test_cmp expect got &&
	test $(wc -l <got) = 35
'

test_done
