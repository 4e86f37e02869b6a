#!/usr/bin/env bash
# Two runs compared: kernels (lp-diff) and stages (lp-stagediff) on real
# captures of two configurations of one workload, every number recomputed
# by awk; a run against itself; the noise rule; the make rule.
. "$(dirname "$0")/lib.sh"

rows() {
	sed "/^#/d" "$1" | sed 1d
}
# awk with tests/csv.awk: awkc PROGRAM FILE...
awkc() {
	printf "%s\n" "$1" >"$TRASH/p.awk"
	shift
	awk -f "$ROOT/tests/csv.awk" -f "$TRASH/p.awk" "$@"
}

# The PyTorch decoder at its default shape (6 layers, 32 tokens) and at a
# small one (2 layers, 6 tokens, no warm-up generation), both on the H200.
test_expect_success 'setup: two imported runs of two sizes of one workload' '
	lpmake RUN=big "IMPORT=$(echo "$FIX"/h200-torch-live/torch_*.csv)" MODEL=torch-decoder \
		stakeholder_summary.md >/dev/null &&
	lpmake RUN=small "IMPORT=$(echo "$FIX"/h200-whole/torch_*.csv)" MODEL=torch-decoder \
		stakeholder_summary.md >/dev/null &&
	lpmake RUN=small BASE=big compare.md >/dev/null &&
	test -s "$S2/small/compare.md"
'

kdiff='
FNR == 1 { file++; h = 0 }
{ n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, a); h = 1 }; next }
	if (f[a["NVTX Range"]] != ":LLM@decode_all") next; k = f[a["Kernel Name"]]; seen[k] = 1
	t[file, k] += num(f[a["Total Time (ns)"]]); c[file, k] += num(f[a["Kern Inst"]]); tot[file] += num(f[a["Total Time (ns)"]]) }
END { for (k in seen) { d = t[2, k] - t[1, k]; st = (t[1, k] > 0 && t[2, k] > 0) ? "both" : (t[2, k] > 0 ? "appeared" : "vanished")
		printf "%.0f\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.4g\t%.0f\t%.0f\t%s\t%s\t%.4g\t%.4g\n", (d < 0 ? -d : d), k, st, t[1, k], t[2, k], d,
			100 * d / t[1, k], c[1, k], c[2, k], fmt("%.1f", t[1, k] / c[1, k]), fmt("%.1f", t[2, k] / c[2, k]),
			100 * t[1, k] / tot[1], 100 * t[2, k] / tot[2] } }'

