/*
 * test_target_cache.c - the prefix cache model of `gauntlet target`
 * (harness/target/target_cache.h): chained block keys (whole blocks only,
 * the same words the same keys whatever the spacing, a block's key depends
 * on every block before it, salts and token ids apart), the lookup (the
 * leading run only, at most (prompt - 1) / block tokens), LRU eviction
 * (the deepest blocks of a chain first, a refresh saves a block), the
 * capacity bound, and a long random run against a plain reference LRU.
 * test_prefix_cache.sh checks the same model through the server.
 */
#include "check.h"
#include "target.h"
#include "target_cache.h"

#include <stdint.h>
#include <string.h>

static size_t keys_of(const char *text, uint32_t block, uint64_t salt, uint64_t *out, size_t max)
{
	struct gl_prefix_keys k;
	size_t n;

	gl_prefix_keys_init(&k, block, salt);
	gl_prefix_keys_text(&k, text, strlen(text));
	n = k.n < max ? k.n : max;
	if (n)
		memcpy(out, k.keys, n * sizeof(*out));
	CHECK(!k.failed);
	gl_prefix_keys_free(&k);
	return n;
}

static void test_keys(void)
{
	uint64_t a[8], b[8];
	struct gl_prefix_keys k;

	/* whole blocks only: 7 words of 4 a block are one key */
	CHECK(keys_of("a b c d e f g", 4, 0, a, 8) == 1);
	CHECK(keys_of("a b c", 4, 0, a, 8) == 0);
	CHECK(keys_of("a b c d e f g h", 4, 0, a, 8) == 2);
	/* the same words, any whitespace (as gl_target_count_words splits) */
	CHECK(keys_of("  a\tb\nc  d\r\ne f\vg\fh ", 4, 0, b, 8) == 2);
	CHECK(a[0] == b[0] && a[1] == b[1]);
	CHECK(gl_target_count_words("  a\tb\nc  d\r\ne f\vg\fh ", strlen("  a\tb\nc  d\r\ne f\vg\fh ")) == 8);
	/* split over calls (messages) at word boundaries: the same */
	gl_prefix_keys_init(&k, 4, 0);
	gl_prefix_keys_text(&k, "a b c", 5);
	gl_prefix_keys_text(&k, "d e f g h", 9);
	CHECK(k.n == 2 && k.keys[0] == a[0] && k.keys[1] == a[1]);
	gl_prefix_keys_free(&k);
	/* chained: block 1 the same words, block 0 not: block 1's key differs */
	CHECK(keys_of("x b c d e f g h", 4, 0, b, 8) == 2);
	CHECK(b[0] != a[0] && b[1] != a[1]);
	/* the same leading block, another second one */
	CHECK(keys_of("a b c d e f g x", 4, 0, b, 8) == 2);
	CHECK(b[0] == a[0] && b[1] != a[1]);
	/* order within a block counts */
	CHECK(keys_of("b a c d", 4, 0, b, 8) == 1 && b[0] != a[0]);
	/* a salt (an adapter's load) keys its own blocks */
	CHECK(keys_of("a b c d e f g h", 4, 7, b, 8) == 2);
	CHECK(b[0] != a[0] && b[1] != a[1]);
	/* a block size of its own */
	CHECK(keys_of("a b c d e f g h", 2, 0, b, 8) == 4 && b[0] != a[0]);
	/* token ids are tokens, not the words of their digits */
	gl_prefix_keys_init(&k, 2, 0);
	gl_prefix_keys_token_id(&k, 1);
	gl_prefix_keys_token_id(&k, 2);
	CHECK(keys_of("1 2", 2, 0, b, 8) == 1);
	CHECK(k.n == 1 && k.keys[0] != b[0]);
	gl_prefix_keys_free(&k);
	gl_prefix_keys_free(&k); /* twice is fine */
}

static void test_lookup(void)
{
	struct gl_prefix_cache *c = gl_prefix_cache_new(100);
	uint64_t p[8], q[8];
	size_t np, nq;

	CHECK(c && gl_prefix_cache_len(c) == 0);
	CHECK(gl_prefix_max_lookup(0, 4) == 0);
	CHECK(gl_prefix_max_lookup(4, 4) == 0);
	CHECK(gl_prefix_max_lookup(5, 4) == 1);
	CHECK(gl_prefix_max_lookup(9, 4) == 2);
	np = keys_of("a b c d e f g h i", 4, 0, p, 8); /* 2 blocks + 1 token */
	CHECK(np == 2);
	CHECK(gl_prefix_cache_admit(c, p, np, gl_prefix_max_lookup(9, 4)) == 0); /* cold */
	CHECK(gl_prefix_cache_len(c) == 2);
	CHECK(gl_prefix_cache_admit(c, p, np, gl_prefix_max_lookup(9, 4)) == 2); /* all */
	CHECK(gl_prefix_cache_len(c) == 2); /* refreshed, not added */
	/* the same 8 words alone: the last block is computed anyway */
	CHECK(gl_prefix_cache_admit(c, p, np, gl_prefix_max_lookup(8, 4)) == 1);
	/* a shared first block, another second */
	nq = keys_of("a b c d x y z w v", 4, 0, q, 8);
	CHECK(gl_prefix_cache_admit(c, q, nq, gl_prefix_max_lookup(9, 4)) == 1);
	CHECK(gl_prefix_cache_len(c) == 3);
	/* the second block cached, the first not: a leading run only */
	nq = keys_of("z z z z e f g h i", 4, 0, q, 8);
	CHECK(q[1] != p[1]); /* chained: not even the same key */
	CHECK(gl_prefix_cache_admit(c, q, nq, 2) == 0);
	q[0] = 12345; /* a made-up chain whose second key is cached */
	q[1] = p[1];
	CHECK(gl_prefix_cache_has(c, p[1]) && !gl_prefix_cache_has(c, 12345));
	CHECK(gl_prefix_cache_admit(c, q, 2, 2) == 0);
	/* an empty request */
	CHECK(gl_prefix_cache_admit(c, NULL, 0, 0) == 0);
	gl_prefix_cache_clear(c);
	CHECK(gl_prefix_cache_len(c) == 0 && !gl_prefix_cache_has(c, p[0]));
	CHECK(gl_prefix_cache_admit(c, p, np, 2) == 0);
	gl_prefix_cache_free(c);
	gl_prefix_cache_free(NULL);
	CHECK(gl_prefix_cache_new(0) == NULL);
	CHECK(gl_prefix_cache_new(GL_PREFIX_CACHE_MAX_BLOCKS + 1) == NULL);
}

