#!/usr/bin/env bash
# Measures on a GPU machine the cost of region profiling (lp(7), "NVTX
# regions"), for one workload: the workload alone, lp's nsys step, its
# top-N kernel ncu step and its region step (ncu per nesting depth), and the
# replay passes ncu reports per region run.
# usage: tests/gpu/measure-regions.sh RUN MODEL WORK
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
run=$1 model=$2 work=$3
s2=${LP_GPU_STAGE2:-/tmp/lp-measure}
bin=${LP_BIN:-$root/bin}
m() { make -C "$root" --no-print-directory -s LP_STAGE2_DIR="$s2" RUN="$run" "$@"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
r=$s2/$run
set -e

m "WORK=$work" MODEL="$model" inputs.yaml >/dev/null
mapfile -d '' argv < <("$bin/lp-confget" -0 workload.argv "$r/inputs.yaml")
(cd "$root" && "${argv[@]}" >/dev/null 2>&1)
t0=$(now); (cd "$root" && "${argv[@]}" >/dev/null 2>&1); t1=$(now)
alone=$(secs "$t0" "$t1")
m env.json "$r/nsys/profile.cmd" >/dev/null
t0=$(now); m "$r/nsys/report.nsys-rep" >/dev/null 2>&1; t1=$(now)
nsys_step=$(secs "$t0" "$t1")
m topn.tsv "$r/ncu/profile.cmd" >/dev/null 2>&1
t0=$(now); m "$r/ncu/report.ncu-rep" >/dev/null 2>&1; t1=$(now)
ncu_topn=$(secs "$t0" "$t1")
m stakeholder_summary.md "$r/ncu/regions/profile.cmd" >/dev/null 2>&1
t0=$(now); m "$r/ncu/regions/exports.list" >/dev/null 2>&1; t1=$(now)
regions=$(secs "$t0" "$t1")
m regions.md >/dev/null 2>&1
prog=$(mktemp)
echo 'NR == 1 { n = csv($0, f); col(f, n, h); next } NR > 2 { csv($0, f); print f[h["profiler__replayer_passes"]] }' >"$prog"
passes=$(for f in "$r"/ncu/regions/d*.csv; do
	awk -f "$root/tests/csv.awk" -f "$prog" "$f" | sort -u | head -1
done | paste -sd/)
rm -f "$prog"
{
	echo "run $run ($model): $work"
	echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
	printf "%-52s %10s\n" "workload alone (wall)" "$alone s"
	printf "%-52s %10s\n" "nsys profile step" "$nsys_step s"
	printf "%-52s %10s\n" "ncu step, top-N kernels x 1 launch" "$ncu_topn s"
	printf "%-52s %10s\n" "ncu region step (all depths, $(ls "$r"/ncu/regions/d*.ncu-rep | wc -l) runs)" "$regions s"
	printf "%-52s %10s\n" "replay passes per region run (ncu, by depth)" "${passes:-?}"
	printf "%-52s %10s\n" "region step / workload alone" "$(awk -v a="$regions" -v b="$alone" 'BEGIN { printf "%.1f", a / b }')"
	printf "%-52s %10s\n" "region step / top-N kernel step" "$(awk -v a="$regions" -v b="$ncu_topn" 'BEGIN { printf "%.2f", a / b }')"
} | tee ${OUT:+"$OUT/measure-regions-$run.txt"}
