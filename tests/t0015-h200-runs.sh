#!/usr/bin/env bash
# lp's own runs on the H200, imported (tests/fixtures/README.md): the PyTorch
# decode of make demo with its NVTX regions measured whole by ncu, the
# prefill GEMMs on the tensor cores, and the CUDA C decoder before and after
# a fusion.  Every number checked here is recomputed by awk from the
# exports, or is the arithmetic of the shapes (2MNK).
. "$(dirname "$0")/lib.sh"


V2=$FIX/h200-torch-v2
test_expect_success 'setup: the torch run with its regions, the prefill GEMMs, a fusion before and after' '
	lpmake RUN=t "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder \
		stakeholder_summary.md regions.md >/dev/null &&
	lpmake RUN=p "IMPORT=$(echo "$FIX"/h200-prefill/tpre_*.csv)" MODEL=torch-decoder STAGE=prefill \
		stakeholder_summary.md >/dev/null &&
	lpmake RUN=unf "IMPORT=$(echo "$FIX"/h200-fusion/unf_*.csv)" MODEL=tinyllm stakeholder_summary.md >/dev/null &&
	lpmake RUN=fus "IMPORT=$(echo "$FIX"/h200-fusion/fus_*.csv)" MODEL=tinyllm stakeholder_summary.md >/dev/null &&
	lpmake RUN=fus BASE=unf compare.md >/dev/null &&
	lpmake -q RUN=t stakeholder_summary.md regions.md
'

# Each row of an app-range export is one instance of one range: its
# duration, DRAM bytes, SOL % and tensor-core ops; nsys's projection of the
# same instance is the k-th of that range in the nvtx_gpu_proj_trace.
reginst_awk='
FNR == 1 { file++; h = 0 }
file == 1 { n = csv($0, f); if (!h) { col(f, n, p); h = 1; next }
	r = f[p["Name"]]; k[r]++; pd[r, k[r]] = num(f[p["Projected Duration (ns)"]]); next }
{ n = csv($0, f); if (!h) { col(f, n, c); h = 1; u = 1; next } if (u) { u = 0; next }
	for (x in c) if (x ~ /^thread Domain:Push\/Pop_Range/) rc = c[x]
	s = f[rc]; match(s, /LLM@[a-z_]+/); nm = substr(s, RSTART + 4, RLENGTH - 4)
	path = file == 2 ? nm : "decode_all > decode_step"; rn = ":LLM@" (file == 2 ? nm : "decode_step")
	i = ++seen[path]; tf = 0
	split("fp16 bf16_dst_fp32 tf32_dst_fp32 fp8 int8 fp64", tp, " ")
	for (j = 1; j <= 6; j++) tf += num(f[c["sm__ops_path_tensor_src_" tp[j] ".sum"]])
	g = num(f[c["gpu__time_duration.sum"]])
	printf "%s\t%d\t%s\t%s\t%.0f\t%.0f\t%.4g\t%.2f\t%.2f\t%.0f\t%.0f\n", path, i, f[c["Process ID"]], f[c["Device"]], g,
		pd[rn, i], g / pd[rn, i], num(f[c["sm__throughput.avg.pct_of_peak_sustained_elapsed"]]),
		num(f[c["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"]]), tf, num(f[c["dram__bytes.sum"]]) }'

test_expect_success 'region_instances.tsv: every instance of the two ncu exports and the nsys projection, by awk' '
	A "$reginst_awk" "$V2/torch_nvtx_gpu_proj_trace.csv" "$V2/torch_d0_regions.csv" "$V2/torch_d1_regions.csv" >expect &&
	test $(wc -l <expect) = 34 &&
	table "$S2/t/region_instances.tsv" path instance process device gpu_ns nsys_gpu_ns ncu_over_nsys sm_pct dram_pct \
		flop_tensor dram_bytes | g4 7 >got &&
	test_cmp expect got
'

