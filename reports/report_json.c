/*
 * report_json.c - report.json. Key names are a contract (docs/metrics.md):
 * add keys freely, never rename. A figure that was not measured is null,
 * never 0, so no reader can mistake "no data" for "perfect".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "report.h"
#include "figures.h"
#include "plugin.h"
#include "series.h"
#include "units.h"

static void add_num(cJSON *o, const char *key, int has, double v)
{
	if (has && isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_eval(cJSON *o, const char *key, const struct gl_agg *a, const char *name)
{
	double v = 0;
	int has = gl_agg_eval(a, name, &v) == 0;
	add_num(o, key, has, v);
}

static cJSON *dist(const struct gl_agg *a, const char *metric)
{
	static const struct {
		const char *key;
		double p;
	} ps[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 }, { "p99.9", 99.9 },
	};
	const struct gl_hist *h = gl_agg_hist(a, metric);
	cJSON *o = cJSON_CreateObject();
	int has = h && gl_hist_count(h) > 0;

	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		add_num(o, ps[i].key, has, has ? gl_hist_percentile(h, ps[i].p) : 0);
	add_num(o, "min", has, has ? gl_hist_min(h) : 0);
	add_num(o, "max", has, has ? gl_hist_max(h) : 0);
	add_num(o, "mean", has, has ? gl_hist_mean(h) : 0);
	cJSON_AddNumberToObject(o, "count", has ? (double)gl_hist_count(h) : 0);
	return o;
}

static void add_counter(cJSON *o, const char *key, const struct gl_agg *a, const char *name)
{
	int found = 0;
	int64_t v = gl_agg_counter(a, name, &found);
	add_num(o, key, found, (double)v);
}

struct cls_arg {
	cJSON *o;
	size_t skip;
};

static void add_class(void *arg, const char *name, int64_t v)
{
	struct cls_arg *c = arg;
	cJSON_AddNumberToObject(c->o, name + c->skip, (double)v);
}

/* metrics.agents: only in runs that had them (docs/agents.md) */
static void agents_json(cJSON *m, const struct gl_agg *a)
{
	int found = 0;
	gl_agg_counter(a, "agents.expected", &found);
	if (found) {
		static const char *const keys[][2] = { { "agent_windows", "agents.expected" },
						       { "missing_agent_windows", "agents.missing" },
						       { "lost", "agents.lost" },
						       { "relaunched", "agents.relaunched" },
						       { "refused_connections", "agents.refused" },
						       { "late_reports", "agents.late_reports" } };
		cJSON *o = cJSON_AddObjectToObject(m, "agents");
		struct cls_arg ca = { NULL, strlen("agents.refused.") };
		/* a counter never touched is 0 here: these are counts of events */
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			cJSON_AddNumberToObject(o, keys[i][0], (double)gl_agg_counter(a, keys[i][1], &found));
		add_eval(o, "delivered_ratio", a, "agents.delivered_ratio");
		ca.o = cJSON_AddObjectToObject(o, "refused_by_cause");
		gl_agg_each_counter(a, "agents.refused.", add_class, &ca);
		cJSON_AddNumberToObject(o, "bad_frames", (double)gl_agg_counter(a, "agents.bad_frames", &found));
		cJSON_AddNumberToObject(o, "events_dropped",
					(double)gl_agg_counter(a, "agents.events_dropped", &found));
	}
}

/* Every histogram and counter the catalogue has of workload w, keyed by
 * its name ("dcgm.gpu_temp": distribution, "dcgm.xid_errors.delta":
 * count). */
static void add_catalog(cJSON *o, const struct gl_agg *a, const char *w)
{
	size_t n;
	const struct gl_metric_def *cat = gl_catalog(&n);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(cat[i].workload, w) != 0)
			continue;
		if (cat[i].kind == GL_MK_HIST)
			cJSON_AddItemToObject(o, cat[i].name, dist(a, cat[i].name));
		else if (cat[i].kind == GL_MK_COUNTER)
			add_counter(o, cat[i].name, a, cat[i].name);
	}
}

