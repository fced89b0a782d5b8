/*
 * agents_frames.c - what a connected agent sends (figures, request rows,
 * events, bye), each frame checked before anything of it is kept; losing
 * an agent; the plan it is sent.
 */
#define _GNU_SOURCE
#include "agents_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "agent_wire.h"
#include "agents.h"
#include "cfg.h"
#include "figures.h"
#include "child.h"
#include "metrics.h"
#include "netaddr.h"
#include "secrets.h"

/* ---- losing an agent -------------------------------------------------------------------------- */

void ag_lose(struct slot *s, const char *why)
{
	struct gl_agents *a = s->a;
	int64_t delay = a->backoff_ns;
	int id;

	if (s->bev) {
		bufferevent_free(s->bev);
		s->bev = NULL;
	}
	ag_let_launcher_go(a, s);
	if (a->stopping || s->state == S_DONE) {
		s->state = S_DONE;
		return;
	}
	if (s->state == S_UP) {
		id = gl_metrics_counter(a->c->m, "agents.lost");
		gl_metrics_add(a->c->m, id, 1);
		s->fails_in_row = 0;
	} else {
		s->fails_in_row++;
	}
	for (int i = 1; i < s->fails_in_row && delay < 30000000000LL; i++)
		delay *= 2;
	if (delay > 30000000000LL)
		delay = 30000000000LL;
	s->state = S_DOWN;
	if (s->fails_in_row > a->max_restarts) {
		s->given_up = 1;
		gl_ctx_event(a->c, GL_LOG_ERROR, "agents",
			     "%s agent %d: %s; %d launches in a row never connected "
			     "(max_restarts %d): its share stays down for the rest of the run",
			     a->name, s->index, why, s->fails_in_row, a->max_restarts);
		return;
	}
	s->relaunch_ns = mono() + delay;
	gl_ctx_event(a->c, GL_LOG_WARN, "agents", "%s agent %d%s%s: %s; relaunching in %.1f s", a->name, s->index,
		     s->peer_host[0] ? " on " : "", s->peer_host, why, (double)delay / 1e9);
}

/* ---- frames from a connected agent ---------------------------------------------------------- */

/* A whole number from what an agent sent: def when absent, not a number or
 * out of [lo, hi] (a cast of NaN or of 1e300 would be undefined). */
int64_t ag_num(const cJSON *o, const char *k, int64_t lo, int64_t hi, int64_t def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= (double)lo) || !(v->valuedouble <= (double)hi))
		return def;
	return (int64_t)v->valuedouble;
}

/* What a DATA frame may hold, checked before anything is merged: the
 * workload's own series (agents.* and the rest are the controller's),
 * increases that are not negative and not absurd. */
struct check_arg {
	struct gl_agents *a;
	char why[160];
};

static int check_series(void *arg, const char *name, const struct gl_hist *h, int64_t counter)
{
	struct check_arg *ca = arg;
	size_t wl = strlen(ca->a->name);

	if (strncmp(name, ca->a->name, wl) != 0 || name[wl] != '.')
		snprintf(ca->why, sizeof(ca->why), "series %s is not one of the %s workload's", name, ca->a->name);
	else if (!h && (counter < 0 || counter > FIGURE_MAX))
		snprintf(ca->why, sizeof(ca->why), "counter %s: %" PRId64 " is out of 0..2^40", name, counter);
	else if (h && gl_hist_count(h) > (uint64_t)FIGURE_MAX)
		snprintf(ca->why, sizeof(ca->why), "histogram %s: more than 2^40 values", name);
	else
		return 0;
	return -1;
}

struct merge_arg {
	struct gl_metrics *m;
	int bad;
};

static int merge_series(void *arg, const char *name, const struct gl_hist *h, int64_t counter)
{
	struct merge_arg *ma = arg;
	if (gl_metrics_merge(ma->m, name, h, counter) != 0)
		ma->bad++;
	return 0;
}

/* Is win one an agent may send figures or rows for now? */
static int window_ok(struct gl_agents *a, int64_t win)
{
	return a->started && win >= a->c->win.idx - LATE_WINDOWS && win <= a->c->win.idx + 1;
}

/* The request rows of a ROWS frame, each checked before any is kept:
 * 0 with them stored, -1 with why (the agent's connection is closed). */
