#!/usr/bin/env bash
# A capture that holds nothing is said to be empty, with its cause, by the
# first step that sees it (issue 39, item 1).  tests/fixtures/h100-forked:
# what nsys stats 2025.3.1 wrote on an H100 for a PyTorch model run in a
# child forked without exec (tests/gpu/explore39.sh): every report an
# empty file, "PROCESSED (EMPTY RESULTS)" and "SKIPPED: ... does not
# contain NV Tools Extension (NVTX) data." in its log.  Before, the first
# tool to read one said "no header with a "Total Time" column (not nsys
# stats --report nvtx_sum)": the file's format blamed for an empty capture.
. "$(dirname "$0")/lib.sh"

F=$FIX/h100-forked
export LP_FAKE_LOG=$TRASH/fake.log LP_FAKE_NCU_CSV=$FIX/h200-live/n2.csv
lpmake_fake() {
	PATH=$ROOT/tests/fake:$PATH lpmake "$@"
}
WORK="WORK=sh tests/fake/workload.sh"

test_expect_success 'live: a capture without NVTX data is refused at nsys stats, its cause and fix in one line' '
	LP_FAKE_NSYS=$F/f test_must_fail lpmake_fake RUN=fork "$WORK" MODEL=torch-decoder stakeholder_summary.md >out 2>err &&
	r=$S2/fork &&
	grep "^lp: the capture holds no" err >line &&
	test $(wc -l <line) = 1 &&
	test_grep "^lp: the capture holds no NV Tools Extension (NVTX) data (nsys stats: \"does not contain NV Tools Extension (NVTX) data\"; log: $r/nsys/stats.log.failed): nothing of the workload was traced there. A model run in a process forked without exec" line &&
	test_grep "Start such a worker with spawn (multiprocessing.set_start_method(\"spawn\")" line &&
	test_grep "does not contain NV Tools Extension (NVTX) data" "$r/nsys/stats.log.failed" &&
	# no table of the capture, no parse error
	for t in stages.tsv steps.tsv topn.tsv hostside.tsv untraced.tsv nsys/report_nvtx_sum.csv; do
		! test -e "$r/$t" || { echo "made $t"; return 1; }
	done &&
	! grep -q "no header" err &&
	# fixed (here: the capture of another workload), make resumes
	LP_FAKE_NSYS=$FIX/h200-whole/tinyllm lpmake_fake RUN=fork stages.tsv >out 2>err || { cat err; false; }
'

test_expect_success 'a capture with ranges but no kernel: refused the same way, naming CUDA kernel data' '
	mkdir -p k && for f in "$FIX"/h200-whole/tinyllm_nvtx_*.csv; do cp "$f" k/; done &&
	for f in "$F"/f_cuda_*.csv; do n=${f##*/f_}; : >k/tinyllm_$n; done &&
	rm -f k/tinyllm_nvtx_kern_sum*.csv && : >k/tinyllm_nvtx_kern_sum.csv && : >k/tinyllm_nvtx_kern_sum_mangled.csv &&
	LP_FAKE_NSYS=$PWD/k/tinyllm test_must_fail lpmake_fake RUN=nok "$WORK" MODEL=tinyllm stakeholder_summary.md >out 2>err &&
	test_grep "^lp: the capture holds no" err &&
	! test -e "$S2/nok/stages.tsv"
'

test_expect_success 'each reader says an empty report is empty, and why, never "no header"' '
	: >e.csv &&
	lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" "$ROOT/conf/model/tinyllm.yaml" >c.yaml &&
	test_expect_code 1 lp-stages -c c.yaml e.csv >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-stages: e.csv: empty: nsys stats writes an empty file for a report the capture holds no data of" err &&
	test_expect_code 1 lp-steps -c c.yaml e.csv >out 2>err &&
	test_grep "^lp-steps: e.csv: empty: " err &&
	test_expect_code 1 lp-topn -n 3 e.csv >out 2>err &&
	test_grep "^lp-topn: e.csv: empty: .*(an nsys kernel summary)$" err &&
	! grep -q "no header" err
'

# A capture the workload windowed itself (capture.window:
# cuda_profiler_api, issue 39 item 3): a stage outside the window says so,
# not "never pushed", and the table says whose window it was.
test_expect_success 'lp-stages: a stage outside the workload'"'"'s own capture window says so' '
	V=$FIX/h200-torch-v2 &&
	printf "capture:\n  window: cuda_profiler_api\nstages:\n  warmup:\n    domain: \"\"\n    range: LLM@warmup\n" >w.yaml &&
	lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
		"$ROOT/conf/model/torch-decoder.yaml" w.yaml >c.yaml &&
	# (-L: a live run, where lp made the capture)
	lp-stages -L -c c.yaml -k "$V/torch_nvtx_kern_sum.csv" "$V/torch_nvtx_sum.csv" >s.tsv &&
	table s.tsv stage instances | grep "^warmup	n/a because the range is not in nvtx_sum: the workload.s capture window (cudaProfilerStart to cudaProfilerStop, capture.window) did not hold it$" &&
	table s.tsv stage wall_total_ns | grep "^decode_all	[0-9]" &&
	test_grep "^# note: .*The capture is the workload.s own window (cudaProfilerStart to cudaProfilerStop, capture.window)" s.tsv
'

# SET=capture.window=cuda_profiler_api (or the model file's capture:
# key): the capture, the untraced timing run and ncu follow the workload's
# window; nothing else of the nsys command changes.
test_expect_success 'make: SET=capture.window=cuda_profiler_api reaches both nsys runs; a bad value is refused' '
	export LP_FAKE_LOG=$TRASH/fake.log &&
	lpmake_fake -n RUN=win "$WORK" MODEL=torch-decoder SET=capture.window=cuda_profiler_api \
		"$S2/win/nsys/profile.cmd" "$S2/win/untraced/profile.cmd" >/dev/null &&
	lpmake_fake RUN=win "$WORK" MODEL=torch-decoder SET=capture.window=cuda_profiler_api \
		"$S2/win/nsys/profile.cmd" "$S2/win/untraced/profile.cmd" >/dev/null 2>&1 &&
	for f in nsys untraced; do
		test_grep -e " --capture-range=cudaProfilerApi --capture-range-end=stop " "$S2/win/$f/profile.cmd" || return 1
	done &&
	! grep -e "--nvtx-capture" "$S2/win/nsys/profile.cmd" &&
	test_must_fail lpmake_fake RUN=win2 "$WORK" MODEL=torch-decoder SET=capture.window=profiler \
		"$S2/win2/nsys/profile.cmd" >out 2>err &&
	test_grep "capture.window" err
'

test_done
