/*
 * test_sha256.c - SHA-256: the FIPS 180-4 vectors, and the accelerated
 * block function against the portable one over random data fed in random
 * pieces (every length 0..300 bytes plus large buffers), so a bug in either
 * path or in the buffering of updates shows as a mismatch.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sha256.h"
#include "util.h"

static void hash_pieces(const unsigned char *p, size_t n, unsigned seed, char out[65])
{
	struct gl_sha256 s;
	size_t off = 0;

	srand(seed);
	gl_sha256_init(&s);
	while (off < n) {
		size_t k = (size_t)rand() % 200;
		if (k > n - off)
			k = n - off;
		gl_sha256_update(&s, p + off, k);
		off += k;
	}
	gl_sha256_final_hex(&s, out);
}

int main(void)
{
	static const struct {
		const char *in, *hex;
	} vec[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
		  "lmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	/* n times 'a' at the padding edges (55: the last length whose length
	 * field fits in the same block; 64, 119: one and two blocks), digests
	 * from coreutils sha256sum, so neither path is judged by the other */
	static const struct {
		size_t n;
		const char *hex;
	} as[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
		{ 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
	};
	size_t big = (8 << 20) + 13;
	unsigned char *buf = malloc(big);
	char a[65], b[65], c[65];

	CHECK(buf != NULL);
	if (!buf)
		return check_done();
	printf("accelerated: %s\n", gl_sha256_accelerated() ? "yes (SHA-NI)" : "no (portable only)");
	memset(buf, 'a', 1000000);
	for (int pass = 0; pass < 2; pass++) {
		gl_sha256_force_portable(pass);
		for (size_t i = 0; i < GL_ARRAY_LEN(vec); i++) {
			gl_sha256_hex(vec[i].in, strlen(vec[i].in), a);
			CHECKF(!strcmp(a, vec[i].hex), "portable=%d '%s' -> %s", pass, vec[i].in, a);
		}
		for (size_t i = 0; i < GL_ARRAY_LEN(as); i++) {
			gl_sha256_hex(buf, as[i].n, a);
			CHECKF(!strcmp(a, as[i].hex), "portable=%d %zu x 'a' -> %s", pass, as[i].n, a);
			hash_pieces(buf, as[i].n, (unsigned)i, b);
			CHECKF(!strcmp(b, as[i].hex), "portable=%d %zu x 'a' in pieces -> %s", pass, as[i].n, b);
		}
	}
	gl_sha256_force_portable(0);

	srand(7);
	for (size_t i = 0; i < big; i++)
		buf[i] = (unsigned char)rand();
	for (size_t n = 0; n <= 300; n++) {
		gl_sha256_force_portable(1);
		gl_sha256_hex(buf + n, n, a);
		gl_sha256_force_portable(0);
		gl_sha256_hex(buf + n, n, b);
		hash_pieces(buf + n, n, (unsigned)n, c);
		CHECKF(!strcmp(a, b) && !strcmp(a, c), "length %zu: %s %s %s", n, a, b, c);
	}
	gl_sha256_force_portable(1);
	gl_sha256_hex(buf, big, a);
	gl_sha256_force_portable(0);
	gl_sha256_hex(buf, big, b);
	hash_pieces(buf, big, 3, c);
	CHECKF(!strcmp(a, b) && !strcmp(a, c), "8 MiB: %s %s %s", a, b, c);
	{
		/* a midstate: a copy taken after a prefix continues like the original */
		struct gl_sha256 pre, x;
		unsigned char d1[32];
		char h1[65];
		gl_sha256_init(&pre);
		gl_sha256_update(&pre, buf, 4096);
		for (int k = 0; k < 3; k++) {
			x = pre;
			gl_sha256_update(&x, buf + 4096 + 64 * k, 64);
			gl_sha256_final(&x, d1);
			for (int i = 0; i < 32; i++)
				snprintf(h1 + 2 * i, 3, "%02x", d1[i]);
			memcpy(buf + 100000, buf, 4096);
			memcpy(buf + 100000 + 4096, buf + 4096 + 64 * k, 64);
			gl_sha256_hex(buf + 100000, 4096 + 64, a);
			CHECKF(!strcmp(h1, a), "midstate %d: %s vs %s", k, h1, a);
		}
	}
	free(buf);
	return check_done();
}
