#!/usr/bin/env bash
# Crashes and mis-read numbers of issue 37: a setting or a table that a
# tool took as a fact or died on (SIGSEGV, SIGFPE) now gives a correct
# table or a refusal that names its cause, with file and line where there
# is one.  Inputs: the demo capture (tests/fixtures/h200-torch-v2, the
# PyTorch decoder on an H200), the tinyllm capture (h200-tinyllm-v2, NVTX
# domain LLM), and small hand-made tables that stand for a slip in a
# setting or a hand-edited export.
. "$(dirname "$0")/lib.sh"

V2=$FIX/h200-torch-v2
TL=$FIX/h200-tinyllm-v2

# Two stages naming one NVTX range: lp-stages kept one slot for both and
# read past its stages (heap-buffer-overflow, SIGSEGV under make).  Each
# SET below maps a stage onto another's range: refused, both named.
while read -r set shared first second; do
	test_expect_success "demo import, SET=$set: refused, both stages named" '
		test_expect_code 2 lpmake RUN=s "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder \
			"SET=$set" stages.tsv >out 2>err &&
		echo "lp-stages: $S2/s/nsys/config.yaml:$(sed -n "/^  $second:/,/range:/=" "$S2/s/nsys/config.yaml" | tail -1): stages \"$first\" and \"$second\" both name the NVTX range $shared: each stage needs a range of its own" >expect &&
		grep "^lp-" err >got &&
		test_cmp expect got &&
		test ! -e "$S2/s/stages.tsv"
	'
done <<\EOT
stages.decode_step.range=LLM@decode_all :LLM@decode_all decode_all decode_step
stages.decode_step.range=LLM@prefill :LLM@prefill prefill decode_step
stages.decode_all.range=LLM@decode_step :LLM@decode_step decode_all decode_step
stages.prefill.range=LLM@decode_all :LLM@decode_all prefill decode_all
EOT

test_expect_success 'tinyllm import, SET=stages.decode_step.range=decode_all (domain LLM): refused' '
	test_expect_code 2 lpmake RUN=t "IMPORT=$(echo "$TL"/tinyllm_*.csv)" MODEL=tinyllm \
		SET=stages.decode_step.range=decode_all stages.tsv >out 2>err &&
	test_grep "^lp-stages: .*/config.yaml:[0-9]*: stages \"decode_all\" and \"decode_step\" both name the NVTX range LLM:decode_all: each stage needs a range of its own$" err
'

# Mappings that share no range give a table: a range the capture lacks is
# n/a with its reason, two stages trading ranges trade rows.
test_expect_success 'demo import: a missing range or two swapped ranges give a table' '
	lpmake RUN=m "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder \
		SET=stages.decode_step.range=decode_all stages.tsv >/dev/null &&
	table "$S2/m/stages.tsv" stage range instances >got &&
	printf "prefill\t:LLM@prefill\t1\ndecode_all\t:LLM@decode_all\t1\n" >expect &&
	printf "decode_step\t:decode_all\tn/a because the range is not in nvtx_sum: outside the capture, or never pushed\n" >>expect &&
	test_cmp expect got &&
	lpmake RUN=w "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder \
		"SET=stages.prefill.range=LLM@decode_all stages.decode_all.range=LLM@prefill" stages.tsv >/dev/null &&
	table "$S2/w/stages.tsv" stage range instances wall_total_ns >got &&
	# Instances and Total Time of torch_nvtx_sum.csv
	cat >expect <<-\EOT &&
	prefill	:LLM@decode_all	1	2559298697
	decode_all	:LLM@prefill	1	1267641979
	decode_step	:LLM@decode_step	32	2559013843
	EOT
	test_cmp expect got
'

