#!/usr/bin/env bash
# GPU Metrics in the pipeline (issue 31): an imported nsys sqlite export
# with samples is known by its content and gives gpumetrics.tsv, which the
# details render after MBU; the demo (no samples) has none; a live run
# samples at 1 kHz and exports once.  Input: the real 1 kHz H200 capture of
# the TinyLlama-shaped Llama (tests/fixtures/h200-gpumetrics): its NVTX and
# kernel reports and its sqlite export cut to the ranges' window.
. "$(dirname "$0")/lib.sh"

G=$FIX/h200-gpumetrics
IMP="$(echo "$G"/*.csv "$G"/*.sqlite)"
# the fixture has no cuda_gpu_trace (the GPU's name): the GPU it ran on
H200='gpu.name="NVIDIA H200"'

test_expect_success 'lp-import knows an nsys sqlite export by its content, with samples or without' '
	cp "$G/llama_gpu_metrics.sqlite" "$TRASH/samples.db" &&
	lp-import "$G/llama_nvtx_pushpop_trace.csv" "$TRASH/samples.db" >a.mk &&
	test_grep -x "LP_IMP_SQLITE := $TRASH/samples.db" a.mk &&
	test_grep "samples.db: nsys sqlite export with GPU Metrics samples (GPU_METRICS)" a.mk &&
	lp-import "$G/llama_cuda_gpu_kern_sum.csv" "$FIX/h100-graphs/a2_report.sqlite" >b.mk &&
	test_grep -x "LP_IMP_SQLITE :=" b.mk &&
	test_grep "a2_report.sqlite: nsys sqlite export without GPU Metrics samples (not read" b.mk
'

test_expect_success 'lp-import refuses an SQLite file nsys did not write, and two exports with samples' '
	cp "$FIX/h100-graphs/a2_report.sqlite" o.sqlite &&
	if command -v sqlite3 >/dev/null; then
		sqlite3 o.sqlite "DROP TABLE StringIds" &&
		test_expect_code 1 lp-import o.sqlite 2>err &&
		test_grep "o.sqlite: an SQLite database that is not nsys.s export (no table StringIds" err
	fi &&
	cp "$G/llama_gpu_metrics.sqlite" two.sqlite &&
	test_expect_code 2 lp-import "$G/llama_gpu_metrics.sqlite" two.sqlite 2>err &&
	test_grep "IMPORT: two.sqlite: a second nsys sqlite export with GPU Metrics samples" err
'

test_expect_success 'IMPORT with the sqlite export: gpumetrics.tsv, rendered after MBU' '
	lpmake -s RUN=gm MODEL=hf-llama SET="$H200" IMPORT="$IMP" stakeholder_summary.md >out 2>err &&
	test_grep "^# tool: lp-gpumetrics" "$S2/gm/gpumetrics.tsv" &&
	lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
		"$ROOT/conf/model/hf-llama.yaml" >cfg.yaml &&
	lp-gpumetrics -c cfg.yaml -p "$G/llama_nvtx_gpu_proj_trace.csv" -t "$G/llama_nvtx_pushpop_trace.csv" \
		"$G/llama_gpu_metrics.sqlite" | sed "/^#/d" >want &&
	sed "/^#/d" "$S2/gm/gpumetrics.tsv" >got &&
	test_cmp want got &&
	grep "^## " "$S2/gm/details.md" >sections &&
	grep -A1 "^## MBU" sections >pair &&
	printf "## MBU\n## GPU Metrics per Stage\n" >expect &&
	test_cmp expect pair &&
	test_grep -F "| decode_step:steady | Tensor Active \[Throughput %\] | GPU projection | 15 | 15 | 858 | 0.34% | 0.34% | 0.36% |" "$S2/gm/details.md" &&
	lpmake -q RUN=gm stakeholder_summary.md
'

# A model config wrong on purpose: 10x the parameters.  The prefill's
# measured tensor activity (0.634 %) and its MFU then disagree (6.08 %),
# and the steady decode step's DRAM read + write (1.46 %) and MBU (7.57 %);
# with the right config no such finding.
test_expect_success 'measured-tensor and measured-dram fire on a wrong model config, not on the right one' '
	! grep -e "	measured-" "$S2/gm/findings.tsv" &&
	lpmake -s RUN=wrong MODEL=hf-llama SET="$H200 model.params=10344202240" IMPORT="$IMP" \
		stakeholder_summary.md >out 2>err &&
	awk -F"\t" "\$2 ~ /^measured-/ { print \$2 \"|\" \$4 }" "$S2/wrong/findings.tsv" >got &&
	cat >expect <<-\EOF &&
	measured-tensor|Stage prefill: the tensor pipes were active 0.634% of the time (nsys GPU Metrics), the model arithmetic says 6.08% (MFU): 9.6x less measured than modelled.
	measured-dram|Stage decode_step, steady state: DRAM read + write bandwidth was 1.46% of peak (nsys GPU Metrics), the model arithmetic says 7.57% (MBU): 5.18x less measured than modelled.
	measured-dram|Stage decode_all: DRAM read + write bandwidth was 1.47% of peak (nsys GPU Metrics), the model arithmetic says 6.86% (MBU): 4.67x less measured than modelled.
	EOF
	test_cmp expect got &&
	test_grep "Check the model config against the model" "$S2/wrong/findings.tsv" &&
	test_grep "Tensor Active 0.634% over prefill (gpumetrics.tsv), MFU 6.08% (mfu.tsv, mean); SMs Active 1.52%" "$S2/wrong/findings.tsv" &&
	test_grep "the tensor pipes were active 0.634% of the time" "$S2/wrong/details.md"
