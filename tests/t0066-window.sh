#!/usr/bin/env bash
# A capture window the workload opens (issue 39, item 3, and item 5's
# fixtures): the H100 run of tests/workloads/torch_decoder.py
# --profiler-api decode with SET=capture.window=cuda_profiler_api
# (tests/fixtures/h100-papi: the capture, the untraced run and ncu, each
# gated by the workload's cudaProfilerStart/Stop), replayed through the
# stand-in nsys and ncu.  prefill ran before the window: its stage says
# why it has no numbers; decode is measured as in any run, from the
# untraced window (recomputed here with awk from the push/pop traces).
. "$(dirname "$0")/lib.sh"

U=$TRASH/u
mkdir -p "$U" && tar xzf "$FIX/h100-papi/exports.tar.gz" -C "$U" || exit 1
export LP_FAKE_LOG=$TRASH/fake.log
live() {	# RUN [SET...]: the run made live from the window's exports
	r=$1 && shift &&
	LP_FAKE_NSYS=$U/pa LP_FAKE_NSYS_UNTRACED=$U/pa_untraced LP_FAKE_NCU_CSV=$U/pa_ncu_raw.csv \
		PATH=$ROOT/tests/fake:$PATH lpmake RUN=$r "WORK=sh tests/fake/workload.sh" MODEL=torch-decoder \
		"$@" stakeholder_summary.md >"$TRASH/$r.out" 2>&1 || { cat "$TRASH/$r.out"; return 1; }
}

test_expect_success 'the window through lp: every profiler gated by the workload, the brief made' '
	live w SET=capture.window=cuda_profiler_api &&
	test_grep -e "--capture-range=cudaProfilerApi --capture-range-end=stop" "$S2/w/nsys/profile.cmd" &&
	test_grep -e "--trace=nvtx .*--capture-range=cudaProfilerApi" "$S2/w/untraced/profile.cmd" &&
	test_grep -e "--profile-from-start off" "$S2/w/ncu/profile.cmd" &&
	test -s "$S2/w/stakeholder_summary.md" && make -q -C "$ROOT" LP_STAGE2_DIR="$S2" RUN=w stakeholder_summary.md
'

test_expect_success 'prefill outside the window says so; decode_step as the untraced window timed it' '
	table "$S2/w/stages.tsv" stage instances >inst &&
	grep "^prefill	n/a because the range is not in nvtx_sum: the workload.s capture window (cudaProfilerStart to cudaProfilerStop, capture.window) did not hold it$" inst &&
	! grep -q ":LLM@prefill" "$U/pa_nvtx_pushpop_trace.csv" &&
	A "FNR == 1 { n = csv(\$0, h); col(h, n, c); next }
		{ n = csv(\$0, x); if (x[c[\"Name\"]] == \":LLM@decode_step\") k++ } END { print k }" "$U/pa_nvtx_pushpop_trace.csv" >n &&
	test "$(cat n)" = 32 && grep "^decode_step	32$" inst &&
	# the steady step: the untraced instances after the first, their median
	A "FNR == 1 { n = csv(\$0, h); col(h, n, c); next }
		{ n = csv(\$0, x); if (x[c[\"Name\"]] == \":LLM@decode_step\") print x[c[\"End (ns)\"]] - x[c[\"Start (ns)\"]] }" \
		"$U/pa_untraced_nvtx_pushpop_trace.csv" | sed 1d | sort -n | awk "{ v[NR] = \$1 } END { printf \"%.1f\n\", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }" >want &&
	table "$S2/w/brief.tsv" steady_ns | awk "{ printf \"%.1f\n\", \$1 }" >got &&
	test_cmp want got &&
	table "$S2/w/capture_audit.tsv" stage instances | grep "^decode_step	32$"
'

test_expect_success 'the same exports without the setting: prefill missing is not blamed on a window' '
	live n &&
	table "$S2/n/stages.tsv" stage instances | grep "^prefill	" >p && cat p &&
	! grep -q "capture window" p &&
	! grep -q -e "--capture-range" "$S2/n/nsys/profile.cmd"
'

test_done
