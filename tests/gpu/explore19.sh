#!/usr/bin/env bash
# Issue 27, items 2 and 4 on the GPU machine: the deep profile's cost with
# the few-pass preset (NCU_PRESET=fast) against the default on the
# TinyLlama-shaped Llama and GPT-2, every launch configuration of the
# selected pairs.  Writes $OUT/explore19.txt and cost.sh's files.
set -u
O=${OUT:-/tmp}
export LP_GPU_STAGE2=/tmp/lpx19
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
{
COST_PRESET=fast tests/gpu/cost.sh llf hf-llama python3 tests/workloads/hf_llama.py
tests/gpu/cost.sh lld hf-llama python3 tests/workloads/hf_llama.py
COST_PRESET=fast tests/gpu/cost.sh gpf hf-gpt2 python3 tests/workloads/hf_gpt2.py
for r in llf lld gpf; do
	echo "== $r: $(grep '^# coverage' $LP_GPU_STAGE2/$r/roofline.tsv)"
	grep '^# note: ncu' $LP_GPU_STAGE2/$r/profile_cost.tsv
	awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
		NR < 40 { printf "%s\t%.40s\t%s\t%s\t%s\t%s\n", $c["rank"], $c["name"], $c["class"], $c["grid"], $c["roof_pct"], $c["stage_pct"] }' $LP_GPU_STAGE2/$r/roofline.tsv | head -12
done
} 2>&1 | tee "$O/explore19.txt"
(cd "$LP_GPU_STAGE2" && tar czf "$O/runs19.tgz" --exclude='*.nsys-rep' --exclude='*.ncu-rep' \
	--exclude='*.sqlite' --exclude='*.log' --exclude='*api_trace*' --exclude='*gpu_trace*' . 2>/dev/null)
