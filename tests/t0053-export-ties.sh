#!/usr/bin/env bash
# Every export tied to its capture, and nothing but exports read (issue
# 37, item 2): an nsys sqlite export is a regular file of real tables,
# bounded, opened read-only and immutable whatever its name.  Inputs: the
# real 1 kHz H200 capture of the TinyLlama-shaped Llama
# (tests/fixtures/h200-gpumetrics), and hostile copies of its sqlite
# export made here with the sqlite3 CLI, each standing for what a careless
# or malicious sender could hand over: a view computing samples without
# end, a virtual table, a FIFO, a WAL-mode file, a name read as a URI.
. "$(dirname "$0")/lib.sh"

G=$FIX/h200-gpumetrics
DB=$G/llama_gpu_metrics.sqlite
T=$G/llama_nvtx_pushpop_trace.csv
H200='gpu.name="NVIDIA H200"'
CFG=$TRASH/cfg.yaml
GPU=$TRASH/gpu.tsv
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/model/hf-llama.yaml" >"$CFG" || exit 1
printf 'gpu:\n  name: NVIDIA H200\n' >"$TRASH/h200.yaml"
lp-gpu -c "$TRASH/h200.yaml" -t "$ROOT/conf/gpus.yaml" >"$GPU" || exit 1

# hostile FILE SQL: a copy of the fixture's export, changed by SQL
hostile() {
	cp "$DB" "$1" && sqlite3 -batch "$1" "$2"
}

