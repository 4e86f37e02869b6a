#!/usr/bin/env bash
# The workload's numbers, not the capture's (issue 38, item 2): a live
# run's steps.tsv is the untraced timing run's, and the brief, the
# waterfall, MBU and MFU, findings and compare read it.  From real H100
# runs of tests/workloads/torch_decoder.py with lp's defaults
# (tests/fixtures/h100-untraced2, made by tests/gpu/t0010-untraced.sh):
# the graphed decode (g) and the eager one (e), each its traced capture's
# exports (node tracing, GPU Metrics), its untraced run's push/pop trace
# and its ncu export, replayed through the stand-in nsys and ncu.  Every
# number checked is recomputed here with awk from the two push/pop traces
# and the capture's kernel trace; each check fails on the code before,
# whose steps, busy, waterfall and savings were the traced capture's.
. "$(dirname "$0")/lib.sh"

# the exports, kept compressed in the repo (the device copies the tree)
U=$TRASH/u
mkdir -p "$U" && tar xzf "$FIX/h100-untraced2/exports.tar.gz" -C "$U" || exit 1
export LP_FAKE_LOG=$TRASH/fake.log
live() {	# RUN PREFIX: the run made live from the prefix's exports
	LP_FAKE_NSYS=$U/$2 LP_FAKE_NSYS_UNTRACED=$U/$2_untraced LP_FAKE_NCU_CSV=$U/$2_ncu_raw.csv \
		PATH=$ROOT/tests/fake:$PATH lpmake RUN=$1 "WORK=sh tests/fake/workload.sh" MODEL=torch-decoder \
		stakeholder_summary.md >"$TRASH/$1.out" 2>&1 || { cat "$TRASH/$1.out"; return 1; }
}

