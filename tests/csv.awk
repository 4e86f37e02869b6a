# tests/csv.awk: helpers for tests that recompute lp's numbers with awk
# alone (POSIX awk, mawk included), never with lp's code.
#
#   csv(line, f)   splits one CSV record into f[1..n], quotes undone; n
#   num(s)         a number as nsys/ncu print it ("1,980,000" -> 1980000)
#   col(f, n, h)   fills h[name] = index from a header record
#   tsvcol(h)      the same for a TSV header in $0 (FS must be "\t")

function csv(line, f,    n, i, c, q, fld, len) {
	n = 0
	fld = ""
	q = 0
	len = length(line)
	for (i = 1; i <= len; i++) {
		c = substr(line, i, 1)
		if (q) {
			if (c == "\"") {
				if (substr(line, i + 1, 1) == "\"") {
					fld = fld "\""
					i++
				} else
					q = 0
			} else
				fld = fld c
		} else if (c == "\"")
			q = 1
		else if (c == ",") {
			f[++n] = fld
			fld = ""
		} else if (c != "\r")
			fld = fld c
	}
	f[++n] = fld
	return n
}

function num(s) {
	gsub(/,/, "", s)
	return s + 0
}

function col(f, n, h,    i) {
	for (i = 1; i <= n; i++)
		h[f[i]] = i
}

function tsvcol(h,    i) {
	for (i = 1; i <= NF; i++)
		h[$i] = i
}

# The median of a[1..n] (sorts a, insertion sort: the inputs are small).
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

# "-0.0" as lp writes it: without the sign.
function fmt(f, v,    s) {
	s = sprintf(f, v)
	if (s ~ /^-[0.]*$/)
		s = substr(s, 2)
	return s
}
