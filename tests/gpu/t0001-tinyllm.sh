#!/usr/bin/env bash
# GPU: the CUDA C decoder (named NVTX domain LLM) end to end with real nsys
# and ncu, then each step broken on purpose and resumed.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/gpu/lib.sh"

test_expect_success 'nsys, ncu and a GPU are here' '
	command -v nsys && command -v ncu && nvidia-smi -L &&
	lpmake bin/tinyllm
'

test_expect_success 'make RUN=tiny WORK=bin/tinyllm MODEL=tinyllm stakeholder_summary.md' '
	lpmake RUN=tiny WORK=bin/tinyllm MODEL=tinyllm stakeholder_summary.md >log 2>&1 ||
	{ cat log; false; }
'

test_expect_success 'nsys was gated on the stage; every artifact is there' '
	test_grep -e "--nvtx-capture=decode_all@LLM --capture-range-end=stop" "$S2/tiny/nsys/profile.cmd" &&
	for a in env.json config.yaml inputs.yaml nsys/report.nsys-rep nsys/stats.log topn.tsv \
		ncu/report.ncu-rep ncu/report.csv ncu/metrics.tsv kernels.tsv kernels.md stakeholder_summary.md; do
		test -s "$S2/tiny/$a" || { echo "no $a"; return 1; }
	done &&
	lpmake -q RUN=tiny stakeholder_summary.md
'

test_expect_success 'every kernel in kernels.md is in the nsys summary' 'check_kernels_in_nsys tiny'
test_expect_success 'ncu profiled every selected kernel, once' 'check_ncu_profiled_selected tiny'
test_expect_success 'the stage regions are not empty' 'check_stages_nonempty tiny decode_all decode_step'
test_expect_success 'the summary has the GPU, the tools and MFU' 'check_summary tiny tinyllm'

test_expect_success 'regions: ncu per nesting depth, re-running neither nsys nor the kernel step' '
	lpmake RUN=tiny regions.md >log 2>&1 || { cat log; false; } &&
	! grep -q -e "profiling with nsys" -e "lp: profiling with ncu" log &&
	test_grep "lp: profiling regions (depth 1)" log &&
	lpmake -q RUN=tiny regions.md
'
# 4.29 on one H200, 5.26 on the two-H200 machine (tests/gpu/README.md)
test_expect_success 'regions: each measured; ncu against nsys within bounds' 'check_regions tiny 0.2 8'

test_expect_success 'a failing workload stops the run with its code; make resumes' '
	test_must_fail lpmake RUN=tfail "WORK=bin/tinyllm --fail 3" stakeholder_summary.md >log 2>err &&
	test_grep "nsys profile failed with exit code 3" err &&
	! test -e "$S2/tfail/nsys/report.nsys-rep" && test -s "$S2/tfail/env.json" &&
	lpmake RUN=tfail WORK=bin/tinyllm stakeholder_summary.md >log 2>&1 &&
	test -s "$S2/tfail/stakeholder_summary.md"
'

test_expect_success 'an NVTX range that never runs: nsys error, then resume' '
	test_must_fail lpmake RUN=tnvtx WORK=bin/tinyllm SET=stages.decode_all.range=nosuch stakeholder_summary.md >log 2>err &&
	test_grep "nsys wrote no report" err &&
	lpmake RUN=tnvtx SET= stakeholder_summary.md >log 2>&1 &&
	test -s "$S2/tnvtx/stakeholder_summary.md"
'

test_expect_success 'an ncu NVTX filter that matches nothing: error with the filters, resume at ncu' '
	lpmake RUN=tncu WORK=bin/tinyllm topn.tsv >log 2>&1 &&
	test_must_fail lpmake RUN=tncu SET=ncu_cli.nvtx_include=LLM@nosuch/ stakeholder_summary.md >log 2>err &&
	test_grep "lp: ncu profiled no kernel (no report written). Filters used:" err &&
	test_grep "^NVTX include: LLM@nosuch/" err &&
	lpmake RUN=tncu SET= stakeholder_summary.md >log 2>&1 &&
	! grep -q "profiling with nsys" log && test_grep "profiling with ncu" log &&
	test -s "$S2/tncu/stakeholder_summary.md"
'

test_expect_success 'ncu killed mid-run: no report kept; make resumes at ncu' '
	lpmake RUN=tkill WORK=bin/tinyllm topn.tsv >log 2>&1 &&
	( lpmake RUN=tkill stakeholder_summary.md >log1 2>err1; echo $? >rc ) &
	for i in $(seq 300); do pgrep -f "ncu --target-processes" >/dev/null && break; sleep 0.1; done &&
	sleep 3 && pkill -KILL -f "ncu --target-processes"; sleep 1; pkill -KILL -x tinyllm; wait;
	test "$(cat rc)" != 0 &&
	! test -e "$S2/tkill/ncu/report.ncu-rep" &&
	lpmake RUN=tkill stakeholder_summary.md >log 2>&1 &&
	! grep -q "profiling with nsys" log && test_grep "profiling with ncu" log &&
	test -s "$S2/tkill/stakeholder_summary.md"
'

test_done
