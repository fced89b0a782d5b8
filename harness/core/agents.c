/*
 * agents.c - the controller's side of load agents (agents.h): setting them
 * up and launching them, the tick (launchers, silence, relaunches), load
 * changes, the windows' bookkeeping and stop. Never waiting on a dead
 * one. The launchers are agents_launch.c's, what agents send
 * agents_frames.c's, the listener agents_accept.c's (agents_int.h).
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
#include "child.h"
#include "metrics.h"
#include "netaddr.h"
#include "secrets.h"

void gl_agents_count(const struct gl_agents *a, int *planned, int *connected)
{
	*planned += a->count;
	for (int i = 0; i < a->count; i++)
		*connected += a->s[i].state == S_UP;
}

/* ---- the tick: launchers, silence, relaunches ----------------------------------------------------- */

static void tick(struct gl_agents *a)
{
	int64_t t = mono();

	for (int i = 0; i < MAX_PENDING; i++)
		if (a->pend[i].bev && t - a->pend[i].since_ns > HELLO_DEADLINE_NS) {
			ag_pend_drop(&a->pend[i]);
			ag_refused(a, R_NO_HELLO);
		}
	for (int i = 0; i < a->count; i++) {
		struct slot *s = &a->s[i];
		int st;
		ag_reap_dying(a, s);
		if (s->launcher > 0 && waitpid(s->launcher, &st, WNOHANG) == s->launcher) {
			char how[64];
			gl_ctx_child_ended(a->c, s->child_id);
			s->launcher = 0;
			s->child_id = 0;
			snprintf(how, sizeof(how), "its launcher ended (%s %d)", WIFEXITED(st) ? "exit" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			if (s->state == S_LAUNCHED || (s->state == S_UP && !s->bev))
				ag_lose(s, how);
			/* up: the connection tells (an srun step may end first) */
		}
		/* agents send every 500 ms once they have their plan; before
		 * the start they wait in silence for the others to connect */
		if (s->state == S_UP && a->started && t - s->last_frame_ns > SILENCE_NS && !a->stopping)
			ag_lose(s, "silent for 5 s");
		else if (s->state == S_LAUNCHED && t - s->launched_ns > a->connect_timeout_ns)
			ag_lose(s, "did not connect within connect_timeout");
		else if (s->state == S_DOWN && !s->given_up && !a->stopping && s->relaunch_ns && t >= s->relaunch_ns) {
			s->relaunch_ns = 0;
			if (ag_spawn(a, s) != 0) {
				s->fails_in_row++;
				s->relaunch_ns = mono() + a->backoff_ns;
				gl_ctx_event(a->c, GL_LOG_ERROR, "agents", "%s agent %d: launcher not started: %s",
					     a->name, i, strerror(errno));
			}
		}
	}
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	tick(arg);
}

/* ---- the API -------------------------------------------------------------------------------- */

static int setup(struct gl_ctx *c, int wl, struct gl_agents **out, struct gl_err *err)
{
	const struct gl_workload_spec *w = &c->sc->workloads[wl];
	const cJSON *ac = cJSON_GetObjectItemCaseSensitive(w->cfg, "agents");
	struct gl_agents *a = calloc(1, sizeof(*a));
	struct sockaddr_storage ss;
	socklen_t sl;

	*out = a;
	if (!a)
		return gl_errf(err, GL_ENOMEM, "agents: out of memory");
	a->c = c;
	a->wl = wl;
	a->name = w->name;
	a->cfg = ac;
	a->lfd = -1;
	a->load = 1;
	a->origin_ns = -1;
	a->count = (int)gl_cfg_int(ac, "count", 1);
	if (a->count < 1 || a->count > MAX_AGENTS)
		return gl_errf(err, GL_EINVAL, "workloads.%s.agents.count: %d is out of 1..%d", w->name, a->count,
			       MAX_AGENTS);
	a->srun = !strcmp(gl_cfg_str(ac, "launcher", "mpirun"), "srun");
	snprintf(a->launcher_path, sizeof(a->launcher_path), "%s",
		 gl_cfg_str(ac, "launcher_path", a->srun ? "srun" : "mpirun"));
	if (gl_cfg_str(ac, "binary", NULL))
		snprintf(a->binary, sizeof(a->binary), "%s", gl_cfg_str(ac, "binary", ""));
	else
		ag_self_binary(a->binary, sizeof(a->binary));
	a->connect_timeout_ns = gl_cfg_dur(ac, "connect_timeout", 60LL * 1000000000);
	if (a->connect_timeout_ns > GL_AGENTS_CONNECT_TIMEOUT_MAX_NS) /* validate refuses more */
		a->connect_timeout_ns = GL_AGENTS_CONNECT_TIMEOUT_MAX_NS;
	a->settle_ns = gl_cfg_dur(ac, "settle", 1000000000LL);
	a->backoff_ns = gl_cfg_dur(ac, "backoff", 1000000000LL);
	a->max_restarts = (int)gl_cfg_int(ac, "max_restarts", 10);
	snprintf(a->key_env, sizeof(a->key_env), "%s", gl_cfg_str(w->cfg, "api_key_env", ""));
	a->s = calloc((size_t)a->count, sizeof(*a->s));
	if (!a->s)
		return gl_errf(err, GL_ENOMEM, "agents: out of memory");
	/* agents fill the hosts' slots in order: "gpu-a:2" takes two */
	for (int i = 0; i < a->count; i++) {
		a->s[i].a = a;
		a->s[i].index = i;
		a->s[i].delivered = -1;
		a->s[i].joined_ns = -1;
		ag_agent_host(ac, a->count, i, a->s[i].host, sizeof(a->s[i].host));
	}
	if (gl_listen_parse(gl_cfg_str(ac, "listen", "127.0.0.1:0"), NULL, &ss, &sl, err) != 0)
		return -GL_EINVAL;
	a->lfd = gl_listen_open(&ss, sl, "agents.listen", a->addr, sizeof(a->addr), err);
	if (a->lfd < 0)
		return -GL_EIO;
	a->ev_accept = event_new(c->base, a->lfd, EV_READ | EV_PERSIST, ag_on_accept, a);
	a->ev_tick = event_new(c->base, -1, EV_PERSIST, on_tick, a);
	if (!a->ev_accept || !a->ev_tick)
		return gl_errf(err, GL_ENOMEM, "agents: out of memory");
	event_add(a->ev_accept, NULL);
	event_add(a->ev_tick, &(struct timeval){ 0, 200000 });
	return 0;
}

int ctl_agents_launch(struct gl_ctx *c, struct gl_err *err)
{
	for (int i = 0; i < c->sc->n_workloads; i++) {
		struct gl_agents *a;
		int64_t t0;
		int up = 0;

		if (!c->wl.agents || !cJSON_GetObjectItemCaseSensitive(c->sc->workloads[i].cfg, "agents"))
			continue;
		if (setup(c, i, &c->wl.agents[i], err) != 0)
			return -1;
		a = c->wl.agents[i];
		gl_ctx_event(c, GL_LOG_INFO, "agents", "%s: %d agent(s) through %s, dialing %s", a->name, a->count,
			     a->srun ? "srun" : "mpirun", a->addr);
		for (int k = 0; k < a->count; k++)
			if (ag_spawn(a, &a->s[k]) != 0)
				return gl_errf(err, GL_EIO, "agents: %s agent %d: launcher not started: %s", a->name, k,
					       strerror(errno));
		/* wait for every hello: the run's clock has not started, so no
		 * share of the schedule is lost to a slow launcher. A stop
		 * request (SIGINT, SIGTERM) ends the wait: its pipe wakes the
		 * loop (controller.c), and the run stops as from the loop. */
		t0 = mono();
		while (mono() - t0 < a->connect_timeout_ns) {
			if (ctl_stopping(c))
				return gl_errf(err, GL_ESTOPPED, "agents: %s: the wait for the agents was stopped (%s)",
					       a->name, c->halt.msg);
			up = 0;
			for (int k = 0; k < a->count; k++)
				up += a->s[k].state == S_UP;
			if (up == a->count)
				break;
			for (int k = 0; k < a->count; k++)
				if (a->s[k].state == S_DOWN)
					return gl_errf(err, GL_EIO,
						       "agents: %s agent %d did not come up (see %s/agents/%s-%d.log)",
						       a->name, k, c->run.dir, a->name, k);
			event_base_loop(c->base, EVLOOP_ONCE);
		}
		if (up != a->count) {
			for (int k = 0; k < a->count; k++)
				if (a->s[k].state != S_UP)
					return gl_errf(err, GL_ETIMEDOUT,
						       "agents: %s agent %d did not connect within %.0f s "
						       "(see %s/agents/%s-%d.log)",
						       a->name, k, (double)a->connect_timeout_ns / 1e9, c->run.dir,
						       a->name, k);
		}
	}
	return 0;
}

int gl_agents_start(struct gl_agents *a, struct gl_err *err)
{
	a->started = 1;
	a->origin_ns = now_ns(a);
	for (int i = 0; i < a->count; i++)
		if (a->s[i].state == S_UP && ag_send_plan(a, &a->s[i]) != 0)
			return gl_errf(err, GL_EIO, "agents: %s agent %d: plan not sent", a->name, i);
	return 0;
}

void gl_agents_set_load(struct gl_agents *a, double m)
{
	cJSON *j;

	a->load = m;
	if (!a->started)
		return;
	j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "load", m);
	for (int i = 0; i < a->count; i++)
		if (a->s[i].state == S_UP)
			gl_aw_send_json(a->s[i].bev, GL_AW_LOAD, j);
	cJSON_Delete(j);
}

