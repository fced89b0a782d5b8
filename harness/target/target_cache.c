/*
 * target_cache.c - the prefix cache model of `gauntlet target`
 * (target_cache.h): chained block keys of a prompt, and a cache of block
 * keys with least-recently-used eviction, bounded by its capacity.
 *
 * The cache is a fixed array of nodes (allocated once, at its capacity), a
 * bucket index of singly linked chains into it, and a doubly linked LRU
 * list through it; all links are 32-bit node numbers. A full cache reuses
 * the node of its least recently used block.
 */
#include "target_cache.h"
#include "target.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* ---- keys -------------------------------------------------------------- */

void gl_prefix_keys_init(struct gl_prefix_keys *k, uint32_t block_tokens, uint64_t salt)
{
	memset(k, 0, sizeof(*k));
	k->block_tokens = block_tokens ? block_tokens : 1;
	k->acc = mix64(salt ^ 0x70726566697863ULL); /* block 0's parent */
}

void gl_prefix_keys_free(struct gl_prefix_keys *k)
{
	free(k->keys);
	k->keys = NULL;
	k->n = k->cap = 0;
}

/* One token, by its hash: the block grows; a full one becomes a key, and
 * the parent of the next. */
static void add_token(struct gl_prefix_keys *k, uint64_t h)
{
	k->acc = mix64(k->acc ^ h);
	if (++k->in_block < k->block_tokens)
		return;
	k->in_block = 0;
	k->acc = mix64(k->acc ^ 0x626c6f636bULL);
	if (k->failed)
		return;
	if (k->n == k->cap) {
		size_t ncap = k->cap ? k->cap * 2 : 16;
		uint64_t *nk = realloc(k->keys, ncap * sizeof(*nk));
		if (!nk) {
			k->failed = 1;
			return;
		}
		k->keys = nk;
		k->cap = ncap;
	}
	k->keys[k->n++] = k->acc;
}

void gl_prefix_keys_text(struct gl_prefix_keys *k, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a over the word's bytes */

		if (gl_target_is_space((unsigned char)s[i])) {
			i++;
			continue;
		}
		for (; i < len && !gl_target_is_space((unsigned char)s[i]); i++)
			h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
		add_token(k, h);
	}
}

void gl_prefix_keys_token_id(struct gl_prefix_keys *k, int64_t id)
{
	add_token(k, mix64((uint64_t)id ^ 0x746f6b656e6964ULL));
}

/* ---- the cache --------------------------------------------------------- */

struct node {
	uint64_t key;
	uint32_t hnext; /* next in its bucket */
	uint32_t prev, next; /* LRU list: prev towards the most recent */
};

struct gl_prefix_cache {
	struct node *nodes;
	uint32_t *buckets;
	uint32_t capacity, used, mask;
	uint32_t head, tail; /* most and least recently used */
};

struct gl_prefix_cache *gl_prefix_cache_new(uint32_t capacity)
{
	struct gl_prefix_cache *c;
	uint32_t nb = 1;

	if (capacity < 1 || capacity > GL_PREFIX_CACHE_MAX_BLOCKS)
		return NULL;
	while (nb < capacity)
		nb <<= 1;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->nodes = malloc((size_t)capacity * sizeof(*c->nodes));
	c->buckets = malloc((size_t)nb * sizeof(*c->buckets));
	if (!c->nodes || !c->buckets) {
		gl_prefix_cache_free(c);
		return NULL;
	}
	c->capacity = capacity;
	c->mask = nb - 1;
	gl_prefix_cache_clear(c);
	return c;
}

void gl_prefix_cache_free(struct gl_prefix_cache *c)
{
	if (!c)
		return;
	free(c->nodes);
	free(c->buckets);
	free(c);
}

void gl_prefix_cache_clear(struct gl_prefix_cache *c)
{
	memset(c->buckets, 0xff, ((size_t)c->mask + 1) * sizeof(*c->buckets));
	c->used = 0;
	c->head = c->tail = NIL;
}

size_t gl_prefix_cache_len(const struct gl_prefix_cache *c)
{
	return c->used;
}

static uint32_t bucket_of(const struct gl_prefix_cache *c, uint64_t key)
{
	return (uint32_t)mix64(key) & c->mask;
}

static uint32_t find(const struct gl_prefix_cache *c, uint64_t key)
{
	uint32_t i = c->buckets[bucket_of(c, key)];

	while (i != NIL && c->nodes[i].key != key)
		i = c->nodes[i].hnext;
	return i;
}

int gl_prefix_cache_has(const struct gl_prefix_cache *c, uint64_t key)
{
	return find(c, key) != NIL;
}

static void lru_unlink(struct gl_prefix_cache *c, uint32_t i)
{
	struct node *n = &c->nodes[i];

	if (n->prev != NIL)
		c->nodes[n->prev].next = n->next;
	else
		c->head = n->next;
	if (n->next != NIL)
		c->nodes[n->next].prev = n->prev;
	else
		c->tail = n->prev;
}

static void lru_push_head(struct gl_prefix_cache *c, uint32_t i)
{
	struct node *n = &c->nodes[i];

	n->prev = NIL;
	n->next = c->head;
	if (c->head != NIL)
		c->nodes[c->head].prev = i;
	c->head = i;
	if (c->tail == NIL)
		c->tail = i;
}

static void bucket_unlink(struct gl_prefix_cache *c, uint32_t i)
{
	uint32_t *pp = &c->buckets[bucket_of(c, c->nodes[i].key)];

	while (*pp != i)
		pp = &c->nodes[*pp].hnext;
	*pp = c->nodes[i].hnext;
}

/* The key becomes the most recently used block, evicting the least
 * recently used one when the cache is full. */
static void touch(struct gl_prefix_cache *c, uint64_t key)
{
	uint32_t i = find(c, key), b;

	if (i != NIL) {
		lru_unlink(c, i);
		lru_push_head(c, i);
		return;
	}
	if (c->used < c->capacity) {
		i = c->used++;
	} else {
		i = c->tail;
		lru_unlink(c, i);
		bucket_unlink(c, i);
	}
	b = bucket_of(c, key);
	c->nodes[i].key = key;
	c->nodes[i].hnext = c->buckets[b];
	c->buckets[b] = i;
	lru_push_head(c, i);
}

size_t gl_prefix_cache_admit(struct gl_prefix_cache *c, const uint64_t *keys, size_t n, size_t max_lookup)
{
	size_t hit = 0, lim = n < max_lookup ? n : max_lookup;

	while (hit < lim && find(c, keys[hit]) != NIL)
		hit++;
	for (size_t j = n; j-- > 0;)
		touch(c, keys[j]);
	return hit;
}