'

test_expect_success 'the demo has no samples: no gpumetrics.tsv, no section, no error' '
	demo_run -s >out 2>err &&
	! test -e "$S2/demo/gpumetrics.tsv" &&
	! grep "^## GPU Metrics" "$S2/demo/details.md" &&
	test_expect_code 2 lpmake RUN=demo gpumetrics.tsv 2>err &&
	test_grep "lp: run demo has no GPU Metrics samples: it imports no nsys sqlite export with them" err
'

test_expect_success 'IMPORT of the samples without the NVTX traces is refused, naming what to add' '
	test_must_fail lpmake RUN=gm2 MODEL=hf-llama \
		IMPORT="$G/llama_cuda_gpu_kern_sum.csv $G/llama_nvtx_sum.csv $G/llama_gpu_metrics.sqlite" kernels.md 2>err &&
	test_grep "IMPORT: the GPU Metrics samples of .*llama_gpu_metrics.sqlite go to the stages by their NVTX ranges: import nsys nvtx_gpu_proj_trace or nvtx_pushpop_trace" err
'

# The live path with the stand-in nsys (tests/fake/nsys), whose export
# returns the fixture's real sqlite and whose stats return its CSVs; the
# :mangled kernel reports nsys stats must write stand in as copies of the
# demangled ones (the fixture keeps none; gpumetrics.tsv reads neither).
mkdir -p "$TRASH/fk" && cp "$G"/llama_*.csv "$TRASH/fk/" &&
	cp "$G/llama_cuda_gpu_kern_sum.csv" "$TRASH/fk/llama_cuda_gpu_kern_sum_mangled.csv" &&
	cp "$G/llama_nvtx_kern_sum.csv" "$TRASH/fk/llama_nvtx_kern_sum_mangled.csv" || exit 1
export LP_FAKE_LOG=$TRASH/fake.log
export LP_FAKE_NSYS=$TRASH/fk/llama
export LP_FAKE_NSYS_SQLITE=$G/llama_gpu_metrics.sqlite
W="sh tests/fake/workload.sh"

test_expect_success 'live: sampling at 1 kHz, one export that stats reads, gpumetrics.tsv from it' '
	: >"$LP_FAKE_LOG" &&
	PATH=$ROOT/tests/fake:$PATH lpmake -s RUN=live "WORK=$W" MODEL=hf-llama gpumetrics.tsv >out 2>err &&
	test_grep -e "--gpu-metrics-devices=all --gpu-metrics-frequency=1000 " "$S2/live/nsys/profile.cmd" &&
	test "$(grep -c "^nsys export " "$LP_FAKE_LOG")" = 1 &&
	grep "^nsys stats " "$LP_FAKE_LOG" | test_grep -e " $S2/live/nsys/report.sqlite\$" &&
	sed "/^#/d" "$S2/live/gpumetrics.tsv" >got &&
	sed "/^#/d" "$S2/gm/gpumetrics.tsv" >want &&
	test_cmp want got &&
	lp-summary "$S2/live/gpumetrics.tsv" >md &&
	test_grep "^## GPU Metrics per Stage" md
'

test_expect_success 'live, sampling off: the export has no samples, the table says so and the details leave it out' '
	PATH=$ROOT/tests/fake:$PATH LP_FAKE_NSYS_SQLITE=$FIX/h100-graphs/a2_report.sqlite lpmake -s RUN=off "WORK=$W" \
		MODEL=hf-llama SET=nsys_cli.gpu_metrics_frequency=0 gpumetrics.tsv >out 2>err &&
	! grep -e --gpu-metrics "$S2/off/nsys/profile.cmd" &&
	test_grep "^# omit: no samples" "$S2/off/gpumetrics.tsv" &&
	test_grep "^# source: none: .*report.sqlite has no GPU Metrics samples (no table GPU_METRICS)" "$S2/off/gpumetrics.tsv" &&
	lp-summary "$S2/off/gpumetrics.tsv" >md &&
	! grep "GPU Metrics" md
'

test_done
