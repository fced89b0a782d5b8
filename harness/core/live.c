/*
 * live.c - the live view of a run (live.h): a Prometheus text endpoint on
 * the controller's own libevent loop, a progress line on a terminal, one
 * log line per window otherwise.
 *
 * Nothing here is measured twice: the controller hands over each closed
 * window's aggregate (the histograms and counters it has just written to
 * the store), and the endpoint renders merges of those. That is what makes
 * a scrape agree with `gauntlet report` over the same windows.
 */
#include "live.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "analysis.h"
#include "catalog.h"
#include "netaddr.h"
#include "store.h"
#include "timeline.h"
#include "units.h"

#define LIVE_BODY_MAX (4u << 20)
/* The endpoint shares the controller's process: its descriptors, its
 * loop. It holds at most LIVE_CONN_MAX connections (fewer under a low
 * RLIMIT_NOFILE: an eighth of it, so fault steps, workloads and the store
 * keep the rest), stops accepting while full (more clients wait in the
 * kernel's backlog, costing us nothing), gives each connection an
 * absolute deadline that no dribbled byte extends, and backs off when
 * accept itself fails, logging each kind of failure once. */
#define LIVE_CONN_MAX 32
#define LIVE_DEADLINE_S 5
#define LIVE_HEAD_MAX (16u * 1024)

struct live_fault {
	int64_t inj, rev;
	int run, decided;             /* steady-healthy windows in a row; restore judged */
	int64_t run_start;            /* the first of them */
};

/* A steady or degraded target, judged over its scope's windows so far. */
struct live_target {
	const struct gl_target_spec *t;
	struct gl_target_name tn;
	int parsed;
	int missed;                   /* named failing by gl_live_missed, not passing since */
};

struct live_conn;

struct gl_live {
	struct event_base *base;
	struct evconnlistener *lis;
	struct event *resume_ev;       /* re-enables accepts after a backoff */
	struct live_conn *conns;       /* open connections, freed with the view */
	int n_conn, conn_max, paused, backoff_s;
	int64_t conn_deadline_drops, conn_bad, accept_errors;
	unsigned logged;               /* kinds already logged (LOGGED_*) */
	const struct gl_scenario *sc;
	char run_id[64], bound[96];
	struct gl_agg *run;            /* every window closed so far */
	struct gl_agg *scope[3];       /* by the scope each window was judged in */
	struct gl_agg *last;           /* the last closed window */
	int64_t last_idx, windows;
	int64_t judged[3];             /* windows closed, by the scope judged in */
	int last_phase;
	/* incidents so far, per kind (analysis.h), counted as windows close:
	 * what a fault explains and its restore judged as the analysis does
	 * (gl_fault_explains, follow_restores); a run of windows showing one
	 * kind is one incident */
	int64_t incidents[GL_INC_N];
	unsigned inc_prev;
	/* the faults, in the scenario's order: their journal times (elapsed
	 * ns, -1 not yet) and their restore as followed so far */
	struct live_fault *lf;
	struct live_target *tg;
	int n_tg;
	struct gl_live_status st;
	char active[512];
	char state[16], verdict[16];
	int tty;
	int64_t last_draw_ns, scrapes;
	double last_close_unix;        /* Unix time the last window closed, or the start */
	int64_t notify[3];             /* webhook messages sent, failed, dropped (notify.h) */
};

/* Wall-clock time now, in seconds since the epoch. */
static double unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- judging ------------------------------------------------------------- */

/* A fault's revert time for its span: an instantaneous fault not yet
 * journaled reverted counts from its inject, as in the analysis. */
static int64_t fault_tr(const struct gl_live *l, int i)
{
	const struct live_fault *f = &l->lf[i];
	return f->rev < 0 && f->inj >= 0 && l->sc->faults[i].dur_ns == 0 ? f->inj : f->rev;
}

/* The scope a window [start, end) is judged in: its phase's, and degraded
 * in a fault's degraded span (gl_fault_degrades, as in the analysis).
 * *explained: a fault explains what it shows (incidents). */
static enum gl_scope window_scope(const struct gl_live *l, int phase, int64_t start, int64_t end, int *explained)
{
	enum gl_scope s = phase >= 0 && phase < l->sc->n_phases ? l->sc->phases[phase].scope : GL_SCOPE_NONE;
	int deg = 0, ex = 0;

