#!/usr/bin/env bash
# GPU Metrics per stage (issue 31): lp-gpumetrics reads nsys's GPU Metrics
# samples from the sqlite export and averages them over each instance of
# each stage.  Input: a real 1 kHz capture of the TinyLlama-shaped Llama
# on an H200 (tests/fixtures/h200-gpumetrics: its sqlite export cut to the
# ranges' window, and its NVTX traces).  Every cell is recomputed from the
# raw samples with the sqlite3 CLI and awk (tests/gpumetrics.awk).
. "$(dirname "$0")/lib.sh"

G=$FIX/h200-gpumetrics
DB=$G/llama_gpu_metrics.sqlite
P=$G/llama_nvtx_gpu_proj_trace.csv
T=$G/llama_nvtx_pushpop_trace.csv
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/model/hf-llama.yaml" >"$TRASH/cfg.yaml"
printf 'prefill\t:LLM@prefill\ndecode_all\t:LLM@decode_all\ndecode_step\t:LLM@decode_step\n' >"$TRASH/stages"


# expect PROJ TRACE > file: the table's rows recomputed
expect() {
	sqlite3 -batch -noheader -separator '|' "$DB" "SELECT timestamp, metricName, value
		FROM GPU_METRICS JOIN TARGET_INFO_GPU_METRICS USING (typeId, metricId)" >"$TRASH/samples" &&
	bw=$(sqlite3 -batch -noheader "$DB" "SELECT memoryBandwidth FROM TARGET_INFO_GPU") &&
	awk -v proj="$1" -v bw="$bw" -f "$ROOT/tests/csv.awk" -f "$ROOT/tests/gpumetrics.awk" \
		"$TRASH/stages" "$2" "$TRASH/samples"
}
# compare EXPECT TABLE: same rows, counts equal, numbers within 1 %
compare() {
	awk -F'\t' 'FNR == 1 { file++ }
		file == 1 { e[++ne] = $0; next }
		/^#/ { next } !h { for (i = 1; i <= NF; i++) ix[$i] = i; h = 1; next }
		{ split(e[++nr], x, "\t")
		  if (x[1] != $ix["stage"] || x[2] != $ix["metric"]) { print "row " nr ": " $ix["stage"] " " $ix["metric"] " against " x[1] " " x[2]; bad = 1 }
		  if (x[3] != $ix["instances"] || x[4] != $ix["sampled_instances"] || x[5] != $ix["samples"]) { print "row " nr ": counts " x[3] "/" x[4] "/" x[5] " got " $ix["instances"] "/" $ix["sampled_instances"] "/" $ix["samples"]; bad = 1 }
		  for (c = 6; c <= 8; c++) { g = $ix[c == 6 ? "mean" : c == 7 ? "p50" : "p90"] + 0; w = x[c] + 0
		    d = g - w; if (d < 0) d = -d; if (d > 0.01 * (w < 0 ? -w : w) + 1e-12) { print "row " nr " " x[1] " " x[2] ": col " c " " g " against " w; bad = 1 } } }
		END { if (nr != ne) { print nr " rows against " ne; bad = 1 } exit bad }' "$1" "$2"
}

with_sqlite 'GPU projection: every cell recomputed from the raw samples (within 1 %)' '
	lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" -t "$T" "$DB" >g.tsv &&
	expect 1 "$P" >e &&
	test $(wc -l <e) = 40 &&
	compare e g.tsv &&
	test $(grep -c "	GPU projection	" g.tsv) = 40 &&
	grep "^decode_step:steady	Tensor Active" g.tsv >ta && grep -q "	15	15	" ta &&
	test_grep "^# tool: lp-gpumetrics" g.tsv &&
	test_grep "^# title: GPU Metrics per Stage" g.tsv
'

with_sqlite 'host ranges without the projection: recomputed the same way' '
	lp-gpumetrics -c "$TRASH/cfg.yaml" -t "$T" "$DB" >h.tsv &&
	expect 0 "$T" >e &&
	compare e h.tsv &&
	test $(grep -c "	host range	" h.tsv) = 40
'

with_sqlite 'an empty projection (nsys: no range had GPU work) falls back to host ranges' '
	: >empty.csv &&
	lp-gpumetrics -c "$TRASH/cfg.yaml" -p empty.csv -t "$T" "$DB" >h2.tsv &&
	lp-gpumetrics -c "$TRASH/cfg.yaml" -t "$T" "$DB" >h.tsv &&
	grep -v "^# source" h.tsv >a && grep -v "^# source" h2.tsv >b && test_cmp a b
'

test_expect_success 'measured numbers of the capture: decode is mostly idle, clocks in MHz' '
	lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" -t "$T" "$DB" >g.tsv &&
	awk -F"\t" "\$1 == \"decode_step:steady\" && \$2 ~ /^(Tensor Active|GPC Clock)/ { printf \"%s %.4g\\n\", \$2, \$8 }" g.tsv >got &&
	printf "Tensor Active [Throughput %%] 0.345\nGPC Clock Frequency [MHz] 1975\n" >want &&
	test_cmp want got &&
	test_grep "^# note: DRAM bandwidth of the GPU: 4.8143e+12 bytes/s" g.tsv
