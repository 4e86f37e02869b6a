#!/usr/bin/env bash
# The untraced timing run (issue 38, item 1): a live run times the
# workload once more under nsys with NVTX alone (lp-nsyscmd -u), and
# untraced.tsv (lp-untraced) sets each stage's time there beside the
# traced capture's: the capture's overhead.  The live path runs with the
# stand-in nsys and ncu (tests/fake), the traced capture being the real
# H200 tinyllm one (tests/fixtures/h200-whole/tinyllm), the untraced one
# that trace with every decode_step shortened by a quarter and prefill by
# a tenth (awk, below): what a capture that slows the steps looks like.
# Every cell is recomputed here from the two push/pop traces with awk.
. "$(dirname "$0")/lib.sh"

W=$FIX/h200-whole
C=$ROOT/conf
export LP_FAKE_LOG=$TRASH/fake.log
export LP_FAKE_NSYS=$W/tinyllm
export LP_FAKE_NCU_CSV=$FIX/h200-live/n2.csv
lpmake() {
	PATH=$ROOT/tests/fake:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" "$@"
}
count() {
	grep -c "^$1" "$LP_FAKE_LOG" || true
}
WORK="WORK=sh tests/fake/workload.sh"
B=${LP_BIN#$ROOT/}

# untraced FILE: the traced push/pop trace, each decode_step 3/4 as long
# (its End moved, decode_all shortened by what its steps lost), prefill
# 9/10
shorten='BEGIN { FS = OFS = "," }
NR == 1 { print; next }
$6 == "LLM:decode_step" { d = int($3 * 3 / 4); cut += $3 - d; $3 = $5 = d; $2 = $1 + d }
$6 == "LLM:prefill" { d = int($3 * 9 / 10); $3 = $5 = d; $2 = $1 + d }
{ r[NR] = $0; n = NR }
END { for (i = 2; i <= n; i++) { $0 = r[i]
	if ($6 == "LLM:decode_all") { $3 -= cut; $2 = $1 + $3; $4 -= cut }
	print } }'
mkdir -p "$TRASH/un" && awk "$shorten" "$W/tinyllm_nvtx_pushpop_trace.csv" >"$TRASH/un/t_nvtx_pushpop_trace.csv" || exit 1

# expect TRACED UNTRACED: untraced.tsv's rows as awk computes them from the
# two traces: per stage, instances, time (the median of the instances
# after the first, else the first), min and max of those, overhead, ratio
expect='
FNR == 1 { file++; next }
{ csv($0, f); s = f[6]; sub(/^LLM:/, "", s); k = s SUBSEP file
	t[k, ++n[k]] = f[3] + 0 }
END {
	split("prefill decode_all decode_step", st, " ")
	for (i = 1; i <= 3; i++) {
		for (fl = 1; fl <= 2; fl++) {
			k = st[i] SUBSEP fl; m = 0
			for (j = 2; j <= n[k]; j++) v[++m] = t[k, j]
			for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
			if (m) { med[fl] = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2; lo[fl] = v[1]; hi[fl] = v[m]; of = "steady state" }
			else { med[fl] = t[k, 1]; lo[fl] = hi[fl] = "n/a"; of = "first instance" }
		}
		printf "%s\t%d\t%.1f\t%s\t%s\t%d\t%.1f\t%.1f\t%.4g\t%s\n", st[i], n[st[i] SUBSEP 2], med[2], lo[2], hi[2],
			n[st[i] SUBSEP 1], med[1], med[1] - med[2], med[1] / med[2], of
	}
}'
cols="stage untraced_instances untraced_ns untraced_min_ns untraced_max_ns traced_instances traced_ns change_ns traced_over_untraced time_of"
got() { # the table's rows, the ratio to 4 digits and an n/a as "n/a"
	table "$1" $cols | awk -F"\t" -v OFS="\t" '{ for (i = 1; i <= NF; i++) if ($i ~ /^n\/a/) $i = "n/a"
		$9 = $9 ~ /^[0-9.]+$/ ? sprintf("%.4g", $9) : $9; print }'
}

