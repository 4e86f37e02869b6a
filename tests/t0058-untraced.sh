#!/usr/bin/env bash
# The untraced timing run (issue 38, item 1): a live run times the
# workload once more under nsys with NVTX alone (lp-nsyscmd -u), and
# untraced.tsv (lp-untraced) sets each stage's time there beside the
# traced capture's: the capture's overhead.  The live path runs with the
# stand-in nsys and ncu (tests/fake), the traced capture being the real
# H200 tinyllm one (tests/fixtures/h200-whole/tinyllm), the untraced one
# that trace with every decode_step shortened by a quarter and prefill by
# a tenth (awk, below): what a capture that slows the steps looks like.
# Every cell is recomputed here from the two push/pop traces with awk.
. "$(dirname "$0")/lib.sh"

W=$FIX/h200-whole
C=$ROOT/conf
export LP_FAKE_LOG=$TRASH/fake.log
export LP_FAKE_NSYS=$W/tinyllm
export LP_FAKE_NCU_CSV=$FIX/h200-live/n2.csv
lpmake() {
	PATH=$ROOT/tests/fake:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" "$@"
}
count() {
	grep -c "^$1" "$LP_FAKE_LOG" || true
}
WORK="WORK=sh tests/fake/workload.sh"
B=${LP_BIN#$ROOT/}

# untraced FILE: the traced push/pop trace, each decode_step 3/4 as long
# (its End moved, decode_all shortened by what its steps lost), prefill
# 9/10
shorten='BEGIN { FS = OFS = "," }
NR == 1 { print; next }
$6 == "LLM:decode_step" { d = int($3 * 3 / 4); cut += $3 - d; $3 = $5 = d; $2 = $1 + d }
$6 == "LLM:prefill" { d = int($3 * 9 / 10); $3 = $5 = d; $2 = $1 + d }
{ r[NR] = $0; n = NR }
END { for (i = 2; i <= n; i++) { $0 = r[i]
	if ($6 == "LLM:decode_all") { $3 -= cut; $2 = $1 + $3; $4 -= cut }
	print } }'
mkdir -p "$TRASH/un" && awk "$shorten" "$W/tinyllm_nvtx_pushpop_trace.csv" >"$TRASH/un/t_nvtx_pushpop_trace.csv" || exit 1

# expect TRACED UNTRACED: untraced.tsv's rows as awk computes them from the
# two traces: per stage, instances, time (the median of the instances
# after the first, else the first), min and max of those, overhead, ratio
expect='
FNR == 1 { file++; next }
{ csv($0, f); s = f[6]; sub(/^LLM:/, "", s); k = s SUBSEP file
	t[k, ++n[k]] = f[3] + 0 }
END {
	split("prefill decode_all decode_step", st, " ")
	for (i = 1; i <= 3; i++) {
		for (fl = 1; fl <= 2; fl++) {
			k = st[i] SUBSEP fl; m = 0
			for (j = 2; j <= n[k]; j++) v[++m] = t[k, j]
			for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
			if (m) { med[fl] = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2; lo[fl] = v[1]; hi[fl] = v[m]; of = "steady state" }
			else { med[fl] = t[k, 1]; lo[fl] = hi[fl] = "n/a"; of = "first instance" }
		}
		printf "%s\t%d\t%.1f\t%s\t%s\t%d\t%.1f\t%.1f\t%.4g\t%s\n", st[i], n[st[i] SUBSEP 2], med[2], lo[2], hi[2],
			n[st[i] SUBSEP 1], med[1], med[1] - med[2], med[1] / med[2], of
	}
}'
cols="stage untraced_instances untraced_ns untraced_min_ns untraced_max_ns traced_instances traced_ns change_ns traced_over_untraced time_of"
got() { # the table's rows, the ratio to 4 digits and an n/a as "n/a"
	table "$1" $cols | awk -F"\t" -v OFS="\t" '{ for (i = 1; i <= NF; i++) if ($i ~ /^n\/a/) $i = "n/a"
		$9 = $9 ~ /^[0-9.]+$/ ? sprintf("%.4g", $9) : $9; print }'
}

