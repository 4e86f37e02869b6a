#!/usr/bin/env bash
# Probes the behaviour of real nsys and ncu that lp's command builders rely on
# (see tests/gpu/README.md, "Facts checked on the H200").  Run on the GPU machine from the
# project root:  . .device/nsys-env.sh && bash tests/gpu/explore.sh
# Writes logs and small exports under $OUT (or ./explore-out).
set -u
root=$PWD
out=${OUT:-$root/explore-out}
mkdir -p "$out"
w=/tmp/lp-explore
rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
log() { printf '\n### %s\n' "$*"; }
exec > >(tee "$out/explore.log") 2>&1

log versions
nsys --version; ncu --version; nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv,noheader
nvidia-smi | sed -n 1,12p
python3 -c 'import torch, transformers; print(torch.__version__, torch.version.cuda, transformers.__version__)'

log build tinyllm
nvcc -O2 -arch=sm_90 -o tinyllm "$root/tests/workloads/tinyllm.cu" -lcublas && ls -la tinyllm
/usr/bin/time -f 'wall %e s' ./tinyllm; echo "rc=$?"

NSYS="nsys profile --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --force-overwrite=true"
REPS="--report cuda_gpu_kern_sum --report cuda_gpu_kern_sum:mangled --report nvtx_sum --report nvtx_kern_sum --report nvtx_kern_sum:mangled --report cuda_api_sum --report cuda_gpu_mem_time_sum"

log "nsys gated named domain, -- before the app"
/usr/bin/time -f 'wall %e s' $NSYS --capture-range=nvtx --nvtx-capture=decode_all@LLM --capture-range-end=stop -o t1 -- ./tinyllm; echo "rc=$?"
ls -la
/usr/bin/time -f 'wall %e s' nsys stats $REPS --format csv --force-export=true -o t1 t1.nsys-rep; echo "rc=$?"
ls -la
for f in t1_*.csv; do echo "== $f"; head -c 1500 "$f"; echo; done

log "nsys ungated"
$NSYS -o t0 ./tinyllm >/dev/null; echo "rc=$?"
nsys stats $REPS --format csv --force-export=true -o t0 t0.nsys-rep >/dev/null; echo "rc=$?"
for f in t0_nvtx_sum.csv t0_nvtx_kern_sum.csv; do echo "== $f"; head -c 1200 "$f"; echo; done

log "nsys exit code of a failing workload"
$NSYS --capture-range=nvtx --nvtx-capture=decode_all@LLM -o t2 ./tinyllm --fail 3; echo "rc=$?"
log "nsys range never hit"
$NSYS --capture-range=nvtx --nvtx-capture=nosuch@LLM -o t5 ./tinyllm; echo "rc=$?"; ls t5* 2>&1

log "torch default-domain capture variants"
TD="python3 $root/tests/workloads/torch_decoder.py --layers 2 --hidden 256 --heads 4 --vocab 1000 --prompt 16 --tokens 4"
i=0
for v in 'LLM@decode_all' 'LLM\@decode_all' 'LLM@decode_all@*'; do
  i=$((i+1))
  echo "--- variant $i: --nvtx-capture=$v"
  $NSYS --capture-range=nvtx --nvtx-capture="$v" -o "t3_$i" $TD >/dev/null 2>"t3_$i.err"; echo "rc=$?"
  tail -3 "t3_$i.err"
  if [ -f "t3_$i.nsys-rep" ]; then nsys stats --report nvtx_sum --report cuda_gpu_kern_sum --format csv -o "t3_$i" "t3_$i.nsys-rep" >/dev/null; cat "t3_${i}_nvtx_sum.csv"; wc -l "t3_${i}_cuda_gpu_kern_sum.csv"; fi
done

log "ncu: sections available"
ncu --list-sections | head -40
log "ncu: per-kernel launch limit through --kernel-id invocation regex"
SEL='regex:^(_Z7rmsnormPfii|_Z8silu_mulPfPKfi)$'
/usr/bin/time -f 'wall %e s' ncu --target-processes all --nvtx --nvtx-include 'LLM@decode_all/' --kernel-name-base mangled \
  --kernel-id "::$SEL:regex:^[12]\$" --section SpeedOfLight -o n1 -f ./tinyllm >/dev/null; echo "rc=$?"
ncu --import n1.ncu-rep --page raw --csv --print-kernel-base mangled > n1.csv; echo "rc=$?"
python3 - <<'EOF'
import csv, collections
r = list(csv.reader(open('n1.csv'))); i = r[0].index('Kernel Name')
print(collections.Counter(x[i] for x in r[2:]))
EOF
log "ncu: kernel-name + launch-count (total)"
ncu --nvtx --nvtx-include 'LLM@decode_all/' --kernel-name-base mangled --kernel-name "$SEL" --launch-count 4 \
  --section SpeedOfLight --metrics gpu__time_duration.sum,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum \
  -o n2 -f -- ./tinyllm >/dev/null; echo "rc=$?"
ncu --import n2.ncu-rep --page raw --csv --print-kernel-base mangled > n2.csv; echo "rc=$?"
ncu --import n2.ncu-rep --page raw --csv --print-units base > n2_base.csv; echo "rc=$?"
ncu --import n2.ncu-rep --page details --csv > n2_details.csv; echo "rc=$?"
python3 - <<'EOF'
import csv
for fn in ('n2.csv', 'n2_base.csv'):
    r = list(csv.reader(open(fn))); h = r[0]
    for c in ('Kernel Name', 'gpu__time_duration.sum', 'dram__bytes.sum', 'sm__sass_thread_inst_executed_op_ffma_pred_on.sum', 'sm__throughput.avg.pct_of_peak_sustained_elapsed'):
        if c in h:
            j = h.index(c); print(fn, c, repr(r[1][j]), [x[j] for x in r[2:6]])
EOF
log "ncu: sections by name"
ncu --nvtx --nvtx-include 'LLM@decode_all/' --kernel-name-base mangled --kernel-name "$SEL" --launch-count 2 \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section SpeedOfLight_RooflineChart \
  -o n3 -f ./tinyllm >/dev/null; echo "rc=$?"
log "ncu: nothing matches"
ncu --nvtx --nvtx-include 'LLM@nosuch/' --section SpeedOfLight -o n4 -f ./tinyllm 2>&1 | grep -v '^tinyllm'; echo "rc=${PIPESTATUS[0]}"; ls n4* 2>&1
log "ncu: failing workload"
ncu --nvtx --nvtx-include 'LLM@decode_all/' --kernel-name-base mangled --kernel-name "$SEL" --launch-count 1 --section SpeedOfLight -o n5 -f ./tinyllm --fail 3 >/dev/null 2>&1; echo "rc=$?"; ls n5* 2>&1

log "ncu: torch default domain, escaped and not"
for e in 'LLM\@decode_all/' 'LLM@decode_all/'; do
  echo "--- $e"
  ncu --target-processes all --nvtx --nvtx-include "$e" --launch-count 3 --section SpeedOfLight -o n6 -f $TD 2>&1 | grep '==' | head -5; echo "rc=${PIPESTATUS[0]}"
  ls n6* 2>&1; rm -f n6*
done

log "copy exports"
tar czf "$out/exports.tgz" ./*.csv ./*.err 2>/dev/null
ls -la "$out"
