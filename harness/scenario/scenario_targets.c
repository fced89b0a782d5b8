/*
 * scenario_targets.c - the scenario's "targets": each threshold parsed
 * against the metric catalogue, and each workload present judged by the
 * targets it needs (its ops table's targets hooks, through the gl_need_*
 * functions of plugin.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "plugin.h"
#include "scenario_parts.h"
#include "schema.h"

static void add_target(struct vctx *v, const char *metric, enum gl_scope scope, const cJSON *json,
		       const struct gl_target_expr *e, const char *text, int missing)
{
	struct gl_scenario *s = v->s;
	struct gl_target_spec *t;

	s->targets = realloc(s->targets, sizeof(*s->targets) * (size_t)(s->n_targets + 1));
	t = &s->targets[s->n_targets++];
	memset(t, 0, sizeof(*t));
	snprintf(t->metric, sizeof(t->metric), "%s", metric);
	t->scope = scope;
	t->json = json;
	t->missing = missing;
	if (e)
		t->expr = *e;
	snprintf(t->expr_text, sizeof(t->expr_text), "%s", text ? text : "");
	if (missing)
		s->n_missing++;
}

/* A bound on a figure's trend per day: a target expression, its number
 * followed by '%' (of the fitted level at the start) or not (the figure's
 * own units). */
static int parse_drift_bound(const char *text, struct gl_target_expr *e, int *pct, char *why, size_t n)
{
	char b[64];
	size_t len = strlen(text);
	struct gl_err er = { 0 };

	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	*pct = len && text[len - 1] == '%';
	if (len < sizeof(b) && len > (size_t)*pct) {
		memcpy(b, text, len - (size_t)*pct);
		b[len - (size_t)*pct] = '\0';
		if (gl_parse_target_expr(b, e, &er) == 0)
			return 0;
	}
	snprintf(why, n,
		 "expected a bound per day like \"<= 2%%\" (of the level at the start) or \"<= 5\" (in the figure's "
		 "units), got '%.40s'",
		 text);
	return -1;
}

static void add_drift(struct vctx *v, const char *metric, const cJSON *json, const struct gl_target_expr *e, int pct)
{
	struct gl_scenario *s = v->s;
	struct gl_target_spec *t = realloc(s->drifts, sizeof(*t) * (size_t)(s->n_drifts + 1));

	if (!t)
		return;
	s->drifts = t;
	t = &s->drifts[s->n_drifts++];
	memset(t, 0, sizeof(*t));
	snprintf(t->metric, sizeof(t->metric), "%s", metric);
	t->scope = GL_SCOPE_STEADY;
	t->json = json;
	t->expr = *e;
	t->drift = 1;
	t->drift_pct = pct;
	snprintf(t->expr_text, sizeof(t->expr_text), "drift_per_day %s", json->valuestring);
}

/* A threshold's object form: {"value": "<= 800", "drift_per_day": "<= 2%"},
 * either or both. */
static void parse_target_object(struct vctx *v, enum gl_scope scope, const cJSON *t, const char *tp)
{
	static const char *const keys[] = { "value", "drift_per_day", NULL };
	const cJSON *val = cJSON_GetObjectItemCaseSensitive(t, "value");
	const cJSON *dr = cJSON_GetObjectItemCaseSensitive(t, "drift_per_day");
	char p[300], why[256];
	struct gl_target_expr e;
	struct gl_err er = { 0 };
	int pct;

	gl_check_keys(v->d, t, tp, keys);
	if (!val && !dr)
		gl_diag_error(v->d, t, tp,
			      "expected \"value\" (like \"<= 800\"), \"drift_per_day\" (like \"<= 2%%\") or both");
	if (val) {
		snprintf(p, sizeof(p), "%s.value", tp);
		if (!cJSON_IsString(val))
			gl_diag_error(v->d, val, p, "expected a target expression like \"<= 800\", got %s",
				      gl_json_type_name(val));
		else if (gl_parse_target_expr(val->valuestring, &e, &er) != 0)
			gl_diag_error(v->d, val, p, "%s", er.msg);
		else
			add_target(v, t->string, scope, val, &e, val->valuestring, 0);
	}
	if (!dr)
		return;
	snprintf(p, sizeof(p), "%s.drift_per_day", tp);
	if (scope != GL_SCOPE_STEADY)
		gl_diag_error(v->d, dr, p, "a drift is fitted over the steady windows: put it in targets.steady");
	else if (!cJSON_IsString(dr))
		gl_diag_error(v->d, dr, p, "expected a bound per day like \"<= 2%%\", got %s", gl_json_type_name(dr));
	else if (parse_drift_bound(dr->valuestring, &e, &pct, why, sizeof(why)) != 0)
		gl_diag_error(v->d, dr, p, "%s", why);
	else
		add_drift(v, t->string, dr, &e, pct);
}

/* One entry of targets.SCOPE: its figure checked against the catalogue,
 * then its threshold, a string or the object form. */
