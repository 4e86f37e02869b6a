#!/usr/bin/env bash
# GPU: a PyTorch LLM lp was not written for (Hugging Face GPT-2), with only
# WORK= and MODEL= changed.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/gpu/lib.sh"

test_expect_success 'make RUN=gpt2 WORK=... MODEL=hf-gpt2 stakeholder_summary.md' '
	lpmake RUN=gpt2 "WORK=python3 tests/workloads/hf_gpt2.py" MODEL=hf-gpt2 \
		stakeholder_summary.md >log 2>&1 || { cat log; false; }
'
test_expect_success 'every kernel in kernels.md is in the nsys summary' 'check_kernels_in_nsys gpt2'
test_expect_success 'ncu profiled every selected kernel, once' 'check_ncu_profiled_selected gpt2'
test_expect_success 'no stage region is empty' 'check_stages_nonempty gpt2 prefill decode_all decode_step'
test_expect_success 'the summary has the GPU, the tools and MFU' 'check_summary gpt2 hf-gpt2-small'

test_done
