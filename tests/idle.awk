# tests/idle.awk (with tests/csv.awk): the idle split of one row of
# hostside.tsv recomputed from three nsys exports alone, never with lp's
# code:  awk -v range=:LLM@decode_step -v steady=1 -f csv.awk -f idle.awk
# nvtx_pushpop_trace.csv cuda_gpu_trace.csv cuda_api_trace.csv
# (the GPU trace before the API trace) prints idle_ns, idle_launch_ns,
# idle_sync_ns, idle_memcpy_ns, idle_load_ns, idle_other_ns and
# idle_host_ns, tab-separated.  The GPU is busy while a kernel of
# cuda_gpu_trace runs (any kernel; copies and sets are not kernels): the
# kernels are merged into busy spans, and B(x) is the busy time before x.
# The range's instances (steady=1: without each process's first), the
# calls of their thread that start inside them; a call's idle time is its
# duration less B(end) - B(start), by kind; an instance's, its wall less
# B(end) - B(start); outside the API, the instance's less its calls'.
# The columns before the quoted kernel name are read by splitting on ",".
function B(x,    lo, hi, mid) {
	lo = 0; hi = nu
	while (lo < hi) { mid = int((lo + hi + 1) / 2); if (us[mid] < x) lo = mid; else hi = mid - 1 }
	if (!lo) return 0
	return cum[lo - 1] + (x < ue[lo] ? x : ue[lo]) - us[lo]
}
FNR == 1 { file++; n = csv($0, f); delete h; col(f, n, h); next }
file == 1 { csv($0, f)
	if (f[h["Name"]] != range) next
	k = ++ni; s[k] = f[h["Start (ns)"]] + 0; e[k] = f[h["End (ns)"]] + 0
	p[k] = f[h["PID"]]; t[k] = f[h["TID"]]
	if (!(p[k] in first) || s[k] < s[first[p[k]]]) first[p[k]] = k
	next }
file == 2 { split($0, f, ",")
	if ($0 ~ /\[CUDA /) next
	st = f[h["Start (ns)"]] + 0; en = st + f[h["Duration (ns)"]]
	if (nu && st <= ue[nu]) { if (en > ue[nu]) ue[nu] = en; next }
	nu++; us[nu] = st; ue[nu] = en
	next }
file == 3 { if (!cumd) { cum[0] = 0; for (i = 1; i <= nu; i++) cum[i] = cum[i - 1] + ue[i] - us[i]; cumd = 1 }
	split($0, f, ",")
	st = f[h["Start (ns)"]] + 0; d = f[h["Duration (ns)"]] + 0; nm = f[h["Name"]]
	for (k = 1; k <= ni; k++) {
		if (steady && first[p[k]] == k) continue
		if (f[h["Pid"]] == p[k] && f[h["Tid"]] == t[k] && st >= s[k] && st < e[k]) break
	}
	if (k > ni) next
	b = nm; sub(/_v[0-9]+$/, "", b)
	if (b ~ /^(cudaLaunch|cuLaunch|cudaGraphLaunch|cuGraphLaunch)/) kind = "launch"
	else if (b ~ /Synchronize/) kind = "sync"
	else if (b ~ /^(cudaMemcpy|cuMemcpy|cudaMemset|cuMemset)/) kind = "memcpy"
	else if (b ~ /^(cuModuleLoad|cuLibraryLoad|cudaLibraryLoad|cuLinkCreate|cuLinkAdd|cuLinkComplete|cuModuleGetFunction|cuLibraryGetKernel|cuLibraryGetModule|cuKernelGetFunction)/) kind = "load"
	else kind = "other"
	idle[kind] += d - (B(st + d) - B(st))
	next }
END {
	for (k = 1; k <= ni; k++)
		if (!(steady && first[p[k]] == k))
			all += e[k] - s[k] - (B(e[k]) - B(s[k]))
	in_api = idle["launch"] + idle["sync"] + idle["memcpy"] + idle["load"] + idle["other"]
	printf "%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", all, idle["launch"], idle["sync"], idle["memcpy"],
		idle["load"], idle["other"], all - in_api
}
