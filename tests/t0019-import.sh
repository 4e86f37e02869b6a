#!/usr/bin/env bash
# IMPORT by content: each file is what its header and values say, whatever
# its name; several ncu exports of one capture give each stage its own
# launches; exports are joined only when they are per-process parts of one
# job, and refused, naming the files, when they overlap or come from other
# captures or programs.  Every input is a real H200 export (tests/fixtures),
# renamed, combined or split as a user's folder of exports would have them.
. "$(dirname "$0")/lib.sh"

V2=$FIX/h200-torch-v2
PRE=$FIX/h200-prefill
TP=$FIX/h200-tp

# The demo's run under names no tool chose: what each file is comes from
# its columns and rows alone (the app-range export is not *_regions.csv).
test_expect_success 'setup: the demo run under names that say nothing' '
	mkdir -p $TRASH/odd && n=0 &&
	for f in "$V2"/torch_*.csv; do n=$((n + 1)); cp "$f" "$TRASH/odd/export$n.csv"; done &&
	lpmake RUN=named "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder \
		kernels.md stakeholder_summary.md regions.md >/dev/null &&
	lpmake RUN=odd "IMPORT=$(echo $TRASH/odd/*.csv)" MODEL=torch-decoder \
		kernels.md stakeholder_summary.md regions.md >/dev/null
'

test_expect_success 'renamed exports give the same tables, regions from the app-range export' '
	for t in kernels.tsv stages.tsv steps.tsv regions.tsv region_work.tsv aggregates.tsv; do
		sed "/^#/d" "$S2/named/$t" | cut -f1-3 >a && sed "/^#/d" "$S2/odd/$t" | cut -f1-3 >b &&
		test_cmp a b || return 1
	done &&
	sed "/^#/d" "$S2/named/kernels.tsv" >a && sed "/^#/d" "$S2/odd/kernels.tsv" >b && test_cmp a b &&
	test_grep -c "^| " "$S2/odd/regions.md" >/dev/null &&
	! grep -q "	range	" "$S2/odd/kernels.tsv" &&
	test_grep "export[0-9]*.csv: ncu range export (regions), process 5368" "$S2/odd/import.mk" &&
	test_grep "export[0-9]*.csv: nsys nvtx_kern_sum_mangled, process 4788" "$S2/odd/import.mk"
'

