/*
 * Kernel names across tools.  nsys and ncu demangle the same symbol
 * differently: nsys keeps casts and namespaces ("internal::gemvx::kernel<
 * ..., (bool)0, ...>"), ncu drops them ("internal::kernel<..., 0, ...>").
 * lp joins on mangled names; when only demangled ones exist, this key is
 * the fallback, and callers accept a match only when it is unique.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "esc.h"
#include "table.h"

static int
idstart(int c)
{
	return isalpha(c) || c == '_';
}

static int
idchar(int c)
{
	return isalnum(c) || c == '_';
}

/* At '(': length of a cast like "(bool)" or "(unsigned long)" that is
 * followed by a number, else 0. */
static size_t
cast_len(const char *s)
{
	size_t i = 1;

	if (!idstart((unsigned char)s[1]))
		return 0;
	while (idchar((unsigned char)s[i]) || s[i] == ' ' || s[i] == ':')
		i++;
	if (s[i] != ')')
		return 0;
	i++;
	if (isdigit((unsigned char)s[i]) ||
	    (s[i] == '-' && isdigit((unsigned char)s[i + 1])))
		return i;
	return 0;
}

char *
lp_kname_key(const char *name)
{
	struct lp_sb b = { 0 };
	const char *s = name;
	int space = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (!strncmp(s, "void ", 5))
		s += 5;
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n;

		if (isspace(c)) {
			space = 1;
			s++;
			continue;
		}
		if (space && b.len)
			lp_sb_addc(&b, ' ');
		space = 0;
		if (c == '(' && (n = cast_len(s))) {
			s += n;		/* "(bool)0" becomes "0" */
			continue;
		}
		/* anonymous namespaces, as each tool spells them */
		if (!strncmp(s, "<unnamed>::", 11)) {
			s += 11;
			continue;
		}
		if (!strncmp(s, "(anonymous namespace)::", 23)) {
			s += 23;
			continue;
		}
		if (idstart(c)) {
			const char *e = s;

			while (idchar((unsigned char)*e))
				e++;
			if (e[0] == ':' && e[1] == ':') {
				s = e + 2;	/* drop "ns::" */
				continue;
			}
			lp_sb_addn(&b, s, (size_t)(e - s));
			s = e;
			continue;
		}
		lp_sb_addc(&b, c);
		s++;
	}
	return lp_sb_steal(&b);
}

/* Copies s with the insides of bracket pairs open..close deeper than keep
 * levels replaced by "..." (keep 0: everything inside the outermost). */
static void
fold(struct lp_sb *b, const char *s, char open, char close, int keep)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == open) {
			if (depth++ == keep) {
				lp_sb_addc(b, open);
				lp_sb_adds(b, "...");
			} else if (depth <= keep)
				lp_sb_addc(b, open);
		} else if (*s == close && depth > 0) {
			if (--depth <= keep)
				lp_sb_addc(b, close);
		} else if (depth <= keep)
			lp_sb_addc(b, *s);
	}
	while (depth-- > keep)
		lp_sb_addc(b, close);
}

/* ---- the operation of a PyTorch elementwise, reduce or copy kernel ---- */

/* Functors that only wrap the operation ("BinaryFunctor<..., MulFunctor<
 * float>>"): the operation is the one inside. */
static const char *const wrapper_functors[] = {
	"BinaryFunctor", "AUnaryFunctor", "BUnaryFunctor", "UnaryFunctor",
	"ReduceOp", "OffsetCalculator", "TrivialOffsetCalculator", NULL
};

static int
ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && !strncmp(s + n - k, suf, k);
}

/* Does s[0..n) hold sub? */
static int
has(const char *s, size_t n, const char *sub)
{
	size_t k = strlen(sub), i;

	for (i = 0; i + k <= n; i++)
		if (!strncmp(s + i, sub, k))
			return 1;
	return 0;
}

/* The last identifier of s that names a functor or reduction ("MulFunctor",
 * "CUDAFunctor_add", "FillFunctor", "ArgMaxOps"), wrappers skipped. */
