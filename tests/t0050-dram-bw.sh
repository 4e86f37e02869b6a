#!/usr/bin/env bash
# The DRAM ceiling the GPU reaches, beside the datasheet's (issue 31, item
# 3): lp-bwprobe's device-to-device copies, the best bandwidth sustained in
# nsys's GPU Metrics samples (lp-bwceil), and how the roofline, its chart
# and the waterfall show them.  Inputs: the real 1 kHz H200 capture of the
# TinyLlama-shaped Llama (tests/fixtures/h200-gpumetrics), whose best
# window is recomputed with the sqlite3 CLI's window functions; the probe
# runs against a stand-in CUDA driver (tests/fake/libcuda.c, built by make
# as bin/test/libcuda-fake.so: the driver API's calls, no GPU), which
# stands for a machine's libcuda.so.1.
. "$(dirname "$0")/lib.sh"

G=$FIX/h200-gpumetrics
DB=$G/llama_gpu_metrics.sqlite
FAKE=$LP_BIN/test/libcuda-fake.so
[ -f "$FAKE" ] || FAKE=$ROOT/bin/test/libcuda-fake.so
printf 'gpu:\n  name: NVIDIA H200\n' >"$TRASH/h200.yaml"
lp-gpu -c "$TRASH/h200.yaml" -t "$ROOT/conf/gpus.yaml" >"$TRASH/gpu.tsv" || exit 1

test_expect_success 'lp-bwprobe without a CUDA driver: no table, exit 2, the loader named' '
	mkdir empty &&
	test_expect_code 2 lp-bwprobe -l "$PWD/empty/libcuda.so.1" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-bwprobe: cannot load the CUDA driver: .*empty/libcuda.so.1: cannot open shared object file" err &&
	test_grep "no GPU bandwidth to measure on this machine$" err
'

