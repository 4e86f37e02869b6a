#!/usr/bin/env bash
# capture_audit.tsv (lp-audit, issue 39 item 4 in part): what a capture
# holds per process and stage, from real H100 captures of the torch decoder
# (tests/fixtures/h100-graphs: g1 graphed per node, e1 eager, s2 the ranges
# pushed by a parent whose child launched the kernels).  Every count is
# recomputed with awk from the push/pop and CUDA API traces; a graphed
# decode whose fifth step launched its kernels one by one (g1 with that
# step's cudaGraphLaunch turned into kernel launches) is named; ranges
# around no launch and a rank without kernels are refused.
. "$(dirname "$0")/lib.sh"

G=$FIX/h100-graphs
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
	"$ROOT/conf/model/torch-decoder.yaml" >"$TRASH/cfg.yaml" || exit 1
audit() {	# PUSHPOP APITRACE
	lp-audit -c "$TRASH/cfg.yaml" -a "$2" -p "$1"
}

# expect PUSHPOP APITRACE: per process and stage, instances, kernel launch
# calls and graph launches inside the process's own instances
expect='
FNR == 1 { file++; n = csv($0, h); delete c; col(h, n, c); next }
file == 1 { csv($0, x); s = x[c["Name"]]; sub(/^:LLM@/, "", s)
	k = x[c["PID"]] SUBSEP s; ni[k]++; st[k, ni[k]] = x[c["Start (ns)"]] + 0; en[k, ni[k]] = x[c["End (ns)"]] + 0
	if (!(k in seen)) { seen[k] = 1; order[++no] = k }; next }
{ csv($0, x); nm = x[c["Name"]]; if (nm !~ /^(cuda|cu)(Launch|GraphLaunch)/) next
	g = nm ~ /GraphLaunch/; t = x[c["Start (ns)"]] + 0; p = x[c["Pid"]]
	for (o = 1; o <= no; o++) { k = order[o]; split(k, kk, SUBSEP); if (kk[1] != p) continue
		for (i = 1; i <= ni[k]; i++) if (t >= st[k, i] && t < en[k, i]) { if (g) gl[k]++; else kl[k]++ } } }
END { split("prefill decode_all decode_step", S, " ")
	for (q = 1; q <= 3; q++) for (o = 1; o <= no; o++) { k = order[o]; split(k, kk, SUBSEP); if (kk[2] != S[q]) continue
		printf "%s\t%s\t%d\t%d\t%d\n", kk[1], kk[2], ni[k], kl[k], gl[k] } }'

test_expect_success 'graphed and eager decodes: instances, launches and graph launches per process and stage, by awk' '
	for p in g1 e1; do
		audit "$G/${p}_nvtx_pushpop_trace.csv" "$G/${p}_cuda_api_trace.csv" >a.tsv &&
		A "$expect" "$G/${p}_nvtx_pushpop_trace.csv" "$G/${p}_cuda_api_trace.csv" >want &&
		table a.tsv pid stage instances launches graph_launches >got &&
		test_cmp want got || return 1
	done &&
	audit "$G/g1_nvtx_pushpop_trace.csv" "$G/g1_cuda_api_trace.csv" >a.tsv &&
	table a.tsv stage graph_launches_per_inst eager_instances | grep "^decode_step	1	none$" &&
	! grep -q "^# note: Warning" a.tsv
'

