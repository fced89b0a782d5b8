/*
 * agent.c - `gauntlet agent`: one load agent (agents.h). It connects to
 * the controller named in its environment, says hello with the run's
 * token, receives the plan (the run's scenario, which workload, its share,
 * the run's clock and the schedule's origin), runs the workload's own code
 * on a context of its own, and sends the figures every 500 ms and at each
 * window's end, with a bounded sample of request rows. It stops on STOP
 * (after sending the last figures), or when the controller goes away.
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "agent_wire.h"
#include "agents.h"
#include "metrics.h"
#include "paths.h"
#include "scenario.h"
#include "secrets.h"
#include "store.h"
#include "states.h"

#define FLUSH_NS 500000000LL
#define ROWS_ERR_MAX 64 /* errored rows sent per window */
#define ROWS_OK_MAX 16 /* a uniform sample of the rest per window */

struct agent {
	struct gl_ctx c;
	const struct gl_workload_ops *ops;
	void *state;
	int wl;
	struct bufferevent *bev;
	struct event *ev_flush, *ev_window, *ev_sig;
	int64_t win; /* the window being filled */
	int stopping, code, running;
	/* until the plan came: where to dial, this launch's token, and how
	 * long to keep dialing when the controller drops the connection before
	 * the hello is read (a crowd of strangers on its port) */
	char addr[256], token[80], host[256];
	int index;
	int64_t dial_until_ns, backoff_ns;
	struct event *ev_redial;
	/* rows of the window being filled */
	cJSON *err_rows, *ok_rows;
	int n_err, n_ok;
	uint64_t ok_seen, rng;
};

static struct agent *the_agent;

/* ---- sending --------------------------------------------------------------------------------- */

static void add_series(void *arg, const char *name, const struct gl_hist *h, int64_t counter)
{
	gl_aw_data_add(arg, name, h, counter);
}

static void send_rows(struct agent *g)
{
	cJSON *all = cJSON_CreateArray(), *r;

	while ((r = cJSON_DetachItemFromArray(g->err_rows, 0)))
		cJSON_AddItemToArray(all, r);
	while ((r = cJSON_DetachItemFromArray(g->ok_rows, 0)))
		cJSON_AddItemToArray(all, r);
	if (cJSON_GetArraySize(all))
		gl_aw_send_json(g->bev, GL_AW_ROWS, all);
	cJSON_Delete(all);
	g->n_err = g->n_ok = 0;
	g->ok_seen = 0;
}

static void add_node(void *arg, const struct gl_node_fig *f)
{
	cJSON *a = cJSON_CreateArray();

	cJSON_AddItemToArray(a, cJSON_CreateNumber((double)f->idx));
	cJSON_AddItemToArray(a, cJSON_CreateString(f->kind));
	cJSON_AddItemToArray(a, cJSON_CreateString(f->name));
	cJSON_AddItemToArray(a, cJSON_CreateString(f->host));
	cJSON_AddItemToArray(a, cJSON_CreateString(f->figure));
	cJSON_AddItemToArray(a, cJSON_CreateNumber((double)f->n));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(f->sum));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(f->max));
	cJSON_AddItemToArray(arg, a);
}

/* The per-node figures recorded so far, ahead of a window's last DATA
 * (which lets the controller write the window). */
static void send_nodes(struct agent *g)
{
	cJSON *j = cJSON_CreateObject(), *figs = cJSON_AddArrayToObject(j, "figs");

	gl_nodes_take_all(g->c.nodes, add_node, figs);
	if (cJSON_GetArraySize(figs) > 0)
		gl_aw_send_json(g->bev, GL_AW_NODES, j);
	cJSON_Delete(j);
}

