/*
 * XML 1.0 text and attribute values (roofline.svg): markup characters as
 * entities, and what XML forbids in a document (bytes that are not UTF-8,
 * control characters, U+FFFE, U+FFFF) as U+FFFD, so that any name makes a
 * well-formed document.  Tabs and line ends become spaces.
 */
#include "util.h"
#include "esc.h"

void
lp_xml_text(struct lp_sb *b, const char *s)
{
	long c;
	size_t n;

	for (; *s; s += n) {
		n = lp_utf8_dec(s, &c);
		switch (c) {
		case '&': lp_sb_adds(b, "&amp;"); break;
		case '<': lp_sb_adds(b, "&lt;"); break;
		case '>': lp_sb_adds(b, "&gt;"); break;
		case '"': lp_sb_adds(b, "&quot;"); break;
		case '\'': lp_sb_adds(b, "&apos;"); break;
		case '\t': case '\n': case '\r': lp_sb_addc(b, ' '); break;
		default:
			if (c < 0x20 || c == 0xfffe || c == 0xffff)
				lp_sb_adds(b, "\xef\xbf\xbd");
			else
				lp_sb_addn(b, s, n);
		}
	}
}
