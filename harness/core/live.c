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
#include <sys/resource.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "analysis.h"
#include "catalog.h"
#include "netaddr.h"
#include "store.h"
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

/* A steady or degraded target, judged over its scope's windows so far. */
struct live_target {
	const struct gl_target_spec *t;
	struct gl_target_name tn;
	int parsed;
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
	int last_phase, last_under_fault;
	/* incidents so far, per kind (analysis.h), counted as windows close:
	 * a window under a fault explains what is seen up to hold windows and
	 * 5 s after it; a run of windows showing one kind is one incident */
	int64_t incidents[GL_INC_N];
	unsigned inc_prev;
	int64_t explained_until;   /* last window a fault explains */
	struct live_target *tg;
	int n_tg;
	struct gl_live_status st;
	char active[512];
	char state[16], verdict[16];
	int tty;
	int64_t last_draw_ns, scrapes;
};

/* ---- judging ------------------------------------------------------------- */

/* The scope a window is judged in, live: its phase's, and degraded while
 * a fault was injected (the final analysis also keeps the windows until
 * the restore run degraded: a live figure may differ there). */
static enum gl_scope window_scope(const struct gl_live *l, int phase, int under_fault)
{
	enum gl_scope s = phase >= 0 && phase < l->sc->n_phases ? l->sc->phases[phase].scope : GL_SCOPE_NONE;

