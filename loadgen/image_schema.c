/*
 * image_schema.c - "image" and "image_source" of a workload
 * (image_schema.h). The reference's shape is checked here, at validate
 * time, so a typo is an error before the run, not an "unavailable" after.
 */
#include "image_schema.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "imageref.h"
#include "paths.h"
#include "schema.h"

/* A namespace is a DNS label: [a-z0-9-], at most 63, alphanumeric ends. */
static int dns_label_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '-')
			return 0;
	return 1;
}

static void check_source(const struct gl_scenario *s, const cJSON *src, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = { "kubernetes", "namespace", "pod_selector", "token_env", "ca_bundle", NULL };
	char buf[1024], p[600], real[PATH_MAX];

	if (!gl_want_object(d, src, path))
		return;
	gl_check_keys(d, src, path, keys);
	if (gl_get_string(d, src, "kubernetes", path, 1, buf, sizeof(buf)) > 0 && buf[0] &&
	    strncmp(buf, "https://", 8) && strncmp(buf, "http://", 7)) {
		gl_join(p, sizeof(p), path, "kubernetes");
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(src, "kubernetes"), p,
			      "expected the API server's URL, like \"https://api.cluster:6443\"");
	}
	if (gl_get_string(d, src, "namespace", path, 1, buf, sizeof(buf)) > 0 && buf[0] && !dns_label_ok(buf)) {
		gl_join(p, sizeof(p), path, "namespace");
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(src, "namespace"), p,
			      "'%s' is not a namespace name (lowercase letters, digits and '-', at most 63)", buf);
	}
	if (gl_get_string(d, src, "pod_selector", path, 1, buf, sizeof(buf)) > 0 && buf[0] && gl_control_char(buf)) {
		gl_join(p, sizeof(p), path, "pod_selector");
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(src, "pod_selector"), p,
			      "a label selector like \"app=vllm\", without control characters");
	}
	if (gl_get_string(d, src, "token_env", path, 0, buf, sizeof(buf)) > 0 && buf[0] && !gl_env_name_ok(buf)) {
		gl_join(p, sizeof(p), path, "token_env");
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(src, "token_env"), p,
			      "expected the name of an environment variable holding the bearer token");
	}
	if (gl_get_string(d, src, "ca_bundle", path, 0, buf, sizeof(buf)) > 0 && buf[0]) {
		struct gl_err e = { 0 };
		gl_join(p, sizeof(p), path, "ca_bundle");
		if (gl_path_confine(s->path, s->root, buf, real, sizeof(real), &e) != 0)
			gl_diag_file(d, cJSON_GetObjectItemCaseSensitive(src, "ca_bundle"), p,
				     &e); /* a warning for validate away from the cluster */
	}
}

void gl_image_keys_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path)
{
	const cJSON *img = cJSON_GetObjectItemCaseSensitive(w, "image");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(w, "image_source");
	char p[600];

	if (img) {
		struct gl_err e = { 0 };
		gl_join(p, sizeof(p), path, "image");
		if (!cJSON_IsString(img))
			gl_diag_error(d, img, p, "expected an image reference string, got %s", gl_json_type_name(img));
		else if (gl_image_ref_check(img->valuestring, NULL, &e) != 0)
			gl_diag_error(d, img, p,
				      "not an image reference: %s (expected like \"registry/name:tag\" or "
				      "\"registry/name@sha256:<64 hex>\")",
				      e.msg);
	}
	if (src) {
		gl_join(p, sizeof(p), path, "image_source");
		check_source(s, src, d, p);
	}
}
