#!/usr/bin/env bash
# tests/fuzz/run.sh SECONDS RUN...: each fuzz run (nsys, ncu-wide,
# ncu-long, tsv, yaml; the writers md, svg, json) for SECONDS, one after the other.  The corpus is
# seeded from tests/fixtures (cut to a few rows: libFuzzer mutates small
# inputs best) and from tests/fuzz/regress/RUN, every input a past run
# found; those are replayed first, so a regression fails at once.  New
# inputs go to bin/fuzz/corpus/RUN, crashes to bin/fuzz/crash-RUN-*.
# Prints each run's executions, time and outcome; exits non-zero on any
# crash, leak, sanitizer report or timeout.
set -u
secs=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
fix=tests/fixtures
out=bin/fuzz
fail=0

seed() {	# seed RUN DIR: the fixtures of that reader, cut short
	local run=$1 d=$2 f n
	mkdir -p "$d"
	case $run in
	nsys)
		for f in $fix/*/*_sum.csv $fix/*/*_sum_mangled.csv $fix/*/*_trace.csv; do
			head -n 12 "$f" >"$d/$(echo "$f" | tr / _)"
		done
		# packed traces (lp-tracesort -p), cut short the same way
		make -s bin/lp-tracesort >/dev/null
		for f in $fix/h100-hostside/*_cuda_*_trace.csv $fix/h100-graphs/*_cuda_gpu_trace.csv; do
			[ -f "$f" ] || continue
			head -n 12 "$f" | bin/lp-tracesort -p >"$d/$(echo "$f" | tr / _).lpt" || exit 2
		done ;;
	ncu-wide)
		for f in $fix/*/*_ncu_raw.csv $fix/h200-tinyllm/dec_raw.csv $fix/*/*_regions.csv \
			$fix/h200-probe/*_raw.csv; do
			head -n 4 "$f" >"$d/$(echo "$f" | tr / _)"
		done ;;
	ncu-long)
		for f in $fix/*/*details*.csv; do
			head -n 80 "$f" >"$d/$(echo "$f" | tr / _)"
		done ;;
	tsv)
		[ -d tmp/stage2/demo ] || make -s demo >/dev/null
		for f in tmp/stage2/demo/*.tsv tmp/stage2/demo/ncu/metrics.tsv; do
			head -n 14 "$f" >"$d/$(echo "$f" | tr / _)"
		done ;;
	yaml)
		[ -d tmp/stage2/demo ] || make -s demo >/dev/null
		for f in conf/*.yaml conf/*/*.yaml conf/*/*/*.yaml tmp/stage2/demo/*.yaml \
			tmp/stage2/demo/env.json tmp/stage2/demo/ncu/regions/config.yaml; do
			[ -f "$f" ] && cp "$f" "$d/$(echo "$f" | tr / _)"
		done ;;
	md|svg|json)
		# names: every kernel of the real summaries, and a few hostile
		for f in $fix/*/*cuda_gpu_kern_sum.csv; do
			awk -F, -v d="$d/$(echo "$f" | tr / _)" 'NR > 1 && NR < 40 {
				s = $0; sub(/^([^,]*,){8}/, "", s); gsub(/^"|"$/, "", s)
				printf "%s", s > (d "." NR) }' "$f"
		done
		printf 'k`<img src=x onerror=alert(1)>`|\\|&amp;\377\357\277\276\001' >"$d/hostile"
		printf '``x``` y `' >"$d/backticks"
		printf '007' >"$d/number" ;;
	esac
	n=$(ls "$d" | wc -l)
	[ "$n" -gt 0 ] || { echo "fuzz: no seeds for $run" >&2; exit 2; }
}

printf "%-9s %10s %8s %10s %s\n" run executions seconds "exec/s" outcome
for run in "$@"; do
	case $run in
	ncu-wide|ncu-long) bin=$out/fuzz_ncu; len=200000 ;;
	md|svg|json) bin=$out/fuzz_$run; len=4096 ;;
	*) bin=$out/fuzz_$run; len=16384 ;;
	esac
	rm -rf "$out/seed/$run"
	seed "$run" "$out/seed/$run"
	mkdir -p "$out/corpus/$run" "tests/fuzz/regress/$run"
	log=$out/$run.log
	start=$(date +%s)
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
	"$bin" -max_total_time="$secs" -max_len=$len -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/crash-$run-" \
		"$out/corpus/$run" "$out/seed/$run" "tests/fuzz/regress/$run" >"$log" 2>&1
	rc=$?
	took=$(( $(date +%s) - start ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	if [ $rc = 0 ]; then outcome=ok; else
		outcome="FAILED (exit $rc): $(grep -m1 -E 'ERROR|SUMMARY|leak' "$log")"
		fail=1
	fi
	printf "%-9s %10s %8s %10s %s\n" "$run" "${execs:-?}" "$took" "${eps:-?}" "$outcome"
done
exit $fail
