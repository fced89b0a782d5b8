/*
 * fuzz_prom.c - fuzz target for harness/lib/prom.c. The input is one scrape
 * body, copied into a buffer of exactly its size (no NUL after it, so an
 * over-read trips the sanitizer). It is parsed twice with small caps and
 * once with the defaults; the two small-cap parses must give the same
 * samples, class and line, and every sample must keep the promises of
 * prom.h (labels within the cap, names well formed, values NUL-terminated
 * valid UTF-8), or the target aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_hash.h"
#include "prom.h"

struct fz {
	uint64_t hash;
	size_t n;
	int max_labels;
};

static void mix(struct fz *z, const void *p, size_t n)
{
	gl_fz_mix(&z->hash, p, n);
}

static int name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      *s == ':'))
			return 0;
	return 1;
}

static int on_sample(void *arg, const struct gl_prom_sample *s)
{
	struct fz *z = arg;

	z->n++;
	if (s->n_labels < 0 || s->n_labels > z->max_labels || !name_ok(s->name) || s->line < 1)
		abort();
	mix(z, s->name, strlen(s->name));
	for (int i = 0; i < s->n_labels; i++) {
		if (!name_ok(s->labels[i].name) || !gl_utf8_valid(s->labels[i].value, strlen(s->labels[i].value)))
			abort();
		mix(z, s->labels[i].name, strlen(s->labels[i].name));
		mix(z, s->labels[i].value, strlen(s->labels[i].value));
	}
	mix(z, &s->value, sizeof(s->value));
	mix(z, &s->timestamp_ms, sizeof(s->timestamp_ms));
	mix(z, &s->type, sizeof(s->type));
	(void)gl_dcgm_is_blank(s->value);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gl_prom_limits small = { 4096, 128, 4, 64 };
	struct gl_prom_result ra, rb, rc;
	struct fz a = { 0xCBF29CE484222325ULL, 0, 4 }, b = a, c = { 0xCBF29CE484222325ULL, 0, 64 };
	char *buf = malloc(size ? size : 1);
	int xa, xb;

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	xa = gl_prom_parse(buf, size, &small, on_sample, &a, &ra, NULL);
	xb = gl_prom_parse(buf, size, &small, on_sample, &b, &rb, NULL);
	if (xa != xb || a.hash != b.hash || a.n != b.n || ra.cls != rb.cls || ra.line != rb.line || ra.samples != a.n ||
	    (xa == 0) != (ra.cls == GL_PROM_OK))
		abort();
	gl_prom_parse(buf, size, NULL, on_sample, &c, &rc, NULL);
	/* a body the small caps accept, the defaults accept the same way */
	if (xa == 0 && (rc.cls != GL_PROM_OK || c.hash != a.hash))
		abort();
	free(buf);
	return 0;
}