/* What the workload recorded since the last send, as window win. */
static void send_data(struct agent *g, int final)
{
	struct gl_aw_data d;

	if (final)
		send_nodes(g);
	gl_aw_data_begin(&d, g->win, final);
	gl_metrics_visit_reset(g->c.m, add_series, &d);
	if (gl_aw_data_end(&d) == 0)
		gl_aw_send(g->bev, GL_AW_DATA, d.b.data, d.b.len);
	else
		gl_error("agent: window %lld: figures too large to send", (long long)g->win);
	gl_buf_free(&d.b);
	if (final)
		send_rows(g);
}

static void row_sink(void *arg, const struct gl_request_row *r)
{
	struct agent *g = arg;
	cJSON *j;
	int err = r->error_class && r->error_class[0];

	if (err && g->n_err >= ROWS_ERR_MAX)
		return;
	if (!err) {
		/* reservoir: each ok row of the window is kept with the same chance */
		uint64_t k = ++g->ok_seen;
		if (g->n_ok >= ROWS_OK_MAX) {
			g->rng ^= g->rng << 13;
			g->rng ^= g->rng >> 7;
			g->rng ^= g->rng << 17;
			if (g->rng % k >= ROWS_OK_MAX)
				return;
			cJSON_DeleteItemFromArray(g->ok_rows, (int)(g->rng % ROWS_OK_MAX));
			g->n_ok--;
		}
	}
	j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "window", (double)r->window);
	cJSON_AddNumberToObject(j, "endpoint", r->endpoint);
	cJSON_AddNumberToObject(j, "t_intended", (double)r->t_intended);
	cJSON_AddNumberToObject(j, "t_send", (double)r->t_send);
	cJSON_AddNumberToObject(j, "t_headers", (double)r->t_headers);
	cJSON_AddNumberToObject(j, "t_first_event", (double)r->t_first_event);
	cJSON_AddNumberToObject(j, "t_first_token", (double)r->t_first_token);
	cJSON_AddNumberToObject(j, "t_last_token", (double)r->t_last_token);
	cJSON_AddNumberToObject(j, "t_end", (double)r->t_end);
	cJSON_AddNumberToObject(j, "input_tokens", (double)r->input_tokens);
	cJSON_AddNumberToObject(j, "output_tokens", (double)r->output_tokens);
	cJSON_AddNumberToObject(j, "tokens_estimated", r->tokens_estimated);
	cJSON_AddNumberToObject(j, "http_status", r->http_status);
	cJSON_AddNumberToObject(j, "max_stall_ns", (double)r->max_stall_ns);
	if (err)
		cJSON_AddStringToObject(j, "error_class", r->error_class);
	cJSON_AddItemToArray(err ? g->err_rows : g->ok_rows, j);
	if (err)
		g->n_err++;
	else
		g->n_ok++;
}

static void event_sink(void *arg, enum gl_log_level lvl, const char *source, const char *msg)
{
	struct agent *g = arg;
	static const char *names[] = { "debug", "info", "warn", "error" };
	cJSON *j;
	char text[1100];

	if (lvl < GL_LOG_INFO)
		return;
	j = cJSON_CreateObject();
	snprintf(text, sizeof(text), "%s: %s", source, msg);
	cJSON_AddStringToObject(j, "level", names[lvl]);
	cJSON_AddStringToObject(j, "msg", text);
	gl_aw_send_json(g->bev, GL_AW_EVENT, j);
	cJSON_Delete(j);
}

/* A number from the plan: def when absent or not a finite number in range. */
static double pnum(const cJSON *o, const char *k, double lo, double hi, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo) || !(v->valuedouble <= hi))
		return def;
	return v->valuedouble;
}

/* ---- the loop -------------------------------------------------------------------------------- */

static void finish(struct agent *g, int code)
{
	if (g->stopping)
		return;
	g->stopping = 1;
	g->code = code;
	if (g->running) {
		g->ops->stop(g->state);
		g->running = 0;
	}
	if (code == 0) {
		if (g->ops->on_window && g->state)
			g->ops->on_window(g->state);
		send_data(g, 1);
		gl_aw_send(g->bev, GL_AW_BYE, NULL, 0);
	}
	event_base_loopexit(g->c.base, NULL);
}

