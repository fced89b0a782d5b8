/*
 * scenario_edge.c - edge phases (docs/scenario.md, "Edge phases"): a
 * phase's "kind": "edge" and its "edge" section (the search for the
 * highest arrival rate at which the workload holds its SLO), a later
 * phase's "load": "0.8 edge", and the checks across them: the workload
 * that takes the search (its ops' edge_check), a fraction of an edge only
 * after an edge phase, and room for 2 probes at the time scale.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "scenario_parts.h"
#include "schema.h"
#include "timeline.h"

#define EDGE_RATE_MAX 1e7
#define EDGE_PROBE_MIN_NS 100000000LL /* 100ms */
#define EDGE_PROBE_MAX_NS 3600000000000LL /* 1h */

/* A rate: a number, or a string like "20/s" or "1200/m" (units.h). */
static int get_rate(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	struct gl_err e = { 0 };
	char p[300];
	double r = 0;

	gl_join(p, sizeof(p), path, key);
	if (!v) {
		if (required)
			gl_diag_error(d, obj, path, "missing required key '%s' (a rate like 20 or \"1200/m\")", key);
		return 0;
	}
	if (cJSON_IsNumber(v))
		r = v->valuedouble;
	else if (!cJSON_IsString(v) || gl_parse_rate(v->valuestring, &r, &e) != 0) {
		gl_diag_error(d, v, p, "%s", e.code ? e.msg : "expected a rate like 20 or \"1200/m\"");
		return -1;
	}
	if (!(r > 0) || r > EDGE_RATE_MAX) {
		gl_diag_error(d, v, p, "expected a rate above 0 and at most 1e7 per second");
		return -1;
	}
	*out = r;
	return 1;
}

/* "goodput": ">= 0.95" or "> 0.9": a share of the probe's requests. */
static void get_goodput(struct gl_diag *d, const cJSON *obj, const char *path, struct gl_edge_spec *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "goodput");
	struct gl_err er = { 0 };
	char p[300];

	e->goodput = (struct gl_target_expr){ GL_CMP_GE, 0.95 };
	snprintf(e->goodput_text, sizeof(e->goodput_text), ">= 0.95");
	if (!v)
		return;
	gl_join(p, sizeof(p), path, "goodput");
	if (!cJSON_IsString(v) || gl_parse_target_expr(v->valuestring, &e->goodput, &er) != 0 ||
	    (e->goodput.op != GL_CMP_GE && e->goodput.op != GL_CMP_GT) || !(e->goodput.threshold > 0) ||
	    e->goodput.threshold > 1 || (e->goodput.op == GL_CMP_GT && e->goodput.threshold >= 1)) {
		gl_diag_error(d, v, p,
			      "expected the goodput a probe must hold, \">= X\" or \"> X\" with X a share above 0 "
			      "and at most 1, like \">= 0.95\"");
		return;
	}
	snprintf(e->goodput_text, sizeof(e->goodput_text), "%s %g", gl_cmp_str(e->goodput.op), e->goodput.threshold);
}