	if (s == GL_SCOPE_STEADY && under_fault)
		s = GL_SCOPE_DEGRADED;
	return s;
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

static void count_incidents(struct gl_live *l, int64_t idx, const struct gl_agg *w, enum gl_scope s,
			    int under_fault)
{
	unsigned bits = 0;

	if (under_fault)
		l->explained_until = idx + l->sc->hold + (GL_FAULT_SETTLE_NS + l->sc->window_ns - 1) / l->sc->window_ns;
	if (idx > l->explained_until) {
		bits = gl_incident_bits(w);
		if (s == GL_SCOPE_STEADY && inference_missed(l, w))
			bits |= 1u << GL_INC_INFERENCE;
	}
	for (int k = 0; k < GL_INC_N; k++)
		if ((bits >> k) & 1u && !((l->inc_prev >> k) & 1u))
			l->incidents[k]++;
	l->inc_prev = bits;
}

static void take_window(struct gl_live *l, int64_t idx, const struct gl_agg *w, int phase, int under_fault)
{
	enum gl_scope s = window_scope(l, phase, under_fault);

	count_incidents(l, idx, w, s, under_fault);

	gl_agg_merge(l->run, w);
	if (s == GL_SCOPE_STEADY || s == GL_SCOPE_DEGRADED)
		gl_agg_merge(l->scope[s], w);
	gl_agg_free(l->last);
	l->last = gl_agg_new();
	if (l->last)
		gl_agg_merge(l->last, w);
	l->last_idx = idx;
	l->last_phase = phase;
	l->last_under_fault = under_fault;
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

/* "inference.errors.timeout_ttft" -> "gauntlet_inference_errors_timeout_ttft" */
static void put_family(struct gl_buf *b, const char *name)
{
	gl_buf_append(b, "gauntlet_", 9);
	for (const char *p = name; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		gl_buf_append(b, &c, 1);
	}
}

struct counter_walk {
	struct gl_buf *b;
};

/* Each counter's run total, as a Prometheus counter. */
static void put_counter(void *arg, const char *name, int64_t v)
{
	struct counter_walk *cw = arg;

	gl_buf_printf(cw->b, "# TYPE ");
	put_family(cw->b, name);
	gl_buf_printf(cw->b, "_total counter\n");
	put_family(cw->b, name);
	gl_buf_printf(cw->b, "_total %lld\n", (long long)v);
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

static int render(struct gl_live *l, struct gl_buf *b)
{
	int no_data, failing = failing_so_far(l, &no_data);
	const char *phase = l->st.phase >= 0 && l->st.phase < l->sc->n_phases ? l->sc->phases[l->st.phase].name : "";

	gl_buf_printf(b, "# HELP gauntlet_run_info The run: id, scenario, state, verdict so far.\n"
		      "# TYPE gauntlet_run_info gauge\ngauntlet_run_info{run_id=\"");
	put_label(b, l->run_id);
	gl_buf_printf(b, "\",scenario=\"");
	put_label(b, l->sc->name);
	gl_buf_printf(b, "\",state=\"%s\",verdict=\"%s\"} 1\n", l->state,
		      l->verdict[0] ? l->verdict : failing ? "failing" : "passing");
	gl_buf_printf(b, "# HELP gauntlet_elapsed_seconds Real time since the run started.\n"
		      "# TYPE gauntlet_elapsed_seconds gauge\ngauntlet_elapsed_seconds %.3f\n"
		      "# HELP gauntlet_duration_seconds Real time the run is planned to take.\n"
		      "# TYPE gauntlet_duration_seconds gauge\ngauntlet_duration_seconds %.3f\n",
		      (double)l->st.elapsed_ns / 1e9, (double)l->st.total_ns / 1e9);
	gl_buf_printf(b, "# HELP gauntlet_phase_info The phase in force.\n"
		      "# TYPE gauntlet_phase_info gauge\ngauntlet_phase_info{phase=\"");
	put_label(b, phase);
	gl_buf_printf(b, "\"} 1\n");
	gl_buf_printf(b, "# HELP gauntlet_windows_closed_total Analysis windows closed (the figures below cover them).\n"
		      "# TYPE gauntlet_windows_closed_total counter\ngauntlet_windows_closed_total %lld\n"
		      "# HELP gauntlet_last_window_index Index of the last closed window (-1: none yet).\n"
		      "# TYPE gauntlet_last_window_index gauge\ngauntlet_last_window_index %lld\n",
		      (long long)l->windows, (long long)l->last_idx);
	gl_buf_printf(b, "# HELP gauntlet_active_faults Faults injected now.\n"
		      "# TYPE gauntlet_active_faults gauge\ngauntlet_active_faults %d\n", l->st.n_active);
	if (l->st.n_active) {
		char ids[sizeof(l->active)], *save = NULL;
		snprintf(ids, sizeof(ids), "%s", l->active);
		gl_buf_printf(b, "# TYPE gauntlet_fault_active gauge\n");
		for (char *id = strtok_r(ids, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
			gl_buf_printf(b, "gauntlet_fault_active{id=\"");
			put_label(b, id);
			gl_buf_printf(b, "\"} 1\n");
		}
	}
	gl_buf_printf(b, "# HELP gauntlet_targets_failing Targets failing so far (steady, degraded, missing thresholds).\n"
		      "# TYPE gauntlet_targets_failing gauge\ngauntlet_targets_failing %d\n"
		      "# HELP gauntlet_targets_no_data Steady or degraded targets with no window judged yet.\n"
		      "# TYPE gauntlet_targets_no_data gauge\ngauntlet_targets_no_data %d\n", failing, no_data);
	{
		int64_t total = 0;
		gl_buf_printf(b, "# HELP gauntlet_incidents Incidents so far by kind: degradations no fault explains "
			      "(counted live; the report is the judge).\n# TYPE gauntlet_incidents gauge\n");
		for (int k = 0; k < GL_INC_N; k++) {
			gl_buf_printf(b, "gauntlet_incidents{kind=\"%s\"} %lld\n", gl_incident_kind_name(k),
				      (long long)l->incidents[k]);
			total += l->incidents[k];
		}
		gl_buf_printf(b, "# HELP gauntlet_incidents_total Incidents so far, every kind.\n"
			      "# TYPE gauntlet_incidents_total gauge\ngauntlet_incidents_total %lld\n", (long long)total);
	}
	gl_buf_printf(b, "# HELP gauntlet_target Each target so far: 1 failing, 0 passing (no sample: no data yet).\n"
		      "# TYPE gauntlet_target gauge\n");
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
		gl_buf_printf(b, "\",scope=\"%s\",op=\"%s\",threshold=\"%g\"} %d\n", gl_scope_name(t->scope),
			      gl_cmp_str(t->expr.op), t->expr.threshold, s);
	}
	{
		struct counter_walk cw = { b };
		gl_agg_each_counter(l->run, "", put_counter, &cw);
	}
	gl_buf_printf(b, "# HELP gauntlet_metric Figures as report.json names them, over the run so far "
		      "or the last closed window.\n# TYPE gauntlet_metric gauge\n");
	put_figures(b, l->run, "run");
	if (l->last)
		put_figures(b, l->last, "window");
	gl_buf_printf(b, "# HELP gauntlet_scrapes_total Scrapes of this endpoint.\n"
		      "# TYPE gauntlet_scrapes_total counter\ngauntlet_scrapes_total %lld\n",
		      (long long)l->scrapes);
	gl_buf_printf(b,
		      "# HELP gauntlet_endpoint_dropped_total Connections to this endpoint closed unanswered: "
		      "past their deadline, or a bad request.\n"
		      "# TYPE gauntlet_endpoint_dropped_total counter\n"
		      "gauntlet_endpoint_dropped_total{reason=\"deadline\"} %lld\n"
		      "gauntlet_endpoint_dropped_total{reason=\"bad_request\"} %lld\n"
		      "# HELP gauntlet_endpoint_accept_errors_total Failed accepts on this endpoint.\n"
		      "# TYPE gauntlet_endpoint_accept_errors_total counter\n"
		      "gauntlet_endpoint_accept_errors_total %lld\n",
		      (long long)l->conn_deadline_drops, (long long)l->conn_bad, (long long)l->accept_errors);
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
			    "Connection: close\r\nCache-Control: no-store\r\n\r\n",
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

static void on_request(struct live_conn *k, char *line)
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
	if (render(l, &b) != 0)
		reply_text(k, 500, "Internal Server Error", "gauntlet: metrics too large\n", head);
	else
		reply(k, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", b.data, b.len, head);
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
	on_request(k, line);
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
	l->explained_until = -1;
	l->st.phase = -1;
	snprintf(l->run_id, sizeof(l->run_id), "%s", run_id);
	snprintf(l->state, sizeof(l->state), "running");
	l->tty = isatty(STDERR_FILENO);
	l->run = gl_agg_new();
	for (int s = 0; s < 3; s++)
		l->scope[s] = gl_agg_new();
	l->tg = calloc((size_t)sc->n_targets + 1, sizeof(*l->tg));
	if (!l->run || !l->scope[0] || !l->scope[1] || !l->scope[2] || !l->tg) {
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
	const int64_t *inj, *rev;
	int n_faults;
};

static int replay_one(int i, struct gl_agg *w, void *arg)
{
	const struct replay *r = arg;
	const struct gl_window_info *wi = &r->wins[i];
	int under = 0;

	for (int f = 0; f < r->n_faults; f++)
		if (r->inj[f] >= 0 && r->inj[f] < wi->end_ns && (r->rev[f] < 0 || r->rev[f] > wi->start_ns))
			under = 1;
	take_window(r->l, wi->idx, w, wi->phase, under);
	return 0;
}

int gl_live_replay(struct gl_live *l, struct gl_store *st, int64_t upto, const int64_t *inj,
		   const int64_t *rev, int n_faults, struct gl_err *err)
{
	struct gl_window_info *wins = NULL;
	struct replay r = { l, NULL, inj, rev, n_faults };
	int n = 0, m = 0, rc;

	rc = gl_windows_load(st, &wins, &n, err);
	while (rc == 0 && m < n && wins[m].idx < upto)
		m++;
	r.wins = wins;
	if (rc == 0)
		rc = gl_windows_each(st, wins, m, replay_one, &r, err);
	free(wins);
	return rc;
}

void gl_live_window(struct gl_live *l, int64_t idx, const struct gl_agg *w, int phase, int under_fault)
{
	char buf[768];

	if (!l)
		return;
	take_window(l, idx, w, phase, under_fault);
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
