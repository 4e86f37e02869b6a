#!/usr/bin/env bash
# Decode as it ships (issue 26), from real H100 captures of
# tests/workloads/torch_decoder.py (tests/fixtures/h100-graphs, made by
# tests/gpu/explore15.sh): one CUDA graph per decode step traced whole by
# nsys's default (g0) and per node (g1), torch.compile with and without its
# CUDA graphs (c2, c1), the model in a spawned child process pushing its own
# ranges (s1) and beside a parent that pushes them (s2); and, from one later
# session (tests/gpu/t0008), the eager decode (e1) and the graphed one with
# the GPU busy over half the step (g2).  Each case failed
# on the code before issue 26: g0 said "no kernel rows" with no cause, g1
# advised CUDA graphs to a graphed decode and counted the per-step sync as
# host work, s2 died in lp-procs on nsys's empty nvtx_gpu_proj_trace.
. "$(dirname "$0")/lib.sh"

G=$FIX/h100-graphs
imp() {	# PREFIX: the capture's CSV exports (ncu's too, where there is one)
	echo "$G/$1"_*.csv
}
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
	"$ROOT/conf/model/torch-decoder.yaml" >"$TRASH/cfg.yaml"
hostside() {	# PREFIX
	lp-hostside -c "$TRASH/cfg.yaml" -a "$G/$1_cuda_api_trace.csv" -g "$G/$1_cuda_gpu_trace.csv" \
		-s "$G/$1_cuda_api_sum.csv" "$G/$1_nvtx_pushpop_trace.csv"
}

# The graph columns of a stage, recomputed by tests/graphs.awk
graphs() {	# RANGE LATFILE PREFIX
	awk -v range="$1" -v lat="$2" -f "$ROOT/tests/csv.awk" -f "$ROOT/tests/graphs.awk" \
		"$G/$3_nvtx_pushpop_trace.csv" "$G/$3_cuda_api_trace.csv" "$G/$3_cuda_gpu_trace.csv"
}

test_expect_success 'graphed decode (nodes traced): graph launches, their kernels and the time blocked, by awk' '
	hostside g1 >h.tsv &&
	for st in decode_step decode_all; do
		graphs ":LLM@$st" lat g1 >expect &&
		table h.tsv stage graph_launches graph_kernels graph_kernel_ns blocked_ns |
			awk -F"\t" -v s=$st "\$1 == s" | cut -f2- >got &&
		test_cmp expect got || return 1
	done &&
	sort -n lat | awk "{ v[++n] = \$1 } END { x = (n - 1) * 0.5; lo = int(x)
		printf \"%.1f\n\", lo + 1 < n ? v[lo + 1] + (x - lo) * (v[lo + 2] - v[lo + 1]) : v[lo + 1] }" >expect &&
	table h.tsv stage graph_lat_p50_ns | awk -F"\t" "\$1 == \"decode_all\" { print \$2 }" >got &&
	test_cmp expect got &&
	table h.tsv stage graph_kernel_pct launch_lat_p50_ns stage_check | grep "^decode_step	" >got &&
	grep -q "^decode_step	100.00	n/a because every launch call is a graph launch" got &&
	grep -q "	ok$" got
'

test_expect_success 'graphed decode: its kernel time is its graph replays'"'"' GPU time, by awk from cuda_gpu_trace' '
	lpmake RUN=g1 "IMPORT=$(imp g1)" MODEL=torch-decoder stakeholder_summary.md >out 2>err || { cat err; false; } &&
	graphs :LLM@decode_all /dev/null g1 | cut -f2,3 >expect &&
	table "$S2/g1/stages.tsv" stage launches kernel_ns | awk -F"\t" "\$1 == \"decode_all\"" | cut -f2- >got &&
	test_cmp expect got &&
	test "$(cut -f2 expect)" -gt 0
'