void gl_scenario_parse_phase_edge(struct gl_diag *d, const cJSON *p, const char *path, struct gl_phase *o)
{
	static const char *const kinds[] = { "load", "edge", NULL };
	static const char *const keys[] = { "from", "to", "factor", "probe", "goodput", "settle", NULL };
	const cJSON *ed = cJSON_GetObjectItemCaseSensitive(p, "edge");
	struct gl_edge_spec *e = &o->edge;
	char kind[16] = "load", ep[128];

	gl_get_enum(d, p, "kind", path, 0, kinds, kind, sizeof(kind));
	o->kind = !strcmp(kind, "edge") ? GL_PHASE_EDGE : GL_PHASE_LOAD;
	e->workload = -1;
	snprintf(ep, sizeof(ep), "%s.edge", path);
	if (o->kind != GL_PHASE_EDGE) {
		if (ed)
			gl_diag_error(d, ed, ep, "\"edge\" belongs to a phase of \"kind\": \"edge\"");
		return;
	}
	if (o->edge_fraction > 0)
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(p, "load"), path,
			      "an edge phase searches the rate itself: its \"load\" cannot be a fraction of an edge");
	if (!ed) {
		gl_diag_error(d, p, path,
			      "a phase of \"kind\": \"edge\" needs \"edge\": {\"from\": RATE, \"to\": RATE, "
			      "\"probe\": DURATION, ...}");
		return;
	}
	if (!gl_want_object(d, ed, ep))
		return;
	gl_check_keys(d, ed, ep, keys);
	get_rate(d, ed, "from", ep, 1, &e->from);
	if (get_rate(d, ed, "to", ep, 1, &e->to) > 0 && e->from > 0 && !(e->to > e->from))
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(ed, "to"), ep,
			      "\"to\" (%g/s) must be above \"from\" (%g/s)", e->to, e->from);
	e->factor = 2;
	gl_get_number(d, ed, "factor", ep, 0, 1.01, 100, &e->factor);
	e->probe_ns = 10000000000LL;
	if (gl_get_duration(d, ed, "probe", ep, 0, &e->probe_ns) > 0 &&
	    (e->probe_ns < EDGE_PROBE_MIN_NS || e->probe_ns > EDGE_PROBE_MAX_NS))
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(ed, "probe"), ep, "a probe lasts 100ms to 1h");
	get_goodput(d, ed, ep, e);
	if (gl_get_duration(d, ed, "settle", ep, 0, &e->settle_ns) > 0) {
		e->settle_given = 1;
		if (e->settle_ns * 2 > e->probe_ns)
			gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(ed, "settle"), ep,
				      "\"settle\" may take at most half of the probe, which sends for the rest");
	}
	/* judged by no target unless it says so: its probes above the edge
	 * miss the SLO on purpose */
	o->scope = GL_SCOPE_NONE;
}

int gl_scenario_phase_load(struct gl_diag *d, const cJSON *p, const char *path, struct gl_phase *o)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, "load");
	char lp[128], word[8] = "";
	double f = 0;
	int used = 0;

	if (!cJSON_IsString(v))
		return 0; /* a number (or absent): the multiplier's getter */
	gl_join(lp, sizeof(lp), path, "load");
	if (sscanf(v->valuestring, "%lf %7s%n", &f, word, &used) != 2 || v->valuestring[used] || strcmp(word, "edge") ||
	    !isfinite(f) || f < 0.001 || f > 1000) {
		gl_diag_error(d, v, lp,
			      "expected a multiplier 0.001 to 1000, or a fraction of the edge an earlier edge phase "
			      "found, like \"0.8 edge\"; got '%s'",
			      v->valuestring);
		return 1;
	}
	o->edge_fraction = f;
	o->load = 1;
	return 1;
}

/* The workload an edge phase searches: the scenario's one whose ops have
 * edge_check. */
static int edge_workload(const struct gl_scenario *s)
{
	for (int i = 0; i < s->n_workloads; i++)
		if (s->workloads[i].ops && s->workloads[i].ops->edge_check)
			return i;
	return -1;
}

/* Room for 2 probes at the time scale: the slots, each the phase's real
 * time over their count (at most GL_EDGE_MAX_PROBES). */
static void edge_slots(struct gl_diag *d, struct gl_phase *ph, const char *path, double sc)
{
	struct gl_edge_spec *e = &ph->edge;
	int64_t real = gl_timeline_real_ns(ph->dur_ns, sc);
	int64_t n = e->probe_ns > 0 ? real / e->probe_ns : 0;
	char a[64], b[64];

	if (n > GL_EDGE_MAX_PROBES)
		n = GL_EDGE_MAX_PROBES;
	e->slots = (int)n;
	e->slot_ns = n > 0 ? real / n : 0;
	if (n >= 2 || e->probe_ns <= 0)
		return;
	gl_format_duration(e->probe_ns, a, sizeof(a));
	gl_format_duration(real, b, sizeof(b));
	gl_diag_error(d, ph->json, path,
		      "phase '%s': an edge phase needs room for at least 2 probes of %s (real time), but it lasts "
		      "%s of real time at time scale %g: make the phase longer, the probe shorter or the time scale "
		      "lower",
		      ph->name, a, b, sc);
}

