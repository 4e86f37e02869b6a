#!/usr/bin/env bash
# The brief's verdict comes from the step's own parts (issue 40, item 2):
# lp-bound sums waterfall.tsv's parts of the stage's step by kind, and the
# kind that takes brief.bound_pct (60) % names the bound, else "mixed".
# Over every fixture lp imports (eager, graphed, compiled, fused, two
# GPUs, with and without API traces), awk recomputes the shares from
# waterfall.tsv and checks that the title never names a bound the
# waterfall contradicts; a step without parts (several processes) is
# judged by GPU busy against the same share.
. "$(dirname "$0")/lib.sh"

# "dir prefix model": the fixtures' exports, one run each
runs='h200-torch-v2 torch torch-decoder
h200-whole torch torch-decoder
h100-hostside llama hf-llama
h200-whole tinyllm tinyllm
h100-graphs e1 torch-decoder
h100-graphs g2 torch-decoder
h100-graphs c1 torch-decoder
h200-tinyllm-v2 tinyllm tinyllm
h200-fusion fus tinyllm
h200-fusion unf tinyllm
h200-gpt2 gpt2 hf-gpt2
h200-tp tps tp-mlp'

# word share: the bound the waterfall's step gives (kinds summed), or
# "n/a" where it has no numbers for the step
judge='BEGIN { FS = "\t" }
/^#/ { next }
!h { for (i = 1; i <= NF; i++) ix[$i] = i; h = 1; next }
{ v = $ix[col]; k = $ix["kind"] }
v ~ /^n\/a/ { na = 1; next }
v == "-" { next }
k == "step" { step = v; next }
k == "floor" || k == "kernels" { s["kernels"] += v; next }
{ s[k] += v }
END {
	if (na || step <= 0) { print "n/a"; exit }
	w = "mixed"; best = -1
	for (k in s) if (100 * s[k] / step >= t && s[k] > best) { best = s[k]; w = k }
	word["kernels"] = "GPU-bound"; word["communication"] = "communication-bound"; word["idle"] = "host-bound"
	printf "%s", (w == "mixed" ? w : word[w])
	for (k in s) printf " %s=%.1f", k, 100 * s[k] / step
	print ""
}'

