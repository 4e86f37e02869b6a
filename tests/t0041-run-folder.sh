#!/usr/bin/env bash
# The run folder is written only through files lp creates (issue 28, item
# 9): a symbolic link planted in it as a step's temporary file
# (kernels.tsv.tmp) or a record's (vars/SET.tmp) made the next make write
# through it to its target and rename the link into place.  A run folder
# holding a link is refused, naming it; the target is left alone.
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

test_done
