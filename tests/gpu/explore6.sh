#!/usr/bin/env bash
# Issue 17, second look: ncu --launch-count/--kill (stop the workload once
# the top-N kernels are profiled), the cost of the SASS (instrumented)
# counters, and the region metric set per dtype against the full preset
# (passes, wall time, values).  Run after explore5.sh on the same machine
# (it reuses tmp/stage2/{torch,gpt2}).  Writes $OUT/explore6.txt.
set -u
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}/explore6.txt
now() { date +%s.%N; }
T() {
	local s e rc; s=$(now); "${@:2}" >/dev/null 2>"$OUT/err.$1"; rc=$?; e=$(now)
	printf '%s\t%s\t%.2f\trc=%s\n' "$w" "$1" "$(awk -v a=$s -v b=$e 'BEGIN{print b-a}')" $rc | tee -a "$out"
	tail -3 "$OUT/err.$1" >>"$out"
}
ncu --help | grep -A6 -e '--kill' -e '--launch-count' >>"$out"
for w in torch gpt2; do
	r=tmp/stage2/$w
	case $w in
	gpt2) work="python3 tests/workloads/hf_gpt2.py"; model=hf-gpt2 ;;
	torch) work="python3 tests/workloads/torch_decoder.py"; model=torch-decoder ;;
	esac
	[ -f $r/ncu/report.ncu-rep ] || T deep_profile make --no-print-directory RUN=$w WORK="$work" MODEL=$model stakeholder_summary.md
	n=$(grep -vc '^#\|^rank' $r/topn.tsv)
	echo "$w top-N kernels: $n" >>"$out"
	sed -e "s|--kernel-id|--launch-count $n --kill yes --kernel-id|" -e 's|report\.tmp|kill|' $r/ncu/profile.cmd >/tmp/$w-kill.sh
	T ncu_kill sh /tmp/$w-kill.sh
	ncu --import $r/ncu/kill.ncu-rep --page raw --csv >$OUT/$w-kill.csv 2>&1
	ncu --import $r/ncu/report.ncu-rep --page raw --csv >$OUT/$w-full.csv 2>&1
	bin/lp-ncu2tsv $OUT/$w-kill.csv >$OUT/$w-kill.tsv 2>&1
	bin/lp-ncu2tsv $OUT/$w-full.csv >$OUT/$w-full.tsv 2>&1
	[ $w = gpt2 ] && continue
	sed -e 's/,sm__sass_thread_inst_executed_op_[a-z]*_pred_on\.sum//g' -e 's|report\.tmp|nosass|' $r/ncu/profile.cmd >/tmp/$w-nosass.sh
	T ncu_nosass sh /tmp/$w-nosass.sh
	T ncu_nothing_nvtx ncu --target-processes all --devices 0 --nvtx --nvtx-include 'LLM\@decode_all/' --kernel-name regex:^NoSuchKernel$ -- python3 tests/workloads/torch_decoder.py
	# regions: today's full preset (depth 0), and the fp16 set
	make --no-print-directory RUN=$w $r/ncu/regions/profile.cmd >/dev/null 2>&1
	ls $r/ncu/regions/ >>"$out"
	cp $r/ncu/regions/*.cmd $OUT/ 2>/dev/null
	cat $r/ncu/regions/profile.cmd >>"$out"
	full=$(grep -v '^#' $r/ncu/regions/profile.cmd | head -1)
	T reg_d0_full sh -c "$full"
	ncu --import $r/ncu/regions/tmp.d0.ncu-rep --page raw --csv >$OUT/$w-reg-full.csv 2>&1
	small=$(printf '%s' "$full" | sed -e 's/--metrics [^ ]*/--metrics gpu__time_duration.sum,dram__bytes.sum,sm__ops_path_tensor_src_fp16.sum/' -e 's|tmp\.d0|small.d0|')
	T reg_d0_fp16set sh -c "$small"
	ncu --import $r/ncu/regions/small.d0.ncu-rep --page raw --csv >$OUT/$w-reg-small.csv 2>&1
	small2=$(printf '%s' "$full" | sed -e 's/--metrics [^ ]*/--metrics gpu__time_duration.sum,dram__bytes.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum/' -e 's|tmp\.d0|small2.d0|')
	T reg_d0_bf16set sh -c "$small2"
	ncu --import $r/ncu/regions/small2.d0.ncu-rep --page raw --csv >$OUT/$w-reg-small2.csv 2>&1
done
