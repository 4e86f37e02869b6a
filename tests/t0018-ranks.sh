#!/usr/bin/env bash
# Multi-GPU runs, from real exports of tests/workloads/tp_decode.py under
# torchrun on two H200s (tests/fixtures/h200-tp): ranks.tsv and overlap.tsv
# recomputed with awk alone from the exports (each process's instances,
# its kernel time split by NCCL, each GPU's kernel intervals), the
# straggler made on purpose named (extra matmuls, a sleep), the per-rank
# capture layout giving the merged layout's tables, ncu kept off NCCL
# kernels, and one-GPU summaries without the multi-GPU sections.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/ranks.sh"

TP=$FIX/h200-tp
imp() {	# imp RUN PREFIX: import that capture's exports
	lpmake RUN=$1 "IMPORT=$(echo "$TP"/$2_*.csv)" MODEL=tp-mlp SET=model.decode_tokens=8 \
		stakeholder_summary.md >/dev/null
}

test_expect_success 'setup: the balanced, matmul-straggler and sleeper captures, merged layout' '
	imp tpm tpm && imp tps tps && imp tpz tpz
'

for r in tpm tps tpz; do
	test_expect_success "$r: ranks.tsv, each process alone, by awk from the exports" '
		ranks "$TP/'$r'_nvtx_gpu_proj_trace.csv" "$TP/'$r'_cuda_gpu_trace_mangled.csv" \
			"$TP/'$r'_nvtx_pushpop_trace.csv" "$TP/'$r'_nvtx_kern_sum.csv" >expect &&
		test $(wc -l <expect) = 6 &&
		table "$S2/'$r'/ranks.tsv" $RCOLS | rnd "%.1f" 11 | sort >got &&
		test_cmp expect got
	'
	test_expect_success "$r: overlap.tsv, unions of kernel intervals per GPU, by awk" '
		overlap "$TP/'$r'_cuda_gpu_trace_mangled.csv" >expect &&
		test $(wc -l <expect) = 2 &&
		table "$S2/'$r'/overlap.tsv" $OCOLS | rnd "%.1f" 9 10 | sort >got &&
		test_cmp expect got
	'
done

test_expect_success 'overlap: kernels of two streams at once, by hand' '
	cat >"$TRASH/trace.csv" <<-\EOF &&
	Start (ns),Duration (ns),CorrId,Device,Strm,Name
	100,50,1,NVIDIA H200 (0),7,[CUDA memcpy Host-to-Device]
	100,100,2,NVIDIA H200 (0),7,gemm_a
	150,100,3,NVIDIA H200 (0),20,ncclDevKernel_AllReduce_Sum_f16_RING_LL(x)
	160,20,4,NVIDIA H200 (0),7,gemm_b
	300,40,5,NVIDIA H200 (0),20,ncclDevKernel_AllReduce_Sum_f16_RING_LL(x)
	320,40,6,NVIDIA H200 (0),7,gemm_c
	400,10,7,NVIDIA H200 (1),7,gemm_a
	EOF
	cp "$TRASH/trace.csv" . &&
	lp-overlap -o "$ROOT/conf/operators.yaml" trace.csv >o.tsv &&
	table o.tsv $OCOLS overlap_pct comm_pct | rnd "%.1f" 9 10 >got &&
	printf "%s\n" "NVIDIA H200 (0)	5	2	210	140	140	70	70	50.0	66.7" \
		"NVIDIA H200 (1)	1	0	10	0	10	0	0	n/a because no communication kernel ran on this GPU	0.0" >expect &&
	test_cmp expect got &&
	overlap trace.csv | cut -f1-8 >expect &&
	table o.tsv $OCOLS >got &&
	test_cmp expect got
'

test_expect_success 'overlap: a trace out of Start order on a device is refused, naming the line' '
	sed "6s/^300,/120,/" "$TRASH/trace.csv" >bad.csv &&
	test_expect_code 1 lp-overlap -o "$ROOT/conf/operators.yaml" bad.csv >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-overlap: bad.csv:6:1: kernel starts at 120 ns, before" err
'

