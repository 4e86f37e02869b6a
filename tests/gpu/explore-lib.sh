# tests/gpu/explore-lib.sh: what every explore script of issue 42 starts
# with, sourced first from the repository root: O, where the results go
# (the device tool's $OUT), lp built (the log in $O/build.log) and on
# PATH, now and secs A B (the seconds from one of now's stamps to
# another), and table FILE "COL ..." (an lp table's columns by name, tab
# separated, without its # lines and header).
set -u
O=${OUT:-/tmp}
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
export PATH=$PWD/bin:$PATH
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
table() { awk -F'\t' -v want="$2" '/^#/ { next } !h { n = split(want, w, " "); for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
	{ s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? "\t" : "") $c[w[i]]; print s }' "$1"; }
