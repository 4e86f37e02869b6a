#!/usr/bin/env bash
# lp-ncu2tsv: real ncu exports, wide and long, scaled and base units.
. "$(dirname "$0")/lib.sh"

RAW=$FIX/h200-tinyllm/dec_raw.csv
DETAILS=$FIX/h200-tinyllm/dec_details.csv
SCALED=$FIX/h200-live/n2.csv
BASE=$FIX/h200-live/n2_base.csv

# Expected launches and time: the export's own rows, summed by awk-free
# hand count (96 launches of 7 kernels in 10 launch shapes: the gemv kernel
# runs with grids 128, 32x3 and 96, splitKreduce with 1 and 1x64;
# durations in us, 6 decimals).
test_expect_success 'wide export (--page raw), scaled units' '
	lp-ncu2tsv "$RAW" >actual 2>err &&
	test_grep "^# tool: lp-ncu2tsv\$" actual && sed -i "/^#/d" actual &&
	test_must_be_empty err &&
	cut -f2-11,18-20,21,22 actual >got &&
	cat >expect <<-\EOF &&
	device	launches	gpu_time_ns	sm_throughput_pct	dram_throughput_pct	flops	dram_bytes	device_name	flops_tensor	flops_nontensor	flops_fp32	flops_fp16	flops_fp64	grid	block
	0	8	138432	0.01	0.03	2088	205807	NVIDIA H200	0	2088	2056	32	0	(1, 1, 1)	(32, 16, 1)
	0	16	125344	19.65	44.77	144048127	268813037	NVIDIA H200	0	144048127	135397375	8650752	0	(128, 1, 1)	(32, 16, 1)
	0	8	76608	15.49	36.60	70795253	134483451	NVIDIA H200	0	70795253	67551222	3244032	0	(32, 1, 3)	(32, 16, 1)
	0	16	69024	0.04	0.05	98288	159498	NVIDIA H200	0	98288	98288	0	0	(1, 1, 1)	(256, 1, 1)
	0	8	56352	16.36	37.35	54018047	100830712	NVIDIA H200	0	54018047	50774015	3244032	0	(96, 1, 1)	(32, 16, 1)
	0	8	34592	1.13	0.16	4456448	272381	NVIDIA H200	0	4456448	4456448	0	0	(8, 1, 1)	(128, 1, 1)
	0	8	32608	5.26	0.11	65536	166650	NVIDIA H200	0	65536	32768	32768	0	(1, 64, 1)	(32, 16, 1)
	0	8	32448	5.91	0.13	1595392	198918	NVIDIA H200	0	1595392	276480	1318912	0	(1, 1, 256)	(32, 4, 1)
	0	8	26144	0.07	0.04	2112	49408	NVIDIA H200	0	2112	2112	0	0	(1, 1, 1)	(256, 1, 1)
	0	8	23968	0.39	0.26	425984	300797	NVIDIA H200	0	425984	425984	0	0	(16, 1, 1)	(256, 1, 1)
	EOF
	test_cmp expect got &&
	# this roofline-set export has the tensor-core counters, all zero
	cut -f12-17 actual | sed 1d | sort -u >tc &&
	printf "0\t0\t0\t0\t0\t0\n" >expect &&
	test_cmp expect tc &&
	cut -f1 actual >names &&
	cat >expect <<-\EOF &&
	kernel
	void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, 0, float, float, float, 1, 0, 0, 0>(cublasLt::cublasSplitKParams<T6>, const T4 *, const T10 *, T9 *, T5 *, const T6 *, const T6 *, const T11 *, const T4 *, T11 *, void *, long, T6 *, int *, T6 *, T6 *, const T6 *, const T6 *, const T6 *, const T6 *, const T6 *)
	std::enable_if<!T7, void>::type internal::kernel<int, int, float, float, float, float, 0, 1, 0, 0, 9, 0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>, float>>(T13)
	std::enable_if<!T7, void>::type internal::kernel<int, int, float, float, float, float, 0, 1, 0, 0, 9, 0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>, float>>(T13)
	rmsnorm(float *, int, int)
	std::enable_if<!T7, void>::type internal::kernel<int, int, float, float, float, float, 0, 1, 0, 0, 9, 0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>, float>>(T13)
	void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(T1::Params)
	void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, 0, float, float, float, 1, 0, 0, 0>(cublasLt::cublasSplitKParams<T6>, const T4 *, const T10 *, T9 *, T5 *, const T6 *, const T6 *, const T11 *, const T4 *, T11 *, void *, long, T6 *, int *, T6 *, T6 *, const T6 *, const T6 *, const T6 *, const T6 *, const T6 *)
	std::enable_if<!T7, void>::type internal::kernel<int, int, float, float, float, float, 0, 1, 1, 0, 7, 0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>, float>>(T13)
	softmax_rows(float *, int, int)
	silu_mul(float *, const float *, int)
	EOF
	test_cmp expect names