	for (int i = 0; i < l->sc->n_faults && !(deg && ex); i++) {
		int64_t ti = l->lf[i].inj, tr = fault_tr(l, i), st = l->sc->faults[i].settle_ns;
		deg = deg || gl_fault_degrades(ti, tr, st, start, end);
		ex = ex || gl_fault_explains(ti, tr, st, start, end);
	}
	if (explained)
		*explained = ex;
	return deg ? GL_SCOPE_DEGRADED : s;
}

/* The scope windows are judged in now (gauntlet_phase_info): degraded
 * while a fault is in, or within its settle after its revert. */
static enum gl_scope scope_now(const struct gl_live *l)
{
	enum gl_scope s = window_scope(l, l->st.phase, l->st.elapsed_ns, l->st.elapsed_ns + 1, NULL);
	return l->st.n_active > 0 ? GL_SCOPE_DEGRADED : s;
}

/* 1 failing, 0 passing, -1 no data yet in its scope. */
static int target_state(const struct gl_live *l, const struct live_target *x, double *v)
{
	const struct gl_agg *a = l->scope[x->t->scope];

	if (gl_agg_eval(a, x->t->metric, v) != 0)
		return -1;
	return !gl_cmp_eval(x->t->expr.op, *v, x->t->expr.threshold);
}

/* Targets failing so far: steady and degraded ones failing over their
 * windows, and every missing threshold (a failed gate from the start). */
static int failing_so_far(const struct gl_live *l, int *no_data)
{
	int n = 0;
	double v;

	*no_data = 0;
	for (int i = 0; i < l->sc->n_targets; i++)
		n += l->sc->targets[i].missing;
	for (int i = 0; i < l->n_tg; i++) {
		int s = target_state(l, &l->tg[i], &v);
		if (s < 0)
			(*no_data)++;
		else
			n += s;
	}
	return n;
}

/* A complete steady window missing a steady target of the inference
 * workload (the analysis's inference.targets incident). */
static int inference_missed(const struct gl_live *l, const struct gl_agg *w)
{
	for (int i = 0; i < l->sc->n_targets; i++) {
		const struct gl_target_spec *t = &l->sc->targets[i];
		double v;
		if (t->scope != GL_SCOPE_STEADY || t->missing || strncmp(t->metric, "inference.", 10))
			continue;
		if (gl_agg_eval(w, t->metric, &v) != 0 || !gl_cmp_eval(t->expr.op, v, t->expr.threshold))
			return 1;
	}
	return 0;
}

/* Does the window meet every steady target (the analysis's restore
 * health: every workload at once; a target without data is missed)? */
static int steady_healthy(const struct gl_live *l, const struct gl_agg *w)
{
	for (int i = 0; i < l->n_tg; i++) {
		const struct live_target *x = &l->tg[i];
		double v;
		if (x->t->scope != GL_SCOPE_STEADY)
			continue;
		if (gl_agg_eval(w, x->t->metric, &v) != 0 || !gl_cmp_eval(x->t->expr.op, v, x->t->expr.threshold))
			return 0;
	}
	return 1;
}

/* Each reverted fault's restore, followed window by window as the
 * analysis finds it: the first `hold` steady-healthy windows in a row from
 * the one holding the revert, all ending by the next fault's inject. A
 * fault whose run starts later than the revert plus its settle is a
 * fault.restore incident, counted once a window after the settle (and
 * before the next inject) has closed. */
static void follow_restores(struct gl_live *l, int64_t start, int64_t end, const struct gl_agg *w)
{
	int healthy = -1;

	for (int i = 0; i < l->sc->n_faults; i++) {
		struct live_fault *f = &l->lf[i];
		int64_t tr = fault_tr(l, i), settle = l->sc->faults[i].settle_ns, limit = INT64_MAX;
		int late;

		if (f->decided || f->inj < 0 || tr < 0 || end <= tr)
			continue;
		for (int j = 0; j < l->sc->n_faults; j++)
			if (j != i && l->lf[j].inj > f->inj && l->lf[j].inj < limit)
				limit = l->lf[j].inj;
		if (end > limit) {
			/* the search is over: unrestored when a window after the
			 * settle opened before the bound */
			if (start >= tr + settle && start < limit)
				l->incidents[GL_INC_RESTORE]++;
			f->decided = 1;
			continue;
		}
		if (healthy < 0)
			healthy = steady_healthy(l, w);
		if (healthy) {
			if (!f->run++)
				f->run_start = start;
		} else {
			f->run = 0;
		}
		late = (f->run ? f->run_start : end) > tr + settle;
		if (f->run >= l->sc->hold || (late && start >= tr + settle)) {
			if (late)
				l->incidents[GL_INC_RESTORE]++;
			f->decided = 1;
		}
	}
}

