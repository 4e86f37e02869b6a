#!/usr/bin/env bash
# The summary's tables, one filter each, on a hand-made run with round
# numbers (checked by hand below), and lp-summary rendering them.
. "$(dirname "$0")/lib.sh"

C=$ROOT/conf

# A hand-made run folder with round numbers, so that MFU and MBU can be
# checked by hand: 1e9 matmul weights, bf16, on an H100 that names itself
# the way nvidia-smi does ("NVIDIA H100 80GB HBM3"); ten decode steps, the
# first of them 5x the others (a warm-up, as seen on real runs).
test_expect_success 'setup: a run folder with a model, an H100 and NVTX times' '
	r=$TRASH/run && mkdir -p "$r/nsys" &&
	lp-confmerge "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" \
		"$C/profiling/ncu/ncu.default.yaml" >"$r/config.yaml" &&
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
	  heads: 10
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
	48.0,26000000,1,26000000.0,26000000.0,26000000,26000000,0.0,PushPop,LLM:decode_all
	48.0,26000000,10,2600000.0,2000000.0,2000000,8000000,1897366.6,PushPop,LLM:decode_step
	1.0,5,1,5.0,5.0,5,5,0.0,PushPop,LLM:warmup
	EOF
	cat >"$r/nsys/report_nvtx_kern_sum.csv" <<-\EOF &&
	NVTX Range,Style,PID,TID,NVTX Inst,Kern Inst,Total Time (ns),Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Kernel Name
	LLM:prefill,PushPop,1,1,1,10,800000,80000.0,80000.0,80000,80000,0.0,gemm_kernel
	LLM:decode_all,PushPop,1,1,1,1000,2000000,2000.0,2000.0,2000,2000,0.0,gemv_kernel
	LLM:decode_step,PushPop,1,1,10,1000,2000000,2000.0,2000.0,2000,2000,0.0,gemv_kernel
	EOF
	{
		echo "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree"
		echo "0,1000000,1000000,0,1000000,LLM:prefill,1,1,0,0,1,,:1,LLM:prefill"
		echo "1000000,27000000,26000000,26000000,0,LLM:decode_all,1,1,0,10,2,,:2,LLM:decode_all"
		t=1000000 i=3
		for d in 8000000 2000000 2000000 2000000 2000000 2000000 2000000 2000000 2000000 2000000; do
			echo "$t,$((t + d)),$d,0,$d,LLM:decode_step,1,1,1,0,$i,2,:2:$i,--LLM:decode_step"
			t=$((t + d)) i=$((i + 1))
		done
	} >"$r/nsys/report_nvtx_pushpop_trace.csv" &&
	printf "# time: nsys nvtx_kern_sum (x)\n# range: LLM:decode_all\nrank\tkernel\ttotal_ns\tcalls\tsm_throughput_pct\tdram_throughput_pct\n1\tgemv_kernel\t2000000\t1000\t10\t85\n" >"$r/kernels.tsv" &&
	lp-gpu -c "$r/config.yaml" -t "$C/gpus.yaml" "$r/env.json" >"$r/gpu.tsv" &&
	lp-stages -L -c "$r/config.yaml" -k "$r/nsys/report_nvtx_kern_sum.csv" "$r/nsys/report_nvtx_sum.csv" >"$r/stages.tsv" &&
	lp-steps -c "$r/config.yaml" -i "$r/inputs.yaml" "$r/nsys/report_nvtx_pushpop_trace.csv" >"$r/steps.tsv" &&
	lp-mfu -g "$r/gpu.tsv" -i "$r/inputs.yaml" -s "$r/stages.tsv" -t "$r/steps.tsv" >"$r/mfu.tsv" &&
	lp-mbu -g "$r/gpu.tsv" -i "$r/inputs.yaml" -s "$r/stages.tsv" -t "$r/steps.tsv" >"$r/mbu.tsv"
'

rows() {
	sed "/^#/d" "$1" | sed 1d
}