test_expect_success 'lp-nsyscmd -u: the untraced run, NVTX alone, the capture'"'"'s range; -u -s its push/pop trace' '
	lp-confmerge -s nsys_cli.extra_args=--trace-fork-before-exec=true "$C/runner/stage2.yaml" \
		"$C/profiling/nsys/nsys.default.yaml" "$C/model/tinyllm.yaml" >n.yaml &&
	lp-nsyscmd -0 -u -o b -- python3 "my app.py" <n.yaml 2>err | tr "\0" "\n" >got &&
	test_must_be_empty err &&
	cat >expect <<-\EOF &&
	nsys
	profile
	--trace=nvtx
	--sample=none
	--cpuctxsw=none
	--capture-range=nvtx
	--nvtx-capture=decode_all@LLM
	--capture-range-end=stop
	--env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0
	--force-overwrite=true
	--output=b
	--trace-fork-before-exec=true
	--
	python3
	my app.py
	EOF
	test_cmp expect got &&
	lp-nsyscmd -0 -u -s -o s/report -- b.nsys-rep <n.yaml | tr "\0" "\n" >got &&
	printf "%s\n" nsys stats --report nvtx_pushpop_trace --format csv --force-export=true \
		--output=s/report b.nsys-rep >expect &&
	test_cmp expect got &&
	# the capture itself is as it was
	lp-nsyscmd -o b -- w <n.yaml >cmd &&
	test_grep -e "--trace=cuda,nvtx .*--capture-range=nvtx .*--cuda-graph-trace=node --gpu-metrics" cmd &&
	test_expect_code 2 lp-nsyscmd -u -e -o b.sqlite -- b.nsys-rep <n.yaml >out 2>err &&
	test_must_be_empty out && test_grep "^lp-nsyscmd: -u goes with the profile or -s, not with -e" err
'

