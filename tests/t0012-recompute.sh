#!/usr/bin/env bash
# Every number of every table of the summary, recomputed from the artifacts
# the table names (nsys and ncu exports, the model config, conf/gpus.yaml)
# with awk alone, never lp's code, on the demo (a PyTorch decode with its
# warm-up, ncu top-N of decode_all), on imported exports of a PyTorch run
# (whole-run nsys, ncu on its prefill GEMMs with tensor-core counters) and on
# the CUDA C decoder's gated capture (no trace, fp32 CUDA-core peak).  Then: the summary shows each table whole, and no table shows
# two rows with the same kernel text.
. "$(dirname "$0")/lib.sh"

# model KEY RUN: a number of the model config (inputs.yaml)
model() {
	awk -v k="$1" '/^model:/ { m = 1; next } /^[^ ]/ { m = 0 }
		m && $1 == k ":" { v = $2; gsub(/"/, "", v); print v }' "$S2/$2/inputs.yaml"
}
# peak PATH PREC: FLOP/s of the H200 SXM entry of conf/gpus.yaml, by awk
peak() {
	awk -v p="$1" -v q="${2:-}" '/names: \[NVIDIA H200\]/ { e = 1; next } /^  - name:/ { e = 0 }
		e && $1 == p "_tflops:" { s = $0; sub(/.*\{/, "", s); sub(/\}.*/, "", s)
			n = split(s, kv, ", "); for (i = 1; i <= n; i++) { split(kv[i], x, ": ")
				if (x[1] == q) printf "%.0f\n", x[2] * 1e12 } }
		e && p == "dram" && $1 == "hbm_tbps:" { printf "%.0f\n", $2 * 1e12 }
		e && p == "link" && $1 == "link_gbps:" { printf "%.0f\n", $2 * 1e9 }' "$ROOT/conf/gpus.yaml"
}

# raw RUN REPORT: the export the run imported as nsys REPORT (import.mk):
# the CSV itself, for the traces lp keeps packed (report_REPORT.lpt)
# (a path make was given relative to the repo, as make demo gives them)
raw() {
	p=$(sed -n "s/^LP_IMP_$2 := //p" "$S2/$1/import.mk")
	case $p in /*) echo "$p" ;; *) echo "$ROOT/$p" ;; esac
}

TORCH="$(echo "$FIX"/h200-whole/torch_*.csv) $FIX/h200-probe/torch_prefill_gemm_raw.csv"
TINY="$(echo "$FIX"/h200-tinyllm-live/tinyllm_*.csv)"
RUNS="demo tp tl"
test_expect_success 'setup: the demo, an import of a PyTorch run with STAGE=prefill, a gated CUDA C capture' '
	demo_run >/dev/null &&
	lpmake RUN=tp "IMPORT=$TORCH" MODEL=torch-decoder STAGE=prefill stakeholder_summary.md >/dev/null &&
	lpmake RUN=tl "IMPORT=$TINY" MODEL=tinyllm stakeholder_summary.md >/dev/null &&
	for run in $RUNS; do grep -q "\"NVIDIA H200\"" "$S2/$run/ncu/report.csv" || return 1; done
'

# stage names as nsys stats spells them, per run
tp_stages="prefill=:LLM@prefill decode_all=:LLM@decode_all decode_step=:LLM@decode_step"
demo_stages=$tp_stages
tl_stages="prefill=LLM:prefill decode_all=LLM:decode_all decode_step=LLM:decode_step"

test_expect_success 'gpu.tsv: the H200 figures of conf/gpus.yaml, x 1e12 (the link in GB/s x 1e9)' '
	for run in $RUNS; do
		{ for p in fp16 bf16 tf32 fp8 int8 fp64; do printf "tensor\t%s\t%s\n" $p "$(peak tensor $p)"; done
		  for p in fp32 fp16 fp64; do printf "cuda\t%s\t%s\n" $p "$(peak cuda $p)"; done
		  printf "dram\t-\t%s\n" "$(peak dram)"
		  printf "link\t-\t%s\n" "$(peak link)"; } >expect &&
		test -s expect &&
		table "$S2/$run/gpu.tsv" path precision peak >got &&
		test_cmp expect got || return 1
	done
'

stages_awk='
FNR == 1 { file++; h = 0 }
file == 1 { n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, a); h = 1 }; next }
	r = f[a["Range"]]; tot[r] += num(f[a["Total Time (ns)"]]); inst[r] += num(f[a["Instances"]])
	med[r] = num(f[a["Med (ns)"]]); mn[r] = num(f[a["Min (ns)"]]); mx[r] = num(f[a["Max (ns)"]])
	sd[r] = num(f[a["StdDev (ns)"]]); next }
file == 2 { n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, b); h = 1 }; next }
	r = f[b["NVTX Range"]]; if (r == "") next
	kt[r] += num(f[b["Total Time (ns)"]]); kl[r] += num(f[b["Kern Inst"]]) }
END { n = split(stages, s, " ")
	for (i = 1; i <= n; i++) { split(s[i], p, "="); r = p[2]
		if (!(r in tot)) { print p[1] "\t" r "\tNA"; continue }
		printf "%s\t%s\t%.0f\t%.0f\t%s\t%s\t%.0f\t%.0f\t%s\t%.0f\t%.0f\t%.4g\t%s\n", p[1], r, inst[r], tot[r],
			fmt("%.1f", tot[r] / inst[r]), fmt("%.1f", med[r]), mn[r], mx[r], fmt("%.1f", sd[r]),
			kt[r], kl[r], 100 * kt[r] / tot[r], fmt("%.1f", kl[r] / inst[r]) } }'
na_rows() {
	awk -F"\t" -v OFS="\t" '$3 ~ /^n\/a/ { print $1, $2, "NA"; next } { print }'
}

test_expect_success 'stages.tsv: nsys nvtx_sum and nvtx_kern_sum, by awk' '
	for run in $RUNS; do
		eval st=\$${run}_stages &&
		A -v stages="$st" "$stages_awk" "$S2/$run/nsys/report_nvtx_sum.csv" \
			"$S2/$run/nsys/report_nvtx_kern_sum.csv" >expect &&
		test -s expect &&
		table "$S2/$run/stages.tsv" stage range instances wall_total_ns wall_mean_ns wall_median_ns \
			wall_min_ns wall_max_ns wall_std_ns kernel_ns launches busy_pct launches_per_inst | g4 12 | na_rows >got &&
		test_cmp expect got || return 1
	done
'

steps_awk='
NR == 1 { n = csv($0, f); col(f, n, a); next }
{ n = csv($0, f); k++; nm[k] = f[a["Name"]]; st[k] = num(f[a["Start (ns)"]]); du[k] = num(f[a["Duration (ns)"]]); pid[k] = f[a["PID"]] }
END { n = split(stages, s, " ")
	for (i = 1; i <= n; i++) { split(s[i], p, "="); r = p[2]; c = 0; nf = nr = 0; split("", seen); split("", first); split("", fst)
		for (j = 1; j <= k; j++) if (nm[j] == r) { c++; if (!(pid[j] in fst) || st[j] < fst[pid[j]]) { fst[pid[j]] = st[j]; fd[pid[j]] = du[j] } }
		for (j = 1; j <= k; j++) if (nm[j] == r) { if (st[j] == fst[pid[j]] && !(pid[j] in seen)) { seen[pid[j]] = 1; first[++nf] = du[j] } else { rest[++nr] = du[j]; mnr = (nr == 1 || du[j] < mnr) ? du[j] : mnr; mxr = (nr == 1 || du[j] > mxr) ? du[j] : mxr } }
		cnt[p[1]] = c; procs[p[1]] = nf; tot = 0; for (j = 1; j <= k; j++) if (nm[j] == r) tot += du[j]
		if (!c) { print p[1] "\t" r "\tNA"; continue }
		f1 = median(first, nf); line = sprintf("%s\t%s\t%d\t%s", p[1], r, c, fmt("%.1f", f1))
		if (nr) { m = median(rest, nr); line = line sprintf("\t%s\t%.4g\t%s\t%s\t%.0f\t%.0f", fmt("%.1f", m), f1 / m, f1 > ratio * m ? "yes" : "no", fmt("%.1f", m), mnr, mxr) }
		out[p[1]] = line; med[p[1]] = nr ? m : -1; totd[p[1]] = tot }
	steps = cnt["decode_step"] / procs["decode_step"]
	for (i = 1; i <= n; i++) { split(s[i], p, "="); if (!(p[1] in out)) continue; line = out[p[1]]
		if (p[1] == "decode_step" && med[p[1]] > 0) line = line sprintf("\t%.4g", batch / (med[p[1]] * 1e-9))
		if (p[1] == "decode_all") line = line sprintf("\t%.4g", batch * steps * procs["decode_all"] / (totd[p[1]] * 1e-9))
		print line } }'

test_expect_success 'steps.tsv: every instance of nvtx_pushpop_trace, by awk (demo, tp); n/a where tl has no trace' '
	for run in demo tp; do
		eval st=\$${run}_stages &&
		A -v stages="$st" -v ratio=1.5 -v batch="$(model batch $run)" "$steps_awk" \
			"$(raw $run nvtx_pushpop_trace)" >expect &&
		test -s expect &&
		table "$S2/$run/steps.tsv" stage range instances first_ns rest_median_ns first_over_rest warmup steady_ns \
			steady_min_ns steady_max_ns tokens_per_s | g4 6 11 | sed "s/\tn\/a[^\t]*//g" >got &&
		test_cmp expect got || return 1
	done &&
	table "$S2/demo/steps.tsv" stage warmup | grep "^decode_step" >got &&
	printf "decode_step\tyes\n" >expect &&
	test_cmp expect got &&
	table "$S2/tl/steps.tsv" instances | sort -u >got &&
	echo "n/a because the run has no nvtx_pushpop_trace report (nsys stats --report nvtx_pushpop_trace)" >expect &&
	test -s expect &&
	test_cmp expect got
'

# MFU and MBU from the model config's numbers, nvtx_sum, the trace, and the
# peak of conf/gpus.yaml, every formula written out again here.
mfu_awk='
FNR == 1 { file++; h = 0 }
file == 1 { n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, a); h = 1 }; next }
	r = f[a["Range"]]; tot[r] += num(f[a["Total Time (ns)"]]); inst[r] += num(f[a["Instances"]]); next }
