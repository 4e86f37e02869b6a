#!/usr/bin/env bash
# Issue 28, item 9: every reader checks the values it reads.  Real tables
# and exports (tests/fixtures/h100-aten: GPT-2 on an H100 with op ranges,
# with the ncu export of tests/fixtures/h100-hostside; two imported runs of
# the PyTorch decoder, tests/fixtures/h200-torch-live and h200-whole, as
# t0014 compares them), each with one cell changed or one row repeated, as
# a table edited by hand or mixed from two runs would be: a size past 2^63,
# calls -1 or 2.5, a negative time, a row twice.  Each is refused naming
# file, line and column, exit 1, and nothing on stdout.  Run it under
# LP_BIN=bin/san too: the lp-gpu and lp-verdict cases leaked there.
. "$(dirname "$0")/lib.sh"

AT=$FIX/h100-aten
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
	"$ROOT/conf/model/torch-decoder.yaml" >"$TRASH/cfg.yaml"
atenops() {	# atenops TRACE [options]: lp-atenops on the GPT-2 capture
	lp-atenops -c "$TRASH/cfg.yaml" -a "$AT/gpt2_cuda_api_trace.csv" -g "$AT/gpt2_cuda_gpu_trace.csv" \
		"${@:2}" "$1"
}
# line FILE PATTERN: the line number of the first row matching PATTERN
line() {
	grep -n -m 1 -- "$2" "$1" | cut -d: -f1
}
# dup FILE LINE: the table with its row LINE written twice
dup() {
	awk -v ln="$2" '{ print } NR == ln { print }' "$1"
}

test_expect_success 'setup: aten_ops.tsv with ncu figures and aten_opnames.tsv of the GPT-2 capture, its gpu.tsv' '
	lp-ncu2tsv "$FIX/h100-hostside/gpt2_ncu_raw_mangled.csv" >"$TRASH/m.tsv" &&
	atenops "$AT/gpt2_nvtx_pushpop_trace.csv" -m "$TRASH/m.tsv" -d "$AT/gpt2_cuda_gpu_kern_sum.csv" \
		-D "$AT/gpt2_cuda_gpu_kern_sum_mangled.csv" >"$TRASH/ops.tsv" &&
	atenops "$AT/gpt2_nvtx_pushpop_trace.csv" -N >"$TRASH/names.tsv" &&
	lp-gpu -d "$AT/gpt2_cuda_gpu_trace.csv" -t "$ROOT/conf/gpus.yaml" >"$TRASH/gpu.tsv" &&
	test_grep "^# key: stage op shapes\$" "$TRASH/ops.tsv" &&
	test_grep "^# key: stage op\$" "$TRASH/names.tsv" &&
	lp-oproof -g "$TRASH/gpu.tsv" "$TRASH/ops.tsv" >r.tsv &&
	test_grep "^prefill	aten::mm	\[\[64, 768\], \[768, 50257\]\]	1	" r.tsv
'

# The LM head of GPT-2 prefill (aten::mm [[64, 768], [768, 50257]]) with N
# written 2^63: one past the largest int64, which strtol read as 2^63 - 1
# (a 2MNK of 9.07e23 FLOPs at exit 0 before)
test_expect_success 'lp-atenops: an op size past 2^63 - 1 is refused at its op range' '
	ln=1764 &&
	sed -n "${ln}p" "$AT/gpt2_nvtx_pushpop_trace.csv" | grep "aten::mm, op_id = 1762, sizes = \[\[64, 768\], \[768, 50257\]\]" &&
	sed "${ln}s/\[768, 50257\]/[768, 9223372036854775808]/g" "$AT/gpt2_nvtx_pushpop_trace.csv" >p.csv &&
	test_expect_code 1 atenops p.csv >out 2>err &&
	test_grep "^lp-atenops: p.csv:1764:6: op range \"aten::mm\", sizes \[\[64, 768\], \[768, 9223372036854775808\]\]: a size past 2^63 - 1" err &&
	test_must_be_empty out
'

# The same op at N = 2^62, a size int64 holds but a weight of more
# elements than int64 counts; at N = 1e14, a weight int64 counts but 2MNK
# of one call 9.8e18 FLOPs, which no run does (and which the readers of
# aten_ops.tsv refuse: the table lp-atenops wrote was unreadable)
test_expect_success 'lp-atenops: a tensor past 2^63 - 1 elements, a 2MNK per call past 1e18 are refused at their op range' '
	sed "1764s/\[768, 50257\]/[768, 4611686018427387904]/g" "$AT/gpt2_nvtx_pushpop_trace.csv" >p.csv &&
	test_expect_code 1 atenops p.csv >out 2>err &&
	test_grep "^lp-atenops: p.csv:1764:6: op range \"aten::mm\", .*: a tensor of more than 2^63 - 1 elements" err &&
	test_must_be_empty out &&
	sed "1764s/\[768, 50257\]/[768, 100000000000000]/g" "$AT/gpt2_nvtx_pushpop_trace.csv" >p.csv &&
	test_expect_code 1 atenops p.csv >out 2>err &&
	test_grep "^lp-atenops: p.csv:1764:6: op range \"aten::mm\", .*: 2MNK of one call would be 9.83e+18 FLOPs, beyond 1e18" err &&
	test_must_be_empty out
