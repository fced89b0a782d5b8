/*
 * params.c - see params.h.
 */
#include "params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "http.h"
#include "units.h"

const cJSON *gl_param(const cJSON *o, const char *key)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

const char *gl_param_str(const cJSON *o, const char *key)
{
	const cJSON *v = gl_param(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int64_t gl_param_dur_ns(const cJSON *o, const char *key, int64_t def)
{
	const char *s = gl_param_str(o, key);
	int64_t ns;
	return s && gl_parse_duration_ns(s, &ns, NULL) == 0 && ns > 0 ? ns : def;
}

int gl_json_int(const cJSON *v, long long lo, long long hi, long long *out)
{
	if (!cJSON_IsNumber(v) || v->valuedouble < (double)lo || v->valuedouble > (double)hi ||
	    v->valuedouble != floor(v->valuedouble))
		return -1;
	*out = (long long)v->valuedouble;
	return 0;
}

int gl_key_known(const char *const *keys, const char *key)
{
	for (int i = 0; key && keys[i]; i++)
		if (!strcmp(key, keys[i]))
			return 1;
	return 0;
}

int gl_params_check_key(const cJSON *it, const char *const *keys, const char *what, struct gl_diag *d, const char *path)
{
	char p[256], list[512] = "";
	size_t off = 0;

	if (gl_key_known(keys, it->string))
		return 0;
	if (!d)
		return 1;
	for (int i = 0; keys[i] && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", keys[i]);
	snprintf(p, sizeof(p), "%s.%s", path, it->string);
	gl_diag_error(d, it, p, "unknown key '%s' for %s, expected one of: %s", it->string, what, list);
	return 1;
}

int gl_params_check_keys(const cJSON *o, const char *const *keys, const char *what, struct gl_diag *d, const char *path)
{
	const cJSON *it;
	int n = 0;

	cJSON_ArrayForEach(it, o) n += gl_params_check_key(it, keys, what, d, path);
	return n;
}

const char *gl_url_after_scheme(const char *s)
{
	if (s && !strncmp(s, "https://", 8))
		return s + 8;
	if (s && !strncmp(s, "http://", 7))
		return s + 7;
	return NULL;
}

void gl_params_check_argv(const cJSON *params, struct gl_diag *d, const char *path, const char *key, int required,
			  int max, const char *what)
{
	const cJSON *v = gl_param(params, key), *it;
	char p[256];

	snprintf(p, sizeof(p), "%s.params.%s", path, key);
	if (!v) {
		if (required)
			gl_diag_error(d, params, p, "%s needs params.%s: an argv array like [\"my-tool\", \"arg\"]",
				      what, key);
		return;
	}
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > max) {
		gl_diag_error(d, v, p, "expected a non-empty argv array of at most %d strings", max);
		return;
	}
	cJSON_ArrayForEach(it, v) if (!cJSON_IsString(it))
	{
		gl_diag_error(d, it, p, "every argv element must be a string");
		return;
	}
}

void gl_params_check_k8s_creds(const cJSON *params, struct gl_diag *d, const char *path)
{
	char p[256];

	if (gl_param(params, "token_env") && gl_param(params, "token_file")) {
		snprintf(p, sizeof(p), "%s.params.token_file", path);
		gl_diag_error(d, gl_param(params, "token_file"), p,
			      "give one of \"token_env\" or \"token_file\", not both");
	}
	if (!gl_param(params, "client_cert") != !gl_param(params, "client_key")) {
		snprintf(p, sizeof(p), "%s.params.%s", path,
			 gl_param(params, "client_cert") ? "client_key" : "client_cert");
		gl_diag_error(d, params, p, "\"client_cert\" and \"client_key\" go together");
	}
}

void gl_k8s_http_opts(const cJSON *plan, struct gl_http_opts *o, int64_t deadline_ms, size_t max_body)
{
	memset(o, 0, sizeof(*o));
	o->token_env = gl_param_str(plan, "token_env");
	o->token_file = gl_param_str(plan, "token_file");
	o->ca_bundle = gl_param_str(plan, "ca_bundle");
	o->client_cert = gl_param_str(plan, "client_cert");
	o->client_key = gl_param_str(plan, "client_key");
	o->deadline_ms = deadline_ms;
	o->max_body = max_body;
}
