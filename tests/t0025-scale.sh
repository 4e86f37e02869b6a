#!/usr/bin/env bash
# Multi-GPU tables past two GPUs: the per-rank exports of 8 ranks that
# tests/gen-ranks.sh makes from the real two-H200 per-rank capture
# (tests/fixtures/h200-tp/tpr0_*, tpr1_*) are checked to be a consistent
# capture (one PID, one device a rank, the real rank's rows with times
# moved), imported with make like a per-rank capture, and ranks.tsv and
# overlap.tsv recomputed from them with awk alone (tests/ranks.sh); and
# lp-procs finds each process's GPU when another GPU's operation starts at
# the same nanosecond as one of its ranges, as happened at 1,024 ranks.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/ranks.sh"

TP=$FIX/h200-tp
G=$TRASH/g8
J=$TRASH/joined
mkdir -p "$J"
# join REPORT: the 8 ranks' exports of REPORT, header once (as a
# per-rank capture's files are joined), by awk
join() {
	awk 'FNR == 1 && NR > 1 { next } { print }' \
		"$G"/r0_$1.csv "$G"/r1_$1.csv "$G"/r2_$1.csv "$G"/r3_$1.csv \
		"$G"/r4_$1.csv "$G"/r5_$1.csv "$G"/r6_$1.csv "$G"/r7_$1.csv
}
REPS="cuda_api_sum cuda_gpu_kern_sum cuda_gpu_kern_sum_mangled cuda_gpu_mem_time_sum
	cuda_gpu_trace_mangled nvtx_gpu_proj_trace nvtx_kern_sum nvtx_kern_sum_mangled
	nvtx_pushpop_trace nvtx_sum"

test_expect_success 'setup: 8 ranks generated, imported with make' '
	"$ROOT/tests/gen-ranks.sh" 8 "$G" &&
	test $(ls "$G" | wc -l) = 80 &&
	lpmake RUN=g8 "IMPORT=$(echo "$G"/r*.csv)" MODEL=tp-mlp SET=model.decode_tokens=8 \
		ranks.tsv overlap.tsv findings.tsv >/dev/null
'

