/*
 * scenario_doc.c - the scenario document before its schema is checked:
 * --set PATH=VALUE overrides applied to the parsed tree, and "inventory":
 * the ${...} values a scenario takes from an inventory file, and the hosts
 * it adds. What comes out is validated by scenario.c like any scenario.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonc.h"
#include "paths.h"
#include "scenario_parts.h"
#include "schema.h"
#include "util.h"

/* ---- --set overrides ----------------------------------------------------- */

/* The value of one --set, through the same strict parser as scenario files
 * (jsonc.c): what parses is taken with its type. What the strict parser
 * refuses but is JSON all the same (an embedded \u0000 that would cut a
 * process pattern short, a duplicate key, 1e400), or starts like JSON
 * ({ [ "), is an error naming the --set; anything else is a plain string
 * ("10m", "eth0"). NULL after reporting through d. */
static cJSON *set_value(const char *path, const char *value, struct gl_diag *d)
{
	struct gl_err err = { 0 };
	struct gl_jsonc_doc *doc;
	char name[600];
	cJSON *lax, *val;
	const char *p = value;

	snprintf(name, sizeof(name), "--set %s", path);
	doc = gl_jsonc_parse(value, strlen(value), name, &err);
	if (doc) {
		val = cJSON_Duplicate(gl_jsonc_root(doc), 1);
		gl_jsonc_free(doc);
		if (!val)
			gl_diag_error(d, NULL, "--set", "%s: out of memory", path);
		return val;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	lax = cJSON_ParseWithOpts(value, NULL, 1);
	if (lax || *p == '{' || *p == '[' || *p == '"') {
		cJSON_Delete(lax);
		gl_diag_error(d, NULL, "--set", "%s (the value of --set %s is refused as a scenario file would be)",
			      err.msg, path);
		return NULL;
	}
	if (!(val = cJSON_CreateString(value)))
		gl_diag_error(d, NULL, "--set", "%s: out of memory", path);
	return val;
}

/* "workloads.null.rate=200", "faults[0].at=10m". The value is JSON when it
 * parses as strict JSON, refused when it is JSON the strict parser refuses,
 * else a string (set_value). The node must already exist, or its parent
 * must be an object. */
int gl_scenario_apply_set(cJSON *root, const char *expr, struct gl_diag *d)
{
	char path[512], *eq, *seg, *save = NULL;
	cJSON *cur = root, *val;
	const char *value;

	if (strlen(expr) >= sizeof(path) || !(eq = strchr(expr, '=')) || eq == expr) {
		gl_diag_error(d, NULL, "--set", "expected path=value, got '%s'", expr);
		return -1;
	}
	memcpy(path, expr, (size_t)(eq - expr));
	path[eq - expr] = '\0';
	value = eq + 1;
	if (!(val = set_value(path, value, d)))
		return -1;
	for (seg = strtok_r(path, ".", &save); seg; seg = strtok_r(NULL, ".", &save)) {
		char *br = strchr(seg, '[');
		int last;
		if (br)
			*br = '\0';
		last = !br && !save[0];
		if (*seg) {
			cJSON *next;
			if (!cJSON_IsObject(cur))
				goto bad;
			next = cJSON_GetObjectItemCaseSensitive(cur, seg);
			if (last && (!save || !*save)) {
				if (next)
					cJSON_ReplaceItemInObjectCaseSensitive(cur, seg, val);
				else
					cJSON_AddItemToObject(cur, seg, val);
				return 0;
			}
			if (!next)
				goto bad;
			cur = next;
		}
		while (br) {
			char *end;
			long idx = strtol(br + 1, &end, 10);
			if (*end != ']' || idx < 0 || !cJSON_IsArray(cur) || idx >= cJSON_GetArraySize(cur))
				goto bad;
			br = end[1] == '[' ? end + 1 : NULL;
			if (!br && !end[1] && (!save || !*save)) {
				cJSON_ReplaceItemInArray(cur, (int)idx, val);
				return 0;
			}
			cur = cJSON_GetArrayItem(cur, (int)idx);
		}
	}
bad:
	cJSON_Delete(val);
	gl_diag_error(d, NULL, "--set", "'%.*s' does not name a value of the scenario", (int)(eq - expr), expr);
	return -1;
}

/* ---- inventory: values a scenario takes from a file ----------------------- */

/* "inventory": "FILE" names a JSON object (the lab writes one, an operator may
 * write one per cluster). Every string of the scenario may then hold
 * ${a.b.c}: the value at that dotted path of the inventory (numeric parts
 * index arrays). A string that is exactly one ${...} takes the value with its
 * JSON type (an array of mpirun arguments, a port number); inside a longer
 * string the value must be a string, number or boolean. $${ is a literal ${.
 * The inventory's "hosts" are added to the scenario's (the scenario's own
 * entries win). The inventory's bytes are kept with the run, so resume and
 * report never read the file again. */

static const cJSON *inv_lookup(const cJSON *inv, const char *name, size_t n)
{
	const cJSON *cur = inv;
	size_t i = 0;

	while (i < n && cur) {
		char seg[128];
		size_t j = 0;
		while (i < n && name[i] != '.' && j < sizeof(seg) - 1)
			seg[j++] = name[i++];
		seg[j] = '\0';
		if (i < n && name[i] != '.')
			return NULL;
		i++;
		if (!j)
			return NULL;
		if (cJSON_IsArray(cur)) {
			char *end;
			long k = strtol(seg, &end, 10);
			cur = (*end || k < 0) ? NULL : cJSON_GetArrayItem(cur, (int)k);
		} else if (cJSON_IsObject(cur)) {
			cur = cJSON_GetObjectItemCaseSensitive(cur, seg);
		} else {
			return NULL;
		}
	}
	return cur;
}

static int inv_name_ok(const char *p, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)p[i]) && !strchr("_.-", p[i]))
			return 0;
	return 1;
}