test_expect_success 'live run: the untraced run after the capture, untraced.tsv in details.md, make -q' '
	: >"$LP_FAKE_LOG" &&
	LP_FAKE_NSYS_UNTRACED=$TRASH/un/t lpmake RUN=live "$WORK" MODEL=tinyllm stakeholder_summary.md >out 2>err &&
	r=$S2/live &&
	# make read no variable lp did not set (--warn-undefined-variables)
	! grep "warning: undefined variable" out err &&
	for a in untraced/profile.cmd untraced/report.nsys-rep untraced/stats.cmd untraced/report_nvtx_pushpop_trace.csv \
		nsys/steps.tsv untraced.tsv; do
		test -s "$r/$a" || { echo "missing $a"; return 1; }
	done &&
	test_cmp "$TRASH/un/t_nvtx_pushpop_trace.csv" "$r/untraced/report_nvtx_pushpop_trace.csv" &&
	# a trace nsys stats wrote though no table needs it is packed too:
	# lp-hostside reads it where it is there (check-gpu t0008 test 9)
	test -s "$r/nsys/report_cuda_gpu_trace.lpt" &&
	lp-nsyscmd -u -o "$r/untraced/report.tmp" -- sh tests/fake/workload.sh <"$r/nsys/config.yaml" >want &&
	test_cmp want "$r/untraced/profile.cmd" &&
	# the brief says once whose numbers it shows, and where the rest is
	test_grep "^# identity: tinyllm on .*, decode_all, profiled live, timed untraced (the workload.s own times): the capture added 0.102 ms (+33.3 %) to the steady state of decode_step (untraced.tsv), not counted here$" "$r/brief.tsv" &&
	test $(grep -c "the capture added" "$r/stakeholder_summary.md") = 1 &&
	# steps.tsv is the untraced run'"'"'s, the capture'"'"'s is nsys/steps.tsv
	test_grep "^# timing: untraced$" "$r/steps.tsv" && test_grep "^# timing: traced$" "$r/nsys/steps.tsv" &&
	# the capture, the untraced run, then the export: nothing beside it;
	# the first answer (the untraced times) after the untraced run
	grep "^nsys \(profile\|export\)" "$LP_FAKE_LOG" | cut -d" " -f1-3 >order &&
	printf "%s\n" "nsys profile --trace=cuda,nvtx" "nsys profile --trace=nvtx" "nsys export --type" >expect &&
	test_cmp expect order &&
	first=$(grep -n "^lp: the first answer" out | cut -d: -f1) &&
	ut=$(grep -n "^lp: nsys untraced profile took" out | cut -d: -f1) &&
	test "$ut" -lt "$first" &&
	test "$(count "nsys stats --report nvtx_pushpop_trace --format csv --force-export=true --output=$r/untraced/stats.tmp/report $r/untraced/report.nsys-rep")" = 1 &&
	test_grep "^lp: nsys untraced profile took [0-9.]* s$" out &&
	test_grep "^nsys untraced profile	" "$r/untraced/profile.time" &&
	test_grep "^nsys untraced stats	.*	0$" "$r/untraced/stats.time" &&
	test_grep "^nsys untraced profile	[0-9.]*	1	n/a because nsys does not replay" "$r/profile_cost.tsv" &&
	test_grep "^## What the Capture Adds to Each Stage" "$r/details.md" &&
	test_grep "^# tool: lp-untraced" "$r/untraced.tsv" &&
	test_grep "^# source: traced: $r/nsys/steps.tsv (lp-steps of the capture); untraced: $r/steps.tsv (" "$r/untraced.tsv" &&
	test_grep "^# labels: Stage	Instances untraced	Untraced (ms)	Untraced min (ms)	Untraced max (ms)	Instances traced	Traced (ms)	Capture overhead (ms)	Traced / untraced	Time of$" "$r/untraced.tsv" &&
	test_grep "^# key: stage$" "$r/untraced.tsv" &&
	lpmake -q RUN=live stakeholder_summary.md
'

test_expect_success 'make -j: no other step runs beside the two nsys runs (no file of the run is written while they run)' '
	# the workload says when it runs: the capture, the untraced run, ncu
	cat >slow.sh <<-EOF &&
	echo "start \$(date +%s.%N)" >>"$TRASH/runs"
	sleep 1
	echo "end \$(date +%s.%N)" >>"$TRASH/runs"
	EOF
	rm -f "$TRASH/runs" &&
	LP_FAKE_NSYS_UNTRACED=$TRASH/un/t lpmake -j8 RUN=par "WORK=sh $PWD/slow.sh" MODEL=tinyllm stakeholder_summary.md >out 2>&1 ||
		{ cat out; false; } &&
	test $(grep -c ^start "$TRASH/runs") = 3 &&
	# (a file mtime is the kernel coarse clock: 50 ms of margin)
	for w in 1 3; do
		s=$(sed -n ${w}p "$TRASH/runs" | cut -d" " -f2) &&
		e=$(sed -n $((w + 1))p "$TRASH/runs" | cut -d" " -f2) &&
		find "$S2/par" -type f ! -path "*/untraced/*" ! -path "*/nsys/report.*" -printf "%T@ %p\n" |
			awk -v s="$s" -v e="$e" "\$1 > s + 0.05 && \$1 < e - 0.05" >beside &&
		test_must_be_empty beside || return 1
	done &&
	test -s "$S2/par/first/stakeholder_summary.md" &&
	lpmake -q RUN=par stakeholder_summary.md
'

