#!/usr/bin/env bash
# Issue 17, profile_cost.tsv: lp-cost, what each profiling step of a live
# run cost.  Replay passes from real H200 exports (h200-torch-v2: the kernel
# step in kernel replay, the region depths in app-range replay) and a real
# H100 one (h100-hostside, passes printed "12.000000"), recomputed here with
# tests/csv.awk; wall times from hand-made timing files.
. "$(dirname "$0")/lib.sh"

T=$FIX/h200-torch-v2
K=$T/torch_ncu_raw.csv

# step wall runs: the timing files the make recipes write, one per step
# (hand-made here: they stand for what each recipe writes when its step
# ends, the wall time taken around the command)
steps() {
	printf '%s\n' "nsys profile	12.5	1" "nsys stats	3.25	0" \
		"ncu metric query	1.5	0" "ncu profile	40.125	1" \
		"ncu export	2	0" "ncu regions depth 0	30	-" \
		"ncu regions depth 1	45.5	-"
}

test_expect_success 'setup: timing files, the workload alone, the region exports list' '
	i=0 &&
	steps | while IFS= read -r l; do
		i=$((i + 1)) &&
		{ echo "# stands for what the recipe of this step writes: STEP, WALL_S, APP_RUNS" &&
		  printf "%s\n" "$l"; } >"$TRASH/s$i.time" || exit 1
	done &&
	printf "# stands for make RUN=x alone.tsv: the workload run without a profiler\nworkload alone\t2.5\t1\n" \
		>"$TRASH/alone.tsv" &&
	printf "%s\n" "$T/torch_d0_regions.csv" "$T/torch_d1_regions.csv" >"$TRASH/exports.list" &&
	ls "$TRASH"/s?.time >"$TRASH/order" && test $(wc -l <"$TRASH/order") = 7
'

# The passes of an export, recomputed: "SUM MAX RESULTS" of its
# profiler__replayer_passes column (found by name; line 2 is the units row)
passes() {
	A 'NR == 1 { n = csv($0, f); col(f, n, h); c = h["profiler__replayer_passes"]; next }
	NR == 2 { next }
	{ n = csv($0, f); v = num(f[c]); s += v; if (v > m) m = v; r++ }
	END { if (!c || !r) exit 1; printf "%d %d %d\n", s, m, r }' "$1"
}

# The table recomputed from the timing files and the passes: runs "-" are
# the depth's passes (app-range) or 1 (range); x_alone = wall / alone.
expect_awk='
FNR == 1 { fi++ } /^#/ { next }
{ split($0, f, "\t"); st[fi] = f[1]; w[fi] = f[2]; r[fi] = f[3] }
END { for (i = 1; i <= fi; i++) {
	p = "n/a"; if (st[i] == "ncu profile") p = kp
	if (st[i] ~ /^ncu regions depth /) { d = substr(st[i], 19) + 0; p = dp[d]
		if (r[i] == "-") r[i] = mode == "range" ? 1 : dp[d] }
	if (p != "n/a") tp += p
	tw += w[i]; tr += r[i]
	printf "%s\t%.3f\t%d\t%s\t%.2f\n", st[i], w[i], r[i], p, w[i] / alone }
	printf "total\t%.3f\t%d\t%d\t%.2f\n", tw, tr, tp, tw / alone }'

ncu_na() {
	sed "s/	n\\/a because nsys does not replay	/	n\\/a	/; s/	n\\/a because ncu [a-z ]* profiles no kernel	/	n\\/a	/"
}

