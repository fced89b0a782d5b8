/*
 * report_html_tables.c - report.html's tables after the charts
 * (report_html.c): the timeline as planned, faults, incidents, controller
 * outages, workload summaries, phases, preflight, gates, run facts, the
 * manifest and the metric definitions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agents.h"
#include "report_html_int.h"
#include "timeline.h"
#include "units.h"

/* ---- faults, phases, preflight ---------------------------------------------------- */

static void agent_row(void *arg, const char *workload, int index, int count, const char *host, const char *cmd)
{
	struct out *o = arg;

	putf(o, "<tr><td>");
	esc(o, workload);
	putf(o, "</td><td class=\"n\">%d of %d</td><td>", index, count);
	esc(o, host[0] ? host : "(the launcher's choice)");
	put(o, "</td><td><code>");
	esc(o, cmd);
	put(o, "</code></td></tr>\n");
	if (index == GL_AGENTS_SHOWN - 1 && count > GL_AGENTS_SHOWN)
		putf(o,
		     "<tr><td colspan=\"4\">... and %d more (agents %d to %d), each the same with its own host</td>"
		     "</tr>\n",
		     count - GL_AGENTS_SHOWN, GL_AGENTS_SHOWN, count - 1);
}

/* The schedule as the scenario planned it (timeline.h): phases, spikes,
 * fault injects and reverts, the agents' launch, the end; real time at the
 * run's time scale. What happened to each fault is in Faults. */
void gl_rhtml_timeline_table(struct out *o, const struct gl_analysis *an)
{
	struct gl_tl_row *rows = NULL;
	int n = 0, agents = 0;

	put(o, "<h2 id=\"timeline\">Timeline</h2>\n");
	if (gl_timeline_rows(an->sc, &rows, &n) != 0) {
		put(o, "<p>The timeline could not be built (out of memory).</p>\n");
		return;
	}
	put(o, "<table><thead><tr><th>scenario time</th><th>real time</th><th>event</th></tr></thead><tbody>\n");
	for (int i = 0; i < n && o->rc == 0; i++) {
		char t[64], rt[64];
		gl_format_duration(rows[i].t_ns, t, sizeof(t));
		fmt_scn(rt, sizeof(rt), (double)gl_timeline_real_ns(rows[i].t_ns, an->run.time_scale));
		putf(o, "<tr class=\"tl-%s\"><td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
		     rows[i].kind == GL_TLR_AGENTS        ? "agents"
		     : rows[i].kind == GL_TLR_SPIKE       ? "spike"
		     : rows[i].kind == GL_TLR_SPIKES_MORE ? "spikes"
							  : "event",
		     t, rt);
		esc(o, rows[i].text);
		put(o, "</td></tr>\n");
		agents += rows[i].kind == GL_TLR_AGENTS;
	}
	free(rows);
	putf(o,
	     "</tbody></table>\n<p>As the scenario planned it, at time scale %g; a spike that repeats shows its "
	     "first %d times, then one row for the rest. What each fault did is under Faults.</p>\n",
	     an->run.time_scale, GL_TL_SPIKES_SHOWN);
	if (agents) {
		put(o, "<table><thead><tr><th>agents of</th><th>agent</th><th>host</th><th>launch command</th></tr>"
		       "</thead><tbody>\n");
		gl_agents_each_command(an->sc, GL_AGENTS_SHOWN, agent_row, o);
		put(o, "</tbody></table>\n<p>Each agent is launched by its own command, before the clock starts, "
		       "as this gauntlet launches them.</p>\n");
	}
}

static void td_secs(struct out *o, int has, double v)
{
	char b[64];
	fmt_num(b, sizeof(b), has, v);
	putf(o, "<td class=\"n\">%s</td>", b);
}

/* A moment of the run: scenario time, and real seconds since the start. */
static void td_when(struct out *o, int64_t scn_ns, int64_t elapsed_ns)
{
	char a[48];

	if (scn_ns < 0) {
		put(o, "<td class=\"n\">n/a</td>");
		return;
	}
	fmt_scn(a, sizeof(a), (double)scn_ns);
	putf(o, "<td class=\"n\">%s", a);
	if (elapsed_ns >= 0)
		putf(o, "<br><small>real %.3f s</small>", (double)elapsed_ns / 1e9);
	put(o, "</td>");
}

static void td_bool(struct out *o, int v)
{
	put(o, v < 0 ? "<td>unknown</td>" : v ? "<td class=\"ok\">yes</td>" : "<td class=\"bad\">no</td>");
}

