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

	cJSON_ArrayForEach(h, stored)
	{
		cJSON *o;
		if (!h->string || !cJSON_IsObject(h))
			continue;
		o = cJSON_AddObjectToObject(out, h->string);
		cJSON_ArrayForEach(f, h)
		{
			if (!f->string)
				continue;
			if (cJSON_IsString(f)) /* transport, address, netns */
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

/* Per fault id: the runbook's URL or file (blob ids), as stored; an entry
 * of another shape is unavailable. */
static cJSON *runbooks(const cJSON *stored)
{
	cJSON *out = cJSON_CreateObject();
	const cJSON *r;

	cJSON_ArrayForEach(r, stored)
	{
		const cJSON *rb = cJSON_GetObjectItemCaseSensitive(r, "runbook");
		if (!r->string)
			continue;
		if (cJSON_IsObject(r) && cJSON_IsString(rb) &&
		    (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "url")) ||
		     cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "blob")) ||
		     cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "why"))))
			cJSON_AddItemToObject(out, r->string, cJSON_Duplicate(r, 1));
		else
			cJSON_AddItemToObject(out, r->string, unavailable("the stored runbook entry is malformed"));
	}
	return out;
}

/* --- images ---------------------------------------------------------- */

/* One stored image entry as it is when it keeps its promise (measured with
 * a digest, or unavailable with a reason), else unavailable: the store is
 * outside input. */
static cJSON *image_entry(const cJSON *e)
{
	const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "status"));
	const cJSON *dg = cJSON_GetObjectItemCaseSensitive(e, "digest");
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(e, "reason");
	const char *w = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "workload"));
	const char *src = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "source"));
	cJSON *o;

	if (w && src && cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(e, "pinned")) && st &&
	    ((!strcmp(st, "measured") && cJSON_IsString(dg)) ||
	     (!strcmp(st, "unavailable") && cJSON_IsNull(dg) && cJSON_IsString(why))))
		return cJSON_Duplicate(e, 1);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "workload", w ? w : "?");
	cJSON_AddStringToObject(o, "source", src ? src : "?");
	cJSON_AddNullToObject(o, "image");
	cJSON_AddNullToObject(o, "digest");
	cJSON_AddBoolToObject(o, "pinned", 0);
	cJSON_AddStringToObject(o, "status", "unavailable");
	cJSON_AddStringToObject(o, "reason", "the stored image entry is malformed");
	return o;
}

/* "images": the workloads' images as the inventory recorded them (empty
 * when no workload names one, or the run predates them). */
static cJSON *images(const cJSON *stored)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *e, *arr = cJSON_IsArray(stored) ? stored : NULL;

	cJSON_ArrayForEach(e, arr) cJSON_AddItemToArray(out, image_entry(e));
	return out;
}

/* An entry whose image is unpinned, named by the scenario or a pod (a
 * host entry repeats the scenario's name): what a warning is about. */
static int unpinned(const cJSON *e)
{
	const char *src = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "source"));

	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "image")) &&
	       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "workload")) && src && strcmp(src, "host") &&
	       cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "pinned"));
}

static int same_image(const cJSON *a, const cJSON *b)
{
	return !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "image")),
		       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "image"))) &&
	       !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "workload")),
		       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "workload")));
}

void gl_manifest_image_warnings(const cJSON *manifest, void (*line)(void *arg, const char *text), void *arg)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(manifest, "images");
	int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
	char text[1200];

	for (int i = 0; i < n; i++) {
		const cJSON *e = cJSON_GetArrayItem(arr, i);
		int seen = 0;

		if (!unpinned(e))
			continue;
		for (int j = 0; j < i && !seen; j++) /* once per workload and image */
			seen = unpinned(cJSON_GetArrayItem(arr, j)) && same_image(cJSON_GetArrayItem(arr, j), e);
		if (seen)
			continue;
		snprintf(text, sizeof(text),
			 "image %.512s of workload %.64s is named by tag, not pinned to a digest (%s): the run cannot "
			 "be tied to exact image content",
			 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "image")),
			 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "workload")),
			 !strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "source")), "scenario")
				 ? "as the scenario names it"
				 : "as its pods report it");
		line(arg, text);
	}
}

static cJSON *build(const struct gl_analysis *an, const cJSON *inv, const char *why_none)
{
	cJSON *m = cJSON_CreateObject(), *g, *o;
	char wall[40];

	if (!m)
		return NULL;
	/* docs/manifest.schema.json; bumped as report.json's (docs/evidence.md) */
	cJSON_AddNumberToObject(m, "schema_version", 1);
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
	cJSON_AddItemToObject(m, "runbooks", runbooks(cJSON_GetObjectItemCaseSensitive(inv, "runbooks")));
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
	cJSON_AddItemToObject(m, "images", images(cJSON_GetObjectItemCaseSensitive(inv, "images")));
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
		snprintf(why, sizeof(why),
			 "not in the store: the inventory is taken at run start and this run has none");
	else if (!(inv = cJSON_Parse(text)))
		snprintf(why, sizeof(why), "the stored inventory is not valid JSON");
	m = build(an, inv, why);
	cJSON_Delete(inv);
	free(text);
	return m;
}
