#!/usr/bin/env bash
# Folders as users bring them (issue 28, items 1 and 2): whole export
# folders imported in any order, never a crash.  An OS runtime summary
# (osrt_sum) has cuda_api_sum's header; its names tell it apart, and it is
# left out, said.  A report given twice where one copy has no process to
# show it belongs is refused naming it, whichever comes first.  On the code
# before, lp-import died with SIGSEGV on both in `ls` order.
. "$(dirname "$0")/lib.sh"

HS=$FIX/h100-hostside
# Stands for nsys stats --report osrt_sum of the same capture (the issue's
# held-out Llama folder: poll 7.528 s, pthread_cond_timedwait): nsys
# 2025.3.1 writes it under cuda_api_sum's very header.
mkdir -p "$TRASH/ll"
cp "$HS"/llama_*.csv "$TRASH/ll/"
cat >"$TRASH/ll/llama_osrt_sum.csv" <<'CSV'
Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
56.0,7528000000,75,100373333.3,100100000.0,1000,100500000,12000.0,poll
30.0,4031000000,40,100775000.0,100000000.0,2000,100900000,15000.0,pthread_cond_timedwait
CSV

test_expect_success 'osrt_sum is named and left out, in ls order and reversed' '
	lp-import "$TRASH"/ll/*.csv >a.mk &&
	lp-import $(ls -r "$TRASH"/ll/*.csv) >b.mk &&
	for m in a.mk b.mk; do
		test_grep -x "LP_IMP_cuda_api_sum := $TRASH/ll/llama_cuda_api_sum.csv" $m &&
		test_grep -x "LP_IMP_OTHER := $TRASH/ll/llama_osrt_sum.csv" $m &&
		test_grep "llama_osrt_sum.csv: an nsys summary of calls that are not CUDA API calls (not read: osrt_sum, or another report lp does not read), its first call poll" $m || return 1
	done
'

test_expect_success 'the run from that folder: the CUDA API figures are cuda_api_sum'"'"'s, not poll'"'"'s' '
	lpmake RUN=ll "IMPORT=$(echo "$TRASH"/ll/*.csv)" MODEL=torch-decoder aggregates.tsv >out 2>err || { cat err; false; } &&
	! grep -q poll "$S2/ll/aggregates.tsv" &&
	test_cmp "$HS/llama_cuda_api_sum.csv" "$S2/ll/nsys/report_cuda_api_sum.csv"
'

test_expect_success 'a report twice, one copy with no process to show it belongs: refused naming it, either order' '
	mkdir -p two && cp "$HS"/llama_*.csv two/ &&
	cp "$HS/gpt2_cuda_gpu_kern_sum.csv" two/other_cuda_gpu_kern_sum.csv &&
	test_expect_code 1 lp-import two/*.csv >out 2>err &&
	test_grep "two/other_cuda_gpu_kern_sum.csv has none" err &&
	test_expect_code 1 lp-import $(ls -r two/*.csv) >out 2>err &&
	test_grep "two/other_cuda_gpu_kern_sum.csv has none" err
'

# A folder named with every character IMPORT allows besides letters and
# digits; make read '=' as an assignment and ':' as a target pattern in
# the rule lines that named the imported files (issue 28, item 6): the
# code before stopped with "multiple target patterns".
V2=$FIX/h200-torch-v2
test_expect_success 'IMPORT from a folder named with = : , @ + ~: the same tables as from a plain one, make -q true' '
	d="$TRASH/x=1:2,y@z+w~" && mkdir -p "$d" && cp "$V2"/torch_*.csv "$d/" &&
	lpmake RUN=eq "IMPORT=$(echo "$d"/*.csv)" MODEL=torch-decoder kernels.md regions.md stakeholder_summary.md >out 2>err ||
		{ cat err; return 1; }
	lpmake RUN=plain "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder kernels.md regions.md >/dev/null &&
	for t in kernels.tsv regions.tsv stages.tsv; do
		sed "/^#/d" "$S2/plain/$t" >a && sed "/^#/d" "$S2/eq/$t" >b && test_cmp a b || return 1
	done &&
	test_grep "x=1:2,y@z+w~/torch_ncu_raw.csv" "$S2/eq/kernels.tsv" &&
	lpmake -q RUN=eq kernels.md regions.md stakeholder_summary.md &&
	touch "$d/torch_ncu_raw.csv" &&
	test_must_fail lpmake -q RUN=eq kernels.md &&
	lpmake RUN=eq kernels.md >/dev/null && lpmake -q RUN=eq kernels.md
'

test_expect_success 'IMPORT from folders named with a blank, quotes or $(...): refused, nothing run' '
	for n in "a b" "q\"u" "s'"'"'q" "\$(touch PWNED)" "\`touch PWNED\`"; do
		mkdir -p "$TRASH/$n" && cp "$V2/torch_cuda_gpu_kern_sum.csv" "$TRASH/$n/" &&
		test_must_fail lpmake RUN=bad "IMPORT=$TRASH/$n/torch_cuda_gpu_kern_sum.csv" kernels.md >out 2>err || return 1
		test_grep -e "IMPORT: use paths of letters, digits and" -e "IMPORT.s blanks separate paths" err || return 1
	done &&
	! test -e "$TRASH/t$test_count/PWNED" && ! test -e "$ROOT/PWNED" && ! test -e PWNED &&
	! test -e "$S2/bad/import.mk"
'

test_done
