/*
 * units.c - parsers for the scenario's value grammar (durations, sizes, rates,
 * target expressions) and the duration formatter. Every parser works on a
 * NUL-terminated string of at most UNITS_MAX_LEN bytes, reads decimal digits
 * itself (integer and fraction parts kept exact, so "1.5GiB" and "1m30.5s"
 * are computed without floating point), and checks each multiplication
 * against its cap before doing it. Only rates and target thresholds are
 * doubles; those go through strtod after this file has checked the syntax,
 * so hex floats, "inf", "nan" and a leading '+' never reach it.
 */
#include "units.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNITS_MAX_LEN 256
/* Digits after the decimal point that may be significant. Any more would
 * need a multiplier with more factors of 2 and 5 than any unit here has. */
#define FRAC_MAX_DIGITS 18

#define NS_PER_S 1000000000LL
/* Ten years of 365.25 days. */
#define DURATION_MAX_NS (315576000LL * NS_PER_S)
#define SIZE_MAX_BYTES (1ULL << 62)

#define DURATION_HINT "expected a duration like 500ms, 90s, 10m, 168h or 1h30m"
#define SIZE_HINT "expected a size like 4096, 512KB, 4MiB or 1.5GiB (units B KB MB GB TB KiB MiB GiB TiB)"
#define RATE_HINT "expected a rate like 20, 20/s, 1200/m or 5/h"
#define TARGET_HINT "expected a target like '<= 800', '>= 3.33', '< 5', '> 0.5', '== 0' or '!= 0'"

/* A non-negative decimal number read digit by digit: int_part plus
 * frac / 10^frac_digits, with trailing zeros of the fraction dropped. */
struct decimal {
	uint64_t int_part;
	uint64_t frac;
	int frac_digits;
	int int_overflow; /* the integer part did not fit in 19 digits */
	int frac_too_long; /* more than FRAC_MAX_DIGITS significant digits */
	int has_point;
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Quote user input for a message: printable ASCII kept, other bytes as \xNN,
 * at most 40 input bytes shown. */
static const char *quote(const char *s, char *buf, size_t n)
{
	size_t k = 0, i;

	for (i = 0; s[i] && i < 40 && k + 5 < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			buf[k++] = (char)c;
		} else {
			snprintf(buf + k, n - k, "\\x%02x", c);
			k += 4;
		}
	}
	if (s[i] && k + 4 < n) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = '\0';
	return buf;
}

/* Reads [0-9]+(\.[0-9]+)? at s. Returns the bytes consumed, 0 when s does
 * not start with a digit or the point has no digit after it. */
static size_t scan_decimal(const char *s, struct decimal *d)
{
	size_t i = 0;

	memset(d, 0, sizeof(*d));
	if (!is_digit(s[0]))
		return 0;
	for (; is_digit(s[i]); i++) {
		unsigned v = (unsigned)(s[i] - '0');
		if (d->int_part > (UINT64_MAX - v) / 10)
			d->int_overflow = 1;
		else
			d->int_part = d->int_part * 10 + v;
	}
	if (s[i] == '.') {
		int n = 0, last_nonzero = 0;
		uint64_t f = 0;
		if (!is_digit(s[i + 1]))
			return 0;
		d->has_point = 1;
		for (i++; is_digit(s[i]); i++) {
			n++;
			if (s[i] != '0')
				last_nonzero = n;
			if (n <= FRAC_MAX_DIGITS)
				f = f * 10 + (uint64_t)(s[i] - '0');
		}
		if (last_nonzero > FRAC_MAX_DIGITS) {
			d->frac_too_long = 1;
		} else {
			/* Drop the trailing zeros that were read. */
			int kept = n < FRAC_MAX_DIGITS ? n : FRAC_MAX_DIGITS;
			for (; kept > last_nonzero; kept--)
				f /= 10;
			d->frac = f;
			d->frac_digits = last_nonzero;
		}
	}
	return i;
}

static uint64_t pow10_u64(int k)
{
	uint64_t p = 1;
	while (k-- > 0)
		p *= 10;
	return p;
}

/* d * mult, exact. Returns 0 and the value, 1 when the result is not whole,
 * 2 when it exceeds max. */
static int decimal_times(const struct decimal *d, uint64_t mult, uint64_t max, uint64_t *out)
{
	unsigned __int128 frac_part, whole;
	uint64_t p10 = pow10_u64(d->frac_digits);

	if (d->int_overflow || (mult && d->int_part > max / mult))
		return 2;
	frac_part = (unsigned __int128)d->frac * mult;
	if (frac_part % p10 != 0)
		return 1;
	whole = (unsigned __int128)d->int_part * mult + frac_part / p10;
	if (whole > max)
		return 2;
	*out = (uint64_t)whole;
	return 0;
}