static int on_rows(struct slot *s, const unsigned char *p, size_t n, char *why, size_t wn)
{
	static const char *const classes[] = { "connect",
					       "tls",
					       "http_4xx",
					       "http_429",
					       "http_5xx",
					       "timeout_ttft",
					       "timeout_idle",
					       "timeout_total",
					       "stream_error",
					       "truncated",
					       "malformed",
					       "model_not_found",
					       NULL };
	const cJSON *eps = cJSON_GetObjectItemCaseSensitive(s->a->c->sc->workloads[s->a->wl].cfg, "endpoints");
	int n_ep = cJSON_IsArray(eps) && cJSON_GetArraySize(eps) > 0 ? cJSON_GetArraySize(eps) : 1, k = 0;
	cJSON *arr = cJSON_ParseWithLength((const char *)p, n), *r;
	struct gl_request_row *rows;

	if (!cJSON_IsArray(arr)) {
		cJSON_Delete(arr);
		snprintf(why, wn, "rows: not a JSON array");
		return -1;
	}
	rows = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*rows));
	if (!rows) {
		cJSON_Delete(arr);
		snprintf(why, wn, "rows: out of memory");
		return -1;
	}
	cJSON_ArrayForEach(r, arr)
	{
		struct gl_request_row *row = &rows[k];
		const char *ec = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "error_class"));
#define F(key) ag_num(r, key, -1, INT64_C(1) << 62, -2)
		row->window = F("window");
		row->endpoint = (int)ag_num(r, "endpoint", 0, n_ep - 1, -2);
		row->t_intended = F("t_intended");
		row->t_send = F("t_send");
		row->t_headers = F("t_headers");
		row->t_first_event = F("t_first_event");
		row->t_first_token = F("t_first_token");
		row->t_last_token = F("t_last_token");
		row->t_end = F("t_end");
		row->input_tokens = F("input_tokens");
		row->output_tokens = F("output_tokens");
		row->tokens_estimated = (int)ag_num(r, "tokens_estimated", 0, 1, -2);
		row->http_status = (int)ag_num(r, "http_status", -1, 599, -2);
		row->max_stall_ns = F("max_stall_ns");
#undef F
		/* only the classes the workload knows: the store keeps no
		 * string an agent made up */
		row->error_class = NULL;
		for (int i = 0; ec && classes[i]; i++)
			if (!strcmp(ec, classes[i]))
				row->error_class = classes[i];
		/* a row is for the window its request was sent in: any that
		 * has begun (a request may last longer than a window) */
		if (row->window < 0 || row->window > s->a->c->win.idx + 1 || row->endpoint < 0 ||
		    row->t_intended < -1 || row->t_send < -1 || row->t_headers < -1 || row->t_first_event < -1 ||
		    row->t_first_token < -1 || row->t_last_token < -1 || row->t_end < -1 || row->input_tokens < -1 ||
		    row->output_tokens < -1 || row->tokens_estimated < 0 || row->http_status < -1 ||
		    row->max_stall_ns < -1 || (ec && !row->error_class)) {
			const cJSON *ep = cJSON_GetObjectItemCaseSensitive(r, "endpoint");
			const cJSON *st = cJSON_GetObjectItemCaseSensitive(r, "http_status");
			snprintf(why, wn,
				 "rows: row %d has a field out of range (window %" PRId64 " while %" PRId64
				 " is open, endpoint %.0f of 0..%d, http_status %.0f, error_class %.32s)",
				 k, row->window, s->a->c->win.idx, cJSON_IsNumber(ep) ? ep->valuedouble : -1, n_ep - 1,
				 cJSON_IsNumber(st) ? st->valuedouble : -1, ec ? ec : "none");
			free(rows);
			cJSON_Delete(arr);
			return -1;
		}
		k++;
	}
	for (int i = 0; i < k; i++)
		gl_ctx_request_row(s->a->c, &rows[i]);
	free(rows);
	cJSON_Delete(arr);
	return 0;
}

/* The workload's node figure of that kind and name, or NULL. */
static const struct gl_node_figure_def *node_def(const struct gl_agents *a, const char *kind, const char *figure)
{
	const struct gl_workload_figures *fg = a->c->sc->workloads[a->wl].ops->figures;

	for (const struct gl_node_figure_def *d = fg ? fg->nodes : NULL; d && d->kind; d++)
		if (!strcmp(d->kind, kind) && !strcmp(d->figure, figure))
			return d;
	return NULL;
}

