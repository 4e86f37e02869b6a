#!/usr/bin/env bash
# lp-kernjoin and lp-kernmd: nsys time beside ncu metrics, never another's.
. "$(dirname "$0")/lib.sh"

L=$FIX/h200-live
CAP=$FIX/h200-tinyllm/cap_cuda_gpu_kern_sum.csv

test_expect_success 'setup: ncu metrics of the real exports' '
	lp-ncu2tsv "$FIX/h200-tinyllm/dec_raw.csv" >"$TRASH/dec.tsv" &&
	lp-ncu2tsv "$L/n2.csv" >"$TRASH/n2.tsv"
'

test_expect_success 'demangled names only: matched by normalised name, and said so' '
	lp-kernjoin -m "$TRASH/dec.tsv" "$CAP" >k.tsv &&
	test_grep "^# match: 7 of 7 ncu kernels matched (mangled 0, exact 4, normalised 3); 0 unmatched$" k.tsv &&
	sed "/^#/d" k.tsv | cut -f1,3,4,9,10,11,12,16 >got &&
	# rank 2 (splitKreduce) runs two launch shapes, 8 launches each at
	# SM 0.01 % and 5.26 % (metrics.tsv): their mean, 2.635, reads 2.63
	# (from the export itself, 2.64: the rows keep 0.01 each)
	cat >expect <<-\EOF &&
	rank	total_ns	calls	ncu_launches	ncu_time_ns	sm_throughput_pct	dram_throughput_pct	match
	1	809177	128	32	258304	17.79	40.87	normalised
	2	316155	64	16	171040	2.63	0.07	normalised
	3	130686	64	16	69024	0.04	0.05	exact
	4	77793	32	8	34592	1.13	0.16	exact
	5	63456	32	8	32448	5.91	0.13	normalised
	6	51106	32	8	26144	0.07	0.04	exact
	7	42433	32	8	23968	0.39	0.26	exact
	EOF
	test_cmp expect got
'

test_expect_success 'mangled names join exactly; the demangled report names them' '
	lp-kernjoin -d "$L/t1_cuda_gpu_kern_sum.csv" -m "$TRASH/n2.tsv" \
		"$L/t1_cuda_gpu_kern_sum_mangled.csv" >k.tsv &&
	test_grep "^# match: 2 of 2 ncu kernels matched (mangled 2, exact 0, normalised 0); 0 unmatched$" k.tsv &&
	sed "/^#/d" k.tsv | awk -F "\t" "\$16 != \"-\" { print \$2 \"|\" \$3 \"|\" \$11 \"|\" \$16 \"|\" \$17 }" >got &&
	cat >expect <<-\EOF &&
	kernel|total_ns|sm_throughput_pct|match|mangled
	rmsnorm(float *, int, int)|258464|0.03|mangled|_Z7rmsnormPfii
	silu_mul(float *, const float *, int)|100128|0.16|mangled|_Z8silu_mulPfPKfi
	EOF
	test_cmp expect got &&
	sed "/^#/d" k.tsv | awk -F "\t" "\$16 == \"-\" && \$11 != \"\"" >leaked &&
	test_must_be_empty leaked
'

test_expect_success 'nvtx_kern_sum: the stage range, mangled and demangled paired' '
	lp-kernjoin -r LLM:decode_all -d "$L/t1_nvtx_kern_sum.csv" -m "$TRASH/n2.tsv" \
		"$L/t1_nvtx_kern_sum_mangled.csv" >k.tsv &&
	test_grep "^# range: LLM:decode_all$" k.tsv &&
	test_grep "^# time: nsys nvtx_kern_sum (" k.tsv &&
	sed "/^#/d" k.tsv | cut -f2 | sed -n "2p;13p" >got &&
	printf "%s\n" "void gemv2T_kernel_val<int, int, float, float, float, float, (int)128, (int)16, (int)4, (int)4, (bool)0, (bool)0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>, float>>(T13, T6, T6)" \
		"embed_lookup(float *, const float *, const int *, int, int)" >expect &&
	test_cmp expect got
