#!/usr/bin/env bash
# Issue 27: ncu per (kernel, launch configuration).  Real exports of one
# H100 run (tests/fixtures/h100-plc: the TinyLlama-shaped bf16 Llama, nsys
# traces and an ncu export with --filter-mode per-launch-config, one launch
# of every configuration in a decode step): the stage's time split by
# configuration, the selection until COVER, one roofline point per
# configuration with its own nsys time, coverage, savings per shape, the
# class "mixed".  Numbers recomputed by awk from the CSVs.
. "$(dirname "$0")/lib.sh"

P=$FIX/h100-plc
I=$TRASH/imp
mkdir -p "$I" &&
for f in "$P"/llama_*.csv; do cp "$f" "$I/"; done &&
gzip -dc "$P/llama_cuda_gpu_trace.csv.gz" >"$I/llama_cuda_gpu_trace.csv" &&
gzip -dc "$P/llama_cuda_api_trace.csv.gz" >"$I/llama_cuda_api_trace.csv" &&
cp "$P/plc1_ncu_raw.csv" "$I/"
R=:LLM@decode_all

# The trace's kernel launches that start in decode_all's GPU spans, by
# (kernel, grid, block): demangled name, grid, block, ns, launches.
spans_awk='
FNR == 1 { f++ }
f == 1 && FNR == 1 { n = csv($0, h); col(h, n, c); next }
f == 1 { n = csv($0, x); if (x[c["Name"]] == R) { a[++w] = x[c["Projected Start (ns)"]] + 0; b[w] = a[w] + x[c["Projected Duration (ns)"]] } next }
f == 2 && FNR == 1 { n = csv($0, h); delete c; col(h, n, c); next }
f == 2 { n = csv($0, x); if (x[c["GrdX"]] == "") next; t = x[c["Start (ns)"]] + 0
	for (i = 1; i <= w; i++) if (t >= a[i] && t <= b[i]) {
		k = x[c["Name"]] "\t(" x[c["GrdX"]] ", " x[c["GrdY"]] ", " x[c["GrdZ"]] ")\t(" x[c["BlkX"]] ", " x[c["BlkY"]] ", " x[c["BlkZ"]] ")"
		ns[k] += x[c["Duration (ns)"]]; l[k]++; if (!(k in f1) || t < f1[k]) f1[k] = t; break } }
END { for (k in ns) printf "%s\t%s\t%s\t%.0f\n", k, ns[k], l[k], f1[k] }'

test_expect_success 'lp-shapes: decode_all by launch configuration, each the trace'"'"'s own time; shapes add up to nvtx_kern_sum' '
	lp-shapes -r "$R" -p "$I/llama_nvtx_gpu_proj_trace.csv" -k "$I/llama_nvtx_kern_sum_mangled.csv" \
		-d "$I/llama_nvtx_kern_sum.csv" "$I/llama_cuda_gpu_trace.csv" >"$TRASH/shapes.tsv" 2>err &&
	test_must_be_empty err &&
	A -v R="$R" "$spans_awk" "$I/llama_nvtx_gpu_proj_trace.csv" "$I/llama_cuda_gpu_trace.csv" |
		awk -F"\t" "{ print \$2 \"\t\" \$3 \"\t\" \$4 \"\t\" \$5 \"\t\" \$6 }" | sort >expect &&
	table "$TRASH/shapes.tsv" grid block total_ns calls first_ns | sort >got &&
	test_cmp expect got &&
	test $(wc -l <got) = 50 &&
	# the top GEMM kernel: three projections, two grids in decode
	table "$TRASH/shapes.tsv" kernel grid total_ns | grep "^nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT	" >gemm &&
	test $(wc -l <gemm) = 2 &&
	grep -F "(4, 22, 1)	7439011" gemm && grep -F "(4, 8, 1)	4262525" gemm &&
	# its configurations add up to its nvtx_kern_sum total in the range
	awk -F"\t" "{ s += \$3 } END { print s }" gemm >sum &&
	grep -F ":LLM@decode_all" "$I/llama_nvtx_kern_sum_mangled.csv" | grep -F ",nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT" |
		awk -F, "{ print \$7 }" >expect &&
	test_cmp expect sum
'