static void arm_window(struct agent *g)
{
	gl_ctx_arm_at(&g->c, g->ev_window, (g->win + 1) * g->c.sc->window_ns);
}

static void on_window(evutil_socket_t fd, short what, void *arg)
{
	struct agent *g = arg;

	if (g->stopping)
		return;
	if (g->ops->on_window && g->state)
		g->ops->on_window(g->state);
	send_data(g, 1);
	g->win++;
	g->c.win.idx = g->win;
	arm_window(g);
}

static void on_flush(evutil_socket_t fd, short what, void *arg)
{
	struct agent *g = arg;

	if (!g->stopping && g->running)
		send_data(g, 0);
}

static int start_plan(struct agent *g, const unsigned char *p, size_t n);

static int on_frame(void *arg, int type, const unsigned char *p, size_t n)
{
	struct agent *g = arg;

	switch (type) {
	case GL_AW_PLAN:
		if (g->running || g->c.sc)
			return -1;
		if (start_plan(g, p, n) != 0) {
			finish(g, 2);
			return -1;
		}
		return 0;
	case GL_AW_LOAD: {
		cJSON *j = cJSON_ParseWithLength((const char *)p, n);
		double m = pnum(j, "load", 0, 1e6, 0);
		if (g->running && g->ops->set_load && m > 0)
			g->ops->set_load(g->state, m);
		cJSON_Delete(j);
		return 0;
	}
	case GL_AW_STOP: finish(g, 0); return 1;
	default: gl_error("agent: unexpected frame type %d from the controller", type); return -1;
	}
}

static void on_read(struct bufferevent *bev, void *arg)
{
	struct agent *g = arg;
	int rc = gl_aw_pump(bufferevent_get_input(bev), on_frame, g, 1 << 20);

	if (rc == -2)
		gl_error("agent: bad frame length from the controller");
	if (rc < 0 && !g->stopping)
		finish(g, rc == -2 ? 3 : 2);
}

static void on_conn_event(struct bufferevent *bev, short what, void *arg)
{
	struct agent *g = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		bufferevent_free(g->bev);
		g->bev = NULL;
		if (!g->c.sc && !g->stopping && gl_now_ns() + g->backoff_ns < g->dial_until_ns) {
			/* no plan yet: the hello may not have been read */
			gl_warn("agent: the controller's connection %s before the plan: dialing again in %.2f s",
				what & BEV_EVENT_EOF ? "closed" : "failed", (double)g->backoff_ns / 1e9);
			event_add(g->ev_redial,
				  &(struct timeval){ g->backoff_ns / 1000000000, (g->backoff_ns % 1000000000) / 1000 });
			if (g->backoff_ns < 1000000000LL)
				g->backoff_ns *= 2;
			return;
		}
		gl_warn("agent: the controller's connection %s: stopping", what & BEV_EVENT_EOF ? "closed" : "failed");
		finish(g, 3);
	}
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	finish(arg, 3);
}

