#!/usr/bin/env bash
# What is typed on make's command line is data: SET, WORK, IMPORT, MODEL,
# MODE, TOPN, NCU_PRESET, STAGE, RUN, BASE and LP_STAGE2_DIR holding
# "$(shell ...)", backticks, ";", quotes, newlines, "%", "#" or "\" run
# nothing, now or on a later make that re-reads vars/, and reach vars/ and
# the config byte for byte or are refused before anything is recorded.
# SET values with blanks in double quotes; two makes of one RUN at once;
# a failed step leaves no .tmp; TOPN sizes every top-N table.
. "$(dirname "$0")/lib.sh"

export SOURCE_DATE_EPOCH=1790000000	# env.json's time, fixed
IMPORT="$(echo "$FIX"/h200-torch-v2/torch_*.csv)"
rows() {
	sed "/^#/d" "$1" | sed 1d
}
# the payloads, one a line; @M@ is the marker file a run command would make
# (the last one holds a real newline, written here as \n)
cat >"$TRASH/payloads" <<'EOF'
$(shell touch @M@)
$(shell touch$(space)@M@)
$$(shell touch @M@)
${shell touch @M@}
$(eval $$(shell touch @M@))
`touch @M@`
x;touch @M@;y
x' ; touch @M@ ; 'y
x" ; touch @M@ ; "y
x$(nl)touch @M@
%;touch @M@#\
x\ntouch @M@
EOF
payload() {	# payload N MARKER: line N with the marker put in, \n a newline
	sed -n "$1p" "$TRASH/payloads" | sed "s#@M@#$2#g" | sed 's/\\n/\n/g'
}
NPAY=$(wc -l <"$TRASH/payloads")

# Names and words that make refuses before recording anything.
for var in RUN BASE MODEL MODE TOPN NCU_PRESET STAGE IMPORT LP_STAGE2_DIR; do
	test_expect_success "$var: every hostile value refused, nothing runs, nothing recorded" '
		for i in $(seq '"$NPAY"'); do
			m=$TRASH/m-'"$var"'-$i && v=$(payload $i "$m") &&
			run=r'"$var"'$i && [ '"$var"' != RUN ] || run=$v
			test_must_fail lpmake "RUN=$run" MODEL=torch-decoder "IMPORT=$IMPORT" \
				"'"$var"'=$v" config.yaml >out 2>err || { cat err; return 1; }
			! test -e "$m" || { echo "payload $i ran"; return 1; }
			if grep -q -e "use \(letters\|paths\|a path\)" err; then
				! test -e "$S2/r'"$var"'$i/vars/'"$var"'" || { echo "payload $i recorded"; return 1; }
			else	# plain words, as IMPORT takes them: no such file
				test_grep "^tools/mk/imports.mk:[0-9]*: \*\*\* IMPORT: .*: expected a .csv export" err ||
					{ cat err; return 1; }
			fi
		done
	'
done

# Any other variable on the command line: make exported it into every
# recipe's environment and expanded it there, so 'FOO=$(shell ...)' ran
# with the recipe (issue 28); the build's switches took any text.
test_expect_success 'FOO, REGRESSION (not the gate), V, SAN, WERROR, VALGRIND: a hostile value runs nothing' '
	lpmake RUN=fx "IMPORT=$IMPORT" MODEL=torch-decoder stages.tsv >/dev/null &&
	set -- &&
	for i in $(seq '"$NPAY"'); do	# every payload, each a variable of its own
		set -- "$@" "FOO$i=$(payload $i "$TRASH/m-FOO-$i")"
	done &&
	rm -f "$S2/fx/stages.tsv" &&
	lpmake RUN=fx "$@" "REGRESSION=$(payload 1 "$TRASH/m-REG-1")" stages.tsv >out 2>err || { cat err; return 1; }
	test -s "$S2/fx/stages.tsv" &&
	for m in "$TRASH"/m-FOO-* "$TRASH"/m-REG-*; do ! test -e "$m" || { echo "$m: a payload ran"; return 1; }; done &&
	for var in V SAN WERROR VALGRIND FAULT_KILLS; do
		for i in $(seq '"$NPAY"'); do
			m=$TRASH/m-$var-$i && v=$(payload $i "$m") &&
			test_must_fail lpmake RUN=fx "$var=$v" stages.tsv >out 2>err &&
			test_grep "^Makefile:[0-9]*: \*\*\* $var=" err &&
			! test -e "$m" || { echo "$var payload $i ran"; return 1; }
		done || return 1
	done
