#!/usr/bin/env bash
# Every tool: -h matches its man page's SYNOPSIS word for word; a failed
# write (a full disk) is an error, never a silent short file.
. "$(dirname "$0")/lib.sh"

for t in "$ROOT"/tools/lp-*.c; do
	n=$(basename "$t" .c)
	test_expect_success "$n: -h is the man page's SYNOPSIS" "
		$n -h >out &&
		sed -n '/^\\.SH SYNOPSIS/,/^\\.SH/p' \"\$ROOT/tools/$n.1\" | grep -v '^\\.' |
			sed 's/\\\\-/-/g; s/^/usage: /' >expect &&
		test_cmp expect out
	"
done

test_expect_success 'setup: inputs for every tool' '
	lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
		"$ROOT/conf/profiling/ncu/ncu.default.yaml" >"$TRASH/c.yaml" &&
	lp-topn "$FIX/h200-tinyllm/cap_cuda_gpu_kern_sum.csv" >"$TRASH/topn.tsv" &&
	lp-kernjoin "$FIX/h200-tinyllm/cap_cuda_gpu_kern_sum.csv" >"$TRASH/k.tsv" &&
	echo "sh w.sh" >"$TRASH/work" &&
	lp-inputs -w "$TRASH/work" >"$TRASH/in.yaml" &&
	mkdir -p "$TRASH/run" && cp "$TRASH/c.yaml" "$TRASH/run/config.yaml" &&
	cp "$TRASH/k.tsv" "$TRASH/run/kernels.tsv" &&
	W=$FIX/h200-whole/torch &&
	lp-gpu -t "$ROOT/conf/gpus.yaml" "$FIX/h200-tinyllm-live/env.json" >"$TRASH/gpu.tsv" &&
	lp-stages -c "$TRASH/c.yaml" -k ${W}_nvtx_kern_sum.csv ${W}_nvtx_sum.csv >"$TRASH/stages.tsv" &&
	lp-steps -c "$TRASH/c.yaml" ${W}_nvtx_pushpop_trace.csv >"$TRASH/steps.tsv" &&
	lp-steps -u -c "$TRASH/c.yaml" ${W}_nvtx_pushpop_trace.csv >"$TRASH/usteps.tsv" &&
	lp-roofline -g "$TRASH/gpu.tsv" "$TRASH/k.tsv" >"$TRASH/roofline.tsv"
'

full() {
	test_expect_success "$1: a full disk is an error" "
		test_expect_code 2 $1 $2 >/dev/full 2>err &&
		test_grep '^$1: <stdout>: No space left on device' err
	"
}
full lp-topn '"$FIX/h200-tinyllm/cap_cuda_gpu_kern_sum.csv"'
full lp-ncu2tsv '"$FIX/h200-tinyllm/dec_raw.csv"'
full lp-kernjoin '"$FIX/h200-tinyllm/cap_cuda_gpu_kern_sum.csv"'
full lp-kernmd '"$TRASH/k.tsv"'
full lp-summary '"$TRASH/stages.tsv"'
full lp-gpu '-t "$ROOT/conf/gpus.yaml" "$FIX/h200-tinyllm-live/env.json"'
full lp-stages '-c "$TRASH/c.yaml" "$FIX/h200-whole/torch_nvtx_sum.csv"'
full lp-steps '-c "$TRASH/c.yaml" "$FIX/h200-whole/torch_nvtx_pushpop_trace.csv"'
full lp-untraced '"$TRASH/steps.tsv" "$TRASH/usteps.tsv"'
full lp-mfu '-g "$TRASH/gpu.tsv" -i "$TRASH/in.yaml" -s "$TRASH/stages.tsv"'
full lp-mbu '-g "$TRASH/gpu.tsv" -i "$TRASH/in.yaml" -s "$TRASH/stages.tsv"'
full lp-roofline '-g "$TRASH/gpu.tsv" "$TRASH/k.tsv"'
full lp-roofsvg '-g "$TRASH/gpu.tsv" "$TRASH/roofline.tsv"'
full lp-ops '-o "$ROOT/conf/operators.yaml" "$TRASH/k.tsv"'
full lp-topk '"$TRASH/k.tsv"'
full lp-envtab '-c "$TRASH/c.yaml" -i "$TRASH/in.yaml" "$FIX/h200-tinyllm-live/env.json"'
full lp-aggr '"$TRASH/k.tsv"'
full lp-findings '"$TRASH/stages.tsv" "$TRASH/steps.tsv"'
full lp-confmerge '"$TRASH/c.yaml"'
full lp-confget 'run "$TRASH/c.yaml"'
full lp-inputs '-w "$TRASH/work"'
full lp-env '"$TRASH/in.yaml"'
full lp-nsyscmd '-o b -- w <"$TRASH/c.yaml"'
full lp-ncucmd '-k "$TRASH/topn.tsv" -o b -- w <"$TRASH/c.yaml"'

