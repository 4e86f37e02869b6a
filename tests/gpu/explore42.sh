#!/usr/bin/env bash
# Issue 42 on the GPU machine, one call: (1) lp's live deep profile of the
# TinyLlama-shaped Llama with the packed traces (make ...
# stakeholder_summary.md), each step's time; (2) ncu's run of lp's own
# command stopped by killing the workload once the launches the full run
# profiled are done: is the report whole, how much time it saves; (3) what
# the metric query, ncu --version and nvidia-smi cost.  Writes
# $OUT/explore42.txt and the run's *.time files.
set -u
O=${OUT:-/tmp}
S=/tmp/lpx42
rm -rf $S && mkdir -p $S
make -s -j16 >"$O/build.log" 2>&1 || { cat "$O/build.log"; exit 1; }
export PATH=$PWD/bin:$PATH
L="python3 tests/workloads/hf_llama.py"
now() { date +%s.%N; }
desc() { local c; for c in $(pgrep -P "$1"); do echo "$c"; desc "$c"; done; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
{
echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1); $(nsys --version)"
$L >/dev/null 2>&1	# warm-up
t0=$(now); $L >/dev/null 2>&1; t1=$(now); echo "alone: $(secs $t0 $t1) s"
t0=$(now); timeout 400 make --no-print-directory LP_STAGE2_DIR=$S RUN=ll "WORK=$L" MODEL=hf-llama stakeholder_summary.md >$S/make.log 2>&1
rc=$?; t1=$(now)
echo "lp deep profile: $(secs $t0 $t1) s, exit $rc"
[ $rc = 0 ] || tail -20 $S/make.log
for f in $(cd $S/ll && find . -name '*.time' | sort); do printf '  %-28s %s\n' "$f" "$(tr '\n' ' ' <$S/ll/$f)"; done
ls -la $S/ll/nsys/ | grep -e lpt -e trace
grep -c '^==PROF== Profiling' $S/make.log | sed 's/^/ncu launches profiled in the run: /'
head -12 $S/ll/stakeholder_summary.md
M=$(grep -c '^==PROF== Profiling' $S/make.log)
grep -v '^#' $S/ll/ncu/profile.cmd | sed "s|-o [^ ]*report.tmp|-o $S/kill|" >$S/kill.sh
echo "kill run: $(head -c 300 $S/kill.sh)"
# (2) the same ncu command; the workload killed once M launches are done
t0=$(now)
sh $S/kill.sh >$S/kill.log 2>&1 &
sp=$!
killed=no
while kill -0 $sp 2>/dev/null; do
	n=$(grep -c '^==PROF== Profiling.*passes$' $S/kill.log)
	if [ "$n" -ge "$M" ] && [ $killed = no ]; then
		tk=$(now)
		for ap in $(desc $sp); do
			case $(cat /proc/$ap/comm 2>/dev/null) in ncu* | sh | bash | '') ;; *) echo "kill $ap $(cat /proc/$ap/comm)"; kill -TERM $ap 2>/dev/null ;; esac
		done
		killed=yes
		echo "killed the workload after $(secs $t0 $tk) s, $n launches done"
	fi
	sleep 0.2
done
wait $sp; rc=$?; t1=$(now)
echo "ncu with the kill: $(secs $t0 $t1) s, exit $rc; profiled $(grep -c '^==PROF== Profiling' $S/kill.log)"
tail -5 $S/kill.log
if [ -s $S/kill.ncu-rep ]; then
	ncu --import $S/kill.ncu-rep --page raw --csv >$S/kill.csv 2>$S/kill.imp.err
	echo "report: $(($(wc -l <$S/kill.csv) - 2)) launches; import exit $?"; head -c 300 $S/kill.imp.err
else
	echo "no report written"; ls -la $S | head
fi
# (3) the costs of the queries
t0=$(now); ncu --query-metrics >$S/q.txt 2>&1; t1=$(now); echo "ncu --query-metrics: $(secs $t0 $t1) s, $(wc -l <$S/q.txt) lines"
t0=$(now); ncu --version >/dev/null 2>&1; t1=$(now); echo "ncu --version: $(secs $t0 $t1) s"
t0=$(now); nvidia-smi --query-gpu=name,uuid --format=csv,noheader >/dev/null 2>&1; t1=$(now); echo "nvidia-smi --query-gpu: $(secs $t0 $t1) s"
cmp -s $S/q.txt $S/ll/ncu/metrics.avail && echo "query output = the run's metrics.avail"
} 2>&1 | tee "$O/explore42.txt"
(cd $S/ll && tar -czf "$O/run-times.tgz" $(find . -name '*.time' -o -name '*.cmd' -o -name 'profile_cost.tsv' -o -name 'stakeholder_summary.md' | sort)) 2>/dev/null
cp $S/make.log "$O/make.log" 2>/dev/null
true