static void count_incidents(struct gl_live *l, const struct gl_agg *w, enum gl_scope s, int explained)
{
	unsigned bits = 0;

	if (!explained) {
		bits = gl_incident_bits(w);
		if (s == GL_SCOPE_STEADY && inference_missed(l, w))
			bits |= 1u << GL_INC_INFERENCE;
	}
	for (int k = 0; k < GL_INC_RESTORE; k++)
		if ((bits >> k) & 1u && !((l->inc_prev >> k) & 1u))
			l->incidents[k]++;
	l->inc_prev = bits;
}

static void take_window(struct gl_live *l, int64_t idx, int64_t start, int64_t end, const struct gl_agg *w,
			int phase)
{
	int explained;
	enum gl_scope s = window_scope(l, phase, start, end, &explained);

	count_incidents(l, w, s, explained);
	follow_restores(l, start, end, w);

	gl_agg_merge(l->run, w);
	if (s == GL_SCOPE_STEADY || s == GL_SCOPE_DEGRADED)
		gl_agg_merge(l->scope[s], w);
	if (s >= 0 && s < 3)
		l->judged[s]++;
	gl_agg_free(l->last);
	l->last = gl_agg_new();
	if (l->last)
		gl_agg_merge(l->last, w);
	l->last_idx = idx;
	l->last_phase = phase;
	l->windows++;
}

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
	static const struct { const char *suffix, *repl; double scale; } ends[] = {
		{ "_total", "", 1 }, { "_delta", "", 1 }, { "_us", "_seconds", 1e-6 },
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

/* The whole scrape, in the Prometheus text format (om 0) or OpenMetrics
 * 1.0.0 (om 1): the same families and samples, counters' families named
 * without _total in OpenMetrics, and its closing # EOF. Every family has
 * HELP and TYPE (tests/scripts/test_promtool.sh runs promtool on it). */
static int render(struct gl_live *l, struct gl_buf *b, int om)
{
	int no_data, failing = failing_so_far(l, &no_data);
	const char *phase = l->st.phase >= 0 && l->st.phase < l->sc->n_phases ? l->sc->phases[l->st.phase].name : "";

	put_head(b, om, "gauntlet_run_info", "gauge", "The run: id, scenario, state, verdict so far.");
	gl_buf_printf(b, "gauntlet_run_info{run_id=\"");
	put_label(b, l->run_id);
	gl_buf_printf(b, "\",scenario=\"");
	put_label(b, l->sc->name);
	gl_buf_printf(b, "\",state=\"%s\",verdict=\"%s\"} 1\n", l->state,
		      l->verdict[0] ? l->verdict : failing ? "failing" : "passing");
	put_head(b, om, "gauntlet_elapsed_seconds", "gauge", "Real time since the run started.");
	gl_buf_printf(b, "gauntlet_elapsed_seconds %.3f\n", (double)l->st.elapsed_ns / 1e9);
	put_head(b, om, "gauntlet_duration_seconds", "gauge", "Real time the run is planned to take.");
	gl_buf_printf(b, "gauntlet_duration_seconds %.3f\n", (double)l->st.total_ns / 1e9);
	put_head(b, om, "gauntlet_phase_info", "gauge",
		 "The phase in force, and the scope its windows are judged in now (degraded while a fault is injected "
		 "and for its settle after its revert).");
	gl_buf_printf(b, "gauntlet_phase_info{phase=\"");
	put_label(b, phase);
	gl_buf_printf(b, "\",scope=\"%s\"} 1\n", gl_scope_name(scope_now(l)));
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
	put_head(b, om, "gauntlet_targets_failing", "gauge",
		 "Targets failing so far (steady, degraded, missing thresholds).");
	gl_buf_printf(b, "gauntlet_targets_failing %d\n", failing);
	put_head(b, om, "gauntlet_targets_no_data", "gauge", "Steady or degraded targets with no window judged yet.");
	gl_buf_printf(b, "gauntlet_targets_no_data %d\n", no_data);
	put_head(b, om, "gauntlet_incidents_total", "counter",
		 "Incidents so far by kind: degradations no fault explains (counted live; the report is the judge).");
	for (int k = 0; k < GL_INC_N; k++)
		gl_buf_printf(b, "gauntlet_incidents_total{kind=\"%s\"} %lld\n", gl_incident_kind_name(k),
			      (long long)l->incidents[k]);
	put_head(b, om, "gauntlet_target", "gauge", "Each target so far: 1 failing, 0 passing (no sample: no data yet).");
	for (int i = 0; i < l->sc->n_targets; i++) {
		const struct gl_target_spec *t = &l->sc->targets[i];
		double v = 0;
		int s = 1;
		if (!t->missing) {
			int k;
			for (k = 0; k < l->n_tg && l->tg[k].t != t; k++)
				;
			if (k == l->n_tg || (s = target_state(l, &l->tg[k], &v)) < 0)
				continue;
		}
		gl_buf_printf(b, "gauntlet_target{metric=\"");
		put_label(b, t->metric);
		gl_buf_printf(b, "\",scope=\"%s\",op=\"", gl_scope_name(t->scope));
		put_label(b, gl_cmp_str(t->expr.op));
		gl_buf_printf(b, "\",threshold=\"%g\"} %d\n", t->expr.threshold, s);
	}
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
	if (om)
		gl_buf_printf(b, "# EOF\n");
	return b->len < b->max ? 0 : -GL_ELIMIT;
}

/* ---- the endpoint: one request per connection -------------------------- */

enum { LOGGED_ACCEPT_EMFILE = 1, LOGGED_ACCEPT_OTHER = 2, LOGGED_DEADLINE = 4, LOGGED_BAD = 8 };

struct live_conn {
	struct gl_live *l;
	struct live_conn *next, **pprev;
	struct bufferevent *bev;
	struct event *deadline;
	int replied;
};

static void log_once(struct gl_live *l, unsigned kind, const char *msg, const char *why)
{
	if (l->logged & kind)
		return;
	l->logged |= kind;
	gl_log(GL_LOG_WARN, "metrics endpoint: %s%s%s (logged once)", msg, why ? ": " : "", why ? why : "");
}

static void conn_free(struct live_conn *k)
{
	struct gl_live *l = k->l;

	if (k->deadline)
		event_free(k->deadline);
	if (k->bev)
		bufferevent_free(k->bev);   /* closes the socket */
	if ((*k->pprev = k->next))
		k->next->pprev = k->pprev;
	free(k);
	l->n_conn--;
	if (l->lis && !l->paused && l->n_conn < l->conn_max)
		evconnlistener_enable(l->lis);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct live_conn *k = arg;

	(void)fd;
	(void)what;
	k->l->conn_deadline_drops++;
	log_once(k->l, LOGGED_DEADLINE,
		 "a connection still open at its deadline was closed (counted in gauntlet_endpoint_dropped_total)",
		 NULL);
	conn_free(k);
}

static void on_written(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_free(arg);   /* the whole reply is out: close (Connection: close) */
}

static void on_conn_event(struct bufferevent *bev, short what, void *arg)
{
	struct live_conn *k = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		conn_free(k);
}

static void reply(struct live_conn *k, int code, const char *reason, const char *ctype, const char *body,
		  size_t len, int head_only)
{
	struct evbuffer *out = bufferevent_get_output(k->bev);

	k->replied = 1;
	bufferevent_disable(k->bev, EV_READ);
	evbuffer_add_printf(out,
			    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			    "Connection: close\r\nCache-Control: no-store\r\nVary: Accept\r\n\r\n",
			    code, reason, ctype, len);
	if (!head_only && len)
		evbuffer_add(out, body, len);
	bufferevent_setcb(k->bev, NULL, on_written, on_conn_event, k);
	bufferevent_enable(k->bev, EV_WRITE);
}

static void reply_text(struct live_conn *k, int code, const char *reason, const char *text, int head_only)
{
	reply(k, code, reason, "text/plain; charset=utf-8", text, strlen(text), head_only);
}

/* Whether an Accept header's value prefers OpenMetrics: a media range
 * application/openmetrics-text (version 1.0.0 or 0.0.1, or none) with a q
 * above 0 and no lower than any text/plain or wildcard range's. */
int gl_live_wants_openmetrics(const char *accept)
{
	double q_om = -1, q_text = -1;
	const char *p = accept;

	while (p && *p) {
		const char *end = strchr(p, ','), *semi;
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char r[256];
		double q = 1;
		int version_ok = 1;
		char *t, *save = NULL;

		snprintf(r, sizeof(r), "%.*s", (int)(n < sizeof(r) ? n : sizeof(r) - 1), p);
		p = end ? end + 1 : NULL;
		semi = strchr(r, ';');
		for (t = semi ? strtok_r((char *)semi + 1, ";", &save) : NULL; t; t = strtok_r(NULL, ";", &save)) {
			while (*t == ' ' || *t == '\t')
				t++;
			if (!strncasecmp(t, "q=", 2))
				q = strtod(t + 2, NULL);
			else if (!strncasecmp(t, "version=", 8))
				version_ok = !strncmp(t + 8, "1.0.0", 5) || !strncmp(t + 8, "0.0.1", 5);
		}
		if (semi)
			r[semi - r] = '\0';
		t = r;
		while (*t == ' ' || *t == '\t')
			t++;
		for (size_t e = strlen(t); e && (t[e - 1] == ' ' || t[e - 1] == '\t'); e--)
			t[e - 1] = '\0';
		if (!strcasecmp(t, "application/openmetrics-text")) {
			if (version_ok && q > q_om)
				q_om = q;
		} else if (!strcasecmp(t, "text/plain") || !strcasecmp(t, "text/*") || !strcmp(t, "*/*")) {
			if (q > q_text)
				q_text = q;
		}
	}
	return q_om > 0 && q_om >= q_text;
}

static void on_request(struct live_conn *k, char *line, int om)
{
	struct gl_live *l = k->l;
	char *method = line, *uri, *ver;
	int head;
	struct gl_buf b;

	uri = strchr(method, ' ');
	if (!uri)
		goto bad;
	*uri++ = '\0';
	ver = strchr(uri, ' ');
	if (!ver || strncmp(ver + 1, "HTTP/1.", 7) != 0)
		goto bad;
	*ver = '\0';
	head = !strcmp(method, "HEAD");
	if (!head && strcmp(method, "GET") != 0) {
		reply_text(k, 405, "Method Not Allowed", "gauntlet: only GET and HEAD\n", 0);
		return;
	}
	if (strcmp(uri, "/metrics") != 0 && strncmp(uri, "/metrics?", 9) != 0) {
		reply_text(k, 404, "Not Found", "gauntlet: the metrics are at /metrics\n", head);
		return;
	}
	l->scrapes++;
	gl_buf_init(&b, LIVE_BODY_MAX);
	if (render(l, &b, om) != 0)
		reply_text(k, 500, "Internal Server Error", "gauntlet: metrics too large\n", head);
	else
		reply(k, 200, "OK",
		      om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
			 : "text/plain; version=0.0.4; charset=utf-8",
		      b.data, b.len, head);
	gl_buf_free(&b);
	return;
bad:
	l->conn_bad++;
	log_once(l, LOGGED_BAD, "a request that is not HTTP/1.x was refused", NULL);
	reply_text(k, 400, "Bad Request", "gauntlet: bad request\n", 0);
}

static void on_readable(struct bufferevent *bev, void *arg)
{
	struct live_conn *k = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer_ptr end;
	size_t n;
	char *line;
	int om = 0;

	if (k->replied)
		return;
	/* the head must be whole within LIVE_HEAD_MAX bytes (and the deadline) */
	end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
	if (end.pos < 0)
		end = evbuffer_search(in, "\n\n", 2, NULL);
	if (end.pos < 0) {
		if (evbuffer_get_length(in) > LIVE_HEAD_MAX) {
			k->l->conn_bad++;
			reply_text(k, 431, "Request Header Fields Too Large", "gauntlet: request head too large\n", 0);
		}
		return;
	}
	line = evbuffer_readln(in, &n, EVBUFFER_EOL_CRLF);
	if (!line) {
		reply_text(k, 400, "Bad Request", "gauntlet: bad request\n", 0);
		return;
	}
	/* the header lines: only Accept matters (OpenMetrics or the text format) */
	{
		char *h;
		size_t hn;
		while ((h = evbuffer_readln(in, &hn, EVBUFFER_EOL_CRLF)) && hn > 0) {
			if (!strncasecmp(h, "accept:", 7))
				om = gl_live_wants_openmetrics(h + 7);
			free(h);
		}
		free(h);
	}
	on_request(k, line, om);
	free(line);
}

static void on_accept(struct evconnlistener *lis, evutil_socket_t fd, struct sockaddr *sa, int salen, void *arg)
{
	struct gl_live *l = arg;
	struct live_conn *k = calloc(1, sizeof(*k));
	struct timeval tv = { LIVE_DEADLINE_S, 0 };

	(void)sa;
	(void)salen;
	l->backoff_s = 0;
	if (!k) {
		evutil_closesocket(fd);
		return;
	}
	k->l = l;
	if ((k->next = l->conns))
		l->conns->pprev = &k->next;
	k->pprev = &l->conns;
	l->conns = k;
	l->n_conn++;
	if (l->n_conn >= l->conn_max)
		evconnlistener_disable(lis);   /* full: the rest wait in the backlog */
	k->bev = bufferevent_socket_new(l->base, fd, BEV_OPT_CLOSE_ON_FREE);
	k->deadline = evtimer_new(l->base, on_deadline, k);
	if (!k->bev || !k->deadline) {
		if (!k->bev)
			evutil_closesocket(fd);
		conn_free(k);
		return;
	}
	bufferevent_setwatermark(k->bev, EV_READ, 0, LIVE_HEAD_MAX + 1);
	bufferevent_setcb(k->bev, on_readable, NULL, on_conn_event, k);
	bufferevent_enable(k->bev, EV_READ);
	evtimer_add(k->deadline, &tv);
}

static void on_resume_accepts(evutil_socket_t fd, short what, void *arg)
{
	struct gl_live *l = arg;

	(void)fd;
	(void)what;
	l->paused = 0;
	if (l->n_conn < l->conn_max)
		evconnlistener_enable(l->lis);
}

static void on_accept_error(struct evconnlistener *lis, void *arg)
{
	struct gl_live *l = arg;
	int e = EVUTIL_SOCKET_ERROR();
	struct timeval tv;

	l->accept_errors++;
	/* out of descriptors or memory: stop accepting for a while rather
	 * than spin on the same error (1 s, doubling to 8 s) */
	l->backoff_s = l->backoff_s ? (l->backoff_s < 8 ? l->backoff_s * 2 : 8) : 1;
	tv.tv_sec = l->backoff_s;
	tv.tv_usec = 0;
	evconnlistener_disable(lis);
	l->paused = 1;
	evtimer_add(l->resume_ev, &tv);
	log_once(l, e == EMFILE || e == ENFILE ? LOGGED_ACCEPT_EMFILE : LOGGED_ACCEPT_OTHER,
		 "accept failed, accepts pause and back off", evutil_socket_error_to_string(e));
}

/* At most LIVE_CONN_MAX, and an eighth of the soft descriptor limit. */
static int conn_cap(void)
{
	struct rlimit rl;
	int cap = LIVE_CONN_MAX;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 8 < (rlim_t)cap)
		cap = (int)(rl.rlim_cur / 8);
	return cap < 1 ? 1 : cap;
}

