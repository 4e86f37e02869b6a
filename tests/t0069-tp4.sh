#!/usr/bin/env bash
# Four H100s (issue 41): the exports of two tensor-parallel decodes under
# torchrun --nproc-per-node 4 on nvidia-h100-x4 (tests/fixtures/h100-tp4):
# tp4, the repo's tp_decode.py at 16 layers (its CSVs, its untraced
# timing run, lp-linkprobe's table of that machine), and h41, the held-out
# Llama-shaped decoder (tests/gpu/heldout41.py: its GPU Metrics samples of
# the four GPUs, reduced to its stages' window).  Each table is checked
# against awk's (and sqlite3's) recomputation from those exports.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/ranks.sh"

U=$TRASH/x
mkdir -p "$U" && tar xzf "$FIX/h100-tp4/exports.tar.gz" -C "$U" || exit 1
CSV=$(ls "$U"/tp4_*.csv | grep -v untraced)
lpmake RUN=tp4 "IMPORT=$(echo $CSV)" MODEL=tp-mlp SET="model.layers=16 model.params=2147483648 model.decode_tokens=16" \
	stakeholder_summary.md >"$TRASH/make.log" 2>&1 || { tail -20 "$TRASH/make.log"; exit 1; }
R=$S2/tp4

test_expect_success 'ranks.tsv and overlap.tsv: four ranks, each as awk recomputes it from the exports' '
	check_ranks "$R" "$U/tp4_" "NVIDIA H100 80GB HBM3" 4
'

test_expect_success 'the per-rank waterfall on the untraced step: parts add up to it (0.5 ns), the link floor with the measured latency' '
	lp-steps -u -c "$R/nsys/config.yaml" -i "$R/inputs.yaml" "$U/tp4_untraced_nvtx_pushpop_trace.csv" >steps.tsv &&
	ut=$(table steps.tsv stage steady_ns | awk -F"\t" "\$1 == \"decode_step\" { print \$2 }") &&
	echo "untraced step: $ut ns" &&
	lp-rankfall -g "$R/gpu.tsv" -i "$R/inputs.yaml" -t steps.tsv -l "$U/tp4_linkprobe.tsv" "$R/ranks.tsv" >w.tsv &&
	test $(table w.tsv pid | wc -l) = 4 &&
	table w.tsv step_ns mem_floor_ns compute_above_ns comm_floor_ns comm_above_ns idle_ns |
		awk -F"\t" -v u="$ut" "{ d = \$2 + \$3 + \$4 + \$5 + \$6 - \$1; e = \$1 - u
			if (d > 0.5 || d < -0.5 || e > 0.5 || e < -0.5) bad++ } END { exit bad > 0 }" &&
	# 16 layers x 1 all-reduce x (1 x 4096 fp16 x 2(4-1)/4 at 450 GB/s + the probe.s 4-GPU 8-byte best)
	lat=$(table "$U/tp4_linkprobe.tsv" gpus bytes best_ns | awk -F"\t" "\$1 == 4 && \$2 == 8 { print \$3 }") &&
	fl=$(awk -v l="$lat" "BEGIN { printf \"%.1f\", 16 * (8192 * 6 / 4 / 450e9 * 1e9 + l) }") &&
	table w.tsv comm_floor_ns | awk -v f="$fl" "{ if (sprintf(\"%.1f\", \$1) != f) exit 1 }" &&
	test_grep "^# latency: $lat ns an all-reduce (the best 8-byte all-reduce on 4 GPUs, " w.tsv &&
	test_grep "^# sharding: 4 ranks" w.tsv
'