# The idle split (issue 37): each stretch of the step with no kernel on the
# GPU goes to what the host thread was doing then, recomputed by
# tests/idle.awk; the waterfall splits the step's idle time in those
# shares.  lp split it by the host's time per kind of call instead: g1's
# decode idle 0.174 ms "synchronisation and copies" and 0.194 ms "launch
# calls and framework work", where 81 % of it is inside cudaGraphLaunch.
idle_awk() {	# RANGE STEADY PREFIX
	awk -v range="$1" -v steady="$2" -f "$ROOT/tests/csv.awk" -f "$ROOT/tests/idle.awk" \
		"$G/$3_nvtx_pushpop_trace.csv" "$G/$3_cuda_gpu_trace.csv" "$G/$3_cuda_api_trace.csv"
}
IDLE="idle_ns idle_launch_ns idle_sync_ns idle_memcpy_ns idle_load_ns idle_other_ns idle_host_ns"
# wf_idle WATERFALL HOSTSIDE ROW COLUMN: the waterfall's four idle parts of
# a stage as the step less its kernel time, in the shares of hostside.tsv
wf_idle() {
	step=$(cell "$1" "Measured step" "$4") &&
	table "$2" stage kernel_per_inst_ns $IDLE | awk -F"\t" -v s="$step" -v r="$3" "\$1 == r {
		i = s - \$2; if (i < 0) i = 0
		printf \"%.1f\n%.1f\n%.1f\n%.1f\n\", i * \$4 / \$3, i * (\$5 + \$6) / \$3, i * \$7 / \$3, i * (\$8 + \$9) / \$3 }"
}
cell() {	# FILE PART COLUMN: a waterfall.tsv cell
	awk -F"\t" -v p="$2" -v c="$3" '/^#/ { next } !h { for (i = 1; i <= NF; i++) ix[$i] = i; h = 1; next }
		$1 == p { print $ix[c] }' "$1"
}
PARTS=("GPU idle: launch calls" "GPU idle: synchronisation and copies" "GPU idle: module loading"
	"GPU idle: the host's own work (and other CUDA calls)")

test_expect_success 'graphed decode: the GPU idle split by what the host did then (awk); the waterfall in its shares' '
	for row in "decode_step:steady :LLM@decode_step 1" "decode_all :LLM@decode_all 0" "prefill :LLM@prefill 0"; do
		set -- $row &&
		idle_awk $2 $3 g1 >expect &&
		table "$S2/g1/hostside.tsv" stage $IDLE | awk -F"\t" -v s=$1 "\$1 == s" | cut -f2- >got &&
		test_cmp expect got || return 1
	done &&
	# 81 % of the steady decode idle time is inside the graph launch calls
	table "$S2/g1/hostside.tsv" stage idle_ns idle_launch_ns | grep "^decode_step:steady	" >pct &&
	awk -F"\t" "{ exit !(\$3 / \$2 > 0.8) }" pct &&
	W=$S2/g1/waterfall.tsv H=$S2/g1/hostside.tsv &&
	wf_idle "$W" "$H" decode_step:steady decode_step_ns >expect &&
	for p in "${PARTS[@]}"; do cell "$W" "$p" decode_step_ns; done >got &&
	test_cmp expect got &&
	wf_idle "$W" "$H" prefill prefill_ns >expect &&
	for p in "${PARTS[@]}"; do cell "$W" "$p" prefill_ns; done >got &&
	test_cmp expect got &&
	printf "299079.6\n43493.1\n0.0\n24555.2\n" >expect &&
	for p in "${PARTS[@]}"; do cell "$W" "$p" decode_step_ns; done >got &&
	test_cmp expect got
'

