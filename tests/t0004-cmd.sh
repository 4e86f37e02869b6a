#!/usr/bin/env bash
# lp-nsyscmd and lp-ncucmd: golden commands for the shipped presets, and
# workload arguments that survive sh exactly.
. "$(dirname "$0")/lib.sh"

C=$ROOT/conf
merge() { lp-confmerge "$@"; }

test_expect_success 'setup: resolved configs and a top-N selection' '
	merge "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >"$TRASH/nsys.yaml" &&
	merge "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" "$C/model/torch-decoder.yaml" >"$TRASH/nsys-torch.yaml" &&
	for p in default light high; do
		merge "$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.$p.yaml" >"$TRASH/ncu-$p.yaml" || return 1
	done &&
	merge "$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.default.yaml" "$C/model/torch-decoder.yaml" >"$TRASH/ncu-torch.yaml" &&
	printf "# tool: lp-topn\nrank\tkernel\ttotal_ns\n1\t_Z7rmsnormPfii\t9\n2\t_Z8silu_mulPfPKfi\t8\n" >"$TRASH/topn.tsv"
'

test_expect_success 'nsys profile, default preset, named-domain stage' '
	lp-nsyscmd -o "out dir/report.tmp" -- python3 "my llm.py" --tokens 32 <"$TRASH/nsys.yaml" >actual &&
	cat >expect <<-\EOF &&
	nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --capture-range=nvtx --nvtx-capture=decode_all@LLM --capture-range-end=stop --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --cuda-graph-trace=node --gpu-metrics-devices=all --gpu-metrics-frequency=1000 --force-overwrite=true '"'"'--output=out dir/report.tmp'"'"' -- python3 '"'"'my llm.py'"'"' --tokens 32
	EOF
	test_cmp expect actual
'

