#!/usr/bin/env bash
# The pipeline as a make DAG: the demo, make -q, redoing only what is out
# of date, and the live path with stand-in nsys and ncu (tests/fake/).
. "$(dirname "$0")/lib.sh"

export LP_FAKE_LOG=$TRASH/fake.log
export LP_FAKE_NSYS=$FIX/h200-live/t1
export LP_FAKE_NCU_CSV=$FIX/h200-live/n2.csv
FAKE=$ROOT/tests/fake
W="sh tests/fake/workload.sh"
# The build these runs use is a copy (B=): touching a tool to see what it
# redoes touches nothing another test file uses when prove runs them at
# once (make check: prove -j).  Copied entry by entry, the times log
# that make check writes meanwhile left out: tar refused the folder, which
# changed as it read it ("file changed as we read it").
TB=$TRASH/b
mkdir -p "$TB" || exit 1
for f in "$LP_BIN"/* "$LP_BIN"/.[!.]*; do
	case ${f##*/} in san | fuzz | test | *.log) continue ;; esac
	[ -e "$f" ] || continue
	cp -a "$f" "$TB/" || exit 1
done
lpmake() {
	make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} B="$TB" LP_STAGE2_DIR="$S2" "$@"
}
# The steps make would run: the tool that starts each command line.
count() {
	grep -c "^$1" "$LP_FAKE_LOG" || true
}

test_expect_success 'make demo: kernels.md, the summary with every section, regions.md' '
	lpmake demo >out 2>err &&
	! grep "warning:" out err &&
	# a few lines (issue 43: at most 40 with the build): the build in
	# one, the steps of the demo counted, where its reports are
	test $(wc -l <out) -le 40 && ! grep -v "^demo: " out | grep "^.\{101\}" &&
	test_grep "^  RUN   demo: [0-9][0-9] steps, a tool each" out &&
	! grep -q "LP_UNTMP\|rc=\$?\|\.tmp" out &&
	# a run made by hand is a pipeline you can watch: a short line a step
	rm "$S2/demo/stages.tsv" &&
	lpmake RUN=demo stakeholder_summary.md >out2 &&
	test_grep "^  TSV   demo/stages.tsv  *lp-stages$" out2 &&
	test_grep "^  MD    demo/stakeholder_summary.md  *lp-summary$" out2 &&
	test_grep "^# Top GPU kernels" "$S2/demo/kernels.md" &&
	test_grep "^# Regions: run demo" "$S2/demo/regions.md" &&
	grep "^## " "$S2/demo/details.md" >got &&
	printf "## %s\n" "Key Numbers" Environment "GPU Peaks" Aggregates "Per-Stage Timings" \
		"Steady State and Warm-up" "Host Side of Each Stage" MFU MBU "DRAM Bandwidth: Datasheet, Copy Probe, Samples" \
		"Where Each Step'"'"'s Time Goes" "What Bounds the Step" Roofline "Top Operators" \
		"Top Kernels" Regions "Findings and Recommendations" >expect &&
	test_cmp expect got &&
	test -s "$S2/demo/topn.tsv" && test -s "$S2/demo/env.json" &&
	test -s "$S2/demo/config.yaml" && test -s "$S2/demo/inputs.yaml" &&
	# and the advice followed (issue 40, item 5): an eager run whose
	# waterfall splits the idle time, and the graphed run compared with it
	test_grep "^demo: advice followed (H100): .*demo-eager/stakeholder_summary.md, then graphed: .*demo-graphed/compare.md$" out &&
	table "$S2/demo-eager/waterfall.tsv" part decode_step_ns | grep "^GPU idle: launch calls	[0-9]" &&
	test_grep "^# decode_all is host-bound: the GPU idles" "$S2/demo-eager/stakeholder_summary.md" &&
	table "$S2/demo-graphed/compare_findings.tsv" rule subject outcome | grep "^launch-bound	decode_step	realized$" &&
	test -s "$S2/demo/brief.json" &&
	lpmake -q RUN=demo-graphed BASE=demo-eager compare.md
'

