#!/usr/bin/env bash
# NVTX regions measured whole by ncu (range / app-range replay): the
# commands per nesting depth, real region exports imported, the live path
# with stand-in profilers, and the make guarantees.
. "$(dirname "$0")/lib.sh"

C=$ROOT/conf
P=$FIX/h200-probe
W=$FIX/h200-whole
export LP_FAKE_LOG=$TRASH/fake.log
export LP_FAKE_NSYS=$W/tinyllm
export LP_FAKE_NCU_CSV=$FIX/h200-live/n2.csv
export LP_FAKE_NCU_REGIONS=$TRASH/fr/d
FAKE=$ROOT/tests/fake
WK="sh tests/fake/workload.sh"
mkdir -p "$TRASH/fr" && cp "$P/region_rt_raw.csv" "$TRASH/fr/d0.csv" && cp "$P/region_rr_raw.csv" "$TRASH/fr/d1.csv"
count() {
	grep -c "^$1" "$LP_FAKE_LOG" || true
}
rows() {
	sed "/^#/d" "$1" | sed 1d
}

test_expect_success 'setup: region configs, named domain and PyTorch default domain' '
	lp-confmerge "$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.regions.yaml" "$C/model/tinyllm.yaml" >"$TRASH/tl.yaml" &&
	lp-confmerge "$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.regions.yaml" "$C/model/torch-decoder.yaml" >"$TRASH/td.yaml"
'

test_expect_success 'one ncu command per nesting depth, no kernel filter' '
	lp-ncucmd -p ncu_regions -R -o b -- ./tinyllm <"$TRASH/tl.yaml" >cmd 2>err &&
	test_must_be_empty err &&
	test $(wc -l <cmd) = 2 &&
	grep -o -e "--nvtx-include [^ ]*" -e "--export [^ ]*" cmd >got &&
	cat >expect <<-\EOF &&
	--nvtx-include LLM@prefill/
	--nvtx-include LLM@decode_all/
	--export b0
	--nvtx-include LLM@decode_step/
	--export b1
	EOF
	test_cmp expect got &&
	! grep -q -e --kernel cmd &&
	grep -c -e "--replay-mode app-range" cmd >n && echo 2 >two && test_cmp two n
'

test_expect_success 'range replay has no SASS counters: dropped, and said' '
	lp-ncucmd -p ncu_regions -R -a "$P/query-metrics.txt" -o b -- ./tinyllm <"$TRASH/tl.yaml" >cmd 2>err &&
	test_must_be_empty err && ! grep -q "^#" cmd &&
	lp-confmerge -s ncu_regions.metrics=gpu__time_duration.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum \
		-s ncu_regions.replay_mode=range "$TRASH/tl.yaml" >r.yaml &&
	lp-ncucmd -p ncu_regions -R -o b -- ./tinyllm <r.yaml >cmd 2>err &&
	test_grep "^# lp: dropped metrics: sm__sass_thread_inst_executed_op_ffma_pred_on.sum (not supported in range replay)$" cmd &&
	test_grep -e "--replay-mode range --apply-rules no --metrics gpu__time_duration.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum --nvtx" cmd
'

test_expect_success 'PyTorch default-domain regions: the @ escaped for ncu' '
	lp-ncucmd -0 -p ncu_regions -R -o b -- python3 x.py <"$TRASH/td.yaml" >lp.out && <lp.out tr "\0" "\n" >words &&
	grep -A1 -e --nvtx-include words | grep -v -e "^--" >got &&
	printf "%s\n" "LLM\\@prefill/" "LLM\\@decode_all/" "LLM\\@decode_step/" >expect &&
	test_cmp expect got &&
	lp-ncucmd -p ncu_regions -R -d <"$TRASH/td.yaml" >got &&
	printf "depth 0: NVTX include: LLM\\\\@prefill/ LLM\\\\@decode_all/\ndepth 1: NVTX include: LLM\\\\@decode_step/\n" >expect &&
	test_cmp expect got
'

test_expect_success 'extra regions nest under a stage; a bad parent or a cycle is refused' '
	printf "stages:\n  a: {domain: X, range: a, parent: b}\n  b: {domain: X, range: b, parent: a}\n" >cyc.yaml &&
	test_expect_code 1 lp-ncucmd -p ncu_regions -R -o b -- w <cyc.yaml >out 2>err &&
	test_must_be_empty out && test_grep "its parents form a cycle" err &&
	printf "stages:\n  a: {domain: X, range: a, parent: nosuch}\n" >orphan.yaml &&
	test_expect_code 1 lp-ncucmd -p ncu_regions -R -o b -- w <orphan.yaml >out 2>err &&
	test_grep "region a: no stage or region \"nosuch\" to be its parent" err &&
	printf "stages:\n  a: {domain: X, range: a}\nncu_regions:\n  regions:\n    - {name: b, domain: X, range: b, parent: a}\n" >x.yaml &&
	lp-ncucmd -p ncu_regions -R -d <x.yaml >got &&
	printf "depth 0: NVTX include: X@a/\ndepth 1: NVTX include: X@b/\n" >expect &&
	test_cmp expect got