static char *
functor_of(const char *s)
{
	const char *p = s, *best = NULL;
	size_t bestn = 0;

	while (*p) {
		const char *e = p;
		size_t n, i;
		int wrap = 0;

		if (!idstart((unsigned char)*p) || (p > s && idchar((unsigned
		    char)p[-1]))) {
			p++;
			continue;
		}
		while (idchar((unsigned char)*e))
			e++;
		n = (size_t)(e - p);
		for (i = 0; wrapper_functors[i]; i++)
			if (n == strlen(wrapper_functors[i]) &&
			    !strncmp(p, wrapper_functors[i], n))
				wrap = 1;
		/* a class, not a namespace: "ArgMaxOps<" not "ops::" */
		if (!wrap && *e != ':' && (ends_with(p, n, "Ops") ||
		    ends_with(p, n, "Functor") || has(p, n, "Functor_") ||
		    has(p, n, "FunctorOnSelf_"))) {
			best = p;
			bestn = n;
		}
		p = e;
	}
	return best ? lp_xstrndup(best, bestn) : NULL;
}

/* The function whose lambda the kernel runs: "direct_copy_kernel_cuda(
 * at::TensorIteratorBase &)::[lambda() ..." -> "direct_copy". */
static char *
lambda_of(const char *s)
{
	static const char *const suffix[] = {
		"_kernel_cuda", "_kernel_impl", "CUDAKernelImpl", "_kernel",
		"_cuda_out", "_cuda", "_impl", "_functor", NULL
	};
	/* the launchers' own lambdas wrap the operation: look further */
	static const char *const launcher[] = {
		"gpu_kernel_impl", "gpu_kernel_impl_nocast", "gpu_kernel",
		"gpu_kernel_with_scalars", "opmath_gpu_kernel_with_scalars",
		"launch_kernel", NULL
	};
	const char *l = s, *p;
	size_t n, i;
	int d, skip;

	while ((l = strstr(l, ")::[lambda"))) {
		/* back to the '(' of the function's parameters */
		for (d = 0, p = l; p > s; p--) {
			if (*p == ')')
				d++;
			else if (*p == '(' && --d == 0)
				break;
		}
		/* a functor's call operator ("sum_functor<float, float,
		 * float>::operator ()(at::TensorIterator &)::[lambda"): the
		 * functor names the operation */
		if (p - s > 13 && !strncmp(p - 13, "::operator ()", 13))
			p -= 13;
		if (p > s && p[-1] == '>') {	/* its own template arguments */
			d = 0;
			for (p--; p > s; p--) {
				if (*p == '>')
					d++;
				else if (*p == '<' && --d == 0)
					break;
			}
		}
		for (n = 0; p > s && idchar((unsigned char)p[-1]); p--)
			n++;
		l++;
		for (skip = 0, i = 0; launcher[i]; i++)
			skip |= n == strlen(launcher[i]) && !strncmp(p,
			    launcher[i], n);
		if (!n || skip)
			continue;
		if (n > 7 && !strncmp(p, "launch_", 7)) {
			p += 7;
			n -= 7;
		}
		for (i = 0; suffix[i]; i++)
			if (ends_with(p, n, suffix[i]) && n > strlen(suffix[i])) {
				n -= strlen(suffix[i]);
				break;
			}
		return lp_xstrndup(p, n);
	}
	return NULL;
}

/* PyTorch's kernel templates that run an operation given as an argument. */
static int
op_template(const char *base)
{
	static const char *const t[] = {
		"elementwise_kernel", "vectorized_elementwise_kernel",
		"unrolled_elementwise_kernel", "elementwise_kernel_with_index",
		"reduce_kernel", "distribution_elementwise_grid_stride_kernel",
		"distribution_nullary_kernel", "index_elementwise_kernel",
		"vectorized_templated_elementwise_kernel", NULL
	};
	const char *c = strrchr(base, ':');
	size_t i;

	c = c ? c + 1 : base;
	for (i = 0; t[i]; i++)
		if (!strcmp(c, t[i]))
			return 1;
	return 0;
}

char *
lp_kname_op(const char *name)
{
	char *b = lp_kname_base(name), *op = NULL;

	if (op_template(b)) {
		/* a lambda's function names the operation better than the
		 * functor that carries it ("gpu_kernel_impl<...>") */
		op = lambda_of(name);
		if (!op)
			op = functor_of(name);
	}
	free(b);
	return op;
}

/* The name as a table shows it when nothing collides: whole when it fits,
 * else templates folded, then parameters, then cut with "..."; a PyTorch
 * elementwise, reduce or copy kernel led by its operation. */
