#!/usr/bin/env bash
# GPU: the PyTorch decoder (default-domain "LLM@decode_all" ranges) end to
# end: nsys captures the whole run, ncu gets the escaped range.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/gpu/lib.sh"

# --warmup 0: no throw-away generation first, so the first decode step
# carries PyTorch's and CUDA's lazy loading, as a first run does.
test_expect_success 'make RUN=torch WORK=... MODEL=torch-decoder stakeholder_summary.md' '
	lpmake RUN=torch "WORK=python3 tests/workloads/torch_decoder.py --warmup 0" MODEL=torch-decoder \
		stakeholder_summary.md >log 2>&1 || { cat log; false; }
'

test_expect_success 'the commands: whole-run nsys, LLM\@decode_all/ for ncu' '
	! grep -q -e --capture-range "$S2/torch/nsys/profile.cmd" &&
	test_grep -e "--nvtx-include '"'"'LLM\\\\@decode_all/'"'"'" "$S2/torch/ncu/profile.cmd"
'

test_expect_success 'every kernel in kernels.md is in the nsys summary' 'check_kernels_in_nsys torch'
test_expect_success 'ncu profiled every selected kernel, once' 'check_ncu_profiled_selected torch'
test_expect_success 'no stage region is empty' 'check_stages_nonempty torch prefill decode_all decode_step'
test_expect_success 'the summary has the GPU, the tools and MFU' 'check_summary torch torch-decoder'

test_expect_success 'the warm-up step is named; steady-state step, tokens/s, MFU and MBU given' '
	r=$S2/torch &&
	sed "/^#/d" "$r/steps.tsv" | grep "^decode_step" | cut -f7 >w && echo yes >yes && test_cmp yes w &&
	# details.md shows the 10 columns of conf/details.yaml: stage, instances,
	# first, median of the rest, first / rest, warm-up, steady, min, max, tokens/s
	test_grep "^| decode_step | 32 | [0-9.]* | [0-9.]* | [0-9.]*x | yes | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* |$" "$r/details.md" &&
	tcol "$r/mfu.tsv" mfu_steady_pct | sed -n 3p >v && grep -q "^[0-9]" v &&
	tcol "$r/mbu.tsv" mbu_steady_pct | sed -n 1p >v && grep -q "^[0-9]" v &&
	# each finding starts with its anchor: "4. <a id=...></a>**The first"
	test_grep "warm-up dominates\|^[0-9]*\. \(<a id=\"findings-[0-9]*\"></a>\)\?\*\*The first decode_step took" "$r/details.md"
'

test_expect_success 'the roofline: tensor-core FLOPs of the top kernels, the chart shows them' '
	r=$S2/torch &&
	tcol "$r/roofline.tsv" precision | grep -c "^tensor fp16" >n && test "$(cat n)" -ge 2 &&
	test "$(grep -c "<circle" "$r/roofline.svg")" -ge 3 &&
	test_grep "^See \[roofline.svg\](roofline.svg).$" "$r/details.md"
'

test_expect_success 'regions of a PyTorch run (LLM\@... escaped): prefill, decode_all, decode_step' '
	lpmake RUN=torch regions.md >log 2>&1 || { cat log; false; } &&
	! grep -q -e "profiling with nsys" -e "lp: profiling with ncu" log &&
	test_grep -e "--nvtx-include .LLM\\\\@decode_step/." "$S2/torch/ncu/regions/profile.cmd"
'
test_expect_success 'regions: each measured; ncu against nsys within bounds' 'check_regions torch 0.2 5'
test_expect_success 'regions: tensor FLOPs of prefill near the model, decode above it (padding)' '
	paste <(tcol "$S2/torch/region_work.tsv" path) <(tcol "$S2/torch/region_work.tsv" hw_over_model) >hw &&
	cat hw >>"$S2/regions-ratios.txt" &&
	awk -F"\t" "\$1 == \"prefill\" && (\$2 < 0.8 || \$2 > 1.3) { print; bad = 1 }
		\$1 ~ /decode_step/ && \$2 <= 1.5 { print; bad = 1 } END { exit bad }" hw
'

test_done
