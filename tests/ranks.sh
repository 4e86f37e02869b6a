# tests/ranks.sh: the multi-GPU tables (lp-ranks, lp-overlap) recomputed
# from nsys exports with awk alone, for tests/t0018-ranks.sh and the GPU
# test tests/gpu/t0006-multigpu.sh.  Sourced after tests/lib.sh (A, table).

# ranks PROJ_TRACE GPU_TRACE PUSHPOP_TRACE KERN_SUM: ranks.tsv's stage, pid,
# device, instances, median, min, max, kernel, comm, compute per instance,
# comm share, launches per instance, outside communication, recomputed from
# those nsys exports (stages prefill, decode_all, decode_step, LLM@ ranges)
ranks() {
	A 'FNR == 1 { fi++ }
	fi == 1 && FNR == 1 { n = csv($0, f); col(f, n, h); next }
	fi == 1 { csv($0, f); if (f[h["NumGPUOps"]] + 0 > 0 && cnt[f[h["PID"]]]++ < 64)
		want[f[h["Projected Start (ns)"]]] = want[f[h["Projected Start (ns)"]]] " " f[h["PID"]]; next }
	fi == 2 && FNR == 1 { n = csv($0, f); delete h; col(f, n, h); next }
	fi == 2 { csv($0, f); s = f[h["Start (ns)"]]; if (s in want) { m = split(want[s], q, " ")
		for (i = 1; i <= m; i++) if (!(q[i] in dev)) dev[q[i]] = f[h["Device"]] }; next }
	fi == 3 && FNR == 1 { n = csv($0, f); delete h; col(f, n, h); next }
	fi == 3 { csv($0, f); nm = f[h["Name"]]; sub(/^:LLM@/, "", nm); if (nm !~ /^(prefill|decode_all|decode_step)$/) next
		k = nm SUBSEP f[h["PID"]]; if (!(k in ni)) order[++no] = k
		d[k, ++ni[k]] = f[h["Duration (ns)"]] + 0; next }
	fi == 4 && FNR == 1 { n = csv($0, f); delete h; col(f, n, h); next }
	fi == 4 { csv($0, f); nm = f[h["NVTX Range"]]; sub(/^:LLM@/, "", nm); k = nm SUBSEP f[h["PID"]]
		kt[k] += f[h["Total Time (ns)"]]; kl[k] += f[h["Kern Inst"]]
		if (f[h["Kernel Name"]] ~ /nccl/) kc[k] += f[h["Total Time (ns)"]] }
	END { for (o = 1; o <= no; o++) { k = order[o]; split(k, sp, SUBSEP); n = ni[k]
		mn = mx = d[k, 1]; for (i = 1; i <= n; i++) { a[i] = d[k, i]; mn = a[i] < mn ? a[i] : mn; mx = a[i] > mx ? a[i] : mx }
		md = median(a, n)
		printf "%s\t%s\t%s\t%d\t%s\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\n", sp[1], sp[2], dev[sp[2]], n,
			fmt("%.1f", md), mn, mx, fmt("%.1f", kt[k] / n), fmt("%.1f", kc[k] / n),
			fmt("%.1f", (kt[k] - kc[k]) / n), fmt("%.1f", 100 * kc[k] / kt[k]),
			fmt("%.1f", kl[k] / n), fmt("%.1f", md - kc[k] / n) } }' \
		"$1" "$2" "$3" "$4" | sort
}
RCOLS="stage pid device instances median_ns min_ns max_ns kernel_ns comm_ns compute_ns comm_pct launches work_ns"

# overlap FILE...: per device, kernels, NCCL kernels, busy, comm, compute,
# both, exposed: each class's intervals merged into a union, then the two
# unions intersected (lp sweeps all kernels at once with a heap of ends)
overlap() {
	A 'FNR == 1 { n = csv($0, f); delete h; col(f, n, h); next }
	{ csv($0, f); nm = f[h["Name"]]; if (nm ~ /^\[CUDA /) next
		dv = f[h["Device"]]; s = f[h["Start (ns)"]] + 0; e = s + f[h["Duration (ns)"]]
		c = nm ~ /nccl/ ? "c" : "k"; nk[dv]++; if (c == "c") nc[dv]++
		add(dv SUBSEP c, s, e); add(dv SUBSEP "a", s, e) }
	function add(key, s, e) {	# extend the open interval, or close it
		if ((key in open) && s <= oe[key]) { if (e > oe[key]) oe[key] = e; return }
		if (key in open) { n = ++ni[key]; is[key, n] = os[key]; ie[key, n] = oe[key] }
		open[key] = 1; os[key] = s; oe[key] = e }
	function tot(key,    i, t) { t = 0; for (i = 1; i <= ni[key]; i++) t += ie[key, i] - is[key, i]; return t }
	END { for (key in open) { n = ++ni[key]; is[key, n] = os[key]; ie[key, n] = oe[key] }
		for (dv in nk) { both = 0; i = j = 1; ck = dv SUBSEP "c"; kk = dv SUBSEP "k"
			while (i <= ni[ck] && j <= ni[kk]) {
				lo = is[ck, i] > is[kk, j] ? is[ck, i] : is[kk, j]; hi = ie[ck, i] < ie[kk, j] ? ie[ck, i] : ie[kk, j]
				if (hi > lo) both += hi - lo
				if (ie[ck, i] < ie[kk, j]) i++; else j++ }
			cm = tot(ck); printf "%s\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", dv, nk[dv], nc[dv] + 0,
				tot(dv SUBSEP "a"), cm, tot(kk), both, cm - both } }' "$@" | sort
}
OCOLS="device kernels comm_kernels busy_ns comm_ns compute_ns overlap_ns exposed_ns"

# check_ranks RUN_DIR EXPORT_PREFIX GPU_NAME N: the run's ranks.tsv and
# overlap.tsv are ranks and overlap recomputed from its exports
# (EXPORT_PREFIX + report name + .csv), on N GPUs "GPU_NAME (0)" to
# "GPU_NAME (N-1)"; for tests/t0069-tp4.sh and tests/gpu/t0011-tp4.sh.
check_ranks() {
	ranks "${2}nvtx_gpu_proj_trace.csv" "${2}cuda_gpu_trace.csv" \
		"${2}nvtx_pushpop_trace.csv" "${2}nvtx_kern_sum.csv" >expect &&
	test $(wc -l <expect) = $((3 * $4)) &&
	table "$1/ranks.tsv" $RCOLS | rnd "%.1f" 11 | sort >got &&
	test_cmp expect got &&
	table "$1/ranks.tsv" device | sort -u >devs &&
	for i in $(seq 0 $(($4 - 1))); do echo "$3 ($i)"; done >want &&
	test_cmp want devs &&
	overlap "${2}cuda_gpu_trace.csv" >expect &&
	table "$1/overlap.tsv" $OCOLS | rnd "%.1f" 9 10 | sort >got &&
	test_cmp expect got
}