file == 2 { n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, b); h = 1 }; next }
	r = f[b["NVTX Range"]]; if (r != "") kt[r] += num(f[b["Total Time (ns)"]]); next }
file == 3 { n = csv($0, f); if (!h) { col(f, n, c); h = 1; next }
	r = f[c["Name"]]; k[r]++; d[r, k[r]] = num(f[c["Duration (ns)"]]); s0[r, k[r]] = num(f[c["Start (ns)"]]) }
function steady(r,    i, j, m, x, fi) { if (k[r] < 2) return -1; fi = 1
	for (i = 2; i <= k[r]; i++) if (s0[r, i] < s0[r, fi]) fi = i
	m = 0; for (i = 1; i <= k[r]; i++) if (i != fi) x[++m] = d[r, i]; return median(x, m) }
END { dec = B * (2 * N * T + 4 * L * D * (P * T + T * (T - 1) / 2))
	fl["prefill"] = B * (2 * N * P + 2 * L * D * P * P)
	if (last == "last") fl["prefill"] = B * (2 * (N - V * D) * P + 2 * V * D + 2 * L * D * P * P)
	fl["decode_all"] = dec; fl["decode_step"] = dec / T
	n = split(stages, s, " ")
	for (i = 1; i <= n; i++) { split(s[i], p, "="); r = p[2]; if (!(r in tot)) { print p[1] "\tNA"; continue }
		f1 = fl[p[1]]; mean = tot[r] / inst[r]; line = sprintf("%s\t%.0f\t%s\t%.4g\t%.4g", p[1], f1, fmt("%.1f", mean), f1 / (mean * 1e-9), 100 * f1 / (mean * 1e-9) / peak)
		st = steady(r); if (st > 0) line = line sprintf("\t%s\t%.4g", fmt("%.1f", st), 100 * f1 / (st * 1e-9) / peak)
		kp = kt[r] / inst[r]; line = line sprintf("\t%s\t%.4g", fmt("%.1f", kp), 100 * f1 / (kp * 1e-9) / peak)
		if (mode == "mbu" && p[1] != "prefill") { w = N * eb; kv = 2 * L * B * D * eb * (P + (T + 1) / 2); by = w + kv
			per = p[1] == "decode_all" ? k[stepr] / inst[r] : 1; mt = mean / per
			line = sprintf("%s\t%.0f\t%.0f\t%.0f\t%s\t%.4g\t%.4g", p[1], w, kv, by, fmt("%.1f", mt), by / (mt * 1e-9), 100 * by / (mt * 1e-9) / bw)
			if (p[1] == "decode_step" && st > 0) line = line sprintf("\t%s\t%.4g", fmt("%.1f", st), 100 * by / (st * 1e-9) / bw) }
		if (mode == "mbu" && p[1] == "prefill") continue
		print line } }'