/* ---- life cycle ---------------------------------------------------------- */

struct gl_live *gl_live_new(struct event_base *base, const struct gl_scenario *sc, const char *run_id,
			    const char *listen, struct gl_err *err)
{
	struct gl_live *l = calloc(1, sizeof(*l));
	char why[256];

	if (!l) {
		gl_errf(err, GL_ENOMEM, "live view: out of memory");
		return NULL;
	}
	l->base = base;
	l->sc = sc;
	l->last_idx = -1;
	l->st.phase = -1;
	snprintf(l->run_id, sizeof(l->run_id), "%s", run_id);
	snprintf(l->state, sizeof(l->state), "running");
	l->tty = isatty(STDERR_FILENO);
	l->last_close_unix = unix_now();
	l->run = gl_agg_new();
	for (int s = 0; s < 3; s++)
		l->scope[s] = gl_agg_new();
	l->tg = calloc((size_t)sc->n_targets + 1, sizeof(*l->tg));
	l->lf = calloc((size_t)sc->n_faults + 1, sizeof(*l->lf));
	for (int i = 0; l->lf && i < sc->n_faults; i++)
		l->lf[i].inj = l->lf[i].rev = -1;
	if (!l->run || !l->scope[0] || !l->scope[1] || !l->scope[2] || !l->tg || !l->lf) {
		gl_errf(err, GL_ENOMEM, "live view: out of memory");
		goto fail;
	}
	for (int i = 0; i < sc->n_targets; i++) {
		const struct gl_target_spec *t = &sc->targets[i];
		struct live_target *x = &l->tg[l->n_tg];
		if (t->missing || (t->scope != GL_SCOPE_STEADY && t->scope != GL_SCOPE_DEGRADED) ||
		    gl_catalog_parse_target(t->metric, &x->tn, why, sizeof(why)) != 0)
			continue;
		x->t = t;
		x->parsed = 1;
		l->n_tg++;
	}
	if (listen) {
		struct sockaddr_storage ss;
		socklen_t len;
		int fd;
		if (gl_listen_parse(listen, "127.0.0.1", &ss, &len, err) != 0)
			goto fail;
		fd = gl_listen_open(&ss, len, "--metrics-listen", l->bound, sizeof(l->bound), err);
		if (fd < 0)
			goto fail;
		l->conn_max = conn_cap();
		l->resume_ev = evtimer_new(base, on_resume_accepts, l);
		/* backlog 0: the socket already listens */
		l->lis = l->resume_ev ? evconnlistener_new(base, on_accept, l, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC,
							   0, fd)
				      : NULL;
		if (!l->lis) {
			close(fd);
			gl_errf(err, GL_EIO, "--metrics-listen %s: cannot accept on it", listen);
			goto fail;
		}
		evconnlistener_set_error_cb(l->lis, on_accept_error);
	}
	return l;
fail:
	gl_live_free(l);
	return NULL;
}

