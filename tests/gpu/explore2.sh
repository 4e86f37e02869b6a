#!/usr/bin/env bash
# Second probe: ncu --kernel-id syntax for a per-kernel launch limit, nsys
# exit codes with --capture-range-end=stop, nsys capture of '@' names.
set -u
root=$PWD; out=${OUT:-$root/explore-out}; mkdir -p "$out"
w=/tmp/lp-explore2; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
exec > >(tee "$out/explore2.log") 2>&1
log() { printf '\n### %s\n' "$*"; }
nvcc -O2 -arch=sm_90 -o tinyllm "$root/tests/workloads/tinyllm.cu" -lcublas || exit 1
count() { python3 -c '
import csv,sys,collections
r=list(csv.reader(open(sys.argv[1]))); i=r[0].index("Kernel Name")
print(dict(collections.Counter(x[i] for x in r[2:])))' "$1"; }
k=0
for id in '::_Z7rmsnormPfii:2' '::regex:^(_Z7rmsnormPfii|_Z8silu_mulPfPKfi)$:1' \
          '::regex:^(_Z7rmsnormPfii|_Z8silu_mulPfPKfi)$:regex:^[12]$' \
          '::regex:^(_Z7rmsnormPfii|_Z8silu_mulPfPKfi)$:regex:[12]' \
          '::regex:rmsnorm|silu_mul:regex:^[1-3]$'; do
  k=$((k+1)); log "kernel-id $k: $id"
  ncu --nvtx --nvtx-include 'LLM@decode_all/' --kernel-name-base mangled --kernel-id "$id" \
      --section SpeedOfLight -o "k$k" -f ./tinyllm 2>&1 | grep -E '==(ERROR|WARNING|PROF)==' | grep -v Disconnected | head -8
  echo "rc=${PIPESTATUS[0]}"
  [ -f "k$k.ncu-rep" ] && ncu --import "k$k.ncu-rep" --page raw --csv --print-kernel-base mangled > "k$k.csv" && count "k$k.csv"
done
NSYS="nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --force-overwrite=true"
log "nsys --capture-range-end=stop with a failing workload"
$NSYS --capture-range=nvtx --nvtx-capture=decode_all@LLM --capture-range-end=stop -o e1 ./tinyllm --fail 3 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"; ls e1*
log "nsys ungated, failing workload"
$NSYS -o e2 ./tinyllm --fail 5 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"; ls e2*
log "nsys: workload not found"
$NSYS -o e3 ./nosuch 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"
TD="python3 $root/tests/workloads/torch_decoder.py --layers 2 --hidden 256 --heads 4 --vocab 1000 --prompt 16 --tokens 4"
log "torch plain timing"
/usr/bin/time -f 'wall %e s' $TD
i=0
for v in 'LLM@decode_all' 'LLM\\@decode_all' 'LLM@decode_all@' 'decode_all' 'LLM@decode_all@NVTX'; do
  i=$((i+1)); log "torch capture variant $i: --nvtx-capture=$v"
  $NSYS --capture-range=nvtx --nvtx-capture="$v" --capture-range-end=stop -o "c$i" $TD 2>&1 | grep -v '^\[' | tail -4; echo "rc=${PIPESTATUS[0]}"
  if [ -f "c$i.nsys-rep" ]; then nsys stats --report nvtx_sum --format csv -o "c$i" "c$i.nsys-rep" >/dev/null; cat "c${i}_nvtx_sum.csv"; fi
done
log "torch ungated + stats"
$NSYS -o c0 $TD >/dev/null 2>&1; echo "rc=$?"
nsys stats --report cuda_gpu_kern_sum --report cuda_gpu_kern_sum:mangled --report nvtx_sum --report nvtx_kern_sum --report nvtx_kern_sum:mangled --report cuda_api_sum --report cuda_gpu_mem_time_sum --format csv -o c0 c0.nsys-rep | grep -i -E 'skip|error|PROCESSED' ; echo "rc=${PIPESTATUS[0]}"
ls c0*
tar czf "$out/exports2.tgz" ./*.csv
