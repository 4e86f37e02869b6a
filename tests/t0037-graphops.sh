#!/usr/bin/env bash
# PyTorch ops of kernels replayed from CUDA graphs: lp-graphnodes reads
# nsys's sqlite export for the node each replayed kernel was captured as,
# and lp-atenops -n gives such a kernel to the op open when its node was
# captured.  Input: a real H100 capture (tests/fixtures/h100-graphs/a2_*:
# torch_decoder.py --mode graph --layers 2 --tokens 4, nsys profile
# --pytorch=autograd-shapes-nvtx --cuda-graph-trace=node; 132 replayed
# kernels, all of decode_step), its sqlite export and nsys stats CSVs.
# lp-graphnodes is recomputed with the sqlite3 CLI, lp-atenops with awk.
. "$(dirname "$0")/lib.sh"

G=$FIX/h100-graphs
DB=$G/a2_report.sqlite
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
	"$ROOT/conf/model/torch-decoder.yaml" >"$TRASH/cfg.yaml"
lp-graphnodes "$DB" >"$TRASH/gn.csv" 2>"$TRASH/gn.err"
atenops() {
	lp-atenops -c "$TRASH/cfg.yaml" -a "$G/a2_cuda_api_trace.csv" -g "$G/a2_cuda_gpu_trace.csv" \
		"$@" "$G/a2_nvtx_pushpop_trace.csv"
}


# graph_node_trace recomputed from the export by SQL alone: each node's
# original is that of its earliest event naming one; a root's creation
# is its earliest event naming none; a kernel's node is followed through
# its originals (recursively) to a root.
cat >"$TRASH/gn.sql" <<\EOF
WITH RECURSIVE
ev(id, o, t, g) AS (SELECT e.graphNodeId, e.originalGraphNodeId, e.start, e.globalTid
	FROM CUDA_GRAPH_NODE_EVENTS AS e, StringIds AS s
	WHERE s.id = e.nameId AND s.value = 'Graph Node Creation'),
link(id, o) AS (SELECT id, o FROM ev AS a WHERE o IS NOT NULL
	AND t = (SELECT MIN(t) FROM ev AS b WHERE b.id = a.id AND b.o IS NOT NULL)),
born(id, t, g) AS (SELECT id, t, g FROM ev AS a WHERE o IS NULL
	AND t = (SELECT MIN(t) FROM ev AS b WHERE b.id = a.id AND b.o IS NULL)),
walk(k, n, hops) AS (SELECT DISTINCT graphNodeId, graphNodeId, 0 FROM CUPTI_ACTIVITY_KIND_KERNEL
	WHERE graphNodeId IS NOT NULL
	UNION SELECT walk.k, link.o, walk.hops + 1 FROM walk, link
	WHERE link.id = walk.n AND walk.hops < 1000),
root(k, r) AS (SELECT k, n FROM walk WHERE n NOT IN (SELECT id FROM link)
	AND n IN (SELECT id FROM born))
SELECT t, 'create', id, '', (g >> 24) & 16777215, g & 16777215 FROM born
	WHERE id IN (SELECT r FROM root)
UNION ALL
SELECT start, 'kernel', COALESCE(r, graphNodeId), correlationId, (globalPid >> 24) & 16777215, ''
	FROM CUPTI_ACTIVITY_KIND_KERNEL LEFT JOIN root ON k = graphNodeId
	WHERE graphNodeId IS NOT NULL
ORDER BY 1, 2, 4, 3;
EOF
gn_expect() {
	echo "Start (ns),Event,Graph Node ID,CorrId,Pid,Tid" &&
	sqlite3 -batch -noheader -separator , "$1" <"$TRASH/gn.sql"
}

with_sqlite 'lp-graphnodes: every row recomputed from the sqlite export with the sqlite3 CLI' '
	gn_expect "$DB" >expect &&
	test_cmp expect "$TRASH/gn.csv" &&
	test_must_be_empty "$TRASH/gn.err"
