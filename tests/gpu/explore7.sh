#!/usr/bin/env bash
# Issue 17, third look (torch_decoder): what a profiled kernel costs ncu
# (top-1 against top-10, rules off, clocks and caches left alone), and the
# replay passes of the region metric sets.  Writes $OUT/explore7.txt and
# $OUT/explore7.tgz (the raw exports).
set -u
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}/explore7.txt
mkdir -p /tmp/x7
now() { date +%s.%N; }
T() {
	local s e rc; s=$(now); "${@:2}" >/dev/null 2>"/tmp/x7/err.$1"; rc=$?; e=$(now)
	printf '%s\t%s\t%.2f\trc=%s\n' "$w" "$1" "$(awk -v a=$s -v b=$e 'BEGIN{print b-a}')" $rc | tee -a "$out"
	tail -2 "/tmp/x7/err.$1" >>"$out"
}
w=torch r=tmp/stage2/$w
T deep_profile make --no-print-directory RUN=$w WORK="python3 tests/workloads/torch_decoder.py" MODEL=torch-decoder stakeholder_summary.md
cmd=$(cat $r/ncu/profile.cmd)
v() { # label sed-expr
	printf '%s' "$cmd" | sed -e "$2" -e "s|report\.tmp|$1|" >/tmp/x7/$1.sh
	T "$1" sh /tmp/x7/$1.sh
	ncu --import $r/ncu/$1.ncu-rep --page raw --csv --metrics profiler__replayer_passes,gpu__time_duration.sum,dram__bytes.sum >/tmp/x7/$1.csv 2>&1
}
v again 's/x/x/'
v norules 's/--replay-mode kernel/--replay-mode kernel --apply-rules no/'
v top1 "s/--kernel-id '::regex:^(\([^|]*\)|[^)]*)\\$/--kernel-id '::regex:^(\1)$/"
v top3 "s/--kernel-id '::regex:^(\([^|]*|[^|]*|[^|]*\)|[^)]*)\\$/--kernel-id '::regex:^(\1)$/"
v noclockcache 's/--replay-mode kernel/--replay-mode kernel --clock-control none --cache-control none/'
v sectionsonly 's/--metrics [^ ]*//'
grep -o "kernel-id '[^']\{0,80\}" /tmp/x7/top1.sh /tmp/x7/top3.sh >>"$out"
make --no-print-directory RUN=$w $r/ncu/regions/profile.cmd >/dev/null 2>&1
for d in 0 1; do
	full=$(grep -v '^#' $r/ncu/regions/profile.cmd | sed -n "$((d + 1))p")
	small=$(printf '%s' "$full" | sed -e 's/--metrics [^ ]*/--metrics gpu__time_duration.sum,dram__bytes.sum,sm__ops_path_tensor_src_fp16.sum/' -e "s|tmp\.d$d|small.d$d|")
	T reg_d${d}_fp16set sh -c "$small"
	ncu --import $r/ncu/regions/small.d$d.ncu-rep --page raw --csv >/tmp/x7/reg-small-d$d.csv 2>&1
done
(cd /tmp/x7 && tar czf $OUT/explore7.tgz *.csv *.sh)
