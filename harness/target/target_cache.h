/*
 * target_cache.h - the prefix cache model of `gauntlet target`
 * (--prefix-cache-blocks), after vLLM's automatic prefix caching, so that
 * a client's cached-token figures and the TTFT of its hits have a ground
 * truth. Pure code, no event loop: the server (target_stream.c) and the
 * unit test (tests/unit/test_target_cache.c) call the same functions.
 *
 * Blocks. A prompt's tokens (one whitespace-separated word is one token, a
 * token id in a "prompt" array another) are cut into whole blocks of
 * block_tokens; a last partial block is never cached. Block i's key hashes
 * its tokens and block i-1's key (block 0: a salt, the model or the LoRA
 * adapter's load), so a block can only match in a prompt whose whole prefix
 * up to it is the same: what vLLM's chained block hashes do.
 *
 * A request's cached blocks are the leading run of its keys found in the
 * cache, among at most (prompt_tokens - 1) / block_tokens of them: like
 * vLLM, the last prompt token is always computed, so a prompt cached whole
 * still computes its last block. Then all of its full blocks are put in the
 * cache, or refreshed, from the last to the first, so that block 0 is the
 * most recently used: the cache evicts from the least recently used end,
 * and a chain loses its deepest blocks before its first ones (vLLM frees a
 * request's blocks in reverse order for the same reason).
 *
 * Memory: the cache holds at most capacity blocks (24 bytes each, plus an
 * index of 4 bytes per bucket, buckets the next power of two at or above
 * capacity), allocated when it is made; a prompt's keys take 8 bytes per
 * block of block_tokens.
 *
 * Threads: one cache belongs to one thread.
 */
#ifndef GL_TARGET_CACHE_H
#define GL_TARGET_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define GL_PREFIX_CACHE_MAX_BLOCKS (1u << 24)
#define GL_PREFIX_BLOCK_MAX_TOKENS 65536u

/* The chained block keys of one prompt, built token by token. */
struct gl_prefix_keys {
	uint64_t *keys; /* keys[0..n): the full blocks so far */
	size_t n, cap;
	uint64_t acc; /* the block being filled: its hash so far */
	uint32_t in_block, block_tokens;
	int failed; /* out of memory once: keys stop growing, n stays */
};

/* Start the keys of a prompt: salt 0 for the base model, another value for
 * each LoRA adapter's load (its blocks are its own). */
void gl_prefix_keys_init(struct gl_prefix_keys *k, uint32_t block_tokens, uint64_t salt);
/* Add the words of s[0..len) (split at the bytes gl_target_count_words
 * splits at), or one token id. */
void gl_prefix_keys_text(struct gl_prefix_keys *k, const char *s, size_t len);
void gl_prefix_keys_token_id(struct gl_prefix_keys *k, int64_t id);
/* Frees the keys array; init again to reuse. */
void gl_prefix_keys_free(struct gl_prefix_keys *k);

struct gl_prefix_cache;

/* A cache of capacity blocks (1 .. GL_PREFIX_CACHE_MAX_BLOCKS). NULL when
 * out of memory or capacity is out of range. gl_prefix_cache_free(NULL)
 * is fine. */
struct gl_prefix_cache *gl_prefix_cache_new(uint32_t capacity);
void gl_prefix_cache_free(struct gl_prefix_cache *c);

/* A request admitted with the n keys of its prompt: returns the length of
 * the leading run of keys[0 .. min(n, max_lookup)) found in the cache, then
 * puts all n keys in it (or refreshes them), from keys[n-1] to keys[0]. */
size_t gl_prefix_cache_admit(struct gl_prefix_cache *c, const uint64_t *keys, size_t n, size_t max_lookup);

/* Whether the key is cached, without refreshing it (for tests). */
int gl_prefix_cache_has(const struct gl_prefix_cache *c, uint64_t key);
/* Blocks held now. */
size_t gl_prefix_cache_len(const struct gl_prefix_cache *c);
/* Drops every block. */
void gl_prefix_cache_clear(struct gl_prefix_cache *c);

/* How many of a prompt of prompt_tokens tokens' blocks a lookup may hit:
 * (prompt_tokens - 1) / block_tokens, 0 for an empty prompt. */
static inline size_t gl_prefix_max_lookup(uint64_t prompt_tokens, uint32_t block_tokens)
{
	return prompt_tokens ? (size_t)((prompt_tokens - 1) / block_tokens) : 0;
}

#endif
