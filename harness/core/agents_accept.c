/*
 * agents_accept.c - the agents' listener: connections wait for their hello
 * (bounded in number, bytes and time), the token checked, refusals counted
 * by cause.
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

static const char *const refusal_name[R_N] = { "bad_length", "not_hello", "bad_token", "bad_proto",
					       "taken",      "no_hello",  "closed",    "crowded_out" };
static const char *const refusal_text[R_N] = {
	"a frame length of 0 or over 4 KiB before the hello (an HTTP request looks like this)",
	"first frame is not a hello",
	"wrong token",
	"another protocol version",
	"agent index out of range or already connected",
	"no hello within 2 s",
	"closed before its hello",
	"every waiting place taken: dropped for a newer connection"
};

/* ---- accepting ------------------------------------------------------------------------------ */

void ag_pend_drop(struct pending *p)
{
	if (p->bev)
		bufferevent_free(p->bev);
	p->bev = NULL;
}

/* Count a refused connection by its cause. The first refusal of a run is
 * logged at once; the rest are summed up once a window (ag_refusals_summary),
 * so a flood costs one event a window, not one a connection. */
void ag_refused(struct gl_agents *a, enum refusal why)
{
	char name[64];

	a->refused++;
	a->by_cause[why]++;
	a->unreported[why]++;
	gl_metrics_add(a->c->m, gl_metrics_counter(a->c->m, "agents.refused"), 1);
	snprintf(name, sizeof(name), "agents.refused.%s", refusal_name[why]);
	gl_metrics_add(a->c->m, gl_metrics_counter(a->c->m, name), 1);
	if (a->refused == 1) {
		gl_ctx_event(a->c, GL_LOG_WARN, "agents",
			     "%s: connection refused (%s); further refusals are summed "
			     "up once a window",
			     a->name, refusal_text[why]);
		a->unreported[why] = 0;
	}
}

void ag_refusals_summary(struct gl_agents *a, int64_t idx)
{
	char b[512];
	size_t off = 0;
	int64_t total = 0;

	for (int i = 0; i < R_N; i++) {
		if (!a->unreported[i])
			continue;
		total += a->unreported[i];
		if (off < sizeof(b))
			off += (size_t)snprintf(b + off, sizeof(b) - off, "%s%" PRId64 " %s", off ? ", " : "",
						a->unreported[i], refusal_name[i]);
		a->unreported[i] = 0;
	}
	if (total)
		gl_ctx_event(a->c, GL_LOG_WARN, "agents",
			     "%s: %" PRId64 " connection(s) refused up to window %" PRId64 " (%s); %" PRId64
			     " in the run",
			     a->name, total, idx, b, a->refused);
}

static int pend_frame(void *arg, int type, const unsigned char *p, size_t n)
{
	struct pending *pd = arg;
	struct gl_agents *a = pd->a;
	cJSON *j;
	const char *tok, *host;
	int idx, proto;
	struct slot *s;

	if (type != GL_AW_HELLO) {
		ag_refused(a, R_NOT_HELLO);
		return -1;
	}
	j = cJSON_ParseWithLength((const char *)p, n);
	tok = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "token"));
	idx = (int)ag_num(j, "index", 0, MAX_AGENTS, -1);
	proto = (int)ag_num(j, "proto", 0, 1000, -1);
	host = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "host"));
	if (proto != GL_AW_PROTO) {
		ag_refused(a, R_PROTO);
		cJSON_Delete(j);
		return -1;
	}
	/* the token is the launch's own: one that matches names the slot */
	if (!tok || idx < 0 || idx >= a->count || !gl_aw_token_eq(tok, a->s[idx].token)) {
		ag_refused(a, R_TOKEN);
		cJSON_Delete(j);
		return -1;
	}
	if (a->s[idx].state != S_LAUNCHED) {
		ag_refused(a, R_TAKEN);
		cJSON_Delete(j);
		return -1;
	}
	s = &a->s[idx];
	/* used up: a second hello with it is refused, whoever read it */
	explicit_bzero(s->token, sizeof(s->token));
	s->bev = pd->bev;
	pd->bev = NULL;
	s->state = S_UP;
	s->bye = 0;
	s->fails_in_row = 0;
	s->last_frame_ns = mono();
	snprintf(s->peer_host, sizeof(s->peer_host), "%s", host ? host : "?");
	s->peer_pid = (int)ag_num(j, "pid", 0, INT32_MAX, 0);
	cJSON_Delete(j);
	/* a connected agent's frames may be up to GL_AW_FRAME_MAX */
	bufferevent_setwatermark(s->bev, EV_READ, 0, GL_AW_FRAME_MAX + 16);
	bufferevent_setcb(s->bev, ag_slot_read, NULL, ag_slot_event, s);
	gl_ctx_event(a->c, GL_LOG_INFO, "agents", "%s agent %d: connected from %s (pid %d)%s", a->name, idx,
		     s->peer_host, s->peer_pid, s->launches > 1 ? ", relaunched" : "");
	if (s->launches > 1 && a->started)
		gl_metrics_add(a->c->m, gl_metrics_counter(a->c->m, "agents.relaunched"), 1);
	if (a->started && ag_send_plan(a, s) != 0) {
		ag_lose(s, "plan not sent");
		return 1;
	}
	return 1; /* stop pumping this pending entry: the slot owns the rest */
}

