/*
 * units.h - the scenario's value grammar: durations, sizes, rates and target
 * expressions. Pure functions, no allocation; every parser is bounded and
 * fuzzed (tests/fuzz/fuzz_units.c).
 *
 * Errors say what was expected, e.g. "expected a duration like 500ms, 90s,
 * 10m, 168h or 1h30m, got '12x'". Callers prefix the JSON path.
 */
#ifndef GL_UNITS_H
#define GL_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Durations: one or more <number><unit> groups, units ns us ms s m h d, largest
 * first and each unit at most once ("1h30m", "1m30.5s", "500ms", "168h").
 * A bare "0" is zero. Negative, empty, overflowing (> 10 years) or
 * unit-less non-zero values are errors. */
int gl_parse_duration_ns(const char *s, int64_t *out_ns, struct gl_err *err);

/* Format ns as the shortest exact duration string ("1h30m", "500ms", "0s"). */
void gl_format_duration(int64_t ns, char *buf, size_t n);
/* Format ns for people, cut (never rounded up) to its two largest units,
 * the smaller one in two digits: "38s", "2m38s", "1h02m", "3d04h"; a zero
 * smaller unit is left out ("5m", "1h", "7d"); under a second "0s". Parses
 * back, to the part it kept. */
void gl_format_duration_human(int64_t ns, char *buf, size_t n);

/* Sizes: <number><unit>, units B, KB MB GB TB (powers of 1000) and KiB MiB
 * GiB TiB (powers of 1024); a bare integer is bytes. Fractions allowed when
 * the result is a whole number of bytes ("1.5GiB"). Max 2^62. */
int gl_parse_size_bytes(const char *s, uint64_t *out, struct gl_err *err);

/* Rates: "20", "20/s", "1200/m", "5/h" -> per second, finite, >= 0. */
int gl_parse_rate(const char *s, double *per_s, struct gl_err *err);

enum gl_cmp { GL_CMP_LE, GL_CMP_LT, GL_CMP_GE, GL_CMP_GT, GL_CMP_EQ, GL_CMP_NE };

struct gl_target_expr {
	enum gl_cmp op;
	double threshold;
};

/* Target expressions: "<= 800", ">= 3.33", "< 5", "> 0.5", "== 0", "!= 0";
 * spaces optional; the number is finite. */
int gl_parse_target_expr(const char *s, struct gl_target_expr *out, struct gl_err *err);
const char *gl_cmp_str(enum gl_cmp op); /* "<=", ">=", ... */
int gl_cmp_eval(enum gl_cmp op, double measured, double threshold); /* 1 holds */

#endif