test_expect_success 'GPU peaks: the exact nvidia-smi name finds the H100 SXM, dense figures' '
	test_grep "^# source: .*entry \"NVIDIA H100 SXM5 80GB\" (dense, no 2:4 sparsity" "$TRASH/run/gpu.tsv" &&
	rows "$TRASH/run/gpu.tsv" | grep -e "^tensor	bf16" -e "^dram" >got &&
	printf "tensor\tbf16\t989400000000000\tFLOP/s\t%s\ndram\t-\t3350000000000\tB/s\t%s\n" \
		"$C/gpus.yaml" "$C/gpus.yaml" >expect &&
	test_cmp expect got
'

test_expect_success 'GPU peaks: a substring of another name is not a match' '
	sed "s/NVIDIA H100 80GB HBM3/NVIDIA H100 80GB HBM3 (custom)/" "$TRASH/run/env.json" >env.json &&
	lp-gpu -t "$C/gpus.yaml" env.json >gpu.tsv &&
	test_grep "^# why: GPU \"NVIDIA H100 80GB HBM3 (custom)\" is not in" gpu.tsv &&
	rows gpu.tsv | cut -f3 >got &&
	test_grep "^n/a because GPU .* set its dense peaks per run with SET=" got &&
	! grep -q "	0	" gpu.tsv
'

test_expect_success 'GPU peaks: SET= overrides and adds figures for an unknown GPU' '
	sed "s/NVIDIA H100 80GB HBM3/NVIDIA GeForce GT 710/" "$TRASH/run/env.json" >env.json &&
	lp-confmerge -s gpu.tensor_tflops.bf16=100 -s gpu.hbm_tbps=0.5 "$TRASH/run/config.yaml" >c.yaml &&
	lp-gpu -c c.yaml -t "$C/gpus.yaml" env.json >gpu.tsv &&
	rows gpu.tsv | cut -f1-3 >got &&
	printf "tensor\tbf16\t100000000000000\ndram\t-\t500000000000\n" >expect &&
	test_cmp expect got &&
	test_expect_code 2 lp-confmerge -s gpu.hbm_tbps=-1 "$ROOT/conf/runner/stage2.yaml" >out 2>err &&
	test_must_be_empty out && test_grep "gpu.hbm_tbps: expected a number from 0, as the presets have" err &&
	sed "s/^  hbm_tbps: .*/  hbm_tbps: -1/" c.yaml >c2.yaml && test_grep "hbm_tbps: -1" c2.yaml &&
	test_expect_code 1 lp-gpu -c c2.yaml -t "$C/gpus.yaml" env.json >out 2>err &&
	test_must_be_empty out && test_grep "gpu.hbm_tbps: expected a number from 0 (not set) up, got \"-1\"" err &&
	test_expect_code 2 lp-confmerge -s gpu.hbm_tbps=fast "$ROOT/conf/runner/stage2.yaml" >out 2>err &&
	test_must_be_empty out && test_grep "gpu.hbm_tbps: expected a number, as the presets have" err
'

test_expect_success 'stages: nvtx_sum statistics, kernel time, busy share, launches per instance' '
	rows "$TRASH/run/stages.tsv" | g4 12 >got &&
	cat >expect <<-\EOF &&
	prefill	LLM:prefill	1	1000000	1000000.0	1000000.0	1000000	1000000	0.0	800000	10	80	10.0
	decode_all	LLM:decode_all	1	26000000	26000000.0	26000000.0	26000000	26000000	0.0	2000000	1000	7.692	1000.0
	decode_step	LLM:decode_step	10	26000000	2600000.0	2000000.0	2000000	8000000	1897366.6	2000000	1000	7.692	100.0
	EOF
	test_cmp expect got &&
	test_grep "^# note: Other NVTX ranges in the capture, not configured as stages: .LLM:warmup.\.$" "$TRASH/run/stages.tsv"
'

test_expect_success 'steps: the first step is flagged as warm-up; steady state and tokens/s' '
	rows "$TRASH/run/steps.tsv" | grep "^decode_step" >got &&
	printf "decode_step\tLLM:decode_step\t10\t8000000.0\t2000000.0\t4\tyes\t2000000.0\t2000000\t2000000\t2000000.0\t2000000.0\t500\tsteady-state step\t2600000.0\t2000000.0\n" >expect &&
	test_cmp expect got &&
	rows "$TRASH/run/steps.tsv" | grep "^decode_all" | cut -f13,14 | g4 1 >got &&
	printf "384.6\twhole stage, warm-up included (decode_step instances in the trace)\n" >expect &&
	test_cmp expect got