test_expect_success 'untraced.tsv: every cell recomputed from the two push/pop traces' '
	A "$expect" "$W/tinyllm_nvtx_pushpop_trace.csv" "$TRASH/un/t_nvtx_pushpop_trace.csv" >expect &&
	got "$S2/live/untraced.tsv" >got &&
	test_cmp expect got &&
	# the steps shortened by a quarter: the capture adds a third
	table "$S2/live/untraced.tsv" stage traced_over_untraced | awk -F"\t" "\$1 == \"decode_step\" { printf \"%.2f\n\", \$2 }" >r &&
	echo 1.33 >want && test_cmp want r
'

test_expect_success 'make: removing untraced.tsv re-makes it and details.md; rebuilt tools never re-run the untraced run' '
	r=$S2/live &&
	rm "$r/untraced.tsv" &&
	lpmake -n RUN=live stakeholder_summary.md >n.out &&
	grep -oE "^(LP_OUTPUT=[^ ]* exec )?[^ ]*/lp-[a-z]+" n.out | sed "s,.*/,," | sort >steps &&
	# and what reads it: the waterfall, the brief, findings, the two
	# pages, and the first answer'"'"'s waterfall, brief and page
	printf "%s\n" lp-bound lp-bound lp-brief lp-brief lp-findings lp-summary lp-summary lp-summary lp-tabtop lp-untraced \
		lp-waterfall lp-waterfall lp-wfsvg lp-wfsvg >expect &&
	test_cmp expect steps &&
	: >"$LP_FAKE_LOG" &&
	LP_FAKE_NSYS_UNTRACED=$TRASH/un/t lpmake RUN=live stakeholder_summary.md >out 2>&1 &&
	test_must_be_empty "$LP_FAKE_LOG" &&
	lpmake -q RUN=live stakeholder_summary.md &&
	for t in lp-nsyscmd lp-confget lp-steps lp-untraced; do
		LP_FAKE_NSYS_UNTRACED=$TRASH/un/t lpmake -W "$B/$t" RUN=live stakeholder_summary.md >out 2>&1 || return 1
	done &&
	test "$(count "nsys profile")" = 0 &&
	lpmake -q RUN=live stakeholder_summary.md &&
	# an nsys setting that changes the capture leaves the untraced run alone
	LP_FAKE_NSYS_UNTRACED=$TRASH/un/t lpmake RUN=live SET=nsys_cli.trace=cuda,nvtx,osrt stakeholder_summary.md >out 2>&1 &&
	test "$(count "nsys profile --trace=cuda,nvtx,osrt")" = 1 && test "$(count "nsys profile --trace=nvtx")" = 0 &&
	# removing its report takes the untraced run again, and only it
	rm "$r/untraced/report.nsys-rep" &&
	LP_FAKE_NSYS_UNTRACED=$TRASH/un/t lpmake RUN=live stakeholder_summary.md >out 2>&1 &&
	test "$(count "nsys profile --trace=nvtx")" = 1 && test "$(count "nsys profile")" = 2 &&
	lpmake -q RUN=live stakeholder_summary.md
'