# lp-stages and every tool reading the stages, fed directly: the config
# of a slip, the same refusal from each.
test_expect_success 'lp-stages, lp-steps, lp-hostside, lp-ranks: two stages on one range refused' '
	cat >c.yaml <<-\EOC &&
	stages:
	  prefill:
	    domain: ""
	    range: LLM@prefill
	  decode_all:
	    domain: ""
	    range: LLM@decode_all
	  decode_step:
	    domain: ""
	    range: LLM@decode_all
	EOC
	echo "TOOL: c.yaml:10: stages \"decode_all\" and \"decode_step\" both name the NVTX range :LLM@decode_all: each stage needs a range of its own" >msg &&
	test_expect_code 1 lp-stages -c c.yaml -k "$V2/torch_nvtx_kern_sum.csv" "$V2/torch_nvtx_sum.csv" >out 2>err &&
	test_must_be_empty out &&
	sed s/TOOL/lp-stages/ msg >expect && test_cmp expect err &&
	test_expect_code 1 lp-steps -c c.yaml "$V2/torch_nvtx_pushpop_trace.csv" >out 2>err &&
	test_must_be_empty out &&
	sed s/TOOL/lp-steps/ msg >expect && test_cmp expect err &&
	test_expect_code 1 lp-hostside -c c.yaml "$V2/torch_nvtx_pushpop_trace.csv" >out 2>err &&
	test_must_be_empty out &&
	sed s/TOOL/lp-hostside/ msg >expect && test_cmp expect err &&
	test_expect_code 1 lp-ranks -c c.yaml -o "$ROOT/conf/operators.yaml" -k "$V2/torch_nvtx_kern_sum.csv" >out 2>err &&
	test_must_be_empty out &&
	sed s/TOOL/lp-ranks/ msg >expect && test_cmp expect err
'

# A waterfall.tsv with only its measured row (a table cut short by hand):
# its legend had no rows and lp-wfsvg divided by zero (SIGFPE at -O0,
# undefined behaviour at -O2).  Refused; with one part left, drawn.
test_expect_success 'lp-wfsvg: a waterfall with only its measured row is refused' '
	lpmake RUN=d "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder waterfall.tsv >/dev/null &&
	awk -F"\t" "/^#/ || !h++ || \$1 == \"Measured step\"" "$S2/d/waterfall.tsv" >step.tsv &&
	test $(grep -vc "^#" step.tsv) = 2 &&
	test_expect_code 1 lp-wfsvg step.tsv >out 2>err &&
	test_must_be_empty out &&
	echo "lp-wfsvg: step.tsv: the measured step has no parts (the table has no row but \"Measured step\")" >expect &&
	test_cmp expect err &&
	awk -F"\t" "/^#/ || !h++ || \$1 == \"Measured step\" || \$1 ~ /^Floor/" "$S2/d/waterfall.tsv" >floor.tsv &&
	lp-wfsvg floor.tsv >floor.svg 2>err &&
	test_must_be_empty err &&
	xmllint --noout floor.svg &&
	# the floor, a segment of each bar (decode_step, prefill)
	test $(grep -c "^<rect x=\"160\.00\"" floor.svg) = 2
'

# A correlation ID ties a launch call (cuda_api_trace) to its kernel
# (cuda_gpu_trace).  "5e3" was read as the number 5000, and a launch call
# given the CorrID of the thread's previous one (its kernel already ran)
# was held for a kernel that never came while the other kernel went
# without its call: both joined at exit 0.  Hand-edited copies of the real
# GPT-2 op capture (tests/fixtures/h100-aten), one cell changed each.
AT=$FIX/h100-aten
HS=$FIX/h100-hostside
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
	"$ROOT/conf/model/torch-decoder.yaml" >"$TRASH/cfg.yaml" || exit 1
atenops() {
	lp-atenops -c "$TRASH/cfg.yaml" -a "$1" -g "$AT/gpt2_cuda_gpu_trace.csv" "$AT/gpt2_nvtx_pushpop_trace.csv"
}

test_expect_success 'lp-atenops: a CorrID not in digits is refused at its line and column' '
	# line 2316: cudaLaunchKernel, CorrID 5000
	test "$(sed -n 2316p "$AT/gpt2_cuda_api_trace.csv" | cut -d, -f3,5)" = cudaLaunchKernel,5000 &&
	sed "2316s/,5000,/,5e3,/" "$AT/gpt2_cuda_api_trace.csv" >api.csv &&
	test_expect_code 1 atenops api.csv >out 2>err &&
	test_must_be_empty out &&
	echo "lp-atenops: api.csv:2316:5: CorrID: an ID is a whole number in digits, got \"5e3\"" >expect &&
	test_cmp expect err
'

