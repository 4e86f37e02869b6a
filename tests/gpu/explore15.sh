#!/usr/bin/env bash
# Issue 26 on the GPU machine (run from the repo root with $OUT set):
# decode as it ships.  lp as it is, run live on torch_decoder's graphed
# decode (one CUDA graph per step) with nsys's default graph tracing and
# with --cuda-graph-trace=node; the graphed decode with PyTorch's op
# ranges, whose sqlite export is read for the graph node tables
# (CUDA_GRAPH_NODE_EVENTS, the kernels' graphNodeId).  Part B (PART=B):
# torch.compile (default and reduce-overhead) and the model in a spawned
# child process (ranges pushed by the child, or by the parent).
# Writes $OUT/explore15-PART.txt and $OUT/runs15-PART.tgz (the runs'
# exports, no reports), $OUT/graph-small.sqlite.gz.
set -u
PART=${PART:-A}
O=${OUT:-/tmp}
S=/tmp/lpx
mkdir -p $S
export PATH=$PWD/bin:$PATH
W="python3 tests/workloads/torch_decoder.py"
NODE="nsys_cli.extra_args=--cuda-graph-trace=node"
m() { timeout "${TMO:-200}" make --no-print-directory LP_STAGE2_DIR=$S "$@"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
step() {	# NAME make-args...: one lp make, timed, its log kept
	name=$1; shift
	t0=$(now); m "$@" >$S/$name.log 2>&1; rc=$?; t1=$(now)
	echo "== $name: exit $rc in $(secs $t0 $t1) s: make $*"
	grep -e '^lp: ' -e 'rror' -e 'torch_decoder:' $S/$name.log | cut -c1-400 | tail -25
}
# the sqlite tables of graph tracing, and what they hold
sqlq() {	# SQLITE
	python3 - "$1" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tabs = [r[0] for r in db.execute("select name from sqlite_master where type='table' order by name")]
print("tables:", " ".join(tabs))
for t in ("CUDA_GRAPH_NODE_EVENTS", "CUDA_GRAPH_EVENTS", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
          "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "StringIds",
          "META_DATA_CAPTURE"):
    if t in tabs:
        print(t, db.execute(f"select sql from sqlite_master where name='{t}'").fetchone()[0])
        print(t, "rows:", db.execute(f"select count(*) from {t}").fetchone()[0])
if "CUDA_GRAPH_NODE_EVENTS" in tabs:
    for r in db.execute("select e.*, s.value from CUDA_GRAPH_NODE_EVENTS e left join StringIds s on s.id = e.nameId limit 12"):
        print("node:", r)
    print("node events by name:", list(db.execute("select s.value, count(*), count(originalGraphNodeId) from CUDA_GRAPH_NODE_EVENTS e left join StringIds s on s.id = e.nameId group by 1")))
if "CUDA_GRAPH_EVENTS" in tabs:
    for r in db.execute("select e.*, s.value from CUDA_GRAPH_EVENTS e left join StringIds s on s.id = e.nameId limit 8"):
        print("graph:", r)
print("kernels with/without graphNodeId:", list(db.execute("select graphNodeId is not null, count(*) from CUPTI_ACTIVITY_KIND_KERNEL group by 1")))
for r in db.execute("select start, end, correlationId, graphNodeId, graphId from CUPTI_ACTIVITY_KIND_KERNEL where graphNodeId is not null order by start limit 5"):
    print("graph kernel:", r)
for r in db.execute("select s.value, count(*) from CUPTI_ACTIVITY_KIND_RUNTIME r join StringIds s on s.id = r.nameId where s.value like '%Graph%' or s.value like '%Capture%' group by 1"):
    print("api:", r)
if "META_DATA_CAPTURE" in tabs:
    for r in db.execute("select * from META_DATA_CAPTURE where name like '%GRAPH%'"):
        print("meta:", r)
EOF
}
{
echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); $(nsys --version); $(ncu --version | tail -1)"
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
if [ "$PART" = A ]; then
	# 1. the graphed decode with lp as it is: nsys's default traces graphs whole
	step g0 RUN=g0 "WORK=$W --mode graph" MODEL=torch-decoder stakeholder_summary.md
	# 2. the same with graph nodes traced: the whole deep profile
	step g1 RUN=g1 "WORK=$W --mode graph" MODEL=torch-decoder "SET=$NODE" stakeholder_summary.md
	grep -h 'took' $S/g1.log
	# 3. (the capture's cost, graph against node: explore16.sh; the loop
	# that stood here ran nothing, it asked for nsys/profile.cmd, which is
	# not a goal)
	# 4. the graphed decode with op ranges, graph nodes traced; a small one for its sqlite
	step a1 RUN=a1 "WORK=$W --mode graph" MODEL=torch-decoder OPS=aten "SET=$NODE" nsys/stats.log
	sqlq $S/a1/nsys/stats.tmp/report.sqlite 2>/dev/null || sqlq $(ls $S/a1/nsys/*.sqlite | head -1)
	ls -la $S/a1/nsys/
	step a2 RUN=a2 "WORK=$W --mode graph --layers 2 --tokens 4" MODEL=torch-decoder OPS=aten "SET=$NODE" nsys/stats.log
	q=$(ls $S/a2/nsys/*.sqlite $S/a2/nsys/stats.tmp/*.sqlite 2>/dev/null | head -1)
	echo "small sqlite: $q"; [ -n "$q" ] && gzip -c "$q" >$O/graph-small.sqlite.gz
	# ncu on the graphed decode: did it profile the top kernels inside the graphs?
	grep -c . $S/g1/ncu/report.csv 2>/dev/null
	sed -n '/^#/d;p' $S/g1/topn.tsv 2>/dev/null | cut -f1-4 | cut -c1-150
else
	# 5. torch.compile, default and reduce-overhead (graphs), nodes traced
	step c1 RUN=c1 "WORK=$W --mode compile" MODEL=torch-decoder "SET=$NODE" stakeholder_summary.md
	TMO=300 step c2 RUN=c2 "WORK=$W --mode compile-ro --warmup 2" MODEL=torch-decoder "SET=$NODE" stakeholder_summary.md
	# 6. the model in a spawned child: ranges in the child, then in the parent
	step s1 RUN=s1 "WORK=$W --mode spawn" MODEL=torch-decoder "SET=$NODE" stakeholder_summary.md
	step s2 RUN=s2 "WORK=$W --mode spawn --ranges-in parent" MODEL=torch-decoder "SET=$NODE" stakeholder_summary.md
	step s3 RUN=s3 "WORK=$W --mode spawn --spawn-mode graph" MODEL=torch-decoder "SET=$NODE" nsys/stats.log
	for r in c1 c2 s1; do grep -h 'took' $S/$r.log; done
fi
} 2>&1 | tee $O/explore15-$PART.txt
(cd $S && tar czf $O/runs15-$PART.tgz --exclude='*.nsys-rep' --exclude='*.ncu-rep' \
	--exclude='*.sqlite' --exclude='stats.tmp' . 2>/dev/null)
ls -la $O
