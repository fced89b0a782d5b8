/*
 * fuzz_ckpt_manifest.c - fuzz target for loadgen/train/manifest.c, the
 * parser of a checkpoint's MANIFEST.json, which gauntlet-train reads back
 * from shared storage. The first byte picks the job's world (1..4), the rest
 * (cut at its first NUL) is the manifest. Beyond "no crash, no sanitizer
 * report": a failure says why; a success names a known hash, gives one
 * lowercase hex digest of that hash's length per rank, and byte counts
 * that are whole numbers up to 2^53.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char digests[4][72], why[512], *text;
	uint64_t bytes[4];
	int world, hash = -1, rc;

	if (size < 1)
		return 0;
	world = data[0] % 4 + 1;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	memset(digests, 0, sizeof(digests));
	why[0] = '\0';
	rc = ckpt_manifest_parse(text, world, &hash, digests, bytes, why, sizeof(why));
	if (rc < 0) {
		must(rc == -1 && why[0] != '\0' && memchr(why, '\0', sizeof(why)));
	} else {
		must(rc == 0 && (hash == CKPT_HASH_SHA256 || hash == CKPT_HASH_XXH3));
		must(!strcmp(ckpt_hash_name(hash), "sha256") || !strcmp(ckpt_hash_name(hash), "xxh3"));
		must(ckpt_hash_parse(ckpt_hash_name(hash)) == hash);
		for (int r = 0; r < world; r++) {
			size_t n = strlen(digests[r]);
			must(n == ckpt_hash_hexlen(hash));
			for (size_t i = 0; i < n; i++)
				must((digests[r][i] >= '0' && digests[r][i] <= '9') ||
				     (digests[r][i] >= 'a' && digests[r][i] <= 'f'));
			must(bytes[r] <= (1ULL << 53));
		}
	}
	free(text);
	return 0;
}
