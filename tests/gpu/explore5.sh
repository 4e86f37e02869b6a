#!/usr/bin/env bash
# Where the time of a deep profile goes (issue 17), on the GPU machine:
# each make step of the deep profile timed, the workload alone, and the
# variants that could cut it (nsys without osrt, nsys stats alone and its
# sqlite export, ncu with no kernel matched, ncu without the sections no
# table reads).  Writes $OUT/explore5-*.txt.
set -u
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}/explore5.txt
now() { date +%s.%N; }
T() { # label cmd...: time one command, its exit code
	local s e rc; s=$(now); "${@:2}" >/dev/null 2>"$OUT/err.$$"; rc=$?; e=$(now)
	printf '%s\t%s\t%.2f\trc=%s\n' "$w" "$1" "$(awk -v a=$s -v b=$e 'BEGIN{print b-a}')" $rc | tee -a "$out"
	[ $rc = 0 ] || tail -5 "$OUT/err.$$" >>"$out"
}
for w in gpt2 torch; do
	case $w in
	gpt2) work="python3 tests/workloads/hf_gpt2.py"; model=hf-gpt2 ;;
	torch) work="python3 tests/workloads/torch_decoder.py"; model=torch-decoder ;;
	esac
	r=tmp/stage2/$w
	m() { make --no-print-directory RUN=$w "$@"; }
	T warm $work
	T alone1 $work
	T alone2 $work
	m WORK="$work" MODEL=$model env.json $r/nsys/profile.cmd >/dev/null 2>&1
	T make_nsys_profile m $r/nsys/report.nsys-rep
	T make_nsys_stats m $r/nsys/stats.log
	T make_topn m topn.tsv
	T make_ncu_metrics_avail m $r/ncu/metrics.avail
	T make_ncu_profile m $r/ncu/report.ncu-rep
	T make_ncu_export m $r/ncu/report.csv
	T make_tables m stakeholder_summary.md kernels.md
	cp $r/nsys/profile.cmd $r/ncu/profile.cmd $r/nsys/stats.cmd $OUT/$w-cmds.txt 2>/dev/null
	cat $r/nsys/profile.cmd $r/nsys/stats.cmd $r/ncu/profile.cmd >>"$out"
	# variants
	T nsys_no_osrt nsys profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --force-overwrite=true --output=/tmp/$w-noosrt -- $work
	T nsys_export_sqlite nsys export --type sqlite --force-overwrite true -o /tmp/$w.sqlite $r/nsys/report.nsys-rep
	T nsys_stats_again sh $r/nsys/stats.cmd
	T nsys_stats_from_sqlite nsys stats --report cuda_gpu_kern_sum --report nvtx_sum --format csv --output /tmp/$w-x /tmp/$w.sqlite
	T ncu_nothing ncu --target-processes all --kernel-name regex:^NoSuchKernel$ -- $work
	mapfile -t a < <(sed 's/--section [A-Za-z]*//g' $r/ncu/profile.cmd | tr ' ' '\n')
	sed -e 's/--section MemoryWorkloadAnalysis//; s/--section ComputeWorkloadAnalysis//' -e 's|report\.tmp|nosec|' $r/ncu/profile.cmd >/tmp/$w-nosec.sh
	T ncu_no_mwa_cwa sh /tmp/$w-nosec.sh
	sed -e 's/--section [A-Za-z]*//g' -e 's|report\.tmp|nosec2|' $r/ncu/profile.cmd >/tmp/$w-nosec2.sh
	T ncu_metrics_only sh /tmp/$w-nosec2.sh
	ncu --import $r/ncu/report.ncu-rep --page raw --csv --metrics profiler__replayer_passes 2>/dev/null | cut -c1-300 | head -4 >>"$out"
	ls -la $r/nsys $r/ncu >>"$out"
done