int gl_agents_delivered(const struct gl_agents *a, int64_t idx)
{
	for (int i = 0; i < a->count; i++)
		if (a->s[i].state == S_UP && a->s[i].delivered < idx)
			return 0;
	return 1;
}

void gl_agents_window_done(struct gl_agents *a, int64_t idx, struct gl_metrics *m)
{
	int missing = 0;
	char names[512] = "";
	size_t off = 0;

	for (int i = 0; i < a->count; i++) {
		struct slot *s = &a->s[i];
		int64_t w0 = idx * a->c->sc->window_ns;
		int joined_late = s->joined_ns > w0 && s->joined_ns < w0 + a->c->sc->window_ns;
		if (s->delivered >= idx && !joined_late) {
			if (s->misses)
				gl_ctx_event(a->c, GL_LOG_INFO, "agents",
					     "%s agent %d: figures again from window %" PRId64
					     " after %d partial window(s)",
					     a->name, i, idx, s->misses);
			s->misses = 0;
			continue;
		}
		missing++;
		s->misses++;
		if (off < sizeof(names))
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%d%s%s%s", off ? ", " : "", i,
						s->host[0] ? " (" : "", s->host, s->host[0] ? ")" : "");
	}
	gl_metrics_merge(m, "agents.expected", NULL, a->count);
	gl_metrics_merge(m, "agents.missing", NULL, missing);
	gl_metrics_merge(m, "agents.delivered", NULL, a->count - missing);
	if (missing)
		gl_ctx_event(a->c, GL_LOG_WARN, "agents",
			     "window %" PRId64 " is partial: %s agent(s) %s missing for "
			     "all or part of it",
			     idx, a->name, names);
	ag_refusals_summary(a, idx);
	for (int i = 0; i < a->count; i++)
		if (a->s[i].ev_dropped) {
			gl_ctx_event(a->c, GL_LOG_WARN, "agents",
				     "%s agent %d: %" PRId64 " event(s) not logged up to "
				     "window %" PRId64 " (more than %d a window; agents.events_dropped)",
				     a->name, i, a->s[i].ev_dropped, idx, EVENTS_PER_WINDOW);
			a->s[i].ev_dropped = 0;
		}
}

