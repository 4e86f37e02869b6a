/*
 * Numbers as nsys and ncu print them ("4.51", "1,980,000", "n/a") and the
 * units ncu scales them by, per column or per value.  Every value is brought
 * to one base unit per dimension before any arithmetic.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int
lp_num_isna(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s || !strcmp(s, "n/a") || !strcmp(s, "N/A") || !strcmp(s, "-");
}

/* The common case, a trace's times and IDs: up to 15 digits alone, exact
 * in a double, strtod's value without strtod. */
static int
plain_digits(const char *s, double *out)
{
	uint64_t v = 0;
	size_t n;

	for (n = 0; n < 16 && s[n] >= '0' && s[n] <= '9'; n++)
		v = v * 10 + (uint64_t)(s[n] - '0');
	if (!n || n >= 16 || s[n])
		return 0;
	*out = (double)v;
	return 1;
}

int
lp_num_parse(const char *s, double *out)
{
	char buf[128], *end;
	size_t n = 0, digits = 0, group = 0;
	int commas = 0;

	if (plain_digits(s, out))
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+' || *s == '-')
		buf[n++] = *s++;
	/* Integer part, with "1,980,000" grouping checked, not guessed. */
	for (; *s; s++) {
		if (isdigit((unsigned char)*s)) {
			if (n >= sizeof buf - 32)
				return -1;
			buf[n++] = *s;
			digits++;
			group++;
		} else if (*s == ',') {
			if (!group || (commas && group != 3) || (!commas && group > 3))
				return -1;
			commas = 1;
			group = 0;
		} else
			break;
	}
	if (commas && group != 3)
		return -1;
	if (*s == '.') {
		buf[n++] = *s++;
		while (isdigit((unsigned char)*s)) {
			if (n >= sizeof buf - 8)
				return -1;
			buf[n++] = *s++;
			digits++;
		}
	}
	if (!digits)
		return -1;
	if (*s == 'e' || *s == 'E') {
		buf[n++] = *s++;
		if (*s == '+' || *s == '-')
			buf[n++] = *s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		while (isdigit((unsigned char)*s) && n < sizeof buf - 1)
			buf[n++] = *s++;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s)
		return -1;
	buf[n] = '\0';
	*out = strtod(buf, &end);
	if (*end || !isfinite(*out))
		return -1;
	return 0;
}

int
lp_num_get(const char *s, double *out)
{
	return *s && lp_num_parse(s, out) == 0;
}

/*
 * What a measured value may be, in base units: never negative, never
 * beyond what a run can hold (1e18 ns is 31 years; 1e18 bytes an
 * exabyte), a percentage of a peak up to 110 (ncu's throughputs overshoot
 * 100 by a little when clocks move), a count whole where it is exact.
 */
#define LP_NUM_MAX 1e18
#define LP_PCT_MAX 110.0

const char *
lp_num_bad(enum lp_dim dim, double v, int whole)
{
	if (!isfinite(v))
		return "not a finite number";
	if (v < 0)
		return "negative";
	if (dim == LP_DIM_PCT && v > LP_PCT_MAX)
		return "a percentage above 110";
	if (v > LP_NUM_MAX)
		return "beyond 1e18, more than any run holds";
	if (whole && v != floor(v))
		return "not a whole number";
	return NULL;
}

struct unit {
	const char *name;
	double factor;
};

static const struct unit time_units[] = {
	{ "ns", 1 }, { "nsecond", 1 }, { "nanosecond", 1 },
	{ "us", 1e3 }, { "usecond", 1e3 }, { "microsecond", 1e3 },
	{ "ms", 1e6 }, { "msecond", 1e6 }, { "millisecond", 1e6 },
	{ "s", 1e9 }, { "second", 1e9 }, { "sec", 1e9 },
	{ NULL, 0 }
};

