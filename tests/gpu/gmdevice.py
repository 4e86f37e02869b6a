#!/usr/bin/env python3
"""gmdevice: what ties nsys's GPU Metrics typeIds to the GPUs of a
multi-GPU capture: the TARGET_INFO tables, and the correlation of each
typeId's "SMs Active" samples with each device's kernel activity
(CUPTI_ACTIVITY_KIND_KERNEL.deviceId) in 1 ms bins.  Then a copy of the
export reduced to what lp-gpumetrics reads, for a fixture.
  python3 gmdevice.py report.sqlite reduced.sqlite"""
import shutil
import sqlite3
import sys

src, dst = sys.argv[1:3]
db = sqlite3.connect(src)
tabs = [r[0] for r in db.execute("select name from sqlite_master where type='table' order by name")]
for t in tabs:
    n = db.execute(f'select count(*) from "{t}"').fetchone()[0]
    cols = [c[1] for c in db.execute(f'pragma table_info("{t}")')]
    print(f"TABLE {t} rows={n} cols={cols}")
    if t.startswith("TARGET_INFO") and t != "TARGET_INFO_GPU_METRICS" or t in ("PROCESSES",):
        for r in db.execute(f'select * from "{t}" limit 12'):
            print("   ", r)
print("TARGET_INFO_GPU_METRICS distinct typeId, sourceId, typeName:")
for r in db.execute("select distinct typeId, sourceId, typeName from TARGET_INFO_GPU_METRICS"):
    print("   ", r, "low bits", r[0] & 0xFF, "hex", hex(r[0]))
print("kernels per deviceId:", list(db.execute("select deviceId, count(*), min(start), max(end) from CUPTI_ACTIVITY_KIND_KERNEL group by deviceId")))
sm = db.execute("select metricId from TARGET_INFO_GPU_METRICS where metricName like 'SMs Active%' limit 1").fetchone()[0]
t0, t1 = db.execute("select min(start), max(end) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
B = 1_000_000
nb = (t1 - t0) // B + 1
busy = {}
for dev, s, e in db.execute("select deviceId, start, end from CUPTI_ACTIVITY_KIND_KERNEL"):
    v = busy.setdefault(dev, [0.0] * nb)
    s, e = max(s, t0), min(e, t1)
    b = (s - t0) // B
    while s < e and b < nb:
        be = t0 + (b + 1) * B
        v[b] += (min(e, be) - s) / B
        s = be
        b += 1
met = {}
cnt = {}
for ty, ts, val in db.execute("select typeId, timestamp, value from GPU_METRICS where metricId = ? and timestamp between ? and ?", (sm, t0, t1)):
    b = (ts - t0) // B
    met.setdefault(ty, [0.0] * nb)[b] += val
    cnt.setdefault(ty, [0] * nb)[b] += 1


def corr(a, b):
    idx = [i for i in range(nb) if b[1][i]]
    x = [a[i] for i in idx]
    y = [b[0][i] / b[1][i] for i in idx]
    n = len(x)
    if n < 3:
        return float("nan")
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((p - mx) * (q - my) for p, q in zip(x, y))
    sx = sum((p - mx) ** 2 for p in x) ** 0.5
    sy = sum((q - my) ** 2 for q in y) ** 0.5
    return sxy / (sx * sy) if sx and sy else float("nan")


print("correlation of SMs Active (typeId rows) with kernel busy (deviceId columns), 1 ms bins:")
devs = sorted(busy)
print("   typeId", devs)
for ty in sorted(met):
    print("  ", ty, ty & 0xFF, ["%.3f" % corr(busy[d], (met[ty], cnt[ty])) for d in devs],
          "mean busy-bin SM%%: %.1f" % (sum(met[ty]) / max(1, sum(cnt[ty]))))
db.close()
shutil.copy(src, dst)
db = sqlite3.connect(dst)
keep = {"GPU_METRICS", "TARGET_INFO_GPU_METRICS", "NVTX_EVENTS", "StringIds", "CUPTI_ACTIVITY_KIND_KERNEL"}
for t in tabs:
    if t in keep or t.startswith("TARGET_INFO") or t.startswith("ENUM") or t.startswith("META") or t.startswith("PROCESS"):
        continue
    db.execute(f'drop table "{t}"')
used = ("GR Active%", "SMs Active%", "SM Issue%", "Tensor Active%", "DRAM Read%", "DRAM Write%", "GPC Clock%", "SYS Clock%")
ids = set()
for u in used:
    ids |= {r[0] for r in db.execute("select metricId from TARGET_INFO_GPU_METRICS where metricName like ?", (u,))}
db.execute("delete from GPU_METRICS where metricId not in (%s)" % ",".join(str(i) for i in ids))
db.commit()
db.execute("vacuum")
db.close()