/* Input checks every parser shares: not NULL, not empty, bounded length. */
static int check_input(const char *s, const char *what, const char *hint, struct gl_err *err)
{
	if (!s || !s[0])
		return gl_errf(err, GL_EINVAL, "empty %s, %s", what, hint);
	if (strnlen(s, UNITS_MAX_LEN + 1) > UNITS_MAX_LEN)
		return gl_errf(err, GL_EINVAL, "%s longer than %d characters, %s", what, UNITS_MAX_LEN, hint);
	return 0;
}

/* ---- durations ---------------------------------------------------------- */

static const struct {
	const char *name;
	int64_t ns;
} duration_units[] = {
	/* Largest first: groups must follow this order. */
	{ "d", 86400 * NS_PER_S },
	{ "h", 3600 * NS_PER_S },
	{ "m", 60 * NS_PER_S },
	{ "s", NS_PER_S },
	{ "ms", 1000000 },
	{ "us", 1000 },
	{ "ns", 1 },
};

int gl_parse_duration_ns(const char *s, int64_t *out_ns, struct gl_err *err)
{
	char q[200];
	int64_t total = 0;
	size_t i = 0;
	int prev = -1; /* index of the previous group's unit */
	int rc;

	if ((rc = check_input(s, "duration", DURATION_HINT, err)) < 0)
		return rc;
	if (strcmp(s, "0") == 0) {
		*out_ns = 0;
		return 0;
	}
	if (s[0] == '-')
		return gl_errf(err, GL_EINVAL, "negative duration '%s', %s", quote(s, q, sizeof(q)), DURATION_HINT);
	while (s[i]) {
		struct decimal d;
		size_t n = scan_decimal(s + i, &d), ulen = 0;
		int u = -1;
		uint64_t v;

		if (n == 0)
			return gl_errf(err, GL_EINVAL, "%s, got '%s'", DURATION_HINT, quote(s, q, sizeof(q)));
		i += n;
		while (is_alpha(s[i + ulen]) && ulen < 3)
			ulen++;
		for (size_t k = 0; k < GL_ARRAY_LEN(duration_units); k++) {
			if (strlen(duration_units[k].name) == ulen &&
			    memcmp(duration_units[k].name, s + i, ulen) == 0 && !is_alpha(s[i + ulen]))
				u = (int)k;
		}
		if (u < 0) {
			if (ulen == 0 && !s[i])
				return gl_errf(err, GL_EINVAL, "duration '%s' has no unit (ns us ms s m h d), %s",
					       quote(s, q, sizeof(q)), DURATION_HINT);
			return gl_errf(err, GL_EINVAL, "%s, got '%s'", DURATION_HINT, quote(s, q, sizeof(q)));
		}
		if (u <= prev)
			return gl_errf(
				err, GL_EINVAL,
				"duration '%s': unit '%s' %s; each unit at most once, largest first (1h30m, 1m30.5s)",
				quote(s, q, sizeof(q)), duration_units[u].name,
				u == prev ? "repeated" : "out of order");
		prev = u;
		i += ulen;
		if (d.frac_too_long)
			return gl_errf(err, GL_EINVAL, "duration '%s' has more than %d digits after the point, %s",
				       quote(s, q, sizeof(q)), FRAC_MAX_DIGITS, DURATION_HINT);
		rc = decimal_times(&d, (uint64_t)duration_units[u].ns, (uint64_t)(DURATION_MAX_NS - total), &v);
		if (rc == 1)
			return gl_errf(err, GL_EINVAL, "duration '%s' is not a whole number of nanoseconds",
				       quote(s, q, sizeof(q)));
		if (rc == 2)
			return gl_errf(err, GL_EINVAL, "duration '%s' is longer than 10 years", quote(s, q, sizeof(q)));
		total += (int64_t)v;
	}
	*out_ns = total;
	return 0;
}

void gl_format_duration(int64_t ns, char *buf, size_t n)
{
	char tmp[96];
	size_t k = 0;
	uint64_t v;

	if (!buf || n == 0)
		return;
	if (ns < 0) {
		tmp[k++] = '-';
		v = (uint64_t)0 - (uint64_t)ns;
	} else {
		v = (uint64_t)ns;
	}
	if (v == 0) {
		snprintf(buf, n, "0s");
		return;
	}
	/* Whole seconds and up as d h m s groups; what is left below a second
	 * as one group in the largest unit that holds it exactly. */
	for (size_t i = 0; i < 4; i++) {
		uint64_t unit = (uint64_t)duration_units[i].ns, q = v / unit;
		if (q) {
			k += (size_t)snprintf(tmp + k, sizeof(tmp) - k, "%" PRIu64 "%s", q, duration_units[i].name);
			v %= unit;
		}
	}
	if (v) {
		const char *name = "ns";
		if (v % 1000000 == 0) {
			v /= 1000000;
			name = "ms";
		} else if (v % 1000 == 0) {
			v /= 1000;
			name = "us";
		}
		snprintf(tmp + k, sizeof(tmp) - k, "%" PRIu64 "%s", v, name);
	} else {
		tmp[k] = '\0';
	}
	snprintf(buf, n, "%s", tmp);
}

