# tests/lib.sh: a small git-style test library (t/test-lib.sh).
#
#   . "$(dirname "$0")/lib.sh"
#   test_expect_success 'title' '
#       lp-topn <in >actual &&
#       test_cmp expect actual
#   '
#   test_done
#
# Output is TAP for prove.  Each test runs in a subshell inside a fresh
# temporary folder ($TRASH, removed on exit) with LC_ALL=C; tools come from
# $LP_BIN (bin/ by default).  LP_VALGRIND=1 runs every lp-* under valgrind.
# Tests run under bash (every tests/t*.sh starts #!/usr/bin/env bash) with
# pipefail: a tool that fails before a "| grep" fails the pipeline.  So no
# reader in a pipeline may stop early (grep -q, head, awk exit): the writer
# would die of SIGPIPE at random; grep -q and head read files instead.
# LP_TEST_TRACE=1 runs each case under set -x: a failure's log then names
# the command that failed, even a silent one (test, make -q).

set -u -o pipefail
export LC_ALL=C TZ=UTC
unset MAKEFLAGS MFLAGS MAKELEVEL GNUMAKEFLAGS MAKEOVERRIDES CDPATH LP_OUTPUT

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LP_BIN=${LP_BIN:-$ROOT/bin}
FIX=$ROOT/tests/fixtures
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/lp-test.XXXXXX")
trap 'rm -rf "$TRASH"' EXIT
cd "$TRASH" || exit 1
# A test's run folders, and make on the checkout writing them there.
S2=$TRASH/s2
lpmake() {
	# V=1: the commands, which tests read (make prints one line a step without)
	make -C "$ROOT" --no-print-directory V=1 ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" "$@"
}
# steps MAKE-ARGS...: the tools (and cp) a make would run, sorted, from
# make -n (a tool's command may start with LP_OUTPUT=PATH exec: rules.mk's
# LP_TO)
steps() {
	lpmake -n "$@" >"$TRASH/steps.n" || return 1
	grep -oE '^(LP_OUTPUT=[^ ]* exec )?([^ ]*/lp-[a-z0-9]+|cp )' "$TRASH/steps.n" | sed 's,.*/,,; s/ $//' | sort
}
# made LOG: the files a make's commands (V=1) wrote, by name: a tool's
# LP_OUTPUT=PATH (LP_TO) or a command's > PATH.tmp (LP_OUT)
made() {
	sed -n 's/^LP_OUTPUT=\([^ ]*\) exec .*/\1/p; s/.* > \([^ ]*\)\.tmp .*/\1/p' "$1" | sed 's,.*/,,' | sort -u
}
# make demo's own run (RUN=demo: its import, model and goals) without the
# H100 eager and graphed runs and the compare.md that make demo adds: the
# files that read only the demo's run folder (make demo itself: t0008)
demo_run() {
	lpmake RUN=demo "IMPORT=$(cd "$ROOT" && echo tests/fixtures/h200-torch-v2/torch_*.csv)" MODEL=torch-decoder \
		topn.tsv kernels.md stakeholder_summary.md brief.json regions.md "$@"
}