static int start_plan(struct agent *g, const unsigned char *p, size_t n)
{
	cJSON *j = cJSON_ParseWithLength((const char *)p, n), *sets_j, *e;
	const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "scenario_text"));
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "scenario_path"));
	const char *wname = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "workload"));
	const char *inv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "inventory"));
	const char *rid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "run_id"));
	const char **sets = NULL;
	struct gl_scenario_opts o = { 0 };
	struct gl_diag d;
	struct gl_err err = { 0 };
	double load;
	int k = 0, rc = -1;

	if (!j || !text || !path || !wname) {
		gl_error("agent: the plan is not what this gauntlet expects (scenario or workload missing)");
		goto out;
	}
	/* the plan came: the token is spent */
	explicit_bzero(g->token, sizeof(g->token));
	/* the scenario's secrets (api_key_env, ...) came through the
	 * launcher's environment: kept, and wiped where /proc shows them,
	 * before the workload starts any thread */
	{
		cJSON *sj = cJSON_Parse(text);
		gl_secrets_take(sj);
		cJSON_Delete(sj);
	}
	sets_j = cJSON_GetObjectItemCaseSensitive(j, "sets");
	sets = calloc((size_t)cJSON_GetArraySize(sets_j) + 1, sizeof(*sets));
	cJSON_ArrayForEach(e, sets_j) if (cJSON_IsString(e) && sets) sets[k++] = e->valuestring;
	o.time_scale = pnum(j, "time_scale", 1e-6, 1e6, 1);
	o.sets = sets;
	o.inventory_text = inv;
	gl_diag_init(&d, NULL);
	g->c.sc = gl_scenario_load_text(path, text, strlen(text), &o, &d);
	if (!g->c.sc || d.n_errors > g->c.sc->n_missing) {
		gl_error("agent: the run's scenario does not validate here (%d error(s)); is this the same gauntlet "
			 "as the controller's?",
			 d.n_errors);
		gl_diag_free(&d);
		goto out;
	}
	gl_diag_free(&d);
	g->wl = -1;
	for (int i = 0; i < g->c.sc->n_workloads; i++)
		if (!strcmp(g->c.sc->workloads[i].name, wname))
			g->wl = i;
	if (g->wl < 0 || !g->c.sc->workloads[g->wl].ops->init) {
		gl_error("agent: no workload '%s' to run here", wname);
		goto out;
	}
	g->ops = g->c.sc->workloads[g->wl].ops;
	snprintf(g->c.run.id, sizeof(g->c.run.id), "%s", rid ? rid : "");
	g->c.clk.scale = o.time_scale > 0 ? o.time_scale : 1;
	g->c.agent.shard = (int)pnum(j, "index", 0, 1e6, -1);
	g->c.agent.shards = (int)pnum(j, "count", 1, 1e6, 0);
	g->c.agent.origin_ns = (int64_t)pnum(j, "origin_ns", -1, 9e18, -1);
	/* the host its node figures name: the controller's word for it, else
	 * this machine's own name */
	{
		const char *h = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "host"));
		snprintf(g->c.agent.host, sizeof(g->c.agent.host), "%s", h && *h ? h : g->host[0] ? g->host : "-");
		gl_node_text_fix(g->c.agent.host);
	}
	/* the run's clock: the controller's elapsed time when it sent this */
	g->c.clk.elapsed_base = (int64_t)pnum(j, "elapsed_ns", 0, 9e18, 0);
	g->c.clk.mono_start = gl_now_ns();
	g->win = g->c.clk.elapsed_base / g->c.sc->window_ns;
	g->c.win.idx = g->win;
	load = pnum(j, "load", 0, 1e6, 1);
	if (g->c.agent.shards < 1 || g->c.agent.shard < 0 || g->c.agent.shard >= g->c.agent.shards) {
		gl_error("agent: share %d of %d makes no sense", g->c.agent.shard, g->c.agent.shards);
		goto out;
	}
	if (g->ops->init(&g->c, g->c.sc->workloads[g->wl].cfg, &g->state, &err) != 0) {
		gl_ctx_event(&g->c, GL_LOG_ERROR, "agent", "workload %s: %s", wname, err.msg);
		goto out;
	}
	if (g->ops->set_load)
		g->ops->set_load(g->state, load > 0 ? load : 1);
	if (g->ops->start(g->state, &err) != 0) {
		gl_ctx_event(&g->c, GL_LOG_ERROR, "agent", "workload %s: %s", wname, err.msg);
		goto out;
	}
	g->running = 1;
	gl_info("agent %d of %d: running %s from elapsed %.3f s", g->c.agent.shard, g->c.agent.shards, wname,
		(double)g->c.clk.elapsed_base / 1e9);
	event_add(g->ev_flush, &(struct timeval){ 0, FLUSH_NS / 1000 });
	arm_window(g);
	rc = 0;