mfu_vars() {
	# mfu_vars RUN: -v assignments of the model config, dtype bytes 2 (fp16) or 4 (fp32)
	dt=$(model dtype "$1")
	echo "-v N=$(model params "$1") -v L=$(model layers "$1") -v D=$(model hidden "$1") -v B=$(model batch "$1")" \
		"-v P=$(model prompt_tokens "$1") -v T=$(model decode_tokens "$1") -v V=$(model vocab "$1")" \
		"-v last=$(model prefill_logits "$1") -v eb=$([ "$dt" = fp32 ] && echo 4 || echo 2)"
}

test_expect_success 'mfu.tsv and mbu.tsv: the formulas again, by awk (demo, tp: fp16 tensor peak)' '
	for run in demo tp; do
		r=$S2/$run &&
		A $(mfu_vars $run) -v peak="$(peak tensor fp16)" -v bw="$(peak dram)" -v stages="$tp_stages" -v mode=mfu \
			-v stepr=:LLM@decode_step "$mfu_awk" "$r/nsys/report_nvtx_sum.csv" "$r/nsys/report_nvtx_kern_sum.csv" \
			"$(raw $run nvtx_pushpop_trace)" >expect &&
		test -s expect &&
		table "$r/mfu.tsv" stage model_flop wall_mean_ns flop_per_s mfu_pct steady_ns mfu_steady_pct kernel_per_inst_ns \
			mfu_kernel_pct | g4 4 5 7 9 | sed "s/\tn\/a[^\t]*//g" >got &&
		test_cmp expect got &&
		A $(mfu_vars $run) -v peak="$(peak tensor fp16)" -v bw="$(peak dram)" -v stages="$tp_stages" -v mode=mbu \
			-v stepr=:LLM@decode_step "$mfu_awk" "$r/nsys/report_nvtx_sum.csv" "$r/nsys/report_nvtx_kern_sum.csv" \
			"$(raw $run nvtx_pushpop_trace)" | sort >expect &&
		test -s expect &&
		table "$r/mbu.tsv" stage weight_bytes kv_bytes bytes_per_token mean_ns bytes_per_s mbu_pct steady_ns \
			mbu_steady_pct | g4 6 7 9 | sed "s/\tn\/a[^\t]*//g" | sort >got &&
		test_cmp expect got || return 1
	done
