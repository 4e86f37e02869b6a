/* YAML configs (yml.c): loaded, looked into, merged and written back. */
#include "fuzz.h"
#include "util.h"
#include "table.h"

static char *buf;
static size_t len;

static void
out_gone(void *fp)
{
	fclose(fp);
	free(buf);
	buf = NULL;
}

static void
yaml(FILE *fp)
{
	struct lp_ynode *n = lp_yaml_load(fp, "in"), *m;
	FILE *out;

	lp_yaml_str(n, "run.mode", "");
	lp_yaml_get(n, "stages.decode_step.range");
	if (n->type == LP_Y_MAP) {
		m = lp_yaml_map();
		lp_yaml_merge(m, n);	/* frees n */
		n = m;
	}
	if ((out = open_memstream(&buf, &len))) {
		LP_DEFER(out_gone, out);
		lp_yaml_emit(out, n, "lp fuzz");
		LP_UNDEFER();
		out_gone(out);
	}
	lp_yaml_free(n);
}

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	fuzz_run(yaml, data, size);
	return 0;
}
