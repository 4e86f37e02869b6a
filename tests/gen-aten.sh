#!/usr/bin/env bash
# tests/gen-aten.sh DIR [N]: a hand-made capture with N PyTorch op ranges
# (default 100000) for make bench-aten, standing for a long eager decode
# profiled with nsys --pytorch=autograd-shapes-nvtx (tests/fixtures/
# h100-aten has real ones of 2,500 ranges): one thread, the stage ranges
# :LLM@decode_all around :LLM@decode_step instances of 100 ops each, every
# op an aten::linear > aten::matmul > aten::mm (three ranges, op_ids unique,
# 8 input shapes) whose mm launches one kernel 5 us later.  Writes
# DIR/nvtx_pushpop_trace.csv, cuda_api_trace.csv, cuda_gpu_trace.csv in
# the columns and order nsys stats writes them.
set -eu
dir=$1
n=${2:-100000}
mkdir -p "$dir"
awk -v n="$n" -v dir="$dir" 'BEGIN {
	r = dir "/nvtx_pushpop_trace.csv"; a = dir "/cuda_api_trace.csv"; g = dir "/cuda_gpu_trace.csv"
	print "Start (ns),End (ns),Duration (ns),Name,PID,TID" > r
	print "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name" > a
	print "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Name" > g
	ops = int(n / 3); per = 100; steps = int((ops + per - 1) / per)
	t0 = 1000000; d = 30000; total = steps * (per * d + 1000) + 2000
	printf "%.0f,%.0f,%.0f,:LLM@decode_all,7,7\n", t0, t0 + total, total > r
	t = t0 + 1000; id = 0
	for (s = 0; s < steps; s++) {
		st = t; se = st + per * d + 500
		printf "%.0f,%.0f,%.0f,:LLM@decode_step,7,7\n", st, se, se - st > r
		t = st + 100
		for (k = 0; k < per && id < ops; k++) {
			m = 64 * (1 + id % 8); sz = sprintf("sizes = [[1, %d], [%d, 768]]", m, m)
			printf "%.0f,%.0f,%.0f,\":aten::linear, op_id = %d, %s, input_op_ids = [(1,0)]\",7,7\n", t, t + 20000, 20000, 3 * id + 1, sz > r
			printf "%.0f,%.0f,%.0f,\":aten::matmul, op_id = %d, %s, input_op_ids = [(1,0)]\",7,7\n", t + 100, t + 19000, 18900, 3 * id + 2, sz > r
			printf "%.0f,%.0f,%.0f,\":aten::mm, op_id = %d, %s, input_op_ids = [(1,0)]\",7,7\n", t + 200, t + 18000, 17800, 3 * id + 3, sz > r
			c = id + 1
			printf "%.0f,4000,cudaLaunchKernel,0,%d,7,7,20,python3\n", t + 1000, c > a
			# the kernel starts 5 us after its launch, before the next
			# launch: one in flight at a time
			printf "%.0f,%.0f,%.0f,%d,1,1,128,1,1,\"void gemv<(int)%d>(float *)\"\n", t + 6000, 3000 + m, c, m / 8, m > g
			t += d; id++
		}
		t = se + 500
	}
}'