'

test_expect_success 'BASE: "..", ".", "-x", a blank or this run itself are refused, not recorded' '
	for b in .. . -x .hidden "a b" rb; do
		test_must_fail lpmake RUN=rb "BASE=$b" "IMPORT=$IMPORT" config.yaml >out 2>err &&
		test_grep "^tools/mk/settings.mk:[0-9]*: \*\*\* BASE=" err || return 1
	done &&
	! test -e "$S2/rb/vars/BASE" &&
	test_grep "BASE=rb is this run" err &&
	lpmake RUN=rb "IMPORT=$IMPORT" MODEL=torch-decoder config.yaml >/dev/null
'

# WORK is the workload's command line: recorded as typed, split like sh
# words with nothing expanded (lp-inputs), never run by make or a shell.
test_expect_success 'WORK: every hostile value is recorded as typed and runs nothing' '
	for i in $(seq '"$NPAY"'); do
		m=$TRASH/m-work-$i && v=$(payload $i "$m") &&
		case $v in *"
"*)		# lp-inputs reads one line: a line break is refused, not cut
			test_must_fail lpmake RUN=w$i "WORK=$v" inputs.yaml >out 2>err &&
			test_grep "WORK holds a line break" err &&
			! test -e "$S2/w$i/vars/WORK" && ! test -e "$m" || return 1
			continue ;;
		esac
		lpmake RUN=w$i "WORK=$v" inputs.yaml >out 2>err || {
			# unbalanced sh quotes: lp-inputs refuses them, as sh would
			test_grep "^lp-inputs: " err >/dev/null || { cat err; return 1; }; }
		! test -e "$m" || { echo "payload $i ran"; return 1; }
		printf "%s\n" "$v" >expect && test_cmp expect "$S2/w$i/vars/WORK" || return 1
		lpmake RUN=w$i inputs.yaml >/dev/null 2>&1
		! test -e "$m" || { echo "payload $i ran on the second make"; return 1; }
		# as the workload'"'"'s arguments, through nsys/profile.cmd and sh
		# (the stand-in nsys runs the workload)
		PATH=$ROOT/tests/fake:$PATH LP_FAKE_NSYS=$FIX/h200-live/t1 lpmake RUN=wp$i \
			"WORK=sh tests/fake/workload.sh --tokens 1 $v" nsys/report.nsys-rep >out 2>err
		! test -e "$m" || { echo "payload $i ran as an argument"; return 1; }
	done
'

# SET: the payload as a quoted value and as a bare one; every value reaches
# vars/ and config.yaml as data (a newline is a blank, as in the shell).
test_expect_success 'SET: hostile values are data in vars/SET, overrides.all and config.yaml' '
	for i in $(seq '"$NPAY"'); do
		m=$TRASH/m-set-$i && v=$(payload $i "$m") &&
		q=$(printf "%s" "$v" | sed "s/[\\\\\"]/\\\\&/g") &&
		set="gpu.name=\"$q\"" &&
		lpmake RUN=s$i "IMPORT=$IMPORT" MODEL=torch-decoder "SET=$set" config.yaml >out 2>err ||
			{ cat err; return 1; }
		! test -e "$m" || { echo "payload $i ran"; return 1; }
		printf "%s\n" "$set" >expect && test_cmp expect "$S2/s$i/vars/SET" &&
		printf "%s\n" "$set" | tr "\n" " " | sed "s/ $//" >expect && echo >>expect &&
		test_cmp expect "$S2/s$i/vars/overrides.all" &&
		lp-confget gpu.name "$S2/s$i/config.yaml" >got &&
		printf "%s\n" "$v" | tr "\n" " " | sed "s/ $//" >expect && echo >>expect &&
		test_cmp expect got || return 1
		lpmake RUN=s$i config.yaml >/dev/null 2>&1
		! test -e "$m" || { echo "payload $i ran on a later make"; return 1; }
	done
