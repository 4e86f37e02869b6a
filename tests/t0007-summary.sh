#!/usr/bin/env bash
# lp-summary: every section from the data that exists, MFU arithmetic,
# and what is missing said instead of a silent zero.
. "$(dirname "$0")/lib.sh"

C=$ROOT/conf

# A hand-made run folder with round numbers, so the MFU table can be
# checked by hand: 1e9 matmul weights, bf16, on an H100 that names itself
# the way nvidia-smi does ("NVIDIA H100 80GB HBM3").
test_expect_success 'setup: a run folder with a model, an H100 and NVTX times' '
	r=$TRASH/run && mkdir -p "$r/nsys" &&
	lp-confmerge "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" \
		"$C/profiling/ncu/ncu.default.yaml" "$C/gpus.yaml" "$C/operators.yaml" >"$r/config.yaml" &&
	cat >"$r/inputs.yaml" <<-\EOF &&
	workload:
	  argv: [python3, llm.py]
	model:
	  name: round
	  config: conf/model/round.yaml
	  dtype: bf16
	  params: 1000000000
	  layers: 10
	  hidden: 1000
	  batch: 1
	  prompt_tokens: 100
	  decode_tokens: 10
	EOF
	cat >"$r/env.json" <<-\EOF &&
	{"lp_revision": "abc", "created_utc": "2026-11-22T00:00:00Z", "host": "h",
	 "mode": "live", "workload_argv": ["python3", "llm.py"], "imports": null,
	 "gpus": [{"index": "0", "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-1", "driver": "580"}],
	 "cuda_driver_api": "13.0", "nsys_version": "nsys 1", "ncu_version": "ncu 1", "notes": []}
	EOF
	cat >"$r/nsys/report_nvtx_sum.csv" <<-\EOF &&
	Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range
	4.0,1000000,1,1000000.0,1000000.0,1000000,1000000,0.0,PushPop,LLM:prefill
	48.0,20000000,1,20000000.0,20000000.0,20000000,20000000,0.0,PushPop,LLM:decode_all
	48.0,20000000,10,2000000.0,2000000.0,2000000,2000000,0.0,PushPop,LLM:decode_step
	1.0,5,1,5.0,5.0,5,5,0.0,PushPop,LLM:warmup
	EOF
	cat >"$r/nsys/report_nvtx_kern_sum.csv" <<-\EOF &&
	NVTX Range,Style,PID,TID,NVTX Inst,Kern Inst,Total Time (ns),Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Kernel Name
	LLM:prefill,PushPop,1,1,1,10,800000,80000.0,80000.0,80000,80000,0.0,gemm_kernel
	LLM:decode_all,PushPop,1,1,1,1000,2000000,2000.0,2000.0,2000,2000,0.0,gemv_kernel
	LLM:decode_step,PushPop,1,1,10,1000,2000000,2000.0,2000.0,2000,2000,0.0,gemv_kernel
	EOF
	printf "# time: nsys nvtx_kern_sum (x)\n# range: LLM:decode_all\nrank\tkernel\ttotal_ns\tcalls\tsm_throughput_pct\tdram_throughput_pct\n1\tgemv_kernel\t2000000\t1000\t10\t85\n" >"$r/kernels.tsv" &&
	lp-summary "$r" >"$TRASH/summary.md"
'

test_expect_success 'sections in order' '
	grep "^## " "$TRASH/summary.md" >got &&
	cat >expect <<-\EOF &&
	## Environment
	## Aggregates
	## Per-Stage Timings
	## MFU
	## Top Operators
	## Top Kernels
	## Findings and Recommendations
	EOF
	test_cmp expect got
'

