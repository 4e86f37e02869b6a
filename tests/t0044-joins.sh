#!/usr/bin/env bash
# Joins that cannot be shown to belong together are refused (issue 28,
# item 7), from pairings of real H200 captures (tests/fixtures) that the
# code before accepted at exit 0:
#  - the unfused and fused tinyllm captures (two single-GPU runs, no
#    cuda_gpu_trace) became one 2-process job, a "straggler" and MFU over
#    two GPUs' peak;
#  - GPT-2's capture with the torch decoder's ncu export matched on five
#    PyTorch library kernels, and kernels.tsv carried the other program's
#    FLOPs;
#  - one tinyllm capture's kernel summaries and ncu export with another's
#    NVTX reports (launch counts agree, times do not).
. "$(dirname "$0")/lib.sh"

FU=$FIX/h200-fusion
TP=$FIX/h200-tp
G2=$FIX/h200-gpt2
V2=$FIX/h200-torch-v2
TV=$FIX/h200-tinyllm-v2/tinyllm
TL=$FIX/h200-tinyllm-live/tinyllm

test_expect_success 'two single-GPU captures are not one 2-GPU job: refused naming both and what to do' '
	test_expect_code 1 lp-import "$FU"/*.csv >out 2>err &&
	test_must_be_empty out &&
	test_grep "IMPORT: $FU/fus_cuda_gpu_kern_sum.csv (process 8846) and $FU/unf_cuda_gpu_kern_sum.csv (process 8354) are both the nsys report cuda_gpu_kern_sum, and nothing shows their processes ran as one job: $FU/fus_cuda_gpu_kern_sum.csv has no cuda_gpu_trace beside it to say its GPU (two single-GPU captures are not one multi-GPU run)" err &&
	test_grep "make RUN=b BASE=a compare.md" err &&
	test_must_fail lpmake RUN=fu "IMPORT=$(echo "$FU"/*.csv)" MODEL=tinyllm stakeholder_summary.md >out 2>err &&
	test_grep "nothing shows their processes ran as one job" err &&
	! test -e "$S2/fu/stages.tsv" && ! test -e "$S2/fu/mfu.tsv" &&
	for c in fus unf; do lp-import "$FU/$c"_*.csv >/dev/null || return 1; done
'

# The per-rank capture of a real two-H200 torchrun job (tpr0_, tpr1_):
# with each rank's cuda_gpu_trace it is one job on GPUs 0 and 1, without
# them nothing tells it from two single-GPU runs.
test_expect_success 'per-rank exports are joined with their GPU traces, refused without them' '
	lp-import "$TP"/tpr0_*.csv "$TP"/tpr1_*.csv >ok.mk &&
	test_grep "process 1430" ok.mk && test_grep "process 1433" ok.mk &&
	test_expect_code 1 lp-import $(ls "$TP"/tpr0_*.csv "$TP"/tpr1_*.csv | grep -v _cuda_gpu_trace) >out 2>err &&
	test_must_be_empty out &&
	test_grep "tpr0_cuda_gpu_kern_sum.csv has no cuda_gpu_trace beside it" err &&
	test_expect_code 1 lp-import $(ls "$TP"/tpr0_*.csv "$TP"/tpr1_*.csv | grep -v tpr1_cuda_gpu_trace) >out 2>err &&
	test_grep "tpr1_cuda_gpu_kern_sum.csv has no cuda_gpu_trace beside it" err
'

test_expect_success 'an ncu export sharing only library kernels with the capture is refused' '
	imp=$(ls "$G2"/gpt2_*.csv | grep -v ncu_raw) &&
	test_expect_code 1 lp-import $imp "$V2/torch_ncu_raw.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "IMPORT: $V2/torch_ncu_raw.csv: 5 of its 10 ncu kernels (process python3.12) never ran in the nsys capture (nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_bias_TNT ...), and the 5 it shares with it hold 34.2 % of the capture.s kernel time: kernels that many programs run" err &&
	test_must_fail lpmake RUN=g2 "IMPORT=$(echo $imp) $V2/torch_ncu_raw.csv" MODEL=hf-gpt2 kernels.md >out 2>err &&
	test_grep "never ran in the nsys capture" err &&
	! test -e "$S2/g2/kernels.tsv" &&
	test_expect_code 1 lp-import $imp "$FIX/h200-prefill/tpre_ncu_raw.csv" >out 2>err &&
	test_grep "tpre_ncu_raw.csv: 6 of its 10 ncu kernels .* hold 25.5 % of the capture.s kernel time" err &&
	# 34.2 %, by awk: the capture.s kernel time (its mangled summary)
	# held by the names the torch decoder.s ncu export shares with it
	lp-ncu2tsv "$V2/torch_ncu_raw.csv" | sed "/^#/d" | sed 1d | cut -f1 >names &&
	A "FNR == NR { k[\$0] = 1; next } FNR == 1 { n = csv(\$0, f); col(f, n, h); next }
		{ csv(\$0, f); t = f[h[\"Total Time (ns)\"]]; all += t; if (f[h[\"Name\"]] in k) { got += t; m++ } }
		END { printf \"%d %.1f\n\", m, 100 * got / all }" names "$G2/gpt2_cuda_gpu_kern_sum_mangled.csv" >got &&
	echo "5 34.2" >expect &&
	test_cmp expect got
'

# Same program, another run: the decode run's ncu export (torch-v2) with
# the prefill capture (tpre), and single-kernel exports, stay accepted;
# GPT-2's own export too.  The torch decoder's with GPT-2 is refused.
test_expect_success 'exports of the capture'"'"'s program are accepted, another program'"'"'s refused' '
	lp-import $(ls "$FIX"/h200-prefill/tpre_*.csv) "$V2/torch_ncu_raw.csv" >/dev/null &&
	lp-import "$G2"/gpt2_*.csv >/dev/null &&
	lp-import $(ls "$FIX"/h100-hostside/gpt2_*.csv | grep -v ncu_raw_mangled) >/dev/null &&
	test_expect_code 1 lp-import "$G2"/gpt2_*.csv "$V2/torch_ncu_raw.csv" >out 2>err &&
	test_grep "torch_ncu_raw.csv: 5 of its 10 ncu kernels" err
'

test_expect_success 'one capture'"'"'s kernel summaries and ncu with another'"'"'s NVTX reports: refused, either way' '
	test_expect_code 1 lp-import "$TV"_cuda_gpu_kern_sum*.csv "$TV"_ncu_raw.csv "$TL"_nvtx_*.csv >out 2>err &&
	test_must_be_empty out &&
	test_grep "IMPORT: $TV""_cuda_gpu_kern_sum.csv and $TL""_nvtx_kern_sum.csv are not exports of one capture: kernel void gemv2T_kernel_val<.*>(T13, T6, T6): 721054 ns in the whole capture, 724318 ns in one range" err &&
	test_expect_code 1 lp-import "$TL"_cuda_gpu_kern_sum*.csv "$TL"_ncu_raw.csv "$TV"_nvtx_*.csv >out 2>err &&
	test_grep "IMPORT: $TL""_cuda_gpu_kern_sum.csv and $TV""_nvtx_kern_sum.csv are not exports of one capture: kernel void gemv2T_kernel_val<.*>(T13, T6, T6): its 80 launches take 724318 ns in the first and 721054 ns in a range of the second that holds them all" err &&
	test_must_fail lpmake RUN=mix "IMPORT=$(echo "$TV"_cuda_gpu_kern_sum*.csv "$TV"_ncu_raw.csv "$TL"_nvtx_*.csv)" MODEL=tinyllm kernels.md >out 2>err &&
	test_grep "are not exports of one capture" err &&
	! test -e "$S2/mix/kernels.tsv" &&
	# what made the old check take them: every launch count the same
	for f in "$TV" "$TL"; do
		A "FNR == 1 { n = csv(\$0, f); col(f, n, h); next }
			{ csv(\$0, f); print f[h[\"Name\"]] \"\t\" f[h[\"Instances\"]] \"\t\" f[h[\"Total Time (ns)\"]] }" \
			"$f"_cuda_gpu_kern_sum.csv | sort >"$(basename "$(dirname "$f")").tsv" || return 1
	done &&
	cut -f1,2 h200-tinyllm-v2.tsv >a && cut -f1,2 h200-tinyllm-live.tsv >b && test_cmp a b &&
	cut -f3 h200-tinyllm-v2.tsv >a && cut -f3 h200-tinyllm-live.tsv >b && ! cmp -s a b &&
	lp-import "$TV"_*.csv >/dev/null && lp-import "$TL"_*.csv >/dev/null
'

test_expect_success 'a range summary with another capture'"'"'s push/pop trace: same instances, refused on time' '
	test_expect_code 1 lp-import "$TV"_nvtx_sum.csv "$FU/unf_nvtx_pushpop_trace.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "IMPORT: $TV""_nvtx_sum.csv and $FU/unf_nvtx_pushpop_trace.csv are not exports of one capture: range LLM:decode_all: its 1 instances take 27934329 ns in the summary, 21158241 ns in the trace" err &&
	lp-import "$TV"_nvtx_sum.csv "$TV"_nvtx_pushpop_trace.csv >/dev/null
'

test_done
