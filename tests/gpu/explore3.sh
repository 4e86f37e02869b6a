#!/usr/bin/env bash
# Third probe (issues 6 and 8): the per-instance nsys reports, the ncu
# tensor-core counters and whether this GPU has them, exact FLOPs of GEMMs of
# known shape, and ncu over whole NVTX regions (range / app-range replay)
# with their cost.  Run on the GPU machine from the project root:
#   . .device/nsys-env.sh && bash tests/gpu/explore3.sh
# Writes a log and small exports under $OUT (or ./explore-out).
set -u
root=$PWD
out=${OUT:-$root/explore-out}
mkdir -p "$out"
w=/tmp/lp-explore3
rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
exec > >(tee "$out/explore3.log") 2>&1
exec 3>&1
log() { printf '\n### %s\n' "$*"; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# timed CMD...: runs it, prints its exit code and wall time in ms
timed() { local t0; t0=$(date +%s%N); "$@"; local rc=$?; echo "rc=$rc wall_ms=$(ms "$t0") :: ${*:1:6}" >&3; return $rc; }

log versions
nsys --version; ncu --version | tail -1
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader

log build tinyllm
timed nvcc -O2 -arch=sm_90 -o tinyllm "$root/tests/workloads/tinyllm.cu" -lcublas
TL="./tinyllm --layers 2 --tokens 6"
TD="python3 $root/tests/workloads/torch_decoder.py --layers 2 --prompt 128 --tokens 6 --warmup 0"

log "workloads alone"
timed $TL >/dev/null
timed $TD >/dev/null

log "ncu --query-metrics: tensor and sass flop counters on this GPU"
timed ncu --query-metrics >qm.txt 2>&1
wc -l qm.txt; head -5 qm.txt
grep -E 'ops_path_tensor|sass_thread_inst_executed_op_[hfd](add|mul|fma)' qm.txt | head -40
timed ncu --query-metrics --chip gh100 >qm_gh100.txt 2>&1; wc -l qm_gh100.txt
cp qm.txt "$out/"
avail() { awk '{print $1}' qm.txt | grep -qx "$1"; }
TC=
for m in sm__ops_path_tensor_src_fp16 sm__ops_path_tensor_src_fp16_dst_fp16 sm__ops_path_tensor_src_fp16_dst_fp32 \
	sm__ops_path_tensor_src_bf16_dst_fp32 sm__ops_path_tensor_src_tf32_dst_fp32 sm__ops_path_tensor_src_fp8 \
	sm__ops_path_tensor_src_fp8_dst_fp16 sm__ops_path_tensor_src_fp8_dst_fp32 sm__ops_path_tensor_src_int8 \
	sm__ops_path_tensor_src_fp64 sm__ops_path_tensor_src_fp4; do
	if avail "$m"; then TC="$TC,$m.sum"; echo "have $m"; else echo "no $m"; fi
done
TC=${TC#,}
SASS=
for op in fadd fmul ffma hadd hmul hfma dadd dmul dfma; do SASS="$SASS,sm__sass_thread_inst_executed_op_${op}_pred_on.sum"; done
MET="gpu__time_duration.sum,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,$TC$SASS"
echo "metrics: $MET"

log "a metric the GPU lacks: what ncu says and does"
timed ncu --metrics gpu__time_duration.sum,sm__ops_path_tensor_src_nosuch.sum --launch-count 1 -o bad -f $TL >bad.log 2>&1
grep -E '==(ERROR|WARNING)==' bad.log | head -5; ls bad* 2>&1

NSYS="nsys profile --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --force-overwrite=true"
REPS="--report cuda_gpu_kern_sum --report cuda_gpu_kern_sum:mangled --report nvtx_sum --report nvtx_kern_sum --report nvtx_kern_sum:mangled --report cuda_api_sum --report cuda_gpu_mem_time_sum"
log "nsys stats: report list"
nsys stats --help-reports 2>&1 | grep -E '^\s*[a-z_]+(\[|$| )' | head -60
for wl in tl td; do
	if [ $wl = tl ]; then cmd=$TL; else cmd=$TD; fi
	log "nsys whole run: $wl"
	timed $NSYS -o $wl $cmd >/dev/null 2>$wl.err; tail -2 $wl.err
	timed nsys stats $REPS --format csv --force-export=true -o $wl $wl.nsys-rep >/dev/null
	for r in nvtx_pushpop_trace nvtx_gpu_proj_trace nvtx_gpu_proj_sum nvtx_pushpop_sum cuda_gpu_trace cuda_kern_exec_trace; do
		nsys stats --report $r --format csv -o $wl $wl.nsys-rep >$wl.$r.log 2>&1; echo "report $r rc=$?"
		grep -iE 'error|skip|not' $wl.$r.log | head -3
		[ -f ${wl}_$r.csv ] && { wc -l ${wl}_$r.csv; head -4 ${wl}_$r.csv | cut -c1-400; }
	done
done
log "nsys gated on decode_all@LLM (tinyllm): what the per-instance reports hold"
timed $NSYS --capture-range=nvtx --nvtx-capture=decode_all@LLM --capture-range-end=stop -o tg $TL >/dev/null 2>&1
nsys stats --report nvtx_pushpop_trace --report nvtx_gpu_proj_trace --report nvtx_sum --format csv -o tg tg.nsys-rep >/dev/null 2>&1
for f in tg_*.csv; do echo "== $f"; head -5 "$f" | cut -c1-300; done

EXP="--page raw --csv --print-kernel-base mangled --print-units base"
log "ncu kernel replay, prefill GEMMs of torch_decoder (fp16), tensor counters"
timed ncu --target-processes all --nvtx --nvtx-include 'LLM\@prefill/' --section SpeedOfLight --metrics "$MET" \
	--kernel-name-base function --kernel-name 'regex:nvjet|gemm|cutlass|splitK' --launch-count 8 \
	-o pf -f $TD >pf.log 2>&1
grep -E '==(ERROR|WARNING)==' pf.log | head -5
ncu --import pf.ncu-rep $EXP >pf_raw.csv; ncu --import pf.ncu-rep --page details --csv --print-units base >pf_details.csv
python3 - <<'EOF'
import csv
r = list(csv.reader(open("pf_raw.csv")))
h = r[0]
want = [c for c in h if c.startswith("sm__ops_path_tensor") or c in ("Kernel Name", "gpu__time_duration.sum", "dram__bytes.sum", "Grid Size", "Block Size", "launch__grid_size")]
print("units:", {c: r[1][h.index(c)] for c in want})
for row in r[2:]:
    print({c: row[h.index(c)] for c in want})
print("shapes 2MNK: qkv", 2*128*768*2304, "proj", 2*128*768*768, "fc1", 2*128*768*3072, "fc2", 2*128*3072*768, "head", 2*1*768*32000)
EOF
grep -E 'ops_path_tensor' pf_details.csv | head -4

log "ncu kernel replay, prefill SGEMMs of tinyllm (fp32)"
timed ncu --nvtx --nvtx-include 'LLM@prefill/' --metrics "$MET" --kernel-name-base function \
	--kernel-name 'regex:gemm|Kernel|gemv' --launch-count 6 -o tf -f $TL >tf.log 2>&1
grep -E '==(ERROR|WARNING)==' tf.log | head -5
ncu --import tf.ncu-rep $EXP >tf_raw.csv
python3 - <<'EOF'
import csv
r = list(csv.reader(open("tf_raw.csv")))
h = r[0]
ops = ["fadd","fmul","ffma"]
for row in r[2:]:
    g = lambda c: float(row[h.index(c)].replace(",","") or 0)
    f = sum((2 if o=="ffma" else 1)*g(f"sm__sass_thread_inst_executed_op_{o}_pred_on.sum") for o in ops)
    print(row[h.index("Kernel Name")][:60], "sass flops", f, "tf32", row[h.index("sm__ops_path_tensor_src_tf32_dst_fp32.sum")] if "sm__ops_path_tensor_src_tf32_dst_fp32.sum" in h else "-")
print("tinyllm d=1024 P=64 ffn=2816: qkv", 2*3072*64*1024, "wo", 2*1024*64*1024, "w13", 2*5632*64*1024, "w2", 2*1024*64*2816)
EOF

RM="gpu__time_duration.sum,dram__bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,$TC$SASS"
log "regions, app-range, tinyllm, nested ranges (prefill, decode_all, decode_step)"
timed ncu --nvtx --nvtx-include 'LLM@prefill/' --nvtx-include 'LLM@decode_all/' --nvtx-include 'LLM@decode_step/' \
	--replay-mode app-range --metrics "$RM" -o rt -f $TL >rt.log 2>&1
grep -E '==(ERROR|WARNING|PROF)==' rt.log | head -12
ncu --import rt.ncu-rep $EXP >rt_raw.csv 2>&1; ncu --import rt.ncu-rep --page details --csv --print-units base >rt_details.csv 2>&1
wc -l rt_raw.csv rt_details.csv; head -3 rt_raw.csv | cut -c1-700; head -8 rt_details.csv | cut -c1-400
log "regions, range replay, tinyllm decode_step"
timed ncu --nvtx --nvtx-include 'LLM@decode_step/' --replay-mode range --metrics "$RM" -o rr -f $TL >rr.log 2>&1
grep -E '==(ERROR|WARNING|PROF)==' rr.log | head -8; ls rr* 2>&1
[ -f rr.ncu-rep ] && ncu --import rr.ncu-rep $EXP >rr_raw.csv && wc -l rr_raw.csv
log "regions, app-range, torch_decoder (default domain, @ escaped), prefill + decode_all + decode_step"
timed ncu --target-processes all --nvtx --nvtx-include 'LLM\@prefill/' --nvtx-include 'LLM\@decode_all/' \
	--nvtx-include 'LLM\@decode_step/' --replay-mode app-range --metrics "$RM" -o ra -f $TD >ra.log 2>&1
grep -E '==(ERROR|WARNING|PROF)==' ra.log | head -12
ncu --import ra.ncu-rep $EXP >ra_raw.csv 2>&1; ncu --import ra.ncu-rep --page details --csv --print-units base >ra_details.csv 2>&1
wc -l ra_raw.csv ra_details.csv; head -3 ra_raw.csv | cut -c1-700
log "regions, range replay, torch_decoder decode_step (expected to fail)"
timed ncu --target-processes all --nvtx --nvtx-include 'LLM\@decode_step/' --replay-mode range --metrics "$RM" -o rq -f $TD >rq.log 2>&1
grep -E '==(ERROR|WARNING|PROF)==' rq.log | head -8; ls rq* 2>&1
log "regions, app-range, only SOL+time (pass count)"
timed ncu --nvtx --nvtx-include 'LLM@decode_step/' --replay-mode app-range --metrics gpu__time_duration.sum,dram__bytes.sum -o rs -f $TL >rs.log 2>&1
grep -c 'PROF' rs.log

tar czf "$out/x3.tgz" ./*.csv ./*.log 2>/dev/null
ls -la "$out"
