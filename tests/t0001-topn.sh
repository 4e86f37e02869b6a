#!/usr/bin/env bash
# lp-topn: ranking real nsys kernel summaries; selections for ncu; bad input.
. "$(dirname "$0")/lib.sh"

TINY=$FIX/h200-tinyllm/cap_cuda_gpu_kern_sum.csv
TORCH=$FIX/h200-torch-decoder/torch_nvtx_kern_sum.csv
MANGLED=$FIX/h200-live/t1_cuda_gpu_kern_sum_mangled.csv

test_expect_success 'ranks a real cuda_gpu_kern_sum as its totals say' '
	lp-topn "$TINY" >actual 2>err &&
	cut -f1,3- actual >got &&
	cat >expect <<-EOF &&
	# tool: lp-topn
	# source: nsys cuda_gpu_kern_sum ($TINY)
	# kernels: 7
	rank	total_ns	calls	avg_ns	pct	cum_pct
	1	809177	128	6321.7	54.28	54.28
	2	316155	64	4939.9	21.21	75.48
	3	130686	64	2042.0	8.77	84.25
	4	77793	32	2431.0	5.22	89.47
	5	63456	32	1983.0	4.26	93.73
	6	51106	32	1597.1	3.43	97.15
	7	42433	32	1326.0	2.85	100.00
	EOF
	test_cmp expect got &&
	test_must_be_empty err
'

test_expect_success 'kernel column is the name exactly as in the input' '
	lp-topn -n 1 <"$TINY" >lp.out && grep -v "^#" lp.out | cut -f2 | sed 1d >got &&
	sed -n "2p" "$TINY" | sed "s/^[^\"]*\"//; s/\"$//" >expect &&
	test_cmp expect got
'

test_expect_success '-n keeps the top N, -p stops where the share reaches PCT' '
	lp-topn -n 2 "$TINY" >lp.out && grep -v "^#" lp.out | cut -f1 >got &&
	printf "rank\n1\n2\n" >expect &&
	test_cmp expect got &&
	lp-topn -p 80 "$TINY" >lp.out && grep -v "^#" lp.out | cut -f1,7 >got &&
	printf "rank\tcum_pct\n1\t54.28\n2\t75.48\n3\t84.25\n" >expect &&
	test_cmp expect got &&
	lp-topn -n 2 -p 99 "$TINY" >lp.out && grep -v "^#" lp.out | wc -l >got &&
	echo 3 >expect &&
	test_cmp expect got &&
	lp-topn -n 0 "$TINY" >lp.out && grep -v "^#" lp.out | wc -l >got &&
	echo 8 >expect &&
	test_cmp expect got
'

test_expect_success '-f names prints one kernel a line' '
	lp-topn -f names -n 3 "$MANGLED" >actual &&
	cat >expect <<-\EOF &&
	_Z17gemv2T_kernel_valIiiffffLi128ELi16ELi4ELi4ELb0ELb0E18cublasGemvParamsExIi30cublasGemvTensorStridedBatchedIKfES3_S1_IfEfEEvT11_T4_S7_
	_ZN8internal5gemvx6kernelIiiffffLb0ELb1ELb1ELb0ELi7ELb0E18cublasGemvParamsExIi30cublasGemvTensorStridedBatchedIKfES5_S3_IfEfEEENSt9enable_ifIXntT5_EvE4typeET11_
	_ZN8internal5gemvx6kernelIiiffffLb0ELb1ELb1ELb0ELi9ELb0E18cublasGemvParamsExIi30cublasGemvTensorStridedBatchedIKfES5_S3_IfEfEEENSt9enable_ifIXntT5_EvE4typeET11_
	EOF
	test_cmp expect actual
'

test_expect_success '-f regex gives one anchored, escaped --kernel-name value' '
	lp-topn -f regex -n 2 <"$TINY" >actual &&
	cat >expect <<-\EOF &&
	regex:^(std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, float, float, float, float, \(bool\)0, \(bool\)1, \(bool\)0, \(bool\)0, \(int\)9, \(bool\)0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>, float>>\(T13\)|void cublasLt::splitKreduce_kernel<\(int\)32, \(int\)16, int, float, float, float, float, \(bool\)0, float, float, float, \(bool\)1, \(bool\)0, \(bool\)0, \(bool\)0>\(cublasLt::cublasSplitKParams<T6>, const T4 \*, const T10 \*, T9 \*, T5 \*, const T6 \*, const T6 \*, const T11 \*, const T4 \*, T11 \*, void \*, long, T6 \*, int \*, T6 \*, T6 \*, const T6 \*, const T6 \*, const T6 \*, const T6 \*, const T6 \*\))$
	EOF
	test_cmp expect actual &&
	lp-topn -f regex -n 3 "$MANGLED" >lp.out && <lp.out grep -c "^regex:^(_Z17gemv2T_kernel_val[^|]*|_ZN8[^|]*|_ZN8[^|]*)[\$]\$" >count &&
	echo 1 >expect &&
	test_cmp expect count