out:
	free(sets);
	cJSON_Delete(j);
	return rc;
}

/* ---- connecting ------------------------------------------------------------------------------- */

static int dial(const char *addr, struct gl_err *err)
{
	char host[256], *colon;
	struct addrinfo hints = { 0 }, *res = NULL, *ai;
	int fd = -1, one = 1;

	snprintf(host, sizeof(host), "%s", addr);
	colon = strrchr(host, ':');
	if (!colon)
		return gl_errf(err, GL_EINVAL, "GAUNTLET_AGENT_CONTROLLER '%s' is not HOST:PORT", addr);
	*colon = '\0';
	if (host[0] == '[' && colon[-1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, colon + 1, &hints, &res) != 0 || !res)
		return gl_errf(err, GL_EINVAL, "controller address %s does not resolve", addr);
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		/* a bounded wait: 10 s per address */
		struct pollfd pf;
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
			close(fd);
			fd = -1;
			continue;
		}
		pf.fd = fd;
		pf.events = POLLOUT;
		if (poll(&pf, 1, 10000) != 1) {
			close(fd);
			fd = -1;
			continue;
		}
		{
			int e = 0;
			socklen_t l = sizeof(e);
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0 || e) {
				close(fd);
				fd = -1;
			}
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return gl_errf(err, GL_EIO, "cannot connect to the controller at %s", addr);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Dial the controller and say hello; 0, or -1 with err. */
static int connect_hello(struct agent *g, struct gl_err *err)
{
	cJSON *hello;
	int fd = dial(g->addr, err);

	if (fd < 0)
		return -1;
	g->bev = bufferevent_socket_new(g->c.base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!g->bev) {
		close(fd);
		return gl_errf(err, GL_ENOMEM, "out of memory");
	}
	bufferevent_setcb(g->bev, on_read, NULL, on_conn_event, g);
	bufferevent_setwatermark(g->bev, EV_READ, 0, GL_AW_FRAME_MAX + 16);
	bufferevent_enable(g->bev, EV_READ | EV_WRITE);
	hello = cJSON_CreateObject();
	cJSON_AddNumberToObject(hello, "proto", GL_AW_PROTO);
	cJSON_AddStringToObject(hello, "token", g->token);
	cJSON_AddNumberToObject(hello, "index", g->index);
	cJSON_AddNumberToObject(hello, "pid", getpid());
	cJSON_AddStringToObject(hello, "host", g->host);
	gl_aw_send_json(g->bev, GL_AW_HELLO, hello);
	/* the printed hello held the token: cJSON frees it unwiped, so the
	 * item's copy is wiped here */
	explicit_bzero(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hello, "token")), strlen(g->token));
	cJSON_Delete(hello);
	return 0;
}

static void on_redial(evutil_socket_t fd, short what, void *arg)
{
	struct agent *g = arg;
	struct gl_err err = { 0 };

	if (g->stopping || g->bev)
		return;
	if (connect_hello(g, &err) != 0) {
		gl_error("agent: %s", err.msg);
		finish(g, 3);
	}
}

/* Take a variable's value and wipe its whole NAME=value entry where
 * /proc/PID/environ shows it (unsetenv alone leaves the bytes there). */
static int take_env(const char *name, char *out, size_t n)
{
	extern char **environ;
	size_t nl = strlen(name);
	int rc = -1;

	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, name, nl) != 0 || (*e)[nl] != '=')
			continue;
		if (rc != 0 && strlen(*e + nl + 1) < n) {
			snprintf(out, n, "%s", *e + nl + 1);
			rc = 0;
		}
		explicit_bzero(*e, strlen(*e));
	}
	unsetenv(name);
	return rc;
}