/* The END that closes the block r opens (OBJECT, IF), or the list's end. */
static const struct gl_report_row *block_end(const struct gl_report_row *r)
{
	int depth = 0;

	for (r++; r->kind != GL_RK_NONE; r++)
		if (r->kind == GL_RK_OBJECT || r->kind == GL_RK_IF)
			depth++;
		else if (r->kind == GL_RK_END && depth-- == 0)
			break;
	return r;
}

/* metrics.<workload>: rows r into o up to the END of their block, or the
 * list's end, which it returns. */
static const struct gl_report_row *add_rows(cJSON *o, const struct gl_report_row *r, const struct gl_analysis *an,
					    const struct gl_agg *a, const struct gl_workload_ops *w)
{
	for (; r->kind != GL_RK_NONE && r->kind != GL_RK_END; r++) {
		int found = 0;
		int64_t v;
		struct cls_arg ca;
		switch (r->kind) {
		case GL_RK_COUNT:
			v = gl_agg_counter(a, r->metric, &found);
			add_num(o, r->label, found, r->divisor ? (double)v / r->divisor : (double)v);
			break;
		case GL_RK_EVAL: add_eval(o, r->label, a, r->metric); break;
		case GL_RK_DIST: cJSON_AddItemToObject(o, r->label, dist(a, r->metric)); break;
		case GL_RK_CLASSES:
			ca.o = cJSON_AddObjectToObject(o, r->label);
			ca.skip = strlen(r->metric);
			gl_agg_each_counter(a, r->metric, add_class, &ca);
			break;
		case GL_RK_CATALOG: add_catalog(o, a, w->name); break;
		case GL_RK_OBJECT: r = add_rows(cJSON_AddObjectToObject(o, r->label), r + 1, an, a, w); break;
		case GL_RK_IF:
			gl_agg_counter(a, r->metric, &found);
			r = found ? add_rows(o, r + 1, an, a, w) : block_end(r);
			break;
		case GL_RK_EXTRA:
			if (w->figures->json_extra)
				w->figures->json_extra(o, an, a);
			break;
		default: break;
		}
		if (r->kind == GL_RK_NONE)
			break;
	}
	return r;
}

/* The metrics object for one aggregate: metrics.<workload> for each
 * workload present, in the registry's order, and metrics.agents at its
 * place among them. */
static cJSON *metrics_obj(const struct gl_analysis *an, const struct gl_agg *a)
{
	cJSON *m = cJSON_CreateObject();
	const struct gl_workload_ops *w;
	int agents_in = 0;

	for (size_t i = 0; (w = gl_workload_at(i)); i++) {
		if (!agents_in && gl_workload_rank_at(i) > GL_RANK_JSON_AGENTS) {
			agents_json(m, a);
			agents_in = 1;
		}
		if (w->figures && w->figures->json && gl_scenario_workload(an->sc, w->name))
			add_rows(cJSON_AddObjectToObject(m, w->name), w->figures->json, an, a, w);
	}
	if (!agents_in)
		agents_json(m, a);
	return m;
}

static void add_time(cJSON *o, const char *key, int64_t ns)
{
	if (ns < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)ns / 1e9);
}

const char *gl_report_deadman_note(const struct gl_fault_row *f, char *buf, size_t n)
{
	if (!strcmp(f->reverted_by, "watcher")) {
		cJSON *m = f->measured[0] ? cJSON_Parse(f->measured) : NULL;
		const cJSON *at = cJSON_GetObjectItemCaseSensitive(m, "watcher_reverted_at");
		char when[64] = "";
		if (cJSON_IsNumber(at))
			gl_format_wall((int64_t)at->valuedouble * 1000000000LL, when, sizeof(when));
		cJSON_Delete(m);
		snprintf(buf, n, "Reverted by its watcher (dead-man's switch)%s%s: the controller was lost.",
			 when[0] ? " at " : "", when);
		return buf;
	}
	if (!strcmp(f->deadman, "lost"))
		return "Dead-man's switch LOST while injected: its watcher was found gone.";
	if (!strncmp(f->deadman, "none", 4))
		return "No dead-man's switch.";
	return "";
}

