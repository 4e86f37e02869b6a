#!/usr/bin/env bash
# The cost of profiling (issue 17): the region metric set per model dtype
# (2 or 3 application runs a depth, not 14), the full set on request, the
# kernel step stopping the workload once its kernels are profiled, ncu's
# rules left out, nsys without OS runtime tracing.  The commands are
# checked word for word: what ncu and nsys cost with them was measured on
# an H100 (tests/gpu/explore5.sh to explore7.sh, tests/gpu/README.md).
. "$(dirname "$0")/lib.sh"

C=$ROOT/conf
reg() { # model file, SET overrides...: the regions config
	m=$1; shift
	lp-confmerge "$@" "$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.regions.yaml" "$C/model/$m.yaml"
}
metrics() { # the --metrics of each depth's command
	grep -v "^#" "$1" | grep -o -e "--metrics [^ ]*" | sed "s/--metrics //"
}

test_expect_success 'regions of an fp16 model: time, DRAM bytes and the fp16 tensor counter' '
	reg torch-decoder >td.yaml &&
	lp-ncucmd -p ncu_regions -R -o b -- python3 x.py <td.yaml >cmd 2>err &&
	test_must_be_empty err && ! grep -q "^#" cmd &&
	metrics cmd >got &&
	printf "%s\n" gpu__time_duration.sum,dram__bytes.sum,sm__ops_path_tensor_src_fp16.sum \
		gpu__time_duration.sum,dram__bytes.sum,sm__ops_path_tensor_src_fp16.sum >expect &&
	test_cmp expect got &&
	grep -c -e "--apply-rules no" cmd >n && echo 2 >two && test_cmp two n
'

test_expect_success 'regions of a bf16 model: the bf16 counter (1 pass with the time)' '
	reg hf-llama >ll.yaml &&
	lp-ncucmd -p ncu_regions -R -o b -- python3 x.py <ll.yaml >cmd &&
	metrics cmd | sort -u >got &&
	echo gpu__time_duration.sum,dram__bytes.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum >expect &&
	test_cmp expect got
'

test_expect_success 'SET=model.dtype changes the counter; fp32 counts TF32 tensor work' '
	reg torch-decoder -s model.dtype=fp32 >f.yaml &&
	lp-ncucmd -p ncu_regions -R -o b -- w <f.yaml >cmd &&
	metrics cmd | sort -u >got &&
	echo gpu__time_duration.sum,dram__bytes.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum >expect &&
	test_cmp expect got
'

test_expect_success 'no known dtype: every precision, and the command file says why' '
	reg torch-decoder -s model.dtype=int4 >u.yaml &&
	lp-ncucmd -p ncu_regions -R -o b -- w <u.yaml >cmd &&
	test_grep "^# lp: no known model.dtype: the tensor-core counters of every precision" cmd &&
	metrics cmd | sort -u >got &&
	echo gpu__time_duration.sum,dram__bytes.sum,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_src_int8.sum,sm__ops_path_tensor_src_fp64.sum >expect &&
	test_cmp expect got &&
	lp-ncucmd -0 -p ncu_regions -R -o b -- w <u.yaml | tr "\0" "\n" >words &&
	! grep -q "^# lp" words
'

test_expect_success 'full=true: the throughputs and every precision (the old 14-pass set)' '
	reg torch-decoder -s ncu_regions.full=true >full.yaml &&
	lp-ncucmd -p ncu_regions -R -o b -- w <full.yaml >cmd &&
	metrics cmd | sort -u >got &&
	echo gpu__time_duration.sum,dram__bytes.sum,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,sm__ops_path_tensor_src_int8.sum,sm__ops_path_tensor_src_fp64.sum >expect &&
	test_cmp expect got &&
	reg torch-decoder -s ncu_regions.tensor=none >none.yaml &&
	lp-ncucmd -p ncu_regions -R -o b -- w <none.yaml >cmd &&
	metrics cmd | sort -u >got && echo gpu__time_duration.sum,dram__bytes.sum >expect && test_cmp expect got
