#!/usr/bin/env bash
# The run folder is written only through files lp creates (issue 28, item
# 9): a symbolic link planted in it as a step's temporary file
# (kernels.tsv.tmp) or a record's (vars/SET.tmp) made the next make write
# through it to its target and rename the link into place; a hard link
# there was written through the same way (issue 37).  A run folder holding
# a link of either kind is refused, naming it; the target is left alone.
. "$(dirname "$0")/lib.sh"

IMPORT="$(echo "$FIX"/h200-torch-v2/torch_*.csv)"

test_expect_success 'a link planted as kernels.tsv.tmp, or vars/SET.tmp: refused, the target untouched' '
	lpmake RUN=p "IMPORT=$IMPORT" MODEL=torch-decoder stages.tsv >/dev/null &&
	echo precious >target &&
	ln -s "$PWD/target" "$S2/p/kernels.tsv.tmp" &&
	test_must_fail lpmake RUN=p kernels.tsv >out 2>err &&
	test_grep "run folder .*/p holds symbolic links (.*/p/kernels.tsv.tmp): lp writes only files it creates there" err &&
	echo precious >expect && test_cmp expect target && test -L "$S2/p/kernels.tsv.tmp" &&
	rm "$S2/p/kernels.tsv.tmp" &&
	ln -s "$PWD/target" "$S2/p/vars/SET.tmp" &&
	test_must_fail lpmake RUN=p SET=run.top_n_kernels=3 stages.tsv >out 2>err &&
	test_grep "vars/SET.tmp" err && test_cmp expect target &&
	rm "$S2/p/vars/SET.tmp" &&
	lpmake RUN=p kernels.tsv >/dev/null && test -s "$S2/p/kernels.tsv" && test_cmp expect target
'

# A hard link (a second name of a file outside the run folder) planted as
# a step's temporary file or a record's: "> kernels.tsv.tmp" and
# $(file >vars/SET.tmp) opened the file it names and wrote through it.
test_expect_success 'a hard link planted as kernels.tsv.tmp, or vars/SET.tmp: refused, the file untouched' '
	lpmake RUN=h "IMPORT=$IMPORT" MODEL=torch-decoder stages.tsv >/dev/null &&
	echo precious >target && echo precious >expect &&
	ln target "$S2/h/kernels.tsv.tmp" &&
	test_must_fail lpmake RUN=h kernels.tsv >out 2>err &&
	test_grep "run folder .*/h holds files with another name too, hard links (.*/h/kernels.tsv.tmp): lp writes only files it creates there" err &&
	test_cmp expect target && ! test -e "$S2/h/kernels.tsv" &&
	rm "$S2/h/kernels.tsv.tmp" &&
	ln target "$S2/h/vars/SET.tmp" &&
	test_must_fail lpmake RUN=h SET=run.top_n_kernels=3 stages.tsv >out 2>err &&
	test_grep "hard links (.*/h/vars/SET.tmp)" err && test_cmp expect target &&
	rm "$S2/h/vars/SET.tmp" &&
	lpmake RUN=h kernels.tsv >/dev/null && test -s "$S2/h/kernels.tsv" && test_cmp expect target
'

test_done
