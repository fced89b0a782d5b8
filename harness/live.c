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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

#include "analysis.h"
#include "catalog.h"
#include "netaddr.h"
#include "store.h"
#include "units.h"

#define LIVE_BODY_MAX (4u << 20)

/* A steady or degraded target, judged over its scope's windows so far. */
struct live_target {
	const struct gl_target_spec *t;
	struct gl_target_name tn;
	int parsed;
};

struct gl_live {
	struct event_base *base;
	struct evhttp *http;
	const struct gl_scenario *sc;
	char run_id[64], bound[96];
	struct gl_agg *run;            /* every window closed so far */
	struct gl_agg *scope[3];       /* by the scope each window was judged in */
	struct gl_agg *last;           /* the last closed window */
	int64_t last_idx, windows;
	int last_phase, last_under_fault;
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

static void take_window(struct gl_live *l, int64_t idx, const struct gl_agg *w, int phase, int under_fault)
{
	enum gl_scope s = window_scope(l, phase, under_fault);

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
	return b->len < b->max ? 0 : -GL_ELIMIT;
}

static void on_http(struct evhttp_request *req, void *arg)
{
	struct gl_live *l = arg;
	const char *uri = evhttp_request_get_uri(req);
	struct evbuffer *out = evbuffer_new();
	struct gl_buf b;

	if (!out) {
		evhttp_send_error(req, 500, NULL);
		return;
	}
	if (strcmp(uri, "/metrics") != 0 && strncmp(uri, "/metrics?", 9) != 0) {
		evbuffer_add_printf(out, "gauntlet: the metrics are at /metrics\n");
		evhttp_send_reply(req, 404, "Not Found", out);
		evbuffer_free(out);
		return;
	}
	l->scrapes++;
	gl_buf_init(&b, LIVE_BODY_MAX);
	if (render(l, &b) != 0) {
		evhttp_send_error(req, 500, "metrics too large");
	} else {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
				  "text/plain; version=0.0.4; charset=utf-8");
		evbuffer_add(out, b.data, b.len);
		evhttp_send_reply(req, 200, "OK", out);
	}
	gl_buf_free(&b);
	evbuffer_free(out);
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
		l->http = evhttp_new(base);
		if (!l->http) {
			gl_errf(err, GL_EIO, "--metrics-listen: cannot create the HTTP server");
			goto fail;
		}
		evhttp_set_allowed_methods(l->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD);
		evhttp_set_max_body_size(l->http, 4096);
		evhttp_set_max_headers_size(l->http, 16 * 1024);
		evhttp_set_timeout(l->http, 10);
		evhttp_set_gencb(l->http, on_http, l);
		fd = gl_listen_open(&ss, len, "--metrics-listen", l->bound, sizeof(l->bound), err);
		if (fd < 0)
			goto fail;
		if (!evhttp_accept_socket_with_handle(l->http, fd)) {
			close(fd);
			gl_errf(err, GL_EIO, "--metrics-listen %s: evhttp cannot accept on it", listen);
			goto fail;
		}
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
	if (l->http)
		evhttp_free(l->http);
	gl_agg_free(l->run);
	for (int s = 0; s < 3; s++)
		gl_agg_free(l->scope[s]);
	gl_agg_free(l->last);
	free(l->tg);
	free(l);
}

const char *gl_live_bound(const struct gl_live *l)
{
	return l && l->http ? l->bound : "";
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
