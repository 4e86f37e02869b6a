#!/usr/bin/env bash
# Issue 41 on 4 GPUs, second call (nvidia-h100-x4): lp-linkprobe against
# PyTorch's all-reduce (arbench.py, first call), the held-out TP decoder
# through lp with the per-rank split on the untraced step and the probe's
# latency, a straggler made on purpose, the repo's tp_decode at 4 ranks
# (exports for fixtures), and what ties GPU Metrics typeIds to devices.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/explore41b.sh
set -u
out=${OUT:-/tmp/o41}; mkdir -p "$out"
S=/tmp/lp41; rm -rf "$S"; export PYTHONUNBUFFERED=1 LP_AUTO_DEPS=0
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
exec > >(tee "$out/explore41b.log") 2>&1
T0=$(date +%s); el() { echo "[t+$(( $(date +%s) - T0 ))s] $*"; }
make -s -j16 >/dev/null 2>&1 || { make -j16 2>&1 | tail -20; exit 1; }
el built
ls -d /opt/*/.venv/lib/python3*/site-packages/nvidia/*/lib/libnccl* 2>/dev/null
t=$(date +%s); /usr/bin/time -f "linkprobe: %e s wall, %U+%S s CPU" bin/lp-linkprobe >$out/linkprobe.tsv 2>$out/linkprobe.err
el "linkprobe exit $?"; cat $out/linkprobe.err; sed '/^#/d' $out/linkprobe.tsv; grep "^# source" $out/linkprobe.tsv
cp tests/gpu/heldout41.yaml conf/model/heldout41.yaml
TR="python3 -m torch.distributed.run --nproc-per-node"
t=$(date +%s); timeout 200 make --no-print-directory LP_STAGE2_DIR=$S RUN=h41 \
	"WORK=$TR 4 tests/gpu/heldout41.py" MODEL=heldout41 -k stakeholder_summary.md rank_waterfall.tsv gpumetrics.tsv >$S.h41.log 2>&1
el "h41: exit $? in $(( $(date +%s) - t )) s"; grep -E "^lp: (no|.*fail)" $S.h41.log | head
grep own_ $S.h41.log | head -8
t=$(date +%s); timeout 150 make --no-print-directory LP_STAGE2_DIR=$S RUN=h41s \
	"WORK=$TR 4 tests/gpu/heldout41.py --slow-rank 2 --slow-ms 4" MODEL=heldout41 -k stakeholder_summary.md rank_waterfall.tsv >$S.h41s.log 2>&1
el "h41s: exit $? in $(( $(date +%s) - t )) s"; grep own_ $S.h41s.log | head -8
for r in h41 h41s; do
	echo "== $r"; head -3 $S/$r/stakeholder_summary.md
	sed '/^#/d' $S/$r/rank_waterfall.tsv | cut -f1-11; grep -E '^# (latency|link|source)' $S/$r/rank_waterfall.tsv
	sed '/^#/d' $S/$r/bound.tsv | head -8
	sed '/^#/d' $S/$r/untraced.tsv | cut -f1,3,7,9
done
python3 tests/gpu/gmdevice.py $S/h41/nsys/report.sqlite $out/h41-gm.sqlite >$out/gmdevice.txt 2>&1; el "gmdevice $?"
grep -v "^TABLE" $out/gmdevice.txt | head -60
t=$(date +%s); timeout 150 make --no-print-directory LP_STAGE2_DIR=$S RUN=tp4 \
	"WORK=$TR 4 tests/workloads/tp_decode.py --layers 16 --tokens 16 --overlap-matmuls 2" MODEL=tp-mlp \
	SET="model.layers=16 model.params=2147483648" -k rank_waterfall.tsv overlap.tsv stakeholder_summary.md >$S.tp4.log 2>&1
el "tp4: exit $? in $(( $(date +%s) - t )) s"; tail -3 $S.tp4.log; head -2 $S/tp4/stakeholder_summary.md
rm -f conf/model/heldout41.yaml
gzip -f "$out/h41-gm.sqlite"
(cd $S && tar czf "$out/runs41b.tgz" --exclude='*.nsys-rep' --exclude='*.ncu-rep' --exclude='*.sqlite' --exclude='h41s/nsys/*.csv' --exclude='h41s/untraced/*.csv' .)
cp $S.h41.log $S.h41s.log "$out/" ; ls -la "$out"
el done
