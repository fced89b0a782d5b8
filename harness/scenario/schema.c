/*
 * schema.c - the typed getters of schema.h, each reporting its own errors.
 */
#include "schema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "cfg.h"
#include "scenario.h"
#include <stdlib.h>
#include "units.h"

const char *gl_json_type_name(const cJSON *v)
{
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	return "an unknown value";
}

void gl_join(char *out, size_t n, const char *path, const char *key)
{
	if (!path || !*path)
		snprintf(out, n, "%s", key);
	else
		snprintf(out, n, "%s.%s", path, key);
}

/* Every key of obj must be in allowed (NULL-terminated). */
void gl_check_keys(struct gl_diag *d, const cJSON *obj, const char *path, const char *const *allowed)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, obj)
	{
		const char *best = NULL;
		int best_d = 3, found = 0;
		char p[512];

		for (int i = 0; allowed[i]; i++) {
			int dd;
			if (strcmp(it->string, allowed[i]) == 0) {
				found = 1;
				break;
			}
			dd = gl_edit_distance(it->string, allowed[i], 2);
			if (dd < best_d) {
				best_d = dd;
				best = allowed[i];
			}
		}
		if (found)
			continue;
		gl_join(p, sizeof(p), path, it->string);
		if (best) {
			gl_diag_error(d, it, p, "unknown key '%s' (did you mean '%s'?)", it->string, best);
		} else {
			char list[512] = "";
			size_t off = 0;
			for (int i = 0; allowed[i] && off < sizeof(list) - 64; i++)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
							allowed[i]);
			gl_diag_error(d, it, p, "unknown key '%s', expected one of: %s", it->string, list);
		}
	}
}

static const cJSON *want(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required,
			 const char *what)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char p[512];

	if (!v) {
		if (required)
			gl_diag_error(d, obj, path, "missing required key '%s' (%s)", key, what);
		return NULL;
	}
	(void)p;
	return v;
}

int gl_get_string(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, char *out,
		  size_t n)
{
	const cJSON *v = want(d, obj, key, path, required, "a string");
	char p[512];

	if (!v)
		return 0;
	gl_join(p, sizeof(p), path, key);
	if (!cJSON_IsString(v)) {
		gl_diag_error(d, v, p, "expected a string, got %s", gl_json_type_name(v));
		return -1;
	}
	if (strlen(v->valuestring) >= n) {
		gl_diag_error(d, v, p, "string too long (at most %zu bytes)", n - 1);
		return -1;
	}
	if (required && !v->valuestring[0]) {
		gl_diag_error(d, v, p, "must not be empty");
		return -1;
	}
	snprintf(out, n, "%s", v->valuestring);
	return 1;
}

/* The first control character (byte < 0x20 or DEL) in s, or NULL. */
const char *gl_control_char(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return s;
	return NULL;
}

/* A name that reaches logs, the timeline, status and reports (scenario
 * name, phase names, fault ids): a string without control characters, so
 * a newline or an escape sequence cannot forge a line or a terminal. */
int gl_get_name(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, char *out,
		size_t n)
{
	int rc = gl_get_string(d, obj, key, path, required, out, n);
	const char *c;
	char p[512];

	if (rc > 0 && (c = gl_control_char(out))) {
		gl_join(p, sizeof(p), path, key);
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(obj, key), p,
			      "a control character (byte %zu, 0x%02x) in a name: refused, it would forge log and "
			      "report lines",
			      (size_t)(c - out) + 1, (unsigned)(unsigned char)*c);
		return -1;
	}
	return rc;
}

int gl_get_duration(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, int64_t *out)
{
	const cJSON *v = want(d, obj, key, path, required, "a duration like 90s, 10m or 1h30m");
	char p[512];
	struct gl_err e = { 0 };

	if (!v)
		return 0;
	gl_join(p, sizeof(p), path, key);
	if (!cJSON_IsString(v)) {
		gl_diag_error(d, v, p, "expected a duration string like \"90s\", \"10m\" or \"1h30m\", got %s",
			      gl_json_type_name(v));
		return -1;
	}
	if (gl_parse_duration_ns(v->valuestring, out, &e) != 0) {
		gl_diag_error(d, v, p, "%s", e.msg);
		return -1;
	}
	return 1;
}

