#!/usr/bin/env bash
# Packed traces (issue 42, item 1): lp-tracesort -p parses an nsys trace
# once and every filter reads the pack instead of the CSV.  On the real
# Llama and GPT-2 captures of tests/fixtures/h100-hostside: the pack
# unpacks to the sorted CSV byte for byte; each filter's table from the
# pack is its table from the CSV but for the file it names; a row's fault
# names the CSV and line it came from, as read from the CSV; a cut pack is
# refused with no table; a kernel's name is in the pack once.
. "$(dirname "$0")/lib.sh"

HS=$FIX/h100-hostside
lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
	"$ROOT/conf/model/torch-decoder.yaml" >"$TRASH/cfg.yaml"

test_expect_success 'a packed trace unpacks to the sorted CSV, byte for byte (Llama, GPT-2: API and GPU traces)' '
	for c in llama gpt2; do
		for r in cuda_api_trace cuda_gpu_trace; do
			lp-tracesort "$HS/${c}_$r.csv" >sorted.csv &&
			lp-tracesort -p "$HS/${c}_$r.csv" >p.lpt &&
			lp-tracesort p.lpt >back.csv &&
			test_cmp sorted.csv back.csv || return 1
		done
	done
'

test_expect_success 'the rows in any order give the same pack' '
	lp-tracesort -p "$HS/llama_cuda_gpu_trace.csv" >a.lpt &&
	{ head -n 1 "$HS/llama_cuda_gpu_trace.csv" && tail -n +2 "$HS/llama_cuda_gpu_trace.csv" | tac; } >rev.csv &&
	lp-tracesort -p rev.csv >b.lpt &&
	lp-tracesort a.lpt >a.csv && lp-tracesort b.lpt >b.csv && test_cmp a.csv b.csv
'

test_expect_success 'rows in order are packed as read; one out of order at the end or the start turns it back to the sort: the same rows, bytes, lines and faults' '
	f="$HS/llama_cuda_api_trace.csv" &&
	lp-tracesort "$f" >sorted.csv && test_cmp "$f" sorted.csv &&
	{ cat "$f" && sed -n 2p "$f"; } >late.csv &&
	{ head -n 1 "$f" && sed -n "3p;2p" "$f" && tail -n +4 "$f"; } >early.csv &&
	for c in late early; do
		lp-tracesort $c.csv >want.csv &&
		lp-tracesort -p $c.csv >$c.lpt && lp-tracesort $c.lpt >got.csv &&
		test_cmp want.csv got.csv &&
		# into a file, the pack goes straight to it and the file is
		# emptied at the turn; into a pipe, through a temporary pack:
		# the same bytes, in order or not
		lp-tracesort -p $c.csv | cat >pipe.lpt && cmp $c.lpt pipe.lpt &&
		lp-tracesort -p "$f" >in.lpt && lp-tracesort -p "$f" | cat >pipe.lpt && cmp in.lpt pipe.lpt || return 1
	done &&
	# a fault in a row packed before the turn names its line in the CSV
	{ awk -F, -v OFS=, "NR == 40 { \$6 = \"85x\" } { print }" "$f" && sed -n 2p "$f"; } >bad.csv &&
	lp-tracesort -p bad.csv >bad.lpt &&
	test_must_fail lp-hostside -c "$TRASH/cfg.yaml" -a bad.lpt "$HS/llama_nvtx_pushpop_trace.csv" >out 2>err &&
	test_grep "bad.csv:40:6: Pid" err
'

test_expect_success 'a kernel name is in the pack once, in the CSV at each launch' '
	lp-tracesort -p "$HS/llama_cuda_gpu_trace.csv" >g.lpt &&
	test "$(grep -c nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT "$HS/llama_cuda_gpu_trace.csv")" = 1408 &&
	test "$(grep -a -o nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT g.lpt | wc -l)" = 1 &&
	test $(wc -c <g.lpt) -lt $(($(wc -c <"$HS/llama_cuda_gpu_trace.csv") / 3))
'

# same TABLE-FROM-CSV TABLE-FROM-PACK: the same but the source line
same() {
	grep -v "^# source" "$1" >a.tsv && grep -v "^# source" "$2" >b.tsv && test_cmp a.tsv b.tsv
}

test_expect_success 'lp-overlap, lp-hostside, lp-audit: the table from the pack is the one from the CSV' '
	for c in llama gpt2; do
		lp-tracesort "$HS/${c}_cuda_gpu_trace.csv" >g.csv && lp-tracesort -p g.csv >g.lpt &&
		lp-tracesort "$HS/${c}_cuda_api_trace.csv" >a.csv && lp-tracesort -p a.csv >a.lpt &&
		lp-overlap -o "$ROOT/conf/operators.yaml" g.csv >o1 && lp-overlap -o "$ROOT/conf/operators.yaml" g.lpt >o2 &&
		same o1 o2 &&
		lp-hostside -c "$TRASH/cfg.yaml" -a a.csv -g g.csv "$HS/${c}_nvtx_pushpop_trace.csv" >h1 &&
		lp-hostside -c "$TRASH/cfg.yaml" -a a.lpt -g g.lpt "$HS/${c}_nvtx_pushpop_trace.csv" >h2 &&
		same h1 h2 &&
		lp-audit -c "$TRASH/cfg.yaml" -a a.csv -p "$HS/${c}_nvtx_pushpop_trace.csv" >u1 &&
		lp-audit -c "$TRASH/cfg.yaml" -a a.lpt -p "$HS/${c}_nvtx_pushpop_trace.csv" >u2 &&
		same u1 u2 || return 1
	done &&
	grep -q "^# source.*g.lpt" o2
