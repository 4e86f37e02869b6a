#!/usr/bin/env bash
# lp-inputs and lp-env: what a run profiles, and where.
. "$(dirname "$0")/lib.sh"

test_expect_success 'WORK is split like sh words, nothing expanded' '
	printf "%s\n" "python3 \"my llm.py\" --prompt '"'"'it is \$(date)'"'"' \$HOME" >work &&
	lp-inputs -w work >in.yaml &&
	lp-confget workload.argv in.yaml >got &&
	printf "%s\n" python3 "my llm.py" --prompt "it is \$(date)" "\$HOME" >expect &&
	test_cmp expect got
'

test_expect_success 'the model identity comes from its config' '
	echo "bin/tinyllm" >work &&
	lp-inputs -w work -m "$ROOT/conf/model/tinyllm.yaml" >in.yaml &&
	lp-confget model.name in.yaml >got && echo tinyllm >expect && test_cmp expect got &&
	lp-confget model.params in.yaml >got && echo 59768832 >expect && test_cmp expect got
'

test_expect_success 'IMPORT lists the exports' '
	echo "a_cuda_gpu_kern_sum.csv \"b c.csv\"" >imp &&
	lp-inputs -i imp >in.yaml &&
	lp-confget imports in.yaml >got &&
	printf "a_cuda_gpu_kern_sum.csv\nb c.csv\n" >expect &&
	test_cmp expect got
'

test_expect_success 'nothing to profile, both, or bad quoting: errors' '
	: >empty &&
	test_expect_code 2 lp-inputs -w empty >out 2>err && test_must_be_empty out &&
	test_grep "nothing to profile: give the workload as WORK=" err &&
	echo a >w && echo b.csv >i &&
	test_expect_code 2 lp-inputs -w w -i i 2>err && test_grep "not both" err &&
	echo "python3 \"open" >w &&
	test_expect_code 1 lp-inputs -w w 2>err && test_grep "lp-inputs: w:1: WORK: unterminated double quote" err &&
	printf "name: x\n" >m.yaml &&
	test_expect_code 1 lp-inputs -w i -m m.yaml 2>err && test_grep "no \"model:\" mapping" err
'

test_expect_success 'lp-env: GPU, driver, CUDA and tool versions, as JSON that YAML reads' '
	echo "sh w.sh" >work && lp-inputs -w work >in.yaml &&
	PATH=$ROOT/tests/fake:$PATH lp-env -r abc123 in.yaml >env.json &&
	lp-confget gpus.0.name env.json >got && echo "NVIDIA H200" >expect && test_cmp expect got &&
	lp-confget gpus.0.uuid env.json >got && echo "GPU-caedbb52-a7ac-b6fb-867b-b909a3c8cf20" >expect && test_cmp expect got &&
	lp-confget cuda_driver_api env.json >got && echo 13.0 >expect && test_cmp expect got &&
	lp-confget lp_revision env.json >got && echo abc123 >expect && test_cmp expect got &&
	lp-confget -0 workload_argv env.json >lp.out && <lp.out tr "\0" " " >got && printf "sh w.sh " >expect && test_cmp expect got &&
	test_grep "\"nsys_version\": \"NVIDIA Nsight Systems version 2025.3.1.0" env.json &&
	test_grep "\"ncu_version\": \"Version 2025.3.1.0" env.json &&
	test_grep "\"notes\": \[\]" env.json
'

test_expect_success 'lp-env: missing tools are named with where they were looked for' '
	echo "sh w.sh" >work && lp-inputs -w work >in.yaml &&
	env=$(command -v lp-env) &&
	PATH=/nonexistent "$env" in.yaml >env.json &&
	test_grep "\"gpus\": \[" env.json &&
	test_grep "nvidia-smi not found on PATH (/nonexistent)" env.json &&
	test_grep "nsys not found on PATH (/nonexistent)" env.json &&
	test_grep "\"nsys_version\": null" env.json
'

test_expect_success 'lp-env: an imported run records no local GPU' '
	echo x_cuda_gpu_kern_sum.csv >imp && lp-inputs -i imp >in.yaml &&
	PATH=$ROOT/tests/fake:$PATH lp-env in.yaml >env.json &&
	test_grep "\"mode\": \"import\"" env.json &&
	! grep -q gpus env.json &&
	test_grep "profiled elsewhere" env.json
'

test_done