test_expect_success 'a finished run is up to date' '
	lpmake -q RUN=demo stakeholder_summary.md &&
	lpmake -q RUN=demo kernels.md &&
	lpmake -q RUN=demo "$S2/demo/kernels.tsv" &&
	lpmake demo >out && test_grep "Nothing to be done" out
'

test_expect_success 'removing kernels.md redoes it (lp-summary) and details.md that links it, nothing upstream' '
	rm "$S2/demo/kernels.md" &&
	test_expect_code 1 lpmake -q RUN=demo stakeholder_summary.md &&
	steps RUN=demo stakeholder_summary.md >got &&
	printf "lp-summary\nlp-summary\n" >expect &&
	test_cmp expect got &&
	lpmake RUN=demo stakeholder_summary.md >/dev/null &&
	lpmake -q RUN=demo stakeholder_summary.md
'

test_expect_success 'the rows of kernels.md: one setting (conf/runner/stage2.yaml), its own record, kernels.md alone re-made (and details.md, which links it)' '
	echo 25 >expect && test_cmp expect "$S2/demo/vars/rows.kernels_md" &&
	echo 20 >expect && test_cmp expect "$S2/demo/vars/rows.compare" &&
	rm "$S2/demo/vars/rows.kernels_md" &&
	steps RUN=demo stakeholder_summary.md >got &&
	printf "lp-kernmd\nlp-summary\nlp-summary\n" >expect && test_cmp expect got &&
	lpmake RUN=demo stakeholder_summary.md >/dev/null &&
	lpmake -q RUN=demo stakeholder_summary.md
'

# The rows of the reports are checked when make reads the runner config:
# a copy of the makefiles and conf/ with each setting made wrong in turn.
test_expect_success 'each rows setting of conf/runner/stage2.yaml is a whole number from 1, or make stops naming it' '
	mkdir -p tree/tools && cp "$ROOT/Makefile" "$ROOT/rules.mk" tree/ &&
	cp -r "$ROOT/tools/mk" tree/tools/ && cp -r "$ROOT/conf" tree/ &&
	for k in kernels_md_rows compare_rows top_kernels_rows; do
		for bad in 0 12x abc; do
			cp "$ROOT/conf/runner/stage2.yaml" tree/conf/runner/stage2.yaml &&
			sed -i "s/^  $k: .*/  $k: $bad/" tree/conf/runner/stage2.yaml &&
			grep -q "^  $k: $bad\$" tree/conf/runner/stage2.yaml &&
			test_must_fail make -C tree -n RUN=x kernels.md >out 2>err &&
			test_grep "artifacts.$k: expected a whole number from 1, got \"$bad\"" err || return 1
		done
	done
'

test_expect_success 'removing the ncu metrics redoes the join, not the imports' '
	rm "$S2/demo/ncu/metrics.tsv" &&
	steps RUN=demo stakeholder_summary.md >got &&
	# the brief reads top_kernels.tsv, its findings and waterfall the rest
	printf "lp-%s\n" aggr bound brief findings kernjoin kernmd ncu2tsv ops \
		roofline roofsvg summary summary summary tabtop topk waterfall wfsvg >expect &&
	test_cmp expect got &&
	lpmake RUN=demo stakeholder_summary.md >/dev/null
'

test_expect_success 'a rebuilt tool redoes what it feeds' '
	touch "$TB/lp-kernjoin" &&
	steps RUN=demo stakeholder_summary.md >got &&
	printf "lp-%s\n" aggr bound brief findings kernjoin kernmd ops roofline \
		roofsvg summary summary summary tabtop topk waterfall wfsvg >expect &&
	test_cmp expect got &&
	lpmake RUN=demo stakeholder_summary.md >/dev/null &&
	touch "$TB/lp-steps" &&
	steps RUN=demo stakeholder_summary.md >got &&
	printf "lp-%s\n" bound brief findings mbu mfu rankfall steps summary summary tabtop \
		waterfall wfsvg >expect &&
	test_cmp expect got &&
	lpmake RUN=demo stakeholder_summary.md >/dev/null
'