'

test_expect_success 'steps: a threshold above the ratio flags no warm-up; a bad one is refused' '
	lp-steps -w 5 -c "$TRASH/run/config.yaml" "$TRASH/run/nsys/report_nvtx_pushpop_trace.csv" >s.tsv &&
	rows s.tsv | grep "^decode_step" | cut -f7 >got && echo no >expect && test_cmp expect got &&
	test_expect_code 2 lp-steps -w 0.5 -c "$TRASH/run/config.yaml" 2>err &&
	test_grep "^lp-steps: -w" err
'

# prefill: B(2NP + 2LdP^2) = 2e11 + 2e8 = 200.2 GFLOP in 1 ms = 200.2
# TFLOP/s of the bf16 peak 989.4: 20.23%.  decode_step: decode_all / T =
# (2NT + 4Ld(PT + T(T-1)/2)) / T = (2e10 + 4e4 x 1045) / 10 = 2.00418 GFLOP;
# mean step 2.6 ms, steady 2 ms.
test_expect_success 'MFU: FLOPs, mean and steady-state time, the dense bf16 peak' '
	rows "$TRASH/run/mfu.tsv" | g4 4 5 7 9 >got &&
	cat >expect <<-\EOF &&
	prefill	200200000000	1000000.0	2.002e+14	20.23	n/a because one instance	n/a because no steady state	800000.0	25.29
	decode_all	20041800000	26000000.0	7.708e+11	0.07791	n/a because one instance	n/a because no steady state	2000000.0	1.013
	decode_step	2004180000	2600000.0	7.708e+11	0.07791	2000000.0	0.1013	200000.0	1.013
	EOF
	test_cmp expect got
'

# weights 1e9 x 2 B = 2 GB; KV 2 x 10 x 1 x 1000 x 2 x (100 + 5.5) =
# 4,220,000 B; per token 2,004,220,000 B; steady 2 ms: 1.00211e12 B/s of
# 3.35e12 = 29.91%.
test_expect_success 'MBU: weights plus KV cache per token over the step time' '
	rows "$TRASH/run/mbu.tsv" | g4 6 7 9 >got &&
	cat >expect <<-\EOF &&
	decode_step	2000000000	4220000	2004220000	2600000.0	7.709e+11	23.01	2000000.0	29.91
	decode_all	2000000000	4220000	2004220000	2600000.0	7.709e+11	23.01	n/a because decode_all is one instance; see decode_step	n/a
	EOF
	test_cmp expect got
'

# prefill_logits: last, V = 50000: the LM head's Vd = 5e7 of N runs for one
# token: 2(1e9 - 5e7) x 100 + 2 x 5e7 + 2e8 = 190.3 GFLOP; decode unchanged.
test_expect_success 'MFU: an LM head run for the last prompt token only' '
	sed "s/^  layers: 10$/  layers: 10\n  vocab: 50000\n  prefill_logits: last/" "$TRASH/run/inputs.yaml" >in.yaml &&
	test_grep "prefill_logits: last" in.yaml &&
	lp-mfu -g "$TRASH/run/gpu.tsv" -i in.yaml -s "$TRASH/run/stages.tsv" >m.tsv &&
	rows m.tsv | cut -f1,2 >got &&
	printf "prefill\t190300000000\ndecode_all\t20041800000\ndecode_step\t2004180000\n" >expect &&
	test_cmp expect got &&
	test_grep "^# note: FLOPs: prefill B(2(N - Vd)P + 2Vd + 2LdP^2)" m.tsv &&
	sed "s/^  layers: 10$/  layers: 10\n  prefill_logits: last/" "$TRASH/run/inputs.yaml" >in2.yaml &&
	lp-mfu -g "$TRASH/run/gpu.tsv" -i in2.yaml -s "$TRASH/run/stages.tsv" >m2.tsv &&
	test_grep "^# missing: no MFU: the model config lacks model.vocab (prefill_logits: last)" m2.tsv &&
	sed "s/^  layers: 10$/  layers: 10\n  prefill_logits: first/" "$TRASH/run/inputs.yaml" >in3.yaml &&
	test_expect_code 1 lp-mfu -g "$TRASH/run/gpu.tsv" -i in3.yaml -s "$TRASH/run/stages.tsv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "in3.yaml:[0-9]*: model.prefill_logits: expected \"last\" or \"all\", got \"first\"" err
