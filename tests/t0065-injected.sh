#!/usr/bin/env bash
# Issue 39, item 2: an engine core that the launched front end started.
# lp-injected reads which process nsys launched and which made CUDA calls
# from nsys's own diagnostics in the sqlite export (DIAGNOSTIC_EVENT); where
# the CUDA work ran in another process, lp-topn -i selects kernels, not
# (kernel, launch configuration) pairs: ncu's per-launch-config filter made
# each later launch in a spawned child wait 75 to 100 ms (H100, ncu
# 2025.3.1, tests/gpu/README.md), a 0.6 ms decode step 7.7 s.
. "$(dirname "$0")/lib.sh"

A2=$FIX/h100-graphs/a2_report.sqlite
P=$FIX/h100-plc
R=:LLM@decode_all
gzip -dc "$P/llama_cuda_gpu_trace.csv.gz" >"$TRASH/trace.csv" &&
lp-shapes -r "$R" -p "$P/llama_nvtx_gpu_proj_trace.csv" -k "$P/llama_nvtx_kern_sum_mangled.csv" \
	-d "$P/llama_nvtx_kern_sum.csv" "$TRASH/trace.csv" >"$TRASH/shapes.tsv"
S=$TRASH/shapes.tsv

# diag DB PID TEXT...: an export whose DIAGNOSTIC_EVENT holds these lines
# (globalPid as nsys serialises it: pid << 24, on hardware 1)
diag() {
	db=$1 && shift && rm -f "$db" &&
	sqlite3 "$db" "CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER NOT NULL, timestampType INTEGER NOT NULL,
		source INTEGER NOT NULL, severity INTEGER NOT NULL, text TEXT NOT NULL, globalPid INTEGER);" &&
	while [ $# -gt 1 ]; do
		sqlite3 "$db" "INSERT INTO DIAGNOSTIC_EVENT VALUES (0, 0, 0, 0, '$2', (1 << 56) | ($1 << 24));" || exit 1
		shift 2
	done
}

test_expect_success 'lp-injected on a real export: the one process nsys launched made the CUDA calls' '
	lp-injected "$A2" >inj.tsv &&
	test_grep "^# launched: 2261$" inj.tsv && test_grep "^# cuda: 2261$" inj.tsv &&
	table inj.tsv pid launched nvtx_events cuda_events >got &&
	printf "2261\tyes\t2804\t3909\n" >expect && test_cmp expect got &&
	# the counts as nsys wrote them in its diagnostics
	sqlite3 "$A2" "SELECT text FROM DIAGNOSTIC_EVENT WHERE text LIKE '\''Number of CUDA events%'\''" | grep -q "	3909\.$"
'

test_expect_success 'a spawned engine core: launched front end without CUDA, the child with it' '
	diag sp.sqlite 3512 "Process was launched by the profiler, see /tmp/x/pid_3512_stdout.log" \
		3512 "Number of NVTX events collected: 	0." 3552 "Number of NVTX events collected: 	2804." \
		3552 "Number of CUDA events collected: 	3909." 3551 "Common injection library initialized successfully." &&
	lp-injected sp.sqlite >inj.tsv &&
	test_grep "^# launched: 3512$" inj.tsv && test_grep "^# cuda: 3552$" inj.tsv &&
	table inj.tsv pid launched cuda_events >got &&
	printf "3512\tyes\tn/a because nsys said nothing of its CUDA events\n3552\tno\t3909\n" >expect && test_cmp expect got
'