test_expect_success 'removing roofline.tsv redoes it and what reads it, nothing else' '
	rm "$S2/demo/roofline.tsv" &&
	test_expect_code 1 lpmake -q RUN=demo stakeholder_summary.md &&
	steps RUN=demo stakeholder_summary.md >got &&
	# kernels.md reads it too: the roofline class of each kernel
	printf "lp-%s\n" brief findings kernmd roofline roofsvg summary summary \
		summary tabtop topk >expect &&
	test_cmp expect got &&
	lpmake RUN=demo stakeholder_summary.md >/dev/null &&
	lpmake -q RUN=demo stakeholder_summary.md
'

test_expect_success 'the operator classes feed only the tables that class kernels, findings and the summary' '
	lpmake -n -W conf/operators.yaml RUN=demo stakeholder_summary.md >lp.out &&
		<lp.out grep -oE "^(LP_OUTPUT=[^ ]* exec )?[^ ]*/lp-[a-z0-9]+" | sed "s,.*/,," | sort >got &&
	# (an import: the selection, topn.tsv, feeds nothing it shows)
	printf "lp-%s\n" bound brief findings ops overlap rankfall ranks summary summary \
		tabtop topk waterfall wfsvg >expect &&
	test_cmp expect got &&
	lpmake -n -W conf/gpus.yaml RUN=demo stakeholder_summary.md >lp.out &&
		<lp.out grep -oE "^(LP_OUTPUT=[^ ]* exec )?[^ ]*/lp-[a-z0-9]+" | sed "s,.*/,," | sort >got &&
	printf "lp-%s\n" bound brief bwceil envtab findings gpu kernmd mbu mfu rankfall \
		roofline roofsvg summary summary summary tabtop topk waterfall wfsvg >expect &&
	test_cmp expect got
'

test_expect_success 'each table is a make target of its own' '
	for a in environment.tsv gpu.tsv aggregates.tsv stages.tsv steps.tsv mfu.tsv mbu.tsv \
		roofline.tsv roofline.svg operators.tsv top_kernels.tsv findings.tsv \
		waterfall.tsv brief.tsv findings_top.tsv details.md; do
		lpmake -q RUN=demo $a || { echo "$a is not up to date"; return 1; }
	done &&
	rm "$S2/demo/mbu.tsv" &&
	lpmake RUN=demo mbu.tsv >out &&
	test -s "$S2/demo/mbu.tsv" &&
	# one short line a step: kind, artifact, tool; the command with V=1
	printf "  %-5s %-30s %s\n" TSV demo/mbu.tsv lp-mbu >expect && test_cmp expect out &&
	rm "$S2/demo/mbu.tsv" &&
	lpmake V=1 RUN=demo mbu.tsv >out &&
	grep -oE "^(LP_OUTPUT=[^ ]* exec )?[^ ]*/lp-[a-z0-9]+" out | sed "s,.*/,," >got &&
	echo lp-mbu >expect && test_cmp expect got &&
	lpmake RUN=demo stakeholder_summary.md >/dev/null
'

test_expect_success 'an artifact by its path inside the run folder' '
	rm "$S2/demo/kernels.md" &&
	lpmake RUN=demo "$S2/demo/kernels.md" >/dev/null &&
	test -s "$S2/demo/kernels.md"
'

fails() {
	# fails TITLE PATTERN MAKE-ARGS...
	t=$1 p=$2
	shift 2
	test_expect_success "$t" "
		test_must_fail lpmake $* >out 2>err &&
		test_grep -- '$p' err
	"
}
fails 'RUN is required for artifacts' 'RUN is required, as in: make RUN=abc' kernels.md
fails 'a run with neither WORK nor IMPORT is refused before anything runs, naming both' \
	'run newbie has neither WORK nor IMPORT: give the workload (make RUN=newbie WORK=' RUN=newbie stakeholder_summary.md