'

test_expect_success 'SET: a bare value is not expanded either; what lp-confmerge refuses runs nothing' '
	m=$TRASH/m-bare &&
	for set in "gpu.name=\${shell\$(space)touch\$(space)$m}" "run.stage=\$(RUN)" "run.stage=\`touch\${IFS}$m\`" \
		"gpu.name=\$(shell\$(space)touch\$(space)$m);x"; do
		lpmake RUN=sb "IMPORT=$IMPORT" "SET=$set" config.yaml >out 2>err; rc=$?
		! test -e "$m" || { echo "$set ran"; return 1; }
		printf "%s\n" "$set" >expect && test_cmp expect "$S2/sb/vars/overrides.all" || return 1
		case $set in
		run.stage=*) test $rc = 2 && test_grep -F "no stage \"${set#run.stage=}\"" err ;;
		*) test $rc = 0 && lp-confget gpu.name "$S2/sb/config.yaml" >got &&
			echo "${set#gpu.name=}" >expect && test_cmp expect got ;;
		esac || return 1
	done
'

test_expect_success 'SET words that are not KEY=VALUE, and an unclosed quote, are refused, not recorded' '
	for set in oops "=x" "#run.stage=x" "gpu.name=\"a b" "gpu.name=a\"b" "a b=c" "\$(shell)=1"; do
		test_must_fail lpmake RUN=sk "IMPORT=$IMPORT" "SET=$set" config.yaml >out 2>err &&
		test_grep -e "SET: .* is not KEY=VALUE" -e "SET: a quote is not closed" err &&
		! test -e "$S2/sk/vars/SET" || return 1
	done
'

# The GPU name of an unknown GPU has blanks; its peaks come with it.
test_expect_success 'SET: a GPU name with blanks in quotes, recorded; a string stays a string' '
	lpmake RUN=g "IMPORT=$IMPORT" MODEL=torch-decoder \
		"SET=gpu.name=\"NVIDIA GeForce RTX 5090\" gpu.hbm_tbps=\"1.792\" gpu.tensor_tflops.bf16=209.5" \
		gpu.tsv >out 2>err &&
	lp-confget gpu.name "$S2/g/config.yaml" >got &&
	echo "NVIDIA GeForce RTX 5090" >expect && test_cmp expect got &&
	test_grep "^  name: \"NVIDIA GeForce RTX 5090\"$" "$S2/g/config.yaml" &&
	test_grep "^  hbm_tbps: 1.792$" "$S2/g/config.yaml" &&
	test_grep "NVIDIA GeForce RTX 5090" "$S2/g/gpu.tsv" &&
	lpmake -q RUN=g gpu.tsv &&
	lpmake RUN=g "SET=gpu.name=\"5090\"" config.yaml >/dev/null &&
	test_grep "^  name: \"5090\"$" "$S2/g/config.yaml" &&
	lpmake RUN=g "SET=gpu.name=\"a \\\"b\\\" \\\\ c\"" config.yaml >/dev/null &&
	lp-confget gpu.name "$S2/g/config.yaml" >got &&
	echo "a \"b\" \\ c" >expect && test_cmp expect got
'

test_expect_success 'a value ending in a line break is kept whole and not rewritten by the next make' '
	set=$(printf "gpu.hbm_tbps=2\n\n") && set=${set}"
" &&
	lpmake RUN=nl "IMPORT=$IMPORT" "SET=$set" config.yaml >/dev/null &&
	printf "%s\n" "$set" >expect && test_cmp expect "$S2/nl/vars/SET" &&
	touch -d "2001-01-01" "$S2/nl/vars/SET" &&
	lpmake RUN=nl "SET=$set" config.yaml >/dev/null &&
	test "$(stat -c %Y "$S2/nl/vars/SET")" = "$(date -d 2001-01-01 +%s)"
'

