/*
 * scenario_notify.c - the scenario's "notify" list (docs/scenario.md):
 * webhooks told of the run's events. Checked like every other section
 * (every key typed, unknown keys refused, errors naming the JSON path);
 * what sends them is harness/core/notify.c.
 *
 *   {"url_env": "SOAK_WEBHOOK", "format": "slack",
 *    "on": ["start", "fault", "target_missed", "abort", "error", "end"]}
 *
 * The URL is a secret (docs/security.md): the scenario names only the
 * variable that holds it, so neither the stored scenario nor a report can
 * show it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_parts.h"
#include "schema.h"
#include "secrets.h"

static const char *const event_names[GL_NEV_N] = { "start", "fault", "target_missed", "abort", "error", "end" };

const char *gl_notify_event_name(enum gl_notify_event e)
{
	return e >= 0 && e < GL_NEV_N ? event_names[e] : "?";
}

static void parse_on(struct gl_diag *d, struct gl_notify_spec *o, const cJSON *on, const char *path)
{
	const cJSON *e;
	char p[96];
	int n = 0;

	snprintf(p, sizeof(p), "%s.on", path);
	if (!cJSON_IsArray(on) || cJSON_GetArraySize(on) == 0) {
		gl_diag_error(d, on, p,
			      "expected a non-empty array of events (start, fault, target_missed, abort, "
			      "error, end), got %s",
			      gl_json_type_name(on));
		return;
	}
	cJSON_ArrayForEach(e, on)
	{
		int k;
		snprintf(p, sizeof(p), "%s.on[%d]", path, n++);
		if (!cJSON_IsString(e)) {
			gl_diag_error(d, e, p, "expected an event name, got %s", gl_json_type_name(e));
			continue;
		}
		for (k = 0; k < GL_NEV_N && strcmp(e->valuestring, event_names[k]); k++)
			;
		if (k == GL_NEV_N) {
			if (gl_control_char(e->valuestring) || strlen(e->valuestring) > 32)
				gl_diag_error(d, e, p,
					      "unknown event: expected one of start, fault, target_missed, abort, "
					      "error, end");
			else
				gl_diag_error(d, e, p,
					      "unknown event \"%s\": expected one of start, fault, target_missed, "
					      "abort, error, end",
					      e->valuestring);
			continue;
		}
		if (o->on & (1u << k))
			gl_diag_error(d, e, p, "event \"%s\" named twice", e->valuestring);
		o->on |= 1u << k;
	}
}

void gl_scenario_parse_notify(struct gl_scenario *s, const cJSON *notify, struct gl_diag *d)
{
	static const char *const keys[] = { "url_env", "format", "on", NULL };
	static const char *const formats[] = { "json", "slack", NULL };
	const cJSON *w;
	int n, i = 0;

	if (!cJSON_IsArray(notify)) {
		gl_diag_error(d, notify, "notify", "expected an array of webhooks, got %s", gl_json_type_name(notify));
		return;
	}
	n = cJSON_GetArraySize(notify);
	if (n > GL_NOTIFY_MAX) {
		gl_diag_error(d, notify, "notify", "at most %d webhooks, got %d", GL_NOTIFY_MAX, n);
		return;
	}
	s->notify = calloc((size_t)n + 1, sizeof(*s->notify));
	if (!s->notify) {
		gl_diag_error(d, notify, "notify", "out of memory");
		return;
	}
	cJSON_ArrayForEach(w, notify)
	{
		struct gl_notify_spec *o = &s->notify[i];
		const cJSON *env = cJSON_GetObjectItemCaseSensitive(w, "url_env");
		char path[32], mp[64], fmt[8] = "";

		snprintf(path, sizeof(path), "notify[%d]", i++);
		if (!gl_want_object(d, w, path))
			continue;
		o->json = w;
		gl_check_keys(d, w, path, keys);
		snprintf(mp, sizeof(mp), "%s.url_env", path);
		if (!env)
			gl_diag_error(d, w, mp,
				      "missing required key 'url_env' (the variable holding the webhook's URL)");
		else if (!cJSON_IsString(env))
			gl_diag_error(d, env, mp, "expected a variable name, got %s", gl_json_type_name(env));
		else if (!gl_env_name_ok(env->valuestring) || strlen(env->valuestring) >= sizeof(o->url_env))
			/* never echoed: a URL put here by mistake is the secret itself */
			gl_diag_error(d, env, mp,
				      "expected the name of an environment variable (letters, digits, _; "
				      "at most %zu bytes), not a URL: the URL is a secret and stays in the environment",
				      sizeof(o->url_env) - 1);
		else
			snprintf(o->url_env, sizeof(o->url_env), "%s", env->valuestring);
		if (gl_get_enum(d, w, "format", path, 0, formats, fmt, sizeof(fmt)) > 0)
			o->slack = !strcmp(fmt, "slack");
		snprintf(mp, sizeof(mp), "%s.on", path);
		if (!cJSON_GetObjectItemCaseSensitive(w, "on"))
			gl_diag_error(d, w, mp,
				      "missing required key 'on' (the events to send, e.g. [\"start\", \"end\"])");
		else
			parse_on(d, o, cJSON_GetObjectItemCaseSensitive(w, "on"), path);
	}
	s->n_notify = i;
}

void gl_notify_print(const struct gl_scenario *s, FILE *f)
{
	for (int i = 0; i < s->n_notify; i++) {
		const struct gl_notify_spec *o = &s->notify[i];
		int first = 1;
		const char *v = gl_secret_getenv(o->url_env);
		fprintf(f, "notify[%d] (%s): %s webhook, its URL in the environment %s, on", i, o->url_env,
			o->slack ? "slack" : "json", v && *v ? "(set; never shown)" : "(NOT SET: a run stops, exit 4)");
		for (int k = 0; k < GL_NEV_N; k++)
			if (o->on & (1u << k)) {
				fprintf(f, "%s %s", first ? "" : ",", event_names[k]);
				first = 0;
			}
		fputc('\n', f);
	}
}
