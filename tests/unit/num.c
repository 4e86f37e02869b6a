/* num.c: numbers and units as nsys and ncu print them. */
#include <math.h>

#include "util.h"
#include "tap.h"

static int
parses(const char *s, double want)
{
	double v;

	return lp_num_parse(s, &v) == 0 && fabs(v - want) < 1e-9 * fmax(1, fabs(want));
}

static int
rejects(const char *s)
{
	double v;

	return lp_num_parse(s, &v) == -1;
}

static int
factor(enum lp_dim d, const char *u, double want)
{
	double f;

	return lp_unit_factor(d, u, &f) == 0 && f == want;
}

int
main(void)
{
	struct lp_sb b = { 0 };
	double f;

	ok(parses("4.512000", 4.512), "plain decimal");
	ok(parses("1,980,000", 1980000), "thousands separators (--print-units base)");
	ok(parses("6,729", 6729), "one separator");
	ok(parses(" 42 ", 42), "spaces around");
	ok(parses("-0.5", -0.5), "negative");
	ok(parses("1e3", 1000), "exponent");
	ok(parses("0.000000", 0), "zero");
	ok(rejects("1,98,000"), "bad grouping is not a number");
	ok(rejects("12,34"), "two-digit group");
	ok(parses("1,000.5", 1000.5), "separators and a fraction");
	ok(rejects("abc"), "letters");
	ok(rejects(""), "empty");
	ok(rejects("n/a"), "n/a is not a number");
	ok(rejects("1.2.3"), "two dots");
	ok(rejects("inf"), "inf");
	ok(rejects("5us"), "number with a unit glued on");
	ok(lp_num_isna("n/a") && lp_num_isna("") && lp_num_isna(" N/A") &&
	    !lp_num_isna("0"), "n/a forms");

	ok(factor(LP_DIM_TIME, "us", 1e3), "us");
	ok(factor(LP_DIM_TIME, "usecond", 1e3), "usecond (older ncu)");
	ok(factor(LP_DIM_TIME, "ms", 1e6), "ms");
	ok(factor(LP_DIM_TIME, "ns", 1), "ns");
	ok(factor(LP_DIM_TIME, "s", 1e9), "s");
	ok(lp_unit_factor(LP_DIM_TIME, "fortnight", &f) == -1, "unknown time unit");
	ok(lp_unit_factor(LP_DIM_TIME, "%", &f) == -1, "%% is not time");
	ok(factor(LP_DIM_BYTES, "Mbyte", 1e6), "Mbyte is 10^6 bytes");
	ok(factor(LP_DIM_BYTES, "Kbyte", 1e3), "Kbyte");
	ok(factor(LP_DIM_BYTES, "byte", 1), "byte");
	ok(lp_unit_factor(LP_DIM_BYTES, "Gbyte/s", &f) == -1, "a rate is not bytes");
	ok(factor(LP_DIM_BYTERATE, "Gbyte/s", 1e9), "Gbyte/s");
	ok(factor(LP_DIM_BYTERATE, "Tbyte/second", 1e12), "Tbyte/second");
	ok(factor(LP_DIM_BYTERATE, "byte/ms", 1e3), "byte/ms");
	ok(factor(LP_DIM_PCT, "%", 1), "percent");
	ok(factor(LP_DIM_FREQ, "Ghz", 1e9), "Ghz");
	ok(factor(LP_DIM_FREQ, "cycle/nsecond", 1e9), "cycle/nsecond");
	ok(factor(LP_DIM_COUNT, "inst", 1), "inst");
	ok(factor(LP_DIM_COUNT, "Minst", 1e6), "Minst");
	ok(factor(LP_DIM_COUNT, "", 1), "no unit");
	ok(lp_unit_factor(LP_DIM_COUNT, "Xinst", &f) == -1, "unknown prefix");
	ok(factor(LP_DIM_PERCYCLE, "inst/cycle", 1), "inst/cycle");
	ok(factor(LP_DIM_PERCYCLE, "Kinst/cycle", 1e3), "Kinst/cycle");

	ok(lp_header_time_factor("Total Time (ns)", &f) == 0 && f == 1, "header ns");
	ok(lp_header_time_factor("Total Time (us)", &f) == 0 && f == 1e3, "header us");
	ok(lp_header_time_factor("Total Time", &f) == 0 && f == 1, "header without unit");
	ok(lp_header_time_factor("Total Time (hours)", &f) == -1, "header unknown unit");

	lp_fmt_num(&b, -0.0001, 2);
	is_str(lp_sb_str(&b), "0.00", "no negative zero");
	lp_sb_reset(&b);
	lp_fmt_time(&b, 3880.2);
	is_str(lp_sb_str(&b), "3.88 us", "time in us");
	lp_sb_reset(&b);
	lp_fmt_time(&b, 9134749);
	is_str(lp_sb_str(&b), "9.135 ms", "time in ms");
	lp_sb_reset(&b);
	lp_fmt_ms(&b, 1491000);
	is_str(lp_sb_str(&b), "1.491", "ns as ms");
	lp_sb_reset(&b);
	/* four GPT-2 kernels that all read "0.0009 ms" (issue 28) */
	lp_fmt_us(&b, 883.4);
	lp_sb_adds(&b, " ");
	lp_fmt_us(&b, 866.1);
	lp_sb_adds(&b, " ");
	lp_fmt_us(&b, 45.21);
	lp_sb_adds(&b, " ");
	lp_fmt_us(&b, 29390);
	lp_sb_adds(&b, " ");
	lp_fmt_us(&b, 0);
	is_str(lp_sb_str(&b), "0.883 0.866 0.045 29.390 0.000", "ns as us, "
	    "to the nanosecond");
	lp_sb_free(&b);
	return tap_done();
}
