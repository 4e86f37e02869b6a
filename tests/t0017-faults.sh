#!/usr/bin/env bash
# Faults: make killed with SIGKILL at random moments of an import run and of
# a live run (stand-in nsys and ncu), then run again: the artifacts are
# those of an uninterrupted run, byte for byte, and no step that had
# finished runs again.  Two runs at once, and make -j4, give the same
# artifacts as one run alone.  Each run is killed twice, the second time
# while the next make resumes it.  LP_FAULT_KILLS kills per kind (10 here;
# make check FAULT_KILLS=60 for the long version; LP_FAULT_REPORT=file
# keeps where each kill landed).
. "$(dirname "$0")/lib.sh"

KILLS=${LP_FAULT_KILLS:-10}
export SOURCE_DATE_EPOCH=1790000000	# env.json's time, fixed
export LP_FAKE_LOG=$TRASH/fake.log
export LP_FAKE_NSYS=$FIX/h200-live/t1
export LP_FAKE_NCU_CSV=$FIX/h200-live/n2.csv
IMPORT="$(echo "$FIX"/h200-torch-v2/torch_*.csv)"
GOALS="stakeholder_summary.md kernels.md regions.md"

lpmake() {
	PATH=$ROOT/tests/fake:$PATH make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} \
		LP_STAGE2_DIR="$S2" "$@"
}
goals() {
	case $1 in
	import) echo $GOALS ;;
	live) echo stakeholder_summary.md kernels.md ;;
	esac
}
run_to_end() {	# run_to_end KIND RUN [MAKE-ARGS...]
	local kind=$1 run=$2
	shift 2
	eval "set -- \"\$@\" $(args_q "$kind" "$run")"
	lpmake "$@" $(goals "$kind") >/dev/null 2>&1
}
args_q() {	# the args, quoted for eval
	case $1 in
	import) printf '%q ' "RUN=$2" "IMPORT=$IMPORT" MODEL=torch-decoder ;;
	live) printf '%q ' "RUN=$2" "WORK=sh tests/fake/workload.sh --tokens 4" MODEL=tinyllm ;;
	esac
}
# digest RUN: every file of the run folder and a hash of its content, the
# folder's own path and name written as RUN, so runs compare across names
# (wall times of the profiling steps, which no two runs share, left out:
# the *.time records and alone.tsv keep their 1st and 3rd columns,
# profile_cost.tsv its steps and counts, details.md stops before its
# Profile Cost section).  One perl for the folder: a sed and md5sum a file
# took half this file's CPU.
digest() {
	(cd "$S2/$1" && find . -type f | sort | R=$1 D=$S2/$1 perl -MDigest::MD5=md5_hex -lne '
		my $f = $_; my ($r, $d) = (quotemeta $ENV{R}, quotemeta $ENV{D}); my $s = "";
		my @keep = $f =~ m{(\.time|/alone\.tsv|/profile\.stop\.tsv)$} ? (0, 2) : $f =~ m{/profile_cost\.tsv$} ? (0, 2, 3) : ();
		open(my $h, "<", $f) or die "$f: $!\n";
		while (my $l = <$h>) {
			$l =~ s{$d}{RUN}g; $l =~ s{RUN=$r\b}{RUN=RUN}g; $l =~ s{run $r\b}{run RUN}g;
			last if $f =~ m{/details\.md$} && $l =~ /^## Profile Cost/;
			next if $f =~ m{/profile_cost\.tsv$} && $l =~ /^#/;
			if (@keep) { chomp $l; my @c = split /\t/, $l, -1; $l = join("\t", grep { defined } @c[@keep]) . "\n" }
			$s .= $l;
		}
		print "$f ", md5_hex($s);
	')
}
# stamps RUN: path, inode and time of each finished file (no .tmp)
stamps() {
	(cd "$S2/$1" && find . -type f ! -name "*.tmp*" -printf "%P %i %T@\n" | sort)
}

# kill_at KIND RUN MS: make started on RUN's goals, killed with its
# process group MS ms later (or found finished)
kill_at() {
	local kind=$1 run=$2 ms=$3 pid
	eval "set -- $(args_q "$kind" "$run")"
	{ PATH=$ROOT/tests/fake:$PATH setsid make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} \
		LP_STAGE2_DIR="$S2" "$@" $(goals "$kind") >/dev/null 2>&1 & }
	pid=$!
	sleep "$(printf "%d.%03d" $((ms / 1000)) $((ms % 1000)))"
	kill -9 -- -$pid 2>/dev/null; wait $pid 2>/dev/null
	test -d "$S2/$run" || mkdir -p "$S2/$run"
}
# profiles RUN: how often nsys profile ran for RUN (the stand-in's log)
profiles() {
	grep -c -- "^nsys profile .*--output=$S2/$1/nsys/report" "$LP_FAKE_LOG" || true
}
# kept KIND BEFORE AFTER: a file finished before a kill is the same file
# after the run was finished (path, inode, time); a step that writes
# several files finishes with its last: the per-region files with
# index.tsv, the region exports with exports.list, nsys stats' reports
# and their packs with stats.log, the untraced run's stats.log with its
# push/pop trace, an import's packs (lp-import -P) with import.mk, a step's wall
# time (*.time) with its artifact
kept() {
	local idx exl sl im
	idx=$(grep -c "^ncu/regions/index.tsv " "$2" || true)
	exl=$(grep -c "^ncu/regions/exports.list " "$2" || true)
	sl=$(grep -c "^nsys/stats.log " "$2" || true)
	im=$(grep -c "^import.mk " "$2" || true)
	join "$2" "$3" | awk -v had_list="$(cut -d" " -f1 "$2" | tr "\n" " ")" -v idx="$idx" -v exl="$exl" \
		-v sl="$sl" -v im="$im" -v kill="$2" -v live="$( [ "$1" = live ] && echo 1 || echo 0)" '
		BEGIN { n = split(had_list, h, " "); for (i = 1; i <= n; i++) had[h[i]] = 1
			t["nsys/profile.time"] = "nsys/report.nsys-rep"; t["nsys/stats.time"] = "nsys/stats.log"
			t["ncu/metrics.avail.time"] = "ncu/metrics.avail"; t["ncu/profile.time"] = "ncu/report.ncu-rep"
			t["ncu/profile.stop.tsv"] = "ncu/report.ncu-rep"
			t["ncu/export.time"] = "ncu/report.csv"; t["nsys/export.time"] = "nsys/report.sqlite"
			t["untraced/profile.time"] = "untraced/report.nsys-rep"
			t["bwprobe.log"] = "bwprobe.tsv"; t["linkprobe.log"] = "linkprobe.tsv"
			t["untraced/stats.time"] = t["untraced/stats.log"] = "untraced/report_nvtx_pushpop_trace.csv" }
		($1 in t) && !(t[$1] in had) { next }
		$1 ~ /^nsys\/report_.*\.csv$/ && live && !sl { next }
		$1 ~ /^nsys\/report_.*\.lpt$/ && (live ? !sl : !im) { next }
		$1 ~ /-rep\.cmd$/ { rep = $1; sub(/\.cmd$/, "", rep); if (!(rep in had)) next }
		$1 ~ /^ncu\/regions\/(d|imp)[0-9]+\.(csv|ncu-rep|cmd|log|time)$/ && !exl { next }
		$1 ~ /^ncu\/regions\/[^\/]*\.(csv|md|json)$/ && $1 !~ /\/(d|imp)[0-9]+\.csv$/ && !idx { next }
		$2 != $4 || $3 != $5 { print "rewritten after the kill of " kill ": " $1 }' >redone
	test_must_be_empty redone
}