'

test_expect_success 'mfu.tsv: the gated CUDA C capture (fp32 CUDA-core peak, no trace)' '
	r=$S2/tl &&
	printf "Start (ns),Duration (ns),Name\n" >empty_trace.csv &&
	A $(mfu_vars tl) -v peak="$(peak cuda fp32)" -v bw="$(peak dram)" -v stages="$tl_stages" -v mode=mfu \
		-v stepr=LLM:decode_step "$mfu_awk" "$r/nsys/report_nvtx_sum.csv" "$r/nsys/report_nvtx_kern_sum.csv" \
		empty_trace.csv >expect &&
	test -s expect &&
	table "$r/mfu.tsv" stage model_flop wall_mean_ns flop_per_s mfu_pct steady_ns mfu_steady_pct kernel_per_inst_ns \
		mfu_kernel_pct | g4 4 5 7 9 | sed "s/\tn\/a[^\t]*//g" | awk -F"\t" "\$3 == \"\" { print \$1 \"\tNA\"; next } { print }" >got &&
	test_cmp expect got
'

# The kernels of the stage (nsys, mangled) in nsys order, and ncu's
# per-launch counters for those it profiled.
kern_awk='
FNR == 1 { file++; h = 0 }
file == 1 { n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, a); h = 1 }; next }
	if (f[a["NVTX Range"]] != range) next; kn = f[a["Kernel Name"]]
	tot[kn] += num(f[a["Total Time (ns)"]]); cal[kn] += num(f[a["Kern Inst"]]); next }
file == 2 { n = csv($0, f); if (!h) { col(f, n, c); h = 1; u = 1; next } if (u) { u = 0; next }
	kn = f[c["Kernel Name"]]; nl[kn]++
	t[kn] += num(f[c["gpu__time_duration.sum"]]); by[kn] += num(f[c["dram__bytes.sum"]])
	sm[kn] += num(f[c["sm__throughput.avg.pct_of_peak_sustained_elapsed"]])
	dr[kn] += num(f[c["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"]])
	split("fp16 bf16_dst_fp32 tf32_dst_fp32 fp8 int8 fp64", tp, " ")
	for (i = 1; i <= 6; i++) { m = "sm__ops_path_tensor_src_" tp[i] ".sum"; if (m in c) tc[kn, i] += num(f[c[m]]) }
	split("fadd:1:1 fmul:1:1 ffma:2:1 hadd:2:2 hmul:2:2 hfma:4:2 dadd:1:3 dmul:1:3 dfma:2:3", ss, " ")
	for (i = 1; i <= 9; i++) { split(ss[i], x, ":"); m = "sm__sass_thread_inst_executed_op_" x[1] "_pred_on.sum"
		if (m in c) cu[kn, x[3]] += x[2] * num(f[c[m]]) } }
END { for (kn in tot) printf "%.0f\t%s\n", tot[kn], kn | "sort -t \"	\" -k1,1nr -k2,2 > " order }'