# Hand-made: stands for a graphed decode step (the g1 capture's shape, in
# round numbers): cudaGraphLaunch from 10 to 310 us of a 1 ms step, the
# graph's two kernels at 300-600 and 605-905 us, the token copied to the
# host asynchronously (on the GPU at 906 us) and waited for by a
# cudaStreamSynchronize from 335 to 910 us.  The GPU idles 400 us a step:
# 290 inside the graph launch call, 10 inside the sync (between the
# kernels, after them), 100 outside the API.  lp said 166 us "launch calls
# and framework work" and 234 us "synchronisation and copies" (the host's
# time: 58.5 % in the sync).
test_expect_success 'a graphed decode whose GPU idles inside the graph launch calls: its idle in "launch calls"' '
	awk "BEGIN {
		print \"Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree\" > \"pp.csv\"
		print \"Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\" > \"api.csv\"
		print \"Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\" > \"gpu.csv\"
		k = \",1,1,1,128,1,1,32,0.000,0.000,,,,,NVIDIA H100 80GB HBM3 (0),1,,7,k\"
		c = \",,,,,,,,,,0.000,1.000,Device,Pinned,NVIDIA H100 80GB HBM3 (0),1,,7,[CUDA memcpy Device-to-Host]\"
		for (i = 0; i < 3; i++) {
			S = 1000000 + i * 2000000; u = 1000; id = 10 * i
			printf \"%d,%d,%d,0,%d,:LLM@decode_step,100,100,0,0,%d,,:%d,:LLM@decode_step\n\", S, S + 1000 * u, 1000 * u, 1000 * u, i + 1, i + 1 > \"pp.csv\"
			printf \"%d,%d,cudaGraphLaunch_v10000,0,%d,100,100,20,python3\n\", S + 10 * u, 300 * u, id + 1 > \"api.csv\"
			printf \"%d,%d,cudaMemcpyAsync,0,%d,100,100,20,python3\n\", S + 320 * u, 10 * u, id + 2 > \"api.csv\"
			printf \"%d,%d,cudaStreamSynchronize,0,%d,100,100,20,python3\n\", S + 335 * u, 575 * u, id + 3 > \"api.csv\"
			printf \"%d,%d,%d%s\n\", S + 300 * u, 300 * u, id + 1, k > \"gpu.csv\"
			printf \"%d,%d,%d%s\n\", S + 605 * u, 300 * u, id + 1, k > \"gpu.csv\"
			printf \"%d,%d,%d%s\n\", S + 906 * u, 2 * u, id + 2, c > \"gpu.csv\"
		} }" &&
	lp-hostside -c "$TRASH/cfg.yaml" -a api.csv -g gpu.csv pp.csv >h.tsv &&
	table h.tsv stage $IDLE blocked_ns | grep "^decode_step:steady	" >got &&
	printf "decode_step:steady\t800000\t580000\t20000\t0\t0\t0\t200000\t1146000\n" >expect &&
	test_cmp expect got &&
	awk -v range=:LLM@decode_step -v steady=1 -f "$ROOT/tests/csv.awk" -f "$ROOT/tests/idle.awk" pp.csv gpu.csv api.csv >expect &&
	table h.tsv stage $IDLE | grep "^decode_step:steady	" | cut -f2- >got &&
	test_cmp expect got &&
	# the waterfall of that step: the model, GPU and floor of the g1 run
	lp-steps -c "$TRASH/cfg.yaml" -i "$S2/g1/inputs.yaml" pp.csv >steps.tsv &&
	{ echo "# tool: lp-stages"
	  printf "stage\trange\tinstances\twall_total_ns\twall_mean_ns\tkernel_ns\n"
	  printf "decode_step\t:LLM@decode_step\t3\t3000000\t1000000\t1800000\n"; } >stages.tsv &&
	lp-waterfall -g "$S2/g1/gpu.tsv" -i "$S2/g1/inputs.yaml" -s stages.tsv -t steps.tsv -H h.tsv >w.tsv &&
	for p in "${PARTS[@]}"; do cell w.tsv "$p" decode_step_ns; done >got &&
	printf "290000.0\n10000.0\n0.0\n100000.0\n" >expect &&
	test_cmp expect got
'