test_expect_success 'lp-nsyscmd -u: the untraced run, NVTX alone, the whole run; -u -s its push/pop trace' '
	lp-confmerge -s nsys_cli.extra_args=--trace-fork-before-exec=true "$C/runner/stage2.yaml" \
		"$C/profiling/nsys/nsys.default.yaml" "$C/model/tinyllm.yaml" >n.yaml &&
	lp-nsyscmd -0 -u -o b -- python3 "my app.py" <n.yaml 2>err | tr "\0" "\n" >got &&
	test_must_be_empty err &&
	cat >expect <<-\EOF &&
	nsys
	profile
	--trace=nvtx
	--sample=none
	--cpuctxsw=none
	--env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0
	--force-overwrite=true
	--output=b
	--trace-fork-before-exec=true
	--
	python3
	my app.py
	EOF
	test_cmp expect got &&
	lp-nsyscmd -0 -u -s -o s/report -- b.nsys-rep <n.yaml | tr "\0" "\n" >got &&
	printf "%s\n" nsys stats --report nvtx_pushpop_trace --format csv --force-export=true \
		--output=s/report b.nsys-rep >expect &&
	test_cmp expect got &&
	# the capture itself is as it was
	lp-nsyscmd -o b -- w <n.yaml >cmd &&
	test_grep -e "--trace=cuda,nvtx .*--capture-range=nvtx .*--cuda-graph-trace=node --gpu-metrics" cmd &&
	test_expect_code 2 lp-nsyscmd -u -e -o b.sqlite -- b.nsys-rep <n.yaml >out 2>err &&
	test_must_be_empty out && test_grep "^lp-nsyscmd: -u goes with the profile or -s, not with -e" err
'

test_expect_success 'a stage one side lacks: n/a with that side'"'"'s reason, never 0' '
	lp-confmerge "$C/runner/stage2.yaml" "$C/profiling/nsys/nsys.default.yaml" "$C/model/tinyllm.yaml" >c.yaml &&
	# the traced capture gated on decode_all: no prefill in it
	grep -v ",LLM:prefill," "$W/tinyllm_nvtx_pushpop_trace.csv" >gated.csv &&
	lp-steps -c c.yaml gated.csv >t.tsv &&
	# the untraced run pushed prefill twice: a steady state, the traced none
	awk -F, -v OFS=, "{ print } \$6 == \"LLM:prefill\" { \$1 += 1000; \$2 += 1000; print }" \
		"$TRASH/un/t_nvtx_pushpop_trace.csv" >twice.csv &&
	lp-steps -c c.yaml twice.csv >u.tsv &&
	lp-untraced t.tsv u.tsv >x.tsv &&
	table x.tsv $cols | awk -F"\t" "\$1 == \"prefill\"" >row &&
	cut -f2 row >n && echo 2 >want && test_cmp want n &&
	cut -f6-9 row | tr "\t" "\n" | sort -u >why &&
	echo "n/a because the traced steps.tsv says: the range has no instance in the trace (outside the capture, or never pushed)" >want &&
	test_cmp want why &&
	# decode_all: first instances on both sides (no spread untraced)
	table x.tsv stage untraced_min_ns time_of | awk -F"\t" "\$1 == \"decode_all\"" >row &&
	printf "decode_all\tn/a because the stage has no instance after its first (per process): no spread\tfirst instance\n" >want &&
	test_cmp want row &&
	# a steady state untraced, the first instance alone traced: no overhead of one kind
	lp-steps -c c.yaml "$W/tinyllm_nvtx_pushpop_trace.csv" >t2.tsv &&
	lp-untraced t2.tsv u.tsv >y.tsv &&
	table y.tsv stage change_ns | awk -F"\t" "\$1 == \"prefill\" { print \$2 }" >got &&
	echo "n/a because the untraced run has a steady state (2 instances) and the traced capture a first instance alone (1): no time of one kind" >want &&
	test_cmp want got &&
	# a table without the stage: named with its file
	grep -v "^decode_all	" u.tsv >nodec.tsv &&
	lp-untraced t2.tsv nodec.tsv >z.tsv &&
	table z.tsv stage untraced_instances change_ns | awk -F"\t" "\$1 == \"decode_all\"" >got &&
	printf "decode_all\tn/a because the untraced steps.tsv (nodec.tsv) has no row for the stage\tn/a because the untraced steps.tsv (nodec.tsv) has no row for the stage\n" >want &&
	test_cmp want got &&
	# no cell of these tables is a bare 0 or a bare n/a
	! sed "/^#/d" x.tsv y.tsv z.tsv | tr "\t" "\n" | grep -x -e 0 -e n/a
'

test_done
