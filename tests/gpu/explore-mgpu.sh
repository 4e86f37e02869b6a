#!/usr/bin/env bash
# Multi-GPU probe (issue 10), on a machine with two GPUs: what nsys records
# of a torchrun tensor-parallel decode, captured around the launcher (one
# report, both ranks) and per rank (one report each), with and without a
# straggler; and whether ncu can profile one rank's kernels.
#   . .device/nsys-env.sh && bash tests/gpu/explore-mgpu.sh
set -u
root=$PWD
out=${OUT:-$root/explore-out}
mkdir -p "$out"
w=/tmp/lp-mgpu
rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
exec > >(tee "$out/mgpu.log") 2>&1
exec 3>&1
log() { printf '\n### %s\n' "$*"; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
timed() { local t0; t0=$(date +%s%N); "$@"; local rc=$?; echo "rc=$rc wall_ms=$(ms "$t0") :: ${*:1:8}" >&3; return $rc; }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

log versions
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
nvidia-smi topo -m | head -6
TR=$(command -v torchrun) || TR="python3 -m torch.distributed.run"
echo "torchrun: $TR"
python3 -c 'import torch; print(torch.__version__, torch.cuda.device_count(), torch.cuda.nccl.version())'
TP="$root/tests/workloads/tp_decode.py --tokens 8"

log "workload alone"
timed timeout 120 $TR --nproc-per-node 2 $TP
timed timeout 120 $TR --nproc-per-node 2 $TP --straggle-rank 1 --straggle-matmuls 40

NSYS="nsys profile --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --force-overwrite=true"
REPS="--report cuda_gpu_kern_sum --report cuda_gpu_kern_sum:mangled --report nvtx_sum --report nvtx_kern_sum --report nvtx_kern_sum:mangled --report cuda_api_sum --report cuda_gpu_mem_time_sum --report nvtx_pushpop_trace --report nvtx_gpu_proj_trace --report cuda_gpu_trace:mangled"
stats() { timed nsys stats $REPS --format csv --force-export=true -o "$1" "$1.nsys-rep" >"$1.stats.log" 2>&1; grep -iE 'error|skip' "$1.stats.log" | head -4; }
log "merged: nsys around torchrun"
timed timeout 180 $NSYS -o m $TR --nproc-per-node 2 $TP >m.out 2>&1; tail -3 m.out
stats m
log "merged with a straggler (rank 1, 40 extra matmuls a step)"
timed timeout 180 $NSYS -o s $TR --nproc-per-node 2 $TP --straggle-rank 1 --straggle-matmuls 40 >s.out 2>&1; tail -3 s.out
stats s
log "merged with a sleeping straggler (rank 1, 3 ms a step)"
timed timeout 180 $NSYS -o z $TR --nproc-per-node 2 $TP --straggle-rank 1 --straggle-ms 3 >z.out 2>&1; tail -3 z.out
stats z
log "per rank: torchrun --no-python nsys -o r%q{RANK}"
timed timeout 180 $TR --nproc-per-node 2 --no-python $NSYS -o 'r%q{RANK}' python3 $TP --straggle-rank 1 --straggle-matmuls 40 >r.out 2>&1; tail -3 r.out
ls r*.nsys-rep
for f in r*.nsys-rep; do stats "${f%.nsys-rep}"; done
for f in m s z r0 r1; do
	echo "== $f"; cat ${f}_nvtx_sum.csv 2>/dev/null | cut -c1-200
	head -4 ${f}_nvtx_pushpop_trace.csv 2>/dev/null | cut -c1-250
	grep -i nccl ${f}_cuda_gpu_kern_sum.csv | cut -c1-160 | head -3
	awk -F, 'NR>1{print $(NF-4)}' ${f}_cuda_gpu_trace_mangled.csv 2>/dev/null | sort | uniq -c | head
done
head -3 m_cuda_gpu_trace_mangled.csv; head -5 m_nvtx_kern_sum.csv | cut -c1-200
log "ncu on rank 0 only (--devices 0), GEMMs of decode_all"
timed timeout 150 ncu --target-processes all --devices 0 --nvtx --nvtx-include 'LLM\@decode_all/' --kernel-name-base function \
	--kernel-name 'regex:nvjet|gemv|gemm' --launch-count 3 --section SpeedOfLight --metrics gpu__time_duration.sum,dram__bytes.sum \
	-o n0 -f $TR --nproc-per-node 2 $TP >n0.log 2>&1
grep -E '==(ERROR|WARNING|PROF)==' n0.log | grep -v 'pass' | head -12
[ -f n0.ncu-rep ] && ncu --import n0.ncu-rep --page raw --csv --print-kernel-base mangled --print-units base >n0_raw.csv && cut -d, -f1-12 n0_raw.csv | head -6
tar czf "$out/mgpu.tgz" ./*.csv ./*.log ./*.out 2>/dev/null
ls -la "$out"