'

# Real exports of one tinyllm run (--layers 2 --tokens 6): app-range over
# prefill and decode_all, range replay over decode_step; nsys exports of
# another run of the same shape.
test_expect_success 'imported region exports: regions.md without a GPU' '
	cp "$P/region_rt_raw.csv" "$TRASH/d0_regions.csv" && cp "$P/region_rr_raw.csv" "$TRASH/d1_regions.csv" &&
	lpmake RUN=imp "IMPORT=$(echo "$W"/tinyllm_*.csv) $TRASH/d0_regions.csv $TRASH/d1_regions.csv" MODEL=tinyllm \
		regions.md >out 2>err &&
	for f in regions.tsv region_work.tsv region_instances.tsv regions.md ncu/regions/index.tsv \
		ncu/regions/decode_step.csv ncu/regions/decode_step.md ncu/regions/decode_step.json; do
		test -s "$S2/imp/$f" || { echo "no $f"; return 1; }
	done &&
	grep "^## " "$S2/imp/regions.md" >got &&
	printf "## %s\n" Regions "Region Work against the Model" "Region Instances" "Region Files" >expect &&
	test_cmp expect got &&
	rows "$S2/imp/regions.tsv" | cut -f1,4 >got &&
	printf "prefill\t1\ndecode_all\t1\ndecode_all > decode_step\t6\n" >expect &&
	test_cmp expect got &&
	# the page a person reads shows a ratio to 4 digits (the CSV, every digit)
	grep -oE "\| [0-9]+\.[0-9]+ \|" "$S2/imp/ncu/regions/decode_step.md" |
		awk "{ s = \$2; sub(/\./, \"\", s); sub(/^0+/, \"\", s); if (length(s) > 4) print }" >long &&
	test_must_be_empty long &&
	grep -q "[0-9]\.[0-9]\{5,\}" "$S2/imp/ncu/regions/decode_step.csv"
'

test_expect_success 'each instance as the export has it: duration, FLOPs, bytes' '
	printf "%s\n" "NR == 1 { n = csv(\$0, f); col(f, n, h); next } NR == 2 { next }" \
		"{ csv(\$0, f); printf \"%.0f\\n\", num(f[h[\"gpu__time_duration.sum\"]]) }" >t.awk &&
	awk -f "$ROOT/tests/csv.awk" -f t.awk "$P/region_rr_raw.csv" >expect &&
	test $(wc -l <expect) = 6 &&
	rows "$S2/imp/region_instances.tsv" | grep "decode_step" | cut -f5 >got &&
	test_cmp expect got &&
	rows "$S2/imp/region_instances.tsv" | grep "decode_step" | cut -f2,6 >got &&
	printf "1\t17451871\n2\t395296\n3\t389344\n4\t393920\n5\t371872\n6\t358720\n" >expect &&
	test_cmp expect got &&
	test_grep "^\"decode_all > decode_step\",\"1\",\"1982\",\"0\",\"638368\"" "$S2/imp/ncu/regions/decode_step.csv" &&
	test_grep "\"gpu_ns\": 638368" "$S2/imp/ncu/regions/decode_step.json"
'

test_expect_success 'the steady state and the warm-up of a region' '
	rows "$S2/imp/regions.tsv" | grep "decode_step" | cut -f6-10 | g4 5 >got &&
	printf "638368\t459200.0\tno\t389344.0\t1.179\n" >expect &&
	test_cmp expect got
'

# Named like a region export, it is what its rows say: kernel launches,
# here of another program (torch_decoder.py's GEMMs beside tinyllm).
test_expect_success 'a kernel-replay export named as a region one is read as what it is' '
	cp "$P/torch_prefill_gemm_raw.csv" "$TRASH/k_regions.csv" &&
	test_must_fail lpmake RUN=imp2 "IMPORT=$(echo "$W"/tinyllm_*.csv) $TRASH/k_regions.csv" MODEL=tinyllm \
		regions.tsv >out 2>err &&
	test_grep "k_regions.csv: none of its 5 ncu kernels (.*process python3.12) is a kernel of the nsys capture" err &&
	! test -e "$S2/imp2/regions.tsv"
'

test_expect_success 'an import without region exports says what to give' '
	test_must_fail lpmake RUN=imp3 "IMPORT=$(echo "$W"/tinyllm_*.csv)" MODEL=tinyllm regions.md >out 2>err &&
	test_grep "has no region profile: .*an ncu export of range or app-range replay" err
