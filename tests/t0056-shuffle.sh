#!/usr/bin/env bash
# Order-free readers (issue 37, item 5): since nsys 2025.6 the sqlite
# export no longer promises row order, "including timestamp order", and a
# CSV report is a query over it.  Each import fixture set is made into a
# run twice, from its exports as they are and from copies whose data rows
# are shuffled (the header, and ncu's units row under it, kept in place;
# an sqlite table's rows inserted again in another order); every table
# and report of the two runs must be byte for byte the same.  The
# shuffles are reproducible: shuf reads a fixed random source made by
# perl's seeded rand (the same bytes on every platform since perl 5.20),
# each file from its own place in it, so that two files of as many rows
# (the mangled and demangled variants of a report) are not shuffled alike.
. "$(dirname "$0")/lib.sh"

perl -e 'srand(37); print pack("N*", map { int rand 4294967296 } 1 .. 1048576)' >"$TRASH/random"
nshuf=0
shuffle() {	# N: shuf with the fixed random source, from its N-th 32 kB on
	shuf --random-source=<(tail -c +$(($1 % 64 * 32768 + 1)) "$TRASH/random")
}

# shuffle_csv IN OUT: IN's data rows in another order.  An ncu --page raw
# export keeps its units row under the header.  A --page details export
# keeps each result's rows together, as ncu prints a result, section
# after section, whole: the results in another order and the rows inside
# each result too.
shuffle_csv() {
	local keep=1
	nshuf=$((nshuf + 2))
	if [ ! -s "$1" ]; then cp "$1" "$2"; return; fi
	if head -1 "$1" | grep -q '^"ID",' && sed -n 2p "$1" | grep -q '^"",'; then keep=2; fi
	head -n $keep "$1" >"$2" &&
	if head -1 "$1" | grep -q '"Metric Name"'; then
		tail -n +2 "$1" | cut -d, -f1 | uniq | shuffle $nshuf >"$TRASH/ids" &&
		tail -n +2 "$1" | shuffle $((nshuf + 1)) | awk -F, -v OFS="\t" 'NR == FNR { r[$1] = NR; next } { print r[$1], $0 }' "$TRASH/ids" - |
			sort -s -n -k1,1 | cut -f2- >>"$2"
	else
		tail -n +$((keep + 1)) "$1" | shuffle $nshuf >>"$2"
	fi
}

# shuffle_sqlite IN OUT: a copy of IN whose every table has its rows
# inserted again in shuf's order (a table keyed by an INTEGER PRIMARY KEY
# is still read in key order: SQLite's promise, not nsys's)
shuffle_sqlite() {
	cp "$1" "$2" &&
	for t in $(sqlite3 "$2" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"); do
		nshuf=$((nshuf + 1))
		sqlite3 "$2" "SELECT rowid FROM \"$t\"" | shuffle $nshuf | awk -v OFS="|" '{ print $1, NR }' >"$TRASH/perm" &&
		sqlite3 "$2" <<-EOF || return 1
		CREATE TEMP TABLE p (r INTEGER PRIMARY KEY, k INTEGER);
		.import $TRASH/perm p
		CREATE TEMP TABLE x AS SELECT * FROM "$t" ORDER BY (SELECT k FROM p WHERE p.r = "$t".rowid);
		DELETE FROM "$t";
		INSERT INTO "$t" SELECT * FROM x ORDER BY rowid;
		EOF
	done
}

# same NAME MODEL TARGETS FILE...: the run NAME made from FILE... (all in
# one folder) and from their shuffled copies (the same names in another
# folder, another run folder); every table (TSV) and report (Markdown) of
# the two compared, and what lp-import read each file as (import.mk), the
# folders' names made one and the time of the run left out
T="stakeholder_summary.md details.md kernels.md"
when='s/^\(|\? \?Recorded (UTC)[ |\t]*\)20[0-9T:Z-]*/\1X/'
same() {
	local name=$1 model=$2 targets=$3 f imp="" simp="" d=$TRASH/shuf/$1
	shift 3
	mkdir -p "$d" ra rb &&
	for f in "$@"; do
		imp="$imp $f" simp="$simp $d/${f##*/}"
		case $f in
		*.sqlite) shuffle_sqlite "$f" "$d/${f##*/}" ;;
		*) shuffle_csv "$f" "$d/${f##*/}" ;;
		esac || return 1
		if [ "$(wc -l <"$f")" -gt 12 ] && cmp -s "$f" "$d/${f##*/}"; then echo "$f: not shuffled"; return 1; fi
	done
	lpmake -s RUN="$name" MODEL="$model" "IMPORT=$imp" $targets >out 2>err || { cat err; return 1; }
	S2=$TRASH/s2s lpmake -s RUN="$name" MODEL="$model" "IMPORT=$simp" $targets >out 2>err ||
		{ cat err; return 1; }
	(cd "$S2/$name" && find . -name "*.tsv" -o -name "*.md" -o -name import.mk | sort) >a &&
	(cd "$TRASH/s2s/$name" && find . -name "*.tsv" -o -name "*.md" -o -name import.mk | sort) >b &&
	test_cmp a b &&
	# copies of both, each made one by a single sed, and one diff (a
	# sed, a sed and a diff a file took a tenth of this file's CPU)
	(cd "$S2/$name" && cp --parents $(cat "$OLDPWD/a") "$OLDPWD/ra/") &&
	(cd "$TRASH/s2s/$name" && cp --parents $(cat "$OLDPWD/a") "$OLDPWD/rb/") &&
	(cd ra && sed -i -e "s|$(dirname "$1")|FIX|g; s|$S2|S2|g; $when" $(cat ../a)) &&
	(cd rb && sed -i -e "s|$d|FIX|g; s|$TRASH/s2s|S2|g; $when" $(cat ../a)) &&
	diff -ru ra rb
}

