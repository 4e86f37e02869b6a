#!/usr/bin/env bash
# Issue 31, item 1 on the GPU machine: nsys GPU Metrics sampling on the
# TinyLlama-shaped Llama (hf_llama.py, 16 decode steps).  Two rounds of: the
# workload alone (make RUN=x alone.tsv), lp's nsys capture without sampling,
# at 1 kHz and at 10 kHz (SET=nsys_cli.extra_args=--gpu-metrics-...); then
# nsys export --type sqlite of each capture timed, lp's nsys stats on the
# 1 kHz one, the export's GPU_METRICS schema, metric names and per-range
# averages (python's sqlite3) as a reference.  Writes $OUT/explore31.txt and
# $OUT/fixture.tgz (the 1 kHz run's stats CSVs, commands and sqlite export).
set -u
O=${OUT:-/tmp}
S=/tmp/lpx31
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
export PATH=$PWD/bin:$PATH
W="python3 tests/workloads/hf_llama.py"
m() { make --no-print-directory LP_STAGE2_DIR=$S "$@"; }
G=nsys_cli.extra_args=--gpu-metrics-devices=all,--gpu-metrics-frequency
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
t() { cut -f2 "$1" 2>/dev/null | grep -v '^#' | head -1; }
{
echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $(nsys --version)"
$W >/dev/null 2>&1	# warm-up
for rep in 1 2; do
	rm -rf $S/a$rep $S/n$rep $S/k$rep $S/t$rep
	m RUN=a$rep "WORK=$W" MODEL=hf-llama alone.tsv >$S.a$rep.log 2>&1
	m RUN=n$rep "WORK=$W" MODEL=hf-llama nsys/report.nsys-rep >$S.n$rep.log 2>&1
	m RUN=k$rep "WORK=$W" MODEL=hf-llama SET=$G=1000 nsys/report.nsys-rep >$S.k$rep.log 2>&1
	m RUN=t$rep "WORK=$W" MODEL=hf-llama SET=$G=10000 nsys/report.nsys-rep >$S.t$rep.log 2>&1
	echo "round $rep: alone $(cat $S/a$rep/alone.tsv | grep -v '^#' | tail -1 | tr '\t' ' '); nsys none $(t $S/n$rep/nsys/profile.time) s; 1 kHz $(t $S/k$rep/nsys/profile.time) s; 10 kHz $(t $S/t$rep/nsys/profile.time) s"
	for r in n k t; do echo "  $r$rep: $(grep -o 'time=[^ ]*' $S.$r$rep.log | tr '\n' ' ') rep $(stat -c %s $S/$r$rep/nsys/report.nsys-rep 2>/dev/null) B"; done
done
head -3 $S/a1/alone.tsv
cat $S/k1/nsys/report.nsys-rep.cmd
for r in n1 k1 t1 n2 k2 t2; do
	t0=$(now); nsys export --type sqlite --force-overwrite=true -o $S/x_$r.sqlite $S/$r/nsys/report.nsys-rep >$S/x_$r.log 2>&1; rc=$?; t1=$(now)
	echo "export $r: $(secs $t0 $t1) s exit $rc $(stat -c %s $S/x_$r.sqlite) B"
done
t0=$(now); m RUN=k1 "WORK=$W" MODEL=hf-llama SET=$G=1000 nsys/stats.log >$S.ks.log 2>&1; echo "stats k1: exit $? $(secs $t0 $(now)) s"
tail -3 $S.ks.log; ls -la $S/k1/nsys/
nsys export --help 2>&1 | grep -i -A3 -e tables -e '--type' | head -40
python3 - $S/x_k1.sqlite $S/x_t1.sqlite <<'PY'
import sqlite3, sys
for path in sys.argv[1:]:
    db = sqlite3.connect(path); q = lambda s, *a: db.execute(s, a).fetchall()
    print("==", path)
    print([r[0] for r in q("select name from sqlite_master where type='table' order by 1")])
    for t in ("GPU_METRICS", "TARGET_INFO_GPU_METRICS", "TARGET_INFO_GPU", "NVTX_EVENTS"):
        print(q("select sql from sqlite_master where name=?", t))
    print(q("select typeId, count(*), min(timestamp), max(timestamp) from GPU_METRICS group by typeId"))
    for r in q("select * from TARGET_INFO_GPU_METRICS"): print(r)
    print(q("select * from GPU_METRICS order by timestamp limit 30"))
    try: print(q("select * from TARGET_INFO_GPU"))
    except Exception as e: print(e)
    names = dict(q("select metricId, metricName from TARGET_INFO_GPU_METRICS"))
    rng = q("select e.start, e.end, coalesce(e.text, s.value) from NVTX_EVENTS e left join StringIds s on e.textId = s.id where e.eventType = 59 and e.end is not null order by e.start")
    print(len(rng), "ranges", rng[:3])
    for st, en, name in rng[:6] + rng[-2:]:
        rows = q("select metricId, avg(value), count(*) from GPU_METRICS where timestamp >= ? and timestamp < ? group by metricId", st, en)
        print(name, st, en, (en - st) / 1e6, "ms")
        for mid, avg, n in rows: print("   %-45s %10.4f %d" % (names.get(mid), avg, n))
    print(q("select count(*), avg(timestamp - lag) from (select timestamp, lag(timestamp) over (order by timestamp) lag from GPU_METRICS where metricId = (select min(metricId) from TARGET_INFO_GPU_METRICS))"))
PY
(cd $S/k1/nsys && tar czf $O/fixture.tgz report_*.csv report.nsys-rep.cmd stats.cmd -C $S x_k1.sqlite a1/alone.tsv 2>&1 | head -3)
ls -la $O
} 2>&1 | tee "$O/explore31.txt"
