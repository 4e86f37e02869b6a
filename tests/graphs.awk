# tests/graphs.awk (with tests/csv.awk): the CUDA-graph columns of one
# stage of hostside.tsv recomputed from three nsys exports alone, never
# with lp's code:  awk -v range=:LLM@decode_step -v lat=FILE -f csv.awk
# -f graphs.awk nvtx_pushpop_trace.csv cuda_api_trace.csv cuda_gpu_trace.csv
# prints graph launches, graph kernels, their GPU time and the time blocked
# on the GPU, tab-separated; each graph launch's latency to its first
# kernel goes to FILE.  The instances' cudaGraphLaunch calls on the range's
# thread, the kernels that carry their correlation IDs.  Blocked: each
# synchronisation waits until the GPU work (kernels, copies) of the
# thread's last launch or copy before it ended; each copy that started on
# the GPU before its call returned waits until the earlier work on its
# stream (device and Strm) ended, or its own start, whichever came first;
# both within the call.  The columns before the quoted kernel name are
# read by splitting on ",".
FNR == 1 { file++; n = csv($0, f); delete h; col(f, n, h); next }
file == 1 { csv($0, f)
	if (f[h["Name"]] != range) next
	k = ++ni; s[k] = f[h["Start (ns)"]] + 0; e[k] = f[h["End (ns)"]] + 0
	p[k] = f[h["PID"]]; t[k] = f[h["TID"]]; next }
file == 2 { split($0, f, ",")
	st = f[h["Start (ns)"]] + 0; d = f[h["Duration (ns)"]] + 0; nm = f[h["Name"]]
	c = f[h["CorrID"]]; th = f[h["Pid"]] "/" f[h["Tid"]]
	launch = nm ~ /^(cudaLaunch|cuLaunch|cudaGraphLaunch|cuGraphLaunch)/
	for (k = 1; k <= ni; k++)
		if (f[h["Pid"]] == p[k] && f[h["Tid"]] == t[k] && st >= s[k] && st < e[k]) break
	if (k <= ni) {
		if (nm ~ /^(cudaGraphLaunch|cuGraphLaunch)/) { gl++; g[c] = st }
		if (nm ~ /Synchronize/) { ws[++nw] = c; wt[c] = st; wd[c] = d; wk[c] = "sync"; wp[c] = last[th] }
		if (nm ~ /^(cudaMemcpy|cuMemcpy|cudaMemset|cuMemset)/) { ws[++nw] = c; wt[c] = st; wd[c] = d; wk[c] = "copy" }
	}
	if (launch || nm ~ /^(cudaMemcpy|cuMemcpy|cudaMemset|cuMemset)/) last[th] = c
	next }
file == 3 { split($0, f, ",")
	c = f[h["CorrId"]]; st = f[h["Start (ns)"]] + 0; d = f[h["Duration (ns)"]] + 0
	q = f[h["Device"]] "/" f[h["Strm"]]
	if (!(c in kend) || st + d > kend[c]) kend[c] = st + d
	if ($0 ~ /\[CUDA mem/) {
		if (!(c in cs) || st < cs[c]) { cs[c] = st; cb[c] = (q in busy) ? busy[q] : "" }
		if (!(q in busy) || st + d > busy[q]) busy[q] = st + d
		next }
	if (!(q in busy) || st + d > busy[q]) busy[q] = st + d
	if (!(c in g)) next
	gk++; gns += d
	if (!(c in first) || st < first[c]) first[c] = st
	next }
END {
	for (i = 1; i <= nw; i++) {
		c = ws[i]; until = ""
		if (wk[c] == "copy") {
			if ((c in cs) && cs[c] < wt[c] + wd[c] && cb[c] != "") until = cb[c] < cs[c] ? cb[c] : cs[c] }
		else if (wp[c] != "" && (wp[c] in kend)) until = kend[wp[c]]
		if (until == "" || until <= wt[c]) continue
		b += until < wt[c] + wd[c] ? until - wt[c] : wd[c]
	}
	for (c in first) print first[c] - g[c] > lat
	close(lat)
	printf "%d\t%d\t%.0f\t%.0f\n", gl, gk, gns, b
}
