/*
 * test_units.c - the value grammar of units.h: every example the scenario
 * format documents, the edges (order and repetition of duration groups,
 * overflow at 10 years and 2^62 bytes, fractions that are or are not whole),
 * the strings that must be refused (hex floats, inf, nan, '+', spaces), the
 * wording of the error a user sees, and format/parse round trips.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "units.h"

#define NS 1LL
#define US (1000 * NS)
#define MS (1000 * US)
#define SEC (1000 * MS)
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)

static void dur_ok(const char *s, int64_t want)
{
	struct gl_err err = { 0 };
	int64_t got = -1;
	int rc = gl_parse_duration_ns(s, &got, &err);

	CHECKF(rc == 0 && got == want, "'%s': rc %d got %lld want %lld (%s)", s, rc, (long long)got, (long long)want,
	       err.msg);
}

static void dur_bad(const char *s, const char *msg_part)
{
	struct gl_err err = { 0 };
	int64_t got = 12345;
	int rc = gl_parse_duration_ns(s, &got, &err);

	CHECKF(rc == -GL_EINVAL && err.code == GL_EINVAL && got == 12345, "'%s' should fail: rc %d got %lld", s, rc,
	       (long long)got);
	CHECKF(strstr(err.msg, msg_part) != NULL, "'%s': message '%s' lacks '%s'", s, err.msg, msg_part);
}

static void size_ok(const char *s, uint64_t want)
{
	struct gl_err err = { 0 };
	uint64_t got = 0;
	int rc = gl_parse_size_bytes(s, &got, &err);

	CHECKF(rc == 0 && got == want, "'%s': rc %d got %llu want %llu (%s)", s, rc, (unsigned long long)got,
	       (unsigned long long)want, err.msg);
}

static void size_bad(const char *s, const char *msg_part)
{
	struct gl_err err = { 0 };
	uint64_t got = 7;
	int rc = gl_parse_size_bytes(s, &got, &err);

	CHECKF(rc == -GL_EINVAL && got == 7, "'%s' should fail: rc %d", s, rc);
	CHECKF(strstr(err.msg, msg_part) != NULL, "'%s': message '%s' lacks '%s'", s, err.msg, msg_part);
}

static void rate_ok(const char *s, double want)
{
	struct gl_err err = { 0 };
	double got = -1;
	int rc = gl_parse_rate(s, &got, &err);

	CHECKF(rc == 0 && fabs(got - want) <= 1e-12 * fabs(want), "'%s': rc %d got %g want %g (%s)", s, rc, got, want,
	       err.msg);
}

static void rate_bad(const char *s)
{
	struct gl_err err = { 0 };
	double got = -1;
	int rc = gl_parse_rate(s, &got, &err);

	CHECKF(rc == -GL_EINVAL && got == -1, "'%s' should fail: rc %d got %g", s, rc, got);
	CHECKF(strstr(err.msg, "expected a rate like") || strstr(err.msg, "rate"), "'%s': message '%s'", s, err.msg);
}

static void target_ok(const char *s, enum gl_cmp op, double thr)
{
	struct gl_err err = { 0 };
	struct gl_target_expr t = { GL_CMP_NE, -999 };
	int rc = gl_parse_target_expr(s, &t, &err);

	CHECKF(rc == 0 && t.op == op && t.threshold == thr, "'%s': rc %d op %s thr %g (%s)", s, rc, gl_cmp_str(t.op),
	       t.threshold, err.msg);
}

static void target_bad(const char *s)
{
	struct gl_err err = { 0 };
	struct gl_target_expr t = { GL_CMP_NE, -999 };
	int rc = gl_parse_target_expr(s, &t, &err);

	CHECKF(rc == -GL_EINVAL && t.threshold == -999, "'%s' should fail: rc %d", s, rc);
	CHECKF(strstr(err.msg, "expected a target like") || strstr(err.msg, "out of range"), "'%s': message '%s'", s,
	       err.msg);
}

static void test_durations(void)
{
	dur_ok("0", 0);
	dur_ok("0s", 0);
	dur_ok("500ms", 500 * MS);
	dur_ok("90s", 90 * SEC);
	dur_ok("10m", 10 * MIN);
	dur_ok("168h", 168 * HOUR);
	dur_ok("1h30m", HOUR + 30 * MIN);
	dur_ok("95h30m", 95 * HOUR + 30 * MIN);
	dur_ok("1m30.5s", MIN + 30 * SEC + 500 * MS);
	dur_ok("2d12h", 2 * DAY + 12 * HOUR);
	dur_ok("1d2h3m4s5ms6us7ns", DAY + 2 * HOUR + 3 * MIN + 4 * SEC + 5 * MS + 6 * US + 7);
	dur_ok("1.5h", HOUR + 30 * MIN);
	dur_ok("0.5s", 500 * MS);
	dur_ok("1.5ms", 1500 * US);
	dur_ok("250us", 250 * US);
	dur_ok("7ns", 7);
	dur_ok("1.000000000s", SEC);
	dur_ok("0.000000001s", 1);
	dur_ok("0.5000000000000000000000m", 30 * SEC); /* trailing zeros are fine */
	dur_ok("1h05m", HOUR + 5 * MIN);
	dur_ok("120s", 120 * SEC); /* a group above its natural range is fine */
	dur_ok("90m", 90 * MIN);
	/* The cap: ten years of 365.25 days, inclusive. */
	dur_ok("87660h", 87660 * HOUR);
	dur_ok("3652d12h", 87660 * HOUR);

	dur_bad("", "empty duration");
	dur_bad("12x", "expected a duration like 500ms, 90s, 10m, 168h or 1h30m, got '12x'");
	dur_bad("1h1h", "unit 'h' repeated");
	dur_bad("30m1h", "unit 'h' out of order");
	dur_bad("1s1m", "out of order");
	dur_bad("1ms1s", "out of order");
	dur_bad("-5s", "negative duration");
	dur_bad("+5s", "got '+5s'");
	dur_bad("5", "has no unit");
	dur_bad("1h30", "has no unit");
	dur_bad("0.0", "has no unit");
	dur_bad("00", "has no unit");
	dur_bad(" 5s", "got ' 5s'");
	dur_bad("5s ", "got '5s '");
	dur_bad("1h 30m", "got '1h 30m'");
	dur_bad("5 s", "got '5 s'");
	dur_bad("s", "expected a duration");
	dur_bad("h5", "expected a duration");
	dur_bad(".5s", "expected a duration");
	dur_bad("5.s", "expected a duration");
	dur_bad("1e3s", "expected a duration");
	dur_bad("0x10s", "expected a duration");
	dur_bad("inf", "expected a duration");
	dur_bad("nan", "expected a duration");
	dur_bad("infs", "expected a duration");
	dur_bad("5S", "expected a duration");
	dur_bad("5sec", "expected a duration");
	dur_bad("5hours", "expected a duration");
	dur_bad("5µs", "got '5\\xc2\\xb5s'");
	dur_bad("0.5ns", "not a whole number of nanoseconds");
	dur_bad("1.0000000001s", "not a whole number of nanoseconds");
	dur_bad("0.0000000000000000001s", "more than 18 digits");
	dur_bad("87660h1ns", "longer than 10 years");
	dur_bad("3653d", "longer than 10 years");
	dur_bad("99999999999999999999999h", "longer than 10 years");
	dur_bad("9223372036854775807ns", "longer than 10 years");
	dur_bad("18446744073709551616ns", "longer than 10 years");
	dur_bad("3652d12h0.5m", "longer than 10 years");

	{
		/* Long garbage is refused and quoted shortened, never overrun. */
		char big[400];
		struct gl_err err = { 0 };
		int64_t v;
		memset(big, '1', sizeof(big) - 2);
		big[sizeof(big) - 2] = 's';
		big[sizeof(big) - 1] = '\0';
		CHECK(gl_parse_duration_ns(big, &v, &err) == -GL_EINVAL);
		CHECKF(strstr(err.msg, "longer than 256 characters"), "%s", err.msg);
		CHECK(gl_parse_duration_ns(NULL, &v, NULL) == -GL_EINVAL);
	}
	{
		/* First error wins: a second failure does not overwrite it. */
		struct gl_err err = { 0 };
		int64_t v;
		CHECK(gl_parse_duration_ns("1h1h", &v, &err) < 0);
		CHECK(gl_parse_duration_ns("12x", &v, &err) < 0);
		CHECKF(strstr(err.msg, "repeated") != NULL, "%s", err.msg);
	}
}

