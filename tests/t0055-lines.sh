#!/usr/bin/env bash
# Report lines that misled (issue 37, "misleading lines"), each failing on
# the code before its fix: a cuDNN convolution classed GEMM, lp-waterfall(1)
# naming columns waterfall.tsv lacks, names read as Markdown in the brief,
# a cold first call advised CUDA graphs, a capped saving whose evidence
# gave another number, and savings per step from the mean instance beside
# a steady step that is the median one.
. "$(dirname "$0")/lib.sh"

V2=$FIX/h200-torch-v2
HS=$FIX/h100-hostside

# 1. cuDNN's convolution kernels as the profilers name them: CUTLASS and
# xmma in cuDNN's namespaces, the fprop / dgrad / wgrad passes, the
# scudnn and s16816cudnn families.  None of the repository's captures runs
# a convolution: the names stand for the held-out run's cuDNN fprop
# convolution, which read "cutlass", a GEMM (and volta_scudnn_..._relu_...
# an activation).  Every other kernel of the captures keeps its class.
cat >"$TRASH/conv" <<\EOF
void cutlass__5x_cudnn::Kernel<cutlass_tensorop_f16_s16816fprop_optimized_f16_128x128_64x3_nhwc_align8>(T1::Params)
void xmma_cudnn::gemm::kernel<xmma_cudnn::implicit_gemm::fprop::Kernel_traits<xmma_cudnn::Ampere_hmma_fp32_traits, xmma_cudnn::Cta_tile<xmma_cudnn::Ampere, 64, 64, 64, 2, 2, 1, 1>, 1>>(T1::Params)
sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_kernel
sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_kernel
ampere_scudnn_128x64_relu_interior_nn_v1
ampere_fp16_s16816cudnn_fp16_256x128_ldg8_relu_f2f_exp_small_nhwc_tn_v1
volta_scudnn_128x64_relu_small_nn_v1
turing_fp16_s1688cudnn_fp16_256x128_ldg8_relu_f2f_exp_interior_nhwc_tn_v1
void implicit_convolve_sgemm<float, float, (int)1024, (int)5, (int)5, (int)3, (int)3, (int)3, (int)1, (bool)0, (bool)0, (bool)1>(int, int, int, const T1 *, int, T2 *, const T1 *, kernel_conv_params, unsigned long long, int, float, float, int, const T2 *, const T2 *, bool, int, int)
EOF
# kernels NAMEFILE: a kernel table of lp-kernjoin's columns, one row a name
kernels() {
	awk 'BEGIN { print "# tool: lp-kernjoin"; print "rank\tkernel\ttotal_ns\tcalls\tavg_ns\tpct\tcum_pct" }
		{ printf "%d\t%s\t%d\t1\t%d\t1\t1\n", NR, $0, 1000 * NR, 1000 * NR }' "$1"
}