int gl_agent_main(int argc, char **argv)
{
	struct agent *g = calloc(1, sizeof(*g));
	const char *addr = getenv("GAUNTLET_AGENT_CONTROLLER");
	const char *idx = getenv("GAUNTLET_AGENT_INDEX");
	struct gl_err err = { 0 };
	struct event_config *cfg;
	int code, tok;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "gauntlet agent: takes no arguments: the controller's launcher sets its environment\n");
		return GL_EXIT_BAD_INPUT;
	}
	if (!g)
		return GL_EXIT_HARNESS_ERROR;
	/* the token is for this process only: nothing it starts inherits it,
	 * and /proc no longer shows it */
	tok = getenv("GAUNTLET_AGENT_TOKEN") ? take_env("GAUNTLET_AGENT_TOKEN", g->token, sizeof(g->token)) : -1;
	if (!addr || tok != 0 || !idx || strlen(addr) >= sizeof(g->addr)) {
		fprintf(stderr,
			"gauntlet agent: GAUNTLET_AGENT_CONTROLLER, GAUNTLET_AGENT_TOKEN and "
			"GAUNTLET_AGENT_INDEX must be set (the controller starts agents; see docs/agents.md)\n");
		return GL_EXIT_BAD_INPUT;
	}
	snprintf(g->addr, sizeof(g->addr), "%s", addr);
	g->index = atoi(idx);
	if (gl_paths_read_env(&err) != 0) {
		fprintf(stderr, "gauntlet agent: %s\n", err.msg);
		return GL_EXIT_BAD_INPUT;
	}
	signal(SIGPIPE, SIG_IGN);
	gethostname(g->host, sizeof(g->host) - 1);
	cfg = event_config_new();
	if (cfg) {
		event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
		event_config_set_flag(cfg, EVENT_BASE_FLAG_NO_CACHE_TIME);
		g->c.base = event_base_new_with_config(cfg);
		event_config_free(cfg);
	}
	g->c.m = gl_metrics_new();
	g->c.nodes = gl_nodes_new();
	g->c.run.lock_fd = -1;
	g->c.agent.row_sink = row_sink;
	g->c.agent.event_sink = event_sink;
	g->c.agent.sink_arg = g;
	g->err_rows = cJSON_CreateArray();
	g->ok_rows = cJSON_CreateArray();
	g->rng = (uint64_t)gl_now_ns() | 1;
	snprintf(g->c.run.dir, sizeof(g->c.run.dir), "/tmp");
	if (!g->c.base || !g->c.m)
		return GL_EXIT_HARNESS_ERROR;
	g->ev_flush = event_new(g->c.base, -1, EV_PERSIST, on_flush, g);
	g->ev_window = evtimer_new(g->c.base, on_window, g);
	g->ev_redial = evtimer_new(g->c.base, on_redial, g);
	g->ev_sig = evsignal_new(g->c.base, SIGTERM, on_signal, g);
	evsignal_add(g->ev_sig, NULL);
	/* dropped before the plan (the controller's waiting places crowded),
	 * it dials again for up to 30 s, from 50 ms apart to 1 s apart */
	g->dial_until_ns = gl_now_ns() + 30000000000LL;
	g->backoff_ns = 50000000LL;
	if (connect_hello(g, &err) != 0) {
		fprintf(stderr, "gauntlet agent: %s\n", err.msg);
		return GL_EXIT_ABORTED; /* no controller to take the load from */
	}
	the_agent = g;
	event_base_dispatch(g->c.base);
	/* push out what is still queued (the last figures, the goodbye) */
	if (g->bev) {
		struct evbuffer *out = bufferevent_get_output(g->bev);
		int64_t t0 = gl_now_ns();
		while (evbuffer_get_length(out) && gl_now_ns() - t0 < 3000000000LL && g->bev)
			event_base_loop(g->c.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	}
	code = g->code;
	if (g->state && g->ops->free)
		g->ops->free(g->state);
	if (g->bev)
		bufferevent_free(g->bev);
	gl_nodes_free(g->c.nodes);
	return code;
}
