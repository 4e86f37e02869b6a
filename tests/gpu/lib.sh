# tests/gpu/lib.sh: checks on a live run's artifacts, for the GPU tests.
# Sourced after tests/lib.sh.  Runs go to $LP_GPU_STAGE2 (kept, so that a
# device run can copy them out) or under $TRASH.

S2=${LP_GPU_STAGE2:-$TRASH/s2}
mkdir -p "$S2"
lpmake() {
	make -C "$ROOT" --no-print-directory LP_STAGE2_DIR="$S2" "$@"
}

# The kernels of a run's stage, as nsys names them (demangled).
stage_kernels() {
	range=$(lp-nsyscmd -r <"$S2/$1/nsys/config.yaml") &&
	lp-topn -n 0 -f names -r "$range" "$S2/$1/nsys/report_nvtx_kern_sum.csv"
}

# Every kernel in kernels.tsv/kernels.md is one nsys saw in the stage.
check_kernels_in_nsys() {
	stage_kernels "$1" | sort >nsys.names || return 1
	sed '/^#/d' "$S2/$1/kernels.tsv" | sed 1d | cut -f2 | sort >tsv.names
	test -s tsv.names || { echo "no kernels in kernels.tsv"; return 1; }
	comm -13 nsys.names tsv.names >not_in_nsys
	test_must_be_empty not_in_nsys || return 1
	rows=$(grep -c '^| [0-9]' "$S2/$1/kernels.md")
	want=$(wc -l <tsv.names)
	[ "$want" -gt 25 ] && want=25
	[ "$rows" = "$want" ] || { echo "kernels.md has $rows rows, want $want"; return 1; }
}

# ncu profiled every kernel lp-topn selected, exactly once each.
check_ncu_profiled_selected() {
	# topn.tsv: (kernel, grid, block) pairs where the run has the kernel
	# trace (lp-shapes), else kernels; ncu profiles every launch
	# configuration of the selected kernels, one launch each
	sed -n "/^#/!{p;q}" "$S2/$1/topn.tsv" | tr "\t" "\n" >columns &&
	if grep -qx grid columns; then
		table "$S2/$1/topn.tsv" kernel grid block | sort -u >selected &&
		table "$S2/$1/ncu/metrics.tsv" kernel grid block | sort -u >profiled
	else
		table "$S2/$1/topn.tsv" kernel | sort -u >selected &&
		table "$S2/$1/ncu/metrics.tsv" kernel | sort -u >profiled
	fi &&
	comm -23 selected profiled >missed &&
	test_must_be_empty missed &&
	table "$S2/$1/ncu/metrics.tsv" launches | sort -u >launches &&
	echo 1 >one && test_cmp one launches &&
	n=$(cut -f1 selected | sort -u | wc -l) &&
	test_grep "^# match: $n of $n ncu kernels matched (mangled $n," "$S2/$1/kernels.tsv"
}

# The named stages have wall time in nvtx_sum and kernels in nvtx_kern_sum.
check_stages_nonempty() {
	r=$1
	shift
	for st in "$@"; do
		lp-confmerge -s run.stage="$st" "$S2/$r/nsys/config.yaml" >stage.yaml &&
		range=$(lp-nsyscmd -r <stage.yaml) &&
		lp-topn -n 1 -r "$range" "$S2/$r/nsys/report_nvtx_kern_sum.csv" >/dev/null &&
		grep -q -e ",$range\$" -e ",${range#:}\$" "$S2/$r/nsys/report_nvtx_sum.csv" ||
		{ echo "stage $st ($range) is empty"; return 1; }
	done
}

check_summary() {
	test_grep "^| GPU | NVIDIA H" "$S2/$1/details.md" &&
	test_grep "^| Nsight Compute | Version 20" "$S2/$1/details.md" &&
	test_grep "^| Model | $2 " "$S2/$1/details.md" &&
	test_grep "^| decode_all | [0-9.]* [kMGT]*FLOP | [0-9.]* | [0-9.]* [kMGT]*FLOP/s | [0-9.]*% |" "$S2/$1/details.md" &&
	test_grep "^| tensor | fp16 | [0-9.]* [TP]FLOP/s |" "$S2/$1/details.md"
}

# A named column of a table's rows: tcol FILE COLUMN
tcol() {
	sed "/^#/d" "$1" | awk -F"\t" -v c="$2" "NR == 1 { for (i = 1; i <= NF; i++) if (\$i == c) k = i; next } { print \$k }"
}

# Regions of a run: every region measured, durations against nsys's
# projection within the bounds lp(7) gives (ncu replays with locked
# clocks: it is slower, not 10x), kernel time within the region's span.
check_regions() {
	r=$S2/$1
	test -s "$r/regions.md" && test -s "$r/region_instances.tsv" &&
	tcol "$r/regions.tsv" path >paths &&
	printf "%s\n" prefill decode_all "decode_all > decode_step" >want &&
	test_cmp want paths &&
	tcol "$r/regions.tsv" gpu_first_ns | grep -v "^[0-9]" >bad; test_must_be_empty bad &&
	paste <(tcol "$r/regions.tsv" path) <(tcol "$r/regions.tsv" ncu_over_nsys) \
		<(tcol "$r/regions.tsv" busy_pct) >ratios &&
	cat ratios >>"$S2/regions-ratios.txt" &&
	awk -F"\t" -v lo="$2" -v hi="$3" "\$2 ~ /^[0-9]/ && (\$2 < lo || \$2 > hi) { print \"ratio out of bounds:\", \$0; bad = 1 }
		\$3 ~ /^[0-9]/ && \$3 > 120 { print \"busy over 120%:\", \$0; bad = 1 } END { exit bad }" ratios
}

# need_gpus N: a test file that needs N GPUs skips on a machine with fewer
# (one TAP "skip" line); NVLink multicast stays off (the device notes).
need_gpus() {
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU ")
	if [ "$ngpu" -lt "$1" ]; then
		echo "ok 1 # skip needs $1 GPUs, this machine has $ngpu"
		echo "1..1"
		exit 0
	fi
	export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
}