test_expect_success 'graphed decode: no CUDA-graph advice; what bounds it, named; the sync is not host work' '
	table "$S2/g1/findings.tsv" rule finding next_step >f &&
	test_grep "^graph-bound	decode_step runs 100% of its kernel time from CUDA graphs" f &&
	grep "graph-bound" f >gb && grep -q "in the graph launch calls" gb &&
	! grep -E "^(launch-bound|graph-bound)	decode" f | grep "Capture the stage in a CUDA graph" &&
	! grep -q "hide launch gaps with CUDA graphs" f &&
	! grep -q "^host-sync	decode" f &&
	test_grep "its stage runs from CUDA graphs already" f &&
	test_grep "^# range: :LLM@decode_all$" "$S2/g1/top_kernels.tsv"
'

test_expect_success 'graphed decode: the decode savings add up to no more than its idle time' '
	table "$S2/g1/findings.tsv" rule saving_ns finding | awk -F"\t" "\$3 ~ /^decode_step|^decode_all/ { s += \$2 } END { print s + 0 }" >save &&
	table "$S2/g1/stages.tsv" stage wall_total_ns kernel_ns | awk -F"\t" "\$1 == \"decode_all\" { print \$2 - \$3 }" >idle &&
	awk -v s="$(cat save)" -v i="$(cat idle)" "BEGIN { exit !(s > 0 && s <= i) }"
'

test_expect_success 'graphed decode with the GPU busy half its time (g2): still said, bound by its kernels' '
	lpmake RUN=g2 "IMPORT=$(imp g2)" MODEL=torch-decoder stakeholder_summary.md >out 2>err || { cat err; false; } &&
	table "$S2/g2/stages.tsv" stage busy_pct | grep "^decode_step	" >busy &&
	awk -F"\t" "{ exit !(\$2 >= 50) }" busy &&
	table "$S2/g2/findings.tsv" rule finding next_step >f &&
	test_grep "^graph-bound	decode_step runs 100% of its kernel time from CUDA graphs and keeps the GPU busy 52.3% of its wall time: its kernels bound it" f &&
	! grep -E "^[a-z-]+	decode" f | grep "Capture the stage in a CUDA graph" &&
	! grep -q "hide launch gaps with CUDA graphs" f
'

test_expect_success 'graphed against eager (one H100 session): the step faster, on the host, same kernels' '
	lpmake RUN=e1 "IMPORT=$(imp e1)" MODEL=torch-decoder stakeholder_summary.md >out 2>err || { cat err; false; } &&
	lpmake RUN=g2 BASE=e1 compare.md >out 2>err || { cat err; false; } &&
	grep "^decode_step	steady state" "$S2/g2/compare_stages.tsv" >row &&
	awk -F"\t" "{ exit !(\$6 < 0.3) }" row && cut -f7 row >sig && grep -q "^yes" sig &&
	test_grep "decode_step steady state 2.421 ms -> 531.51 us, 4.56x faster, significant" "$S2/g2/compare.md" &&
	test_grep "the speed-up is on the host" "$S2/g2/compare.md" &&
	test_grep "No kernel vanished or appeared" "$S2/g2/compare.md"
'

test_expect_success 'graphs traced whole (nsys default): refused with the cause and the fix; the stage tables still made' '
	test_must_fail lpmake RUN=g0 "IMPORT=$(imp g0)" MODEL=torch-decoder stakeholder_summary.md >out 2>err &&
	test_grep "decode_all made 32 CUDA graph launches (cudaGraphLaunch in .*cuda_api_trace.csv) and nsys traced none of their kernels" err &&
	test_grep "Profile again with --cuda-graph-trace=node (lp.s default: SET=nsys_cli.cuda_graph_trace=node)" err &&
	! grep -q "no kernel rows" err &&
	lpmake RUN=g0 stages.tsv hostside.tsv >/dev/null &&
	table "$S2/g0/hostside.tsv" stage graph_launches graph_kernels stage_check |
		grep "^decode_all	" >got &&
	printf "decode_all\t32\t0\tgraphs traced whole\n" >expect &&
	test_cmp expect got &&
	table "$S2/g0/stages.tsv" stage instances >inst && grep -q "^decode_step	32$" inst &&
	test ! -e "$S2/g0/kernels.tsv" && test ! -e "$S2/g0/details.md"