'

# aten_ops.tsv with the LM head row's calls -1 (a table edited by hand)
test_expect_success 'lp-oproof: calls -1 is refused naming file, line and column' '
	ln=$(line "$TRASH/ops.tsv" "^prefill	aten::mm	\[\[64, 768\], \[768, 50257\]\]	") &&
	tsvset "$ln" calls -1 <"$TRASH/ops.tsv" >bad.tsv &&
	test_expect_code 1 lp-oproof -g "$TRASH/gpu.tsv" bad.tsv >out 2>err &&
	test_grep "^lp-oproof: bad.tsv:$ln:4: calls: negative: \"-1\"\$" err &&
	test_must_be_empty out
'

test_expect_success 'lp-oproof: calls 2.5 is refused' '
	ln=$(line "$TRASH/ops.tsv" "^prefill	aten::mm	") &&
	tsvset "$ln" calls 2.5 <"$TRASH/ops.tsv" >bad.tsv &&
	test_expect_code 1 lp-oproof -g "$TRASH/gpu.tsv" bad.tsv >out 2>err &&
	test_grep "^lp-oproof: bad.tsv:$ln:4: calls: not a whole number: \"2.5\"\$" err &&
	test_must_be_empty out
'

# aten_ops.tsv with the LM head row twice: two files' rows mixed, the op
# counted twice
test_expect_success 'lp-oproof: a (stage, op, shapes) row twice is refused' '
	ln=$(line "$TRASH/ops.tsv" "^prefill	aten::mm	") &&
	dup "$TRASH/ops.tsv" "$ln" >bad.tsv &&
	test_expect_code 1 lp-oproof -g "$TRASH/gpu.tsv" bad.tsv >out 2>err &&
	test_grep "^lp-oproof: bad.tsv:$((ln + 1)):1: a second row for stage \"prefill\", op \"aten::mm\", shapes \"\[\[64, 768\], \[768, 50257\]\]\" (the first is line $ln): the table has one row per stage, op and shapes" err &&
	test_must_be_empty out &&
	# the same without the "# key:" line: lp-oproof knows its key
	grep -v "^# key:" bad.tsv >nokey.tsv &&
	test_expect_code 1 lp-oproof -g "$TRASH/gpu.tsv" nokey.tsv 2>err &&
	test_grep "a second row for stage \"prefill\"" err
'

# aten_opnames.tsv (what the summary's Top Operators are cut from) with
# decode_all's first row edited: calls -1, calls 2.5, GPU time -1 ns
test_expect_success 'lp-tabtop: calls -1, calls 2.5 and a negative GPU time are refused' '
	ln=$(line "$TRASH/names.tsv" "^decode_all	") &&
	tsvset "$ln" calls -1 <"$TRASH/names.tsv" >neg.tsv &&
	test_expect_code 1 lp-tabtop -w stage=decode_all -n 3 neg.tsv >out 2>err &&
	test_grep "^lp-tabtop: neg.tsv:$ln:4: calls: negative: \"-1\"\$" err &&
	test_must_be_empty out &&
	tsvset "$ln" calls 2.5 <"$TRASH/names.tsv" >frac.tsv &&
	test_expect_code 1 lp-tabtop -w stage=decode_all frac.tsv >out 2>err &&
	test_grep "^lp-tabtop: frac.tsv:$ln:4: calls: not a whole number: \"2.5\"\$" err &&
	test_must_be_empty out &&
	tsvset "$ln" kernel_ns -1 <"$TRASH/names.tsv" >time.tsv &&
	test_expect_code 1 lp-tabtop -w stage=decode_all time.tsv >out 2>err &&
	test_grep "^lp-tabtop: time.tsv:$ln:5: kernel_ns: negative: \"-1\"\$" err &&
	test_must_be_empty out
'

test_expect_success 'lp-tabtop: a (stage, op) row twice is refused, in the kept stage or not' '
	ln=$(line "$TRASH/names.tsv" "^decode_all	") &&
	dup "$TRASH/names.tsv" "$ln" >bad.tsv &&
	test_expect_code 1 lp-tabtop -w stage=decode_all -n 3 bad.tsv >out 2>err &&
	test_grep "^lp-tabtop: bad.tsv:$((ln + 1)):1: a second row for stage \"decode_all\", op \"[^\"]*\" (the first is line $ln): the table has one row per stage and op" err &&
	test_must_be_empty out &&
	test_expect_code 1 lp-tabtop -w stage=prefill -n 3 bad.tsv >out 2>err &&
	test_grep "a second row for stage \"decode_all\"" err
'