'

# The (1, 1, 256) grid's SM throughput is 5.905 to the digit (eight
# launches, 47.24 / 8): summed exactly, whatever the order of the
# launches, it shows as 5.91 (a double sum in row order ended just under).
test_expect_success 'long export (--page details) of the same report' '
	lp-ncu2tsv <"$DETAILS" >actual &&
	test_grep "^# source: ncu CSV export <stdin>\$" actual && sed -i "/^#/d" actual &&
	cut -f2-6,21,22 actual >got &&
	cat >expect <<-\EOF &&
	device	launches	gpu_time_ns	sm_throughput_pct	dram_throughput_pct	grid	block
	0	8	138440	0.01	0.03	(1, 1, 1)	(32, 16, 1)
	0	16	125320	19.65	44.77	(128, 1, 1)	(32, 16, 1)
	0	8	76610	15.49	36.60	(32, 1, 3)	(32, 16, 1)
	0	16	69020	0.04	0.05	(1, 1, 1)	(256, 1, 1)
	0	8	56350	16.36	37.35	(96, 1, 1)	(32, 16, 1)
	0	8	34600	1.13	0.17	(8, 1, 1)	(128, 1, 1)
	0	8	32610	5.26	0.11	(1, 64, 1)	(32, 16, 1)
	0	8	32450	5.91	0.13	(1, 1, 256)	(32, 4, 1)
	0	8	26130	0.07	0.04	(1, 1, 1)	(256, 1, 1)
	0	8	24000	0.39	0.27	(16, 1, 1)	(256, 1, 1)
	EOF
	test_cmp expect got &&
	cut -f7,8 actual | sort -u >empty &&
	printf "\t\nflops\tdram_bytes\n" >expect &&
	test_cmp expect empty
'

test_expect_success 'base units with thousands separators equal scaled units' '
	lp-ncu2tsv "$SCALED" >lp.out && grep -v "^#" lp.out | cut -f2-4,7,8,10,11 >scaled &&
	lp-ncu2tsv "$BASE" >lp.out && grep -v "^#" lp.out | cut -f2-4,7,8,10,11 >base &&
	test_cmp scaled base &&
	# no tensor-core counters in these exports: no total, only the
	# CUDA-core part
	cat >expect <<-\EOF &&
	device	launches	gpu_time_ns	flops	dram_bytes	flops_tensor	flops_nontensor
	0	3	12896		32256		13569
	0	1	3680		27648		36608
	EOF
	test_cmp expect base &&
	lp-ncu2tsv "$SCALED" >lp.out && grep -v "^#" lp.out | cut -f1 | sed 1d >names &&
	printf "_Z7rmsnormPfii\n_Z8silu_mulPfPKfi\n" >expect &&
	test_cmp expect names
'

# A hand-made wide export, the shape of --page raw, standing for a launch
# where ncu printed n/a for a metric it could not collect.
test_expect_success 'n/a values are skipped in means, not read as zero' '
	cat >na.csv <<-\EOF &&
	"ID","Kernel Name","Device","gpu__time_duration.sum","sm__throughput.avg.pct_of_peak_sustained_elapsed","dram__bytes.sum"
	"","","","us","%","Kbyte"
	"0","k(int)","0","1.5","n/a","2"
	"1","k(int)","0","2.5","30","n/a"
	"2","k(int)","0","3","60","4"
	EOF
	lp-ncu2tsv na.csv >lp.out && grep -v "^#" lp.out | cut -f3-5,8 >got &&
	printf "launches\tgpu_time_ns\tsm_throughput_pct\tdram_bytes\n3\t7000\t45.00\t\n" >expect &&
	test_cmp expect got
'

# Hand-made in the shape of an ncu 2020-2021 --page details export from an
# A100: the section was "GPU Speed Of Light", SM was "SM [%]", units were
# usecond/nsecond, and there was no Device column.
test_expect_success 'long export of an older ncu and another GPU' '
	h="\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Kernel Time\",\"Context\",\"Stream\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"" &&
	r="\"1\",\"ps\",\"h\",\"ampere_sgemm_128x64_nn\",\"2021-Mar-01 10:00:00\",\"1\",\"7\",\"GPU Speed Of Light\"" &&
	q="\"1\",\"ps\",\"h\",\"vectorized_kernel(int)\",\"2021-Mar-01 10:00:01\",\"1\",\"7\",\"GPU Speed Of Light\"" &&
	{
		echo "$h"
		echo "\"0\",$r,\"DRAM Frequency\",\"cycle/nsecond\",\"1.21\""
		echo "\"0\",$r,\"Duration\",\"usecond\",\"12.35\""
		echo "\"0\",$r,\"SM [%]\",\"%\",\"45.10\""
		echo "\"0\",$r,\"DRAM Throughput\",\"%\",\"12.00\""
		echo "\"1\",$q,\"Duration\",\"nsecond\",\"9,872\""
		echo "\"1\",$q,\"SM [%]\",\"%\",\"n/a\""
		echo "\"2\",$r,\"Duration\",\"msecond\",\"0.01\""
		echo "\"2\",$r,\"SM [%]\",\"%\",\"44.90\""
	} >old.csv &&
	lp-ncu2tsv old.csv >lp.out && grep -v "^#" lp.out | cut -f1-11 >got &&
	cat >expect <<-\EOF &&
	kernel	device	launches	gpu_time_ns	sm_throughput_pct	dram_throughput_pct	flops	dram_bytes	device_name	flops_tensor	flops_nontensor
	ampere_sgemm_128x64_nn		2	22350	45.00	12.00					
	vectorized_kernel(int)		1	9872							
	EOF
	test_cmp expect got
