/*
 * report_md.c - report.md, for tickets: verdict first, then targets (a
 * missing threshold shows as a failure), faults, phases, the timeline as
 * planned and run facts.
 * Every string that comes from the scenario, the store or a command goes
 * through gl_md_text or gl_md_code: it stays text, and every table row
 * keeps its header's number of cells.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents.h"
#include "report.h"
#include "series.h"
#include "timeline.h"
#include "units.h"

static void fmt_num(char *buf, size_t n, int has, double v)
{
	if (!has || !isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.6g", v);
}

/* A table row of texts, each through gl_md_text: "| a | b | ... |\n".
 * The list ends with NULL. */
static void md_row(struct gl_buf *b, const char *first, ...)
{
	va_list ap;
	const char *t;

	gl_buf_append(b, "| ", 2);
	gl_md_text(b, first);
	va_start(ap, first);
	while ((t = va_arg(ap, const char *))) {
		gl_buf_append(b, " | ", 3);
		gl_md_text(b, t);
	}
	va_end(ap);
	gl_buf_append(b, " |\n", 3);
}

static void sum_section(void *arg, const char *id, const char *title, const char *note)
{
	struct gl_buf *b = arg;
	(void)id;
	gl_buf_printf(b, "\n## %s\n\n", title);
	if (note) {
		gl_md_text(b, note);
		gl_buf_printf(b, "\n\n");
	}
	gl_buf_printf(b, "| figure | value |\n|---|---|\n");
}

static void sum_row(void *arg, const char *label, const char *value)
{
	struct gl_buf *b = arg;
	md_row(b, label, value, NULL);
}

static void md_incidents(const struct gl_analysis *an, struct gl_buf *b)
{
	gl_buf_printf(b,
		      "\n## Incidents\n\n%d incident(s): degradations no scheduled fault explains; %d counted "
		      "against a limit of %d (%s): %s.\n\n",
		      an->incidents_total, an->incidents_gated, an->incidents_limit,
		      an->sc->incidents_max >= 0
			      ? "incidents.max, every kind"
			      : "no incidents.max: training failures, correctness errors and failed restores",
		      an->incidents_failed ? "FAIL" : "pass");
	if (!an->n_incidents)
		return;
	gl_buf_printf(b, "| kind | from | to | windows | counted | what | first event | nodes out |\n"
			 "|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < an->n_incidents; i++) {
		const struct gl_incident *x = &an->incidents[i];
		char s0[64], s1[64], nodes[1024];
		gl_format_duration(an->windows[x->w0].scn_start_ns, s0, sizeof(s0));
		gl_format_duration(an->windows[x->w1].scn_end_ns, s1, sizeof(s1));
		gl_buf_printf(b, "| %s | %s | %s | %d | %s | ", gl_incident_kind_name(x->kind), s0, s1,
			      x->w1 - x->w0 + 1, x->gated ? "yes" : "no");
		gl_md_text(b, x->what);
		gl_buf_printf(b, " | ");
		gl_md_text(b, x->event[0] ? x->event : "-");
		gl_buf_printf(b, " | ");
		gl_incident_nodes_text(x, nodes, sizeof(nodes));
		gl_md_text(b, nodes);
		gl_buf_printf(b, " |\n");
	}
	if (an->incidents_total > an->n_incidents)
		gl_buf_printf(b, "\nThe first %d are listed; all %d are counted.\n", an->n_incidents,
			      an->incidents_total);
}