test_expect_success 'cuDNN convolutions are convolutions, the captures'"'"' kernels keep their class' '
	kernels "$TRASH/conv" >k.tsv &&
	lp-topk -n 100 -o "$ROOT/conf/operators.yaml" k.tsv >tk.tsv &&
	table tk.tsv operator | sort | uniq -c | sed "s/^ *//" >got &&
	echo "9 Convolution" >expect &&
	test_cmp expect got &&
	cat "$FIX"/*/*_cuda_gpu_kern_sum.csv | A "FNR > 1 && \$0 !~ /^Time/ { n = csv(\$0, f); print f[n] }" |
		sort -u >all &&
	test $(wc -l <all) -ge 60 && kernels all >ka.tsv &&
	lp-topk -n 1000 -o "$ROOT/conf/operators.yaml" ka.tsv >tka.tsv &&
	table tka.tsv kernel operator | sort >cls &&
	! grep "	Convolution$" cls &&
	grep "^cudnn_generated_fort_native_sdpa_.*_fprop_.*	Attention$" cls &&
	grep "^nvjet_sm90_.*	GEMM / GEMV$" cls
'

# A cuDNN convolution built for channels aligned to 4 elements (CUTLASS's
# nhwc_align4, lp-roofline's alignment-limited class): the finding said
# "a GEMM for unaligned operands" and asked to pad the GEMM's dimension.
test_expect_success 'an alignment-limited convolution is said to be one, its channels padded' '
	K="void cutlass__5x_cudnn::Kernel<cutlass_tensorop_f16_s16816fprop_optimized_f16_64x64_32x6_nhwc_align4>(T1::Params)" &&
	printf "# tool: lp-kernjoin\n# range: :LLM@prefill\nrank\tkernel\ttotal_ns\tcalls\tavg_ns\tpct\tcum_pct\n1\t%s\t4000000\t100\t40000\t100\t100\n" "$K" >k.tsv &&
	lp-topk -o "$ROOT/conf/operators.yaml" k.tsv >tk.tsv &&
	printf "# tool: lp-roofline\nkernel\tname\tclass\troof\tprecision\twhy\tgrid\troof_pct\tdram_pct\tai\n%s\tconv\talignment-limited\tcompute\ttensor fp16\t1.50 waves, but a kernel for operands aligned to 4 elements (align4), slower than the 8-element kernels\t(96, 1, 1)\t20\t10\t200\n" "$K" >rf.tsv &&
	lp-findings rf.tsv tk.tsv >f.tsv &&
	table f.tsv rule finding next_step | grep "^alignment	" >got &&
	test_grep "	.conv. is a convolution for unaligned operands at 20% of its compute roof\.	Pad the channels" got &&
	! grep GEMM got
'

# 2. lp-waterfall(1) named the columns stage, part, ns, share_pct and
# from; waterfall.tsv has a pair of columns for each stage.  The page's
# columns (its bold words from "Columns" to "The parts after") are the
# table's header, in its order.
test_expect_success 'setup: the demo run' '
	lpmake RUN=b "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null
'

test_expect_success 'lp-waterfall(1) names the columns of waterfall.tsv' '
	sed -n "/^Columns/,/^The parts after/s/^\.BR* \([a-z_]*\).*/\1/p" "$ROOT/tools/lp-waterfall.1" >got &&
	grep -v "^#" "$S2/b/waterfall.tsv" | sed -n 1p | tr "\t" "\n" >expect &&
	test $(wc -l <expect) = 7 &&
	test_cmp expect got
'

# 3. Names are data in the brief (issue 37: a model named "# Heading" made
# a heading).  The identity line starts with the model's name, so what
# opens a block at a line's start ("#", "-", "1.") is text there; a
# name's backticks open no code span of lp's sentences (the whole name is
# one); and a stage, whose name starts the reports' sentences and heads
# their rows, is a word.  The rendered brief and details hold the same
# elements, each as many, as the demo's (make demo's exports, models
# renamed as a user may name them).
# elements FILE: the HTML elements cmark-gfm (GitHub's parser, autolinks
# on) makes of FILE, with their counts
elements() {
	cmark-gfm -e table -e autolink -e strikethrough "$1" | grep -o "<[a-z][a-z0-9]*" | sort | uniq -c
}

# A case that renders with cmark-gfm (.ci/run installs it): skipped
# without it, and says so
with_cmark() {
	if command -v cmark-gfm >/dev/null; then
		test_expect_success "$@"
	else
		test_count=$((test_count + 1))
		echo "ok $test_count # skip cmark-gfm is not installed: $1"
	fi
}

with_cmark 'a model named as Markdown: the same elements as the demo, the name as typed' '
	for d in stakeholder_summary details; do elements "$S2/b/$d.md" >$d.want || return 1; done &&
	i=0 &&
	for n in "# Heading *x* <b>y</b> [a](b) www.x.com _u_ Llama (8B)" "- item" "1. first" "+ x" "2) z"; do
		i=$((i + 1)) &&
		lpmake RUN=n$i "IMPORT=$(echo "$V2"/torch_*.csv)" MODEL=torch-decoder "SET=model.name=\"$n\"" \
			stakeholder_summary.md >/dev/null &&
		for d in stakeholder_summary details; do
			elements "$S2/n$i/$d.md" >got && test_cmp $d.want got || return 1
		done || return 1
	done &&
	cmark-gfm "$S2/n1/stakeholder_summary.md" >n1.html &&
	test_grep -F "<p># Heading *x* &lt;b&gt;y&lt;/b&gt; [a](b) www.x.com _u_ Llama (8B) on NVIDIA H200, decode_all," n1.html
'