test_expect_success 'lp-bwprobe: best and median of the timed copies, 2 x bytes / time' '
	FAKE_CUDA_DEVICES=2 FAKE_CUDA_MS=0.50,0.47,0.52,0.49,0.55 \
		lp-bwprobe -l "$FAKE" -r 5 -s 268435456 >p.tsv 2>err &&
	test_must_be_empty err &&
	test_grep "^# tool: lp-bwprobe" p.tsv &&
	test_grep "^# source: cuMemcpyDtoD of a 268435456-byte buffer into another on each visible GPU (.*, CUDA driver API 12.8), one warm-up copy then 5 timed copies" p.tsv &&
	table p.tsv device name bytes copies best_bytes_per_s median_bytes_per_s best_ns median_ns | g4 5 6 >got &&
	awk -v OFS="\t" "BEGIN { s = 268435456
		# the stand-in gives the times in turn, 5 a GPU (sorted: .47 .49 .50 .52 .55)
		for (d = 0; d < 2; d++) print d, \"NVIDIA H200\", s, 5, sprintf(\"%.4g\", 2 * s / 0.47e-3),
			sprintf(\"%.4g\", 2 * s / 0.50e-3), 470000, 500000 }" >want &&
	test_cmp want got
'

test_expect_success 'lp-bwprobe: a driver call that fails is named, with the GPU; no table' '
	for f in cuInit cuDeviceGetName cuMemAlloc_v2 cuMemsetD8_v2 cuMemcpyDtoD_v2 cuEventRecord cuEventElapsedTime cuMemFree_v2; do
		FAKE_CUDA_FAIL=$f test_expect_code 2 lp-bwprobe -l "$FAKE" -r 2 -s 1048576 >out 2>err &&
		test_must_be_empty out &&
		test_grep -E "^lp-bwprobe: (GPU 0: )?$f failed: out of memory \(CUresult 2\)$" err || return 1
	done &&
	FAKE_CUDA_NODEVICE=1 test_expect_code 2 lp-bwprobe -l "$FAKE" >out 2>err &&
	test_must_be_empty out &&
	test_grep "cuInit: the CUDA driver (.*) sees no GPU" err &&
	FAKE_CUDA_FREE=1073741824 test_expect_code 2 lp-bwprobe -l "$FAKE" >out 2>err &&
	test_grep "GPU 0 (NVIDIA H200): two buffers of 1073741824 bytes do not fit in its 1073741824 free bytes" err &&
	test_expect_code 2 lp-bwprobe -s 1000 2>err &&
	test_grep "^lp-bwprobe: -s: expected a whole number from 1048576" err &&
	test_expect_code 2 lp-bwprobe -l "$FAKE" -s 1048576 >/dev/full 2>err &&
	test_grep "^lp-bwprobe: <stdout>: No space left on device" err
'

with_sqlite 'lp-bwceil: the best 10-sample DRAM window, recomputed with sqlite window functions' '
	lp-bwceil -g "$TRASH/gpu.tsv" -P "an imported run" "$DB" >b.tsv &&
	sqlite3 -batch -noheader "$DB" "WITH m AS (SELECT metricId FROM TARGET_INFO_GPU_METRICS
			WHERE metricName IN (\"DRAM Read Bandwidth [Throughput %]\", \"DRAM Write Bandwidth [Throughput %]\")),
		s AS (SELECT timestamp t, sum(value) v FROM GPU_METRICS WHERE metricId IN m
			GROUP BY timestamp HAVING count(*) = 2),
		w AS (SELECT avg(v) OVER win a, count(*) OVER win n FROM s WINDOW win AS (ORDER BY t ROWS 9 PRECEDING))
		SELECT printf(\"%.6g\", max(a) * (SELECT memoryBandwidth FROM TARGET_INFO_GPU) / 100) FROM w WHERE n = 10" >want &&
	sed -n "s/^# sampled_bps: //p" b.tsv | awk "{ printf \"%.6g\\n\", \$1 }" >got &&
	test_cmp want got &&
	test $(cat got) = 6.64374e+11 &&
	table b.tsv source gpu bytes_per_s datasheet_pct | g4 3 4 >rows &&
	printf "datasheet\tNVIDIA H200\t4.8e+12\t100\ncopy_best\tn/a\tn/a because an imported run\tn/a\nsampled_best\tNVIDIA H200\t6.644e+11\t13.84\n" >expect &&
	test_cmp expect rows &&
	test_grep "^# measured: n/a because an imported run$" b.tsv &&
	! grep "^# measured_bps" b.tsv &&
	test_grep "the best mean of 10 consecutive samples (10 ms at one every 1 ms; from 11.153747 s to 11.162746 s of the capture)" b.tsv &&
	lp-bwceil -w 1 -g "$TRASH/gpu.tsv" -P x "$DB" | sed -n "s/^# sampled_bps: //p" | awk "{ printf \"%.6g\\n\", \$1 }" >one &&
	sqlite3 -batch -noheader "$DB" "SELECT printf(\"%.6g\", max(v) * (SELECT memoryBandwidth FROM TARGET_INFO_GPU) / 100)
		FROM (SELECT sum(value) v FROM GPU_METRICS JOIN TARGET_INFO_GPU_METRICS USING (typeId, metricId)
		WHERE metricName LIKE \"DRAM %\" GROUP BY timestamp)" >want1 &&
	test_cmp want1 one
'

test_expect_success 'lp-bwceil: the probe measured, failed, and GPUs of two models' '
	FAKE_CUDA_MS=0.5,0.45 lp-bwprobe -l "$FAKE" -r 2 >p.tsv &&
	lp-bwceil -g "$TRASH/gpu.tsv" -p p.tsv >b.tsv &&
	test "$(sed -n "s/^# measured_bps: //p" b.tsv | awk "{ printf \"%.4g\", \$1 }")" = 4.772e+12 &&
	test_grep "^# measured: the fastest of 2 device-to-device copies of 1073741824 bytes on NVIDIA H200 (lp-bwprobe)$" b.tsv &&
	test_grep "^# sampled: n/a because the run has no nsys sqlite export with GPU Metrics samples$" b.tsv &&
	table b.tsv source device bytes_per_s datasheet_pct | g4 3 4 >rows &&
	printf "datasheet\t-\t4.8e+12\t100\ncopy_best\t0\t4.772e+12\t99.42\ncopy_median\t0\t4.521e+12\t94.19\nsampled_best\tn/a\tn/a because the run has no nsys sqlite export with GPU Metrics samples\tn/a\n" >expect &&
	test_cmp expect rows &&
	: >empty.tsv &&
	lp-bwprobe -l "$PWD/none.so" >/dev/null 2>log; test -s log &&
	lp-bwceil -g "$TRASH/gpu.tsv" -p empty.tsv -e log >f.tsv &&
	test_grep "^# measured: n/a because the copy probe could not run on the run.s machine (lp-bwprobe: lp-bwprobe: cannot load the CUDA driver: .*none.so: cannot open shared object file" f.tsv &&
	awk -F"\t" -v OFS="\t" "/^device/ { print; next } /^0/ { print; \$1 = 1; \$2 = \"NVIDIA H100 80GB HBM3\"; print; next } { print }" p.tsv >two.tsv &&
	lp-bwceil -g "$TRASH/gpu.tsv" -p two.tsv >t.tsv &&
	test_grep "^# measured: n/a because the machine.s GPUs are not all one model" t.tsv &&
	test $(table t.tsv source | grep -c copy_best) = 2 &&
	test_expect_code 2 lp-bwceil -g "$TRASH/gpu.tsv" -p p.tsv -P both 2>err &&
	test_grep "^usage: lp-bwceil" err
'

# The roofline of the TinyLlama capture's kernels (tests/fixtures/h200-tinyllm)
test_expect_success 'lp-roofline -b and lp-roofsvg: the measured roof beside the datasheet, numbers unchanged' '
	FAKE_CUDA_MS=0.5,0.45 lp-bwprobe -l "$FAKE" -r 2 >p.tsv &&
	lp-bwceil -g "$TRASH/gpu.tsv" -p p.tsv "$DB" >b.tsv &&
	lp-kernjoin "$FIX/h200-tinyllm/cap_cuda_gpu_kern_sum.csv" >k.tsv &&
	lp-roofline -g "$TRASH/gpu.tsv" k.tsv >r0.tsv &&
	lp-roofline -b b.tsv -g "$TRASH/gpu.tsv" k.tsv >r.tsv &&
	grep -v "^# dram" r.tsv >r1.tsv && test_cmp r0.tsv r1.tsv &&
	grep "^# dram: " r.tsv | sed "s/datasheet.s/datasheet-s/" >line &&
	test_grep -F "# dram: datasheet 4.8 TB/s (gpu.tsv, NVIDIA H200; the roofs, ridges and % columns are against it); measured copy 4.772 TB/s, 99.4 % of the datasheet-s (b.tsv: the fastest of 2 device-to-device copies of 1073741824 bytes on NVIDIA H200 (lp-bwprobe)); best sustained in the GPU Metrics samples 0.6644 TB/s" line &&
	test "$(sed -n "s/^# dram_measured_bps: //p" r.tsv | awk "{ printf \"%.4g\", \$1 }")" = 4.772e+12 &&
	lp-roofsvg -g "$TRASH/gpu.tsv" r0.tsv >s0.svg &&
	lp-roofsvg -g "$TRASH/gpu.tsv" r.tsv >s.svg &&
	! grep dasharray s0.svg &&
	test $(grep -c "stroke-dasharray=\"6 4\"" s.svg) = 1 &&
	test_grep ">measured copy 4.77 TB/s</text>" s.svg &&
	test_grep ">DRAM 4.8 TB/s</text>" s.svg &&
	if command -v xmllint >/dev/null; then xmllint --noout s.svg; fi &&
	lp-bwceil -g "$TRASH/gpu.tsv" -P "imported" >n.tsv &&
	lp-roofline -b n.tsv -g "$TRASH/gpu.tsv" k.tsv >rn.tsv &&
	test_grep "^# dram: .*; measured copy n/a because imported (n.tsv)$" rn.tsv &&
	! grep "^# dram_measured_bps" rn.tsv &&
	lp-roofsvg -g "$TRASH/gpu.tsv" rn.tsv >sn.svg &&
	! grep dasharray sn.svg
'

test_expect_success 'lp-waterfall -b: the datasheet floor kept, the measured copy beside it' '
	M=$ROOT/conf/model/torch-decoder.yaml W=$FIX/h200-whole/torch &&
	lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" "$M" >c.yaml &&
	echo "sh w.sh" >work && lp-inputs -w work -m "$M" >in.yaml &&
	lp-stages -c c.yaml -k ${W}_nvtx_kern_sum.csv ${W}_nvtx_sum.csv >stages.tsv &&
	lp-steps -c c.yaml -i in.yaml ${W}_nvtx_pushpop_trace.csv >steps.tsv &&
	FAKE_CUDA_MS=0.5,0.45 lp-bwprobe -l "$FAKE" -r 2 >p.tsv &&
	lp-bwceil -g "$TRASH/gpu.tsv" -p p.tsv >b.tsv &&
	lp-waterfall -g "$TRASH/gpu.tsv" -i in.yaml -s stages.tsv -t steps.tsv >w0.tsv &&
	lp-waterfall -b b.tsv -g "$TRASH/gpu.tsv" -i in.yaml -s stages.tsv -t steps.tsv >w.tsv &&
	grep -v "^# dram" w.tsv >w1.tsv && test_cmp w0.tsv w1.tsv &&
	sed "/^#/d" w0.tsv | grep -q "^Floor" &&
	test_grep -F "# dram: datasheet 4.8 TB/s (gpu.tsv, NVIDIA H200; the floor is at it); measured copy 4.772 TB/s, 99.4 % of the datasheet" w.tsv &&
	test_grep "; at it, a floor set by bytes would be 1.01x the one shown$" w.tsv
'

test_expect_success 'make: an imported run with samples gets dram_bw.tsv, the roofline and waterfall show it' '
	lpmake -s RUN=gm MODEL=hf-llama SET="gpu.name=\"NVIDIA H200\"" IMPORT="$(echo "$G"/*.csv "$G"/*.sqlite)" \
		roofline.tsv waterfall.tsv >out 2>err &&
	test_grep "^# measured: n/a because the run is imported: lp did not run on its machine, so there is no copy probe of its GPU$" "$S2/gm/dram_bw.tsv" &&
	test "$(sed -n "s/^# sampled_bps: //p" "$S2/gm/dram_bw.tsv" | awk "{ printf \"%.6g\", \$1 }")" = 6.64374e+11 &&
	test_grep "^# dram: datasheet 4.8 TB/s .*measured copy n/a because the run is imported.*best sustained in the GPU Metrics samples 0.6644 TB/s" "$S2/gm/roofline.tsv" &&
	test_grep "^# dram: datasheet 4.8 TB/s" "$S2/gm/waterfall.tsv" &&
	lpmake -q RUN=gm roofline.tsv waterfall.tsv &&
	test_expect_code 2 lpmake RUN=gm bwprobe.tsv 2>err &&
	test_grep "lp: run gm imports exports: lp did not run on its machine, so it has no copy probe" err
'

# The live path with the stand-in nsys (tests/fake/nsys, as t0048 runs it):
# the probe runs once, before the capture; on a machine without a CUDA
# driver it says why and the run goes on.
mkdir -p "$TRASH/fk" && cp "$G"/llama_*.csv "$TRASH/fk/" &&
	cp "$G/llama_cuda_gpu_kern_sum.csv" "$TRASH/fk/llama_cuda_gpu_kern_sum_mangled.csv" &&
	cp "$G/llama_nvtx_kern_sum.csv" "$TRASH/fk/llama_nvtx_kern_sum_mangled.csv" || exit 1
export LP_FAKE_LOG=$TRASH/fake.log LP_FAKE_NSYS=$TRASH/fk/llama LP_FAKE_NSYS_SQLITE=$DB

test_expect_success 'make, live: the probe before the capture, dram_bw.tsv from it and the samples' '
	PATH=$ROOT/tests/fake:$PATH lpmake RUN=live "WORK=sh tests/fake/workload.sh" MODEL=hf-llama \
		SET="gpu.name=\"NVIDIA H200\"" dram_bw.tsv >out 2>err &&
	grep -n -e "lp-bwprobe" -e "nsys profile\|profile.cmd$" out >order &&
	head -1 order | test_grep "lp-bwprobe" &&
	test -f "$S2/live/bwprobe.tsv" &&
	if lp-bwprobe -r 1 -s 1048576 >/dev/null 2>&1; then
		test_grep "^# measured_bps: " "$S2/live/dram_bw.tsv"
	else
		test_must_be_empty "$S2/live/bwprobe.tsv" &&
		test_grep "^lp: no DRAM copy probe: lp-bwprobe: cannot load the CUDA driver" err &&
		test_grep "^# measured: n/a because the copy probe could not run on the run.s machine (lp-bwprobe: lp-bwprobe: cannot load the CUDA driver" "$S2/live/dram_bw.tsv"
	fi &&
	test "$(sed -n "s/^# sampled_bps: //p" "$S2/live/dram_bw.tsv" | awk "{ printf \"%.6g\", \$1 }")" = 6.64374e+11 &&
	lpmake -q RUN=live dram_bw.tsv &&
	rm "$S2/live/dram_bw.tsv" && touch mark &&
	lpmake -n RUN=live roofline.svg >n.out &&
	test_grep "lp-bwceil" n.out && ! grep "lp-bwprobe" n.out &&
	find "$S2/live" -newer mark >newer && test_must_be_empty newer &&
	# a measurement, like the capture: a rebuilt probe does not take it again
	lpmake RUN=live dram_bw.tsv >/dev/null 2>&1 &&
	b=${LP_BIN#$ROOT/} && lpmake -n -W "$b/lp-bwprobe" RUN=live dram_bw.tsv >w.out &&
	! grep "lp-bwprobe" w.out &&
	lpmake -q -W "$b/lp-bwprobe" RUN=live dram_bw.tsv
'

# Two H200s sampled at once: a GPU's first samples can come before the
# session's zero (negative timestamps, seen in t0006's export); they are
# times like any other. The fixture's samples shifted 11.2 s earlier, so
# that the first half are negative: the same best window, shifted.
with_sqlite 'samples before the session'"'"'s zero: lp-bwceil and lp-gpumetrics read them as times' '
	cp "$DB" neg.sqlite &&
	sqlite3 -batch neg.sqlite "UPDATE GPU_METRICS SET timestamp = timestamp - 11200000000" &&
	test $(sqlite3 -batch -noheader neg.sqlite "SELECT count(*) FROM GPU_METRICS WHERE timestamp < 0") -gt 0 &&
	lp-bwceil -g "$TRASH/gpu.tsv" -P x "$DB" | sed -n "s/^# sampled_bps: //p" >a &&
	lp-bwceil -g "$TRASH/gpu.tsv" -P x neg.sqlite 2>err | sed -n "s/^# sampled_bps: //p" >b &&
	test_must_be_empty err && test -s b && test_cmp a b &&
	lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/model/hf-llama.yaml" >cfg.yaml &&
	lp-gpumetrics -c cfg.yaml -t "$G/llama_nvtx_pushpop_trace.csv" neg.sqlite >g.tsv 2>err &&
	test_must_be_empty err
'

test_done