void gl_live_free(struct gl_live *l)
{
	if (!l)
		return;
	if (l->tty && l->last_draw_ns) {
		fputs("\n", stderr);   /* leave the last progress line in place */
		gl_log_progress_shown(0);
	}
	if (l->lis)
		evconnlistener_free(l->lis);
	l->lis = NULL;
	while (l->conns)
		conn_free(l->conns);
	if (l->resume_ev)
		event_free(l->resume_ev);
	gl_agg_free(l->run);
	for (int s = 0; s < 3; s++)
		gl_agg_free(l->scope[s]);
	gl_agg_free(l->last);
	free(l->tg);
	free(l->lf);
	free(l);
}

const char *gl_live_bound(const struct gl_live *l)
{
	return l && l->lis ? l->bound : "";
}

/* ---- what the controller tells ------------------------------------------- */

/* "0:01:23 / 0:05:00 (27%)" in scenario time. */
static void fmt_position(const struct gl_live *l, char *buf, size_t n)
{
	char e[48], t[48];
	double scale = l->st.scale > 0 ? l->st.scale : 1;
	int64_t pos = (int64_t)((double)l->st.elapsed_ns * scale), tot = (int64_t)((double)l->st.total_ns * scale);

	if (pos > tot)
		pos = tot;
	gl_format_duration(pos / 1000000000 * 1000000000, e, sizeof(e));
	gl_format_duration(tot, t, sizeof(t));
	snprintf(buf, n, "%s / %s (%.0f%%)", e, t, tot > 0 ? 100.0 * (double)pos / (double)tot : 0);
}