'

test_expect_success 'no model config: MFU and MBU say what to give, never 0' '
	printf "workload:\n  argv: [x]\n" >in.yaml &&
	lp-mfu -g "$TRASH/run/gpu.tsv" -i in.yaml -s "$TRASH/run/stages.tsv" >m.tsv &&
	test_grep "^# missing: no MFU: the model config lacks model.params, model.layers" m.tsv &&
	rows m.tsv | cut -f2 | sort -u >got &&
	echo "n/a because the model config lacks model.params, model.layers, model.hidden, model.batch, model.prompt_tokens, model.decode_tokens, model.dtype (MODEL=NAME)" >expect &&
	test_cmp expect got &&
	lp-mbu -g "$TRASH/run/gpu.tsv" -i in.yaml -s "$TRASH/run/stages.tsv" >b.tsv &&
	test_grep "^# missing: no MBU" b.tsv
'

test_expect_success 'a GPU missing from the peak table: MFU is n/a with the reason' '
	sed "s/NVIDIA H100 80GB HBM3/NVIDIA GeForce GT 710/" "$TRASH/run/env.json" >env.json &&
	lp-gpu -t "$C/gpus.yaml" env.json >gpu.tsv &&
	lp-mfu -g gpu.tsv -i "$TRASH/run/inputs.yaml" -s "$TRASH/run/stages.tsv" >m.tsv &&
	test_grep "^# missing: no MFU: GPU \"NVIDIA GeForce GT 710\" is not in" m.tsv &&
	rows m.tsv | cut -f5 | sort -u >got &&
	test_grep "^n/a because GPU \"NVIDIA GeForce GT 710\" is not in" got
'

test_expect_success 'a model number that is not a number is refused with its line' '
	sed "s/layers: 10/layers: ten/" "$TRASH/run/inputs.yaml" >in.yaml &&
	test_expect_code 1 lp-mfu -g "$TRASH/run/gpu.tsv" -i in.yaml -s "$TRASH/run/stages.tsv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-mfu: in.yaml:[0-9]*: model.layers: expected a whole number above 0, got \"ten\"" err
'

test_expect_success 'lp-summary renders the tables in order, with sources and notes' '
	r=$TRASH/run &&
	lp-summary -c "$ROOT/conf/details.yaml" -t "Summary: run r" "$r/gpu.tsv" "$r/stages.tsv" "$r/steps.tsv" "$r/mfu.tsv" "$r/mbu.tsv" >s.md &&
	grep "^#" s.md >got &&
	printf "%s\n" "# Summary: run r" "## GPU Peaks" "## Per-Stage Timings" "## Steady State and Warm-up" \
		"## MFU" "## MBU" >expect &&
	test_cmp expect got &&
	test_grep "^| prefill | 200 GFLOP | 1.000 | 200 TFLOP/s | 20.2% | n/a because one instance |" s.md &&
	test_grep "^| decode_step | 10 | 8.000 | 2.000 | 4x | yes | 2.000 | 2.000 | 2.000 | 500.0 |" s.md &&
	test_grep "^Source: model FLOPs from .* (.mfu.tsv., made by lp-mfu)\.$" s.md &&
	test_grep "^FLOPs: prefill B(2NP + 2LdP^2)" s.md
'

test_expect_success 'lp-summary refuses a file that no lp tool made' '
	printf "a\tb\n1\t2\n" >plain.tsv &&
	test_expect_code 1 lp-summary plain.tsv >out 2>err &&
	test_grep "plain.tsv:1: no \"# title:\" and \"# tool:\" lines" err &&
	test_expect_code 2 lp-summary 2>err && test_grep "^usage: lp-summary" err
'

test_expect_success 'a malformed report stops the table, naming file and line' '
	printf "Range,Total Time (ns)\nx,1\n" >bad_nvtx_sum.csv &&
	test_expect_code 1 lp-stages -c "$TRASH/run/config.yaml" bad_nvtx_sum.csv >out 2>err &&
	test_must_be_empty out &&
	test_grep "bad_nvtx_sum.csv:1: no column \"Instances\"" err
'

test_done
