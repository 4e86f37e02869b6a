#!/usr/bin/env bash
# Names are data in every document lp writes.  Real exports (make demo's
# PyTorch run on the H200, tests/fixtures/h200-torch-v2) with one kernel
# and the GPU renamed to hold HTML, backticks, a pipe, an entity, bytes
# that are not UTF-8, U+FFFE and a control character go through the whole
# pipeline; the Markdown, rendered by cmark-gfm (GitHub's parser) with raw
# HTML let through, must hold no element lp did not write, every table row
# its cells, and the names as they were; roofline.svg must pass xmllint;
# the region files (lp-regsplit) must be valid JSON, one set per region.
#
# The real cases they stand for: a kernel's name is whatever its author or
# a code generator called it (Triton and torch.compile name kernels after
# user functions; a JIT'd CUDA source can name a kernel anything), an
# export can be edited or cut, and the GPU name is what the driver reports
# (vGPU and MIG profiles have their own) or what SET=gpu.name= said.
. "$(dirname "$0")/lib.sh"

# the parsers that judge the documents (.ci/run installs them)
for p in cmark-gfm xmllint perl; do
	command -v $p >/dev/null || { echo "1..0 # SKIP $p is not installed"; exit 0; }
done

V2=$FIX/h200-torch-v2
K=nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_bias_TNT	# the top kernel of the run
# The hostile kernel name, and the GPU's
printf 'nvjet`<img src=x onerror=alert(1)>`\\|&amp;\377\357\277\276\001_TNT' >"$TRASH/kname"
printf 'NVIDIA H200 <b>x</b>`y`<i>[z](javascript:alert(1))' >"$TRASH/gname"
# ... and how cmark-gfm must show them: the kernel as one code span (entities
# for what HTML needs, U+FFFD for what is not UTF-8 or a control byte),
# the GPU name as text (its `y` is code: lp's sentences pair backticks)
printf '<code>nvjet`&lt;img src=x onerror=alert(1)&gt;`\\|&amp;amp;\357\277\275\357\277\276\357\277\275_TNT</code>' >"$TRASH/kname.html"
printf 'NVIDIA H200 &lt;b&gt;x&lt;/b&gt;<code>y</code>&lt;i&gt;[z](javascript:alert(1))' >"$TRASH/gname.html"

# rename: each export with the top kernel and the GPU renamed
rename() {
	KNAME=$(cat "$TRASH/kname") GNAME=$(cat "$TRASH/gname") perl -pe '
		s/\Q'"$K"'\E/$ENV{KNAME}/g;
		s/"NVIDIA H200"/"$ENV{GNAME}"/g' "$1"
}

# The elements a report of lp's may render to: what lp's own Markdown
# makes (headings, paragraphs, tables, code spans, lists, the "See" links,
# the findings' emphasis and the key numbers' definitions, a bullet list).
# Anything else came from a name.
cat >"$TRASH/allowed" <<\EOF
a
code
em
h1
h2
li
ol
p
strong
table
tbody
td
th
thead
tr
ul
EOF

# md_safe FILE: FILE rendered holds no other element, no link but to a
# file beside it, no raw HTML (cmark-gfm's default omits it and says so),
# and each table row as many cells as its table's header
md_safe() {
	cmark-gfm --unsafe -e table "$1" >"$1.html" &&
	grep -o '<[a-zA-Z][a-zA-Z0-9]*' "$1.html" | cut -c2- | sort -u >"$1.elements" &&
	if comm -23 "$1.elements" "$TRASH/allowed" | grep .; then
		echo "elements lp does not write, in $1" >&2
		return 1
	fi &&
	# a file beside it, a row's anchor (findings-3) or a link to one
	if grep -o '<a [^>]*>' "$1.html" | grep -v -e '^<a href="[A-Za-z0-9._-]*\(#[a-z]*-[a-z0-9_]*\)\{0,1\}">$' \
		-e '^<a id="[a-z]*-[a-z0-9_]*">$'; then
		echo "a link lp did not write, in $1" >&2
		return 1
	fi &&
	# the only raw HTML: lp's row anchors in details.md's lists
	if sed 's/<a id="[a-z]*-[a-z0-9_]*"><\/a>//g' "$1" | cmark-gfm -e table | grep 'raw HTML omitted'; then
		echo "raw HTML in $1" >&2
		return 1
	fi &&
	# cmark-gfm fills a short row and drops what is beyond its header, so
	# the cells are counted in the Markdown: "|" not after a backslash
	awk '/^\|/ { n = gsub(/(^|[^\\])\|/, "&"); if (!rows++) head = n
			else if (n != head) { print FILENAME ":" FNR ": " n " cells, header " head; bad = 1 }
			next }
		{ rows = 0 } END { exit bad }' "$1"
}