'

test_expect_success 'graphs traced whole, the summaries alone: "no kernel rows" says what the capture launched' '
	test_must_fail lpmake RUN=g0s "IMPORT=$G/g0_cuda_gpu_kern_sum.csv $G/g0_cuda_gpu_kern_sum_mangled.csv $G/g0_nvtx_sum.csv $G/g0_nvtx_kern_sum.csv $G/g0_nvtx_kern_sum_mangled.csv $G/g0_cuda_api_sum.csv" \
		MODEL=torch-decoder stakeholder_summary.md >out 2>err &&
	test_grep "no kernel rows in range \":LLM@decode_all\" (ranges: .*): the run has no nvtx_pushpop_trace report; the capture made 32 CUDA graph launches (cuda_api_sum): whether nsys traced their kernels (--cuda-graph-trace=node) is not known" err
'

test_expect_success 'the model in a child process that pushes its ranges: found and named' '
	lpmake RUN=s1 "IMPORT=$(imp s1)" MODEL=torch-decoder stakeholder_summary.md >out 2>err || { cat err; false; } &&
	table "$S2/s1/hostside.tsv" stage process stage_check | grep "^decode_all	" >got &&
	printf "decode_all\t5037 (thread 5037)\tok\n" >expect &&
	test_cmp expect got &&
	grep "^| decode_all |" "$S2/s1/details.md" >md && grep -q "| 5037 (thread 5037) |" md
'

test_expect_success 'ranges pushed by the parent, kernels run by the child: refused naming both processes' '
	test_must_fail lpmake RUN=s2 "IMPORT=$(imp s2)" MODEL=torch-decoder stakeholder_summary.md >out 2>err &&
	test_grep "process 5652 pushed decode_all.s range (:LLM@decode_all) and launched no kernel inside it, while process 5685 made 2720 launch calls during its instances" err &&
	test_grep "Push the stage.s ranges in the process that launches the kernels" err &&
	test_grep "s2_nvtx_gpu_proj_trace.csv: an empty file (not read: nsys stats writes one for a report without rows)" "$S2/s2/import.mk" &&
	lpmake RUN=s2 procs.tsv hostside.tsv >/dev/null &&
	lp-procs -D 0 -g "$G/s2_nvtx_gpu_proj_trace.csv" -t "$G/s2_cuda_gpu_trace.csv" "$G/s2_nvtx_kern_sum.csv" >p.tsv &&
	test_grep "nvtx_gpu_proj_trace is empty: no NVTX range had GPU work" p.tsv &&
	table "$S2/s2/hostside.tsv" stage stage_check >check && grep -q "^decode_step	kernels in another process$" check
'