# The same at the tools: inputs.yaml's name with backticks, through
# lp-envtab, lp-brief and lp-summary as make runs them
with_cmark 'a model name with backticks: one code span, the name whole' '
	cp -R "$S2/b" r &&
	sed "s/^\(  *name: \).*/\1\"\`x\` \`\`y\`\` # z\"/" "$S2/b/inputs.yaml" >r/inputs.yaml &&
	test_grep "name: \"\`x\`" r/inputs.yaml &&
	lp-envtab -c r/config.yaml -g r/gpu.tsv -i r/inputs.yaml r/env.json >r/environment.tsv &&
	lp-brief -c r/config.yaml -e r/environment.tsv -s r/stages.tsv -t r/steps.tsv -b r/mbu.tsv \
		-k r/top_kernels.tsv -I roofline.svg -L details.md >r/brief.tsv &&
	lp-summary r/brief.tsv r/waterfall.tsv r/findings_top.tsv >brief.md &&
	lp-summary r/environment.tsv >env.md &&
	cmark-gfm brief.md | sed -n 2p >got &&
	test_grep -F "<p><code>\`x\` \`\`y\`\` # z</code> on NVIDIA H200, decode_all," got &&
	cmark-gfm -e table env.md >env.html &&
	test_grep -F "><code>\`x\` \`\`y\`\` # z</code> (conf/model/torch-decoder.yaml)</td>" env.html
'

test_expect_success 'a stage whose name is not a word is refused, naming it and its file' '
	printf "model:\n  name: m\nstages:\n  decode_all:\n    range: a\n  \"# \`x\`\":\n    range: LLM@prefill\n" >m.yaml &&
	test_expect_code 1 lp-confmerge m.yaml >out 2>err &&
	test_must_be_empty out &&
	test_grep "^lp-confmerge: m.yaml:7: stage \"# \`x\`\": a stage.s name is letters, digits, .\_., .-. and .\.." err &&
	printf "stages:\n  decode_all:\n    range: a\n  prefill-2.b_c:\n    range: \"# \`x\`\"\n" >ok.yaml &&
	lp-confmerge ok.yaml >out &&
	test_grep "prefill-2.b_c:" out
'