/* A NODES frame: every entry checked before any is kept (decoded, then
 * the workload's own node figures for a window it may send), then each
 * merged into the window it is for (a late one into the open window), and
 * the per_agent figures also under this agent, on the host it was launched
 * on (or the one it named in its hello). */
static int on_nodes(struct slot *s, const unsigned char *p, size_t n, char *why, size_t wn)
{
	struct gl_agents *a = s->a;
	const char *wl = a->c->sc->workloads[a->wl].name;
	struct gl_node_fig *v;
	char agent[16], host[GL_NODE_NAME_MAX];
	int k;

	if (gl_nodes_decode(p, n, &v, &k, why, wn) != 0)
		return -1;
	for (int i = 0; i < k; i++)
		if (!node_def(a, v[i].kind, v[i].figure) || !window_ok(a, v[i].idx)) {
			snprintf(why, wn,
				 "nodes: entry %d (%s %s, window %" PRId64 ") is not one of the %s workload's "
				 "node figures, or not for a window open now",
				 i, v[i].kind, v[i].figure, v[i].idx, wl);
			free(v);
			return -1;
		}
	snprintf(agent, sizeof(agent), "%d", s->index);
	snprintf(host, sizeof(host), "%s", s->host[0] ? s->host : s->peer_host);
	if (!gl_node_text_ok(host, sizeof(host)))
		snprintf(host, sizeof(host), "-");
	for (int i = 0; i < k; i++) {
		const struct gl_node_fig *f = &v[i];
		int64_t win = f->idx;
		int late = 0;
		ctl_window_metrics(a->c, win, &late);
		if (late)
			win = a->c->win.idx;
		gl_nodes_add(a->c->nodes, win, wl, f->kind, f->name, f->host, f->figure, f->n, f->sum, f->max);
		if (node_def(a, f->kind, f->figure)->per_agent)
			gl_nodes_add(a->c->nodes, win, wl, "agent", agent, host, f->figure, f->n, f->sum, f->max);
	}
	free(v);
	return 0;
}

/* A bad frame from a connected agent: named, counted
 * (agents.bad_frames), and the connection closed; nothing of it was
 * merged. */
static int bad_frame(struct slot *s, const char *why)
{
	gl_ctx_event(s->a->c, GL_LOG_ERROR, "agents", "%s agent %d: %s: connection closed", s->a->name, s->index, why);
	gl_metrics_add(s->a->c->m, gl_metrics_counter(s->a->c->m, "agents.bad_frames"), 1);
	return -1;
}

static int on_frame(struct slot *s, int type, const unsigned char *p, size_t n)
{
	struct gl_agents *a = s->a;
	struct gl_err err = { 0 };
	char why[256];

	s->last_frame_ns = mono();
	switch (type) {
	case GL_AW_DATA: {
		int64_t win = gl_aw_data_window(p, n);
		int final, late = 0;
		struct check_arg ca = { a, "" };
		struct merge_arg ma = { 0 };
		if (!window_ok(a, win)) {
			snprintf(why, sizeof(why), "figures for window %" PRId64 " while window %" PRId64 " is open",
				 win, a->c->win.idx);
			return bad_frame(s, why);
		}
		/* checked whole first: a frame is merged entirely or not at all */
		if (gl_aw_data_decode(p, n, &win, &final, check_series, &ca, &err) != 0)
			return bad_frame(s, ca.why[0] ? ca.why : err.msg);
		/* merged into the window it is for */
		ma.m = ctl_window_metrics(a->c, win, &late);
		if (gl_aw_data_decode(p, n, &win, &final, merge_series, &ma, &err) != 0)
			return bad_frame(s, err.msg);
		if (ma.bad)
			gl_ctx_event(a->c, GL_LOG_WARN, "agents",
				     "%s agent %d: %d series not merged (table full, name "
				     "of the other kind, or a sum past 2^63)",
				     a->name, s->index, ma.bad);
		if (late && !a->late_warned++)
			gl_ctx_event(a->c, GL_LOG_WARN, "agents",
				     "%s agent %d: figures for window %" PRId64 " came after "
				     "it was written: counted in the open window (agents.late_reports)",
				     a->name, s->index, win);
		if (late)
			gl_metrics_add(a->c->m, gl_metrics_counter(a->c->m, "agents.late_reports"), 1);
		if (final && win > s->delivered) {
			s->delivered = win;
			ctl_window_settle_check(a->c);
		}
		return 0;
	}
	case GL_AW_ROWS:
		if (on_rows(s, p, n, why, sizeof(why)) != 0)
			return bad_frame(s, why);
		return 0;
	case GL_AW_EVENT: {
		cJSON *j;
		const char *lvl, *msg;
		enum gl_log_level l;
		char src[64];
		/* EVENTS_PER_WINDOW a window; the rest counted and summed up */
		if (s->ev_window != a->c->win.idx) {
			s->ev_window = a->c->win.idx;
			s->ev_count = 0;
		}
		if (s->ev_count >= EVENTS_PER_WINDOW) {
			s->ev_dropped++;
			gl_metrics_add(a->c->m, gl_metrics_counter(a->c->m, "agents.events_dropped"), 1);
			return 0;
		}
		s->ev_count++;
		j = cJSON_ParseWithLength((const char *)p, n);
		lvl = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "level"));
		msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "msg"));
		l = lvl && !strcmp(lvl, "error")  ? GL_LOG_ERROR
		    : lvl && !strcmp(lvl, "warn") ? GL_LOG_WARN
						  : GL_LOG_INFO;
		snprintf(src, sizeof(src), "agent %s/%d", a->name, s->index);
		if (msg)
			gl_ctx_event(a->c, l, src, "%.900s", msg);
		cJSON_Delete(j);
		return 0;
	}
	case GL_AW_NODES:
		if (on_nodes(s, p, n, why, sizeof(why)) != 0)
			return bad_frame(s, why);
		return 0;
	case GL_AW_BYE: s->bye = 1; return 0;
	default: snprintf(why, sizeof(why), "unexpected frame type %d", type); return bad_frame(s, why);
	}
}