for kind in import live; do
	test_expect_success "$kind: the uninterrupted run, its time" '
		start=$(date +%s%N) &&
		run_to_end '$kind' ref-'$kind' &&
		echo $(( ($(date +%s%N) - start) / 1000000 )) >"$TRASH/ms-'$kind'" &&
		digest ref-'$kind' >"$TRASH/ref-'$kind'.digest" &&
		test $(wc -l <"$TRASH/ref-'$kind'.digest") -gt 20 &&
		lpmake -q RUN=ref-'$kind' $(goals '$kind')
	'

	test_expect_success "$kind: $KILLS kills with SIGKILL at random moments, two a run, each resumed by the next make" '
		full=$(cat "$TRASH/ms-'$kind'") && : >report && k=0 && j=0 &&
		while [ $k -lt '"$KILLS"' ]; do
			j=$((j + 1)) run=k'$kind'$j left=$full said= &&
			for n in 1 2; do
				[ $k -lt '"$KILLS"' ] || break
				k=$((k + 1)) ms=$(( RANDOM % (left + 1) )) left=$((left - ms)) &&
				kill_at '$kind' "$run" "$ms" &&
				stamps "$run" >"before.$n" &&
				{ [ '$kind' != live ] ||
					echo "$(grep -c "^nsys/report.nsys-rep " "before.$n") $(profiles "$run")" >>"$TRASH/prof-$run"; } &&
				said="$said${said:+, then }$ms ms ($(wc -l <"before.$n") files)" || return 1
			done
			run_to_end '$kind' "$run" &&
			stamps "$run" >after &&
			for b in before.*; do
				kept '$kind' "$b" after || return 1
			done &&
			rm before.* &&
			digest "$run" >got &&
			test_cmp "$TRASH/ref-'$kind'.digest" got &&
			lpmake -q RUN="$run" $(goals '$kind') &&
			echo "$run killed at $said" >>report || return 1
		done &&
		echo "$j" >"$TRASH/runs-'$kind'" &&
		cat report >&2 &&
		if [ -n "${LP_FAULT_REPORT:-}" ]; then cat report >>"$LP_FAULT_REPORT"; fi
	'
done

test_expect_success 'two runs at once, and make -j4: the same artifacts' '
	run_to_end import par1 & run_to_end import par2 & wait &&
	run_to_end import j4 -j4 &&
	for r in par1 par2 j4; do
		digest $r >got && test_cmp "$TRASH/ref-import.digest" got || return 1
	done
'

test_expect_success 'live: nsys profile ran again only after a kill that stopped it' '
	for j in $(seq "$(cat "$TRASH/runs-live")"); do
		run=klive$j && n=$(profiles "$run") &&
		kills=$(wc -l <"$TRASH/prof-$run") &&
		test "$n" -le $((kills + 1)) || { echo "$run: nsys profile ran $n times, $kills kills"; return 1; }
		# once its report was there at a kill, it never ran again
		while read -r had count; do
			[ "$had" = 0 ] || [ "$count" = "$n" ] ||
				{ echo "$run: nsys profile ran again after its report was whole"; return 1; }
		done <"$TRASH/prof-$run"
	done
'

test_done