# med FILE RANGE: per instance of RANGE in a push/pop trace, End - Start;
# then, of those after the first, the median (the steady state), and the
# mean and count of them all
med() {
	A "FNR == 1 { n = csv(\$0, h); col(h, n, c); next }
		{ n = csv(\$0, x); if (x[c[\"Name\"]] == \"$2\") print x[c[\"End (ns)\"]] - x[c[\"Start (ns)\"]] }" "$1" |
		awk '{ v[NR] = $1; s += $1 } END { m = 0; for (i = 2; i <= NR; i++) w[++m] = v[i]
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (w[j] < w[i]) { t = w[i]; w[i] = w[j]; w[j] = t }
			printf "%.1f\t%.1f\t%d\n", m ? (m % 2 ? w[(m + 1) / 2] : (w[m / 2] + w[m / 2 + 1]) / 2) : v[1], s / NR, NR }'
}

test_expect_success 'live graphed and eager decodes: steps.tsv is the untraced run'"'"'s, the brief'"'"'s step is its median' '
	live g g && live e e &&
	for p in g e; do
		med "$U/${p}_untraced_nvtx_pushpop_trace.csv" :LLM@decode_step >u &&
		med "$U/${p}_nvtx_pushpop_trace.csv" :LLM@decode_step >t &&
		# the untraced step is not the traced one: the check can fail
		awk -F"\t" "NR == FNR { a = \$1; next } { exit !(\$1 > 1.2 * a) }" u t &&
		table "$S2/$p/steps.tsv" stage steady_ns | awk -F"\t" "\$1 == \"decode_step\" { printf \"%.1f\n\", \$2 }" >got &&
		cut -f1 u >want && test_cmp want got &&
		table "$S2/$p/brief.tsv" steady_ns | awk "{ printf \"%.1f\n\", \$1 }" >got &&
		test_cmp want got &&
		# MBU and MFU of the steady step: the same step
		table "$S2/$p/mbu.tsv" stage steady_ns | awk -F"\t" "\$1 == \"decode_step\" { printf \"%.1f\n\", \$2 }" >got &&
		test_cmp want got &&
		table "$S2/$p/mfu.tsv" stage steady_ns | awk -F"\t" "\$1 == \"decode_step\" { printf \"%.1f\n\", \$2 }" >got &&
		test_cmp want got &&
		test_grep "^# timing: untraced$" "$S2/$p/steps.tsv" || return 1
	done
'

test_expect_success 'GPU busy: the capture'"'"'s kernel time over the untraced wall time' '
	for p in g e; do
		# decode_all: one instance; its kernels from stages.tsv (the capture)
		med "$U/${p}_untraced_nvtx_pushpop_trace.csv" :LLM@decode_all >u &&
		k=$(table "$S2/$p/stages.tsv" stage kernel_ns | awk -F"\t" "\$1 == \"decode_all\" { print \$2 }") &&
		awk -F"\t" -v k="$k" "{ printf \"%.6g\n\", 100 * k / (\$2 * \$3) }" u >want &&
		table "$S2/$p/brief.tsv" busy_pct | awk "{ printf \"%.6g\n\", \$1 }" >got &&
		test_cmp want got &&
		# and not the traced stage'"'"'s
		table "$S2/$p/stages.tsv" stage busy_pct | awk -F"\t" "\$1 == \"decode_all\" { printf \"%.6g\n\", \$2 }" >traced &&
		! test_cmp want traced >/dev/null || return 1
	done
'

test_expect_success 'waterfall: the parts add up to the untraced step; the overhead beside them, never idle' '
	for p in g e; do
		w=$S2/$p/waterfall.tsv &&
		med "$U/${p}_untraced_nvtx_pushpop_trace.csv" :LLM@decode_step | cut -f1 >un &&
		med "$U/${p}_nvtx_pushpop_trace.csv" :LLM@decode_step | cut -f1 >tr &&
		table "$w" part decode_step_ns >rows &&
		awk -F"\t" "\$1 == \"Measured step\" { printf \"%.1f\n\", \$2 }" rows >got && test_cmp un got &&
		# the parts (all rows but the step) sum to it
		awk -F"\t" "\$1 != \"Measured step\" && \$2 != \"-\" { s += \$2 } END { printf \"%.0f\n\", s }" rows >sum &&
		awk "{ printf \"%.0f\n\", \$1 }" un >want && test_cmp want sum &&
		# the idle parts are the untraced step less the kernels (hostside)
		k=$(table "$S2/$p/hostside.tsv" stage kernel_per_inst_ns | awk -F"\t" "\$1 == \"decode_step:steady\" { print \$2 }") &&
		awk -F"\t" "\$1 ~ /^GPU idle/ { s += \$2 } END { printf \"%.0f\n\", s }" rows >idle &&
		awk -v k="$k" "{ printf \"%.0f\n\", \$1 - k }" un >want && test_cmp want idle &&
		# the overhead stated beside: traced - untraced, in ms
		paste tr un | awk -F"\t" "{ printf \"decode_step %+.3f ms (%.3f ms traced, %.3f ms untraced)\n\", (\$1 - \$2) / 1e6, \$1 / 1e6, \$2 / 1e6 }" >want &&
		grep "^# note: Capture overhead, beside the parts and not in them: " "$w" | grep -o "decode_step [^)]*)" >got &&
		test_cmp want got || return 1
	done
'

test_expect_success 'findings: no saving out of the capture'"'"'s time; graph-bound says the launch times are traced' '
	for p in g e; do
		f=$S2/$p/findings.tsv &&
		med "$U/${p}_untraced_nvtx_pushpop_trace.csv" :LLM@decode_step | cut -f1 >un &&
		k=$(table "$S2/$p/hostside.tsv" stage kernel_per_inst_ns | awk -F"\t" "\$1 == \"decode_step:steady\" { print \$2 }") &&
		idle=$(awk -v k="$k" "{ print \$1 - k }" un) &&
		# per decode step, the host findings together: at most the untraced idle
		table "$f" rule step per_step_ns | awk -F"\t" -v i="$idle" "\$2 == \"decode step\" && \$1 ~ /bound|sync|loading/ { s += \$3 }
			END { printf \"%s %s\n\", s, i; exit !(s > 0 && s <= i + 1) }" || return 1
	done &&
	table "$S2/g/findings.tsv" rule finding evidence next_step | grep "^graph-bound	" >gb &&
	test_grep "between replays the GPU idles [0-9.]* ms a steady step untraced (steps.tsv); in the traced capture, which lengthens them" gb &&
	test_grep "The host times here are the traced capture.s, which added 0.176 ms to the steady instance (untraced.tsv)" gb &&
	test_grep "The step here is timed untraced (steps.tsv)" gb &&
	! grep -q "make RUN=x alone.tsv" gb &&
	# the idle it names is the untraced one
	med "$U/g_untraced_nvtx_pushpop_trace.csv" :LLM@decode_step | cut -f1 >un &&
	k=$(table "$S2/g/hostside.tsv" stage kernel_per_inst_ns | awk -F"\t" "\$1 == \"decode_step:steady\" { print \$2 }") &&
	awk -v k="$k" "{ printf \"idles %.3f ms\n\", (\$1 - k) / 1e6 }" un >want &&
	grep -o "idles [0-9.]* ms" gb >got && test_cmp want got
'

test_expect_success 'compare: two live runs compare untraced steps; a live run against an import is refused' '
	PATH=$ROOT/tests/fake:$PATH lpmake RUN=g BASE=e compare.md >out 2>&1 || { cat out; false; } &&
	test_grep "^# timing: untraced" "$S2/g/compare_stages.tsv" &&
	med "$U/e_untraced_nvtx_pushpop_trace.csv" :LLM@decode_step | cut -f1 >e &&
	med "$U/g_untraced_nvtx_pushpop_trace.csv" :LLM@decode_step | cut -f1 >g &&
	paste g e | awk -F"\t" "{ printf \"%.6g\n\", \$1 / \$2 }" >want &&
	table "$S2/g/compare_stages.tsv" stage metric ratio | awk -F"\t" "\$1 == \"decode_step\" && \$2 == \"steady state\" { printf \"%.6g\n\", \$3 }" >got &&
	test_cmp want got &&
	lpmake RUN=imp "IMPORT=$(echo "$FIX"/h200-torch-v2/torch_*.csv)" MODEL=torch-decoder stakeholder_summary.md >out 2>&1 &&
	test_must_fail lpmake RUN=g BASE=imp compare.md >out 2>err &&
	test_grep "^lp-stagediff: cannot compare: the steps of $S2/imp/steps.tsv are traced (an import: the capture.s overhead included), those of $S2/g/steps.tsv untraced (a live run); the capture.s overhead would read as a change" err &&
	! test -e "$S2/g/compare_stages.tsv.tmp" &&
	test_must_fail lpmake RUN=g BASE=imp check-regression >out 2>err &&
	test_grep "^lp-stagediff: cannot compare: " err
'

test_done
