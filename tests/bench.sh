#!/usr/bin/env bash
# make bench: throughput (MB/s) and peak memory of lp's parsers on inputs of
# about 1 GB, each pinned to one core, against the same aggregation done by
# Python's csv module (tests/bench/agg.py) and by Miller (tests/bench/*.mlr),
# and whether the three agree.  Prints figures; asserts nothing.
#
# Needs GNU time (Debian: time; installed here when run as root), taskset
# and python3; Miller (Debian: miller) is timed when installed.
#
#   LP_BENCH_MB=1000      size of each ncu export, in MB (10^6 bytes)
#   LP_BENCH_N=1000000    kernels of the kernel summary, ranges of the NVTX one
#   LP_BENCH_TIMEOUT=600  seconds one timed run may take before it is stopped
#                         (Miller needs about 300 s for the 1 GB wide export)
#   TMPDIR=/var/tmp       where the inputs are written (on disk, removed at exit)
set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BIN:-$root/bin}
fix=$root/tests/fixtures
agg=$root/tests/bench
mb=${LP_BENCH_MB:-1000}
n=${LP_BENCH_N:-1000000}
limit=${LP_BENCH_TIMEOUT:-600}

if ! [ -x /usr/bin/time ]; then
	if [ "${LP_AUTO_DEPS:-1}" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "bench: installing GNU time (running as root)"
		apt-get install -y -qq time >/dev/null 2>&1 ||
			{ apt-get update -qq && apt-get install -y -qq time >/dev/null; }
	fi
	[ -x /usr/bin/time ] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 2; }
fi
for c in taskset timeout python3; do
	command -v $c >/dev/null || { echo "bench: needs $c" >&2; exit 2; }
done
have_mlr=0
if command -v mlr >/dev/null; then
	have_mlr=1
	# Miller 6.6 (Go) leaves its garbage to pile up, to ~16 times the
	# size of a wide export (2.5 GB RSS for 150 MB): a 1 GB one would
	# fill the memory.  A soft limit bounds it and costs no time (seen).
	export GOMEMLIMIT=${GOMEMLIMIT:-2GiB}
else
	echo "mlr: not installed (apt-get install miller): Miller is not timed"
fi

dir=$(mktemp -d "${TMPDIR:-/var/tmp}/lp-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' HUP INT TERM

# Two ncu exports of $mb MB and two summaries of about 0.1 GB, written
# once: 6 GB free leaves room to spare; with less, everything shrinks.
free=$(df -Pk "$dir" | awk 'NR == 2 { printf "%d", $4 * 1024 / 1e6 }')
if [ "$free" -lt 6000 ]; then
	old=$mb
	mb=$((free / 6))
	n=$((n * mb / old))
	echo "bench: only $free MB free in $dir (< 6000 MB): inputs scaled down to $mb MB a file, $n names"
	[ "$mb" -ge 10 ] || { echo "bench: too little space to bench" >&2; exit 2; }
fi

## Inputs ##############################################################

# ncu FIXTURE BYTES: a real ncu export, its launches repeated until the
# file holds BYTES; the header (and a wide export's units row) comes once.
# Launch IDs keep growing, as lp-ncu2tsv wants a launch's rows together.
ncu() {
	awk -v want="$2" -v head="$3" '
		NR <= head { print; size += length($0) + 1; next }
		{
			row[++rows] = $0
			if (match($0, /^"[0-9]+"/) && (id = substr($0, 2, RLENGTH - 2) + 1) > span)
				span = id
		}
		END {
			for (r = 0; size < want; r++)
				for (i = 1; i <= rows; i++) {
					line = row[i]
					match(line, /^"[0-9]+"/)
					line = "\"" (substr(line, 2, RLENGTH - 2) + r * span) "\"" substr(line, RLENGTH + 1)
					print line
					size += length(line) + 1
				}
		}' "$1"
}

# ksum N: an nsys kernel summary (cuda_gpu_kern_sum) of N distinct
# kernels, largest total first as nsys writes it, names quoted (commas).
ksum() {
	echo "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			all += (i * 7919) % 1000003 * 1000 + 17
		for (i = 0; i < n; i++) {
			t = (i * 7919) % 1000003 * 1000 + 17
			c = 1 + i % 977
			printf "%.1f,%d,%d,%.1f,%.1f,%d,%d,%.1f,\"void at::native::k%07d<c10::Half, float, (int)%d>(int, T2, const T1 *)\"\n",
				100 * t / all, t, c, t / c, t / c, t / c / 2, t / c * 2, t / c / 10, i, i % 8
		}
	}' | sort -t, -k2,2nr
}