'

test_expect_success 'NCU_PRESET=regions is refused: it names the kernel step presets and SET=ncu_regions' '
	test_must_fail lpmake RUN=np WORK=true NCU_PRESET=regions config.yaml >out 2>err &&
	test_grep "NCU_PRESET picks the kernel step.s preset (default, light, high)" err &&
	test_grep "SET=.ncu_regions.KEY=VALUE" err &&
	! test -e "$S2/np/config.yaml" &&
	lpmake RUN=np WORK=true NCU_PRESET= config.yaml >/dev/null 2>&1 &&
	test_grep "^ncu_cli:" "$S2/np/config.yaml"
'

test_expect_success 'live, stand-in profilers: regions after the run re-run neither nsys nor the kernel ncu step' '
	: >"$LP_FAKE_LOG" &&
	PATH=$FAKE:$PATH lpmake RUN=live "WORK=$WK" MODEL=tinyllm SET=nsys_cli.capture_range=none \
		stakeholder_summary.md >out 2>err &&
	# the capture and the untraced timing run (nsys with NVTX alone), once each
	test "$(count "nsys profile --trace=cuda,nvtx ")" = 1 && test "$(count "nsys profile --trace=nvtx ")" = 1 &&
	test "$(count "nsys profile")" = 2 && test "$(count "ncu --target")" = 1 &&
	PATH=$FAKE:$PATH lpmake RUN=live regions.md >out 2>err &&
	test "$(count "nsys profile")" = 2 && test "$(count "nsys stats")" = 2 &&
	test "$(count "ncu --target-processes all --devices 0 --replay-mode kernel")" = 1 &&
	test "$(count "ncu --target-processes all --replay-mode app-range")" = 2 &&
	PATH=$FAKE:$PATH lpmake -q RUN=live regions.md &&
	test_expect_code 1 lpmake -q RUN=live stakeholder_summary.md &&
	PATH=$FAKE:$PATH lpmake RUN=live stakeholder_summary.md >/dev/null &&
	test_grep "^## Regions$" "$S2/live/details.md" &&
	test_grep "^See \[regions.md\](regions.md).$" "$S2/live/details.md" &&
	PATH=$FAKE:$PATH lpmake -q RUN=live stakeholder_summary.md
'

test_expect_success 'removing regions.tsv redoes it and what reads it only' '
	rm "$S2/live/regions.tsv" &&
	steps RUN=live regions.md stakeholder_summary.md >got &&
	printf "lp-%s\n" regions summary summary >expect &&
	test_cmp expect got &&
	PATH=$FAKE:$PATH lpmake RUN=live regions.md stakeholder_summary.md >/dev/null
'

test_expect_success 'an NVTX filter that matches nothing is an error showing the filter' '
	: >"$LP_FAKE_LOG" &&
	PATH=$FAKE:$PATH lpmake RUN=nom "WORK=$WK" MODEL=tinyllm SET=nsys_cli.capture_range=none topn.tsv >/dev/null 2>&1 &&
	test_must_fail env LP_FAKE_NCU_NOTHING=1 PATH=$FAKE:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} \
		LP_STAGE2_DIR="$S2" RUN=nom regions.md >out 2>err &&
	test_grep "lp: ncu.s report of depth 0 holds no range (the NVTX filters matched nothing). Filters used:" err &&
	test_grep "^depth 0: NVTX include: LLM@prefill/ LLM@decode_all/$" err &&
	! test -e "$S2/nom/ncu/regions/d0.ncu-rep" && ! test -e "$S2/nom/ncu/regions/exports.list"
'

test_expect_success 'range replay that ncu refuses names app-range; no silent fallback' '
	: >"$LP_FAKE_LOG" &&
	test_must_fail env LP_FAKE_NCU_RANGE_FAIL=1 PATH=$FAKE:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} \
		LP_STAGE2_DIR="$S2" RUN=nom SET="nsys_cli.capture_range=none ncu_regions.replay_mode=range" regions.md >out 2>err &&
	test_grep "Unsupported API during capture" err &&
	test_grep "app-range replay can: SET=ncu_regions.replay_mode=app-range" err &&
	test_grep "failed with exit code 9" err &&
	! grep -q -e "--replay-mode app-range" "$LP_FAKE_LOG" &&
	! test -e "$S2/nom/ncu/regions/d0.ncu-rep"
'