test_expect_success 'setup: the demo run, and the same exports renamed' '
	mkdir "$TRASH/imp" &&
	for f in "$V2"/torch_*.csv; do
		rename "$f" >"$TRASH/imp/${f##*/}" || return 1
	done &&
	test $(cat "$TRASH"/imp/*.csv | grep -c "onerror") = 7 &&
	test $(grep -c "<b>x</b>" "$TRASH/imp/torch_ncu_raw.csv") = 10 &&
	for run in a h; do
		case $run in a) imp=$V2 ;; h) imp=$TRASH/imp ;; esac &&
		make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=$run \
			"IMPORT=$(echo "$imp"/torch_*.csv)" MODEL=torch-decoder \
			kernels.md stakeholder_summary.md regions.md >/dev/null || return 1
	done &&
	make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=h BASE=a \
		compare.md >/dev/null &&
	make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=a BASE=h \
		compare.md >/dev/null
'

for doc in h/kernels.md h/details.md h/regions.md h/compare.md a/compare.md \
	a/kernels.md a/details.md; do
	test_expect_success "$doc: no markup from a name, whole rows" "md_safe \"\$S2/$doc\""
done

test_expect_success 'kernels.md shows the name whole in one code span' '
	md_safe "$S2/h/kernels.md" &&
	test_grep -F ">$(cat "$TRASH/kname.html")</td>" "$S2/h/kernels.md.html"
'

test_expect_success 'the summary shows the kernel and the GPU as they are' '
	md_safe "$S2/h/details.md" &&
	test_grep -F ">$(cat "$TRASH/kname.html")</td>" "$S2/h/details.md.html" &&
	test_grep -F ">$(cat "$TRASH/gname.html")</td>" "$S2/h/details.md.html"
'

test_expect_success 'compare.md: the renamed kernel in the notes, as a code span' '
	md_safe "$S2/h/compare.md" && md_safe "$S2/a/compare.md" &&
	test_grep -F "Appeared: $(cat "$TRASH/kname.html")." "$S2/h/compare.md.html" &&
	test_grep -F "Vanished (fused or no longer run): $(cat "$TRASH/kname.html")." \
		"$S2/a/compare.md.html"
'

# Templates keep their < > inside code spans, as before: no entities there
test_expect_success 'ordinary names render as they did' '
	test_grep -F "| 2 | \`void at::native::<...>::vectorized_layer_norm_kernel<...>(...)\` |" \
		"$S2/a/details.md" &&
	test_grep -F "| 1 | \`$K\` | 0 | 1.705 | 384 |" "$S2/a/kernels.md"
'

test_expect_success 'roofline.svg is well-formed XML with the name in it' '
	xmllint --noout "$S2/h/roofline.svg" &&
	test_grep -F "nvjet\`&lt;img src=x onerror=alert(1)&gt;\`\\|&amp;amp;$(printf "\357\277\275\357\277\275\357\277\275")_TNT" \
		"$S2/h/roofline.svg"
'

# svg_of NAME: roofline.svg of the real run with its top kernel named NAME
svg_of() {
	awk -F"\t" -v OFS="\t" -v n="$1" '!h && /^#/ { print; next }
		!h { h = 1; print; next } $1 == "1" { $2 = n } 1' "$S2/a/roofline.tsv" >r.tsv &&
	lp-roofsvg -g "$S2/a/gpu.tsv" r.tsv >r.svg
}

test_expect_success 'roofline.svg: any byte in a name' '
	for c in 001 010 013 014 037 177 200 277 300 301 355 360 364 365 376 377; do
		svg_of "a$(printf "\\$c")b" && xmllint --noout r.svg || return 1
	done &&
	for s in "\357\277\276" "\357\277\277" "\355\240\200" "\364\220\200\200" "\340\200\257" \
		"]]>" "<![CDATA[" "&#0;" "&#xFFFE;" "<!DOCTYPE x>" "\"'"'"'<&>"; do
		svg_of "a$(printf "$s")b" && xmllint --noout r.svg || return 1
	done
'

# ---- lp-regsplit: region_instances.tsv of the real run, its paths renamed ----

# regions OLD=NEW...: the run's region_instances.tsv with each path whose
# region (what follows the last " > ") is OLD given the region NEW
regions() {
	awk -F"\t" -v OFS="\t" -v map="$*" '
		BEGIN { n = split(map, m, "\001"); for (i = 1; i <= n; i++) {
			j = index(m[i], "="); to[substr(m[i], 1, j - 1)] = substr(m[i], j + 1) } }
		!h && /^#/ { print; next }
		!h { h = 1; print; next }
		{ leaf = $1; sub(/.* > /, "", leaf)
		  if (leaf in to) $1 = substr($1, 1, length($1) - length(leaf)) to[leaf] }
		1' "$S2/a/region_instances.tsv"
}
sep=$(printf "\001")

# json_ok FILE: perl's JSON::PP reads it (strict: UTF-8, no bare 007 or .5)
json_ok() {
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die;
		my $v = JSON::PP->new->utf8->decode(<$f>);
		ref $v eq "ARRAY" or die "not a list\n";
		print "$_->{path}\n" for @$v' "$1"
}

test_expect_success 'lp-regsplit: names that look like numbers stay strings, files not hidden' '
	regions "prefill=1,000${sep}decode_all=.5${sep}decode_step=007" >ri.tsv &&
	mkdir d && lp-regsplit -d d ri.tsv >index.tsv &&
	ls -A d | sort >files &&
	cat >expect <<-\EOF &&
	007.csv
	007.json
	007.md
	1_000.csv
	1_000.json
	1_000.md
	_5.csv
	_5.json
	_5.md
	EOF
	test_cmp expect files &&
	json_ok d/1_000.json >paths && echo "1,000" >expect && test_cmp expect paths &&
	json_ok d/_5.json >paths && echo ".5" >expect && test_cmp expect paths &&
	json_ok d/007.json >paths && test "$(sort -u paths)" = "decode_all > 007" &&
	test $(wc -l <paths) = 32 &&
	test_grep "\"instance\": 1," d/007.json &&
	test_grep "\"gpu_ns\": 440064992," d/007.json
'

test_expect_success 'lp-regsplit: two regions, one file name: each gets its own' '
	regions "prefill=a b${sep}decode_all=A_B${sep}decode_step=a_b" >ri.tsv &&
	mkdir d && lp-regsplit -d d ri.tsv >index.tsv &&
	cut -f1-3 index.tsv | grep -v "^#" >got &&
	printf "%s\t%s\t%s\n" region instances csv "a b" 1 a_b.csv A_B 1 A_B-2.csv a_b 32 a_b-3.csv >expect &&
	test_cmp expect got &&
	json_ok d/a_b.json >paths && echo "a b" >expect && test_cmp expect paths &&
	json_ok d/A_B-2.json >paths && echo "A_B" >expect && test_cmp expect paths &&
	json_ok d/a_b-3.json | sort -u >paths && echo "decode_all > a_b" >expect && test_cmp expect paths
'

# ncu/regions/ holds ncu's own exports beside the regions' files: d0.csv
# (the depth-0 export) and imp1.csv (an imported one).
test_expect_success 'lp-regsplit: a region named like an export beside it (d0, IMP1) does not take its file' '
	regions "prefill=d0${sep}decode_all=IMP1${sep}decode_step=d7x" >ri.tsv &&
	mkdir d && lp-regsplit -d d ri.tsv >index.tsv &&
	cut -f1,3 index.tsv | grep -v "^#" >got &&
	printf "%s\t%s\n" region csv d0 d0-2.csv IMP1 IMP1-2.csv d7x d7x.csv >expect &&
	test_cmp expect got
'

test_expect_success 'lp-regsplit: a region ending in ">", HTML, bytes that are not UTF-8' '
	regions "prefill=x>${sep}decode_all=<img src=x onerror=alert(1)>$(printf "\377")${sep}decode_step=.." >ri.tsv &&
	mkdir d && lp-regsplit -d d ri.tsv >index.tsv &&
	ls -A d | sort >files &&
	cat >expect <<-\EOF &&
	_..csv
	_..json
	_..md
	_img_src_x_onerror_alert_1___.csv
	_img_src_x_onerror_alert_1___.json
	_img_src_x_onerror_alert_1___.md
	x_.csv
	x_.json
	x_.md
	EOF
	test_cmp expect files &&
	json_ok d/x_.json >paths && echo "x>" >expect && test_cmp expect paths &&
	json_ok d/_img_src_x_onerror_alert_1___.json >paths &&
	printf "<img src=x onerror=alert(1)>\357\277\275\n" >expect && test_cmp expect paths &&
	for f in d/*.md; do md_safe "$f" || return 1; done &&
	test_grep -F "<h1>Region &lt;img src=x onerror=alert(1)&gt;" d/_img_src_x_onerror_alert_1___.md.html
'

test_expect_success 'lp-summary links only to a plain file name' '
	sed "s|^# link: .*|# link: javascript:alert(1)|" "$S2/a/roofline.tsv" >r.tsv &&
	lp-summary r.tsv >r.md && md_safe r.md &&
	! grep -i "javascript:alert(1))" r.md &&
	lp-summary "$S2/a/roofline.tsv" >r.md && test_grep -F "See [roofline.svg](roofline.svg)." r.md
'

# Every name the writers' fuzzers found (tests/fuzz/regress/{md,svg,json}),
# as the top kernel of the real kernels.tsv (escaped as lp's tables escape
# cells; cut at a NUL, as the harnesses cut), through lp-kernmd
kern_named() {
	N=$(perl -0777 -pe 's/\0.*//s; s/\\/\\\\/g; s/\t/\\t/g; s/\n/\\n/g; s/\r/\\r/g' "$1") \
	awk -F'\t' -v OFS='\t' '!h && /^#/ { print; next } !h { h = 1; print; next }
		$1 == 1 { $2 = ENVIRON["N"] } 1' "$S2/a/kernels.tsv"
}
for f in "$ROOT"/tests/fuzz/regress/md/* "$ROOT"/tests/fuzz/regress/svg/* \
	"$ROOT"/tests/fuzz/regress/json/*; do
	[ -f "$f" ] || continue
	test_expect_success "fuzz regression ${f#$ROOT/tests/fuzz/regress/}: lp-kernmd" '
		kern_named "'"$f"'" >k.tsv && lp-kernmd k.tsv >km.tsv && lp-summary km.tsv >k.md && md_safe k.md
	'
done

# GitHub links URLs, www. and e-mail addresses in text and strikes
# ~~text~~ (issue 28: a GPU name from an ncu export became 35 live links in
# the rendered summary): a GPU named so renders as text, with no link but
# lp's own and no emphasis.
test_expect_success 'a GPU name that looks like links, e-mail, strikethrough and emphasis: plain text' '
	mkdir "$TRASH/lk" &&
	for f in "$V2"/torch_*.csv; do
		GNAME="https://evil.example/login?x www.evil.example a@evil.example ~~struck~~ *em* _u_" \
			perl -pe "s/\"NVIDIA H200\"/\"\$ENV{GNAME}\"/g" "$f" >"$TRASH/lk/${f##*/}" || return 1
	done &&
	grep -q "evil.example" "$TRASH/lk/torch_ncu_raw.csv" &&
	make -C "$ROOT" --no-print-directory ${LP_MAKE_ARGS:-} LP_STAGE2_DIR="$S2" RUN=lk \
		"IMPORT=$(echo "$TRASH"/lk/torch_*.csv)" MODEL=torch-decoder stakeholder_summary.md >/dev/null &&
	grep -q "evil" "$S2/lk/details.md" &&
	cmark-gfm -e table -e autolink -e strikethrough "$S2/lk/details.md" >lk.html &&
	! grep -o "<a href=\"[^\"]*evil[^\"]*\"" lk.html &&
	! grep -q "<del>" lk.html &&
	! grep -q "<em>em</em>\|<em>u</em>" lk.html &&
	grep -q "https://evil.example/login?x www.evil.example a@" lk.html
'

test_done
