#!/usr/bin/env bash
# Issue 17 on the GPU machine (run from the repo root with $OUT set):
# explore12 found about 1 s a kernel for every multi-pass metric set (8 to
# 19 passes alike) and 0.05 s for a one-pass set.  Is it a fixed cost of
# replaying at all (2 and 3 passes), and does it follow the workload's
# device memory (PyTorch's caching allocator off)?  Also: does ncu
# --query-metrics list the launch__ and throughput metrics lp would name?
# Writes $OUT/explore13.txt.
set -u
. .device/nsys-env.sh && . tests/gpu/device-env.sh >/dev/null
make -j16 >/dev/null 2>&1 || { echo build failed; exit 1; }
export LP_BIN=$PWD/bin
S=/tmp/lpe; mkdir -p $S /tmp/e13
summ() { python3 -u -c '
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
variant() {	# NAME metrics [env...]
	name=$1 m=$2; shift 2
	sed -e 's#--section [^ ]* ##g' -e "s#--metrics [^ ]*#--metrics $m#" -e "s#--export [^ ]*#--export /tmp/e13/$name#" $C > /tmp/e13/$name.cmd
	t0=$(date +%s.%N)
	s=$(env "$@" sh /tmp/e13/$name.cmd 2>&1 | summ)
	t1=$(date +%s.%N)
	printf '%-14s %6.2f s  %s\n' $name "$(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }')" "$s"
}
SASS=$(for o in fadd fmul ffma hadd hmul hfma dadd dmul dfma; do printf 'sm__sass_thread_inst_executed_op_%s_pred_on.sum,' $o; done)
TC=sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_src_int8.sum,sm__ops_path_tensor_src_fp64.sum
T=gpu__time_duration.sum
{
	echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
	W="python3 tests/workloads/torch_decoder.py"
	$W >/dev/null 2>&1
	echo "torch_decoder alone: $( (time -p $W >/dev/null 2>&1) 2>&1 | awk '/real/ { print $2 }') s"
	make --no-print-directory LP_STAGE2_DIR=$S RUN=t WORK="$W" MODEL=torch-decoder TOPN= NCU_PRESET= SET= $S/t/ncu/profile.cmd >/tmp/e0.log 2>&1 || { tail -20 /tmp/e0.log; exit 1; }
	C=$S/t/ncu/profile.cmd
	echo "metrics.avail: $(wc -l < $S/t/ncu/metrics.avail) lines; launch__/device__/throughput names:"
	grep -E '^(launch__|device__attribute_multi|sm__throughput|gpu__dram_throughput|dram__throughput|gpu__time_duration) ' $S/t/ncu/metrics.avail | cut -c1-90
	variant p1 $T
	variant p1-dram $T,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum
	variant p2-fp16 $T,sm__ops_path_tensor_src_fp16.sum
	variant p-ffma $T,sm__sass_thread_inst_executed_op_ffma_pred_on.sum
	variant p-sass $T,${SASS%,}
	variant p-tc $T,$TC
	variant p19 $T,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,$TC,${SASS%,}
	variant p19-nocache $T,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,$TC,${SASS%,} PYTORCH_NO_CUDA_MEMORY_CACHING=1
	variant p2-nocache $T,sm__ops_path_tensor_src_fp16.sum PYTORCH_NO_CUDA_MEMORY_CACHING=1
	variant p19-again $T,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,$TC,${SASS%,}
} 2>&1 | tee "${OUT:-/tmp}/explore13.txt"