static void md_outages(const struct gl_analysis *an, struct gl_buf *b)
{
	if (!an->n_outages)
		return;
	gl_buf_printf(
		b, "\n## Controller outages\n\nThe run's clock stood still while the controller was down. A fault "
		   "in force then stayed in force unless it ended itself (a flap loop's end, a dead-man's switch's "
		   "revert): its own record on the host says when, and its held time runs to that end, not to the "
		   "controller's return.\n\n| resume | at (scenario) | run clock s | down s | last commit | resumed | "
		   "faults in force |\n|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < an->n_outages; i++) {
		const struct gl_outage *o = &an->outages[i];
		char at[64], d[64], w0[40] = "unknown", w1[40], fl[1024];
		gl_format_duration((int64_t)llround(gl_series_elapsed_to_scn(an, o->at_elapsed_ns)), at, sizeof(at));
		fmt_num(d, sizeof(d), o->down_s >= 0, o->down_s);
		if (o->down_wall_ns > 0)
			gl_format_wall(o->down_wall_ns, w0, sizeof(w0));
		gl_format_wall(o->resumed_wall_ns, w1, sizeof(w1));
		gl_buf_printf(b, "| %d | %s | %.3f | %s | %s | %s | ", o->resume, at, (double)o->at_elapsed_ns / 1e9, d,
			      w0, w1);
		gl_md_text(b, gl_report_outage_faults(an, i, fl, sizeof(fl))[0] ? fl : "none");
		gl_buf_printf(b, " |\n");
	}
}

/* Load agents, when the run had them: their losses and the windows they
 * left partial (the event log names each). */
static void md_agents(const struct gl_analysis *an, struct gl_buf *b)
{
	int found = 0;
	int64_t aw = gl_agg_counter(an->all, "agents.expected", &found);

	if (!found)
		return;
	gl_buf_printf(b,
		      "\n## Load agents\n\n| agent windows | without the agent's figures | lost | relaunched | "
		      "refused connections | late reports |\n|---|---|---|---|---|---|\n| %lld | %lld | %lld | %lld | "
		      "%lld | %lld |\n",
		      (long long)aw, (long long)gl_agg_counter(an->all, "agents.missing", &found),
		      (long long)gl_agg_counter(an->all, "agents.lost", &found),
		      (long long)gl_agg_counter(an->all, "agents.relaunched", &found),
		      (long long)gl_agg_counter(an->all, "agents.refused", &found),
		      (long long)gl_agg_counter(an->all, "agents.late_reports", &found));
	gl_buf_printf(b, "\nA window without an agent's figures is partial: it counts the other agents' load only "
			 "(the event log names the agent).\n");
}

/* Per phase: the same series as report.html's Phases table, each over the
 * phase's merged windows. */
static void md_phases(const struct gl_analysis *an, struct gl_buf *b)
{
	struct gl_series_set *ss = gl_series_names(an);
	int n = ss ? ss->n : 0;

	gl_buf_printf(b, "\n## Phases\n\n| phase | start | end | load | judged as | measured s |");
	for (int i = 0; i < n; i++) {
		gl_buf_append(b, " ", 1);
		gl_md_text(b, ss->s[i].name);
		gl_buf_append(b, " |", 2);
	}
	gl_buf_printf(b, "\n|---|---|---|---|---|---|");
	for (int i = 0; i < n; i++)
		gl_buf_printf(b, "---|");
	gl_buf_printf(b, "\n");
	for (int p = 0; p < an->sc->n_phases; p++) {
		const struct gl_phase *ph = &an->sc->phases[p];
		char s0[64], s1[64];
		gl_format_duration(ph->start_ns, s0, sizeof(s0));
		gl_format_duration(ph->start_ns + ph->dur_ns, s1, sizeof(s1));
		gl_buf_append(b, "| ", 2);
		gl_md_text(b, ph->name);
		if (ph->edge_fraction > 0)
			gl_buf_printf(b, " | %s | %s | %g edge | %s | %.1f |", s0, s1, ph->edge_fraction,
				      gl_scope_name(ph->scope), gl_agg_seconds(an->phase[p]));
		else
			gl_buf_printf(b, " | %s | %s | %g%s | %s | %.1f |", s0, s1, ph->load,
				      ph->kind == GL_PHASE_EDGE ? " (edge search)" : "", gl_scope_name(ph->scope),
				      gl_agg_seconds(an->phase[p]));
		for (int i = 0; i < n; i++) {
			char v[64];
			double x = 0;
			int has = gl_agg_eval(an->phase[p], ss->s[i].name, &x) == 0;
			fmt_num(v, sizeof(v), has, x);
			gl_buf_printf(b, " %s |", v);
		}
		gl_buf_printf(b, "\n");
	}
	if (n)
		gl_buf_printf(
			b, "\nEach figure merges the phase's windows (histograms merged, rates over the phase's real "
			   "seconds); n/a: nothing measured.\n");
	gl_series_free(ss);
}