test_expect_success 'lp-topn -i: pairs where the launched process ran the CUDA work, kernels where a child did' '
	lp-injected "$A2" >same.tsv &&
	lp-topn -r "$R" -s "$S" -S 40 -p 95 -i same.tsv "$P/llama_nvtx_kern_sum_mangled.csv" >pairs.tsv &&
	lp-topn -r "$R" -s "$S" -S 40 -p 95 "$P/llama_nvtx_kern_sum_mangled.csv" >plain.tsv &&
	test_cmp plain.tsv pairs.tsv &&
	diag sp.sqlite 3512 "Process was launched by the profiler" 3552 "Number of CUDA events collected: 	3909." &&
	lp-injected sp.sqlite >child.tsv &&
	lp-topn -r "$R" -s "$S" -S 40 -p 95 -n 7 -i child.tsv "$P/llama_nvtx_kern_sum_mangled.csv" >k.tsv &&
	! grep -q grid k.tsv && test $(table k.tsv rank | wc -l) = 7 &&
	test_grep "^# shapes: n/a because the CUDA work ran in process 3552, not in the one nsys launched (3512; child.tsv): ncu.s per-launch-config filter" k.tsv &&
	# ncu then profiles the first launch of each, not per configuration
	printf "run:\n  stage: decode_all\nstages:\n  decode_all: {domain: \"\", range: LLM@decode_all}\n" >ncu.yaml &&
	lp-ncucmd -k k.tsv -o b -- w <ncu.yaml >cmd &&
	! grep -q per-launch-config cmd && test_grep -e "--kernel-id .::regex:" cmd
'

# ncu injected into a second process (torch.compile's compile worker)
# made each launch of a selected kernel wait about 0.1 s: the compiled
# decode's ncu run took 92 s with --target-processes all, 27.9 s with
# application-only (H200, ncu 2025.3.1, tests/gpu/README.md).  auto (the
# presets' default): application-only where the launched process alone
# ran the stage's kernels (procs.tsv; without it, alone made CUDA calls),
# else all.
test_expect_success 'lp-ncucmd -I, -K: target_processes auto is application-only where the launched process alone ran the stage'"'"'s kernels' '
	printf "run:\n  stage: decode_all\nstages:\n  decode_all: {domain: \"\", range: LLM@decode_all}\nncu_cli:\n  target_processes: auto\n" >auto.yaml &&
	lp-injected "$A2" >same.tsv &&
	lp-topn -r "$R" -s "$S" -S 40 -p 95 "$P/llama_nvtx_kern_sum_mangled.csv" >pairs.tsv &&
	diag sp.sqlite 3512 "Process was launched by the profiler" 3552 "Number of CUDA events collected: 	3909." &&
	lp-injected sp.sqlite >child.tsv &&
	lp-ncucmd -I same.tsv -k pairs.tsv -o b -- w <auto.yaml >cmd &&
	test_grep "^ncu --target-processes application-only " cmd &&
	# a child ran it (a spawned engine core): all
	lp-ncucmd -I child.tsv -k pairs.tsv -o b -- w <auto.yaml >cmd &&
	test_grep "^ncu --target-processes all " cmd &&
	# the launched process and another: all
	diag both.sqlite 3512 "Process was launched by the profiler" 3512 "Number of CUDA events collected: 	10." \
		3552 "Number of CUDA events collected: 	3909." &&
	lp-injected both.sqlite >both.tsv && test_grep "^# cuda: 3512 3552$" both.tsv &&
	lp-ncucmd -I both.tsv -k pairs.tsv -o b -- w <auto.yaml >cmd &&
	test_grep "^ncu --target-processes all " cmd &&
	# ... unless the launched process alone ran the stage'"'"'s kernels
	# (procs.tsv, -K: the compile worker made CUDA calls, no kernels)
	printf "# tool: lp-procs\npid\tdevice\tprofiled\n3512\tNVIDIA H200 (0)\tn/a: one process\n" >p1.tsv &&
	lp-ncucmd -I both.tsv -K p1.tsv -k pairs.tsv -o b -- w <auto.yaml >cmd &&
	test_grep "^ncu --target-processes application-only " cmd &&
	sed "s/^3512/3552/" p1.tsv >pc.tsv &&
	lp-ncucmd -I both.tsv -K pc.tsv -k pairs.tsv -o b -- w <auto.yaml >cmd &&
	test_grep "^ncu --target-processes all " cmd &&
	{ cat p1.tsv && printf "3552\tNVIDIA H200 (1)\tno\n"; } >p2.tsv &&
	lp-ncucmd -I both.tsv -K p2.tsv -k pairs.tsv -o b -- w <auto.yaml >cmd &&
	test_grep "^ncu --target-processes all " cmd &&
	lp-ncucmd -I child.tsv -K pc.tsv -k pairs.tsv -o b -- w <auto.yaml >cmd &&
	test_grep "^ncu --target-processes all " cmd &&
	# not known (two launched), or no -I: all
	diag two.sqlite 1 "Process was launched by the profiler" 2 "Process was launched by the profiler" &&
	lp-injected two.sqlite >t.tsv && lp-ncucmd -I t.tsv -k pairs.tsv -o b -- w <auto.yaml >cmd &&
	test_grep "^ncu --target-processes all " cmd &&
	lp-ncucmd -k pairs.tsv -o b -- w <auto.yaml >cmd &&
	test_grep "^ncu --target-processes all " cmd &&
	# set by hand, kept
	sed "s/auto/all/" auto.yaml >all.yaml &&
	lp-ncucmd -I same.tsv -k pairs.tsv -o b -- w <all.yaml >cmd &&
	test_grep "^ncu --target-processes all " cmd &&
	# the presets say auto
	for p in default fast high light; do
		test "$(lp-confget ncu_cli.target_processes "$ROOT/conf/profiling/ncu/ncu.$p.yaml")" = auto || exit 1
	done