static void pend_read(struct bufferevent *bev, void *arg)
{
	struct pending *pd = arg;
	int rc = gl_aw_pump_cap(bufferevent_get_input(bev), pend_frame, pd, 1, GL_AW_HELLO_MAX);

	if (rc == -2)
		ag_refused(pd->a, R_LENGTH);
	if (rc < 0) {
		ag_pend_drop(pd);
	} else if (rc == 1) {
		/* the hello matched: the slot took the connection; frames after
		 * the hello already buffered are read by its callback */
		struct slot *s = NULL;
		for (int i = 0; i < pd->a->count; i++)
			if (pd->a->s[i].bev == bev)
				s = &pd->a->s[i];
		if (s && evbuffer_get_length(bufferevent_get_input(bev)))
			ag_slot_read(bev, s);
	}
}

static void pend_event(struct bufferevent *bev, short what, void *arg)
{
	struct pending *pd = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		ag_refused(pd->a, R_CLOSED);
		ag_pend_drop(pd);
	}
}

static int same_host(const struct sockaddr_storage *x, const struct sockaddr_storage *y)
{
	if (x->ss_family != y->ss_family)
		return 0;
	if (x->ss_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	if (x->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr,
			       &((const struct sockaddr_in6 *)y)->sin6_addr, sizeof(struct in6_addr));
	return 1;
}

/* Every place is taken: the oldest connection of the address that holds
 * the most places gives its place up. */
static struct pending *crowd_out(struct gl_agents *a)
{
	struct pending *victim = NULL;
	int most = 0;

	for (int i = 0; i < MAX_PENDING; i++) {
		int n = 0;
		for (int k = 0; k < MAX_PENDING; k++)
			n += same_host(&a->pend[i].peer, &a->pend[k].peer);
		if (n > most || (n == most && a->pend[i].since_ns < victim->since_ns)) {
			most = n;
			victim = &a->pend[i];
		}
	}
	ag_pend_drop(victim);
	ag_refused(a, R_CROWDED);
	return victim;
}

void ag_on_accept(evutil_socket_t fd, short what, void *arg)
{
	struct gl_agents *a = arg;

	for (int k = 0; k < 64; k++) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		int cfd = accept4(fd, (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;
		struct pending *pd = NULL;
		if (cfd < 0)
			return;
		for (int i = 0; i < MAX_PENDING && !pd; i++)
			if (!a->pend[i].bev)
				pd = &a->pend[i];
		if (!pd)
			pd = crowd_out(a);
		setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pd->a = a;
		pd->since_ns = mono();
		pd->peer = peer;
		pd->peer_len = pl;
		pd->bev = bufferevent_socket_new(a->c->base, cfd, BEV_OPT_CLOSE_ON_FREE);
		if (!pd->bev) {
			close(cfd);
			continue;
		}
		/* before the hello no more than a hello's worth is read */
		bufferevent_setwatermark(pd->bev, EV_READ, 0, GL_AW_HELLO_MAX + 4);
		bufferevent_setcb(pd->bev, pend_read, NULL, pend_event, pd);
		bufferevent_enable(pd->bev, EV_READ | EV_WRITE);
	}
}