int gl_get_size(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, uint64_t *out)
{
	const cJSON *v = want(d, obj, key, path, required, "a size like 4KiB or 8GiB");
	char p[512];
	struct gl_err e = { 0 };

	if (!v)
		return 0;
	gl_join(p, sizeof(p), path, key);
	if (cJSON_IsNumber(v)) {
		if (v->valuedouble < 0 || v->valuedouble > 4.6e18 || v->valuedouble != floor(v->valuedouble)) {
			gl_diag_error(d, v, p, "expected a whole number of bytes or a size like \"4MiB\"");
			return -1;
		}
		*out = (uint64_t)v->valuedouble;
		return 1;
	}
	if (!cJSON_IsString(v)) {
		gl_diag_error(d, v, p, "expected a size like \"4KiB\" or \"8GiB\", got %s", gl_json_type_name(v));
		return -1;
	}
	if (gl_parse_size_bytes(v->valuestring, out, &e) != 0) {
		gl_diag_error(d, v, p, "%s", e.msg);
		return -1;
	}
	return 1;
}

int gl_get_number(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, double lo,
		  double hi, double *out)
{
	const cJSON *v = want(d, obj, key, path, required, "a number");
	char p[512];

	if (!v)
		return 0;
	gl_join(p, sizeof(p), path, key);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
		gl_diag_error(d, v, p, "expected a number, got %s", gl_json_type_name(v));
		return -1;
	}
	if (v->valuedouble < lo || v->valuedouble > hi) {
		gl_diag_error(d, v, p, "%g is out of range, expected %g to %g", v->valuedouble, lo, hi);
		return -1;
	}
	*out = v->valuedouble;
	return 1;
}

int gl_get_int(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, long lo, long hi,
	       long *out)
{
	double x;
	int rc = gl_get_number(d, obj, key, path, required, (double)lo, (double)hi, &x);
	char p[512];

	if (rc <= 0)
		return rc;
	if (x != floor(x)) {
		gl_join(p, sizeof(p), path, key);
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(obj, key), p, "expected a whole number, got %g", x);
		return -1;
	}
	*out = (long)x;
	return 1;
}

int gl_get_bool(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char p[512];

	if (!v)
		return 0;
	gl_join(p, sizeof(p), path, key);
	if (!cJSON_IsBool(v)) {
		gl_diag_error(d, v, p, "expected true or false, got %s", gl_json_type_name(v));
		return -1;
	}
	*out = cJSON_IsTrue(v);
	return 1;
}

int gl_get_enum(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required,
		const char *const *choices, char *out, size_t n)
{
	int rc = gl_get_string(d, obj, key, path, required, out, n);
	char p[512], list[256] = "";
	size_t off = 0;

	if (rc <= 0)
		return rc;
	for (int i = 0; choices[i]; i++)
		if (strcmp(out, choices[i]) == 0)
			return 1;
	for (int i = 0; choices[i] && off < sizeof(list) - 32; i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", choices[i]);
	gl_join(p, sizeof(p), path, key);
	gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(obj, key), p, "'%s' is not one of: %s", out, list);
	return -1;
}

int gl_want_object(struct gl_diag *d, const cJSON *v, const char *path)
{
	if (!cJSON_IsObject(v)) {
		gl_diag_error(d, v, path, "expected an object, got %s", gl_json_type_name(v));
		return 0;
	}
	return 1;
}

void gl_check_string_array(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key), *e;
	char p[512], ep[600];
	int i = 0;

	gl_join(p, sizeof(p), path, key);
	if (!a) {
		if (required)
			gl_diag_error(d, obj, path, "missing required key '%s' (an array of strings)", key);
		return;
	}
	if (!cJSON_IsArray(a)) {
		gl_diag_error(d, a, p, "expected an array of strings, got %s", gl_json_type_name(a));
		return;
	}
	cJSON_ArrayForEach(e, a)
	{
		snprintf(ep, sizeof(ep), "%s[%d]", p, i++);
		if (!cJSON_IsString(e))
			gl_diag_error(d, e, ep, "expected a string, got %s", gl_json_type_name(e));
	}
}

