#!/usr/bin/env bash
# Issue 26 on the GPU machine (run from the repo root with $OUT set): what
# tracing CUDA graphs per node (lp's default, --cuda-graph-trace=node) costs
# against nsys's own whole-graph tracing, on the graphed and on the eager
# torch_decoder: the workload alone and the nsys capture each way, as lp
# runs them (make RUN=x alone.tsv, make RUN=x nsys/report.nsys-rep with and
# without SET=nsys_cli.cuda_graph_trace=graph), interleaved, two rounds;
# with the workload's own time of its 32 decode steps (its printed time=).
# Writes $OUT/explore16.txt.
set -u
S=/tmp/lpc16
W="python3 tests/workloads/torch_decoder.py"
m() { make --no-print-directory LP_STAGE2_DIR=$S "$@"; }
{
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(nsys --version)"
for rep in 1 2; do
	for mode in graph eager; do
		rm -rf $S/a$mode $S/n$mode $S/g$mode
		m RUN=a$mode "WORK=$W --mode $mode" MODEL=torch-decoder alone.tsv >/dev/null 2>&1
		m RUN=n$mode "WORK=$W --mode $mode" MODEL=torch-decoder nsys/report.nsys-rep >$S/n$mode.log 2>&1
		m RUN=g$mode "WORK=$W --mode $mode" MODEL=torch-decoder SET=nsys_cli.cuda_graph_trace=graph \
			nsys/report.nsys-rep >$S/g$mode.log 2>&1
		printf 'round %s, %-5s workload: alone %s s; nsys node %s s (its 32 steps %s); nsys graph %s s (its 32 steps %s)\n' \
			$rep $mode "$(cut -f2 $S/a$mode/alone.tsv 2>/dev/null | grep -v '^#' | head -1)" \
			"$(cut -f2 $S/n$mode/nsys/profile.time 2>/dev/null)" "$(grep -o 'time=[0-9.]*ms' $S/n$mode.log)" \
			"$(cut -f2 $S/g$mode/nsys/profile.time 2>/dev/null)" "$(grep -o 'time=[0-9.]*ms' $S/g$mode.log)"
	done
done
} 2>&1 | tee "${OUT:-/tmp}/explore16.txt"