const char *gl_report_held_note(const struct gl_analysis *an, const struct gl_fault_result *f, char *buf, size_t n)
{
	const char *how = !strcmp(f->row.reverted_by, "watcher") ? "reverted by its dead-man's switch"
								 : "ended by itself";
	const char *longer = f->held_s > f->planned_held_s + 1 ? "LONGER: controller down; " : "";

	if (f->held_s < 0)
		return "";
	if (f->self_ended && f->ended_outage >= 0)
		snprintf(buf, n,
			 "%s%s %.3f s into the controller outage before resume %d (its own record, not the "
			 "controller's return)",
			 longer, how, f->ended_into_s, an->outages[f->ended_outage].resume);
	else if (f->self_ended)
		snprintf(buf, n, "%s%s %.3f s after the inject, outside the controller outage (its own record)", longer,
			 how, f->self_s);
	else if (f->outage_s > 0)
		snprintf(buf, n, "LONGER: controller down");
	else
		return "";
	return buf;
}

/* 1 and *what when fault f was in force as outage k began (the clock then:
 * between its inject and its revert, or the end), else 0: "during" (it
 * ended itself in the outage), "before" (it had, before it), or NULL (in
 * force throughout, as far as anything recorded). */
static int outage_fault(const struct gl_analysis *an, const struct gl_fault_result *f, int k, const char **what)
{
	const struct gl_outage *o = &an->outages[k];
	int64_t a = f->row.injected_elapsed_ns, b = f->row.reverted_elapsed_ns;

	if (a < 0 || f->row.dur_ns == 0)
		return 0;
	if (b < 0)
		b = an->run.elapsed_ns;
	if (o->at_elapsed_ns < a || o->at_elapsed_ns > b)
		return 0;
	*what = f->self_ended && f->ended_outage == k                         ? "during"
		: f->self_ended && f->self_end_elapsed_ns <= o->at_elapsed_ns ? "before"
									      : NULL;
	return 1;
}

const char *gl_report_outage_faults(const struct gl_analysis *an, int k, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < an->n_faults && used < n; i++) {
		const struct gl_fault_result *f = &an->faults[i];
		const char *what;
		int w;
		if (!outage_fault(an, f, k, &what))
			continue;
		if (what && !strcmp(what, "during"))
			w = snprintf(buf + used, n - used, "%s%s: %s %.3f s into it", used ? "; " : "", f->row.id,
				     !strcmp(f->row.reverted_by, "watcher") ? "reverted by its dead-man's switch"
									    : "ended by itself",
				     f->ended_into_s);
		else if (what)
			w = snprintf(buf + used, n - used, "%s%s: had ended by itself before it", used ? "; " : "",
				     f->row.id);
		else
			w = snprintf(buf + used, n - used, "%s%s: in force throughout", used ? "; " : "", f->row.id);
		used += w > 0 ? (size_t)w : 0;
	}
	return buf;
}

/* The kinds that count against the default limit (no incidents.max): "a,
 * b and c", in the kinds' order; fault.restore always does. */
static void default_counted(char *out, size_t cap)
{
	const char *names[32];
	int n = 0;
	size_t off = 0;

	for (int k = 0; k < gl_incident_kinds() && n < (int)GL_ARRAY_LEN(names); k++) {
		const struct gl_incident_kind *x = gl_incident_kind(k);
		if (!x->rule || x->rule->gated)
			names[n++] = gl_incident_kind_name(k);
	}
	out[0] = '\0';
	for (int i = 0; i < n && off < cap; i++)
		off += (size_t)snprintf(out + off, cap - off, "%s%s",
					i == 0       ? ""
					: i == n - 1 ? " and "
						     : ", ",
					names[i]);
}