test_expect_success 'MFU: FLOPs, time and the dense bf16 peak of the matching GPU' '
	sed -n "/^| Stage | Model FLOPs/,/^$/p" "$TRASH/summary.md" >got &&
	cat >expect <<-\EOF &&
	| Stage | Model FLOPs | Wall (ms) | Achieved TFLOP/s | MFU | MFU over kernel time |
	|:------|------------:|----------:|-----------------:|----:|---------------------:|
	| prefill | 200.200 GFLOP | 1.000 | 200.200 | 20.23% | 25.29% |
	| decode_all | 20.042 GFLOP | 20.000 | 1.002 | 0.10% | 1.01% |
	| decode_step | 2.004 GFLOP | 2.000 | 1.002 | 0.10% | 1.01% |

	EOF
	test_cmp expect got &&
	test_grep "peak bf16 989.4 TFLOP/s dense for NVIDIA H100 SXM5" "$TRASH/summary.md"
'

test_expect_success 'per-stage wall time, kernel time and GPU busy' '
	grep -E "^\| (prefill|decode_all) \| \`" "$TRASH/summary.md" >got &&
	cat >expect <<-\EOF &&
	| prefill | `LLM:prefill` | 1 | 1.000 | 1.000 | 0.800 | 10 | 80.0% |
	| decode_all | `LLM:decode_all` | 1 | 20.000 | 20.000 | 2.000 | 1000 | 10.0% |
	EOF
	test_cmp expect got &&
	test_grep "^Other NVTX ranges in the capture, not configured as stages: \`LLM:warmup\`.$" "$TRASH/summary.md"
'

test_expect_success 'findings: idle GPU, memory-bound top kernel, low MFU, missing inputs' '
	test_grep "^1\. \*\*decode_all keeps the GPU busy only 10.0% of its wall time.\*\*" "$TRASH/summary.md" &&
	test_grep "It is bound by memory bandwidth" "$TRASH/summary.md" &&
	test_grep "\*\*MFU is 0.10% in the profiled stage.\*\*" "$TRASH/summary.md" &&
	test_grep "This summary lacks: .nsys/report_cuda_gpu_kern_sum.csv. is missing" "$TRASH/summary.md" &&
	! grep -q "decode_step keeps the GPU busy" "$TRASH/summary.md"
'

test_expect_success 'missing data is named, with how to get it' '
	test_grep "| CUDA API time on the host | not available | .nsys/report_cuda_api_sum.csv. missing: .nsys stats --report cuda_api_sum. |" "$TRASH/summary.md" &&
	test_grep "| Kernels with ncu metrics | none | no ncu step in this run" "$TRASH/summary.md"
'

test_expect_success 'no model config: MFU says what to give' '
	cp -r "$TRASH/run" r2 &&
	printf "workload:\n  argv: [x]\n" >r2/inputs.yaml &&
	lp-summary r2 >s.md &&
	test_grep "^MFU is not computed: the run has no model config with .model.params." s.md &&
	test_grep "| Model | not recorded: no model config: pass MODEL=NAME" s.md
'

test_expect_success 'a GPU missing from the peak table is said, not guessed' '
	cp -r "$TRASH/run" r3 &&
	sed -i "s/NVIDIA H100 80GB HBM3/NVIDIA GeForce GT 710/" r3/env.json &&
	lp-summary r3 >s.md &&
	test_grep "MFU is not computed: GPU \"NVIDIA GeForce GT 710\" is not in the peak table" s.md
'

test_expect_success 'a run folder without kernels.tsv is an error' '
	mkdir r4 && cp "$TRASH/run/config.yaml" r4/ &&
	test_expect_code 2 lp-summary r4 >out 2>err &&
	test_must_be_empty out &&
	test_grep "lp-summary: r4/kernels.tsv (make it first" err &&
	test_expect_code 2 lp-summary 2>err && test_grep "^usage: lp-summary" err
'

test_expect_success 'a malformed report in the folder stops the summary' '
	cp -r "$TRASH/run" r5 &&
	printf "Range,Total Time (ns)\nx,1\n" >r5/nsys/report_nvtx_sum.csv &&
	test_expect_code 1 lp-summary r5 >out 2>err &&
	test_must_be_empty out &&
	test_grep "report_nvtx_sum.csv:1: no column \"Instances\"" err
'

test_done