static void parse_target(struct vctx *v, enum gl_scope scope, const cJSON *t, const char *tp)
{
	char why[256];
	struct gl_target_name tn;
	struct gl_target_expr e;
	struct gl_err er = { 0 };

	if (gl_catalog_parse_target(t->string, &tn, why, sizeof(why)) != 0) {
		gl_diag_error(v->d, t, tp, "%s", why);
		return;
	}
	if ((scope == GL_SCOPE_RECOVERY) != (tn.def->kind == GL_MK_RECOVERY) && !tn.def->recovery_target) {
		if (scope == GL_SCOPE_RECOVERY)
			gl_diag_error(v->d, t, tp, "'%s' is not a recovery figure (%s)", t->string,
				      gl_catalog_recovery_names(why, sizeof(why)));
		else
			gl_diag_error(v->d, t, tp, "'%s' belongs in targets.recovery", t->string);
		return;
	}
	if (cJSON_IsObject(t)) {
		parse_target_object(v, scope, t, tp);
		return;
	}
	if (!cJSON_IsString(t)) {
		gl_diag_error(v->d, t, tp,
			      "expected a target expression like \"<= 800\" or an object like {\"value\": \"<= 800\", "
			      "\"drift_per_day\": \"<= 2%%\"}, got %s",
			      gl_json_type_name(t));
		return;
	}
	if (gl_parse_target_expr(t->valuestring, &e, &er) != 0) {
		gl_diag_error(v->d, t, tp, "%s", er.msg);
		return;
	}
	add_target(v, t->string, scope, t, &e, t->valuestring, 0);
}

void gl_scenario_parse_targets(struct vctx *v, const cJSON *ts)
{
	static const char *const keys[] = { "steady", "degraded", "recovery", NULL };
	const cJSON *sc;

	if (!ts)
		return;
	if (!gl_want_object(v->d, ts, "targets"))
		return;
	gl_check_keys(v->d, ts, "targets", keys);
	cJSON_ArrayForEach(sc, ts)
	{
		enum gl_scope scope = !strcmp(sc->string, "steady")     ? GL_SCOPE_STEADY
				      : !strcmp(sc->string, "degraded") ? GL_SCOPE_DEGRADED
				      : !strcmp(sc->string, "recovery") ? GL_SCOPE_RECOVERY
									: GL_SCOPE_NONE;
		const cJSON *t;
		char path[64];

		if (scope == GL_SCOPE_NONE)
			continue;
		snprintf(path, sizeof(path), "targets.%s", sc->string);
		if (!gl_want_object(v->d, sc, path))
			continue;
		cJSON_ArrayForEach(t, sc)
		{
			char tp[256];
			snprintf(tp, sizeof(tp), "%s.%s", path, t->string);
			parse_target(v, scope, t, tp);
		}
	}
}

static int has_target(const struct gl_scenario *s, enum gl_scope scope, const char *prefix, int exact)
{
	for (int i = 0; i < s->n_targets; i++) {
		const struct gl_target_spec *t = &s->targets[i];
		if (t->scope != scope || t->missing)
			continue;
		if (exact ? !strcmp(t->metric, prefix) : !strncmp(t->metric, prefix, strlen(prefix)))
			return 1;
	}
	return 0;
}

static void require_target(struct vctx *v, enum gl_scope scope, const char *prefix, int exact, const char *shown,
			   const char *why)
{
	if (has_target(v->s, scope, prefix, exact))
		return;
	gl_diag_error(v->d, NULL, NULL,
		      "targets.%s: missing threshold for %s (%s): a missing threshold is a failed gate",
		      gl_scope_name(scope), shown, why);
	add_target(v, shown, scope, NULL, NULL, NULL, 1);
}

/* What a workload's targets hooks see (plugin.h): the scenario being
 * validated and the reason its requirements give by default. */
struct gl_target_need {
	struct vctx *v;
	const char *why;
};

int gl_need_has(const struct gl_target_need *n, enum gl_scope scope, const char *prefix, int exact)
{
	return has_target(n->v->s, scope, prefix, exact);
}

void gl_need_require(struct gl_target_need *n, enum gl_scope scope, const char *prefix, int exact, const char *shown,
		     const char *why)
{
	require_target(n->v, scope, prefix, exact, shown, why ? why : n->why);
}

void gl_need_imply(struct gl_target_need *n, const char *metric, enum gl_scope scope, const cJSON *json,
		   const struct gl_target_expr *e, const char *text)
{
	add_target(n->v, metric, scope, json, e, text, 0);
}

int gl_proc_on_host(const struct gl_proc_view *p, const char *host)
{
	for (int i = 0; host && i < p->n_hosts; i++)
		if (!strcmp(p->hosts[i], host))
			return 1;
	return 0;
}

int gl_proc_named(const struct gl_proc_view *p, const char *text)
{
	for (int i = 0; text && i < p->n_names; i++)
		if (p->names[i][0] && strstr(text, p->names[i]))
			return 1;
	return 0;
}

static void add_named(char *buf, size_t n, const struct gl_fault_spec *f, const char *why)
{
	size_t k = strlen(buf);
	if (k < n)
		snprintf(buf + k, n - k, "%s'%s' (%s%s%s)", k ? "; " : "", f->id, f->kind, why[0] ? ": " : "", why);
}