'

test_expect_success 'a bad tensor or full value names the key' '
	test_expect_code 2 lp-confmerge -s ncu_regions.full=maybe "$C/runner/stage2.yaml" \
		"$C/profiling/ncu/ncu.regions.yaml" >bad.yaml 2>err &&
	test_grep "ncu_regions.full: expected true or false" err &&
	reg torch-decoder -s ncu_regions.tensor=some >bad2.yaml &&
	test_expect_code 1 lp-ncucmd -p ncu_regions -R -o b -- w <bad2.yaml >out 2>err &&
	test_grep "ncu_regions.tensor: expected none, dtype or all" err && test_must_be_empty out &&
	reg torch-decoder -s ncu_regions.full=true | grep -v "^ *- .*pct_of_peak" >nofull.yaml &&
	grep -q "full_metrics:" nofull.yaml &&
	test_expect_code 1 lp-ncucmd -p ncu_regions -R -o b -- w <nofull.yaml >out 2>err &&
	test_grep "ncu_regions.full is true but ncu_regions.full_metrics lists no metrics" err &&
	test_must_be_empty out
'

test_expect_success 'kernel step: stops the workload once the N kernels are profiled' '
	lp-confmerge "$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.default.yaml" "$C/model/torch-decoder.yaml" >k.yaml &&
	printf "# tool: lp-topn\nrank\tkernel\ttotal_ns\n1\ta\t9\n2\tb\t8\n3\tc\t7\n" >topn.tsv &&
	lp-ncucmd -0 -k topn.tsv -o b -- w <k.yaml | tr "\0" "\n" >words &&
	sed -n "/^--kernel-id/,/^--force-overwrite/p" words >got &&
	printf "%s\n" --kernel-id "::regex:^(a|b|c)\$:1" --launch-count 3 --kill yes --force-overwrite >expect &&
	test_cmp expect got &&
	test_grep -x -e --apply-rules words &&
	lp-confmerge -s ncu_cli.stop_when_done=false "$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.default.yaml" \
		"$C/model/torch-decoder.yaml" >k2.yaml &&
	lp-ncucmd -0 -k topn.tsv -o b -- w <k2.yaml | tr "\0" "\n" >words &&
	! grep -x -e --kill words && ! grep -x -e --launch-count words
'

test_expect_success 'nsys: no OS runtime trace unless asked' '
	lp-confmerge "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" "$C/model/torch-decoder.yaml" >n.yaml &&
	lp-nsyscmd -o r -- w <n.yaml >cmd 2>/dev/null &&
	test_grep -e "--trace=cuda,nvtx " cmd &&
	lp-confmerge -s nsys_cli.trace=cuda,nvtx,osrt "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" \
		"$C/model/torch-decoder.yaml" >n2.yaml &&
	lp-nsyscmd -o r -- w <n2.yaml >cmd 2>/dev/null &&
	test_grep -e "--trace=cuda,nvtx,osrt " cmd
'

# The live path with the stand-in profilers (tests/fake): each step says
# and records its wall time; profile_cost.tsv shows exactly those.
export LP_FAKE_LOG=$TRASH/fake.log
export LP_FAKE_NSYS=$FIX/h200-whole/tinyllm
export LP_FAKE_NCU_CSV=$FIX/h200-live/n2.csv
export LP_FAKE_NCU_REGIONS=$TRASH/fr/d
mkdir -p "$TRASH/fr" && cp "$FIX/h200-probe/region_rt_raw.csv" "$TRASH/fr/d0.csv" &&
	cp "$FIX/h200-probe/region_rr_raw.csv" "$TRASH/fr/d1.csv"
