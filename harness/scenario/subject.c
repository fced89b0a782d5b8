/*
 * subject.c - what a fault acts on, in words (plugin.h, gl_plan_subject),
 * read from its plan: the keys the fault kinds' plans share name it.
 */
#include "plugin.h"

#include <stdio.h>
#include <string.h>

static const char *pstr(const cJSON *plan, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(plan, k);
	return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

/* A JSON value as short text: a string as it is, an array's strings (or
 * numbers) joined with ",", a number; "" otherwise. */
static void ptext(const cJSON *v, char *out, size_t n)
{
	const cJSON *e;
	size_t off = 0;

	out[0] = '\0';
	if (cJSON_IsString(v)) {
		snprintf(out, n, "%s", v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		snprintf(out, n, "%.0f", v->valuedouble);
	} else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
		cJSON_ArrayForEach(e, v)
		{
			char one[128];
			if (cJSON_IsObject(e) || cJSON_IsArray(e))
				ptext(cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "name") : e, one,
				      sizeof(one));
			else
				ptext(e, one, sizeof(one));
			if (one[0] && off < n)
				off += (size_t)snprintf(out + off, n - off, "%s%s", off ? "," : "", one);
		}
	}
}

void gl_plan_subject(const cJSON *plan, const char *target, char *out, size_t n)
{
	const char *host = pstr(plan, "host") ? pstr(plan, "host") : target ? target : "?";
	char a[256], b[256];

	if (pstr(plan, "node")) {
		snprintf(out, n, "node %s (via %s)", pstr(plan, "node"), host);
	} else if (pstr(plan, "ca")) {
		ptext(cJSON_GetObjectItemCaseSensitive(plan, "port"), a, sizeof(a));
		snprintf(out, n, "port %s/%s on %s", pstr(plan, "ca"), a, host);
	} else if (pstr(plan, "interface")) {
		snprintf(out, n, "link %s on %s", pstr(plan, "interface"), host);
	} else if (cJSON_GetObjectItemCaseSensitive(plan, "gpus")) {
		ptext(cJSON_GetObjectItemCaseSensitive(plan, "gpus"), a, sizeof(a));
		snprintf(out, n, "GPU %s on %s", a, host);
	} else if (pstr(plan, "device")) {
		snprintf(out, n, "storage %s on %s", pstr(plan, "device"), host);
	} else if (pstr(plan, "pattern")) {
		snprintf(out, n, "processes matching '%s' on %s", pstr(plan, "pattern"), host);
	} else if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(plan, "pid"))) {
		snprintf(out, n, "pid %.0f on %s", cJSON_GetObjectItemCaseSensitive(plan, "pid")->valuedouble, host);
	} else if (cJSON_GetObjectItemCaseSensitive(plan, "a") && cJSON_GetObjectItemCaseSensitive(plan, "b")) {
		ptext(cJSON_GetObjectItemCaseSensitive(plan, "a"), a, sizeof(a));
		ptext(cJSON_GetObjectItemCaseSensitive(plan, "b"), b, sizeof(b));
		snprintf(out, n, "the network between %s and %s (on %s)", a[0] ? a : "group a", b[0] ? b : "group b",
			 host);
	} else if (cJSON_GetObjectItemCaseSensitive(plan, "endpoints")) {
		ptext(cJSON_GetObjectItemCaseSensitive(plan, "endpoints"), a, sizeof(a));
		snprintf(out, n, "endpoint %s", a);
	} else {
		snprintf(out, n, "%s", host);
	}
}