int gl_need_faults_end(const struct gl_target_need *n, const struct gl_proc_view *p, char *sure, size_t ns, char *maybe,
		       size_t nm)
{
	const struct gl_scenario *s = n->v->s;
	int best = GL_ENDS_NO;

	if (ns)
		sure[0] = '\0';
	if (nm)
		maybe[0] = '\0';
	for (int i = 0; i < s->n_faults; i++) {
		const struct gl_fault_spec *f = &s->faults[i];
		char why[256] = "";
		int e = f->ops && f->ops->ends ? f->ops->ends(f, p, why, sizeof(why)) : GL_ENDS_NO;
		if (e == GL_ENDS_SURE)
			add_named(sure, ns, f, why);
		else if (e == GL_ENDS_MAYBE)
			add_named(maybe, nm, f, why);
		if (e > best)
			best = e;
	}
	return best;
}

void gl_need_optional(struct gl_target_need *n, enum gl_scope scope, const char *metric, const char *why, int never)
{
	struct gl_scenario *s = n->v->s;
	struct gl_optional_figure *o;

	for (int i = 0; never && i < s->n_targets; i++) {
		const struct gl_target_spec *t = &s->targets[i];
		char p[160];
		if (t->scope != scope || t->missing || strcmp(t->metric, metric))
			continue;
		snprintf(p, sizeof(p), "targets.%s", gl_scope_name(scope));
		gl_diag_warn(n->v->d, t->json, p, "%s: %s, so this target never gets data (no data is a failed gate)",
			     metric, why);
	}
	o = realloc(s->optional, sizeof(*o) * (size_t)(s->n_optional + 1));
	if (!o)
		return;
	s->optional = o;
	o = &s->optional[s->n_optional++];
	o->scope = scope;
	snprintf(o->metric, sizeof(o->metric), "%s", metric);
	snprintf(o->why, sizeof(o->why), "%s", why);
}

/* Each workload present must be judged by the targets it needs: its ops
 * table's targets hook says which (loadgen/<name>_schema.c). */
void gl_scenario_check_required_targets(struct vctx *v)
{
	struct gl_scenario *s = v->s;

	for (int i = 0; i < s->n_workloads; i++) {
		const struct gl_workload_ops *ops = s->workloads[i].ops;
		char why[128];
		struct gl_target_need n = { v, why };
		snprintf(why, sizeof(why), "the %s workload is present", s->workloads[i].name);
		if (ops && ops->targets)
			ops->targets(s->workloads[i].cfg, &n);
		/* load kept out of its agents must not pass as a quiet run */
		if (cJSON_GetObjectItemCaseSensitive(s->workloads[i].cfg, "agents"))
			require_target(v, GL_SCOPE_STEADY, "agents.delivered_ratio", 1, "agents.delivered_ratio",
				       "a workload runs through load agents: the share of agent-windows whose figures "
				       "arrived, e.g. \">= 0.99\"");
	}
	if (s->n_faults > 0) {
		int any = 0;
		for (int i = 0; i < s->n_targets; i++)
			any |= s->targets[i].scope == GL_SCOPE_DEGRADED && !s->targets[i].missing;
		if (!any) {
			/* Name the degraded counterpart of the first steady target. */
			/* a copy: require_target grows (moves) s->targets */
			char shown[128];
			const struct gl_workload_ops *w0 = s->n_workloads ? s->workloads[0].ops : NULL;
			if (!w0 || !w0->degraded_default)
				w0 = gl_workload_find("null"); /* the controller's own tick lag */
			snprintf(shown, sizeof(shown), "%s", w0->degraded_default);
			for (int i = 0; i < s->n_targets; i++)
				if (s->targets[i].scope == GL_SCOPE_STEADY && !s->targets[i].missing) {
					snprintf(shown, sizeof(shown), "%s", s->targets[i].metric);
					break;
				}
			require_target(v, GL_SCOPE_DEGRADED, shown, 1, shown,
				       "faults are scheduled: windows under a fault are judged by degraded targets");
		}
		require_target(v, GL_SCOPE_RECOVERY, "recovery_s", 1, "recovery_s", "faults are scheduled");
		require_target(v, GL_SCOPE_RECOVERY, "restore_s", 1, "restore_s", "faults are scheduled");
		for (int i = 0; i < s->n_workloads; i++) {
			const struct gl_workload_ops *ops = s->workloads[i].ops;
			struct gl_target_need n = { v, "faults are scheduled" };
			if (ops && ops->fault_targets)
				ops->fault_targets(s->workloads[i].cfg, &n);
		}
	} else {
		/* recovery figures come from faults only: without one, such a
		 * target never gets data */
		for (int i = 0; i < s->n_targets; i++)
			if (s->targets[i].scope == GL_SCOPE_RECOVERY && !s->targets[i].missing && s->targets[i].json)
				gl_diag_warn(v->d, s->targets[i].json, "targets.recovery",
					     "%s: no fault is scheduled, so this target never gets data (no data is a "
					     "failed gate)",
					     s->targets[i].metric);
	}
}