# nvtx N: an nsys NVTX summary (nvtx_sum) of N distinct ranges: the real
# capture's three stage ranges (prefill, decode_all, decode_step) first,
# in the middle and last, among others named like them (:LLM@decode_step7).
nvtx() {
	awk -v n="$1" '
		NR == 1 { print; next }
		{ stage[NR - 2] = $0 }
		END {
			for (i = 0; i < n - 3; i++) {
				if (i == 0 || i == int(n / 2) || i == n - 4)
					print stage[s++]
				t = 1000 + (i * 7919) % 1000003 * 100
				c = 1 + i % 64
				printf "0.0,%d,%d,%.1f,%.1f,%d,%d,%.1f,PushPop,%s%d\n",
					t, c, t / c, t / c, t / c / 2, t / c * 2, t / c / 10,
					i % 2 ? ":LLM@decode_step" : "LLM:layer", i
			}
		}' "$fix/h200-torch-v2/torch_nvtx_sum.csv"
}

echo "bench: writing the inputs in $dir ($mb MB ncu exports, $n names; not timed)"
# wide: the PyTorch decode's raw export, 10 launches of 796 columns
ncu "$fix/h200-torch-v2/torch_ncu_raw.csv" "$((mb * 1000000))" 2 >"$dir/wide.csv"
# long: the tinyllm decode's details export, 96 launches, a row a metric
ncu "$fix/h200-tinyllm/dec_details.csv" "$((mb * 1000000))" 1 >"$dir/long.csv"
ksum "$n" >"$dir/kern_sum.csv"
nvtx "$n" >"$dir/nvtx_sum.csv"
"$bin/lp-confmerge" "$root/conf/runner/stage2.yaml" "$root/conf/profiling/nsys/nsys.default.yaml" \
	"$root/conf/profiling/ncu/ncu.default.yaml" "$root/conf/model/torch-decoder.yaml" >"$dir/c.yaml"

# The configured stages as nsys spells them (:LLM@prefill in the default
# domain), for agg.py and nvtx.mlr; lp-stages reads them from c.yaml.
ranges=()
for s in $("$bin/lp-confget" stages "$dir/c.yaml"); do
	ranges+=("$("$bin/lp-confget" -d "" "stages.$s.domain" "$dir/c.yaml"):$("$bin/lp-confget" "stages.$s.range" "$dir/c.yaml")")
done
LP_RANGES=$(printf '%s\t' "${ranges[@]}")
export LP_RANGES

## Timing ##############################################################

# timed OUT CMD...: runs CMD on core 0 under GNU time (and timeout), its
# output to OUT, errors to OUT.err; sets rc, secs and kib (peak RSS).
timed() {
	local out=$1
	shift
	rc=0
	taskset -c 0 /usr/bin/time -f '%e %M' -o "$dir/time" \
		timeout "$limit" "$@" >"$out" 2>"$out.err" || rc=$?
	# GNU time puts "Command exited with non-zero status" first
	read -r secs kib < <(tail -n 1 "$dir/time")
}

# norm COLUMNS: the figures compared, from lp's TSV (comment lines and
# header skipped, columns picked by name) or from agg.py and the .mlr
# scripts (COLUMNS empty: already those columns); numbers as "%.0f",
# sorted by name.
norm() {
	awk -F'\t' -v OFS='\t' -v cols="$1" '
		/^#/ { next }
		cols != "" && !head {
			for (i = 1; i <= NF; i++)
				at[$i] = i
			m = split(cols, want, " ")
			for (i = 1; i <= m; i++)
				pick[i] = at[want[i]]
			head = 1
			next
		}
		{
			if (cols == "") {
				m = NF
				for (i = 1; i <= m; i++)
					pick[i] = i
			}
			line = ""
			for (i = 1; i <= m; i++) {
				v = $(pick[i])
				if (i > 1 && v ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/)
					v = sprintf("%.0f", v)
				line = line (i > 1 ? OFS : "") v
			}
			print line
		}' | sort | if [ "${fold:-0}" = 1 ]; then fold_rows; else cat; fi
}

# fold_rows (fold=1, the lp-ncu2tsv benches): lp-ncu2tsv keeps a row per
# kernel and launch shape (grid, block; lp(7)), the references one per
# kernel name: rows of one name are summed (the columns compared are all
# numbers), and a sum with an empty figure in it stays empty
fold_rows() {
	awk -F'\t' -v OFS='\t' '
		function flush(  i, line) {
			if (key == "")
				return
			line = key
			for (i = 2; i <= m; i++)
				line = line OFS (gap[i] ? "" : sprintf("%.0f", sum[i]))
			print line
		}
		$1 != key { flush(); key = $1; m = NF; split("", sum); split("", gap) }
		{
			for (i = 2; i <= NF; i++)
				if ($i == "") gap[i] = 1; else sum[i] += $i
		}
		END { flush() }'
}