'

test_expect_success 'ncu kernels with no nsys partner are listed, their metrics shown nowhere' '
	lp-kernjoin -m "$TRASH/n2.tsv" "$CAP" >k.tsv &&
	test_grep "^# match: 0 of 2 ncu kernels matched" k.tsv &&
	test_grep "^# unmatched: _Z7rmsnormPfii$" k.tsv &&
	test_grep "^# unmatched: _Z8silu_mulPfPKfi$" k.tsv &&
	sed "/^#/d" k.tsv | sed 1d | cut -f9-14 | sort -u >got &&
	printf "\t\t\t\t\t\n" >expect &&
	test_cmp expect got
'

# Hand-made: two kernels in different namespaces whose normalised names
# are equal, as happens with templated code in two libraries.
test_expect_success 'an ambiguous normalised name matches nothing' '
	printf "%s\n" "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name" \
		"60.0,600,1,600.0,600.0,600,600,0.0,a::k(int)" \
		"40.0,400,1,400.0,400.0,400,400,0.0,b::k(int)" >ns.csv &&
	printf "# tool: lp-ncu2tsv\nkernel\tdevice\tlaunches\tgpu_time_ns\tsm_throughput_pct\tdram_throughput_pct\nk(int)\t0\t1\t100\t50\t50\nb::k(int)\t0\t1\t90\t20\t20\n" >m.tsv &&
	lp-kernjoin -m m.tsv ns.csv >k.tsv &&
	sed "/^#/d" k.tsv | cut -f2,11,16 >got &&
	printf "kernel\tsm_throughput_pct\tmatch\na::k(int)\t\t-\nb::k(int)\t20.00\texact\n" >expect &&
	test_cmp expect got &&
	test_grep "^# unmatched: k(int)$" k.tsv
'

# Hand-made: two kernels with identical statistics cannot be paired
# between the mangled and demangled reports, so they keep mangled names.
test_expect_success 'identical statistics keep the mangled name' '
	h="Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name" &&
	printf "%s\n" "$h" "50.0,5,1,5.0,5.0,5,5,0.0,_Z1av" "50.0,5,1,5.0,5.0,5,5,0.0,_Z1bv" "0.0,1,1,1.0,1.0,1,1,0.0,_Z1cv" >m.csv &&
	printf "%s\n" "$h" "50.0,5,1,5.0,5.0,5,5,0.0,a()" "50.0,5,1,5.0,5.0,5,5,0.0,b()" "0.0,1,1,1.0,1.0,1,1,0.0,c()" >d.csv &&
	lp-kernjoin -d d.csv m.csv >k.tsv &&
	sed "/^#/d" k.tsv | sed 1d | cut -f2 >got &&
	printf "_Z1av\n_Z1bv\nc()\n" >expect &&
	test_cmp expect got &&
	test_grep "statistics equal to another" k.tsv
'

test_expect_success 'lp-kernmd: the kernels.md table with its sources' '
	lp-kernjoin -T "nsys cuda_gpu_kern_sum (cap)" -M "ncu raw (dec)" -m "$TRASH/dec.tsv" "$CAP" >k.tsv &&
	lp-kernmd -n 3 k.tsv >km.tsv && lp-summary -t "Top GPU kernels" km.tsv >actual &&
	cat >expect <<-\EOF &&
	# Top GPU kernels

	Made by lp-summary from the run'"'"'s tables; every number below is in the table file each section names (base units there: ns, bytes, FLOP), with where it came from.

	## Kernels by GPU time

	Source: time and calls from nsys cuda_gpu_kern_sum (cap); SOL SM % and DRAM % from ncu raw (dec) (means over the profiled launches) (`km.tsv`, made by lp-kernmd).

	| # | Kernel | Device | Total (ms) | Calls | Mean (us) | Share | SM % | DRAM % |
	|---:|:---|:---|---:|---:|---:|---:|---:|---:|
	| 1 | `std::enable_if<...>::type internal::gemvx::kernel<...>(T13)` | 0 | 0.809 | 128 | 6.322 | 54.3% | 17.8 | 40.9 |
	| 2 | `void cublasLt::splitKreduce_kernel<...>(...)` | 0 | 0.316 | 64 | 4.940 | 21.2% | 2.6 | 0.1 |
	| 3 | `rmsnorm(float *, int, int)` | 0 | 0.131 | 64 | 2.042 | 8.8% | 0.0 | 0.1 |

	Matching nsys to ncu: 7 of 7 ncu kernels matched (mangled 0, exact 4, normalised 3); 0 unmatched. Mangled names are matched exactly; without them, demangled names are normalised (casts and namespaces dropped) and used only when unique.

	3 of 7 kernels shown, 84.3% of the GPU time above. Share is of that total (1.491 ms). Long names are shortened here, keeping what tells two apart; the TSV keeps them whole. SM % and DRAM %: - where ncu did not profile the kernel.

	EOF
	test_cmp expect actual