# lp-confmerge is where a quote in the wrong place is caught.
test_expect_success 'lp-confmerge: quoted values; a quote elsewhere is refused with file and line' '
	C=$ROOT/conf/runner/stage2.yaml &&
	printf "%s\n" "gpu.name=\"a b\"" "gpu.hbm_tbps=\"2\"" >ov &&
	lp-confmerge -S ov "$C" >out &&
	lp-confget gpu.name out >got && echo "a b" >expect && test_cmp expect got &&
	test_grep "^  hbm_tbps: 2$" out &&
	for v in "\"a\"b" "a\"b" "\"a" "\"" "\"a\\\""; do
		printf "gpu.name=%s\n" "$v" >ov &&
		test_expect_code 2 lp-confmerge -S ov "$C" >out 2>err &&
		test_must_be_empty out &&
		test_grep "^lp-confmerge: ov:1: gpu.name: " err || return 1
	done &&
	printf "%s\n" "gpu.hbm_tbps=\"fast\"" >ov &&
	test_expect_code 2 lp-confmerge -S ov "$C" 2>err &&
	test_grep "expected a number, as the presets have, got \"fast\"" err
'

test_expect_success 'a failed step leaves no .tmp behind' '
	test_must_fail lpmake RUN=t "IMPORT=$IMPORT" SET=run.top_n_kernels=ten config.yaml >out 2>err &&
	test_grep "run.top_n_kernels" err &&
	! test -e "$S2/t/config.yaml" && ! test -e "$S2/t/config.yaml.tmp" &&
	lpmake RUN=t SET= "IMPORT=$IMPORT" MODEL=torch-decoder kernels.tsv >/dev/null &&
	printf "# cut\n" >"$S2/t/kernels.tsv" &&
	test_must_fail lpmake RUN=t kernels.md >out 2>err &&
	! test -e "$S2/t/kernels.md" && ! test -e "$S2/t/kernels.md.tmp" &&
	find "$S2/t" -name "*.tmp*" >left && test_must_be_empty left
'

# digest RUN: each file of the run and a hash of its content, the run's
# own name and folder written as RUN
digest() {
	(cd "$S2/$1" && find . -type f | sort | while read -r f; do
		printf "%s %s\n" "$f" "$(sed "s#$S2/$1#RUN#g; s#run $1\\b#run RUN#g" "$f" | md5sum | cut -c1-32)"
	done)
}
GOALS="stakeholder_summary.md kernels.md regions.md"
test_expect_success 'two makes of one RUN at once: the second waits, both succeed, the run is whole' '
	lpmake RUN=alone "IMPORT=$IMPORT" MODEL=torch-decoder $GOALS >/dev/null 2>&1 &&
	digest alone >expect || return 1
	{ lpmake RUN=twice "IMPORT=$IMPORT" MODEL=torch-decoder $GOALS >out1 2>err1; echo $? >rc1; } &
	{ lpmake RUN=twice "IMPORT=$IMPORT" MODEL=torch-decoder $GOALS >out2 2>err2; echo $? >rc2; } &
	wait &&
	echo 0 >zero && test_cmp zero rc1 && test_cmp zero rc2 &&
	cat err1 err2 >err &&
	# the second waits a second quietly before it says so: a first make
	# done within it (a fast machine) leaves no message; never two
	{ n=$(grep -c "lp: run twice is being made by another make; waiting" err); test "$n" -le 1; } &&
	digest twice >got && test_cmp expect got &&
	lpmake -q RUN=twice $GOALS
'

test_expect_success 'a make killed while it holds the lock does not stop the next one' '
	( setsid make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=killed \
		"IMPORT=$IMPORT" MODEL=torch-decoder stakeholder_summary.md >/dev/null 2>&1 & echo $! >pid; wait ) &
	# until it holds the lock (config.yaml is made under it), however
	# loaded the machine
	until test -s pid; do sleep 0.05; done &&
	until test -e "$S2/killed/config.yaml"; do kill -0 "$(cat pid)" || exit 1; sleep 0.05; done &&
	kill -9 -- -"$(cat pid)" && { wait; true; } &&
	timeout 120 make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" \
		RUN=killed stakeholder_summary.md >/dev/null 2>err || { cat err; return 1; }
	! grep "waiting" err &&
	test -s "$S2/killed/details.md"
'

