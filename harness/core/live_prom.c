/*
 * live_prom.c - the live view's scrape (live.h): the run, its faults, its
 * targets and incidents so far, every counter and figure, in the
 * Prometheus text format or OpenMetrics.
 */
#include "live_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
/* ---- the Prometheus text ------------------------------------------------- */

/* A label value, escaped per the text format (\\, \", \n). */
static void put_label(struct gl_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			gl_buf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			gl_buf_append(b, "\\n", 2);
		else
			gl_buf_append(b, s, 1);
	}
}

/* Prometheus writes numbers in Go's format; %.17g round-trips a double. */
static void put_num(struct gl_buf *b, double v)
{
	if (isnan(v))
		gl_buf_printf(b, "NaN\n");
	else if (isinf(v))
		gl_buf_printf(b, "%sInf\n", v > 0 ? "+" : "-");
	else
		gl_buf_printf(b, "%.17g\n", v);
}

/* A family's HELP and TYPE lines. name is the sample name; a counter's
 * ends in _total, which OpenMetrics leaves out of the family's name. */
static void put_head(struct gl_buf *b, int om, const char *name, const char *type, const char *help)
{
	size_t n = strlen(name);

	if (om && !strcmp(type, "counter") && n > 6 && !strcmp(name + n - 6, "_total"))
		n -= 6;
	gl_buf_printf(b, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name, help, (int)n, name, type);
}

/* A counter of the store as a Prometheus family, following the naming
 * conventions (docs/live.md lists what changed): "inference.errors.http_5xx"
 * -> "gauntlet_inference_errors_http_5xx_total"; a name that already ends
 * in _total is not given a second one ("inference.output_tokens_total" ->
 * "gauntlet_inference_output_tokens_total"); a per-window ".delta" of a
 * hardware counter is its run total ("dcgm.xid_errors.delta" ->
 * "gauntlet_dcgm_xid_errors_total"); microseconds are given in seconds, the
 * base unit ("training.productive_us" -> "gauntlet_training_productive_
 * seconds_total", *scale 1e-6). */
static void counter_family(const char *name, char *out, size_t n, double *scale)
{
	static const struct {
		const char *suffix, *repl;
		double scale;
	} ends[] = {
		{ "_total", "", 1 },
		{ "_delta", "", 1 },
		{ "_us", "_seconds", 1e-6 },
	};
	size_t k = 0, len;

	*scale = 1;
	k += (size_t)snprintf(out, n, "gauntlet_");
	for (const char *p = name; *p && k + 1 < n; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		out[k++] = c;
	}
	out[k] = '\0';
	len = k;
	for (size_t i = 0; i < GL_ARRAY_LEN(ends); i++) {
		size_t sl = strlen(ends[i].suffix);
		if (len > sl + 9 && !strcmp(out + len - sl, ends[i].suffix)) {
			len -= sl;
			len += (size_t)snprintf(out + len, n - len, "%s", ends[i].repl);
			*scale = ends[i].scale;
			break;
		}
	}
	snprintf(out + len, n - len, "_total");
}

struct counter_walk {
	struct gl_buf *b;
	int om;
};

/* Each counter's run total, as a Prometheus counter. */
static void put_counter(void *arg, const char *name, int64_t v)
{
	struct counter_walk *cw = arg;
	char fam[192], help[256];
	double scale;

	counter_family(name, fam, sizeof(fam), &scale);
	snprintf(help, sizeof(help), "Run total of the counter %s over the windows closed so far%s.", name,
		 scale != 1 ? " (in seconds)" : "");
	put_head(cw->b, cw->om, fam, "counter", help);
	if (scale != 1) {
		gl_buf_printf(cw->b, "%s ", fam);
		put_num(cw->b, (double)v * scale);
	} else {
		gl_buf_printf(cw->b, "%s %lld\n", fam, (long long)v);
	}
}

static const char *const hist_stats[] = { "p50", "p90", "p95", "p99", "p99.9", "min", "max", "mean", "count" };

/* gauntlet_metric{metric,stat,over}: every catalog figure over the run so
 * far and over the last window, named as in report.json. */