'

test_expect_success 'lp-kernmd on lp-ncu2tsv output says the time is ncu replay time' '
	lp-kernmd <"$TRASH/n2.tsv" >km.tsv && lp-summary km.tsv >actual &&
	test_grep "^Source: time and launches from ncu (\\\\<stdin>): replayed one kernel at a time" actual &&
	test_grep "^| 1 | \`_Z7rmsnormPfii\` | 0 | 0.013 | 3 | 4.299 | 77.8% | 0.0 | 0.1 |$" actual
'

# a pipe splits a table cell, even in a code span, unless escaped; in the
# list of unmatched kernels (no table) it is written as it is
test_expect_success 'lp-kernmd: pipes in names are escaped in the table, unmatched kernels listed' '
	printf "%s\n" "# unmatched: lost|kernel" "kernel	total_ns	calls" "a|b	1000000	2" >k.tsv &&
	lp-kernmd k.tsv >km.tsv && lp-summary km.tsv >actual &&
	test_grep "^| 1 | \`a\\\\|b\` | - | 1.000 | 2 | 500.000 | 100.0% | - | - |$" actual &&
	test_grep "^Profiled by ncu but not matched to any nsys kernel .*: \`lost|kernel\`.$" actual
'

bad() {
	test_expect_success "bad input: $1" "
		test_expect_code $2 $3 >out 2>err &&
		test_must_be_empty out &&
		test_grep -- '$4' err
	"
}
printf 'kernel\ttotal_ns\tcalls\n' >"$TRASH/h.tsv"
bad 'lp-kernmd: a header alone' 1 'lp-kernmd "$TRASH/h.tsv"' 'lp-kernmd: .*h.tsv:1: no kernel rows'
: >"$TRASH/e.tsv"
bad 'lp-kernmd: empty input' 1 'lp-kernmd "$TRASH/e.tsv"' 'lp-kernmd: .*e.tsv: empty input'
printf 'name\ttotal_ns\n' >"$TRASH/n.tsv"
bad 'lp-kernmd: no kernel column' 1 'lp-kernmd "$TRASH/n.tsv"' 'no column "kernel"'
printf 'kernel\ttotal_ns\tcalls\nk\tlots\t1\n' >"$TRASH/x.tsv"
bad 'lp-kernmd: a non-number' 1 'lp-kernmd "$TRASH/x.tsv"' 'x.tsv:2:2: total_ns: expected a number or "n/a ...", got "lots"'
bad 'lp-kernjoin: metrics that are not lp-ncu2tsv output' 1 \
	'lp-kernjoin -m "$TRASH/n.tsv" "$CAP"' 'lp-kernjoin: .*n.tsv:1: not a table of lp-ncu2tsv (no "# tool:" line)'
bad 'lp-kernjoin: the wrong nsys report' 1 \
	'lp-kernjoin "$FIX/h200-torch-decoder/torch_cuda_api_sum.csv"' 'no column "Instances"'

test_done