'

test_expect_success 'a fault in a packed row names the CSV and its line, as the CSV read does' '
	awk -F, -v OFS=, "NR == 40 { \$6 = \"85x\" } { print }" "$HS/llama_cuda_api_trace.csv" >bad.csv &&
	lp-tracesort -p bad.csv >bad.lpt &&
	test_must_fail lp-hostside -c "$TRASH/cfg.yaml" -a bad.csv "$HS/llama_nvtx_pushpop_trace.csv" >out1 2>err1 &&
	test_must_fail lp-hostside -c "$TRASH/cfg.yaml" -a bad.lpt "$HS/llama_nvtx_pushpop_trace.csv" >out2 2>err2 &&
	test_grep "bad.csv:40:6: Pid" err1 && test_cmp err1 err2 && ! test -s out2
'

test_expect_success 'a cut or foreign pack is refused, naming it and the byte, with no table' '
	lp-tracesort -p "$HS/llama_cuda_gpu_trace.csv" >g.lpt &&
	head -c 100000 g.lpt >cut.lpt &&
	test_must_fail lp-overlap -o "$ROOT/conf/operators.yaml" cut.lpt >out 2>err &&
	test_grep "cut.lpt: not a whole packed trace (byte [0-9]*: cut inside" err && ! test -s out &&
	{ printf "\177LPTRACE 1\n\001\003a.c\001\005Start\000\007"; } >junk.lpt &&
	test_must_fail lp-tracesort junk.lpt >out 2>err &&
	test_grep "junk.lpt: not a whole packed trace (byte 25: an item of no known kind)" err && ! test -s out
'

test_expect_success 'an empty trace (nsys: no rows) packs to an empty file, refused as the empty CSV is' '
	: >empty.csv && lp-tracesort -p empty.csv >e.lpt && ! test -s e.lpt &&
	test_must_fail lp-overlap -o "$ROOT/conf/operators.yaml" empty.csv 2>err1 &&
	test_must_fail lp-overlap -o "$ROOT/conf/operators.yaml" e.lpt 2>err2 &&
	sed "s/empty.csv/X/" err1 >e1 && sed "s/e.lpt/X/" err2 >e2 && test_cmp e1 e2
'

test_expect_success 'lp-import -P packs the four traces as it reads them: the bytes of lp-tracesort -p; none where the rows are out of order or in parts' '
	for c in llama gpt2; do
		rm -f pk_* &&
		lp-import -P pk_ -- "$HS/${c}_cuda_api_trace.csv" "$HS/${c}_cuda_gpu_trace.csv" \
			"$HS/${c}_nvtx_pushpop_trace.csv" "$HS/${c}_nvtx_gpu_proj_trace.csv" >imp.mk &&
		for r in cuda_api_trace cuda_gpu_trace nvtx_pushpop_trace nvtx_gpu_proj_trace; do
			k=$(test $r != nvtx_gpu_proj_trace || echo -k) &&
			lp-tracesort -p $k "$HS/${c}_$r.csv" >want.lpt && cmp want.lpt pk_$r.lpt &&
			# made as a shell makes a file (umask), not private
			test "$(stat -c %a pk_$r.lpt)" = "$(stat -c %a want.lpt)" || return 1
		done
	done &&
	f="$HS/llama_cuda_api_trace.csv" &&
	{ cat "$f" && sed -n 2p "$f"; } >late.csv &&
	lp-import -P pk_ -- late.csv >imp.mk && ! test -e pk_cuda_api_trace.lpt &&
	{ head -n 1 "$f" && sed -n "2,100p" "$f"; } >part1.csv && { head -n 1 "$f" && sed -n "101,200p" "$f" | sed "s/,855,855,/,856,856,/"; } >part2.csv &&
	lp-import -P pk_ -- part1.csv >imp.mk && test -s pk_cuda_api_trace.lpt &&
	lp-import -P pk_ -- "$FIX"/h200-tp/tpr0_*.csv "$FIX"/h200-tp/tpr1_*.csv >imp.mk &&
	test "$(ls pk_* 2>/dev/null)" = "" &&
	# refused (no GPU trace ties the two parts): no pack, nothing left
	test_must_fail lp-import -P pk_ -- part1.csv part2.csv >imp.mk 2>err &&
	test_grep "nothing shows their processes ran as one job" err && test "$(ls pk_* 2>/dev/null)" = ""
