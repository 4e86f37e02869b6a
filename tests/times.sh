#!/bin/sh
# tests/times.sh LOG: the wall and CPU seconds of each test file that
# tests/timed wrote to LOG (make check and make test write
# bin/check-times.log and bin/test-times.log), slowest CPU first, and the
# total.  CPU is user+sys of the file and all it ran; wall sums the files,
# which prove runs a core each at once.
[ $# = 1 ] && [ -r "$1" ] || { echo "usage: tests/times.sh LOG (bin/check-times.log after make check)" >&2; exit 2; }
LC_ALL=C awk '
{ cpu = $2 + $3; r[NR] = sprintf("%8.1f %8.1f  %s", $1, cpu, $4); c[NR] = cpu; W += $1; C += cpu }
END {
	printf "%8s %8s  %s\n", "wall_s", "cpu_s", "file"
	for (i = 1; i <= NR; i++)
		for (j = i + 1; j <= NR; j++)
			if (c[j] > c[i]) { x = c[i]; c[i] = c[j]; c[j] = x; x = r[i]; r[i] = r[j]; r[j] = x }
	for (i = 1; i <= NR; i++) print r[i]
	printf "%8.1f %8.1f  total of %d files (CPU: user+sys)\n", W, C, NR
}' "$1"
