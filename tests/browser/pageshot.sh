#!/bin/sh
# tests/browser/pageshot.sh DOC.md [OUT.png]: the height in pixels of a
# Markdown report as a browser draws it at GitHub's width, printed on
# stdout, and a screenshot of its first 1280x800 screen with OUT.png.
# cmark-gfm makes the HTML (GitHub's own Markdown, with its tables and raw
# HTML), github-markdown-css (tests/browser, MIT) styles it as GitHub does
# (an article 980 px wide at most, 45 px padding, in a 1280 px window), and
# headless Chromium lays it out with the report's own images beside it.
# Exit 2 when cmark-gfm or chromium is missing (.ci/run installs both, and
# fonts-liberation for GitHub's Helvetica and Arial).
doc=$1 png=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v cmark-gfm >/dev/null || { echo "pageshot: no cmark-gfm" >&2; exit 2; }
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome) ||
	{ echo "pageshot: no chromium" >&2; exit 2; }
[ -f "$doc" ] || { echo "pageshot: $doc: no such file" >&2; exit 2; }
dir=$(cd "$(dirname "$doc")" && pwd)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
{
	printf '<!DOCTYPE html><html><head><meta charset="utf-8">'
	printf '<base href="file://%s/">' "$dir"
	printf '<link rel="stylesheet" href="file://%s/github-markdown-light.css">' "$here"
	# GitHub's fonts from its own list (Helvetica, Arial: Liberation Sans
	# on Debian), named alone so that a machine with Noto Sans measures the same
	printf '<style>body { margin: 0 } .markdown-body { box-sizing: border-box; max-width: 980px; margin: 0 auto; padding: 45px; font-family: Helvetica, Arial, sans-serif }</style>'
	printf '</head><body><article class="markdown-body" id="doc">\n'
	cmark-gfm --unsafe -e table "$doc"
	printf '</article><script>window.addEventListener("load", function () {'
	printf ' var d = document.getElementById("doc"), c = d.children, p = "";'
	printf ' for (var i = 0; i < c.length; i++) p += " " + c[i].tagName + "@" + Math.round(c[i].getBoundingClientRect().top) + "+" + Math.round(c[i].getBoundingClientRect().height);'
	printf ' document.title = "height=" + Math.ceil(d.getBoundingClientRect().height) + " parts=" + p; });'
	printf '</script></body></html>\n'
} >"$tmp/page.html" || exit 2
run() {
	# HOME: chromium writes its profile there; no sandbox as root in CI
	HOME=$tmp timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
		--allow-file-access-from-files --hide-scrollbars --window-size=1280,800 \
		--virtual-time-budget=5000 "$@" "file://$tmp/page.html" 2>"$tmp/err"
}
# the DOM and, with OUT.png, the screenshot from one Chromium (a start
# is most of its CPU); one that writes no screenshot beside the DOM is
# run again for it
run --dump-dom ${png:+--screenshot="$tmp/shot.png"} >"$tmp/dom" ||
	{ echo "pageshot: chromium failed" >&2; tail -5 "$tmp/err" >&2; exit 1; }
h=$(sed -n 's/.*<title>height=\([0-9]*\) parts=.*<\/title>.*/\1/p' "$tmp/dom")
# PAGESHOT_PARTS=1: each block's top and height on stderr, to see where
# the height goes
[ -z "$PAGESHOT_PARTS" ] || sed -n 's/.*<title>height=[0-9]* parts= *\(.*\)<\/title>.*/\1/p' "$tmp/dom" >&2
[ -n "$h" ] || { echo "pageshot: chromium gave no height" >&2; tail -5 "$tmp/err" >&2; exit 1; }
if [ -n "$png" ]; then
	{ test -s "$tmp/shot.png" || run --screenshot="$tmp/shot.png" >/dev/null; } &&
		mv "$tmp/shot.png" "$png" || { echo "pageshot: no screenshot" >&2; exit 1; }
fi
echo "$h"