roof_end='
BEGIN { split("tensor fp16|tensor bf16|tensor tf32|tensor fp8|tensor int8|tensor fp64|fp32 (CUDA cores)|fp16 (CUDA cores)|fp64 (CUDA cores)", lab, "|")
	np = split(pks, pv, " ") }
END { while ((getline kn < "top10") > 0) { rank++
	if (!(kn in nl)) { print rank "\tNA"; continue }
	for (i = 1; i <= 6; i++) q[i] = tc[kn, i]; for (i = 1; i <= 3; i++) q[6 + i] = cu[kn, i]
	dom = 0; for (i = 1; i <= 9; i++) if (q[i] > 0 && (!dom || q[i] > q[dom])) dom = i
	if (!dom) { print rank "\tnone"; continue }
	pk = pv[dom]
	flt = 0; for (i = 1; i <= 9; i++) flt += q[i]
	fpl = sprintf("%.1f", flt / nl[kn]) + 0; bpl = sprintf("%.1f", by[kn] / nl[kn]) + 0
	npl = sprintf("%.1f", t[kn] / nl[kn]) + 0
	ai = fpl / bpl; fps = fpl / (npl * 1e-9); bps = bpl / (npl * 1e-9); ridge = pk / bw
	mem = (ai < ridge); frac = mem ? bps / bw : fps / pk
	printf "%d\t%s\t%.0f\t%.0f\t%s\t%.4g\t%.4g\t%.4g\t%.4g\t%.4g\t%s\t%.4g\t%.4g\t%s\n", rank, lab[dom], fpl, bpl,
		fmt("%.1f", npl), ai, fps, bps, pk, ridge, mem ? "memory" : "compute", 100 * frac, 100 * bps / bw,
		(frac >= 0.5 ? (mem ? "memory-bound" : "compute-bound") : "latency / under-filled") } }'
topk_end='
END { while ((getline l < "order") > 0 && rank < 10) { rank++; split(l, x, "\t"); kn = x[2]
	line = sprintf("%d\t%.0f\t%.0f\t%s\t%.4g", rank, tot[kn], cal[kn], fmt("%.1f", tot[kn] / cal[kn]), 100 * tot[kn] / sum)
	if (kn in nl) line = line sprintf("\t%.2f\t%.2f", sm[kn] / nl[kn], dr[kn] / nl[kn])
	print line } }'

test_expect_success 'roofline.tsv: per-launch FLOPs of the dominant precision, bytes and time of the ncu export, by awk' '
	pks=$(for p in fp16 bf16 tf32 fp8 int8 fp64; do peak tensor $p; done; for p in fp32 fp16 fp64; do peak cuda $p; done) &&
	for run in demo tp; do
		r=$S2/$run &&
		range=$(sed -n "s/^# range: //p" "$r/kernels.tsv") &&
		A -v range="$range" -v order=order "$kern_awk" "$r/nsys/report_nvtx_kern_sum_mangled.csv" \
			"$r/ncu/report.csv" &&
		sleep 0.1 && head -10 order | cut -f2 >top10 &&
		A -v range="$range" -v pks="$(echo $pks)" -v bw="$(peak dram)" -v order=/dev/null "$kern_awk$roof_end" \
			"$r/nsys/report_nvtx_kern_sum_mangled.csv" "$r/ncu/report.csv" >expect &&
		test -s expect &&
		table "$r/roofline.tsv" rank precision flop_per_launch dram_bytes_per_launch ncu_ns_per_launch ai flop_per_s \
			bytes_per_s peak_flop_per_s ridge roof roof_pct dram_pct class | g4 6 7 8 9 10 12 13 |
			awk -F"\t" "\$2 ~ /^n\/a/ { print \$1 \"\tNA\"; next } \$2 ~ /^none/ { print \$1 \"\tnone\"; next } { print }" |
			uniq >got &&	# a kernel ncu did not profile: a row per launch configuration (shapes.tsv)
		test_cmp expect got || return 1
	done &&
	test $(grep -c "tensor fp16" got) = 4 &&
	table "$S2/demo/roofline.tsv" precision | sort | uniq -c | awk "{ print \$1, \$2 }" >got &&
	printf "%s\n" "4 fp16" "1 fp32" "5 tensor" >expect &&
	test_cmp expect got
'

