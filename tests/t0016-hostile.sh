#!/usr/bin/env bash
# Hostile input: every tool, fed a real capture (tests/fixtures/) or a
# table made from one, with one small edit that breaks it, must refuse it:
# the exit status of bad data (1) or of bad usage (2), nothing on stdout,
# and one line on stderr that names the tool and, for bad data, the file
# and line ("lp-NAME: FILE:LINE[:COL]: what", lp_die_at in tools/lib/err.c).
# An empty file has no line: there the file alone is enough.
#
# One case a line in the table at the bottom; adding a case is adding a line.
. "$(dirname "$0")/lib.sh"

C=$ROOT/conf
V2=$FIX/h200-torch-v2			# make demo's PyTorch run on the H200
TP=$FIX/h200-tp				# a torchrun job on two H200s
RAW=$FIX/h200-tinyllm/dec_raw.csv	# ncu --page raw, scaled units
DET=$FIX/h200-tinyllm/dec_details.csv	# ncu --page details (long)
R=$S2/b					# the run made by the setup below

# ---- edits: each a filter, the real file in, the hostile one out ----

# csvset and tsvset (one field of an export or a table changed): tests/lib.sh

# The billion laughs: nine anchors of nine aliases each, 9^9 strings once
# expanded, in nine lines.  bomb appends them to a YAML mapping; jsonbomb
# puts them, in flow style, at the head of env.json's "notes" list.
bomb() {
	cat
	echo 'lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'
	for i in 1 2 3 4 5 6 7 8; do
		j=$((i - 1))
		echo "lol$i: &l$i [*l$j, *l$j, *l$j, *l$j, *l$j, *l$j, *l$j, *l$j, *l$j]"
	done
}
laughs() {
	bomb </dev/null | sed 's/^lol[0-9]: //' | paste -s -d, -
}
# notes X: X put first in env.json's "notes" list
notes() {
	awk -v x="$1" '/^  "notes": \[/ { i = index($0, "["); r = substr($0, i + 1)
		$0 = substr($0, 1, i) x (r ~ /^\]/ ? "" : ", ") r } 1'
}
jsonbomb() {
	notes "$(laughs)"
}

# 10,000 nested flow sequences: deep appends them to a YAML mapping,
# jsondeep puts them in env.json's "notes".
nest() {
	awk 'BEGIN { for (i = 0; i < 10000; i++) { o = o "["; c = c "]" } print o c }'
}
deep() {
	cat
	echo "deep: $(nest)"
}
jsondeep() {
	notes "$(nest)"
}

# ---- the check ----