test_expect_success 'an import shows artifacts.top_kernels_rows kernels whatever TOPN says (its ncu ran already); topn.tsv follows TOPN' '
	lpmake RUN=n3 "IMPORT=$IMPORT" MODEL=torch-decoder TOPN=3 top_kernels.tsv roofline.tsv topn.tsv >/dev/null &&
	rows "$S2/n3/top_kernels.tsv" | wc -l >got && echo 10 >expect && test_cmp expect got &&
	test "$(rows "$S2/n3/roofline.tsv" | wc -l)" -le 10 &&
	test_grep "^# kernels: 3\$" "$S2/n3/topn.tsv" &&
	lpmake RUN=n3 TOPN=12 top_kernels.tsv >out &&
	! grep lp-topk out &&
	rows "$S2/n3/top_kernels.tsv" | wc -l >got && echo 10 >expect && test_cmp expect got &&
	lpmake -q RUN=n3 top_kernels.tsv roofline.tsv
'

test_expect_success 'only kernels.md is made by lp-kernmd, not any .md beside a .tsv' '
	lpmake RUN=n3 stages.tsv >/dev/null &&
	test_must_fail lpmake RUN=n3 "$S2/n3/stages.md" >out 2>err &&
	test_grep "No rule to make target" err &&
	! test -e "$S2/n3/stages.md"
'

test_expect_success 'make check parses without a warning' '
	make -n -C "$ROOT" --no-print-directory check >out 2>err &&
	test_must_be_empty err
'

# An imported file dated in the future (a clock that went back) kept
# import.mk older than it, and make re-made it and restarted until the
# guard stopped it.  make now depends on the files' record
# (vars/IMPORT.stamp: their sizes and times, written when they change),
# not on the files: the import goes through, once.  A record dated in the
# future still stops make after a few restarts, with the times.
test_expect_success 'IMPORT: a file dated in the future imports once; a record in the future stops make, with the times' '
	mkdir -p fut && cp "$FIX"/h200-torch-v2/torch_cuda_gpu_kern_sum.csv "$FIX"/h200-torch-v2/torch_nvtx_sum.csv \
		"$FIX"/h200-torch-v2/torch_nvtx_kern_sum.csv fut/ &&
	touch -d "+1 hour" fut/torch_nvtx_sum.csv &&
	imp="$PWD/fut/torch_cuda_gpu_kern_sum.csv $PWD/fut/torch_nvtx_sum.csv $PWD/fut/torch_nvtx_kern_sum.csv" &&
	timeout 120 make -C "$ROOT" --no-print-directory V=1 ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=fut \
		"IMPORT=$imp" config.yaml >out 2>err &&
	test $(grep -c "lp-import " out) = 1 &&
	lpmake -q RUN=fut config.yaml &&
	touch -d "+1 hour" "$S2/fut/vars/IMPORT.stamp" &&
	test_expect_code 2 timeout 120 make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=fut \
		"IMPORT=$imp" config.yaml >out 2>err &&
	test_grep "import.mk was re-made 4 times and is still older than what it is made from" err &&
	test_grep "vars/IMPORT.stamp" err
'

test_expect_success 'a preset that does not exist, or a MODE that is neither: refused before anything is recorded; the next make runs' '
	test_must_fail lpmake RUN=np "IMPORT=$IMPORT" MODEL=torch-decoder NCU_PRESET=nosuch stages.tsv >out 2>err &&
	test_grep "ncu.nosuch.yaml does not exist" err &&
	! test -e "$S2/np/vars/NCU_PRESET" && ! ls "$S2"/np/vars/*.tmp 2>/dev/null &&
	test_must_fail lpmake RUN=np "IMPORT=$IMPORT" MODEL=torch-decoder MODE=light NCU_PRESET=regions stages.tsv >out 2>err &&
	test_grep "NCU_PRESET=regions: NCU_PRESET picks" err && ! ls "$S2"/np/vars/*.tmp 2>/dev/null &&
	# a MODE that SET=run.mode would hide is refused all the same
	test_must_fail lpmake RUN=np "IMPORT=$IMPORT" MODEL=torch-decoder SET=run.mode=light MODE=bogus stages.tsv >out 2>err &&
	test_grep "MODE=\"bogus\": use deep or light" err && ! test -e "$S2/np/vars/MODE" &&
	lpmake RUN=np "IMPORT=$IMPORT" MODEL=torch-decoder stages.tsv >/dev/null
'

test_done