'

with_sqlite 'a metric the export lacks is n/a with its cause; no TARGET_INFO_GPU: no bytes/s' '
	cp "$DB" r.sqlite && sqlite3 r.sqlite "DELETE FROM TARGET_INFO_GPU_METRICS WHERE metricName LIKE '\''Tensor%'\''; DROP TABLE TARGET_INFO_GPU" &&
	lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" "$DB" >/dev/null &&
	lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" r.sqlite >m.tsv &&
	grep "^prefill	Tensor Active" m.tsv | test_grep "n/a because the export has no metric \"Tensor Active \[Throughput %\]\"" &&
	grep "^prefill	DRAM Read Bandwidth \[bytes/s\]" m.tsv | test_grep "n/a because the export has no TARGET_INFO_GPU table" &&
	grep "^prefill	SMs Active" m.tsv >sm && grep -qv "n/a" sm
'

with_sqlite 'bad samples are refused naming the export and the row' '
	cp "$DB" r.sqlite && sqlite3 r.sqlite "UPDATE GPU_METRICS SET value = 250 WHERE rowid = (SELECT min(rowid) FROM GPU_METRICS WHERE metricId = 3)" &&
	row=$(sqlite3 r.sqlite "SELECT min(rowid) FROM GPU_METRICS WHERE metricId = 3") &&
	test_expect_code 1 lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" r.sqlite >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-gpumetrics: r.sqlite: GPU_METRICS row $row: \"SMs Active \[Throughput %\]\" is 250, not a percentage from 0 to 100" err &&
	cp "$DB" r.sqlite && sqlite3 r.sqlite "UPDATE GPU_METRICS SET value = '\''x'\'' WHERE rowid = $row" &&
	test_expect_code 1 lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" r.sqlite 2>err &&
	test_grep "GPU_METRICS row $row: value of \"SMs Active \[Throughput %\]\" is not a number" err
'

with_sqlite 'a capture without sampling, two GPUs, a file that is no export: refused with the cause' '
	cp "$DB" r.sqlite && sqlite3 r.sqlite "DROP TABLE GPU_METRICS" &&
	test_expect_code 1 lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" r.sqlite 2>err &&
	test_grep "no GPU Metrics samples (no table GPU_METRICS): the capture was made without nsys profile --gpu-metrics-devices" err &&
	cp "$DB" r.sqlite && sqlite3 r.sqlite "INSERT INTO TARGET_INFO_GPU_METRICS SELECT typeId + 1, sourceId, typeName, metricId, metricName FROM TARGET_INFO_GPU_METRICS" &&
	test_expect_code 1 lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" r.sqlite 2>err &&
	test_grep "samples of 2 GPUs and lp cannot tell which GPU each is: typeId 281479271677953 has no GPU 1 in TARGET_INFO_GPU .*lp-gpumetrics -T TYPEID reads one" err &&
	lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" -T 281479271677952 r.sqlite >t.tsv &&
	lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" "$DB" >g.tsv &&
	test_cmp <(grep -v "^# source" g.tsv) <(grep -v "^# source" t.tsv) &&
	test_expect_code 1 lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" -T 7 r.sqlite 2>err &&
	test_grep "^lp-gpumetrics: -T 7: not a typeId" err &&
	test_expect_code 1 lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" "$T" 2>err &&
	test_grep "not an SQLite database" err
'

test_expect_success 'a cut trace is refused naming its line; usage; a full disk fails' '
	head -c 300 "$P" >cut.csv &&
	test_expect_code 1 lp-gpumetrics -c "$TRASH/cfg.yaml" -p cut.csv "$DB" 2>err &&
	test_grep "cut.csv:" err &&
	test_expect_code 2 lp-gpumetrics -c "$TRASH/cfg.yaml" "$DB" 2>err &&
	test_grep "usage: lp-gpumetrics" err &&
	test_must_fail lp-gpumetrics -c "$TRASH/cfg.yaml" -p "$P" "$DB" >/dev/full
'

# A two-GPU capture (a torchrun run on an H200 pair stopped make at this
# step): the fixture's export with a second metrics source added, as nsys
# lists one per GPU in TARGET_INFO_GPU_METRICS, but no GPU 1 in
# TARGET_INFO_GPU to tie it to (t0069 has four GPUs that tie).
with_sqlite 'samples of two GPUs lp cannot tie: -n says why and is left out; without -n, -T is asked for' '
	cp "$DB" two.sqlite &&
	sqlite3 two.sqlite "INSERT INTO TARGET_INFO_GPU_METRICS SELECT typeId + 1, sourceId, typeName, metricId, metricName FROM TARGET_INFO_GPU_METRICS" &&
	lp-gpumetrics -n -c "$TRASH/cfg.yaml" -t "$T" two.sqlite >two.tsv &&
	test_grep "^# omit: no samples" two.tsv &&
	test_grep "n/a because samples of 2 GPUs and lp cannot tell which GPU each is: " two.tsv &&
	test_expect_code 1 lp-gpumetrics -c "$TRASH/cfg.yaml" -t "$T" two.sqlite >out 2>err &&
	test_grep "lp-gpumetrics -T TYPEID reads one" err && test_must_be_empty out
'

test_done