/* Each probe sends for its slot less the settle: half the slot at least,
 * and at `from` one request at least (goodput over none is no evidence). */
static void edge_sends(struct gl_diag *d, const struct gl_phase *ph, const char *path)
{
	const struct gl_edge_spec *e = &ph->edge;
	double send_s = (double)(e->slot_ns - e->settle_ns) / 1e9;
	char a[64], b[64];

	if (e->slots < 2)
		return;
	gl_format_duration(e->settle_ns, a, sizeof(a));
	gl_format_duration(e->slot_ns, b, sizeof(b));
	if (e->settle_ns * 2 > e->slot_ns)
		gl_diag_error(d, ph->json, path,
			      "phase '%s': each probe settles for %s%s, more than half its slot of %s: give a longer "
			      "\"probe\" or a shorter \"settle\"",
			      ph->name, a, e->settle_given ? "" : " (from the workload's slo)", b);
	else if (e->from * send_s < 1)
		gl_diag_error(d, ph->json, path,
			      "phase '%s': at \"from\" (%g/s) a probe sending for %.3g s sends no request to judge: "
			      "raise \"from\" or lengthen \"probe\"",
			      ph->name, e->from, send_s);
	else if (e->from * send_s < 20)
		gl_diag_warn(d, ph->json, path,
			     "phase '%s': at \"from\" (%g/s) a probe sends about %.0f requests: each one moves its "
			     "goodput by %.0f points",
			     ph->name, e->from, e->from * send_s, 100 / (e->from * send_s));
}

void gl_scenario_check_edges(struct vctx *v, const struct gl_scenario_opts *o)
{
	struct gl_scenario *s = v->s;
	double sc = o && o->time_scale > 0 ? o->time_scale : 1;
	int wl = edge_workload(s), last = -1;
	char path[64];

	for (int i = 0; i < s->n_phases; i++) {
		struct gl_phase *ph = &s->phases[i];
		snprintf(path, sizeof(path), "phases[%d]", i);
		if (ph->edge_fraction > 0 && ph->kind != GL_PHASE_EDGE) {
			ph->edge_of = last;
			if (last < 0)
				gl_diag_error(
					v->d, cJSON_GetObjectItemCaseSensitive(ph->json, "load"), path,
					"phase '%s': \"load\": \"%g edge\" needs an edge phase before it (\"kind\": "
					"\"edge\"): no edge is measured earlier",
					ph->name, ph->edge_fraction);
			else if (wl < 0)
				gl_diag_error(v->d, ph->json, path,
					      "phase '%s': a fraction of the edge sets the inference arrival rate: the "
					      "scenario has no inference workload",
					      ph->name);
		}
		if (ph->kind != GL_PHASE_EDGE)
			continue;
		last = i;
		ph->edge.workload = wl;
		if (wl < 0) {
			gl_diag_error(v->d, ph->json, path,
				      "phase '%s': an edge phase searches the inference workload's arrival rate: the "
				      "scenario has no inference workload",
				      ph->name);
			continue;
		}
		edge_slots(v->d, ph, path, sc);
		s->workloads[wl].ops->edge_check(s->workloads[wl].cfg, &ph->edge, v->d, ph->json, path);
		edge_sends(v->d, ph, path);
		if (ph->scope != GL_SCOPE_NONE)
			gl_diag_warn(
				v->d, ph->json, path,
				"phase '%s': an edge phase judged as %s: its probes above the edge miss the SLO on "
				"purpose, and its windows will fail that scope's targets",
				ph->name, gl_scope_name(ph->scope));
	}
}