static void fmt_is(int64_t ns, const char *want)
{
	char buf[64];
	struct gl_err err = { 0 };
	int64_t back = -1;

	gl_format_duration(ns, buf, sizeof(buf));
	CHECKF(strcmp(buf, want) == 0, "format %lld: '%s' want '%s'", (long long)ns, buf, want);
	if (ns >= 0) {
		CHECKF(gl_parse_duration_ns(buf, &back, &err) == 0 && back == ns,
		       "'%s' does not parse back to %lld (%s)", buf, (long long)ns, err.msg);
	}
}

static void test_format(void)
{
	char small[4];

	fmt_is(0, "0s");
	fmt_is(500 * MS, "500ms");
	fmt_is(90 * SEC, "1m30s");
	fmt_is(HOUR + 30 * MIN, "1h30m");
	fmt_is(10 * MIN, "10m");
	fmt_is(168 * HOUR, "7d");
	fmt_is(95 * HOUR + 30 * MIN, "3d23h30m");
	fmt_is(1500 * US, "1500us");
	fmt_is(SEC + 500 * MS, "1s500ms");
	fmt_is(1001, "1001ns");
	fmt_is(DAY + 1, "1d1ns");
	fmt_is(87660 * HOUR, "3652d12h");
	fmt_is(-90 * SEC, "-1m30s");
	fmt_is(INT64_MIN, "-106751d23h47m16s854775808ns");

	gl_format_duration(90 * SEC, small, sizeof(small));
	CHECKF(strcmp(small, "1m3") == 0, "truncated '%s'", small);

	/* Round trip over a spread of values, including odd ones. */
	for (int64_t v = 1; v < 87660 * HOUR / 3; v = v * 3 + 7) {
		char buf[64];
		int64_t back = -1;
		struct gl_err err = { 0 };
		gl_format_duration(v, buf, sizeof(buf));
		CHECKF(gl_parse_duration_ns(buf, &back, &err) == 0 && back == v, "%lld -> '%s' -> %lld (%s)",
		       (long long)v, buf, (long long)back, err.msg);
	}
}