static void
plain_short(struct lp_sb *b, const char *name, size_t max);

static void
short_name(struct lp_sb *b, const char *name, size_t max)
{
	char *op = lp_kname_op(name);

	if (op) {
		size_t n = strlen(op) + 2;

		lp_sb_printf(b, "%s: ", op);
		plain_short(b, name, max > n + 10 ? max - n : 10);
		free(op);
	} else
		plain_short(b, name, max);
}

static void
plain_short(struct lp_sb *b, const char *name, size_t max)
{
	struct lp_sb t = { 0 }, u = { 0 };
	const char *s = name;

	if (strlen(s) > max) {
		fold(&t, s, '<', '>', 0);
		s = lp_sb_str(&t);
	}
	if (strlen(s) > max) {
		fold(&u, s, '(', ')', 0);
		s = lp_sb_str(&u);
	}
	if (strlen(s) > max) {
		lp_sb_addn(b, s, max > 3 ? max - 3 : 0);
		lp_sb_adds(b, "...");
	} else
		lp_sb_adds(b, s);
	lp_sb_free(&t);
	lp_sb_free(&u);
}

void
lp_kname_md(struct lp_sb *b, const char *name, size_t max)
{
	struct lp_sb t = { 0 };

	short_name(&t, name, max);
	lp_md_code(b, lp_sb_str(&t), 0);
	lp_sb_free(&t);
}

/* Deepest nesting of <> in s. */
static int
tdepth(const char *s)
{
	int d = 0, m = 0;

	for (; *s; s++)
		if (*s == '<' && ++d > m)
			m = d;
		else if (*s == '>' && d > 0)
			d--;
	return m;
}

/*
 * Level 0 is short_name().  Levels 1..D show the name without namespaces,
 * casts and "void" (lp_kname_key) with template arguments down to that
 * depth and parameters folded; level D+1 is the whole name.  A row moves up
 * a level only while its text equals another row's.
 */
static char *
at_level(const char *name, const char *key, int level, int top, size_t max)
{
	struct lp_sb b = { 0 }, t = { 0 };

	char *op = level ? lp_kname_op(name) : NULL;

	if (op)
		lp_sb_printf(&b, "%s: ", op);
	free(op);
	if (level == 0)
		short_name(&b, name, max);
	else if (level > top)
		lp_sb_adds(&b, name);
	else {
		fold(&t, key, '<', '>', level);
		fold(&b, lp_sb_str(&t), '(', ')', 0);
	}
	lp_sb_free(&t);
	return lp_sb_steal(&b);
}

void
lp_kname_unique(char *const *names, size_t n, size_t max, char **out)
{
	int *lv = lp_xcalloc(n ? n : 1, sizeof *lv), *top, moved = 1;
	char **key = lp_xcalloc(n ? n : 1, sizeof *key);
	size_t i;

	top = lp_xcalloc(n ? n : 1, sizeof *top);
	for (i = 0; i < n; i++) {
		key[i] = lp_kname_key(names[i]);
		top[i] = tdepth(key[i]);
		out[i] = at_level(names[i], key[i], 0, top[i], max);
	}
	while (moved) {
		struct lp_map *seen = lp_map_new();

		moved = 0;
		for (i = 0; i < n; i++)
			lp_map_put(seen, out[i], lp_map_get(seen, out[i], 0) + 1);
		for (i = 0; i < n; i++)
			if (lp_map_get(seen, out[i], 0) > 1 && lv[i] <= top[i]) {
				lv[i]++;
				free(out[i]);
				out[i] = at_level(names[i], key[i], lv[i], top[i],
				    max);
				moved = 1;
			}
		lp_map_free(seen);
	}
	/* equal whole names (two symbols that demangle alike): number them */
	{
		struct lp_map *seen = lp_map_new(), *nth = lp_map_new();

		for (i = 0; i < n; i++)
			lp_map_put(seen, out[i], lp_map_get(seen, out[i], 0) + 1);
		for (i = 0; i < n; i++)
			if (lp_map_get(seen, out[i], 0) > 1) {
				long k = lp_map_get(nth, out[i], 0) + 1;
				struct lp_sb b = { 0 };

				lp_map_put(nth, out[i], k);
				lp_sb_printf(&b, "%s [#%ld]", out[i], k);
				free(out[i]);
				out[i] = lp_sb_steal(&b);
			}
		lp_map_free(seen);
		lp_map_free(nth);
	}
	for (i = 0; i < n; i++)
		free(key[i]);
	free(key);
	free(lv);
	free(top);
}