test_expect_success 'a plain make in the checkout (no option at all) records the settings and imports' '
	(cd "$ROOT" && unset MAKEFLAGS && make B="$TB" LP_STAGE2_DIR="$S2" RUN=plain \
		"IMPORT=$(echo "$FIX"/h200-torch-v2/torch_*.csv)" MODEL=torch-decoder config.yaml >"$TRASH/plain.out" 2>&1) &&
	test -s "$S2/plain/vars/IMPORT" && test -s "$S2/plain/config.yaml" &&
	rm -rf "$S2/fresh" &&
	test_expect_code 2 lpmake -n RUN=fresh "IMPORT=$(echo "$FIX"/h200-torch-v2/torch_*.csv)" MODEL=torch-decoder \
		config.yaml >out 2>err &&
	test_grep "IMPORT is new or its files changed: make -n and make -q can say what follows only once" err &&
	test ! -e "$S2/fresh/vars/IMPORT"
'

test_expect_success 'make -n and make -q write nothing; a setting they see changed is out of date' '
	test ! -d "$S2/newbie" &&
	lpmake RUN=demo stakeholder_summary.md >/dev/null &&
	(cd "$S2/demo" && find . -type f -newer stakeholder_summary.md; ls -l --time-style=+%s.%N vars) >before &&
	lpmake -n RUN=demo TOPN=3 COVER=50 stakeholder_summary.md >n.out &&
	test_grep "/lp-confmerge " n.out &&
	test_expect_code 1 lpmake -q RUN=demo TOPN=3 stakeholder_summary.md &&
	(cd "$S2/demo" && find . -type f -newer stakeholder_summary.md; ls -l --time-style=+%s.%N vars) >after &&
	test_cmp before after &&
	test ! -e "$S2/demo/vars/COVER" &&
	lpmake -q RUN=demo stakeholder_summary.md
'

# TOPN (run.top_n_kernels and run.top_n_shapes) is how many kernels ncu
# profiles: the selection (topn.tsv) and, in a live run, ncu and what
# shows what it measured. An import's ncu ran already: what it shows
# follows artifacts.top_kernels_rows, so TOPN re-makes config.yaml (it
# holds every setting) and, when asked for, topn.tsv (what lp would
# profile), nothing else.
test_expect_success 'TOPN=3 on an import re-makes config.yaml, and topn.tsv when asked for; nothing it shows' '
	lpmake RUN=demo TOPN=10 stakeholder_summary.md topn.tsv >/dev/null &&
	cp -r "$S2/demo" before &&
	lpmake RUN=demo TOPN=3 stakeholder_summary.md >out &&
	sed -n "s,^  [A-Z]*  *demo/\([^ ]*\)  *lp-.*,\1,p" out >got &&
	echo config.yaml >expect && test_cmp expect got && test $(wc -l <out) = 1 &&
	test_grep "^  top_n_kernels: 3\$" "$S2/demo/config.yaml" &&
	for f in environment.tsv roofline.tsv top_kernels.tsv findings.tsv kernels.md details.md stakeholder_summary.md; do
		test_cmp "before/$f" "$S2/demo/$f" || return 1
	done &&
	lpmake -q RUN=demo stakeholder_summary.md &&
	lpmake RUN=demo TOPN=3 topn.tsv >out &&
	sed -n "s,^  [A-Z]*  *demo/\([^ ]*\)  *lp-.*,\1,p" out >got &&
	echo topn.tsv >expect && test_cmp expect got &&
	test_grep "^# kernels: 3\$" "$S2/demo/topn.tsv" &&
	# the rows an import shows: their own setting and record
	echo 10 >expect && test_cmp expect "$S2/demo/vars/rows.top_kernels" &&
	lpmake RUN=demo TOPN= stakeholder_summary.md >/dev/null &&
	lpmake -q RUN=demo stakeholder_summary.md
'