static void human_is(int64_t ns, const char *want)
{
	char buf[64];
	struct gl_err err = { 0 };
	int64_t back = -1;

	gl_format_duration_human(ns, buf, sizeof(buf));
	CHECKF(strcmp(buf, want) == 0, "human %lld: '%s' want '%s'", (long long)ns, buf, want);
	CHECKF(strpbrk(buf, "nu") == NULL && !strstr(buf, "ms"), "human %lld: '%s' has a unit under seconds",
	       (long long)ns, buf);
	if (ns >= 0)
		CHECKF(gl_parse_duration_ns(buf, &back, &err) == 0 && back <= ns,
		       "'%s' does not parse back to at most %lld (%s)", buf, (long long)ns, err.msg);
}

static void test_human(void)
{
	human_is(0, "0s");
	human_is(400 * MS, "0s");
	human_is(38 * SEC + 999 * MS, "38s");
	human_is(2 * MIN + 38 * SEC + 960820 * US, "2m38s");
	human_is(5 * MIN + 22 * SEC, "5m22s");
	human_is(5 * MIN + 2 * SEC, "5m02s");
	human_is(5 * MIN, "5m");
	human_is(HOUR + 2 * MIN + 59 * SEC, "1h02m");
	human_is(HOUR + 30 * SEC, "1h");
	human_is(71 * HOUR + 30 * MIN, "2d23h");
	human_is(168 * HOUR, "7d");
	human_is(3 * DAY + 4 * HOUR + 5 * MIN, "3d04h");
	human_is(-(2 * MIN + 38 * SEC), "-2m38s");
	human_is(-500 * MS, "0s");
	human_is(INT64_MIN, "-106751d23h");
}

