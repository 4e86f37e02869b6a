#!/usr/bin/env bash
# The brief (issue 29): stakeholder_summary.md is the verdict, the key
# numbers, each step against its physical floor and the top three
# findings; the old report is details.md.  Every number of brief.tsv and
# waterfall.tsv is recomputed here with awk from the nsys exports and the
# model config alone, on the H200 torch_decoder capture (the demo: no
# cuda_api_trace) and the H100 Llama capture with its host-side traces
# (tests/fixtures/h100-hostside).
. "$(dirname "$0")/lib.sh"

V2=$FIX/h200-torch-v2
HS=$FIX/h100-hostside

# The steady step of decode_step (the median instance after the first),
# its instances and the kernel time of the stages, from the exports:
# "step inst kern_decode_step wall_decode_all kern_decode_all prefill_wall
# prefill_kern"
recompute='
FNR == 1 { file++; n = csv($0, f); delete h; col(f, n, h); next }
file == 1 { csv($0, f)
	if (f[h["Name"]] == ":LLM@decode_step") d[++nd] = f[h["Duration (ns)"]] + 0
	if (f[h["Name"]] == ":LLM@decode_all") wall_all += f[h["Duration (ns)"]]
	if (f[h["Name"]] == ":LLM@prefill") pre += f[h["Duration (ns)"]]; next }
file == 2 { csv($0, f); r = f[h["NVTX Range"]]; sub(/^:/, "", r)
	k[r] += f[h["Total Time (ns)"]]; next }
END {
	for (i = 2; i <= nd; i++) v[i - 1] = d[i]
	m = nd - 1
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	med = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	printf "%.1f %d %.0f %.0f %.0f %.0f %.0f\n", med, nd, k["LLM@decode_step"], wall_all, k["LLM@decode_all"], pre, k["LLM@prefill"]
}'

# A waterfall.tsv row's cell: cell FILE PART COLUMN
cell() {
	awk -F"\t" -v p="$2" -v c="$3" '/^#/ { next } !h { for (i = 1; i <= NF; i++) ix[$i] = i; h = 1; next }
		$1 == p { print $ix[c] }' "$1"
}

