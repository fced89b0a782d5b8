/*
 * fuzz_agent_wire.c - fuzz target for what a load agent sends the
 * controller (harness/core/agent_wire.c): the input is read as a stream of
 * frames (gl_aw_next) and each DATA payload decoded, and the whole input is
 * also decoded as one DATA payload. Nothing may read past its buffer; a
 * payload that decodes must be canonical: encoding its series again gives
 * the same bytes. Violations abort.
 */
#include "agent_wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(cond)                                                                           \
	do {                                                                                        \
		if (!(cond)) {                                                                      \
			fprintf(stderr, "fuzz_agent_wire: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                    \
		}                                                                                   \
	} while (0)

static int again(void *arg, const char *name, const struct gl_hist *h, int64_t counter)
{
	gl_aw_data_add(arg, name, h, counter);
	return 0;
}

static void payload(const uint8_t *p, size_t n)
{
	struct gl_aw_data d;
	struct gl_err err = { 0 };
	int64_t win;
	int final;

	if (n < 13) {
		FUZZ_ASSERT(gl_aw_data_decode(p, n, &win, &final, again, NULL, &err) != 0);
		return;
	}
	{
		int64_t w0 = 0;
		for (int i = 0; i < 8; i++)
			w0 = (int64_t)((uint64_t)w0 << 8 | p[i]);
		gl_aw_data_begin(&d, w0 < 0 ? 0 : w0, p[8] == 1);
	}
	if (gl_aw_data_decode(p, n, &win, &final, again, &d, &err) == 0) {
		FUZZ_ASSERT(win >= 0 && (final == 0 || final == 1));
		FUZZ_ASSERT(gl_aw_data_end(&d) == 0);
		FUZZ_ASSERT(d.b.len == n && memcmp(d.b.data, p, n) == 0);
	} else {
		FUZZ_ASSERT(err.msg[0]);
	}
	gl_buf_free(&d.b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	payload(data, size);
	while (off < size) {
		const unsigned char *p;
		size_t plen, used;
		int type, rc = gl_aw_next(data + off, size - off, &type, &p, &plen, &used);
		if (rc <= 0)
			break;
		FUZZ_ASSERT(used == plen + 5 && used <= size - off && p == data + off + 5);
		if (type == GL_AW_DATA)
			payload(p, plen);
		off += used;
	}
	return 0;
}