test_expect_success 'tinyllm: its 16 decode steps as ncu measured them, a gated nsys capture beside' '
	lpmake RUN=tl "IMPORT=$(echo "$FIX"/h200-tinyllm-v2/tinyllm_*.csv)" MODEL=tinyllm regions.md >/dev/null &&
	A "{ n = csv(\$0, f) } NR == 1 { col(f, n, c); next } NR > 2 {
		printf \"%.0f\t%.0f\n\", num(f[c[\"gpu__time_duration.sum\"]]), num(f[c[\"dram__bytes.sum\"]]) }" \
		"$FIX/h200-tinyllm-v2/tinyllm_d1_regions.csv" >expect &&
	test $(wc -l <expect) = 16 &&
	table "$S2/tl/region_instances.tsv" path gpu_ns dram_bytes | grep "^decode_all > decode_step" | cut -f2,3 >got &&
	test_cmp expect got
'

# torch-decoder: N = 67043328, L = 6, d = 768, V = 32000, P = 128, T = 32;
# prefill with the LM head for the last token only
# 2(N - Vd)P + 2Vd + 2LdP^2 = 11,071,782,912.
test_expect_success 'region_work.tsv: tensor FLOPs per instance against the model, the warm-up step apart' '
	table "$S2/t/region_work.tsv" path instances flop_tensor model_flop hw_over_model | g4 5 >got &&
	table "$S2/t/region_instances.tsv" path flop_tensor | awk -F"\t" "
		{ s[\$1] += \$2; n[\$1]++; if (!(\$1 in o)) o[\$1] = ++k; nm[o[\$1]] = \$1 }
		END { m[\"prefill\"] = 11071782912; m[\"decode_all\"] = 4375412736; m[\"decode_all > decode_step\"] = 136731648
			for (i = 1; i <= k; i++) { p = nm[i]; printf \"%s\t%d\t%.0f\t%.0f\t%.4g\n\", p, n[p], s[p] / n[p], m[p], s[p] / n[p] / m[p] } }" >expect &&
	test_cmp expect got &&
	table "$S2/t/region_work.tsv" path hw_over_model | g4 2 >got &&
	printf "prefill\t1.045\ndecode_all\t12.42\ndecode_all > decode_step\t12.42\n" >expect &&
	test_cmp expect got &&
	test_grep "^# note: Waste: decode_all executed 12.4x the model" "$S2/t/region_work.tsv"
'

test_expect_success 'regions.tsv: the first decode step on the GPU is flagged as warm-up' '
	table "$S2/t/regions.tsv" path instances gpu_first_ns warmup >got &&
	printf "prefill\t1\t787449152\tn/a\ndecode_all\t1\t2961087360\tn/a\ndecode_all > decode_step\t32\t440064992\tyes\n" >expect &&
	test_cmp expect got
'

# The prefill's GEMMs: 128 tokens x d 768 into qkv 2304, proj 768, fc1 3072
# and fc2 back (K 3072); ncu's tensor-core counter is exactly 2MNK.
# Attention: 4 B H P^2 dh = 4 x 12 x 128^2 x 64.  The LM head of the last
# token: 2 x 768 x 32000 = 49,152,000 of model math, executed as 8 rows and
# 32256 columns (the MMA tile and the padded vocabulary): 396,361,728.
test_expect_success 'prefill on the tensor cores: 2MNK per GEMM, exactly' '
	table "$S2/p/kernels.tsv" kernel flops_tc_fp16_per_launch | awk -F"\t" "\$2 + 0 > 0 { printf \"%.0f\n\", \$2 }" |
		sort -n >got &&
	for mnk in "128 768 768" "128 2304 768" "128 3072 768" "128 768 3072"; do
		set -- $mnk && echo $((2 * $1 * $2 * $3)) || return 1
	done >x &&
	echo $((4 * 12 * 128 * 128 * 64)) >>x && echo $((2 * 8 * 32256 * 768)) >>x &&
	sort -n x >expect &&
	test_cmp expect got &&
	table "$S2/p/roofline.tsv" name precision | grep "^nvjet" | cut -f2 | sort -u >got &&
	echo "tensor fp16" >expect &&
	test_cmp expect got
'

# Fusion: rms_sumsq + rms_scale became rmsnorm, silu_gate + mul_up became
# silu_mul: per decode step 4 layers x 3 launches + the final norm fewer.
test_expect_success 'compare: the fused kernels appear, the unfused vanish, 13 launches a step fewer' '
	table "$S2/fus/compare.tsv" status kernel | grep -v "^both" | cut -d"(" -f1 | sort >got &&
	printf "%s\n" "appeared	rmsnorm" "appeared	silu_mul" "vanished	mul_up" "vanished	rms_scale" \
		"vanished	rms_sumsq" "vanished	silu_gate" >expect &&
	test_cmp expect got &&
	table "$S2/fus/compare_stages.tsv" stage metric before after change | grep "^decode.*launches / instance" >got &&
	printf "decode_all\tlaunches / instance\t1104\t896\t-208\ndecode_step\tlaunches / instance\t69\t56\t-13\n" >expect &&
	test_cmp expect got
'

# The steady state of each run from its trace (the median decode step after
# the first), and the noise rule: significant when the two runs' ranges of
# steps after the first do not overlap.
steady_awk='
FNR == 1 { file++; h = 0 }
{ n = csv($0, f); if (!h) { col(f, n, c); h = 1; next } if (f[c["Name"]] != "LLM:decode_step") next
	k[file]++; d[file, k[file]] = num(f[c["Duration (ns)"]]); s[file, k[file]] = num(f[c["Start (ns)"]]) }
function med(fl,    i, j, m, x, t, fi) { fi = 1; for (i = 2; i <= k[fl]; i++) if (s[fl, i] < s[fl, fi]) fi = i
	m = 0; for (i = 1; i <= k[fl]; i++) if (i != fi) x[++m] = d[fl, i]
	for (i = 2; i <= m; i++) { t = x[i]; for (j = i - 1; j >= 1 && x[j] > t; j--) x[j + 1] = x[j]; x[j + 1] = t }
	lo[fl] = x[1]; hi[fl] = x[m]; return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2 }
END { a = med(1); b = med(2); printf "%.0f\t%.0f\t%.0f\t%s\n", a, b, b - a, (hi[2] < lo[1] || lo[2] > hi[1]) ? "yes" : "no" }'

test_expect_success 'compare: the steady decode step, recomputed from both traces, and its significance' '
	A "$steady_awk" "$FIX/h200-fusion/unf_nvtx_pushpop_trace.csv" "$FIX/h200-fusion/fus_nvtx_pushpop_trace.csv" >expect &&
	table "$S2/fus/compare_stages.tsv" stage metric before after change significant |
		awk -F"\t" "\$1 == \"decode_step\" && \$2 == \"steady state\" { sub(/:.*/, \"\", \$6); print \$3 \"\t\" \$4 \"\t\" \$5 \"\t\" \$6 }" >got &&
	test_cmp expect got &&
	test_grep "	yes\$" got
'

# Hugging Face GPT-2 small decode: seven element-wise kernels that print
# alike once their templates are cut; the GEMMs measured on the tensor cores.
test_expect_success 'GPT-2: the element-wise kernels read apart; GEMMs against the tensor fp16 roof' '
	lpmake RUN=g2 "IMPORT=$(echo "$FIX"/h200-gpt2/gpt2_*.csv)" MODEL=hf-gpt2 stakeholder_summary.md >/dev/null &&
	grep "^| [0-9]" "$S2/g2/kernels.md" | cut -d"|" -f3 >names &&
	test $(grep -c "vectorized_elementwise_kernel" names) -ge 6 &&
	sort names | uniq -d >dups && test_must_be_empty dups &&
	table "$S2/g2/top_kernels.tsv" name | sort | uniq -d >dups && test_must_be_empty dups &&
	table "$S2/g2/roofline.tsv" name precision | grep "^nvjet" | cut -f2 | sort -u >got &&
	echo "tensor fp16" >expect &&
	test_cmp expect got &&
	test_grep "^# note: FLOPs: prefill B(2NP + 2LdP^2)" "$S2/g2/mfu.tsv"
'

test_done