# rate BYTES SECS: MB/s; a run under the timer's 0.01 s counts as 0.01 s
rate() {
	awk -v b="$1" -v s="$2" 'BEGIN { if (s < 0.01) s = 0.01; printf "%.1f", b / 1e6 / s }'
}

# how: the figure of the last run for the table: MB/s, "<MB/s" when
# stopped (a bound: it had not finished), or "failed"
how() {
	case $rc in
	0) rate "$bytes" "$secs" ;;
	124) echo "<$(rate "$bytes" "$limit")" ;;
	*) echo "failed" ;;
	esac
}

# say TOOL CMD...: one run's line: wall time, peak RSS, MB/s, or why not
say() {
	local tool=$1
	shift
	case $rc in
	0) printf '  %-7s %8s s %9.1f MiB peak %9s MB/s\n' "$tool" "$secs" "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$(rate "$bytes" "$secs")" ;;
	124) printf '  %-7s stopped after %s s (LP_BENCH_TIMEOUT): under %s MB/s\n' "$tool" "$limit" "$(rate "$bytes" "$limit")" ;;
	*) printf '  %-7s failed (exit %s): %s\n  %-7s command: %s\n' "$tool" "$rc" "$(head -c 300 "$out.err" | head -n 3)" "" "$*" ;;
	esac
}

# first A B REF NAME: the first line where NAME's figures (B) differ from
# REF's (A)
first() {
	awk -v ref="$3" -v name="$4" '
		NR == FNR { a[FNR] = $0; na = FNR; next }
		{ b[FNR] = $0; nb = FNR }
		END {
			for (i = 1; i <= na || i <= nb; i++)
				if (a[i] != b[i]) {
					printf "  first difference, %s against %s, line %d:\n    %-7s %s\n    %-7s %s\n",
						name, ref, i, ref ":", i <= na ? a[i] : "(no line)", name ":", i <= nb ? b[i] : "(no line)"
					exit
				}
		}' "$1" "$2"
}

rows=()
# bench FILTER INPUT FILE COLUMNS: times lp (the command in $lp), agg.py
# ($py) and mlr ($ml) on FILE and checks their figures agree; COLUMNS are
# the names of lp's output columns that hold them.
bench() {
	local filter=$1 input=$2 file=$3 cols=$4 out ok=() tool ref
	local lp_r py_r ml_r="-" lp_rss="-" agree
	bytes=$(wc -c <"$file")
	echo
	printf '%s on %s (%s, %.1f MB)\n' "$filter" "$input" "${file##*/}" "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')"
	cat "$file" >/dev/null	# in the page cache for each of the three

	out=$dir/lp.out
	timed "$out" "${lp[@]}"
	say lp "${lp[@]}"
	lp_r=$(how)
	lp_rss=$(awk -v k="$kib" 'BEGIN { printf "%.1f", k / 1024 }')
	case $rc in
	0) norm "$cols" <"$out" >"$dir/lp.n"; ok+=(lp) ;;
	124) lp_rss=">=$lp_rss" ;;	# its peak until stopped
	*) lp_rss="-" ;;
	esac

	out=$dir/py.out
	timed "$out" "${py[@]}"
	say python "${py[@]}"
	py_r=$(how)
	[ "$rc" != 0 ] || { norm "" <"$out" >"$dir/python.n"; ok+=(python); }

	if [ "$have_mlr" = 1 ]; then
		out=$dir/mlr.out
		timed "$out" "${ml[@]}"
		say mlr "${ml[@]}"
		ml_r=$(how)
		[ "$rc" != 0 ] || { norm "" <"$out" >"$dir/mlr.n"; ok+=(mlr); }
	else
		echo "  mlr: not installed"
	fi

	# agree: every tool that finished printed the same figures as the
	# first of them (lp's, unless lp did not finish)
	agree=agree
	ref=${ok[0]:-}
	for tool in "${ok[@]:1}"; do
		cmp -s "$dir/$ref.n" "$dir/$tool.n" || { agree=DIFFER; first "$dir/$ref.n" "$dir/$tool.n" "$ref" "$tool"; }
	done
	[ "${#ok[@]}" -ge 2 ] || agree="n/a"
	[ "${#ok[@]}" -ge 3 ] || [ "$agree" = "n/a" ] || agree="$agree*"
	if [ -n "$ref" ]; then
		printf '  %s (%s: %s lines compared)\n' "$agree" "${ok[*]}" "$(wc -l <"$dir/$ref.n")"
	else
		echo "  n/a (no run finished)"
	fi
	rows+=("$filter|$input|$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')|$lp_r|$lp_rss|$py_r|$ml_r|$agree")
}

echo "bench: each run on core 0 (taskset -c 0), stopped after $limit s; MB = 10^6 bytes"

