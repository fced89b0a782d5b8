/*
 * imageref.c - image references and inspect outputs (imageref.h).
 *
 * The reference grammar is the Docker distribution one, narrowed to what
 * is needed to tell a pinned image from a tagged one: a digest must be
 * sha256 (what registries and runtimes use), and nothing is normalized
 * ("vllm" is not rewritten to "docker.io/library/vllm:latest"), so what
 * the manifest shows is what the scenario said.
 */
#include "imageref.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

static int is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static int hex64(const char *s)
{
	for (int i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[64] == '\0';
}

int gl_image_digest_of(const char *s, char out[GL_IMAGE_DIGEST_LEN + 1])
{
	const char *at = s ? strrchr(s, '@') : NULL;

	out[0] = '\0';
	if (!at || strncmp(at + 1, "sha256:", 7) || !hex64(at + 8))
		return -1;
	memcpy(out, at + 1, GL_IMAGE_DIGEST_LEN);
	out[GL_IMAGE_DIGEST_LEN] = '\0';
	return 0;
}

/* One path component: [a-z0-9]+ runs joined by '.', '_', "__" or '-'
 * runs ("a--b" is allowed, as the grammar allows dashes in a row). */
static int component_ok(const char *s, size_t n)
{
	size_t i = 0;

	if (!n || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
		return 0;
	while (i < n) {
		if (is_lower_alnum(s[i])) {
			i++;
			continue;
		}
		if (s[i] == '.' || (s[i] == '_' && s[i + 1] != '_')) {
			i++;
		} else if (s[i] == '_') {
			i += 2;
		} else if (s[i] == '-') {
			while (i < n && s[i] == '-')
				i++;
		} else {
			return 0;
		}
		if (i >= n || !is_lower_alnum(s[i]))
			return 0;
	}
	return 1;
}

/* A registry host: [A-Za-z0-9-] labels joined by '.', then :PORT. */
static int domain_ok(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t host = colon ? (size_t)(colon - s) : n;

	if (!host || s[0] == '-' || s[0] == '.' || s[host - 1] == '-' || s[host - 1] == '.')
		return 0;
	for (size_t i = 0; i < host; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && !(s[i] == '.' && s[i + 1] != '.'))
			return 0;
	if (colon) {
		size_t k = n - host - 1;
		if (!k || k > 5)
			return 0;
		for (size_t i = host + 1; i < n; i++)
			if (s[i] < '0' || s[i] > '9')
				return 0;
	}
	return 1;
}

int gl_image_ref_check(const char *ref, char digest[GL_IMAGE_DIGEST_LEN + 1], struct gl_err *err)
{
	char name[GL_IMAGE_REF_MAX];
	const char *at, *slash, *colon, *p;
	size_t len = strlen(ref), n;
	int first = 1;

	if (digest)
		digest[0] = '\0';
	if (!len)
		return gl_errf(err, GL_EINVAL, "an empty image reference");
	if (len >= GL_IMAGE_REF_MAX)
		return gl_errf(err, GL_EINVAL, "an image reference of %zu characters (at most %d)", len,
			       GL_IMAGE_REF_MAX - 1);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)ref[i] <= ' ' || (unsigned char)ref[i] >= 0x7f)
			return gl_errf(err, GL_EINVAL, "a space, control or non-ASCII character at offset %zu", i);
	at = strchr(ref, '@');
	if (at) {
		if (strchr(at + 1, '@'))
			return gl_errf(err, GL_EINVAL, "more than one '@'");
		if (strncmp(at + 1, "sha256:", 7) || !hex64(at + 8))
			return gl_errf(err, GL_EINVAL,
				       "the digest after '@' must be sha256: and 64 lowercase hex digits");
		if (digest)
			gl_image_digest_of(ref, digest);
	}
	n = at ? (size_t)(at - ref) : len;
	memcpy(name, ref, n);
	name[n] = '\0';
	/* a tag: the last ':' after the last '/' */
	slash = strrchr(name, '/');
	colon = strrchr(slash ? slash : name, ':');
	if (colon) {
		const char *t = colon + 1;
		size_t tl = strlen(t);
		if (!tl || tl > 128 || !(is_alnum(t[0]) || t[0] == '_'))
			return gl_errf(err, GL_EINVAL,
				       "the tag '%s' must start with a letter, digit or '_' and have at "
				       "most 128 characters",
				       t);
		for (size_t i = 0; i < tl; i++)
			if (!is_alnum(t[i]) && t[i] != '_' && t[i] != '.' && t[i] != '-')
				return gl_errf(err, GL_EINVAL,
					       "the tag '%s' may hold only letters, digits, '_', '.' and '-'", t);
		name[colon - name] = '\0';
	}
	if (!name[0])
		return gl_errf(err, GL_EINVAL, "no image name before the %s", colon ? "tag" : "digest");
	if (strlen(name) > 255)
		return gl_errf(err, GL_EINVAL, "an image name of more than 255 characters");
	for (p = name;; first = 0) {
		const char *e = strchr(p, '/');
		size_t k = e ? (size_t)(e - p) : strlen(p);
		/* the first of several components is a registry when it looks like one */
		int domain = first && e &&
			     (memchr(p, '.', k) || memchr(p, ':', k) || (k == 9 && !strncmp(p, "localhost", 9)));

		if (domain ? !domain_ok(p, k) : !component_ok(p, k))
			return gl_errf(err, GL_EINVAL, "'%.*s' is not a valid %s", (int)k, p,
				       domain ? "registry host[:port]"
					      : "name component (lowercase letters and digits, joined by '.', '_', "
						"'__' or '-')");
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

/* The repository of a reference: without its digest and tag. */
static void repository(const char *ref, char *out, size_t n)
{
	const char *at = strchr(ref, '@'), *slash, *colon;
	size_t k = at ? (size_t)(at - ref) : strlen(ref);

	snprintf(out, n, "%.*s", (int)k, ref);
	slash = strrchr(out, '/');
	colon = strrchr(slash ? slash : out, ':');
	if (colon)
		out[colon - out] = '\0';
}

/* Choose among a RepoDigests array: the entry of image's repository, else
 * the first well-formed one. */
static int pick_digest(const cJSON *arr, const char *image, struct gl_image_found *f, const char *tool,
		       struct gl_err *err)
{
	char want[GL_IMAGE_REF_MAX], repo[GL_IMAGE_REF_MAX], d[GL_IMAGE_DIGEST_LEN + 1];
	const cJSON *e;
	int found = 0, match;

	if (!cJSON_IsArray(arr))
		return gl_errf(err, GL_EINVAL, "%s: no RepoDigests array in the output", tool);
	repository(image ? image : "", want, sizeof(want));
	cJSON_ArrayForEach(e, arr)
	{
		if (!cJSON_IsString(e) || strlen(e->valuestring) >= sizeof(f->repo_digest) ||
		    gl_image_digest_of(e->valuestring, d) != 0)
			continue;
		repository(e->valuestring, repo, sizeof(repo));
		match = !strcmp(repo, want);
		if (!found || match) {
			snprintf(f->repo_digest, sizeof(f->repo_digest), "%s", e->valuestring);
			memcpy(f->digest, d, sizeof(f->digest));
		}
		found = 1;
		if (match)
			break;
	}
	if (!found)
		return gl_errf(err, GL_ENOTFOUND,
			       "%s lists no repo digest for the image (built locally, or never "
			       "pulled by digest)",
			       tool);
	return 0;
}

/* Where the JSON starts: the first line that opens with c. The transports
 * merge stderr into stdout, and crictl warns there ("WARN[0000] ...")
 * before its JSON. */
static const char *json_start(const char *text, size_t len, char c, size_t *rest)
{
	for (size_t i = 0; i < len; i++) {
		if (text[i] == c && (i == 0 || text[i - 1] == '\n')) {
			*rest = len - i;
			return text + i;
		}
	}
	*rest = 0;
	return "";
}

int gl_image_parse_crictl(const char *text, size_t len, const char *image, struct gl_image_found *f, struct gl_err *err)
{
	size_t n;
	const char *j = json_start(text, len, '{', &n);
	cJSON *doc = len <= GL_IMAGE_OUT_MAX && n ? cJSON_ParseWithLength(j, n) : NULL;
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "status");
	int rc;

	memset(f, 0, sizeof(*f));
	if (!cJSON_IsObject(st))
		rc = gl_errf(err, GL_EINVAL, "crictl inspecti: the output is not JSON with a \"status\" object");
	else
		rc = pick_digest(cJSON_GetObjectItemCaseSensitive(st, "repoDigests"), image, f, "crictl inspecti", err);
	cJSON_Delete(doc);
	return rc;
}

int gl_image_parse_docker(const char *text, size_t len, const char *image, struct gl_image_found *f, struct gl_err *err)
{
	size_t n;
	const char *j = json_start(text, len, '[', &n);
	cJSON *doc = len <= GL_IMAGE_OUT_MAX && n ? cJSON_ParseWithLength(j, n) : NULL;
	const cJSON *first = cJSON_IsArray(doc) ? cJSON_GetArrayItem(doc, 0) : NULL;
	int rc;

	memset(f, 0, sizeof(*f));
	if (!cJSON_IsObject(first))
		rc = gl_errf(err, GL_EINVAL, "docker image inspect: the output is not a JSON array of images");
	else
		rc = pick_digest(cJSON_GetObjectItemCaseSensitive(first, "RepoDigests"), image, f,
				 "docker image inspect", err);
	cJSON_Delete(doc);
	return rc;
}

static const char *str_or_empty(const cJSON *o, const char *key)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
	return s ? s : "";
}