test_expect_success 'the full table: wall, runs, passes and x alone, recomputed' '
	set -- $(passes "$K") && kp=$1 kmax=$2 kn=$3 &&
	set -- $(passes "$T/torch_d0_regions.csv") && d0=$2 d0n=$3 &&
	set -- $(passes "$T/torch_d1_regions.csv") && d1=$2 d1n=$3 &&
	test "$kp" -gt 0 && test "$d0" -gt 0 && test "$d1" -gt 0 &&
	lp-cost -a "$TRASH/alone.tsv" -k "$K" -m app-range -r "$TRASH/exports.list" \
		$(cat "$TRASH/order") >"$TRASH/pc.tsv" 2>err &&
	test_must_be_empty err &&
	table "$TRASH/pc.tsv" step wall_s app_runs ncu_passes x_alone | ncu_na >got &&
	awk -v kp="$kp" -v alone=2.5 -v mode=app-range \
		"BEGIN { dp[0] = $d0; dp[1] = $d1 } $expect_awk" $(cat "$TRASH/order") >expect &&
	test_cmp expect got &&
	# the kernel step: every result of the export, its passes summed
	test_grep -F "# note: ncu profile: $kn kernels x $kmax passes;" "$TRASH/pc.tsv" &&
	test $((kn * kmax)) = "$kp" &&
	test_grep -F "# note: ncu regions depth 0: $d0n ranges x $d0 passes; app-range" "$TRASH/pc.tsv" &&
	test_grep -F "# note: ncu regions depth 1: $d1n ranges x $d1 passes; app-range" "$TRASH/pc.tsv"
'

test_expect_success 'the table names itself and every file it read' '
	test "$(sed -n 1,2p "$TRASH/pc.tsv")" = "$(printf "# title: Profile Cost\n# tool: lp-cost")" &&
	src=$(grep "^# source: " "$TRASH/pc.tsv") &&
	for f in $(cat "$TRASH/order") "$K" "$T/torch_d0_regions.csv" "$T/torch_d1_regions.csv" \
		"$TRASH/exports.list" "$TRASH/alone.tsv"; do
		case $src in *"$f"*) ;; *) echo "not in # source: $f"; exit 1;; esac
	done &&
	lp-summary "$TRASH/pc.tsv" >s.md &&
	test_grep "^## Profile Cost" s.md &&
	test_grep "^| total | " s.md
'

test_expect_success 'range replay: a region depth is one application run' '
	lp-cost -a "$TRASH/alone.tsv" -k "$K" -m range -r "$TRASH/exports.list" \
		$(cat "$TRASH/order") >pc.tsv &&
	table pc.tsv step app_runs | grep "^ncu regions" >got &&
	printf "ncu regions depth 0\t1\nncu regions depth 1\t1\n" >expect &&
	test_cmp expect got &&
	A "BEGIN { FS = \"\t\" } /^#/ { next } { s += \$3 } END { print s }" $(grep -v "s[67]\.time$" "$TRASH/order") >sum &&
	test "$(table pc.tsv step app_runs | grep "^total" | cut -f2)" = $(($(cat sum) + 2))
'

test_expect_success 'an H100 export: passes printed 12.000000, summed over its launches' '
	H=$FIX/h100-hostside/gpt2_ncu_raw.csv &&
	set -- $(passes "$H") && kp=$1 &&
	lp-cost -k "$H" "$TRASH/s4.time" >pc.tsv &&
	test "$(table pc.tsv step ncu_passes | grep "^ncu profile")" = "ncu profile	$kp" &&
	test "$(table pc.tsv step ncu_passes | grep "^total")" = "total	$kp" &&
	test_grep -F "# note: ncu profile: $3 kernels x $2 passes;" pc.tsv
'

test_expect_success 'thousands separators in the passes are read as ncu writes them' '
	csvset 3 profiler__replayer_passes "1,019" <"$K" >k.csv &&
	set -- $(passes "$K") && kp=$1 &&
	lp-cost -k k.csv "$TRASH/s4.time" >pc.tsv &&
	test "$(table pc.tsv ncu_passes | sed -n 1p)" = $((kp - 19 + 1019)) &&
	test_grep -F "10 kernels, 19 to 1019 passes each" pc.tsv
'

test_expect_success 'without -a, x_alone says why in every row, never a number' '
	lp-cost -k "$K" -m app-range -r "$TRASH/exports.list" $(cat "$TRASH/order") >pc.tsv &&
	table pc.tsv x_alone | sort -u >got &&
	echo "n/a because the workload alone was not timed (make RUN=x alone.tsv)" >expect &&
	test_cmp expect got &&
	test $(table pc.tsv step | wc -l) = 8
'