# 4. The demo's prefill (h200-torch-v2, no cuda_api_trace) ran once, cold:
# 1267.6 ms for 85 launches, 14.9 ms of host time a launch against 0.745
# ms in decode_step's steady state.  The brief advised a CUDA graph and
# "save up to 1267.344 ms": a one-time cost, which no per-step remedy
# removes.  Without the host side as with it, the finding is a cold call
# saving the excess over the steady rate, recomputed here from the
# tables; and no one-time finding (warm-up, cold call, module loading)
# advises a CUDA graph, on the demo or the H100 Llama capture with its
# host side (h100-hostside).
test_expect_success 'a cold first prefill without the host side: a cold call, no CUDA graph, the excess saved' '
	r=$S2/b &&
	table "$r/findings.tsv" rule saving_ns finding next_step step | grep "	prefill " >got &&
	test $(wc -l <got) = 1 &&
	test_grep "^cold-call	[0-9]*	prefill ran once, cold: 14910 us of host time per launch against 745 us in the steady state of decode_step (20x)" got &&
	test_grep "	Warm it up" got && test_grep "	once$" got &&
	{ table "$r/stages.tsv" stage wall_total_ns kernel_ns launches instances launches_per_inst
	  table "$r/steps.tsv" stage steady_ns | sed "s/^/steps /"; } |
		awk -F"\t" "\$1 == \"prefill\" { w = \$2; k = \$3; l = \$4 }
			\$1 == \"decode_step\" { kd = \$3 / \$5; ld = \$6 }
			\$1 == \"steps decode_step\" { st = \$2 }
			END { printf \"%.0f\n\", w - k - l * (st - kd) / ld }" >expect &&
	cut -f2 got >saving &&
	awk "NR == FNR { e = \$1; next } { d = \$1 - e; if (d < -1 || d > 1) exit 1 }" expect saving &&
	test_grep "^2\. \*\*prefill ran once, cold\.\*\* (.stages.tsv.)\. \*\*Next:\*\* Warm it up: one throw-away pass of the same shapes first\. \*Could save up to 1204.026 ms, once\.\* \[Details\](details.md#findings-2)$" \
		"$r/stakeholder_summary.md"
'

test_expect_success 'no one-time finding advises a CUDA graph' '
	lpmake RUN=ll "IMPORT=$(echo "$HS"/llama_*.csv)" MODEL=hf-llama findings.tsv >/dev/null &&
	for r in b ll; do
		table "$S2/$r/findings.tsv" rule next_step step | grep "	once$" || return 1
	done >once &&
	test $(cut -f1 once | sort -u | wc -l) -ge 3 &&
	! grep -i "capture the stage\|capture a CUDA graph\|CUDAGraph\|reduce-overhead\|with CUDA graphs" once
'

# 5. A capped saving said another number (issue 37: the evidence read
# 1,049.4 ms beside a saving of 1,035.283 ms).  The Llama's decode_step
# (h100-hostside): its steady state's mean instance (78.978 ms) is above
# its median (69.995 ms), so the steady state's idle time times the
# instances, 1219.372 ms, is more than the stage's idle time less the
# warm-up's excess, 1210.376 ms, which caps the saving; the evidence gave
# the first way.  Each host finding's evidence or headline now gives the
# number shown, and where a cap binds, the cap and what it caps: on the
# Llama, the demo and the H100 graphed decode (h100-graphs/g2, graph-bound).
test_expect_success 'a host saving: its evidence gives the number shown, and the cap where it binds' '
	lpmake RUN=g2 "IMPORT=$(echo "$FIX"/h100-graphs/g2_*.csv)" MODEL=torch-decoder findings.tsv >/dev/null &&
	for r in b ll g2; do
		table "$S2/$r/findings.tsv" rule saving_ns finding evidence | sed "s/^/$r	/" || return 1
	done >all &&
	awk -F"\t" "\$2 ~ /^(launch-bound|graph-bound|cold-call)\$/ {
			n++; want = sprintf(\"aving %.3f ms: \", \$3 / 1e6)
			if (!index(\$5, want)) { print \"not said:\", \$1, \$2, want; bad = 1 } }
		\$2 ~ /^(host-sync|module-loading)\$/ {
			n++; want = sprintf(\" %.1f ms \", \$3 / 1e6)
			if (!index(\$4, want)) { print \"not said:\", \$1, \$2, want; bad = 1 } }
		END { if (n < 5) { print n, \"findings\"; bad = 1 } exit bad }" all &&
	grep "^g2	graph-bound	" all &&
	grep "^ll	launch-bound	" all >ll &&
	test $(wc -l <ll) = 1 &&
	{ table "$S2/ll/stages.tsv" stage wall_total_ns kernel_ns; table "$S2/ll/steps.tsv" stage first_ns steady_ns; } |
		awk -F"\t" "\$1 == \"decode_step\" && !w { w = \$2 - \$3; next }
			\$1 == \"decode_step\" { e = \$2 - \$3 }
			END { printf \"the stage.s idle GPU time (wall - kernels, %.3f ms) less the warm-up.s excess over the median (%.3f ms, its own finding): the cap\n\", w / 1e6, e / 1e6
				printf \"%.0f\n\", w - e }" >expect &&
	sed -n 1p expect >cap && test_grep -f cap ll &&
	awk -F"\t" -v e=$(sed -n 2p expect) "{ d = \$3 - e; exit !(d < 2 && d > -2) }" ll &&
	test_grep "less than the steady state.s idle GPU time times the instances (1219.372 ms), its mean instance being above its median" ll
'

# 6. A saving a step from the mean instance beside a steady step from the
# median (issue 37: "129.410 ms a step" beside a 119.825 ms step).  The
# Llama's decode_step is such a run: its 16 instances' idle time over 16
# is 75.649 ms a step, more than the steady step of 69.995 ms the brief
# shows above it.  A host finding now saves its share of the stage's idle
# time in the steady step's idle time (the median instance after the
# first less its kernel time, the waterfall's GPU idle); a kernel
# finding's GPU time stays over the steps.  On the Llama, the demo and
# the graphed H100 decode, a step's savings add up to no more than its
# idle time and the step.
test_expect_success 'savings a step: of the steady step (the median), within its idle time' '
	lpmake RUN=ll stakeholder_summary.md >/dev/null && lpmake RUN=g2 waterfall.tsv >/dev/null &&
	r=$S2/ll &&
	table "$r/findings.tsv" rule saving_ns per_step_ns step >f &&
	grep "^launch-bound	.*	decode step$" f >lb && test $(wc -l <lb) = 1 &&
	st=$(table "$r/steps.tsv" stage steady_ns | awk -F"\t" "\$1 == \"decode_step\" { print \$2 }") &&
	ks=$(table "$r/hostside.tsv" stage kernel_per_inst_ns | awk -F"\t" "\$1 == \"decode_step:steady\" { print \$2 }") &&
	n=$(table "$r/stages.tsv" stage instances | awk -F"\t" "\$1 == \"decode_step\" { print \$2 }") &&
	# the mean misled: more than the steady step
	awk -F"\t" -v n=$n -v st=$st "{ exit !(\$2 / n > st) }" lb &&
	awk -F"\t" -v st=$st -v ks=$ks "{ d = \$3 - (st - ks); exit !(d < 1 && d > -1) }" lb &&
	awk -F"\t" "\$1 ~ /^GPU idle/ { s += \$2 } END { printf \"%.3f ms a decode step\n\", s / 1e6 }" \
		"$r/waterfall.tsv" >idle && grep -f idle "$r/stakeholder_summary.md" &&
	for r in b ll g2; do
		st=$(table "$S2/$r/steps.tsv" stage steady_ns | awk -F"\t" "\$1 == \"decode_step\" { print \$2 }") &&
		idle=$(table "$S2/$r/waterfall.tsv" part decode_step_ns | awk -F"\t" "\$1 ~ /^GPU idle/ { s += \$2 } END { printf \"%.0f\", s }") &&
		table "$S2/$r/findings.tsv" rule per_step_ns step |
		awk -F"\t" -v st=$st -v idle=$idle -v r=$r "\$3 == \"decode step\" { a += \$2; if (\$1 ~ /^(launch-bound|graph-bound|host-sync)\$/) h += \$2 }
			END { printf \"%s: %.0f of %.0f ns a step, %.0f of %.0f idle\n\", r, a, st, h, idle
				exit !(h > 0 && h <= idle + 1 && a <= st) }" || return 1
	done
'

# A decode loop whose module loading and synchronisations overlap the
# GPU's work (no capture at hand has it: this table stands for one whose
# loading and sync calls, 50 and 60 ms, add up to more than its 90 ms of
# idle GPU time).  The savings were 50 + 60 ms of 90: now the loading,
# the synchronisations within what it leaves, and nothing for the rest;
# each capped saving says so.
test_expect_success 'savings of one stage add up to no more than its idle GPU time' '
	{ echo "# tool: lp-stages"
	  printf "stage\twall_total_ns\tkernel_ns\tlaunches\tbusy_pct\tlaunches_per_inst\tinstances\n"
	  printf "decode_step\t100000000\t10000000\t1000\t10\t100\t10\n"; } >s.tsv &&
	{ echo "# tool: lp-hostside"
	  printf "stage\trange\tinstances\twall_ns\tapi_ns\tapi_pct\tapi_launch_ns\tapi_sync_ns\tapi_memcpy_ns\tapi_load_ns\tapi_other_ns\thost_other_ns\thost_other_pct\tkernel_ns\tkernel_per_inst_ns\tlaunches\tlaunches_per_inst\tlaunch_lat_p50_ns\tlaunch_lat_p90_ns\tsync_calls\tload_calls\n"
	  printf "decode_step\tx\t10\t100000000\t100000000\t100\t0\t60000000\t0\t50000000\t0\t0\t0\t10000000\t1000000\t1000\t100\t9000\t12000\tcudaStreamSynchronize x10 (60.000 ms)\tcuModuleLoadData x10 (50.000 ms)\n"; } >h.tsv &&
	lp-findings s.tsv h.tsv >f.tsv &&
	table f.tsv rule saving_ns evidence >got &&
	cut -f1,2 got >rs &&
	printf "module-loading\t50000000\nhost-sync\t40000000\nlaunch-bound\t0\n" >expect &&
	test_cmp expect rs &&
	test_grep "^host-sync	.*; saving 40.000 ms, capped at the stage.s idle GPU time less the module loading" got &&
	test_grep "^launch-bound	.*Saving 0.000 ms: .*; nothing is left" got
'

test_done
