#!/usr/bin/env bash
# Multi-GPU imports without nvtx_gpu_proj_trace (issue 14, item 3), from the
# real two-H200 torchrun captures of tests/fixtures/h200-tp with their
# *_nvtx_gpu_proj_trace.csv left out of IMPORT, as a user who exported only
# cuda_gpu_trace has them: the per-GPU tables (communication share, overlap)
# from cuda_gpu_trace, recomputed with awk; each process's GPU, checked
# against the projection trace the import left out; no kernel table adding
# two processes' kernels, ncu_cli.device=-1 included; errors and n/a naming
# the report the run lacks; the GPU's name from the trace, one name in the
# whole report; and small report lines (missing model keys, peaks set by
# SET=) that must not claim what the run did not have.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/ranks.sh"

TP=$FIX/h200-tp
noproj() {	# noproj PREFIX...: the captures' exports less the projection trace
	for p in "$@"; do
		ls "$TP/$p"_*.csv | grep -v "_nvtx_gpu_proj_trace\.csv$"
	done | tr "\n" " "
}
# comm_pct per device, by awk from a trace: communication union over the
# union of all kernels (tests/ranks.sh's overlap: busy column 4, comm 5)
comm_share() {
	overlap "$@" >"$TRASH/ov.tsv" &&	# not a pipe: A writes one program file
	A -v FS="	" '{ printf "%s\t%s\t%s\n", $1, $4, fmt("%.1f", 100 * $5 / $4) }' "$TRASH/ov.tsv"
}

test_expect_success 'setup: merged captures (balanced, straggler, sleeper) imported without nvtx_gpu_proj_trace' '
	for r in tpm tps tpz; do
		lpmake RUN=n$r "IMPORT=$(noproj $r)" MODEL=tp-mlp SET=model.decode_tokens=8 \
			stakeholder_summary.md >out 2>err || { cat err; return 1; }
		! grep -q nvtx_gpu_proj_trace "$S2/n$r/inputs.yaml" || return 1
	done
'

for r in tpm tps tpz; do
	test_expect_success "n$r: per-GPU communication share and overlap from cuda_gpu_trace, by awk" '
		comm_share "$TP/'$r'_cuda_gpu_trace_mangled.csv" >expect &&
		test $(wc -l <expect) = 2 &&
		table "$S2/n'$r'/overlap.tsv" device busy_ns comm_pct | rnd "%.1f" 3 | sort >got &&
		test_cmp expect got &&
		overlap "$TP/'$r'_cuda_gpu_trace_mangled.csv" >expect &&
		table "$S2/n'$r'/overlap.tsv" $OCOLS | rnd "%.1f" 9 10 | sort >got &&
		test_cmp expect got &&
		test_grep "^## Communication and Compute Overlap$" "$S2/n'$r'/details.md"
	'
	test_expect_success "n$r: each process on its GPU, as the left-out projection trace has it (ranks.tsv by awk)" '
		ranks "$TP/'$r'_nvtx_gpu_proj_trace.csv" "$TP/'$r'_cuda_gpu_trace_mangled.csv" \
			"$TP/'$r'_nvtx_pushpop_trace.csv" "$TP/'$r'_nvtx_kern_sum.csv" >expect &&
		test $(wc -l <expect) = 6 &&
		table "$S2/n'$r'/ranks.tsv" $RCOLS | rnd "%.1f" 11 | sort >got &&
		test_cmp expect got &&
		test_grep "^# source: .*the one GPU whose kernels have the process.s shortest and longest duration of each kernel .*the run lacks nvtx_gpu_proj_trace" \
			"$S2/n'$r'/procs.tsv"
	'
done

# The process on GPU 0 by the projection trace (what ranks() reads), and
# its own kernels of decode_all summed by awk from nvtx_kern_sum.
dev0() {
	ranks "$TP/$1_nvtx_gpu_proj_trace.csv" "$TP/$1_cuda_gpu_trace_mangled.csv" \
		"$TP/$1_nvtx_pushpop_trace.csv" "$TP/$1_nvtx_kern_sum.csv" |
	awk -F"\t" '$3 ~ /\(0\)$/ && !p { print $2; p = 1 }'
}
kern_of() {	# kern_of PID FILE...: kernel, total ns, calls of decode_all
	pid=$1
	shift
	A -v pid="$pid" 'FNR == 1 { n = csv($0, f); delete h; col(f, n, h); next }
		{ csv($0, f); if (f[h["PID"]] != pid || f[h["NVTX Range"]] != ":LLM@decode_all") next
			t[f[h["Kernel Name"]]] += f[h["Total Time (ns)"]]; c[f[h["Kernel Name"]]] += f[h["Kern Inst"]] }
		END { for (k in t) printf "%s\t%d\t%d\n", k, t[k], c[k] }' "$@" | sort
}