cJSON *gl_report_incidents_json(const struct gl_analysis *an)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	char counted[512], counting[600];

	cJSON_AddNumberToObject(o, "count", an->incidents_total);
	cJSON_AddNumberToObject(o, "counted", an->incidents_gated);
	cJSON_AddNumberToObject(o, "max", an->incidents_limit);
	default_counted(counted, sizeof(counted));
	snprintf(counting, sizeof(counting), "%s (no incidents.max in the scenario)", counted);
	cJSON_AddStringToObject(o, "counting",
				an->sc->incidents_max >= 0 ? "every kind (the scenario's incidents.max)" : counting);
	cJSON_AddBoolToObject(o, "pass", !an->incidents_failed);
	cJSON_AddNumberToObject(o, "listed", an->n_incidents);
	arr = cJSON_AddArrayToObject(o, "list");
	for (int i = 0; i < an->n_incidents; i++) {
		const struct gl_incident *x = &an->incidents[i];
		const struct gl_window_info *a = &an->windows[x->w0], *b = &an->windows[x->w1];
		cJSON *e = cJSON_CreateObject(), *nodes;
		cJSON_AddStringToObject(e, "kind", gl_incident_kind_name(x->kind));
		cJSON_AddNumberToObject(e, "start_s", (double)a->scn_start_ns / 1e9);
		cJSON_AddNumberToObject(e, "end_s", (double)b->scn_end_ns / 1e9);
		cJSON_AddNumberToObject(e, "start_elapsed_s", (double)a->start_ns / 1e9);
		cJSON_AddNumberToObject(e, "end_elapsed_s", (double)b->end_ns / 1e9);
		cJSON_AddNumberToObject(e, "windows", x->w1 - x->w0 + 1);
		cJSON_AddBoolToObject(e, "counted", x->gated);
		cJSON_AddStringToObject(e, "what", x->what);
		if (x->event[0])
			cJSON_AddStringToObject(e, "event", x->event);
		else
			cJSON_AddNullToObject(e, "event");
		nodes = cJSON_AddArrayToObject(e, "nodes");
		for (int k = 0; nodes && k < x->n_nodes; k++) {
			const struct gl_incident_node *d = &x->nodes[k];
			cJSON *nd = cJSON_CreateObject();
			cJSON_AddItemToArray(nodes, nd);
			cJSON_AddStringToObject(nd, "workload", d->workload);
			cJSON_AddStringToObject(nd, "kind", d->kind);
			cJSON_AddStringToObject(nd, "name", d->name);
			cJSON_AddStringToObject(nd, "host", d->host);
			cJSON_AddStringToObject(nd, "figure", d->figure);
			cJSON_AddNumberToObject(nd, "z", d->z);
			cJSON_AddNumberToObject(nd, "windows", d->windows);
		}
		cJSON_AddNumberToObject(e, "nodes_more", x->more_nodes);
		cJSON_AddItemToArray(arr, e);
	}
	return o;
}

/* "run": what ran, when, where, with what */
static void add_run(cJSON *run, const struct gl_analysis *an)
{
	char wall[40];

	cJSON_AddStringToObject(run, "id", an->run.id);
	cJSON_AddStringToObject(run, "scenario", an->run.name);
	cJSON_AddStringToObject(run, "scenario_path", an->run.scenario_path);
	cJSON_AddStringToObject(run, "scenario_sha256", an->run.scenario_sha256);
	gl_format_wall(an->run.started_wall_ns, wall, sizeof(wall));
	cJSON_AddStringToObject(run, "started", wall);
	if (an->run.ended_wall_ns > 0) {
		gl_format_wall(an->run.ended_wall_ns, wall, sizeof(wall));
		cJSON_AddStringToObject(run, "ended", wall);
	} else {
		cJSON_AddNullToObject(run, "ended");
	}
	cJSON_AddNumberToObject(run, "duration_s", an->duration_s);
	cJSON_AddNumberToObject(run, "planned_duration_s", (double)an->run.duration_ns / 1e9);
	cJSON_AddNumberToObject(run, "time_scale", an->run.time_scale);
	cJSON_AddNumberToObject(run, "window_s", (double)an->run.window_ns / 1e9);
	cJSON_AddBoolToObject(run, "generator_saturated", an->generator_saturated);
	cJSON_AddNumberToObject(run, "saturated_windows", an->saturated_windows);
	if (an->agents_needed > 0)
		cJSON_AddNumberToObject(run, "agents_needed", an->agents_needed);
	else
		cJSON_AddNullToObject(run, "agents_needed");
	cJSON_AddStringToObject(run, "state", an->run.state);
	cJSON_AddNumberToObject(run, "resumes", an->run.resumes);
	cJSON_AddNumberToObject(run, "outage_s", an->outage_s);
	cJSON_AddNumberToObject(run, "windows", an->n_windows);
	cJSON_AddStringToObject(run, "gauntlet_version", an->run.version);
	cJSON_AddStringToObject(run, "gauntlet_revision", an->run.git_rev);
	cJSON_AddStringToObject(run, "host", an->run.hostname);
	{
		cJSON *sets = cJSON_Parse(an->run.sets_json ? an->run.sets_json : "[]");
		cJSON_AddItemToObject(run, "overrides", sets ? sets : cJSON_CreateArray());
	}
}

