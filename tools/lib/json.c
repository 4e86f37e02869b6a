/* The JSON that env.json needs: strings, escaped per RFC 8259. */
#include "lp.h"

void
lp_json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"': fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\r': fputs("\\r", fp); break;
		case '\t': fputs("\\t", fp); break;
		default:
			if (c < 0x20)
				fprintf(fp, "\\u%04x", c);
			else
				fputc(c, fp);
		}
	}
	fputc('"', fp);
}
