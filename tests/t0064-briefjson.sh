#!/usr/bin/env bash
# brief.json (issue 40, item 7): the brief for machines.  Decoded with
# Perl's core JSON::PP, every value is the one of the table it copies, a
# time in seconds (the ns cell's decimal point moved, every digit kept),
# "n/a because" a null with its reason, text escaped whatever it holds.
. "$(dirname "$0")/lib.sh"

V2=$FIX/h200-torch-v2

# json FILE PERL-EXPR: the expression over $j (the decoded document)
json() {
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $j = JSON::PP->new->decode(<$f>);
		$_ = eval $ARGV[1]; die $@ if $@; print "$_\n"' "$1" "$2"
}

test_expect_success 'make: brief.json of the demo capture, each value its table'"'"'s' '
	lpmake RUN=b "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder brief.json >/dev/null 2>&1 &&
	r=$S2/b &&
	test "$(json "$r/brief.json" "\$j->{schema}")" = lp-brief/1 &&
	test "$(json "$r/brief.json" "\$j->{brief}{verdict}")" = "$(sed -n "s/^# verdict: //p" "$r/brief.tsv")" &&
	test "$(json "$r/brief.json" "\$j->{brief}{identity}")" = "$(sed -n "s/^# identity: //p" "$r/brief.tsv")" &&
	# the steady step: 63578779.0 ns is 0.063578779 s, in the JSON text as such
	test "$(table "$r/brief.tsv" steady_ns)" = 63578779.0 &&
	grep -q "\"steady_s\": 0.063578779," "$r/brief.json" &&
	# a number as the table has it, every digit
	grep -q "\"tokens_per_s\": $(table "$r/brief.tsv" tokens_per_s)," "$r/brief.json" &&
	test "$(json "$r/brief.json" "\$j->{bound}{verdict}")" = host-bound &&
	test "$(json "$r/brief.json" "\$j->{bound}{bound_pct}")" = 60 &&
	# the waterfall: as many parts, each in seconds
	test "$(json "$r/brief.json" "scalar @{\$j->{waterfall}{rows}}")" = "$(table "$r/waterfall.tsv" part | wc -l)" &&
	table "$r/waterfall.tsv" decode_step_ns | sed "s/^-$/null/" >expect &&
	json "$r/brief.json" "join qq(\n), map { defined \$_->{decode_step_s} ? sprintf(q(%.1f), \$_->{decode_step_s} * 1e9) : q(null) } @{\$j->{waterfall}{rows}}" >got &&
	test_cmp expect got &&
	# the findings: the top three, their action and saving a step
	test "$(json "$r/brief.json" "scalar @{\$j->{findings}{rows}}")" = 3 &&
	table "$r/findings_top.tsv" action | head -1 >expect &&
	json "$r/brief.json" "\$j->{findings}{rows}[0]{action}" >got && test_cmp expect got &&
	test "$(json "$r/brief.json" "\$j->{findings}{rows}[1]{per_step_s}")" = "" &&
	json "$r/brief.json" "\$j->{findings}{rows}[1]{per_step_s_why}" | test_grep "^n/a because a one-time cost" &&
	lpmake -q RUN=b brief.json
'

test_expect_success 'lp-briefjson: ns to s exactly; null and reason for n/a; any text escaped' '
	r=$S2/b &&
	for v in 5:0.000000005 0:0 1000000000.0:1 1234567890123.5:1234.5678901235 2.5e+06:0.0025000000000000001; do
		sed "/^#/!s/^63578779.0	/${v%%:*}	/" "$r/brief.tsv" >b.tsv &&
		lp-briefjson -b b.tsv -B "$r/bound.tsv" -w "$r/waterfall.tsv" -f "$r/findings_top.tsv" >j &&
		grep -q "\"steady_s\": ${v#*:}," j || { grep -o "\"steady_s\": [^,]*" j; return 1; }
	done &&
	sed "s/^# verdict: .*/# verdict: a \"quoted\" back\\\\slash, tab	and ü/" "$r/brief.tsv" >b.tsv &&
	lp-briefjson -b b.tsv -B "$r/bound.tsv" -w "$r/waterfall.tsv" -f "$r/findings_top.tsv" >j &&
	test "$(json j "\$j->{brief}{verdict}")" = "$(sed -n "s/^# verdict: //p" b.tsv)" &&
	test_expect_code 1 lp-briefjson -b "$r/bound.tsv" -B "$r/bound.tsv" -w "$r/waterfall.tsv" -f "$r/findings_top.tsv" >out 2>err &&
	test_must_be_empty out && test_grep "lp-brief" err &&
	test_expect_code 2 lp-briefjson -b b.tsv 2>err && test_grep "^usage: lp-briefjson" err
'

test_expect_success 'a step the waterfall cannot give (two GPUs): null with the reason, the ranks judged' '
	lpmake RUN=tp "IMPORT=$(echo "$FIX"/h200-tp/tps_*.csv)" MODEL=tp-mlp SET=model.decode_tokens=8 brief.json >/dev/null 2>&1 &&
	json "$S2/tp/brief.json" "\$j->{waterfall}{rows}[0]{decode_step_s_why}" | test_grep "^n/a because" &&
	test "$(json "$S2/tp/brief.json" "defined \$j->{waterfall}{rows}[0]{decode_step_s} ? 1 : 0")" = 0 &&
	# the ranks judged instead (lp-bound -r), their rows with their pid
	test "$(json "$S2/tp/brief.json" "\$j->{bound}{verdict}")" = straggler-bound &&
	test "$(json "$S2/tp/brief.json" "\$j->{bound}{gpus}")" = "2 x NVIDIA H200" &&
	test "$(json "$S2/tp/brief.json" "scalar grep { \$_->{process} eq q(1087) } @{\$j->{bound}{rows}}")" = 3
'

test_done