test_expect_success 'top_kernels.tsv: nsys time and calls, ncu SOL %, by awk' '
	for run in $RUNS; do
		r=$S2/$run &&
		range=$(sed -n "s/^# range: //p" "$r/kernels.tsv") &&
		A -v range="$range" -v order=order "$kern_awk" "$r/nsys/report_nvtx_kern_sum_mangled.csv" "$r/ncu/report.csv" &&
		sleep 0.1 &&
		awk -F"\t" "{ s += \$1 } END { print s }" order >sum &&
		A -v range="$range" -v order=/dev/null -v sum="$(cat sum)" "$kern_awk$topk_end" \
			"$r/nsys/report_nvtx_kern_sum_mangled.csv" "$r/ncu/report.csv" >expect &&
		test -s expect &&
		table "$r/top_kernels.tsv" rank total_ns calls mean_ns share_pct sm_pct dram_pct | g4 5 |
			sed "s/\tn\/a[^\t]*//g" >got &&
		test_cmp expect got || return 1
	done
'

# Operator classes: the base name by awk (templates and parameters cut,
# the last word kept; mangled names read by their length prefixes), and
# for PyTorch's elementwise/reduce templates the operation (the function
# before a lambda's "::[lambda", launchers skipped, else the last functor
# or Ops class that wraps nothing), then the patterns of
# conf/operators.yaml, on either, first match wins.
ops_awk='
BEGIN { FS = "\t"; nc = 0
	while ((getline ln < ops) > 0) {
		if (ln ~ /^  - name: /) { nm = ln; sub(/^  - name: /, "", nm); cls[++nc] = nm }
		if (ln ~ /^    match: /) { m = ln; sub(/^    match: "/, "", m); sub(/"$/, "", m); pat[nc] = tolower(m) } } }
function base(s,    t, o) {
	if (s ~ /^_Z[0-9]/) { t = substr(s, 3); o = t + 0; return substr(t, length(o "") + 1, o) }
	while (s ~ /<[^<>]*>/) gsub(/<[^<>]*>/, "", s)
	sub(/\(anonymous namespace\)/, "anon", s); sub(/\(.*/, "", s); sub(/.* /, "", s); return s }
function op(s,    r, w, f, x) {
	r = s; w = ""
	while (match(r, /[A-Za-z0-9_]+(<[^()]*>)?\([^()]*\)::\[lambda/)) {
		f = substr(r, RSTART, RLENGTH); r = substr(r, RSTART + RLENGTH)
		sub(/[<(].*/, "", f)
		if (f !~ /^(gpu_kernel_impl|gpu_kernel_impl_nocast|gpu_kernel)$/) return f }
	r = s
	while (match(r, /[A-Za-z_]+(Functor[A-Za-z_]*|Ops)</)) {
		x = substr(r, RSTART, RLENGTH - 1); r = substr(r, RSTART + RLENGTH)
		if (x !~ /^(BinaryFunctor|AUnaryFunctor|BUnaryFunctor|UnaryFunctor)$/) w = x }
	return w }
/^#/ { next } !h { tsvcol(ix); h = 1; next }
{ b = tolower(base($ix["kernel"])); c = "Other"; o = ""
	if (b ~ /(^|:)((vectorized_|unrolled_)?elementwise_kernel|elementwise_kernel_with_index|reduce_kernel)$/)
		o = tolower(op($ix["kernel"]))
	for (i = 1; i <= nc; i++) if (b ~ pat[i] || (o != "" && o ~ pat[i])) { c = cls[i]; break }
	t[c] += $ix["total_ns"]; l[c] += $ix["calls"]; k[c]++; all += $ix["total_ns"] }
END { for (c in t) printf "%s\t%.0f\t%.4g\t%.0f\t%d\n", c, t[c], 100 * t[c] / all, l[c], k[c] }'

test_expect_success 'operators.tsv: classes by base name, by awk' '
	for run in $RUNS; do
		A -v ops="$ROOT/conf/operators.yaml" "$ops_awk" "$S2/$run/kernels.tsv" | sort >expect &&
		test -s expect &&
		table "$S2/$run/operators.tsv" class time_ns share_pct launches kernels | g4 3 | sort >got &&
		test_cmp expect got || return 1
	done
'

agg_awk='
FNR == 1 { file++; h = 0 }
file == 1 { n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, a); h = 1 }; next }
	gt += num(f[a["Total Time (ns)"]]); gc += num(f[a["Instances"]]); gn++; next }
file == 2 { n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, b); h = 1 }; next }
	x = num(f[b["Total Time (ns)"]]); at += x; ac += num(f[b["Num Calls"]])
	if (f[b["Name"]] ~ /LaunchKernel/) al += num(f[b["Num Calls"]]); if (x > top) { top = x; tn = f[b["Name"]] }; next }
file == 3 { n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, m); h = 1 }; next }
	mt += num(f[m["Total Time (ns)"]]); mc += num(f[m["Count"]]); next }
