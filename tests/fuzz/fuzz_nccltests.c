/*
 * fuzz_nccltests.c - fuzz target for loadgen/nccltests.c. The input is one
 * captured nccl-tests output or JSON report; it goes through the text
 * parser, the JSON parser and the auto-detecting entry point. Every result,
 * success or error, must hold: the caps, an error message exactly when the
 * code is negative, NUL-terminated strings, measured values that are -1 or
 * finite and non-negative, wrong_total equal to the (saturated) sum of the
 * rows' #wrong, busbw_at no higher than any busbw of its size, and a
 * pitfall verdict that writes a terminated sentence into any buffer size.
 * The text parse runs twice and must give the same rows. Results must free
 * cleanly (twice, too).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nccltests.h"
#include "util.h"

static void check_value(double v)
{
	if (!(v == -1 || (isfinite(v) && v >= 0)))
		abort();
}

static void check_str(const char *s, size_t n)
{
	if (!memchr(s, '\0', n))
		abort();
}

static void check_result(int rc, const struct gl_nccl_result *r, const struct gl_err *err)
{
	long sum = 0;

	if (rc > 0 || (rc < 0) != (err->code != 0) || (rc < 0 && !err->msg[0]))
		abort();
	check_str(err->msg, sizeof(err->msg));
	if (r->nrows < 0 || r->nrows > GL_NCCL_MAX_ROWS || (r->nrows > 0 && !r->rows))
		abort();
	if (r->headers < 0 || r->ranks_listed < 0 || r->max_rank < -1 ||
	    (r->max_rank == -1) != (r->ranks_listed == 0) || r->nthread < 0 || r->ngpus < 0 || r->validation < -1 ||
	    r->failures < 0 || r->rows_incomplete < 0 || r->lines_skipped < 0 || r->nccl_lines < 0 || r->oob_values < 0)
		abort();
	check_str(r->collective, sizeof(r->collective));
	check_str(r->tests_version, sizeof(r->tests_version));
	check_str(r->failure, sizeof(r->failure));
	if (r->failures == 0 && r->failure[0])
		abort();
	for (int i = 0; i < r->nrows; i++) {
		const struct gl_nccl_row *w = &r->rows[i];
		double at;
		check_str(w->type, sizeof(w->type));
		check_str(w->redop, sizeof(w->redop));
		for (int k = 0; k < 2; k++) {
			check_value(w->time_us[k]);
			check_value(w->algbw[k]);
			check_value(w->busbw[k]);
			if (w->wrong[k] < -1 || (w->err_delta[k] < 0 && w->err_delta[k] != -1))
				abort();
			if (w->wrong[k] > 0)
				sum = sum > LONG_MAX - w->wrong[k] ? LONG_MAX : sum + w->wrong[k];
		}
		if (w->block < 0 || w->block >= (r->headers > 0 ? r->headers : 1) || w->line < 0)
			abort();
		at = gl_nccl_busbw_at(r, w->size);
		check_value(at);
		for (int k = 0; k < 2; k++)
			if (w->busbw[k] >= 0 && (at < 0 || at > w->busbw[k]))
				abort();
	}
	if (sum != r->wrong_total)
		abort();
	for (int world = -1; world <= 4; world++) {
		static const size_t sizes[] = { 0, 1, 7, 300 };
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			char why[300];
			int p;
			memset(why, 'Z', sizeof(why));
			p = gl_nccl_pitfall(r, world, sizes[s] ? why : NULL, sizes[s]);
			if (p != 0 && p != 1)
				abort();
			if (sizes[s]) {
				check_str(why, sizes[s]);
				if ((p == 0 && why[0]) || (p == 1 && sizes[s] > 1 && !why[0]))
					abort();
			}
		}
	}
}

static int rows_equal(const struct gl_nccl_result *a, const struct gl_nccl_result *b)
{
	if (a->nrows != b->nrows || a->headers != b->headers || a->wrong_total != b->wrong_total ||
	    a->rows_incomplete != b->rows_incomplete || a->failures != b->failures)
		return 0;
	for (int i = 0; i < a->nrows; i++)
		if (memcmp(&a->rows[i], &b->rows[i], sizeof(a->rows[i])) != 0)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct gl_nccl_result r, r2;
	struct gl_err err, err2;
	int rc, rc2;

	gl_err_clear(&err);
	rc = gl_nccl_parse_text(buf, size, &r, &err);
	check_result(rc, &r, &err);
	gl_err_clear(&err2);
	rc2 = gl_nccl_parse_text(buf, size, &r2, &err2);
	if (rc != rc2 || strcmp(err.msg, err2.msg) != 0 || !rows_equal(&r, &r2))
		abort();
	gl_nccl_result_free(&r2);
	gl_nccl_result_free(&r);
	gl_nccl_result_free(&r);
	if (r.rows || r.nrows)
		abort();

	gl_err_clear(&err);
	rc = gl_nccl_parse_json(buf, size, &r, &err);
	check_result(rc, &r, &err);
	if (!r.from_json)
		abort();
	gl_nccl_result_free(&r);

	gl_err_clear(&err);
	rc = gl_nccl_parse(buf, size, &r, &err);
	check_result(rc, &r, &err);
	gl_nccl_result_free(&r);
	return 0;
}