# A hand-edited alone.tsv of 1e-23 s gave x_alone 124999999999999997902848.00:
# under the hundredths the recipes write, the ratio says why instead.
test_expect_success 'a workload alone under 0.01 s: x_alone says why, no huge ratio' '
	printf "# stands for a hand-edited alone.tsv\nworkload alone\t0.00000000000000000000001\t1\n" >tiny.tsv &&
	lp-cost -a tiny.tsv "$TRASH/s4.time" >pc.tsv &&
	table pc.tsv step wall_s x_alone >got &&
	why="n/a because the workload alone took 1e-23 s (tiny.tsv), under the 0.01 s a timing file resolves" &&
	printf "ncu profile\t40.125\t%s\ntotal\t40.125\t%s\n" "$why" "$why" >expect &&
	test_cmp expect got &&
	printf "workload alone\t0.01\t1\n" >hundredth.tsv &&
	lp-cost -a hundredth.tsv "$TRASH/s4.time" >pc.tsv &&
	test "$(table pc.tsv x_alone | sort -u)" = 4012.50
'

test_expect_success 'without -k and -r: the ncu steps passes and the region runs say why' '
	lp-cost $(cat "$TRASH/order") >pc.tsv &&
	table pc.tsv step ncu_passes | grep "^ncu profile" >got &&
	test "$(cut -f2 got)" = "n/a because the kernel export was not given (-k)" &&
	test "$(table pc.tsv step app_runs | grep "^ncu regions depth 1" | cut -f2)" = \
		"n/a because the step'"'"'s runs come from its region export (-r exports.list -m MODE)" &&
	table pc.tsv step app_runs ncu_passes | grep "^total" >got &&
	grep "	n/a because ncu regions depth 0 has none: " got &&
	grep "	n/a because ncu profile has none: " got
'

# case EXIT MESSAGE-REGEX ARGS...: fails with that code and message, and
# writes nothing
fails() {
	code=$1 msg=$2
	shift 2
	test_expect_code "$code" lp-cost "$@" >out 2>err &&
	test_must_be_empty out &&
	test_grep -E "^lp-cost: $msg" err &&
	test $(wc -l <err) = 1
}

test_expect_success 'a time that is not a number: file, line, field' '
	printf "# a recipe that wrote its timer wrong\nncu profile\tabc\t1\n" >bad.time &&
	fails 1 "bad.time:2:2: WALL_S: expected seconds, got \"abc\"$" "$TRASH/s1.time" bad.time
'

test_expect_success 'a negative time' '
	printf "ncu export\t-3.5\t0\n" >neg.time &&
	fails 1 "neg.time:1:2: WALL_S: negative: \"-3.5\"$" -a "$TRASH/alone.tsv" neg.time
'

test_expect_success 'a run count that is not whole, fields missing, an empty file' '
	printf "nsys profile\t1\t1.5\n" >r.time &&
	fails 1 "r.time:1:3: APP_RUNS: expected a whole number" r.time &&
	printf "nsys profile\t1\n" >f.time &&
	fails 1 "f.time:1: expected 3 fields STEP<TAB>WALL_S<TAB>APP_RUNS, got fewer$" f.time &&
	printf "# the recipe died before its line\n" >e.time &&
	fails 1 "e.time: no line STEP<TAB>WALL_S<TAB>APP_RUNS" e.time &&
	printf "nsys stats\t1\t-\n" >d.time &&
	fails 1 "d.time:1:3: APP_RUNS: \"-\" is for \"ncu regions depth N\" only" d.time
'

test_expect_success 'an export without profiler__replayer_passes' '
	sed "1s/\"profiler__replayer_passes\"/\"profiler__other\"/" "$K" >nopass.csv &&
	fails 1 "nopass.csv:1: no column \"profiler__replayer_passes\"" -k nopass.csv "$TRASH/s4.time"
'

test_expect_success 'passes that are not a whole number: line and column' '
	csvset 5 profiler__replayer_passes 12.5 <"$K" >frac.csv &&
	c=$(A "NR == 1 { n = csv(\$0, f); col(f, n, h); print h[\"profiler__replayer_passes\"] }" "$K") &&
	fails 1 "frac.csv:5:$c: profiler__replayer_passes: expected a whole number of passes, got \"12.5\"$" \
		-k frac.csv "$TRASH/s4.time"
'

test_expect_success 'a missing file is a system error' '
	fails 2 "nosuch.time: No such file or directory$" "$TRASH/s1.time" nosuch.time &&
	fails 2 "nosuch.csv: No such file or directory$" -k nosuch.csv "$TRASH/s4.time"
