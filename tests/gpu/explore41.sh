#!/usr/bin/env bash
# Issue 41 on 4 GPUs (one device call, nvidia-h100-x4): the machine's
# links, PyTorch/NCCL all-reduce bus bandwidth and latency (arbench.py) at
# 2 and 4 ranks, lp's deep profile of tp_decode.py and of the held-out
# heldout41.py at 4 ranks, what the sqlite export says of each GPU's
# GPU Metrics (the typeId to device question), exports under $OUT.
#   . .device/nsys-env.sh && . tests/gpu/device-env.sh && bash tests/gpu/explore41.sh
set -u
out=${OUT:-/tmp/o41}; mkdir -p "$out"
S=/tmp/lp41; rm -rf "$S"; export PYTHONUNBUFFERED=1 LP_AUTO_DEPS=0
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
exec > >(tee "$out/explore41.log") 2>&1
T0=$(date +%s); el() { echo "[t+$(( $(date +%s) - T0 ))s] $*"; }
make -s -j16 >/dev/null 2>&1 || { make -j16 2>&1 | tail -20; exit 1; }
el built
nvidia-smi --query-gpu=index,name,pci.bus_id,uuid --format=csv,noheader
nvidia-smi topo -m | head -8
nvidia-smi nvlink -s 2>&1 | head -12
TR="python3 -m torch.distributed.run --nproc-per-node"
cp tests/gpu/heldout41.yaml conf/model/heldout41.yaml
lpm() { make --no-print-directory LP_STAGE2_DIR=$S "$@"; }
t=$(date +%s); timeout 200 make --no-print-directory LP_STAGE2_DIR=$S RUN=tp4 \
	"WORK=$TR 4 tests/workloads/tp_decode.py --layers 16 --tokens 16 --overlap-matmuls 2" MODEL=tp-mlp -k stakeholder_summary.md details.md rank_waterfall.tsv gpumetrics.tsv kernels.md \
	SET="model.layers=16 model.params=2147483648 model.tensor_parallel=4" >$S.tp4.log 2>&1
el "tp4 all: exit $? in $(( $(date +%s) - t )) s"; grep -E "^lp: .*(fail|error|n/a)" $S.tp4.log | head; tail -5 $S.tp4.log
t=$(date +%s); timeout 220 make --no-print-directory LP_STAGE2_DIR=$S RUN=h41 \
	"WORK=$TR 4 tests/gpu/heldout41.py" MODEL=heldout41 -k stakeholder_summary.md details.md rank_waterfall.tsv gpumetrics.tsv kernels.md >$S.h41.log 2>&1
el "h41 all: exit $? in $(( $(date +%s) - t )) s"; tail -5 $S.h41.log
grep own_ $S.h41.log | head -8
for r in tp4 h41; do
	echo "== $r"; head -4 $S/$r/stakeholder_summary.md
	sed '/^#/d' $S/$r/rank_waterfall.tsv 2>/dev/null; grep '^#' $S/$r/rank_waterfall.tsv
	sed '/^#/d' $S/$r/steps.tsv | head -8
	grep -c . $S/$r/gpumetrics.tsv 2>/dev/null; grep '^#' $S/$r/gpumetrics.tsv 2>/dev/null | head -4
done
python3 - "$S/tp4/nsys/report.sqlite" "$out/tp4-gm.sqlite" <<'PY' >"$out/sqlite-dump.txt" 2>&1
import sqlite3, sys, shutil
src, dst = sys.argv[1:3]
db = sqlite3.connect(src)
tabs = [r[0] for r in db.execute("select name from sqlite_master where type='table' order by name")]
for t in tabs:
    n = db.execute(f'select count(*) from "{t}"').fetchone()[0]
    cols = [c[1] for c in db.execute(f'pragma table_info("{t}")')]
    print(f"TABLE {t} rows={n} cols={cols}")
    if any(k in t.upper() for k in ("GPU", "DEVICE", "TARGET_INFO", "PROCESS", "META")) and n <= 200:
        for r in db.execute(f'select * from "{t}" limit 40'):
            print("   ", r)
for q in ["select typeId, count(*), min(timestamp), max(timestamp) from GPU_METRICS group by typeId",
          "select distinct typeId, metricId, metricName from TARGET_INFO_GPU_METRICS limit 12"]:
    try:
        print(q); [print("   ", r) for r in db.execute(q)]
    except Exception as e: print("   ERR", e)
db.close()
shutil.copy(src, dst)
db = sqlite3.connect(dst)
keep = {"GPU_METRICS", "TARGET_INFO_GPU_METRICS", "NVTX_EVENTS", "StringIds"}
for t in tabs:
    if t in keep or t.startswith("TARGET_INFO") or t.startswith("ENUM") or t.startswith("META"): continue
    db.execute(f'drop table "{t}"')
db.commit(); db.execute("vacuum"); db.close()
PY
el "sqlite"; head -c 6000 "$out/sqlite-dump.txt"; ls -la "$out"
(cd $S && tar czf "$out/runs41.tgz" --exclude='*.nsys-rep' --exclude='*.ncu-rep' --exclude='*.sqlite' .)
gzip -f "$out/tp4-gm.sqlite"; ls -la "$out"
rm -f conf/model/heldout41.yaml; cp $S.tp4.log $S.h41.log "$out/"
el done
