#!/usr/bin/env bash
# make bench-ranks (and make bench): the multi-GPU tables at N ranks.  For
# each N, tests/gen-ranks.sh writes the exports of a per-rank capture of N
# ranks (copies of the real two-H200 ranks, rank 1 the straggler), joined
# per report as make joins IMPORT's per-rank files (header once); then each
# tool of the multi-GPU tables runs on them with the arguments rules.mk
# gives it, and the script prints its wall time and CPU time (user +
# system; each the best of 3 runs) and peak RSS per N, and their growth
# from one N to the next (of the CPU time: on a machine shared with other
# work the wall time moves with the load).  Prints figures; asserts
# nothing (a table that does not come out as expected is said so).
#
# Needs GNU time (Debian: time; installed here when run as root) and bash 5
# (EPOCHREALTIME).
#
#   LP_BENCH_RANKS="8 64 256 1024"   the Ns
#   TMPDIR=/var/tmp                 where the exports are written (~200 MB
#                                   at 1,024 ranks; removed at exit)
set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BIN:-$root/bin}
ns=${LP_BENCH_RANKS:-8 64 256 1024}
ops=$root/conf/operators.yaml

if ! [ -x /usr/bin/time ]; then
	if [ "${LP_AUTO_DEPS:-1}" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "bench-ranks: installing GNU time (running as root)"
		apt-get install -y -qq time >/dev/null 2>&1 ||
			{ apt-get update -qq && apt-get install -y -qq time >/dev/null; }
	fi
	[ -x /usr/bin/time ] || { echo "bench-ranks: needs GNU time (apt-get install time)" >&2; exit 2; }
fi
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench-ranks: needs bash 5 (EPOCHREALTIME)" >&2; exit 2; }

dir=$(mktemp -d "${TMPDIR:-/var/tmp}/lp-bench-ranks.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' HUP INT TERM

# The configs make merges for MODEL=tp-mlp (the workload of the fixtures).
cd "$root"
"$bin/lp-confmerge" conf/runner/stage2.yaml conf/profiling/nsys/nsys.default.yaml \
	conf/model/tp-mlp.yaml >"$dir/nsys.yaml"
"$bin/lp-confmerge" conf/runner/stage2.yaml conf/profiling/ncu/ncu.default.yaml \
	conf/model/tp-mlp.yaml >"$dir/ncu.yaml"
device=$("$bin/lp-confget" -d -1 ncu_cli.device "$dir/ncu.yaml")
range=$("$bin/lp-nsyscmd" -r <"$dir/nsys.yaml")
topn=$("$bin/lp-confget" run.top_n_kernels "$dir/ncu.yaml")

# timed NAME OUT CMD...: CMD three times, output to OUT; secs is the best
# wall time, cpu the best user + system time, kib the largest peak RSS
# (GNU time), rc the last status.
timed() {
	local name=$1 out=$2 i t0 t1 u sy k
	shift 2
	secs= cpu= kib=0 rc=0
	for i in 1 2 3; do
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%U %S %M' -o "$dir/rss" "$@" >"$out" 2>"$out.err" || rc=$?
		t1=$EPOCHREALTIME
		[ "$rc" = 0 ] || { echo "  $name failed (exit $rc): $(head -n 3 "$out.err")" >&2; return 0; }
		read -r u sy k < <(tail -n 1 "$dir/rss")
		secs=$(awk -v a="$secs" -v t0="$t0" -v t1="$t1" 'BEGIN { b = t1 - t0; printf "%.3f", a == "" || b < a ? b : a }')
		cpu=$(awk -v a="$cpu" -v b="$u" -v c="$sy" 'BEGIN { b += c; printf "%.2f", a == "" || b < a ? b : a }')
		[ "$k" -le "$kib" ] || kib=$k
	done
}

# The cost of starting a tool at all (GNU time, exec, dynamic linking):
# what a run of a few ms is made of, taken off before the growth.
timed start "$dir/start.out" "$bin/lp-procs" -h
echo "bench-ranks: starting a tool (lp-procs -h under GNU time) takes $secs s wall, $cpu s CPU"

tools="lp-procs lp-ranks lp-overlap lp-stages lp-topn lp-kernjoin"
declare -A T C M
echo "bench-ranks: N ranks of tests/gen-ranks.sh, joined per report; each tool 3 times, best wall time, peak RSS"
for n in $ns; do
	g=$dir/g$n j=$dir/j$n
	mkdir -p "$j"
	"$root/tests/gen-ranks.sh" "$n" "$g"
	# make's join of per-rank exports: the header once, then each file's rows
	for rep in nvtx_sum nvtx_kern_sum nvtx_kern_sum_mangled nvtx_gpu_proj_trace \
		nvtx_pushpop_trace cuda_gpu_trace_mangled; do
		awk -v n="$n" -v g="$g" -v rep="$rep" 'BEGIN {
			for (r = 0; r < n; r++) {
				f = g "/r" r "_" rep ".csv"
				for (l = 0; (getline line <f) > 0; l++)
					if (l || !r)
						print line
				close(f)
			}
		}' >"$j/$rep.csv"
	done
	rm -rf "$g"
	mb=$(cat "$j"/*.csv | wc -c | awk '{ printf "%.1f", $1 / 1e6 }')
	echo
	echo "N = $n: $mb MB of exports (cuda_gpu_trace $(wc -l <"$j/cuda_gpu_trace_mangled.csv") lines)"

	timed lp-procs "$j/procs.tsv" "$bin/lp-procs" -D "$device" -g "$j/nvtx_gpu_proj_trace.csv" \
		-t "$j/cuda_gpu_trace_mangled.csv" "$j/nvtx_kern_sum.csv"
	T[lp-procs,$n]=$secs C[lp-procs,$n]=$cpu M[lp-procs,$n]=$kib
	pid=$(sed -n 's/^# profiled: //p' "$j/procs.tsv")
	timed lp-ranks "$j/ranks.tsv" "$bin/lp-ranks" -c "$dir/nsys.yaml" -o "$ops" -k "$j/nvtx_kern_sum.csv" \
		-p "$j/procs.tsv" "$j/nvtx_pushpop_trace.csv"
	T[lp-ranks,$n]=$secs C[lp-ranks,$n]=$cpu M[lp-ranks,$n]=$kib
	timed lp-overlap "$j/overlap.tsv" "$bin/lp-overlap" -o "$ops" "$j/cuda_gpu_trace_mangled.csv"
	T[lp-overlap,$n]=$secs C[lp-overlap,$n]=$cpu M[lp-overlap,$n]=$kib
	timed lp-stages "$j/stages.tsv" "$bin/lp-stages" -c "$dir/nsys.yaml" -k "$j/nvtx_kern_sum.csv" \
		"$j/nvtx_sum.csv"
	T[lp-stages,$n]=$secs C[lp-stages,$n]=$cpu M[lp-stages,$n]=$kib
	timed lp-topn "$j/topn.tsv" "$bin/lp-topn" -x "$ops" -P "$pid" -n "$topn" -r "$range" \
		"$j/nvtx_kern_sum_mangled.csv"
	T[lp-topn,$n]=$secs C[lp-topn,$n]=$cpu M[lp-topn,$n]=$kib
	timed lp-kernjoin "$j/kernels.tsv" "$bin/lp-kernjoin" -d "$j/nvtx_kern_sum.csv" -P "$pid" -r "$range" \
		"$j/nvtx_kern_sum_mangled.csv"
	T[lp-kernjoin,$n]=$secs C[lp-kernjoin,$n]=$cpu M[lp-kernjoin,$n]=$kib
	for t in $tools; do
		printf '  %-12s %8.3f s wall %6.2f s CPU %8.1f MiB peak RSS\n' "$t" "${T[$t,$n]:-0}" \
			"${C[$t,$n]:-0}" "$(awk -v k="${M[$t,$n]:-0}" 'BEGIN { print k / 1024 }')"
	done
	# what the tables say: N processes on N GPUs, one straggler of
	# decode_step (gen-ranks.sh's rank 1, PID 20001), N GPUs overlapped
	awk -F'\t' -v n="$n" '
		FILENAME ~ /\/procs\.tsv$/ && /^[0-9]/ && $2 !~ /^n\/a/ { gpus[$2] = 1; procs++ }
		FILENAME ~ /\/ranks\.tsv$/ && $1 == "decode_step" && $NF == "yes" { slow = slow " " $2 }
		FILENAME ~ /\/overlap\.tsv$/ && /^NVIDIA/ { ov++ }
		END {
			g = length(gpus)
			ok = procs == n && g == n && slow == " 20001" && ov == n
			printf "  tables: %d processes on %d GPUs, straggler of decode_step:%s, %d GPUs in overlap.tsv: %s\n",
				procs, g, slow == "" ? " none" : slow, ov, ok ? "as made" : "NOT as made"
		}' "$j/procs.tsv" "$j/ranks.tsv" "$j/overlap.tsv"
	rm -rf "$j"
done

# The summary, as Markdown: each tool's wall time, CPU time and peak RSS
# per N; then the growth of its CPU time and peak RSS from one N to the
# next, as a factor and as the exponent e of the N^e that gives it (1
# linear, 2 quadratic); a CPU time under 0.05 s is too short to say
# (GNU time counts 0.01 s).
echo
set -- $ns
echo "wall s / CPU s / peak RSS MiB, by number of ranks"
echo
printf '| tool |'
for n in "$@"; do printf ' N = %s |' "$n"; done
echo
printf '|---|'
for n in "$@"; do printf -- '---:|'; done
echo
for t in $tools; do
	printf '| `%s` |' "$t"
	for n in "$@"; do
		awk -v s="${T[$t,$n]:-}" -v c="${C[$t,$n]:-}" -v k="${M[$t,$n]:-}" 'BEGIN {
			if (s == "")
				printf " failed |"
			else
				printf " %.3f / %.2f / %.1f |", s, c, k / 1024 }'
	done
	echo
done
echo
echo "growth of CPU time and peak RSS (factor, N^e)"
echo
printf '| tool |'
prev=
for n in "$@"; do
	[ -z "$prev" ] || printf ' %s to %s |' "$prev" "$n"
	prev=$n
done
echo
printf '|---|'
shift
for n in "$@"; do printf -- '---|'; done
echo
set -- $ns
for t in $tools; do
	printf '| `%s` |' "$t"
	prev=
	for n in "$@"; do
		[ -n "$prev" ] && awk -v a="${C[$t,$prev]:-}" -v b="${C[$t,$n]:-}" -v ka="${M[$t,$prev]:-}" \
			-v kb="${M[$t,$n]:-}" -v na="$prev" -v nb="$n" 'BEGIN {
			x = log(nb / na)
			if (a == "" || b == "")
				cpu = "failed"
			else if (a < 0.05 || b < 0.05)
				cpu = "too short"
			else
				cpu = sprintf("%.1fx (N^%.2f)", b / a, log(b / a) / x)
			mem = ka == "" || kb == "" ? "failed" : sprintf("%.1fx (N^%.2f)", kb / ka, log(kb / ka) / x)
			printf " CPU %s, RSS %s |", cpu, mem
		}'
		prev=$n
	done
	echo
done