/* The last window's headline figures: rate, p99 TTFT, steps, GB/s. */
static void fmt_figures(const struct gl_live *l, char *buf, size_t n)
{
	static const struct { const char *metric, *pre, *post; } show[] = {
		{ "inference.throughput_rps", "", " req/s" },
		{ "inference.ttft_ms.p99", "p99 TTFT ", " ms" },
		{ "inference.error_rate", "errors ", "" },
		{ "training.step_time_s.p50", "step ", " s" },
		{ "storage.write_gbps", "write ", " GB/s" },
		{ "storage.read_gbps", "read ", " GB/s" },
	};
	size_t k = 0;
	double v;

	buf[0] = '\0';
	for (size_t i = 0; l->last && i < GL_ARRAY_LEN(show) && k < n; i++)
		if (gl_agg_eval(l->last, show[i].metric, &v) == 0) {
			int w = snprintf(buf + k, n - k, "  %s%.4g%s", show[i].pre, v, show[i].post);
			if (w < 0)
				break;
			k += (size_t)w;
		}
}

static void line(struct gl_live *l, char *buf, size_t n)
{
	char pos[128], fig[256];
	int no_data, failing = failing_so_far(l, &no_data);
	const char *phase = l->st.phase >= 0 && l->st.phase < l->sc->n_phases ? l->sc->phases[l->st.phase].name : "-";

	fmt_position(l, pos, sizeof(pos));
	fmt_figures(l, fig, sizeof(fig));
	snprintf(buf, n, "%s  %s%s  faults: %s  targets failing: %d", pos, phase, fig,
		 l->st.n_active ? l->active : "none", failing);
}

