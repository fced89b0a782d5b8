/*
 * imageref.h - container image references and the image facts container
 * tools print: the shape of a reference ("registry/name:tag",
 * "registry/name@sha256:<64 hex>"), `crictl inspecti -o json`, `docker
 * image inspect` and a Kubernetes pod list's containerStatuses. Pure
 * parsing of outside input, no I/O (fuzzed by tests/fuzz/fuzz_images.c).
 *
 * A digest is always "sha256:" and 64 lowercase hex digits; anything else
 * is not taken for one.
 */
#ifndef GL_IMAGEREF_H
#define GL_IMAGEREF_H

#include <stddef.h>

#include "util.h"

#define GL_IMAGE_REF_MAX 512
#define GL_IMAGE_DIGEST_LEN 71 /* "sha256:" + 64 hex */
#define GL_IMAGE_OUT_MAX (4u << 20) /* what a tool's output may be */
#define GL_IMAGE_PODS_MAX 256 /* container statuses taken from one pod list */

/* Check the shape of an image reference: [DOMAIN[:PORT]/]PATH[:TAG][@sha256:HEX64]
 * (PATH lowercase components joined by '/', each [a-z0-9] runs joined by
 * '.', '_', "__" or '-'; TAG [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}). 0 with
 * digest ("" when none; may be NULL) filled, or -GL_EINVAL with err
 * saying what is wrong. */
int gl_image_ref_check(const char *ref, char digest[GL_IMAGE_DIGEST_LEN + 1], struct gl_err *err);

/* The digest that ends s after its last '@' ("repo@sha256:..." in
 * RepoDigests, "docker-pullable://repo@sha256:..." in an imageID). 0 with
 * out filled, -1 when s has none. */
int gl_image_digest_of(const char *s, char out[GL_IMAGE_DIGEST_LEN + 1]);

/* What an inspect command said of an image. */
struct gl_image_found {
	char repo_digest[GL_IMAGE_REF_MAX]; /* "repo@sha256:..." chosen */
	char digest[GL_IMAGE_DIGEST_LEN + 1];
};

/* `crictl inspecti -o json IMAGE` ({"status": {"repoDigests": [...]}}) and
 * `docker image inspect IMAGE` ([{"RepoDigests": [...]}]): the repo digest
 * whose repository is image's (its name without tag or digest), else the
 * first. 0 found; -GL_ENOTFOUND when the output lists no digest (an image
 * built locally, never pushed or pulled by digest); -GL_EINVAL when it is
 * not that tool's JSON. err says which. */
int gl_image_parse_crictl(const char *text, size_t len, const char *image, struct gl_image_found *f,
			  struct gl_err *err);
int gl_image_parse_docker(const char *text, size_t len, const char *image, struct gl_image_found *f,
			  struct gl_err *err);

/* One container of a pod list (status.containerStatuses[]). Strings are
 * borrowed from the parsed document for the call only. */
struct gl_pod_image {
	const char *pod, *container, *image, *image_id; /* never NULL ("" when absent) */
	char digest[GL_IMAGE_DIGEST_LEN + 1]; /* of image_id; "" when it has none */
};

/* A Kubernetes PodList (GET /api/v1/namespaces/NS/pods): cb for each
 * container status of each pod, at most GL_IMAGE_PODS_MAX (more is
 * -GL_ELIMIT after those). Returns the number of container statuses seen,
 * or -GL_EINVAL when the text is not a PodList (err says why), or cb's
 * nonzero return. */
int gl_image_parse_pods(const char *text, size_t len, int (*cb)(void *arg, const struct gl_pod_image *pi), void *arg,
			struct gl_err *err);

#endif
