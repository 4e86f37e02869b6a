# tests/aten.awk (after tests/csv.awk, before a test's own rules): PyTorch
# op ranges read from an nvtx_pushpop_trace given first, recomputed with awk
# alone.  -v range: the stage's range.  Keeps the stage's instances (ss, se,
# ns) and thread (tid), and each op range (os, oe, its key ok: op TAB
# shapes, its thread ot; no of them); each later file's header goes to h.
#   key(name)      "op<TAB>shapes" of a range name
#   inner(tid, t)  the innermost op range open on thread tid at t (0: none)
#   launch(line)   a cuda_api_trace row: a launch call (kernel or graph) on
#                  the stage's thread inside an instance goes to c[CorrID]
#                  as its op's key, or "(outside any op)"; 1 if it did
function key(nm,    s, i, r, j, op) { s = nm; sub(/^:/, "", s); i = index(s, ", ")
	op = substr(s, 1, i - 1); i = index(s, "sizes = ")
	if (!i) return op "\t-"
	r = substr(s, i + 8); j = index(r, ", input_op_ids"); return op "\t" (j ? substr(r, 1, j - 1) : r) }
function inner(tid, t,    best, k) { best = 0
	for (k = 1; k <= no; k++) if (ot[k] == tid && t >= os[k] && t < oe[k] && (!best || os[k] >= os[best])) best = k
	return best }
function launch(line,    f, nm, st, k, best) { split(line, f, ","); nm = f[h["Name"]]
	if (nm !~ /^(cudaLaunch|cuLaunch|cudaGraphLaunch|cuGraphLaunch)/ || f[h["Tid"]] != tid) return 0
	st = f[h["Start (ns)"]] + 0
	for (k = 1; k <= ns; k++) if (st >= ss[k] && st < se[k]) break
	if (k > ns) return 0
	best = inner(tid, st)
	c[f[h["CorrID"]]] = best ? ok[best] : "(outside any op)\t-"; return 1 }
FNR == 1 { file++; n = csv($0, f); delete h; col(f, n, h); next }
file == 1 { csv($0, f); nm = f[h["Name"]]; s = f[h["Start (ns)"]] + 0; e = f[h["End (ns)"]] + 0
	if (nm == range) { ns++; ss[ns] = s; se[ns] = e; tid = f[h["TID"]]; next }
	if (nm !~ /, op_id = [0-9]/) next
	no++; os[no] = s; oe[no] = e; ok[no] = key(nm); ot[no] = f[h["TID"]]; next }
