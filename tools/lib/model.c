/*
 * A model's numbers, as lp-inputs copied them from conf/model/NAME.yaml into
 * inputs.yaml, and the two estimates built on them: the FLOPs a stage must
 * do (MFU) and the bytes a decode step must read (MBU).  The formulas are in
 * lp-mfu(1) and lp-mbu(1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "table.h"
#include "run.h"

static double
bytes_of(const char *dtype)
{
	static const struct { const char *d; double b; } m[] = {
		{ "fp64", 8 }, { "fp32", 4 }, { "tf32", 4 }, { "fp16", 2 },
		{ "bf16", 2 }, { "fp8", 1 }, { "int8", 1 }, { "int4", 0.5 },
	};
	size_t i;

	for (i = 0; dtype && i < sizeof m / sizeof m[0]; i++)
		if (!strcmp(dtype, m[i].d))
			return m[i].b;
	return 0;
}

static const struct lp_ynode *
scalar(const struct lp_ynode *inputs, const char *key, const char *file)
{
	struct lp_sb b = { 0 };
	const struct lp_ynode *n;

	lp_sb_printf(&b, "model.%s", key);
	n = inputs ? lp_yaml_get(inputs, lp_sb_str(&b)) : NULL;
	lp_sb_free(&b);
	if (n && n->type != LP_Y_SCALAR)
		lp_die_at(LP_EXIT_DATA, file, n->line, 0, "model.%s: expected a "
		    "value, got a %s", key, n->type == LP_Y_MAP ? "mapping" :
		    "list");
	if (!n || (!n->quoted && !strcmp(n->s, "null")))
		return NULL;
	return n;
}

/* A count or size: a whole number >= 0 (> 0 where zero makes no sense),
 * as a model has them, within what a double holds exactly. */
static int
get(const struct lp_ynode *inputs, const char *key, double *v, int positive,
    struct lp_sb *missing, const char *file)
{
	const struct lp_ynode *n = scalar(inputs, key, file);

	if (!n) {
		lp_sb_printf(missing, "%smodel.%s", missing->len ? ", " : "", key);
		return 0;
	}
	if (!lp_num_get(n->s, v) || *v < 0 || (positive && *v == 0) ||
	    *v != floor(*v) || *v > 9007199254740992.0)
		lp_die_at(LP_EXIT_DATA, file, n->line, 0, "model.%s: expected a "
		    "whole number %s, got \"%s\"", key, positive ? "above 0" :
		    "from 0", n->s);
	return 1;
}

void
lp_model_get(struct lp_model *m, const struct lp_ynode *inputs,
    const char *file)
{
	struct lp_sb miss = { 0 }, ignore = { 0 };
	const struct lp_ynode *n;

	memset(m, 0, sizeof *m);
	m->name = (n = scalar(inputs, "name", file)) ? n->s : NULL;
	m->dtype = (n = scalar(inputs, "dtype", file)) ? n->s : NULL;
	get(inputs, "params", &m->params, 1, &miss, file);
	get(inputs, "layers", &m->layers, 1, &miss, file);
	get(inputs, "hidden", &m->hidden, 1, &miss, file);
	get(inputs, "batch", &m->batch, 1, &miss, file);
	get(inputs, "prompt_tokens", &m->prompt, 0, &miss, file);
	get(inputs, "decode_tokens", &m->decode, 0, &miss, file);
	if (!get(inputs, "heads", &m->heads, 1, &ignore, file))
		m->heads = 0;
	if (!get(inputs, "kv_heads", &m->kv_heads, 1, &ignore, file))
		m->kv_heads = m->heads;
	if (!get(inputs, "vocab", &m->vocab, 1, &ignore, file))
		m->vocab = 0;
	n = scalar(inputs, "prefill_logits", file);
	if (n && !strcmp(n->s, "last")) {
		m->logits_last = 1;
		if (!m->vocab)
			lp_sb_printf(&miss, "%smodel.vocab (prefill_logits: "
			    "last)", miss.len ? ", " : "");
		else if (m->params && m->vocab * m->hidden > m->params)
			lp_die_at(LP_EXIT_DATA, file, n->line, 0,
			    "model.vocab x model.hidden (%.0f) exceeds "
			    "model.params (%.0f): the LM head is part of params",
			    m->vocab * m->hidden, m->params);
	} else if (n && strcmp(n->s, "all"))
		lp_die_at(LP_EXIT_DATA, file, n->line, 0,
		    "model.prefill_logits: expected \"last\" or \"all\", "
		    "got \"%s\"", n->s);
	if (m->heads && m->kv_heads > m->heads)
		lp_die_at(LP_EXIT_DATA, file, scalar(inputs, "kv_heads",
		    file)->line, 0, "model.kv_heads (%.0f) above model.heads "
		    "(%.0f)", m->kv_heads, m->heads);
	if (!m->dtype)
		lp_sb_printf(&miss, "%smodel.dtype", miss.len ? ", " : "");
	else if (!(m->dtype_bytes = bytes_of(m->dtype)))
		lp_sb_printf(&miss, "%sa known model.dtype (not \"%s\")",
		    miss.len ? ", " : "", m->dtype);
	n = scalar(inputs, "kv_dtype", file);
	m->kv_bytes = n ? bytes_of(n->s) : m->dtype_bytes;
	if (n && !m->kv_bytes)
		lp_sb_printf(&miss, "%sa known model.kv_dtype (not \"%s\")",
		    miss.len ? ", " : "", n->s);
	m->missing = miss.len ? lp_sb_steal(&miss) : NULL;
	lp_sb_free(&miss);
	lp_sb_free(&ignore);
}

void
lp_model_free(struct lp_model *m)
{
	free(m->missing);
	memset(m, 0, sizeof *m);
}

double
lp_model_flops(const struct lp_model *m, const char *stage)
{
	double N = m->params, L = m->layers, d = m->hidden, B = m->batch;
	double P = m->prompt, T = m->decode, head = m->vocab * d;
	double dec = B * (2 * N * T + 4 * L * d * (P * T + T * (T - 1) / 2));

	if (!strcmp(stage, "prefill") && m->logits_last && P > 0)
		return B * (2 * (N - head) * P + 2 * head + 2 * L * d * P * P);
	if (!strcmp(stage, "prefill"))
		return B * (2 * N * P + 2 * L * d * P * P);
	if (!strcmp(stage, "decode_all"))
		return dec;
	if (!strcmp(stage, "decode_step"))
		return T > 0 ? dec / T : 0;
	return 0;
}

double
lp_model_step_bytes(const struct lp_model *m, double *weights, double *kv)
{
	double kvdim = m->heads > 0 ? m->hidden * m->kv_heads / m->heads :
	    m->hidden;

	*weights = m->params * m->dtype_bytes;
	*kv = 2 * m->layers * m->batch * kvdim * m->kv_bytes *
	    (m->prompt + (m->decode + 1) / 2);
	return *weights + *kv;
}