int gl_image_parse_pods(const char *text, size_t len, int (*cb)(void *arg, const struct gl_pod_image *pi), void *arg,
			struct gl_err *err)
{
	cJSON *doc = len <= GL_IMAGE_OUT_MAX ? cJSON_ParseWithLength(text, len) : NULL;
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items"), *pod, *cs;
	int n = 0, rc = 0;

	if (!cJSON_IsObject(doc) || !cJSON_IsArray(items)) {
		rc = gl_errf(err, GL_EINVAL, "not a PodList (no \"items\" array)");
		goto out;
	}
	cJSON_ArrayForEach(pod, items)
	{
		const cJSON *md = cJSON_GetObjectItemCaseSensitive(pod, "metadata");
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(pod, "status");
		const cJSON *list = cJSON_GetObjectItemCaseSensitive(st, "containerStatuses");

		if (!cJSON_IsArray(list))
			continue; /* a pending pod: no container has started */
		cJSON_ArrayForEach(cs, list)
		{
			struct gl_pod_image pi;

			if (!cJSON_IsObject(cs))
				continue;
			if (n >= GL_IMAGE_PODS_MAX) {
				rc = gl_errf(err, GL_ELIMIT, "more than %d container statuses: the rest not read",
					     GL_IMAGE_PODS_MAX);
				goto out;
			}
			pi.pod = str_or_empty(md, "name");
			pi.container = str_or_empty(cs, "name");
			pi.image = str_or_empty(cs, "image");
			pi.image_id = str_or_empty(cs, "imageID");
			gl_image_digest_of(pi.image_id, pi.digest);
			n++;
			if ((rc = cb(arg, &pi)) != 0)
				goto out;
		}
	}
	rc = n;
out:
	cJSON_Delete(doc);
	return rc;
}