static void add_phases(cJSON *arr, const struct gl_analysis *an)
{
	for (int i = 0; i < an->sc->n_phases; i++) {
		const struct gl_phase *p = &an->sc->phases[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", p->name);
		cJSON_AddNumberToObject(o, "start_s", (double)p->start_ns / 1e9);
		cJSON_AddNumberToObject(o, "end_s", (double)(p->start_ns + p->dur_ns) / 1e9);
		cJSON_AddNumberToObject(o, "load", p->load);
		cJSON_AddStringToObject(o, "kind", p->kind == GL_PHASE_EDGE ? "edge" : "load");
		if (p->edge_fraction > 0)
			cJSON_AddNumberToObject(o, "edge_fraction", p->edge_fraction);
		cJSON_AddStringToObject(o, "scope", gl_scope_name(p->scope));
		cJSON_AddNumberToObject(o, "measured_s", gl_agg_seconds(an->phase[i]));
		cJSON_AddItemToObject(o, "metrics", metrics_obj(an, an->phase[i]));
		cJSON_AddItemToArray(arr, o);
	}
}

/* One fault: its journal row, its recovery, per workload */
static cJSON *fault_json(const struct gl_analysis *an, const struct gl_fault_result *f)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "id", f->row.id);
	cJSON_AddStringToObject(o, "kind", f->row.kind);
	cJSON_AddStringToObject(o, "target", f->row.target);
	cJSON_AddStringToObject(o, "method", f->row.method);
	if (gl_scenario_runbook(an->sc, f->row.id))
		cJSON_AddStringToObject(o, "runbook", gl_scenario_runbook(an->sc, f->row.id));
	else
		cJSON_AddNullToObject(o, "runbook");
	add_time(o, "injected_at_s", f->row.injected_scn_ns);
	add_time(o, "reverted_at_s", f->row.reverted_scn_ns);
	add_time(o, "injected_elapsed_s", f->row.injected_elapsed_ns);
	add_time(o, "reverted_elapsed_s", f->row.reverted_elapsed_ns);
	cJSON_AddStringToObject(o, "state", gl_fault_state_name(f->row.state));
	if (f->row.verified < 0)
		cJSON_AddNullToObject(o, "verified");
	else
		cJSON_AddBoolToObject(o, "verified", f->row.verified);
	if (f->row.verified_revert < 0)
		cJSON_AddNullToObject(o, "verified_revert");
	else
		cJSON_AddBoolToObject(o, "verified_revert", f->row.verified_revert);
	/* the dead-man's switch: armed, lost, fired or "none: why";
	 * who reverted the fault: controller or watcher */
	if (f->row.deadman[0])
		cJSON_AddStringToObject(o, "deadman", f->row.deadman);
	else
		cJSON_AddNullToObject(o, "deadman");
	if (f->row.reverted_by[0])
		cJSON_AddStringToObject(o, "reverted_by", f->row.reverted_by);
	else
		cJSON_AddNullToObject(o, "reverted_by");
	add_num(o, "recovery_s", f->recovery_s >= 0, f->recovery_s);
	add_num(o, "restore_s", f->restore_s >= 0, f->restore_s);
	cJSON_AddNumberToObject(o, "settle_s", f->settle_s);
	cJSON_AddNumberToObject(o, "degraded_windows", f->degraded_windows);
	if (f->unrestored)
		cJSON_AddFalseToObject(o, "restored");
	else if (f->restore_s >= 0)
		cJSON_AddTrueToObject(o, "restored");
	else
		cJSON_AddNullToObject(o, "restored");
	{
		/* per workload, judged by its targets (docs/metrics.md) */
		cJSON *bw = cJSON_AddObjectToObject(o, "by_workload");
		for (int w = 0; w < an->sc->n_workloads && w < GL_MAX_WORKLOADS; w++) {
			cJSON *x = cJSON_AddObjectToObject(bw, an->sc->workloads[w].name);
			add_num(x, "recovery_s", f->wl_recovery_s[w] >= 0, f->wl_recovery_s[w]);
			add_num(x, "restore_s", f->wl_restore_s[w] >= 0, f->wl_restore_s[w]);
		}
	}
	if (f->recovery_note[0])
		cJSON_AddStringToObject(o, "recovery_note", f->recovery_note);
	if (f->sessions.has) {
		const struct gl_session_recovery *s = &f->sessions;
		cJSON *x = cJSON_AddObjectToObject(o, "sessions");
		add_num(x, "before_ms", s->before_ms >= 0, s->before_ms);
		add_num(x, "first_ms", s->first_ms >= 0, s->first_ms);
		add_num(x, "peak_ms", s->peak_ms >= 0, s->peak_ms);
		add_num(x, "recovery_s", s->recovery_s >= 0, s->recovery_s);
		cJSON_AddNumberToObject(x, "windows_before", s->windows_before);
		if (s->note[0])
			cJSON_AddStringToObject(x, "note", s->note);
	} else {
		cJSON_AddNullToObject(o, "sessions");
	}
	/* real seconds injected, controller outages included, to the
	 * fault's own record of its end when it ended itself */
	add_num(o, "held_s", f->held_s >= 0, f->held_s);
	cJSON_AddBoolToObject(o, "held_by_own_record", f->self_ended);
	cJSON_AddNumberToObject(o, "planned_held_s", f->planned_held_s);
	cJSON_AddNumberToObject(o, "outage_s", f->outage_s);
	{
		cJSON *m = f->row.measured[0] ? cJSON_Parse(f->row.measured) : NULL;
		cJSON_AddItemToObject(o, "measured", m ? m : cJSON_CreateObject());
	}
	if (f->row.error[0])
		cJSON_AddStringToObject(o, "error", f->row.error);
	return o;
}