test_expect_success 'lp-topn -s: pairs by nsys time until they carry COVER of the stage, at most -S' '
	lp-topn -x "$ROOT/conf/operators.yaml" -r "$R" -s "$TRASH/shapes.tsv" -S 40 -p 95 "$I/llama_nvtx_kern_sum_mangled.csv" >"$TRASH/topn.tsv" &&
	table "$TRASH/topn.tsv" cum_pct >cum &&
	test $(wc -l <cum) = 23 &&
	test "$(sed -n 22p cum | cut -d. -f1)" -lt 95 &&
	test "$(tail -1 cum | cut -d. -f1)" -ge 95 &&
	test_grep "^# kernels: 19$" "$TRASH/topn.tsv" &&
	table "$TRASH/topn.tsv" kernel grid | sed -n 1,2p >top2 &&
	printf "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT\t(4, 22, 1)\nnvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT\t(4, 8, 1)\n" >expect &&
	test_cmp expect top2 &&
	lp-topn -r "$R" -s "$TRASH/shapes.tsv" -S 5 -p 95 "$I/llama_nvtx_kern_sum_mangled.csv" >t5.tsv &&
	test $(table t5.tsv rank | wc -l) = 5
'

test_expect_success 'lp-ncucmd: the pairs become ncu'"'"'s per-launch-config filter on their kernels' '
	printf "run:\n  stage: decode_all\nstages:\n  decode_all: {domain: \"\", range: LLM@decode_all}\nncu_cli:\n  launches_per_kernel: 1\n  stop_when_done: true\n" >ncu.yaml &&
	lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <ncu.yaml >cmd &&
	test_grep " --filter-mode per-launch-config --launch-count 1 " cmd &&
	! grep -e "--kill" -e "--kernel-id" cmd &&
	lp-ncucmd -d -k "$TRASH/topn.tsv" <ncu.yaml >d &&
	test_grep "selected kernels: 19, in 23 launch configurations" d
'

test_expect_success 'lp-topn -s: # configs: every configuration of the kept kernels in the stage (awk); lp-ncucmd -n stops there' '
	table "$TRASH/topn.tsv" kernel | sort -u >kept &&
	table "$TRASH/shapes.tsv" kernel | awk "NR == FNR { k[\$0] = 1; next } \$0 in k { n++ } END { print n }" kept - >expect &&
	sed -n "s/^# configs: //p" "$TRASH/topn.tsv" >got &&
	test_cmp expect got && test "$(cat got)" -gt 23 &&
	printf "run:\n  stage: decode_all\nstages:\n  decode_all: {domain: \"\", range: LLM@decode_all}\nncu_cli:\n  launches_per_kernel: 1\n  stop_when_done: true\n" >ncu.yaml &&
	lp-ncucmd -n -k "$TRASH/topn.tsv" <ncu.yaml >n && test_cmp expect n &&
	sed "s/stop_when_done: true/stop_when_done: false/" ncu.yaml >nostop.yaml &&
	test "$(lp-ncucmd -n -k "$TRASH/topn.tsv" <nostop.yaml)" = 0 &&
	lp-topn -r "$R" -n 5 "$I/llama_nvtx_kern_sum_mangled.csv" >kern.tsv &&
	test "$(lp-ncucmd -n -k kern.tsv <ncu.yaml)" = 0
'

# "# stop:": ncu's per-launch-config filter meets the configurations in
# the order the stage first runs them; every selected pair is profiled at
# the last selected pair's first launch, so lp-ncustop need not wait for a
# configuration of a selected kernel that first runs later (a compiled
# decode's rare shape: tests/gpu/README.md).  Here every configuration
# runs before the last selected one (awk); a configuration added after it
# (1 us, late) counts in "# configs:" and not in "# stop:".
test_expect_success 'lp-topn -s: # stop: the configurations up to the last selected pair'"'"'s first launch (awk); lp-ncucmd -n stops there' '
	table "$TRASH/topn.tsv" kernel grid block | sed "s/\t/|/g" >sel &&
	table "$TRASH/shapes.tsv" kernel grid block first_ns | sed "s/\t/|/; s/\t/|/" |
		awk -F"\t" "NR == FNR { s[\$0] = 1; next } { k = \$1; sub(/\|.*/, \"\", k); r[FNR] = k; f[FNR] = \$2; n = FNR
			if (\$1 in s) { kk[k] = 1; if (\$2 > last) last = \$2 } }
			END { for (i = 1; i <= n; i++) if ((r[i] in kk) && f[i] <= last) m++; print m }" sel - >expect &&
	sed -n "s/^# stop: //p" "$TRASH/topn.tsv" >got &&
	test_cmp expect got &&
	{ cat "$TRASH/shapes.tsv" &&
	  printf "51\tnvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT\t(9, 9, 1)\t(384, 1, 1)\t1000\t1\t1000\t0\t100\t99999999999999\n"; } >late.tsv &&
	lp-topn -x "$ROOT/conf/operators.yaml" -r "$R" -s late.tsv -S 40 -p 95 "$I/llama_nvtx_kern_sum_mangled.csv" >late.top &&
	c=$(sed -n "s/^# configs: //p" late.top) && s=$(sed -n "s/^# stop: //p" late.top) &&
	test "$c" = $(( $(cat got) + 1 )) && test "$s" = "$(cat got)" &&
	printf "run:\n  stage: decode_all\nstages:\n  decode_all: {domain: \"\", range: LLM@decode_all}\nncu_cli:\n  launches_per_kernel: 1\n  stop_when_done: true\n" >ncu.yaml &&
	test "$(lp-ncucmd -n -k late.top <ncu.yaml)" = "$s" &&
	# two launches each: ncu meets a configuration again later, so all of them
	sed "s/launches_per_kernel: 1/launches_per_kernel: 2/" ncu.yaml >two.yaml &&
	test "$(lp-ncucmd -n -k late.top <two.yaml)" = $(( 2 * c )) &&
	# a table of lp-shapes without first_ns (an older run): "# configs:"
	cut -f1-9 late.tsv >old.tsv &&
	lp-topn -x "$ROOT/conf/operators.yaml" -r "$R" -s old.tsv -S 40 -p 95 "$I/llama_nvtx_kern_sum_mangled.csv" >old.top &&
	! grep "^# stop:" old.top &&
	test "$(lp-ncucmd -n -k old.top <ncu.yaml)" = "$c"