test_expect_success 'lp-atenops: two launch calls with one CorrID, or a CorrID going back, are refused' '
	# lines 106 and 108: the thread'"'"'s launch calls with CorrID 679 and
	# 694; 679'"'"'s kernel has run when 108 is called
	test "$(sed -n "106p;108p" "$AT/gpt2_cuda_api_trace.csv" | cut -d, -f3,5,7 | tr "\n" " ")" = \
		"cudaLaunchKernel,679,2025 cudaLaunchKernel,694,2025 " &&
	sed "108s/,694,/,679,/" "$AT/gpt2_cuda_api_trace.csv" >api.csv &&
	test_expect_code 1 atenops api.csv >out 2>err &&
	test_must_be_empty out &&
	echo "lp-atenops: api.csv:108:5: CorrID 679: the launch call on line 106 has it too: a correlation ID ties one call to its kernel" >expect &&
	test_cmp expect err &&
	sed "108s/,694,/,600,/" "$AT/gpt2_cuda_api_trace.csv" >api.csv &&
	test_expect_code 1 atenops api.csv >out 2>err &&
	test_must_be_empty out &&
	echo "lp-atenops: api.csv:108:5: CorrID 600: below the 679 of the thread'"'"'s launch call on line 106, where CUDA numbers a thread'"'"'s calls in order (captures merged into one trace?)" >expect &&
	test_cmp expect err &&
	# the real traces pass
	atenops "$AT/gpt2_cuda_api_trace.csv" >a.tsv &&
	test_grep "^# note: 2550 op ranges, 509 kernel launch calls, 509 kernels;" a.tsv
'

test_expect_success 'lp-hostside: a CorrID not in digits is refused at its line and column' '
	test "$(sed -n 10109p "$HS/llama_cuda_api_trace.csv" | cut -d, -f3,5)" = cudaLaunchKernel,52000 &&
	sed "10109s/,52000,/,5.2e4,/" "$HS/llama_cuda_api_trace.csv" >api.csv &&
	test_expect_code 1 lp-hostside -c "$TRASH/cfg.yaml" -a api.csv -g "$HS/llama_cuda_gpu_trace.csv" \
		"$HS/llama_nvtx_pushpop_trace.csv" >out 2>err &&
	test_must_be_empty out &&
	echo "lp-hostside: api.csv:10109:5: CorrID: an ID is a whole number in digits, got \"5.2e4\"" >expect &&
	test_cmp expect err
'

# A time column a tool does not read itself was passed over when it held
# text: lp-steps reads Start and Duration, and took a push/pop row whose
# End is "n/a" (the agreement End - Start = Duration skipped a cell that
# is not a number).  Every reader of nsys reports (tools/lib/rep.c, and
# the kernel summaries of ksum.c) now refuses it, at its line and column.
test_expect_success 'lp-steps, lp-ranks: End "n/a" or negative in the push/pop trace is refused' '
	csvset 3 "End (ns)" n/a <"$V2/torch_nvtx_pushpop_trace.csv" >pp.csv &&
	test_expect_code 1 lp-steps -c "$TRASH/cfg.yaml" pp.csv >out 2>err &&
	test_must_be_empty out &&
	echo "lp-steps: pp.csv:3:2: End (ns): not a number: \"n/a\"" >expect &&
	test_cmp expect err &&
	test_expect_code 1 lp-ranks -c "$TRASH/cfg.yaml" -o "$ROOT/conf/operators.yaml" pp.csv >out 2>err &&
	test_must_be_empty out &&
	sed s/^lp-steps/lp-ranks/ expect >expect.r && test_cmp expect.r err &&
	csvset 3 "End (ns)" -5 <"$V2/torch_nvtx_pushpop_trace.csv" >neg.csv &&
	test_expect_code 1 lp-steps -c "$TRASH/cfg.yaml" neg.csv >out 2>err &&
	echo "lp-steps: neg.csv:3:2: End (ns): negative: \"-5\"" >expect &&
	test_cmp expect err &&
	lp-steps -c "$TRASH/cfg.yaml" "$V2/torch_nvtx_pushpop_trace.csv" >steps.tsv
'

test_expect_success 'lp-stages, lp-topn: text in a summary time column they do not read is refused' '
	csvset 2 "Avg (ns)" n/a <"$V2/torch_nvtx_kern_sum.csv" >nk.csv &&
	test_expect_code 1 lp-stages -c "$TRASH/cfg.yaml" -k nk.csv "$V2/torch_nvtx_sum.csv" >out 2>err &&
	test_must_be_empty out &&
	echo "lp-stages: nk.csv:2:8: Avg (ns): not a number: \"n/a\"" >expect &&
	test_cmp expect err &&
	csvset 2 "Avg (ns)" 12x <"$V2/torch_cuda_gpu_kern_sum.csv" >ks.csv &&
	c=$(A "NR == 1 { n = csv(\$0, f); col(f, n, h); print h[\"Avg (ns)\"] }" ks.csv) &&
	test_expect_code 1 lp-topn ks.csv >out 2>err &&
	test_must_be_empty out &&
	echo "lp-topn: ks.csv:2:$c: Avg (ns): not a number: \"12x\"" >expect &&
	test_cmp expect err
'

test_done
