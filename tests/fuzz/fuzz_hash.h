/*
 * fuzz_hash.h - FNV-1a over the parts a fuzz target saw, with a separator
 * byte after each part (so "ab","c" and "a","bc" differ): two feedings of
 * one input (whole and in fragments, say) are compared by one number.
 */
#ifndef GL_FUZZ_HASH_H
#define GL_FUZZ_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline void gl_fz_mix(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		*h ^= s[i];
		*h *= 0x100000001B3ULL;
	}
	*h ^= 0xFF;
	*h *= 0x100000001B3ULL;
}

#endif
