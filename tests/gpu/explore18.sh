#!/usr/bin/env bash
# Issue 27 on the GPU machine (run from the repo root with $OUT set): the
# deep profile with ncu on every launch configuration of the selected
# (kernel, launch configuration) pairs (shapes.tsv, topn.tsv, ncu
# --filter-mode per-launch-config), its cost against the workload alone
# (tests/gpu/cost.sh) on the TinyLlama-shaped bf16 Llama and on GPT-2, and
# the runs' tables and exports for the CPU tests.  Writes
# $OUT/explore18.txt, the cost-*.txt and profile_cost-*.tsv of cost.sh and
# $OUT/runs18.tgz (the run folders without reports).
set -u
O=${OUT:-/tmp}
export LP_GPU_STAGE2=/tmp/lpx18
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
{
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
for w in "ll hf-llama python3 tests/workloads/hf_llama.py" "gp hf-gpt2 python3 tests/workloads/hf_gpt2.py"; do
	set -- $w
	tests/gpu/cost.sh "$@"
	r=$LP_GPU_STAGE2/$1
	echo "== $1: topn.tsv"; grep '^#' "$r/topn.tsv"; echo "pairs: $(grep -vc '^#' "$r/topn.tsv")"
	echo "== $1: ncu command"; cat "$r/ncu/profile.cmd"
	echo "== $1: ncu results: $(($(grep -c . "$r/ncu/report.csv") - 2))"
	echo "== $1: roofline coverage"; grep '^# coverage' "$r/roofline.tsv"
	echo "== $1: roofline points (rank, kernel, class, grid, nsys ms, stage %)"
	awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
		{ printf "%s\t%.50s\t%s\t%s\t%s\t%s\n", $c["rank"], $c["name"], $c["class"], $c["grid"], $c["nsys_ns"], $c["stage_pct"] }' "$r/roofline.tsv" | head -40
	echo "== $1: top kernels"; cut -f1,2,7,10 "$r/top_kernels.tsv" | grep -v '^#' | cut -c1-200 | head -12
	echo "== $1: findings"; cut -f1-4 "$r/findings.tsv" | grep -v '^#' | cut -c1-300 | head -14
done
} 2>&1 | tee "$O/explore18.txt"
(cd "$LP_GPU_STAGE2" && tar czf "$O/runs18.tgz" --exclude='*.nsys-rep' --exclude='*.ncu-rep' \
	--exclude='*.sqlite' --exclude='*.log' --exclude='*api_trace*' . 2>/dev/null)
ls -la "$O"