'

test_expect_success 'lp-graphnodes: 132 kernel rows, the replayed kernels of cuda_gpu_trace; each resolves to one of 132 create rows' '
	head -1 "$TRASH/gn.csv" >got &&
	echo "Start (ns),Event,Graph Node ID,CorrId,Pid,Tid" >expect &&
	test_cmp expect got &&
	cut -d, -f2 "$TRASH/gn.csv" | sed 1d | sort | uniq -c | awk "{ print \$2, \$1 }" >got &&
	printf "%s\n" "create 132" "kernel 132" >expect &&
	test_cmp expect got &&
	sed 1d "$TRASH/gn.csv" | sort -t, -k1,1n -k2,2 -c &&
	awk -F, "\$2 == \"create\" { c[\$3] = 1; if (\$4 != \"\" || \$5 != 2261 || \$6 != 2261) bad = 1 }
		\$2 == \"kernel\" { if (!(\$3 in c) || \$5 != 2261 || \$6 != \"\") bad = 1 }
		END { exit bad }" "$TRASH/gn.csv" &&
	awk -F, "\$2 == \"kernel\" { print \$1 \",\" \$4 }" "$TRASH/gn.csv" | sort >got &&
	awk -F, "FNR == 1 { f++; next } f == 1 && \$3 ~ /^cu(da)?GraphLaunch/ { g[\$5] = 1; next }
		f == 2 && (\$3 in g) && !index(\$0, \",[CUDA \") { print \$1 \",\" \$3 }" \
		"$G/a2_cuda_api_trace.csv" "$G/a2_cuda_gpu_trace.csv" | sort >expect &&
	test $(wc -l <expect) = 132 &&
	test_cmp expect got
'

# One stage recomputed by brute force from the four traces: a launch on
# the stage range's thread inside an instance goes to the innermost op
# range open at its start (the one that started last), its kernels by
# CorrId; a kernel of a graph launch goes instead to the innermost op
# range open on the capturing thread when its node was created (its row
# in graph_node_trace by Start and CorrId, then its root's create row),
# one call per op range and graph launch.  Prints op, shapes, calls,
# kernel ns, kernels per row.
recompute="$(cat "$ROOT/tests/aten.awk")"'
file == 2 { if (launch($0)) { split($0, f, ","); if (f[h["Name"]] ~ /Graph/) graph[f[h["CorrID"]]] = 1 }; next }
file == 3 { split($0, f, ",")
	if (f[2] == "create") { ct[f[3]] = f[1] + 0; ctid[f[3]] = f[6] }
	else node[f[1] "," f[4]] = f[3]; next }	# keys: the digits as written
file == 4 { split($0, f, ","); corr = f[h["CorrId"]]; if (!(corr in c) || index($0, ",[CUDA ")) next
	x = c[corr]
	if (corr in graph) { nd = node[f[1] "," corr]; best = inner(ctid[nd], ct[nd])
		if (best) { x = ok[best]; if (!((best, corr) in seen)) { seen[best, corr] = 1; gcalls[x]++ } } }
	# Duration is the 2nd column, before any quoted name
	t[x] += f[2]; nk[x]++; next }
END { for (k = 1; k <= no; k++) { if (ot[k] != tid) continue
		for (j = 1; j <= ns; j++) if (os[k] >= ss[j] && os[k] < se[j]) { calls[ok[k]]++; break } }
	for (x in gcalls) calls[x] += gcalls[x]
	for (x in calls) printf "%s\t%d\t%.0f\t%d\n", x, calls[x], t[x], nk[x]
	for (x in nk) if (!(x in calls)) printf "%s\t%d\t%.0f\t%d\n", x, 0, t[x], nk[x] }'
expect_stage() {
	A -v range="$1" "$recompute" "$G/a2_nvtx_pushpop_trace.csv" "$G/a2_cuda_api_trace.csv" \
		"$2" "$G/a2_cuda_gpu_trace.csv" | awk -F"\t" "\$4 > 0 || \$3 > 0" | sort
}
got_stage() {
	table "$1" stage op shapes calls kernel_ns kernels | awk -F"\t" -v s="$2" -v OFS="\t" \
		'$1 == s { $1 = ""; sub(/^\t/, ""); if ($2 == "-" && $1 != "(outside any op)") next; print }' |
		awk -F"\t" "\$4 > 0 || \$3 > 0" | sort
}
# the stage totals of nvtx_kern_sum (lp-stages) and of an lp-atenops table
stage_totals() {
	lp-stages -c "$TRASH/cfg.yaml" -k "$G/a2_nvtx_kern_sum.csv" "$G/a2_nvtx_sum.csv" >s.tsv &&
	table s.tsv stage kernel_ns launches | sort >expect &&
	table "$1" stage kernel_ns kernels | awk -F"\t" "{ t[\$1] += \$2; n[\$1] += \$3 }
		END { for (s in t) printf \"%s\t%.0f\t%d\n\", s, t[s], n[s] }" | sort >got &&
	test_cmp expect got
}
coverage() {	# coverage FILE STAGE: its percentage
	sed -n "s/^# coverage: $2: \([0-9.]*\) % of its kernel time .*/\1/p" "$1"
}

test_expect_success 'lp-atenops -n: each stage adds up to nvtx_kern_sum; decode ops all covered (today: 4 of 132 kernels, no op)' '
	atenops -n "$TRASH/gn.csv" >a.tsv &&
	stage_totals a.tsv &&
	grep "^decode_step	480360	132\$" expect &&
	for s in decode_all decode_step; do
		c=$(coverage a.tsv $s) && test -n "$c" &&
		awk -v c="$c" "BEGIN { exit !(c >= 95) }" || return 1
	done &&
	test_grep "^# coverage: decode_step: 100.0 % of its kernel time (132 kernels, of which 132 from CUDA graphs) in ops with input shapes\$" a.tsv &&
	test_grep "^# coverage: prefill: 100.0 % of its kernel time (31 kernels, of which 0 from CUDA graphs)" a.tsv &&
	test_grep "^# note: 132 kernels ran from CUDA graph launches: 132 counted for the op open" a.tsv &&
	test_grep "^# source: .*graph_node_trace ($TRASH/gn.csv)" a.tsv &&
	! grep "(outside any op)" a.tsv &&
	! grep "have no launch call" a.tsv
'

test_expect_success 'lp-atenops -n: decode_step and decode_all, every (op, shapes) row recomputed by awk from the four traces' '
	atenops -n "$TRASH/gn.csv" >a.tsv &&
	for s in decode_step decode_all prefill; do
		expect_stage :LLM@$s "$TRASH/gn.csv" >expect &&
		got_stage a.tsv $s >got &&
		test_cmp expect got || return 1
	done &&
	got_stage a.tsv decode_step >got &&
	test_grep -x "aten::mm	\[\[1, 768\], \[768, 32000\]\]	4	81218	4" got &&
	test $(grep -c "^aten::addmm	" got) = 4
'

test_expect_success 'lp-atenops -N -n: the shape rows summed per op name; the same coverage lines' '
	atenops -n "$TRASH/gn.csv" >a.tsv &&
	atenops -n "$TRASH/gn.csv" -N >n.tsv &&
	table a.tsv stage op calls kernel_ns kernels | awk -F"\t" "{ k = \$1 \"\t\" \$2; c[k] += \$3; t[k] += \$4; n[k] += \$5 }
		END { for (k in c) printf \"%s\t%d\t%.0f\t%d\n\", k, c[k], t[k], n[k] }" | sort >expect &&
	table n.tsv stage op calls kernel_ns kernels | sort >got &&
	test_cmp expect got &&
	grep "^# coverage:" a.tsv >expect &&
	grep "^# coverage:" n.tsv >got &&
	test_cmp expect got &&
	test $(wc -l <got) = 3
'

test_expect_success 'without -n: the replayed kernels in "(outside any op)", the stage totals still right, a note names lp-graphnodes' '
	atenops >a.tsv 2>err &&
	test_must_be_empty err &&
	stage_totals a.tsv &&
	table a.tsv stage op shapes calls kernel_ns kernels | awk -F"\t" "/^decode/ && \$6 > 0" >got &&
	printf "%s\t(outside any op)\t-\t0\t480360\t132\n" decode_all decode_step >expect &&
	test_cmp expect got &&
	test_grep "^# note: 132 kernels ran from CUDA graph launches (cudaGraphLaunch): .*\"(outside any op)\".*lp-graphnodes(1) .*nsys profile --cuda-graph-trace=node" a.tsv &&
	test "$(coverage a.tsv decode_step)" = 0.0 &&
	test "$(coverage a.tsv prefill)" = 100.0 &&
	! grep "have no launch call" a.tsv
'

test_expect_success 'a graph_node_trace with no rows, beside a capture without graphs: the same table as without -n, but its source' '
	head -1 "$TRASH/gn.csv" >empty.csv &&
	AT=$FIX/h100-aten &&
	for o in "" -N; do
		lp-atenops -c "$TRASH/cfg.yaml" -a "$AT/gpt2_cuda_api_trace.csv" -g "$AT/gpt2_cuda_gpu_trace.csv" \
			$o "$AT/gpt2_nvtx_pushpop_trace.csv" | grep -v "^# source:" >expect &&
		lp-atenops -c "$TRASH/cfg.yaml" -a "$AT/gpt2_cuda_api_trace.csv" -g "$AT/gpt2_cuda_gpu_trace.csv" \
			$o -n empty.csv "$AT/gpt2_nvtx_pushpop_trace.csv" >got.all &&
		grep -v "^# source:" got.all >got &&
		test_cmp expect got || return 1
	done &&
	test_grep "^# coverage: prefill: 100.0 % of its kernel time (48 kernels, of which 0 from CUDA graphs)" got &&
	! grep -i "graph launch" got
'

with_sqlite 'lp-graphnodes: an export with the tables and no graph kernels gives the header alone' '
	cp "$DB" r.sqlite && sqlite3 r.sqlite "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET graphNodeId = NULL" &&
	lp-graphnodes r.sqlite >out 2>err &&
	echo "Start (ns),Event,Graph Node ID,CorrId,Pid,Tid" >expect &&
	test_cmp expect out &&
	test_must_be_empty err
'

with_sqlite 'lp-graphnodes: a node whose clone chain is cut or loops is written as itself, and counted' '
	cp "$DB" r.sqlite &&
	sqlite3 r.sqlite "DELETE FROM CUDA_GRAPH_NODE_EVENTS WHERE graphNodeId = 4294967300;
		UPDATE CUDA_GRAPH_NODE_EVENTS SET originalGraphNodeId = 8589934593
			WHERE graphNodeId = 8589934593 AND originalGraphNodeId IS NOT NULL" &&
	lp-graphnodes r.sqlite >out 2>err &&
	gn_expect r.sqlite >expect &&
	test_cmp expect out &&
	grep ",kernel,\(8589934593\|8589934596\)," out >own &&
	test $(wc -l <own) = 2 &&
	echo "lp-graphnodes: r.sqlite: 2 of 132 graph kernels have a node that leads to no node made by stream capture (no creation event at the end of its originalGraphNodeId links): written with their own node ID" >expect &&
	test_cmp expect err &&
	atenops -n out >a.tsv &&
	test_grep "^# note: 132 kernels ran from CUDA graph launches: 130 counted .*; 2 with no kernel row (Start, CorrId) or no create row in out" a.tsv &&
	stage_totals a.tsv
'

with_sqlite 'lp-graphnodes refuses an export without CUDA_GRAPH_NODE_EVENTS or kernels, or not from nsys, naming the file' '
	cp "$DB" r.sqlite && sqlite3 r.sqlite "DROP TABLE CUDA_GRAPH_NODE_EVENTS" &&
	test_expect_code 1 lp-graphnodes r.sqlite >out 2>err &&
	test_must_be_empty out &&
	echo "lp-graphnodes: r.sqlite: no table CUDA_GRAPH_NODE_EVENTS, yet kernels ran from graph nodes: not an nsys export lp knows" >expect &&
	test_cmp expect err &&
	# an eager capture: no node table, no kernel of a graph: the header
	cp "$DB" e.sqlite && sqlite3 e.sqlite "DROP TABLE CUDA_GRAPH_NODE_EVENTS; UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET graphNodeId = NULL" &&
	lp-graphnodes e.sqlite >out 2>err &&
	test_must_be_empty err &&
	echo "Start (ns),Event,Graph Node ID,CorrId,Pid,Tid" >expect && test_cmp expect out &&
	cp "$DB" k.sqlite && sqlite3 k.sqlite "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL" &&
	test_expect_code 1 lp-graphnodes k.sqlite >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-graphnodes: k.sqlite: no table CUPTI_ACTIVITY_KIND_KERNEL: the capture traced no CUDA kernels" err &&
	sqlite3 o.sqlite "CREATE TABLE t (x)" &&
	test_expect_code 1 lp-graphnodes o.sqlite >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-graphnodes: o.sqlite: not an nsys export: no table StringIds" err &&
	cp "$DB" c.sqlite && sqlite3 c.sqlite "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN graphNodeId" &&
	test_expect_code 1 lp-graphnodes c.sqlite >out 2>err &&
	test_grep "^lp-graphnodes: c.sqlite: no such column: graphNodeId (an nsys export of another version?)" err
'

test_expect_success 'lp-graphnodes refuses a file that is not sqlite, no file, bad usage, a full disk' '
	test_expect_code 1 lp-graphnodes "$G/a2_cuda_api_sum.csv" >out 2>err &&
	test_must_be_empty out &&
	echo "lp-graphnodes: $G/a2_cuda_api_sum.csv: not an SQLite database: expected nsys'"'"'s sqlite export (nsys export --type sqlite; nsys stats writes REPORT.sqlite beside REPORT.nsys-rep)" >expect &&
	test_cmp expect err &&
	: >empty.sqlite &&
	test_expect_code 1 lp-graphnodes empty.sqlite 2>err &&
	test_grep "^lp-graphnodes: empty.sqlite: not an SQLite database" err &&
	test_expect_code 2 lp-graphnodes nosuch.sqlite >out 2>err &&
	test_must_be_empty out &&
	echo "lp-graphnodes: nosuch.sqlite: No such file or directory" >expect &&
	test_cmp expect err &&
	test_expect_code 2 lp-graphnodes 2>err &&
	echo "usage: lp-graphnodes report.sqlite" >expect &&
	test_cmp expect err &&
	test_expect_code 2 lp-graphnodes "$DB" "$DB" 2>err &&
	test_cmp expect err &&
	test_expect_code 2 lp-graphnodes "$DB" >/dev/full 2>err &&
	test_grep "^lp-graphnodes: <stdout>: No space left on device" err
'

# An export of clones of clones (each instantiation of a 100-node graph
# cloned from the one before, 4,000 times; every 10th replayed): 400,100
# nodes in 16 MB.  lp-graphnodes held an entry per node in memory (3 bytes
# a byte of export: 56 MB here, 2.9 GB on a 1 GB export); the nodes now
# live in SQLite's temporary database and it runs in 32 MiB of address
# space (unbounded under a sanitizer or valgrind, whose shadow memory
# needs more).
cat >"$TRASH/chain.sql" <<\EOF
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'Graph Node Creation');
CREATE TABLE CUDA_GRAPH_NODE_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL,
	eventClass INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL,
	graphNodeId INTEGER NOT NULL, originalGraphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
	correlationId INTEGER, globalPid INTEGER, graphNodeId INTEGER);
WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < 400099)
INSERT INTO CUDA_GRAPH_NODE_EVENTS SELECT 1000 + 10 * x, 1001 + 10 * x, 0, (1234 << 24) | 1235, 1,
	(x / 100 + 1) * 4294967296 + x % 100,
	CASE WHEN x < 100 THEN NULL ELSE (x / 100) * 4294967296 + x % 100 END FROM n;