# A cuda_gpu_trace naming two models: the tinyllm trace of h200-whole with
# its second kernel on an "NVIDIA H100 80GB HBM3 (1)" (two GPUs of
# different kinds in one machine).  The table says so; under SAN the name
# of the second model leaked.
test_expect_success 'lp-gpu: two GPU models in one trace, the GPU unknown, no leak' '
	sed "3s/,NVIDIA H200 (0),/,NVIDIA H100 80GB HBM3 (1),/" "$FIX/h200-whole/tinyllm_cuda_gpu_trace.csv" >two.csv &&
	test $(grep -c "NVIDIA H100 80GB HBM3 (1)" two.csv) = 1 &&
	lp-gpu -d two.csv -t "$ROOT/conf/gpus.yaml" >g.tsv 2>err &&
	test_must_be_empty err &&
	test_grep "^# why: the GPU is unknown: cuda_gpu_trace names two models (\"NVIDIA H200\", \"NVIDIA H100 80GB HBM3\")" g.tsv
'

test_expect_success 'setup: two imported runs of the PyTorch decoder and their comparison' '
	lpmake RUN=big "IMPORT=$(echo "$FIX"/h200-torch-live/torch_*.csv)" MODEL=torch-decoder \
		stakeholder_summary.md >/dev/null &&
	lpmake RUN=small "IMPORT=$(echo "$FIX"/h200-whole/torch_*.csv)" MODEL=torch-decoder \
		stakeholder_summary.md >/dev/null &&
	lpmake RUN=small BASE=big compare.md >/dev/null &&
	test_grep "^# key: stage metric\$" "$S2/small/compare_stages.tsv" &&
	test_grep "^# key: kernel status\$" "$S2/small/compare.tsv"
'

# compare_stages.tsv with prefill's median wall time twice (under SAN,
# the first row's significance text leaked; the verdict took the second)
test_expect_success 'lp-verdict: a (stage, metric) row of compare_stages.tsv twice is refused' '
	r=$S2/small &&
	ln=$(line "$r/compare_stages.tsv" "^prefill	wall time, median	") &&
	dup "$r/compare_stages.tsv" "$ln" >st.tsv &&
	test_expect_code 1 lp-verdict st.tsv "$r/compare.tsv" >out 2>err &&
	test_grep "^lp-verdict: st.tsv:$((ln + 1)):1: a second row for stage \"prefill\", metric \"wall time, median\" (the first is line $ln)" err &&
	test_must_be_empty out
'

# compare.tsv with its first kernel twice: the verdict could name it twice
# among the kernels that moved most (and count a vanished one's launches
# twice)
test_expect_success 'lp-verdict: a (kernel, status) row of compare.tsv twice is refused' '
	r=$S2/small &&
	ln=$(line "$r/compare.tsv" "^1	") &&
	dup "$r/compare.tsv" "$ln" >k.tsv &&
	test_expect_code 1 lp-verdict "$r/compare_stages.tsv" k.tsv >out 2>err &&
	test_grep "^lp-verdict: k.tsv:$((ln + 1)):3: a second row for kernel \"[^\"]*\", status \"both\" (the first is line $ln)" err &&
	test_must_be_empty out
'

# Other readers of lp's tables, the same checks through lp_tab_next:
# kernels.tsv with its largest kernel twice (lp-ops summed its time twice
# into its class), stages.tsv with a stage twice (the summary showed both),
# aten_opnames.tsv with a count shown whole at 2.5 (shapes, the summary
# printed it)
test_expect_success 'lp-ops: a kernel row of kernels.tsv twice is refused' '
	r=$S2/small &&
	test_grep "^# key: kernel\$" "$r/kernels.tsv" &&
	ln=$(line "$r/kernels.tsv" "^1	") &&
	dup "$r/kernels.tsv" "$ln" >k.tsv &&
	test_expect_code 1 lp-ops -o "$ROOT/conf/operators.yaml" k.tsv >out 2>err &&
	test_grep "^lp-ops: k.tsv:$((ln + 1)):2: a second row for kernel \"[^\"]*\" (the first is line $ln): the table has one row per kernel" err &&
	test_must_be_empty out
'

test_expect_success 'lp-summary: a stage row of stages.tsv twice, and a count shown whole at 2.5, are refused' '
	r=$S2/small &&
	ln=$(line "$r/stages.tsv" "^prefill	") &&
	dup "$r/stages.tsv" "$ln" >stages.tsv &&
	test_expect_code 1 lp-summary stages.tsv >out 2>err &&
	test_grep "^lp-summary: stages.tsv:$((ln + 1)):1: a second row for stage \"prefill\" (the first is line $ln)" err &&
	test_must_be_empty out &&
	lp-summary "$TRASH/names.tsv" >/dev/null &&
	ln=$(line "$TRASH/names.tsv" "^prefill	") &&
	tsvset "$ln" shapes 2.5 <"$TRASH/names.tsv" >names.tsv &&
	test_expect_code 1 lp-summary names.tsv >out 2>err &&
	test_grep "^lp-summary: names.tsv:$ln:3: shapes: not a whole number: \"2.5\"\$" err &&
	test_must_be_empty out
'

test_done