test_expect_success 'every fixture: the title names the bound its waterfall gives, or mixed' '
	echo "$runs" | while read d p m; do
		lpmake RUN=$p-$d "IMPORT=$(echo "$FIX/$d/${p}"_*.csv)" MODEL=$m brief.tsv >/dev/null 2>err ||
			{ cat err; exit 1; }
		r=$S2/$p-$d
		v=$(sed -n "s/^# verdict: //p" "$r/brief.tsv")
		j=$(awk -v col=decode_step_ns -v t=60 "$judge" "$r/waterfall.tsv")
		w=${j%% *}
		echo "$d/$p: $j | $v"
		if [ "$w" = n/a ] && grep -q "^# why: " "$r/bound.tsv"; then
			# several ranks: the decode_step of each rank from ranks.tsv,
			# communication / median; the straggler lp-ranks marks
			e=$(table "$r/ranks.tsv" stage pid comm_ns median_ns straggler | awk -F"\t" "\$1 == \"decode_step\" {
				n++; c = 100 * \$3 / \$4; if (c >= 60) many++; if (\$5 == \"yes\") { slow = 1; sc = c } }
				END { print (many == n ? \"communication-bound\" : many && slow && sc < 60 ? \"straggler-bound\" : \"other\") }")
			w=$(sed -n "s/^# verdict: //p" "$r/bound.tsv")
			test "$e" = other || test "$e" = "$w" || { echo "wrong: $w, ranks.tsv says $e"; exit 1; }
			case $v in "decode_all is $w on 2 x NVIDIA H200: "*"(bound.tsv)") ;; *) echo "wrong: $v"; exit 1;; esac
			continue
		elif [ "$w" = n/a ]; then
			# no parts: GPU busy against the same share
			b=$(table "$r/brief.tsv" busy_pct)
			e=$(awk -v b="$b" "BEGIN { print (b >= 60 ? \"GPU-bound\" : b <= 40 ? \"host-bound\" : \"mixed\") }")
			case $v in "decode_all is $e: the GPU is busy "*) ;; *) echo "wrong: $v (busy $b)"; exit 1;; esac
		else
			case $v in "decode_all is $w: "*"of a decode_step"*"(bound.tsv)"*) ;; *) echo "wrong: $v"; exit 1;; esac
			# the share said is the waterfall'"'"'s
			case $w in
			GPU-bound) s=${j#* }; s=${s#*kernels=}; s=${s%% *}; case $v in *"kernels take $s%"*) ;; *) echo "share: $v"; exit 1;; esac;;
			host-bound) s=${j#*idle=}; s=${s%% *}; case $v in *"the GPU idles $s%"*) ;; *) echo "share: $v"; exit 1;; esac;;
			esac
		fi
		test "$(sed -n "s/^# verdict: //p" "$r/bound.tsv" | sed "s/^n\/a.*/n\/a/")" = "$w" || exit 1
	done >log 2>&1 || { cat log; false; } &&
	cat log &&
	# at least one of each: a host-bound eager run, a graphed one that is not
	grep "^h100-graphs/e1: host-bound" log && grep "^h200-tp/tps: n/a | decode_all is straggler-bound on 2 x NVIDIA H200: ranks wait for process 1088.s kernels" log &&
	! grep "^h100-graphs/g2: host-bound" log
'

test_expect_success 'brief.bound_pct: a higher share makes the same step mixed; only the verdict is re-made' '
	r=$S2/llama-h100-hostside &&
	lpmake RUN=llama-h100-hostside stakeholder_summary.md >/dev/null 2>&1 &&
	lpmake -q RUN=llama-h100-hostside stakeholder_summary.md &&
	lpmake -n RUN=llama-h100-hostside SET=brief.bound_pct=99 stakeholder_summary.md >n.out &&
	grep -oE "^(LP_OUTPUT=[^ ]* exec )?[^ ]*/lp-[a-z]+" n.out | sed "s,.*/,," | sort -u >steps &&
	printf "%s\n" lp-bound lp-brief lp-confmerge lp-summary >expect && test_cmp expect steps &&
	lpmake RUN=llama-h100-hostside SET=brief.bound_pct=99 stakeholder_summary.md >/dev/null 2>&1 &&
	head -1 "$r/stakeholder_summary.md" >got &&
	test_grep "^# decode_all is mixed: kernels [0-9.]*%, GPU idle 9[0-9.]*% of a decode_step, none 99% (bound.tsv)$" got &&
	test_grep "^# bound_pct: 99$" "$r/bound.tsv" &&
	test_must_fail lpmake RUN=llama-h100-hostside SET=brief.bound_pct=40 bound.tsv 2>err &&
	test_grep "config.yaml:[0-9]*: brief.bound_pct: expected a whole number from 51 to 100, got \"40\"" err &&
	test_must_fail test -f "$r/bound.tsv.tmp"
'

test_expect_success 'lp-bound: a table that is not the waterfall, a kind it does not know: refused, file and line' '
	r=$S2/llama-h100-hostside &&
	printf "run:\n  stage: decode_all\n" >c.yaml &&
	lp-bound -c c.yaml "$r/waterfall.tsv" >b.tsv &&
	test_grep "^# bound_pct: 60$" b.tsv && test_grep "^# verdict: host-bound$" b.tsv &&
	awk -F"\t" -v OFS="\t" "/^#/ || !h { if (!/^#/) h = 1; print; next } { \$NF = \"gpu\"; print }" "$r/waterfall.tsv" >w.tsv &&
	test_expect_code 1 lp-bound -c c.yaml w.tsv >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-bound: w.tsv:[0-9]*: kind \"gpu\": not step, floor, kernels, communication or idle" err &&
	sed "/^kind\|^part/s/\tkind$//" "$r/waterfall.tsv" | cut -f1-6 >nokind.tsv &&
	test_expect_code 1 lp-bound -c c.yaml nokind.tsv 2>err &&
	test_grep "^lp-bound: nokind.tsv.*kind" err &&
	test_expect_code 1 lp-bound -c c.yaml "$r/stages.tsv" 2>err &&
	test_grep "lp-waterfall" err &&
	test_expect_code 2 lp-bound "$r/waterfall.tsv" 2>err && test_grep "^usage: lp-bound" err
'

# details.md keeps each table's key figure (issue 40, item 4): the columns
# conf/details.yaml names under key: are shown whatever the budget.
test_expect_success 'details.md: every key figure of conf/details.yaml is a column of its table, never "more columns"' '
	lpmake RUN=tps-h200-tp details.md >/dev/null 2>&1 &&
	lpmake RUN=torch-h200-torch-v2 details.md >/dev/null 2>&1 &&
	for run in tps-h200-tp torch-h200-torch-v2; do
		d=$S2/$run/details.md &&
		for t in stages:wall_min_ns:"Min (ms)" stages:wall_max_ns:"Max (ms)" overlap:comm_pct:"Communication share of busy" \
			steps:steady_max_ns:"Rest max (ms)" hostside:graph_kernel_pct:"Graph kernels"; do
			f=${t%%:*} rest=${t#*:} col=${rest%%:*} lab=${rest#*:} &&
			test -s "$S2/$run/$f.tsv" || continue
			# the table has the column and a number in it: then details shows it
			table "$S2/$run/$f.tsv" "$col" | grep -q "^[0-9]" || continue
			sed -n "/($f.tsv, made by/,/^## /p" "$d" >sec &&
			grep "^| " sec | head -1 >hdr &&
			if ! grep -qF "| $lab |" hdr && ! grep -qF "| $lab" hdr; then
				echo "$run: $f.tsv: no \"$lab\" column in: $(cat hdr)"; return 1
			fi
		done || return 1
	done &&
	! grep "^More columns in .overlap.tsv.*Communication share" "$S2/tps-h200-tp/details.md"
'

# Definitions at hand (issue 40, item 3): each key number of the brief
# links to its definition in details.md, whose anchor is there.
test_expect_success 'the brief: each key number links to its definition in details.md; MBU and MFU spelled out' '
	r=$S2/torch-h200-torch-v2 &&
	lpmake RUN=torch-h200-torch-v2 stakeholder_summary.md >/dev/null 2>&1 &&
	grep "^| \[" "$r/stakeholder_summary.md" | head -1 | grep -o "(details.md#define-[a-z_]*)" |
		sed "s/(details.md#//; s/)//" >links &&
	test $(wc -l <links) = 5 &&
	while read a; do
		test_grep "^- <a id=\"$a\"></a>\*\*" "$r/details.md" || return 1
	done <links &&
	test_grep "MBU\*\*: MBU, model bandwidth utilisation: " "$r/details.md" &&
	test_grep "MFU, model FLOPs utilisation" "$r/details.md" &&
	# the details page does not link to itself or float the roofline there
	sed -n "/^## Key Numbers/,/^## /p" "$r/details.md" >k &&
	! grep -q "details.md\|<img" k
'

# A live multi-GPU run: each rank's step is the untraced one (steps.tsv,
# "# timing: untraced"), not the traced capture's median, so the shares are
# the workload's own.  The 2-GPU import's steps.tsv marked untraced, its
# decode_step 2 ms: rank 1087's 1.151 ms of collectives is 57.6 %, under
# 60: no longer straggler-bound.
test_expect_success 'lp-bound -t: a live run'"'"'s ranks judged on the untraced step, not the capture'"'"'s' '
	r=$S2/tps-h200-tp &&
	awk -F"\t" -v OFS="\t" "/^# timing: / { print \"# timing: untraced\"; next } /^#/ || !h { if (!/^#/) { h = 1; for (i = 1; i <= NF; i++) ix[\$i] = i }; print; next }
		\$1 == \"decode_step\" { \$ix[\"steady_ns\"] = 2000000 } { print }" "$r/steps.tsv" >u.tsv &&
	lp-bound -c "$r/config.yaml" -r "$r/ranks.tsv" -t u.tsv "$r/waterfall.tsv" >b.tsv &&
	test_grep "^# note: Several ranks: each rank.s step is the untraced step" b.tsv &&
	table b.tsv process kind ns pct | awk -F"\t" "\$1 == 1087 && \$2 == \"communication\" { printf \"%.0f %.1f\n\", \$3, \$4 }" >got &&
	# its kernels kept, the rest of 2 ms split as the capture split its own
	table "$r/ranks.tsv" stage pid median_ns kernel_ns comm_ns | awk -F"\t" "\$1 == \"decode_step\" && \$2 == 1087 {
		c = (2000000 - (\$4 - \$5)) * \$5 / (\$3 - \$4 + \$5); printf \"%.0f %.1f\n\", c, 100 * c / 2000000 }" >expect &&
	test_cmp expect got &&
	test_grep "^# verdict: straggler-bound$" b.tsv &&
	# a traced steps.tsv (an import): the ranks keep their own medians
	lp-bound -c "$r/config.yaml" -r "$r/ranks.tsv" -t "$r/steps.tsv" "$r/waterfall.tsv" >t.tsv &&
	test_grep "^# verdict: straggler-bound$" t.tsv &&
	test_grep "median instance in the traced capture" t.tsv
'

test_done
