#!/usr/bin/env bash
# hostside.tsv (lp-hostside): where the host time of each stage goes, from
# real H100 captures (tests/fixtures/h100-hostside: a TinyLlama-shaped bf16
# Llama decode whose prefill and first decode step load CUDA modules, and
# GPT-2 after a warm-up), every number recomputed here with awk from the
# nsys exports alone; the import and the make rule; and the findings that
# pick their advice from it.
. "$(dirname "$0")/lib.sh"

HS=$FIX/h100-hostside
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
	"$ROOT/conf/model/torch-decoder.yaml" >"$TRASH/cfg.yaml"

# One row recomputed from the three exports: the range's instances (the
# first of each process left out for :steady), the API calls of their
# thread starting inside them, by kind, and the kernels of the launch
# calls by correlation ID; the launch-to-start latencies go to file lat.
# The columns before the quoted kernel name are read by splitting on ",".
recompute='
FNR == 1 { file++; n = csv($0, f); delete h; col(f, n, h); next }
file == 1 { csv($0, f)
	if (f[h["Name"]] != range) next
	k = ++ni; s[k] = f[h["Start (ns)"]] + 0; e[k] = f[h["End (ns)"]] + 0
	p[k] = f[h["PID"]]; t[k] = f[h["TID"]]
	if (!(p[k] in first) || s[k] < s[first[p[k]]]) first[p[k]] = k
	next }
file == 2 { split($0, f, ",")
	st = f[h["Start (ns)"]] + 0; d = f[h["Duration (ns)"]] + 0; nm = f[h["Name"]]
	for (k = 1; k <= ni; k++) {
		if (steady && first[p[k]] == k) continue
		if (f[h["Pid"]] == p[k] && f[h["Tid"]] == t[k] && st >= s[k] && st < e[k]) break
	}
	if (k > ni) next
	b = nm; sub(/_v[0-9]+$/, "", b)
	if (b ~ /^(cudaLaunch|cuLaunch|cudaGraphLaunch|cuGraphLaunch)/) { kind = "launch"; launches++; ls[f[h["CorrID"]]] = st }
	else if (b ~ /Synchronize/) kind = "sync"
	else if (b ~ /^(cudaMemcpy|cuMemcpy|cudaMemset|cuMemset)/) kind = "memcpy"
	else if (b ~ /^(cuModuleLoad|cuLibraryLoad|cudaLibraryLoad|cuLinkCreate|cuLinkAdd|cuLinkComplete|cuModuleGetFunction|cuLibraryGetKernel|cuLibraryGetModule|cuKernelGetFunction)/) kind = "load"
	else kind = "other"
	api[kind] += d; apit += d
	next }
