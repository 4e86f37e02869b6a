#!/bin/sh
# tests/snapshot.sh ROOT OUT: every artifact lp makes from the repo's real
# captures (tests/fixtures), copied to OUT/stage2, and what make and the
# tools said, to OUT/RUN.said, for comparing two revisions of lp byte for
# byte (a refactoring must not change them):
#   tests/snapshot.sh /tmp/old /tmp/a; tests/snapshot.sh . /tmp/b; diff -r /tmp/a /tmp/b
# Times and lp revisions are normalised; the rest must be identical.
ROOT=$1 OUT=$2
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
cd "$ROOT" || exit 2
S=tmp/snapshot
rm -rf $S "$OUT"; mkdir -p "$OUT"
F=tests/fixtures
T="stakeholder_summary.md kernels.md regions.md"
one() { # run model files...
	run=$1 model=$2; shift 2
	make --no-print-directory LP_STAGE2_DIR=$S RUN=$run IMPORT="$*" ${model:+MODEL=$model} env.json >/dev/null 2>&1
	sed -i -e "s/\"created_utc\": \"[^\"]*\"/\"created_utc\": \"X\"/" -e "s/\"lp_revision\": \"[^\"]*\"/\"lp_revision\": \"X\"/" $S/$run/env.json
	make -k --no-print-directory LP_STAGE2_DIR=$S RUN=$run IMPORT="$*" ${model:+MODEL=$model} $T >"$OUT/$run.log" 2>&1
	echo "exit $?" >>"$OUT/$run.log"
}
one demo torch-decoder $F/h200-torch-v2/torch_*.csv
one tv2 torch-decoder $F/h200-torch-v2/torch_*.csv
one tlive torch-decoder $F/h200-torch-live/torch_*.csv
one tdec torch-decoder $F/h200-torch-decoder/torch_*.csv
one tiny2 tinyllm $F/h200-tinyllm-v2/tinyllm_*.csv
one tinylive tinyllm $F/h200-tinyllm-live/tinyllm_*.csv
one gpt2 hf-gpt2 $F/h200-gpt2/gpt2_*.csv
one pre torch-decoder $F/h200-prefill/tpre_*.csv
one fus tinyllm $F/h200-fusion/fus_*.csv
one unf tinyllm $F/h200-fusion/unf_*.csv
one c0 "" $F/h200-live/c0_*.csv
one t1 "" $F/h200-live/t1_*.csv
one wtiny tinyllm $F/h200-whole/tinyllm_*.csv
one wtorch torch-decoder $F/h200-whole/torch_*.csv
one tpm tp-mlp $F/h200-tp/tpm_*.csv
one tps tp-mlp $F/h200-tp/tps_*.csv
one tpz tp-mlp $F/h200-tp/tpz_*.csv
one tpr tp-mlp $F/h200-tp/tpr0_*.csv $F/h200-tp/tpr1_*.csv
one hgpt2 hf-gpt2 $(ls $F/h100-hostside/gpt2_*.csv | grep -v ncu_raw_mangled)
one hllama "" $F/h100-hostside/llama_*.csv
one agpt2 hf-gpt2 $(ls $F/h100-aten/gpt2_*.csv | grep -v plain)
one agpt2p hf-gpt2 $F/h100-aten/gpt2_plain_*.csv
one allama "" $(ls $F/h100-aten/llama_*.csv | grep -v plain)
make -k --no-print-directory LP_STAGE2_DIR=$S RUN=fus BASE=unf compare.md >"$OUT/cmp.log" 2>&1; echo "exit $?" >>"$OUT/cmp.log"
make -k --no-print-directory LP_STAGE2_DIR=$S RUN=tv2 BASE=tlive compare.md >"$OUT/cmp2.log" 2>&1; echo "exit $?" >>"$OUT/cmp2.log"
cp -r $S "$OUT/stage2"
find "$OUT/stage2" -name env.json -exec sed -i -e 's/"created_utc": "[^"]*"/"created_utc": "X"/' -e 's/"lp_revision": "[^"]*"/"lp_revision": "X"/' {} +
find "$OUT/stage2" -type f \( -name environment.tsv -o -name stakeholder_summary.md \) -exec sed -i 's/^\(|\? \?Recorded (UTC)[ |\t]*\)20[0-9T:Z-]*/\1X/' {} +
# the imported files' times (a checkout's own; their sizes kept)
find "$OUT/stage2" -name IMPORT.stamp -exec sed -i 's/ 20[0-9-]* [0-9:.]* [-+][0-9]*/ T/g' {} +
find "$OUT/stage2" -type f \( -name environment.tsv -o -name stakeholder_summary.md \) -exec sed -i 's/^\(|\? \?lp revision[ |\t]*\)[0-9a-f]\{7,\}\(-dirty\)\?/\1X/' {} +
# What make and the tools said, without recipe echo, rules.mk line numbers
# and the lock's waiting line.
for l in "$OUT"/*.log; do
	grep -E '^(lp-|lp:|make: \*\*\*|exit )' "$l" | grep -v 'being made by another make' |
		sed 's/rules\.mk:[0-9]*/rules.mk/; s/\[[a-z]*\.mk:[0-9]*: /[/' >"${l%.log}.said"
	rm "$l"
done