'

test_expect_success 'an import of the run: a roofline point per launch configuration with its own nsys time' '
	lpmake RUN=plc "IMPORT=$(echo "$I"/*.csv)" MODEL=hf-llama stakeholder_summary.md >out 2>err || { cat err; false; } &&
	r=$S2/plc &&
	# the GEMM kernel: two points, 16.78 % and 9.62 %, adding up to the kernel
	table "$r/roofline.tsv" kernel grid class nsys_ns stage_pct | grep "^nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT	" |
		awk -F"\t" -v OFS="\t" "{ \$5 = sprintf(\"%.2f\", \$5) } 1" >pts &&
	test $(wc -l <pts) = 2 &&
	grep -F "(4, 22, 1)	memory-bound	7439011	16.78" pts &&
	grep -F "(4, 8, 1)	latency / under-filled	4262525	9.62" pts &&
	awk -F"\t" "{ s += \$4 } END { print s }" pts >sum &&
	table "$r/kernels.tsv" kernel total_ns | grep "^nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT	" | cut -f2 >expect &&
	test_cmp expect sum &&
	# every point of every kernel: its own nsys time, from the trace
	test_grep "^# coverage: 100.0 % of :LLM@decode_all (50 of 50 launch configurations" "$r/roofline.tsv" &&
	# the summary says it, and the ncu step'"'"'s cost says what it reached
	test_grep "^ncu measured the launch configurations carrying 100.0 % of :LLM@decode_all.s kernel time (50 of its 50 configurations, 50 launches profiled)" \
		"$r/details.md" &&
	printf "ncu profile\t31.64\t1\n" >ncu.time &&
	lp-cost -k "$I/plc1_ncu_raw.csv" -c "$r/roofline.tsv" ncu.time >cost.tsv &&
	test_grep "^# note: ncu profile: 50 kernels x 4 passes, the launch configurations carrying 100.0 % of :LLM@decode_all of kernel time (roofline.tsv);" cost.tsv &&
	# the class of a kernel whose shapes differ
	table "$r/top_kernels.tsv" class | sed -n 1p >cls &&
	echo "mixed: memory-bound (grid (4, 22, 1)); latency / under-filled (grid (4, 8, 1))" >expect &&
	test_cmp expect cls &&
	grep "^| 1 | .nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT. |" "$r/kernels.md" | awk -F" [|] " "{ print \$NF }" | sed "s/ |\$//" >kcls &&
	test_cmp expect kcls
'