static void put_figures(struct gl_buf *b, const struct gl_agg *a, const char *over)
{
	size_t n;
	const struct gl_metric_def *cat = gl_catalog(&n);

	for (size_t i = 0; i < n; i++) {
		const struct gl_metric_def *d = &cat[i];
		int hist = d->kind == GL_MK_HIST;
		if (d->kind == GL_MK_RECOVERY)
			continue;
		for (size_t k = 0; k < (hist ? GL_ARRAY_LEN(hist_stats) : 1); k++) {
			char name[160];
			double v;
			if (hist)
				snprintf(name, sizeof(name), "%s.%s", d->name, hist_stats[k]);
			else
				snprintf(name, sizeof(name), "%s", d->name);
			if (gl_agg_eval(a, name, &v) != 0)
				continue;
			gl_buf_printf(b, "gauntlet_metric{metric=\"%s\",stat=\"%s\",over=\"%s\"} ", d->name,
				      hist ? hist_stats[k] : "value", over);
			put_num(b, v);
		}
	}
}

/* The planned end of fault id, in real seconds since the run started
 * (gauntlet_elapsed_seconds' clock), or -1 when the scenario has no such
 * fault. */
static double planned_end_s(const struct gl_live *l, const char *id)
{
	for (int i = 0; i < l->sc->n_faults; i++) {
		const struct gl_fault_spec *f = &l->sc->faults[i];
		if (!strcmp(f->id, id))
			return (double)gl_timeline_real_ns(f->at_ns + f->dur_ns, l->st.scale) / 1e9;
	}
	return -1;
}

/* The run: what, where it stands, its windows. */
static void render_run(const struct gl_live *l, struct gl_buf *b, int om, int failing)
{
	const char *phase = l->st.phase >= 0 && l->st.phase < l->sc->n_phases ? l->sc->phases[l->st.phase].name : "";

	put_head(b, om, "gauntlet_run_info", "gauge", "The run: id, scenario, state, verdict so far.");
	gl_buf_printf(b, "gauntlet_run_info{run_id=\"");
	put_label(b, l->run_id);
	gl_buf_printf(b, "\",scenario=\"");
	put_label(b, l->sc->name);
	gl_buf_printf(b, "\",state=\"%s\",verdict=\"%s\"} 1\n", l->state,
		      l->verdict[0] ? l->verdict
		      : failing     ? "failing"
				    : "passing");
	put_head(b, om, "gauntlet_elapsed_seconds", "gauge", "Real time since the run started.");
	gl_buf_printf(b, "gauntlet_elapsed_seconds %.3f\n", (double)l->st.elapsed_ns / 1e9);
	put_head(b, om, "gauntlet_duration_seconds", "gauge", "Real time the run is planned to take.");
	gl_buf_printf(b, "gauntlet_duration_seconds %.3f\n", (double)l->st.total_ns / 1e9);
	put_head(b, om, "gauntlet_phase_info", "gauge",
		 "The phase in force, and the scope its windows are judged in now (degraded while a fault is injected "
		 "and for its settle after its revert).");
	gl_buf_printf(b, "gauntlet_phase_info{phase=\"");
	put_label(b, phase);
	gl_buf_printf(b, "\",scope=\"%s\"} 1\n", gl_scope_name(gl_live_scope_now(l)));
	put_head(b, om, "gauntlet_windows_closed_total", "counter",
		 "Analysis windows closed (the figures below cover them).");
	gl_buf_printf(b, "gauntlet_windows_closed_total %lld\n", (long long)l->windows);
	put_head(b, om, "gauntlet_windows_judged_total", "counter",
		 "Windows closed, by the scope each was judged in (degraded: in a fault's degraded span).");
	for (int k = 0; k < 3; k++)
		gl_buf_printf(b, "gauntlet_windows_judged_total{scope=\"%s\"} %lld\n", gl_scope_name((enum gl_scope)k),
			      (long long)l->judged[k]);
	put_head(b, om, "gauntlet_last_window_index", "gauge", "Index of the last closed window (-1: none yet).");
	gl_buf_printf(b, "gauntlet_last_window_index %lld\n", (long long)l->last_idx);
	put_head(b, om, "gauntlet_window_seconds", "gauge", "Length of an analysis window, real time.");
	gl_buf_printf(b, "gauntlet_window_seconds %.3f\n", (double)l->sc->window_ns / 1e9);
	put_head(b, om, "gauntlet_last_window_close_timestamp_seconds", "gauge",
		 "Unix time the last window closed (before the first: when this endpoint started).");
	gl_buf_printf(b, "gauntlet_last_window_close_timestamp_seconds %.3f\n", l->last_close_unix);
}

