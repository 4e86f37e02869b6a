# tests/gpu/ncu-times.sh: sourced by the issue-17 experiments
# (explore12.sh, explore13.sh) on the GPU machine, from the repo root: the
# device's tools on PATH, lp built, and ncu_times, which reads ncu's output
# as it comes and prints the kernels it profiled, their replay passes and
# the seconds a kernel (from the first "==PROF== Profiling" to the last
# "100% - N passes").
set -u
. .device/nsys-env.sh && . tests/gpu/device-env.sh >/dev/null
make -j16 >/dev/null 2>&1 || { echo build failed; exit 1; }
export LP_BIN=$PWD/bin
ncu_times() { python3 -u -c '
import os, re, sys, time
t0 = time.time(); buf = b""; first = None; done = []; passes = []
while True:
    b = os.read(0, 65536)
    if not b: break
    now = time.time() - t0
    if first is None and b"==PROF== Profiling" in b: first = now
    buf += b
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        m = re.search(rb"100% - (\d+) pass", line)
        if m: done.append(now); passes.append(int(m.group(1)))
n = len(done)
if n:
    print("kernels %d, passes %s, first kernel at %.2f s, last done %.2f s, %.3f s a kernel"
          % (n, ",".join(map(str, sorted(set(passes)))), first, done[-1], (done[-1] - first) / n))
else:
    print("no kernel profiled")
'; }
# The GPU, torch_decoder alone (after a warm-up run), then lp's ncu command
# for its top 10 (nsys run, stats, top-N): $C names it.
torch_ncu_cmd() {
	echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
	W="python3 tests/workloads/torch_decoder.py"
	$W >/dev/null 2>&1
	echo "torch_decoder alone: $( (time -p $W >/dev/null 2>&1) 2>&1 | awk '/real/ { print $2 }') s"
	make --no-print-directory LP_STAGE2_DIR=$S RUN=t WORK="$W" MODEL=torch-decoder TOPN= NCU_PRESET= SET= \
		$S/t/ncu/profile.cmd >/tmp/e0.log 2>&1 || { tail -20 /tmp/e0.log; return 1; }
	C=$S/t/ncu/profile.cmd
}
SASS=$(for o in fadd fmul ffma hadd hmul hfma dadd dmul dfma; do printf 'sm__sass_thread_inst_executed_op_%s_pred_on.sum,' $o; done)
TC=sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_src_int8.sum,sm__ops_path_tensor_src_fp64.sum

# cmp_metrics A B: two runs' ncu/metrics.tsv (lp-ncu2tsv), per column: the
# rows (kernel, device) equal, and the range of B over A in the others
cmp_metrics() {
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
