/*
 * live_int.h - what the live view's files share (live.c: the judging,
 * the endpoint, the progress line; live_prom.c: the Prometheus text).
 */
#ifndef GL_LIVE_INT_H
#define GL_LIVE_INT_H

#include "analysis.h"
#include "catalog.h"
#include "live.h"

struct live_conn;

struct live_fault {
	int64_t inj, rev;
	int run, decided; /* steady-healthy windows in a row; restore judged */
	int64_t run_start; /* the first of them */
};

/* A steady or degraded target, judged over its scope's windows so far. */
struct live_target {
	const struct gl_target_spec *t;
	struct gl_target_name tn;
	int parsed;
	int missed; /* named failing by gl_live_missed, not passing since */
};

struct live_conn;

struct gl_live {
	struct event_base *base;
	struct evconnlistener *lis;
	struct event *resume_ev; /* re-enables accepts after a backoff */
	struct live_conn *conns; /* open connections, freed with the view */
	int n_conn, conn_max, paused, backoff_s;
	int64_t conn_deadline_drops, conn_bad, accept_errors;
	unsigned logged; /* kinds already logged (LOGGED_*) */
	const struct gl_scenario *sc;
	char run_id[64], bound[96];
	struct gl_agg *run; /* every window closed so far */
	struct gl_agg *scope[3]; /* by the scope each window was judged in */
	struct gl_agg *last; /* the last closed window */
	int64_t last_idx, windows;
	int64_t judged[3]; /* windows closed, by the scope judged in */
	int last_phase;
	/* incidents so far, per kind (analysis.h), counted as windows close:
	 * what a fault explains and its restore judged as the analysis does
	 * (gl_fault_explains, follow_restores); a run of windows showing one
	 * kind is one incident */
	int64_t incidents[GL_INC_MAX];
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
	double last_close_unix; /* Unix time the last window closed, or the start */
	int64_t notify[3]; /* webhook messages sent, failed, dropped (notify.h) */
	/* per-node figures (docs/nodes.md): the last closed window's, scored
	 * against their peers (shown), and the closing window's (next), at
	 * most GL_LIVE_NODES each; rows past that are counted, not kept */
	struct live_node *nodes_shown, *nodes_next;
	int n_shown, n_next;
	int64_t nodes_idx, nodes_dropped;
};

#define GL_LIVE_NODES 1024
struct live_node {
	char workload[24], kind[12], name[96], host[96], figure[32];
	int64_t n;
	double mean, z; /* z: NAN when not scored (shown only, too few peers) */
};
/* The node series of the scrape (live_prom.c). */
void gl_live_render_nodes(const struct gl_live *l, struct gl_buf *b, int om);
/* The scope windows are judged in now (gauntlet_phase_info). */
enum gl_scope gl_live_scope_now(const struct gl_live *l);
/* Target x so far: 1 failing, 0 passing, -1 no data yet in its scope. */
int gl_live_target_state(const struct gl_live *l, const struct live_target *x, double *v);
/* The whole scrape into b (live_prom.c); -GL_ELIMIT when it outgrew b. */
int gl_live_render(struct gl_live *l, struct gl_buf *b, int om);

#endif
