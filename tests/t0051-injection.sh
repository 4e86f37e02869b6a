#!/usr/bin/env bash
# Nothing in an export or a path reaches make (issue 37, item 1).  make
# includes import.mk, which lp-import writes from the exports: a line break
# in a field it copied there ended a comment line and make ran the rest
# ("poll\nX := $(shell id > pwned)\n#" as an OS runtime summary's first
# call, or as a process ID), and a field ending in "\" swallowed the next
# line.  Here every field lp-import reads, of every kind of export it
# knows, and the header's names too, are written with bytes that make or a
# shell would act on; import.mk must then hold only lp's own lines (its
# grammar, checked by awk, and the variables make reads from it, checked by
# make) and nothing may run.  Then the reproductions end to end through
# make, and IMPORT paths that begin with "-" or look like an awk
# assignment (a sweep's folder "r=1/").
. "$(dirname "$0")/lib.sh"

SENT=$TRASH/ran
# Each export kind lp-import reads, by a small fixture of it.
KINDS="h100-graphs/a2_graph_node_trace.csv h100-plc/one1_ncu_raw.csv
h200-tinyllm-v2/tinyllm_d0_regions.csv h200-probe/torch_prefill_gemm_details.csv
h200-fusion/fus_cuda_gpu_mem_time_sum.csv h200-live/t1_nvtx_sum.csv
h200-live/t1_cuda_api_sum.csv h200-whole/tinyllm_nvtx_gpu_proj_sum.csv
h100-aten/gpt2_plain_nvtx_gpu_proj_trace.csv h100-aten/gpt2_plain_nvtx_pushpop_trace.csv
h200-tinyllm-v2/tinyllm_cuda_gpu_kern_sum_mangled.csv h200-tinyllm/cap_cuda_gpu_kern_sum.csv
h100-graphs/s2_nvtx_kern_sum_mangled.csv h100-graphs/s2_nvtx_kern_sum.csv
h200-whole/tinyllm_cuda_gpu_trace.csv h100-aten/gpt2_plain_cuda_api_trace.csv"

# What make and a shell act on: a line break, a line's continuation, an
# expansion, a comment, a rule's ':' and '=', quotes and backquotes, a tab
# that starts a recipe line.  pay0 holds them NUL-separated.
printf '%s\0' "poll
LP_PWN := \$(shell touch $SENT)
#" 'x\' "\$(shell touch $SENT)" "#:=\`touch $SENT\`;'\"\\" "a
	@touch $SENT" "1\\
X = \$(shell touch $SENT)" >pay0

# hostile FILE COLS...: with PAYLOADS (NUL-separated) on stdin, writes
# c.N.csv for each payload, line 1 (the header) or 2 (the first row) and
# column of COLS: FILE's first 40 lines with that field replaced by the
# payload, quoted as CSV quotes it.  Prints how many.
cat >hostile.pl <<'EOF'
my ($file, @cols) = @ARGV;
open(my $fh, '<', $file) or die "$file: $!";
my @lines;
while (my $l = <$fh>) { push @lines, $l; last if @lines == 40; }
local $/ = "\0";
my @pay = map { chomp; $_ } <STDIN>;
my $n = 0;
for my $ln (1, 2) {
	for my $col (@cols) {
		for my $pay (@pay) {
			(my $q = $pay) =~ s/"/""/g;
			(my $l = $lines[$ln - 1]) =~ s/\r?\n\z//;
			my @t;
			while ($l =~ /\G("(?:[^"]|"")*"|[^,]*)(,|\z)/g) {
				push @t, $1;
				last if $2 eq '';
			}
			$t[$col - 1] = "\"$q\"" if $col <= @t;
			my @out = @lines;
			$out[$ln - 1] = join(',', @t) . "\n";
			open(my $o, '>', "c.$n.csv") or die "c.$n.csv: $!";
			print $o @out;
			close $o;
			$n++;
		}
	}
}
print "$n\n";
EOF
# The same, one field: hostile1 FILE LINE COL PAYLOAD (the file on stdout).
hostile1() {
	printf '%s\0' "$4" | (mkdir h1 && cd h1 && perl "$TRASH/hostile.pl" "$1" "$3" >/dev/null &&
		cat "c.$(($2 == 1 ? 0 : 1)).csv") && rm -r h1
}

