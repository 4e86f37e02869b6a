/* UTF-8 as RFC 3629 has it: what the writers of each output format check
 * names against before they pass them on. */
#include "esc.h"

size_t
lp_utf8_dec(const char *str, long *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;
	long c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return s[0] ? 1 : 0;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)	/* no surrogates */
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)	/* nothing above U+10FFFF */
			hi = 0x8f;
	} else
		goto bad;
	for (i = 1; i < n; i++) {
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			goto bad;
		c = c << 6 | (s[i] & 0x3f);
	}
	*cp = c;
	return n;
bad:
	*cp = -1;
	return 1;
}
