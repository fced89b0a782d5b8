/*
 * agents_int.h - what the controller's side of load agents shares between
 * its files: agents.c (the tick and the API), agents_launch.c (the
 * launchers and their commands), agents_frames.c (what a connected agent
 * sends) and agents_accept.c (the listener and the hello). Nothing outside
 * them includes it.
 */
#ifndef GL_AGENTS_INT_H
#define GL_AGENTS_INT_H

#include "controller_int.h"

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <event2/bufferevent.h>

#include "agents.h"

#define MAX_AGENTS 256
/* Connections that have not said hello: at most MAX_PENDING, each holding
 * at most GL_AW_HELLO_MAX bytes of input for at most HELLO_DEADLINE_NS.
 * When every place is taken, a new connection takes the place of the
 * oldest one from the address that holds the most: strangers crowd out
 * each other, not the agents that dial from their own hosts. */
#define MAX_PENDING 256
#define HELLO_DEADLINE_NS (2LL * 1000000000)
/* What a connected agent may send: events per window (the rest counted),
 * a counter's or histogram's increase per DATA frame (an agent sends one
 * every 500 ms; 2^40 is far above any real load and far below a wrap). */
#define EVENTS_PER_WINDOW 20
#define FIGURE_MAX (INT64_C(1) << 40)
/* DATA may be for the open window, the next one (an agent's clock may
 * lead the loop by its latency) or one of the LATE_WINDOWS before it. */
#define LATE_WINDOWS 4
#define SILENCE_NS (5LL * 1000000000)
#define STOP_WAIT_NS (5LL * 1000000000)
#define MAX_ARGS 96

enum slot_state { S_DOWN, S_LAUNCHED, S_UP, S_DONE };

/* Why a connection was refused (counted as agents.refused and
 * agents.refused.<name>). */
enum refusal { R_LENGTH, R_NOT_HELLO, R_TOKEN, R_PROTO, R_TAKEN, R_NO_HELLO, R_CLOSED, R_CROWDED, R_N };

struct slot {
	struct gl_agents *a;
	int index;
	enum slot_state state;
	char token[65]; /* this launch's own: a new one each launch */
	char host[128]; /* scenario host it runs on, "" = wherever the launcher puts it */
	pid_t launcher;
	int64_t child_id;
	pid_t dying; /* a launcher sent SIGTERM, reaped by the tick */
	int64_t dying_id, kill_at_ns;
	int64_t launched_ns, last_frame_ns, relaunch_ns;
	struct bufferevent *bev;
	char peer_host[128];
	int peer_pid;
	int64_t delivered; /* last window it sent final figures for */
	int64_t joined_ns; /* run time it was relaunched at, -1 if never */
	int launches, fails_in_row, misses, bye;
	int given_up;
	int64_t ev_window; /* the window its events are counted in */
	int ev_count; /* events logged in it */
	int64_t ev_dropped; /* events not logged since the last summary */
};

struct pending {
	struct gl_agents *a;
	struct bufferevent *bev;
	int64_t since_ns;
	struct sockaddr_storage peer;
	socklen_t peer_len;
};

struct gl_agents {
	struct gl_ctx *c;
	int wl;
	const char *name;
	const cJSON *cfg; /* the "agents" object */
	int count, srun, max_restarts;
	int64_t connect_timeout_ns, settle_ns, backoff_ns;
	char launcher_path[256], binary[1024];
	char addr[128]; /* host:port the agents dial */
	char key_env[128]; /* the workload's api_key_env, passed on to the agents */
	int lfd;
	struct event *ev_accept, *ev_tick;
	struct slot *s;
	struct pending pend[MAX_PENDING];
	double load;
	int64_t origin_ns;
	int started, stopping;
	int64_t refused, by_cause[R_N], unreported[R_N];
	int late_warned;
};

static inline int64_t now_ns(struct gl_agents *a)
{
	return gl_ctx_elapsed_ns(a->c);
}
static inline int64_t mono(void)
{
	return gl_now_ns();
}

/* agents_launch.c: where agent index runs, its launcher started (0) or
 * not; ended and waited for, or let go (the tick reaps it); this binary */
void ag_agent_host(const cJSON *ac, int count, int index, char *out, size_t size);
int ag_spawn(struct gl_agents *a, struct slot *s);
void ag_end_launcher(struct gl_agents *a, struct slot *s);
void ag_let_launcher_go(struct gl_agents *a, struct slot *s);
void ag_reap_dying(struct gl_agents *a, struct slot *s);
void ag_self_binary(char *out, size_t n);

/* agents_frames.c: an agent lost (counted, named, relaunched later); a
 * number an agent sent; a connected agent's input; its plan sent */
void ag_lose(struct slot *s, const char *why);
int64_t ag_num(const cJSON *o, const char *k, int64_t lo, int64_t hi, int64_t def);
void ag_slot_read(struct bufferevent *bev, void *arg);
void ag_slot_event(struct bufferevent *bev, short what, void *arg);
int ag_send_plan(struct gl_agents *a, struct slot *s);

/* agents_accept.c: a connection before its hello dropped; a refusal
 * counted; the window's refusals logged; the listener's callback */
void ag_pend_drop(struct pending *p);
void ag_refused(struct gl_agents *a, enum refusal why);
void ag_refusals_summary(struct gl_agents *a, int64_t idx);
void ag_on_accept(evutil_socket_t fd, short what, void *arg);

#endif
