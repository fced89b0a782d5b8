/*
 * scenario_safety.c - the scenario's "safety" section: concurrency, the
 * maintenance window, abort_if, allowed roots, required runbooks, and the
 * dead-man's switch (renewal, grace, which faults have none).
 */
#include "scenario.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "plugin.h"
#include "scenario_parts.h"
#include "schema.h"

/* "2026-12-01T00:00Z", "2026-12-01T00:00:00Z", "2026-12-01T00:00:00+02:00" */
static int parse_rfc3339(const char *s, int64_t *out_ns)
{
	int y, mo, da, h, mi, sec = 0, n = 0, oh = 0, om = 0, sign = 0;
	struct tm tm;
	const char *p;
	time_t t;

	/* digits exactly where the format has them (sscanf alone takes signs) */
	static const char shape[] = "dddd-dd-ddTdd:dd";
	for (int i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return -1;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d%n", &y, &mo, &da, &h, &mi, &n) != 5 || n != 16)
		return -1;
	p = s + n;
	if (*p == ':') {
		if (!isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2]))
			return -1;
		sec = (p[1] - '0') * 10 + (p[2] - '0');
		p += 3;
	}
	if (*p == 'Z' && p[1] == '\0') {
		sign = 0;
	} else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':' &&
		   sscanf(p + 1, "%2d:%2d", &oh, &om) == 2) {
		sign = *p == '+' ? 1 : -1;
	} else {
		return -1;
	}
	if (mo < 1 || mo > 12 || da < 1 || da > 31 || h > 23 || mi > 59 || sec > 60 || oh > 23 || om > 59)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = da;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	/* timegm normalises 02-31 to 03-03: a date that moved did not exist */
	{
		struct tm back;
		gmtime_r(&t, &back);
		if (back.tm_mday != da || back.tm_mon != mo - 1)
			return -1;
	}
	t -= sign * (oh * 3600 + om * 60);
	/* nanoseconds in an int64_t reach only 1677..2262 (year 4052 overflowed) */
	if (t > INT64_MAX / 1000000000LL || t < INT64_MIN / 1000000000LL)
		return -1;
	*out_ns = (int64_t)t * 1000000000LL;
	return 0;
}

/* A watcher's grace: at least 2 s (its lease is read once a second), at
 * most a week. */
void gl_scenario_check_grace(struct gl_diag *d, const cJSON *obj, const char *path, int64_t ns)
{
	char p[96];

	if (ns >= 2000000000LL && ns <= 7 * 86400000000000LL)
		return;
	snprintf(p, sizeof(p), "%s.deadman_grace", path);
	gl_diag_error(
		d, cJSON_GetObjectItemCaseSensitive(obj, "deadman_grace"), p,
		"expected a duration from 2s to 168h (how long a fault's watcher waits for the controller's lease "
		"before reverting the fault itself)");
}

/* The dead-man's switch: renewal and grace, and which faults have none
 * (said plainly; refused under safety.require_deadman). */
static void parse_deadman(struct vctx *v, const cJSON *sf)
{
	int req = 0;

	if (sf && gl_get_duration(v->d, sf, "deadman_renew", "safety", 0, &v->s->deadman_renew_ns) > 0 &&
	    (v->s->deadman_renew_ns < 500000000LL || v->s->deadman_renew_ns > 3600000000000LL))
		gl_diag_error(
			v->d, cJSON_GetObjectItemCaseSensitive(sf, "deadman_renew"), "safety.deadman_renew",
			"expected a duration from 500ms to 1h (how often the controller renews each watcher's lease)");
	if (sf && gl_get_duration(v->d, sf, "deadman_grace", "safety", 0, &v->s->deadman_grace_ns) > 0)
		gl_scenario_check_grace(v->d, sf, "safety", v->s->deadman_grace_ns);
	if (sf && gl_get_bool(v->d, sf, "require_deadman", "safety", &req) > 0 && req)
		v->s->require_deadman = 1;
	for (int i = 0; i < v->s->n_faults; i++) {
		const struct gl_fault_spec *f = &v->s->faults[i];
		const char *why;
		char fp[64];

		if (!f->ops || !f->json || !strcmp(f->kind, "null"))
			continue;
		why = !f->ops->deadman       ? "its kind has no watcher"
		      : f->ops->deadman_none ? f->ops->deadman_none(f)
					     : NULL;
		if (!why)
			continue;
		snprintf(fp, sizeof(fp), "faults[%d]", i);
		if (v->s->require_deadman)
			gl_diag_error(
				v->d, f->json, fp,
				"fault '%s' (%s%s%s) has no dead-man's switch (%s), and safety.require_deadman is "
				"true: if the controller were lost for good, nothing would revert it",
				f->id, f->kind, f->method[0] ? "/" : "", f->method, why);
		else
			gl_diag_warn(v->d, f->json, fp,
				     "fault '%s' (%s%s%s) has no dead-man's switch (%s): if the controller is lost for "
				     "good, it stays injected until someone runs `gauntlet revert`",
				     f->id, f->kind, f->method[0] ? "/" : "", f->method, why);
	}
}

