/*
 * sha256.h - SHA-256 (FIPS 180-4), one-shot and incremental. Checkpoint
 * shards are hashed while they are written and again when they are read
 * back, so the hash must keep up with a disk: on x86-64 CPUs with the SHA
 * extensions the block function uses them (about 1.5 GB/s a core), else a
 * portable one (about 250 MB/s). The choice is made once, by cpuid.
 */
#ifndef GL_SHA256_H
#define GL_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct gl_sha256 {
	uint32_t h[8];
	unsigned char buf[64];
	size_t buf_len;
	uint64_t total;
};

void gl_sha256_init(struct gl_sha256 *s);
void gl_sha256_update(struct gl_sha256 *s, const void *data, size_t len);
/* 64 lowercase hex characters plus NUL; s is spent afterwards. */
void gl_sha256_final_hex(struct gl_sha256 *s, char out[65]);
/* The 32-byte digest; s is spent afterwards. A copy of a struct gl_sha256
 * taken between updates continues from that point (a midstate). */
void gl_sha256_final(struct gl_sha256 *s, unsigned char out[32]);

/* Tests: 1 when the SHA-extension path is in use; force_portable(1) makes
 * every later call use the portable block function. */
int gl_sha256_accelerated(void);
void gl_sha256_force_portable(int on);

#endif
