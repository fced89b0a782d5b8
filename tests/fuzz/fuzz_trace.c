/*
 * fuzz_trace.c - fuzz target for loadgen/trace.c. The input is one trace
 * file, read from memory in every format (auto-detected and each forced):
 * all rows, then a rewind and a second pass that must see the same rows
 * and count no new malformed ones. Row pointers are read in full so that a
 * bad borrowed pointer shows under the sanitizers, offsets must never
 * decrease, and the prompt synthesizer runs on the hash ids found.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "util.h"

static uint64_t touch_row(const struct gl_trace_row *r, struct gl_buf *synth)
{
	uint64_t h = r->row_number;

	if (r->prompt)
		h += strlen(r->prompt) + r->prompt_len;
	if (r->messages_json)
		h += strlen(r->messages_json);
	for (size_t i = 0; i < r->n_hash_ids; i++)
		h += (uint64_t)r->hash_ids[i];
	if (!isfinite(r->t_offset_s) || r->t_offset_s < 0 || r->n_hash_ids > GL_TRACE_MAX_HASH_IDS)
		abort();
	if (r->n_hash_ids && r->input_tokens >= 0) {
		unsigned n = r->input_tokens > 300 ? 300 : (unsigned)r->input_tokens;
		synth->len = 0;
		if (gl_prompt_synth(1, r->row_number, n, r->hash_ids, r->n_hash_ids, 16, synth) < 0)
			abort();
	}
	return h;
}

static void one_pass(struct gl_trace *t, uint64_t *rows, uint64_t *sum, struct gl_buf *synth)
{
	struct gl_trace_row r;
	double prev = -1;
	int rc;

	*rows = 0;
	*sum = 0;
	while ((rc = gl_trace_next(t, &r)) == 1) {
		if (r.has_time) {
			if (r.t_offset_s < prev)
				abort(); /* offsets never decrease */
			prev = r.t_offset_s;
		}
		*sum += touch_row(&r, synth);
		(*rows)++;
	}
	if (rc < 0)
		abort(); /* memory input: no fatal errors expected */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum gl_trace_format fmts[] = { GL_TRACE_AUTO, GL_TRACE_AZURE, GL_TRACE_BURSTGPT,
						     GL_TRACE_MOONCAKE, GL_TRACE_PROMPTS };
	static int quiet;
	struct gl_buf synth;

	if (!quiet) {
		gl_log_init(GL_LOG_ERROR); /* bad rows are the point here; keep it quiet */
		quiet = 1;
	}
	gl_buf_init(&synth, 1 << 16);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct gl_err err = { 0 };
		struct gl_trace *t = gl_trace_open_mem(data, size, "fuzz", fmts[i], &err);
		uint64_t rows1, sum1, rows2, sum2, bad1;

		if (!t) {
			if (err.code == 0)
				abort(); /* a failed open must say why */
			continue;
		}
		one_pass(t, &rows1, &sum1, &synth);
		bad1 = gl_trace_malformed_count(t);
		if (gl_trace_rewind(t) != 0)
			abort();
		one_pass(t, &rows2, &sum2, &synth);
		if (rows1 != rows2 || sum1 != sum2 || gl_trace_malformed_count(t) != bad1)
			abort();
		gl_trace_close(t);
	}
	gl_buf_free(&synth);
	return 0;
}