WITH RECURSIVE n(x) AS (SELECT 100 UNION ALL SELECT x + 1 FROM n WHERE x < 400099)
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 10000000 + 10 * x, 10000005 + 10 * x, 1000 + x / 100,
	1234 << 24, (x / 100 + 1) * 4294967296 + x % 100 FROM n WHERE (x / 100) % 10 = 0;
EOF
with_sqlite 'lp-graphnodes: 4,000 instantiations of clones of clones in 32 MiB, each kernel at its captured node' '
	sqlite3 chain.sqlite <"$TRASH/chain.sql" &&
	case ${LP_VALGRIND:-}:$LP_BIN in
	1:* | *san*) lp-graphnodes chain.sqlite >out 2>err ;;
	*) (ulimit -v 32768 && lp-graphnodes chain.sqlite >out 2>err) ;;
	esac &&
	test_must_be_empty err &&
	grep ",create," out >creates && test $(wc -l <creates) = 100 &&
	head -1 creates >got && echo "1000,create,4294967296,,1234,1235" >expect && test_cmp expect got &&
	grep ",kernel," out | cut -d, -f3 | sort | uniq -c >roots &&
	test $(wc -l <roots) = 100 &&
	awk "\$1 != 400 || \$2 < 4294967296 || \$2 > 4294967395" roots >bad && test_must_be_empty bad &&
	grep -c ",kernel," out >got && echo 40000 >expect && test_cmp expect got