fails 'RUN with a path is refused' "use letters, digits" "RUN=../x" kernels.md
fails 'RUN with a leading dot is refused' "not starting with" "RUN=.x" kernels.md
fails 'IMPORT of a file that is not there' 'IMPORT: nosuch_nvtx_sum.csv does not exist' RUN=i1 IMPORT=nosuch_nvtx_sum.csv kernels.md
fails 'IMPORT without a kernel summary' 'no nsys kernel summary' RUN=i2 "IMPORT=$FIX/h200-tinyllm/n_nvtxsum.csv" kernels.md
fails 'IMPORT of something that is not an export' 'expected a .csv export' RUN=i3 "IMPORT=$ROOT/README.md" kernels.md
test_expect_success 'IMPORT of a path with shell characters is refused, not run' '
	test_must_fail lpmake RUN=i4 "IMPORT=a;touch $TRASH/pwned;b_nvtx_sum.csv" kernels.md 2>err &&
	test_grep "IMPORT: use paths of letters" err &&
	! test -e "$TRASH/pwned"
'
fails 'an unknown model' 'conf/model/nosuch.yaml does not exist' RUN=m1 MODEL=nosuch "WORK=x" kernels.md
fails 'a mode that does not exist' 'MODE="fast": use deep or light' RUN=m2 MODE=fast WORK=x kernels.md
fails 'TOPN must be a whole number' 'TOPN="0": use a whole number' RUN=m3 TOPN=0 WORK=x kernels.md
fails 'SET words are KEY=VALUE' 'SET: "oops" is not KEY=VALUE' RUN=m4 SET=oops WORK=x kernels.md

test_expect_success 'RUN is checked before anything in it is expanded' '
	test_must_fail lpmake "RUN=\$(shell touch $TRASH/pwned)" kernels.md 2>err &&
	test_grep "use letters, digits" err &&
	! test -e "$TRASH/pwned"
'