'

test_expect_success 'nvtx_kern_sum: -r keeps one range, with or without the leading colon' '
	lp-topn -r :LLM@decode_all "$TORCH" >a &&
	lp-topn -r LLM@decode_all <"$TORCH" >b &&
	test_grep "^# source: nsys nvtx_kern_sum (<stdin>), NVTX range LLM@decode_all\$" b &&
	grep -v "^#" a >a.rows && grep -v "^#" b >b.rows && test_cmp a.rows b.rows &&
	cut -f1,3-5 a.rows >got &&
	cat >expect <<-\EOF &&
	rank	total_ns	calls	avg_ns
	1	111744	32	3492.0
	2	76544	16	4784.0
	3	53407	24	2225.3
	4	43295	32	1353.0
	5	29248	8	3656.0
	6	28288	24	1178.7
	7	27359	8	3419.9
	8	23872	8	2984.0
	9	20096	8	2512.0
	10	7872	8	984.0
	EOF
	test_cmp expect got
'

test_expect_success 'nvtx_kern_sum without -r names the ranges and fails' '
	test_expect_code 2 lp-topn "$TORCH" >out 2>err &&
	test_must_be_empty out &&
	test_grep "lp-topn: .*choose one with -r (ranges: \"(none)\", \":LLM@decode_all\", \":LLM@prefill\")" err
'

test_expect_success 'a range that is not there is an error, not an empty table' '
	test_expect_code 1 lp-topn -r LLM:nosuch "$TORCH" >out 2>err &&
	test_must_be_empty out &&
	test_grep "no kernel rows in range \"LLM:nosuch\"" err &&
	test_expect_code 2 lp-topn -r x "$TINY" 2>err &&
	test_grep "needs nvtx_kern_sum input" err
'

# Stands for demangled names that carry commas and quotes (string literal
# template arguments); nsys quotes such fields and doubles the quotes.
test_expect_success 'names with commas and quotes come through whole' '
	cat >in.csv <<-\EOF &&
	Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
	60.0,600,3,200.0,200.0,200,200,0.0,"k<""a, b"", 2>(int, char const*)"
	40.0,400,4,100.0,100.0,100,100,0.0,plain
	EOF
	lp-topn -f names <in.csv >got &&
	printf "%s\n" "k<\"a, b\", 2>(int, char const*)" plain >expect &&
	test_cmp expect got
'

# What older nsys printed on stdout before the CSV when piped (nsys
# 2021-2023: "Running [...]...", a title); the header is the first line
# with a "Total Time" column.
test_expect_success 'nsys stats piped with its preamble lines' '
	{ echo "Generating SQLite file r.sqlite from r.nsys-rep"
	  echo "Processing [r.sqlite] with [/opt/nvidia/nsight-systems/reports/cuda_gpu_kern_sum.py]... "
	  echo
	  echo " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):"
	  echo
	  cat "$TINY"; } | lp-topn >got &&
	lp-topn <"$TINY" >expect &&
	test_cmp expect got
'

test_expect_success 'ties in total time are broken by name' '
	cat >in.csv <<-\EOF &&
	Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
	25.0,100,1,100.0,100.0,100,100,0.0,zeta
	25.0,100,1,100.0,100.0,100,100,0.0,alpha
	50.0,200,1,200.0,200.0,200,200,0.0,mid
	EOF
	lp-topn -f names <in.csv >got &&
	printf "mid\nalpha\nzeta\n" >expect &&
	test_cmp expect got
'

# nsys 2021 printed "Time(%)" and "Average"; --timeunit changes the unit.
test_expect_success 'older headers and other time units' '
	printf "%s\n" "Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name" \
		"70.0,700,7,100.0,90,110,old_kernel" >old.csv &&
	lp-topn <old.csv >lp.out && grep -v "^#" lp.out | cut -f2-4 | sed -n 2p >got &&
	printf "old_kernel\t700\t7\n" >expect &&
	test_cmp expect got &&
	printf "%s\n" "Time (%),Total Time (us),Instances,Name" "100.0,1.5,3,k" >us.csv &&
	lp-topn <us.csv >lp.out && grep -v "^#" lp.out | cut -f3 | sed -n 2p >got &&
	echo 1500 >expect &&
	test_cmp expect got
'