static void test_lru(void)
{
	struct gl_prefix_cache *c = gl_prefix_cache_new(4);
	uint64_t chain_a[2] = { 1, 2 }, chain_c[2] = { 3, 4 }, e = 5, d = 6, big[20];

	CHECK(c != NULL);
	gl_prefix_cache_admit(c, chain_a, 2, 2); /* recency: 1 2 */
	gl_prefix_cache_admit(c, chain_c, 2, 2); /* 3 4 1 2 */
	CHECK(gl_prefix_cache_len(c) == 4);
	gl_prefix_cache_admit(c, &e, 1, 1); /* 5 3 4 1: evicts 2, chain a's deepest */
	CHECK(gl_prefix_cache_len(c) == 4);
	CHECK(!gl_prefix_cache_has(c, 2) && gl_prefix_cache_has(c, 1));
	CHECK(gl_prefix_cache_admit(c, chain_a, 2, 2) == 1); /* 1 2 5 3: evicts 4 */
	CHECK(!gl_prefix_cache_has(c, 4) && gl_prefix_cache_has(c, 3));
	/* a refresh saves a block: 3 used again, then 6 evicts 5 */
	CHECK(gl_prefix_cache_admit(c, chain_c, 2, 2) == 1); /* 3 4 1 2: evicts 5 */
	CHECK(!gl_prefix_cache_has(c, 5));
	gl_prefix_cache_admit(c, &d, 1, 1); /* 6 3 4 1: evicts 2 */
	CHECK(gl_prefix_cache_has(c, 3) && gl_prefix_cache_has(c, 4) && gl_prefix_cache_has(c, 6) &&
	      gl_prefix_cache_has(c, 1) && !gl_prefix_cache_has(c, 2));
	/* one chain longer than the cache keeps its first blocks */
	for (int i = 0; i < 20; i++)
		big[i] = 100 + (uint64_t)i;
	CHECK(gl_prefix_cache_admit(c, big, 20, 19) == 0);
	CHECK(gl_prefix_cache_len(c) == 4);
	for (int i = 0; i < 20; i++)
		CHECKF(gl_prefix_cache_has(c, big[i]) == (i < 4), "block %d", i);
	CHECK(gl_prefix_cache_admit(c, big, 20, 19) == 4);
	gl_prefix_cache_free(c);
}

/* A plain LRU to hold the cache against: rec[0] most recent. */
#define REF_CAP 37
struct ref {
	uint64_t rec[REF_CAP];
	int n;
};

static int ref_find(const struct ref *r, uint64_t k)
{
	for (int i = 0; i < r->n; i++)
		if (r->rec[i] == k)
			return i;
	return -1;
}

static void ref_touch(struct ref *r, uint64_t k)
{
	int i = ref_find(r, k);

	if (i < 0)
		i = r->n < REF_CAP ? r->n++ : REF_CAP - 1; /* the last one goes */
	memmove(&r->rec[1], &r->rec[0], (size_t)i * sizeof(r->rec[0]));
	r->rec[0] = k;
}

static size_t ref_admit(struct ref *r, const uint64_t *keys, size_t n, size_t max_lookup)
{
	size_t hit = 0;

	while (hit < n && hit < max_lookup && ref_find(r, keys[hit]) >= 0)
		hit++;
	for (size_t j = n; j-- > 0;)
		ref_touch(r, keys[j]);
	return hit;
}

static void test_against_reference(void)
{
	struct gl_prefix_cache *c = gl_prefix_cache_new(REF_CAP);
	struct ref r = { { 0 }, 0 };
	uint64_t x = 42, keys[12];
	int agree = 1;

	CHECK(c != NULL);
	for (int op = 0; op < 20000 && agree; op++) {
		size_t n, max, h1, h2;
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		n = (size_t)(x >> 33) % 12;
		max = (size_t)(x >> 45) % 13;
		/* chains from a small universe: prefixes shared often, and
		 * keys that collide in buckets (a multiple of 64 apart) */
		for (size_t i = 0; i < n; i++)
			keys[i] = (i * 7 + ((x >> (20 + i)) & 3)) * 64;
		h1 = gl_prefix_cache_admit(c, keys, n, max);
		h2 = ref_admit(&r, keys, n, max);
		agree = h1 == h2 && gl_prefix_cache_len(c) == (size_t)r.n;
		for (int i = 0; i < r.n && agree; i++)
			agree = gl_prefix_cache_has(c, r.rec[i]);
		CHECKF(agree, "op %d: hits %zu vs %zu, len %zu vs %d", op, h1, h2, gl_prefix_cache_len(c), r.n);
	}
	gl_prefix_cache_free(c);
}

int main(void)
{
	test_keys();
	test_lookup();
	test_lru();
	test_against_reference();
	return check_done();
}
