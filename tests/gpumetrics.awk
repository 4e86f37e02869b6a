# tests/gpumetrics.awk (with tests/csv.awk): gpumetrics.tsv recomputed
# from the raw samples and one NVTX trace alone, never with lp's code:
#   sqlite3 -separator '|' DB "SELECT timestamp, metricName, value FROM
#     GPU_METRICS JOIN TARGET_INFO_GPU_METRICS USING (typeId, metricId)"
#     > samples
#   awk -v proj=1 -v bw=BYTES_PER_S -f csv.awk -f gpumetrics.awk
#     config-stages TRACE.csv samples
# config-stages: "stage<TAB>nsys range" lines; TRACE.csv:
# nvtx_gpu_proj_trace (proj=1, Projected Start/Duration) or
# nvtx_pushpop_trace (proj=0, Start/Duration).  Prints "stage metric
# instances sampled samples mean p50 p90" tab-separated: each sample in
# every instance holding its timestamp (start <= t < end, a linear scan);
# mean over all the samples, p50/p90 over the instances' own means by
# linear interpolation between order statistics; steady: instances after
# the first; clocks given in Hz turned into MHz; DRAM % x bw / 100 rows.
BEGIN { FS = "\t"; nwant = split("GR Active [Throughput %]|SMs Active [Throughput %]|SM Issue [Throughput %]|Tensor Active [Throughput %]|DRAM Read Bandwidth [Throughput %]|DRAM Write Bandwidth [Throughput %]|GPC Clock Frequency [MHz]|SYS Clock Frequency [MHz]", want, "|")
	for (i = 1; i <= nwant; i++) isw[want[i]] = 1 }
FNR == 1 { file++ }
file == 1 { ns++; sname[ns] = $1; srange[$2] = ns; next }
file == 2 && FNR == 1 { n = csv($0, f); delete h; col(f, n, h); next }
file == 2 { csv($0, f); s = srange[f[h["Name"]]]; if (!s) next
	st = proj ? f[h["Projected Start (ns)"]] + 0 : f[h["Start (ns)"]] + 0
	du = proj ? f[h["Projected Duration (ns)"]] + 0 : f[h["Duration (ns)"]] + 0
	k = ++ni[s]; is[s, k] = st; ie[s, k] = st + du; next }
file == 3 { split($0, f, "|"); m = f[2]; if (!(m in isw)) next
	t = f[1] + 0; v = f[3] + 0
	if (m ~ /MHz/ && v >= 100000) v /= 1e6
	for (s = 1; s <= ns; s++) for (k = 1; k <= ni[s]; k++)
		if (is[s, k] <= t && t < ie[s, k]) { sum[s, k, m] += v; cnt[s, k, m]++ } }
function q(a, n, p,    i, j, x, r) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
	r = 1 + (n - 1) * p; i = int(r)
	return i >= n ? a[n] : a[i] + (r - i) * (a[i + 1] - a[i])
}
function out(s, steady, m, scale, label,    k, ninst, nsamp, tot, np, a) {
	# instances sorted by start: the first is the earliest
	first = 1; for (k = 2; k <= ni[s]; k++) if (is[s, k] < is[s, first]) first = k
	ninst = 0; nsamp = 0; tot = 0; np = 0; delete a
	for (k = 1; k <= ni[s]; k++) {
		if (steady && k == first) continue
		ninst++
		if (cnt[s, k, m]) { a[++np] = sum[s, k, m] / cnt[s, k, m]; tot += sum[s, k, m]; nsamp += cnt[s, k, m] }
	}
	printf "%s%s\t%s\t%d\t%d\t%d\t%.10g\t%.10g\t%.10g\n", sname[s], steady ? ":steady" : "", label, ninst, np, nsamp,
		scale * tot / nsamp, scale * q(a, np, 0.5), scale * q(a, np, 0.9)
}
END { for (s = 1; s <= ns; s++) for (steady = 0; steady <= (ni[s] > 1); steady++) for (i = 1; i <= nwant; i++) {
	out(s, steady, want[i], 1, want[i])
	if (want[i] ~ /^DRAM/) { l = want[i]; sub(/ \[Throughput %\]/, " [bytes/s]", l); out(s, steady, want[i], bw / 100, l) }
} }
