#!/usr/bin/env bash
# Issue 17 on the GPU machine (run from the repo root with $OUT set):
# explore12 found about 1 s a kernel for every multi-pass metric set (8 to
# 19 passes alike) and 0.05 s for a one-pass set.  Is it a fixed cost of
# replaying at all (2 and 3 passes), and does it follow the workload's
# device memory (PyTorch's caching allocator off)?  Also: does ncu
# --query-metrics list the launch__ and throughput metrics lp would name?
# Writes $OUT/explore13.txt.
. tests/gpu/ncu-times.sh
S=/tmp/lpe; mkdir -p $S /tmp/e13
variant() {	# NAME metrics [env...]
	name=$1 m=$2; shift 2
	sed -e 's#--section [^ ]* ##g' -e "s#--metrics [^ ]*#--metrics $m#" -e "s#--export [^ ]*#--export /tmp/e13/$name#" $C > /tmp/e13/$name.cmd
	t0=$(date +%s.%N)
	s=$(env "$@" sh /tmp/e13/$name.cmd 2>&1 | ncu_times)
	t1=$(date +%s.%N)
	printf '%-14s %6.2f s  %s\n' $name "$(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }')" "$s"
}
T=gpu__time_duration.sum
{
	torch_ncu_cmd || exit 1
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