void gl_format_duration_human(int64_t ns, char *buf, size_t n)
{
	static const struct {
		uint64_t big, small;
		const char *bn, *sn;
	} steps[] = {
		{ 86400000000000ULL, 3600000000000ULL, "d", "h" },
		{ 3600000000000ULL, 60000000000ULL, "h", "m" },
		{ 60000000000ULL, 1000000000ULL, "m", "s" },
	};
	const char *sign = ns < 0 ? "-" : "";
	uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	if (!buf || n == 0)
		return;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		uint64_t q = v / steps[i].big, r = v % steps[i].big / steps[i].small;
		if (!q)
			continue;
		if (r)
			snprintf(buf, n, "%s%" PRIu64 "%s%02" PRIu64 "%s", sign, q, steps[i].bn, r, steps[i].sn);
		else
			snprintf(buf, n, "%s%" PRIu64 "%s", sign, q, steps[i].bn);
		return;
	}
	snprintf(buf, n, "%s%" PRIu64 "s", v >= 1000000000ULL ? sign : "", (uint64_t)(v / 1000000000ULL));
}

/* ---- sizes -------------------------------------------------------------- */

static const struct {
	const char *name;
	uint64_t mult;
} size_units[] = {
	{ "B", 1 },
	{ "KB", 1000ULL },
	{ "MB", 1000ULL * 1000 },
	{ "GB", 1000ULL * 1000 * 1000 },
	{ "TB", 1000ULL * 1000 * 1000 * 1000 },
	{ "KiB", 1ULL << 10 },
	{ "MiB", 1ULL << 20 },
	{ "GiB", 1ULL << 30 },
	{ "TiB", 1ULL << 40 },
};

int gl_parse_size_bytes(const char *s, uint64_t *out, struct gl_err *err)
{
	char q[200];
	struct decimal d;
	uint64_t mult = 0, v;
	size_t n;
	int rc;

	if ((rc = check_input(s, "size", SIZE_HINT, err)) < 0)
		return rc;
	if (s[0] == '-')
		return gl_errf(err, GL_EINVAL, "negative size '%s', %s", quote(s, q, sizeof(q)), SIZE_HINT);
	n = scan_decimal(s, &d);
	if (n == 0)
		return gl_errf(err, GL_EINVAL, "%s, got '%s'", SIZE_HINT, quote(s, q, sizeof(q)));
	if (s[n] == '\0') {
		if (d.has_point)
			return gl_errf(err, GL_EINVAL, "size '%s' needs a unit when it has a fraction, %s",
				       quote(s, q, sizeof(q)), SIZE_HINT);
		mult = 1;
	} else {
		for (size_t k = 0; k < GL_ARRAY_LEN(size_units); k++)
			if (strcmp(s + n, size_units[k].name) == 0)
				mult = size_units[k].mult;
	}
	if (!mult)
		return gl_errf(err, GL_EINVAL, "%s, got '%s'", SIZE_HINT, quote(s, q, sizeof(q)));
	if (d.frac_too_long)
		return gl_errf(err, GL_EINVAL, "size '%s' has more than %d digits after the point",
			       quote(s, q, sizeof(q)), FRAC_MAX_DIGITS);
	rc = decimal_times(&d, mult, SIZE_MAX_BYTES, &v);
	if (rc == 1)
		return gl_errf(err, GL_EINVAL, "size '%s' is not a whole number of bytes", quote(s, q, sizeof(q)));
	if (rc == 2)
		return gl_errf(err, GL_EINVAL, "size '%s' is larger than 2^62 bytes", quote(s, q, sizeof(q)));
	*out = v;
	return 0;
}

/* ---- rates and targets -------------------------------------------------- */

/* Reads -?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)? at s (the sign only when
 * allow_neg) and converts it. Returns the bytes consumed, 0 on bad syntax,
 * and sets *inf when the value does not fit in a double. */