'

test_expect_success 'tool messages before the CSV are skipped with a warning' '
	{ echo "==PROF== Connected to process 42 (/usr/bin/python3)"; cat "$SCALED"; } >msg.csv &&
	lp-ncu2tsv msg.csv >got 2>err && sed -i "/^# source:/d" got &&
	lp-ncu2tsv "$SCALED" >expect && sed -i "/^# source:/d" expect &&
	test_cmp expect got &&
	test_grep "msg.csv:1: skipped ncu message: ==PROF== Connected" err
'

bad() {
	test_expect_success "bad input: $1" "
		test_expect_code $2 lp-ncu2tsv \"\$TRASH/in.csv\" >out 2>err &&
		test_must_be_empty out &&
		test_grep '^lp-ncu2tsv: ' err &&
		test_grep -- '$3' err
	"
}
: >"$TRASH/in.csv"
bad 'empty input' 1 'in.csv: empty input'
head -1 "$RAW" >"$TRASH/in.csv"
bad 'a header alone' 1 'no units row\|no results in the export'
head -2 "$RAW" >"$TRASH/in.csv"
bad 'header and units row, no launch' 1 'no results in the export'
head -1 "$DETAILS" >"$TRASH/in.csv"
bad 'a long header alone' 1 'no results in the export'
cp "$FIX/h200-tinyllm/cap_cuda_gpu_kern_sum.csv" "$TRASH/in.csv"
bad 'the wrong report (nsys)' 1 'no column "Kernel Name" (not an ncu CSV export)'
head -c 200000 "$RAW" >"$TRASH/in.csv"
bad 'a cut-off export' 1 'in.csv:[0-9]*: the last line has no newline: a cut-off export'
printf '"ID","Kernel\0Name"\n\x01\x02\xff\n' >"$TRASH/in.csv"
bad 'binary junk' 1 'binary data'
sed '3s/"4\.512000"/"4.5x"/g' "$RAW" >"$TRASH/in.csv"
bad 'a non-number' 1 'in.csv:3:253: gpu__time_duration.sum: not a number: "4.5x"'
awk -F, -v OFS=, 'NR==2 { $253 = "\"fortnight\"" } { print }' "$RAW" >"$TRASH/in.csv"
bad 'an unknown unit' 1 'in.csv:2:253: gpu__time_duration.sum: unknown time unit "fortnight"'
sed '1s/gpu__time_duration.sum/gpu__time_duration.xxx/' "$SCALED" >"$TRASH/in.csv"
bad 'a missing duration column' 1 'no column "gpu__time_duration.sum"'
sed '1,/Command line profiler metrics","gpu__time_duration.sum"/s/"gpu__time_duration.sum","us"/"gpu__time_duration.sum","parsec"/' \
	"$DETAILS" >"$TRASH/in.csv"
bad 'an unknown unit in a long export' 1 'gpu__time_duration.sum: unknown time unit "parsec"'
printf '%s\n' "==ERROR== Could not open report file 'r.ncu-rep'." \
	"==ERROR== The file does not exist or is not a regular file." >"$TRASH/in.csv"
bad 'ncu errors instead of CSV' 1 "ncu error instead of CSV: ==ERROR== Could not open"
{ head -1 "$DETAILS"; sed -n '2,20p' "$DETAILS"; sed -n '30,40p' "$DETAILS"; sed -n '21,29p' "$DETAILS"; } >"$TRASH/in.csv"
bad 'rows of one launch apart' 1 'rows of result ID 0 are not together'

test_expect_success 'usage: -h, a bad option, a full disk' '
	lp-ncu2tsv -h >out && test_grep "^usage: lp-ncu2tsv \[-r range\] \[file ...\]" out &&
	test_expect_code 2 lp-ncu2tsv -q a 2>err && test_grep "^usage:" err &&
	test_expect_code 2 lp-ncu2tsv "$RAW" >/dev/full 2>err && test_grep "No space left" err
'

test_done