test_expect_success 'the demo (h200-torch-v2): ncu raw and range exports, NVTX and kernel summaries' '
	same demo torch-decoder "$T regions.md" "$FIX"/h200-torch-v2/torch_*.csv
'

test_expect_success 'a graphed decode traced per node (h100-graphs g1): API and GPU traces' '
	same g1 torch-decoder "$T" "$FIX"/h100-graphs/g1_*.csv
'

test_expect_success 'a graphed decode with op ranges (h100-graphs a2): lp-graphnodes'"'"' trace' '
	same a2 torch-decoder "$T" "$FIX"/h100-graphs/a2_*.csv
'

test_expect_success 'host side of a Llama decode (h100-hostside)' '
	same hs torch-decoder "$T" "$FIX"/h100-hostside/llama_*.csv
'

with_sqlite 'GPU Metrics samples (h200-gpumetrics): the sqlite export' '
	same gm hf-llama "$T" "$FIX"/h200-gpumetrics/*.csv "$FIX"/h200-gpumetrics/*.sqlite
'

test_expect_success 'two ranks of one job (h200-tp tpr0, tpr1), joined' '
	same tpr tp-mlp "$T" "$FIX"/h200-tp/tpr0_*.csv "$FIX"/h200-tp/tpr1_*.csv
'

test_expect_success 'ATen op ranges (h100-aten gpt2)' '
	same aten hf-gpt2 "$T" $(ls "$FIX"/h100-aten/gpt2_*.csv | grep -v plain)
'

test_expect_success 'an ncu export per launch configuration (h100-plc)' '
	mkdir -p $TRASH/plc && cp "$FIX"/h100-plc/llama_*.csv "$FIX/h100-plc/plc1_ncu_raw.csv" $TRASH/plc &&
	for t in gpu api; do gzip -dc "$FIX/h100-plc/llama_cuda_${t}_trace.csv.gz" >$TRASH/plc/llama_cuda_${t}_trace.csv || return 1; done &&
	same plc hf-llama "$T" $TRASH/plc/*.csv
'

test_expect_success 'lp-ncu2tsv: a --page details export, its results in another order' '
	shuffle_csv "$FIX/h200-tinyllm/dec_details.csv" details.csv &&
	! cmp -s "$FIX/h200-tinyllm/dec_details.csv" details.csv &&
	lp-ncu2tsv "$FIX/h200-tinyllm/dec_details.csv" | grep -v "^# source:" >expect &&
	lp-ncu2tsv details.csv | grep -v "^# source:" >got &&
	test_cmp expect got
'

# Three rmsnorm launches of one grid with counted FLOPs 1000, 1008 and
# 1016 (h200-live/n2.csv, its SASS counts set so): each within 1 % of the
# next, 1000 and 1016 not.  Shapes are made from the launches by FLOPs,
# not in the rows' order (before, two of the six orders paired 1000 with
# 1016 and left 1008 alone)
test_expect_success 'lp-ncu2tsv: launches within 1 % of each other make the same shapes in any order' '
	cp "$FIX/h200-live/n2.csv" a.csv && v=500 &&
	for l in 3 4 6; do
		for c in fadd fmul ffma; do
			x=0 && if [ $c = ffma ]; then x=$v; fi &&
			csvset $l sm__sass_thread_inst_executed_op_${c}_pred_on.sum $x <a.csv >b.csv && mv b.csv a.csv || return 1
		done
		v=$((v + 4))
	done &&
	for p in "3 4 6" "3 6 4" "4 3 6" "4 6 3" "6 3 4" "6 4 3"; do
		{ sed -n 1,2p a.csv && for l in $p; do sed -n ${l}p a.csv; done && sed -n 5p a.csv; } >p.csv &&
		lp-ncu2tsv p.csv | grep -v "^# source:" >"got.${p// /}" || return 1
	done &&
	for p in 364 436 463 634 643; do test_cmp got.346 got.$p || return 1; done &&
	table got.346 kernel launches flops_nontensor | grep rmsnorm >got &&
	printf "_Z7rmsnormPfii\t2\t2008\n_Z7rmsnormPfii\t1\t1016\n" >expect &&
	test_cmp expect got
'

# The pipeline keeps one process's rows (-P); lp-kernjoin alone pairs the
# name styles of a kernel that two processes ran, a row each
test_expect_success 'lp-kernjoin: a kernel of two processes named in any order of each name style' '
	mkdir s &&
	for r in nvtx_kern_sum nvtx_kern_sum_mangled; do
		{ cat "$FIX/h200-tp/tpr0_$r.csv" && tail -n +2 "$FIX/h200-tp/tpr1_$r.csv"; } >$r.csv &&
		shuffle_csv $r.csv s/$r.csv || return 1
	done &&
	lp-kernjoin -r :LLM@decode_all -d nvtx_kern_sum.csv nvtx_kern_sum_mangled.csv >expect &&
	(cd s && lp-kernjoin -r :LLM@decode_all -d nvtx_kern_sum.csv nvtx_kern_sum_mangled.csv) >got &&
	test_cmp expect got &&
	test_grep -c "	ncclDevKernel_AllReduce_Sum_f16_RING_LL(" got
'

with_sqlite 'lp-graphnodes: the same trace from a shuffled sqlite export' '
	shuffle_sqlite "$FIX/h100-graphs/a2_report.sqlite" a2.sqlite &&
	lp-graphnodes a2.sqlite >got &&
	test_cmp "$FIX/h100-graphs/a2_graph_node_trace.csv" got
'

# Ties a shuffle of the fixtures cannot show: rows of one time whose
# order decided (a node's two creation events, a metric sampled twice),
# the table rebuilt in reverse row order
reverse_table() {	# DB TABLE
	sqlite3 "$1" "CREATE TEMP TABLE x AS SELECT * FROM $2 ORDER BY rowid DESC;
		DELETE FROM $2; INSERT INTO $2 SELECT * FROM x ORDER BY rowid;"
}

with_sqlite 'lp-graphnodes, lp-bwceil: rows of one time taken by content, not table order' '
	cp "$FIX/h100-graphs/a2_report.sqlite" a.sqlite &&
	sqlite3 a.sqlite "INSERT INTO CUDA_GRAPH_NODE_EVENTS SELECT start, end, eventClass, globalTid + 1,
		nameId, graphNodeId, originalGraphNodeId FROM CUDA_GRAPH_NODE_EVENTS WHERE graphNodeId = 4294967296" &&
	cp a.sqlite b.sqlite && reverse_table b.sqlite CUDA_GRAPH_NODE_EVENTS &&
	lp-graphnodes a.sqlite >a.csv && lp-graphnodes b.sqlite >b.csv && test_cmp a.csv b.csv &&
	test_grep -x "6780740591,create,4294967296,,2261,2261" b.csv &&
	cp "$FIX/h200-gpumetrics/llama_gpu_metrics.sqlite" a.sqlite &&
	sqlite3 a.sqlite "INSERT INTO GPU_METRICS SELECT g.rawTimestamp, g.timestamp, g.typeId, g.metricId, 50
		FROM GPU_METRICS g JOIN TARGET_INFO_GPU_METRICS t ON t.metricId = g.metricId AND t.typeId = g.typeId
		WHERE t.metricName LIKE '"'"'DRAM Read Bandwidth%'"'"' AND g.value > 0 LIMIT 200" &&
	cp a.sqlite b.sqlite && reverse_table b.sqlite GPU_METRICS &&
	printf "gpu:\n  name: NVIDIA H200\n" >h200.yaml && lp-gpu -c h200.yaml -t "$ROOT/conf/gpus.yaml" >gpu.tsv &&
	lp-bwceil -g gpu.tsv -P x a.sqlite >a.tsv && lp-bwceil -g gpu.tsv -P x b.sqlite >b.tsv &&
	sed -i "s/[ab]\.sqlite/DB/" a.tsv b.tsv && test_cmp a.tsv b.tsv
'

# lp-tracesort itself: what the runs above rely on
test_expect_success 'lp-tracesort: each kind of trace shuffled comes back as nsys wrote it' '
	for f in "$FIX"/h100-graphs/g1_cuda_api_trace.csv "$FIX"/h100-graphs/g1_cuda_gpu_trace.csv \
		"$FIX"/h100-aten/gpt2_nvtx_pushpop_trace.csv "$FIX"/h100-graphs/a2_graph_node_trace.csv; do
		shuffle_csv "$f" s.csv && ! cmp -s "$f" s.csv && lp-tracesort s.csv >got &&
		test_cmp "$f" got || return 1
	done
'

# small CMD...: CMD in 32 MiB of address space (as t0049); a sanitizer's
# shadow memory or valgrind needs far more, so there it runs unbounded
small() {
	case ${LP_VALGRIND:-}:$LP_BIN in
	1:* | *san*) "$@" ;;
	*) (ulimit -v 32768 && "$@") ;;
	esac
}

test_expect_success 'lp-tracesort: a trace of several runs (11 MB, in two parts) merged in 32 MiB' '
	f=$FIX/h100-hostside/llama_cuda_gpu_trace.csv &&
	{ head -1 "$f"; tail -n +2 "$f" | sed -n "1~2p"; } >a.csv && shuffle_csv a.csv a2.csv &&
	{ head -1 "$f"; tail -n +2 "$f" | sed -n "2~2p"; tail -n +2 "$f"; } >b.csv && shuffle_csv b.csv b2.csv &&
	TMPDIR=$PWD small lp-tracesort a2.csv b2.csv >got &&
	awk "NR == 1 { print; next } { print; print }" "$f" >expect &&
	test_cmp expect got &&
	test -z "$(ls -A | grep "^lp-tracesort")"
'

test_expect_success 'lp-tracesort: parts with another header, a start that is no time, refused' '
	f=$FIX/h100-hostside/llama_cuda_gpu_trace.csv &&
	sed "1s/,Device,/,Dev,/" "$f" >other.csv &&
	test_expect_code 1 lp-tracesort "$f" other.csv >out 2>err &&
	test_grep "^lp-tracesort: other.csv:1: its header is not that of $f" err &&
	sed "3s/^[0-9]*,/-5,/" "$f" >neg.csv &&
	test_expect_code 1 lp-tracesort neg.csv >out 2>err &&
	test_grep "^lp-tracesort: neg.csv:3:1: Start: expected a number from 0, got \"-5\"" err &&
	: >empty.csv && lp-tracesort empty.csv >out && test_must_be_empty out &&
	head -1 "$f" >hdr.csv && lp-tracesort hdr.csv empty.csv hdr.csv >out && test_cmp hdr.csv out
'

test_done
