#!/usr/bin/env bash
# Issue 42, item 3, after explore42g.sh: the compiled decode (2 layers)
# under lp's ncu command (--filter-mode per-launch-config) against the same
# kernels selected by ncu's per-kernel filter (--kernel-id ::RE:1, the
# first launch of each kernel in decode_all), and that filter with
# --launch-count N --kill yes (N: the selected kernels).  Each variant's
# seconds, profiled launches, the workload's own step, and the
# (kernel, grid, block) each report holds, so that the launches profiled
# can be compared.  Uses t0010's run where it is there (/tmp/lpg/ucompile).
# Writes $OUT/explore42h.txt.
. "$(dirname "$0")/explore-lib.sh"
S=${LP_GPU_STAGE2:-/tmp/lpg}
C="python3 tests/workloads/torch_decoder.py --mode compile --layers 2"
{
p=$S/ucompile/ncu/profile.cmd
if [ ! -s $p ]; then
	mkdir -p $S
	make --no-print-directory LP_STAGE2_DIR=$S RUN=ucompile "WORK=$C" MODEL=torch-decoder $p >$S/make.log 2>&1 ||
		{ tail -20 $S/make.log; exit 1; }
fi
X=/tmp/x42h; mkdir -p $X
python3 - "$p" "$X" <<'PY'
import shlex, sys
src, d = sys.argv[1], sys.argv[2]
a = shlex.split(open(src).read())
def opt(a, k):
    i = a.index(k); return i, a[i + 1]
i, out = opt(a, '-o') if '-o' in a else opt(a, '--export')
a[i + 1] = d + '/plc'
open(d + '/plc.cmd', 'w').write(shlex.join(a) + '\n')
i, re = opt(a, '--kernel-name')
del a[i:i + 2]
j = a.index('--filter-mode'); del a[j:j + 2]
j = a.index('--launch-count'); del a[j:j + 2]
k = a.index('--')
a[i:i] = ['--kernel-id', '::' + re + ':1']
a[a.index('-o') + 1 if '-o' in a else a.index('--export') + 1] = d + '/kid'
open(d + '/kid.cmd', 'w').write(shlex.join(a) + '\n')
n = re.count('|') + 1
k = a.index('--')
a[k:k] = ['--launch-count', str(n), '--kill', 'yes']
a[a.index('-o') + 1 if '-o' in a else a.index('--export') + 1] = d + '/kidkill'
open(d + '/kidkill.cmd', 'w').write(shlex.join(a) + '\n')
print('selected kernels:', n)
PY
for v in kid kidkill plc; do echo "== $v"; head -c 300 $X/$v.cmd | tr -d '\n'; echo " ..."; tail -c 300 $X/$v.cmd; done
for v in kid kidkill plc; do
	rm -f $X/$v.ncu-rep
	t0=$(now); timeout 200 sh $X/$v.cmd >$X/$v.out 2>&1; rc=$?; t1=$(now)
	printf '%-8s %7s s  rc %s  profiled %s  %s\n' $v "$(secs $t0 $t1)" $rc "$(grep -c '==PROF== Profiling' $X/$v.out)" \
		"$(grep -o 'decode_step_med=[0-9.]*ms' $X/$v.out | head -1)"
	ncu --import $X/$v.ncu-rep --page raw --csv --metrics launch__grid_size,launch__block_size 2>/dev/null |
		python3 -c 'import csv,sys
r=list(csv.DictReader(sys.stdin))
s=sorted(set((x["Kernel Name"],x.get("launch__grid_size",""),x.get("launch__block_size","")) for x in r if x.get("ID","").isdigit()))
print("  rows", len([x for x in r if x.get("ID","").isdigit()]), "distinct", len(s))
[print("  ", *t, sep="\t") for t in s]' >$X/$v.set
	cat $X/$v.set
done
echo "== kid vs plc (kernel, grid, block) sets"; diff $X/kid.set $X/plc.set && echo same
echo "== kidkill vs plc"; diff $X/kidkill.set $X/plc.set && echo same
grep -h "decode_step_med" /tmp/lpg/ucompile/*.log 2>/dev/null | head -3
} 2>&1 | tee "$O/explore42h.txt"
true