int64_t ctl_agents_settle_ns(struct gl_ctx *c)
{
	int64_t m = 0;
	for (int i = 0; c->wl.agents && i < c->sc->n_workloads; i++)
		if (c->wl.agents[i] && c->wl.agents[i]->settle_ns > m)
			m = c->wl.agents[i]->settle_ns;
	return m;
}

void gl_agents_stop(struct gl_agents *a)
{
	int64_t t0 = mono();

	a->stopping = 1;
	for (int i = 0; i < a->count; i++)
		if (a->s[i].state == S_UP)
			gl_aw_send(a->s[i].bev, GL_AW_STOP, NULL, 0);
	for (;;) {
		int waiting = 0;
		for (int i = 0; i < a->count; i++)
			waiting += a->s[i].state == S_UP && a->s[i].bev && !a->s[i].bye;
		if (!waiting || mono() - t0 > STOP_WAIT_NS)
			break;
		event_base_loop(a->c->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		usleep(2000);
	}
	for (int i = 0; i < a->count; i++) {
		struct slot *s = &a->s[i];
		if (s->state == S_UP && !s->bye)
			gl_ctx_event(a->c, GL_LOG_WARN, "agents", "%s agent %d: no goodbye within 5 s of stop", a->name,
				     i);
		if (s->bev) {
			bufferevent_free(s->bev);
			s->bev = NULL;
		}
		ag_end_launcher(a, s);
		s->state = S_DONE;
	}
	if (a->ev_tick)
		event_del(a->ev_tick);
	if (a->ev_accept)
		event_del(a->ev_accept);
}

void gl_agents_free(struct gl_agents *a)
{
	if (!a)
		return;
	for (int i = 0; a->s && i < a->count; i++) {
		if (a->s[i].bev)
			bufferevent_free(a->s[i].bev);
		ag_end_launcher(a, &a->s[i]);
	}
	for (int i = 0; i < MAX_PENDING; i++)
		ag_pend_drop(&a->pend[i]);
	if (a->ev_accept)
		event_free(a->ev_accept);
	if (a->ev_tick)
		event_free(a->ev_tick);
	if (a->lfd >= 0)
		close(a->lfd);
	for (int i = 0; a->s && i < a->count; i++)
		explicit_bzero(a->s[i].token, sizeof(a->s[i].token));
	free(a->s);
	free(a);
}
