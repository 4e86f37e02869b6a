#!/usr/bin/env bash
# Predicted against realized (issue 40, item 6): make RUN=after BASE=before
# compare.md takes each of BASE's findings and reports what happened to it:
# the saving it predicted a step against the change measured in what it
# named, and one outcome.  The pair: the repo's decoder on an H100, eager
# (e1) then one CUDA graph per decode step (g2), as lp advised
# (tests/fixtures/h100-graphs); the steady steps are recomputed with awk
# from the nsys exports.
. "$(dirname "$0")/lib.sh"

G=$FIX/h100-graphs

# the steady state of decode_step: the median instance after the first
steady='$0 ~ /^Start/ { n = csv($0, f); col(f, n, h); next }
{ csv($0, f) } f[h["Name"]] == ":LLM@decode_step" { d[++nd] = f[h["Duration (ns)"]] + 0 }
END { m = nd - 1; for (i = 2; i <= nd; i++) v[i - 1] = d[i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	printf "%.0f\n", m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }'

test_expect_success 'eager, then graphed as advised: the graph finding realized, with the numbers of the exports' '
	lpmake RUN=e1 "IMPORT=$(echo "$G"/e1_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null 2>&1 &&
	lpmake RUN=g2 "IMPORT=$(echo "$G"/g2_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null 2>&1 &&
	lpmake RUN=g2 BASE=e1 compare.md >/dev/null 2>&1 &&
	r=$S2/g2 &&
	before=$(A "$steady" "$G/e1_nvtx_pushpop_trace.csv") && after=$(A "$steady" "$G/g2_nvtx_pushpop_trace.csv") &&
	pred=$(table "$S2/e1/findings.tsv" rule subject per_step_ns | awk -F"\t" "\$1 == \"launch-bound\" && \$2 == \"decode_step\" { print \$3 }") &&
	test -n "$pred" &&
	awk -v b="$before" -v a="$after" -v p="$pred" -v OFS="\t" "BEGIN { print \"launch-bound\", \"decode_step\", p, b, a, b - a, sprintf(\"%.2f\", 100 * (b - a) / p), \"realized\" }" >expect &&
	table "$r/compare_findings.tsv" rule subject predicted_ns before_ns after_ns realized_change_ns realized_change_pct outcome |
		awk -F"\t" -v OFS="\t" "\$2 == \"decode_step\" { \$7 = sprintf(\"%.2f\", \$7); print }" >got &&
	cat got && test_cmp expect got &&
	# the advice it checks is the one the eager brief gave
	table "$r/compare_findings.tsv" rule action | grep "^launch-bound	Capture the stage in a CUDA graph\.$" &&
	# prefill was not graphed: its change is within 10 % of one instance
	table "$r/compare_findings.tsv" subject outcome | grep "^prefill	not realized$" &&
	# every finding of the base has its row, in its order
	table "$S2/e1/findings.tsv" rank >expect && table "$r/compare_findings.tsv" rank >got && test_cmp expect got &&
	# compare.md shows it after the verdict and the waterfall, outcome among the first columns
	sed -n "/^## Predicted and Realized/,/^## /p" "$r/compare.md" >sec &&
	test_grep "^| 1 | launch-bound | .decode_step. | realized | " sec &&
	grep -n "^## " "$r/compare.md" | sed -n 3p | test_grep "Predicted and Realized"
'

test_expect_success 'the other way round: the graphed run'"'"'s advice, undone, is made worse' '
	lpmake RUN=e1 BASE=g2 compare.md >/dev/null 2>&1 &&
	table "$S2/e1/compare_findings.tsv" rule subject outcome | grep "^graph-bound	decode_step	made worse$" &&
	table "$S2/e1/compare_findings.tsv" realized_change_ns | head -1 | grep "^-"
'

test_expect_success 'a one-time cost predicts nothing a step: not comparable, said why' '
	r=$S2/g2 &&
	lp-realized -f "$S2/e1/findings.tsv" -s "$r/compare_stages.tsv" >x.tsv &&
	table x.tsv rule outcome realized_change_ns | grep "^under-filled	not comparable	n/a because no kernel comparison (compare.tsv)$" &&
	awk -F"\t" -v OFS="\t" "/^#/ || !h { if (!/^#/) h = 1; print; next } \$2 == \"launch-bound\" { \$8 = \"n/a because a one-time cost, paid once, not per step\"; \$9 = \"once\" } { print }" \
		"$S2/e1/findings.tsv" >f.tsv &&
	lp-realized -f f.tsv -s "$r/compare_stages.tsv" >y.tsv &&
	table y.tsv rule outcome predicted_ns | grep "^launch-bound	not comparable	n/a because a one-time cost or not a time$"
'

test_expect_success 'the gate: CLAIM=rule fails (exit 3 from lp-realized) where the claim realized under REALIZED %' '
	lpmake RUN=g2 BASE=e1 CLAIM=launch-bound REALIZED=5 check-regression >out 2>err &&
	printf "0\tpassed\te1\n" >expect && test_cmp expect "$S2/g2/check-regression.rc" &&
	test_must_fail lpmake RUN=g2 BASE=e1 CLAIM=launch-bound REALIZED=50 check-regression >out 2>err &&
	test_grep "^lp-realized: 1 of 2 launch-bound findings realized under 50 % of their prediction" err &&
	test_grep "^lp: run e1.s launch-bound advice realized under 50 % of its prediction in run g2$" err &&
	printf "3\tregressed\te1\n" >expect && test_cmp expect "$S2/g2/check-regression.rc" &&
	r=$S2/g2 &&
	test_expect_code 3 lp-realized -f "$S2/e1/findings.tsv" -s "$r/compare_stages.tsv" -k "$r/compare.tsv" \
		-t "$S2/e1/steps.tsv" -c launch-bound -m 50 >/dev/null 2>&1 &&
	test_expect_code 1 lp-realized -f "$S2/e1/findings.tsv" -s "$r/compare_stages.tsv" -c nosuch >/dev/null 2>err &&
	test_grep "no finding of rule nosuch" err &&
	test_must_fail lpmake RUN=g2 BASE=e1 CLAIM=nosuch check-regression >out 2>err &&
	test_grep "cannot compare" err &&
	printf "1\tcannot compare\te1\n" >expect && test_cmp expect "$S2/g2/check-regression.rc" &&
	test_must_fail lpmake RUN=g2 BASE=e1 "CLAIM=\$(shell id)" check-regression >out 2>err &&
	test_grep "CLAIM=.*name a rule of lp-findings(1)" err && ! grep -q "uid=" out err &&
	test_must_fail lpmake RUN=g2 BASE=e1 CLAIM=launch-bound REALIZED=1e9 check-regression >out 2>err &&
	test_grep "REALIZED=.*whole percentage" err
'

test_expect_success 'make: removing compare_findings.tsv re-makes it and compare.md only; a base without the new columns is named' '
	lpmake -q RUN=g2 BASE=e1 compare.md &&
	rm "$S2/g2/compare_findings.tsv" &&
	lpmake -n RUN=g2 BASE=e1 compare.md >n.out &&
	grep -oE "^(LP_OUTPUT=[^ ]* exec )?[^ ]*/lp-[a-z]+" n.out | sed "s,.*/,," | sort >steps &&
	printf "%s\n" lp-realized lp-summary >expect && test_cmp expect steps &&
	lpmake RUN=g2 BASE=e1 compare.md >/dev/null 2>&1 && lpmake -q RUN=g2 BASE=e1 compare.md &&
	cut -f1-11 "$S2/e1/findings.tsv" >old.tsv &&
	test_expect_code 1 lp-realized -f old.tsv -s "$S2/g2/compare_stages.tsv" >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-realized: old.tsv:[0-9]*: no column \"subject_kind\"" err
'

test_done