file == 3 { split($0, f, ",")
	c = f[h["CorrId"]]
	if (!(c in ls) || $0 ~ /\[CUDA mem/) next
	st = f[h["Start (ns)"]] + 0
	kern += f[h["Duration (ns)"]]
	if (!(c in ks) || st < ks[c]) ks[c] = st
	next }
END {
	for (k = 1; k <= ni; k++) if (!(steady && first[p[k]] == k)) { inst++; wall += e[k] - s[k] }
	for (c in ks) print ks[c] - ls[c] > lat
	close(lat)
	printf "%d\t%.0f\t%.0f\t%.2f", inst, wall, apit, 100 * apit / wall
	printf "\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f", api["launch"], api["sync"], api["memcpy"], api["load"], api["other"]
	printf "\t%.0f\t%.0f\t%.0f\t%d", wall - apit, kern, kern / inst, launches
}'
# p50 and p90 of sorted numbers, linear between order statistics
quantiles='{ v[++n] = $1 }
function q(p,    x, lo) { x = (n - 1) * p; lo = int(x)
	return lo + 1 < n ? v[lo + 1] + (x - lo) * (v[lo + 2] - v[lo + 1]) : v[lo + 1] }
END { printf "\t%.1f\t%.1f\n", q(0.5), q(0.9) }'
COLS="instances wall_ns api_ns api_pct api_launch_ns api_sync_ns api_memcpy_ns api_load_ns
	api_other_ns host_other_ns kernel_ns kernel_per_inst_ns launches launch_lat_p50_ns launch_lat_p90_ns"

# expect PREFIX RANGE STEADY: the recomputed row
expect_row() {
	A -v range="$2" -v steady="$3" -v lat=lat "$recompute" "$HS/$1_nvtx_pushpop_trace.csv" \
		"$HS/$1_cuda_api_trace.csv" "$HS/$1_cuda_gpu_trace.csv" &&
	sort -n lat | awk "$quantiles"
}

test_expect_success 'Llama: decode_step:steady, decode_step and prefill, recomputed from the exports by awk' '
	lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/llama_cuda_api_trace.csv" -g "$HS/llama_cuda_gpu_trace.csv" \
		"$HS/llama_nvtx_pushpop_trace.csv" >h.tsv &&
	for row in "decode_step:steady :LLM@decode_step 1" "decode_step :LLM@decode_step 0" "prefill :LLM@prefill 0"; do
		set -- $row &&
		expect_row llama $2 $3 >expect &&
		test -s expect &&
		table h.tsv stage $COLS | awk -F"\t" -v s=$1 "\$1 == s" | cut -f2- >got &&
		test_cmp expect got || return 1
	done &&
	table h.tsv stage api_pct launch_lat_p50_ns | grep "^decode_step:steady	" >got &&
	awk -F"\t" "{ exit !(\$2 > 5 && \$2 < 20 && \$3 > 5000 && \$3 < 15000) }" got
'

test_expect_success 'GPT-2: decode_step:steady and decode_all recomputed by awk' '
	lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/gpt2_cuda_api_trace.csv" -g "$HS/gpt2_cuda_gpu_trace.csv" \
		"$HS/gpt2_nvtx_pushpop_trace.csv" >h.tsv &&
	for row in "decode_step:steady :LLM@decode_step 1" "decode_all :LLM@decode_all 0"; do
		set -- $row &&
		expect_row gpt2 $2 $3 >expect &&
		test -s expect &&
		table h.tsv stage $COLS | awk -F"\t" -v s=$1 "\$1 == s" | cut -f2- >got &&
		test_cmp expect got || return 1
	done
'

test_expect_success 'the copies to the host are named: calls and Device-to-Host copies, by awk' '
	lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/llama_cuda_api_trace.csv" -g "$HS/llama_cuda_gpu_trace.csv" \
		"$HS/llama_nvtx_pushpop_trace.csv" >h.tsv &&
	A "FNR == 1 { file++; n = csv(\$0, f); delete h; col(f, n, h); next }
	   file == 1 { csv(\$0, f); if (f[h[\"Name\"]] == \":LLM@decode_step\") { s[++ni] = f[h[\"Start (ns)\"]] + 0; e[ni] = f[h[\"End (ns)\"]] + 0 } next }
	   file == 2 { split(\$0, f, \",\"); if (f[h[\"Name\"]] != \"cudaMemcpyAsync\") next
		for (k = 1; k <= ni; k++) if (f[1] + 0 >= s[k] && f[1] + 0 < e[k]) { n1++; c[f[h[\"CorrID\"]]] = 1 }
		next }
	   file == 3 && \$0 ~ /Device-to-Host/ { split(\$0, f, \",\"); d += f[h[\"CorrId\"]] in c }
	   END { printf \"cudaMemcpyAsync x%d, %d to the host\n\", n1, d }" \
		"$HS/llama_nvtx_pushpop_trace.csv" "$HS/llama_cuda_api_trace.csv" "$HS/llama_cuda_gpu_trace.csv" >expect &&
	table h.tsv stage sync_calls | awk -F"\t" "\$1 == \"decode_step\" { print \$2 }" | sed "s/ (.*//" >got &&
	test_cmp expect got
'

# blocked_awk RANGE PUSHPOP API GPU: blocked_ns recomputed by tests/graphs.awk
blocked_awk() {
	awk -v range="$1" -v lat=/dev/null -f "$ROOT/tests/csv.awk" -f "$ROOT/tests/graphs.awk" "$2" "$3" "$4" |
		cut -f4
}
# blocked_ns recomputed by tests/graphs.awk (its fourth column): GPT-2
# and Llama read each step's token to the host (cudaMemcpyAsync
# Device-to-Host, then cudaStreamSynchronize) after the step's kernels
# ended; the copies counted their wait for their own start on the GPU,
# with the GPU idle, as blocked (GPT-2 decode_all 397,867 ns, Llama
# 217,411; now 3,190 and 8,873: the syncs' wait for the copies).
test_expect_success 'blocked on the GPU: GPT-2 and Llama, decode and prefill, recomputed by awk' '
	for p in gpt2 llama; do
		lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/${p}_cuda_api_trace.csv" -g "$HS/${p}_cuda_gpu_trace.csv" \
			"$HS/${p}_nvtx_pushpop_trace.csv" >h.tsv &&
		for st in decode_all decode_step prefill; do
			blocked_awk ":LLM@$st" "$HS/${p}_nvtx_pushpop_trace.csv" \
				"$HS/${p}_cuda_api_trace.csv" "$HS/${p}_cuda_gpu_trace.csv" >expect &&
			table h.tsv stage blocked_ns | awk -F"\t" -v s=$st "\$1 == s { print \$2 }" >got &&
			test_cmp expect got || return 1
		done
	done &&
	table h.tsv stage blocked_ns >got &&
	grep -q "^decode_all	8873$" got && grep -q "^prefill	0$" got
'

# Hand-made: stands for a step that reads its result to the host (.item(),
# .cpu()): a copy whose call starts after the GPU finished its kernels and
# waits for its own operation (the prefill: 0, where lp counted 30 us), a
# synchronous copy behind a running kernel (40 us of its 45), and a sync
# after an asynchronous copy, which waits for the copy too (14.5 us).
test_expect_success 'a copy to the host that waits on an idle GPU is not blocked; one behind a kernel is, until it ends' '
	pp="Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree" &&
	printf "%s\n" "$pp" "1000,100000,99000,0,99000,:LLM@prefill,100,100,0,0,1,,:1,:LLM@prefill" \
		"200000,300000,100000,0,100000,:LLM@decode_step,100,100,0,0,2,,:2,:LLM@decode_step" >pp.csv &&
	printf "%s\n" "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name" \
		"2000,5000,cudaLaunchKernel,0,1,100,100,20,python3" \
		"30000,40000,cudaMemcpyAsync,0,2,100,100,20,python3" \
		"201000,4000,cudaLaunchKernel,0,3,100,100,20,python3" \
		"210000,45000,cudaMemcpyAsync,0,4,100,100,20,python3" \
		"260000,3000,cudaLaunchKernel,0,6,100,100,20,python3" \
		"264000,2000,cudaMemcpyAsync,0,7,100,100,20,python3" \
		"267000,15000,cudaStreamSynchronize,0,8,100,100,20,python3" >api.csv &&
	g="Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name" &&
	k=",1,1,1,128,1,1,32,0.000,0.000,,,,,NVIDIA H100 80GB HBM3 (0),1,,7,k" &&
	c=",,,,,,,,,,0.000,1.000,Device,Pageable,NVIDIA H100 80GB HBM3 (0),1,,7,[CUDA memcpy Device-to-Host]" &&
	printf "%s\n" "$g" "8000,12000,1$k" "60000,2000,2$c" "206000,44000,3$k" "251000,1000,4$c" \
		"265000,15000,6$k" "280500,1000,7$c" >gpu.csv &&
	lp-hostside -c "$TRASH/cfg.yaml" -a api.csv -g gpu.csv pp.csv >h.tsv &&
	table h.tsv stage blocked_ns | grep "^prefill	\|^decode_step	" >got &&
	printf "prefill\t0\ndecode_step\t54500\n" >expect &&
	test_cmp expect got &&
	for st in prefill decode_step; do
		blocked_awk ":LLM@$st" pp.csv api.csv gpu.csv
	done >awk.out &&
	printf "0\n54500\n" >expect && test_cmp expect awk.out
'

test_expect_success 'lp-import: cuda_api_trace is a report lp reads (LP_IMP_cuda_api_trace)' '
	lp-import "$HS"/llama_*.csv >imp.mk &&
	test_grep -x "LP_IMP_cuda_api_trace := $HS/llama_cuda_api_trace.csv" imp.mk &&
	test_grep -x "# $HS/llama_cuda_api_trace.csv: nsys cuda_api_trace, process 855" imp.mk &&
	test_grep -x "LP_IMP_OTHER :=" imp.mk
'

test_expect_success 'make: an import with the API trace gives hostside.tsv, the summary renders it' '
	lpmake RUN=ll "IMPORT=$(echo "$HS"/llama_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null &&
	lp-hostside -c "$S2/ll/nsys/config.yaml" -a "$HS/llama_cuda_api_trace.csv" \
		-g "$HS/llama_cuda_gpu_trace.csv" "$HS/llama_nvtx_pushpop_trace.csv" | grep -v "^# source" >expect &&
	grep -v "^# source" "$S2/ll/hostside.tsv" >got &&
	test_cmp expect got &&
	test_grep "^## Host Side of Each Stage" "$S2/ll/details.md" &&
	test_grep "^| decode_step:steady | 15 | " "$S2/ll/details.md"
'

test_expect_success 'no cuda_api_trace (the demo'"'"'s exports): n/a because the run has none' '
	lpmake RUN=v2 "IMPORT=$(echo "$FIX"/h200-torch-v2/torch_*.csv)" MODEL=torch-decoder hostside.tsv >/dev/null &&
	table "$S2/v2/hostside.tsv" stage api_ns kernel_ns | grep "^decode_step:steady	" >got &&
	test_grep "n/a because the run has no cuda_api_trace report" got &&
	! grep "	0	" got
'

# A two-process capture stands for itself here: the Llama trace with the
# Pid of its calls outside the ranges changed (nsys writes one Pid per
# process; the GPU trace has none).
test_expect_success 'several processes in the API trace: kernel columns n/a, not a guess' '
	awk -F, -v OFS=, "NR > 1 && NR < 2000 { \$6 = 999 } { print }" "$HS/llama_cuda_api_trace.csv" >api.csv &&
	lp-hostside -c "$TRASH/cfg.yaml" -a api.csv -g "$HS/llama_cuda_gpu_trace.csv" \
		"$HS/llama_nvtx_pushpop_trace.csv" >h.tsv &&
	table h.tsv stage kernel_ns launch_lat_p50_ns | grep "^decode_step:steady	" >got &&
	test_grep "n/a because the API trace holds several processes" got
'

test_expect_success 'traces of two captures are refused, naming file and line' '
	test_expect_code 1 lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/gpt2_cuda_api_trace.csv" \
		-g "$HS/gpt2_cuda_gpu_trace.csv" "$HS/llama_nvtx_pushpop_trace.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "lp-hostside: $HS/gpt2_cuda_api_trace.csv: no CUDA API call of process 855" err &&
	test_expect_code 1 lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/llama_cuda_api_trace.csv" \
		-g "$HS/gpt2_cuda_gpu_trace.csv" "$HS/llama_nvtx_pushpop_trace.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "lp-hostside: $HS/gpt2_cuda_gpu_trace.csv:[0-9]*:[0-9]*: .*not the API trace of this capture" err
'

test_expect_success 'a range nested in itself on one thread is refused; a full disk fails' '
	{ head -4 "$HS/llama_nvtx_pushpop_trace.csv"
	  sed -n 4p "$HS/llama_nvtx_pushpop_trace.csv" |
		awk -F, -v OFS=, "{ \$1 = sprintf(\"%.0f\", \$1 + 1000); \$2 = sprintf(\"%.0f\", \$2 - 1000);
			\$3 = sprintf(\"%.0f\", \$3 - 2000); \$5 = sprintf(\"%.0f\", \$5 - 2000); print }"
	} >pp.csv &&
	test_expect_code 1 lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/llama_cuda_api_trace.csv" pp.csv >out 2>err &&
	test_grep "pp.csv:5: an instance of :LLM@decode_step nests in another" err &&
	test_must_fail lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/llama_cuda_api_trace.csv" \
		"$HS/llama_nvtx_pushpop_trace.csv" >/dev/full
'

# The findings of the Llama import above (make RUN=ll): each rule's advice
# from hostside.tsv, each saving recomputed.
rows() { sed "/^#/d" "$1" | sed 1d; }
# findings RUN: lp-findings (from $LP_BIN) over the run's tables, as rules.mk runs it
findings() {
	(cd "$S2/$1" && lp-findings stages.tsv steps.tsv hostside.tsv mfu.tsv mbu.tsv roofline.tsv \
		top_kernels.tsv gpu.tsv ranks.tsv overlap.tsv)
}
test_expect_success 'findings: the prefill'"'"'s module loading, its saving the loading time (awk)' '
	findings ll >F && F=F &&
	expect_row llama :LLM@prefill 0 | cut -f8 >expect &&
	table "$F" rule saving_ns | awk -F"\t" "\$1 == \"module-loading\" { print \$2 }" >got &&
	test_cmp expect got &&
	table "$F" rule finding next_step | grep "^module-loading	" >got &&
	test_grep "prefill spends [0-9.]* ms of its [0-9.]* ms loading CUDA modules" got &&
	test_grep "CUDA_MODULE_LOADING=EAGER" got
'

test_expect_success 'findings: the first decode step'"'"'s warm-up names its module loading' '
	findings ll >F && F=F &&
	table "$S2/ll/steps.tsv" stage first_ns steady_ns |
		awk -F"\t" "\$1 == \"decode_step\" { printf \"%.0f\n\", \$2 - \$3 }" >expect &&
	table "$F" rule saving_ns | awk -F"\t" "\$1 == \"warm-up\" { print \$2 }" >got &&
	test_cmp expect got &&
	table "$F" rule finding | grep "^warm-up	" >got &&
	test_grep "The first decode_step took [0-9.]*x the steady state; [0-9.]* ms of it loading CUDA modules" got
'

test_expect_success 'findings: decode names the host outside the CUDA API, with CUDA graphs / torch.compile' '
	findings ll >F && F=F &&
	table "$F" rule finding next_step | grep "^launch-bound	decode_step " >got &&
	test_grep "the host is outside the CUDA API 89.8% of the steady state" got &&
	test_grep "kernels start 8.1 us after their launch call (median)" got &&
	test_grep "torch.compile(mode=\"reduce-overhead\")" got &&
	test_grep "CUDA graph" got &&
	table "$S2/ll/hostside.tsv" stage host_other_pct launch_lat_p50_ns | grep "^decode_step:steady	" >hs &&
	awk -F"\t" "{ exit !(\$2 == 89.78 && \$3 == 8100.0) }" hs
'

test_expect_success 'findings: a stage'"'"'s savings do not add up beyond its idle GPU time' '
	findings ll >F && F=F &&
	table "$S2/ll/stages.tsv" stage wall_total_ns kernel_ns >st &&
	table "$F" rule saving_ns finding >fi &&
	for stage in prefill decode_step; do
		awk -F"\t" -v s=$stage "NR == FNR { if (\$1 == s) idle = \$2 - \$3; next }
			\$1 ~ /^(launch-bound|cold-call|module-loading|host-sync|warm-up)\$/ && (index(\$3, s \" \") == 1 || index(\$3, \"The first \" s \" \") == 1) { sum += \$2; n++ }
			END { printf \"%s: %d findings, %.0f of %.0f ns\n\", s, n, sum, idle; exit !(n >= 2 && sum <= idle) }" st fi ||
		return 1
	done
'

test_expect_success 'findings: GPT-2 (warmed up outside the ranges): no loading, CUDA graphs for decode' '
	lpmake RUN=g2 "IMPORT=$(ls "$HS"/gpt2_*.csv | grep -v ncu_raw | tr "\n" " ")" MODEL=torch-decoder \
		findings.tsv >/dev/null &&
	findings g2 >F && table F rule finding >got &&
	! grep "module-loading" got &&
	test_grep "^launch-bound	decode_step keeps the GPU busy only [0-9.]*% of its wall time: the host is outside the CUDA API" got
'

# No capture at hand waits in synchronisations for long: this table stands
# for a decode loop that reads a result to the host each step
# (cudaMemcpyAsync to pageable memory and cudaStreamSynchronize).
test_expect_success 'findings: synchronisations and copies to the host are named, removed first' '
	{ echo "# tool: lp-stages"
	  printf "stage\twall_total_ns\tkernel_ns\tlaunches\tbusy_pct\tlaunches_per_inst\tinstances\n"
	  printf "decode_step\t100000000\t10000000\t1000\t10\t100\t10\n"; } >s.tsv &&
	{ echo "# tool: lp-hostside"
	  echo "# show: text	hide	int	ms	ms	pct	ms	ms	ms	ms	ms	ms	pct	hide	ms	hide	num1	us	us	text	text"
	  printf "stage\trange\tinstances\twall_ns\tapi_ns\tapi_pct\tapi_launch_ns\tapi_sync_ns\tapi_memcpy_ns\tapi_load_ns\tapi_other_ns\thost_other_ns\thost_other_pct\tkernel_ns\tkernel_per_inst_ns\tlaunches\tlaunches_per_inst\tlaunch_lat_p50_ns\tlaunch_lat_p90_ns\tsync_calls\tload_calls\n"
	  printf "decode_step\tx\t10\t100000000\t50000000\t50\t10000000\t30000000\t10000000\t0\t0\t50000000\t50\t10000000\t1000000\t1000\t100\t9000\t12000\tcudaStreamSynchronize x10 (30.000 ms); cudaMemcpyAsync x10, 10 to the host (10.000 ms)\tnone\n"
	  printf "decode_step:steady\tx\t9\t90000000\t45000000\t50\t9000000\t27000000\t9000000\t0\t0\t45000000\t50\t9000000\t1000000\t900\t100\t9000\t12000\tcudaStreamSynchronize x9 (27.000 ms); cudaMemcpyAsync x9, 9 to the host (9.000 ms)\tnone\n"; } >h.tsv &&
	lp-findings s.tsv h.tsv >f.tsv &&
	rows f.tsv | cut -f2,3 >got &&
	printf "host-sync\t40000000\nlaunch-bound\t50000000\n" | sort >expect &&
	sort got >got2 && test_cmp expect got2 &&
	rows f.tsv | grep "	host-sync	" >got &&
	test_grep "decode_step waits 40.0 ms in synchronisations and memory copies" got &&
	test_grep "cudaStreamSynchronize x10 (30.000 ms); cudaMemcpyAsync x10, 10 to the host" got &&
	test_grep "\.item()" got
'

test_expect_success 'findings without hostside.tsv keep today'"'"'s wording' '
	{ echo "# tool: lp-stages"
	  printf "stage\twall_total_ns\tkernel_ns\tlaunches\tbusy_pct\tlaunches_per_inst\tinstances\n"
	  printf "decode_step\t100000000\t10000000\t1000\t10\t100\t10\n"; } >s.tsv &&
	lp-findings s.tsv >f.tsv &&
	rows f.tsv | cut -f2-4 >got &&
	printf "launch-bound\t90000000\tdecode_step keeps the GPU busy only 10%% of its wall time.\n" >expect &&
	test_cmp expect got
'

# A call longer than its range (a trace of another capture, or edited):
# hostside.tsv said "In CUDA API 1019.34 %" and a negative host time, at
# exit 0 (issue 28, item 9).
test_expect_success 'a call that ends after the range it starts in: refused, naming file and line' '
	awk -F, -v OFS=, "NR > 1 && \$3 ~ /^cudaStreamSynchronize/ && !d { \$2 = \$2 * 1000000; d = 1 } { print }" \
		"$HS/llama_cuda_api_trace.csv" >api.csv &&
	test_expect_code 1 lp-hostside -c "$TRASH/cfg.yaml" -a api.csv -g "$HS/llama_cuda_gpu_trace.csv" \
		"$HS/llama_nvtx_pushpop_trace.csv" >out 2>err &&
	test_grep "^lp-hostside: api.csv:[0-9]*:2: cudaStreamSynchronize.* ends [0-9]* ns after the instance of :LLM@.* it starts in (nvtx_pushpop_trace line [0-9]*) on its thread: not the traces of one capture" err &&
	test_must_be_empty out
'

# One process driving two GPUs: its kernels' busy spans are per GPU, so
# one timeline of idle time would call a GPU idle while the other ran
# (review of issue 37): the idle cells say why they are not known.
test_expect_success 'a process whose kernels ran on two GPUs: the idle split n/a, naming why' '
	awk -F, -v OFS=, "NR > 1 && NR % 2 { sub(/HBM3 \\(0\\)/, \"HBM3 (1)\") } { print }" \
		"$HS/gpt2_cuda_gpu_trace.csv" >gpu2.csv &&
	grep -q "HBM3 (1)" gpu2.csv && grep -q "HBM3 (0)" gpu2.csv &&
	lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/gpt2_cuda_api_trace.csv" -g gpu2.csv \
		"$HS/gpt2_nvtx_pushpop_trace.csv" >h2.tsv &&
	table h2.tsv stage kernel_ns idle_ns | awk -F"\t" "\$2 ~ /^[0-9]/" | cut -f3 | sort -u >why &&
	test $(wc -l <why) = 1 &&
	test_grep "^n/a because the process.s kernels ran on several GPUs: one GPU.s idle time cannot be told from another.s$" why &&
	# on one GPU: numbers
	lp-hostside -c "$TRASH/cfg.yaml" -a "$HS/gpt2_cuda_api_trace.csv" -g "$HS/gpt2_cuda_gpu_trace.csv" \
		"$HS/gpt2_nvtx_pushpop_trace.csv" >h1.tsv &&
	table h1.tsv stage kernel_ns idle_ns | awk -F"\t" "\$2 ~ /^[0-9]/ && \$3 !~ /^[0-9]/" >bad &&
	test_must_be_empty bad
'

test_done