'

test_expect_success 'inputs that do not belong together are refused' '
	fails 1 "[^ ]*torch_ncu_raw.csv: no timing file of the step \"ncu profile\"" -k "$K" "$TRASH/s1.time" &&
	fails 1 "[^ ]*exports.list:2: no timing file of the step \"ncu regions depth 1\"" \
		-m app-range -r "$TRASH/exports.list" "$TRASH/s6.time" &&
	printf "ncu regions depth 2\t1\t-\n" >d2.time &&
	fails 1 "d2.time:1:1: no export of depth 2: [^ ]* names 2" \
		-m app-range -r "$TRASH/exports.list" "$TRASH/s6.time" "$TRASH/s7.time" d2.time &&
	fails 1 "[^ ]*s1.time:2:1: step \"nsys profile\" again" "$TRASH/s1.time" "$TRASH/s1.time" &&
	printf "nsys profile\t3\t1\n" >a.tsv &&
	fails 1 "a.tsv:1:1: STEP: expected \"workload alone\"" -a a.tsv "$TRASH/s1.time"
'

test_expect_success 'usage: no timing file, -r without -m, an unknown mode' '
	test_expect_code 2 lp-cost -a "$TRASH/alone.tsv" 2>err &&
	test_grep "^usage: lp-cost " err &&
	test_expect_code 2 lp-cost -r "$TRASH/exports.list" "$TRASH/s6.time" 2>err &&
	test_grep "^usage: lp-cost " err &&
	fails 2 "-m: expected app-range or range, got \"kernel\"" -m kernel -r "$TRASH/exports.list" "$TRASH/s6.time"
'

test_expect_success 'the floor: nsys profile (+ the untraced run) + ncu profile, and the whole against it; ncu profile split by lp-ncustop (-s)' '
	printf "# tool: lp-ncustop\nlaunches\treplay_s\tstopped\tstopped_at_s\twall_s\n25\t9.40\tyes\t26.55\t26.73\n" >stop.tsv &&
	lp-cost -s stop.tsv $(cat "$TRASH/order") >pc.tsv &&
	# 12.5 + 40.125 of 12.5 + 3.25 + 1.5 + 40.125 + 2 + 30 + 45.5
	awk "BEGIN { printf \"%.2f\", (12.5 + 3.25 + 1.5 + 40.125 + 2 + 30 + 45.5) / (12.5 + 40.125) }" >x &&
	test_grep "^# note: floor: 52.6[23] s, the two profiled application runs (nsys profile 12.50 s, ncu profile 40.1[23] s with its replay); the whole profile is $(cat x)x its floor" pc.tsv &&
	test_grep "^# note: ncu profile: 9.40 s replaying its 25 launches (each timed by lp-ncustop), 30.7[23] s the application under ncu; the workload was stopped once the last launch was profiled" pc.tsv &&
	lp-cost "$TRASH/s2.time" >nofloor.tsv && ! grep -q "floor" nofloor.tsv &&
	# with the untraced timing run, the floor is the three runs
	printf "nsys untraced profile\t10.25\t1\n" >ut.time &&
	lp-cost $(cat "$TRASH/order") ut.time >ut.tsv &&
	awk "BEGIN { printf \"%.2f\", (12.5 + 3.25 + 1.5 + 40.125 + 2 + 30 + 45.5 + 10.25) / (12.5 + 10.25 + 40.125) }" >x &&
	test_grep "^# note: floor: 62.8[78] s, the three application runs (nsys profile 12.50 s, the untraced timing run 10.25 s, ncu profile 40.1[23] s with its replay); the whole profile is $(cat x)x its floor, the rest lp.s own steps; the two profiled runs alone are 52.6[23] s.$" ut.tsv &&
	printf "# tool: lp-ncustop\nlaunches\treplay_s\tstopped\n" >empty.tsv &&
	fails 1 "empty.tsv:[0-9]*: no row" -s empty.tsv "$TRASH/s4.time"
'

test_expect_success 'a full disk is an error' '
	test_expect_code 2 lp-cost "$TRASH/s1.time" >/dev/full 2>err &&
	test_grep "^lp-cost: <stdout>: No space left on device" err
'

test_done