if [ "${LP_VALGRIND:-}" = 1 ]; then
	mkdir -p "$TRASH/.vg"
	vg=$(command -v valgrind) || { echo "Bail out! valgrind is not installed"; exit 1; }
	for t in "$LP_BIN"/lp-*; do
		n=${t##*/}
		printf '#!/bin/sh\nexec %s -q --error-exitcode=126 --leak-check=full --errors-for-leak-kinds=definite "%s" "$@"\n' \
			"$vg" "$t" > "$TRASH/.vg/$n"
		chmod +x "$TRASH/.vg/$n"
	done
	PATH=$TRASH/.vg:$LP_BIN:$PATH
else
	PATH=$LP_BIN:$PATH
fi
export PATH LP_BIN ROOT FIX TRASH

test_count=0
test_failed=0

# Runs body in a subshell; the test passes when it exits 0.
# LP_RUN="1-6 9": run only these tests, the others say "ok N # skip" (a
# GPU file longer than one device call, run in parts)
test_selected() {
	local r
	[ -z "${LP_RUN:-}" ] && return 0
	for r in $LP_RUN; do
		[ "$test_count" -ge "${r%-*}" ] && [ "$test_count" -le "${r#*-}" ] && return 0
	done
	return 1
}

test_expect_success() {
	test_count=$((test_count + 1))
	if ! test_selected; then
		echo "ok $test_count # skip $1 (LP_RUN=$LP_RUN)"
		return 0
	fi
	mkdir -p "$TRASH/t$test_count"
	if (cd "$TRASH/t$test_count" && { [ "${LP_TEST_TRACE:-}" != 1 ] || set -x; } && eval "$2") >"$TRASH/.log" 2>&1; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		# and on stderr, which prove shows without -v: a failure in CI
		# (make check) says why in its log.  Twice, not through tee
		# /dev/stderr: opening that truncates a log file that stdout
		# shares (prove -v >file), leaving NULs where the TAP was.
		sed 's/^/# /' "$TRASH/.log"
		sed 's/^/# /' "$TRASH/.log" >&2
	fi
}

# A case that needs the sqlite3 CLI (in CI: Debian's sqlite3): skipped
# without it, and says so.
with_sqlite() {
	if command -v sqlite3 >/dev/null; then
		test_expect_success "$@"
	else
		test_count=$((test_count + 1))
		echo "ok $test_count # skip sqlite3 is not installed: $1"
	fi
}

# Passes when the command fails the way a tool should: an exit status
# from 1 to 125 (not success, not a crash by signal, not valgrind's 126).
test_must_fail() {
	"$@"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "test_must_fail: command succeeded: $*" >&2
		return 1
	elif [ "$rc" -gt 125 ]; then
		echo "test_must_fail: command died (exit $rc): $*" >&2
		return 1
	fi
	return 0
}

# Passes when the command exits with exactly the given status.
test_expect_code() {
	want=$1
	shift
	"$@"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "test_expect_code: exit $rc, wanted $want: $*" >&2
		return 1
	fi
	return 0
}

test_cmp() {
	diff -u "$1" "$2"
}

# The file is empty (stdout of a failing tool must be).
test_must_be_empty() {
	if [ -s "$1" ]; then
		echo "'$1' is not empty:" >&2
		cat "$1" >&2
		return 1
	fi
}

# grep, but say what was searched when it fails.
test_grep() {
	if ! grep "$@"; then
		echo "test_grep: no match: grep $*" >&2
		return 1
	fi
}

# A [-v name=value]... PROGRAM FILE...: awk with tests/csv.awk loaded, for
# the tests that recompute lp's numbers with awk alone
A() {
	local v=()
	while [ "${1:-}" = -v ]; do v+=("$1" "$2"); shift 2; done
	printf "%s\n" "$1" >"$TRASH/prog.awk"
	shift
	awk "${v[@]}" -f "$ROOT/tests/csv.awk" -f "$TRASH/prog.awk" "$@"
}

# table FILE COLUMN...: an lp table's rows, the named columns, tab-separated
table() {
	file=$1
	shift
	awk -F"\t" -v cols="$*" 'BEGIN { n = split(cols, c, " ") }
		/^#/ { next } !h { for (i = 1; i <= NF; i++) ix[$i] = i; h = 1; next }
		{ s = ""; for (j = 1; j <= n; j++) s = s (j > 1 ? "\t" : "") $(ix[c[j]]); print s }' "$file"
}

# oproof_expect GPU_TSV OPS_TSV: aten_roofline.tsv's tensor-core rows as
# awk computes them from lp-atenops' ncu figures and gpu.tsv's peaks (the
# columns stage op shapes precision ai flop_per_s bytes_per_s
# peak_flop_per_s ridge roof roof_pct), for t0034 and the GPU's t0007
oproof_expect() {
	table "$1" path precision peak >"$TRASH/peaks" &&
	table "$2" stage op shapes ncu_flops_per_call ncu_dram_bytes_per_call ncu_precision ncu_ns_per_call |
		awk -F"\t" -v OFS="\t" '
			NR == FNR { pk[$1 " " $2] = $3; next }
			$4 !~ /^[0-9.]+$/ || $6 !~ /^tc_/ { next }
			{
				p = $6; sub(/^tc_/, "tensor ", p)
				peak = pk[p]; bw = pk["dram -"]
				ai = $4 / $5; fps = $4 / ($7 * 1e-9); bps = $5 / ($7 * 1e-9)
				ridge = peak / bw; mem = ai < ridge
				print $1, $2, $3, p, sprintf("%.4g", ai), sprintf("%.4g", fps), sprintf("%.4g", bps),
					sprintf("%.4g", peak), sprintf("%.4g", ridge), mem ? "memory" : "compute",
					sprintf("%.4g", 100 * (mem ? bps / bw : fps / peak))
			}' "$TRASH/peaks" -
}
# the same columns of an aten_roofline.tsv, its tensor-core rows, rounded
# as awk rounds them (the table keeps every digit: rounded once, when shown)
oproof_got() {
	table "$1" stage op shapes precision ai flop_per_s bytes_per_s peak_flop_per_s ridge roof roof_pct |
		awk -F"\t" -v OFS="\t" '$4 ~ /^tensor / { for (i = 5; i <= 11; i++) if (i != 10) $i = sprintf("%.4g", $i); print }'
}

# csvset LINE COLUMN VALUE: one field of a CSV export, its column found by
# name in the header (line 1); that record is written back with every
# field quoted, as ncu writes them.
cat >"$TRASH/csvset.awk" <<\EOF
NR == 1 { n = csv($0, f); for (i = 1; i <= n; i++) if (f[i] == name) c = i
	if (!c) { print "csvset: no column " name >"/dev/stderr"; exit 1 } }
NR == ln { n = csv($0, f); f[c] = val; s = ""
	for (i = 1; i <= n; i++) { v = f[i]; gsub(/"/, "\"\"", v); s = s (i > 1 ? "," : "") "\"" v "\"" }
	print s; next }
{ print }
EOF
csvset() {
	awk -v ln="$1" -v name="$2" -v val="$3" -f "$ROOT/tests/csv.awk" -f "$TRASH/csvset.awk"
}

# tsvset LINE COLUMN VALUE: the same for an lp table (header: the first
# line that is not a "#" comment).
cat >"$TRASH/tsvset.awk" <<\EOF
!h && /^#/ { print; next }
!h { h = 1; for (i = 1; i <= NF; i++) if ($i == name) c = i
	if (!c) { print "tsvset: no column " name >"/dev/stderr"; exit 1 } }
NR == ln { $c = val }
{ print }
EOF
tsvset() {
	awk -F"\t" -v OFS="\t" -v ln="$1" -v name="$2" -v val="$3" -f "$TRASH/tsvset.awk"
}

test_done() {
	echo "1..$test_count"
	[ "$test_failed" -eq 0 ]
	exit $?
}

# rnd FORMAT N...: the rows with columns N as awk's printf FORMAT writes them;
# g4 N...: with "%.4g". lp's tables keep every digit of a number (rounded
# once, when a report shows it); the hand calculations and awk
# recomputations of the tests round.
rnd() {
	awk -F"\t" -v OFS="\t" -v f="$1" -v cols="${*:2}" 'BEGIN { n = split(cols, c, " ") }
		{ for (j = 1; j <= n; j++) if ($(c[j]) ~ /^-?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/) $(c[j]) = sprintf(f, $(c[j])); print }'
}
g4() { rnd "%.4g" "$@"; }
