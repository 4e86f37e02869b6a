/*
 * PyTorch operator ranges, as nsys profile --pytorch=autograd-shapes-nvtx
 * pushes them (seen with nsys 2025.3.1 and torch 2.11 on an H100):
 *   ":aten::addmm, op_id = 568, sizes = [[2304], [64, 768], [768, 2304],
 *    [], []], input_op_ids = [(141,0), (567,0), (140,0), (0,-1), (0,-1)]"
 *   ":aten::to, seq = 0, op_id = 308, sizes = [[32], [], [], [], []], ..."
 *   ":torchvision::_cuda_version, op_id = 1"
 *   ":detach, op_id = 13, sizes = [[50257, 768]], input_op_ids = [(11,0)]"
 * op_id (and seq, input_op_ids) differ on every call; the op and its
 * input sizes are what one call has in common with another.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "aten.h"

/* "ns::name": identifier characters around one "::"; or a name without a
 * namespace (":detach, op_id = 13, ...", ":detach_": autograd's own), which
 * lp_aten_parse takes only with an op_id after it */
static size_t
opname(const char *s)
{
	size_t i = 0, j, sep = 0;

	for (;;) {
		for (j = i; isalnum((unsigned char)s[i]) || s[i] == '_' ||
		    s[i] == '.'; i++)
			;
		if (i == j)
			return 0;
		if (s[i] != ':' || s[i + 1] != ':')
			break;
		sep++;
		i += 2;
	}
	return sep <= 1 ? i : 0;
}

/* The value after "key = ": bracketed (balanced) or up to the next ','. */
static size_t
value(const char *s)
{
	size_t i = 0;
	int depth = 0;

	if (*s != '[' && *s != '(') {
		while (s[i] && s[i] != ',')
			i++;
		return i;
	}
	do {
		if (s[i] == '[' || s[i] == '(')
			depth++;
		else if (s[i] == ']' || s[i] == ')')
			depth--;
		else if (!s[i])
			return 0;
		i++;
	} while (depth > 0);
	return i;
}

int
lp_aten_parse(const char *name, struct lp_sb *op, struct lp_sb *shapes)
{
	const char *s = name + (name[0] == ':');
	size_t n = opname(s), k, v;
	int have_id = 0;

	if (!n)
		return 0;
	if (op) {
		lp_sb_reset(op);
		lp_sb_addn(op, s, n);
	}
	if (shapes)
		lp_sb_reset(shapes);
	for (s += n; *s; s += v) {
		if (strncmp(s, ", ", 2))
			return 0;
		s += 2;
		for (k = 0; islower((unsigned char)s[k]) || s[k] == '_'; k++)
			;
		if (!k || strncmp(s + k, " = ", 3))
			return 0;
		if (!(v = value(s + k + 3)))
			return 0;
		if (k == 5 && !strncmp(s, "op_id", 5))
			have_id = 1;
		if (k == 5 && !strncmp(s, "sizes", 5) && shapes)
			lp_sb_addn(shapes, s + k + 3, v);
		v += k + 3;
	}
	return have_id;
}

int
lp_aten_is_op(const char *name)
{
	return lp_aten_parse(name, NULL, NULL);
}

enum { MAXT = 8, MAXD = 8 };

/* "[[2304], [64, 768], []]" -> dims of each tensor (-1 dims: not a list;
 * -2: a size past 2^63 - 1, which strtol would clamp) */
static int
dims(const char *s, long d[MAXT][MAXD], int nd[MAXT])
{
	int t = 0;
	char *end;

	if (*s++ != '[')
		return -1;
	while (*s && *s != ']' && t < MAXT) {
		nd[t] = 0;
		if (*s != '[')
			return -1;
		for (s++; *s != ']'; ) {
			long x;

			errno = 0;
			x = strtol(s, &end, 10);
			if (end != s && errno == ERANGE)
				return -2;
			if (end == s || x < 0 || nd[t] == MAXD)
				return -1;
			d[t][nd[t]++] = x;
			s = end;
			if (*s == ',')
				s += 1 + (s[1] == ' ');
			else if (*s != ']')
				return -1;
		}
		t++;
		s++;
		if (*s == ',')
			s += 1 + (s[1] == ' ');
	}
	return t;
}