static int slot_frame(void *arg, int type, const unsigned char *p, size_t n)
{
	return on_frame(arg, type, p, n);
}

void ag_slot_read(struct bufferevent *bev, void *arg)
{
	struct slot *s = arg;
	if (gl_aw_pump(bufferevent_get_input(bev), slot_frame, s, 1 << 20) != 0)
		ag_lose(s, "sent a malformed frame: connection closed");
}

void ag_slot_event(struct bufferevent *bev, short what, void *arg)
{
	struct slot *s = arg;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		ag_lose(s, s->bye ? "ended" : "connection lost");
}

int ag_send_plan(struct gl_agents *a, struct slot *s)
{
	struct gl_run_row row = { 0 };
	struct gl_err err = { 0 };
	char *inv = NULL;
	cJSON *j = cJSON_CreateObject();
	int rc;

	if (gl_store_run_load(a->c->st, &row, &err) != 0) {
		gl_ctx_event(a->c, GL_LOG_ERROR, "agents", "plan: %s", err.msg);
		cJSON_Delete(j);
		return -1;
	}
	gl_store_doc_get(a->c->st, "scenario_inventory", &inv, &err);
	cJSON_AddNumberToObject(j, "proto", GL_AW_PROTO);
	cJSON_AddStringToObject(j, "workload", a->name);
	cJSON_AddNumberToObject(j, "index", s->index);
	cJSON_AddNumberToObject(j, "count", a->count);
	cJSON_AddStringToObject(j, "run_id", a->c->run.id);
	cJSON_AddStringToObject(j, "scenario_path", row.scenario_path);
	cJSON_AddStringToObject(j, "scenario_text", row.scenario_text ? row.scenario_text : "");
	cJSON_AddItemToObject(j, "sets", cJSON_Parse(row.sets_json ? row.sets_json : "[]"));
	if (inv)
		cJSON_AddStringToObject(j, "inventory", inv);
	cJSON_AddNumberToObject(j, "time_scale", a->c->clk.scale);
	cJSON_AddNumberToObject(j, "elapsed_ns", (double)now_ns(a));
	cJSON_AddNumberToObject(j, "origin_ns", (double)a->origin_ns);
	cJSON_AddNumberToObject(j, "load", a->load);
	/* where its load runs, as its node figures name it: the host it was
	 * launched on, else the one its hello named (as on_nodes rolls up) */
	cJSON_AddStringToObject(j, "host", s->host[0] ? s->host : s->peer_host);
	rc = gl_aw_send_json(s->bev, GL_AW_PLAN, j);
	cJSON_Delete(j);
	free(inv);
	gl_run_row_free(&row);
	/* relaunched after the start: the window it joins lacks its share
	 * from the window's start until now */
	s->joined_ns = s->launches > 1 ? now_ns(a) : -1;
	return rc;
}