static const struct unit byte_prefix[] = {
	{ "byte", 1 }, { "Kbyte", 1e3 }, { "Mbyte", 1e6 }, { "Gbyte", 1e9 },
	{ "Tbyte", 1e12 }, { "Pbyte", 1e15 },
	{ "B", 1 }, { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
	{ NULL, 0 }
};

static const struct unit per_time[] = {
	{ "s", 1 }, { "second", 1 }, { "ms", 1e3 }, { "msecond", 1e3 },
	{ "us", 1e6 }, { "usecond", 1e6 }, { "ns", 1e9 }, { "nsecond", 1e9 },
	{ NULL, 0 }
};

static const struct unit freq_units[] = {
	{ "hz", 1 }, { "Hz", 1 }, { "Khz", 1e3 }, { "KHz", 1e3 },
	{ "Mhz", 1e6 }, { "MHz", 1e6 }, { "Ghz", 1e9 }, { "GHz", 1e9 },
	{ "cycle/second", 1 }, { "cycle/s", 1 }, { "cycle/msecond", 1e3 },
	{ "cycle/ms", 1e3 }, { "cycle/usecond", 1e6 }, { "cycle/us", 1e6 },
	{ "cycle/nsecond", 1e9 }, { "cycle/ns", 1e9 },
	{ NULL, 0 }
};

static const struct unit count_prefix[] = {
	{ "", 1 }, { "K", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 },
	{ NULL, 0 }
};

static const char *const count_nouns[] = {
	"inst", "cycle", "warp", "thread", "block", "sector", "request",
	"wavefront", "byte", "SM", NULL
};

static int
lookup(const struct unit *t, const char *name, double *f)
{
	for (; t->name; t++)
		if (!strcmp(t->name, name)) {
			*f = t->factor;
			return 0;
		}
	return -1;
}

/* "Kinst", "Mcycle", "inst", "": a count with an optional scale prefix. */
static int
count_factor(const char *u, double *f)
{
	const struct unit *p;
	const char *const *w;

	if (!*u) {
		*f = 1;
		return 0;
	}
	for (p = count_prefix; p->name; p++) {
		size_t n = strlen(p->name);

		if (strncmp(u, p->name, n))
			continue;
		for (w = count_nouns; *w; w++)
			if (!strcmp(u + n, *w)) {
				*f = p->factor;
				return 0;
			}
	}
	return -1;
}

int
lp_unit_factor(enum lp_dim dim, const char *unit, double *factor)
{
	char num[32];
	const char *slash;
	double a, b;

	switch (dim) {
	case LP_DIM_TIME:
		return lookup(time_units, unit, factor);
	case LP_DIM_BYTES:
		return lookup(byte_prefix, unit, factor);
	case LP_DIM_BYTERATE:
		if (!(slash = strchr(unit, '/')) || (size_t)(slash - unit) >= sizeof num)
			return -1;
		memcpy(num, unit, (size_t)(slash - unit));
		num[slash - unit] = '\0';
		if (lookup(byte_prefix, num, &a) || lookup(per_time, slash + 1, &b))
			return -1;
		*factor = a * b;
		return 0;
	case LP_DIM_PCT:
		if (strcmp(unit, "%"))
			return -1;
		*factor = 1;
		return 0;
	case LP_DIM_FREQ:
		return lookup(freq_units, unit, factor);
	case LP_DIM_COUNT:
		return count_factor(unit, factor);
	case LP_DIM_PERCYCLE:
		if (!(slash = strchr(unit, '/')) || strcmp(slash + 1, "cycle") ||
		    (size_t)(slash - unit) >= sizeof num)
			return -1;
		memcpy(num, unit, (size_t)(slash - unit));
		num[slash - unit] = '\0';
		return count_factor(num, factor);
	}
	return -1;
}

const char *
lp_dim_name(enum lp_dim dim)
{
	switch (dim) {
	case LP_DIM_TIME: return "time";
	case LP_DIM_BYTES: return "bytes";
	case LP_DIM_BYTERATE: return "bytes per second";
	case LP_DIM_PCT: return "percent";
	case LP_DIM_FREQ: return "frequency";
	case LP_DIM_COUNT: return "count";
	case LP_DIM_PERCYCLE: return "count per cycle";
	}
	return "?";
}

int
lp_num_pid(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n > 0 && n <= 19 && !s[n];
}

int
lp_header_time_factor(const char *header, double *factor)
{
	const char *open = strrchr(header, '(');
	char unit[32];
	size_t n;

	if (!open) {
		*factor = 1;	/* nsys before 2021 printed ns without a unit */
		return 0;
	}
	n = strcspn(open + 1, ")");
	if (open[1 + n] != ')' || n >= sizeof unit)
		return -1;
	memcpy(unit, open + 1, n);
	unit[n] = '\0';
	return lookup(time_units, unit, factor);
}

void
lp_fmt_num(struct lp_sb *b, double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof buf, "%.*f", decimals, v);
	/* "-0.000" reads as a sign where there is none */
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		lp_sb_adds(b, buf + 1);
	else
		lp_sb_adds(b, buf);
}

void
lp_fmt_ms(struct lp_sb *b, double ns)
{
	lp_fmt_num(b, ns / 1e6, 3);
}

/* To the nanosecond, nsys's resolution: kernels whose means differ read
 * apart (0.866, 0.880, 0.883 us; 1.137 and 1.140 us), never "0.0009 ms"
 * for four of them. */
void
lp_fmt_us(struct lp_sb *b, double ns)
{
	lp_fmt_num(b, ns / 1e3, 3);
}

const char *
lp_fmt_exact(double v, char *s)
{
	snprintf(s, LP_EXACT_MAX, "%.15g", v);
	if (strtod(s, NULL) != v)
		snprintf(s, LP_EXACT_MAX, "%.17g", v);
	return s;
}

void
lp_fmt_pct(struct lp_sb *b, double v)
{
	int d = 1;

	while (v != 0 && fabs(v) < 10.0 / pow(10, d) && d < 8)
		d++;
	lp_fmt_num(b, v, d);
	lp_sb_addc(b, '%');
}

void
lp_fmt_time(struct lp_sb *b, double ns)
{
	double a = fabs(ns);

	if (a < 1e3) {
		lp_fmt_num(b, ns, 0);
		lp_sb_adds(b, " ns");
	} else if (a < 1e6) {
		lp_fmt_num(b, ns / 1e3, 2);
		lp_sb_adds(b, " us");
	} else if (a < 1e9) {
		lp_fmt_num(b, ns / 1e6, 3);
		lp_sb_adds(b, " ms");
	} else {
		lp_fmt_num(b, ns / 1e9, 3);
		lp_sb_adds(b, " s");
	}
}