# import.mk's grammar: a comment of printable characters without "\" (nor
# "$" or a quote), or LP_IMP_NAME := plain paths.  Prints what is not.
cat >grammar.awk <<'EOF'
/^# [ -~]*$/ && !/[\\$`'"]/ { next }
/^LP_IMP_[A-Za-z_]+ :=( [A-Za-z0-9._\/+@=,:~-]+)*$/ { next }
{ print FILENAME ":" FNR ": " $0 }
EOF
# The variables make sets from a file it includes, as it reads them.
cat >vars.mk <<'EOF'
lp__before := $(.VARIABLES)
include $(F)
$(foreach v,$(filter-out $(lp__before) lp__before,$(.VARIABLES)),$(info $(v)))
all: ;@:
EOF

# Each case through lp-import: refused (a message, no import.mk), or an
# import.mk (kept as im.K.N) checked with the others at the end: lp's
# lines only, whose variables are LP_IMP_*, and nothing run.
test_expect_success 'every field and header name of every export kind, written with make'"'"'s and the shell'"'"'s bytes: import.mk holds lp'"'"'s lines only, nothing runs' '
	n=0 k=0 && : >refused &&
	for kind in $KINDS; do
		f=$FIX/$kind &&
		cols=$(head -n 1 "$f" | perl -ne "print scalar(() = /,(?=(?:[^\"]|\"[^\"]*\")*\$)/g) + 1") &&
		# an ncu export has hundreds of metric columns: those lp-import
		# reads, found by name, and the first eight
		if [ "$cols" -gt 24 ]; then
			sel=$(head -n 1 "$f" | tr , "\n" | grep -n "\"\(ID\|Kernel Name\|Process ID\|Process Name\|Metric Name\|Metric Value\)\"" | cut -d: -f1 | tr "\n" " ")
			sel="$sel 1 2 3 4 5 6 7 8"
		else
			sel=$(seq 1 "$cols")
		fi &&
		m=$(perl "$TRASH/hostile.pl" "$f" $sel <"$TRASH/pay0") &&
		for i in $(seq 0 $((m - 1))); do
			if lp-import -- "c.$i.csv" >"im.$k.$i" 2>err; then
				continue
			fi
			# (no diff nor rm for each refused case: 1,000 forks;
			# they are removed together below)
			test -s err && test_must_be_empty "im.$k.$i" && echo "im.$k.$i" >>refused ||
				{ echo "$kind case $i"; cat err; return 1; }
		done &&
		n=$((n + m)) k=$((k + 1)) || return 1
	done &&
	xargs -r rm <refused &&
	ls im.* >made &&
	echo "# $n hostile exports, $(wc -l <made) read as exports" &&
	test "$n" -gt 500 && test $(wc -l <made) -gt 100 &&
	awk -f "$TRASH/grammar.awk" im.* >bad && test_cmp /dev/null bad &&
	make -s -f "$TRASH/vars.mk" F="$(cat made | tr "\n" " ")" >v 2>verr &&
	test_cmp /dev/null verr &&
	! grep -v "^LP_IMP_[A-Za-z_]*$" v &&
	! test -e "$SENT"
'

# The reproductions, through make: an OS runtime summary whose first call
# is the attack, a projection trace whose PID is, beside the demo capture.
DEMO=$(ls "$FIX"/h200-torch-v2/torch_*.csv | grep -v _regions)
test_expect_success 'the OS runtime summary whose first call name holds make lines: nothing runs, the run is made' '
	hostile1 "$FIX/h200-live/t1_cuda_api_sum.csv" 2 9 "poll
X := \$(shell touch $SENT)
#" >osrt_sum.csv &&
	sed -n "41,\$p" "$FIX/h200-live/t1_cuda_api_sum.csv" >>osrt_sum.csv &&
	lpmake RUN=os "IMPORT=$(echo $DEMO) $PWD/osrt_sum.csv" MODEL=torch-decoder \
		stakeholder_summary.md >out 2>err || { cat err; return 1; } &&
	! test -e "$SENT" &&
	awk -f "$TRASH/grammar.awk" "$S2/os/import.mk" >bad && test_cmp /dev/null bad &&
	test_grep "osrt_sum.csv: an nsys summary of calls that are not CUDA API calls .*, its first call not a plain name$" "$S2/os/import.mk" &&
	lpmake -q RUN=os stakeholder_summary.md
'

test_expect_success 'a process ID that is not digits: refused where it stands, nothing runs' '
	for p in "4788