static void add_outages(cJSON *arr, const struct gl_analysis *an)
{
	char wall[40];

	for (int i = 0; i < an->n_outages; i++) {
		const struct gl_outage *x = &an->outages[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "resume", x->resume);
		cJSON_AddNumberToObject(o, "at_elapsed_s", (double)x->at_elapsed_ns / 1e9);
		cJSON_AddNumberToObject(o, "at_scenario_s", gl_series_elapsed_to_scn(an, x->at_elapsed_ns) / 1e9);
		add_num(o, "down_s", x->down_s >= 0, x->down_s);
		if (x->down_wall_ns > 0) {
			gl_format_wall(x->down_wall_ns, wall, sizeof(wall));
			cJSON_AddStringToObject(o, "last_commit", wall);
		} else {
			cJSON_AddNullToObject(o, "last_commit");
		}
		gl_format_wall(x->resumed_wall_ns, wall, sizeof(wall));
		cJSON_AddStringToObject(o, "resumed", wall);
		{
			/* the faults in force as it began, and what they did meanwhile */
			cJSON *fa = cJSON_AddArrayToObject(o, "faults");
			for (int j = 0; j < an->n_faults; j++) {
				const struct gl_fault_result *f = &an->faults[j];
				const char *what;
				cJSON *e;
				if (!outage_fault(an, f, i, &what))
					continue;
				e = cJSON_CreateObject();
				cJSON_AddStringToObject(e, "id", f->row.id);
				if (what)
					cJSON_AddStringToObject(e, "ended", what);
				else
					cJSON_AddNullToObject(e, "ended");
				add_num(e, "ended_into_s", what && !strcmp(what, "during"), f->ended_into_s);
				cJSON_AddItemToArray(fa, e);
			}
		}
		cJSON_AddItemToArray(arr, o);
	}
}

static void add_preflight(cJSON *arr, const struct gl_analysis *an)
{
	for (int i = 0; i < an->n_preflight; i++) {
		const struct gl_preflight_result *p = &an->preflight[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "subject", p->subject);
		cJSON_AddStringToObject(o, "check", p->check);
		cJSON_AddBoolToObject(o, "ok", p->ok);
		cJSON_AddStringToObject(o, "detail", p->detail);
		cJSON_AddItemToArray(arr, o);
	}
}

/* A drift target's fit (docs/metrics.md, "Drift"): in the figure's units
 * per day, its level at the first steady window, and the interval in the
 * bound's unit; nulls where there was no fit. */