file == 4 { if (/^#/) next; split($0, f, "\t"); if (!h) { for (i = 1; i in f; i++) k[f[i]] = i; h = 1; next }
	st += f[k["total_ns"]]; sn++; if (f[k["ncu_launches"]] != "") { wm++; nl += f[k["ncu_launches"]] } }
END { printf "%.0f\n%.0f\n%.0f\n%.0f\n%.0f\n%.0f\n%.0f\n%.0f\n%.0f\n%s\t%.0f\n%.0f\n%.0f\n%.0f\n%.0f\n",
	gt, gc, gn, gt / gc, st, sn, at, ac, al, tn, top, mt, mc, wm, nl }'

test_expect_success 'aggregates.tsv: the nsys summaries and kernels.tsv, by awk' '
	for run in $RUNS; do
		r=$S2/$run &&
		A "$agg_awk" "$r/nsys/report_cuda_gpu_kern_sum.csv" "$r/nsys/report_cuda_api_sum.csv" \
			"$r/nsys/report_cuda_gpu_mem_time_sum.csv" "$r/kernels.tsv" >expect &&
		test -s expect &&
		table "$r/aggregates.tsv" metric value |
			awk -F"\t" "/^Costliest CUDA API: / { sub(/^Costliest CUDA API: /, \"\"); print; next } { print \$2 }" >got &&
		test_cmp expect got || return 1
	done
'

test_expect_success 'findings.tsv: the savings again, from the tables they cite' '
	for run in $RUNS; do
		r=$S2/$run &&
		# launch-bound: idle time less the warm-up excess of the stage,
		# or of a nested stage with the same kernels (its own finding);
		# cold-call instead for a stage run once without a steady state
		# and without a nested stage of its kernels (a loop)
		# whose idle time per launch is at least twice the warmest steady
		# state'"'"'s (steady less kernels per instance, over launches per
		# instance): its idle time less its launches at that rate
		{ table "$r/steps.tsv" stage first_ns steady_ns warmup >sp &&
		  table "$r/stages.tsv" stage wall_total_ns kernel_ns busy_pct launches instances launches_per_inst >st &&
		  awk -F"\t" "NR == FNR { if (\$4 == \"yes\") x[\$1] = \$2 - \$3; sd[\$1] = \$3; next }
			{ s[++n] = \$1; w[n] = \$2; k[n] = \$3; b[n] = \$4; l[n] = \$5; in_[n] = \$6; lpi[n] = \$7 }
			END { ps = -1
				for (i = 1; i <= n; i++) if ((s[i] in sd) && sd[s[i]] ~ /^[0-9.]+\$/ && in_[i] > 1 && lpi[i] > 0) {
					p = (sd[s[i]] - k[i] / in_[i]) / lpi[i]; if (ps < 0 || p < ps) { ps = p; ref = s[i] } }
				for (i = 1; i <= n; i++) { if (!(b[i] != \"\" && b[i] + 0 < 50 && b[i] !~ /n/)) continue
				if (i > 1 && k[i] == pk && l[i] == pl) continue; pk = k[i]; pl = l[i]; e = 0
				nest = i < n && k[i + 1] == k[i] && l[i + 1] == l[i]
				if (!nest && l[i] > 0 && in_[i] == 1 && (s[i] in sd) && sd[s[i]] !~ /^[0-9.]+\$/ && ps > 0 && ref != s[i] &&
				    (w[i] - k[i]) / l[i] >= 2 * ps) {
					v = w[i] - k[i] - l[i] * ps; printf \"cold-call\t%.0f\n\", (v > 0 ? v : 0); continue }
				for (j = i; j <= n && (j == i || (k[j] == k[i] && l[j] == l[i])); j++) if ((s[j] in x) && x[s[j]] > e) e = x[s[j]]
				v = w[i] - k[i] - e; printf \"launch-bound\t%.0f\n\", (v > 0 ? v : 0) } }" sp st
		  table "$r/steps.tsv" first_ns steady_ns warmup |
			awk -F"\t" "\$3 == \"yes\" { printf \"warm-up\t%.0f\n\", \$1 - \$2 }"
		  table "$r/roofline.tsv" kernel roof_pct class >rf &&
		  table "$r/top_kernels.tsv" kernel total_ns >tk &&
		  awk -F"\t" "NR == FNR { t[\$1] = \$2; next } \$2 ~ /^[0-9]/ && (\$1 in t) && n++ < 5 {
			r = \$3 == \"memory-bound\" ? \"memory-bound\" : \$3 == \"compute-bound\" ? \"compute-bound\" : \"under-filled\"
			printf \"%s\t%.0f\n\", r, t[\$1] * (1 - \$2 / 100) }" tk rf
		} | sort -t"	" -k2,2nr >expect &&
		test -s expect &&
		table "$r/findings.tsv" rule saving_ns | grep -v "	n/a" | sort -t"	" -k2,2nr >got &&
		test_cmp expect got || return 1
	done
'

test_expect_success 'the summary shows every table whole, under its title' '
	for run in $RUNS; do
		r=$S2/$run &&
		for t in environment gpu aggregates stages steps mfu mbu roofline operators top_kernels; do
			title=$(sed -n "s/^# title: //p" "$r/$t.tsv") &&
			want=$(table "$r/$t.tsv" "$(sed -n "/^#/!{p;q}" "$r/$t.tsv" | cut -f1)" | wc -l) &&
			sed -n "/^## $title\$/,/^## /p" "$r/details.md" >section &&
			have=$(grep -c "^| [^-:]" section || :) &&
			# a table without a number is one line saying why (lp-summary(1))
			if test "$have" = 0 && grep -q "^No numbers: n/a because" section; then
				continue
			fi &&
			test "$have" = $((want + 1)) || { echo "$run $t: $have table lines, want $want rows + header"; return 1; }
		done &&
		want=$(table "$r/findings.tsv" rank | wc -l) &&
		have=$(sed -n "/^## Findings/,\$p" "$r/details.md" | grep -c "^[0-9]*\. ") &&
		test "$have" = "$want" || return 1
	done &&
	test_grep "^| decode_step | .:LLM@decode_step. | 6 | 148.863 | 61.158 | 60.455 | 588.008 | 0.664 | 198 | 0.074% |$" \
		"$S2/tp/details.md"
'

test_expect_success 'no table shows two rows with the same kernel text' '
	for run in $RUNS; do
		r=$S2/$run &&
		# a kernel has a roofline point per launch configuration: name and grid
		table "$r/roofline.tsv" name grid block | sort | uniq -d >dups && test_must_be_empty dups &&
		table "$r/top_kernels.tsv" name | sort | uniq -d >dups && test_must_be_empty dups &&
		grep "^| [0-9]" "$r/kernels.md" | cut -d"|" -f3 | sort | uniq -d >dups && test_must_be_empty dups &&
		table "$r/operators.tsv" largest | sort | uniq -d >dups && test_must_be_empty dups || return 1
	done
'

test_expect_success 'no two rows alike in kernels.md of every shared capture either' '
	for f in "$FIX"/h200-tinyllm/cap_cuda_gpu_kern_sum.csv "$FIX"/h200-torch-decoder/torch_cuda_gpu_kern_sum.csv \
		"$FIX"/h200-whole/*_cuda_gpu_kern_sum.csv "$FIX"/h200-live/*_cuda_gpu_kern_sum.csv; do
		lp-kernjoin "$f" >k.tsv && lp-kernmd -n 0 k.tsv >km.tsv && lp-summary km.tsv >lp.out && <lp.out grep "^| [0-9]" | cut -d"|" -f3 | sort | uniq -d >dups &&
		test_must_be_empty dups &&
		lp-topk -n 1000 k.tsv >lp.out && <lp.out sed "/^#/d" | cut -f2 | sort | uniq -d >dups &&
		test_must_be_empty dups || return 1
	done
'

test_expect_success 'steps.tsv quartiles of the steady state: type 7 over the steps after the first, by awk' '
	cat >q.awk <<-\EOF &&
	FNR == 1 { n = csv($0, f); col(f, n, h); next }
	{ csv($0, f); if (f[h["Name"]] != ":LLM@decode_step") next
		k++; st[k] = f[h["Start (ns)"]] + 0; du[k] = f[h["Duration (ns)"]] + 0 }
	END { first = 1; for (i = 2; i <= k; i++) if (st[i] < st[first]) first = i
		for (i = 1; i <= k; i++) if (i != first) r[++m] = du[i]
		median(r, m)	# sorts r
		for (q = 1; q <= 3; q += 2) { x = (m - 1) * q / 4; lo = int(x)
			v = lo + 1 < m ? r[lo + 1] + (x - lo) * (r[lo + 2] - r[lo + 1]) : r[lo + 1]
			printf("%s%.1f", (q > 1 ? "\t" : ""), v) }
		print "" }
	EOF
	awk -f "$ROOT/tests/csv.awk" -f q.awk "$(raw demo nvtx_pushpop_trace)" >expect &&
	table "$S2/demo/steps.tsv" stage steady_p25_ns steady_p75_ns | grep "^decode_step" | cut -f2,3 >got &&
	cat got && test_cmp expect got
'

test_done
