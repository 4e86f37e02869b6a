#!/usr/bin/env bash
# compare.md states only what ran: kernels matched on demangled names when
# a run has no mangled ones, BASE a prerequisite, runs that differ flagged
# above the first table, decode_all compared per decode step, an absent
# kernel's share "n/a because", the verdict that opens compare.md, and the
# CI gate (make check-regression, lp-diff -r, lp-stagediff -r).  All on
# real H200 captures: h200-fusion (tinyllm unfused and fused, 16 decode
# steps), h200-whole (tinyllm at 2 layers, 6 decode steps), h200-torch-live.
. "$(dirname "$0")/lib.sh"

rows() {
	sed "/^#/d" "$1" | sed 1d
}
# column NAME of a TSV table, by header name
colof() {
	sed "/^#/d" "$2" | awk -F"\t" -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }'
}
awkc() {
	printf "%s\n" "$1" >"$TRASH/p.awk"
	shift
	awk -f "$ROOT/tests/csv.awk" -f "$TRASH/p.awk" "$@"
}
F=$FIX/h200-fusion

# The same capture imported twice: with the *_mangled exports (as lp's own
# runs have them) and without (as a user exporting only the default
# reports has it); the same for a PyTorch run, whose template kernels
# nsys abbreviates.
test_expect_success 'setup: real runs, with and without mangled names' '
	lpmake RUN=m "IMPORT=$(echo "$F"/fus_*.csv)" MODEL=tinyllm stakeholder_summary.md >/dev/null &&
	lpmake RUN=d "IMPORT=$(ls "$F"/fus_*.csv | grep -v _mangled | tr "\n" " ")" MODEL=tinyllm \
		stakeholder_summary.md >/dev/null &&
	lpmake RUN=unf "IMPORT=$(echo "$F"/unf_*.csv)" MODEL=tinyllm stakeholder_summary.md >/dev/null &&
	lpmake RUN=w "IMPORT=$(ls "$FIX"/h200-whole/tinyllm_*.csv | grep -v _cuda_gpu_trace | tr "\n" " ")" MODEL=tinyllm \
		stakeholder_summary.md >/dev/null &&
	T=$FIX/h200-torch-live &&
	lpmake RUN=tm "IMPORT=$(echo "$T"/torch_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null &&
	lpmake RUN=td "IMPORT=$(ls "$T"/torch_*.csv | grep -v _mangled | tr "\n" " ")" MODEL=torch-decoder \
		stakeholder_summary.md >/dev/null &&
	test -z "$(colof mangled "$S2/d/kernels.tsv" | sort -u)" &&
	test -n "$(colof mangled "$S2/m/kernels.tsv" | sort -u)"
'

