#!/bin/sh
# tests/gen-lp7.sh [LP7]: lp(7) (tools/lp.7 by default) on stdout with its
# two generated tables made anew between their marker lines: the settings
# (tools/mk/cmdline.mk's LP_SETTINGS and lp_doc.NAME, as make settings
# prints them) and
# the SET= keys with their defaults (lp-confget -l on the files of conf/
# that define them).  make man writes it back; t0009 fails when the page
# and this differ, so neither table can drift from what defines it.
set -eu
cd "$(dirname "$0")/.."
LP_BIN=${LP_BIN:-$PWD/bin}
lp7=${1:-tools/lp.7}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gen-lp7.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# roff-safe cells: a backslash is \e, a hyphen \-, no break inside a name;
# a table a file (KEY<tab>VALUE<tab>FILE rows), its name above it
table='function r(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); return "\\&" s }
$3 != f { if (f != "") print ".TE"; f = $3; printf ".PP\n%s\n.TS\nlb lx.\n", f == "" ? "" : "\\fB" r(f) "\\fR:" }
{ print "\\%" r($1) "\t" r($2) }
END { if (f != "") print ".TE" }'
# (cmdline.mk alone: the Makefile would record the build's flags)
make -s --no-print-directory -f tools/mk/cmdline.mk \
	--eval 'lp__settings: ; $(lp_settings_info)@:' lp__settings >"$tmp/settings.tsv"
awk -F'\t' '$2 == "" { print "tests/gen-lp7.sh: setting " $1 " has no lp_doc." $1 " in tools/mk/cmdline.mk" > "/dev/stderr"; bad = 1 } END { exit bad }' "$tmp/settings.tsv"
sed 's/$/	tools\/mk\/cmdline.mk (make settings)/' "$tmp/settings.tsv" | awk -F'\t' "$table" >"$tmp/settings.roff"

# keys: each file's leaves, the file named; a model's keys are the union
# of conf/model/*.yaml (their values are the model's); a list longer than
# 40 characters is shown by its item count
keys() {	# FILE...
	for f in "$@"; do
		"$LP_BIN/lp-confget" -l . "$f" | sed "s|\$|	$f|"
	done
}
{
	keys conf/runner/stage2.yaml | grep -v '^artifacts\.stage2_dir	'
	keys conf/profiling/nsys/nsys.default.yaml conf/profiling/ncu/ncu.default.yaml conf/profiling/ncu/ncu.regions.yaml
	keys conf/model/*.yaml | awk -F'\t' -v OFS='\t' '$1 ~ /^model\./ && !seen[$1]++ { print $1, "(each model its own)", "conf/model/MODEL.yaml" }'
} | awk -F'\t' -v OFS='\t' '{ v = $2; if (length(v) > 40) { n = split(v, x, ","); v = n " items" } else if (v == "") v = "(empty)"; print $1, v, $3 }' |
	awk -F'\t' "$table" >"$tmp/keys.roff"

awk -v s="$tmp/settings.roff" -v k="$tmp/keys.roff" '
function put(f,    l) { while ((getline l < f) > 0) print l; close(f) }
/^\.\\" begin generated: / { print; which = $NF; put(which == "settings" ? s : k); skip = 1; next }
/^\.\\" end generated/ { skip = 0 }
!skip { print }
' "$lp7"