test_expect_success 'decode_step counted apart in the two runs: refused, both counts and files named' '
	grep -v ",LLM:decode_step,575,575,1,0,9," "$TRASH/un/t_nvtx_pushpop_trace.csv" >"$TRASH/un/m_nvtx_pushpop_trace.csv" &&
	LP_FAKE_NSYS_UNTRACED=$TRASH/un/m test_must_fail lpmake RUN=mis "$WORK" MODEL=tinyllm untraced.tsv >out 2>err &&
	r=$S2/mis &&
	test_grep "^lp-untraced: decode_step: 6 instances in the traced capture ($r/nsys/steps.tsv) but 5 in the untraced run ($r/steps.tsv): not the same workload" err &&
	! test -e "$r/untraced.tsv" &&
	# every table of step times refuses the pair too (lp_stagetab_load)
	LP_FAKE_NSYS_UNTRACED=$TRASH/un/m test_must_fail lpmake RUN=mis "$WORK" MODEL=tinyllm -k stakeholder_summary.md >out 2>err &&
	test_grep "^lp-mbu: $r/steps.tsv:12:3: stage \"decode_step\": 5 instances in the untraced timing run but 6 in the capture ($r/stages.tsv): not the same workload, or not run the same way$" err &&
	! test -e "$r/details.md" && ! test -e "$r/mbu.tsv" && ! test -e "$r/stakeholder_summary.md" &&
	test_expect_code 1 lp-untraced "$r/nsys/steps.tsv" "$r/steps.tsv" >out 2>err &&
	test_must_be_empty out &&
	# one stage on two ranges: two configs
	tsvset 12 range LLM:decode_one <"$S2/live/steps.tsv" >u.tsv &&
	test_expect_code 1 lp-untraced "$S2/live/nsys/steps.tsv" u.tsv >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-untraced: stage decode_step: range \"LLM:decode_step\" in $S2/live/nsys/steps.tsv but \"LLM:decode_one\" in u.tsv: the two tables are not of one config" err &&
	# not an lp-steps table
	test_expect_code 1 lp-untraced "$S2/live/nsys/steps.tsv" "$S2/live/stages.tsv" >out 2>err &&
	test_must_be_empty out &&
	# the two tables the wrong way round: each says which run it is
	test_expect_code 1 lp-untraced "$S2/live/steps.tsv" "$S2/live/nsys/steps.tsv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-untraced: $S2/live/steps.tsv:1: the first table must be lp-steps of the traced capture (\"# timing: traced\"), not \"# timing: untraced\"" err
'

test_expect_success 'a stage one side lacks: n/a with that side'"'"'s reason, never 0' '
	lp-confmerge "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" "$C/model/tinyllm.yaml" >c.yaml &&
	# the traced capture gated on decode_all: no prefill in it
	grep -v ",LLM:prefill," "$W/tinyllm_nvtx_pushpop_trace.csv" >gated.csv &&
	lp-steps -c c.yaml gated.csv >t.tsv &&
	# the untraced run pushed prefill twice: a steady state, the traced none
	awk -F, -v OFS=, "{ print } \$6 == \"LLM:prefill\" { \$1 += 1000; \$2 += 1000; print }" \
		"$TRASH/un/t_nvtx_pushpop_trace.csv" >twice.csv &&
	lp-steps -u -c c.yaml twice.csv >u.tsv &&
	lp-untraced t.tsv u.tsv >x.tsv &&
	table x.tsv $cols | awk -F"\t" "\$1 == \"prefill\"" >row &&
	cut -f2 row >n && echo 2 >want && test_cmp want n &&
	cut -f6-9 row | tr "\t" "\n" | sort -u >why &&
	echo "n/a because the traced steps.tsv says: the range has no instance in the trace (outside the capture, or never pushed)" >want &&
	test_cmp want why &&
	# decode_all: first instances on both sides (no spread untraced)
	table x.tsv stage untraced_min_ns time_of | awk -F"\t" "\$1 == \"decode_all\"" >row &&
	printf "decode_all\tn/a because the stage has no instance after its first (per process): no spread\tfirst instance\n" >want &&
	test_cmp want row &&
	# prefill once traced, twice untraced: both runs time one window, so
	# the counts of any stage must agree
	lp-steps -c c.yaml "$W/tinyllm_nvtx_pushpop_trace.csv" >t2.tsv &&
	test_must_fail lp-untraced t2.tsv u.tsv >y.tsv 2>err &&
	test_grep "^lp-untraced: prefill: 1 instances in the traced capture (t2.tsv) but 2 in the untraced run (u.tsv): not the same workload" err &&
	# a table without the stage: named with its file
	grep -v -e "^decode_all	" -e "^prefill	" u.tsv >nodec.tsv &&
	lp-untraced t2.tsv nodec.tsv >z.tsv &&
	table z.tsv stage untraced_instances change_ns | awk -F"\t" "\$1 == \"decode_all\"" >got &&
	printf "decode_all\tn/a because the untraced steps.tsv (nodec.tsv) has no row for the stage\tn/a because the untraced steps.tsv (nodec.tsv) has no row for the stage\n" >want &&
	test_cmp want got &&
	# no cell of these tables is a bare 0 or a bare n/a
	! sed "/^#/d" x.tsv z.tsv | tr "\t" "\n" | grep -x -e 0 -e n/a
