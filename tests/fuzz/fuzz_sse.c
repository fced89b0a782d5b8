/*
 * fuzz_sse.c - fuzz target for loadgen/sse.c. The input is one response
 * body. It is fed twice in OpenAI mode: whole, and in fragments whose sizes
 * come from the input itself (one byte at a time included); every event is
 * also run through the whole-response interpreter. The two feedings must
 * give the same events and the same end classification, or the target
 * aborts. Caps are small so the error paths are reached.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_hash.h"
#include "sse.h"

struct fz {
	uint64_t hash; /* FNV-1a over every event's parts */
	uint64_t n;
};

static void mix(struct fz *z, const void *p, size_t n)
{
	gl_fz_mix(&z->hash, p, n);
}

static int on_event(void *ctx, const struct gl_sse_event *ev)
{
	struct fz *z = ctx;
	struct gl_oai_chunk whole;
	unsigned char flags;

	z->n++;
	mix(z, ev->event, strlen(ev->event));
	mix(z, ev->id, strlen(ev->id));
	mix(z, ev->data, ev->data_len);
	if (ev->data[ev->data_len] != '\0')
		abort(); /* data is promised NUL-terminated */
	flags = (unsigned char)(ev->oai->kind | ev->oai->has_token << 4 | ev->oai->is_error << 5 |
				ev->oai->is_malformed << 6 | ev->oai->has_usage << 7);
	mix(z, &flags, 1);
	mix(z, &ev->oai->cached_tokens, sizeof(ev->oai->cached_tokens));
	if (ev->oai->cached_tokens < -1 || (ev->oai->cached_tokens >= 0 && !ev->oai->has_usage))
		abort(); /* a count, or -1 unknown; only inside a usage object */
	if (ev->oai->has_token != (ev->oai->content_bytes + ev->oai->reasoning_bytes + ev->oai->tool_call_bytes > 0))
		abort();
	gl_oai_parse_response(ev->data, ev->data_len, &whole);
	if (whole.is_done)
		abort();
	return 0;
}

static enum gl_sse_class run(const uint8_t *data, size_t size, size_t max_line, size_t max_data, const uint8_t *cuts,
			     size_t n_cuts, struct fz *z)
{
	struct gl_sse *p = gl_sse_new(max_line, max_data, GL_SSE_OPENAI, on_event, z);
	enum gl_sse_class cls;
	size_t at = 0, k = 0;

	if (!p)
		abort();
	while (at < size) {
		size_t step = size - at;
		if (n_cuts) {
			step = 1 + (size_t)(cuts[k++ % n_cuts] % 16); /* 1..16 bytes */
			if (step > size - at)
				step = size - at;
		}
		gl_sse_feed(p, (const char *)data + at, step);
		at += step;
	}
	cls = gl_sse_finish(p, NULL);
	if (gl_sse_mem_bytes(p) > 3 * (max_line + 1) + max_data + 1 + 4096)
		abort(); /* the caps must hold */
	gl_sse_free(p);
	return cls;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz a = { 0xCBF29CE484222325ULL, 0 }, b = { 0xCBF29CE484222325ULL, 0 };
	size_t max_line = 64, max_data = 512;
	enum gl_sse_class ca, cb;
	struct gl_oai_chunk c;

	if (size > 0 && (data[0] & 1)) {
		max_line = 4096;
		max_data = 16384;
	}
	ca = run(data, size, max_line, max_data, NULL, 0, &a);
	/* Fragment sizes from the input's own bytes. */
	cb = run(data, size, max_line, max_data, size ? data : (const uint8_t *)"\1", size ? size : 1, &b);
	if (ca != cb || a.n != b.n || a.hash != b.hash)
		abort();
	{
		static const uint8_t one = 0; /* one byte at a time */
		struct fz d = { 0xCBF29CE484222325ULL, 0 };
		if (size <= 4096 && (run(data, size, max_line, max_data, &one, 1, &d) != ca || d.hash != a.hash))
			abort();
	}
	gl_oai_parse_chunk(NULL, (const char *)data, size, &c);
	gl_oai_parse_response((const char *)data, size, &c);
	{
		int g = gl_oai_model_not_found((const char *)data, size, "sql");
		if ((g != 0 && g != 1) || g != gl_oai_model_not_found((const char *)data, size, "sql") ||
		    (size == 0 && gl_oai_model_not_found(NULL, 0, "sql")))
			abort();
	}
	return 0;
}