static double
prod(const long *d, int n)
{
	double p = 1;
	int i;

	for (i = 0; i < n; i++)
		p *= (double)d[i];
	return p;
}

/* The largest value a run can hold (lp_num_bad): 1e18 FLOPs in one call
 * is some 1000 s of an H100's dense peak. */
#define FLOP_MAX 1e18

const char *
lp_aten_check(const char *op, const char *shapes)
{
	static char why[160];
	long d[MAXT][MAXD];
	int nd[MAXT], nt, i;
	double f;
	const char *w;

	if ((nt = dims(shapes, d, nd)) == -2)
		return "a size past 2^63 - 1: PyTorch sizes are 64-bit, so "
		    "none is that large";
	for (i = 0; i < nt; i++)
		if (prod(d[i], nd[i]) > (double)INT64_MAX)
			return "a tensor of more than 2^63 - 1 elements: PyTorch "
			    "counts elements in 64 bits";
	if (lp_aten_2mnk(op, shapes, &f, &w) && f > FLOP_MAX) {
		snprintf(why, sizeof why, "2MNK of one call would be %.3g FLOPs,"
		    " beyond 1e18, more than any run holds", f);
		return why;
	}
	return NULL;
}

int
lp_aten_2mnk(const char *op, const char *shapes, double *flops,
    const char **why)
{
	long d[MAXT][MAXD];
	int nd[MAXT], nt, a = 0, b = 1;
	double bat = 1, m, k, n;

	*flops = 0;
	*why = "not a matrix product";
	if (strcmp(op, "aten::mm") && strcmp(op, "aten::addmm") &&
	    strcmp(op, "aten::bmm") && strcmp(op, "aten::linear") &&
	    strcmp(op, "aten::matmul"))
		return 0;
	*why = "the range records no input sizes";
	nt = dims(shapes, d, nd);
	if (!strcmp(op, "aten::addmm"))
		a = 1, b = 2;
	if (nt <= b) {
		*why = "fewer input sizes than the operation takes";
		return 0;
	}
	*why = "input sizes that do not multiply as matrices";
	if (!strcmp(op, "aten::linear")) {
		/* input [..., K], weight [N, K] */
		if (nd[a] < 1 || nd[b] != 2 || d[a][nd[a] - 1] != d[b][1])
			return 0;
		m = prod(d[a], nd[a] - 1), k = (double)d[b][1], n = (double)d[b][0];
	} else if (nd[a] >= 2 && nd[b] == 2 && strcmp(op, "aten::bmm")) {
		/* [.., M, K] x [K, N]: the leading dims are rows too */
		if (d[a][nd[a] - 1] != d[b][0] || (nd[a] > 2 &&
		    strcmp(op, "aten::matmul")))
			return 0;
		m = prod(d[a], nd[a] - 1), k = (double)d[b][0], n = (double)d[b][1];
	} else if (nd[a] >= 3 && nd[a] == nd[b] && (strcmp(op, "aten::bmm") ||
	    nd[a] == 3)) {
		/* [B.., M, K] x [B.., K, N], batch dims equal */
		if (memcmp(d[a], d[b], sizeof d[a][0] * (size_t)(nd[a] - 2)) ||
		    d[a][nd[a] - 1] != d[b][nd[b] - 2])
			return 0;
		bat = prod(d[a], nd[a] - 2);
		m = (double)d[a][nd[a] - 2], k = (double)d[a][nd[a] - 1];
		n = (double)d[b][nd[b] - 1];
	} else
		return 0;
	*flops = 2 * bat * m * n * k;
	*why = NULL;
	return 1;
}
