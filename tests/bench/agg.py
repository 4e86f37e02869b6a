#!/usr/bin/env python3
"""The aggregations of make bench in Python, stdlib csv only.

A baseline to time lp's filters against, and a second opinion on their
figures: tests/bench.sh runs the same aggregation with lp, with this
script and with Miller, and checks the three agree.

    agg.py ncu FILE            per kernel: launches, time (ns), DRAM bytes
    agg.py topn N FILE         the top N kernels of an nsys kernel summary
    agg.py nvtx FILE RANGE...  instances and total time of NVTX ranges

Each prints TSV without a header, sorted by its first column, numbers as
"%.0f"; a value that not every launch has is empty, as lp-ncu2tsv does.
"""
import csv
import heapq
import math
import sys

TIME = 'gpu__time_duration.sum'
BYTES = 'dram__bytes.sum'

# Units scaled to ns and bytes: the ones ncu prints for these metrics.
SCALE = {
	'ns': 1, 'nsecond': 1, 'us': 1e3, 'usecond': 1e3,
	'ms': 1e6, 'msecond': 1e6, 's': 1e9, 'second': 1e9,
	'byte': 1, 'Kbyte': 1e3, 'Mbyte': 1e6, 'Gbyte': 1e9, 'Tbyte': 1e12,
	'B': 1, 'KB': 1e3, 'MB': 1e6, 'GB': 1e9, 'TB': 1e12,
}


def num(s):
	"""A number as ncu and nsys print it: "4.51", "1,980,000"; None for n/a."""
	s = s.strip()
	if s in ('', 'n/a', 'N/A', '-'):
		return None
	return float(s.replace(',', ''))


def fmt(x):
	return '' if x is None else '%.0f' % x


def ncu(path):
	# kernel -> [launches, time_ns, launches with time, bytes, launches with bytes]
	agg = {}
	with open(path, newline='') as f:
		rows = csv.reader(f)
		head = next(rows)
		col = {name: i for i, name in enumerate(head)}
		k = col['Kernel Name']
		if 'Metric Name' in col:
			# long (--page details): a row per launch and metric; a
			# launch is counted by its gpu__time_duration.sum row
			m, u, v = col['Metric Name'], col['Metric Unit'], col['Metric Value']
			for r in rows:
				if len(r) <= v or r[m] not in (TIME, BYTES):
					continue
				a = agg.setdefault(r[k], [0, 0, 0, 0.0, 0])
				x = num(r[v])
				if r[m] == TIME:
					a[0] += 1
					if x is not None:
						# lp rounds each launch to whole ns
						a[1] += math.floor(x * SCALE[r[u]] + 0.5)
						a[2] += 1
				elif x is not None:
					a[3] += x * SCALE[r[u]]
					a[4] += 1
		else:
			# wide (--page raw): the units row, then a row per launch
			units = next(rows)
			t, b = col[TIME], col.get(BYTES)
			ts = SCALE[units[t]]
			bs = SCALE[units[b]] if b is not None else 0
			for r in rows:
				a = agg.setdefault(r[k], [0, 0, 0, 0.0, 0])
				a[0] += 1
				x = num(r[t])
				if x is not None:
					a[1] += math.floor(x * ts + 0.5)
					a[2] += 1
				if b is not None:
					x = num(r[b])
					if x is not None:
						a[3] += x * bs
						a[4] += 1
	out = sys.stdout
	for name in sorted(agg):
		n, t, nt, b, nb = agg[name]
		out.write('%s\t%d\t%s\t%s\n' % (name, n, fmt(t if nt == n else None),
			fmt(b if nb == n and n else None)))


def topn(n, path):
	# kernel -> [total_ns, instances]; a kernel on several rows is summed
	agg = {}
	with open(path, newline='') as f:
		rows = csv.reader(f)
		head = next(rows)
		k, t, c = head.index('Name'), head.index('Total Time (ns)'), head.index('Instances')
		for r in rows:
			a = agg.setdefault(r[k], [0.0, 0.0])
			a[0] += num(r[t])
			a[1] += num(r[c])
	top = heapq.nsmallest(n, agg.items(), key=lambda kv: (-kv[1][0], kv[0]))
	for name, (tot, calls) in sorted(top):
		sys.stdout.write('%s\t%s\t%s\n' % (name, fmt(tot), fmt(calls)))


def nvtx(path, ranges):
	agg = dict.fromkeys(ranges)
	with open(path, newline='') as f:
		rows = csv.reader(f)
		head = next(rows)
		g, t, c = head.index('Range'), head.index('Total Time (ns)'), head.index('Instances')
		for r in rows:
			if r[g] in agg:
				a = agg[r[g]] or [0.0, 0.0]
				a[0] += num(r[c])
				a[1] += num(r[t])
				agg[r[g]] = a
	# a range not in the summary is empty, not 0
	for name in sorted(agg):
		a = agg[name] or [None, None]
		sys.stdout.write('%s\t%s\t%s\n' % (name, fmt(a[0]), fmt(a[1])))


def main(argv):
	if len(argv) == 3 and argv[1] == 'ncu':
		ncu(argv[2])
	elif len(argv) == 4 and argv[1] == 'topn':
		topn(int(argv[2]), argv[3])
	elif len(argv) >= 4 and argv[1] == 'nvtx':
		nvtx(argv[2], argv[3:])
	else:
		sys.stderr.write(__doc__)
		return 2
	return 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
