# pageheight.awk: the height in pixels a Markdown page takes on GitHub, from
# cmark-gfm's HTML (cmark-gfm -e table FILE | awk -f pageheight.awk), by
# GitHub's stylesheet at a 1280-pixel window: a content column about 830 px
# wide, 16 px text on 24 px lines (about 100 characters a line), h1 and h2
# with their margins and rules, table rows of one or more lines (the
# row's text over 100 characters less 3 per cell) plus 13 px of padding
# and border, paragraphs and list items wrapped at 100
# characters.  An estimate (no browser here), made to tell a one-screen
# brief (under 800 px) from a report of many screens, not to the pixel.
function text(s) { gsub(/<[^>]*>/, "", s); gsub(/&[a-z#0-9]+;/, "x", s); return s }
function lines(s, w) { s = text(s); return length(s) == 0 ? 1 : int((length(s) + w - 1) / w) }
{ buf = buf $0 "\n" }
END {
	h = 0
	n = split(buf, L, "\n")
	for (i = 1; i <= n; i++) {
		l = L[i]
		if (l ~ /^<h1/) h += 24 + 40 * lines(l, 50) + 16 + 10
		else if (l ~ /^<h2/) h += 24 + 30 * lines(l, 66) + 16 + 10
		else if (l ~ /^<h3/) h += 24 + 25 * lines(l, 80) + 16
		else if (l ~ /^<tr>/) {
			row = ""
			while (i < n && L[i] !~ /<\/tr>/) { row = row L[i]; i++ }
			row = row L[i]
			# the browser gives long cells the width: a row wraps when
			# its cells' text with their padding passes 100 characters
			m = split(row, C, /<\/t[dh]>/)
			h += 24 * lines(row, 100 - 3 * (m - 1)) + 13
		}
		else if (l ~ /^<\/table>/) h += 16
		else if (l ~ /^<li/) h += 24 * lines(l, 96) + 4
		else if (l ~ /^<\/[ou]l>/) h += 16
		else if (l ~ /^<p/) {
			p = l
			while (p !~ /<\/p>/ && i < n) { i++; p = p " " L[i] }
			if (p ~ /^<p><a href="[^"]*"><img [^>]*align="right"/) continue	# floats beside
			h += 24 * lines(p, 100) + 16
		}
	}
	print h
}