test_expect_success 'kernels before and after, each number again by awk from nvtx_kern_sum' '
	awkc "$kdiff" "$FIX/h200-torch-live/torch_nvtx_kern_sum_mangled.csv" "$FIX/h200-whole/torch_nvtx_kern_sum_mangled.csv" |
		sort -t"	" -k1,1nr -k2,2 | sed -n 1,20p | cut -f2- >expect &&
	test -s expect &&
	sed "/^#/d" "$S2/small/compare.tsv" | awk -F"\t" "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
		{ print \$c[\"kernel\"] }" >names &&
	sed "/^#/d" "$S2/big/kernels.tsv" | awk -F"\t" "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
		{ print \$c[\"kernel\"] \"\t\" \$c[\"mangled\"] }" >map &&
	awk -F"\t" "NR == FNR { m[\$1] = \$2; next } { print m[\$1] }" map names >mangled &&
	rows "$S2/small/compare.tsv" | cut -f4-14 | g4 5 10 11 >vals &&
	paste mangled vals >got &&
	test_cmp expect got &&
	test_grep "^# source: .*matched on mangled names$" "$S2/small/compare.tsv"
'

sdiff='
FNR == 1 { file++; h = 0 }
file <= 2 { n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, a); h = 1 }; next }
	r = f[a["Range"]]; med[file, r] = sprintf("%.1f", num(f[a["Med (ns)"]])) + 0
	mean[file, r] = sprintf("%.1f", num(f[a["Total Time (ns)"]]) / num(f[a["Instances"]])) + 0; inst[file, r] = num(f[a["Instances"]])
	tt[file, r] = num(f[a["Total Time (ns)"]]); next }
{ n = csv($0, f); if (!h) { if ($0 ~ /Total Time/) { col(f, n, b); h = 1 }; next }
	r = f[b["NVTX Range"]]; if (r == "") next; kt[file - 2, r] += num(f[b["Total Time (ns)"]]); kl[file - 2, r] += num(f[b["Kern Inst"]]) }
function line(s, m, x, y) { printf "%s\t%s\t%.10g\t%.10g\t%.10g\t%.4g\n", s, m, x, y, y - x, y / x }
END { split("prefill decode_all decode_step", st, " ")
	for (i = 1; i <= 3; i++) { r = ":LLM@" st[i]
		line(st[i], "wall time, median", med[1, r], med[2, r]); line(st[i], "wall time, mean", mean[1, r], mean[2, r])
		x = sprintf("%.0f", kt[1, r]) / inst[1, r]; y = sprintf("%.0f", kt[2, r]) / inst[2, r]; line(st[i], "GPU kernel time / instance", x, y)
		x = 100 * kt[1, r] / tt[1, r]; y = 100 * kt[2, r] / tt[2, r]; line(st[i], "GPU busy", x, y)
		line(st[i], "launches / instance", kl[1, r] / inst[1, r], kl[2, r] / inst[2, r]) } }'

test_expect_success 'stages before and after, each number again by awk from nvtx_sum and nvtx_kern_sum' '
	L=$FIX/h200-torch-live/torch W=$FIX/h200-whole/torch &&
	awkc "$sdiff" ${L}_nvtx_sum.csv ${W}_nvtx_sum.csv ${L}_nvtx_kern_sum.csv ${W}_nvtx_kern_sum.csv >expect &&
	test -s expect &&
	rows "$S2/small/compare_stages.tsv" | grep -e "wall time" -e "GPU kernel time" -e "GPU busy" -e "launches" |
		grep -v "/ decode step" | cut -f1-6 | rnd "%.10g" 3 4 5 | g4 6 >got &&
	test_cmp expect got
'

# The small run's exports name its GPU in cuda_gpu_trace; without that
# report nothing does.
test_expect_success 'the runs differ in their GPU record: flagged first' '
	! grep -q "differ in: GPU" "$S2/small/compare_stages.tsv" &&
	lpmake RUN=nogpu "IMPORT=$(ls "$FIX"/h200-whole/torch_*.csv | grep -v _cuda_gpu_trace | tr "\n" " ")" \
		MODEL=torch-decoder BASE=big compare.md >/dev/null &&
	test_grep "^# note: The runs differ in: GPU (NVIDIA H200 before, unknown after)" "$S2/nogpu/compare_stages.tsv" &&
	sed -n "/^## Stages/,/^## /p" "$S2/nogpu/compare.md" | test_grep "^The runs differ in: GPU" &&
	sed -n "/^## Verdict/,/^## /p" "$S2/nogpu/compare.md" | test_grep "^1\. \*\*The runs differ in GPU"
'

# BASE is never the run itself (t0022): a second import of the same capture
# stands for it.
test_expect_success 'a run compared with the same capture shows no change' '
	lpmake RUN=big2 "IMPORT=$(echo "$FIX"/h200-torch-live/torch_*.csv)" MODEL=torch-decoder \
		BASE=big compare.md >/dev/null &&
	rows "$S2/big2/compare.tsv" | cut -f4,7,8 | sort -u >got &&
	printf "both\t0\t0\n" >expect && test_cmp expect got &&
	rows "$S2/big2/compare_stages.tsv" | awk -F"\t" "\$5 != \"n/a\" { print \$5, \$6 }" | sort -u >got &&
	echo "0 1" >expect && test_cmp expect got &&
	test_grep "^# note: GPU kernel time 8.315 ms before, 8.315 ms after (+0.000 ms, +0.0%); 0 kernels vanished, 0 appeared" "$S2/big2/compare.tsv"
'

# Hand-made run folders standing for two runs of a fused and an unfused
# build: decode steps of 2.0-2.2 ms before, 1.5-1.6 after (significant),
# or 1.9-2.1 after (within the spread).
test_expect_success 'the noise rule: a change within the instances spread is not significant' '
	for x in a b c; do mkdir -p $x && cp "$S2/big/"{env.json,inputs.yaml,gpu.tsv,mfu.tsv,mbu.tsv} $x/ || return 1; done &&
	h="stage\tinstances\twall_total_ns\twall_mean_ns\twall_median_ns\tkernel_ns\tlaunches\tbusy_pct" &&
	printf "# tool: lp-stages\n$h\ndecode_step\t10\t21000000\t2100000\t2100000\t5000000\t100\t23.8\n" >a/stages.tsv &&
	printf "# tool: lp-stages\n$h\ndecode_step\t10\t15500000\t1550000\t1550000\t4000000\t80\t25.8\n" >b/stages.tsv &&
	printf "# tool: lp-stages\n$h\ndecode_step\t10\t20000000\t2000000\t2000000\t5000000\t100\t25\n" >c/stages.tsv &&
	s="stage\tinstances\tfirst_ns\tsteady_ns\tsteady_min_ns\tsteady_max_ns\twarmup\ttokens_per_s" &&
	printf "# tool: lp-steps\n$s\ndecode_step\t10\t2100000\t2100000\t2000000\t2200000\tno\t476.2\n" >a/steps.tsv &&
	printf "# tool: lp-steps\n$s\ndecode_step\t10\t1550000\t1550000\t1500000\t1600000\tno\t645.2\n" >b/steps.tsv &&
	printf "# tool: lp-steps\n$s\ndecode_step\t10\t2000000\t2000000\t1900000\t2100000\tno\t500\n" >c/steps.tsv &&
	f="stages.tsv steps.tsv mfu.tsv mbu.tsv gpu.tsv env.json inputs.yaml" &&
	lp-stagediff $(for x in $f; do echo a/$x; done) $(for x in $f; do echo b/$x; done) >ab.tsv &&
	lp-stagediff $(for x in $f; do echo a/$x; done) $(for x in $f; do echo c/$x; done) >ac.tsv &&
	rows ab.tsv | grep "steady state" | cut -f3-7 | g4 4 >got &&
	printf "2100000\t1550000\t-550000\t0.7381\tyes: outside the spread of the instances\n" >expect && test_cmp expect got &&
	rows ac.tsv | grep "steady state" | cut -f7 >got &&
	echo "no: within the spread of the instances" >expect && test_cmp expect got &&
	rows ab.tsv | grep "launches" | cut -f7 >got &&
	echo "n/a (no spread: one figure a run)" >expect && test_cmp expect got
'

# As seen on two H200s: the fused build's steps 441-567 us, the unfused
# 490-569 us; one slow fused step makes the ranges overlap, the middle
# halves do not.
test_expect_success 'the noise rule on the middle halves: one slow step does not hide a change' '
	h="stage\tinstances\twall_total_ns\twall_mean_ns\twall_median_ns\tkernel_ns\tlaunches\tbusy_pct" &&
	for x in a b; do mkdir -p q$x && cp "$S2/big/"{env.json,inputs.yaml,gpu.tsv,mfu.tsv,mbu.tsv} q$x/ &&
		printf "# tool: lp-stages\n$h\ndecode_step\t16\t8000000\t500000\t500000\t5000000\t100\t50\n" >q$x/stages.tsv || return 1; done &&
	s="stage\tinstances\tfirst_ns\tsteady_ns\tsteady_min_ns\tsteady_max_ns\tsteady_p25_ns\tsteady_p75_ns\twarmup" &&
	printf "# tool: lp-steps\n$s\ndecode_step\t16\t7359257\t531216\t489857\t569131\t520000\t540000\tyes\n" >qa/steps.tsv &&
	printf "# tool: lp-steps\n$s\ndecode_step\t16\t6923375\t457890\t440916\t566764\t450000\t466000\tyes\n" >qb/steps.tsv &&
	f="stages.tsv steps.tsv mfu.tsv mbu.tsv gpu.tsv env.json inputs.yaml" &&
	lp-stagediff $(for x in $f; do echo qa/$x; done) $(for x in $f; do echo qb/$x; done) >lp.out && <lp.out awk -F"\t" "\$2 == \"steady state\" { print \$7 }" >got &&
	echo "yes: outside the spread of the instances" >expect && test_cmp expect got &&
	sed "s/\t450000\t466000\t/\t450000\t525000\t/" qb/steps.tsv >qb/s && mv qb/s qb/steps.tsv &&
	lp-stagediff $(for x in $f; do echo qa/$x; done) $(for x in $f; do echo qb/$x; done) >lp.out && <lp.out awk -F"\t" "\$2 == \"steady state\" { print \$7 }" >got &&
	echo "no: within the spread of the instances" >expect && test_cmp expect got
'

test_expect_success 'vanished and appeared kernels are named' '
	printf "rank\tkernel\ttotal_ns\tcalls\tmangled\n1\tsilu(float*)\t300\t10\t_Z4siluPf\n2\tmul(float*)\t200\t10\t_Z3mulPf\n3\tgemv\t1000\t10\tgemv\n" >before.tsv &&
	printf "rank\tkernel\ttotal_ns\tcalls\tmangled\n1\tsilu_mul(float*)\t350\t10\t_Z8silu_mulPf\n2\tgemv\t1000\t10\tgemv\n" >after.tsv &&
	lp-diff before.tsv after.tsv >d.tsv &&
	test_grep "^# note: Vanished (fused or no longer run): .silu(float\*)., .mul(float\*).\.$" d.tsv &&
	test_grep "^# note: Appeared: .silu_mul(float\*).\.$" d.tsv &&
	rows d.tsv | cut -f2,4,7 >got &&
	printf "silu_mul(float*)\tappeared\t350\nsilu(float*)\tvanished\t-300\nmul(float*)\tvanished\t-200\ngemv\tboth\t0\n" >expect &&
	test_cmp expect got
'

test_expect_success 'make: compare.md depends on both runs; re-running the base refreshes it only' '
	lpmake -q RUN=small BASE=big compare.md &&
	lpmake -q RUN=small compare.md &&
	touch "$S2/big/kernels.tsv" &&
	steps RUN=small compare.md >got &&
	printf "lp-diff\nlp-realized\nlp-summary\nlp-verdict\n" >expect && test_cmp expect got &&
	lpmake RUN=small compare.md >/dev/null &&
	touch "$S2/big/steps.tsv" &&
	steps RUN=small compare.md >got &&
	# the base steps: the stages compared, and the base findings'"'"' decode steps
	printf "lp-realized\nlp-stagediff\nlp-summary\nlp-verdict\n" >expect && test_cmp expect got &&
	lpmake RUN=small compare.md >/dev/null &&
	touch "$S2/big/findings.tsv" &&
	steps RUN=small compare.md >got &&
	printf "lp-realized\nlp-summary\n" >expect && test_cmp expect got &&
	lpmake RUN=small compare.md >/dev/null && lpmake -q RUN=small compare.md
'

test_expect_success 'a base run that was never made, or none at all, is said' '
	test_must_fail lpmake RUN=small BASE=nosuch compare.md >out 2>err &&
	test_grep "lp: run nosuch (BASE) has no [a-z]*.tsv: make RUN=nosuch stakeholder_summary.md first" err &&
	lpmake RUN=small BASE= stakeholder_summary.md >/dev/null &&
	rm "$S2/small/compare.md" &&
	test_must_fail lpmake RUN=small compare.md >out 2>err &&
	test_grep "compare with which run" err &&
	test_must_fail lpmake RUN=small "BASE=../x" compare.md >out 2>err &&
	test_grep "BASE=\"../x\": use letters" err
'

test_done
