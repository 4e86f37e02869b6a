#!/usr/bin/env bash
# Issue 31, the export step (lp-nsyscmd -e) on the GPU machine: the Llama
# captured with 1 kHz GPU Metrics sampling, exported once with nsys export
# --type sqlite, then nsys stats over that export (what lp's stats step now
# runs) and over the report itself with --force-export (what it ran before),
# into two folders diffed report by report; nsys's own range for
# --gpu-metrics-frequency.  Run from the repository root:
#   . .device/nsys-env.sh && bash tests/gpu/explore31b.sh
set -u
X=/tmp/x31b
W=$PWD/tests/workloads/hf_llama.py
rm -rf $X && mkdir -p $X/a $X/b && cd $X || exit 1
nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --cuda-graph-trace=node \
	--gpu-metrics-devices=all --gpu-metrics-frequency=1000 --force-overwrite=true \
	--output=$X/report python3 "$W" >p.log 2>&1; echo profile $?
t0=$(date +%s.%N); nsys export --type sqlite --force-overwrite=true --output=$X/report.tmp.sqlite \
	$X/report.nsys-rep >e.log 2>&1; echo "export $? $(date +%s.%N) $t0"; ls -la
mv report.tmp.sqlite report.sqlite
R="--report cuda_gpu_kern_sum --report cuda_gpu_kern_sum:mangled --report nvtx_sum --report nvtx_kern_sum --report nvtx_kern_sum:mangled --report cuda_api_sum --report cuda_gpu_mem_time_sum --report nvtx_pushpop_trace --report nvtx_gpu_proj_trace --report cuda_gpu_trace --report cuda_api_trace"
t0=$(date +%s.%N); nsys stats $R --format csv --output=$X/a/report $X/report.sqlite >a.log 2>&1
echo "stats-sqlite $? $(date +%s.%N) $t0"
# a copy, so the export beside it is not the one read above
cp report.nsys-rep r2.nsys-rep
t0=$(date +%s.%N); nsys stats $R --format csv --force-export=true --output=$X/b/report $X/r2.nsys-rep >b.log 2>&1
echo "stats-rep $? $(date +%s.%N) $t0"
for f in b/*.csv; do cmp -s $f a/$(basename $f) && echo same $f $(wc -l <$f) || echo DIFF $f; done
nsys profile --help | grep -A4 -e gpu-metrics-freq | head -8