/* safety.require_runbooks: every failure has its procedure written
 * before it is caused */
static void require_runbooks(struct vctx *v)
{
	v->s->require_runbooks = 1;
	for (int i = 0; i < v->s->n_faults; i++) {
		char fp[64];
		if (v->s->faults[i].runbook[0] || !v->s->faults[i].json)
			continue;
		snprintf(fp, sizeof(fp), "faults[%d]", i);
		gl_diag_error(
			v->d, v->s->faults[i].json, fp,
			"fault '%s' (%s) has no \"runbook\", and safety.require_runbooks is true: name the "
			"procedure an operator follows for this failure (a path relative to the scenario, or a URL)",
			v->s->faults[i].id, v->s->faults[i].kind);
	}
}

/* safety.maintenance_window: [START, END], and with a planned start every
 * fault inside it */
static void parse_maintenance_window(struct vctx *v, const cJSON *mw, const struct gl_scenario_opts *o)
{
	const cJSON *a = cJSON_GetArrayItem(mw, 0), *b = cJSON_GetArrayItem(mw, 1);
	if (!cJSON_IsArray(mw) || cJSON_GetArraySize(mw) != 2 || !cJSON_IsString(a) || !cJSON_IsString(b)) {
		gl_diag_error(v->d, mw, "safety.maintenance_window",
			      "expected [\"START\", \"END\"] in RFC 3339 UTC, e.g. [\"2026-12-01T00:00Z\", "
			      "\"2026-12-08T00:00Z\"]");
	} else if (parse_rfc3339(a->valuestring, &v->s->mw_start_wall_ns) != 0) {
		gl_diag_error(v->d, a, "safety.maintenance_window[0]",
			      "'%s' is not an RFC 3339 time like 2026-12-01T00:00Z", a->valuestring);
	} else if (parse_rfc3339(b->valuestring, &v->s->mw_end_wall_ns) != 0) {
		gl_diag_error(v->d, b, "safety.maintenance_window[1]",
			      "'%s' is not an RFC 3339 time like 2026-12-08T00:00Z", b->valuestring);
	} else if (v->s->mw_end_wall_ns <= v->s->mw_start_wall_ns) {
		gl_diag_error(v->d, mw, "safety.maintenance_window", "the window ends before it starts");
	} else if (o && o->start_wall_ns) {
		/* With a planned start, every fault's wall time must fall inside. */
		for (int i = 0; i < v->s->n_faults; i++) {
			const struct gl_fault_spec *f = &v->s->faults[i];
			double sc = o->time_scale > 0 ? o->time_scale : 1;
			int64_t t0 = o->start_wall_ns + (int64_t)((double)f->at_ns / sc);
			int64_t t1 = t0 + (int64_t)((double)f->dur_ns / sc);
			char p[64], w0[40], w1[40];
			if (t0 >= v->s->mw_start_wall_ns && t1 <= v->s->mw_end_wall_ns)
				continue;
			snprintf(p, sizeof(p), "faults[%d]", i);
			gl_format_wall(t0, w0, sizeof(w0));
			gl_format_wall(t1, w1, sizeof(w1));
			gl_diag_error(v->d, f->json, p,
				      "fault '%s' would run %s to %s, outside safety.maintenance_window", f->id, w0,
				      w1);
		}
	}
}