test_expect_success 'demo capture: the brief is the verdict, key numbers, waterfall and three findings' '
	lpmake RUN=b "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null &&
	r=$S2/b &&
	A "$recompute" "$V2/torch_nvtx_pushpop_trace.csv" "$V2/torch_nvtx_kern_sum.csv" >"$TRASH/ref" &&
	read step inst kstep wall kall pre kpre <"$TRASH/ref" &&
	# the title: what bounds the steady step, its idle parts over the
	# step (waterfall.tsv), at least 60 % (brief.bound_pct): host-bound
	idle=$(awk -F"\t" "/^#/ { next } !h { for (i = 1; i <= NF; i++) ix[\$i] = i; h = 1; next }
		\$ix[\"kind\"] == \"idle\" { t += \$ix[\"decode_step_ns\"] } END { printf \"%.1f\", 100 * t / $step }" "$r/waterfall.tsv") &&
	awk -v i="$idle" "BEGIN { exit !(i >= 60) }" &&
	echo "# decode_all is host-bound: the GPU idles ${idle}% of a decode_step (bound.tsv)" >expect &&
	head -1 "$r/stakeholder_summary.md" >got &&
	test_cmp expect got &&
	# GPU busy, a key number: decode_all kernel time over its wall time
	busy=$(awk -v k="$kall" -v w="$wall" "BEGIN { printf \"%.4f\", 100 * k / w }") &&
	table "$r/brief.tsv" busy_pct | awk "{ printf \"%.4f\n\", \$1 }" >got &&
	echo "$busy" >expect && test_cmp expect got &&
	test_grep "^torch-decoder on NVIDIA H200, decode_all, imported exports, whose numbers include the capture.s overhead. From .brief.tsv.. See " "$r/stakeholder_summary.md" &&
	# the top kernel under the key numbers, by the name every table gives it
	test_grep "^Top kernel: .nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_bias_TNT., latency / under-filled, 20.4% of the kernel time.$" "$r/stakeholder_summary.md" &&
	# the key numbers, the waterfall as a picture, the findings (a list of 3)
	test $(grep -c "^|---\|^|:--" "$r/stakeholder_summary.md") = 1 &&
	# its alt text what it shows: each step by kind of part, in ms
	sed -n "s/^# alt: //p" "$r/waterfall.tsv" | sed "s/.s time/\&apos;s time/" >alt &&
	test_grep "^Where each step&apos;s time goes: decode_step $(awk -v s="$step" "BEGIN { printf \"%.3f\", s / 1e6 }") ms: floor " alt &&
	test_grep "^<img src=\"waterfall.svg\" alt=\"$(cat alt)\" width=\"880\">$" "$r/stakeholder_summary.md" &&
	xmllint --noout "$r/waterfall.svg" &&
	test $(grep -c "^[0-9]\. \*\*" "$r/stakeholder_summary.md") = 3 &&
	test_grep "See \[details.md\](details.md), \[kernels.md\](kernels.md)" "$r/stakeholder_summary.md" &&
	test -s "$r/details.md" && test_grep "^## Per-Stage Timings" "$r/details.md" &&
	# the key numbers: the steady step as the trace gives it
	table "$r/brief.tsv" steady_ns first_over_steady | awk -F"\t" "{ printf \"%.1f\t%.2f\n\", \$1, \$2 }" >got &&
	awk -v s="$step" -v f="$(awk -F, "\$6 == \":LLM@decode_step\" { print \$3; exit }" "$V2/torch_nvtx_pushpop_trace.csv")" \
		"BEGIN { printf \"%.1f\t%.2f\n\", s, f / s }" >expect &&
	test_cmp expect got
'

test_expect_success 'demo capture: the waterfall adds up to the step, its floor and kernels from the exports' '
	r=$S2/b &&
	read step inst kstep wall kall pre kpre <"$TRASH/ref" &&
	test "$(cell "$r/waterfall.tsv" "Measured step" decode_step_ns)" = "$step" &&
	# the parts after the step add up to it (within 2 %)
	awk -F"\t" -v s="$step" "/^#/ { next } !h { h = 1; next } \$1 != \"Measured step\" && \$2 != \"-\" { t += \$2 }
		END { d = (t - s) / s; if (d < 0) d = -d; if (d > 0.02) { print t, s; exit 1 } }" "$r/waterfall.tsv" &&
	# the floor: weights N x 2 bytes and the mean KV cache 2 L B d 2 (P + (T+1)/2), at 4.8 TB/s
	i=$r/inputs.yaml &&
	N=$(lp-confget model.params "$i") L=$(lp-confget model.layers "$i") d=$(lp-confget model.hidden "$i") &&
	P=$(lp-confget model.prompt_tokens "$i") T=$(lp-confget model.decode_tokens "$i") &&
	awk -v N="$N" -v L="$L" -v d="$d" -v P="$P" -v T="$T" \
		"BEGIN { printf \"%.1f\n\", (2 * N + 2 * L * d * 2 * (P + (T + 1) / 2)) / 4.8e12 * 1e9 }" >expect &&
	cell "$r/waterfall.tsv" "Floor: the step'"'"'s bytes or FLOPs at the GPU'"'"'s peak" decode_step_ns >got &&
	test_cmp expect got &&
	# kernels (floor and above) = decode_step kernel time / instances; the idle is the rest
	awk -F"\t" -v k="$kstep" -v n="$inst" "/^#/ { next } !h { h = 1; next }
		\$1 ~ /Floor|kernels/ && \$2 != \"-\" { t += \$2 }
		END { d = t - k / n; if (d < 0) d = -d; if (d > 0.5) { print t, k / n; exit 1 } }" "$r/waterfall.tsv" &&
	awk -v s="$step" -v k="$kstep" -v n="$inst" "BEGIN { printf \"%.1f\n\", s - k / n }" >expect &&
	cell "$r/waterfall.tsv" "GPU idle (not split: the run has no cuda_api_trace)" decode_step_ns >got &&
	test_cmp expect got &&
	# the prefill: one cold instance, its wall and kernels
	test "$(cell "$r/waterfall.tsv" "Measured step" prefill_ns)" = "$pre.0"
'

# The idle time of the steady steps split by what the host thread was
# doing while no kernel ran (tests/idle.awk, from the exports alone), in
# place of the host's time per kind of call (issue 37).
test_expect_success 'Llama capture with the host side: the idle time split by what the host did while the GPU idled' '
	lpmake RUN=ll "IMPORT=$(echo "$HS"/llama_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null &&
	r=$S2/ll &&
	step=$(cell "$r/waterfall.tsv" "Measured step" decode_step_ns) &&
	table "$r/steps.tsv" stage steady_ns | awk -F"\t" "\$1 == \"decode_step\" { print \$2 }" >expect &&
	echo "$step" >got && test_cmp expect got &&
	# each idle part: the idle time x the share of the idle time in the traces in that part
	awk -v range=:LLM@decode_step -v steady=1 -f "$ROOT/tests/csv.awk" -f "$ROOT/tests/idle.awk" \
		"$HS/llama_nvtx_pushpop_trace.csv" "$HS/llama_cuda_gpu_trace.csv" "$HS/llama_cuda_api_trace.csv" >idle &&
	table "$r/hostside.tsv" stage kernel_per_inst_ns | awk -F"\t" "\$1 == \"decode_step:steady\" { print \$2 }" >kern &&
	awk -F"\t" -v s="$step" -v k="$(cat kern)" "{ i = s - k
		printf \"%.1f\n%.1f\n%.1f\n%.1f\n\", i * \$2 / \$1, i * (\$3 + \$4) / \$1, i * \$5 / \$1, i * (\$6 + \$7) / \$1 }" idle >expect &&
	for p in "GPU idle: launch calls" "GPU idle: synchronisation and copies" "GPU idle: module loading" \
		"GPU idle: the host'"'"'s own work (and other CUDA calls)"; do
		cell "$r/waterfall.tsv" "$p" decode_step_ns
	done >got &&
	test_cmp expect got &&
	awk -F"\t" -v s="$step" "/^#/ { next } !h { h = 1; next } \$1 != \"Measured step\" && \$2 != \"-\" { t += \$2 }
		END { d = (t - s) / s; if (d < 0) d = -d; if (d > 0.02) { print t, s; exit 1 } }" "$r/waterfall.tsv"
'

test_expect_success 'the brief fits one 1280x800 screen at GitHub'"'"'s width in a browser (headless Chromium, tests/browser/pageshot.sh); details.md is the long report' '
	for run in b ll; do
		b=$("$ROOT/tests/browser/pageshot.sh" "$S2/$run/stakeholder_summary.md" "$run.png") &&
		d=$("$ROOT/tests/browser/pageshot.sh" "$S2/$run/details.md") &&
		echo "# $run: brief $b px, details $d px (Chromium, 1280 px window)" >&2 &&
		test -s "$run.png" && test "$b" -le 800 && test "$d" -ge $((5 * b)) || return 1
	done
'

test_expect_success 'findings_top.tsv: the first three findings, evidence and next step left to details.md' '
	r=$S2/b &&
	table "$r/findings.tsv" rank finding | sed -n 1,3p >expect &&
	table "$r/findings_top.tsv" rank finding >got &&
	test_cmp expect got &&
	test_grep "^# show: int	text	ms	hide	hide	code	hide	ms	text	hide	hide	hide	hide$" "$r/findings_top.tsv" &&
	# the brief says each finding by its first clause; details.md whole
	table "$r/findings.tsv" headline | sed -n 1,3p | sed "s/^/. \*\*/; s/$/\*\*/" >expect &&
	grep "^[0-9]\. \*\*" "$r/stakeholder_summary.md" | sed "s/^[0-9]//; s/\*\* .*/**/" >got &&
	test_cmp expect got &&
	test_grep "^3\. \*\*The first decode_step took 9.19x the steady state.\*\* " "$r/stakeholder_summary.md" &&
	test_grep "^3\. <a id=\"findings-3\"></a>\*\*The first decode_step took 9.19x the steady state: warm-up dominates this short run.\*\*" "$r/details.md" &&
	test_grep "^# note: [0-9]* more rows in details.md.$" "$r/findings_top.tsv" &&
	# the next step in one clause (the action), and the row it stands for
	table "$r/findings.tsv" action | sed -n 1,3p | sed "s/^/ **Next:** /" >expect &&
	grep "^[0-9]\. \*\*" "$r/stakeholder_summary.md" | sed "s/.* \*\*Next:\*\*/ **Next:**/; s/ \*Could save.*//" >got &&
	test_cmp expect got &&
	test_grep "^1\. .*\*\*Next:\*\* Capture the stage in a CUDA graph\. " "$r/stakeholder_summary.md" &&
	test_grep "^2\. .*\*\*Next:\*\* Warm it up: one throw-away pass of the same shapes first\. " "$r/stakeholder_summary.md" &&
	for k in 1 2 3; do
		test_grep "^$k\. .* \[Details\](details.md#findings-$k)$" "$r/stakeholder_summary.md" &&
		test_grep "^$k\. <a id=\"findings-$k\"></a>\*\*" "$r/details.md" || return 1
	done &&
	test_grep "^# rowlink: details.md#findings-$" "$r/findings_top.tsv" &&
	test_grep "^# anchor: findings$" "$r/findings.tsv" &&
	# a brief without next steps in full, or a thumbnail: the roofline is a link
	! grep -q " Next: " "$r/stakeholder_summary.md" &&
	! grep -q "<img src=\"roofline.svg\"" "$r/stakeholder_summary.md" &&
	test_grep "\[roofline.svg\](roofline.svg)" "$r/stakeholder_summary.md"
'

test_expect_success 'waterfall: n/a with the cause where it cannot be computed' '
	r=$S2/b &&
	# a model config without its sizes
	grep -v "^  params:" "$r/inputs.yaml" >in.yaml &&
	lp-waterfall -g "$r/gpu.tsv" -i in.yaml -s "$r/stages.tsv" -t "$r/steps.tsv" >w.tsv &&
	test_grep "^Measured step	n/a because the model config lacks model.params" w.tsv &&
	! grep -q "^# figure:" w.tsv &&
	lp-wfsvg w.tsv >w.svg && xmllint --noout w.svg &&
	test_grep ">n/a because the model config lacks model.params" w.svg &&
	# no steady state: one decode_step instance
	awk -F"\t" "BEGIN { OFS = FS } \$1 == \"decode_step\" { \$8 = \"n/a because one instance\" } 1" "$r/steps.tsv" >steps.tsv &&
	lp-waterfall -g "$r/gpu.tsv" -i "$r/inputs.yaml" -s "$r/stages.tsv" -t steps.tsv >w2.tsv &&
	test_grep "n/a because decode_step has no steady state" w2.tsv &&
	test_must_fail lp-waterfall -g "$r/gpu.tsv" -i "$r/inputs.yaml" -s "$r/stages.tsv" 2>err &&
	test_grep "usage: lp-waterfall" err &&
	test_must_fail lp-waterfall -g "$r/gpu.tsv" -i "$r/inputs.yaml" -s "$r/stages.tsv" -t "$r/steps.tsv" >/dev/full
'

# widest COLUMNS FILE: the most columns of a Markdown table in FILE
widest() {
	awk '/^\|/ && /---/ { n = gsub(/\|/, "|") - 1; if (n > m) m = n } END { print m + 0 }' "$1"
}

test_expect_success 'details.md under a column budget: at most 10, all-n/a columns said once, the rest named' '
	for run in b ll; do
		for f in details kernels stakeholder_summary; do
			n=$(widest "$S2/$run/$f.md") &&
			test "$n" -le 10 || { echo "$run $f.md: $n columns"; return 1; }
		done || return 1
	done &&
	# the demo has no cuda_api_trace: the host table keeps what it has
	sed -n "/^## Host Side/,/^## /p" "$S2/b/details.md" >host &&
	test_grep "^Not in the table: In CUDA API (ms): n/a because the run has no cuda_api_trace report" host &&
	test $(grep -c "n/a because the run has no cuda_api_trace" host) = 1 &&
	# a wide table: conf/details.yaml picks its columns, the others are named
	test_grep "^More columns in .stages.tsv.: Wall total (ms), Std (ms), Launches / instance.$" "$S2/b/details.md" &&
	# the key figures, decode_step min and max (conf/details.yaml key:), always shown
	test_grep "^| Stage | NVTX range | Instances | Mean (ms) | Median (ms) | Min (ms) | Max (ms) | Kernel time (ms) | Launches | GPU busy |$" "$S2/b/details.md" &&
	# a table whose numbers are all n/a for one reason is one line
	lpmake RUN=tl "IMPORT=$(echo "$FIX"/h200-tinyllm-live/tinyllm_*.csv)" MODEL=tinyllm details.md >/dev/null &&
	sed -n "/^## Steady State/,/^## /p" "$S2/tl/details.md" >steps &&
	test_grep "^No numbers: n/a because the run has no nvtx_pushpop_trace report (nsys stats --report nvtx_pushpop_trace).$" steps &&
	! grep -q "^|" steps
'

test_expect_success 'a reason repeated in a row is written once' '
	printf "# title: T\n# tool: lp-x\n# labels: Stage\tA\tB\tC\n# show: text\tint\tint\tint\nstage\ta\tb\tc\n" >t.tsv &&
	printf "s1\t1\tn/a because X\tn/a because X\ns2\t2\t3\t4\n" >>t.tsv &&
	lp-summary t.tsv >t.md &&
	test_grep "^| s1 | 1 | n/a because X | n/a (as before) |$" t.md
'

test_expect_success 'compare.md opens with the two steps side by side: which part moved (eager -> graphed, H100)' '
	G=$FIX/h100-graphs &&
	lpmake RUN=e1 "IMPORT=$(echo "$G"/e1_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null &&
	lpmake RUN=g2 "IMPORT=$(echo "$G"/g2_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null &&
	lpmake RUN=g2 BASE=e1 compare.md >/dev/null &&
	grep -m 2 "^## " "$S2/g2/compare.md" >got &&
	printf "## Verdict\n## Where the Step%ss Time Moved\n" "'"'"'" >expect &&
	test_cmp expect got &&
	# each part: its cell in each run'"'"'s waterfall.tsv, and the change
	table "$S2/e1/waterfall.tsv" part decode_step_ns >base &&
	table "$S2/g2/waterfall.tsv" part decode_step_ns >run &&
	awk -F"\t" "FNR == NR { b[\$1] = \$2; next } { r[\$1] = \$2; o[++n] = \$1 }
		END { for (p in b) if (!(p in r)) print p \"\t\" b[p] \"\t-\t-\" | \"sort\"
			for (i = 1; i <= n; i++) { p = o[i]
				if (p in b && b[p] != \"-\" && r[p] != \"-\") printf \"%s\t%s\t%s\t%.1f\n\", p, b[p], r[p], r[p] - b[p] | \"sort\"
				else if (p in b) print p \"\t\" b[p] \"\t\" r[p] \"\t-\" | \"sort\"
				else print p \"\t-\t\" r[p] \"\t-\" | \"sort\" } }" base run >expect &&
	table "$S2/g2/compare_waterfall.tsv" part base_ns run_ns change_ns | sort >got &&
	test_cmp expect got &&
	# the step got faster, and the measured step says by how much
	awk -F"\t" "\$1 == \"Measured step\" { exit !(\$4 < 0) }" got
'

test_expect_success 'one spelling per kernel across every report of a run (kernels.md, details.md, the brief, compare.md)' '
	for run in b ll g2; do
		cat "$S2/$run"/*.md | grep -o "\`[^\`]*\`" | sort -u |
			awk "length(\$0) > 45 { k = substr(\$0, 1, 45); n[k]++; v[k] = v[k] \" | \" \$0 }
				END { for (k in n) if (n[k] > 1) print v[k] }" >two &&
		test_must_be_empty two || return 1
	done
'

test_expect_success 'waterfall.svg draws waterfall.tsv: a bar a stage, each part with its time' '
	r=$S2/ll &&
	xmllint --noout "$r/waterfall.svg" &&
	table "$r/waterfall.tsv" part decode_step_ns | awk -F"\t" "\$1 != \"Measured step\" && \$2 != \"-\" { printf \"%.3f ms\n\", \$2 / 1e6 }" >expect &&
	grep -o ">[0-9.]* ms (" "$r/waterfall.svg" | sed "s/^>//; s/ ($//" >all &&
	for v in $(sed "s/ ms//" expect); do grep -qx "$v ms" all || { echo "$v ms not drawn"; return 1; }; done &&
	grep -c "width=\"10\" height=\"10\"" "$r/waterfall.svg" >n && test "$(cat n)" = "$(table "$r/waterfall.tsv" part | grep -vc "^Measured step$")" &&
	# a part only prefill has: its prefill time
	table "$r/waterfall.tsv" part decode_step_ns prefill_ns | awk -F"\t" "\$2 == \"-\" && \$3 != \"-\" { printf \">prefill only: %.3f ms<\n\", \$3 / 1e6 }" >ponly &&
	test -s ponly && while read -r l; do grep -qF "$l" "$r/waterfall.svg" || { echo "not drawn: $l"; return 1; }; done <ponly &&
	test_must_fail lp-wfsvg "$r/stages.tsv" 2>err && test_grep "lp-waterfall" err
'

test_expect_success 'the brief puts the sampled DRAM and tensor activity (nsys GPU Metrics) beside MBU' '
	GM=$FIX/h200-gpumetrics &&
	lpmake RUN=gm "IMPORT=$(echo "$GM"/*.csv "$GM"/*.sqlite)" MODEL=hf-llama "SET=gpu.name=\"NVIDIA H200\"" \
		stakeholder_summary.md >/dev/null &&
	awk -F"\t" "/^#/ { next } \$1 == \"decode_step:steady\" && \$2 ~ /^DRAM (Read|Write) Bandwidth \\[Throughput/ { d += \$8 }
		\$1 == \"decode_step:steady\" && \$2 == \"Tensor Active [Throughput %]\" { t = \$8 }
		END { printf \"%.4g\t%.4g\n\", d, t }" "$S2/gm/gpumetrics.tsv" >expect &&
	table "$S2/gm/brief.tsv" dram_sampled_pct tensor_sampled_pct | awk -F"\t" "{ printf \"%.4g\t%.4g\n\", \$1, \$2 }" >got &&
	test_cmp expect got &&
	test_grep "| \[MBU\](details.md#define-mbu_steady_pct) | \[DRAM (sampled)\](details.md#define-dram_sampled_pct) | \[Tensor (sampled)\](details.md#define-tensor_sampled_pct) |" "$S2/gm/stakeholder_summary.md" &&
	# without samples (the demo), no such columns
	! grep -q "sampled" "$S2/b/brief.tsv"
'

# Each finding's saving a step: a kernel's over the decode steps of the
# trace (32), the idle GPU time's in the steady step (the median after the
# first, less its kernel time: the waterfall's GPU idle), prefill's over
# its calls, a warm-up and a cold call once; the top three together no
# more than the wall time of the stages they come from.
test_expect_success 'findings: ms per step, a one-time cost said once; the brief'"'"'s savings within the stages'"'"' wall time' '
	r=$S2/b &&
	n=$(awk -F, "\$6 == \":LLM@decode_step\"" "$V2/torch_nvtx_pushpop_trace.csv" | wc -l) &&
	test "$n" = 32 &&
	read step inst kstep wall kall pre kpre <"$TRASH/ref" &&
	idle=$(awk -v s="$step" -v k="$kstep" -v n="$inst" "BEGIN { printf \"%.0f\", s - k / n }") &&
	table "$r/findings.tsv" rule saving_ns per_step_ns step finding >f &&
	awk -F"\t" -v n="$n" -v idle="$idle" "\$4 == \"decode step\" && \$1 != \"launch-bound\" && \$3 != sprintf(\"%.0f\", \$2 / n) { print \"wrong:\", \$0 }
		\$4 == \"decode step\" && \$1 == \"launch-bound\" && (\$3 - idle > 1 || idle - \$3 > 1) { print \"wrong:\", \$0 }
		\$4 == \"prefill call\" && \$3 != \$2 { print \"wrong:\", \$0 }
		\$4 == \"once\" && \$3 !~ /^n\/a because a one-time cost/ { print \"wrong:\", \$0 }" f >wrong &&
	test_must_be_empty wrong &&
	test $(grep -c "	decode step	" f) -ge 3 && grep "^warm-up	.*	once	" f && grep "^cold-call	.*	once	" f &&
	grep "^1\. .*Could save up to 2030.246 ms, 63.318 ms a decode step\.\* \[Details\]" "$r/stakeholder_summary.md" &&
	grep "^3\. .*Could save up to 520.695 ms, once\.\* \[Details\]" "$r/stakeholder_summary.md" &&
	# the three savings add up to no more than prefill and decode_all took
	table "$r/findings_top.tsv" saving_ns | awk "{ s += \$1 } END { printf \"%.0f\\n\", s }" >save &&
	awk -F, "\$6 == \":LLM@decode_all\" || \$6 == \":LLM@prefill\" { s += \$3 } END { printf \"%.0f\\n\", s }" \
		"$V2/torch_nvtx_pushpop_trace.csv" >wall &&
	test $(cat save) -le $(cat wall)
'

# A merged capture of two ranks (tests/fixtures/h200-tp, the straggler
# run): GPU-bound, its top kernel an NCCL all-reduce; the waterfall has no
# floor for several processes. The verdict fits two lines, the waterfall
# is one line of why, the brief one screen (it was 957 px: three lines of
# verdict, a table of reasons).
test_expect_success 'a 2-GPU import: a short verdict of the ranks (the straggler named), the waterfall it cannot draw said in a line, one screen' '
	lpmake RUN=tp2 "IMPORT=$(echo "$FIX"/h200-tp/tps_*.csv)" MODEL=tp-mlp SET=model.decode_tokens=8 \
		stakeholder_summary.md >/dev/null &&
	r=$S2/tp2 &&

	# the cause: its kernels other than communication, against the other rank
	kern=$(table "$r/ranks.tsv" stage pid kernel_ns comm_ns median_ns | awk -F"\t" "\$1 == \"decode_step\" { k[\$2] = 100 * (\$3 - \$4) / \$5 } END { printf \"%.1f%% kernels other than communication (%.1f%% on the others)\", k[1088], k[1087] }") &&
	echo "# decode_all is straggler-bound on 2 x NVIDIA H200: ranks wait for process 1088'"'"'s kernels (bound.tsv)" >expect &&
	test_grep "The straggler, process 1088 on NVIDIA H200 (1): its own step is $kern" "$r/bound.tsv" &&
	test_grep "^# note: .*The straggler, process 1088 on NVIDIA H200 (1): its own step is " "$r/bound.tsv" &&
	head -1 "$r/stakeholder_summary.md" >got &&
	test_cmp expect got &&
	table "$r/ranks.tsv" stage pid straggler | grep "^decode_step	1088	yes$" &&
	! grep "Where Each Step.s Time Goes" "$r/stakeholder_summary.md" &&
	test_grep "^# omit: decode_step runs in several processes: rank_waterfall.tsv has a bar a rank$" "$r/waterfall.tsv" &&
	test_grep "^\*\*Each Rank.s Step (ms)\*\* (.rank_waterfall.tsv., by lp-rankfall)$" "$r/stakeholder_summary.md" &&
	test $(grep -c "^| 108[78] | [01] |" "$r/stakeholder_summary.md") = 2 &&
	! grep "^| Measured step" "$r/stakeholder_summary.md" &&
	grep "^## Each Rank.s Step" "$r/details.md" &&
	h=$("$ROOT/tests/browser/pageshot.sh" "$r/stakeholder_summary.md") &&
	echo "# tp2: brief $h px" >&2 && test "$h" -le 800
'

# The H200 torch-decoder capture whose decode_step has no steady state in
# the trace: the brief says why for each key number it cannot give, as it
# did before the fallback for runs without a model.
test_expect_success 'a step that has no steady state: the key numbers say why, not a bare n/a' '
	lpmake RUN=tdec "IMPORT=$(echo "$FIX"/h200-torch-decoder/torch_*.csv)" MODEL=torch-decoder \
		stakeholder_summary.md >/dev/null &&
	sed -n "/^| \[Steady/,/^$/p" "$S2/tdec/stakeholder_summary.md" | sed -n 3p >row &&
	test_grep "n/a because" row &&
	! grep "| n/a |" row
'

test_done
