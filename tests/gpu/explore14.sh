#!/usr/bin/env bash
# Issue 17 on the GPU machine (run from the repo root with $OUT set): the
# deep profile with the default ncu metric list (no sections) against the
# same with the five sections of the old default added back (SET), for
# torch_decoder and hf_gpt2, as a new user runs it (tests/gpu/cost.sh);
# then every number of each pair's ncu/metrics.tsv compared, kernel by
# kernel.  Writes $OUT/explore14.txt and the cost-*.txt of cost.sh.
set -u
. .device/nsys-env.sh && . tests/gpu/device-env.sh >/dev/null
make -j16 >/dev/null 2>&1 || { echo build failed; exit 1; }
export PATH=$PWD/bin:$PATH LP_GPU_STAGE2=/tmp/lpc
SECS=ncu_cli.sections=SpeedOfLight,LaunchStats,Occupancy,MemoryWorkloadAnalysis,ComputeWorkloadAnalysis
# per column: rows equal, and the range of this run over the other
cmp1() {
	awk -F'\t' '/^#/ { next }
		!hdr[FILENAME]++ { for (i = 1; i <= NF; i++) c[i] = $i; nf = NF; next }
		NR == FNR { k = $1 "\t" $2; for (i = 3; i <= NF; i++) v[k, c[i]] = $i; next }
		{ k = $1 "\t" $2; if (!((k, c[3]) in v)) { print "    only in the second:", substr($1, 1, 60); next }
		  for (i = 3; i <= NF; i++) { n = c[i]; a = v[k, n]; b = $i; rows[n]++
			if (a == b) { same[n]++; continue }
			if (a + 0 == 0 || b + 0 == 0 || a !~ /^[0-9.e+-]+$/ || b !~ /^[0-9.e+-]+$/) { odd[n] = a " -> " b; continue }
			r = b / a; if (!(n in lo) || r < lo[n]) lo[n] = r; if (!(n in hi) || r > hi[n]) hi[n] = r } }
		END { for (i = 3; i <= nf; i++) { n = c[i]
			printf "    %-22s equal in %d of %d", n, same[n], rows[n]
			if (n in lo) printf ", others %.4f..%.4f", lo[n], hi[n]
			if (n in odd) printf ", e.g. %s", odd[n]
			print "" } }' "$1" "$2"
}
{
	echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(nsys --version); $(ncu --version | tail -1)"
	COST_SET=$SECS tests/gpu/cost.sh tdb torch-decoder python3 tests/workloads/torch_decoder.py
	tests/gpu/cost.sh tda torch-decoder python3 tests/workloads/torch_decoder.py
	COST_SET=$SECS tests/gpu/cost.sh gpb hf-gpt2 python3 tests/workloads/hf_gpt2.py
	tests/gpu/cost.sh gpa hf-gpt2 python3 tests/workloads/hf_gpt2.py
	for p in td gp; do
		echo "== $p: ncu/metrics.tsv, the default (no sections) over the sections added back"
		cmp1 /tmp/lpc/${p}b/ncu/metrics.tsv /tmp/lpc/${p}a/ncu/metrics.tsv
		grep -h "^lp: profiling with ncu" /tmp/lpc/${p}[ab].deep.log | cut -c1-200
	done
} 2>&1 | tee "${OUT:-/tmp}/explore14.txt"
for r in tdb tda gpb gpa; do cp /tmp/lpc/$r/ncu/metrics.tsv "${OUT:-/tmp}/metrics-$r.tsv" 2>/dev/null; done
