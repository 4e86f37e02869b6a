#!/usr/bin/env bash
# Issue 41's acceptance on a sharded decoder lp's code was not written
# against (tests/gpu/heldout41.py, 4 ranks, tests/gpu/heldout41.yaml):
# lp's deep profile with the defaults, then the workload alone twice (its
# own clock: own_decode_step_med_ms); what the brief, the per-rank
# waterfall, the probe and the per-GPU samples say.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/heldout41.sh
set -u
S=${LP_GPU_STAGE2:-/tmp/lph41}; export PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
TR="python3 -m torch.distributed.run --nproc-per-node 4"
W="tests/gpu/heldout41.py"
cp tests/gpu/heldout41.yaml conf/model/heldout41.yaml
t0=$(date +%s)
timeout ${H41_TIMEOUT:-260} make --no-print-directory LP_STAGE2_DIR=$S RUN=h41 "WORK=$TR $W" MODEL=heldout41 \
	stakeholder_summary.md >$S/h41.log 2>&1
echo "h41: make exit $? in $(( $(date +%s) - t0 )) s"
grep own_ $S/h41.log | sed 's/^/under lp: /' | head -8
for i in 1 2; do timeout 60 $TR $W 2>/dev/null | grep own_ | sed "s/^/alone $i: /"; done
r=$S/h41
sed -n 1,3p $r/stakeholder_summary.md
sed -n '/Each Rank/,/^$/p;/^| [0-9]/p' $r/stakeholder_summary.md | head -12
grep -E "^# (verdict|why|gpus|note)" $r/bound.tsv
sed '/^#/d' $r/rank_waterfall.tsv | cut -f1-11
grep -E "^# (latency|link|sharding)" $r/rank_waterfall.tsv
sed '/^#/d' $r/untraced.tsv | cut -f1,3,7,9
sed '/^#/d' $r/linkprobe.tsv | awk -F'\t' '$2 == 8 || $2 == 268435456'
grep "^# gpus" $r/gpumetrics.tsv; sed '/^#/d' $r/gpumetrics.tsv | grep "^decode_step:steady" | grep -E "SMs Active|DRAM Read Bandwidth \[T" | cut -f1-3,9
make -q --no-print-directory LP_STAGE2_DIR=$S RUN=h41 stakeholder_summary.md; echo "make -q: $?"
rm -f conf/model/heldout41.yaml