/* The inventory value that ${name} (n bytes of name) refers to, or NULL
 * with the reason reported in d against node v. */
static const cJSON *inv_ref(struct gl_diag *d, const cJSON *v, const char *path, const cJSON *inv, const char *invname,
			    const char *name, size_t n)
{
	const cJSON *val;

	if (!inv_name_ok(name, n)) {
		gl_diag_error(d, v, path, "'${%.*s}': expected ${name} with letters, digits, '_', '-' and '.'", (int)n,
			      name);
		return NULL;
	}
	if (!(val = inv_lookup(inv, name, n)))
		gl_diag_error(d, v, path, "${%.*s} is not in the inventory %s", (int)n, name, invname);
	return val;
}

/* The replacement for string node v, or NULL when it stays as it is (and on
 * error, reported in d). A lone ${...} takes the value with its type. */
static cJSON *inv_expand_one(struct gl_diag *d, const cJSON *v, const char *path, const cJSON *inv, const char *invname)
{
	const char *s = v->valuestring, *p;
	size_t len = strlen(s);
	struct gl_buf b;
	cJSON *out = NULL;

	if (!strchr(s, '$'))
		return NULL;
	/* a lone ${name}: the value keeps its JSON type */
	if (len > 3 && s[0] == '$' && s[1] == '{' && strchr(s, '}') == s + len - 1) {
		const cJSON *val = inv_ref(d, v, path, inv, invname, s + 2, len - 3);
		return val ? cJSON_Duplicate(val, 1) : NULL;
	}
	gl_buf_init(&b, 1 << 16);
	for (p = s; *p;) {
		const char *q = strchr(p, '$'), *end;
		const cJSON *val;
		size_t n;
		if (!q) {
			gl_buf_append(&b, p, strlen(p));
			break;
		}
		gl_buf_append(&b, p, (size_t)(q - p));
		if (q[1] == '$' && q[2] == '{') { /* $${ is a literal ${ */
			gl_buf_append(&b, "${", 2);
			p = q + 3;
			continue;
		}
		if (q[1] != '{') {
			gl_buf_append(&b, "$", 1);
			p = q + 1;
			continue;
		}
		if (!(end = strchr(q + 2, '}'))) {
			gl_diag_error(d, v, path, "'%s': ${ without its closing }", s);
			goto fail;
		}
		n = (size_t)(end - q - 2);
		if (!(val = inv_ref(d, v, path, inv, invname, q + 2, n)))
			goto fail;
		if (cJSON_IsString(val))
			gl_buf_append(&b, val->valuestring, strlen(val->valuestring));
		else if (cJSON_IsBool(val))
			gl_buf_printf(&b, "%s", cJSON_IsTrue(val) ? "true" : "false");
		else if (cJSON_IsNumber(val) && val->valuedouble == (double)(long long)val->valuedouble)
			gl_buf_printf(&b, "%lld", (long long)val->valuedouble);
		else if (cJSON_IsNumber(val))
			gl_buf_printf(&b, "%.17g", val->valuedouble);
		else {
			gl_diag_error(d, v, path,
				      "${%.*s} is %s in the inventory: only a string standing alone can take it",
				      (int)n, q + 2, gl_json_type_name(val));
			goto fail;
		}
		p = end + 1;
	}
	gl_buf_append(&b, "", 1);
	out = cJSON_CreateString(b.data ? b.data : "");
fail:
	gl_buf_free(&b);
	return out;
}

