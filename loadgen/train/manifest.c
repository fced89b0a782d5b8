/*
 * manifest.c - the checkpoint manifest's parser (manifest.h). The manifest
 * is read back from shared storage, so it is outside input: every field is
 * checked before use (fuzzed by tests/fuzz/fuzz_ckpt_manifest.c).
 */
#include "manifest.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

const char *ckpt_hash_name(int hash)
{
	return hash == CKPT_HASH_XXH3 ? "xxh3" : "sha256";
}

int ckpt_hash_parse(const char *name)
{
	if (!name)
		return -1;
	if (!strcmp(name, "sha256"))
		return CKPT_HASH_SHA256;
	if (!strcmp(name, "xxh3"))
		return CKPT_HASH_XXH3;
	return -1;
}

size_t ckpt_hash_hexlen(int hash)
{
	return hash == CKPT_HASH_XXH3 ? 32 : 64;
}

const char *ckpt_hash_key(int hash)
{
	return hash == CKPT_HASH_XXH3 ? "xxh3_chunks" : "sha256_chunks";
}

static int is_hex(const char *s, size_t len)
{
	if (strlen(s) != len)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

int ckpt_manifest_parse(const char *text, int world, int *hash, char (*digests)[72], uint64_t *bytes, char *why,
			size_t n)
{
	cJSON *m = cJSON_Parse(text), *sh, *o;
	const char *key;
	int rc = -1, i = 0;
	size_t hexlen;

	sh = cJSON_GetObjectItemCaseSensitive(m, "shards");
	if (!m || !cJSON_IsArray(sh)) {
		snprintf(why, n, "manifest is not valid JSON with \"shards\"");
		goto out;
	}
	o = cJSON_GetObjectItemCaseSensitive(m, "hash");
	if (!o)
		*hash = CKPT_HASH_SHA256; /* the first format: SHA-256 only, no "hash" */
	else if ((*hash = ckpt_hash_parse(cJSON_IsString(o) ? o->valuestring : NULL)) < 0) {
		snprintf(why, n, "unknown \"hash\" in the manifest (expected \"xxh3\" or \"sha256\")");
		goto out;
	}
	key = ckpt_hash_key(*hash);
	hexlen = ckpt_hash_hexlen(*hash);
	o = cJSON_GetObjectItemCaseSensitive(m, "world");
	if (!cJSON_IsNumber(o) || o->valuedouble != world || cJSON_GetArraySize(sh) != world) {
		snprintf(why, n, "written by %d ranks, this job has %d",
			 cJSON_IsNumber(o) && fabs(o->valuedouble) < 1e9 ? (int)o->valuedouble : -1, world);
		goto out;
	}
	cJSON_ArrayForEach(o, sh)
	{
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, key);
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "bytes");
		if (!cJSON_IsString(s) || !is_hex(s->valuestring, hexlen)) {
			snprintf(why, n, "shard %d: no %s of %zu lowercase hex digits (\"hash\" is %s)", i, key, hexlen,
				 ckpt_hash_name(*hash));
			goto out;
		}
		if (!cJSON_IsNumber(b) || !(b->valuedouble >= 0 && b->valuedouble <= 9007199254740992.0) ||
		    b->valuedouble != floor(b->valuedouble)) {
			snprintf(why, n, "shard %d: \"bytes\" is not a whole number in 0..2^53", i);
			goto out;
		}
		snprintf(digests[i], sizeof(digests[i]), "%s", s->valuestring);
		bytes[i] = (uint64_t)b->valuedouble;
		i++;
	}
	rc = 0;
out:
	cJSON_Delete(m);
	return rc;
}