fold=1	# the lp-ncu2tsv benches only
f=$dir/wide.csv
lp=("$bin/lp-ncu2tsv" "$f")
py=(python3 "$agg/agg.py" ncu "$f")
ml=(mlr --icsv --allow-ragged-csv-input put -q -f "$agg/ncu.mlr" "$f")
bench lp-ncu2tsv "wide ncu export" "$f" "kernel launches gpu_time_ns dram_bytes"

f=$dir/long.csv
lp=("$bin/lp-ncu2tsv" "$f")
py=(python3 "$agg/agg.py" ncu "$f")
ml=(mlr --icsv --allow-ragged-csv-input put -q -f "$agg/ncu.mlr" "$f")
bench lp-ncu2tsv "long ncu export" "$f" "kernel launches gpu_time_ns dram_bytes"
fold=0

# The top 10 by total time, ties by name; a kernel on several rows summed.
f=$dir/kern_sum.csv
lp=("$bin/lp-topn" -n 10 "$f")
py=(python3 "$agg/agg.py" topn 10 "$f")
ml=(mlr --icsv --otsv --headerless-tsv-output
	put '$t = float(gsub(string(${Total Time (ns)}), ",", "")); $c = float(gsub(string($Instances), ",", ""))'
	then stats1 -a sum -f t,c -g Name then sort -nr t_sum -f Name then head -n 10 "$f")
bench "lp-topn -n 10" "$n-kernel summary" "$f" "kernel total_ns calls"

f=$dir/nvtx_sum.csv
lp=("$bin/lp-stages" -c "$dir/c.yaml" "$f")
py=(python3 "$agg/agg.py" nvtx "$f" "${ranges[@]}")
ml=(mlr --icsv put -q -f "$agg/nvtx.mlr" "$f")
bench lp-stages "$n-range NVTX summary" "$f" "range instances wall_total_ns"

## Summary #############################################################

echo
# ratio A B: A/B as "12.3x"; a bound ("<" or ">") when one run was stopped
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		ua = sub(/^</, "", a); ub = sub(/^</, "", b)
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || a + 0 == 0 || b + 0 == 0 || (ua && ub))
			print "-"
		else
			printf "%s" (a / b < 0.1 ? "%.3f" : "%.1f") "x", ua ? "<" : ub ? ">" : "", a / b
	}'
}
fmt='%-14s %-26s %8s %9s %9s %9s %9s %9s %9s %-7s\n'
printf "$fmt" filter input "size MB" "lp MB/s" "lp MiB" "py MB/s" "mlr MB/s" "lp/py" "lp/mlr" agree
for r in "${rows[@]}"; do
	IFS='|' read -r filter input size lp_r lp_rss py_r ml_r agree <<<"$r"
	printf "$fmt" "$filter" "$input" "$size" "$lp_r" "$lp_rss" "$py_r" "$ml_r" \
		"$(ratio "$lp_r" "$py_r")" "$(ratio "$lp_r" "$ml_r")" "$agree"
done
cat <<EOF

lp MiB: lp's peak RSS.  <N MB/s: stopped after $limit s (LP_BENCH_TIMEOUT)
before the end.  agree*: only the tools that finished were compared.

Targets (not asserted): lp-ncu2tsv >= 300 MB/s on one core, >= 2x python,
>= 20x mlr; a streaming filter's peak RSS < 32 MiB at any input size.
EOF
# each row against them: "met" or "missed" ("unknown" when a bound says
# too little)
for r in "${rows[@]}"; do
	IFS='|' read -r filter input size lp_r lp_rss py_r ml_r agree <<<"$r"
	awk -v f="$filter" -v inp="$input" -v lp="$lp_r" -v rss="$lp_rss" \
		-v py="$(ratio "$lp_r" "$py_r")" -v ml="$(ratio "$lp_r" "$ml_r")" '
		function is(ok) { return ok ? "met" : "missed" }
		# a ratio ("3.1x", "<1.2x", ">85.0x") against its target
		function vs(s, want,    x) {
			if (s == "-")
				return "unknown"
			x = s
			gsub(/[<>x]/, "", x)
			if (s ~ /^</)
				return x + 0 <= want ? "missed" : "unknown"
			if (s ~ /^>/)
				return x + 0 >= want ? "met" : "unknown"
			return is(x + 0 >= want)
		}
		BEGIN {
			line = "  " f " on " inp ":"
			if (f == "lp-ncu2tsv")
				line = line " " lp " MB/s " (lp ~ /^[0-9]/ ? is(lp + 0 >= 300) : "missed") \
					", " py " python " vs(py, 2) ", " ml " mlr " vs(ml, 20) ","
			# a run stopped had at least this peak
			big = rss
			sub(/^>=/, "", big)
			print line " peak RSS " rss " MiB " (rss == "-" || (rss ~ /^>=/ && big + 0 < 32) ? "unknown" : is(big + 0 < 32))
		}'
done