static void add_drift(cJSON *o, const struct gl_target_result *t)
{
	const struct gl_drift_fit *f = &t->drift;
	int fit = f->points > 0, rel = t->spec->drift_pct;
	double k = rel && f->level > 0 ? 100 / f->level : 1;
	cJSON *d = cJSON_AddObjectToObject(o, "drift");

	cJSON_AddStringToObject(d, "unit", rel ? "%/day" : "per day");
	add_num(d, "slope_per_day", fit, f->slope);
	add_num(d, "low_per_day", fit, f->lo);
	add_num(d, "high_per_day", fit, f->hi);
	add_num(d, "level", fit, f->level);
	add_num(d, "low", t->has, f->lo * k);
	add_num(d, "high", t->has, f->hi * k);
	cJSON_AddNumberToObject(d, "windows", t->windows_judged);
	cJSON_AddNumberToObject(d, "points", f->points);
}

static void add_targets(cJSON *arr, const struct gl_analysis *an)
{
	for (int i = 0; i < an->n_targets; i++) {
		const struct gl_target_result *t = &an->targets[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "metric", t->spec->metric);
		cJSON_AddStringToObject(o, "scope", gl_scope_name(t->spec->scope));
		cJSON_AddStringToObject(o, "kind", t->spec->drift ? "drift_per_day" : "value");
		if (t->spec->missing) {
			cJSON_AddNullToObject(o, "op");
			cJSON_AddNullToObject(o, "threshold");
		} else {
			cJSON_AddStringToObject(o, "op", gl_cmp_str(t->spec->expr.op));
			cJSON_AddNumberToObject(o, "threshold", t->spec->expr.threshold);
		}
		add_num(o, "measured", t->has, t->measured);
		cJSON_AddBoolToObject(o, "pass", t->pass);
		cJSON_AddBoolToObject(o, "missing", t->spec->missing);
		cJSON_AddNumberToObject(o, "windows_judged", t->windows_judged);
		if (t->note[0])
			cJSON_AddStringToObject(o, "note", t->note);
		if (t->spec->drift)
			add_drift(o, t);
		cJSON_AddItemToArray(arr, o);
	}
}

cJSON *gl_report_json(const struct gl_analysis *an)
{
	cJSON *r = cJSON_CreateObject(), *arr;

	/* docs/report.schema.json; bumped when a key is renamed, removed or
	 * changes type or meaning (docs/metrics.md, "Schema") */
	cJSON_AddNumberToObject(r, "schema_version", 1);
	cJSON_AddStringToObject(r, "verdict", gl_verdict_name(an->verdict));
	add_run(cJSON_AddObjectToObject(r, "run"), an);
	cJSON_AddItemToObject(r, "metrics", metrics_obj(an, an->all));

	add_phases(cJSON_AddArrayToObject(r, "phases"), an);
	arr = cJSON_AddArrayToObject(r, "faults");
	for (int i = 0; i < an->n_faults; i++)
		cJSON_AddItemToArray(arr, fault_json(an, &an->faults[i]));
	cJSON_AddNumberToObject(r, "faults_left_injected", an->faults_left_injected);
	cJSON_AddItemToObject(r, "incidents", gl_report_incidents_json(an));
	cJSON_AddItemToObject(r, "suspects", gl_report_suspects_json(an));
	cJSON_AddItemToObject(r, "nodes", gl_report_nodes_json(an));
	cJSON_AddItemToObject(r, "bisect", an->bisect ? cJSON_Duplicate(an->bisect, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(r, "sweep", an->sweep ? cJSON_Duplicate(an->sweep, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(r, "edge", gl_report_edge_json(an));

	add_outages(cJSON_AddArrayToObject(r, "outages"), an);
	add_preflight(cJSON_AddArrayToObject(r, "preflight"), an);
	cJSON_AddBoolToObject(r, "preflight_passed", an->preflight_failed == 0);
	cJSON_AddItemToObject(r, "gates", gl_report_gates_json(an));
	if (an->notify) {
		/* the webhooks' counts, by variable name: never a URL */
		cJSON *nt = cJSON_Parse(an->notify);
		if (nt)
			cJSON_AddItemToObject(r, "notify", nt);
	}

	add_targets(cJSON_AddArrayToObject(r, "targets"), an);
	return r;
}
