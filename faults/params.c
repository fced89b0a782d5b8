/*
 * params.c - see params.h.
 */
#include "params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

int gl_params_check_key(const cJSON *it, const char *const *keys, const char *what, struct gl_diag *d,
			const char *path)
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

int gl_params_check_keys(const cJSON *o, const char *const *keys, const char *what, struct gl_diag *d,
			 const char *path)
{
	const cJSON *it;
	int n = 0;

	cJSON_ArrayForEach(it, o)
		n += gl_params_check_key(it, keys, what, d, path);
	return n;
}