test_expect_success 'setup: a summary of 200000 kernels, hundreds of thousands of launches each' '
	awk "BEGIN { print \"Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\";
		for (i = 0; i < 200000; i++) {
			t = (i * 7919) % 1000003 * 1000 + 17; n = 100000 + i % 977;
			a = t / n; printf \"0.0,%d,%d,%.1f,%.1f,%d,%d,0.0,k%06d\\n\", t, n, a, a, int(a), int(a) + 1, i } }" >"$TRASH/big.csv"
'

test_expect_success 'a large summary ranks exactly as sort does' '
	lp-topn -n 5 "$TRASH/big.csv" >lp.out && grep -v "^#" lp.out | cut -f2-4 | sed 1d >got &&
	sed 1d "$TRASH/big.csv" | sort -t, -k2,2nr -k9,9 | sed -n 1,5p |
		awk -F, "{ printf \"%s\t%s\t%s\n\", \$9, \$2, \$3 }" >expect &&
	test_cmp expect got
'

bad() {
	# bad NAME CODE PATTERN: input in.csv must fail with CODE, PATTERN on
	# stderr (which names the tool), nothing on stdout.
	test_expect_success "bad input: $1" "
		test_expect_code $2 lp-topn \"\$TRASH/in.csv\" >out 2>err &&
		test_must_be_empty out &&
		test_grep '^lp-topn: ' err &&
		test_grep -- '$3' err
	"
}
: >"$TRASH/in.csv"
bad 'empty input' 1 'in.csv: empty: nsys stats writes an empty file for a report the capture holds no data of'
printf 'Time (%%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n' >"$TRASH/in.csv"
bad 'a header alone' 1 'in.csv:1: no kernel rows (the export ends after its header)'
cp "$FIX/h200-torch-decoder/torch_nvtx_sum.csv" "$TRASH/in.csv"
bad 'the wrong report (nvtx_sum)' 1 'an NVTX range summary'
cp "$FIX/h200-torch-decoder/torch_cuda_api_sum.csv" "$TRASH/in.csv"
bad 'the wrong report (cuda_api_sum)' 1 'no column "Instances"'
head -5 "$FIX/h200-tinyllm/dec_raw.csv" >"$TRASH/in.csv"
bad 'the wrong tool (an ncu export)' 1 'no header with a "Total Time" column: not an nsys kernel summary (it begins "ID,Process ID'
printf 'SKIPPED: r.sqlite does not contain CUDA kernel data.\n' >"$TRASH/in.csv"
bad 'a report nsys skipped' 1 'not an nsys kernel summary (it begins "SKIPPED: r.sqlite does not contain CUDA kernel data.")'
head -c 300 "$TINY" >"$TRASH/in.csv"
bad 'a cut-off quoted field' 1 'in.csv:[0-9]*: the last line has no newline: a cut-off export'
printf 'Time (%%),Total\0Time\x01\xff\n' >"$TRASH/in.csv"
bad 'binary junk' 1 'binary data'
printf 'Time (%%),Total Time (ns),Instances,Name\n1.0,12x,3,k\n' >"$TRASH/in.csv"
bad 'a non-number' 1 'in.csv:2:2: Total Time (ns): not a number: "12x"'
printf 'Time (%%),Total Time (ns),Name\n1.0,12,k\n' >"$TRASH/in.csv"
bad 'a missing column' 1 'no column "Instances"'
printf 'Time (%%),Total Time (fortnights),Instances,Name\n1.0,12,3,k\n' >"$TRASH/in.csv"
bad 'an unknown unit' 1 'unknown time unit in "Total Time (fortnights)"'
printf 'Total Time (ns),Instances,Name\n1,2,a"b\n' >"$TRASH/in.csv"
bad 'a stray quote' 1 'malformed CSV'
printf 'Total Time (ns),Instances,Name\n-5,2,k\n' >"$TRASH/in.csv"
bad 'a negative time' 1 'Total Time (ns): negative: "-5"'

test_expect_success 'usage errors exit 2 with the synopsis or the reason' '
	test_expect_code 2 lp-topn -n x "$TINY" 2>err && test_grep "lp-topn: -n: expected a whole number" err &&
	test_expect_code 2 lp-topn -p 0 "$TINY" 2>err && test_grep "lp-topn: -p: expected a percentage" err &&
	test_expect_code 2 lp-topn -f csv "$TINY" 2>err && test_grep "expected tsv, regex or names" err &&
	test_expect_code 2 lp-topn "$TINY" "$TINY" 2>err && test_grep "^usage: lp-topn" err &&
	test_expect_code 2 lp-topn -z 2>err && test_grep "^usage: lp-topn" err &&
	test_expect_code 2 lp-topn nosuch.csv 2>err && test_grep "lp-topn: nosuch.csv: No such file" err
'

test_expect_success 'a full disk is an error; a closed pipe is quiet' '
	test_expect_code 2 lp-topn "$TINY" >/dev/full 2>err &&
	test_grep "lp-topn: <stdout>: No space left" err &&
	# not its status (";", also under pipefail) but its silence is the
	# check: lp-topn dies of SIGPIPE (141) once head is gone, or exits 0
	# when it wrote everything first
	lp-topn -n 0 "$TRASH/big.csv" 2>err | head -1 >/dev/null;
	test_must_be_empty err
'

test_done