struct replay {
	struct gl_live *l;
	const struct gl_window_info *wins;
};

static int replay_one(int i, struct gl_agg *w, void *arg)
{
	const struct replay *r = arg;
	const struct gl_window_info *wi = &r->wins[i];

	take_window(r->l, wi->idx, wi->start_ns, wi->end_ns, w, wi->phase);
	return 0;
}

int gl_live_replay(struct gl_live *l, struct gl_store *st, int64_t upto, const int64_t *inj,
		   const int64_t *rev, int n_faults, struct gl_err *err)
{
	struct gl_window_info *wins = NULL;
	struct replay r = { l, NULL };
	int n = 0, m = 0, rc;

	for (int i = 0; i < n_faults && i < l->sc->n_faults; i++)
		gl_live_fault(l, i, inj[i], rev[i]);
	rc = gl_windows_load(st, &wins, &n, err);
	while (rc == 0 && m < n && wins[m].idx < upto)
		m++;
	r.wins = wins;
	if (rc == 0)
		rc = gl_windows_each(st, wins, m, replay_one, &r, err);
	free(wins);
	return rc;
}

void gl_live_fault(struct gl_live *l, int i, int64_t injected, int64_t reverted)
{
	if (!l || i < 0 || i >= l->sc->n_faults)
		return;
	if (l->lf[i].rev != reverted || l->lf[i].inj != injected) {
		/* a new revert (or a fault planned again): its restore is
		 * followed afresh */
		l->lf[i].run = l->lf[i].decided = 0;
	}
	l->lf[i].inj = injected;
	l->lf[i].rev = reverted;
}