test_expect_success 'every tool has a man page and every man page a tool' '
	(cd "$ROOT/tools" && ls lp-*.c | sed "s/\.c$//") >tools &&
	(cd "$ROOT/tools" && ls lp-*.1 | sed "s/\.1$//") >pages &&
	test_cmp tools pages
'

test_expect_success 'make install and uninstall, with DESTDIR and PREFIX' '
	make -C "$ROOT" --no-print-directory -s ${LP_MAKE_ARGS:-} install DESTDIR="$TRASH/d" PREFIX=/opt/lp >out &&
	for t in "$ROOT"/tools/lp-*.c; do
		n=$(basename "$t" .c) &&
		test -x "$TRASH/d/opt/lp/bin/$n" &&
		test -f "$TRASH/d/opt/lp/share/man/man1/$n.1" || return 1
	done &&
	test -f "$TRASH/d/opt/lp/share/man/man7/lp.7" && test -f "$TRASH/d/opt/lp/share/man/man5/lp.5" &&
	make -C "$ROOT" --no-print-directory -s ${LP_MAKE_ARGS:-} uninstall DESTDIR="$TRASH/d" PREFIX=/opt/lp >out &&
	find "$TRASH/d" -type f >left &&
	test_must_be_empty left
'

test_expect_success 'missing libraries stop the build with one line naming the packages' '
	test_must_fail make -C "$ROOT" --no-print-directory B="$TRASH/b" CC=false LP_AUTO_DEPS=0 >out 2>err &&
	test_grep "^lp: libcsv, libyaml or libsqlite3 is missing: apt-get install libcsv-dev libyaml-dev libsqlite3-dev" err &&
	grep -v "^make: \*\*\*" err >lines && test $(wc -l <lines) = 1
'

# Every door answers (issue 43, item 4): each tool's --help is its usage
# line and where its manual is, --version its name, lp and the version;
# both exit 0, before any option or input of the tool's own is read.
test_expect_success 'every tool answers --help and --version, exit 0, nothing else read' '
	for t in "$ROOT"/tools/lp-*.c; do
		n=$(basename "$t" .c) &&
		$n --help >h 2>err </dev/null && test_must_be_empty err &&
		test_grep "^usage: $n " h && test_grep "^$n(1) has the whole manual: man $n\.$" h &&
		test -f "$ROOT/tools/$n.1" &&
		$n --version >v 2>err </dev/null && test_must_be_empty err &&
		test_grep "^$n (lp) [0-9][0-9.]*$" v || { echo "$n"; return 1; }
	done
'

test_expect_success 'lp(7)'"'"'s tables of the settings and SET= keys are what defines them' '
	"$ROOT/tests/gen-lp7.sh" >lp.7 2>err &&
	test_must_be_empty err &&
	test_cmp "$ROOT/tools/lp.7" lp.7 &&
	# a setting, a key of the runner and one of a preset, as lp(7) shows them
	test_grep "^\\\\%\\\\&SET	\\\\&key=value" lp.7 &&
	test_grep "^\\\\%\\\\&run.cover_pct	\\\\&95$" lp.7 &&
	test_grep "^\\\\%\\\\&ncu_cli.launches_per_kernel	" lp.7
'

test_expect_success 'make help: the goals, then every setting make settings lists, a line each' '
	make -C "$ROOT" --no-print-directory -s help >out &&
	test_grep "^lp: deep LLM profiling on NVIDIA GPUs" out && test_grep "^  make demo " out &&
	make -C "$ROOT" --no-print-directory -s settings | cut -f1 >want &&
	test -s want &&
	while read -r v; do grep -q "^  $v  *[^ ]" out || { echo "no $v"; return 1; }; done <want
'

test_expect_success 'LP_OUTPUT=PATH: PATH.tmp made afresh, renamed when whole; removed on failure; not passed on' '
	K=$FIX/h200-torch-v2/torch_cuda_gpu_kern_sum.csv &&
	lp-topn -n 3 <"$K" >want &&
	echo victim >victim && ln -s "$PWD/victim" out.tsv.tmp &&
	LP_OUTPUT=$PWD/out.tsv lp-topn -n 3 <"$K" >stdout &&
	test_cmp want out.tsv && test_must_be_empty stdout &&
	! test -e out.tsv.tmp && echo victim >expect && test_cmp expect victim &&
	echo bad >bad.csv &&
	test_must_fail env LP_OUTPUT=$PWD/fail.tsv lp-topn -n 3 <bad.csv 2>err &&
	test_grep "no header" err && ! test -e fail.tsv && ! test -e fail.tsv.tmp &&
	LP_OUTPUT=$PWD/run.log lp-runstep -O child -- sh -c "echo \${LP_OUTPUT-unset}" &&
	echo unset >expect && test_cmp expect child && ! test -e run.log.tmp &&
	# make passes on none from its own environment (it would take over
	# every step that is not run with LP_TO)
	LP_OUTPUT=$PWD/stray lpmake RUN=lpo "IMPORT=$(echo "$FIX"/h200-torch-v2/torch_*.csv)" \
		MODEL=torch-decoder stages.tsv >/dev/null &&
	! test -e stray && ! test -e stray.tmp
'

test_done
