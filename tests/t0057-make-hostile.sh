#!/usr/bin/env bash
# make reads only the variables lp names (issue 37, "Smaller"): lp's own
# variables (R, Q, LP_BIN, LP_SAY, ...), typed on the command line as
# NAME='$(shell cmd)', ran cmd when make first expanded them, since a
# command-line value overrides the makefile's; make's own (SHELL) too, and
# MAKE_RESTARTS from the environment.  Each is now refused, named, or
# ignored, and nothing runs.
. "$(dirname "$0")/lib.sh"

IMPORT="$(echo "$FIX"/h200-torch-v2/torch_*.csv)"
# the settings, as lp(7) and the Makefile's first lines name them
SETTINGS="RUN WORK IMPORT MODEL MODE TOPN COVER NCU_PRESET STAGE SET BASE OPS UNTRACED_GPU LP_STAGE2_DIR REGRESSION
	V SAN VALGRIND WERROR FAULT_KILLS B LP_AUTO_DEPS PREFIX DESTDIR CC CFLAGS LDFLAGS
	FUZZ_CC FUZZ_TIME NVCC NVCC_ARCH"
MAKES="SHELL .SHELLFLAGS CURDIR MAKEFILE_LIST MAKEFLAGS .DEFAULT_GOAL"
# own ARGS...: the variables the makefiles define in that make (make -p),
# less the settings and make's own, one a line
own() {
	{ lpmake -pq "$@" 2>/dev/null; true; } | sed -n '/^# makefile/{n;p;}' |
		sed -E 's/^(define|override) //; s/ .*//' | grep -v '[/:]' | sort -u >"$TRASH/own.all" &&
	printf '%s\n' $SETTINGS $MAKES | sort -u >"$TRASH/own.not" &&
	comm -23 "$TRASH/own.all" "$TRASH/own.not"
}
# typed FILE: each name of FILE with a payload that makes $TRASH/m-NAME
typed() {
	sed 's/.*/&=$(shell touch '"${TRASH//\//\\/}"'\/m-&)/' "$1"
}