test_expect_success 'ntps: the kernel tables are the process on GPU 0 alone, by awk' '
	p=$(dev0 tps) && test -n "$p" &&
	test_grep "^# profiled: $p$" "$S2/ntps/procs.tsv" &&
	test_grep "^# kernels: $p$" "$S2/ntps/procs.tsv" &&
	test_grep "^# process: $p on NVIDIA H200 (0) only" "$S2/ntps/kernels.tsv" &&
	kern_of $p "$TP/tps_nvtx_kern_sum.csv" >expect &&
	table "$S2/ntps/kernels.tsv" kernel total_ns calls | sort >got &&
	test_cmp expect got
'

test_expect_success 'ncu_cli.device=-1 is taken, as the preset says, and no kernel table adds two processes' '
	test_grep "# .*-1: every device" "$ROOT/conf/profiling/ncu/ncu.default.yaml" &&
	lpmake RUN=all "IMPORT=$(noproj tpm)" MODEL=tp-mlp \
		"SET=model.decode_tokens=8 ncu_cli.device=-1" kernels.tsv top_kernels.tsv >out 2>err &&
	test_grep "^  device: -1$" "$S2/all/ncu/config.yaml" &&
	p=$(dev0 tpm) && test -n "$p" &&
	test_grep "^# kernels: $p$" "$S2/all/procs.tsv" &&
	! grep -q "^# profiled:" "$S2/all/procs.tsv" &&
	kern_of $p "$TP/tpm_nvtx_kern_sum.csv" >expect &&
	table "$S2/all/kernels.tsv" kernel total_ns calls | sort >got &&
	test_cmp expect got &&
	grep nccl expect | cut -f3 >calls && test "$(cat calls)" = 32 &&
	A "FNR == 1 { n = csv(\$0, f); col(f, n, h); next }
		{ csv(\$0, f); if (f[h[\"NVTX Range\"]] == \":LLM@decode_all\" && f[h[\"Kernel Name\"]] ~ /^ncclDevKernel_AllReduce_Sum_f16/)
			print f[h[\"PID\"]] \"\t\" fmt(\"%.2f\", f[h[\"Total Time (ns)\"]] / f[h[\"Kern Inst\"]] / 1000) }" \
		"$TP/tpm_nvtx_kern_sum.csv" | sort >means &&
	test $(wc -l <means) = 2 &&
	table "$S2/all/top_kernels.tsv" kernel mean_ns | awk -F"\t" "/nccl/ { printf \"%.2f\n\", \$2 / 1000 }" >got &&
	grep "^$p	" means | cut -f2 >expect &&
	test_cmp expect got
'

test_expect_success 'lp-confmerge: device -1 is taken, -2 refused saying what is' '
	lp-confmerge -s ncu_cli.device=-1 "$ROOT/conf/profiling/ncu/ncu.default.yaml" >c.yaml &&
	test_grep "^  device: -1$" c.yaml &&
	test_expect_code 2 lp-confmerge -s ncu_cli.device=-2 "$ROOT/conf/profiling/ncu/ncu.default.yaml" >out 2>err &&
	test_must_be_empty out &&
	test_grep "ncu_cli.device: expected a number from 0 (or -1, every device), as the presets have, got \"-2\"" err &&
	test_expect_code 2 lp-confmerge -s run.top_n_kernels=-1 "$ROOT/conf/runner/stage2.yaml" >out 2>err &&
	test_grep "run.top_n_kernels: expected a number from 0, as" err
'

test_expect_success 'per-rank exports (tpr0_, tpr1_) without the projection trace: each rank on its GPU' '
	lpmake RUN=npr "IMPORT=$(noproj tpr0 tpr1)" MODEL=tp-mlp SET=model.decode_tokens=8 \
		ranks.tsv overlap.tsv kernels.tsv >out 2>err &&
	table "$S2/npr/ranks.tsv" pid device | sort -u >got &&
	printf "%s\n" "1430	NVIDIA H200 (0)" "1433	NVIDIA H200 (1)" >expect &&
	test_cmp expect got &&
	for r in tpr0 tpr1; do
		awk -F, "NR > 1 && \$0 ~ /NVIDIA H200 \\(/ { sub(/.*NVIDIA H200 \\(/, \"\"); sub(/\\).*/, \"\"); print }" \
			"$TP/${r}_nvtx_gpu_proj_trace.csv" "$TP/${r}_cuda_gpu_trace_mangled.csv" | sort -u || return 1
	done >devs &&
	printf "%s\n" 0 1 >expect && test_cmp expect devs &&
	{ head -n 1 "$TP/tpr0_cuda_gpu_trace_mangled.csv"; tail -n +2 -q "$TP"/tpr[01]_cuda_gpu_trace_mangled.csv; } >trace.csv &&
	comm_share trace.csv >expect &&
	table "$S2/npr/overlap.tsv" device busy_ns comm_pct | rnd "%.1f" 3 | sort >got &&
	test_cmp expect got &&
	kern_of 1430 "$TP/tpr0_nvtx_kern_sum.csv" "$TP/tpr1_nvtx_kern_sum.csv" >expect &&
	table "$S2/npr/kernels.tsv" kernel total_ns calls | sort >got &&
	test_cmp expect got
'

test_expect_success 'lp-procs: a GPU no process matches is n/a naming the report the run lacks; the kernels one process' '
	# the trace of GPU 1 lost (a trace exported from one device only)
	grep -v "NVIDIA H200 (1)" "$TP/tpm_cuda_gpu_trace_mangled.csv" >t0.csv &&
	lp-procs -D 1 -t t0.csv "$TP/tpm_nvtx_kern_sum.csv" >p.tsv &&
	table p.tsv pid device profiled >got &&
	printf "%s\n" "909	NVIDIA H200 (0)	n/a because which process ran on device 1 is not known" \
		"910	n/a because the run lacks the nvtx_gpu_proj_trace report and the process.s kernel durations (nvtx_kern_sum Min, Max) are those of no one GPU in cuda_gpu_trace	n/a because which process ran on device 1 is not known" >expect &&
	sed "s/process.s/process'"'"'s/" expect >e2 &&
	test_cmp e2 got &&
	test_grep "^# kernels: 910$" p.tsv &&
	test_grep "^# note: the kernel tables show process 910 alone, the lowest PID of those whose GPU is not known" p.tsv &&
	lp-procs -D 0 "$TP/tpm_nvtx_kern_sum.csv" >p.tsv &&
	table p.tsv device | sort -u >got &&
	echo "n/a because the run lacks the cuda_gpu_trace report" >expect &&
	test_cmp expect got &&
	test_grep "^# kernels: 909$" p.tsv
'

test_expect_success 'lp-procs: no process on the device named, the error lists their GPUs' '
	test_expect_code 1 lp-procs -D 3 -t "$TP/tpm_cuda_gpu_trace_mangled.csv" "$TP/tpm_nvtx_kern_sum.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-procs: 2 processes ran kernels and none is seen on device 3 (theirs: NVIDIA H200 (0), NVIDIA H200 (1); the run lacks nvtx_gpu_proj_trace: cuda_gpu_trace.s kernel durations give each process.s GPU): set ncu_cli.device to one of theirs, or -1 for every device$" err
'

test_expect_success 'no cuda_gpu_trace either: overlap omitted, the GPUs n/a naming it, the kernels one process' '
	lpmake RUN=nt "IMPORT=$(noproj tps | tr " " "\n" | grep -v _cuda_gpu_trace | tr "\n" " ")" MODEL=tp-mlp \
		SET=model.decode_tokens=8 stakeholder_summary.md >out 2>err &&
	test_grep "^# omit: " "$S2/nt/overlap.tsv" &&
	table "$S2/nt/ranks.tsv" device | sort -u >got &&
	echo "n/a because the run lacks the cuda_gpu_trace report" >expect &&
	test_cmp expect got &&
	test_grep "^# kernels: 1087$" "$S2/nt/procs.tsv" &&
	test_grep "^# process: 1087 only" "$S2/nt/kernels.tsv"
'

test_expect_success 'the GPU named by the trace: peaks found, one GPU name in the whole report' '
	test_grep "^# gpu: NVIDIA H200$" "$S2/ntps/gpu.tsv" &&
	test_grep "^# gpu_from: nsys cuda_gpu_trace" "$S2/ntps/gpu.tsv" &&
	table "$S2/ntps/environment.tsv" item value | grep "^GPU	" >got &&
	echo "GPU	NVIDIA H200" >expect &&
	test_cmp expect got &&
	! grep -q "| GPU | n/a" "$S2/ntps/details.md" &&
	! grep -q "GPU is unknown" "$S2/ntps/details.md" &&
	test_grep "^# note: 2 processes (one GPU each) share the model.s work: the peak is 2 GPUs" "$S2/ntps/mfu.tsv" &&
	# MFU of decode_step = model FLOPs / (mean wall x 2 x the H200 dense
	# fp16 peak of conf/gpus.yaml, 989.4 TFLOP/s), to the 4 digits lp prints
	table "$S2/ntps/mfu.tsv" stage model_flop wall_mean_ns mfu_pct | grep "^decode_step	" >row &&
	test_grep "^decode_step	[0-9]" row &&
	awk -F"\t" "{ m = 100 * \$2 / (\$3 * 1e-9 * 989.4e12 * 2); d = m - \$4; if (d < 0) d = -d
		if (d > 0.0005 * m) { print \"mfu \" \$4 \" != \" m; exit 1 } }" row
'

test_expect_success 'an ncu regions export names the GPU: the environment says the same GPU as the peaks' '
	# nsys exports and a regions export, no ncu kernel export: only the
	# regions export names the GPU
	lpmake RUN=reg "IMPORT=$(ls "$FIX"/h200-tinyllm-v2/tinyllm_*.csv | grep -v -e _ncu_raw -e _regions | tr "\n" " ") $FIX/h200-tinyllm-v2/tinyllm_d0_regions.csv" \
		MODEL=tinyllm gpu.tsv environment.tsv >out 2>err || { cat err; return 1; }
	g=$(sed -n "s/^# gpu: //p" "$S2/reg/gpu.tsv") && test -n "$g" &&
	table "$S2/reg/environment.tsv" item value | grep "^GPU	" >got &&
	printf "GPU\t%s\n" "$g" >expect &&
	test_cmp expect got
'

# a one-GPU PyTorch capture, nsys exports only: nothing names its GPU
TV=$(ls "$FIX"/h200-torch-v2/torch_*.csv | grep -v -e _ncu_raw -e _regions | tr "\n" " ")

test_expect_success 'peaks set by SET=gpu.* on an unknown GPU are not asked for again' '
	lpmake RUN=pk "IMPORT=$TV" MODEL=torch-decoder \
		"SET=gpu.tensor_tflops.fp16=989.4 gpu.hbm_tbps=4.8" gpu.tsv findings.tsv mfu.tsv >out 2>err &&
	test_grep "^# gpu: $" "$S2/pk/gpu.tsv" &&
	! grep -q "^# why:" "$S2/pk/gpu.tsv" &&
	! grep -q "set its dense peaks" "$S2/pk/findings.tsv" &&
	! grep -q "^# missing:" "$S2/pk/mfu.tsv" &&
	table "$S2/pk/gpu.tsv" path precision from >got &&
	printf "%s\n" "tensor	fp16	config (SET= or conf/runner/stage2.yaml)" "dram	-	config (SET= or conf/runner/stage2.yaml)" >expect &&
	test_cmp expect got
'

test_expect_success 'model keys missing: n/a because, never N = 0, L = 0' '
	lpmake RUN=nm "IMPORT=$TV" mfu.tsv mbu.tsv >out 2>err &&
	for t in mfu mbu; do
		! grep -q "N = 0\|L = 0" "$S2/nm/$t.tsv" &&
		test_grep "^# source: [a-z]* *[A-Za-z]*: n/a because the model config (.*) lacks model.params, model.layers" "$S2/nm/$t.tsv" || return 1
	done
'

test_done