test_expect_success 'findings: a saving per shape from its own time, none above it, the kernel'"'"'s the sum' '
	r=$S2/plc &&
	table "$r/findings.tsv" finding saving_ns evidence | grep "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT. (grid" >f &&
	test $(wc -l <f) = 2 &&
	# memory-bound (4, 22, 1): 7.439 ms x (1 - 57.38 %); under-filled (4, 8, 1): 4.263 ms x (1 - 29.64 %)
	awk -F"\t" "/4, 22, 1/ { a = \$2 } /4, 8, 1/ { b = \$2 } END { printf \"%d %d\n\", a, b }" f >got &&
	table "$r/roofline.tsv" kernel grid nsys_ns roof_pct | grep "^nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT	" |
		awk -F"\t" "{ s[\$2] = \$3 * (1 - \$4 / 100) } END { printf \"%d %d\n\", s[\"(4, 22, 1)\"], s[\"(4, 8, 1)\"] }" >expect &&
	awk "{ print int(\$1 / 1000), int(\$2 / 1000) }" expect >e && awk "{ print int(\$1 / 1000), int(\$2 / 1000) }" got >g &&
	test_cmp e g &&
	grep -F "7.439 ms in the stage (16.8% of its GPU time, this launch configuration" f &&
	# no finding saves more than the time it comes from
	table "$r/findings.tsv" rule saving_ns evidence | awk -F"\t" "\$1 ~ /bound|filled/ && \$3 ~ /ms in the stage/ {
		split(\$3, m, \" ms\"); if (\$2 / 1e6 > m[1] + 0.001) bad++ } END { exit bad > 0 }"
'

test_expect_success 'unavailable: no trace, kernels as before; a trace that does not match the summary is said, not used' '
	lp-shapes -r "$R" -p "$I/nope.csv" -k "$I/llama_nvtx_kern_sum_mangled.csv" "$I/llama_cuda_gpu_trace.csv" >u.tsv &&
	test_grep "^# unavailable: no launch configurations: the run has no " u.tsv &&
	lp-topn -r "$R" -s u.tsv -n 7 "$I/llama_nvtx_kern_sum_mangled.csv" >k.tsv &&
	test $(table k.tsv rank | wc -l) = 7 && test_grep "^# shapes: n/a because" k.tsv &&
	! grep grid k.tsv &&
	lp-shapes -r :LLM@prefill -p "$I/llama_nvtx_gpu_proj_trace.csv" -k "$I/llama_nvtx_kern_sum_mangled.csv" \
		-d "$I/llama_nvtx_kern_sum.csv" "$I/llama_cuda_gpu_trace.csv" >pre.tsv &&
	table pre.tsv total_ns | awk "{ s += \$1 } END { print s }" >got &&
	grep -F ":LLM@prefill," "$I/llama_nvtx_kern_sum_mangled.csv" | awk -F, "{ s += \$7 } END { print s }" >expect &&
	test_cmp expect got &&
	sed "s/,:LLM@decode_all,/,:LLM@decode_all,/" "$I/llama_nvtx_kern_sum_mangled.csv" |
		awk -F, -v OFS=, "\$1 == \":LLM@decode_all\" && \$13 ~ /^nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT/ { \$7 = \$7 * 2; \$8 = \$8 * 2; \$9 = \$9 * 2; \$10 = \$10 * 2; \$11 = \$11 * 2; \$12 = \$12 * 2 } { print }" >k2.csv &&
	lp-shapes -r "$R" -p "$I/llama_nvtx_gpu_proj_trace.csv" -k k2.csv "$I/llama_cuda_gpu_trace.csv" >m.tsv &&
	test_grep "^# unavailable: no launch configurations: nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT: 11701536 ns start inside" m.tsv
'

# The same run imported without its ncu export: lp-roofline gets -s and no
# -m, so no kernel has a point from ncu before its launch configurations
# (under SAN=1 it once handed qsort a null pointer there, which UBSan
# reports on stderr).
test_expect_success 'an import without ncu: a point per launch configuration, its nsys time, stderr empty' '
	lpmake RUN=nn "IMPORT=$(echo "$I"/llama_*.csv)" MODEL=hf-llama roofline.tsv >out 2>err || { cat err; false; } &&
	r=$S2/nn &&
	test_grep "^# coverage: 0.0 % of :LLM@decode_all (0 of 50 launch configurations" "$r/roofline.tsv" &&
	lp-roofline -s "$r/shapes.tsv" -g "$r/gpu.tsv" "$r/kernels.tsv" >r.tsv 2>err &&
	test_must_be_empty err &&
	table r.tsv flop_per_launch | sort -u >na &&
	echo n/a >expect && test_cmp expect na &&
	# a kernel'"'"'s points add up to its time in the stage
	table r.tsv kernel nsys_ns | awk -F"\t" "{ s[\$1] += \$2 } END { for (k in s) printf \"%s\t%.0f\n\", k, s[k] }" |
		sort >got &&
	test $(wc -l <got) -gt 1 &&
	table "$r/kernels.tsv" kernel total_ns | awk -F"\t" "NR == FNR { want[\$1] = 1; next } want[\$1]" got - | sort >expect &&
	test_cmp expect got
'

test_done