static void test_sizes(void)
{
	size_ok("0", 0);
	size_ok("4096", 4096);
	size_ok("0B", 0);
	size_ok("512B", 512);
	size_ok("4KiB", 4096);
	size_ok("4MiB", 4ULL << 20);
	size_ok("256MiB", 256ULL << 20);
	size_ok("8GiB", 8ULL << 30);
	size_ok("1.5GiB", 3ULL << 29);
	size_ok("2TiB", 2ULL << 40);
	size_ok("10GB", 10000000000ULL);
	size_ok("1KB", 1000);
	size_ok("1.5KB", 1500);
	size_ok("2.5MB", 2500000);
	size_ok("3TB", 3000000000000ULL);
	size_ok("0.5KiB", 512);
	size_ok("0.001KB", 1);
	size_ok("4194304TiB", 1ULL << 62); /* the cap, inclusive */
	size_ok("4611686018427387904", 1ULL << 62);

	size_bad("", "empty size");
	size_bad("4194304.000001TiB", "not a whole number"); /* checked before the cap */
	size_bad("4194305TiB", "larger than 2^62");
	size_bad("4611686018427387905", "larger than 2^62");
	size_bad("99999999999999999999999", "larger than 2^62");
	size_bad("1.5", "needs a unit");
	size_bad("1.5B", "not a whole number of bytes");
	size_bad("0.0001KB", "not a whole number of bytes");
	size_bad("-1KiB", "negative size");
	size_bad("+1KiB", "expected a size like");
	size_bad("4kib", "expected a size like");
	size_bad("4 KiB", "expected a size like");
	size_bad("4KiB ", "expected a size like");
	size_bad("4K", "expected a size like");
	size_bad("4PiB", "expected a size like");
	size_bad("1e3", "expected a size like");
	size_bad("0x10", "expected a size like");
	size_bad("KiB", "expected a size like");
	size_bad(".5KiB", "expected a size like");
	size_bad("inf", "expected a size like");
}

static void test_rates(void)
{
	rate_ok("20", 20);
	rate_ok("20/s", 20);
	rate_ok("1200/m", 20);
	rate_ok("5/h", 5.0 / 3600);
	rate_ok("0.5", 0.5);
	rate_ok("0", 0);
	rate_ok("1e3/s", 1000);
	rate_ok("2.5e-1", 0.25);

	rate_bad("");
	rate_bad("-1");
	rate_bad("+1");
	rate_bad("inf");
	rate_bad("nan");
	rate_bad("0x10");
	rate_bad("1e999");
	rate_bad("20/d");
	rate_bad("20/");
	rate_bad("20 /s");
	rate_bad(" 20");
	rate_bad("20/s/s");
	rate_bad(".5");
	rate_bad("5.");
	rate_bad("1e");
	{
		struct gl_err err = { 0 };
		double v;
		CHECK(gl_parse_rate("12x", &v, &err) < 0);
		CHECKF(strcmp(err.msg, "expected a rate like 20, 20/s, 1200/m or 5/h, got '12x'") == 0, "%s", err.msg);
	}
}

