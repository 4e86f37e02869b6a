#!/usr/bin/env bash
# make bench: time and peak memory of the parsers on growing inputs, to
# show that memory follows the number of distinct kernels, not the input
# size.  Prints figures; asserts nothing.  Needs GNU time (Debian: time).
set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BIN:-$root/bin}
fix=$root/tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 2; }

# The real 96-launch raw export, its launches repeated: same 7 kernels.
raw() {
	head -2 "$fix/h200-tinyllm/dec_raw.csv"
	for _ in $(seq "$1"); do tail -n +3 "$fix/h200-tinyllm/dec_raw.csv"; done
}
details() {
	head -1 "$fix/h200-tinyllm/dec_details.csv"
	for i in $(seq "$1"); do
		# launch IDs must keep growing for the rows-together check
		tail -n +2 "$fix/h200-tinyllm/dec_details.csv" |
			awk -v o=$(( (i - 1) * 1000 )) -F'","' -v OFS='","' '{ sub(/^"/, "", $1); $1 = "\"" ($1 + o); print }'
	done
}
# An nsys kernel summary of n distinct kernels.
ksum() {
	awk -v n="$1" 'BEGIN { print "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name";
		for (i = 0; i < n; i++) printf "0.0,%d,%d,1.0,1.0,1,1,0.0,\"void k%07d<int, float>(T1 *, int)\"\n", (i * 7919) % 1000003 * 1000 + 17, 100000 + i % 977, i }'
}

measure() {
	# measure LABEL FILE TOOL ARGS...
	label=$1 file=$2
	shift 2
	size=$(du -h "$file" | cut -f1)
	lines=$(wc -l <"$file")
	/usr/bin/time -f "%e %M" -o "$tmp/t" "$@" "$file" >/dev/null
	read -r secs kb <"$tmp/t"
	printf "%-34s %8s %10s %8s s %8s KiB\n" "$label" "$size" "$lines" "$secs" "$kb"
}

printf "%-34s %8s %10s %10s %12s\n" "input" "size" "lines" "wall" "max RSS"
for n in 1 10 100; do
	raw "$n" >"$tmp/raw.csv"
	measure "lp-ncu2tsv raw, $((96 * n)) launches" "$tmp/raw.csv" "$bin/lp-ncu2tsv"
done
for n in 1 10 50; do
	details "$n" >"$tmp/det.csv"
	measure "lp-ncu2tsv details, $((96 * n)) launches" "$tmp/det.csv" "$bin/lp-ncu2tsv"
done
for n in 1000 100000 1000000; do
	ksum "$n" >"$tmp/k.csv"
	measure "lp-topn, $n kernels" "$tmp/k.csv" "$bin/lp-topn" -n 10
done
