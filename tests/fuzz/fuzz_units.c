/*
 * fuzz_units.c - feeds one input, cut at its first NUL, to every parser in
 * units.h. Beyond "no crash, no sanitizer report" it checks properties:
 * every error carries a message, a parsed duration is within 10 years and
 * survives gl_format_duration and back unchanged, a size is at most 2^62,
 * a rate and a threshold are finite, and a rate is not negative.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond)
{
	if (!cond)
		abort();
}

static void check_err(int rc, const struct gl_err *err)
{
	if (rc == 0)
		must(err->code == 0);
	else
		must(rc < 0 && err->code == -rc && err->msg[0] != '\0' &&
		     memchr(err->msg, '\0', sizeof(err->msg)) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct gl_err err;
	int64_t ns;
	uint64_t bytes;
	double rate;
	struct gl_target_expr t;
	int rc;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	gl_err_clear(&err);
	rc = gl_parse_duration_ns(s, &ns, &err);
	check_err(rc, &err);
	if (rc == 0) {
		char buf[64];
		int64_t back = -1;
		must(ns >= 0 && ns <= 315576000LL * 1000000000LL);
		gl_format_duration(ns, buf, sizeof(buf));
		gl_err_clear(&err);
		must(gl_parse_duration_ns(buf, &back, &err) == 0 && back == ns);
	}

	gl_err_clear(&err);
	rc = gl_parse_size_bytes(s, &bytes, &err);
	check_err(rc, &err);
	if (rc == 0)
		must(bytes <= (1ULL << 62));

	gl_err_clear(&err);
	rc = gl_parse_rate(s, &rate, &err);
	check_err(rc, &err);
	if (rc == 0)
		must(isfinite(rate) && rate >= 0);

	gl_err_clear(&err);
	rc = gl_parse_target_expr(s, &t, &err);
	check_err(rc, &err);
	if (rc == 0) {
		must(isfinite(t.threshold));
		must(strlen(gl_cmp_str(t.op)) >= 1 && gl_cmp_str(t.op)[0] != '?');
		must(gl_cmp_eval(t.op, NAN, t.threshold) == 0);
	}

	/* Formatting any 64-bit value stays in bounds, even into tiny buffers. */
	if (size >= 8) {
		int64_t v;
		char small[5], big[64];
		memcpy(&v, data, sizeof(v));
		gl_format_duration(v, small, sizeof(small));
		gl_format_duration(v, big, sizeof(big));
		must(strlen(small) < sizeof(small) && strncmp(small, big, strlen(small)) == 0);
	}
	free(s);
	return 0;
}
