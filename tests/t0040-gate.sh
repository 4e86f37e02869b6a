#!/usr/bin/env bash
# The regression gate (make RUN=b BASE=a check-regression, issue 28 items
# 3 and 8) on real H100 runs of one workload (tests/fixtures/h100-graphs):
# the graphed decode against the eager one (4.56x faster, one kernel
# slower per launch), a graphed run against another (A/A-like, one 18 %
# faster), one exported twice (A/A), the other way (slower), a run whose
# decode_step range is gone, a broken base.  It fails only on the slower:
# exit 3 from the tools for "regressed", 1 for "cannot compare" or bad
# data.  On the code before, the gate said "no regression" for the run
# without decode_step, and both tools exited 1 for a regression.
. "$(dirname "$0")/lib.sh"

G=$FIX/h100-graphs
T="kernels.tsv stages.tsv steps.tsv mfu.tsv mbu.tsv gpu.tsv env.json inputs.yaml compare_stages.tsv"
run() {	# RUN PREFIX [SET]
	lpmake RUN=$1 "IMPORT=$(echo "$G/$2"_*.csv)" MODEL=torch-decoder ${3:+"SET=$3"} \
		kernels.tsv stages.tsv steps.tsv mfu.tsv mbu.tsv gpu.tsv env.json inputs.yaml >/dev/null 2>&1
}
stagefiles() {	# RUN
	for x in stages.tsv steps.tsv mfu.tsv mbu.tsv gpu.tsv env.json inputs.yaml; do echo "$S2/$1/$x"; done
}

test_expect_success 'setup: the runs imported' '
	run e1 e1 && run g1 g1 && run g2 g2 && run g2b g2 &&
	run nostep g2 stages.decode_step.range=nosuch
'

test_expect_success 'faster (graphed against eager, 4.56x): passes, the slower kernel not failing it' '
	lpmake RUN=g2 BASE=e1 check-regression >out 2>err &&
	test_grep "^lp: run g2 against run e1: no regression beyond 5 %" out &&
	test_grep "^lp-diff: not failing: kernel at::native::<unnamed>::indexSelectSmallIndex: mean per launch 1.92 us -> 2.14 us (+11.7 %" err &&
	test_grep "and the run is faster: decode_step steady state 0.22x as long" err
'

test_expect_success 'A/A (one run exported twice) and two graphed runs of one session apart: pass' '
	lpmake RUN=g2b BASE=g2 check-regression >out 2>err &&
	test_grep "no regression beyond 5 %" out &&
	lpmake RUN=g2 BASE=g1 check-regression >out 2>err &&
	test_grep "no regression beyond 5 %" out
'

test_expect_success 'slower (g1 against g2, the step +21.7 %): fails; the tools exit 3' '
	test_must_fail lpmake RUN=g1 BASE=g2 check-regression >out 2>err &&
	test_grep "^lp-stagediff: regression: decode_step steady state 531.51 us -> 646.84 us (+21.7 %, more than 5 %), outside the spread of the instances" err &&
	test_grep "^lp: run g1 regressed against run g2" err &&
	test_expect_code 3 lp-stagediff -r 5 $(stagefiles g2) $(stagefiles g1) >/dev/null 2>/dev/null
'

test_expect_success 'decode_step gone from the run (its range renamed): cannot compare, never "no regression"' '
	test_must_fail lpmake RUN=nostep BASE=g2 check-regression >out 2>err &&
	test_grep "^lp-stagediff: cannot compare: stage decode_step is only in the before run" err &&
	test_grep "cannot compare (above); the gate did not pass" err &&
	! grep -q "^lp: run .*: no regression" out err &&
	test_expect_code 1 lp-stagediff -r 5 $(stagefiles g2) $(stagefiles nostep) >/dev/null 2>/dev/null
'

test_expect_success 'a broken base table: a data error (exit 1), not "regressed"' '
	mkdir -p bad && sed "s/^1	nvjet/1	nvjet	x/" "$S2/e1/kernels.tsv" >bad/kernels.tsv &&
	test_expect_code 1 lp-diff -r 5 bad/kernels.tsv "$S2/g2/kernels.tsv" >/dev/null 2>err &&
	! grep -q "regression" err