'

test_expect_success 'lp-atenops -n refuses a graph_node_trace out of order, of another kind, with a node made twice' '
	awk "NR == 3 { l = \$0; getline; print; print l; next } { print }" "$TRASH/gn.csv" >swap.csv &&
	test_expect_code 1 atenops -n swap.csv >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-atenops: swap.csv:4:1: .*not sorted by start time" err &&
	sed "5s/,create,/,made,/" "$TRASH/gn.csv" >ev.csv &&
	test_expect_code 1 atenops -n ev.csv 2>err &&
	test_grep "^lp-atenops: ev.csv:5:2: Event: expected \"create\" or \"kernel\", got \"made\"" err &&
	sed "3s/^[^,]*,create,[^,]*,/&/; 3s/,create,[0-9]*,/,create,4294967296,/" "$TRASH/gn.csv" >twice.csv &&
	test_expect_code 1 atenops -n twice.csv 2>err &&
	test_grep "^lp-atenops: twice.csv:3:3: graph node 4294967296: a second create row" err &&
	sed 1d "$TRASH/gn.csv" >nohead.csv &&
	test_expect_code 1 atenops -n nohead.csv 2>err &&
	test_grep "^lp-atenops: nohead.csv:[0-9]*: no header with a \"Start\" column (not lp-graphnodes output)" err &&
	: >none.csv &&
	test_expect_code 1 atenops -n none.csv 2>err &&
	test_grep "^lp-atenops: none.csv: no header with a \"Start\" column (not lp-graphnodes output)" err &&
	test_expect_code 2 atenops -n nosuch.csv 2>err &&
	test_grep "^lp-atenops: nosuch.csv: No such file or directory" err &&
	test_must_fail atenops -n "$TRASH/gn.csv" >/dev/full
'

test_done
