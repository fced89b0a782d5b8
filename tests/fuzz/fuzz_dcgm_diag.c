/*
 * fuzz_dcgm_diag.c - fuzz target for harness/core/gate_dcgm.c, the reader
 * of `dcgmi diag -j` output that judges the diagnostic gates. The input is
 * one captured output (DCGM 3 or 4 shape, iterations, runtime errors).
 * Every result, success or error, must hold: an error message exactly when
 * the code is negative, and then nothing kept; otherwise rows within the
 * cap, counts that add up to the rows kept plus those dropped, every
 * string NUL-terminated and free of control characters, a status that is
 * the worst row's (a runtime error fails), and a first-problem sentence
 * exactly when something failed or warned. A second parse gives the same
 * rows. Results must free cleanly (twice, too).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate_dcgm.h"

static void check_str(const char *s, size_t n)
{
	const char *end = memchr(s, '\0', n);
	if (!end)
		abort();
	for (; s < end; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gl_dcgm_result r, again;
	struct gl_err err = { 0 }, err2 = { 0 };
	char problem[700];
	int rc = gl_dcgm_parse((const char *)data, size, &r, &err), worst = GL_GATE_PASS;
	int counts[4] = { 0 };

	if (rc > 0 || (rc < 0) != (err.code != 0) || (rc < 0 && !err.msg[0]))
		abort();
	if (rc < 0) {
		if (r.rows || r.n_rows)
			abort();
		gl_dcgm_free(&r);
		return 0;
	}
	if (r.n_rows < 0 || r.n_rows > GL_DCGM_ROWS_MAX || (r.n_rows && !r.rows))
		abort();
	check_str(r.version, sizeof(r.version));
	check_str(r.runtime_error, sizeof(r.runtime_error));
	for (int i = 0; i < r.n_rows; i++) {
		const struct gl_dcgm_row *w = &r.rows[i];
		check_str(w->category, sizeof(w->category));
		check_str(w->test, sizeof(w->test));
		check_str(w->entity, sizeof(w->entity));
		check_str(w->detail, sizeof(w->detail));
		if (w->status < GL_GATE_PASS || w->status > GL_GATE_FAIL || w->id < -1)
			abort();
		counts[w->status]++;
		if (w->status != GL_GATE_SKIP && w->status > worst)
			worst = w->status;
	}
	if (counts[GL_GATE_PASS] + counts[GL_GATE_SKIP] + counts[GL_GATE_WARN] + counts[GL_GATE_FAIL] +
		    r.rows_dropped !=
	    r.n_pass + r.n_skip + r.n_warn + r.n_fail)
		abort();
	if (r.runtime_error[0])
		worst = GL_GATE_FAIL;
	if (!r.rows_dropped && r.status != worst)
		abort();
	if (r.status == GL_GATE_SKIP)
		abort();
	gl_dcgm_first_problem(&r, problem, sizeof(problem));
	if (!r.rows_dropped && (problem[0] != '\0') != (r.status >= GL_GATE_WARN))
		abort();
	gl_dcgm_first_problem(&r, problem, 1);
	if (problem[0])
		abort();
	if (gl_dcgm_parse((const char *)data, size, &again, &err2) != 0 || again.n_rows != r.n_rows ||
	    (r.n_rows && memcmp(again.rows, r.rows, sizeof(*r.rows) * (size_t)r.n_rows)) || again.status != r.status)
		abort();
	gl_dcgm_free(&again);
	gl_dcgm_free(&r);
	gl_dcgm_free(&r);
	return 0;
}
