#!/usr/bin/env bash
# lp-runstep (issue 43, item 2): the steps of rules.mk that run nsys or ncu,
# declared.  A command file run as is, paths with blanks, quotes and $()
# taken as they are; a failed command's log and words and exit code; the
# checks in order, each with its words; the time said and kept; a capture
# kept when its command did not change.  The commands stand for nsys
# stats (writes reports into a folder, says what it skipped in its log)
# and a capture (writes one report).
. "$(dirname "$0")/lib.sh"

d="$TRASH/"'a b/$(touch pwned) "q"'
mkdir -p "$d"

test_expect_success 'a step whose outputs are there: timed, the log kept, nothing said but the time' '
	printf "echo SKIPPED: x; echo made > \"\$1/r.csv\"\n" >"$d/s.cmd" &&
	lp-runstep -l "$d/log" -f "$d/r.csv" -m "no r" -t "nsys stats" -T "$d/t.time" -- sh "$d/s.cmd" "$d" >out 2>err &&
	test_must_be_empty err && ! test -e "$TRASH/pwned" && ! test -e pwned &&
	test_grep "^lp: nsys stats took [0-9]*\.[0-9][0-9] s$" out &&
	test_grep "^nsys stats	[0-9]*\.[0-9][0-9]	0$" "$d/t.time" &&
	test_grep "^SKIPPED: x$" "$d/log" && test_grep "^made$" "$d/r.csv"
'

test_expect_success 'a missing output: the log lines that say skip or error, the log renamed, the words, exit 1' '
	printf "echo ok; echo SKIPPED: r; echo An Error\n" >"$d/s.cmd" &&
	test_expect_code 1 lp-runstep -g -l "$d/log" -L "$d/log.failed" -f "$d/r.csv" -m "nsys stats wrote no r report" \
		-t s -T "$d/t2.time" -- sh "$d/s.cmd" >out 2>err &&
	printf "SKIPPED: r\nAn Error\nlp: nsys stats wrote no r report\n" >expect && test_cmp expect err &&
	test_must_be_empty out && ! test -e "$d/t2.time" && ! test -e "$d/log" && test -f "$d/log.failed"
'

test_expect_success 'the checks in the order given; -o wants a file not empty (nsys stats writes one empty where a report has no rows)' '
	printf "echo does not contain X data; : > \"\$1/r.csv\"\n" >"$d/s.cmd" &&
	test_expect_code 1 lp-runstep -l "$d/log" -o "$d/r.csv" -m "no X data" -f "$d/none.csv" -m "none" -- sh "$d/s.cmd" "$d" 2>err &&
	printf "does not contain X data\nlp: no X data\n" >expect && test_cmp expect err &&
	test_expect_code 1 lp-runstep -l "$d/log" -f "$d/none.csv" -m "none" -o "$d/r.csv" -m "no X data" -- sh "$d/s.cmd" "$d" 2>err &&
	printf "does not contain X data\nlp: none\n" >expect && test_cmp expect err &&
	test_expect_code 1 lp-runstep -l "$d/log" -o "$d/r.csv" -- sh "$d/s.cmd" "$d" 2>err &&
	printf "does not contain X data\nlp: %s: not written\n" "$d/r.csv" >expect && test_cmp expect err
'

test_expect_success 'a failed command: its log, the words with its code and command, its exit code; the outputs removed' '
	printf "echo partial > \"\$1/r.csv\"; echo broke; exit 3\n" >"$d/s.cmd" &&
	test_expect_code 3 lp-runstep -c "$d/s.cmd" -l "$d/log" -e "%r of %c (100%%)" -o "$d/r.csv" -- sh "$d/s.cmd" "$d" 2>err &&
	printf "broke\nlp: 3 of %s (100%%)\n" "$(cat "$d/s.cmd")" >expect && test_cmp expect err &&
	! test -e "$d/r.csv"
'

test_expect_success 'a capture: said, put in place with its command; kept while the command is the same; nsys asked for after that' '
	printf "echo rep > \"\$1/r.tmp\"\n" >"$d/p.cmd" &&
	lp-runstep -k "$d/r.rep" -c "$d/p.cmd" -p "profiling: %c" -o "$d/r.tmp" -a -t cap -T "$d/p.time" -- sh "$d/p.cmd" "$d" >out &&
	test_grep "^lp: profiling: echo rep" out && test_grep "	1$" "$d/p.time" &&
	test_cmp "$d/p.cmd" "$d/r.rep.cmd" && test_grep "^rep$" "$d/r.rep" && ! test -e "$d/r.tmp" &&
	touch -d @1 "$d/r.rep" &&
	lp-runstep -k "$d/r.rep" -c "$d/p.cmd" -n nosuch:x -o "$d/r.tmp" -- false >out &&
	test_must_be_empty out && test "$(stat -c %Y "$d/r.rep")" != 1 &&
	echo "# changed" >>"$d/p.cmd" &&
	test_expect_code 127 lp-runstep -k "$d/r.rep" -c "$d/p.cmd" -n "nosuch:install it" -o "$d/r.tmp" -- true 2>err &&
	echo "lp: nosuch not found on PATH ($PATH): install it" >expect && test_cmp expect err &&
	test -e "$d/r.rep" && test -e "$d/r.rep.cmd"
'

test_expect_success 'usage: no command, -m before any check, -k without its command file' '
	test_expect_code 2 lp-runstep 2>err && test_grep "^usage: lp-runstep " err &&
	test_expect_code 2 lp-runstep -m x -- true 2>err && test_grep "^usage: " err &&
	test_expect_code 2 lp-runstep -k t -o x -- true 2>err && test_grep "^usage: " err
'

test_done