/* safety.abort_if: window metrics and their conditions, and "for" */
static void parse_abort_if(struct vctx *v, const cJSON *ab)
{
	const cJSON *it;
	int64_t for_ns = 0;
	int n = 0;
	gl_get_duration(v->d, ab, "for", "safety.abort_if", 0, &for_ns);
	v->s->abort_rules = calloc((size_t)cJSON_GetArraySize(ab) + 1, sizeof(*v->s->abort_rules));
	cJSON_ArrayForEach(it, ab)
	{
		char tp[256], why[256];
		struct gl_target_name tn;
		struct gl_err er = { 0 };
		struct gl_abort_rule *r = &v->s->abort_rules[n];
		if (!strcmp(it->string, "for"))
			continue;
		snprintf(tp, sizeof(tp), "safety.abort_if.%s", it->string);
		if (gl_catalog_parse_target(it->string, &tn, why, sizeof(why)) != 0) {
			gl_diag_error(v->d, it, tp, "%s", why);
			continue;
		}
		if (tn.def->kind == GL_MK_RECOVERY) {
			gl_diag_error(v->d, it, tp,
				      "'%s' is known only after a fault ends: abort_if takes window metrics",
				      it->string);
			continue;
		}
		if (!cJSON_IsString(it) || gl_parse_target_expr(it->valuestring, &r->expr, &er) != 0) {
			gl_diag_error(v->d, it, tp, "%s", er.code ? er.msg : "expected a condition like \"> 0.5\"");
			continue;
		}
		snprintf(r->metric, sizeof(r->metric), "%s", it->string);
		n++;
	}
	for (int i = 0; i < n; i++)
		v->s->abort_rules[i].for_ns = for_ns;
	v->s->n_abort_rules = n;
}

void gl_scenario_parse_safety(struct gl_scenario *s, struct gl_diag *d, const cJSON *sf,
			      const struct gl_scenario_opts *o)
{
	struct vctx vc = { d, s }, *v = &vc;
	static const char *const keys[] = { "max_concurrent_faults", "maintenance_window", "abort_if",
					    "allowed_roots",         "require_runbooks",   "require_deadman",
					    "deadman_renew",         "deadman_grace",      NULL };
	const cJSON *mw, *ab, *roots, *root;
	long l;
	int req = 0;

	v->s->max_concurrent_faults = 1;
	parse_deadman(v, cJSON_IsObject(sf) ? sf : NULL);
	if (!sf)
		return;
	if (!gl_want_object(v->d, sf, "safety"))
		return;
	gl_check_keys(v->d, sf, "safety", keys);
	if (gl_get_bool(v->d, sf, "require_runbooks", "safety", &req) > 0 && req)
		require_runbooks(v);
	if (gl_get_int(v->d, sf, "max_concurrent_faults", "safety", 0, 1, 1000, &l) > 0)
		v->s->max_concurrent_faults = (int)l;
	/* roots for the files the scenario names (paths.h) */
	roots = cJSON_GetObjectItemCaseSensitive(sf, "allowed_roots");
	if (roots && !cJSON_IsArray(roots))
		gl_diag_error(v->d, roots, "safety.allowed_roots", "expected an array of absolute directory paths");
	else if (roots)
		cJSON_ArrayForEach(root, roots)
		{
			if (!cJSON_IsString(root) || root->valuestring[0] != '/' || !strcmp(root->valuestring, "/"))
				gl_diag_error(v->d, root, "safety.allowed_roots[]",
					      "expected an absolute directory path other than \"/\"");
		}
	if ((mw = cJSON_GetObjectItemCaseSensitive(sf, "maintenance_window")))
		parse_maintenance_window(v, mw, o);
	ab = cJSON_GetObjectItemCaseSensitive(sf, "abort_if");
	if (ab && gl_want_object(v->d, ab, "safety.abort_if"))
		parse_abort_if(v, ab);
}
