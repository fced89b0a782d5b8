/*
 * cfg.c - typed getters over a validated scenario section (cfg.h).
 */
#include "cfg.h"

#include "units.h"

const char *gl_cfg_str(const cJSON *o, const char *k, const char *def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : def;
}

double gl_cfg_num(const cJSON *o, const char *k, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

long gl_cfg_int(const cJSON *o, const char *k, long def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? (long)v->valuedouble : def;
}

int gl_cfg_bool(const cJSON *o, const char *k, int def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : def;
}

int64_t gl_cfg_dur(const cJSON *o, const char *k, int64_t def)
{
	int64_t ns;
	const char *s = gl_cfg_str(o, k, NULL);
	return s && gl_parse_duration_ns(s, &ns, NULL) == 0 ? ns : def;
}

uint64_t gl_cfg_size(const cJSON *o, const char *k, uint64_t def)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);
	uint64_t v;

	/* validation takes a whole number of bytes as well as "4MiB" */
	if (cJSON_IsNumber(j) && j->valuedouble >= 0 && j->valuedouble <= 4.6e18)
		return (uint64_t)j->valuedouble;
	return cJSON_IsString(j) && gl_parse_size_bytes(j->valuestring, &v, NULL) == 0 ? v : def;
}
