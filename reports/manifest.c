/*
 * manifest.c - manifest.json (manifest.h). The keys of the first version
 * (gauntlet.version, gauntlet.revision, run_id, scenario_path,
 * scenario_sha256, controller_host) stay; the rest is provenance taken from
 * the inventory stored at run start. Nothing here measures anything: a
 * figure absent from the store is "unavailable", with the reason.
 *
 * The output is a function of the store alone (no render time in it), so
 * rendering it again leaves a sealed manifest.json byte for byte the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "units.h"

static cJSON *unavailable(const char *why)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", "unavailable");
	cJSON_AddStringToObject(o, "why", why);
	return o;
}

/* A stored item as it is when it has one of the two shapes, else
 * unavailable: the store is outside input like any other. */
static cJSON *item(const cJSON *it)
{
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(it, "source");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(it, "status");
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(it, "why");

	if (cJSON_IsObject(it) && cJSON_GetObjectItemCaseSensitive(it, "value") && cJSON_IsString(src) &&
	    !strcmp(src->valuestring, "measured"))
		return cJSON_Duplicate(it, 1);
	if (cJSON_IsObject(it) && cJSON_IsString(st) && !strcmp(st->valuestring, "unavailable") && cJSON_IsString(why))
		return cJSON_Duplicate(it, 1);
	return unavailable("the stored inventory item is malformed");
}

static cJSON *hosts(const cJSON *stored)
{
	cJSON *out = cJSON_CreateObject();
	const cJSON *h, *f;

	cJSON_ArrayForEach(h, stored) {
		cJSON *o;
		if (!h->string || !cJSON_IsObject(h))
			continue;
		o = cJSON_AddObjectToObject(out, h->string);
		cJSON_ArrayForEach(f, h) {
			if (!f->string)
				continue;
			if (cJSON_IsString(f))   /* transport, address, netns */
				cJSON_AddStringToObject(o, f->string, f->valuestring);
			else
				cJSON_AddItemToObject(o, f->string, item(f));
		}
	}
	return out;
}

static cJSON *scenario_git(const cJSON *g)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(g, "in_repository");

	if (cJSON_IsObject(g) && cJSON_IsBool(in))
		return cJSON_Duplicate(g, 1);
	return item(g);
}

static cJSON *build(const struct gl_analysis *an, const cJSON *inv, const char *why_none)
{
	cJSON *m = cJSON_CreateObject(), *g, *o;
	char wall[40];

	if (!m)
		return NULL;
	cJSON_AddNumberToObject(m, "manifest_version", 1);
	g = cJSON_AddObjectToObject(m, "gauntlet");
	cJSON_AddStringToObject(g, "version", an->run.version);
	cJSON_AddStringToObject(g, "revision", an->run.git_rev);
	cJSON_AddStringToObject(m, "run_id", an->run.id);
	cJSON_AddStringToObject(m, "scenario", an->run.name);
	cJSON_AddStringToObject(m, "scenario_path", an->run.scenario_path);
	cJSON_AddStringToObject(m, "scenario_sha256", an->run.scenario_sha256);
	cJSON_AddStringToObject(m, "controller_host", an->run.hostname);
	gl_format_wall(an->run.started_wall_ns, wall, sizeof(wall));
	cJSON_AddStringToObject(m, "started", wall);
	if (!cJSON_IsObject(inv)) {
		const char *why = inv ? "the stored inventory is not a JSON object" : why_none;
		cJSON_AddItemToObject(m, "scenario_git", unavailable(why));
		cJSON_AddItemToObject(m, "inventory", unavailable(why));
		goto out;
	}
	cJSON_AddItemToObject(m, "scenario_git", scenario_git(cJSON_GetObjectItemCaseSensitive(inv, "scenario_git")));
	o = cJSON_AddObjectToObject(m, "inventory");
	{
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(inv, "collected");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(inv, "collect_s");
		if (cJSON_IsString(c))
			cJSON_AddStringToObject(o, "collected", c->valuestring);
		if (cJSON_IsNumber(s))
			cJSON_AddNumberToObject(o, "collect_s", s->valuedouble);
	}
	cJSON_AddItemToObject(o, "hosts", hosts(cJSON_GetObjectItemCaseSensitive(inv, "hosts")));
out:
	return m;
}

cJSON *gl_manifest_build(const struct gl_analysis *an, const cJSON *inv)
{
	return build(an, inv, "not in the store: the inventory is taken at run start and this run has none");
}

cJSON *gl_manifest_from_store(const struct gl_analysis *an, struct gl_store *st)
{
	struct gl_err err = { 0 };
	char *text = NULL, why[GL_ERR_MSG_MAX + 64];
	cJSON *inv = NULL, *m;

	if (gl_store_doc_get(st, "inventory", &text, &err) != 0)
		snprintf(why, sizeof(why), "the stored inventory cannot be read: %s", err.msg);
	else if (!text)
		snprintf(why, sizeof(why), "not in the store: the inventory is taken at run start and this run has none");
	else if (!(inv = cJSON_Parse(text)))
		snprintf(why, sizeof(why), "the stored inventory is not valid JSON");
	m = build(an, inv, why);
	cJSON_Delete(inv);
	free(text);
	return m;
}
