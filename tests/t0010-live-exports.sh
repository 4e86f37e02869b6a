#!/usr/bin/env bash
# Exports of lp's own live runs on the H200 (tests/fixtures/h200-*-live):
# the CPU tests cover the files the live path makes, in both NVTX styles,
# joined on mangled names.
. "$(dirname "$0")/lib.sh"

TL=$FIX/h200-tinyllm-live
TO=$FIX/h200-torch-live
# These runs predate the tensor-core counters in the presets: the command
# of today is theirs plus those metrics.
# Options added since these commands ran on the H200 (the tensor-core
# counters; --devices 0, the rank ncu profiles in a multi-GPU run, which
# check-gpu runs on the hardware) are taken out before comparing.
no_tensor() {
	sed "s/sm__ops_path_tensor_src_[a-z0-9_]*\.sum,//g; s/ --devices 0 / /"
}
# What changed since these commands ran (issue 17, measured on an H100):
# nsys traces no OS runtime calls; ncu leaves out its rules, stops the
# workload once the N selected kernels are profiled, and names the metrics
# the tables read from SpeedOfLight, LaunchStats and Occupancy instead of
# asking for those sections and two more.
then_cmd() {
	sed -e "s/ --apply-rules no / /; s/ --launch-count [0-9]* --kill yes / /" \
	    -e "s/sm__throughput\.avg\.pct_of_peak_sustained_elapsed,gpu__dram_throughput\.avg\.pct_of_peak_sustained_elapsed,//" \
	    -e "s/,launch__grid_size,launch__sm_count,launch__occupancy_limit_barriers,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps / /" \
	    -e "s/ --replay-mode kernel --graph-profiling node / --replay-mode kernel /" \
	    -e "s/ --replay-mode kernel / --replay-mode kernel --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis /"
}
# and since issue 26: nsys traces each kernel of a CUDA graph
# (--cuda-graph-trace=node), ncu says it profiles graphs by node; since
# issue 31 nsys samples GPU Metrics at 1 kHz
h200_nsys() {
	sed -e "s/--trace=cuda,nvtx,osrt /--trace=cuda,nvtx /" \
	    -e "s/ --force-overwrite=true / --cuda-graph-trace=node --gpu-metrics-devices=all --gpu-metrics-frequency=1000 --force-overwrite=true /" "$1"
}

test_expect_success 'tinyllm (named domain): import, every selected kernel joined by mangled name' '
	lpmake RUN=tl "IMPORT=$(echo "$TL"/tinyllm_*.csv)" MODEL=tinyllm stakeholder_summary.md topn.tsv >out 2>err &&
	test_grep "^# match: 10 of 10 ncu kernels matched (mangled 10, exact 0, normalised 0); 0 unmatched$" "$S2/tl/kernels.tsv" &&
	test_grep "^# range: LLM:decode_all$" "$S2/tl/kernels.tsv" &&
	grep -v "^#" "$S2/tl/topn.tsv" | sed 1d | cut -f2 | sort >selected &&
	grep -v "^#" "$S2/tl/ncu/metrics.tsv" | sed 1d | cut -f1 | sort >profiled &&
	test_cmp selected profiled &&
	sed "/^#/d" "$S2/tl/kernels.tsv" | awk -F "\t" "NR > 1 && \$16 == \"mangled\" { print \$2 }" >shown &&
	test $(wc -l <shown) = 10 &&
	! grep "^_Z" shown
'

test_expect_success 'tinyllm: the stage, its GPU time and MFU as measured' '
	sed -n "/^## Per-Stage/,/^## /p" "$S2/tl/details.md" |
		grep -E "^\| decode_(all|step) \| \`" >got &&
	cat >expect <<-\EOF &&
	| decode_all | `LLM:decode_all` | 1 | 27.008 | 27.008 | 27.008 | 27.008 | 2.883 | 896 | 10.7% |
	| decode_step | `LLM:decode_step` | 16 | 1.687 | 0.555 | 0.539 | 18.188 | 2.883 | 896 | 10.7% |
	EOF
	test_cmp expect got &&
	test_grep "^| decode_all | 1.93 GFLOP | 27.008 | 71.5 GFLOP/s | 0.11% | n/a because one instance | 2.883 | 1.0% |$" "$S2/tl/details.md" &&
	test_grep "^Not in the table: MFU (steady): n/a because no steady state.$" "$S2/tl/details.md"