# Live, the same capture (the stand-in nsys gives s2's reports): nsys
# stats says "does not contain NV Tools Extension (NVTX) data" of the
# empty projection, which is not a capture without NVTX (it was refused
# so, with the advice for a forked worker, on an H200); the stage is
# refused in lp-hostside's words before lp-audit's own.
test_expect_success 'live, ranges in the parent: an empty projection is not "no NVTX"; refused naming both processes' '
	PATH=$ROOT/tests/fake:$PATH LP_FAKE_NSYS=$G/s2 test_must_fail lpmake RUN=s2live \
		"WORK=sh tests/fake/workload.sh --tokens 4" MODEL=torch-decoder stakeholder_summary.md >out 2>err &&
	! test_grep "holds no NV Tools Extension" err >/dev/null &&
	test_grep "process 5652 pushed decode_all.s range (:LLM@decode_all) and launched no kernel inside it, while process 5685 made 2720 launch calls" err &&
	test -s "$S2/s2live/nsys/report_nvtx_sum.csv" && ! test -s "$S2/s2live/nsys/report_nvtx_gpu_proj_trace.csv" &&
	# a pack names its CSV where it stays, not the scratch folder of nsys stats
	grep -qaF "$S2/s2live/nsys/report_cuda_api_trace.csv" "$S2/s2live/nsys/report_cuda_api_trace.lpt" &&
	! grep -la "stats\.tmp" "$S2"/s2live/nsys/*.lpt "$S2"/s2live/*.tsv
'

test_expect_success 'torch.compile with its CUDA graphs (reduce-overhead): graph share, graph-bound; without them: none' '
	lpmake RUN=c2 "IMPORT=$(imp c2)" MODEL=torch-decoder stakeholder_summary.md >out 2>err || { cat err; false; } &&
	graphs :LLM@decode_step /dev/null c2 | cut -f1-3 >expect &&
	table "$S2/c2/hostside.tsv" stage graph_launches graph_kernels graph_kernel_ns | grep "^decode_step	" | cut -f2- >got &&
	test_cmp expect got &&
	table "$S2/c2/hostside.tsv" stage graph_kernel_pct >pct && grep -q "^decode_step	94.66$" pct &&
	table "$S2/c2/findings.tsv" rule finding >f && grep -q "^graph-bound	decode_step runs 94.7% of its kernel time from CUDA graphs" f &&
	lpmake RUN=c1 "IMPORT=$(imp c1)" MODEL=torch-decoder stakeholder_summary.md >out 2>err || { cat err; false; } &&
	table "$S2/c1/hostside.tsv" stage graph_launches graph_kernel_pct >pct && grep -q "^decode_step	0	0.00$" pct &&
	table "$S2/c1/top_kernels.tsv" kernel >top && grep -q "^triton_" top
'

test_expect_success 'the API trace of a compile worker beside the model: kernels still matched' '
	awk -F, "NR > 1 { p[\$6]++ } END { for (x in p) n++; print n }" "$G/c2_cuda_api_trace.csv" >n &&
	echo 2 >two && test_cmp two n &&
	table "$S2/c2/hostside.tsv" stage kernel_ns | grep "^decode_all	" >all && grep -qv "n/a" all
'

test_expect_success 'graphed decode with op ranges, imported with lp-graphnodes'"'"' trace: decode ops with shapes, coverage said' '
	lp-graphnodes "$G/a2_report.sqlite" >nodes.csv &&
	test_cmp "$G/a2_graph_node_trace.csv" nodes.csv &&
	lpmake RUN=a2 "IMPORT=$(imp a2)" MODEL=torch-decoder stakeholder_summary.md >out 2>err || { cat err; false; } &&
	test_grep "a2_graph_node_trace.csv: lp-graphnodes graph_node_trace" "$S2/a2/import.mk" &&
	test_grep "^# coverage: decode_all: 100.0 % of its kernel time (132 kernels, of which 132 from CUDA graphs) in ops with input shapes$" "$S2/a2/aten_ops.tsv" &&
	test_grep "^Coverage of decode_all: 100.0 % of its kernel time" "$S2/a2/details.md" &&
	table "$S2/a2/aten_ops.tsv" stage op | grep "^decode_all	" >ops &&
	! grep -q "(outside any op)" ops && grep -q "aten::addmm" ops
'

test_expect_success 'make -q is true after each run; one removal redoes only what follows it' '
	lpmake -q RUN=g1 stakeholder_summary.md &&
	rm "$S2/g1/hostside.tsv" &&
	lpmake RUN=g1 stakeholder_summary.md >out 2>&1 &&
	grep -o "bin/\(san/\)\{0,1\}lp-[a-z]*" out | sed "s,.*/,," | sort -u >tools &&
	test_grep "^lp-hostside$" tools &&
	for t in lp-stages lp-steps lp-procs lp-gpu lp-mfu lp-mbu lp-envtab lp-ranks lp-overlap lp-import; do
		! grep -qx "$t" tools || { echo "$t ran again"; return 1; }
	done &&
	lpmake -q RUN=g1 stakeholder_summary.md
'

test_done