int gl_check_host_slots(const struct gl_scenario *s, struct gl_diag *d, const cJSON *hosts, const char *path,
			long max_slots, const char *range, const char *example)
{
	const cJSON *h;
	char hp[600];
	int i = 0, remote = 0;

	gl_join(hp, sizeof(hp), path, "hosts");
	if (!cJSON_IsArray(hosts) || cJSON_GetArraySize(hosts) == 0) {
		gl_diag_error(d, hosts, hp, "expected a non-empty array like %s", example);
		return 0;
	}
	cJSON_ArrayForEach(h, hosts)
	{
		char ep[700], name[GL_NAME_MAX + 16], *colon;
		const struct gl_host *gh;
		snprintf(ep, sizeof(ep), "%s[%d]", hp, i++);
		if (!cJSON_IsString(h) || strlen(h->valuestring) >= sizeof(name)) {
			gl_diag_error(d, h, ep, "expected \"host:slots\"");
			continue;
		}
		snprintf(name, sizeof(name), "%s", h->valuestring);
		if ((colon = strchr(name, ':'))) {
			char *end;
			long slots = strtol(colon + 1, &end, 10);
			*colon = '\0';
			if (*end || slots < 1 || slots > max_slots)
				gl_diag_error(d, h, ep, "bad slot count in \"%s\", expected host:N with N %s",
					      h->valuestring, range);
		}
		if (!(gh = gl_scenario_host(s, name)))
			gl_diag_error(d, h, ep, "unknown host '%s' (not in \"hosts\")", name);
		else if (!gh->local)
			remote = 1;
	}
	return remote;
}

void gl_check_agents(const struct gl_scenario *s, struct gl_diag *d, const cJSON *w, const char *path)
{
	static const char *const keys[] = { "launcher",      "count",   "hosts",        "launcher_args",
					    "launcher_path", "binary",  "listen",       "connect_timeout",
					    "settle",        "backoff", "max_restarts", NULL };
	static const char *const launchers[] = { "mpirun", "srun", NULL };
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(w, "agents"), *hosts;
	char p[512], buf[1024];
	long l;
	int64_t ns;
	int remote = 0;

	if (!a)
		return;
	gl_join(p, sizeof(p), path, "agents");
	if (!gl_want_object(d, a, p))
		return;
	gl_check_keys(d, a, p, keys);
	gl_get_enum(d, a, "launcher", p, 1, launchers, buf, sizeof(buf));
	gl_get_int(d, a, "count", p, 1, 1, 256, &l);
	gl_get_string(d, a, "launcher_path", p, 0, buf, sizeof(buf));
	gl_get_string(d, a, "binary", p, 0, buf, sizeof(buf));
	gl_get_string(d, a, "listen", p, 0, buf, sizeof(buf));
	if (gl_get_duration(d, a, "connect_timeout", p, 0, &ns) == 1 &&
	    (ns < GL_AGENTS_CONNECT_TIMEOUT_MIN_NS || ns > GL_AGENTS_CONNECT_TIMEOUT_MAX_NS)) {
		char tp[600];
		gl_join(tp, sizeof(tp), p, "connect_timeout");
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(a, "connect_timeout"), tp,
			      "%s is out of 1s to 10m (the longest the controller waits for its agents to connect)",
			      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "connect_timeout")));
	}
	gl_get_duration(d, a, "settle", p, 0, &ns);
	gl_get_duration(d, a, "backoff", p, 0, &ns);
	gl_get_int(d, a, "max_restarts", p, 0, 0, 1000, &l);
	gl_check_string_array(d, a, "launcher_args", p, 0);
	hosts = cJSON_GetObjectItemCaseSensitive(a, "hosts");
	if (hosts)
		remote = gl_check_host_slots(s, d, hosts, p, 256, "from 1 to 256", "[\"gpu-a:2\", \"gpu-b:2\"]");
	/* agents on other hosts must dial an address they can reach */
	if ((remote || !strcmp(gl_cfg_str(a, "launcher", ""), "srun")) &&
	    !cJSON_GetObjectItemCaseSensitive(a, "listen"))
		gl_diag_error(d, a, p,
			      "agents on other hosts need \"listen\": the controller's address they "
			      "connect back to, like \"10.0.0.5:0\" (port 0: any free port)");
}
