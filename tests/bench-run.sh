#!/usr/bin/env bash
# tests/bench-run.sh (make bench, make bench-run): a whole import, as a
# user runs one (make RUN=... IMPORT=... MODEL=torch-decoder
# stakeholder_summary.md), of about 200 MB and 2 GB of nsys exports
# (tests/gen-import.sh: the real Llama capture repeated), against the
# floor of reading the files once (cat).  Prints, for each size: wall
# time, CPU seconds (user + sys of make and every tool it ran), peak
# memory (the largest process), and each tool's CPU; asserts nothing.
# Needs GNU time.
#
#   LP_BENCH_RUN_MB="200 2000"  the sizes, in MB (10^6 bytes)
#   TMPDIR=/var/tmp             where the inputs and runs go (removed)
set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
sizes=${LP_BENCH_RUN_MB:-200 2000}
[ -x /usr/bin/time ] || { echo "bench-run: needs GNU time (apt-get install time)" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/lp-bench-run.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' HUP INT TERM
make -s -C "$root" lp-tests-built >/dev/null

# The checkout copied (its runs left out), each tool there a wrapper that
# runs the built one through GNU time, its CPU and memory appended to a
# log.  make's copy of the tools is up to date (times kept).
repo=$dir/repo
mkdir -p "$repo" "$dir/real"
(cd "$root" && tar -cf - --exclude=./tmp --exclude=./.git --exclude=./.device .) | (cd "$repo" && tar -xpf -)
for t in "$repo"/bin/lp-*; do
	n=${t##*/}
	mv "$t" "$dir/real/$n"
	printf '#!/bin/sh\nexec /usr/bin/time -a -o "%s" -f "%%U %%S %%M %s" "%s" "$@"\n' \
		"$dir/tools.log" "$n" "$dir/real/$n" >"$t"
	chmod +x "$t"
done

for mb in $sizes; do
	case $mb in '' | *[!0-9]*) echo "bench-run: LP_BENCH_RUN_MB: $mb is not a whole number of MB" >&2; exit 2 ;; esac
	in=$dir/in$mb
	"$root/tests/gen-import.sh" "$in" "$mb" >/dev/null
	bytes=$(cat "$in"/*.csv | wc -c)
	/usr/bin/time -o "$dir/cat" -f '%e %U %S %M' sh -c 'cat "$@" >/dev/null' sh "$in"/*.csv
	rm -f "$dir/tools.log"
	/usr/bin/time -o "$dir/make" -f '%e %U %S %M' make -s -C "$repo" RUN=bench"$mb" \
		MODEL=torch-decoder IMPORT="$(echo "$in"/*.csv)" stakeholder_summary.md >"$dir/out" 2>&1 ||
		{ cat "$dir/out" >&2; echo "bench-run: the $mb MB import failed" >&2; exit 1; }
	read -r cw cu cs cm <"$dir/cat"
	read -r mw mu ms mm <"$dir/make"
	awk -v b="$bytes" -v cw="$cw" -v cu="$cu" -v cs="$cs" -v mw="$mw" -v mu="$mu" -v ms="$ms" -f - "$dir/tools.log" <<-'EOF'
	$1 ~ /^[0-9.]+$/ { cpu[$4] += $1 + $2; if ($3 > peak) peak = $3; if ($3 > mem[$4]) mem[$4] = $3 }
	END {
		printf "bench-run: import of %.0f MB (%s): %.1f s wall, %.1f s CPU (user %.1f + sys %.1f), peak %.1f MiB (the largest tool)\n",
			b / 1e6, "tests/gen-import.sh", mw, mu + ms, mu, ms, peak / 1024
		printf "bench-run:   floor, cat of the files: %.2f s wall, %.2f s CPU; the import is %.0fx its CPU\n",
			cw, cu + cs, (mu + ms) / (cu + cs > 0.01 ? cu + cs : 0.01)
		n = 0
		for (t in cpu) order[++n] = t
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (cpu[order[j]] > cpu[order[i]]) { x = order[i]; order[i] = order[j]; order[j] = x }
		for (i = 1; i <= n && i <= 10; i++)
			printf "bench-run:   %-14s %7.2f s CPU %8.1f MiB\n", order[i], cpu[order[i]], mem[order[i]] / 1024
	}
	EOF
	rm -rf "$in" "$repo/tmp"
done
echo "bench-run: target (issue 42, not asserted): 2 GB at most 30 s CPU and 100 MB"