test_expect_success 'the straggler made on purpose is named, with its gap and why' '
	table "$S2/tps/ranks.tsv" stage pid device straggler >got &&
	test_grep "^decode_step	1088	NVIDIA H200 (1)	yes$" got &&
	test_grep "^decode_all	1088	NVIDIA H200 (1)	yes$" got &&
	test_grep "	straggler	.*	Process 1088 (NVIDIA H200 (1)) is the straggler of decode_all: 9.883 ms per instance more outside communication than process 1087, which waits for it.	.*	It does more work than the others" \
		"$S2/tps/findings.tsv" &&
	table "$S2/tpz/ranks.tsv" stage pid device straggler >got &&
	test_grep "^decode_step	1260	NVIDIA H200 (1)	yes$" got &&
	test_grep "	straggler	.*	Process 1260 (NVIDIA H200 (1)) is the straggler of decode_step: 4.316 ms per instance more .*	Its GPU is idle while the others wait" \
		"$S2/tpz/findings.tsv" &&
	test_grep "^## Ranks: each stage per process$" "$S2/tps/details.md" &&
	test_grep "^## Communication and Compute Overlap$" "$S2/tps/details.md"
'

test_expect_success 'gap: each process outside communication less the least, by awk' '
	for r in tpm tps tpz; do
		table "$S2/$r/ranks.tsv" stage work_ns gap_ns straggler median_ns |
		A -v FS="	" "{ w[NR] = \$2; s[NR] = \$1; g[NR] = \$3; y[NR] = \$4; m[NR] = \$5
			if (!(\$1 in lo) || \$2 < lo[\$1]) lo[\$1] = \$2; if (!(\$1 in hi) || \$2 > hi[\$1]) hi[\$1] = \$2 }
			END { for (i = 1; i <= NR; i++) { e = fmt(\"%.1f\", w[i] - lo[s[i]])
				ys = w[i] == hi[s[i]] && hi[s[i]] - lo[s[i]] >= 0.10 * m[i] ? \"yes\" : \"no\"
				if (e != g[i] || ys != y[i]) { print \"row \" i \": \" g[i] \" \" y[i] \" != \" e \" \" ys; bad = 1 } }
				exit bad }" || return 1
	done
'

test_expect_success 'MFU and MBU count both GPUs: the peak and the bandwidth x 2' '
	lpmake RUN=tpg "IMPORT=$(echo "$TP"/tps_*.csv)" MODEL=tp-mlp \
		"SET=model.decode_tokens=8 gpu.tensor_tflops.fp16=989.4 gpu.cuda_tflops.fp32=66.9 gpu.hbm_tbps=4.8" mfu.tsv mbu.tsv >/dev/null &&
	test_grep "^  decode_tokens: 8$" "$S2/tpg/inputs.yaml" &&
	! grep -q "config says" "$S2/tpg/mfu.tsv" &&
	test_grep "^# processes: 2$" "$S2/tpg/stages.tsv" &&
	test_grep "^# note: 2 processes (one GPU each) share the model.s work: the peak is 2 GPUs" "$S2/tpg/mfu.tsv" &&
	test_grep "^# note: 2 processes (one GPU each) share the model.s bytes: the bandwidth is 2 GPUs" "$S2/tpg/mbu.tsv"
'

test_expect_success 'per-rank layout: the merged exports split by process give the same ranks and overlap tables' '
	mkdir -p pr &&
	for f in "$TP"/tpm_*.csv; do
		b=$(basename "$f" | sed "s/^tpm_//") &&
		case $b in
		nvtx_kern_sum.csv|nvtx_kern_sum_mangled.csv|nvtx_pushpop_trace.csv|nvtx_gpu_proj_trace.csv)
			A -v b="$b" "FNR == 1 { n = csv(\$0, f); col(f, n, h); print > (\"pr/r0_\" b); print > (\"pr/r1_\" b); next }
				{ csv(\$0, f); print > (\"pr/r\" (f[h[\"PID\"]] == 909 ? 0 : 1) \"_\" b) }" "$f" ;;
		cuda_gpu_trace_mangled.csv)
			A -v b="$b" "FNR == 1 { n = csv(\$0, f); col(f, n, h); print > (\"pr/r0_\" b); print > (\"pr/r1_\" b); next }
				{ csv(\$0, f); print > (\"pr/r\" (f[h[\"Device\"]] ~ /\\(0\\)/ ? 0 : 1) \"_\" b) }" "$f" ;;
		*) cp "$f" "pr/r0_$b" ;;
		esac || return 1
	done &&
	test $(cat pr/r0_nvtx_pushpop_trace.csv pr/r1_nvtx_pushpop_trace.csv | wc -l) = $(( $(wc -l <"$TP/tpm_nvtx_pushpop_trace.csv") + 1 )) &&
	lpmake RUN=tpr "IMPORT=$(echo "$PWD"/pr/r*.csv)" MODEL=tp-mlp SET=model.decode_tokens=8 \
		ranks.tsv overlap.tsv findings.tsv >/dev/null &&
	for t in ranks overlap; do
		grep -v "^# source" "$S2/tpm/$t.tsv" >expect &&
		grep -v "^# source" "$S2/tpr/$t.tsv" >got &&
		test_cmp expect got || return 1
	done
'

test_expect_success 'per-rank capture (torchrun ... nsys -o r%q{RANK}): both reports joined, the straggler named' '
	lpmake RUN=tpq "IMPORT=$(echo "$TP"/tpr0_*.csv "$TP"/tpr1_*.csv)" MODEL=tp-mlp SET=model.decode_tokens=8 \
		ranks.tsv findings.tsv >/dev/null &&
	test_grep "^# processes: 2$" "$S2/tpq/ranks.tsv" &&
	table "$S2/tpq/ranks.tsv" stage device straggler >got &&
	test_grep "^decode_step	NVIDIA H200 (1)	yes$" got &&
	test_grep "^decode_step	NVIDIA H200 (0)	no$" got &&
	test_grep "straggler of decode_all" "$S2/tpq/findings.tsv"
'

test_expect_success 'per-rank exports whose headers differ are refused' '
	for f in "$TP"/tpr1_*.csv; do cp "$f" "x_${f##*/tpr1_}"; done &&
	sed "1s/,Lvl,/,Level,/" "$TP/tpr1_nvtx_pushpop_trace.csv" >x_nvtx_pushpop_trace.csv &&
	test_must_fail lpmake RUN=tpx "IMPORT=$(echo "$TP"/tpr0_*.csv $PWD/x_*.csv)" \
		MODEL=tp-mlp ranks.tsv >out 2>err &&
	test_grep "^lp-tracesort: .*x_nvtx_pushpop_trace.csv:1: its header is not that of .*tpr0_nvtx_pushpop_trace.csv" err &&
	test ! -e "$S2/tpx/ranks.tsv"
'

test_expect_success 'ncu is kept off the NCCL kernels and on one GPU' '
	lp-topn -n 3 -x "$ROOT/conf/operators.yaml" -r :LLM@decode_all "$TP/tps_nvtx_kern_sum.csv" >lp.out && grep -v "^#" lp.out | cut -f2 >got &&
	! grep -q nccl got && test $(wc -l <got) = 4 &&
	lp-topn -n 1 -r :LLM@decode_all "$TP/tps_nvtx_kern_sum.csv" >lp.out && grep -v "^#" lp.out | cut -f2 >got && grep -q ncclDevKernel got &&
	test_grep "^  device: 0" "$ROOT/conf/profiling/ncu/ncu.default.yaml"
'

test_expect_success 'one GPU: no multi-GPU sections in the summary, ranks and overlap omitted' '
	lpmake RUN=one "IMPORT=$(echo "$FIX"/h200-torch-v2/torch_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null &&
	! grep -q "^## Ranks" "$S2/one/details.md" &&
	! grep -q "^## Communication and Compute Overlap" "$S2/one/details.md" &&
	test_grep "^# omit: " "$S2/one/ranks.tsv" &&
	! grep -q "^# processes" "$S2/one/stages.tsv"
'

test_expect_success 'the kernel tables are the profiled rank alone (GPU 0), by awk from nvtx_kern_sum' '
	test_grep "^# process: 1087 on NVIDIA H200 (0) only, one rank of a multi-GPU run" "$S2/tps/kernels.tsv" &&
	test_grep "^# profiled: 1087$" "$S2/tps/procs.tsv" &&
	A "FNR == 1 { n = csv(\$0, f); col(f, n, h); next }
		{ csv(\$0, f); if (f[h[\"PID\"]] != 1087 || f[h[\"NVTX Range\"]] != \":LLM@decode_all\") next
			t[f[h[\"Kernel Name\"]]] += f[h[\"Total Time (ns)\"]]; c[f[h[\"Kernel Name\"]]] += f[h[\"Kern Inst\"]] }
		END { for (k in t) printf \"%s\\t%d\\t%d\\n\", k, t[k], c[k] }" "$TP/tps_nvtx_kern_sum.csv" | sort >expect &&
	table "$S2/tps/kernels.tsv" kernel total_ns calls | sort >got &&
	test_cmp expect got &&
	! grep -q "^# profiled:" "$S2/one/procs.tsv"
'

test_done
