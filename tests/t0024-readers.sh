#!/usr/bin/env bash
# The readers and the value checks (issue 15): an export cut inside its
# last field, rows whose values cannot hold together, empty YAML, and
# results beyond what the hardware allows (MFU, MBU, % of roof, GPU busy)
# are refused or said with their cause, never stated as plain numbers;
# lp-env bounds each probe and writes a whole env.json or none.
#
# Inputs are real captures (tests/fixtures/, H200) with one edit each; the
# edit says which real case it stands for.
. "$(dirname "$0")/lib.sh"

C=$ROOT/conf
V2=$FIX/h200-torch-v2			# make demo's PyTorch run on the H200
TP=$FIX/h200-tp				# a torchrun job on two H200s
R=$S2/b					# the run made by the setup below

# refuses CODE ERE CMD...: CMD exits CODE, writes nothing on stdout, and
# its stderr matches ERE
refuses() {
	want=$1 pat=$2
	shift 2
	"$@" >out 2>err
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "exit $rc, wanted $want: $*" >&2
		head -3 err >&2
		return 1
	fi
	test_must_be_empty out &&
	if ! grep -qE "$pat" err; then
		echo "stderr does not match: $pat" >&2
		cat err >&2
		return 1
	fi
}

# cut FILE FRACTION: the first FRACTION (a/b) of FILE's bytes, as a copy
# stopped mid-way (a full disk, a killed nsys stats, a truncated upload)
cut_at() {
	head -c $(($(wc -c <"$1") * $2)) "$1"
}

# csvset and tsvset: tests/lib.sh

test_expect_success 'setup: make demo'"'"'s run, every table and the regions' '
	make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=b \
		"IMPORT=$(cd "$ROOT" && echo tests/fixtures/h200-torch-v2/torch_*.csv)" MODEL=torch-decoder \
		stakeholder_summary.md regions.md >/dev/null &&
	for f in config.yaml inputs.yaml gpu.tsv stages.tsv steps.tsv kernels.tsv \
		ncu/regions/config.yaml ncu/regions/exports.list; do
		test -s "$R/$f" || { echo "no $R/$f"; return 1; }
	done
'

# ---- cut exports ----

# nsys and ncu end every line of an export with a newline, the last one
# too: every real export lp has (here and in the shared captures) does.
test_expect_success 'every real export ends with a newline, and is read' '
	# nsys stats writes an empty file for a report without rows ("EMPTY
	# RESULTS": h100-graphs/s2, whose ranges had no GPU work)
	for f in "$FIX"/*/*.csv; do
		test ! -s "$f" || test "$(tail -c 1 "$f" | od -An -c | tr -d " ")" = "\\n" ||
			{ echo "no final newline: $f"; return 1; }
	done &&
	for f in "$FIX"/*/*cuda_gpu_kern_sum*.csv; do
		# an empty one (h100-forked: a capture without kernels) is
		# refused as empty (t0060)
		test ! -s "$f" || lp-topn "$f" >/dev/null || return 1
	done &&
	lp-overlap -o "$C/operators.yaml" "$TP/tps_cuda_gpu_trace_mangled.csv" >/dev/null &&
	lp-steps -c "$R/nsys/config.yaml" -i "$R/inputs.yaml" "$V2/torch_nvtx_pushpop_trace.csv" >/dev/null &&
	lp-ncu2tsv "$V2/torch_ncu_raw.csv" >/dev/null
'

# The case of the issue: the two-GPU trace cut at two thirds, inside a
# kernel's unquoted name, gave GPU 1 a communication share of 52.9 %
# instead of 70.6 %, exit 0.
test_expect_success 'cuda_gpu_trace cut at two thirds: refused, naming its last line' '
	cut_at "$TP/tps_cuda_gpu_trace_mangled.csv" 2/3 >tr.csv &&
	test "$(tail -c 1 tr.csv | od -An -c | tr -d " ")" != "\\n" &&
	n=$(($(wc -l <tr.csv) + 1)) &&
	refuses 1 "^lp-overlap: tr\\.csv:$n: .*no newline.*cut-off export" \
		lp-overlap -o "$C/operators.yaml" tr.csv &&
	refuses 1 "^lp-procs: tr\\.csv:$n: .*cut-off" \
		lp-procs -g "$TP/tps_nvtx_gpu_proj_trace.csv" -t tr.csv "$TP/tps_nvtx_kern_sum.csv"