test_expect_success 'a region step cut off resumes: a finished depth is not profiled again' '
	: >"$LP_FAKE_LOG" &&
	PATH=$FAKE:$PATH lpmake RUN=res "WORK=$WK" MODEL=tinyllm SET=nsys_cli.capture_range=none topn.tsv >/dev/null 2>&1 &&
	mv "$TRASH/fr/d1.csv" "$TRASH/fr/d1.keep" && : >"$TRASH/fr/d1.csv" &&
	test_must_fail env PATH=$FAKE:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} \
		LP_STAGE2_DIR="$S2" RUN=res regions.md >out 2>err &&
	test -s "$S2/res/ncu/regions/d0.ncu-rep" &&
	mv "$TRASH/fr/d1.keep" "$TRASH/fr/d1.csv" &&
	: >"$LP_FAKE_LOG" &&
	PATH=$FAKE:$PATH lpmake RUN=res regions.md >out 2>err &&
	test "$(count "ncu --target")" = 1 &&
	grep "^ncu --target" "$LP_FAKE_LOG" | test_grep -e "--export $S2/res/ncu/regions/tmp.d1 "
'

test_expect_success 'lp-ncuregions says each region ncu profiles as it comes (depth, count), and keeps what ncu said in dN.log' '
	PATH=$FAKE:$PATH lpmake RUN=prog "WORK=$WK" MODEL=tinyllm SET=nsys_cli.capture_range=none topn.tsv >/dev/null 2>&1 &&
	LP_FAKE_NCU_PROF=2 PATH=$FAKE:$PATH lpmake RUN=prog regions.md >out 2>err &&
	grep "^lp: regions depth" out >got &&
	printf "lp: regions depth %s profiled: \"r%s\": 0%%....50%%....100%% - 3 passes\n" "0, 1" 0 "0, 2" 1 "1, 1" 0 "1, 2" 1 >expect &&
	test_cmp expect got &&
	test_grep "^lp: ncu regions depth 1 took [0-9.]* s$" out &&
	test "$(grep -c "^==PROF== Profiling" "$S2/prog/ncu/regions/d0.log")" = 2 &&
	printf "%s\n" "$S2/prog/ncu/regions/d0.csv" "$S2/prog/ncu/regions/d1.csv" >expect &&
	test_cmp expect "$S2/prog/ncu/regions/exports.list"
'

test_expect_success 'imported region exports: a CSV copied, a report exported with the local ncu; without ncu, said and nothing written' '
	cfg=$S2/imp/ncu/regions/config.yaml && mkdir -p rd &&
	echo "regions: $TRASH/fr/d1.csv" >x_regions.ncu-rep &&
	PATH=$FAKE:$PATH lp-ncuregions -c "$cfg" -o rd -l list -C "$TRASH/fr/d0.csv" -r x_regions.ncu-rep </dev/null >out &&
	test_must_be_empty out &&
	printf "rd/imp0.csv\nrd/imp1.csv\n" >expect && test_cmp expect list &&
	test_cmp "$TRASH/fr/d0.csv" rd/imp0.csv && test_cmp "$TRASH/fr/d1.csv" rd/imp1.csv &&
	# (make checks for ncu, as for every step that runs it)
	test_expect_code 2 env PATH=/usr/bin:/bin make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" \
		RUN=nocu "IMPORT=$(echo "$W"/tinyllm_*.csv) $TRASH/d0_regions.csv $PWD/x_regions.ncu-rep" MODEL=tinyllm \
		regions.md >out 2>err &&
	test_grep "^lp: ncu not found on PATH (/usr/bin:/bin): install Nsight Compute to export $PWD/x_regions.ncu-rep$" err &&
	! test -e "$S2/nocu/ncu/regions/exports.list" && ! test -e "$S2/nocu/ncu/regions/imp0.csv"
'

test_expect_success 'a process the workload leaves running holds neither the region step nor its descriptors' '
	cfg=$S2/imp/ncu/regions/config.yaml && mkdir -p rd3 &&
	# the profile: a "workload" that leaves a sleeper with the output
	# open, says one region and writes the report (the stand-in export
	# reads the CSV it names)
	printf "%s\n" "sh -c '"'"'sleep 300 & echo \$! >sleeper; ls -l /proc/\$\$/fd/ >fds; echo \"==PROF== Profiling \\\"r0\\\": 3 passes\"; echo \"regions: $TRASH/fr/d0.csv\" >rd3/tmp.d0.ncu-rep'"'"'" >cmd &&
	PATH=$FAKE:$PATH timeout 60 lp-ncuregions -c "$cfg" -o rd3 -l list <cmd >out 2>err
	rc=$?; kill "$(cat sleeper)" 2>/dev/null
	test "$rc" = 0 &&
	test_grep "^lp: regions depth 0, 1 profiled: \"r0\": 3 passes$" out &&
	echo rd3/d0.csv >expect && test_cmp expect list &&
	# the shell has nothing of lp-ncuregions: not -l, not the log it
	# reads (dash keeps copies of its own streams above 9)
	! grep -e "/list\$" -e "^lr.*d0\.log" fds
'

test_done
