/*
 * fuzz_http1.c - fuzz target for loadgen/http1.c. The input is the bytes a
 * server sent on one connection. It is fed whole, in fragments whose sizes
 * come from the input itself, and (short inputs) one byte at a time, each
 * time as a client would: up to an error or the end of the response, then
 * the peer's close. The feedings must agree on status, done, keep-alive,
 * error, the bytes consumed, the end-of-file answer and the body (a hash of
 * its bytes, not of how they were cut), or the target aborts; so it does
 * when more body bytes come than Content-Length says, when a feed claims
 * more bytes than it was given, or when fields contradict each other.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_hash.h"
#include "http1.h"

struct out {
	uint64_t hash; /* FNV-1a over the body bytes, one by one */
	int64_t seen; /* body bytes the callback saw */
	int64_t consumed; /* -1 after an error */
	int status, done, keep_alive, chunked, eof;
	enum gl_h1_err error;
	int64_t content_length, body_bytes;
};

static int on_body(void *arg, const char *d, size_t n)
{
	struct out *o = arg;

	if (n == 0)
		abort(); /* no empty callbacks */
	for (size_t i = 0; i < n; i++) {
		o->hash ^= (unsigned char)d[i];
		o->hash *= 0x100000001B3ULL;
	}
	o->seen += (int64_t)n;
	return 0;
}

static void run(const uint8_t *data, size_t size, const uint8_t *cuts, size_t n_cuts, struct out *o)
{
	struct gl_h1 p;
	size_t at = 0, k = 0;

	memset(o, 0, sizeof(*o));
	o->hash = 0xCBF29CE484222325ULL;
	gl_h1_init(&p);
	while (at < size) {
		size_t step = size - at;
		ssize_t r;
		if (n_cuts) {
			step = 1 + (size_t)(cuts[k++ % n_cuts] % 32); /* 1..32 bytes */
			if (step > size - at)
				step = size - at;
		}
		r = gl_h1_feed(&p, (const char *)data + at, step, on_body, o);
		if (r < 0) {
			if (!p.error)
				abort();
			o->consumed = -1;
			break;
		}
		if ((size_t)r > step || p.error || ((size_t)r < step && !p.done))
			abort();
		o->consumed += r;
		at += step;
		if (p.done)
			break;
	}
	o->eof = gl_h1_eof(&p);
	if (p.done && gl_h1_feed(&p, "x", 1, on_body, o) != (p.error ? -1 : 0))
		abort(); /* a finished response takes nothing more */
	if (p.body_bytes != o->seen || (p.content_length >= 0 && p.body_bytes > p.content_length) ||
	    (p.done && !p.error && !p.head_done) || (p.head_done && (p.status < 200 || p.status > 999)) ||
	    (p.chunked && p.content_length != -1) || (o->eof && !p.done) || (p.error && o->eof))
		abort();
	o->status = p.status;
	o->done = p.done;
	o->keep_alive = p.done ? p.keep_alive : 0;
	o->chunked = p.chunked;
	o->error = p.error;
	o->content_length = p.content_length;
	o->body_bytes = p.body_bytes;
}

static int differ(const struct out *a, const struct out *b)
{
	return a->hash != b->hash || a->seen != b->seen || a->consumed != b->consumed || a->status != b->status ||
	       a->done != b->done || a->keep_alive != b->keep_alive || a->chunked != b->chunked || a->eof != b->eof ||
	       a->error != b->error || a->content_length != b->content_length || a->body_bytes != b->body_bytes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t one = 0;
	struct out a, b, c;

	run(data, size, NULL, 0, &a);
	if (a.consumed > (int64_t)size)
		abort();
	run(data, size, size ? data : &one, size ? size : 1, &b);
	if (differ(&a, &b))
		abort();
	if (size <= 4096) {
		run(data, size, &one, 1, &c);
		if (differ(&a, &c))
			abort();
	}
	return 0;
}
