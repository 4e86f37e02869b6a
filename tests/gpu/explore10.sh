#!/usr/bin/env bash
# Issue 17 on the GPU machine (run from the repo root with $OUT set): which
# of ncu's --clock-control none and --cache-control none cuts the ncu step
# (explore9: both together, top 10, 22.2 -> 14.0 s), and what each does to
# the numbers lp reads (per kernel: ncu time, DRAM bytes, FLOPs against
# the default).  Writes $OUT/explore10.txt.
set -u
. .device/nsys-env.sh && . tests/gpu/device-env.sh >/dev/null
make -j16 >/dev/null 2>&1 || { echo build failed; exit 1; }
export LP_BIN=$PWD/bin
S=/tmp/lpe; mkdir -p $S /tmp/e10
W="python3 tests/workloads/torch_decoder.py"
m() { make --no-print-directory LP_STAGE2_DIR=$S RUN=e WORK="$W" MODEL=torch-decoder NCU_PRESET= TOPN= "$@"; }
m SET= kernels.tsv >/tmp/e0.log 2>&1 || { tail -20 /tmp/e0.log; exit 1; }
one() {	# NAME SET-value
	rm -f $S/e/ncu/report.ncu-rep
	m SET="$2" ncu/metrics.tsv >/tmp/e.log 2>&1; rc=$?
	[ $rc = 0 ] || tail -5 /tmp/e.log
	printf '%-10s %-70s rc=%s ncu %s s\n' "$1" "SET=$2" "$rc" "$(cut -f2 $S/e/ncu/profile.time 2>/dev/null)"
	sed '/^#/d' $S/e/ncu/metrics.tsv >/tmp/e10/$1.tsv
}
# per kernel (and shape): this setting's ncu time, DRAM bytes, FLOPs over the default's
cmp1() {
	awk -F'\t' -v OFS='\t' 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		NR == FNR { k = $1 $c["grid"] $c["block"]; t[k] = $c["gpu_time_ns"]; b[k] = $c["dram_bytes"]; f[k] = $c["flops"]; next }
		{ k = $1 $c["grid"] $c["block"]; if (!(k in t)) { print "  not in default:", substr($1, 1, 50); next }
		  printf "  %-50s time %6.3f  dram %6.3f  flops %6.3f\n", substr($1, 1, 50), $c["gpu_time_ns"] / t[k],
			b[k] ? $c["dram_bytes"] / b[k] : -1, f[k] ? $c["flops"] / f[k] : -1 }' /tmp/e10/base.tsv /tmp/e10/$1.tsv
}
{
	echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(ncu --version | tail -1)"
	one base ""
	one base2 ""
	one clock "ncu_cli.extra_args=--clock-control,none"
	one cache "ncu_cli.extra_args=--cache-control,none"
	one both "ncu_cli.extra_args=--cache-control,none,--clock-control,none"
	one clock2 "ncu_cli.extra_args=--clock-control,none"
	for v in base2 clock cache both clock2; do echo "$v against base:"; cmp1 $v; done
} 2>&1 | tee "${OUT:-/tmp}/explore10.txt"