test_expect_success 'each of lp'"'"'s own variables typed as $(shell ...): refused, each named; nothing runs' '
	lpmake RUN=oi "IMPORT=$IMPORT" MODEL=torch-decoder config.yaml >/dev/null &&
	own RUN=oi >imp && own RUN=ol WORK=true >live &&
	test $(wc -l <imp) -gt 150 && grep -qx R imp && grep -qx LP_SAY imp && grep -qx LP_IMP_MK imp &&
	grep -qx LP_COST_REG live &&
	sort -u imp live >names &&
	mapfile -t args < <(typed names) &&
	test_must_fail lpmake RUN=oi "${args[@]}" kernels.md >out 2>err &&
	test_grep "^Makefile:[0-9]*: \*\*\* .*: lp'"'"'s own variables, not settings: leave them out (the settings: RUN WORK " err &&
	sed -n "s/^Makefile:[0-9]*: \*\*\* \(.*\): lp'"'"'s own variables.*/\1/p" err | tr " " "\n" | sort >named &&
	test_cmp imp named &&
	test_must_fail lpmake RUN=ol WORK=true "${args[@]}" kernels.md >out 2>err &&
	sed -n "s/^Makefile:[0-9]*: \*\*\* \(.*\): lp'"'"'s own variables.*/\1/p" err | tr " " "\n" | sort >named &&
	test_cmp live named &&
	# one alone, as typed by hand
	test_must_fail lpmake RUN=oi "R=\$(shell touch $TRASH/m-R1)" config.yaml >out 2>err &&
	test_grep "^Makefile:[0-9]*: \*\*\* R: lp'"'"'s own variable, not a setting: leave it out" err &&
	! ls "$TRASH"/m-* 2>/dev/null
'

test_expect_success 'the same in the environment: ignored, the run made as without them; nothing runs' '
	lpmake RUN=oi "IMPORT=$IMPORT" MODEL=torch-decoder config.yaml >/dev/null &&
	own RUN=oi >imp && own RUN=ol WORK=true >live && sort -u imp live >names &&
	mapfile -t args < <(typed names) &&
	env "${args[@]}" make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" \
		RUN=oi stages.tsv >out 2>err || { cat err; return 1; }
	test -s "$S2/oi/stages.tsv" && ! ls "$TRASH"/m-* 2>/dev/null &&
	lpmake -q RUN=oi stages.tsv
'

test_expect_success 'make'"'"'s own variables typed are refused at once; make -e is refused; nothing runs' '
	for v in $MAKES MAKE VPATH MAKE_RESTARTS; do
		test_must_fail lpmake RUN=oi "IMPORT=$IMPORT" "$v=\$(shell touch $TRASH/m-$v)" config.yaml >out 2>err &&
		test_grep "^tools/mk/cmdline.mk:[0-9]*: \*\*\* $v is make'"'"'s own variable" err || return 1
	done &&
	test_must_fail env "Q=\$(shell touch $TRASH/m-e)" make -e -C "$ROOT" --no-print-directory \
		LP_STAGE2_DIR="$S2" RUN=oi config.yaml >out 2>err &&
	test_grep "make -e: the environment would override lp'"'"'s own variables; run make without -e" err &&
	! ls "$TRASH"/m-* 2>/dev/null
'

# make itself restarts with MAKE_RESTARTS=N in the environment (after
# re-making import.mk): a number, which imports.mk reads
test_expect_success 'MAKE_RESTARTS in the environment that make did not set: ignored, the import restarts once' '
	MAKE_RESTARTS="\$(shell touch $TRASH/m-mr)" lpmake RUN=mr "IMPORT=$IMPORT" MODEL=torch-decoder config.yaml >out 2>err &&
	test -s "$S2/mr/config.yaml" && ! test -e "$TRASH/m-mr" &&
	test_must_be_empty err
'

# The build's settings: the compilers and flags are read as typed (a '$'
# in them was expanded at parse time, LP_FLAGS_NOW, even for a make of a
# run), the folders are plain paths.  Each is tried in a build folder of
# this test's (B=), with make -n: the checkout's build is never touched.
bmake() {
	# a build of its own (B=): make check's switches (SAN, WERROR in the
	# environment) are not the ones these tests type
	env -u SAN -u WERROR make -n -C "$ROOT" --no-print-directory B="$TRASH/b" "$@"
}
test_expect_success 'CC, CFLAGS, LDFLAGS, FUZZ_CC, NVCC holding $(shell ...): refused, named, typed or in the environment' '
	for v in CC CFLAGS LDFLAGS FUZZ_CC NVCC; do
		test_must_fail bmake "$v=\$(shell touch $TRASH/m-$v)" all >out 2>err &&
		test_grep "^Makefile:[0-9]*: \*\*\* $v holds a .\$.: lp takes the build.s flags as typed" err &&
		test_must_fail env "$v=\$(shell touch $TRASH/m-e$v)" make -n -C "$ROOT" --no-print-directory \
			B="$TRASH/b" all >out 2>err &&
		test_grep "^Makefile:[0-9]*: \*\*\* $v holds a " err &&
		test_must_fail lpmake -n B="$TRASH/b" RUN=oi "$v=\$(shell touch $TRASH/m-r$v)" config.yaml >out 2>err &&
		test_grep "^Makefile:[0-9]*: \*\*\* $v holds a " err || return 1
	done &&
	for v in B PREFIX DESTDIR; do
		for x in "\$(shell touch $TRASH/m-$v)" "x;touch $TRASH/m-$v" "a b"; do
			test_must_fail bmake "$v=$x" all >out 2>err &&
			test_grep "^Makefile:[0-9]*: \*\*\* $v=\".*\": use a path of letters" err || return 1
		done
	done &&
	! ls "$TRASH"/m-* 2>/dev/null
'

test_expect_success 'make CC=cc CFLAGS=-O2 LDFLAGS=-s builds with them, as before' '
	bmake CC=cc CFLAGS=-O2 LDFLAGS=-s PREFIX=/opt/lp DESTDIR=/tmp/stage all install >out 2>err &&
	test_grep "^cc -O2 -std=c11 .* -c -o $TRASH/b/obj/lp-aggr.o tools/lp-aggr.c$" out &&
	test_grep "^cc -O2  -s -o $TRASH/b/lp-aggr $TRASH/b/obj/lp-aggr.o $TRASH/b/liblp.a -lcsv -lyaml -lm$" out &&
	test_grep "^install -d /tmp/stage/opt/lp/bin " out
'

# The runner file's values that make reads itself (conf/runner/stage2.yaml,
# with awk): a backtick or $(...) in one went into a shell, make's
# $(shell expr "...") check of the rows or every recipe of the stage-2
# folder.  A copy of the makefiles and conf/, each value made hostile in
# turn (make -n: nothing is built).
tree() {
	rm -rf tree && mkdir -p tree/tools && cp "$ROOT/Makefile" "$ROOT/rules.mk" tree/ &&
	cp -r "$ROOT/tools/mk" tree/tools/ && cp -r "$ROOT/conf" tree/
}
test_expect_success 'artifacts.*_rows and artifacts.stage2_dir holding a backtick or $(...): refused, named; nothing runs' '
	for k in kernels_md_rows compare_rows top_kernels_rows stage2_dir; do
		for bad in "\`touch\${IFS}$TRASH/m-$k\`" "\$(touch\${IFS}$TRASH/m-$k)" "12\`touch\${IFS}$TRASH/m-$k\`"; do
			tree && printf "%s\n" "$bad" >bad &&
			awk -v k="  $k:" -v b="$bad" "index(\$0, k) == 1 { \$0 = k \" \" b } { print }" \
				"$ROOT/conf/runner/stage2.yaml" >tree/conf/runner/stage2.yaml &&
			grep -qF "  $k: $bad" tree/conf/runner/stage2.yaml &&
			test_must_fail make -C tree -n --no-print-directory RUN=x WORK=true kernels.md >out 2>err &&
			test_grep "^tools/mk/settings.mk:[0-9]*: \*\*\* conf/runner/stage2.yaml: artifacts.$k: " err &&
			grep -F "got \"$bad\"" err || return 1
		done
	done &&
	! ls "$TRASH"/m-* 2>/dev/null
'

# SET=artifacts.kernels_md_rows=N was merged into config.yaml and ignored
# (make reads the rows from the runner file itself); SET=run.mode=light
# made config.yaml say light while ncu's preset stayed the default's.
rows() {
	sed "/^#/d" "$1" | sed 1d | wc -l
}
test_expect_success 'SET=artifacts.*_rows and run.mode are honoured; artifacts.stage2_dir and bad values refused, named' '
	lpmake RUN=oi "IMPORT=$IMPORT" MODEL=torch-decoder kernels.md top_kernels.tsv >/dev/null &&
	test $(rows "$S2/oi/kernels_md.tsv") -gt 3 && test $(rows "$S2/oi/top_kernels.tsv") = 10 &&
	lpmake RUN=oi SET="artifacts.kernels_md_rows=3 artifacts.top_kernels_rows=\"2\"" kernels.md top_kernels.tsv >/dev/null &&
	test $(rows "$S2/oi/kernels_md.tsv") = 3 && test $(rows "$S2/oi/top_kernels.tsv") = 2 &&
	lpmake -q RUN=oi kernels.md top_kernels.tsv &&
	lpmake RUN=oi SET= kernels.md top_kernels.tsv >/dev/null &&
	test $(rows "$S2/oi/kernels_md.tsv") -gt 3 && test $(rows "$S2/oi/top_kernels.tsv") = 10 &&
	for bad in 0 12x abc "\$(shell\${IFS}touch\${IFS}$TRASH/m-set)"; do
		test_must_fail lpmake RUN=oi "SET=artifacts.compare_rows=$bad" config.yaml >out 2>err &&
		test_grep -F "*** SET: artifacts.compare_rows=\"$bad\": expected a whole number from 1" err || return 1
	done &&
	test_must_fail lpmake RUN=oi SET=artifacts.stage2_dir=elsewhere config.yaml >out 2>err &&
	test_grep "SET: artifacts.stage2_dir: the stage-2 folder holds the run.s records (its vars/SET among them): give LP_STAGE2_DIR=DIR" err &&
	! grep stage2_dir "$S2/oi/vars/SET" &&
	lpmake RUN=lm WORK=true MODE=deep SET=run.mode=light config.yaml >/dev/null &&
	test_grep -x "conf/profiling/ncu/ncu.light.yaml" "$S2/lm/vars/presets.ncu" &&
	test_grep "^  mode: light" "$S2/lm/config.yaml" &&
	test_must_fail lpmake RUN=lm SET=run.mode=fast config.yaml >out 2>err &&
	test_grep "SET: run.mode=\"fast\": use deep or light" err &&
	! ls "$TRASH"/m-* 2>/dev/null
'

# V=0, a CI convention for quiet, stopped every make ("use V=1").
test_expect_success 'V=0 is quiet, as V unset: one line a step' '
	lpmake RUN=oi "IMPORT=$IMPORT" MODEL=torch-decoder stages.tsv >/dev/null &&
	rm "$S2/oi/stages.tsv" &&
	lpmake RUN=oi V=0 stages.tsv >out 2>err &&
	test_grep "^  TSV   oi/stages.tsv  *lp-stages$" out && ! grep "lp-stages -c" out &&
	bmake V=0 all >out 2>err &&
	test_grep "^echo \"  CC      tools/lp-aggr.c\"$" out &&
	bmake V=0 check >out 2>err && ! grep "prove.* -v " out
'

# A full disk: make's $(file >) of a record fails at close, and make stops
# ("close: ...: No space left on device") before the rename, leaving the
# record's .tmp written empty; the record itself keeps its old value.
# The steps run in a mount namespace of their own (unshare) with a 256 KiB
# tmpfs as LP_STAGE2_DIR; skipped where no namespace can be made.
cat >"$TRASH/full.sh" <<\EOF
d=$1
mount -t tmpfs -o size=256k tmpfs "$d" || exit 77
m() { make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$d" "$@"; }
m RUN=w WORK=true config.yaml >/dev/null || exit 1
cp -a "$d/w/vars" before && dd if=/dev/zero of="$d/fill" bs=4k 2>/dev/null
m RUN=w SET=run.top_n_kernels=3 config.yaml >out 2>err && { echo "a make on a full disk succeeded"; exit 1; }
grep "^tools/mk/settings.mk:[0-9]*: \*\*\* close: $d/w/vars/SET.tmp: No space left on device" err || { cat err; exit 1; }
# every record as it was (none half-written), and no SET record
(cd before && for f in *; do cmp "$f" "$d/w/vars/$f" || exit 1; done) && ! test -e "$d/w/vars/SET" || exit 1
rm "$d/fill"
# the next make, another setting: no .tmp left; then the one refused
m RUN=w config.yaml >/dev/null && find "$d/w" -name "*.tmp*" >left && ! test -s left || { cat left; exit 1; }
m RUN=w SET=run.top_n_kernels=3 config.yaml >/dev/null && grep -x "run.top_n_kernels=3" "$d/w/vars/overrides.all"
EOF
test_expect_success 'a full disk: make stops naming the record; none half-written; the next make leaves no .tmp' '
	mkdir full && export ROOT &&
	if unshare -m true 2>/dev/null; then ns="unshare -m"; elif unshare -rm true 2>/dev/null; then ns="unshare -rm";
	else echo "# skip: no mount namespace (unshare)"; return 0; fi &&
	$ns bash "$TRASH/full.sh" "$PWD/full"; rc=$?
	test $rc = 77 && { echo "# skip: no tmpfs in the namespace"; return 0; }
	test $rc = 0
'

test_done