static void md_agent(void *arg, const char *workload, int index, int count, const char *host, const char *cmd)
{
	struct gl_buf *b = arg;

	gl_buf_printf(b, "| ");
	gl_md_text(b, workload);
	gl_buf_printf(b, " | %d of %d | ", index, count);
	gl_md_text(b, host[0] ? host : "(the launcher's choice)");
	gl_buf_printf(b, " | ");
	gl_md_code(b, cmd);
	gl_buf_printf(b, " |\n");
	if (index == GL_AGENTS_SHOWN - 1 && count > GL_AGENTS_SHOWN)
		gl_buf_printf(b, "| ... | and %d more (agents %d to %d) | | each the same with its own host |\n",
			      count - GL_AGENTS_SHOWN, GL_AGENTS_SHOWN, count - 1);
}

/* The schedule as the scenario planned it (timeline.h), as validate shows
 * it, real time at the run's time scale. */
static void md_timeline(const struct gl_analysis *an, struct gl_buf *b)
{
	struct gl_tl_row *rows = NULL;
	int n = 0, agents = 0;

	gl_buf_printf(b, "\n## Timeline\n\n");
	if (gl_timeline_rows(an->sc, &rows, &n) != 0) {
		gl_buf_printf(b, "The timeline could not be built (out of memory).\n");
		return;
	}
	gl_buf_printf(b, "| scenario time | real time | event |\n|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		char t[64], rt[64];
		int64_t real = gl_timeline_real_ns(rows[i].t_ns, an->run.time_scale);
		int64_t unit = real >= 3600000000000LL ? 1000000000LL : 1000000LL;
		gl_format_duration(rows[i].t_ns, t, sizeof(t));
		/* real time to the millisecond (to the second past an hour), as
		 * report.html gives it */
		gl_format_duration((real + unit / 2) / unit * unit, rt, sizeof(rt));
		gl_buf_printf(b, "| %s | %s | ", t, rt);
		gl_md_text(b, rows[i].text);
		gl_buf_printf(b, " |\n");
		agents += rows[i].kind == GL_TLR_AGENTS;
	}
	free(rows);
	gl_buf_printf(b,
		      "\nAs the scenario planned it, at time scale %g; a spike that repeats shows its first %d "
		      "times, then one row for the rest. What each fault did is under Faults.\n",
		      an->run.time_scale, GL_TL_SPIKES_SHOWN);
	if (agents) {
		gl_buf_printf(b, "\n| agents of | agent | host | launch command |\n|---|---|---|---|\n");
		gl_agents_each_command(an->sc, GL_AGENTS_SHOWN, md_agent, b);
		gl_buf_printf(b,
			      "\nEach agent is launched by its own command, before the clock starts, as this gauntlet "
			      "launches them.\n");
	}
}