'

test_expect_success 'lp-tracesort -p -k: the projection packed in its own order, parts one after the other, header once' '
	P=$FIX/h200-tp &&
	lp-tracesort -p -k "$P/tpr0_nvtx_gpu_proj_trace.csv" "$P/tpr1_nvtx_gpu_proj_trace.csv" >pj.lpt &&
	lp-tracesort -k pj.lpt >back.csv &&
	{ cat "$P/tpr0_nvtx_gpu_proj_trace.csv" && tail -n +2 "$P/tpr1_nvtx_gpu_proj_trace.csv"; } >want.csv &&
	test_cmp want.csv back.csv &&
	lp-procs -D 0 -g pj.lpt -t "$P/tpr0_cuda_gpu_trace_mangled.csv" "$P/tpr0_nvtx_kern_sum.csv" >a.tsv 2>&1 ;
	lp-procs -D 0 -g want.csv -t "$P/tpr0_cuda_gpu_trace_mangled.csv" "$P/tpr0_nvtx_kern_sum.csv" >b.tsv 2>&1 ;
	sed "s/pj.lpt/X/g" a.tsv >a2 && sed "s/want.csv/X/g" b.tsv >b2 && test_cmp b2 a2 &&
	lp-tracesort -k "$P/tpr0_nvtx_gpu_proj_trace.csv" >same.csv && test_cmp "$P/tpr0_nvtx_gpu_proj_trace.csv" same.csv
'

test_expect_success 'lp-import -P packs nothing lp-tracesort would refuse or read otherwise: no Start column, a tool message, a line above the header' '
	f="$HS/llama_cuda_api_trace.csv" && g="$HS/llama_cuda_gpu_trace.csv" &&
	sed "1s/Start (ns)/StartTime/" "$f" >nostart_cuda_api_trace.csv &&
	{ head -n 1 "$g" && echo "==WARNING== something" && tail -n +2 "$g"; } >msg_cuda_gpu_trace.csv &&
	{ echo "Start,of,report" && cat "$g"; } >title_cuda_gpu_trace.csv &&
	for x in nostart_cuda_api_trace msg_cuda_gpu_trace title_cuda_gpu_trace; do
		lp-import -P pk_ -- $x.csv >imp.mk && test "$(ls pk_* 2>/dev/null)" = "" &&
		test_must_fail lp-tracesort -p $x.csv >out 2>err && test_grep "^lp-tracesort: $x.csv" err || return 1
	done
'

test_expect_success 'lp-tracesort -k: parts of another header are refused before a row of theirs is packed; an interrupted lp-import -P leaves no temporary pack' '
	P="$HS/llama_nvtx_gpu_proj_trace.csv" &&
	awk "NR == 1 { print \$0 \",Extra\"; next } { print \$0 \",x\" }" "$P" >wide.csv &&
	test_must_fail lp-tracesort -p -k "$P" wide.csv >out 2>err &&
	test_grep "wide.csv:1: its header is not that of" err &&
	g="$HS/llama_cuda_gpu_trace.csv" &&
	# six copies of the trace one after the other, in time order (33 MB)
	awk "NR == 1 { print; next } { r[NR] = \$0 } END { for (k = 0; k < 6; k++) for (i = 2; i <= NR; i++) {
		n = index(r[i], \",\"); printf \"%.0f%s\\n\", substr(r[i], 1, n - 1) + k * 1e10, substr(r[i], n) } }" "$g" >big.csv &&
	lp-import -P pk_ -- big.csv >imp.mk && test -s pk_cuda_gpu_trace.lpt && rm pk_cuda_gpu_trace.lpt &&
	{ lp-import -P pk_ -- big.csv >imp.mk & p=$!; } && sleep 0.05 && kill -INT $p; wait $p;
	! ls pk_import.* 2>/dev/null
'

test_expect_success 'an import parses each trace once: make runs no lp-tracesort for the packs lp-import made; one removed is made again, the same' '
	lpmake RUN=pk "IMPORT=$(echo "$HS"/llama_*.csv)" MODEL=torch-decoder hostside.tsv >log 2>&1 &&
	! grep "lp-tracesort -p" log &&
	lp-tracesort -p "$HS/llama_cuda_gpu_trace.csv" >want.lpt && cmp want.lpt "$S2/pk/nsys/report_cuda_gpu_trace.lpt" &&
	lpmake -q RUN=pk "IMPORT=$(echo "$HS"/llama_*.csv)" MODEL=torch-decoder hostside.tsv &&
	rm "$S2/pk/nsys/report_cuda_gpu_trace.lpt" &&
	lpmake RUN=pk "IMPORT=$(echo "$HS"/llama_*.csv)" MODEL=torch-decoder hostside.tsv >log 2>&1 &&
	test_grep "lp-tracesort -p .*llama_cuda_gpu_trace.csv" log && ! grep "lp-import" log &&
	cmp want.lpt "$S2/pk/nsys/report_cuda_gpu_trace.lpt"
'

test_done
