#!/usr/bin/env bash
# The cost of profiling a workload with lp, as a new user runs it (issue
# 17), printed (a benchmark, not a test): the workload alone (one warm-up
# run, then make RUN=x alone.tsv times it), the whole deep profile
# (make RUN=x stakeholder_summary.md from nothing) and, with REGIONS=1,
# make RUN=x regions.md after it; then lp's own profile_cost.tsv.
# usage: tests/gpu/cost.sh RUN MODEL WORK...   ($OUT: also writes
# $OUT/cost-RUN.txt and the run's profile_cost.tsv; COST_SET='k=v ...':
# the run's SET=, e.g. to measure a setting against the default;
# COST_PRESET=name: the run's NCU_PRESET=)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
run=$1 model=$2; shift 2
work="$*"
s2=${LP_GPU_STAGE2:-/tmp/lp-cost}
r=$s2/$run
m() { make -C "$root" --no-print-directory LP_STAGE2_DIR="$s2" RUN="$run" "$@"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
rm -rf "$r"
m WORK="$work" MODEL="$model" SET="${COST_SET:-}" NCU_PRESET="${COST_PRESET:-}" inputs.yaml >/dev/null || exit 1
mapfile -d '' argv < <("$root/bin/lp-confget" -0 workload.argv "$r/inputs.yaml")
(cd "$root" && "${argv[@]}" >/dev/null 2>&1)	# the warm-up, not timed
m alone.tsv >/dev/null || exit 1	# lp times the workload alone itself
alone=$(awk -F '\t' '!/^#/ { print $2; exit }' "$r/alone.tsv")
t0=$(now); m stakeholder_summary.md >"$r.deep.log" 2>&1; rc=$?; t1=$(now)
deep=$(secs "$t0" "$t1")
reg=n/a
if [ "${REGIONS:-0}" = 1 ]; then
	t0=$(now); m regions.md >"$r.regions.log" 2>&1 || rc=$?; t1=$(now)
	reg=$(secs "$t0" "$t1")
fi
m profile_cost.tsv >/dev/null 2>&1
{
	echo "run $run ($model): $work${COST_SET:+ (SET=$COST_SET)}${COST_PRESET:+ (NCU_PRESET=$COST_PRESET)}"
	echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(nsys --version); $(ncu --version | tail -1)"
	printf '%-44s %10s\n' "workload alone (wall, s)" "$alone" \
		"deep profile, make stakeholder_summary.md" "$deep" \
		"deep profile / workload alone" "$(awk -v a="$deep" -v b="$alone" 'BEGIN { printf "%.2fx", a / b }')" \
		"regions, make regions.md (s)" "$reg" \
		"exit code" "$rc"
	grep '^lp: .* took' "$r.deep.log" "$r.regions.log" 2>/dev/null | sed 's/^[^:]*://'
	# the table in aligned columns (the GPU machine has no column(1))
	[ -f "$r/profile_cost.tsv" ] && awk -F '\t' '/^#/ { next }
		NR == FNR { for (i = 1; i <= NF; i++) if (length($i) > w[i]) w[i] = length($i); next }
		{ for (i = 1; i <= NF; i++) printf("%-" w[i] "s%s", $i, i < NF ? "  " : "\n") }' \
		"$r/profile_cost.tsv" "$r/profile_cost.tsv"
} | tee ${OUT:+"$OUT/cost-$run.txt"}
[ -n "${OUT:-}" ] && cp "$r/profile_cost.tsv" "$OUT/profile_cost-$run.tsv" 2>/dev/null
exit $rc