test_expect_success 'a graphed decode whose fifth step fell back to eager launches: named' '
	# the fifth decode_step'"'"'s window, and its cudaGraphLaunch made two kernel launches
	A "FNR == 1 { n = csv(\$0, h); col(h, n, c); next }
		{ csv(\$0, x); if (x[c[\"Name\"]] == \":LLM@decode_step\" && ++i == 5) print x[c[\"Start (ns)\"]], x[c[\"End (ns)\"]] }" \
		"$G/g1_nvtx_pushpop_trace.csv" >win &&
	read s e <win &&
	awk -F, -v OFS=, -v s="$s" -v e="$e" "NR > 1 && \$3 ~ /^cudaGraphLaunch/ && \$1 >= s && \$1 < e {
		\$3 = \"cudaLaunchKernel_v7000\"; print; \$1 += 1; print; next } { print }" "$G/g1_cuda_api_trace.csv" >api.csv &&
	audit "$G/g1_nvtx_pushpop_trace.csv" api.csv >a.tsv &&
	table a.tsv stage launches graph_launches eager_instances | grep "^decode_step	" >row &&
	printf "decode_step\t2\t31\t5\n" >want && test_cmp want row &&
	test_grep "^# note: Warning: decode_step in process 1368: 1 of 32 instances launch kernels one by one where the others launch a CUDA graph (instances 5): the decode fell back to eager launches there" a.tsv
'

test_expect_success 'warm-up work inside the window: the first step'"'"'s extra launch calls named' '
	# the eager decode (85 launch calls a step), its first step with each
	# cudaLaunchKernel made four: compilation-like work in the window
	A "FNR == 1 { n = csv(\$0, h); col(h, n, c); next }
		{ csv(\$0, x); if (x[c[\"Name\"]] == \":LLM@decode_step\" && ++i == 1) print x[c[\"Start (ns)\"]], x[c[\"End (ns)\"]] }" \
		"$G/e1_nvtx_pushpop_trace.csv" >win &&
	read s e <win &&
	awk -F, -v OFS=, -v s="$s" -v e="$e" "NR > 1 && \$3 ~ /^cudaLaunchKernel/ && \$1 >= s && \$1 < e {
		print; for (i = 1; i <= 3; i++) { \$1 += 1; print }; n++; next } { print } END { print n >\"n\" }" \
		"$G/e1_cuda_api_trace.csv" >api.csv &&
	audit "$G/e1_nvtx_pushpop_trace.csv" api.csv >a.tsv &&
	first=$((85 + 3 * $(cat n))) &&
	table a.tsv stage first_launches rest_launches_median | grep "^decode_step	" >row &&
	printf "decode_step\t%s\t85\n" $first >want && test_cmp want row &&
	test_grep "^# note: Warning: decode_step in process 2828: its first instance made $first launch calls against 85.0 in the others (median): warm-up or compilation work inside the measured window" a.tsv &&
	# the real captures: no such warning, fewer than three instances n/a
	audit "$G/e1_nvtx_pushpop_trace.csv" "$G/e1_cuda_api_trace.csv" >b.tsv &&
	! grep -q "Warning" b.tsv &&
	table b.tsv stage rest_launches_median | grep "^prefill	n/a because fewer than three instances$"
'

test_expect_success 'ranges around no launch (pushed by the parent, kernels in the child): refused, both named' '
	test_expect_code 1 audit "$G/s2_nvtx_pushpop_trace.csv" "$G/s2_cuda_api_trace.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-audit: $G/s2_cuda_api_trace.csv: stage prefill: no kernel launched inside its 1 instances (pushed by process 5652), while the capture holds those of processes 5685 (5687 launch calls): the stage.s ranges are not around the work" err
'

test_expect_success 'a rank without kernels beside one with them: refused, both named' '
	awk -F, -v OFS=, "NR > 1 { print; \$7 = \$8 = 9999; print; next } { print }" \
		"$G/g1_nvtx_pushpop_trace.csv" >two.csv &&
	test_expect_code 1 audit two.csv "$G/g1_cuda_api_trace.csv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-audit: $G/g1_cuda_api_trace.csv: stage prefill: process 9999 pushed its range and launched no kernel inside it, while process 1368 launched the stage.s kernels inside its own" err
'

test_expect_success 'without the CUDA API trace: instances, the rest n/a with the reason; without push/pop, omitted' '
	lp-audit -c "$TRASH/cfg.yaml" -p "$G/g1_nvtx_pushpop_trace.csv" >a.tsv &&
	table a.tsv stage instances launches | grep "^decode_step	32	n/a because the run has no cuda_api_trace$" &&
	lp-audit -c "$TRASH/cfg.yaml" >b.tsv &&
	test_grep "^# omit: the run has no nvtx_pushpop_trace" b.tsv
'

test_expect_success 'live: capture_audit.tsv made after the capture, in details.md; the brief waits for it; make -q' '
	U=$TRASH/u && mkdir -p "$U" && tar xzf "$FIX/h100-untraced2/exports.tar.gz" -C "$U" &&
	LP_FAKE_NSYS=$U/g LP_FAKE_NSYS_UNTRACED=$U/g_untraced LP_FAKE_NCU_CSV=$U/g_ncu_raw.csv \
		PATH=$ROOT/tests/fake:$PATH lpmake RUN=g "WORK=sh tests/fake/workload.sh" MODEL=torch-decoder \
		stakeholder_summary.md >out 2>&1 || { cat out; false; } &&
	test_grep "^## What the Capture Holds" "$S2/g/details.md" &&
	table "$S2/g/capture_audit.tsv" stage instances graph_launches | grep "^decode_step	32	32$" &&
	PATH=$ROOT/tests/fake:$PATH lpmake -q RUN=g stakeholder_summary.md &&
	rm "$S2/g/capture_audit.tsv" &&
	PATH=$ROOT/tests/fake:$PATH lpmake -n RUN=g stakeholder_summary.md >n.out &&
	grep -oE "^(LP_OUTPUT=[^ ]* exec )?[^ ]*/lp-[a-z]+" n.out | sed "s,.*/,," | sort >steps &&
	# the audit, the brief and the first answer'"'"'s, the pages
	printf "%s\n" lp-audit lp-brief lp-brief lp-summary lp-summary lp-summary >want && test_cmp want steps
'

test_expect_success 'live: a graphed decode with an eager step says so in the brief'"'"'s identity line' '
	U=$TRASH/u && mkdir -p v && cp "$U"/* v/ &&
	A "FNR == 1 { n = csv(\$0, h); col(h, n, c); next }
		{ csv(\$0, x); if (x[c[\"Name\"]] == \":LLM@decode_step\" && ++i == 5) print x[c[\"Start (ns)\"]], x[c[\"End (ns)\"]] }" \
		"$U/g_nvtx_pushpop_trace.csv" >win &&
	read s e <win &&
	awk -F, -v OFS=, -v s="$s" -v e="$e" "NR > 1 && \$3 ~ /^cudaGraphLaunch/ && \$1 >= s && \$1 < e {
		\$3 = \"cudaLaunchKernel_v7000\"; print; next } { print }" "$U/g_cuda_api_trace.csv" >v/g_cuda_api_trace.csv &&
	LP_FAKE_NSYS=$PWD/v/g LP_FAKE_NSYS_UNTRACED=$PWD/v/g_untraced LP_FAKE_NCU_CSV=$PWD/v/g_ncu_raw.csv \
		PATH=$ROOT/tests/fake:$PATH lpmake RUN=ge "WORK=sh tests/fake/workload.sh" MODEL=torch-decoder \
		stakeholder_summary.md >out 2>&1 || { cat out; false; } &&
	grep "^# identity:" "$S2/ge/brief.tsv" >&2 &&
	test_grep "^# identity: .*not counted here; partial capture: decode_step eager in 1 of 32 instances (process [0-9]*) (capture_audit.tsv)$" "$S2/ge/brief.tsv" &&
	test $(grep -c "partial capture" "$S2/ge/stakeholder_summary.md") = 1 &&
	! grep -q "partial capture" "$S2/g/brief.tsv"
'

test_done