# A fake nsys that prints its argv, one word a line, stands in for the
# real one: what sh hands it is what nsys would get.
test_expect_success 'arguments with spaces, quotes and $() survive sh untouched' '
	mkdir fake &&
	printf "#!/bin/sh\nfor a; do printf \"[%%s]\\\\n\" \"\$a\"; done\n" >fake/nsys &&
	chmod +x fake/nsys &&
	lp-nsyscmd -o base -- ./work "two words" "it'"'"'s" "say \"hi\"" "\$(touch pwned)" "\`touch pwned2\`" "a\\b" "" "*" <"$TRASH/nsys.yaml" >cmd &&
	PATH=$PWD/fake:$PATH sh cmd >got &&
	tail -n 9 got >tail &&
	cat >expect <<-\EOF &&
	[./work]
	[two words]
	[it'"'"'s]
	[say "hi"]
	[$(touch pwned)]
	[`touch pwned2`]
	[a\b]
	[]
	[*]
	EOF
	test_cmp expect tail &&
	! test -e pwned && ! test -e pwned2
'

test_expect_success '-0 prints the same words NUL-ended' '
	lp-nsyscmd -0 -o base -- a "b c" <"$TRASH/nsys.yaml" >lp.out && <lp.out tr "\0" "\n" >words &&
	lp-nsyscmd -o base -- a "b c" <"$TRASH/nsys.yaml" >line &&
	fake() { for a; do echo "$a"; done; } &&
	eval "fake $(cat line)" >from_line &&
	test_cmp words from_line
'

test_expect_success 'default-domain stage: nsys cannot gate on it, says so, captures all' '
	lp-nsyscmd -o r -- python3 x.py <"$TRASH/nsys-torch.yaml" >actual 2>err &&
	cat >expect <<-\EOF &&
	nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --cuda-graph-trace=node --gpu-metrics-devices=all --gpu-metrics-frequency=1000 --force-overwrite=true --output=r -- python3 x.py
	EOF
	test_cmp expect actual &&
	test_grep "lp-nsyscmd: stage decode_all: nsys cannot gate a capture on range \"LLM@decode_all\"" err
'

# nsys traces a CUDA graph whole unless told: a graphed decode step's
# kernels would be in no range (issue 26)
test_expect_success 'cuda_graph_trace: node by default; graph, empty (nsys default) or refused' '
	lp-nsyscmd -o r -- w <"$TRASH/nsys.yaml" >cmd && grep -q -e " --cuda-graph-trace=node " cmd &&
	lp-confmerge -s nsys_cli.cuda_graph_trace=graph "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >g.yaml &&
	lp-nsyscmd -o r -- w <g.yaml >cmd && grep -q -e " --cuda-graph-trace=graph " cmd &&
	lp-confmerge -s nsys_cli.cuda_graph_trace= "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >e.yaml &&
	lp-nsyscmd -o r -- w <e.yaml >cmd && ! grep -q -e --cuda-graph-trace cmd &&
	lp-confmerge -s nsys_cli.cuda_graph_trace=node:nvtx-precapture "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >b.yaml &&
	test_must_fail lp-nsyscmd -o r -- w <b.yaml 2>err &&
	test_grep "cuda_graph_trace" err
'

test_expect_success 'capture_range none: the whole run' '
	lp-confmerge -s nsys_cli.capture_range=none "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >c.yaml &&
	lp-nsyscmd -o r -- w <c.yaml >actual 2>err &&
	! grep -e --capture-range actual &&
	test_must_be_empty err
'

test_expect_success 'nsys stats over the report, and the stage as nsys stats names it' '
	lp-nsyscmd -s -o "d/report" -- "d/report.nsys-rep" <"$TRASH/nsys.yaml" >actual &&
	cat >expect <<-\EOF &&
	nsys stats --report cuda_gpu_kern_sum --report cuda_gpu_kern_sum:mangled --report nvtx_sum --report nvtx_kern_sum --report nvtx_kern_sum:mangled --report cuda_api_sum --report cuda_gpu_mem_time_sum --report nvtx_pushpop_trace --report nvtx_gpu_proj_trace --report cuda_gpu_trace --report cuda_api_trace --format csv --force-export=true --output=d/report d/report.nsys-rep
	EOF
	test_cmp expect actual &&
	lp-nsyscmd -r <"$TRASH/nsys.yaml" >named &&
	lp-nsyscmd -r <"$TRASH/nsys-torch.yaml" >torch &&
	printf "LLM:decode_all\n" >expect && test_cmp expect named &&
	printf ":LLM@decode_all\n" >expect && test_cmp expect torch
'

# GPU Metrics sampling (issue 31): on at 1 kHz by default, its two keys
# the only way to set it
test_expect_success 'gpu_metrics_frequency: 1 kHz by default, another rate, 0 off, bad ones refused' '
	lp-confmerge -s nsys_cli.gpu_metrics_frequency=10000 -s nsys_cli.gpu_metrics_devices=0,1 \
		"$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >f.yaml &&
	lp-nsyscmd -o r -- w <f.yaml >cmd && grep -q -e " --gpu-metrics-devices=0,1 --gpu-metrics-frequency=10000 " cmd &&
	lp-confmerge -s nsys_cli.gpu_metrics_frequency=0 "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >o.yaml &&
	lp-nsyscmd -o r -- w <o.yaml >cmd && ! grep -q -e --gpu-metrics cmd &&
	lp-confmerge -s nsys_cli.gpu_metrics_frequency=5 "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >b.yaml &&
	test_expect_code 1 lp-nsyscmd -o r -- w <b.yaml 2>err &&
	test_grep "gpu_metrics_frequency: nsys samples at 10 to 200000 Hz, got 5 (0 turns sampling off)" err &&
	lp-confmerge -s nsys_cli.gpu_metrics_frequency=300000 "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >b.yaml &&
	test_expect_code 1 lp-nsyscmd -o r -- w <b.yaml 2>err &&
	test_grep "gpu_metrics_frequency" err &&
	lp-confmerge -s nsys_cli.gpu_metrics_devices=none "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >b.yaml &&
	test_expect_code 1 lp-nsyscmd -o r -- w <b.yaml 2>err &&
	test_grep "gpu_metrics_frequency: 0 turns sampling off" err &&
	lp-confmerge -s nsys_cli.extra_args=--gpu-metrics-frequency=100 "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" >b.yaml &&
	test_expect_code 1 lp-nsyscmd -o r -- w <b.yaml 2>err &&
	test_grep "nsys_cli.extra_args: GPU Metrics sampling is set by nsys_cli.gpu_metrics_frequency" err
'

test_expect_success 'nsys export --type sqlite, and nsys stats reading that export as it is' '
	lp-nsyscmd -e -o "d d/report.tmp.sqlite" -- "d d/report.nsys-rep" <"$TRASH/nsys.yaml" >actual &&
	cat >expect <<-\EOF &&
	nsys export --type sqlite --force-overwrite=true '"'"'--output=d d/report.tmp.sqlite'"'"' '"'"'d d/report.nsys-rep'"'"'
	EOF
	test_cmp expect actual &&
	lp-nsyscmd -s -o d/report -- d/report.sqlite <"$TRASH/nsys.yaml" >actual &&
	cat >expect <<-\EOF &&
	nsys stats --report cuda_gpu_kern_sum --report cuda_gpu_kern_sum:mangled --report nvtx_sum --report nvtx_kern_sum --report nvtx_kern_sum:mangled --report cuda_api_sum --report cuda_gpu_mem_time_sum --report nvtx_pushpop_trace --report nvtx_gpu_proj_trace --report cuda_gpu_trace --report cuda_api_trace --format csv --output=d/report d/report.sqlite
	EOF
	test_cmp expect actual &&
	test_expect_code 2 lp-nsyscmd -e -o d/r.sqlite -- d/r.sqlite <"$TRASH/nsys.yaml" 2>err &&
	test_grep "lp-nsyscmd: -e: give one .nsys-rep after --" err &&
	test_expect_code 2 lp-nsyscmd -e -o d/r -- d/r.nsys-rep <"$TRASH/nsys.yaml" 2>err &&
	test_grep "ending in .sqlite" err &&
	test_expect_code 2 lp-nsyscmd -e -s -o d/r -- d/r.nsys-rep <"$TRASH/nsys.yaml" 2>err &&
	test_grep "do not go together" err
'

test_expect_success 'ncu, default preset: exactly one launch of each selected kernel' '
	lp-ncucmd -0 -k "$TRASH/topn.tsv" -o "ncu/report.tmp" -- ./tinyllm --tokens 16 <"$TRASH/ncu-default.yaml" >lp.out && <lp.out tr "\0" "\n" >actual &&
	cat >expect <<-\EOF &&
	ncu
	--target-processes
	all
	--devices
	0
	--replay-mode
	kernel
	--graph-profiling
	node
	--apply-rules
	no
	--metrics
	gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_src_int8.sum,sm__ops_path_tensor_src_fp64.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum,launch__grid_size,launch__sm_count,launch__occupancy_limit_barriers,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps
	--nvtx
	--nvtx-include
	LLM@decode_all/
	--kernel-name-base
	mangled
	--kernel-id
	::regex:^(_Z7rmsnormPfii|_Z8silu_mulPfPKfi)$:1
	--launch-count
	2
	--kill
	yes
	--force-overwrite
	--export
	ncu/report.tmp
	--
	./tinyllm
	--tokens
	16
	EOF
	test_cmp expect actual
'

test_expect_success 'ncu, light and high presets' '
	lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/ncu-light.yaml" >light &&
	cat >expect <<-\EOF &&
	ncu --target-processes all --devices 0 --replay-mode kernel --graph-profiling node --section SpeedOfLight --apply-rules no --metrics gpu__time_duration.sum,dram__bytes.sum,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_src_int8.sum,sm__ops_path_tensor_src_fp64.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum --nvtx --nvtx-include LLM@decode_all/ --kernel-name-base mangled --kernel-id '"'"'::regex:^(_Z7rmsnormPfii|_Z8silu_mulPfPKfi)$:1'"'"' --launch-count 2 --kill yes --force-overwrite --export b -- w
	EOF
	test_cmp expect light &&
	lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/ncu-high.yaml" >high &&
	cat >expect <<-\EOF &&
	ncu --target-processes all --devices 0 --replay-mode kernel --graph-profiling node --set full --apply-rules no --metrics gpu__time_duration.sum,dram__bytes.sum,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_src_int8.sum,sm__ops_path_tensor_src_fp64.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum --nvtx --nvtx-include LLM@decode_all/ --kernel-name-base mangled --kernel-id '"'"'::regex:^(_Z7rmsnormPfii|_Z8silu_mulPfPKfi)$:1'"'"' --launch-count 2 --kill yes --force-overwrite --export b -- w
	EOF
	test_cmp expect high
'

test_expect_success 'ncu, PyTorch default-domain stage: the @ is escaped' '
	lp-ncucmd -0 -k "$TRASH/topn.tsv" -o b -- python3 x.py <"$TRASH/ncu-torch.yaml" >lp.out && <lp.out tr "\0" "\n" >words &&
	grep -A1 -e --nvtx-include words >got &&
	printf "%s\n" --nvtx-include "LLM\\@decode_all/" >expect &&
	test_cmp expect got
'

test_expect_success 'more launches per kernel: a count over all selected kernels' '
	lp-confmerge -s ncu_cli.launches_per_kernel=3 -s ncu_cli.launch_skip=2 \
		"$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.default.yaml" >c.yaml &&
	lp-ncucmd -0 -k "$TRASH/topn.tsv" -o b -- w <c.yaml >lp.out && <lp.out tr "\0" "\n" >words &&
	sed -n "/^--kernel-name-base/,/^--force-overwrite/p" words >got &&
	printf "%s\n" --kernel-name-base mangled --kernel-name "regex:^(_Z7rmsnormPfii|_Z8silu_mulPfPKfi)\$" \
		--launch-skip 2 --launch-count 6 --kill yes --force-overwrite >expect &&
	test_cmp expect got
'

test_expect_success 'demangled selections cannot go through --kernel-id' '
	printf "# tool: lp-topn\nrank\tkernel\n1\tns::k(int)\n" >t.tsv &&
	lp-confmerge -s ncu_cli.kernel_name_base=demangled "$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.default.yaml" >c.yaml &&
	lp-ncucmd -0 -k t.tsv -o b -- w <c.yaml >lp.out && <lp.out tr "\0" "\n" >words &&
	test_grep -x -e --kernel-name words && test_grep -x -e --launch-count words &&
	! grep -x -e --kernel-id words
'

test_expect_success 'ncu export and the filters in words' '
	lp-ncucmd -x -- "r dir/report.ncu-rep" <"$TRASH/ncu-default.yaml" >actual &&
	cat >expect <<-\EOF &&
	ncu --import '"'"'r dir/report.ncu-rep'"'"' --page raw --csv --print-kernel-base mangled --print-units base
	EOF
	test_cmp expect actual &&
	lp-ncucmd -d -k "$TRASH/topn.tsv" <"$TRASH/ncu-torch.yaml" >words &&
	cat >expect <<-\EOF &&
	NVTX include: LLM\@decode_all/
	kernel filter: --kernel-name-base mangled --kernel-id ::regex:^(_Z7rmsnormPfii|_Z8silu_mulPfPKfi)$:1 --launch-count 2 --kill yes
	EOF
	head -2 words >got && test_cmp expect got
'

fails() {
	# fails TITLE CODE CMD PATTERN
	test_expect_success "$1" "
		test_expect_code $2 $3 >out 2>err &&
		test_must_be_empty out &&
		test_grep -- '$4' err
	"
}
fails 'nsys: no workload' 2 'lp-nsyscmd -o b <"$TRASH/nsys.yaml"' 'lp-nsyscmd: no workload: give its argv after --'
fails 'nsys: no -o' 2 'lp-nsyscmd -- w <"$TRASH/nsys.yaml"' 'lp-nsyscmd: -o base is required'
fails 'nsys: a workload that looks like an option' 2 'lp-nsyscmd -o b -- --help <"$TRASH/nsys.yaml"' 'starts with'
printf 'nsys_cli:\n  capture_range: nvxt\nrun:\n  stage: decode_all\n' >"$TRASH/bad.yaml"
fails 'nsys: a bad preset value names key and line' 1 'lp-nsyscmd -o b -- w <"$TRASH/bad.yaml"' \
	'lp-nsyscmd: <stdin>:2: nsys_cli.capture_range: expected nvtx or none, got "nvxt"'
printf 'nsys_cli:\n  capture_range: nvtx\nrun:\n  stage: decode\nstages:\n  prefill: {domain: LLM}\n' >"$TRASH/bad.yaml"
fails 'nsys: an unknown stage' 1 'lp-nsyscmd -o b -- w <"$TRASH/bad.yaml"' 'no stage "decode" under stages (stages: prefill)'
printf 'nsys_cli:\n  trace: [cuda nvtx]\n' >"$TRASH/bad.yaml"
fails 'nsys: a list item with a space' 1 'lp-nsyscmd -o b -- w <"$TRASH/bad.yaml"' 'nsys_cli.trace: "cuda nvtx" has a space'
printf '# tool: lp-topn\nrank\tkernel\n' >"$TRASH/empty.tsv"
fails 'ncu: an empty selection would profile nothing' 1 \
	'lp-ncucmd -k "$TRASH/empty.tsv" -o b -- w <"$TRASH/ncu-default.yaml"' 'no kernels selected: ncu would profile nothing'
fails 'ncu: no selection' 2 'lp-ncucmd -o b -- w <"$TRASH/ncu-default.yaml"' '-k topn.tsv is required'
printf 'ncu_cli:\n  replay_mode: bogus\n' >"$TRASH/bad.yaml"
fails 'ncu: a bad replay mode' 1 'lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/bad.yaml"' \
	'<stdin>:2: ncu_cli.replay_mode: expected kernel, application, range or app-range, got "bogus"'
printf 'ncu_cli:\n  launches_per_kernel: 0\n' >"$TRASH/bad.yaml"
fails 'ncu: a launch count out of range' 1 'lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/bad.yaml"' \
	'ncu_cli.launches_per_kernel: expected a whole number from 1 to 1000, got "0"'
printf 'run:\n  stage: s\nstages:\n  s: {domain: "", range: "a/b"}\n' >"$TRASH/bad.yaml"
fails 'ncu: a range with a slash' 1 'lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/bad.yaml"' 'which ncu reads as nested ranges'
printf 'a: [unclosed\n' >"$TRASH/bad.yaml"
fails 'a config that is not YAML' 1 'lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/bad.yaml"' 'lp-ncucmd: <stdin>:2:1: YAML:'

test_expect_success 'ncu: metrics the GPU lacks are dropped and said, not run into' '
	grep -v sm__ops_path_tensor_src_fp8 "$FIX/h200-probe/query-metrics.txt" >avail &&
	lp-ncucmd -a avail -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/ncu-light.yaml" >cmd 2>err &&
	test_grep "^# lp: dropped metrics: sm__ops_path_tensor_src_fp8.sum (not on this GPU (ncu --query-metrics))$" cmd &&
	test_grep "^lp-ncucmd: dropped metrics: sm__ops_path_tensor_src_fp8.sum" err &&
	! grep -q "src_fp8" <(sed 1d cmd) &&
	grep -q "src_fp16.sum" cmd &&
	lp-ncucmd -a "$FIX/h200-probe/query-metrics.txt" -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/ncu-light.yaml" >cmd2 2>err2 &&
	test_must_be_empty err2 && ! grep -q "^#" cmd2
'

test_expect_success 'ncu: the launch attributes are kept though --query-metrics lists none (H100, H200)' '
	! grep -q "^launch__" "$FIX/h200-probe/query-metrics.txt" &&
	lp-ncucmd -a "$FIX/h200-probe/query-metrics.txt" -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/ncu-default.yaml" >cmd 2>err &&
	test_must_be_empty err && ! grep -q "^#" cmd &&
	for m in launch__grid_size launch__sm_count launch__occupancy_limit_warps \
		sm__throughput.avg.pct_of_peak_sustained_elapsed gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed
	do grep -q "[ ,]$m[, ]" cmd || { echo "no $m in: $(cat cmd)"; return 1; }; done &&
	! grep -q -e "--section" cmd &&
	printf "ncu_cli:\n  metrics: [launch__nosuch, launchx__grid_size]\n" >m.yaml &&
	lp-ncucmd -a "$FIX/h200-probe/query-metrics.txt" -k "$TRASH/topn.tsv" -o b -- w <m.yaml >cmd 2>err &&
	test_grep "^# lp: dropped metrics: launchx__grid_size (not on this GPU" cmd
'

test_expect_success 'ncu: range replay takes no SASS counters; they are dropped and said' '
	lp-confmerge -s ncu_cli.replay_mode=app-range "$TRASH/ncu-light.yaml" >ar.yaml &&
	lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <ar.yaml >cmd 2>err &&
	test_grep "^# lp: dropped metrics: sm__sass_thread_inst_executed_op_fadd_pred_on.sum (not supported in range replay)" cmd &&
	! grep -q "sm__sass" <(sed 1d cmd)
'

test_expect_success 'ncu: a metrics list that is not ncu --query-metrics output is refused' '
	echo "hello world" >bad &&
	test_expect_code 1 lp-ncucmd -a bad -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/ncu-light.yaml" >out 2>err &&
	test_must_be_empty out &&
	test_grep "bad: no metric names" err
'

# A workload that opens its own capture window (issue 39, item 3), as
# serving engines' profiling endpoints do: capture.window in its model
# file.  nsys captures from cudaProfilerStart to cudaProfilerStop (and the
# workload runs on: stop, not stop-shutdown), the untraced timing run the
# same window, ncu profiles only inside it (and inside the stage's range).
test_expect_success 'capture.window cuda_profiler_api: nsys, the untraced run and ncu gated by the workload' '
	printf "capture:\n  window: cuda_profiler_api\n" >w.yaml &&
	merge "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" "$C/model/torch-decoder.yaml" w.yaml >n.yaml &&
	lp-nsyscmd -o r -- w <n.yaml >cmd 2>err &&
	test_grep -e " --capture-range=cudaProfilerApi --capture-range-end=stop " cmd &&
	! grep -e "--nvtx-capture\|--capture-range=nvtx" cmd &&
	test_must_be_empty err &&
	lp-nsyscmd -u -o r -- w <n.yaml >ucmd &&
	test_grep -e "^nsys profile --trace=nvtx .* --capture-range=cudaProfilerApi --capture-range-end=stop " ucmd &&
	merge "$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.default.yaml" "$C/model/torch-decoder.yaml" w.yaml >c.yaml &&
	lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <c.yaml >ncmd &&
	test_grep -e " --profile-from-start off " ncmd &&
	test_grep -e " --nvtx-include .LLM\\\\@decode_all/. " ncmd &&
	# without the key: neither
	lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/ncu-torch.yaml" >plain &&
	! grep -e --profile-from-start plain &&
	printf "capture:\n  window: cudaProfilerApi\n" >bad.yaml &&
	merge "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" bad.yaml >b.yaml &&
	test_expect_code 1 lp-nsyscmd -o r -- w <b.yaml >out 2>err &&
	test_must_be_empty out &&
	test_grep "capture.window" err && test_grep "cuda_profiler_api" err
'

test_done
