#!/usr/bin/env bash
# Fourth probe (issues 6, 8, 10): the per-instance and per-launch nsys
# reports of whole runs (both NVTX styles), which ncu metrics range and
# app-range replay accept, and ncu over whole NVTX regions with those.
# Run on the GPU machine from the project root:
#   . .device/nsys-env.sh && bash tests/gpu/explore4.sh
set -u
root=$PWD
out=${OUT:-$root/explore-out}
mkdir -p "$out"
w=/tmp/lp-explore4
rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
exec > >(tee "$out/explore4.log") 2>&1
exec 3>&1
log() { printf '\n### %s\n' "$*"; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
timed() { local t0; t0=$(date +%s%N); "$@"; local rc=$?; echo "rc=$rc wall_ms=$(ms "$t0") :: ${*:1:8}" >&3; return $rc; }

nvcc -O2 -arch=sm_90 -o tinyllm "$root/tests/workloads/tinyllm.cu" -lcublas || exit 1
TL="./tinyllm --layers 2 --tokens 6"
TD="python3 $root/tests/workloads/torch_decoder.py --layers 2 --prompt 128 --tokens 6 --warmup 0"

NSYS="nsys profile --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --force-overwrite=true"
REPS="--report cuda_gpu_kern_sum --report cuda_gpu_kern_sum:mangled --report nvtx_sum --report nvtx_kern_sum --report nvtx_kern_sum:mangled --report cuda_api_sum --report cuda_gpu_mem_time_sum --report nvtx_pushpop_trace --report nvtx_gpu_proj_trace --report nvtx_gpu_proj_sum --report cuda_gpu_trace --report cuda_gpu_trace:mangled"
for wl in tl td; do
	if [ $wl = tl ]; then cmd=$TL; else cmd=$TD; fi
	log "nsys whole run + every report: $wl"
	timed $NSYS -o $wl $cmd >/dev/null 2>$wl.err; tail -2 $wl.err
	timed nsys stats $REPS --format csv --force-export=true -o $wl $wl.nsys-rep >$wl.stats.log 2>&1
	grep -iE 'error|skip' $wl.stats.log | head
	for f in ${wl}_*.csv; do echo "== $f $(wc -l <$f) lines"; head -3 "$f" | cut -c1-300; done
done

log "ncu: metrics for range replay"
ncu --help | grep -B1 -A6 'query-metrics-collection' | head -20
timed ncu --query-metrics --query-metrics-collection range >qmr.txt 2>&1
wc -l qmr.txt; head -4 qmr.txt
grep -E 'ops_path_tensor_src|sass_thread_inst_executed_op_[fhd](add|mul|fma)|^dram__bytes|^gpu__time_duration|^sm__throughput|^gpu__dram_throughput|^dram__throughput|inst_executed_pipe_tensor|sm__pipe_tensor' qmr.txt | cut -c1-120 | head -40
cp qmr.txt "$out/"

log "app-range, one metric at a time (tinyllm decode_step)"
for m in dram__bytes.sum dram__bytes_read.sum sm__throughput.avg.pct_of_peak_sustained_elapsed \
	gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed dram__throughput.avg.pct_of_peak_sustained_elapsed \
	sm__ops_path_tensor_src_fp16.sum sm__ops_path_tensor_src_bf16_dst_fp32.sum sm__ops_path_tensor_src_tf32_dst_fp32.sum \
	sm__ops_path_tensor_src_fp8.sum sm__ops_path_tensor_src_int8.sum sm__ops_path_tensor_src_fp64.sum \
	sm__sass_thread_inst_executed_op_ffma_pred_on.sum smsp__sass_thread_inst_executed_op_ffma_pred_on.sum \
	sm__inst_executed_pipe_fma.sum sm__cycles_elapsed.avg.per_second gpc__cycles_elapsed.max; do
	ncu --nvtx --nvtx-include 'LLM@decode_step/' --replay-mode app-range --metrics gpu__time_duration.sum,$m -o m1 -f $TL >m1.log 2>&1
	echo "metric $m rc=$? $(grep -c 'Application replay pass' m1.log) passes $(grep -m1 ERROR m1.log | cut -c1-100)"
done

RM="gpu__time_duration.sum,dram__bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_src_int8.sum,sm__ops_path_tensor_src_fp64.sum"
# keep only what range replay accepts
RM2=
for m in ${RM//,/ }; do awk '{print $1}' qmr.txt | grep -qx "${m%.*}" && RM2="$RM2,$m" || echo "range replay lacks $m"; done
RM2=${RM2#,}
echo "region metrics: $RM2"
EXP="--page raw --csv --print-kernel-base mangled --print-units base"
region() { # region NAME REPLAY INCLUDES... -- CMD
	local n=$1 mode=$2; shift 2
	local inc=()
	while [ "$1" != -- ]; do inc+=(--nvtx-include "$1"); shift; done
	shift
	log "region $n: $mode ${inc[*]}"
	timed ncu --target-processes all --nvtx "${inc[@]}" --replay-mode $mode --metrics "$RM2" -o $n -f "$@" >$n.log 2>&1
	grep -E '==(ERROR|WARNING)==' $n.log | head -6; grep -c 'replay pass' $n.log
	if [ -f $n.ncu-rep ]; then
		ncu --import $n.ncu-rep $EXP >${n}_raw.csv; ncu --import $n.ncu-rep --page details --csv --print-units base >${n}_details.csv
		wc -l ${n}_raw.csv ${n}_details.csv
		python3 - ${n}_raw.csv <<'EOF'
import csv, sys
r = list(csv.reader(open(sys.argv[1])))
h = r[0]
keep = [c for c in h[:12]] + [c for c in h if c.startswith(("gpu__time", "dram__bytes", "sm__ops_path_tensor_src_fp16.sum", "sm__throughput"))]
print([ (c, r[1][h.index(c)]) for c in keep])
for row in r[2:]:
    print([row[h.index(c)] for c in keep])
EOF
		head -4 ${n}_details.csv | cut -c1-500
	fi
}
region rt app-range 'LLM@prefill/' 'LLM@decode_all/' 'LLM@decode_step/' -- $TL
region rr range 'LLM@decode_step/' -- $TL
region ra app-range 'LLM\@prefill/' 'LLM\@decode_all/' 'LLM\@decode_step/' -- $TD
region rq range 'LLM\@decode_step/' -- $TD
region rn app-range 'LLM@nosuch/' -- $TL
log "nested only: app-range LLM@decode_all/LLM@decode_step/ (push/pop nesting syntax)"
region rx app-range 'LLM@decode_all/LLM@decode_step/' -- $TL
tar czf "$out/x4.tgz" ./*.csv ./*.log 2>/dev/null
ls -la "$out"