lpmake() {
	PATH=$ROOT/tests/fake:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" "$@"
}
said() { # the step times make printed, as "STEP<TAB>SECONDS"
	sed -n "s/^lp: \(.*\) took \([0-9.]*\) s$/\1	\2/p" "$@"
}
passes() { # sum|max FILE: profiler__replayer_passes of an ncu raw export
	cat >"$TRASH/passes.awk" <<-\EOF
	NR == 1 { n = csv($0, f); for (i = 1; i <= n; i++) h[f[i]] = i; next }
	{ csv($0, f); v = f[h["profiler__replayer_passes"]]; gsub(",", "", v) }
	v ~ /^[0-9]+(\.0*)?$/ { s += v; if (v + 0 > m) m = v + 0 }
	END { print (mode == "sum" ? s : m) }
	EOF
	awk -v mode="$1" -f "$ROOT/tests/csv.awk" -f "$TRASH/passes.awk" "$2"
}
costrows() { # STEP<TAB>wall_s of profile_cost.tsv, seconds as printed
	sed "/^#/d" "$1" | sed 1d | awk -F"\t" "\$1 != \"total\" { printf \"%s\t%.2f\n\", \$1, \$2 }"
}

test_expect_success 'live run: profile_cost.tsv has each step make timed, in the summary' '
	lpmake RUN=c WORK="sh tests/fake/workload.sh" MODEL=tinyllm stakeholder_summary.md >out 2>err &&
	said out >said &&
	test $(wc -l <said) = 8 &&
	test_grep "^nsys untraced profile	" said && test_grep "^nsys untraced stats	" said &&
	test_grep "^nsys export	" said &&
	costrows "$S2/c/profile_cost.tsv" >rows &&
	test_cmp said rows &&
	test_grep "^# tool: lp-cost" "$S2/c/profile_cost.tsv" &&
	test_grep "^## Profile Cost" "$S2/c/details.md" &&
	awk -F"\t" "\$1 == \"ncu profile\" { print \$3, \$4 }" "$S2/c/profile_cost.tsv" >got &&
	echo "1 $(passes sum "$LP_FAKE_NCU_CSV")" >want &&
	test_cmp want got &&
	grep "x_alone\|not timed" "$S2/c/profile_cost.tsv" >untimed &&
	grep -q "make RUN=x alone.tsv" untimed &&
	lpmake -q RUN=c stakeholder_summary.md
'

test_expect_success 'alone.tsv times the workload; the regions add their depths and passes' '
	lpmake RUN=c alone.tsv regions.md >out 2>err &&
	lpmake RUN=c stakeholder_summary.md >out2 2>err2 &&
	test_grep "^lp: workload alone took" out &&
	said out >said && grep "^ncu regions depth" said >want &&
	costrows "$S2/c/profile_cost.tsv" | grep "^ncu regions depth" >got && test_cmp want got &&
	a=$(cut -f2 "$S2/c/alone.tsv") &&
	sed "/^#/d" "$S2/c/profile_cost.tsv" | awk -F"\t" -v a="$a" "NR > 1 && \$1 != \"total\" {
		if (sprintf(\"%.2f\", \$2 / a) != \$5) { print \"x_alone\", \$0; bad = 1 } } END { exit bad }" &&
	for d in 0 1; do
		p=$(passes max "$TRASH/fr/d$d.csv") &&
		awk -F"\t" -v s="ncu regions depth $d" "\$1 == s { print \$3, \$4 }" "$S2/c/profile_cost.tsv" >got &&
		echo "$p $p" >want && test_cmp want got || return 1
	done &&
	lpmake -q RUN=c stakeholder_summary.md regions.md
'

test_expect_success 'an import has no profiling cost: said, nothing written' '
	test_expect_code 2 lpmake RUN=i "IMPORT=$(echo "$FIX"/h200-torch-v2/torch_*.csv)" profile_cost.tsv >out 2>err &&
	test_grep "imports exports: lp did not profile it" err &&
	! test -e "$S2/i/profile_cost.tsv"
'

test_done
