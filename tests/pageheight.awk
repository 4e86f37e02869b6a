# pageheight.awk: the height in pixels a Markdown page takes on GitHub, from
# cmark-gfm's HTML (cmark-gfm --unsafe -e table FILE | awk -v dir=FOLDER
# -f pageheight.awk), by GitHub's stylesheet at a 1280-pixel window: a
# content column about 830 px wide, 16 px text on 24 px lines (about 100
# characters a line), h1 and h2 with their margins and rules, table rows of
# one or more lines (the row's text over 100 characters less 3 per cell)
# plus 13 px of padding and border, paragraphs and list items wrapped at
# 100 characters (61 beside an image floated right at 320 px), and images:
# an SVG in FOLDER at the width given, its height scaled from its own
# width and height attributes.  An estimate (no browser here), made to
# tell a one-screen brief (under 800 px) from a report of many screens,
# not to the pixel.
function text(s) { gsub(/<[^>]*>/, "", s); gsub(/&[a-z#0-9]+;/, "x", s); return s }
function lines(s, w) { s = text(s); return length(s) == 0 ? 1 : int((length(s) + w - 1) / w) }
function attr(s, a,    m) { return match(s, a "=\"[0-9.]*\"") ? substr(s, RSTART + length(a) + 2, RLENGTH - length(a) - 3) + 0 : 0 }
# the displayed height of <img src=F width=W>: F's own size, scaled
function imgh(tag,    f, l, w, sw, sh) {
	if (!match(tag, /src="[^"]*"/)) return 0
	f = substr(tag, RSTART + 5, RLENGTH - 6); w = attr(tag, "width")
	sw = sh = 0
	while ((getline l < (dir "/" f)) > 0) if (l ~ /<svg/) { sw = attr(l, "width"); sh = attr(l, "height"); break }
	close(dir "/" f)
	if (!sw) return 0
	if (!w || w > 830) w = sw > 830 ? 830 : sw
	return sh * w / sw
}
function add(px) {	# a block; beside a float, it takes the float's height first
	h += px
	if (fl > 0) fl -= px
}
function width() { return fl > 0 ? 61 : 100 }
{ buf = buf $0 "\n" }
END {
	h = 0; fl = 0
	n = split(buf, L, "\n")
	for (i = 1; i <= n; i++) {
		l = L[i]
		if (l ~ /^<h1/) add(24 + 40 * lines(l, 50) + 16 + 10)
		else if (l ~ /^<h2/) add(24 + 30 * lines(l, 66) + 16 + 10)
		else if (l ~ /^<h3/) add(24 + 25 * lines(l, 80) + 16)
		else if (l ~ /^<tr>/) {
			row = ""
			while (i < n && L[i] !~ /<\/tr>/) { row = row L[i]; i++ }
			row = row L[i]
			m = split(row, C, /<\/t[dh]>/)
			add(24 * lines(row, width() - 3 * (m - 1)) + 13)
		}
		else if (l ~ /^<\/table>/) add(16)
		else if (l ~ /^<li/) add(24 * lines(l, width() - 4) + 4)
		else if (l ~ /^<\/[ou]l>/) add(16)
		else if (l ~ /^<p/) {
			p = l
			while (p !~ /<\/p>/ && i < n) { i++; p = p " " L[i] }
			if (p ~ /<img [^>]*align="right"/) { fl = imgh(p); continue }
			if (p ~ /^<p><img /) { add(imgh(p) + 16); continue }
			add(24 * lines(p, width()) + 16)
		}
	}
	if (fl > 0) h += fl
	print int(h)
}