static void test_targets(void)
{
	target_ok("<= 800", GL_CMP_LE, 800);
	target_ok(">=3.33", GL_CMP_GE, 3.33);
	target_ok("< 5", GL_CMP_LT, 5);
	target_ok("> 0.5", GL_CMP_GT, 0.5);
	target_ok("== 0", GL_CMP_EQ, 0);
	target_ok("!= 0", GL_CMP_NE, 0);
	target_ok("<= 0.001", GL_CMP_LE, 0.001);
	target_ok("<=1e-3", GL_CMP_LE, 1e-3);
	target_ok(">= -5", GL_CMP_GE, -5);
	target_ok("  >   -2.5E+2  ", GL_CMP_GT, -250);
	target_ok("\t<\t7\t", GL_CMP_LT, 7);

	target_bad("");
	target_bad("800");
	target_bad("<=");
	target_bad("= 5");
	target_bad("=< 5");
	target_bad("=> 5");
	target_bad("< = 5");
	target_bad("<= +5");
	target_bad("<= inf");
	target_bad("<= nan");
	target_bad("<= 0x10");
	target_bad("<= 1e999");
	target_bad("<= -1e999");
	target_bad("<= 5 5");
	target_bad("<= 5ms");
	target_bad("<= .5");
	target_bad("<= 5.");
	target_bad("<= --5");
	target_bad("<= 1,5");
	{
		struct gl_err err = { 0 };
		struct gl_target_expr t;
		CHECK(gl_parse_target_expr("~ 5", &t, &err) < 0);
		CHECKF(strcmp(err.msg, "expected a target like '<= 800', '>= 3.33', '< 5', '> 0.5', "
				       "'== 0' or '!= 0', got '~ 5'") == 0,
		       "%s", err.msg);
	}

	CHECK(strcmp(gl_cmp_str(GL_CMP_LE), "<=") == 0);
	CHECK(strcmp(gl_cmp_str(GL_CMP_LT), "<") == 0);
	CHECK(strcmp(gl_cmp_str(GL_CMP_GE), ">=") == 0);
	CHECK(strcmp(gl_cmp_str(GL_CMP_GT), ">") == 0);
	CHECK(strcmp(gl_cmp_str(GL_CMP_EQ), "==") == 0);
	CHECK(strcmp(gl_cmp_str(GL_CMP_NE), "!=") == 0);

	CHECK(gl_cmp_eval(GL_CMP_LE, 800, 800) == 1);
	CHECK(gl_cmp_eval(GL_CMP_LE, 800.01, 800) == 0);
	CHECK(gl_cmp_eval(GL_CMP_LT, 800, 800) == 0);
	CHECK(gl_cmp_eval(GL_CMP_LT, 799, 800) == 1);
	CHECK(gl_cmp_eval(GL_CMP_GE, 3.33, 3.33) == 1);
	CHECK(gl_cmp_eval(GL_CMP_GE, 3.32, 3.33) == 0);
	CHECK(gl_cmp_eval(GL_CMP_GT, 0.5, 0.5) == 0);
	CHECK(gl_cmp_eval(GL_CMP_GT, 0.6, 0.5) == 1);
	CHECK(gl_cmp_eval(GL_CMP_EQ, 0, 0) == 1);
	CHECK(gl_cmp_eval(GL_CMP_EQ, 1, 0) == 0);
	CHECK(gl_cmp_eval(GL_CMP_NE, 1, 0) == 1);
	CHECK(gl_cmp_eval(GL_CMP_NE, 0, 0) == 0);
	/* An unmeasured (NaN) value never meets a target. */
	CHECK(gl_cmp_eval(GL_CMP_LE, NAN, 800) == 0);
	CHECK(gl_cmp_eval(GL_CMP_NE, NAN, 0) == 0);
	CHECK(gl_cmp_eval(GL_CMP_GE, NAN, 0) == 0);
}

int main(void)
{
	test_durations();
	test_format();
	test_human();
	test_sizes();
	test_rates();
	test_targets();
	return check_done();
}