/* ---- base names: the function without return type, templates, params ---- */

/* A mangled name's function: "_Z7rmsnormPfii" -> "rmsnorm",
 * "_ZN2at6native4fooIiEEvT_" -> "at::native::foo"; NULL if not parsed. */
static char *
mangled_base(const char *s)
{
	struct lp_sb b = { 0 };
	int nested = 0;

	s += 2;
	if (*s == 'L')
		s++;
	if (*s == 'N') {
		nested = 1;
		s++;
		while (*s == 'K' || *s == 'V' || *s == 'r')
			s++;
	}
	for (;;) {
		char *end;
		long len;

		if (s[0] == 'S' && s[1] == 't') {
			lp_sb_adds(&b, "std");
			s += 2;
			if (!nested)
				break;
			continue;
		}
		if (*s == 'L')
			s++;
		if (*s < '1' || *s > '9')
			break;
		len = strtol(s, &end, 10);
		if (len <= 0 || (size_t)len > strlen(end))
			break;
		if (b.len)
			lp_sb_adds(&b, "::");
		lp_sb_addn(&b, end, (size_t)len);
		s = end + len;
		if (!nested)
			break;
		if (*s == 'B')		/* an ABI tag: B<len><tag> */
			break;
	}
	if (!b.len) {
		lp_sb_free(&b);
		return NULL;
	}
	return lp_sb_steal(&b);
}

/* Index just past the bracket pair opened at s[i], or strlen(s). */
static size_t
skip_pair(const char *s, size_t i, char open, char close)
{
	int d = 0;

	for (; s[i]; i++) {
		if (s[i] == open)
			d++;
		else if (s[i] == close && --d == 0)
			return i + 1;
	}
	return i;
}

char *
lp_kname_base(const char *name)
{
	const char *s = name;
	size_t i, start = 0, end;
	char *m;

	while (isspace((unsigned char)*s))
		s++;
	if (s[0] == '_' && s[1] == 'Z' && (m = mangled_base(s)))
		return m;
	/* the top-level '(' that opens the parameters ends the name; "(anonymous
	 * namespace)" and casts inside templates are not it */
	for (i = 0; s[i]; i++) {
		if (s[i] == '<')
			i = skip_pair(s, i, '<', '>') - 1;
		else if (s[i] == '(' && !strncmp(s + i, "(anonymous namespace)", 21))
			i += 20;
		else if (s[i] == '(')
			break;
		else if (s[i] == ' ')
			start = i + 1;	/* a return type came before */
	}
	end = i;
	/* drop the function's own template arguments */
	if (end > start && s[end - 1] == '>') {
		int d = 0;
		size_t j = end;

		while (j > start) {
			j--;
			if (s[j] == '>')
				d++;
			else if (s[j] == '<' && --d == 0)
				break;
		}
		end = j;
	}
	while (end > start && s[end - 1] == ' ')
		end--;
	return lp_xstrndup(s + start, end - start);
}

char *
lp_kname_label(const char *name)
{
	char *b = lp_kname_base(name), *op = lp_kname_op(name);
	struct lp_sb l = { 0 };

	if (!op)
		return b;
	lp_sb_printf(&l, "%s: %s", op, b);
	free(b);
	free(op);
	return lp_sb_steal(&l);
}

char *
lp_kname_targ(const char *name)
{
	const char *s = name, *p;
	size_t i, e;
	char *a, *r;
	int d = 0;

	/* the '<' that follows the base name's last component */
	r = lp_kname_base(name);
	p = strstr(s, r);
	free(r);
	if (!p)
		return NULL;
	for (i = (size_t)(p - s); s[i] && s[i] != '<' && s[i] != '('; i++)
		;
	if (s[i] != '<')
		return NULL;
	for (e = ++i; s[e]; e++) {
		if (s[e] == '<' || s[e] == '(')
			d++;
		else if ((s[e] == '>' || s[e] == ')') && d > 0)
			d--;
		else if ((s[e] == ',' || s[e] == '>') && d == 0)
			break;
	}
	while (s[i] == ' ')
		i++;
	a = lp_xstrndup(s + i, e - i);
	return a;
}