'

# cut inside the unquoted name of the top kernel: "nvjet_sm90_hsh_64x8_64x"
# would be a kernel of its own
test_expect_success 'cuda_gpu_kern_sum cut inside a kernel name: refused' '
	awk "NR == 2 { printf \"%s\", substr(\$0, 1, 70); exit } 1" \
		"$V2/torch_cuda_gpu_kern_sum.csv" >ks.csv &&
	refuses 1 "^lp-topn: ks\\.csv:2: .*cut-off" lp-topn ks.csv
'

# cut inside the last range name: ":LLM@decode_st" is no configured stage
test_expect_success 'nvtx_sum cut inside a range name: refused' '
	head -c -3 "$V2/torch_nvtx_sum.csv" >ns.csv &&
	n=$(($(wc -l <ns.csv) + 1)) &&
	refuses 1 "^lp-stages: ns\\.csv:$n: .*cut-off" \
		lp-stages -c "$R/nsys/config.yaml" -k "$V2/torch_nvtx_kern_sum.csv" ns.csv
'

# ncu quotes every field: a cut just after a closing quote is a whole
# field, the record short
test_expect_success 'ncu export cut after a closing quote: refused' '
	f=$V2/torch_ncu_raw.csv &&
	awk "NR < 4; NR == 4 { printf \"%s\", substr(\$0, 1, index(\$0, \"\\\",\\\"\")); exit }" "$f" >raw.csv &&
	refuses 1 "^lp-ncu2tsv: raw\\.csv:4: " lp-ncu2tsv raw.csv
'

# ---- values that must agree ----

