/*
 * fuzz_images.c - fuzz target for harness/lib/imageref.c: the image facts
 * outside tools print (`crictl inspecti -o json`, `docker image inspect`, a
 * Kubernetes pod list) and image references. The input is copied into a
 * buffer of exactly its size (no NUL after it, so an over-read trips the
 * sanitizer) and fed to every parser, and as a NUL-terminated string to
 * the reference check. Each answer must keep imageref.h's promises (a
 * digest is "sha256:" and 64 lowercase hex, the one chosen is the one its
 * repo digest ends in, at most GL_IMAGE_PODS_MAX containers, a reference
 * accepted twice the same way and free of control characters), or the
 * target aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_hash.h"
#include "imageref.h"

static void digest_ok(const char *d)
{
	char again[GL_IMAGE_DIGEST_LEN + 1], s[GL_IMAGE_DIGEST_LEN + 2];

	if (!d[0])
		return;
	if (strlen(d) != GL_IMAGE_DIGEST_LEN)
		abort();
	s[0] = '@';
	memcpy(s + 1, d, GL_IMAGE_DIGEST_LEN + 1);
	if (gl_image_digest_of(s, again) != 0 || strcmp(again, d))
		abort();
}

static void found_ok(int rc, const struct gl_image_found *f)
{
	char d[GL_IMAGE_DIGEST_LEN + 1];

	if (rc > 0 ||
	    (rc == 0 && (!f->digest[0] || gl_image_digest_of(f->repo_digest, d) != 0 || strcmp(d, f->digest))))
		abort();
	if (rc == 0)
		digest_ok(f->digest);
}

struct pods {
	uint64_t hash;
	int n;
};

static int on_pod(void *arg, const struct gl_pod_image *pi)
{
	struct pods *p = arg;

	if (!pi->pod || !pi->container || !pi->image || !pi->image_id || ++p->n > GL_IMAGE_PODS_MAX)
		abort();
	digest_ok(pi->digest);
	gl_fz_mix(&p->hash, pi->image, strlen(pi->image));
	gl_fz_mix(&p->hash, pi->digest, strlen(pi->digest));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const image = "registry.example.com/vllm/vllm-openai:v0.6.3";
	char *buf = malloc(size ? size : 1), *str = malloc(size + 1);
	char d1[GL_IMAGE_DIGEST_LEN + 1], d2[GL_IMAGE_DIGEST_LEN + 1];
	struct gl_image_found f;
	struct pods a = { 0xCBF29CE484222325ULL, 0 }, b = a;
	struct gl_err err = { 0 };
	int r1, r2;

	if (!buf || !str)
		goto out;
	if (size)
		memcpy(buf, data, size);
	found_ok(gl_image_parse_crictl(buf, size, image, &f, &err), &f);
	found_ok(gl_image_parse_docker(buf, size, image, &f, &err), &f);
	/* the first line of the input as the image asked for */
	memcpy(str, data, size);
	str[size] = '\0';
	str[strcspn(str, "\n")] = '\0';
	found_ok(gl_image_parse_crictl(buf, size, str, &f, &err), &f);
	found_ok(gl_image_parse_docker(buf, size, str, &f, &err), &f);
	r1 = gl_image_parse_pods(buf, size, on_pod, &a, &err);
	r2 = gl_image_parse_pods(buf, size, on_pod, &b, &err);
	if (r1 != r2 || a.hash != b.hash || a.n != b.n || r1 > GL_IMAGE_PODS_MAX || (r1 >= 0 && r1 != a.n))
		abort();
	r1 = gl_image_ref_check(str, d1, NULL);
	r2 = gl_image_ref_check(str, d2, NULL);
	if (r1 != r2 || strcmp(d1, d2))
		abort();
	if (r1 == 0) {
		if (!str[0] || strlen(str) >= GL_IMAGE_REF_MAX || (strchr(str, '@') != NULL) != (d1[0] != '\0'))
			abort();
		for (const char *p = str; *p; p++)
			if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
				abort();
		digest_ok(d1);
	}
	gl_image_digest_of(str, d1);
	digest_ok(d1);
out:
	free(buf);
	free(str);
	return 0;
}