void gl_rhtml_faults_table(struct out *o, const struct gl_analysis *an)
{
	put(o, "<h2 id=\"faults\">Faults</h2>\n");
	if (an->n_faults == 0) {
		put(o, "<p>No faults in this run.</p>\n");
		return;
	}
	put(o, "<table><thead><tr><th>id</th><th>kind</th><th>method</th><th>target</th><th>state</th>"
	       "<th>injected at</th><th>verified</th><th>reverted at</th><th>revert verified</th>"
	       "<th>held s (planned)</th><th>recovery_s</th><th>restore_s</th><th>per workload (recovery_s / "
	       "restore_s)</th>"
	       "<th>runbook</th><th>note</th></tr>"
	       "</thead><tbody>\n");
	for (int i = 0; i < an->n_faults && o->rc == 0; i++) {
		const struct gl_fault_result *f = &an->faults[i];
		char dmn[200];
		int ok = f->row.state == GL_FAULT_REVERTED && f->recovery_s >= 0 && f->restore_s >= 0;
		putf(o, "<tr%s><td>", ok ? "" : " class=\"bad\"");
		esc(o, f->row.id);
		put(o, "</td><td>");
		esc(o, f->row.kind);
		put(o, "</td><td>");
		esc(o, f->row.method);
		put(o, "</td><td>");
		esc(o, f->row.target);
		putf(o, "</td><td class=\"%s\">", f->row.state == GL_FAULT_REVERTED ? "ok" : "bad");
		esc(o, gl_fault_state_name(f->row.state));
		put(o, "</td>");
		td_when(o, f->row.injected_scn_ns, f->row.injected_elapsed_ns);
		td_bool(o, f->row.verified);
		td_when(o, f->row.reverted_scn_ns, f->row.reverted_elapsed_ns);
		td_bool(o, f->row.verified_revert);
		if (f->held_s < 0) {
			put(o, "<td class=\"n\">n/a</td>");
		} else {
			char hb[256];
			const char *hn = gl_report_held_note(an, f, hb, sizeof(hb));
			putf(o, "<td class=\"n%s\">%.3f (%.3f)%s", !strncmp(hn, "LONGER", 6) ? " bad" : "", f->held_s,
			     f->planned_held_s, hn[0] ? "<br>" : "");
			esc(o, hn);
			put(o, "</td>");
		}
		td_secs(o, f->recovery_s >= 0, f->recovery_s);
		td_secs(o, f->restore_s >= 0, f->restore_s);
		put(o, "<td>");
		for (int w = 0; w < an->sc->n_workloads && w < GL_MAX_WORKLOADS; w++) {
			char r1[32], r2[32];
			fmt_num(r1, sizeof(r1), f->wl_recovery_s[w] >= 0, f->wl_recovery_s[w]);
			fmt_num(r2, sizeof(r2), f->wl_restore_s[w] >= 0, f->wl_restore_s[w]);
			esc(o, an->sc->workloads[w].name);
			putf(o, ": %s / %s<br>", r1, r2);
		}
		put(o, "</td><td>");
		if (gl_scenario_runbook(an->sc, f->row.id))
			esc(o, gl_scenario_runbook(an->sc, f->row.id));
		else
			put(o, "<span class=\"bad\">none</span>");
		put(o, "</td><td>");
		esc(o, f->recovery_note);
		if (gl_report_sessions_note(f, dmn, sizeof(dmn))[0]) {
			put(o, " ");
			esc(o, dmn);
		}
		if (gl_report_deadman_note(&f->row, dmn, sizeof(dmn))[0]) {
			put(o, " ");
			esc(o, gl_report_deadman_note(&f->row, dmn, sizeof(dmn)));
		}
		if (f->row.error[0]) {
			put(o, f->recovery_note[0] ? "; error: " : "error: ");
			esc(o, f->row.error);
		}
		if (f->row.measured[0]) {
			put(o, " <code>");
			esc(o, f->row.measured);
			put(o, "</code>");
		}
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n<p>Inject and revert times are scenario time, with the real seconds since the "
	       "run began below them. recovery_s counts real seconds from the inject until the first run of hold "
	       "windows meeting the degraded targets, restore_s from the revert until such a run meeting the steady "
	       "targets, which must start by the revert plus the fault's settle; n/a (null) is a failure.</p>\n");
}