# A table of cases: id | command | file | made from | edit | stderr (ERE);
# the exit is 1 and stdout empty.  The real case each stands for:
#   dur-*       a row of a trace edited by hand or pasted from another
#               capture: Duration is no longer End - Start
#   zero-*      a count of 0 beside a time above 0 (a cut counter, a
#               mixed table): every mean and per-call figure divides by it
#   avg-*, min-*   a summary row whose mean or bounds do not fit its
#               total and count
#   pid-*       a process ID written as a number ("1e3"): compared as text
#               with nsys's "1000", it names no process
while IFS='|' read -r id cmd file src edit pat; do
	case $id in '' | '#'*) continue ;; esac
	id=$(echo $id) file=$(echo $file) src=$(echo $src) edit=$(echo $edit)
	pat=${pat# }
	test_expect_success "$id" '
		case $file in
		run/*)
			cp -R "$R" run &&
			sed "s|^$R/|run/|" "$R/ncu/regions/exports.list" >run/ncu/regions/exports.list || return 1
			;;
		esac
		eval "src=\"$src\"" &&
		eval "$edit" <"$src" >"$file.tmp" && mv "$file.tmp" "$file" &&
		! cmp -s "$src" "$file" &&
		eval "refuses 1 \"\$pat\" $cmd"
	'
done <<\EOF
dur-pushpop | lp-steps -c $R/nsys/config.yaml -i $R/inputs.yaml pp.csv | pp.csv | $V2/torch_nvtx_pushpop_trace.csv | csvset 4 'Duration (ns)' 584273577 | ^lp-steps: pp\.csv:4:3: Duration \(ns\): 584273577, but End \(ns\) - Start \(ns\) is 584273578
dur-ranks-unused-row | lp-ranks -c $R/nsys/config.yaml -o $C/operators.yaml pp.csv | pp.csv | $TP/tps_nvtx_pushpop_trace.csv | csvset 3 'End (ns)' 10043055411 | ^lp-ranks: pp\.csv:3:3: Duration
zero-kern-sum | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 Instances 0 | ^lp-topn: ks\.csv:2:3: Instances: 0, but Total Time \(ns\) is 1705118
zero-nvtx-sum | lp-stages -c $R/nsys/config.yaml -k $V2/torch_nvtx_kern_sum.csv ns.csv | ns.csv | $V2/torch_nvtx_sum.csv | csvset 3 Instances 0 | ^lp-stages: ns\.csv:3:3: Instances: 0
zero-nvtx-kern-sum | lp-kernjoin -r :LLM@decode_all nks.csv | nks.csv | $V2/torch_nvtx_kern_sum_mangled.csv | csvset 4 'Kern Inst' 0 | ^lp-kernjoin: nks\.csv:4:6: Kern Inst: 0
zero-api-calls | lp-aggr -a api.csv $R/kernels.tsv | api.csv | $V2/torch_cuda_api_sum.csv | csvset 3 'Num Calls' 0 | ^lp-aggr: api\.csv:3:3: Num Calls: 0, but Total Time \(ns\) is 81339129
zero-memcpy-count | lp-aggr -m mt.csv $R/kernels.tsv | mt.csv | $V2/torch_cuda_gpu_mem_time_sum.csv | csvset 2 Count 0 | ^lp-aggr: mt\.csv:2:3: Count: 0
zero-kernels-calls | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 calls 0 | ^lp-kernmd: k\.tsv:9:4: calls: 0, but total_ns is 1705118
zero-top-calls | lp-findings $R/stages.tsv tk.tsv | tk.tsv | $R/top_kernels.tsv | tsvset 9 calls 0 | ^lp-findings: tk\.tsv:9:5: calls: 0
zero-metrics-launches | lp-kernjoin -r :LLM@decode_all -m m.tsv $V2/torch_nvtx_kern_sum_mangled.csv | m.tsv | $R/ncu/metrics.tsv | tsvset 4 launches 0 | ^lp-kernjoin: m\.tsv:4:3: launches: 0
avg-kern-sum | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 Instances 385 | ^lp-topn: ks\.csv:2:4: Avg \(ns\)
avg-kernels | lp-kernmd k.tsv | k.tsv | $R/kernels.tsv | tsvset 9 avg_ns 4000.0 | ^lp-kernmd: k\.tsv:9:5: avg_ns
min-above-max | lp-topn ks.csv | ks.csv | $V2/torch_cuda_gpu_kern_sum.csv | csvset 2 'Min (ns)' 6000 | ^lp-topn: ks\.csv:2:6: Min \(ns\)
pid-ncu-regions | lp-reginst -c $R/ncu/regions/config.yaml -p $V2/torch_nvtx_gpu_proj_trace.csv -l run/ncu/regions/exports.list | run/ncu/regions/imp1.csv | $V2/torch_d1_regions.csv | csvset 3 'Process ID' 5.896e3 | ^lp-reginst: run/ncu/regions/imp1\.csv:3:2: Process ID: .*"5\.896e3"
pid-ncu-kernels | lp-ncu2tsv raw.csv | raw.csv | $V2/torch_ncu_raw.csv | csvset 3 'Process ID' 1e3 | ^lp-ncu2tsv: raw\.csv:3:2: Process ID
EOF

# ---- empty YAML ----

# An empty file (a failed write, a redirection that truncated it), a byte
# order mark alone (an editor's save of an empty file), comments alone:
# refused naming the file, not read as a mapping without keys.
test_expect_success 'empty model file: refused naming it' '
	: >m.yaml &&
	refuses 1 "^lp-inputs: m\\.yaml: empty: no YAML document" \
		lp-inputs -i "$R/vars/IMPORT" -m m.yaml
'

test_expect_success 'config of a byte order mark alone: refused naming it' '
	printf "\\357\\273\\277" >c.yaml &&
	refuses 1 "^lp-stages: c\\.yaml: empty: no YAML document" \
		lp-stages -c c.yaml -k "$V2/torch_nvtx_kern_sum.csv" "$V2/torch_nvtx_sum.csv"
'

test_expect_success 'regions config of comments alone: refused naming it' '
	printf "# Resolved by lp-confmerge\\n\\n" >rc.yaml &&
	refuses 1 "^lp-reginst: rc\\.yaml:2: empty: no YAML document" \
		lp-reginst -c rc.yaml -l "$R/ncu/regions/exports.list"
'

test_expect_success 'a config that is a list: refused naming it' '
	printf -- "- run\\n" >l.yaml &&
	refuses 1 "^lp-confget: l\\.yaml:1: the document is a list" lp-confget run.mode l.yaml
'

# ---- results beyond the hardware: said with their cause ----

# cells COLUMN FILE: the column's cells, one a line
cells() {
	table "$2" "$1"
}

# model.params a million times too large (a typo, bytes for params): every
# MFU and MBU above 100 %; the cells say so, and what to check
test_expect_success 'MFU and MBU above 100 %: n/a with the cause, no number' '
	sed "s/^  params: 67043328\$/  params: 67043328000000/" "$R/inputs.yaml" >in.yaml &&
	! cmp -s "$R/inputs.yaml" in.yaml &&
	lp-mfu -g "$R/gpu.tsv" -i in.yaml -s "$R/stages.tsv" -t "$R/steps.tsv" >mfu.tsv &&
	for c in mfu_pct mfu_kernel_pct flop_per_s; do
		cells $c mfu.tsv >got &&
		test -s got && ! grep -v "^n/a because" got || { echo "$c:"; cat got; return 1; }
	done &&
	cells mfu_kernel_pct mfu.tsv | sed -n 1p >got &&
	test_grep "^n/a because MFU would be [0-9]* %, beyond 100 %: .*model\\.params (67043328000000)" got &&
	lp-mbu -g "$R/gpu.tsv" -i in.yaml -s "$R/stages.tsv" -t "$R/steps.tsv" >mbu.tsv &&
	cells mbu_pct mbu.tsv >got &&
	! grep -v "^n/a because MBU would be [0-9]* %, beyond 100 %: .*model\\.params" got &&
	lp-summary mfu.tsv mbu.tsv >s.md &&
	test_grep "MFU would be" s.md
'

# decode_tokens: 0 (a prefill-only config used for a decode run): the
# decode stages' FLOPs are unknown, not 0, and so is their MFU
test_expect_success 'decode_tokens: 0: decode MFU n/a, not 0' '
	sed "s/^  decode_tokens: 32\$/  decode_tokens: 0/" "$R/inputs.yaml" >in.yaml &&
	! cmp -s "$R/inputs.yaml" in.yaml &&
	lp-mfu -g "$R/gpu.tsv" -i in.yaml -s "$R/stages.tsv" -t "$R/steps.tsv" >mfu.tsv &&
	table mfu.tsv stage model_flop mfu_pct mfu_kernel_pct | grep "^decode" >got &&
	test $(wc -l <got) = 2 &&
	! grep -P "\\t0(\\.0*)?(\\t|\$)" got &&
	test $(grep -c "n/a because the model config says decode_tokens: 0" got) = 2
'

# lp(7)'s way to profile a GPU that conf/gpus.yaml lacks, with its
# bandwidth only: SET="gpu.name=... gpu.hbm_tbps=...".  No FLOP peak: which
# roof bounds a kernel is unknown, not "compute-bound" at "inf" %.
test_expect_success 'a GPU with a bandwidth and no FLOP peak: no inf, no class' '
	lp-confmerge -s "gpu.name=NVIDIA X9" -s gpu.hbm_tbps=3.35 "$R/config.yaml" >c.yaml &&
	lp-gpu -c c.yaml -t "$C/gpus.yaml" "$R/env.json" >g.tsv &&
	test_grep "^dram	-	3350000000000	" g.tsv &&
	lp-roofline -n 10 -g g.tsv "$R/kernels.tsv" >rf.tsv &&
	! grep -iwE "inf|nan" rf.tsv &&
	! cells class rf.tsv | grep -- "-bound" &&
	cells roof_pct rf.tsv | sort -u >got &&
	! grep -v "^n/a because" got &&
	cells dram_pct rf.tsv | grep -c "^[0-9]" >n && test "$(cat n)" -ge 1
'

# gpus.yaml's bandwidth 1,000 times too low (TB/s written as PB/s):
# ncu's DRAM bytes over ncu's time pass it
test_expect_success 'DRAM % of bandwidth above 100 %: n/a with the cause' '
	awk -F"\\t" -v OFS="\\t" "\$1 == \"dram\" { \$3 = 4800000000 } 1" "$R/gpu.tsv" >g.tsv &&
	lp-roofline -n 10 -g g.tsv "$R/kernels.tsv" >rf.tsv &&
	cells dram_pct rf.tsv >got &&
	test_grep "^n/a because DRAM % of bandwidth would be [0-9]* %, beyond 100 %: .*too low" got &&
	! grep -E "^[0-9.]+\$" got | awk "\$1 > 100" | grep .
'

# The same for the regions: a tensor peak and a bandwidth written in the
# wrong unit (GFLOP/s for TFLOP/s, GB/s for TB/s)
test_expect_success 'region % of peak and of bandwidth above 100 %: n/a with the cause' '
	awk -F"\t" -v OFS="\t" "\$1 == \"tensor\" && \$2 == \"fp16\" { \$3 = 1000000000 }
		\$1 == \"dram\" { \$3 = 10000000 } 1" "$R/gpu.tsv" >g.tsv &&
	lp-regwork -c "$R/ncu/regions/config.yaml" -g g.tsv -i "$R/inputs.yaml" \
		-l "$R/ncu/regions/exports.list" >rw.tsv &&
	cells peak_pct rw.tsv >got &&
	test $(wc -l <got) = 3 &&
	! grep -v "^n/a because % of peak would be [0-9]* %, beyond 100 %: .*too low" got &&
	cells bw_pct rw.tsv >got &&
	! grep -v "^n/a because % of bandwidth would be [0-9]* %, beyond 100 %" got
'

# The kernel summary of one capture and the ranges of another: decode_all
# 100 ns long, 8.4 ms of kernels in it: busy 8,357,416 %
test_expect_success 'GPU busy beyond 128 kernels at once: n/a with the cause' '
	sed "2s/2559298697/100/g" "$V2/torch_nvtx_sum.csv" >ns.csv &&
	! cmp -s "$V2/torch_nvtx_sum.csv" ns.csv &&
	lp-stages -c "$R/nsys/config.yaml" -k "$V2/torch_nvtx_kern_sum.csv" ns.csv >st.tsv &&
	table st.tsv stage busy_pct | grep "^decode_all" >got &&
	test_grep "n/a because GPU busy would be [0-9]* %, beyond 12800 %: .*not of one capture" got &&
	lp-summary st.tsv >/dev/null
'

test_expect_success 'no inf or nan in any table of the run' '
	! grep -ilwE "inf|nan|-nan" "$R"/*.tsv "$R"/ncu/*.tsv
'

# ---- lp-env ----

# A wedged driver: nvidia-smi does not answer.  lp-env stops it after -t
# seconds and says so; the other probes still answer.
test_expect_success 'lp-env: a probe that hangs is stopped after -t seconds' '
	mkdir fake && cp "$ROOT"/tests/fake/nsys "$ROOT"/tests/fake/ncu fake/ &&
	printf "#!/bin/sh\\nsleep 60\\n" >fake/nvidia-smi && chmod +x fake/nvidia-smi &&
	echo "sh w.sh" >work && lp-inputs -w work >in.yaml &&
	start=$(date +%s) &&
	PATH=$PWD/fake:$PATH timeout 20 lp-env -t 1 in.yaml >env.json &&
	test $(($(date +%s) - start)) -lt 10 &&
	test_grep "nvidia-smi gave no answer within 1 s" env.json &&
	test_grep "\"nsys_version\": \"NVIDIA Nsight Systems" env.json &&
	lp-confget host env.json >/dev/null
'

# nvidia-smi printing something else than the CSV asked for (an error
# text with an open quote): refused, and no half of an env.json
test_expect_success 'lp-env: malformed nvidia-smi output, no half env.json' '
	mkdir fake && cp "$ROOT"/tests/fake/nsys "$ROOT"/tests/fake/ncu fake/ &&
	cat >fake/nvidia-smi <<-\EOF &&
	#!/bin/sh
	echo "0, NVIDIA H200, \"GPU-c"
	EOF
	chmod +x fake/nvidia-smi &&
	echo "sh w.sh" >work && lp-inputs -w work >in.yaml &&
	PATH=$PWD/fake:$PATH refuses 1 "^lp-env: nvidia-smi:1: " lp-env in.yaml
'

test_expect_success 'lp-env: -t is range-checked' '
	refuses 2 "^lp-env: -t" lp-env -t 0 &&
	refuses 2 "^lp-env: -t" lp-env -t 1x
'

test_done