/* The title, the verdict line and the run's table */
static void md_head(const struct gl_analysis *an, struct gl_buf *b, int failed)
{
	char wall[40], d[64];

	gl_format_wall(an->run.started_wall_ns, wall, sizeof(wall));
	gl_buf_printf(b, "# gauntlet report: ");
	gl_md_text(b, an->run.name);
	gl_buf_printf(b, "\n\n");
	gl_buf_printf(b, "**Verdict: %s**",
		      an->verdict == GL_VERDICT_PASS      ? "PASS"
		      : an->verdict == GL_VERDICT_ABORTED ? "ABORTED"
							  : "FAIL");
	gl_buf_printf(b,
		      " (%d of %d targets failed or missing; %d fault(s) left injected; %d incident(s), %d counted "
		      "against a limit of %d; run ",
		      failed, an->n_targets, an->faults_left_injected, an->incidents_total, an->incidents_gated,
		      an->incidents_limit);
	gl_md_text(b, an->run.state);
	gl_buf_printf(b, ")\n\n");
	if (an->n_outages)
		gl_buf_printf(b, "> **Controller outages:** %d, %.1f s down in all (see Controller outages).\n\n",
			      an->n_outages, an->outage_s);
	if (an->n_suspects)
		gl_buf_printf(b, "> **Suspects:** %d node(s) stand out from their peers%s (see Nodes).\n\n",
			      an->n_suspects, an->suspects_failed ? ", more than allowed" : "");
	if (an->edge_failed)
		gl_buf_printf(b,
			      "> **SLA edge:** %d of %d edge phase(s) found no edge: a failed gate (see SLA edge).\n\n",
			      an->edge_failed, an->edge_phases);
	gl_buf_printf(b, "| run | |\n|---|---|\n");
	gl_buf_printf(b, "| id | ");
	gl_md_code(b, an->run.id);
	gl_buf_printf(b, " |\n| scenario | ");
	gl_md_text(b, an->run.name);
	gl_buf_printf(b, " (");
	gl_md_code(b, an->run.scenario_path);
	gl_buf_printf(b, ") |\n| scenario sha256 | ");
	gl_md_code(b, an->run.scenario_sha256);
	gl_buf_printf(b, " |\n");
	gl_buf_printf(b, "| started | %s |\n| measured | %.1f s in %d windows of %.3g s |\n", wall, an->duration_s,
		      an->n_windows, (double)an->run.window_ns / 1e9);
	gl_format_duration(an->run.duration_ns, d, sizeof(d));
	gl_buf_printf(b,
		      "| planned | %s at time scale %g |\n| resumes | %d (controller down %.1f s) |\n"
		      "| gauntlet | ",
		      d, an->run.time_scale, an->run.resumes, an->outage_s);
	gl_md_text(b, an->run.version);
	gl_buf_printf(b, " (");
	gl_md_text(b, an->run.git_rev);
	gl_buf_printf(b, ") |\n\n");
	if (an->generator_saturated) {
		char note[512];
		gl_buf_printf(b, "> **Warning:** %s.\n\n", gl_report_saturation_note(an, note, sizeof(note)));
	}
}

static void md_targets(const struct gl_analysis *an, struct gl_buf *b)
{
	gl_buf_printf(b, "## Targets\n\n| result | scope | metric | target | measured | windows | note "
			 "|\n|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < an->n_targets; i++) {
		const struct gl_target_result *t = &an->targets[i];
		char m[160], th[64] = "missing";
		fmt_num(m, sizeof(m), t->has, t->measured);
		if (t->spec->drift)
			gl_report_drift_cells(t, th, sizeof(th), m, sizeof(m));
		else if (!t->spec->missing)
			snprintf(th, sizeof(th), "%s %g", gl_cmp_str(t->spec->expr.op), t->spec->expr.threshold);
		gl_buf_printf(b, "| %s | %s | ",
			      t->spec->missing ? "MISSING"
			      : t->pass        ? "pass"
					       : "FAIL",
			      gl_scope_name(t->spec->scope));
		gl_md_code(b, t->spec->metric);
		gl_buf_printf(b, " | %s | %s | %d | ", th, m, t->windows_judged);
		gl_md_text(b, t->note);
		gl_buf_printf(b, " |\n");
	}
}