test_expect_success 'the brief: the verdict of 4 x H100 from the ranks, one bar a rank' '
	head -1 "$R/stakeholder_summary.md" >title && cat title &&
	test_grep "^# decode_all is [a-z-]*-bound on 4 x NVIDIA H100 80GB HBM3: " title &&
	v=$(sed -n "s/^# verdict: //p" "$R/bound.tsv") &&
	e=$(table "$R/ranks.tsv" stage pid comm_ns median_ns straggler | awk -F"\t" "\$1 == \"decode_step\" {
		n++; c = 100 * \$3 / \$4; if (c >= 60) many++; if (\$5 == \"yes\") { slow = 1; sc = c } }
		END { print (many == n ? \"communication-bound\" : many && slow && sc < 60 ? \"straggler-bound\" : \"other\") }") &&
	echo "verdict $v, awk $e" && { test "$e" = other || test "$e" = "$v"; } &&
	test $(grep -c "^| 49[0-9][0-9] | [0-3] |" "$R/stakeholder_summary.md") = 4 &&
	# the key number over four GPUs says so (stages.tsv: the processes. mean)
	test_grep "\[GPU busy (mean of 4 GPUs)\](details.md#define-busy_pct)" "$R/stakeholder_summary.md" &&
	# four bars, the verdict and three findings: about one screen (2 GPUs: t0046, within 800 px)
	h=$("$ROOT/tests/browser/pageshot.sh" "$R/stakeholder_summary.md") &&
	echo "# tp4: brief $h px" >&2 && test "$h" -le 850
'

H=$U/h41
test_expect_success 'GPU Metrics of four GPUs: a row a GPU, each sample on its own GPU, as sqlite3 and awk have them' '
	lp-gpumetrics -n -c "$U/h41_config.yaml" -p "$U/h41_nvtx_gpu_proj_trace.csv" -t "$U/h41_nvtx_pushpop_trace.csv" \
		"$U/h41_gm.sqlite" >gm.tsv &&
	test_grep "^# gpus: 4$" gm.tsv &&
	test_grep "typeId 281479271677954: NVIDIA H100 80GB HBM3 (2), bus 0000:00:08.0" gm.tsv &&
	table gm.tsv gpu | sort -u >gpus && printf "NVIDIA H100 80GB HBM3 (%s)\n" 0 1 2 3 >want && test_cmp want gpus &&
	# GPU 2: its process (kernels on device 2) and its samples of SMs Active
	pid=$(sqlite3 "$U/h41_gm.sqlite" "SELECT DISTINCT (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = 2") &&
	sqlite3 -separator "	" "$U/h41_gm.sqlite" "SELECT g.timestamp, g.value FROM GPU_METRICS g JOIN TARGET_INFO_GPU_METRICS t
		USING (typeId, metricId) WHERE g.typeId = 281479271677954 AND t.metricName = '"'"'SMs Active [Throughput %]'"'"'" >s2 &&
	# its decode_step instances after its first (GPU projection), the mean of the samples inside them
	awk -F, -v p="$pid" "NR > 1 && \$1 == \":LLM@decode_step\" && \$7 == p { printf \"%.0f\\t%.0f\\n\", \$2, \$2 + \$3 }" \
		"$U/h41_nvtx_gpu_proj_trace.csv" | sort -n | tail -n +2 >inst &&
	awk -F"\t" "FNR == NR { s[++n] = \$1; e[n] = \$2; next } { for (i = 1; i <= n; i++) if (\$1 >= s[i] && \$1 < e[i]) { t += \$2; c++ } }
		END { printf \"%d %.4f\n\", c, t / c }" inst s2 >expect &&
	table gm.tsv stage gpu metric samples mean | awk -F"\t" "\$1 == \"decode_step:steady\" && \$2 == \"NVIDIA H100 80GB HBM3 (2)\" &&
		\$3 == \"SMs Active [Throughput %]\" { printf \"%d %.4f\n\", \$4, \$5 }" >got &&
	cat got && test_cmp expect got
'

test_expect_success 'GPU Metrics that lp cannot tie to GPUs: why, with -n a table the reports leave out, else an error' '
	cp "$U/h41_gm.sqlite" nogpu.sqlite && sqlite3 nogpu.sqlite "DELETE FROM TARGET_INFO_GPU WHERE id = 3" &&
	lp-gpumetrics -n -c "$U/h41_config.yaml" -p "$U/h41_nvtx_gpu_proj_trace.csv" nogpu.sqlite >n.tsv &&
	test_grep "^# omit: no samples" n.tsv &&
	test_grep "samples of 4 GPUs and lp cannot tell which GPU each is: typeId 281479271677955 has no GPU 3 in TARGET_INFO_GPU" n.tsv &&
	test_expect_code 1 lp-gpumetrics -c "$U/h41_config.yaml" -p "$U/h41_nvtx_gpu_proj_trace.csv" nogpu.sqlite >o 2>e &&
	test ! -s o && test_grep "lp cannot tell which GPU each is" e &&
	cp "$U/h41_gm.sqlite" nok.sqlite && sqlite3 nok.sqlite "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL" &&
	lp-gpumetrics -n -c "$U/h41_config.yaml" -p "$U/h41_nvtx_gpu_proj_trace.csv" nok.sqlite >k.tsv &&
	test_grep "has no kernels (CUPTI_ACTIVITY_KIND_KERNEL) to tell on which GPU each process ran" k.tsv &&
	# -T still reads one GPU, as before, without the GPU column
	lp-gpumetrics -c "$U/h41_config.yaml" -p "$U/h41_nvtx_gpu_proj_trace.csv" -T 281479271677952 "$U/h41_gm.sqlite" >t.tsv &&
	sed -n "/^stage	/p" t.tsv >hdr && ! grep "	gpu	" hdr && test $(table t.tsv stage | wc -l) -gt 0
'

test_done