void gl_rhtml_phases_table(struct out *o, const struct gl_analysis *an, const struct gl_series_set *ss)
{
	const struct gl_scenario *sc = an->sc;

	put(o, "<h2 id=\"phases\">Phases</h2>\n<table><thead><tr><th>#</th><th>phase</th><th>start</th><th>end</th>"
	       "<th>load</th><th>scope</th><th>measured s</th>");
	for (int i = 0; i < ss->n; i++) {
		put(o, "<th>");
		esc(o, ss->s[i].name);
		put(o, "</th>");
	}
	put(o, "</tr></thead><tbody>\n");
	for (int p = 0; p < sc->n_phases && o->rc == 0; p++) {
		const struct gl_phase *ph = &sc->phases[p];
		char a[48], b[48];
		fmt_scn(a, sizeof(a), (double)ph->start_ns);
		fmt_scn(b, sizeof(b), (double)(ph->start_ns + ph->dur_ns));
		putf(o, "<tr><td class=\"n\">%d</td><td>", p);
		esc(o, ph->name);
		putf(o, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">", a, b);
		if (ph->edge_fraction > 0)
			putf(o, "%.3g edge", ph->edge_fraction);
		else
			putf(o, "%.3g%s", ph->load, ph->kind == GL_PHASE_EDGE ? " (edge search)" : "");
		putf(o, "</td><td>%s</td><td class=\"n\">%.1f</td>", gl_scope_name(ph->scope),
		     gl_agg_seconds(an->phase[p]));
		for (int i = 0; i < ss->n; i++) {
			double v = 0;
			/* evaluated before the call: in one argument list the
			 * order is unspecified, and gcc may pass v before the
			 * evaluation fills it (every figure then shows 0) */
			int has = gl_agg_eval(an->phase[p], ss->s[i].name, &v) == 0;
			td_secs(o, has, v);
		}
		put(o, "</tr>\n");
	}
	put(o, "</tbody></table>\n<p>Each figure merges the phase's windows (histograms merged, rates over the "
	       "phase's real seconds).</p>\n");
}

/* ---- incidents, outages, workload summaries ------------------------------------ */