static void inv_expand(struct gl_diag *d, cJSON *node, const char *path, const cJSON *inv, const char *invname,
		       int depth)
{
	cJSON *c, *next;
	int i = 0;

	if (depth > 64)
		return;
	for (c = node->child; c; c = next, i++) {
		char p[512];
		next = c->next;
		if (cJSON_IsObject(node)) {
			if (depth == 0 && !strcmp(c->string, "inventory"))
				continue;
			gl_join(p, sizeof(p), path, c->string);
		} else {
			snprintf(p, sizeof(p), "%s[%d]", path, i);
		}
		if (cJSON_IsString(c)) {
			cJSON *r = inv_expand_one(d, c, p, inv, invname);
			if (r && cJSON_IsObject(node))
				cJSON_ReplaceItemInObjectCaseSensitive(node, c->string, r);
			else if (r)
				cJSON_ReplaceItemInArray(node, i, r);
		} else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
			inv_expand(d, c, p, inv, invname, depth + 1);
		}
	}
}

void gl_scenario_apply_inventory(struct gl_scenario *s, const struct gl_scenario_opts *o, struct gl_diag *d)
{
	const cJSON *key = cJSON_GetObjectItemCaseSensitive(s->root, "inventory");
	struct gl_err err = { 0 };
	cJSON *inv, *hosts, *h;
	char *text = NULL;
	size_t len = 0;

	if (!key)
		return;
	if (!cJSON_IsString(key) || !key->valuestring[0]) {
		gl_diag_error(d, key, "inventory", "expected the path of an inventory file (JSON object)");
		return;
	}
	if (o && o->inventory_text) {
		/* resume, report: the bytes the run was started with */
		snprintf(s->inventory_path, sizeof(s->inventory_path), "%s", key->valuestring);
		text = strdup(o->inventory_text);
		len = text ? strlen(text) : 0;
	} else if (gl_path_confine(s->path, s->root, key->valuestring, s->inventory_path, sizeof(s->inventory_path),
				   &err) != 0) {
		gl_diag_error(d, key, "inventory", "cannot read the inventory: %s", err.msg);
		return;
	} else if (gl_read_file(s->inventory_path, 1 << 20, &text, &len, &err) != 0) {
		gl_diag_error(d, key, "inventory", "cannot read the inventory: %s", err.msg);
		return;
	}
	if (!text)
		return;
	inv = cJSON_ParseWithLength(text, len);
	if (!cJSON_IsObject(inv)) {
		gl_diag_error(d, key, "inventory", "%s is not a JSON object", s->inventory_path);
		cJSON_Delete(inv);
		free(text);
		return;
	}
	s->inventory_text = text;
	inv_expand(d, s->root, "", inv, s->inventory_path, 0);
	hosts = cJSON_GetObjectItemCaseSensitive(inv, "hosts");
	if (cJSON_IsObject(hosts)) {
		cJSON *mine = cJSON_GetObjectItemCaseSensitive(s->root, "hosts");
		if (!mine)
			mine = cJSON_AddObjectToObject(s->root, "hosts");
		cJSON_ArrayForEach(h, hosts) if (cJSON_IsObject(mine) &&
						 !cJSON_GetObjectItemCaseSensitive(mine, h->string))
			cJSON_AddItemToObject(mine, h->string, cJSON_Duplicate(h, 1));
	}
	cJSON_Delete(inv);
}