'

test_expect_success 'no per-instance trace: the verdict says that, not "one instance", for 32 steps' '
	lpmake RUN=np "IMPORT=$(ls "$G"/g2_*.csv | grep -v pushpop_trace | tr "\n" " ")" MODEL=torch-decoder \
		stakeholder_summary.md >/dev/null 2>&1 &&
	lpmake RUN=g1 waterfall.tsv findings.tsv >/dev/null 2>&1 &&
	lpmake RUN=np BASE=g1 compare.md >/dev/null 2>&1 &&
	test_grep "decode_step wall time, median .*, significance not known (no per-instance trace, nvtx_pushpop_trace: no spread to test against)" "$S2/np/compare.md" &&
	test_grep "decode_all wall time, median .*, significance not known (one instance: no spread to test against)" "$S2/np/compare.md"
'

test_expect_success 'lp-diff -S needs -r; the spread columns are in kernels.tsv' '
	test_expect_code 2 lp-diff -S "$S2/g2/compare_stages.tsv" "$S2/e1/kernels.tsv" "$S2/g2/kernels.tsv" 2>err &&
	test_grep "\-S goes with -r" err &&
	table "$S2/g2/kernels.tsv" kernel std_ns min_ns max_ns | grep "^nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_bias_TNT	" >row &&
	awk -F"\t" "{ exit !(\$2 > 0 && \$3 > 0 && \$4 >= \$3) }" row
'

test_expect_success 'lp-gate: the gates codes as one (stages, kernels, advice), said once and written to its .rc' '
	g() { printf "sh -c \"touch ran%s; exit %s\"" "$1" "$2"; } &&
	for c in "0 0 - 0" "3 0 - 3" "0 3 - 3" "3 3 - 3" "3 1 - 1" "3 2 - 2" "0 1 - 1" "1 0 - 1" "2 3 - 2" \
		"0 0 3 3" "3 0 1 1" "0 0 0 0" "1 0 3 1"; do
		set -- $c && rm -f ran* &&
		if test "$3" = -; then
			eval "lp-gate -R n -B o -t 5 -o rc -- $(g 1 $1) -- $(g 2 $2)" >out 2>err
		else
			eval "lp-gate -R n -B o -t 5 -c launch-bound -m 50 -o rc -- $(g 1 $1) -- $(g 2 $2) -- $(g 3 $3)" >out 2>err
		fi
		rc=$? &&
		test "$rc" = "$4" || { echo "$c: exit $rc"; return 1; }
		case $4 in 0) w=passed ;; 3) w=regressed ;; *) w="cannot compare" ;; esac &&
		printf "%s\t%s\to\n" "$4" "$w" >expect && test_cmp expect rc &&
		# the kernels gate runs only where the stages one judged
		case $1 in 0|3) test -e ran2 ;; *) ! test -e ran2 ;; esac || { echo "$c: ran2"; return 1; }
		case $4 in
		0) test_grep "^lp: run n against run o: no regression beyond 5 %$" out && test_must_be_empty err ;;
		3) test_grep "^lp: run n regressed against run o (REGRESSION=5 %)$" err ;;
		*) test_grep "^lp: run n against run o: cannot compare (above); the gate did not pass$" err ;;
		esac || return 1
		# the advice gate where both judged; its 3 said
		if test -e ran3; then test "$3" != 3 || test_grep "^lp: run o.s launch-bound advice realized under 50 % of its prediction in run n$" err
		else ! grep -q "advice realized" err; fi || return 1
	done &&
	# started with stdin closed, its gates still write where they should
	lp-gate -R n -B o -t 5 -o rc -- sh -c "echo hi" -- sh -c "echo hi || exit 9" <&- >out 2>err &&
	test_must_be_empty err &&
	test_expect_code 2 lp-gate -R n -B o -t 5 -o rc -- true 2>err &&
	test_expect_code 2 lp-gate -R n -B o -t 5 -c x -m 50 -o rc -- true -- true 2>err
'

test_done