test_expect_success 'each rank: one PID (20000 + rank) and one device (its rank), the real rank'"'"'s rows, times moved by rank x 1009 ns' '
	for r in 0 1 2 3 4 5 6 7; do
		for rep in $REPS; do
			t=tpr$((r == 1)) &&
			A -v r=$r -v rep=$rep "
				FNR == 1 { fi++; n = csv(\$0, f); delete h; col(f, n, h); if (fi == 1) head = \$0
					else if (\$0 != head) { print rep \": header differs\"; bad = 1 }; next }
				fi == 1 { src[FNR] = \$0; rows = FNR; next }
				{
					if (FNR > rows) { print rep \": more rows than the real rank\"; bad = 1; exit }
					m = csv(src[FNR], g); csv(\$0, f)
					for (i = 1; i <= n; i++) {
						want = g[i]
						if ((f[i] != \"\" || g[i] != \"\") && (h[\"PID\"] == i || h[\"TID\"] == i))
							want = 20000 + r
						else if (g[i] != \"\" && (i == h[\"Start (ns)\"] || i == h[\"End (ns)\"] ||
							i == h[\"Projected Start (ns)\"] || i == h[\"Orig Start (ns)\"]))
							want = sprintf(\"%.0f\", g[i] + r * 1009)
						else if (i == h[\"Device\"] && g[i] != \"\")
							want = \"NVIDIA H200 (\" r \")\"
						if (f[i] \"\" != want \"\") { print rep \":\" FNR \":\" i \": \" f[i] \" != \" want; bad = 1 }
					}
				}
				END { if (!bad && FNR != rows) { print rep \": \" FNR \" rows, not \" rows; bad = 1 }; exit bad }" \
				"$TP/${t}_$rep.csv" "$G/r${r}_$rep.csv" || return 1
		done
	done
'

test_expect_success 'the 8 ranks make a consistent capture: 8 PIDs on 8 GPUs, each range starting at its own GPU'"'"'s operation' '
	join nvtx_pushpop_trace >"$J/pushpop.csv" && join nvtx_kern_sum >"$J/kern.csv" &&
	join nvtx_gpu_proj_trace >"$J/proj.csv" && join cuda_gpu_trace_mangled >"$J/trace.csv" &&
	cd "$J" &&
	A "FNR == 1 { n = csv(\$0, f); delete h; col(f, n, h); fi++; next }
		{ csv(\$0, f) }
		fi < 4 { pid[f[h[\"PID\"]]] = 1 }
		fi == 3 && f[h[\"NumGPUOps\"]] > 0 { start[f[h[\"Projected Start (ns)\"]]] = f[h[\"PID\"]] - 20000 }
		fi == 4 { dev[f[h[\"Device\"]]] = 1; if (f[h[\"Start (ns)\"]] in start) {
			s = f[h[\"Start (ns)\"]]; r = start[s]
			if (f[h[\"Device\"]] == \"NVIDIA H200 (\" r \")\") own[s] = 1 } }
		END { np = nd = ns = no = 0
			for (p in pid) np++; for (d in dev) nd++; for (s in start) { ns++; no += s in own }
			print np, nd, ns == no }" pushpop.csv kern.csv proj.csv trace.csv >got &&
	echo "8 8 1" >expect &&
	test_cmp expect got
'

test_expect_success 'ranks.tsv of 8 ranks, each process alone, by awk from the exports' '
	ranks "$J/proj.csv" "$J/trace.csv" "$J/pushpop.csv" "$J/kern.csv" >expect &&
	test $(wc -l <expect) = 24 &&
	table "$S2/g8/ranks.tsv" $RCOLS |
		awk -F"\t" -v OFS="\t" "\$11 ~ /^[0-9]/ { \$11 = sprintf(\"%.1f\", \$11) } 1" | sort >got &&
	test_cmp expect got &&
	test_grep "^# processes: 8$" "$S2/g8/ranks.tsv"
'

test_expect_success 'overlap.tsv of 8 GPUs, unions of kernel intervals per GPU, by awk' '
	overlap "$J/trace.csv" >expect &&
	test $(wc -l <expect) = 8 &&
	table "$S2/g8/overlap.tsv" $OCOLS | rnd "%.1f" 9 10 | sort >got &&
	test_cmp expect got
'

test_expect_success 'one straggler of 8: the copy of the real straggler, rank 1, named with its GPU' '
	table "$S2/g8/ranks.tsv" stage pid device straggler | grep "	yes$" | grep -v "^prefill" >got &&
	printf "%s\n" "decode_all	20001	NVIDIA H200 (1)	yes" "decode_step	20001	NVIDIA H200 (1)	yes" >expect &&
	test_cmp expect got &&
	test_grep "	straggler	.*	Process 20001 (NVIDIA H200 (1)) is the straggler of decode_all: 21.006 ms per instance more outside communication" \
		"$S2/g8/findings.tsv"
'

test_expect_success 'gap and straggler: each process outside communication less the least; ties to the first in procs.tsv' '
	table "$S2/g8/ranks.tsv" stage work_ns gap_ns straggler median_ns |
	A -v FS="	" "{ w[NR] = \$2; s[NR] = \$1; g[NR] = \$3; y[NR] = \$4; m[NR] = \$5
		if (!(\$1 in lo) || \$2 < lo[\$1]) lo[\$1] = \$2; if (!(\$1 in hi) || \$2 > hi[\$1]) hi[\$1] = \$2 }
		END { for (i = 1; i <= NR; i++) { e = fmt(\"%.1f\", w[i] - lo[s[i]])
			ys = w[i] == hi[s[i]] && !(s[i] in named) && hi[s[i]] - lo[s[i]] >= 0.10 * m[i] ? \"yes\" : \"no\"
			if (ys == \"yes\") named[s[i]] = 1
			if (e != g[i] || ys != y[i]) { print \"row \" i \": \" g[i] \" \" y[i] \" != \" e \" \" ys; bad = 1 } }
			exit bad }"
'

test_expect_success 'the tools given the joined exports directly give the tables make gave' '
	for rep in $REPS; do join $rep >$rep.csv || return 1; done &&
	lp-confmerge "$ROOT/conf/runner/stage2.yaml" "$ROOT/conf/profiling/nsys/nsys.default.yaml" \
		"$ROOT/conf/model/tp-mlp.yaml" >nsys.yaml &&
	lp-procs -D 0 -g nvtx_gpu_proj_trace.csv -t cuda_gpu_trace_mangled.csv nvtx_kern_sum.csv >procs.tsv &&
	lp-ranks -c nsys.yaml -o "$ROOT/conf/operators.yaml" -k nvtx_kern_sum.csv -p procs.tsv \
		nvtx_pushpop_trace.csv >ranks.tsv &&
	lp-overlap -o "$ROOT/conf/operators.yaml" cuda_gpu_trace_mangled.csv >overlap.tsv &&
	for t in procs ranks overlap; do
		grep -v "^# source" "$S2/g8/$t.tsv" >expect &&
		grep -v "^# source" $t.tsv >got &&
		test_cmp expect got || return 1
	done
'

# At 1,024 generated ranks, 624 processes lost their GPU: a range of one
# rank started at the same nanosecond as an operation of another rank's
# GPU that came first in the trace, and lp-procs took the first operation
# at that time.  Here the start of rank 1's first decode_step is given to
# the kernel of rank 0 before it (rank 0's trace stays sorted), as the
# nanosecond clocks of many GPUs make happen.
test_expect_success 'lp-procs: an operation of another GPU at a range'"'"'s start does not take the process off its GPU' '
	"$ROOT/tests/gen-ranks.sh" 2 g2 &&
	t1=$(A "FNR == 1 { n = csv(\$0, f); col(f, n, h); next }
		{ csv(\$0, f); if (f[h[\"NumGPUOps\"]] > 0 && f[h[\"Name\"]] ~ /decode_step/) { print f[h[\"Projected Start (ns)\"]]; exit } }" \
		g2/r1_nvtx_gpu_proj_trace.csv) &&
	A -v t1="$t1" "FNR == 1 { n = csv(\$0, f); col(f, n, h); next }
		{ csv(\$0, f); if (f[h[\"Name\"]] !~ /^\\[CUDA / && f[h[\"Start (ns)\"]] + 0 < t1 + 0) at = FNR
			if (f[h[\"Start (ns)\"]] + 0 > t1 + 0 && !next1) next1 = FNR }
		END { if (!at || next1 <= at) exit 1; print at }" g2/r0_cuda_gpu_trace_mangled.csv >at &&
	{ head -n 1 g2/r0_cuda_gpu_trace_mangled.csv &&
	  awk -v at=$(cat at) -v t1="$t1" -F, -v OFS=, "FNR == 1 { next } FILENAME ~ /r0_/ && FNR == at { \$1 = t1 } { print }" \
		g2/r0_cuda_gpu_trace_mangled.csv g2/r1_cuda_gpu_trace_mangled.csv; } >trace.csv &&
	test $(grep -c "^$t1," trace.csv) = 2 &&
	awk "FNR == 1 && NR > 1 { next } { print }" g2/r0_nvtx_gpu_proj_trace.csv g2/r1_nvtx_gpu_proj_trace.csv >proj.csv &&
	awk "FNR == 1 && NR > 1 { next } { print }" g2/r0_nvtx_kern_sum.csv g2/r1_nvtx_kern_sum.csv >kern.csv &&
	lp-procs -D 0 -g proj.csv -t trace.csv kern.csv >procs.tsv &&
	table procs.tsv pid device profiled >got &&
	printf "%s\n" "20000	NVIDIA H200 (0)	yes" "20001	NVIDIA H200 (1)	no" >expect &&
	test_cmp expect got
'

test_done