test_expect_success 'make -q is true after an import; another IMPORT re-makes import.mk' '
	lpmake -q RUN=odd kernels.md stakeholder_summary.md regions.md &&
	rm "$TRASH/odd/export14.csv" 2>/dev/null; ls $TRASH/odd/*.csv >list &&
	lpmake RUN=odd "IMPORT=$(cat list | tr "\n" " ")" import.mk >/dev/null &&
	! grep -q export14 "$S2/odd/import.mk"
'

# Two ncu exports of one program: the prefill GEMMs' run (tpre) and the
# decode run (torch-v2), imported with the tpre capture.  Each stage takes
# the launches its NVTX stack puts inside it, nothing from the other.
test_expect_success 'a prefill and a decode ncu export: each stage its own launches' '
	imp="$(echo "$PRE"/tpre_*sum*.csv "$PRE"/tpre_*trace.csv) $PRE/tpre_ncu_raw.csv $V2/torch_ncu_raw.csv" &&
	lpmake RUN=dec "IMPORT=$imp" MODEL=torch-decoder kernels.md >/dev/null &&
	lpmake RUN=pre "IMPORT=$imp" MODEL=torch-decoder STAGE=prefill kernels.md >/dev/null &&
	lp-ncu2tsv "$V2/torch_ncu_raw.csv" >dec.expect &&
	lp-ncu2tsv "$PRE/tpre_ncu_raw.csv" >pre.expect &&
	grep -v "^# source:" "$S2/dec/ncu/metrics.tsv" >dec.got && sed -i "/^# source:/d" dec.expect &&
	grep -v "^# source:" "$S2/pre/ncu/metrics.tsv" >pre.got && sed -i "/^# source:/d" pre.expect &&
	test_cmp dec.expect dec.got &&
	test_cmp pre.expect pre.got &&
	test_grep "^# metrics: ncu CSV exports .*tpre_ncu_raw.csv .*torch_ncu_raw.csv, the launches inside" "$S2/dec/kernels.tsv"
'

test_expect_success 'a stage no ncu export reaches is refused, naming the ranges there are' '
	test_must_fail lp-ncu2tsv -r ":LLM@prefill" "$V2/torch_ncu_raw.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "none of the 10 ncu results is inside NVTX range \":LLM@prefill\" (they are in \":LLM@decode_all\")" err
'

# Four single-kernel --page details exports of four ncu runs, each
# numbering its launch 0 in its own process, cut from the real tinyllm
# export (dec_details.csv, results 0 to 3, process 647).
test_expect_success 'setup: four single-kernel details exports' '
	for i in 0 1 2 3; do
		A -v want=$i "NR == 1 { print; next } { n = csv(\$0, f); if (f[1] != want) next;
			sub(/^\"[0-9]+\",\"647\"/, \"\\\"0\\\",\\\"64\" want \"\\\"\"); print }" \
			"$FIX/h200-tinyllm/dec_details.csv" >$TRASH/k$i.csv || return 1
		test $(wc -l <$TRASH/k$i.csv) -gt 10 || return 1
	done
'

test_expect_success 'put one after another, they are refused (not read as one kernel)' '
	{ cat $TRASH/k0.csv; for i in 1 2 3; do sed 1d $TRASH/k$i.csv; done; } >cat.csv &&
	test_expect_code 1 lp-ncu2tsv cat.csv >out 2>err &&
	test_must_be_empty out &&
	test_grep "cat.csv:[0-9]*:1: result ID 0 is .* here and rmsnorm(float \*, int, int) on line 2" err
'

test_expect_success 'given as four files, they are four kernels, each as ncu measured it' '
	lp-ncu2tsv $TRASH/k0.csv $TRASH/k1.csv $TRASH/k2.csv $TRASH/k3.csv >four &&
	A "NR == 1 { next } { n = csv(\$0, f); if (f[1] + 0 < 4) k[f[7]] = 1 } END { for (x in k) print x }" \
		"$FIX/h200-tinyllm/dec_details.csv" | sort >want &&
	sed -i "/^#/d" four &&
	sed 1d four | cut -f1 | sort -u >got &&
	test_cmp want got &&
	test $(sed 1d four | awk -F"\t" "{ s += \$3 } END { print s }") = 4
'

test_expect_success 'an import of them gives each its own launch' '
	lpmake RUN=four "IMPORT=$FIX/h200-tinyllm/cap_cuda_gpu_kern_sum.csv $TRASH/k0.csv $TRASH/k1.csv $TRASH/k2.csv $TRASH/k3.csv" \
		MODEL=tinyllm kernels.md >/dev/null &&
	sed "/^#/d" "$S2/four/ncu/metrics.tsv" | sed 1d | awk -F"\t" "{ s += \$3 } END { print s }" >n &&
	echo 4 >want && test_cmp want n
'

test_expect_success 'an import claims no selection lp did not make, and asks for no TOPN or preset' '
	lpmake RUN=four stakeholder_summary.md >/dev/null &&
	test_grep "^Profiled stage	.*imported exports (lp selected no kernels for ncu" "$S2/four/environment.tsv" &&
	! grep -q "top [0-9]* kernels" "$S2/four/environment.tsv" &&
	test_grep "^1	dominant	" "$S2/four/findings.tsv" &&
	test_grep "Profile it again with ncu collecting the tensor-core and SASS FLOP counters" "$S2/four/findings.tsv" &&
	for r in named odd dec four; do ! grep -e TOPN -e NCU_PRESET "$S2/$r/findings.tsv" 2>/dev/null || { echo "in $r"; return 1; }; done
'

test_expect_success 'the raw and details pages of one report are refused, naming both' '
	test_expect_code 1 lp-import "$FIX/h200-tinyllm/dec_raw.csv" "$FIX/h200-tinyllm/dec_details.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "dec_raw.csv and .*dec_details.csv hold the same ncu results" err
'

test_expect_success 'an ncu export of another program is refused, not matched 0 of N' '
	test_must_fail lpmake RUN=other "IMPORT=$(echo "$V2"/torch_*sum*.csv) $FIX/h200-tinyllm/dec_raw.csv" \
		MODEL=torch-decoder stakeholder_summary.md >out 2>err &&
	test_grep "dec_raw.csv: none of its 7 ncu kernels (.*process tinyllm) is a kernel of the nsys capture" err &&
	! test -e "$S2/other/kernels.tsv" && ! test -e "$S2/other/findings.tsv"
'

# Another tool's folder: the whole capture's kernel summary beside the same
# report of other runs of the workload.  Summed, they claimed launches the
# capture never made.
test_expect_success 'kernel summaries of several captures are refused, naming the files' '
	test_must_fail lpmake RUN=seven "IMPORT=$V2/torch_cuda_gpu_kern_sum.csv $FIX/h200-whole/torch_cuda_gpu_kern_sum.csv $FIX/h200-torch-live/torch_cuda_gpu_kern_sum.csv" \
		stakeholder_summary.md >out 2>err &&
	test_grep "IMPORT: 3 files are the nsys report cuda_gpu_kern_sum (.*torch-v2/torch_cuda_gpu_kern_sum.csv .*whole/torch_cuda_gpu_kern_sum.csv .*live/torch_cuda_gpu_kern_sum.csv )" err &&
	test_grep "import one capture.s exports per run" err &&
	! test -e "$S2/seven/aggregates.tsv"
'

test_expect_success 'a merged capture with its per-rank exports is refused' '
	test_must_fail lpmake RUN=both "IMPORT=$(echo "$TP"/tpm_*.csv "$TP"/tpr0_*.csv "$TP"/tpr1_*.csv)" \
		MODEL=tp-mlp stakeholder_summary.md >out 2>err &&
	test_grep "IMPORT: .*tpm_.*csv and .*tpr0_.*csv " err &&
	! test -e "$S2/both/stages.tsv"
'

test_expect_success 'per-rank exports of one job are still joined' '
	lpmake RUN=ranks "IMPORT=$(echo "$TP"/tpr0_*.csv "$TP"/tpr1_*.csv)" MODEL=tp-mlp stakeholder_summary.md >/dev/null &&
	test_grep "process 1430" "$S2/ranks/import.mk" && test_grep "process 1433" "$S2/ranks/import.mk"
'

test_expect_success 'two single-GPU runs are not joined as ranks (one GPU twice)' '
	test_expect_code 1 lp-import "$TP"/tpr0_*.csv "$TP"/tps_*.csv >out 2>err &&
	test_grep "ran on the same GPU (NVIDIA H200 (0))" err
'

test_expect_success 'reports of two captures that disagree are refused' '
	test_expect_code 1 lp-import "$FIX/h200-whole/torch_nvtx_sum.csv" "$V2/torch_nvtx_pushpop_trace.csv" >out 2>err &&
	test_grep "are not exports of one capture: range :LLM@decode_step: 6 instances in the summary, 32 in the trace" err &&
	test_expect_code 1 lp-import "$FIX/h200-whole/torch_cuda_gpu_kern_sum.csv" "$V2/torch_nvtx_kern_sum.csv" >out 2>err &&
	test_grep "29 launches in the whole capture, 77 in one range" err &&
	test_expect_code 1 lp-import "$FIX/h200-whole/torch_cuda_gpu_kern_sum.csv" "$V2/torch_cuda_gpu_kern_sum_mangled.csv" >out 2>err &&
	test_grep "not exports of one capture: .* launches and .* ns of kernels against" err
'

test_expect_success 'every real export set of the fixtures is accepted as one capture' '
	for set in h200-fusion/fus h200-fusion/unf h200-gpt2/gpt2 h200-live/c0 h200-live/t1 h200-prefill/tpre \
		h200-tinyllm-live/tinyllm h200-tinyllm-v2/tinyllm h200-torch-live/torch h200-torch-v2/torch \
		h200-whole/tinyllm h200-whole/torch h200-tp/tpm h200-tp/tps h200-tp/tpz; do
		lp-import "$FIX/$set"_*.csv >/dev/null || return 1
	done
'

# A copy stopped two thirds of the way, inside the last row's last field
# (an unquoted mangled name): every row still has all its fields.
test_expect_success 'an export cut off inside its last field is refused' '
	f="$TP/tpr1_cuda_gpu_trace_mangled.csv" &&
	head -n $(( $(wc -l <"$f") * 2 / 3 )) "$f" >c &&
	head -c $(( $(wc -c <c) - 6 )) c >cut_cuda_gpu_trace_mangled.csv &&
	test_expect_code 1 lp-import "$TP"/tpr0_*.csv cut_cuda_gpu_trace_mangled.csv >out 2>err &&
	test_must_be_empty out &&
	test_grep -e "cut_cuda_gpu_trace_mangled.csv:[0-9]*: no newline at the end: the export was cut off" \
		-e "cut_cuda_gpu_trace_mangled.csv:[0-9]*: the last line has no newline: a cut-off export" err
'

# A list made with tr "\n" " " ends in a blank, which a restarted make
# (after import.mk) does not pass on: recorded as it came, the two differed
# and each make re-made import.mk and restarted, without end.
test_expect_success 'IMPORT with a trailing blank and a line break: import.mk made once, make -q true' '
	imp="$(ls "$TP"/tpr0_*.csv | tr "\n" " ")" &&
	timeout 120 make -C "$ROOT" --no-print-directory V=1 ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" \
		RUN=blank "IMPORT=$imp" MODEL=tp-mlp topn.tsv >out 2>&1 &&
	test $(grep -c "lp-import " out) = 1 &&
	lpmake -q RUN=blank topn.tsv &&
	timeout 60 make -C "$ROOT" --no-print-directory V=1 ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" \
		RUN=blank "IMPORT=$(ls "$TP"/tpr0_*.csv)" topn.tsv >out 2>&1 &&
	! grep -q "lp-import " out
'

test_expect_success 'a file that is no export is refused by its content' '
	printf "a,b\n1,2\n" >x.csv &&
	test_expect_code 1 lp-import x.csv >out 2>err &&
	test_grep "x.csv:2: neither an nsys stats CSV report nor an ncu CSV export" err &&
	test_expect_code 2 lp-import "a b.csv" 2>err && test_grep "use paths of letters" err &&
	lp-import -h >out && test_grep "^usage: lp-import \[-P prefix\] file ..." out
'

test_done
