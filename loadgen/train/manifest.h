/*
 * manifest.h - the checkpoint manifest's hash names and its parser, apart
 * from MPI so tests/fuzz/fuzz_ckpt_manifest.c can drive it (ckpt.c uses it).
 */
#ifndef GL_TRAIN_MANIFEST_H
#define GL_TRAIN_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

/* The shard hash: a hash list over 4 MiB chunks (ckpt.c). */
enum { CKPT_HASH_SHA256 = 0, CKPT_HASH_XXH3 = 1 };

/* "sha256" or "xxh3" */
const char *ckpt_hash_name(int hash);
/* CKPT_HASH_*, or -1 for an unknown name */
int ckpt_hash_parse(const char *name);
/* Hex digits of a shard digest: 64 (SHA-256) or 32 (XXH3-128). */
size_t ckpt_hash_hexlen(int hash);
/* The shard's digest key in the manifest: "sha256_chunks" or "xxh3_chunks". */
const char *ckpt_hash_key(int hash);

/* Parse MANIFEST.json text for a job of `world` ranks: sets *hash (a
 * manifest without "hash", the first format, is SHA-256), digests[world]
 * (lowercase hex, NUL-terminated) and bytes[world]. 0, or -1 with why. */
int ckpt_manifest_parse(const char *text, int world, int *hash, char (*digests)[72], uint64_t *bytes, char *why,
			size_t n);

#endif
