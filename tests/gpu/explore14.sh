#!/usr/bin/env bash
# Issue 17 on the GPU machine (run from the repo root with $OUT set): the
# deep profile with the default ncu metric list (no sections) against the
# same with the five sections of the old default added back (SET), for
# torch_decoder and hf_gpt2, as a new user runs it (tests/gpu/cost.sh);
# then every number of each pair's ncu/metrics.tsv compared, kernel by
# kernel.  Writes $OUT/explore14.txt and the cost-*.txt of cost.sh.
. tests/gpu/ncu-times.sh
export PATH=$PWD/bin:$PATH LP_GPU_STAGE2=/tmp/lpc
SECS=ncu_cli.sections=SpeedOfLight,LaunchStats,Occupancy,MemoryWorkloadAnalysis,ComputeWorkloadAnalysis
{
	echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(nsys --version); $(ncu --version | tail -1)"
	COST_SET=$SECS tests/gpu/cost.sh tdb torch-decoder python3 tests/workloads/torch_decoder.py
	tests/gpu/cost.sh tda torch-decoder python3 tests/workloads/torch_decoder.py
	COST_SET=$SECS tests/gpu/cost.sh gpb hf-gpt2 python3 tests/workloads/hf_gpt2.py
	tests/gpu/cost.sh gpa hf-gpt2 python3 tests/workloads/hf_gpt2.py
	for p in td gp; do
		echo "== $p: ncu/metrics.tsv, the default (no sections) over the sections added back"
		cmp_metrics /tmp/lpc/${p}b/ncu/metrics.tsv /tmp/lpc/${p}a/ncu/metrics.tsv
		grep -h "^lp: profiling with ncu" /tmp/lpc/${p}[ab].deep.log | cut -c1-200
	done
} 2>&1 | tee "${OUT:-/tmp}/explore14.txt"
for r in tdb tda gpb gpa; do cp /tmp/lpc/$r/ncu/metrics.tsv "${OUT:-/tmp}/metrics-$r.tsv" 2>/dev/null; done