'

# The same through make, with the stand-in nsys and ncu (tests/fake): a
# capture whose launched process (575) ran the stage's kernels and whose
# compile worker (600) made a few CUDA calls gets ncu on process 575 alone.
test_expect_success 'a live run: ncu --target-processes application-only where the launched process alone ran the stage'"'"'s kernels' '
	cp "$FIX/h200-gpumetrics/llama_gpu_metrics.sqlite" d.sqlite &&
	diag diag.sqlite 575 "Process was launched by the profiler" 575 "Number of CUDA events collected: 	100." \
		600 "Number of CUDA events collected: 	3." &&
	sqlite3 d.sqlite "ATTACH '"'"'diag.sqlite'"'"' AS g; CREATE TABLE DIAGNOSTIC_EVENT AS SELECT * FROM g.DIAGNOSTIC_EVENT;" &&
	fake() { LP_FAKE_NSYS_SQLITE=$1 LP_FAKE_LOG=$PWD/fake.log LP_FAKE_NSYS=$FIX/h200-whole/tinyllm \
		LP_FAKE_NCU_CSV=$FIX/h200-live/n2.csv PATH=$ROOT/tests/fake:$PATH \
		make -C "$ROOT" --no-print-directory LP_STAGE2_DIR="$S2" RUN=$2 "WORK=sh tests/fake/workload.sh" MODEL=tinyllm \
		stakeholder_summary.md; } &&
	fake "$PWD/d.sqlite" inj1 >out 2>&1 || { tail out; false; } &&
	test_grep "^# cuda: 575 600$" "$S2/inj1/injected.tsv" &&
	test "$(table "$S2/inj1/procs.tsv" pid)" = 575 &&
	test_grep "^ncu --target-processes application-only " "$S2/inj1/ncu/profile.cmd" &&
	# an export without diagnostics: all
	fake "$FIX/h200-gpumetrics/llama_gpu_metrics.sqlite" inj2 >out 2>&1 || { tail out; false; } &&
	test_grep "^ncu --target-processes all " "$S2/inj2/ncu/profile.cmd"
'

test_expect_success 'lp-injected: an export without diagnostics says so; what is not an export is refused, naming the file' '
	sqlite3 empty.sqlite "CREATE TABLE StringIds (id INTEGER, value TEXT);" &&
	lp-injected empty.sqlite >e.tsv &&
	test_grep "^# launched: n/a because the export has no DIAGNOSTIC_EVENT table$" e.tsv &&
	test "$(table e.tsv pid | wc -l)" = 0 &&
	lp-topn -r "$R" -s "$S" -S 40 -p 95 -i e.tsv "$P/llama_nvtx_kern_sum_mangled.csv" >p.tsv && grep -q grid p.tsv &&
	echo "not sqlite" >t.txt && test_must_fail lp-injected t.txt 2>err && test_grep "t.txt" err &&
	diag two.sqlite 1 "Process was launched by the profiler" 2 "Process was launched by the profiler" &&
	lp-injected two.sqlite >t.tsv && test_grep "^# launched: n/a because nsys names 2 processes" t.tsv &&
	lp-topn -r "$R" -s "$S" -S 40 -p 95 -i t.tsv "$P/llama_nvtx_kern_sum_mangled.csv" >p.tsv &&
	grep -q grid p.tsv
'

test_done