void gl_rhtml_incidents_table(struct out *o, const struct gl_analysis *an)
{
	putf(o,
	     "<h2 id=\"incidents\">Incidents</h2>\n<p%s>%d incident(s): degradations no scheduled fault explains; "
	     "%d counted against a limit of %d (%s): <strong>%s</strong>.</p>\n",
	     an->incidents_failed ? " class=\"bad\"" : "", an->incidents_total, an->incidents_gated,
	     an->incidents_limit,
	     an->sc->incidents_max >= 0 ? "incidents.max, every kind"
					: "no incidents.max: training failures, correctness errors and failed restores",
	     an->incidents_failed ? "FAIL" : "pass");
	if (!an->n_incidents)
		return;
	put(o, "<table><thead><tr><th>kind</th><th>from</th><th>to</th><th>windows</th><th>counted</th><th>what</th>"
	       "<th>first event</th><th>nodes out</th></tr></thead><tbody>\n");
	for (int i = 0; i < an->n_incidents && o->rc == 0; i++) {
		const struct gl_incident *x = &an->incidents[i];
		const struct gl_window_info *a = &an->windows[x->w0], *b = &an->windows[x->w1];
		char nodes[1024];
		putf(o, "<tr%s><td>%s</td>", x->gated ? " class=\"bad\"" : "", gl_incident_kind_name(x->kind));
		td_when(o, a->scn_start_ns, a->start_ns);
		td_when(o, b->scn_end_ns, b->end_ns);
		putf(o, "<td class=\"n\">%d</td><td>%s</td><td>", x->w1 - x->w0 + 1, x->gated ? "yes" : "no");
		esc(o, x->what);
		put(o, "</td><td>");
		esc(o, x->event[0] ? x->event : "-");
		put(o, "</td><td>");
		gl_incident_nodes_text(x, nodes, sizeof(nodes));
		esc(o, nodes);
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n");
	if (an->incidents_total > an->n_incidents)
		putf(o, "<p>The first %d are listed; all %d are counted.</p>\n", an->n_incidents, an->incidents_total);
}

void gl_rhtml_outages_table(struct out *o, const struct gl_analysis *an)
{
	if (!an->n_outages)
		return;
	putf(o,
	     "<h2 id=\"outages\">Controller outages</h2>\n<p>%d outage(s), %.1f s down in all. The run's clock "
	     "stood still while the controller was down (charts show the resume point as a break in the lines). A "
	     "fault in force then stayed in force unless it ended itself (a flap loop's end, a dead-man's switch's "
	     "revert): its own record on the host says when, and its held time runs to that end, not to the "
	     "controller's return.</p>\n<table><thead><tr><th>resume</th><th>at</th><th>down s</th>"
	     "<th>last commit</th><th>resumed</th><th>faults in force</th></tr></thead><tbody>\n",
	     an->n_outages, an->outage_s);
	for (int i = 0; i < an->n_outages && o->rc == 0; i++) {
		const struct gl_outage *x = &an->outages[i];
		char w0[40] = "unknown", w1[40], fl[1024];
		if (x->down_wall_ns > 0)
			gl_format_wall(x->down_wall_ns, w0, sizeof(w0));
		gl_format_wall(x->resumed_wall_ns, w1, sizeof(w1));
		putf(o, "<tr><td class=\"n\">%d</td>", x->resume);
		td_when(o, (int64_t)llround(gl_series_elapsed_to_scn(an, x->at_elapsed_ns)), x->at_elapsed_ns);
		td_secs(o, x->down_s >= 0, x->down_s);
		putf(o, "<td>%s</td><td>%s</td><td>", w0, w1);
		esc(o, gl_report_outage_faults(an, i, fl, sizeof(fl))[0] ? fl : "none");
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n");
}

static void sum_section(void *arg, const char *id, const char *title, const char *note)
{
	struct out *o = arg;
	if (o->in_table)
		put(o, "</tbody></table>\n");
	putf(o, "<h3 id=\"sum-%s\">", id);
	esc(o, title);
	put(o, "</h3>\n");
	if (note) {
		put(o, "<p>");
		esc(o, note);
		put(o, "</p>\n");
	}
	put(o, "<table class=\"sum\"><thead><tr><th>figure</th><th>value</th></tr></thead><tbody>\n");
	o->in_table = 1;
}

static void sum_row(void *arg, const char *label, const char *value)
{
	struct out *o = arg;
	put(o, "<tr><td>");
	esc(o, label);
	put(o, "</td><td class=\"n\">");
	esc(o, value);
	put(o, "</td></tr>\n");
}

void gl_rhtml_summaries(struct out *o, const struct gl_analysis *an)
{
	static const struct gl_summary_ops ops = { sum_section, sum_row };

	put(o, "<h2 id=\"workloads\">Workloads</h2>\n<p>Whole-run figures per workload; n/a: nothing measured.</p>\n");
	o->in_table = 0;
	gl_report_summary(an, &ops, o);
	if (o->in_table)
		put(o, "</tbody></table>\n");
	o->in_table = 0;
}

void gl_rhtml_preflight_table(struct out *o, const struct gl_analysis *an)
{
	if (an->n_preflight == 0)
		return;
	putf(o,
	     "<h2 id=\"preflight\">Preflight (%d failed)</h2>\n<table><thead><tr><th>subject</th><th>check</th>"
	     "<th>result</th><th>detail</th></tr></thead><tbody>\n",
	     an->preflight_failed);
	for (int i = 0; i < an->n_preflight && o->rc == 0; i++) {
		const struct gl_preflight_result *p = &an->preflight[i];
		putf(o, "<tr%s><td>", p->ok ? "" : " class=\"bad\"");
		esc(o, p->subject);
		put(o, "</td><td>");
		esc(o, p->check);
		putf(o, "</td><td class=\"%s\">%s</td><td>", p->ok ? "ok" : "bad", p->ok ? "ok" : "FAILED");
		esc(o, p->detail);
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n");
}

/* the gates' section is report_gates.c's */
void gl_rhtml_gates_table(struct out *o, const struct gl_analysis *an)
{
	if (o->rc == 0)
		o->rc = gl_report_gates_html(an, o->b);
}

/* ---- run facts, manifest, definitions ------------------------------------------- */

void gl_rhtml_run_table(struct out *o, const struct gl_analysis *an)
{
	char b[96];

	put(o, "<h2 id=\"run\">Run</h2>\n<table><tbody>\n");
	fact(o, "run id", an->run.id);
	fact(o, "scenario", an->run.name);
	fact(o, "scenario path", an->run.scenario_path);
	fact(o, "scenario sha256", an->run.scenario_sha256);
	fact(o, "overrides (--set)", an->run.sets_json ? an->run.sets_json : "[]");
	gl_format_wall(an->run.started_wall_ns, b, sizeof(b));
	fact(o, "started", b);
	if (an->run.ended_wall_ns > 0)
		gl_format_wall(an->run.ended_wall_ns, b, sizeof(b));
	else
		snprintf(b, sizeof(b), "not ended");
	fact(o, "ended", b);
	fact(o, "state", an->run.state);
	fact(o, "verdict", gl_verdict_name(an->verdict));
	snprintf(b, sizeof(b), "%.3f s measured, %.3f s planned (scenario time)", an->duration_s,
		 (double)an->run.duration_ns / 1e9);
	fact(o, "duration", b);
	snprintf(b, sizeof(b), "%g", an->run.time_scale);
	fact(o, "time scale", b);
	snprintf(b, sizeof(b), "%g s, %d stored", (double)an->run.window_ns / 1e9, an->n_windows);
	fact(o, "windows", b);
	snprintf(b, sizeof(b), "%d", an->run.resumes);
	fact(o, "resumes", b);
	if (an->generator_saturated)
		snprintf(b, sizeof(b), "yes: %d of %d windows, not judged; %d load agent(s) needed",
			 an->saturated_windows, an->n_windows, an->agents_needed);
	fact(o, "generator saturated", an->generator_saturated ? b : "no");
	snprintf(b, sizeof(b), "%s (%s)", an->run.version, an->run.git_rev);
	fact(o, "gauntlet", b);
	fact(o, "controller host", an->run.hostname);
	put(o, "</tbody></table>\n");
}

/* Flatten a JSON tree into rows "a.b[2].c | value". */
static void manifest_rows(struct out *o, const cJSON *j, char *path, size_t cap, size_t len)
{
	if (o->rc)
		return;
	if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
		const cJSON *it;
		int i = 0;
		if (!j->child) {
			put(o, "<tr><th>");
			esc(o, path);
			put(o, cJSON_IsArray(j) ? "</th><td>[]</td></tr>\n" : "</th><td>{}</td></tr>\n");
		}
		cJSON_ArrayForEach(it, j)
		{
			size_t n;
			if (cJSON_IsArray(j))
				n = (size_t)snprintf(path + len, cap - len, "[%d]", i);
			else
				n = (size_t)snprintf(path + len, cap - len, "%s%s", len ? "." : "",
						     it->string ? it->string : "");
			if (len + n < cap)
				manifest_rows(o, it, path, cap, len + n);
			path[len] = '\0';
			i++;
		}
		return;
	}
	put(o, "<tr><th>");
	esc(o, path);
	put(o, "</th><td>");
	if (cJSON_IsString(j)) {
		esc(o, j->valuestring);
	} else {
		char *t = cJSON_PrintUnformatted(j);
		esc(o, t ? t : "");
		cJSON_free(t);
	}
	put(o, "</td></tr>\n");
}

void gl_rhtml_manifest_table(struct out *o, const cJSON *manifest)
{
	char path[512] = "";

	put(o, "<h2 id=\"manifest\">Manifest</h2>\n");
	if (!manifest) {
		put(o, "<p>No manifest.</p>\n");
		return;
	}
	put(o, "<table><tbody>\n");
	manifest_rows(o, manifest, path, sizeof(path), 0);
	put(o, "</tbody></table>\n");
}

static const char *kind_name(enum gl_metric_kind k)
{
	switch (k) {
	case GL_MK_HIST: return "histogram per window";
	case GL_MK_COUNTER: return "counter per window";
	case GL_MK_RATIO: return "ratio of counters";
	case GL_MK_RATE: return "rate over real seconds";
	case GL_MK_RECOVERY: return "per fault";
	}
	return "";
}

void gl_rhtml_definitions(struct out *o)
{
	size_t n;
	const struct gl_metric_def *d = gl_catalog(&n);

	put(o, "<h2 id=\"definitions\">Metric definitions</h2>\n"
	       "<p>All intervals are measured with CLOCK_MONOTONIC. Percentiles are nearest-rank over log-linear "
	       "histograms (at most 0.1% relative error), one per metric per window, merged for phases and the run. "
	       "Failed requests are out of latency percentiles and in error_rate. ttft_ms is charged from the "
	       "intended send time (open loop), so a request delayed by the client counts its wait. A window is "
	       "healthy when it meets every target of the scope in force; a target without data in a window counts "
	       "as missed. Windows from a fault's inject until its revert plus its settle are judged as degraded, "
	       "the rest by their phase; warm-up windows are not judged. A histogram target written without a "
	       "statistic means its worst "
	       "value (max when lower is better, else min).</p>\n"
	       "<table><thead><tr><th>metric</th><th>workload</th><th>kind</th><th>unit</th><th>better</th>"
	       "<th>definition</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < n && o->rc == 0; i++) {
		put(o, "<tr><td><code>");
		esc(o, d[i].name);
		put(o, "</code></td><td>");
		esc(o, d[i].workload[0] ? d[i].workload : "(recovery)");
		putf(o, "</td><td>%s</td><td>", kind_name(d[i].kind));
		esc(o, d[i].unit);
		putf(o, "</td><td>%s</td><td>", d[i].lower_is_better ? "lower" : "higher");
		esc(o, d[i].help);
		if (d[i].kind == GL_MK_HIST)
			put(o, " (targets take .p&lt;N&gt;, .min, .max, .mean or .count)");
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n");
}