# hostile: writes $file from $src through $edit, then runs $cmd, which must
# exit $code within 5 seconds (a refusal is quick, an expansion is not)
# with nothing on stdout and stderr matching $pat.  A file under run/ is
# in a copy of the whole run folder, its exports.list pointing into it.
hostile() {
	case $file in
	run/*)
		cp -R "$R" run &&
		sed "s|^$R/|run/|" "$R/ncu/regions/exports.list" >run/ncu/regions/exports.list || return 1
		;;
	esac
	eval "src=\"$src\"" &&
	eval "$edit" <"$src" >"$file.tmp" && mv "$file.tmp" "$file" || {
		echo "hostile: the edit failed: $edit" >&2
		return 1
	}
	# an edit that no longer matches its source tests nothing
	if [ "$edit" != cat ] && cmp -s "$src" "$file"; then
		echo "hostile: the edit changed nothing: $edit" >&2
		return 1
	fi
	eval "timeout -k 5 5 $cmd" >out 2>err
	rc=$?
	if [ "$rc" -ne "$code" ]; then
		echo "exit $rc, wanted $code: $cmd" >&2
		echo "stdout: $(wc -c <out) bytes; stderr:" >&2
		head -3 err >&2
		return 1
	fi
	test_must_be_empty out || return 1
	if ! grep -qE "$pat" err; then
		echo "stderr does not match: $pat" >&2
		head -3 err >&2
		return 1
	fi
}

test_expect_success 'setup: make demo'"'"'s run, every table and the regions' '
	make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=b \
		"IMPORT=$(cd "$ROOT" && echo tests/fixtures/h200-torch-v2/torch_*.csv)" MODEL=torch-decoder \
		stakeholder_summary.md regions.md >/dev/null &&
	for f in config.yaml inputs.yaml env.json kernels.tsv ncu/metrics.tsv stages.tsv steps.tsv \
		gpu.tsv mfu.tsv mbu.tsv roofline.tsv top_kernels.tsv region_instances.tsv \
		ncu/regions/config.yaml ncu/regions/exports.list; do
		test -s "$R/$f" || { echo "no $R/$f"; return 1; }
	done
'

# trim S: S without the blanks around it
trim() {
	set -- "${1#"${1%%[![:space:]]*}"}"
	printf "%s" "${1%"${1##*[![:space:]]}"}"
}

# The table: one case a line, fields split at "|" (the last, the pattern,
# may hold "|").  The kinds of edit, and the real case each stands for:
#   dup-COLUMN     a used column named twice (a newer nsys or ncu naming
#                  another column alike, two exports pasted side by side)
#   long-row, short-row   a row wider or narrower than its header (a kernel
#                  name with an unquoted comma, a hand-edited table)
#   neg-, frac-, nan-, inf-, 1e300-   impossible counts, times, bytes and
#                  percents (an overflowed counter, a unit mix-up, a typo)
#   text-          "12abc": a number with text after it
#   unit-          a unit lp does not know, in the units row (wide ncu
#                  export) or the "Metric Unit" column (long)
#   units-row-     a wide export whose second line is not its units row
#   empty, header-only, cut-in-quotes   a cut-off or failed export
#   nul            binary data in a text file
#   no-tool        an lp table without its "# tool:" line (made by hand)
#   billion-laughs, deep, dup-key   YAML (and JSON) that expands without
#                  end, nests 10,000 deep, or says a key twice
#   -s, -S         lp-confmerge overrides of the wrong type for their key
while IFS='|' read -r id cmd file src edit code pat; do
	case $id in '' | '#'*) continue ;; esac
	id=$(trim "$id") cmd=$(trim "$cmd") file=$(trim "$file") src=$(trim "$src")
	edit=$(trim "$edit") code=$(trim "$code") pat=$(trim "$pat")
	test_expect_success "$id: $cmd <- $file: $edit" hostile
done <<\EOF
# id | command | hostile file | made from | edit | exit | stderr (ERE)
#
# lp-topn: nsys cuda_gpu_kern_sum of the torch decode; line 2 is
# nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_bias_TNT, 384 launches.
topn-dup-column | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | sed '1s/Avg (ns)/Total Time (ns)/' | 1 | ^lp-topn: ks\.csv:1(:[0-9]+)?: .*Total Time \(ns\)
topn-long-row | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | sed '2s/$/,0/' | 1 | ^lp-topn: ks\.csv:2(:[0-9]+)?:
topn-short-row | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | sed '2s/,[^,]*$//' | 1 | ^lp-topn: ks\.csv:2(:[0-9]+)?:
topn-neg-instances | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 Instances -384 | 1 | ^lp-topn: ks\.csv:2(:3)?: .*Instances
topn-frac-instances | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 Instances 384.5 | 1 | ^lp-topn: ks\.csv:2(:3)?: .*Instances
topn-nan-instances | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 Instances NaN | 1 | ^lp-topn: ks\.csv:2(:3)?: .*Instances
topn-inf-instances | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 Instances inf | 1 | ^lp-topn: ks\.csv:2(:3)?: .*Instances
topn-1e300-instances | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 Instances 1e300 | 1 | ^lp-topn: ks\.csv:2(:3)?: .*Instances
topn-neg-time | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 'Total Time (ns)' -1705118 | 1 | ^lp-topn: ks\.csv:2(:2)?: .*Total Time
topn-text-time | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 'Total Time (ns)' 12abc | 1 | ^lp-topn: ks\.csv:2(:2)?: .*Total Time
topn-no-instances | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | sed '1s/Instances/Launches/' | 1 | ^lp-topn: ks\.csv:1(:[0-9]+)?: .*Instances
topn-empty | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | true | 1 | ^lp-topn: ks\.csv(:1)?:
topn-header-only | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | sed 1q | 1 | ^lp-topn: ks\.csv:[0-9]+(:[0-9]+)?:
topn-cut-in-quotes | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | awk 'NR < 3; NR == 3 { print substr($0, 1, 60); exit }' | 1 | ^lp-topn: ks\.csv:3(:[0-9]+)?:
topn-nul | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | sed '2s/nvjet/nv\x00jet/' | 1 | ^lp-topn: ks\.csv:2(:[0-9]+)?:
topn-p-250 | lp-topn -p 250 ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | cat | 2 | ^lp-topn: -p:
topn-n-neg | lp-topn -n -5 ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | cat | 2 | ^lp-topn: -n:
# nvtx_kern_sum:mangled with -r; line 4 is decode_all's nvjet row
topn-r-frac-kern-inst | lp-topn -r :LLM@decode_all nks.csv | nks.csv | $V2/torch_nvtx_kern_sum_mangled.csv | csvset 4 'Kern Inst' 384.5 | 1 | ^lp-topn: nks\.csv:4(:6)?: .*Kern Inst
topn-r-dup-kern-inst | lp-topn -r :LLM@decode_all nks.csv | nks.csv | $V2/torch_nvtx_kern_sum_mangled.csv | sed '1s/NVTX Inst/Kern Inst/' | 1 | ^lp-topn: nks\.csv:1(:[0-9]+)?: .*Kern Inst
#
# lp-ncu2tsv, wide: tinyllm's decode_all, --page raw in scaled units; line
# 2 is the units row, line 3 the first launch (rmsnorm).
ncu-unit-time | lp-ncu2tsv raw.csv | raw.csv | $RAW | csvset 2 gpu__time_duration.sum fortnight | 1 | ^lp-ncu2tsv: raw\.csv:2(:[0-9]+)?: gpu__time_duration\.sum
ncu-unit-pct | lp-ncu2tsv raw.csv | raw.csv | $RAW | csvset 2 sm__throughput.avg.pct_of_peak_sustained_elapsed permille | 1 | ^lp-ncu2tsv: raw\.csv:2(:[0-9]+)?: sm__throughput
ncu-units-row-gone | lp-ncu2tsv raw.csv | raw.csv | $RAW | sed 2d | 1 | ^lp-ncu2tsv: raw\.csv:2(:[0-9]+)?:
ncu-units-row-is-header | lp-ncu2tsv raw.csv | raw.csv | $RAW | sed 1p | 1 | ^lp-ncu2tsv: raw\.csv:2(:[0-9]+)?:
ncu-dup-time | lp-ncu2tsv raw.csv | raw.csv | $RAW | csvset 1 idc__request_cycles_active.avg.pct_of_peak_sustained_elapsed gpu__time_duration.sum | 1 | ^lp-ncu2tsv: raw\.csv:1(:[0-9]+)?: .*gpu__time_duration\.sum
ncu-long-row | lp-ncu2tsv raw.csv | raw.csv | $RAW | sed '3s/$/,"0"/' | 1 | ^lp-ncu2tsv: raw\.csv:3(:[0-9]+)?:
ncu-short-row | lp-ncu2tsv raw.csv | raw.csv | $RAW | sed '3s/,"[^"]*"$//' | 1 | ^lp-ncu2tsv: raw\.csv:3(:[0-9]+)?:
ncu-neg-time | lp-ncu2tsv raw.csv | raw.csv | $RAW | csvset 3 gpu__time_duration.sum -4.512 | 1 | ^lp-ncu2tsv: raw\.csv:3(:[0-9]+)?: gpu__time_duration\.sum
ncu-nan-time | lp-ncu2tsv raw.csv | raw.csv | $RAW | csvset 3 gpu__time_duration.sum nan | 1 | ^lp-ncu2tsv: raw\.csv:3(:[0-9]+)?: gpu__time_duration\.sum
ncu-inf-time | lp-ncu2tsv raw.csv | raw.csv | $RAW | csvset 3 gpu__time_duration.sum inf | 1 | ^lp-ncu2tsv: raw\.csv:3(:[0-9]+)?: gpu__time_duration\.sum
ncu-text-time | lp-ncu2tsv raw.csv | raw.csv | $RAW | csvset 3 gpu__time_duration.sum 12abc | 1 | ^lp-ncu2tsv: raw\.csv:3(:[0-9]+)?: gpu__time_duration\.sum
ncu-sm-pct-250 | lp-ncu2tsv raw.csv | raw.csv | $RAW | csvset 3 sm__throughput.avg.pct_of_peak_sustained_elapsed 250 | 1 | ^lp-ncu2tsv: raw\.csv:3(:[0-9]+)?: sm__throughput
ncu-dram-pct-neg | lp-ncu2tsv raw.csv | raw.csv | $RAW | csvset 3 gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed -5 | 1 | ^lp-ncu2tsv: raw\.csv:3(:[0-9]+)?: gpu__dram_throughput
ncu-no-time-column | lp-ncu2tsv raw.csv | raw.csv | $RAW | sed '1s/"gpu__time_duration.sum"/"gpu__time_duration.total"/' | 1 | ^lp-ncu2tsv: raw\.csv:1(:[0-9]+)?: .*gpu__time_duration\.sum
ncu-empty | lp-ncu2tsv raw.csv | raw.csv | $RAW | true | 1 | ^lp-ncu2tsv: raw\.csv(:1)?:
ncu-header-only | lp-ncu2tsv raw.csv | raw.csv | $RAW | sed 1q | 1 | ^lp-ncu2tsv: raw\.csv:[0-9]+(:[0-9]+)?:
ncu-units-only | lp-ncu2tsv raw.csv | raw.csv | $RAW | sed 2q | 1 | ^lp-ncu2tsv: raw\.csv:[0-9]+(:[0-9]+)?:
ncu-cut-in-quotes | lp-ncu2tsv raw.csv | raw.csv | $RAW | awk 'NR < 3; NR == 3 { print substr($0, 1, index($0, "\"rmsnorm") + 3); exit }' | 1 | ^lp-ncu2tsv: raw\.csv:3(:[0-9]+)?:
ncu-nul | lp-ncu2tsv raw.csv | raw.csv | $RAW | sed '3s/rmsnorm/rms\x00norm/' | 1 | ^lp-ncu2tsv: raw\.csv:3(:[0-9]+)?:
# wide, base units: the torch run's top kernels, with dram__bytes.sum, the
# SASS counters and the tensor-core counters; line 3 is a CUDAFunctor_add
ncu-unit-bytes | lp-ncu2tsv b.csv | b.csv | $V2/torch_ncu_raw.csv | csvset 2 dram__bytes.sum furlong | 1 | ^lp-ncu2tsv: b\.csv:2(:[0-9]+)?: dram__bytes\.sum
ncu-neg-bytes | lp-ncu2tsv b.csv | b.csv | $V2/torch_ncu_raw.csv | csvset 3 dram__bytes.sum -9728 | 1 | ^lp-ncu2tsv: b\.csv:3(:[0-9]+)?: dram__bytes\.sum
ncu-inf-bytes | lp-ncu2tsv b.csv | b.csv | $V2/torch_ncu_raw.csv | csvset 3 dram__bytes.sum inf | 1 | ^lp-ncu2tsv: b\.csv:3(:[0-9]+)?: dram__bytes\.sum
ncu-frac-inst | lp-ncu2tsv b.csv | b.csv | $V2/torch_ncu_raw.csv | csvset 3 sm__sass_thread_inst_executed_op_ffma_pred_on.sum 768.5 | 1 | ^lp-ncu2tsv: b\.csv:3(:[0-9]+)?: sm__sass_thread_inst_executed_op_ffma_pred_on\.sum
ncu-1e300-inst | lp-ncu2tsv b.csv | b.csv | $V2/torch_ncu_raw.csv | csvset 3 sm__sass_thread_inst_executed_op_ffma_pred_on.sum 1e300 | 1 | ^lp-ncu2tsv: b\.csv:3(:[0-9]+)?: sm__sass_thread_inst_executed_op_ffma_pred_on\.sum
ncu-neg-tensor-ops | lp-ncu2tsv b.csv | b.csv | $V2/torch_ncu_raw.csv | csvset 3 sm__ops_path_tensor_src_fp16.sum -1 | 1 | ^lp-ncu2tsv: b\.csv:3(:[0-9]+)?: sm__ops_path_tensor_src_fp16\.sum
# long (--page details) of the same report: line 2 is dram__throughput
# (%), 3 gpu__time_duration.sum (us, 4.51), 4 sm__throughput (%, 0.04)
ncu-long-unit-time | lp-ncu2tsv d.csv | d.csv | $DET | csvset 3 'Metric Unit' fortnight | 1 | ^lp-ncu2tsv: d\.csv:3(:[0-9]+)?: gpu__time_duration\.sum
ncu-long-unit-pct | lp-ncu2tsv d.csv | d.csv | $DET | csvset 4 'Metric Unit' permille | 1 | ^lp-ncu2tsv: d\.csv:4(:[0-9]+)?: sm__throughput
ncu-long-neg-time | lp-ncu2tsv d.csv | d.csv | $DET | csvset 3 'Metric Value' -4.51 | 1 | ^lp-ncu2tsv: d\.csv:3(:[0-9]+)?: gpu__time_duration\.sum
ncu-long-inf-time | lp-ncu2tsv d.csv | d.csv | $DET | csvset 3 'Metric Value' inf | 1 | ^lp-ncu2tsv: d\.csv:3(:[0-9]+)?: gpu__time_duration\.sum
ncu-long-text-time | lp-ncu2tsv d.csv | d.csv | $DET | csvset 3 'Metric Value' 12abc | 1 | ^lp-ncu2tsv: d\.csv:3(:[0-9]+)?: gpu__time_duration\.sum
ncu-long-sm-pct-250 | lp-ncu2tsv d.csv | d.csv | $DET | csvset 4 'Metric Value' 250 | 1 | ^lp-ncu2tsv: d\.csv:4(:[0-9]+)?: sm__throughput
ncu-long-dram-pct-neg | lp-ncu2tsv d.csv | d.csv | $DET | csvset 2 'Metric Value' -5 | 1 | ^lp-ncu2tsv: d\.csv:2(:[0-9]+)?: dram__throughput
ncu-long-dup-value | lp-ncu2tsv d.csv | d.csv | $DET | csvset 1 'Estimated Speedup' 'Metric Value' | 1 | ^lp-ncu2tsv: d\.csv:1(:[0-9]+)?: .*Metric Value
ncu-long-long-row | lp-ncu2tsv d.csv | d.csv | $DET | sed '3s/$/,"x","x","x","x","x"/' | 1 | ^lp-ncu2tsv: d\.csv:3(:[0-9]+)?:
ncu-long-short-row | lp-ncu2tsv d.csv | d.csv | $DET | sed '4s/,"0\.04",$//' | 1 | ^lp-ncu2tsv: d\.csv:4(:[0-9]+)?:
ncu-long-no-unit-column | lp-ncu2tsv d.csv | d.csv | $DET | sed '1s/"Metric Unit"/"Unit"/' | 1 | ^lp-ncu2tsv: d\.csv:1(:[0-9]+)?: .*Metric Unit
ncu-long-header-only | lp-ncu2tsv d.csv | d.csv | $DET | sed 1q | 1 | ^lp-ncu2tsv: d\.csv:[0-9]+(:[0-9]+)?:
#
# lp-kernjoin: ncu's metrics.tsv of the torch run (line 2: the LM head's
# nvjet, 1 launch, 16544 ns); nsys nvtx_kern_sum (line 4: decode_all nvjet)
kernjoin-m-dup-launches | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | sed '3s/\tdevice_name\t/\tlaunches\t/' | 1 | ^lp-kernjoin: m\.tsv:3(:[0-9]+)?: .*launches
kernjoin-m-long-row | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | sed '4s/$/\t0/' | 1 | ^lp-kernjoin: m\.tsv:4(:[0-9]+)?:
kernjoin-m-short-row | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | sed '4s/\t[^\t]*$//' | 1 | ^lp-kernjoin: m\.tsv:4(:[0-9]+)?:
kernjoin-m-frac-launches | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | tsvset 4 launches 1.5 | 1 | ^lp-kernjoin: m\.tsv:4(:3)?: .*launches
kernjoin-m-1e300-launches | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | tsvset 4 launches 1e300 | 1 | ^lp-kernjoin: m\.tsv:4(:3)?: .*launches
kernjoin-m-neg-time | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | tsvset 4 gpu_time_ns -16544 | 1 | ^lp-kernjoin: m\.tsv:4(:4)?: .*gpu_time_ns
kernjoin-m-sm-pct-250 | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | tsvset 4 sm_throughput_pct 250 | 1 | ^lp-kernjoin: m\.tsv:4(:5)?: .*sm_throughput_pct
kernjoin-m-neg-bytes | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | tsvset 4 dram_bytes -51553024 | 1 | ^lp-kernjoin: m\.tsv:4(:8)?: .*dram_bytes
kernjoin-m-text-time | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | tsvset 4 gpu_time_ns 12abc | 1 | ^lp-kernjoin: m\.tsv:4(:4)?:
kernjoin-m-empty | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | true | 1 | ^lp-kernjoin: m\.tsv(:1)?:
kernjoin-nsys-frac-kern-inst | lp-kernjoin -r :LLM@decode_all nks.csv | nks.csv | $V2/torch_nvtx_kern_sum_mangled.csv | csvset 4 'Kern Inst' 384.5 | 1 | ^lp-kernjoin: nks\.csv:4(:6)?: .*Kern Inst
kernjoin-nsys-long-row | lp-kernjoin -r :LLM@decode_all nks.csv | nks.csv | $V2/torch_nvtx_kern_sum_mangled.csv | sed '4s/$/,0/' | 1 | ^lp-kernjoin: nks\.csv:4(:[0-9]+)?:
kernjoin-d-dup-total | lp-kernjoin -r :LLM@decode_all -d dm.csv $V2/torch_nvtx_kern_sum_mangled.csv | dm.csv | $V2/torch_nvtx_kern_sum.csv | sed '1s/Med (ns)/Total Time (ns)/' | 1 | ^lp-kernjoin: dm\.csv:1(:[0-9]+)?: .*Total Time \(ns\)
#
# lp-kernmd: the run's kernels.tsv; line 7 is the decode's top kernel
# (nvjet, 1705118 ns in 384 calls)
kernmd-neg-calls | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 calls -384 | 1 | ^lp-kernmd: k\.tsv:9(:4)?: .*calls
kernmd-frac-calls | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 calls 384.5 | 1 | ^lp-kernmd: k\.tsv:9(:4)?: .*calls
kernmd-1e300-calls | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 calls 1e300 | 1 | ^lp-kernmd: k\.tsv:9(:4)?: .*calls
kernmd-neg-total | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 total_ns -1705118 | 1 | ^lp-kernmd: k\.tsv:9(:3)?: .*total_ns
kernmd-text-total | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 total_ns 12abc | 1 | ^lp-kernmd: k\.tsv:9(:3)?:
kernmd-sm-pct-250 | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 sm_throughput_pct 250 | 1 | ^lp-kernmd: k\.tsv:9(:[0-9]+)?: .*sm_throughput_pct
kernmd-dup-total | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | sed '8s/\tavg_ns\t/\ttotal_ns\t/' | 1 | ^lp-kernmd: k\.tsv:8(:[0-9]+)?: .*total_ns
kernmd-long-row | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | sed '9s/$/\t0/' | 1 | ^lp-kernmd: k\.tsv:9(:[0-9]+)?:
kernmd-short-row | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | sed '9s/\t[^\t]*$//' | 1 | ^lp-kernmd: k\.tsv:9(:[0-9]+)?:
kernmd-header-only | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | sed 8q | 1 | ^lp-kernmd: k\.tsv:[0-9]+(:[0-9]+)?:
kernmd-nul | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | sed '9s/nvjet/nv\x00jet/' | 1 | ^lp-kernmd: k\.tsv:9(:[0-9]+)?:
kernmd-empty | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | true | 1 | ^lp-kernmd: k\.tsv(:1)?:
#
# lp-stages: nsys nvtx_sum (line 2 decode_all, 3 decode_step: 32
# instances, 4 prefill), nvtx_kern_sum (line 4: decode_all's nvjet)
stages-dup-instances | lp-stages -c $R/nsys/config.yaml -k $V2/torch_nvtx_kern_sum.csv ns.csv | ns.csv | $V2/torch_nvtx_sum.csv | sed '1s/Med (ns)/Instances/' | 1 | ^lp-stages: ns\.csv:1(:[0-9]+)?: .*Instances
stages-long-row | lp-stages -c $R/nsys/config.yaml -k $V2/torch_nvtx_kern_sum.csv ns.csv | ns.csv | $V2/torch_nvtx_sum.csv | sed '3s/$/,0/' | 1 | ^lp-stages: ns\.csv:3(:[0-9]+)?:
stages-short-row | lp-stages -c $R/nsys/config.yaml -k $V2/torch_nvtx_kern_sum.csv ns.csv | ns.csv | $V2/torch_nvtx_sum.csv | sed '3s/,[^,]*$//' | 1 | ^lp-stages: ns\.csv:3(:[0-9]+)?:
stages-frac-instances | lp-stages -c $R/nsys/config.yaml -k $V2/torch_nvtx_kern_sum.csv ns.csv | ns.csv | $V2/torch_nvtx_sum.csv | csvset 3 Instances 32.5 | 1 | ^lp-stages: ns\.csv:3(:3)?: Instances
stages-1e300-instances | lp-stages -c $R/nsys/config.yaml -k $V2/torch_nvtx_kern_sum.csv ns.csv | ns.csv | $V2/torch_nvtx_sum.csv | csvset 3 Instances 1e300 | 1 | ^lp-stages: ns\.csv:3(:3)?: Instances
stages-neg-total | lp-stages -c $R/nsys/config.yaml -k $V2/torch_nvtx_kern_sum.csv ns.csv | ns.csv | $V2/torch_nvtx_sum.csv | csvset 3 'Total Time (ns)' -2559013843 | 1 | ^lp-stages: ns\.csv:3(:2)?: Total Time
stages-nan-total | lp-stages -c $R/nsys/config.yaml -k $V2/torch_nvtx_kern_sum.csv ns.csv | ns.csv | $V2/torch_nvtx_sum.csv | csvset 3 'Total Time (ns)' nan | 1 | ^lp-stages: ns\.csv:3(:2)?: Total Time
stages-no-instances | lp-stages -c $R/nsys/config.yaml -k $V2/torch_nvtx_kern_sum.csv ns.csv | ns.csv | $V2/torch_nvtx_sum.csv | sed '1s/Instances/Count/' | 1 | ^lp-stages: ns\.csv:1(:[0-9]+)?: .*Instances
stages-empty | lp-stages -c $R/nsys/config.yaml -k $V2/torch_nvtx_kern_sum.csv ns.csv | ns.csv | $V2/torch_nvtx_sum.csv | true | 1 | ^lp-stages: ns\.csv(:1)?:
stages-k-neg-kern-inst | lp-stages -c $R/nsys/config.yaml -k nk.csv $V2/torch_nvtx_sum.csv | nk.csv | $V2/torch_nvtx_kern_sum.csv | csvset 4 'Kern Inst' -384 | 1 | ^lp-stages: nk\.csv:4(:6)?: Kern Inst
stages-k-1e300-kern-inst | lp-stages -c $R/nsys/config.yaml -k nk.csv $V2/torch_nvtx_sum.csv | nk.csv | $V2/torch_nvtx_kern_sum.csv | csvset 4 'Kern Inst' 1e300 | 1 | ^lp-stages: nk\.csv:4(:6)?: Kern Inst
stages-c-dup-range | lp-stages -c config.yaml -k $V2/torch_nvtx_kern_sum.csv $V2/torch_nvtx_sum.csv | config.yaml | $R/nsys/config.yaml | sed '/^    range: LLM@prefill$/p' | 1 | ^lp-stages: config\.yaml:31:5: .*range
stages-c-billion-laughs | lp-stages -c config.yaml -k $V2/torch_nvtx_kern_sum.csv $V2/torch_nvtx_sum.csv | config.yaml | $R/nsys/config.yaml | bomb | 1 | ^lp-stages: config\.yaml:[0-9]+(:[0-9]+)?:
stages-c-deep | lp-stages -c config.yaml -k $V2/torch_nvtx_kern_sum.csv $V2/torch_nvtx_sum.csv | config.yaml | $R/nsys/config.yaml | deep | 1 | ^lp-stages: config\.yaml:[0-9]+(:[0-9]+)?:
#
# lp-steps: nsys nvtx_pushpop_trace (line 4: the first decode step, the
# 584 ms warm-up); the run's inputs.yaml (line 27: batch: 1)
steps-neg-duration | lp-steps -c $R/nsys/config.yaml -i $R/inputs.yaml pp.csv | pp.csv | $V2/torch_nvtx_pushpop_trace.csv | csvset 4 'Duration (ns)' -584273578 | 1 | ^lp-steps: pp\.csv:4(:3)?: Duration
steps-inf-start | lp-steps -c $R/nsys/config.yaml -i $R/inputs.yaml pp.csv | pp.csv | $V2/torch_nvtx_pushpop_trace.csv | csvset 4 'Start (ns)' inf | 1 | ^lp-steps: pp\.csv:4(:1)?: Start
steps-text-duration | lp-steps -c $R/nsys/config.yaml -i $R/inputs.yaml pp.csv | pp.csv | $V2/torch_nvtx_pushpop_trace.csv | csvset 4 'Duration (ns)' 12abc | 1 | ^lp-steps: pp\.csv:4(:3)?: Duration
steps-dup-duration | lp-steps -c $R/nsys/config.yaml -i $R/inputs.yaml pp.csv | pp.csv | $V2/torch_nvtx_pushpop_trace.csv | sed '1s/DurChild (ns)/Duration (ns)/' | 1 | ^lp-steps: pp\.csv:1(:[0-9]+)?: .*Duration
# lp-ranks, lp-overlap: the two-H200 tensor-parallel capture (h200-tp/tps_),
# line 2 an NCCL range of process 1087; line 394 the trace's first kernel
ranks-pid-exponent | lp-ranks -c $R/nsys/config.yaml -o $C/operators.yaml pp.csv | pp.csv | $TP/tps_nvtx_pushpop_trace.csv | csvset 2 PID 1e3 | 1 | ^lp-ranks: pp\.csv:2(:7)?: PID
ranks-pid-decimal | lp-ranks -c $R/nsys/config.yaml -o $C/operators.yaml pp.csv | pp.csv | $TP/tps_nvtx_pushpop_trace.csv | csvset 2 PID 1087.0 | 1 | ^lp-ranks: pp\.csv:2(:7)?: PID
ranks-pid-empty | lp-ranks -c $R/nsys/config.yaml -o $C/operators.yaml pp.csv | pp.csv | $TP/tps_nvtx_pushpop_trace.csv | csvset 2 PID '' | 1 | ^lp-ranks: pp\.csv:2(:7)?: PID
ranks-neg-duration-unused-row | lp-ranks -c $R/nsys/config.yaml -o $C/operators.yaml pp.csv | pp.csv | $TP/tps_nvtx_pushpop_trace.csv | csvset 2 'Duration (ns)' -9 | 1 | ^lp-ranks: pp\.csv:2(:3)?: Duration
ranks-frac-kern-inst | lp-ranks -c $R/nsys/config.yaml -o $C/operators.yaml -k ks.csv | ks.csv | $TP/tps_nvtx_kern_sum.csv | csvset 2 'Kern Inst' 9.5 | 1 | ^lp-ranks: ks\.csv:2(:6)?: Kern Inst
ranks-kern-pid-comma | lp-ranks -c $R/nsys/config.yaml -o $C/operators.yaml -k ks.csv | ks.csv | $TP/tps_nvtx_kern_sum.csv | csvset 2 PID 1,087 | 1 | ^lp-ranks: ks\.csv:2(:3)?: PID
procs-D-text | lp-procs -D gpu0 ks.csv | ks.csv | $TP/tps_nvtx_kern_sum.csv | cat | 2 | ^lp-procs: -D:
procs-pid-exponent | lp-procs -D 0 ks.csv | ks.csv | $TP/tps_nvtx_kern_sum.csv | csvset 2 PID 1e3 | 1 | ^lp-procs: ks\.csv:2(:3)?: PID
procs-ranges-elsewhere | lp-procs -D 0 -g pj.csv -t $TP/tps_cuda_gpu_trace_mangled.csv $TP/tps_nvtx_kern_sum.csv | pj.csv | $TP/tps_nvtx_gpu_proj_trace.csv | sed '2,$s/^\([^,]*\),[0-9]*,/\1,1,/' | 1 | ^lp-procs: 2 processes ran kernels and none is seen on device 0
overlap-unsorted | lp-overlap -o $C/operators.yaml tr.csv | tr.csv | $TP/tps_cuda_gpu_trace_mangled.csv | csvset 396 'Start (ns)' 1 | 1 | ^lp-overlap: tr\.csv:396(:1)?: kernel starts
overlap-start-two-units | lp-overlap -o $C/operators.yaml tr.csv | tr.csv | $TP/tps_cuda_gpu_trace_mangled.csv | sed '1s/CorrId/Start (us)/' | 1 | ^lp-overlap: tr\.csv:1(:[0-9]+)?: .*Start
overlap-empty-device | lp-overlap -o $C/operators.yaml tr.csv | tr.csv | $TP/tps_cuda_gpu_trace_mangled.csv | csvset 394 Device '' | 1 | ^lp-overlap: tr\.csv:394(:[0-9]+)?: Device
overlap-neg-duration | lp-overlap -o $C/operators.yaml tr.csv | tr.csv | $TP/tps_cuda_gpu_trace_mangled.csv | csvset 394 'Duration (ns)' -1 | 1 | ^lp-overlap: tr\.csv:394(:2)?: Duration
steps-long-row | lp-steps -c $R/nsys/config.yaml -i $R/inputs.yaml pp.csv | pp.csv | $V2/torch_nvtx_pushpop_trace.csv | sed '4s/$/,0/' | 1 | ^lp-steps: pp\.csv:4(:[0-9]+)?:
steps-short-row | lp-steps -c $R/nsys/config.yaml -i $R/inputs.yaml pp.csv | pp.csv | $V2/torch_nvtx_pushpop_trace.csv | sed '4s/,[^,]*$//' | 1 | ^lp-steps: pp\.csv:4(:[0-9]+)?:
steps-no-duration | lp-steps -c $R/nsys/config.yaml -i $R/inputs.yaml pp.csv | pp.csv | $V2/torch_nvtx_pushpop_trace.csv | sed '1s/Duration (ns)/Dur (ns)/' | 1 | ^lp-steps: pp\.csv:1(:[0-9]+)?: .*Duration
steps-i-frac-batch | lp-steps -c $R/nsys/config.yaml -i inputs.yaml $V2/torch_nvtx_pushpop_trace.csv | inputs.yaml | $R/inputs.yaml | sed 's/^  batch: 1$/  batch: 0.5/' | 1 | ^lp-steps: inputs\.yaml:27(:[0-9]+)?: model\.batch
steps-i-1e300-batch | lp-steps -c $R/nsys/config.yaml -i inputs.yaml $V2/torch_nvtx_pushpop_trace.csv | inputs.yaml | $R/inputs.yaml | sed 's/^  batch: 1$/  batch: 1e300/' | 1 | ^lp-steps: inputs\.yaml:27(:[0-9]+)?: model\.batch
steps-i-dup-batch | lp-steps -c $R/nsys/config.yaml -i inputs.yaml $V2/torch_nvtx_pushpop_trace.csv | inputs.yaml | $R/inputs.yaml | sed 's/^  batch: 1$/&\n  batch: 2/' | 1 | ^lp-steps: inputs\.yaml:28:3: .*batch
steps-w-nan | lp-steps -w nan -c $R/nsys/config.yaml pp.csv | pp.csv | $V2/torch_nvtx_pushpop_trace.csv | cat | 2 | ^lp-steps: -w:
#
# lp-aggr: nsys cuda_api_sum (line 2: cuLibraryLoadData, 65 calls),
# cuda_gpu_mem_time_sum (line 2: host-to-device copies, 78), kernels.tsv
aggr-api-neg-calls | lp-aggr -a api.csv $R/kernels.tsv | api.csv | $V2/torch_cuda_api_sum.csv | csvset 2 'Num Calls' -65 | 1 | ^lp-aggr: api\.csv:2(:3)?: Num Calls
aggr-api-frac-calls | lp-aggr -a api.csv $R/kernels.tsv | api.csv | $V2/torch_cuda_api_sum.csv | csvset 2 'Num Calls' 65.5 | 1 | ^lp-aggr: api\.csv:2(:3)?: Num Calls
aggr-api-1e300-calls | lp-aggr -a api.csv $R/kernels.tsv | api.csv | $V2/torch_cuda_api_sum.csv | csvset 2 'Num Calls' 1e300 | 1 | ^lp-aggr: api\.csv:2(:3)?: Num Calls
aggr-api-dup-calls | lp-aggr -a api.csv $R/kernels.tsv | api.csv | $V2/torch_cuda_api_sum.csv | sed '1s/Med (ns)/Num Calls/' | 1 | ^lp-aggr: api\.csv:1(:[0-9]+)?: .*Num Calls
aggr-mem-neg-time | lp-aggr -m mem.csv $R/kernels.tsv | mem.csv | $V2/torch_cuda_gpu_mem_time_sum.csv | csvset 2 'Total Time (ns)' -43698104 | 1 | ^lp-aggr: mem\.csv:2(:2)?: Total Time
aggr-mem-nan-count | lp-aggr -m mem.csv $R/kernels.tsv | mem.csv | $V2/torch_cuda_gpu_mem_time_sum.csv | csvset 2 Count nan | 1 | ^lp-aggr: mem\.csv:2(:3)?: Count
aggr-g-frac-instances | lp-aggr -g ks.csv $R/kernels.tsv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 Instances 384.5 | 1 | ^lp-aggr: ks\.csv:2(:3)?: Instances
aggr-k-neg-total | lp-aggr k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 total_ns -1705118 | 1 | ^lp-aggr: k\.tsv:9(:3)?: total_ns
aggr-k-frac-ncu-launches | lp-aggr k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 ncu_launches 1.5 | 1 | ^lp-aggr: k\.tsv:9(:9)?: .*ncu_launches
aggr-k-dup-total | lp-aggr k.tsv | k.tsv | $R/kernels.tsv | sed '8s/\tavg_ns\t/\ttotal_ns\t/' | 1 | ^lp-aggr: k\.tsv:8(:[0-9]+)?: .*total_ns
aggr-k-long-row | lp-aggr k.tsv | k.tsv | $R/kernels.tsv | sed '9s/$/\t0/' | 1 | ^lp-aggr: k\.tsv:9(:[0-9]+)?:
#
# lp-gpu: the live run's env.json (an H200), conf/gpus.yaml (the H200
# SXM entry: lines 47-52), the run's config.yaml (gpu.hbm_tbps on line 21)
gpu-env-dup-host | lp-gpu -t $C/gpus.yaml env.json | env.json | $V2/env.json | sed 's/^  "host": "vm",$/&\n  "host": "vm2",/' | 1 | ^lp-gpu: env\.json:5:3: .*host
gpu-env-cut-in-quotes | lp-gpu -t $C/gpus.yaml env.json | env.json | $V2/env.json | awk '/"host"/ { print "  \"host\": \"v"; exit } 1' | 1 | ^lp-gpu: env\.json:[0-9]+(:[0-9]+)?:
gpu-env-nul | lp-gpu -t $C/gpus.yaml env.json | env.json | $V2/env.json | sed 's/"vm"/"v\x00m"/' | 1 | ^lp-gpu: env\.json:4(:[0-9]+)?:
gpu-env-billion-laughs | lp-gpu -t $C/gpus.yaml env.json | env.json | $V2/env.json | jsonbomb | 1 | ^lp-gpu: env\.json:[0-9]+(:[0-9]+)?:
gpu-env-deep | lp-gpu -t $C/gpus.yaml env.json | env.json | $V2/env.json | jsondeep | 1 | ^lp-gpu: env\.json:[0-9]+(:[0-9]+)?:
gpu-t-neg-hbm | lp-gpu -t gpus.yaml $V2/env.json | gpus.yaml | $C/gpus.yaml | sed '57s/hbm_tbps: 4.8/hbm_tbps: -4.8/' | 1 | ^lp-gpu: gpus\.yaml:57(:[0-9]+)?: .*hbm_tbps
gpu-t-inf-hbm | lp-gpu -t gpus.yaml $V2/env.json | gpus.yaml | $C/gpus.yaml | sed '57s/hbm_tbps: 4.8/hbm_tbps: .inf/' | 1 | ^lp-gpu: gpus\.yaml:57(:[0-9]+)?: .*hbm_tbps
gpu-t-1e300-tflops | lp-gpu -t gpus.yaml $V2/env.json | gpus.yaml | $C/gpus.yaml | sed '55s/fp16: 989.4/fp16: 1e300/' | 1 | ^lp-gpu: gpus\.yaml:55(:[0-9]+)?: .*fp16
gpu-t-dup-hbm | lp-gpu -t gpus.yaml $V2/env.json | gpus.yaml | $C/gpus.yaml | sed '57p' | 1 | ^lp-gpu: gpus\.yaml:58:5: .*hbm_tbps
gpu-c-map-for-number | lp-gpu -c config.yaml -t $C/gpus.yaml $V2/env.json | config.yaml | $R/config.yaml | sed 's/^  hbm_tbps: 0.0$/  hbm_tbps: {tbps: 4.8}/' | 1 | ^lp-gpu: config\.yaml:26(:[0-9]+)?: .*hbm_tbps
gpu-c-text | lp-gpu -c config.yaml -t $C/gpus.yaml $V2/env.json | config.yaml | $R/config.yaml | sed 's/^  hbm_tbps: 0.0$/  hbm_tbps: 12abc/' | 1 | ^lp-gpu: config\.yaml:26(:[0-9]+)?: .*hbm_tbps
gpu-n-unit | lp-gpu -n b.csv -t $C/gpus.yaml $R/env.json | b.csv | $V2/torch_ncu_raw.csv | csvset 2 gpu__time_duration.sum fortnight | 1 | ^lp-gpu: b\.csv:2(:[0-9]+)?: gpu__time_duration\.sum
#
# lp-mfu: the run's inputs.yaml (line 21 params, 22 layers, 23 hidden),
# stages.tsv (line 10: decode_step, 32 instances), gpu.tsv (line 8:
# tensor fp16), steps.tsv (line 10: decode_step)
mfu-i-frac-layers | lp-mfu -g $R/gpu.tsv -i inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | inputs.yaml | $R/inputs.yaml | sed 's/^  layers: 6$/  layers: 6.5/' | 1 | ^lp-mfu: inputs\.yaml:22(:[0-9]+)?: model\.layers
mfu-i-1e300-params | lp-mfu -g $R/gpu.tsv -i inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | inputs.yaml | $R/inputs.yaml | sed 's/^  params: 67043328$/  params: 1e300/' | 1 | ^lp-mfu: inputs\.yaml:21(:[0-9]+)?: model\.params
mfu-i-nan-hidden | lp-mfu -g $R/gpu.tsv -i inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | inputs.yaml | $R/inputs.yaml | sed 's/^  hidden: 768$/  hidden: .nan/' | 1 | ^lp-mfu: inputs\.yaml:23(:[0-9]+)?: model\.hidden
mfu-i-billion-laughs | lp-mfu -g $R/gpu.tsv -i inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | inputs.yaml | $R/inputs.yaml | bomb | 1 | ^lp-mfu: inputs\.yaml:[0-9]+(:[0-9]+)?:
mfu-i-deep | lp-mfu -g $R/gpu.tsv -i inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | inputs.yaml | $R/inputs.yaml | deep | 1 | ^lp-mfu: inputs\.yaml:[0-9]+(:[0-9]+)?:
mfu-s-neg-instances | lp-mfu -g $R/gpu.tsv -i $R/inputs.yaml -s s.tsv -t $R/steps.tsv | s.tsv | $R/stages.tsv | tsvset 11 instances -32 | 1 | ^lp-mfu: s\.tsv:11(:3)?: .*instances
mfu-s-frac-instances | lp-mfu -g $R/gpu.tsv -i $R/inputs.yaml -s s.tsv -t $R/steps.tsv | s.tsv | $R/stages.tsv | tsvset 11 instances 32.5 | 1 | ^lp-mfu: s\.tsv:11(:3)?: .*instances
mfu-s-text-mean | lp-mfu -g $R/gpu.tsv -i $R/inputs.yaml -s s.tsv -t $R/steps.tsv | s.tsv | $R/stages.tsv | tsvset 11 wall_mean_ns 12abc | 1 | ^lp-mfu: s\.tsv:11(:5)?: .*wall_mean_ns
mfu-s-no-tool | lp-mfu -g $R/gpu.tsv -i $R/inputs.yaml -s s.tsv -t $R/steps.tsv | s.tsv | $R/stages.tsv | sed '/^# tool:/d' | 1 | ^lp-mfu: s\.tsv:[0-9]+(:[0-9]+)?: .*tool
mfu-s-long-row | lp-mfu -g $R/gpu.tsv -i $R/inputs.yaml -s s.tsv -t $R/steps.tsv | s.tsv | $R/stages.tsv | sed '11s/$/\t0/' | 1 | ^lp-mfu: s\.tsv:11(:[0-9]+)?:
mfu-s-dup-mean | lp-mfu -g $R/gpu.tsv -i $R/inputs.yaml -s s.tsv -t $R/steps.tsv | s.tsv | $R/stages.tsv | sed '8s/\twall_median_ns\t/\twall_mean_ns\t/' | 1 | ^lp-mfu: s\.tsv:8(:[0-9]+)?: .*wall_mean_ns
mfu-g-neg-peak | lp-mfu -g g.tsv -i $R/inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | g.tsv | $R/gpu.tsv | tsvset 9 peak -989400000000000 | 1 | ^lp-mfu: g\.tsv:9(:3)?: .*peak
mfu-g-inf-peak | lp-mfu -g g.tsv -i $R/inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | g.tsv | $R/gpu.tsv | tsvset 9 peak inf | 1 | ^lp-mfu: g\.tsv:9(:3)?: .*peak
mfu-g-no-tool | lp-mfu -g g.tsv -i $R/inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | g.tsv | $R/gpu.tsv | sed '/^# tool:/d' | 1 | ^lp-mfu: g\.tsv:[0-9]+(:[0-9]+)?: .*tool
mfu-t-neg-steady | lp-mfu -g $R/gpu.tsv -i $R/inputs.yaml -s $R/stages.tsv -t t.tsv | t.tsv | $R/steps.tsv | tsvset 11 steady_ns -63578779 | 1 | ^lp-mfu: t\.tsv:11(:8)?: .*steady_ns
mfu-t-short-row | lp-mfu -g $R/gpu.tsv -i $R/inputs.yaml -s $R/stages.tsv -t t.tsv | t.tsv | $R/steps.tsv | sed '11s/\t[^\t]*\t[^\t]*$//' | 1 | ^lp-mfu: t\.tsv:11(:[0-9]+)?:
#
# lp-mbu: the same tables (inputs.yaml line 27: batch: 1)
mbu-i-frac-batch | lp-mbu -g $R/gpu.tsv -i inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | inputs.yaml | $R/inputs.yaml | sed 's/^  batch: 1$/  batch: 0.5/' | 1 | ^lp-mbu: inputs\.yaml:27(:[0-9]+)?: model\.batch
mbu-i-dup-layers | lp-mbu -g $R/gpu.tsv -i inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | inputs.yaml | $R/inputs.yaml | sed 's/^  layers: 6$/&\n  layers: 12/' | 1 | ^lp-mbu: inputs\.yaml:23:3: .*layers
mbu-s-1e300-instances | lp-mbu -g $R/gpu.tsv -i $R/inputs.yaml -s s.tsv -t $R/steps.tsv | s.tsv | $R/stages.tsv | tsvset 11 instances 1e300 | 1 | ^lp-mbu: s\.tsv:11(:3)?: .*instances
mbu-t-nan-steady | lp-mbu -g $R/gpu.tsv -i $R/inputs.yaml -s $R/stages.tsv -t t.tsv | t.tsv | $R/steps.tsv | tsvset 11 steady_ns nan | 1 | ^lp-mbu: t\.tsv:11(:8)?: .*steady_ns
mbu-t-no-tool | lp-mbu -g $R/gpu.tsv -i $R/inputs.yaml -s $R/stages.tsv -t t.tsv | t.tsv | $R/steps.tsv | sed '/^# tool:/d' | 1 | ^lp-mbu: t\.tsv:[0-9]+(:[0-9]+)?: .*tool
mbu-g-dup-peak | lp-mbu -g g.tsv -i $R/inputs.yaml -s $R/stages.tsv -t $R/steps.tsv | g.tsv | $R/gpu.tsv | sed '9s/\tunit\t/\tpeak\t/' | 1 | ^lp-mbu: g\.tsv:9(:[0-9]+)?: .*peak
#
# lp-roofline: kernels.tsv, line 7 the decode's nvjet (28329984 FLOP and
# 3561216 DRAM bytes a launch, 6080 ns)
roofline-neg-flops | lp-roofline -g $R/gpu.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 flops_per_launch -28329984 | 1 | ^lp-roofline: k\.tsv:9(:[0-9]+)?: flops_per_launch
roofline-neg-bytes | lp-roofline -g $R/gpu.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 dram_bytes_per_launch -3561216 | 1 | ^lp-roofline: k\.tsv:9(:[0-9]+)?: dram_bytes_per_launch
roofline-inf-time | lp-roofline -g $R/gpu.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 ncu_ns_per_launch inf | 1 | ^lp-roofline: k\.tsv:9(:[0-9]+)?: ncu_ns_per_launch
roofline-text-time | lp-roofline -g $R/gpu.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 ncu_ns_per_launch 12abc | 1 | ^lp-roofline: k\.tsv:9(:[0-9]+)?: ncu_ns_per_launch
roofline-dup-flops | lp-roofline -g $R/gpu.tsv k.tsv | k.tsv | $R/kernels.tsv | sed '8s/\tflops\t/\tflops_per_launch\t/' | 1 | ^lp-roofline: k\.tsv:8(:[0-9]+)?: .*flops_per_launch
roofline-long-row | lp-roofline -g $R/gpu.tsv k.tsv | k.tsv | $R/kernels.tsv | sed '9s/$/\t0/' | 1 | ^lp-roofline: k\.tsv:9(:[0-9]+)?:
roofline-g-neg-bw | lp-roofline -g g.tsv $R/kernels.tsv | g.tsv | $R/gpu.tsv | tsvset 18 peak -4800000000000 | 1 | ^lp-roofline: g\.tsv:18(:3)?: .*peak
roofline-n-1e300 | lp-roofline -n 1e300 -g $R/gpu.tsv k.tsv | k.tsv | $R/kernels.tsv | cat | 2 | ^lp-roofline: -n:
#
# lp-roofsvg: roofline.tsv (line 9: the decode's nvjet, AI 7.955)
roofsvg-neg-ai | lp-roofsvg -g $R/gpu.tsv r.tsv | r.tsv | $R/roofline.tsv | tsvset 9 ai -7.955 | 1 | ^lp-roofsvg: r\.tsv:9(:[0-9]+)?: .*ai
roofsvg-inf-flops | lp-roofsvg -g $R/gpu.tsv r.tsv | r.tsv | $R/roofline.tsv | tsvset 9 flop_per_s inf | 1 | ^lp-roofsvg: r\.tsv:9(:[0-9]+)?: .*flop_per_s
roofsvg-text-ai | lp-roofsvg -g $R/gpu.tsv r.tsv | r.tsv | $R/roofline.tsv | tsvset 9 ai 12abc | 1 | ^lp-roofsvg: r\.tsv:9(:[0-9]+)?: .*ai
roofsvg-no-tool | lp-roofsvg -g $R/gpu.tsv r.tsv | r.tsv | $R/roofline.tsv | sed '/^# tool:/d' | 1 | ^lp-roofsvg: r\.tsv:[0-9]+(:[0-9]+)?: .*tool
roofsvg-long-row | lp-roofsvg -g $R/gpu.tsv r.tsv | r.tsv | $R/roofline.tsv | sed '10s/$/\t0/' | 1 | ^lp-roofsvg: r\.tsv:10(:[0-9]+)?:
#
# lp-ops: kernels.tsv (line 7) and conf/operators.yaml
ops-neg-calls | lp-ops -o $C/operators.yaml k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 calls -384 | 1 | ^lp-ops: k\.tsv:9(:4)?: .*calls
ops-frac-calls | lp-ops -o $C/operators.yaml k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 calls 384.5 | 1 | ^lp-ops: k\.tsv:9(:4)?: .*calls
ops-1e300-calls | lp-ops -o $C/operators.yaml k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 calls 1e300 | 1 | ^lp-ops: k\.tsv:9(:4)?: .*calls
ops-dup-total | lp-ops -o $C/operators.yaml k.tsv | k.tsv | $R/kernels.tsv | sed '8s/\tavg_ns\t/\ttotal_ns\t/' | 1 | ^lp-ops: k\.tsv:8(:[0-9]+)?: .*total_ns
ops-o-dup-wrappers | lp-ops -o o.yaml $R/kernels.tsv | o.yaml | $C/operators.yaml | sed '10p' | 1 | ^lp-ops: o\.yaml:11:1: .*wrappers
ops-o-billion-laughs | lp-ops -o o.yaml $R/kernels.tsv | o.yaml | $C/operators.yaml | bomb | 1 | ^lp-ops: o\.yaml:[0-9]+(:[0-9]+)?:
ops-o-deep | lp-ops -o o.yaml $R/kernels.tsv | o.yaml | $C/operators.yaml | deep | 1 | ^lp-ops: o\.yaml:[0-9]+(:[0-9]+)?:
#
# lp-topk: kernels.tsv (line 7), roofline.tsv
topk-frac-calls | lp-topk -r $R/roofline.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 calls 384.5 | 1 | ^lp-topk: k\.tsv:9(:4)?: .*calls
topk-1e300-calls | lp-topk -r $R/roofline.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 calls 1e300 | 1 | ^lp-topk: k\.tsv:9(:4)?: .*calls
topk-sm-pct-250 | lp-topk -r $R/roofline.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 sm_throughput_pct 250 | 1 | ^lp-topk: k\.tsv:9(:[0-9]+)?: .*sm_throughput_pct
topk-dram-pct-neg | lp-topk -r $R/roofline.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 dram_throughput_pct -5 | 1 | ^lp-topk: k\.tsv:9(:[0-9]+)?: .*dram_throughput_pct
topk-r-no-tool | lp-topk -r r.tsv $R/kernels.tsv | r.tsv | $R/roofline.tsv | sed '/^# tool:/d' | 1 | ^lp-topk: r\.tsv:[0-9]+(:[0-9]+)?: .*tool
topk-r-long-row | lp-topk -r r.tsv $R/kernels.tsv | r.tsv | $R/roofline.tsv | sed '10s/$/\t0/' | 1 | ^lp-topk: r\.tsv:10(:[0-9]+)?:
#
# lp-findings: stages.tsv (line 9: decode_all, GPU busy 0.3266%; above 100
# is possible with kernels on several streams, below 0 is not), mfu.tsv
findings-no-tool | lp-findings s.tsv $R/steps.tsv | s.tsv | $R/stages.tsv | sed '/^# tool:/d' | 1 | ^lp-findings: s\.tsv:1(:[0-9]+)?: .*tool
findings-busy-neg | lp-findings s.tsv $R/steps.tsv | s.tsv | $R/stages.tsv | tsvset 10 busy_pct -5 | 1 | ^lp-findings: s\.tsv:10(:[0-9]+)?: .*busy_pct
findings-neg-wall | lp-findings s.tsv $R/steps.tsv | s.tsv | $R/stages.tsv | tsvset 10 wall_total_ns -2559298697 | 1 | ^lp-findings: s\.tsv:10(:[0-9]+)?: .*wall_total_ns
findings-long-row | lp-findings s.tsv $R/steps.tsv | s.tsv | $R/stages.tsv | sed '10s/$/\t0/' | 1 | ^lp-findings: s\.tsv:10(:[0-9]+)?:
findings-dup-busy | lp-findings s.tsv $R/steps.tsv | s.tsv | $R/stages.tsv | sed '8s/\tkernel_ns\t/\tbusy_pct\t/' | 1 | ^lp-findings: s\.tsv:8(:[0-9]+)?: .*busy_pct
findings-mfu-text | lp-findings $R/stages.tsv mf.tsv | mf.tsv | $R/mfu.tsv | tsvset 8 mfu_pct 12abc | 1 | ^lp-findings: mf\.tsv:8(:[0-9]+)?: .*mfu_pct
findings-nul | lp-findings s.tsv $R/steps.tsv | s.tsv | $R/stages.tsv | sed '10s/decode_all/decode\x00all/' | 1 | ^lp-findings: s\.tsv:10(:[0-9]+)?:
#
# lp-summary: stages.tsv
summary-no-tool | lp-summary s.tsv | s.tsv | $R/stages.tsv | sed '/^# tool:/d' | 1 | ^lp-summary: s\.tsv:1(:[0-9]+)?: .*tool
summary-long-row | lp-summary s.tsv | s.tsv | $R/stages.tsv | sed '10s/$/\t0/' | 1 | ^lp-summary: s\.tsv:10(:[0-9]+)?:
summary-short-row | lp-summary s.tsv | s.tsv | $R/stages.tsv | sed '10s/\t[^\t]*$//' | 1 | ^lp-summary: s\.tsv:10(:[0-9]+)?:
summary-dup-column | lp-summary s.tsv | s.tsv | $R/stages.tsv | sed '8s/\twall_median_ns\t/\twall_mean_ns\t/' | 1 | ^lp-summary: s\.tsv:8(:[0-9]+)?: .*wall_mean_ns
summary-nul | lp-summary s.tsv | s.tsv | $R/stages.tsv | sed '10s/decode_all/decode\x00all/' | 1 | ^lp-summary: s\.tsv:10(:[0-9]+)?:
summary-empty | lp-summary s.tsv | s.tsv | $R/stages.tsv | true | 1 | ^lp-summary: s\.tsv(:1)?:
#
# lp-regions: the app-range exports (imp0.csv: depth 0, line 3 prefill,
# 4 decode_all; imp1.csv: the 32 decode steps), nvtx_gpu_proj_trace (line
# 2: prefill, 93 GPU ops)
regions-neg-time | lp-regions -c $R/ncu/regions/config.yaml -k $V2/torch_nvtx_kern_sum.csv -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp0.csv | $V2/torch_d0_regions.csv | csvset 3 gpu__time_duration.sum -787449152 | 1 | ^lp-regions: run/ncu/regions/imp0\.csv:3(:[0-9]+)?: gpu__time_duration\.sum
regions-sm-pct-250 | lp-regions -c $R/ncu/regions/config.yaml -k $V2/torch_nvtx_kern_sum.csv -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp0.csv | $V2/torch_d0_regions.csv | csvset 4 sm__throughput.avg.pct_of_peak_sustained_elapsed 250 | 1 | ^lp-regions: run/ncu/regions/imp0\.csv:4(:[0-9]+)?: sm__throughput
regions-unit-time | lp-regions -c $R/ncu/regions/config.yaml -k $V2/torch_nvtx_kern_sum.csv -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp0.csv | $V2/torch_d0_regions.csv | csvset 2 gpu__time_duration.sum fortnight | 1 | ^lp-regions: run/ncu/regions/imp0\.csv:2(:[0-9]+)?: gpu__time_duration\.sum
regions-units-row-gone | lp-regions -c $R/ncu/regions/config.yaml -k $V2/torch_nvtx_kern_sum.csv -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp0.csv | $V2/torch_d0_regions.csv | sed 2d | 1 | ^lp-regions: run/ncu/regions/imp0\.csv:2(:[0-9]+)?:
regions-long-row | lp-regions -c $R/ncu/regions/config.yaml -k $V2/torch_nvtx_kern_sum.csv -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp0.csv | $V2/torch_d0_regions.csv | sed '3s/$/,"0"/' | 1 | ^lp-regions: run/ncu/regions/imp0\.csv:3(:[0-9]+)?:
regions-p-neg-duration | lp-regions -c $R/ncu/regions/config.yaml -p pj.csv -l $R/ncu/regions/exports.list | pj.csv | $V2/torch_nvtx_gpu_proj_trace.csv | csvset 2 'Projected Duration (ns)' -1221153182 | 1 | ^lp-regions: pj\.csv:2(:3)?: Projected Duration
regions-p-frac-ops | lp-regions -c $R/ncu/regions/config.yaml -p pj.csv -l $R/ncu/regions/exports.list | pj.csv | $V2/torch_nvtx_gpu_proj_trace.csv | csvset 2 NumGPUOps 93.5 | 1 | ^lp-regions: pj\.csv:2(:9)?: NumGPUOps
regions-p-1e300-ops | lp-regions -c $R/ncu/regions/config.yaml -p pj.csv -l $R/ncu/regions/exports.list | pj.csv | $V2/torch_nvtx_gpu_proj_trace.csv | csvset 2 NumGPUOps 1e300 | 1 | ^lp-regions: pj\.csv:2(:9)?: NumGPUOps
regions-k-dup-kern-inst | lp-regions -c $R/ncu/regions/config.yaml -k nk.csv -l $R/ncu/regions/exports.list | nk.csv | $V2/torch_nvtx_kern_sum.csv | sed '1s/Med (ns)/Kern Inst/' | 1 | ^lp-regions: nk\.csv:1(:[0-9]+)?: .*Kern Inst
#
# lp-reginst: imp1.csv (line 3: the first decode step, 164475136 DRAM
# bytes); the projection trace (line 4: that step)
reginst-neg-bytes | lp-reginst -c $R/ncu/regions/config.yaml -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp1.csv | $V2/torch_d1_regions.csv | csvset 3 dram__bytes.sum -164475136 | 1 | ^lp-reginst: run/ncu/regions/imp1\.csv:3(:[0-9]+)?: dram__bytes\.sum
reginst-nan-time | lp-reginst -c $R/ncu/regions/config.yaml -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp1.csv | $V2/torch_d1_regions.csv | csvset 3 gpu__time_duration.sum nan | 1 | ^lp-reginst: run/ncu/regions/imp1\.csv:3(:[0-9]+)?: gpu__time_duration\.sum
reginst-dram-pct-neg | lp-reginst -c $R/ncu/regions/config.yaml -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp1.csv | $V2/torch_d1_regions.csv | csvset 3 gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed -5 | 1 | ^lp-reginst: run/ncu/regions/imp1\.csv:3(:[0-9]+)?: gpu__dram_throughput
reginst-1e300-tensor-ops | lp-reginst -c $R/ncu/regions/config.yaml -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp1.csv | $V2/torch_d1_regions.csv | csvset 3 sm__ops_path_tensor_src_fp16.sum 1e300 | 1 | ^lp-reginst: run/ncu/regions/imp1\.csv:3(:[0-9]+)?: sm__ops_path_tensor_src_fp16\.sum
reginst-long-row | lp-reginst -c $R/ncu/regions/config.yaml -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp1.csv | $V2/torch_d1_regions.csv | sed '5s/$/,"0"/' | 1 | ^lp-reginst: run/ncu/regions/imp1\.csv:5(:[0-9]+)?:
reginst-dup-bytes | lp-reginst -c $R/ncu/regions/config.yaml -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp1.csv | $V2/torch_d1_regions.csv | csvset 1 dram__bytes.avg dram__bytes.sum | 1 | ^lp-reginst: run/ncu/regions/imp1\.csv:1(:[0-9]+)?: .*dram__bytes\.sum
reginst-p-neg-start | lp-reginst -c $R/ncu/regions/config.yaml -p pj.csv -l $R/ncu/regions/exports.list | pj.csv | $V2/torch_nvtx_gpu_proj_trace.csv | csvset 4 'Projected Start (ns)' -9493954579 | 1 | ^lp-reginst: pj\.csv:4(:2)?: Projected Start
reginst-w-inf | lp-reginst -w inf -c $R/ncu/regions/config.yaml -l $R/ncu/regions/exports.list | x | $R/ncu/regions/exports.list | cat | 2 | ^lp-reginst: -w:
#
# lp-regwork: imp0.csv (line 4: decode_all, 54358179840 tensor FLOPs)
regwork-neg-tensor-ops | lp-regwork -c $R/ncu/regions/config.yaml -g $R/gpu.tsv -i $R/inputs.yaml -l run/ncu/regions/exports.list | run/ncu/regions/imp0.csv | $V2/torch_d0_regions.csv | csvset 4 sm__ops_path_tensor_src_fp16.sum -54358179840 | 1 | ^lp-regwork: run/ncu/regions/imp0\.csv:4(:[0-9]+)?: sm__ops_path_tensor_src_fp16\.sum
regwork-neg-bytes | lp-regwork -c $R/ncu/regions/config.yaml -g $R/gpu.tsv -i $R/inputs.yaml -l run/ncu/regions/exports.list | run/ncu/regions/imp0.csv | $V2/torch_d0_regions.csv | csvset 4 dram__bytes.sum -4495435520 | 1 | ^lp-regwork: run/ncu/regions/imp0\.csv:4(:[0-9]+)?: dram__bytes\.sum
regwork-inf-bytes | lp-regwork -c $R/ncu/regions/config.yaml -g $R/gpu.tsv -i $R/inputs.yaml -l run/ncu/regions/exports.list | run/ncu/regions/imp0.csv | $V2/torch_d0_regions.csv | csvset 4 dram__bytes.sum inf | 1 | ^lp-regwork: run/ncu/regions/imp0\.csv:4(:[0-9]+)?: dram__bytes\.sum
regwork-i-frac-layers | lp-regwork -c $R/ncu/regions/config.yaml -g $R/gpu.tsv -i inputs.yaml -l $R/ncu/regions/exports.list | inputs.yaml | $R/inputs.yaml | sed 's/^  layers: 6$/  layers: 6.5/' | 1 | ^lp-regwork: inputs\.yaml:22(:[0-9]+)?: model\.layers
regwork-g-no-tool | lp-regwork -c $R/ncu/regions/config.yaml -g g.tsv -i $R/inputs.yaml -l $R/ncu/regions/exports.list | g.tsv | $R/gpu.tsv | sed '/^# tool:/d' | 1 | ^lp-regwork: g\.tsv:[0-9]+(:[0-9]+)?: .*tool
regwork-g-long-row | lp-regwork -c $R/ncu/regions/config.yaml -g g.tsv -i $R/inputs.yaml -l $R/ncu/regions/exports.list | g.tsv | $R/gpu.tsv | sed '10s/$/\t0/' | 1 | ^lp-regwork: g\.tsv:10(:[0-9]+)?:
#
# lp-regsplit: region_instances.tsv (line 8: prefill, 10: the first
# decode step)
regsplit-long-row | lp-regsplit -d . ri.tsv | ri.tsv | $R/region_instances.tsv | sed '10s/$/\t0/' | 1 | ^lp-regsplit: ri\.tsv:10(:[0-9]+)?:
regsplit-short-row | lp-regsplit -d . ri.tsv | ri.tsv | $R/region_instances.tsv | sed '10s/\t[^\t]*$//' | 1 | ^lp-regsplit: ri\.tsv:10(:[0-9]+)?:
regsplit-dup-path | lp-regsplit -d . ri.tsv | ri.tsv | $R/region_instances.tsv | sed '7s/\tprocess\t/\tpath\t/' | 1 | ^lp-regsplit: ri\.tsv:7(:[0-9]+)?: .*path
regsplit-no-tool | lp-regsplit -d . ri.tsv | ri.tsv | $R/region_instances.tsv | sed '/^# tool:/d' | 1 | ^lp-regsplit: ri\.tsv:[0-9]+(:[0-9]+)?: .*tool
regsplit-frac-instance | lp-regsplit -d . ri.tsv | ri.tsv | $R/region_instances.tsv | tsvset 10 instance 1.5 | 1 | ^lp-regsplit: ri\.tsv:10(:2)?: .*instance
regsplit-neg-gpu-ns | lp-regsplit -d . ri.tsv | ri.tsv | $R/region_instances.tsv | tsvset 10 gpu_ns -440064992 | 1 | ^lp-regsplit: ri\.tsv:10(:5)?: .*gpu_ns
regsplit-nul | lp-regsplit -d . ri.tsv | ri.tsv | $R/region_instances.tsv | sed '10s/decode_step/decode\x00step/' | 1 | ^lp-regsplit: ri\.tsv:10(:[0-9]+)?:
#
# lp-diff: the run's kernels.tsv against itself edited (line 7)
diff-neg-total | lp-diff $R/kernels.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 total_ns -1705118 | 1 | ^lp-diff: k\.tsv:9(:3)?: .*total_ns
diff-frac-calls | lp-diff $R/kernels.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 calls 384.5 | 1 | ^lp-diff: k\.tsv:9(:4)?: .*calls
diff-text-total | lp-diff $R/kernels.tsv k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 total_ns 12abc | 1 | ^lp-diff: k\.tsv:9(:3)?: .*total_ns
diff-dup-total | lp-diff $R/kernels.tsv k.tsv | k.tsv | $R/kernels.tsv | sed '8s/\tavg_ns\t/\ttotal_ns\t/' | 1 | ^lp-diff: k\.tsv:8(:[0-9]+)?: .*total_ns
diff-long-row | lp-diff $R/kernels.tsv k.tsv | k.tsv | $R/kernels.tsv | sed '9s/$/\t0/' | 1 | ^lp-diff: k\.tsv:9(:[0-9]+)?:
diff-header-only | lp-diff $R/kernels.tsv k.tsv | k.tsv | $R/kernels.tsv | sed 8q | 1 | ^lp-diff: k\.tsv:[0-9]+(:[0-9]+)?:
#
# lp-stagediff: the run against a copy of itself with one file edited
stagediff-neg-wall | lp-stagediff $R/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} run/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} | run/stages.tsv | $R/stages.tsv | tsvset 11 wall_total_ns -2559013843 | 1 | ^lp-stagediff: run/stages\.tsv:11(:4)?: .*wall_total_ns
stagediff-text-steady | lp-stagediff $R/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} run/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} | run/steps.tsv | $R/steps.tsv | tsvset 11 steady_ns 12abc | 1 | ^lp-stagediff: run/steps\.tsv:11(:8)?: .*steady_ns
stagediff-no-tool | lp-stagediff $R/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} run/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} | run/stages.tsv | $R/stages.tsv | sed '/^# tool:/d' | 1 | ^lp-stagediff: run/stages\.tsv:[0-9]+(:[0-9]+)?: .*tool
stagediff-mfu-long-row | lp-stagediff $R/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} run/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} | run/mfu.tsv | $R/mfu.tsv | sed '10s/$/\t0/' | 1 | ^lp-stagediff: run/mfu\.tsv:10(:[0-9]+)?:
stagediff-env-dup-host | lp-stagediff $R/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} run/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} | run/env.json | $R/env.json | sed 's/^  "host": .*,$/&\n  "host": "vm2",/' | 1 | ^lp-stagediff: run/env\.json:5:3: .*host
stagediff-g-neg-peak | lp-stagediff $R/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} run/{stages.tsv,steps.tsv,mfu.tsv,mbu.tsv,gpu.tsv,env.json,inputs.yaml} | run/gpu.tsv | $R/gpu.tsv | tsvset 9 peak -989400000000000 | 1 | ^lp-stagediff: run/gpu\.tsv:9(:3)?: .*peak
#
# lp-confget: the run's config.yaml (line 4: top_n_kernels: 10)
confget-dup-key | lp-confget run.top_n_kernels c.yaml | c.yaml | $R/config.yaml | sed 's/^  top_n_kernels: 10$/&\n  top_n_kernels: 20/' | 1 | ^lp-confget: c\.yaml:5:3: .*top_n_kernels
confget-billion-laughs | lp-confget run.top_n_kernels c.yaml | c.yaml | $R/config.yaml | bomb | 1 | ^lp-confget: c\.yaml:[0-9]+(:[0-9]+)?:
confget-deep | lp-confget run.top_n_kernels c.yaml | c.yaml | $R/config.yaml | deep | 1 | ^lp-confget: c\.yaml:[0-9]+(:[0-9]+)?:
confget-nul | lp-confget run.top_n_kernels c.yaml | c.yaml | $R/config.yaml | sed '4s/10/1\x000/' | 1 | ^lp-confget: c\.yaml:4(:[0-9]+)?:
confget-cut-in-quotes | lp-confget run.top_n_kernels c.yaml | c.yaml | $R/config.yaml | sed '/^  name: ""$/{s//  name: "NVIDIA H2/;q}' | 1 | ^lp-confget: c\.yaml:[0-9]+(:[0-9]+)?:
#
# lp-confmerge: -s of the wrong type for a key the presets have
confmerge-s-text-for-number | lp-confmerge -s run.top_n_kernels=ten c.yaml | c.yaml | $R/config.yaml | cat | 2 | ^lp-confmerge: -s: .*run\.top_n_kernels
confmerge-s-map-for-list | lp-confmerge -s 'nsys_cli.trace={cuda: 1}' c.yaml | c.yaml | $R/config.yaml | cat | 2 | ^lp-confmerge: -s: .*nsys_cli\.trace
confmerge-s-list-for-number | lp-confmerge -s 'ncu_cli.launches_per_kernel=[1, 2]' c.yaml | c.yaml | $R/config.yaml | cat | 2 | ^lp-confmerge: -s: .*ncu_cli\.launches_per_kernel
confmerge-s-map-for-text | lp-confmerge -s 'stages.prefill.range={a: b}' c.yaml | c.yaml | $R/config.yaml | cat | 2 | ^lp-confmerge: -s: .*stages\.prefill\.range
confmerge-s-frac-count | lp-confmerge -s run.top_n_kernels=2.5 c.yaml | c.yaml | $R/config.yaml | cat | 2 | ^lp-confmerge: -s: .*run\.top_n_kernels
confmerge-s-1e300-count | lp-confmerge -s ncu_cli.launch_skip=1e300 c.yaml | c.yaml | $R/config.yaml | cat | 2 | ^lp-confmerge: -s: .*ncu_cli\.launch_skip
confmerge-S-text-for-number | lp-confmerge -S ov $R/config.yaml | ov | $R/vars/overrides.all | sed '$a run.top_n_kernels=ten' | 2 | ^lp-confmerge: ov:2: .*run\.top_n_kernels
confmerge-billion-laughs | lp-confmerge c.yaml | c.yaml | $R/config.yaml | bomb | 1 | ^lp-confmerge: c\.yaml:[0-9]+(:[0-9]+)?:
confmerge-deep | lp-confmerge c.yaml | c.yaml | $R/config.yaml | deep | 1 | ^lp-confmerge: c\.yaml:[0-9]+(:[0-9]+)?:
confmerge-dup-key | lp-confmerge c.yaml | c.yaml | $R/config.yaml | sed 's/^  top_n_kernels: 10$/&\n  top_n_kernels: 20/' | 1 | ^lp-confmerge: c\.yaml:5:3: .*top_n_kernels
#
# lp-inputs: conf/model/torch-decoder.yaml (line 9 params, 10 layers), the
# run's recorded IMPORT
inputs-m-frac-layers | lp-inputs -i $R/vars/IMPORT -m m.yaml | m.yaml | $C/model/torch-decoder.yaml | sed 's/^  layers: 6$/  layers: 6.5/' | 1 | ^lp-inputs: m\.yaml:10(:[0-9]+)?: .*layers
inputs-m-neg-params | lp-inputs -i $R/vars/IMPORT -m m.yaml | m.yaml | $C/model/torch-decoder.yaml | sed 's/^  params: 67043328$/  params: -67043328/' | 1 | ^lp-inputs: m\.yaml:9(:[0-9]+)?: .*params
inputs-m-map-for-number | lp-inputs -i $R/vars/IMPORT -m m.yaml | m.yaml | $C/model/torch-decoder.yaml | sed 's/^  layers: 6$/  layers: {decoder: 6}/' | 1 | ^lp-inputs: m\.yaml:10(:[0-9]+)?: .*layers
inputs-m-dup-key | lp-inputs -i $R/vars/IMPORT -m m.yaml | m.yaml | $C/model/torch-decoder.yaml | sed 's/^  layers: 6$/&\n  layers: 12/' | 1 | ^lp-inputs: m\.yaml:11:3: .*layers
inputs-m-billion-laughs | lp-inputs -i $R/vars/IMPORT -m m.yaml | m.yaml | $C/model/torch-decoder.yaml | bomb | 1 | ^lp-inputs: m\.yaml:[0-9]+(:[0-9]+)?:
inputs-m-deep | lp-inputs -i $R/vars/IMPORT -m m.yaml | m.yaml | $C/model/torch-decoder.yaml | deep | 1 | ^lp-inputs: m\.yaml:[0-9]+(:[0-9]+)?:
inputs-i-nul | lp-inputs -i imp | imp | $R/vars/IMPORT | sed 's/torch_nvtx_sum/torch_nvtx\x00sum/' | 1 | ^lp-inputs: imp:1(:[0-9]+)?:
#
# lp-envtab: the live run's env.json, the run's config and inputs
envtab-env-dup-host | lp-envtab -c $R/config.yaml -g $R/gpu.tsv -i $R/inputs.yaml env.json | env.json | $V2/env.json | sed 's/^  "host": "vm",$/&\n  "host": "vm2",/' | 1 | ^lp-envtab: env\.json:5:3: .*host
envtab-env-cut-in-quotes | lp-envtab -c $R/config.yaml -g $R/gpu.tsv -i $R/inputs.yaml env.json | env.json | $V2/env.json | awk '/"host"/ { print "  \"host\": \"v"; exit } 1' | 1 | ^lp-envtab: env\.json:[0-9]+(:[0-9]+)?:
envtab-env-billion-laughs | lp-envtab -c $R/config.yaml -g $R/gpu.tsv -i $R/inputs.yaml env.json | env.json | $V2/env.json | jsonbomb | 1 | ^lp-envtab: env\.json:[0-9]+(:[0-9]+)?:
envtab-env-deep | lp-envtab -c $R/config.yaml -g $R/gpu.tsv -i $R/inputs.yaml env.json | env.json | $V2/env.json | jsondeep | 1 | ^lp-envtab: env\.json:[0-9]+(:[0-9]+)?:
envtab-i-dup-key | lp-envtab -c $R/config.yaml -g $R/gpu.tsv -i inputs.yaml $V2/env.json | inputs.yaml | $R/inputs.yaml | sed 's/^  batch: 1$/&\n  batch: 2/' | 1 | ^lp-envtab: inputs\.yaml:28:3: .*batch
envtab-g-long-row | lp-envtab -c $R/config.yaml -g g.tsv -i $R/inputs.yaml $R/env.json | g.tsv | $R/gpu.tsv | sed '10s/$/\t0/' | 1 | ^lp-envtab: g\.tsv:10(:[0-9]+)?:
envtab-g-nul | lp-envtab -c $R/config.yaml -g g.tsv -i $R/inputs.yaml $R/env.json | g.tsv | $R/gpu.tsv | sed '4s/NVIDIA H200/NVIDIA\x00H200/' | 1 | ^lp-envtab: g\.tsv:4(:[0-9]+)?:
envtab-g-other-table | lp-envtab -c $R/config.yaml -g g.tsv -i $R/inputs.yaml $R/env.json | g.tsv | $R/kernels.tsv | cat | 1 | ^lp-envtab: g\.tsv:
EOF

# Every input the fuzzers found (tests/fuzz/README.md), fed to a tool that
# reads it: refused cleanly or read, never a crash or a sanitizer report.
for f in "$ROOT"/tests/fuzz/regress/*/*; do
	[ "${f##*/}" = .keep ] && continue
	case ${f%/*} in
	*/ncu-wide|*/ncu-long) tool=lp-ncu2tsv ;;
	*/nsys) tool=lp-topn ;;
	*/tsv) tool=lp-kernmd ;;
	*/yaml) tool="lp-confget run" ;;
	*) continue ;;	# the writers' (md, svg, json): names, t0021's
	esac
	test_expect_success "fuzz regression ${f#$ROOT/tests/fuzz/regress/}: $tool" '
		$tool "'"$f"'" >out 2>err; rc=$?
		case $rc in
		0) ;;
		1|2) test_must_be_empty out && test_grep "^lp-" err ;;
		*) echo "exit $rc"; cat err; false ;;
		esac
	'
done

test_done
