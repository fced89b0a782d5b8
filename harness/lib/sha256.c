/*
 * sha256.c - SHA-256 with a portable block function and, on x86-64, one
 * built on the SHA-NI instructions (sha256rnds2, sha256msg1/2), picked at
 * run time. Both are checked against each other and the FIPS vectors in
 * tests/unit/test_sha256.c.
 */
#include "sha256.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t sha_k[64] __attribute__((aligned(16))) = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void blocks_portable(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
	for (; nblocks; nblocks--, p += 64) {
		uint32_t w[64], a, b, c, d, e, f, g, hh;

		for (int i = 0; i < 16; i++)
			w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
			       p[4 * i + 3];
		for (int i = 16; i < 64; i++) {
			uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
			uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
			w[i] = w[i - 16] + s0 + w[i - 7] + s1;
		}
		a = h[0];
		b = h[1];
		c = h[2];
		d = h[3];
		e = h[4];
		f = h[5];
		g = h[6];
		hh = h[7];
		for (int i = 0; i < 64; i++) {
			uint32_t t1 =
				hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
			uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
			hh = g;
			g = f;
			f = e;
			e = d + t1;
			d = c;
			c = b;
			b = a;
			a = t1 + t2;
		}
		h[0] += a;
		h[1] += b;
		h[2] += c;
		h[3] += d;
		h[4] += e;
		h[5] += f;
		h[6] += g;
		h[7] += hh;
	}
}

#if defined(__x86_64__)
/*
 * The state lives in two registers as ABEF and CDGH (the order the
 * instructions want); each sha256rnds2 does two rounds, so a group of four
 * message words takes two. The schedule for group g+4 is made from groups
 * g..g+3 while group g is being consumed.
 */
__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_ni(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i tmp, st0, st1;

	tmp = _mm_loadu_si128((const __m128i *)&h[0]);
	st1 = _mm_loadu_si128((const __m128i *)&h[4]);
	tmp = _mm_shuffle_epi32(tmp, 0xB1); /* CDAB */
	st1 = _mm_shuffle_epi32(st1, 0x1B); /* EFGH */
	st0 = _mm_alignr_epi8(tmp, st1, 8); /* ABEF */
	st1 = _mm_blend_epi16(st1, tmp, 0xF0); /* CDGH */

	for (; nblocks; nblocks--, p += 64) {
		__m128i w[4], msg, save0 = st0, save1 = st1;

		for (int i = 0; i < 4; i++)
			w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
		for (int g = 0; g < 16; g++) {
			msg = _mm_add_epi32(w[g & 3], _mm_load_si128((const __m128i *)&sha_k[4 * g]));
			st1 = _mm_sha256rnds2_epu32(st1, st0, msg);
			msg = _mm_shuffle_epi32(msg, 0x0E);
			st0 = _mm_sha256rnds2_epu32(st0, st1, msg);
			if (g < 12) {
				__m128i x = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
				x = _mm_add_epi32(x, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
				w[g & 3] = _mm_sha256msg2_epu32(x, w[(g + 3) & 3]);
			}
		}
		st0 = _mm_add_epi32(st0, save0);
		st1 = _mm_add_epi32(st1, save1);
	}
	tmp = _mm_shuffle_epi32(st0, 0x1B); /* FEBA */
	st1 = _mm_shuffle_epi32(st1, 0xB1); /* DCHG */
	st0 = _mm_blend_epi16(tmp, st1, 0xF0); /* DCBA */
	st1 = _mm_alignr_epi8(st1, tmp, 8); /* HGFE */
	_mm_storeu_si128((__m128i *)&h[0], st0);
	_mm_storeu_si128((__m128i *)&h[4], st1);
}

static int cpu_has_sha(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	if (!(b & (1u << 29))) /* SHA */
		return 0;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	return (c & (1u << 19)) && (c & (1u << 9)); /* SSE4.1, SSSE3 */
}
#endif

typedef void (*blocks_fn)(uint32_t h[8], const unsigned char *p, size_t nblocks);

static int force_portable;

static blocks_fn pick(void)
{
#if defined(__x86_64__)
	static int has = -1;

	if (has < 0)
		has = cpu_has_sha();
	if (has && !force_portable)
		return blocks_ni;
#endif
	return blocks_portable;
}

int gl_sha256_accelerated(void)
{
	return pick() != blocks_portable;
}

void gl_sha256_force_portable(int on)
{
	force_portable = on;
}

void gl_sha256_init(struct gl_sha256 *s)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(s->h, iv, sizeof(iv));
	s->buf_len = 0;
	s->total = 0;
}

void gl_sha256_update(struct gl_sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	blocks_fn fn = pick();

	s->total += len;
	if (s->buf_len) {
		size_t take = 64 - s->buf_len < len ? 64 - s->buf_len : len;
		memcpy(s->buf + s->buf_len, p, take);
		s->buf_len += take;
		p += take;
		len -= take;
		if (s->buf_len < 64)
			return;
		fn(s->h, s->buf, 1);
		s->buf_len = 0;
	}
	if (len >= 64) {
		fn(s->h, p, len / 64);
		p += len / 64 * 64;
		len %= 64;
	}
	memcpy(s->buf, p, len);
	s->buf_len = len;
}

void gl_sha256_final(struct gl_sha256 *s, unsigned char out[32])
{
	unsigned char tail[128];
	size_t tlen = s->buf_len + 1 + 8 <= 64 ? 64 : 128;
	uint64_t bits = s->total * 8;

	memset(tail, 0, sizeof(tail));
	memcpy(tail, s->buf, s->buf_len);
	tail[s->buf_len] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[tlen - 1 - i] = (unsigned char)(bits >> (8 * i));
	pick()(s->h, tail, tlen / 64);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

void gl_sha256_final_hex(struct gl_sha256 *s, char out[65])
{
	unsigned char d[32];

	gl_sha256_final(s, d);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

void gl_sha256_hex(const void *data, size_t len, char out[65])
{
	struct gl_sha256 s;

	gl_sha256_init(&s);
	gl_sha256_update(&s, data, len);
	gl_sha256_final_hex(&s, out);
}