'

test_expect_success 'an import: the identity line says once that its numbers include the capture'"'"'s overhead' '
	lpmake RUN=imp "IMPORT=$(echo "$FIX"/h200-torch-v2/torch_*.csv)" MODEL=torch-decoder stakeholder_summary.md >out 2>err &&
	r=$S2/imp &&
	test_grep "^torch-decoder on NVIDIA H200, decode_all, imported exports, whose numbers include the capture.s overhead. From .brief.tsv.. See " "$r/stakeholder_summary.md" &&
	test $(grep -c "capture.s overhead" "$r/stakeholder_summary.md") = 1 &&
	test_grep "^# identity: torch-decoder on NVIDIA H200, decode_all, imported exports, whose numbers include the capture.s overhead$" "$r/brief.tsv" &&
	! grep -q "What the Capture Adds" "$r/details.md" &&
	! test -e "$r/untraced" &&
	lpmake -q RUN=imp stakeholder_summary.md &&
	lpmake RUN=imp untraced.tsv >out 2>err &&
	table "$r/untraced.tsv" $cols >rows &&
	cut -f2-5,8-10 rows | tr "\t" "\n" | sort -u >why &&
	echo "n/a because the run is imported: lp did not run the workload untraced" >want &&
	test_cmp want why &&
	table "$r/steps.tsv" stage instances >want &&
	cut -f1,6 rows >got && test_cmp want got &&
	test_grep "^# source: traced: $r/steps.tsv (lp-steps of the capture); untraced: none (the run is imported: lp did not run the workload untraced)$" "$r/untraced.tsv" &&
	lpmake -q RUN=imp stakeholder_summary.md untraced.tsv &&
	test_must_fail lpmake RUN=imp untraced/report.nsys-rep >out 2>err &&
	test_grep "imports exports: lp did not run the workload, so it has no untraced timing run" err &&
	# asked by name, its first answer is of its one steps table
	lpmake RUN=imp first/stakeholder_summary.md >out 2>err &&
	test_grep "^# source: steady step, tokens/s and first / steady from $r/steps.tsv; " "$r/first/brief.tsv" &&
	! test -e "$r/untraced" && lpmake -q RUN=imp stakeholder_summary.md first/stakeholder_summary.md
'