test_expect_success 'one capture with and without mangled names: no kernel vanished or appeared' '
	for p in d:m m:d td:tm tm:td; do
		a=${p%:*} b=${p#*:} &&
		lpmake RUN=$a BASE=$b compare.md >/dev/null &&
		colof status "$S2/$a/compare.tsv" | sort -u >got &&
		echo both >expect && test_cmp expect got &&
		colof change_ns "$S2/$a/compare.tsv" | sort -u >got &&
		echo 0 >expect && test_cmp expect got &&
		n=$(rows "$S2/$a/kernels.tsv" | wc -l) && [ $n -gt 20 ] && n=20
		test $(rows "$S2/$a/compare.tsv" | wc -l) = $n &&
		test_grep "^# note: .* 0 kernels vanished, 0 appeared" "$S2/$a/compare.tsv" &&
		test_grep "^# source: .*matched on demangled names (the [a-z]* run has no mangled name" "$S2/$a/compare.tsv" &&
		test_grep "No kernel vanished or appeared; kernels matched on demangled names" "$S2/$a/compare.md" &&
		! grep -e vanished -e appeared "$S2/$a/compare.tsv" | grep -v "^# note: GPU kernel time" || return 1
	done
'

test_expect_success 'switching BASE re-makes the comparison: make -q false, then true' '
	lpmake RUN=d BASE=m compare.md >/dev/null &&
	lpmake -q RUN=d compare.md &&
	lpmake RUN=d BASE=unf compare.md >/dev/null &&
	head -n 1 "$S2/d/compare.md" >got && echo "# Run d against run unf" >expect && test_cmp expect got &&
	test_must_fail lpmake -q RUN=d BASE=m compare.md &&
	lpmake RUN=d BASE=m compare.md >/dev/null &&
	head -n 1 "$S2/d/compare.md" >got && echo "# Run d against run m" >expect && test_cmp expect got &&
	colof status "$S2/d/compare.tsv" | sort -u >got && echo both >expect && test_cmp expect got &&
	lpmake -q RUN=d compare.md
'

# decode steps = decode_step instances / decode_all instances, from nvtx_sum
steps='
{ n = csv($0, f); if (FNR == 1) { col(f, n, a); next } i[FILENAME, f[a["Range"]]] = num(f[a["Instances"]])
	t[FILENAME, f[a["Range"]]] = num(f[a["Total Time (ns)"]]) }
END { for (k in i) { split(k, p, SUBSEP); if (p[2] ~ /decode_step$/) s[p[1]] = i[k] / i[p[1], substr(p[2], 1, length(p[2]) - 4) "all"] }
	print s[ARGV[1]] "\t" s[ARGV[2]] }'

# w: an import without cuda_gpu_trace, the one report that would name its GPU
test_expect_success 'runs that differ (GPU record, decode steps) are flagged above the first table' '
	lpmake RUN=w BASE=m compare.md >/dev/null &&
	awkc "$steps" "$F/fus_nvtx_sum.csv" "$FIX/h200-whole/tinyllm_nvtx_sum.csv" >st &&
	read x y <st && test "$x" != "$y" &&
	test_grep "^# differ: decode steps in the trace	$x	$y$" "$S2/w/compare_stages.tsv" &&
	test_grep "^# differ: GPU	NVIDIA H200	unknown$" "$S2/w/compare_stages.tsv" &&
	flag=$(grep -n "The runs differ in GPU (NVIDIA H200 before, unknown after); decode steps in the trace ($x before, $y after)" \
		"$S2/w/compare.md" | cut -d: -f1) &&
	table=$(grep -n -m 1 "^|" "$S2/w/compare.md" | cut -d: -f1) &&
	test -n "$flag" && test -n "$table" && test "$flag" -lt "$table" &&
	lpmake RUN=d BASE=m compare.md >/dev/null &&
	! grep "differ" "$S2/d/compare_stages.tsv" && ! grep "The runs differ" "$S2/d/compare.md"
'

perstep='
FNR == 1 { file++; h = 0 }
file <= 2 { n = csv($0, f); if (FNR == 1) { col(f, n, a); next }
	r = f[a["Range"]]; inst[file, r] = num(f[a["Instances"]]); tot[file, r] = num(f[a["Total Time (ns)"]]); next }
{ n = csv($0, f); if (FNR == 1) { col(f, n, b); next }
	if (f[b["NVTX Range"]] != "LLM:decode_all") next; kt[file - 2] += num(f[b["Total Time (ns)"]]); kl[file - 2] += num(f[b["Kern Inst"]]) }
function line(m, x, y) { printf "decode_all\t%s\t%.10g\t%.10g\t%.10g\t%.4g\n", m, x, y, y - x, y / x }
END { for (i = 1; i <= 2; i++) { s[i] = inst[i, "LLM:decode_step"] / inst[i, "LLM:decode_all"]; m[i] = sprintf("%.1f", tot[i, "LLM:decode_all"] / inst[i, "LLM:decode_all"]) + 0 }
	line("wall time / decode step", m[1] / s[1], m[2] / s[2])
	line("GPU kernel time / decode step", kt[1] / inst[1, "LLM:decode_all"] / s[1], kt[2] / inst[2, "LLM:decode_all"] / s[2])
	line("launches / decode step", kl[1] / inst[1, "LLM:decode_all"] / s[1], kl[2] / inst[2, "LLM:decode_all"] / s[2]) }'

test_expect_success 'decode_all is compared per decode step, each number again by awk from nvtx_sum and nvtx_kern_sum' '
	W=$FIX/h200-whole/tinyllm &&
	awkc "$perstep" "$F/fus_nvtx_sum.csv" ${W}_nvtx_sum.csv "$F/fus_nvtx_kern_sum.csv" ${W}_nvtx_kern_sum.csv >expect &&
	rows "$S2/w/compare_stages.tsv" | grep "/ decode step" | cut -f1-6 | g4 6 >got &&
	test_cmp expect got &&
	test_grep "decode_all wall time / decode step .*, 3.09x slower" "$S2/w/compare.md"
'

test_expect_success 'the share of a kernel a run lacks is n/a because, never 0' '
	lpmake RUN=m BASE=unf compare.md >/dev/null &&
	sed "/^#/d" "$S2/m/compare.tsv" | awk -F"\t" "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
		\$c[\"status\"] == \"vanished\" { print \$c[\"after_share_pct\"] } \$c[\"status\"] == \"appeared\" { print \$c[\"before_share_pct\"] }" |
		sort | uniq -c | sed "s/^ *//" >got &&
	printf "4 n/a because not in the after run\n2 n/a because not in the before run\n" >expect &&
	test_cmp expect got
'

# The kernels of decode_all in one capture only (by mangled name), their
# short names (the demangled name up to its parameters) and launches,
# largest first.
gone='
FNR == 1 { file++ }
{ n = csv($0, f); if (FNR == 1) { col(f, n, a); next } if (f[a["NVTX Range"]] != "LLM:decode_all") next
	k = f[a["Kernel Name"]]; in_[file, k] = 1; seen[k] = 1; t[file, k] += num(f[a["Total Time (ns)"]]); c[file, k] += num(f[a["Kern Inst"]]) }
END { for (k in seen) {
		if (in_[1, k] && !in_[2, k]) print "v", t[1, k], c[1, k], k; else if (in_[2, k] && !in_[1, k]) print "a", t[2, k], c[2, k], k } }'

test_expect_success 'the verdict opens compare.md: vanished and appeared kernels by short name with launches, from nvtx_kern_sum' '
	awkc "$gone" "$F/unf_nvtx_kern_sum.csv" "$F/fus_nvtx_kern_sum.csv" | sort -k1,1r -k2,2nr >g &&
	test -s g &&
	for s in v a; do
		grep "^$s " g | awk "{ n = \$4; sub(/\\(.*/, \"\", n); printf \"%s\`%s\` (%d launches)\", (NR > 1 ? \", \" : \"\"), n, \$3 } END { print \"\" }" || return 1
	done >lists &&
	nv=$(grep -c "^v " g) && na=$(grep -c "^a " g) &&
	{ echo "$nv kernels vanished (in the before run only: fused, renamed or no longer run): $(sed -n 1p lists)." &&
	  echo "$na kernels appeared (in the after run only): $(sed -n 2p lists)."; } >expect &&
	grep -o "[0-9]* kernels [a-z]* (in the .*)\.\*\*" "$S2/m/compare.md" | sed "s/\*\*$//" >got &&
	test_cmp expect got &&
	sed -n "/^## /p" "$S2/m/compare.md" >got &&
	printf "## Verdict\n## Where the Step'"'"'s Time Moved\n## Predicted and Realized\n## Stages, Before and After\n## Kernels, Before and After\n" >expect && test_cmp expect got
'

test_expect_success 'the verdict: each stage in one sentence with its significance and where the time went' '
	rows "$S2/m/compare_stages.tsv" | awk -F"\t" "\$1 == \"decode_step\" && \$2 == \"steady state\" {
		printf \"decode_step steady state %.2f us -> %.2f us, %.3gx faster, significant (outside the spread of the instances)\n\", \$3 / 1e3, \$4 / 1e3, \$3 / \$4 }
		\$1 == \"decode_step\" && \$2 == \"GPU kernel time / instance\" { k = 100 * (\$4 / \$3 - 1) } END { printf \"(%+.0f %%): the speed-up is on the host\n\", k }" >expect &&
	test $(wc -l <expect) = 2 &&
	cp expect expect.md &&
	while IFS= read -r l; do grep -F -- "$l" "$S2/m/compare.md" >/dev/null || { echo "missing: $l"; return 1; }; done <expect.md
'

test_expect_success 'check-regression: fails naming the stage that got significantly slower; passes the other way or above the change' '
	lpmake RUN=unf BASE=m compare.md >/dev/null &&
	test_must_fail lpmake RUN=unf check-regression >out 2>err &&
	rows "$S2/unf/compare_stages.tsv" | awk -F"\t" "\$1 == \"decode_step\" && \$2 == \"steady state\" {
		printf \"lp-stagediff: regression: decode_step steady state %.2f us -> %.2f us (%+.1f %%, more than 5 %%), outside the spread of the instances\n\",
		\$3 / 1e3, \$4 / 1e3, 100 * (\$4 / \$3 - 1) }" >expect &&
	grep "^lp-stagediff: regression" err >got && test_cmp expect got &&
	test_grep "^lp: run unf regressed against run m (REGRESSION=5 %)" err &&
	lpmake RUN=unf REGRESSION=40 check-regression >out 2>err &&
	test_grep "^lp: run unf against run m: no regression beyond 40 %" out &&
	lpmake RUN=m BASE=unf check-regression >out 2>err &&
	test_grep "no regression beyond 5 %" out &&
	test_must_fail lpmake RUN=m REGRESSION=5x check-regression 2>err &&
	test_grep "REGRESSION=\"5x\": use a percentage" err
'

# each decode_all kernel that the gate fails, both runs from nvtx_kern_sum:
# mean per launch up by more than lim %, the two runs' mean +- one standard
# deviation of the launches apart, and the extra time over 1 % of the
# after run's kernel time
means='
FNR == 1 { file++ }
{ n = csv($0, f); if (FNR == 1) { col(f, n, a); next } if (f[a["NVTX Range"]] != "LLM:decode_all") next
	k = f[a["Kernel Name"]]; seen[k] = 1; tt = num(f[a["Total Time (ns)"]]); cc = num(f[a["Kern Inst"]]); sd = num(f[a["StdDev (ns)"]])
	t[file, k] += tt; c[file, k] += cc; ss[file, k] += (cc - 1) * sd * sd + (cc ? tt * tt / cc : 0); all[file] += tt }
function sdv(i, k,    m, v) { m = t[i, k] / c[i, k]; if (c[i, k] < 2) return -1; v = (ss[i, k] - c[i, k] * m * m) / (c[i, k] - 1); return v > 0 ? sqrt(v) : 0 }
END { for (k in seen) if (c[1, k] && c[2, k]) { m0 = t[1, k] / c[1, k]; m1 = t[2, k] / c[2, k]
	if (!(m1 > m0 * (1 + lim / 100)) || sdv(1, k) < 0 || sdv(2, k) < 0 || m1 - sdv(2, k) <= m0 + sdv(1, k) || !((m1 - m0) * c[2, k] > 0.01 * all[2])) continue
	n = k; match(n, /^[^<(]*/); n = substr(n, 1, RLENGTH); sub(/.* /, "", n); print n } }'

test_expect_success 'lp-diff -r: the top kernels slower per launch by more than the threshold, from nvtx_kern_sum' '
	awkc "$means" -v lim=20 "$FIX/h200-whole/tinyllm_nvtx_kern_sum.csv" "$F/fus_nvtx_kern_sum.csv" | sort >expect &&
	test -s expect &&
	test_expect_code 3 lp-diff -r 20 "$S2/w/kernels.tsv" "$S2/m/kernels.tsv" >out 2>err &&
	sed -n "s/^lp-diff: regression: kernel \([^:]*\): .*more than 20 %.*/\1/p" err | sed "s/.*:://" | sort >got &&
	test_cmp expect got &&
	lp-diff "$S2/w/kernels.tsv" "$S2/m/kernels.tsv" >plain && test_cmp plain out &&
	lp-diff -r 40 "$S2/w/kernels.tsv" "$S2/m/kernels.tsv" >/dev/null 2>err &&
	test_grep "^lp-diff: no regression" err
'

test_expect_success 'lp-stagediff takes its files as operands, each checked for what it is' '
	f="stages.tsv steps.tsv mfu.tsv mbu.tsv gpu.tsv env.json inputs.yaml" &&
	lp-stagediff $(for x in $f; do echo "$S2/unf/$x"; done) $(for x in $f; do echo "$S2/m/$x"; done) >got &&
	sed "/^# source:/d" got >a && sed "/^# source:/d" "$S2/m/compare_stages.tsv" >b && test_cmp b a &&
	test_expect_code 3 lp-stagediff -r 5 $(for x in $f; do echo "$S2/m/$x"; done) $(for x in $f; do echo "$S2/unf/$x"; done) >/dev/null 2>err &&
	test_grep "^lp-stagediff: regression: decode_step steady state" err &&
	test_must_fail lp-stagediff $(for x in stages.tsv steps.tsv mbu.tsv mfu.tsv gpu.tsv env.json inputs.yaml; do echo "$S2/m/$x"; done) \
		$(for x in $f; do echo "$S2/m/$x"; done) >out 2>err &&
	test_grep "mbu.tsv:.*not a table of lp-mfu" err && test_must_be_empty out &&
	test_expect_code 2 lp-stagediff "$S2/m" "$S2/unf" 2>err && test_grep "^usage: lp-stagediff" err
'

test_done
