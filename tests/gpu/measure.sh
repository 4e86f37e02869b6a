#!/usr/bin/env bash
# Measures on a GPU machine what tests/gpu/README.md reports, for one workload:
#   - wall time of the workload alone, and of lp's nsys profile step;
#   - lp's ncu step (top-N kernels, one launch each) against ncu on every
#     kernel launch of the same NVTX region with the same preset;
#   - the share of the region's GPU time that the selected kernels cover.
# usage: tests/gpu/measure.sh RUN MODEL WORK
# Prints a table; with $OUT set, also writes $OUT/measure-RUN.txt.
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

# the workload alone, the argv lp recorded (twice: the first warms caches)
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
m stakeholder_summary.md >/dev/null 2>&1
sel=$(($(wc -l <"$r/topn.tsv") - 1))
cover=$(tail -1 "$r/topn.tsv" | cut -f7)
region_launches=$(awk -F'\t' 'NR > 1 { n += $4 } END { print n }' <(sed '/^#/d' "$r/kernels.tsv"))

# ncu on every launch in the region: lp's command without its kernel filter
words=()
while IFS= read -r -d '' w; do words+=("$w"); done < <(
	"$bin/lp-ncucmd" -0 -k "$r/topn.tsv" -o "$r/ncu/all" -- "${argv[@]}" <"$r/ncu/config.yaml")
all=()
i=0
while [ $i -lt ${#words[@]} ]; do
	case ${words[$i]} in
	--kernel-name-base|--kernel-id|--kernel-name|--launch-count|--launch-skip) i=$((i + 2)); continue ;;
	esac
	all+=("${words[$i]}")
	i=$((i + 1))
done
t0=$(now); (cd "$root" && "${all[@]}" >/dev/null 2>&1) || true; t1=$(now)
ncu_all=$(secs "$t0" "$t1")
all_launches=$(ncu --import "$r/ncu/all.ncu-rep" --page raw --csv 2>/dev/null | "$bin/lp-ncu2tsv" |
	awk -F'\t' 'NR > 1 { n += $3 } END { print n }')

{
	echo "run $run ($model): $work"
	echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(nsys --version); $(ncu --version | tail -1)"
	printf "%-58s %10s\n" "workload alone (wall)" "$alone s"
	printf "%-58s %10s\n" "nsys profile step (make nsys/report.nsys-rep)" "$nsys_step s"
	printf "%-58s %10s\n" "ncu step, top $sel kernels x 1 launch (make ncu/report.ncu-rep)" "$ncu_topn s"
	printf "%-58s %10s\n" "ncu, every launch in the region ($all_launches of $region_launches)" "$ncu_all s"
	printf "%-58s %10s\n" "top-N step / all-kernels step" "$(awk -v a="$ncu_topn" -v b="$ncu_all" 'BEGIN { printf "%.3f", a / b }')"
	printf "%-58s %10s\n" "region GPU time covered by the $sel selected kernels" "$cover %"
} | tee ${OUT:+"$OUT/measure-$run.txt"}