'

test_expect_success 'tinyllm: the command builders give back the commands run on the H200' '
	lpmake RUN=tl2 WORK=bin/tinyllm MODEL=tinyllm "$S2/tl2/nsys/config.yaml" "$S2/tl2/ncu/config.yaml" >/dev/null &&
	lp-nsyscmd -o /tmp/lpruns/tiny/nsys/report.tmp -- bin/tinyllm <"$S2/tl2/nsys/config.yaml" >nsys.cmd &&
	h200_nsys "$TL/nsys_profile.cmd" >expect && test_cmp expect nsys.cmd &&
	lp-ncucmd -k "$S2/tl/topn.tsv" -o /tmp/lpruns/tiny/ncu/report.tmp -- bin/tinyllm <"$S2/tl2/ncu/config.yaml" >lp.out &&
		<lp.out no_tensor | then_cmd >ncu.cmd &&
	test_cmp "$TL/ncu_profile.cmd" ncu.cmd &&
	lp-ncucmd -x -- /tmp/lpruns/tiny/ncu/report.ncu-rep <"$S2/tl2/ncu/config.yaml" >export.cmd &&
	test_cmp "$TL/ncu_export.cmd" export.cmd
'

test_expect_success 'torch (default domain "LLM@..."): stage from nvtx_kern_sum, joined by mangled name' '
	lpmake RUN=to "IMPORT=$(echo "$TO"/torch_*.csv)" MODEL=torch-decoder stakeholder_summary.md topn.tsv >out 2>err &&
	test_grep "^# range: :LLM@decode_all$" "$S2/to/kernels.tsv" &&
	test_grep "^# match: 10 of 10 ncu kernels matched (mangled 10, exact 0, normalised 0); 0 unmatched$" "$S2/to/kernels.tsv" &&
	sed -n "/^## Per-Stage/,/^## /p" "$S2/to/details.md" |
		grep -E "^\| (prefill|decode_all) \| \`" >got &&
	cat >expect <<-\EOF &&
	| prefill | `:LLM@prefill` | 1 | 3.957 | 3.957 | 3.957 | 3.957 | 0.289 | 85 | 7.3% |
	| decode_all | `:LLM@decode_all` | 1 | 113.840 | 113.840 | 113.840 | 113.840 | 8.315 | 2720 | 7.3% |
	EOF
	test_cmp expect got
'

test_expect_success 'torch: the commands run on the H200, with the escaped ncu range' '
	lpmake RUN=to2 "WORK=python3 tests/workloads/torch_decoder.py" MODEL=torch-decoder \
		"$S2/to2/nsys/config.yaml" "$S2/to2/ncu/config.yaml" >/dev/null &&
	lp-nsyscmd -o /tmp/lpruns/torch/nsys/report.tmp -- python3 tests/workloads/torch_decoder.py \
		<"$S2/to2/nsys/config.yaml" >nsys.cmd 2>err &&
	h200_nsys "$TO/nsys_profile.cmd" >expect && test_cmp expect nsys.cmd &&
	lp-ncucmd -k "$S2/to/topn.tsv" -o /tmp/lpruns/torch/ncu/report.tmp -- python3 tests/workloads/torch_decoder.py \
		<"$S2/to2/ncu/config.yaml" >lp.out && <lp.out no_tensor | then_cmd >ncu.cmd &&
	test_cmp "$TO/ncu_profile.cmd" ncu.cmd
'

test_expect_success 'live ncu exports in base units: one launch a kernel, whole nanoseconds' '
	for f in "$TL/tinyllm_ncu_raw.csv" "$TO/torch_ncu_raw.csv"; do
		lp-ncu2tsv "$f" >m.tsv && sed -i "/^#/d" m.tsv || return 1
		sed 1d m.tsv | cut -f3 | sort -u >launches && echo 1 >one && test_cmp one launches || return 1
		sed 1d m.tsv | cut -f4 | grep -v "^[0-9][0-9]*$" >frac; test_must_be_empty frac || return 1
		test "$(sed 1d m.tsv | wc -l)" = 10 || return 1
	done
'

test_done