void gl_live_window(struct gl_live *l, int64_t idx, int64_t start, int64_t end, const struct gl_agg *w, int phase)
{
	char buf[768];

	if (!l)
		return;
	take_window(l, idx, start, end, w, phase);
	l->last_close_unix = unix_now();
	if (!l->tty) {
		line(l, buf, sizeof(buf));
		gl_info("window %lld: %s", (long long)idx, buf);
	}
}

void gl_live_status(struct gl_live *l, const struct gl_live_status *s)
{
	int64_t now = gl_now_ns();
	char buf[768];

	if (!l)
		return;
	l->st = *s;
	snprintf(l->active, sizeof(l->active), "%s", s->active ? s->active : "");
	l->st.active = NULL;
	if (l->tty && now - l->last_draw_ns >= 1000000000LL) {
		line(l, buf, sizeof(buf));
		fprintf(stderr, "\r\033[K%s", buf);
		fflush(stderr);
		l->last_draw_ns = now;
		gl_log_progress_shown(1);
	}
}

int gl_live_failing(const struct gl_live *l, int *no_data, int64_t *windows)
{
	int nd = 0, n = l ? failing_so_far(l, &nd) : 0;

	if (no_data)
		*no_data = nd;
	if (windows)
		*windows = l ? l->windows : 0;
	return n;
}

void gl_live_missed(struct gl_live *l, void (*fn)(void *arg, const struct gl_target_spec *t, double v, int missed),
		    void *arg)
{
	double v;

	for (int i = 0; l && i < l->n_tg; i++) {
		int s = target_state(l, &l->tg[i], &v);
		if (s < 0 || s == l->tg[i].missed)
			continue;
		l->tg[i].missed = s;
		if (fn)
			fn(arg, l->tg[i].t, v, s);
	}
}

void gl_live_notify(struct gl_live *l, int64_t sent, int64_t failed, int64_t dropped)
{
	if (!l)
		return;
	l->notify[0] = sent;
	l->notify[1] = failed;
	l->notify[2] = dropped;
}

void gl_live_final(struct gl_live *l, const char *state, const char *verdict)
{
	if (!l)
		return;
	snprintf(l->state, sizeof(l->state), "%s", state);
	snprintf(l->verdict, sizeof(l->verdict), "%s", verdict ? verdict : "");
	if (l->tty && l->last_draw_ns) {
		fputs("\n", stderr);
		l->last_draw_ns = 0;
		gl_log_progress_shown(0);
	}
}