# a2 FILE: the H100 graphs capture's whole sqlite export (its kernels,
# NVTX ranges, GPU) given the Llama's GPU Metrics tables: an export with
# samples and a kernel table, as nsys writes one from a capture that
# traced CUDA, beside its real CSV exports (a2_*.csv)
A2=$FIX/h100-graphs
a2() {
	cp "$A2/a2_report.sqlite" "$1" &&
	sqlite3 -batch "$1" "ATTACH '$DB' AS g;
		CREATE TABLE GPU_METRICS AS SELECT * FROM g.GPU_METRICS;
		CREATE TABLE TARGET_INFO_GPU_METRICS AS SELECT * FROM g.TARGET_INFO_GPU_METRICS" &&
	{ [ $# = 1 ] || sqlite3 -batch "$1" "$2"; }
}

# refused_by_all FILE MESSAGE: lp-import, lp-gpumetrics and lp-bwceil each
# refuse FILE with MESSAGE (a regular expression after "TOOL: FILE: "),
# in time, writing nothing
refused_by_all() {
	test_expect_code 1 timeout 20 lp-import "$T" "$1" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-import: $1: $2" err &&
	test_expect_code 1 timeout 20 lp-gpumetrics -n -c "$CFG" -t "$T" "$1" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-gpumetrics: $1: $2" err &&
	test_expect_code 1 timeout 20 lp-bwceil -g "$GPU" -P imported "$1" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-bwceil: $1: $2" err
}

with_sqlite 'a view where the export has a table is refused by every reader, in time (it computed samples without end)' '
	hostile v.sqlite "ALTER TABLE GPU_METRICS RENAME TO GM0;
		CREATE VIEW GPU_METRICS AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
		SELECT x AS rawTimestamp, x AS timestamp, 281479271677952 AS typeId, 3 AS metricId, 1 AS value FROM c" &&
	refused_by_all v.sqlite "GPU_METRICS is a view, not a table: an nsys export holds its data in tables" &&
	hostile lower.sqlite "ALTER TABLE GPU_METRICS RENAME TO GM0; CREATE VIEW gpu_metrics AS SELECT * FROM GM0" &&
	refused_by_all lower.sqlite "GPU_METRICS is a view, not a table" &&
	hostile gpu.sqlite "ALTER TABLE TARGET_INFO_GPU RENAME TO G0; CREATE VIEW TARGET_INFO_GPU AS SELECT * FROM G0" &&
	test_expect_code 1 timeout 20 lp-gpumetrics -c "$CFG" -t "$T" gpu.sqlite >out 2>err &&
	test_grep "^lp-gpumetrics: gpu.sqlite: TARGET_INFO_GPU is a view, not a table" err
'

with_sqlite 'a virtual table, or a table with computed columns, is not an export' '
	hostile vt.sqlite "DROP TABLE GPU_METRICS;
		CREATE VIRTUAL TABLE GPU_METRICS USING fts5(rawTimestamp, timestamp, typeId, metricId, value)" &&
	refused_by_all vt.sqlite "GPU_METRICS is a virtual table, not a table of data" &&
	hostile gen.sqlite "ALTER TABLE GPU_METRICS ADD COLUMN twice INTEGER AS (value * 2)" &&
	refused_by_all gen.sqlite "GPU_METRICS has computed columns"
'

test_expect_success 'FIFOs, devices and folders are not exports: refused by name, before any read' '
	mkfifo f.csv f.sqlite && mkdir d.csv &&
	test_expect_code 2 timeout 20 lp-import "$T" f.csv >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-import: IMPORT: f.csv is a FIFO, not an export: import exports as regular files" err &&
	test_expect_code 2 timeout 20 lp-import /dev/zero 2>err &&
	test_grep "^lp-import: IMPORT: /dev/zero is a character device, not an export" err &&
	test_expect_code 2 timeout 20 lp-import d.csv 2>err &&
	test_grep "^lp-import: IMPORT: d.csv is a folder, not an export" err &&
	test_expect_code 1 timeout 20 lp-gpumetrics -c "$CFG" -t "$T" f.sqlite >out 2>err &&
	test_grep "^lp-gpumetrics: f.sqlite: a FIFO, not an export" err &&
	test_expect_code 1 timeout 20 lp-bwceil -g "$GPU" -P imported /dev/zero >out 2>err &&
	test_grep "^lp-bwceil: /dev/zero: a character device, not an export" err &&
	ln -s "$DB" link.sqlite &&
	lp-gpumetrics -c "$CFG" -t "$T" link.sqlite >/dev/null
'

with_sqlite 'a WAL-mode export is read without a file written beside it' '
	cp "$DB" w.sqlite && sqlite3 -batch w.sqlite "PRAGMA journal_mode=WAL" >/dev/null &&
	lp-import "$G"/*.csv w.sqlite >imp.mk &&
	test_grep -x "LP_IMP_SQLITE := w.sqlite" imp.mk &&
	lp-gpumetrics -c "$CFG" -t "$T" w.sqlite >w.tsv &&
	lp-bwceil -g "$GPU" -P imported w.sqlite >bw.tsv &&
	ls w.sqlite* >got && echo w.sqlite >want && test_cmp want got &&
	lp-gpumetrics -c "$CFG" -t "$T" "$DB" >g.tsv &&
	test_cmp <(grep -v "^# source" g.tsv) <(grep -v "^# source" w.tsv)
'

test_expect_success 'a name that reads as a URI (file:, ?, #, %) opens the file that was checked' '
	lp-gpumetrics -c "$CFG" -t "$T" "$DB" | grep -v "^# source" >want &&
	mkdir "sub:dir" &&
	for f in "file:y.sqlite" "q?x#y%z.sqlite" "$PWD/sub:dir/file:e.sqlite"; do
		cp "$DB" "$f" &&
		lp-gpumetrics -c "$CFG" -t "$T" "$f" >got.tsv &&
		grep -v "^# source" got.tsv >got &&
		test_cmp want got &&
		lp-bwceil -g "$GPU" -P imported "$f" >/dev/null || return 1
	done &&
	lp-import "$G"/*.csv "file:y.sqlite" >imp.mk &&
	test_grep -x "LP_IMP_SQLITE := file:y.sqlite" imp.mk &&
	ls >files && ! grep -e "-wal\$" -e "-shm\$" -e "^y.sqlite" files
'

with_sqlite 'bounds: rows of a table, bytes of a value, bytes of the file' '
	LP_SQL_MAX_ROWS=1000 test_expect_code 1 lp-gpumetrics -c "$CFG" -t "$T" "$DB" >out 2>err &&
	test_grep "^lp-gpumetrics: .*llama_gpu_metrics.sqlite: GPU_METRICS has more than 1000 rows, lp.s bound on a table it reads (LP_SQL_MAX_ROWS" err &&
	LP_SQL_MAX_ROWS=1000 test_expect_code 1 lp-import "$T" "$DB" 2>err &&
	test_grep "GPU_METRICS has more than 1000 rows" err &&
	LP_SQL_MAX_ROWS=1000 test_expect_code 1 lp-bwceil -g "$GPU" -P imported "$DB" >out 2>err &&
	test_grep "GPU_METRICS has more than 1000 rows" err &&
	LP_SQL_MAX_ROWS=40000 lp-gpumetrics -c "$CFG" -t "$T" "$DB" >/dev/null &&
	LP_SQL_MAX_ROWS=0 test_expect_code 2 lp-gpumetrics -c "$CFG" -t "$T" "$DB" 2>err &&
	test_grep "LP_SQL_MAX_ROWS: expected a whole number from 1" err &&
	hostile long.sqlite "UPDATE TARGET_INFO_GPU SET name = zeroblob(17000000)" &&
	test_expect_code 1 lp-gpumetrics -c "$CFG" -t "$T" long.sqlite >out 2>err &&
	test_grep "^lp-gpumetrics: long.sqlite: a value longer than 16777216 bytes, lp.s bound on one" err &&
	rm long.sqlite &&
	if truncate -s 65G big.sqlite 2>/dev/null; then
		printf "SQLite format 3\\000" | dd of=big.sqlite conv=notrunc 2>/dev/null &&
		test_expect_code 1 lp-gpumetrics -c "$CFG" -t "$T" big.sqlite 2>err &&
		test_grep "^lp-gpumetrics: big.sqlite: an sqlite export of 69793218560 bytes, over lp.s bound of 68719476736 bytes (64 GiB)" err &&
		test_expect_code 1 lp-import big.sqlite 2>err &&
		test_grep "over lp.s bound of 68719476736 bytes" err
	fi
'

# The demo's CSVs with another capture's sqlite export: the brief showed
# the Llama's sampled DRAM and tensor activity as the demo's.
test_expect_success 'an sqlite export of another capture is refused, both files named: the demo with the Llama samples' '
	test_expect_code 1 lp-import "$FIX"/h200-torch-v2/torch_*.csv "$DB" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-import: IMPORT: .*/torch_nvtx_pushpop_trace.csv and .*/llama_gpu_metrics.sqlite are not exports of one capture: process 4788 pushed NVTX ranges in the first and none in the second; import the sqlite export of the capture the CSVs are from (nsys export --type sqlite of its .nsys-rep; nsys stats writes REPORT.sqlite beside it), or none\$" err &&
	test_must_fail lpmake RUN=mix MODEL=torch-decoder IMPORT="$(echo "$ROOT"/tests/fixtures/h200-torch-v2/torch_*.csv "$DB")" \
		stakeholder_summary.md >out 2>err &&
	test_grep "are not exports of one capture: process 4788" err &&
	! test -e "$S2/mix/stakeholder_summary.md" &&
	lp-import "$G"/*.csv "$DB" >imp.mk &&
	test_grep -x "LP_IMP_SQLITE := $DB" imp.mk
'

with_sqlite 'the same processes are not enough: the ranges must be those of the CSVs to the ns, the kernels too' '
	hostile late.sqlite "UPDATE NVTX_EVENTS SET end = end + 1000000 WHERE rowid = (SELECT min(rowid) FROM NVTX_EVENTS)" &&
	test_expect_code 1 lp-import "$G"/*.csv late.sqlite 2>err &&
	test_grep "^lp-import: IMPORT: .*/llama_nvtx_sum.csv and late.sqlite are not exports of one capture: 18 NVTX push/pop ranges of 2364327494 ns in all in the first, 18 of 2365327494 ns in the second; import the sqlite export" err &&
	hostile few.sqlite "DELETE FROM NVTX_EVENTS WHERE rowid = (SELECT max(rowid) FROM NVTX_EVENTS)" &&
	test_expect_code 1 lp-import "$G/llama_nvtx_pushpop_trace.csv" few.sqlite 2>err &&
	test_grep "llama_nvtx_pushpop_trace.csv and few.sqlite are not exports of one capture: 18 NVTX push/pop ranges of .* ns in all in the first, 17 of" err &&
	hostile pid.sqlite "UPDATE NVTX_EVENTS SET globalTid = globalTid + 16777216" &&
	test_expect_code 1 lp-import "$G/llama_nvtx_pushpop_trace.csv" pid.sqlite 2>err &&
	test_grep "llama_nvtx_pushpop_trace.csv and pid.sqlite are not exports of one capture: process 1448 pushed NVTX ranges in the first and none in the second" err &&
	hostile none.sqlite "DROP TABLE NVTX_EVENTS" &&
	test_expect_code 1 lp-import "$G/llama_nvtx_sum.csv" none.sqlite 2>err &&
	test_grep "llama_nvtx_sum.csv and none.sqlite are not exports of one capture: 18 NVTX push/pop ranges in the first, none in the second (no table NVTX_EVENTS)" err &&
	a2 a2.sqlite &&
	lp-import "$A2"/a2_*.csv a2.sqlite >imp.mk &&
	test_grep -x "LP_IMP_SQLITE := a2.sqlite" imp.mk &&
	lp-import "$A2/a2_cuda_gpu_kern_sum.csv" "$A2/a2_cuda_gpu_trace.csv" a2.sqlite >/dev/null &&
	a2 k.sqlite "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = end + 5000 WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)" &&
	test_expect_code 1 lp-import "$A2/a2_cuda_gpu_kern_sum.csv" k.sqlite 2>err &&
	test_grep "a2_cuda_gpu_kern_sum.csv and k.sqlite are not exports of one capture: 400 kernel launches of 1523508 ns in all in the first, 400 of 1528508 ns in the second" err &&
	test_expect_code 1 lp-import "$A2"/c1_*.csv a2.sqlite 2>err &&
	test_grep "c1_nvtx_pushpop_trace.csv and a2.sqlite are not exports of one capture: process 2606 pushed NVTX ranges in the first and none in the second" err
'

with_sqlite 'GPUs of another model, nothing to compare, a time that is text: refused with the cause' '
	a2 h200.sqlite "UPDATE TARGET_INFO_GPU SET name = \"NVIDIA H200\"" &&
	test_expect_code 1 lp-import "$A2"/a2_*.csv h200.sqlite 2>err &&
	test_grep "a2_cuda_gpu_trace.csv and h200.sqlite are not exports of one capture: the first ran on an NVIDIA H100 80GB HBM3, the second lists the GPUs NVIDIA H200 (TARGET_INFO_GPU)" err &&
	test_expect_code 1 lp-import "$G/llama_cuda_gpu_kern_sum.csv" "$DB" 2>err &&
	test_grep "^lp-import: IMPORT: nothing ties .*llama_gpu_metrics.sqlite to the CSV exports: its GPU Metrics samples would be shown as theirs on no evidence" err &&
	hostile text.sqlite "UPDATE NVTX_EVENTS SET start = \"soon\" WHERE rowid = 1" &&
	test_expect_code 1 lp-import "$T" text.sqlite 2>err &&
	test_grep "^lp-import: text.sqlite: NVTX_EVENTS.start: \"soon\" is not an integer" err
'

# An H200 capture with an H100 per-launch-config ncu export of the same
# program (tests/fixtures/h100-plc): every peak, MFU, MBU and roofline was
# the H100's.  The capture names its GPU in its sqlite export
# (TARGET_INFO_GPU) or its cuda_gpu_trace (Device), ncu in
# device__attribute_display_name.
test_expect_success 'an ncu export of another GPU is refused, both files named; where one side names none, taken' '
	test_expect_code 1 lp-import "$G"/*.csv "$DB" "$FIX/h100-plc/plc1_ncu_raw.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-import: IMPORT: .*/plc1_ncu_raw.csv profiled an NVIDIA H100 80GB HBM3 (device__attribute_display_name) and .*/llama_gpu_metrics.sqlite names an NVIDIA H200: their peaks, MFU, MBU and roofline would be another GPU.s.  Import the ncu export of this capture.s GPU, or none\$" err &&
	ls "$A2"/c1_*.csv | grep -v _ncu_ >nsys &&
	lp-import $(cat nsys) "$A2/c1_ncu_raw.csv" >/dev/null &&
	sed "s/NVIDIA H100 80GB HBM3/NVIDIA H200/" "$A2/c1_ncu_raw.csv" >h200_ncu_raw.csv &&
	test_expect_code 1 lp-import $(cat nsys) h200_ncu_raw.csv 2>err &&
	test_grep "^lp-import: IMPORT: h200_ncu_raw.csv profiled an NVIDIA H200 (device__attribute_display_name) and .*/c1_cuda_gpu_trace.csv names an NVIDIA H100 80GB HBM3" err &&
	lp-import $(grep -v cuda_gpu_trace nsys) h200_ncu_raw.csv >/dev/null &&
	test_expect_code 1 lp-import $(grep -v cuda_gpu_trace nsys) h200_ncu_raw.csv "$A2/c2_ncu_raw.csv" 2>err &&
	test_grep "^lp-import: IMPORT: .*/c2_ncu_raw.csv profiled an NVIDIA H100 80GB HBM3 (device__attribute_display_name) and h200_ncu_raw.csv names an NVIDIA H200" err &&
	sed "s/\"NVIDIA H100 80GB HBM3\"/\"\"/" "$A2/c1_ncu_raw.csv" >silent_ncu_raw.csv &&
	lp-import $(cat nsys) silent_ncu_raw.csv >/dev/null &&
	test_must_fail lpmake RUN=h100ncu MODEL=hf-llama SET="$H200" \
		IMPORT="$(echo "$G"/*.csv "$DB" "$ROOT"/tests/fixtures/h100-plc/plc1_ncu_raw.csv)" roofline.tsv >out 2>err &&
	test_grep "plc1_ncu_raw.csv profiled an NVIDIA H100 80GB HBM3" err &&
	! test -e "$S2/h100ncu/roofline.tsv"
'

# Out-of-range values read as facts: DRAM read 90 % + write 90 % gave
# "DRAM (sampled) 180.0 %" in the brief and 8.67 TB/s on an H200.
with_sqlite 'DRAM read + write over 100 % at one timestamp is refused by both readers, named by its time' '
	hostile s.sqlite "UPDATE GPU_METRICS SET value = 90 WHERE metricId IN (18, 19)" &&
	t=$(sqlite3 s.sqlite "SELECT min(timestamp) FROM GPU_METRICS WHERE metricId = 18") &&
	test_expect_code 1 lp-gpumetrics -c "$CFG" -t "$T" s.sqlite >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-gpumetrics: s.sqlite: GPU_METRICS at timestamp $t (typeId 281479271677952): \"DRAM Read Bandwidth \[Throughput %\]\" 90 + \"DRAM Write Bandwidth \[Throughput %\]\" 90 = 180 %, over the GPU.s DRAM bandwidth that both are shares of\$" err &&
	test_expect_code 1 lp-bwceil -g "$GPU" -P imported s.sqlite >out 2>err &&
	test_grep "^lp-bwceil: s.sqlite: GPU_METRICS at timestamp $t (typeId 281479271677952): \"DRAM Read Bandwidth \[Throughput %\]\" 90 + \"DRAM Write Bandwidth \[Throughput %\]\" 90 = 180 %" err &&
	test_must_fail lpmake RUN=d180 MODEL=hf-llama SET="$H200" IMPORT="$(echo "$G"/*.csv "$PWD/s.sqlite")" \
		stakeholder_summary.md >out 2>err &&
	test_grep "= 180 %, over the GPU.s DRAM bandwidth" err &&
	! test -e "$S2/d180/stakeholder_summary.md" &&
	# two whole percents of 100 % may read 101 together: not refused
	hostile half.sqlite "UPDATE GPU_METRICS SET value = 50 + (metricId = 18) WHERE metricId IN (18, 19)" &&
	lp-gpumetrics -c "$CFG" -t "$T" half.sqlite >/dev/null &&
	lp-bwceil -g "$GPU" -P imported half.sqlite >bw.tsv &&
	test_grep "^sampled_best	NVIDIA H200	typeId 281479271677952	4862447040000	" bw.tsv
'

with_sqlite 'a bandwidth that is text or over twice the datasheet is n/a with its cause; an ID that is text is refused' '
	hostile text.sqlite "UPDATE TARGET_INFO_GPU SET memoryBandwidth = '\''4.8 TB/s'\''" &&
	lp-gpumetrics -g "$GPU" -c "$CFG" -t "$T" text.sqlite >g.tsv &&
	grep "^prefill	DRAM Read Bandwidth \[bytes/s\]" g.tsv >row &&
	test_grep "n/a because TARGET_INFO_GPU.memoryBandwidth of text.sqlite is \"4.8 TB/s\", not a number of bytes/s" row &&
	lp-bwceil -g "$GPU" -P imported text.sqlite >bw.tsv &&
	test_grep "^sampled_best	NVIDIA H200	typeId 281479271677952	n/a because TARGET_INFO_GPU.memoryBandwidth of text.sqlite is \"4.8 TB/s\"" bw.tsv &&
	test_grep "^# sampled: n/a because" bw.tsv &&
	hostile x10.sqlite "UPDATE TARGET_INFO_GPU SET memoryBandwidth = memoryBandwidth * 10" &&
	lp-gpumetrics -g "$GPU" -c "$CFG" -t "$T" x10.sqlite >g.tsv &&
	grep "^decode_step	DRAM Write Bandwidth \[bytes/s\]" g.tsv >row &&
	test_grep "n/a because TARGET_INFO_GPU.memoryBandwidth of x10.sqlite, 4.814e+13 bytes/s, is over twice the datasheet.s 4.8e+12 bytes/s (gpu.tsv)" row &&
	lp-bwceil -g "$GPU" -P imported x10.sqlite >bw.tsv &&
	test_grep "^sampled_best	.*	n/a because TARGET_INFO_GPU.memoryBandwidth of x10.sqlite, 4.814e+13 bytes/s, is over twice" bw.tsv &&
	lpmake -s RUN=x10 MODEL=hf-llama SET="$H200" IMPORT="$(echo "$G"/*.csv "$PWD/x10.sqlite")" gpumetrics.tsv >out 2>err &&
	test_grep "n/a because TARGET_INFO_GPU.memoryBandwidth of .*x10.sqlite, 4.814e+13 bytes/s, is over twice" "$S2/x10/gpumetrics.tsv" &&
	hostile type.sqlite "UPDATE TARGET_INFO_GPU_METRICS SET typeId = '\''x'\'' WHERE rowid = 1" &&
	test_expect_code 1 lp-gpumetrics -c "$CFG" -t "$T" type.sqlite 2>err &&
	test_grep "^lp-gpumetrics: type.sqlite: TARGET_INFO_GPU_METRICS.typeId \"x\" is not an integer" err &&
	test_expect_code 1 lp-bwceil -g "$GPU" -P imported type.sqlite 2>err &&
	test_grep "^lp-bwceil: type.sqlite: TARGET_INFO_GPU_METRICS.typeId \"x\" is not an integer" err &&
	hostile metric.sqlite "UPDATE TARGET_INFO_GPU_METRICS SET metricId = '\''three'\'' WHERE metricId = 3" &&
	test_expect_code 1 lp-gpumetrics -c "$CFG" -t "$T" metric.sqlite 2>err &&
	test_grep "^lp-gpumetrics: metric.sqlite: TARGET_INFO_GPU_METRICS.metricId of \"SMs Active \[Throughput %\]\" is not an integer" err
'

# A run folder whose sqlite export sits in a folder with ":" or "=" in its
# name (sweep folders look so): the path was rule text, and every later
# make of the run stopped ("target pattern contains no %").
test_expect_success 'an sqlite export in a folder named with : or = imports, and the run folder stays usable' '
	for d in "d:x" "r=1"; do
		mkdir "$d" && cp "$G"/*.csv "$G"/*.sqlite "$d"/ || return 1
	done &&
	lpmake -s RUN=colon MODEL=hf-llama SET="$H200" IMPORT="$(echo "$PWD"/d:x/*.csv "$PWD"/d:x/*.sqlite)" \
		stakeholder_summary.md >out 2>err &&
	test_grep "^# tool: lp-gpumetrics" "$S2/colon/gpumetrics.tsv" &&
	test_grep "^sampled_best	" "$S2/colon/dram_bw.tsv" &&
	lpmake -q RUN=colon stakeholder_summary.md &&
	lpmake -s RUN=eq MODEL=hf-llama SET="$H200" IMPORT="$(echo "$PWD"/r=1/*.csv "$PWD"/r=1/*.sqlite)" \
		gpumetrics.tsv dram_bw.tsv >out 2>err &&
	lpmake -q RUN=eq gpumetrics.tsv dram_bw.tsv &&
	touch "$PWD/d:x/llama_gpu_metrics.sqlite" &&
	test_must_fail lpmake -q RUN=colon gpumetrics.tsv
'

test_done
