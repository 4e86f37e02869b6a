/*
 * The JSON writers (json.c) of env.json and the region files: a name in,
 * [{"name": NAME, "value": NAME as a cell of a column of numbers}] out,
 * read back by json-c in its strict mode with UTF-8 checked.  Any bytes
 * must give valid JSON holding the name (bytes that are not UTF-8 as
 * U+FFFD), and the value must be a number exactly when lp_json_isnum says
 * so.
 */
#include <string.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "util.h"
#include "esc.h"

static void
fail(const char *why, const char *doc)
{
	fprintf(stderr, "fuzz_json: %s in:\n%s\n", why, doc);
	abort();
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct json_tokener *tok;
	struct lp_sb name = { 0 }, want = { 0 };
	char *doc = NULL;
	size_t len = 0, n;
	struct json_object *o, *e, *v;
	const char *s;
	long c;
	FILE *fp;

	if (!tok) {
		tok = json_tokener_new();
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
		    JSON_TOKENER_VALIDATE_UTF8);
	}
	lp_sb_addn(&name, (const char *)data, strnlen((const char *)data, size));
	for (s = lp_sb_str(&name); *s; s += n) {
		n = lp_utf8_dec(s, &c);
		if (c < 0)
			lp_sb_adds(&want, "\xef\xbf\xbd");
		else
			lp_sb_addn(&want, s, n);
	}
	s = lp_sb_str(&name);
	if (!(fp = open_memstream(&doc, &len)))
		abort();
	fputs("[{\"name\": ", fp);
	lp_json_str(fp, s);
	fputs(", \"value\": ", fp);
	lp_json_val(fp, s, 1);
	fputs("}]", fp);
	fclose(fp);

	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, doc, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success)
		fail("not valid JSON", doc);
	if (json_tokener_get_parse_end(tok) != len)
		fail("more than one value", doc);
	e = json_object_array_get_idx(o, 0);
	if (!json_object_object_get_ex(e, "name", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) != want.len ||
	    memcmp(json_object_get_string(v), lp_sb_str(&want), want.len))
		fail("the name is not the name", doc);
	if (!json_object_object_get_ex(e, "value", &v))
		fail("no value", doc);
	if (lp_json_isnum(s) != (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double)))
		fail("a number that is not one, or the other way", doc);
	json_object_put(o);
	free(doc);
	lp_sb_free(&name);
	lp_sb_free(&want);
	if (lp_fuzz_live())
		fail("a block left allocated", "");
	return 0;
}