static void md_fault_row(const struct gl_analysis *an, struct gl_buf *b, const struct gl_fault_result *f)
{
	char ia[64] = "-", ra[64] = "-", rc[64], rs[64], held[384] = "-", dmn[200];
	/* to the millisecond: finer is noise at any time scale */
	if (f->row.injected_scn_ns >= 0)
		gl_format_duration((f->row.injected_scn_ns + 500000) / 1000000 * 1000000, ia, sizeof(ia));
	if (f->row.reverted_scn_ns >= 0)
		gl_format_duration((f->row.reverted_scn_ns + 500000) / 1000000 * 1000000, ra, sizeof(ra));
	fmt_num(rc, sizeof(rc), f->recovery_s >= 0, f->recovery_s);
	fmt_num(rs, sizeof(rs), f->restore_s >= 0, f->restore_s);
	if (f->held_s >= 0) {
		char hb[256];
		const char *hn = gl_report_held_note(an, f, hb, sizeof(hb));
		snprintf(held, sizeof(held), "%.3f (%.3f)%s%s", f->held_s, f->planned_held_s, hn[0] ? " " : "", hn);
	}
	gl_buf_printf(b, "| ");
	gl_md_text(b, f->row.id);
	gl_buf_printf(b, " | ");
	gl_md_text(b, f->row.kind);
	if (f->row.method[0]) {
		gl_buf_printf(b, "/");
		gl_md_text(b, f->row.method);
	}
	gl_buf_printf(b, " | ");
	gl_md_text(b, f->row.target);
	gl_buf_printf(b, " | ");
	gl_md_text(b, gl_fault_state_name(f->row.state));
	gl_buf_printf(b, " | %s | %s | %s | %s | %s | %s | ", ia, ra, held,
		      f->row.verified == 1   ? "yes"
		      : f->row.verified == 0 ? "NO"
					     : "n/a",
		      rc, rs);
	if (gl_scenario_runbook(an->sc, f->row.id))
		gl_md_text(b, gl_scenario_runbook(an->sc, f->row.id));
	else
		gl_buf_printf(b, "NONE");
	gl_buf_printf(b, " | ");
	gl_md_text(b, f->recovery_note);
	if (gl_report_sessions_note(f, dmn, sizeof(dmn))[0]) {
		gl_buf_printf(b, " ");
		gl_md_text(b, dmn);
	}
	if (gl_report_deadman_note(&f->row, dmn, sizeof(dmn))[0]) {
		gl_buf_printf(b, " ");
		gl_md_text(b, gl_report_deadman_note(&f->row, dmn, sizeof(dmn)));
	}
	if (f->row.error[0]) {
		gl_buf_printf(b, " ");
		gl_md_text(b, f->row.error);
	}
	gl_buf_printf(b, " |\n");
}

static void md_faults(const struct gl_analysis *an, struct gl_buf *b)
{
	if (!an->n_faults)
		return;
	gl_buf_printf(
		b,
		"\n## Faults\n\n| id | kind | target | state | injected at | reverted at | held s (planned) | verified "
		"| recovery_s | restore_s | runbook | note |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < an->n_faults; i++)
		md_fault_row(an, b, &an->faults[i]);
}

int gl_report_md(const struct gl_analysis *an, struct gl_buf *b)
{
	int failed = 0;

	for (int i = 0; i < an->n_targets; i++)
		failed += !an->targets[i].pass;
	md_head(an, b, failed);
	if (an->n_preflight) {
		gl_buf_printf(b, "## Preflight%s\n\n| result | subject | check | detail |\n|---|---|---|---|\n",
			      an->preflight_failed ? ": FAILED, nothing was started or injected" : "");
		for (int i = 0; i < an->n_preflight; i++)
			md_row(b, an->preflight[i].ok ? "ok" : "FAILED", an->preflight[i].subject,
			       an->preflight[i].check, an->preflight[i].detail, NULL);
		gl_buf_printf(b, "\n");
	}
	gl_report_gates_md(an, b);
	md_targets(an, b);
	gl_report_edge_md(an, b);
	md_faults(an, b);
	md_incidents(an, b);
	gl_report_nodes_md(an, b);
	md_outages(an, b);
	md_agents(an, b);
	{
		static const struct gl_summary_ops ops = { sum_section, sum_row };
		gl_report_summary(an, &ops, b);
	}
	md_phases(an, b);
	md_timeline(an, b);
	gl_buf_printf(b, "\nTimes in the tables are scenario time; durations measured on the system (recovery_s, "
			 "restore_s, measured) are real seconds. Definitions: docs/metrics.md.\n");
	return b->len >= b->max ? -GL_ELIMIT : 0;
}