/* The faults injected now, and when each is to be reverted. */
static void render_faults(const struct gl_live *l, struct gl_buf *b, int om)
{
	put_head(b, om, "gauntlet_active_faults", "gauge", "Faults injected now.");
	gl_buf_printf(b, "gauntlet_active_faults %d\n", l->st.n_active);
	put_head(b, om, "gauntlet_fault_active", "gauge", "Each fault injected now (1), by id.");
	if (l->st.n_active) {
		char ids[sizeof(l->active)], *save = NULL;
		snprintf(ids, sizeof(ids), "%s", l->active);
		for (char *id = strtok_r(ids, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
			gl_buf_printf(b, "gauntlet_fault_active{id=\"");
			put_label(b, id);
			gl_buf_printf(b, "\"} 1\n");
		}
	}
	put_head(b, om, "gauntlet_fault_planned_end_seconds", "gauge",
		 "When each fault injected now is planned to be reverted, in real seconds since the run started "
		 "(the clock of gauntlet_elapsed_seconds).");
	if (l->st.n_active) {
		char ids[sizeof(l->active)], *save = NULL;
		snprintf(ids, sizeof(ids), "%s", l->active);
		for (char *id = strtok_r(ids, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
			double end = planned_end_s(l, id);
			if (end < 0)
				continue;
			gl_buf_printf(b, "gauntlet_fault_planned_end_seconds{id=\"");
			put_label(b, id);
			gl_buf_printf(b, "\"} %.3f\n", end);
		}
	}
}

/* The targets and the incidents so far. */
static void render_judgement(const struct gl_live *l, struct gl_buf *b, int om, int failing, int no_data)
{
	put_head(b, om, "gauntlet_targets_failing", "gauge",
		 "Targets failing so far (steady, degraded, missing thresholds).");
	gl_buf_printf(b, "gauntlet_targets_failing %d\n", failing);
	put_head(b, om, "gauntlet_targets_no_data", "gauge", "Steady or degraded targets with no window judged yet.");
	gl_buf_printf(b, "gauntlet_targets_no_data %d\n", no_data);
	put_head(b, om, "gauntlet_incidents_total", "counter",
		 "Incidents so far by kind: degradations no fault explains (counted live; the report is the judge).");
	for (int k = 0; k < gl_incident_kinds(); k++)
		gl_buf_printf(b, "gauntlet_incidents_total{kind=\"%s\"} %lld\n", gl_incident_kind_name(k),
			      (long long)l->incidents[k]);
	put_head(b, om, "gauntlet_target", "gauge",
		 "Each target so far: 1 failing, 0 passing (no sample: no data yet).");
	for (int i = 0; i < l->sc->n_targets; i++) {
		const struct gl_target_spec *t = &l->sc->targets[i];
		double v = 0;
		int s = 1;
		if (!t->missing) {
			int k;
			for (k = 0; k < l->n_tg && l->tg[k].t != t; k++)
				;
			if (k == l->n_tg || (s = gl_live_target_state(l, &l->tg[k], &v)) < 0)
				continue;
		}
		gl_buf_printf(b, "gauntlet_target{metric=\"");
		put_label(b, t->metric);
		gl_buf_printf(b, "\",scope=\"%s\",op=\"", gl_scope_name(t->scope));
		put_label(b, gl_cmp_str(t->expr.op));
		gl_buf_printf(b, "\",threshold=\"%g\"} %d\n", t->expr.threshold, s);
	}
}

/* One node's labels: {workload,kind,name,host,figure} */
static void node_labels(struct gl_buf *b, const struct live_node *x)
{
	gl_buf_printf(b, "{workload=\"");
	put_label(b, x->workload);
	gl_buf_printf(b, "\",kind=\"%s\",name=\"", x->kind);
	put_label(b, x->name);
	gl_buf_printf(b, "\",host=\"");
	put_label(b, x->host);
	gl_buf_printf(b, "\",figure=\"");
	put_label(b, x->figure);
	gl_buf_printf(b, "\"} ");
}

void gl_live_render_nodes(const struct gl_live *l, struct gl_buf *b, int om)
{
	put_head(b, om, "gauntlet_node_mean", "gauge",
		 "A node's figure in the last closed window (docs/nodes.md): its mean over the window.");
	for (int i = 0; i < l->n_shown; i++) {
		gl_buf_printf(b, "gauntlet_node_mean");
		node_labels(b, &l->nodes_shown[i]);
		put_num(b, l->nodes_shown[i].mean);
	}
	put_head(b, om, "gauntlet_node_samples", "gauge",
		 "The samples behind a node's figure in the last closed window.");
	for (int i = 0; i < l->n_shown; i++) {
		gl_buf_printf(b, "gauntlet_node_samples");
		node_labels(b, &l->nodes_shown[i]);
		gl_buf_printf(b, "%lld\n", (long long)l->nodes_shown[i].n);
	}
	put_head(b, om, "gauntlet_node_z", "gauge",
		 "A node's figure against its peers' in the last closed window (robust z; 4 and above stands out).");
	for (int i = 0; i < l->n_shown; i++) {
		if (isnan(l->nodes_shown[i].z))
			continue;
		gl_buf_printf(b, "gauntlet_node_z");
		node_labels(b, &l->nodes_shown[i]);
		put_num(b, l->nodes_shown[i].z);
	}
	put_head(b, om, "gauntlet_node_series_dropped_total", "counter",
		 "Per-node rows left out of the node series, past the cap of a window's rows.");
	gl_buf_printf(b, "gauntlet_node_series_dropped_total %lld\n", (long long)l->nodes_dropped);
}

/* The endpoint's own health and the webhooks'. */
static void render_endpoint(const struct gl_live *l, struct gl_buf *b, int om)
{
	put_head(b, om, "gauntlet_scrapes_total", "counter", "Scrapes of this endpoint.");
	gl_buf_printf(b, "gauntlet_scrapes_total %lld\n", (long long)l->scrapes);
	put_head(b, om, "gauntlet_endpoint_dropped_total", "counter",
		 "Connections to this endpoint closed unanswered: past their deadline, or a bad request.");
	gl_buf_printf(b,
		      "gauntlet_endpoint_dropped_total{reason=\"deadline\"} %lld\n"
		      "gauntlet_endpoint_dropped_total{reason=\"bad_request\"} %lld\n",
		      (long long)l->conn_deadline_drops, (long long)l->conn_bad);
	put_head(b, om, "gauntlet_endpoint_accept_errors_total", "counter", "Failed accepts on this endpoint.");
	gl_buf_printf(b, "gauntlet_endpoint_accept_errors_total %lld\n", (long long)l->accept_errors);
	put_head(b, om, "gauntlet_notify_sent_total", "counter", "Webhook messages delivered (the scenario's notify).");
	gl_buf_printf(b, "gauntlet_notify_sent_total %lld\n", (long long)l->notify[0]);
	put_head(b, om, "gauntlet_notify_failed_total", "counter", "Webhook messages given up after their tries.");
	gl_buf_printf(b, "gauntlet_notify_failed_total %lld\n", (long long)l->notify[1]);
	put_head(b, om, "gauntlet_notify_dropped_total", "counter",
		 "Webhook messages dropped unsent (queue full, or the end-of-run deadline).");
	gl_buf_printf(b, "gauntlet_notify_dropped_total %lld\n", (long long)l->notify[2]);
}

/* The whole scrape, in the Prometheus text format (om 0) or OpenMetrics
 * 1.0.0 (om 1): the same families and samples, counters' families named
 * without _total in OpenMetrics, and its closing # EOF. Every family has
 * HELP and TYPE (tests/scripts/test_promtool.sh runs promtool on it). */
int gl_live_render(struct gl_live *l, struct gl_buf *b, int om)
{
	int no_data, failing = gl_live_failing(l, &no_data, NULL);

	render_run(l, b, om, failing);
	render_faults(l, b, om);
	render_judgement(l, b, om, failing, no_data);
	put_head(b, om, "gauntlet_agents_planned", "gauge", "Load agents the run's workloads are to have connected.");
	if (l->st.agents_planned > 0)
		gl_buf_printf(b, "gauntlet_agents_planned %d\n", l->st.agents_planned);
	put_head(b, om, "gauntlet_agents_connected", "gauge", "Load agents connected now.");
	if (l->st.agents_planned > 0)
		gl_buf_printf(b, "gauntlet_agents_connected %d\n", l->st.agents_connected);
	{
		struct counter_walk cw = { b, om };
		gl_agg_each_counter(l->run, "", put_counter, &cw);
	}
	put_head(b, om, "gauntlet_metric", "gauge",
		 "Figures as report.json names them, over the run so far or the last closed window.");
	put_figures(b, l->run, "run");
	if (l->last)
		put_figures(b, l->last, "window");
	gl_live_render_nodes(l, b, om);
	render_endpoint(l, b, om);
	if (om)
		gl_buf_printf(b, "# EOF\n");
	return b->len < b->max ? 0 : -GL_ELIMIT;
}