test_expect_success 'live run with stand-in nsys and ncu: every artifact, each tool once' '
	: >"$LP_FAKE_LOG" &&
	PATH=$FAKE:$PATH lpmake RUN=live "WORK=$W --tokens 4" MODEL=tinyllm stakeholder_summary.md >out 2>err &&
	for a in config.yaml env.json inputs.yaml nsys/config.yaml nsys/profile.cmd nsys/report.nsys-rep \
		nsys/export.cmd nsys/report.sqlite nsys/stats.cmd nsys/stats.log nsys/report_nvtx_kern_sum_mangled.csv topn.tsv ncu/config.yaml \
		ncu/profile.cmd ncu/report.ncu-rep ncu/export.cmd ncu/report.csv ncu/metrics.tsv kernels.tsv \
		kernels.md stakeholder_summary.md untraced/profile.cmd untraced/report.nsys-rep \
		untraced/report_nvtx_pushpop_trace.csv untraced.tsv; do
		test -s "$S2/live/$a" || { echo "missing $a"; return 1; }
	done &&
	# nsys: the capture and the untraced timing run (NVTX alone), each with its stats
	test "$(count "nsys profile --trace=nvtx ")" = 1 &&
	test "$(count "nsys profile")" = 2 && test "$(count "nsys stats")" = 2 &&
	test "$(count "ncu --target")" = 1 && test "$(count "ncu --import")" = 1 &&
	# GPU Metrics sampling at 1 kHz, one sqlite export, which nsys stats reads
	test_grep -e " --gpu-metrics-devices=all --gpu-metrics-frequency=1000 " "$S2/live/nsys/profile.cmd" &&
	test "$(count "nsys export --type sqlite --force-overwrite=true --output=$S2/live/nsys/report.tmp.sqlite $S2/live/nsys/report.nsys-rep")" = 1 &&
	test_grep -e " --output=$S2/live/nsys/stats.tmp/report $S2/live/nsys/report.sqlite\$" "$S2/live/nsys/stats.cmd" &&
	test_grep "^# match: 2 of 2 ncu kernels matched (mangled 2" "$S2/live/kernels.tsv" &&
	test_grep "| GPU | NVIDIA H200 | env.json (nvidia-smi) |" "$S2/live/details.md" &&
	# what a table names is where it stays, not the scratch folder of nsys stats
	# (the packs were made there and named it)
	! grep -l "stats\.tmp" "$S2"/live/*.tsv "$S2"/live/*.md
'

test_expect_success 'a later make needs no WORK and does nothing' '
	PATH=$FAKE:$PATH lpmake -q RUN=live stakeholder_summary.md &&
	PATH=$FAKE:$PATH lpmake RUN=live stakeholder_summary.md >out &&
	test_grep "Nothing to be done" out &&
	test "$(count "nsys profile")" = 2
'

# A live run's environment.tsv says how many pairs ncu was given
# (run.top_n_shapes): there TOPN re-makes it.
test_expect_success 'in a live run TOPN re-makes environment.tsv too' '
	PATH=$FAKE:$PATH steps RUN=live TOPN=3 stakeholder_summary.md >got &&
	test_grep "^lp-envtab\$" got && test_grep "^lp-topn\$" got &&
	PATH=$FAKE:$PATH steps RUN=live SET=stages.decode_all.range=decode2 stakeholder_summary.md >got &&
	test_grep "^lp-envtab\$" got
'

test_expect_success 'another ncu preset re-runs the ncu steps only' '
	PATH=$FAKE:$PATH lpmake RUN=live NCU_PRESET=light stakeholder_summary.md >out 2>err &&
	test "$(count "nsys profile")" = 2 && test "$(count "nsys stats")" = 2 &&
	test "$(count "ncu --target")" = 2 &&
	test_grep -e "--section SpeedOfLight --apply-rules no --metrics gpu__time_duration.sum,dram__bytes.sum" "$S2/live/ncu/profile.cmd" &&
	PATH=$FAKE:$PATH lpmake -q RUN=live stakeholder_summary.md
'

test_expect_success 'an ncu setting given with SET= leaves nsys alone' '
	PATH=$FAKE:$PATH lpmake RUN=live SET=ncu_cli.launches_per_kernel=2 stakeholder_summary.md >out 2>err &&
	test "$(count "nsys profile")" = 2 && test "$(count "nsys stats")" = 2 &&
	test "$(count "ncu --target")" = 3 &&
	test_grep -e "--launch-count 20" "$S2/live/ncu/profile.cmd"
'

test_expect_success 'a rebuilt command builder with the same command does not re-profile' '
	touch "$TB/lp-nsyscmd" "$TB/lp-ncucmd" &&
	PATH=$FAKE:$PATH lpmake RUN=live stakeholder_summary.md >out 2>err &&
	test "$(count "nsys profile")" = 2 && test "$(count "ncu --target")" = 3 &&
	PATH=$FAKE:$PATH lpmake -q RUN=live stakeholder_summary.md
'

test_expect_success 'a failing workload stops the run with its exit code, keeps what is done' '
	test_must_fail env PATH=$FAKE:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} B="$TB" LP_STAGE2_DIR="$S2" \
		RUN=fail "WORK=$W --fail 3" stakeholder_summary.md >out 2>err &&
	test_grep "nsys profile failed with exit code 3" err &&
	test -s "$S2/fail/env.json" && test -s "$S2/fail/inputs.yaml" && test -s "$S2/fail/nsys/profile.cmd" &&
	! test -e "$S2/fail/nsys/report.nsys-rep" &&
	PATH=$FAKE:$PATH lpmake RUN=fail "WORK=$W" stakeholder_summary.md >out 2>err &&
	test -s "$S2/fail/details.md"
'

test_expect_success 'ncu profiling nothing is an error showing its filters; make resumes there' '
	: >"$LP_FAKE_LOG" &&
	test_must_fail env LP_FAKE_NCU_NOTHING=1 PATH=$FAKE:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} B="$TB" \
		LP_STAGE2_DIR="$S2" RUN=none "WORK=$W" MODEL=tinyllm stakeholder_summary.md >out 2>err &&
	test_grep "lp: ncu profiled no kernel (no report written). Filters used:" err &&
	test_grep "^NVTX include: LLM@decode_all/" err &&
	test_grep "^kernel filter: --kernel-name-base mangled --kernel-id ::regex:^(_Z17gemv2T" err &&
	test -s "$S2/none/nsys/report.nsys-rep" && test -s "$S2/none/topn.tsv" &&
	! test -e "$S2/none/ncu/report.ncu-rep" &&
	PATH=$FAKE:$PATH lpmake RUN=none stakeholder_summary.md >out 2>err &&
	test "$(count "nsys profile")" = 2 && test "$(count "ncu --target")" = 2
'

test_expect_success 'ncu killed mid-run leaves no report; make resumes at ncu' '
	: >"$LP_FAKE_LOG" &&
	test_must_fail env LP_FAKE_NCU_KILL=1 PATH=$FAKE:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} B="$TB" \
		LP_STAGE2_DIR="$S2" RUN=kill "WORK=$W" stakeholder_summary.md >out 2>err &&
	! test -e "$S2/kill/ncu/report.ncu-rep" &&
	PATH=$FAKE:$PATH lpmake RUN=kill stakeholder_summary.md >out 2>err &&
	test "$(count "nsys profile")" = 2 && test "$(count "ncu --target")" = 2 &&
	test -s "$S2/kill/details.md"
'

test_expect_success 'Ctrl-C during ncu leaves no half-written artifact' '
	: >"$LP_FAKE_LOG" &&
	PATH=$FAKE:$PATH lpmake RUN=intr "WORK=$W" topn.tsv >/dev/null 2>&1 &&
	# a background job of a script ignores SIGINT; perl puts it back,
	# so make gets the signal a terminal would send it
	# (in braces: a bare "&" would put the whole && list before it, the
	# make of topn.tsv included, in the background, and under load the
	# wait below ran out before ncu started: CI, SAN)
	{ ( LP_FAKE_NCU_SLEEP=30 PATH=$FAKE:$PATH setsid perl -e "\$SIG{INT} = q(DEFAULT); exec @ARGV" \
		make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} B="$TB" \
		LP_STAGE2_DIR="$S2" RUN=intr stakeholder_summary.md >out 2>err & echo $! >pid; wait $!; echo $? >rc ) & } &&
	# until ncu runs (the first answer is made before it), or make ended
	until test -s pid; do sleep 0.05; done &&
	until grep -q "^ncu --target" "$LP_FAKE_LOG"; do
		kill -0 "$(cat pid)" 2>/dev/null || { cat err; exit 1; }
		sleep 0.1
	done &&
	sleep 0.3 &&
	kill -INT -- -"$(cat pid)" &&
	wait &&
	# stopped by the signal (make says "Interrupt" where it was waiting
	# for the recipe; CI once saw it end without the word)
	test "$(cat rc)" != 0 &&
	! test -e "$S2/intr/ncu/report.ncu-rep" &&
	! test -e "$S2/intr/ncu/report.csv" &&
	! test -e "$S2/intr/kernels.tsv" &&
	PATH=$FAKE:$PATH lpmake RUN=intr stakeholder_summary.md >/dev/null 2>&1 &&
	test -s "$S2/intr/details.md"
'

test_expect_success 'nsys that captured nothing is an error naming the command' '
	test_must_fail env LP_FAKE_NSYS_NOREPORT=1 PATH=$FAKE:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} B="$TB" \
		LP_STAGE2_DIR="$S2" RUN=norep "WORK=$W" stakeholder_summary.md >out 2>err &&
	test_grep "lp: nsys wrote no report: was the NVTX capture range ever pushed?" err
'

test_expect_success 'a missing nsys is named with where it was looked for' '
	test_must_fail env PATH=/usr/bin:/bin make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} B="$TB" \
		LP_STAGE2_DIR="$S2" RUN=nonsys "WORK=$W" stakeholder_summary.md >out 2>err &&
	test_grep "lp: nsys not found on PATH (/usr/bin:/bin): install Nsight Systems (nsys) and put its bin folder on PATH, or import exports made elsewhere (IMPORT=)$" err
'

test_expect_success 'PyTorch-style stage: whole-run nsys, stage from nvtx_kern_sum, ncu @ escaped' '
	LP_FAKE_NSYS=$FIX/h200-live/c0 PATH=$FAKE:$PATH lpmake RUN=torch "WORK=$W" \
		MODEL=torch-decoder stakeholder_summary.md >out 2>err &&
	test_grep "nsys cannot gate a capture on range \"LLM@decode_all\"" err &&
	! grep -q -e --capture-range "$S2/torch/nsys/profile.cmd" &&
	test_grep -e "--nvtx-include '"'"'LLM\\\\@decode_all/'"'"'" "$S2/torch/ncu/profile.cmd" &&
	test_grep "^# range: :LLM@decode_all$" "$S2/torch/kernels.tsv" &&
	sed "/^#/d" "$S2/torch/kernels.tsv" | sed -n 2p | cut -f2,3 >got &&
	printf "nvjet_sm90_hsh_8x64_64x16_4x1_v_bz_bias_TNN\t69664\n" >expect &&
	test_cmp expect got
'

test_expect_success 'IMPORT of .nsys-rep and .ncu-rep reports: exported with the local tools' '
	: >"$LP_FAKE_LOG" &&
	echo "a report" >"$TRASH/r.nsys-rep" && echo "a report" >"$TRASH/r.ncu-rep" &&
	PATH=$FAKE:$PATH lpmake RUN=reps "IMPORT=$TRASH/r.nsys-rep $TRASH/r.ncu-rep" stakeholder_summary.md >out 2>err &&
	test "$(count "nsys stats")" = 1 && test "$(count "ncu --import")" = 1 &&
	test "$(count "nsys profile")" = 0 && test "$(count "ncu --target")" = 0 &&
	test_grep "^# match: 2 of 2 ncu kernels matched (mangled 2" "$S2/reps/kernels.tsv" &&
	test_grep "| Workload | imported:" "$S2/reps/details.md"
'

test_expect_success 'live: the metric list is queried once per ncu and GPUs, kept for the next run' '
	ls "$S2/.cache/ncu-metrics/"*.avail >list && test $(wc -l <list) = 1 &&
	test_cmp "$S2/live/ncu/metrics.avail" "$(cat list)" &&
	: >"$LP_FAKE_LOG" &&
	PATH=$FAKE:$PATH lpmake RUN=live2 "WORK=$W --tokens 4" MODEL=tinyllm "$S2/live2/ncu/profile.cmd" >out 2>err &&
	test "$(count "ncu --query-metrics")" = 0 &&
	test_cmp "$S2/live/ncu/metrics.avail" "$S2/live2/ncu/metrics.avail"
'

test_expect_success 'live: the first answer (nsys passes alone) is written before ncu runs, marked, and said' '
	rm -rf "$S2/first1" &&
	PATH=$FAKE:$PATH lpmake RUN=first1 "WORK=$W --tokens 4" MODEL=tinyllm stakeholder_summary.md >out 2>err &&
	f=$S2/first1/first/stakeholder_summary.md &&
	test_grep "^lp: the first answer, from the nsys passes (ncu runs next; the whole brief: .*/first1/stakeholder_summary.md): .*/first1/first/stakeholder_summary.md$" out &&
	first=$(grep -n "^lp: the first answer" out | cut -d: -f1) &&
	ncu=$(grep -n "^lp: profiling with ncu" out | cut -d: -f1) &&
	test "$first" -lt "$ncu" &&
	test_grep "^The first answer, from the nsys passes alone: ncu is still measuring the kernels" "$f" &&
	test_grep "^# decode_all is " "$f" && test_grep "Where Each Step" "$f" &&
	! grep -q "Top kernel" "$f" && test_grep "Top kernel" "$S2/first1/stakeholder_summary.md" &&
	! grep -q "first answer" "$S2/first1/stakeholder_summary.md" &&
	# the same verdict and key numbers as the whole brief: nsys made them
	head -1 "$f" >a && head -1 "$S2/first1/stakeholder_summary.md" >b && test_cmp a b &&
	PATH=$FAKE:$PATH lpmake -q RUN=first1 stakeholder_summary.md &&
	rm "$f" && PATH=$FAKE:$PATH lpmake -n RUN=first1 stakeholder_summary.md >n.out &&
	grep -oE "^(LP_OUTPUT=[^ ]* exec )?[^ ]*/lp-[a-z]+" n.out | sed "s,.*/,," | sort >steps &&
	printf "%s\n" lp-summary lp-summary >want && test_cmp want steps
'

test_done