X := \$(shell touch $SENT)
#" "4788\\" "\$(shell touch $SENT)"; do
		for r in nvtx_gpu_proj_trace nvtx_pushpop_trace nvtx_kern_sum; do
			f=$FIX/h200-torch-v2/torch_$r.csv &&
			c=$(head -n 1 "$f" | tr , "\n" | grep -n "^PID$" | cut -d: -f1) &&
			mkdir -p "p$c" && hostile1 "$f" 2 "$c" "$p" >"p$c/torch_$r.csv" &&
			sed -n "41,\$p" "$f" >>"p$c/torch_$r.csv" &&
			imp=$(echo $DEMO | tr " " "\n" | grep -v "_$r.csv$" | tr "\n" " ") &&
			test_must_fail lpmake RUN=pid "IMPORT=$imp $PWD/p$c/torch_$r.csv" \
				MODEL=torch-decoder import.mk >out 2>err &&
			test_grep "p$c/torch_$r.csv:2:$c: PID: not a process ID (digits)" err &&
			! test -e "$S2/pid/import.mk" && ! test -e "$SENT" || return 1
		done
	done
'

test_expect_success 'IMPORT paths with make'"'"'s and the shell'"'"'s bytes: refused before anything is read, nothing runs' '
	cp "$FIX/h200-live/t1_cuda_api_sum.csv" plain.csv &&
	for p in "\$(shell touch $SENT).csv" "a\\" "#x.csv" "\`touch $SENT\`.csv" "x;touch $SENT.csv" "\$\$(touch $SENT).csv"; do
		test_must_fail lpmake RUN=path "IMPORT=$TRASH/plain.csv $p" MODEL=torch-decoder \
			import.mk >out 2>err &&
		test_grep "IMPORT" err && ! test -e "$SENT" && ! test -e "$S2/path/import.mk" || return 1
	done
'

test_expect_success 'a message quoting an export shows its control characters as \xNN: one line, no terminal escape' '
	printf "Time (%%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n1,\"x\033[2J\nlp: y\",3,1,1,1,1,0,k\n" >esc.csv &&
	test_must_fail lp-topn <esc.csv >out 2>err &&
	test $(wc -l <err) = 1 &&
	test_grep "^lp-topn: <stdin>:2:2: Total Time (ns): not a number: \"x\\\\x1b\[2J\\\\x0alp: y\"$" err &&
	! grep -q "$(printf "\033")" err
'

# A tree of the checkout whose folder make runs in holds the exports, so
# that IMPORT names them relative to it, as a user in the project root does.
tree() {
	mkdir -p tree &&
	for x in Makefile rules.mk tools conf bin tests; do
		ln -sfn "$ROOT/$x" "tree/$x" || return 1
	done
}
test_expect_success 'relative IMPORT paths that look like an option ("-x.csv") or an awk assignment (a folder "r=1/"): read as files' '
	tree && mkdir -p "tree/r=0" "tree/r=1" &&
	cp "$FIX"/h200-tp/tpr0_*.csv "tree/r=0/" && cp "$FIX"/h200-tp/tpr1_*.csv "tree/r=1/" &&
	imp=$(cd tree && ls r=0/*.csv r=1/*.csv | tr "\n" " ") &&
	make -C tree --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=ranks \
		"IMPORT=$imp" MODEL=tp-mlp SET=model.decode_tokens=8 procs.tsv >out 2>err || { cat err; return 1; } &&
	test_grep "^LP_IMP_cuda_gpu_trace_mangled := \./r=0/tpr0_cuda_gpu_trace_mangled.csv \./r=1/tpr1_cuda_gpu_trace_mangled.csv$" "$S2/ranks/import.mk" &&
	# both ranks, each its own process
	test $(grep -v "^#" "$S2/ranks/procs.tsv" | sed 1d | wc -l) = 2 &&
	for f in $DEMO; do cp "$f" "tree/-t_${f##*/torch_}" || return 1; done &&
	make -C tree --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=dash \
		"IMPORT=$(cd tree && ls -- -t_*.csv | tr "\n" " ")" MODEL=torch-decoder kernels.tsv >out 2>err || { cat err; return 1; } &&
	test_grep "^# \./-t_cuda_api_sum.csv: nsys cuda_api_sum$" "$S2/dash/import.mk" &&
	test -s "$S2/dash/kernels.tsv"
'

test_done
