#!/usr/bin/env bash
# make bench-aten: lp-atenops on hand-made captures of 100,000 and
# 1,000,000 PyTorch op ranges (tests/gen-aten.sh): time and peak RSS, to
# show memory staying flat while the ranges grow tenfold.  Prints figures;
# asserts nothing.  Needs GNU time.
set -eu
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LP_BIN:-$root/bin}
[ -x /usr/bin/time ] || { echo "bench-aten: needs GNU time (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lp-bench-aten.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$bin/lp-confmerge" "$root/conf/runner/stage2.yaml" "$root/conf/profiling/nsys/nsys.default.yaml" \
	"$root/conf/model/torch-decoder.yaml" >"$tmp/cfg.yaml"
for n in ${LP_BENCH_ATEN_N:-100000 1000000}; do
	"$root/tests/gen-aten.sh" "$tmp/$n" "$n"
	mb=$(du -cm "$tmp/$n"/*.csv | tail -1 | cut -f1)
	/usr/bin/time -f "lp-atenops: $n op ranges ($mb MB of traces): %e s wall, %U s user, %S s sys, %M KB peak RSS" \
		"$bin/lp-atenops" -c "$tmp/cfg.yaml" -a "$tmp/$n/cuda_api_trace.csv" -g "$tmp/$n/cuda_gpu_trace.csv" \
		"$tmp/$n/nvtx_pushpop_trace.csv" >"$tmp/out.tsv"
	rm -rf "${tmp:?}/$n"
done
