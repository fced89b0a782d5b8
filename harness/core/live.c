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
#include "live_int.h"

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
enum gl_scope gl_live_scope_now(const struct gl_live *l)
{
	enum gl_scope s = window_scope(l, l->st.phase, l->st.elapsed_ns, l->st.elapsed_ns + 1, NULL);
	return l->st.n_active > 0 ? GL_SCOPE_DEGRADED : s;
}

/* 1 failing, 0 passing, -1 no data yet in its scope. */
int gl_live_target_state(const struct gl_live *l, const struct live_target *x, double *v)
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
		int s = gl_live_target_state(l, &l->tg[i], &v);
		if (s < 0)
			(*no_data)++;
		else
			n += s;
	}
	return n;
}

/* The kinds a steady window shows that missed a steady target of their
 * workload (plugin.h: steady_targets), as bits 1 << kind. */
static unsigned targets_missed(const struct gl_live *l, const struct gl_agg *w)
{
	unsigned bits = 0;

	for (int k = 0; k < gl_incident_restore(); k++) {
		const struct gl_incident_kind *x = gl_incident_kind(k);
		if (!x->rule->steady_targets)
			continue;
		for (int i = 0; i < l->sc->n_targets; i++) {
			const struct gl_target_spec *t = &l->sc->targets[i];
			double v;
			if (!gl_incident_steady_target(t, x->wl->name))
				continue;
			if (gl_agg_eval(w, t->metric, &v) != 0 || !gl_cmp_eval(t->expr.op, v, t->expr.threshold)) {
				bits |= 1u << k;
				break;
			}
		}
	}
	return bits;
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
				l->incidents[gl_incident_restore()]++;
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
				l->incidents[gl_incident_restore()]++;
			f->decided = 1;
		}
	}
}

static void count_incidents(struct gl_live *l, const struct gl_agg *w, enum gl_scope s, int explained)
{
	unsigned bits = 0;

	if (!explained) {
		bits = gl_incident_bits(w);
		if (s == GL_SCOPE_STEADY)
			bits |= targets_missed(l, w);
	}
	for (int k = 0; k < gl_incident_restore(); k++)
		if ((bits >> k) & 1u && !((l->inc_prev >> k) & 1u))
			l->incidents[k]++;
	l->inc_prev = bits;
}

static void take_window(struct gl_live *l, int64_t idx, int64_t start, int64_t end, const struct gl_agg *w, int phase)
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
		bufferevent_free(k->bev); /* closes the socket */
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
	conn_free(arg); /* the whole reply is out: close (Connection: close) */
}

static void on_conn_event(struct bufferevent *bev, short what, void *arg)
{
	struct live_conn *k = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		conn_free(k);
}

static void reply(struct live_conn *k, int code, const char *reason, const char *ctype, const char *body, size_t len,
		  int head_only)
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
	if (gl_live_render(l, &b, om) != 0)
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
		evconnlistener_disable(lis); /* full: the rest wait in the backlog */
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
		l->lis = l->resume_ev ? evconnlistener_new(base, on_accept, l,
							   LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd)
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
		fputs("\n", stderr); /* leave the last progress line in place */
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
	free(l->nodes_shown);
	free(l->nodes_next);
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

/* The last window's headline figures, each workload's (plugin.h:
 * live_figures) in the registry's order. */
static void fmt_figures(const struct gl_live *l, char *buf, size_t n)
{
	const struct gl_workload_ops *o;
	size_t k = 0;
	double v;

	buf[0] = '\0';
	for (size_t j = 0; l->last && (o = gl_workload_at(j)); j++)
		for (const struct gl_live_figure *f = o->live_figures; f && f->metric && k < n; f++)
			if (gl_agg_eval(l->last, f->metric, &v) == 0) {
				int w = snprintf(buf + k, n - k, "  %s%.4g%s", f->pre, v, f->post);
				if (w < 0)
					return;
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

int gl_live_replay(struct gl_live *l, struct gl_store *st, int64_t upto, const int64_t *inj, const int64_t *rev,
		   int n_faults, struct gl_err *err)
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
		int s = gl_live_target_state(l, &l->tg[i], &v);
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
