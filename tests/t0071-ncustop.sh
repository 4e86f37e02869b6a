#!/usr/bin/env bash
# lp-ncustop (issue 42, item 3): ncu's per-launch-config filter never ends
# the workload, so lp stops it once every launch configuration is
# profiled.  With the test stand-in for ncu (tests/fake/ncu, which prints
# ncu's "==PROF== Profiling" lines as the real one does and, like ncu
# 2025.3.1, writes its report and exits 0 when its workload is ended by
# SIGTERM): a 30 s workload stopped once N launches are done, the report
# whole; -n 0 and a count never reached leave the workload its whole run;
# the output passes through unchanged, stdout and stderr apart; the
# workload's exit code comes back when it ran to its end.
. "$(dirname "$0")/lib.sh"

export PATH=$ROOT/tests/fake:$PATH

test_expect_success 'stopped once the 3 launches are profiled: the report written, exit 0, in well under the 30 s' '
	start=$(date +%s) &&
	LP_FAKE_NCU_PROF=3 lp-ncustop -n 3 -t t.tsv -- sh -c "ncu --export r -- sleep 30" >out 2>err &&
	test $(($(date +%s) - start)) -lt 10 &&
	test $(grep -c "^==PROF== Profiling" out) = 3 &&
	test_grep "^lp-ncustop: 3 launches profiled, all that were asked: the workload is stopped (SIGTERM to 1 processes below ncu)" err &&
	test_grep "^ncu report of: sleep 30" r.ncu-rep &&
	table t.tsv launches stopped >got && printf "3\tyes\n" >expect && test_cmp expect got
'

test_expect_success 'a count not reached, or -n 0: the workload runs to its end, its exit code comes back' '
	LP_FAKE_NCU_PROF=2 lp-ncustop -n 5 -t t.tsv -- sh -c "ncu --export r -- sh -c \"sleep 1; exit 3\"" >out 2>err;
	test $? = 3 && ! test -s err &&
	table t.tsv launches stopped >got && printf "2\tno\n" >expect && test_cmp expect got &&
	LP_FAKE_NCU_PROF=2 lp-ncustop -n 0 -- ncu --export r -- true >out &&
	test $(grep -c "^==PROF== Profiling" out) = 2
'

test_expect_success 'the output passes through unchanged, stdout and stderr apart, a line cut anywhere' '
	printf "a\nb" >o.want && printf "==PROF== Profi" >e.want &&
	lp-ncustop -n 1 -- sh -c "printf \"a\\nb\"; printf \"==PROF== Profi\" >&2" >o.got 2>e.got &&
	test_cmp o.want o.got && test_cmp e.want e.got
'

test_expect_success 'usage: a count that is not one, no command' '
	test_expect_code 2 lp-ncustop -n x -- true 2>err && test_grep "expected a count" err &&
	test_expect_code 2 lp-ncustop -n 1 2>err
'

test_expect_success 'a process the command leaves running holds neither lp-ncustop nor its exit code; a command not found is 127' '
	timeout 60 lp-ncustop -- sh -c "sleep 300 & echo \$! >sleeper; echo hi; exit 5" >out 2>err
	rc=$?; kill "$(cat sleeper)" 2>/dev/null
	test "$rc" = 5 && echo hi >want && test_cmp want out &&
	test_expect_code 127 lp-ncustop -- no-such-command-here 2>err &&
	test_grep "^lp-ncustop: no-such-command-here: No such file or directory$" err
'

# lp-ncumetrics: ncu --query-metrics once per ncu version and GPUs, kept
# (the metric query of a live run; the stand-in ncu and nvidia-smi).
test_expect_success 'lp-ncumetrics: the metric list kept per ncu and GPUs, asked again for others, never kept half' '
	F=$ROOT/tests/fake && mkdir -p smi && Q=$FIX/h200-probe/query-metrics.txt &&
	PATH=$F:$PATH lp-ncumetrics -c c/m >a && test_cmp "$Q" a &&
	test $(ls c/m | wc -l) = 1 && test_cmp "$Q" c/m/*.avail &&
	# kept: the next answer is the file, ncu not asked
	LP_FAKE_LOG=$PWD/log PATH=$F:$PATH lp-ncumetrics -c c/m >b && test_cmp "$Q" b &&
	! grep -q -- "--query-metrics" log &&
	# another GPU: another file
	printf "#!/bin/sh\necho \"NVIDIA H100 80GB HBM3, 570.86.15\"\n" >smi/nvidia-smi && chmod +x smi/nvidia-smi &&
	PATH=$PWD/smi:$F:$PATH lp-ncumetrics -c c/m >o3 && test_cmp "$Q" o3 &&
	test $(ls c/m | wc -l) = 2 &&
	# no nvidia-smi answer: asked each time, nothing kept
	printf "#!/bin/sh\nexit 9\n" >smi/nvidia-smi &&
	: >log && LP_FAKE_LOG=$PWD/log PATH=$PWD/smi:$F:$PATH lp-ncumetrics -c c/m >d && test_cmp "$Q" d &&
	grep -q -- "--query-metrics" log && test $(ls c/m | wc -l) = 2 &&
	# ncu failing: its code, no file kept
	mkdir -p bad && printf "#!/bin/sh\n[ \"\$1\" = --version ] && { echo v9; exit 0; }\necho half; exit 3\n" >bad/ncu &&
	chmod +x bad/ncu &&
	test_expect_code 3 env PATH=$PWD/bad:$F:$PATH lp-ncumetrics -c c/m >e 2>err &&
	test_grep "ncu --query-metrics failed (exit 3)" err &&
	test $(ls c/m | wc -l) = 2
'

test_done
