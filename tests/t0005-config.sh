#!/usr/bin/env bash
# lp-confmerge and lp-confget: presets merged, overrides checked.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: two presets' '
	cat >"$TRASH/a.yaml" <<-\EOF &&
	run:
	  mode: deep
	  top_n_kernels: 10
	ncu_cli:
	  sections: [SpeedOfLight, Occupancy]
	  env:
	    X: "0"
	EOF
	cat >"$TRASH/b.yaml" <<-\EOF
	run:
	  top_n_kernels: 5
	ncu_cli:
	  sections: [SpeedOfLight]
	EOF
'

test_expect_success 'later files win key by key; lists are replaced' '
	lp-confmerge "$TRASH/a.yaml" "$TRASH/b.yaml" >c.yaml &&
	cat >expect <<-EOF &&
	# Resolved by lp-confmerge from: $TRASH/a.yaml $TRASH/b.yaml
	run:
	  mode: deep
	  top_n_kernels: 5
	ncu_cli:
	  sections:
	  - SpeedOfLight
	  env:
	    X: "0"
	EOF
	test_cmp expect c.yaml
'

test_expect_success 'overrides from -s and from a file, one KEY=VALUE a line' '
	printf "run.mode=light\n\nncu_cli.sections=A,B\n" >ovr &&
	lp-confmerge -S ovr -s run.top_n_kernels=3 "$TRASH/a.yaml" >c.yaml &&
	lp-confget run.mode c.yaml >got && echo light >expect && test_cmp expect got &&
	lp-confget run.top_n_kernels <c.yaml >got && echo 3 >expect && test_cmp expect got &&
	lp-confget ncu_cli.sections c.yaml >got && printf "A\nB\n" >expect && test_cmp expect got &&
	test_grep "^# overrides: run.mode=light ncu_cli.sections=A,B$" c.yaml
'

test_expect_success 'an override of a key the presets lack is an error' '
	test_expect_code 2 lp-confmerge -s run.mdoe=light "$TRASH/a.yaml" >out 2>err &&
	test_must_be_empty out &&
	test_grep "lp-confmerge: -s: no setting \"run.mdoe\" in the presets" err &&
	printf "ncu_cli=x\n" >ovr &&
	test_expect_code 2 lp-confmerge -S ovr "$TRASH/a.yaml" 2>err &&
	test_grep "lp-confmerge: ovr:1: ncu_cli is a section, not a setting" err &&
	test_expect_code 2 lp-confmerge -s run.top_n_kernels=ten "$TRASH/a.yaml" >out 2>err &&
	test_must_be_empty out &&
	test_grep "lp-confmerge: -s: run.top_n_kernels: expected a number, as the presets have, got \"ten\"" err &&
	test_expect_code 2 lp-confmerge -s novalue "$TRASH/a.yaml" 2>err &&
	test_grep "expected KEY=VALUE" err
'

test_expect_success 'YAML errors name the file, line and column' '
	printf "run:\n  mode: [deep\n" >bad.yaml &&
	test_expect_code 1 lp-confmerge bad.yaml >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-confmerge: bad.yaml:3:1: YAML: " err &&
	printf "run:\n  mode: a\n  mode: b\n" >dup.yaml &&
	test_expect_code 1 lp-confmerge dup.yaml 2>err &&
	test_grep "dup.yaml:3:3: duplicate key \"mode\"" err &&
	printf -- "- a\n- b\n" >seq.yaml &&
	test_expect_code 1 lp-confmerge seq.yaml 2>err &&
	test_grep "^lp-confmerge: seq.yaml:1: the document is a list, not a YAML mapping" err &&
	test_expect_code 2 lp-confmerge nosuch.yaml 2>err &&
	test_grep "lp-confmerge: nosuch.yaml: No such file" err
'

# "Billion laughs": nine levels of nine aliases, 400 bytes that expand to
# 387 million scalars; lp-confget once took 1.6 GB and 6 s on eight.
test_expect_success 'YAML bounds: aliases refused, nesting and size bounded, fast' '
	{ echo "a: &a [x, x, x, x, x, x, x, x, x]"
	  for l in b c d e f g h i; do p=$(printf "%s" "$l" | tr b-i a-h)
		echo "$l: &$l [*$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p]"; done; } >laughs.yaml &&
	test_expect_code 1 lp-confget i laughs.yaml >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-confget: laughs.yaml:2:[0-9]*: YAML alias \"\*a\": lp.s files take no anchors and aliases" err &&
	printf "a: &x 1\nb: 2\n" >anchor.yaml &&
	echo 2 >expect && lp-confget b anchor.yaml >got && test_cmp expect got &&
	awk "BEGIN { for (i = 0; i < 200000; i++) printf \"[\"; print \"\" }" >deep.yaml &&
	test_expect_code 1 lp-confget a deep.yaml 2>err &&
	test_grep "deep.yaml:1:65: YAML nested more than 64 deep" err &&
	awk "BEGIN { print \"a:\"; for (i = 1; i < 80; i++) { s = \"\"; for (j = 0; j < i; j++) s = s \" \"; print s \"b:\" } }" >block.yaml &&
	test_expect_code 1 lp-confget a block.yaml 2>err &&
	test_grep "block.yaml:65:65: YAML nested more than 64 deep" err &&
	awk "BEGIN { print \"a:\"; for (i = 0; i < 1200000; i++) print \"  - 1234567890123\" }" >big.yaml &&
	test_expect_code 1 lp-confget a big.yaml 2>err &&
	test_grep "big.yaml: YAML input larger than 16 MiB" err
'

test_expect_success 'lp-confget: scalars, lists, mapping keys, NUL ends, defaults' '
	lp-confget run "$TRASH/a.yaml" >got && printf "mode\ntop_n_kernels\n" >expect && test_cmp expect got &&
	lp-confget -0 ncu_cli.sections "$TRASH/a.yaml" >lp.out && <lp.out tr "\0" "|" >got && printf "SpeedOfLight|Occupancy|" >expect && test_cmp expect got &&
	lp-confget -d none run.stage "$TRASH/a.yaml" >got && echo none >expect && test_cmp expect got &&
	test_expect_code 1 lp-confget run.stage "$TRASH/a.yaml" 2>err &&
	test_grep "no key \"run.stage\"" err
'

test_expect_success 'the shipped presets resolve, and make reads stage2_dir as lp-confget does' '
	lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
		"$ROOT/conf/profiling/ncu/ncu.default.yaml" "$ROOT/conf/gpus.yaml" "$ROOT/conf/operators.yaml" >all.yaml &&
	lp-confget artifacts.stage2_dir all.yaml >got &&
	make -s -C "$ROOT" --no-print-directory -f Makefile -f - lp-print-stage2 <<-\EOF >from_make &&
	lp-print-stage2: ; @echo $(LP_STAGE2_DIR)
	EOF
	test_cmp got from_make &&
	for f in "$ROOT"/conf/profiling/ncu/*.yaml "$ROOT"/conf/model/*.yaml; do
		lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$f" >/dev/null || return 1
	done
'

test_done
