#!/usr/bin/env bash
# topn.tsv, ncu/metrics.tsv and kernels.tsv say which tool made them and
# from what ("# tool:", "# source:"), and the readers that expect one
# tool's table refuse another's, at the file and line of its header
# (issue 16).  Inputs: the demo's real H200 capture (tests/fixtures/
# h200-torch-v2), the tables made from it by the tools themselves.
. "$(dirname "$0")/lib.sh"

V2=$FIX/h200-torch-v2

test_expect_success 'setup: topn.tsv, metrics.tsv and kernels.tsv of the demo capture' '
	lp-topn -n 3 -r :LLM@decode_all "$V2/torch_nvtx_kern_sum_mangled.csv" >"$TRASH/topn.tsv" &&
	lp-ncu2tsv -r :LLM@decode_all "$V2/torch_ncu_raw.csv" >"$TRASH/m.tsv" 2>/dev/null &&
	lp-kernjoin -r :LLM@decode_all -m "$TRASH/m.tsv" "$V2/torch_nvtx_kern_sum_mangled.csv" >"$TRASH/k.tsv" &&
	lp-gpu -t "$ROOT/conf/gpus.yaml" -n "$V2/torch_ncu_raw.csv" >"$TRASH/gpu.tsv" &&
	C=$ROOT/conf && lp-confmerge "$C/runner/stage2.yaml" "$C/profiling/ncu/ncu.default.yaml" \
		"$C/model/torch-decoder.yaml" >"$TRASH/ncu.yaml"
'

test_expect_success 'each names its tool and its source first' '
	head -2 "$TRASH/topn.tsv" >got &&
	cat >expect <<-EOF &&
	# tool: lp-topn
	# source: nsys nvtx_kern_sum ($V2/torch_nvtx_kern_sum_mangled.csv), NVTX range :LLM@decode_all
	EOF
	test_cmp expect got &&
	head -2 "$TRASH/m.tsv" >got &&
	cat >expect <<-EOF &&
	# tool: lp-ncu2tsv
	# source: ncu CSV export $V2/torch_ncu_raw.csv, the launches inside NVTX range :LLM@decode_all
	EOF
	test_cmp expect got &&
	head -2 "$TRASH/k.tsv" >got &&
	cat >expect <<-EOF &&
	# tool: lp-kernjoin
	# time: nsys nvtx_kern_sum ($V2/torch_nvtx_kern_sum_mangled.csv)
	EOF
	test_cmp expect got
'

test_expect_success 'several ncu exports, or stdin, are named as such' '
	lp-ncu2tsv "$V2/torch_ncu_raw.csv" "$V2/torch_ncu_raw.csv" >two.tsv 2>/dev/null;
	sed -n 2p two.tsv >got &&
	echo "# source: ncu CSV exports $V2/torch_ncu_raw.csv $V2/torch_ncu_raw.csv" >expect &&
	lp-ncu2tsv <"$V2/torch_ncu_raw.csv" >one.tsv &&
	sed -n 2p one.tsv >>got &&
	echo "# source: ncu CSV export <stdin>" >>expect &&
	test_cmp expect got
'

# A table of another tool where one tool's is expected: the error names
# the file and its header line, and nothing is written.
refused() { # wanted-tool header-line file cmd...
	r_tool=$1 r_line=$2 r_file=$3
	shift 3
	test_expect_code 1 "$@" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^$1: $r_file:$r_line: not a table of $r_tool" err
}

test_expect_success 'lp-ncucmd -k takes only lp-topn output' '
	refused lp-topn 3 "$TRASH/m.tsv" lp-ncucmd -k "$TRASH/m.tsv" -o b -- w <"$TRASH/ncu.yaml" &&
	test_grep "its \"# tool:\" line names another" err &&
	sed 1d "$TRASH/topn.tsv" >notool.tsv &&
	refused lp-topn 3 notool.tsv lp-ncucmd -k notool.tsv -o b -- w <"$TRASH/ncu.yaml" &&
	test_grep "no \"# tool:\" line" err
'

test_expect_success 'lp-kernjoin -m and lp-roofline -m take only lp-ncu2tsv output' '
	refused lp-ncu2tsv 4 "$TRASH/topn.tsv" \
		lp-kernjoin -r :LLM@decode_all -m "$TRASH/topn.tsv" "$V2/torch_nvtx_kern_sum_mangled.csv" &&
	refused lp-ncu2tsv 4 "$TRASH/topn.tsv" \
		lp-roofline -g "$TRASH/gpu.tsv" -m "$TRASH/topn.tsv" "$TRASH/k.tsv"
'

test_expect_success 'the readers of kernels.tsv take only lp-kernjoin output' '
	h=$(grep -n -m1 -v "^#" "$TRASH/m.tsv" | cut -d: -f1) &&
	refused lp-kernjoin $h "$TRASH/m.tsv" lp-roofline -g "$TRASH/gpu.tsv" "$TRASH/m.tsv" &&
	refused lp-kernjoin $h "$TRASH/m.tsv" lp-topk "$TRASH/m.tsv" &&
	refused lp-kernjoin $h "$TRASH/m.tsv" lp-ops -o "$ROOT/conf/operators.yaml" "$TRASH/m.tsv" &&
	refused lp-kernjoin $h "$TRASH/m.tsv" lp-aggr "$TRASH/m.tsv"
'

test_expect_success 'the tables still read as before: lp-kernjoin on lp-ncu2tsv, lp-ncucmd on lp-topn' '
	lp-ncucmd -k "$TRASH/topn.tsv" -o b -- w <"$TRASH/ncu.yaml" >cmd &&
	test_grep "regex:" cmd &&
	test_grep "^# match: 10 of 10 ncu kernels matched" "$TRASH/k.tsv"
'

test_done
