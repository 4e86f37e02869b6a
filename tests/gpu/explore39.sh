#!/usr/bin/env bash
# Issue 39, item 1: what nsys 2025.3.1 writes when the model runs in a
# process forked without exec (multiprocessing "fork", CUDA first touched
# in the child): the stats log and each report's CSV (size, first lines),
# without and with --trace-fork-before-exec=true.
#   . .device/nsys-env.sh && bash tests/gpu/explore39.sh
set -u
out=${OUT:-/tmp}/e39; mkdir -p "$out"; w=/tmp/e39; mkdir -p "$w"
cat >"$w/forked.py" <<'PY'
import multiprocessing as mp, torch
def core():
    x = torch.randn(1024, 1024, device="cuda")
    for name in ("prefill", "decode_all"):
        torch.cuda.nvtx.range_push(name)
        for _ in range(4):
            torch.cuda.nvtx.range_push("decode_step")
            x = torch.tanh(x @ x); torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_pop()
    print("child done")
if __name__ == "__main__":
    mp.set_start_method("fork")
    p = mp.Process(target=core); p.start(); p.join()
    print("parent done", p.exitcode)
PY
for fbe in false true; do
	d=$out/fbe-$fbe; mkdir -p "$d"
	nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --trace-fork-before-exec=$fbe \
		--force-overwrite=true --output="$w/r-$fbe" -- python3 "$w/forked.py" >"$d/profile.log" 2>&1
	echo "fbe=$fbe profile rc=$?"
	nsys export --type sqlite --force-overwrite=true --output="$w/r-$fbe.sqlite" "$w/r-$fbe.nsys-rep" >"$d/export.log" 2>&1
	nsys stats --report nvtx_sum --report nvtx_pushpop_trace --report nvtx_kern_sum --report cuda_gpu_kern_sum \
		--report cuda_api_sum --report cuda_gpu_trace --format csv --output="$d/report" \
		"$w/r-$fbe.sqlite" >"$d/stats.log" 2>&1
	echo "stats rc=$?"
	cat "$d/stats.log"
	for f in "$d"/report_*.csv; do echo "== $f $(wc -c <"$f") bytes"; head -3 "$f"; done
done