static size_t scan_double(const char *s, int allow_neg, double *out, int *inf)
{
	char tmp[UNITS_MAX_LEN + 1], *end;
	size_t i = 0;

	*inf = 0;
	if (allow_neg && s[i] == '-')
		i++;
	if (!is_digit(s[i]))
		return 0;
	while (is_digit(s[i]))
		i++;
	if (s[i] == '.') {
		if (!is_digit(s[++i]))
			return 0;
		while (is_digit(s[i]))
			i++;
	}
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (is_digit(s[j])) {
			while (is_digit(s[j]))
				j++;
			i = j;
		}
	}
	/* check_input bounded the whole string, so i fits. */
	memcpy(tmp, s, i);
	tmp[i] = '\0';
	*out = strtod(tmp, &end);
	if (*end != '\0')
		return 0; /* a locale with another decimal point */
	if (!isfinite(*out))
		*inf = 1;
	return i;
}

int gl_parse_rate(const char *s, double *per_s, struct gl_err *err)
{
	char q[200];
	double v, div = 1;
	size_t n;
	int inf, rc;

	if ((rc = check_input(s, "rate", RATE_HINT, err)) < 0)
		return rc;
	if (s[0] == '-')
		return gl_errf(err, GL_EINVAL, "negative rate '%s', %s", quote(s, q, sizeof(q)), RATE_HINT);
	n = scan_double(s, 0, &v, &inf);
	if (n == 0)
		return gl_errf(err, GL_EINVAL, "%s, got '%s'", RATE_HINT, quote(s, q, sizeof(q)));
	if (strcmp(s + n, "/s") == 0)
		div = 1;
	else if (strcmp(s + n, "/m") == 0)
		div = 60;
	else if (strcmp(s + n, "/h") == 0)
		div = 3600;
	else if (s[n] != '\0')
		return gl_errf(err, GL_EINVAL, "%s, got '%s'", RATE_HINT, quote(s, q, sizeof(q)));
	if (inf)
		return gl_errf(err, GL_EINVAL, "rate '%s' is out of range", quote(s, q, sizeof(q)));
	*per_s = v / div;
	return 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

int gl_parse_target_expr(const char *s, struct gl_target_expr *out, struct gl_err *err)
{
	static const struct {
		const char *tok;
		enum gl_cmp op;
	} ops[] = {
		/* Two-character operators before their one-character prefixes. */
		{ "<=", GL_CMP_LE }, { ">=", GL_CMP_GE }, { "==", GL_CMP_EQ },
		{ "!=", GL_CMP_NE }, { "<", GL_CMP_LT },  { ">", GL_CMP_GT },
	};
	char q[200];
	size_t i = 0, n;
	double v;
	int inf, rc, op = -1;

	if ((rc = check_input(s, "target", TARGET_HINT, err)) < 0)
		return rc;
	while (is_space(s[i]))
		i++;
	for (size_t k = 0; k < GL_ARRAY_LEN(ops); k++) {
		size_t len = strlen(ops[k].tok);
		if (strncmp(s + i, ops[k].tok, len) == 0) {
			op = (int)k;
			i += len;
			break;
		}
	}
	if (op < 0)
		return gl_errf(err, GL_EINVAL, "%s, got '%s'", TARGET_HINT, quote(s, q, sizeof(q)));
	while (is_space(s[i]))
		i++;
	n = scan_double(s + i, 1, &v, &inf);
	if (n == 0)
		return gl_errf(err, GL_EINVAL, "%s, got '%s'", TARGET_HINT, quote(s, q, sizeof(q)));
	i += n;
	while (is_space(s[i]))
		i++;
	if (s[i] != '\0')
		return gl_errf(err, GL_EINVAL, "%s, got '%s'", TARGET_HINT, quote(s, q, sizeof(q)));
	if (inf)
		return gl_errf(err, GL_EINVAL, "target '%s': the number is out of range", quote(s, q, sizeof(q)));
	out->op = ops[op].op;
	out->threshold = v;
	return 0;
}

const char *gl_cmp_str(enum gl_cmp op)
{
	switch (op) {
	case GL_CMP_LE: return "<=";
	case GL_CMP_LT: return "<";
	case GL_CMP_GE: return ">=";
	case GL_CMP_GT: return ">";
	case GL_CMP_EQ: return "==";
	case GL_CMP_NE: return "!=";
	}
	return "?";
}

/* A NaN measurement (no data, 0/0) never meets a target, whatever the op:
 * a gate must not pass on a value that was not measured. */
int gl_cmp_eval(enum gl_cmp op, double measured, double threshold)
{
	if (isnan(measured) || isnan(threshold))
		return 0;
	switch (op) {
	case GL_CMP_LE: return measured <= threshold;
	case GL_CMP_LT: return measured < threshold;
	case GL_CMP_GE: return measured >= threshold;
	case GL_CMP_GT: return measured > threshold;
	case GL_CMP_EQ: return measured == threshold;
	case GL_CMP_NE: return measured != threshold;
	}
	return 0;
}