# A real pair (tests/fixtures/h100-untraced): the push/pop traces of the
# graphed torch decoder's live run on an H100 with lp's defaults, traced
# (CUDA trace, graph nodes, GPU Metrics) and untraced (--trace=nvtx), and
# the workload's own clock in each run (g_own_times.tsv).
U=$FIX/h100-untraced
test_expect_success 'a real H100 pair: decode_step untraced is the workload'"'"'s own step within 5 %, the traced one too; the medians by awk' '
	lp-steps -c "$U/g_nsys_config.yaml" -i "$U/g_inputs.yaml" "$U/g_nvtx_pushpop_trace.csv" >t.tsv &&
	lp-steps -u -c "$U/g_nsys_config.yaml" -i "$U/g_inputs.yaml" "$U/g_untraced_nvtx_pushpop_trace.csv" >u.tsv &&
	lp-untraced t.tsv u.tsv >g.tsv &&
	sed "/^#/d" "$U/g_untraced.tsv" >want && sed "/^#/d" g.tsv >got && test_cmp want got &&
	# the median of the steps after the first, each End - Start, by awk
	for f in g_nvtx_pushpop_trace g_untraced_nvtx_pushpop_trace; do
		A "FNR == 1 { n = csv(\$0, h); col(h, n, c); next }
			{ n = csv(\$0, x); if (x[c[\"Name\"]] == \":LLM@decode_step\") print x[c[\"End (ns)\"]] - x[c[\"Start (ns)\"]] }" \
			"$U/$f.csv" | sed 1d | sort -n | awk "{ v[NR] = \$1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }" || return 1
	done >med &&
	table g.tsv stage traced_ns untraced_ns | awk -F"\t" "\$1 == \"decode_step\" { print \$2 + 0; print \$3 + 0 }" >lp &&
	test_cmp med lp &&
	own() { awk -F"\t" -v r="$1" "\$1 == r { print \$2 * 1e6 }" "$U/g_own_times.tsv"; } &&
	# within 5 % of the workload'"'"'s own clock in the same run
	awk -v a="$(sed -n 2p lp)" -v b="$(own "untraced run")" "BEGIN { exit !(a > 0.95 * b && a < 1.05 * b) }" &&
	awk -v a="$(sed -n 1p lp)" -v b="$(own "traced capture")" "BEGIN { exit !(a > 0.95 * b && a < 1.05 * b) }" &&
	# and the capture added more than 5 %: the untraced step is not the traced one
	table g.tsv stage traced_over_untraced | awk -F"\t" "\$1 == \"decode_step\" { exit !(\$2 > 1.05) }"
'

# UNTRACED_GPU (issue 42): the untraced run on a second GPU of the
# workload's kind, beside the capture, both at once; lp-gpupair refuses
# another kind, a busy GPU, the workload's own and a workload on no one
# GPU (the stand-in nvidia-smi lists two H200s, as the x2 machine did).
test_expect_success 'UNTRACED_GPU=1: the untraced run on GPU 1 beside the capture, both at once; gpu.tsv, details.md, profile_cost.tsv' '
	cat >slow.sh <<-EOF &&
	echo "start \$(date +%s.%N)" >>"$TRASH/bruns"
	sleep 1
	echo "end \$(date +%s.%N)" >>"$TRASH/bruns"
	EOF
	rm -f "$TRASH/bruns" &&
	CUDA_VISIBLE_DEVICES=0 LP_FAKE_NSYS_UNTRACED=$TRASH/un/t lpmake RUN=bes "WORK=sh $PWD/slow.sh" UNTRACED_GPU=1 MODEL=tinyllm \
		stakeholder_summary.md >out 2>&1 || { cat out; false; } &&
	r=$S2/bes &&
	test_grep -e "--env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0,CUDA_VISIBLE_DEVICES=1 " "$r/untraced/profile.cmd" &&
	! grep CUDA_VISIBLE_DEVICES "$r/nsys/profile.cmd" &&
	table "$r/untraced/gpu.tsv" run index name processes >got &&
	printf "%s\t%s\t%s\t%s\n" "capture (workload)" 0 "NVIDIA H200" 0 "untraced timing run" 1 "NVIDIA H200" 0 >expect &&
	test_cmp expect got &&
	# the capture and the untraced run at once: the second began before
	# the first ended (make ran two recipes without -j)
	test $(grep -c ^start "$TRASH/bruns") = 3 &&
	sed -n 2p "$TRASH/bruns" | grep -q ^start &&
	test_grep "^## The untraced run.s GPU" "$r/details.md" &&
	test_grep "^# note: the untraced timing run ran beside the capture, on another GPU of its kind (UNTRACED_GPU, untraced/gpu.tsv): the total counts the shorter of the two, [0-9.]* s, once.$" "$r/profile_cost.tsv" &&
	test_grep "^# note: floor: .* at once, on two GPUs: the longer" "$r/profile_cost.tsv" &&
	CUDA_VISIBLE_DEVICES=0 lpmake -q RUN=bes stakeholder_summary.md &&
	# recorded: a later make needs it not again, UNTRACED_GPU= clears it
	# and the untraced run runs again, after the capture, on its GPU
	lpmake -q RUN=bes stakeholder_summary.md &&
	LP_FAKE_NSYS_UNTRACED=$TRASH/un/t lpmake RUN=bes UNTRACED_GPU= untraced/profile.cmd >out 2>&1 &&
	! grep CUDA_VISIBLE_DEVICES "$r/untraced/profile.cmd"
'

test_expect_success 'UNTRACED_GPU refused: no one GPU for the workload, its own GPU, another kind, a busy GPU, not an index' '
	for c in "|1|needs the workload on one GPU named by CUDA_VISIBLE_DEVICES" "0,1|1|needs the workload on one GPU" \
		"0|0|is the workload.s GPU" "0|7|UNTRACED_GPU=7: nvidia-smi lists no such GPU"; do
		IFS="|" read -r v u m <<-EOF
		$c
		EOF
		rm -rf "$S2/ref" &&
		CUDA_VISIBLE_DEVICES=$v test_expect_code 2 lpmake RUN=ref "$WORK" UNTRACED_GPU=$u MODEL=tinyllm untraced/profile.cmd >out 2>err &&
		test_grep "lp-gpupair: .*$m" err && test ! -e "$S2/ref/untraced/gpu.tsv" && test ! -e "$S2/ref/untraced/profile.cmd" || return 1
	done &&
	{ echo "index, uuid, name, memory.total [MiB], clocks.max.sm [MHz], clocks.max.memory [MHz], power.limit [W]" &&
	  echo "0, GPU-a, NVIDIA H200, 143771, 1980, 3201, 700.00" && echo "1, GPU-b, NVIDIA H100 80GB HBM3, 81559, 1980, 2619, 700.00"; } >gpus.csv &&
	LP_FAKE_SMI_GPUS=$PWD/gpus.csv CUDA_VISIBLE_DEVICES=0 test_expect_code 2 lpmake RUN=ref UNTRACED_GPU=1 untraced/profile.cmd >out 2>err &&
	test_grep "lp-gpupair: GPU 1 is not of the workload.s kind: its name is NVIDIA H100 80GB HBM3, GPU 0.s NVIDIA H200" err &&
	echo GPU-5f1c0d2e-0b7a-4c51-9d3e-2a6f8e1b7c44 >apps &&
	LP_FAKE_SMI_APPS=$PWD/apps CUDA_VISIBLE_DEVICES=0 test_expect_code 2 lpmake RUN=ref UNTRACED_GPU=1 untraced/profile.cmd >out 2>err &&
	test_grep "lp-gpupair: GPU 1 runs 1 other process" err &&
	test_expect_code 2 lpmake RUN=ref UNTRACED_GPU=x1 untraced/profile.cmd >out 2>err &&
	test_grep "UNTRACED_GPU=\"x1\": give the index nvidia-smi lists the GPU under" err
'

# A wedged driver: nvidia-smi does not answer.  lp-gpupair stops it (and
# what it started) after -t seconds and refuses, saying so.
test_expect_success 'lp-gpupair: an nvidia-smi that hangs is stopped after -t seconds, refused' '
	mkdir fake && printf "#!/bin/sh\nsleep 60 & echo \$! >%s/sleep.pid\nwait\n" "$PWD" >fake/nvidia-smi &&
	chmod +x fake/nvidia-smi &&
	start=$(date +%s) &&
	PATH=$PWD/fake:$PATH test_expect_code 1 lp-gpupair -t 1 -w 0 -u 1 >out 2>err &&
	test $(($(date +%s) - start)) -lt 10 && ! test -s out &&
	test_grep "lp-gpupair: nvidia-smi --query-gpu=.* gave no answer within 1 s (a wedged driver?): stopped" err &&
	# what it started is gone too (or a zombie its new parent has not
	# reaped yet)
	sleep 0.2 && st=$(ps -o stat= -p "$(cat sleep.pid)" || :) && case $st in "" | Z*) ;; *) false ;; esac
'

test_done
