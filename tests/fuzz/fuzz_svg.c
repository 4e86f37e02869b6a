/*
 * The XML writer (xml.c) of roofline.svg: a name in, an SVG with the name
 * as text and as an attribute value out, read back by libxml2.  Any bytes
 * must give a well-formed document holding the name (bytes that are not
 * UTF-8 and what XML forbids as U+FFFD, tabs and line ends as spaces).
 */
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "fuzz.h"
#include "util.h"
#include "esc.h"

static void
clean(struct lp_sb *b, const char *s)
{
	long c;
	size_t n;

	for (; *s; s += n) {
		n = lp_utf8_dec(s, &c);
		if (c == '\t' || c == '\n' || c == '\r')
			lp_sb_addc(b, ' ');
		else if (c < 0x20 || c == 0xfffe || c == 0xffff)
			lp_sb_adds(b, "\xef\xbf\xbd");
		else
			lp_sb_addn(b, s, n);
	}
}

static void
fail(const char *why, const char *doc)
{
	fprintf(stderr, "fuzz_svg: %s in:\n%s\n", why, doc);
	abort();
}

static void
quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct lp_sb name = { 0 }, doc = { 0 }, want = { 0 };
	xmlDocPtr x;
	xmlNodePtr svg, text;
	xmlChar *got;
	const char *s;

	xmlSetGenericErrorFunc(NULL, quiet);
	lp_sb_addn(&name, (const char *)data, strnlen((const char *)data, size));
	s = lp_sb_str(&name);
	lp_sb_adds(&doc, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\"><text class=\"");
	lp_xml_text(&doc, s);
	lp_sb_adds(&doc, "\">");
	lp_xml_text(&doc, s);
	lp_sb_adds(&doc, "</text></svg>\n");
	clean(&want, s);

	x = xmlReadMemory(lp_sb_str(&doc), (int)doc.len, "roofline.svg", NULL,
	    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!x)
		fail("not well-formed", lp_sb_str(&doc));
	svg = xmlDocGetRootElement(x);
	text = svg ? svg->children : NULL;
	if (!text || text->type != XML_ELEMENT_NODE || text->next)
		fail("not one <text>", lp_sb_str(&doc));
	got = xmlNodeGetContent(text);
	if (!got || strcmp((const char *)got, lp_sb_str(&want)))
		fail("the text is not the name", lp_sb_str(&doc));
	xmlFree(got);
	got = xmlGetProp(text, (const xmlChar *)"class");
	if (!got || strcmp((const char *)got, lp_sb_str(&want)))
		fail("the attribute is not the name", lp_sb_str(&doc));
	xmlFree(got);
	xmlFreeDoc(x);
	lp_sb_free(&name);
	lp_sb_free(&doc);
	lp_sb_free(&want);
	if (lp_fuzz_live())
		fail("a block left allocated", "");
	return 0;
}
