#!/usr/bin/env bash
# GPU: the PyTorch decoder (default-domain "LLM@decode_all" ranges) end to
# end: nsys captures the whole run, ncu gets the escaped range.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/gpu/lib.sh"

test_expect_success 'make RUN=torch WORK=... MODEL=torch-decoder stakeholder_summary.md' '
	lpmake RUN=torch "WORK=python3 tests/workloads/torch_decoder.py" MODEL=torch-decoder \
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

test_done
