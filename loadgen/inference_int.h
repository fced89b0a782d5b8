/*
 * inference_int.h - private to the inference workload (loadgen/inference*.c):
 * its state and what its files share. Who owns what:
 *   inference.c           requests (libcurl handles, SSE, timing,
 *                         classification, the store row, a closed-loop
 *                         user's next one), the ops (config, start,
 *                         stop, ...)
 *   inference_body.c      what a request sends: its model and JSON body
 *   inference_curl.c      curl's sockets and timer on the libevent loop
 *   inference_h1.c        the own HTTP/1.1 client (plain http:// to an IP
 *                         address): pre-built request heads, kept-alive
 *                         connections, answers parsed by http1.c
 *   inference_arrivals.c  when requests are made: the seeded random gaps,
 *                         the open-loop schedule and max_in_flight queue,
 *                         trace replay, the ttft/idle timeout sweep
 *   inference_sessions.c  multi-turn conversations ("sessions"): each turn's
 *                         prompt the history so far, sent a think time
 *                         after the last answer
 *   inference_cache.c     the server's prefix cache as the client sees it:
 *                         prompt and cached tokens of each success
 *   inference_analysis.c  what the analysis and the live view read
 *   inference_sim.c       its model for `gauntlet simulate`
 *   inference_edge.c      edge phases: the SLA edge search's probes, the
 *                         phases at a fraction of its edge, the store
 *                         document "edge" (the search itself is the pure
 *                         inference_edge_search.c)
 */
#ifndef GL_INFERENCE_INT_H
#define GL_INFERENCE_INT_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <event2/event.h>

#include "cfg.h"
#include "inference_edge_search.h"
#include "inference_schema.h"
#include "secrets.h"
#include "metrics.h"
#include "plugin.h"
#include "paths.h"
#include "sse.h"
#include "store.h"
#include "trace.h"
#include "units.h"

#define ITL_HOLD 64
#define BODY_MAX (4u << 20) /* non-streaming body cap */
#define SSE_MAX_LINE (256u << 10)
#define SSE_MAX_DATA (1u << 20)

enum err_class {
	EC_OK,
	EC_CONNECT,
	EC_TLS,
	EC_4XX,
	EC_429,
	EC_5XX,
	EC_TTFT,
	EC_IDLE,
	EC_TOTAL,
	EC_STREAM,
	EC_TRUNCATED,
	EC_MALFORMED,
	EC_MODEL,
	EC_N
};

#define MAX_ADAPTERS 16
#define ERR_BODY_MAX 4096 /* of a 404's body: enough to tell model_not_found */

enum arrival { AR_CONSTANT, AR_POISSON, AR_GAMMA, AR_TRACE, AR_CLOSED };

struct inf;
struct inf_session;

struct req {
	struct inf *w;
	struct req *next, *prev; /* in-flight list */
	const char *model; /* the model it names: w->model or an adapter's */
	CURL *easy;
	char *body;
	struct gl_sse *sse;
	struct gl_buf resp; /* non-streaming body */
	int ep;
	int user; /* closed loop: which user */
	struct inf_session *session; /* "sessions": the conversation it is a turn of */
	int64_t t_intended, t_send, t_headers, t_first_event, t_first_token, t_last_token, t_end;
	int64_t t_last_event;
	int64_t max_stall;
	int64_t input_tokens;
	int64_t token_events;
	float itl_ms[ITL_HOLD];
	int n_itl;
	enum err_class forced; /* set when we abort it ourselves */
	int add_failed; /* curl would not take it: finished by the sweep */
	struct h1_conn *h1; /* its connection on the own HTTP/1.1 client (NULL: curl's, or none) */
	int h1_retried; /* sent again once, its reused connection found closed */
	int parsed; /* non-streaming: body_parse holds the body's reading */
	struct gl_oai_chunk body_parse;
	long status;
};

struct endpoint {
	char url[1024];
	CURLU *uh; /* its completions URL parsed once (NULL: curl parses the text each time) */
	struct h1_ep *h1; /* the own HTTP/1.1 client's side of it (NULL: requests go through curl) */
	char node[96], host[96]; /* its name and host as node figures name them */
	int in_flight;
	int failed;
};

/* The client's own headroom over the current window (inference_headroom.c). */
struct inf_headroom {
	int64_t wall0, cpu0, runq0; /* at the window's start (runq0 -1: unknown) */
	int64_t lag_peak; /* the window's largest dispatch lag, ns */
	int64_t due, held, sent; /* arrivals dispatched, held at max_in_flight, requests sent */
	int stopped; /* the load stopped: its last window judged */
	int id_busy, id_runq, id_lag_peak, id_held, id_sat, id_agents;
};

/* One arrival waiting for an in-flight slot. */
struct pending {
	int64_t t_intended;
	int64_t input_tokens, output_tokens;
	uint64_t seq;
};

struct inf {
	struct gl_ctx *ctx;
	struct gl_metrics *m;
	CURLM *multi;
	struct event *ev_curl_timer, *ev_arrival, *ev_sweep;
	struct curl_slist *headers; /* holds the API key: never print */

	struct gl_inference_opts o; /* the section's scalar keys */
	struct endpoint *eps;
	int n_eps, rr, least;
	int chat;
	/* "adapters": arrival seq names adapter k when its seeded draw in
	 * [0,1) falls below cum[k] (the shares added up), else the model */
	struct {
		char model[256];
		double cum;
	} adapters[MAX_ADAPTERS];
	int n_adapters;
	int64_t timeout_ms;
	uint64_t seq;

	enum arrival mode;
	double rate, load;
	uint64_t rng;
	int64_t next_arrival; /* elapsed ns of the next open-loop arrival */
	struct gl_trace *trace;
	int64_t trace_base_ns; /* elapsed at the trace's time 0 of this pass */
	double trace_span_s, trace_start_s, trace_end_s;
	struct gl_trace_row trow;
	int have_trow;
	int trace_done;

	struct pending *q; /* ring of arrivals held by max_in_flight */
	size_t q_cap, q_head, q_len;

	struct req *live;
	int in_flight;
	int running;
	int active_users;

	int id_ttft, id_ttft_send, id_itl, id_tpot, id_lat, id_lag, id_otok;
	int id_requests, id_errors, id_otok_total, id_class[EC_N];
	int id_ad_requests, id_ad_errors;
	/* "slo": a request is good when it succeeded within both bounds
	 * (-1: not given); inference.good counts them (goodput) */
	double slo_ttft_ms, slo_tpot_ms;
	int id_good;
	/* inference_cache.c: inference.prompt_tokens, and the cache's figures
	 * once a server reported cached tokens (-1: not yet) */
	int id_ptok, id_cache_queried, id_cached;
	/* "sessions" (inference_sessions.c): turns of a conversation (0: no
	 * sessions), the pause before the next, its new user text's words */
	int sess_turns;
	int64_t sess_think_ns, sess_user_tokens;
	struct inf_session *sessions; /* every live conversation */
	struct inf_session *sess_next; /* the one whose turn inf_send_req sends now */
	struct inf_session *sess_wait, *sess_wait_tail; /* turns due, held by max_in_flight */
	int id_sessions, id_ttft_first, id_ttft_later;
	struct gl_buf scratch;
	CURL **pool; /* idle easy handles, reused */
	int n_pool, pool_cap;
	struct inf_sock **socks; /* by descriptor (inference_curl.c) */
	int n_socks;
	/* load agents (gl_ctx_shard): arrival n (and closed-loop user n) is
	 * this process's when n % shards == shard */
	int shard, shards;
	int64_t origin_ns;
	int64_t skipped; /* own arrivals before a late start */
	struct inf_headroom hr;
	struct inf_edge *edge; /* edge phases (inference_edge.c); NULL: the scenario has none */
};

/* inference_figures.c: its metrics and report rows (figures.h) */
extern const struct gl_workload_figures gl_inference_figures;

/* inference.c */
int64_t inf_now_ns(struct inf *w);
void inf_record_done(struct inf *w, struct req *r, enum err_class ec);
void inf_send_req(struct inf *w, int64_t t_intended, uint64_t seq, int64_t in_tok, int64_t out_tok,
		  const struct gl_trace_row *tr, int user);
void inf_finish_req(struct inf *w, struct req *r, CURLcode res);
void inf_check_done(struct inf *w);
/* A response's body bytes, as libcurl's write callback takes them: n, or
 * less to abort the request. */
size_t inf_on_write(char *data, size_t size, size_t nmemb, void *arg);

/* inference_h1.c: the own HTTP/1.1 client, for plain http:// endpoints
 * named by an IP address */
struct h1_conn;
struct h1_ep;
/* e's request head built (after w->headers): 0, or -1 when its URL is not
 * plain http:// to an IP address (its requests then go through curl). */
int inf_h1_endpoint(struct inf *w, struct endpoint *e);
/* r sent on its endpoint's connection: 0, or -1 when none could be had. */
int inf_h1_send(struct inf *w, struct req *r);
/* r off its connection (kept for the next request when its answer was
 * read whole and the server keeps it alive, else closed). */
void inf_h1_detach(struct req *r);
/* CURLE_OPERATION_TIMEDOUT when r ran past the whole-request limit (or
 * the connect limit while connecting), else CURLE_OK. */
CURLcode inf_h1_expired(struct inf *w, struct req *r, int64_t now);
void inf_h1_free(struct inf *w);

/* inference_cache.c */
/* What a usage object said of the prompt: its prompt_tokens and cached
 * tokens where given (>= 0), over what *prompt and *cached hold. */
void inf_usage_prompt(int64_t usage_prompt, int64_t usage_cached, int64_t *prompt, int64_t *cached);
/* A successful request's prompt tokens (the server's count, else the sent
 * one), and its cached tokens (-1: the server did not say). */
void inf_cache_record(struct inf *w, int64_t prompt_tokens, int64_t cached_tokens);
void inf_cache_register(struct inf *w);

/* inference_sessions.c */
void inf_sessions_init(struct inf *w, const cJSON *cfg);
/* The conversation request r (arrival seq) is a turn of: the one whose
 * turn is being sent, else a new one with r's prompt (in w->scratch) as
 * its first; NULL without "sessions". */
struct inf_session *inf_session_attach(struct inf *w, struct req *r, uint64_t seq);
/* A stream's event: its content goes into the answer. */
void inf_session_event(struct req *r, const struct gl_sse_event *ev);
/* Turn r finished (ec): its TTFT recorded by turn, the next turn due after
 * the think time, or the conversation over. 1 when it goes on (a closed
 * loop's user is busy with it), 0 when it ended. */
int inf_session_turn_done(struct inf *w, struct req *r, enum err_class ec);
/* Turns due and held by max_in_flight, while there is room. */
void inf_sessions_launch(struct inf *w);
void inf_sessions_free(struct inf *w);

/* inference_curl.c: curl's sockets and timer on the run's event loop
 * (inf_curl_free after curl_multi_cleanup, which closes sockets) */
int inf_curl_multi(struct inf *w);
void inf_curl_easy(struct inf *w, CURL *e);
void inf_curl_free(struct inf *w);

/* inference_body.c */
const char *inf_pick_model(struct inf *w, uint64_t seq);
/* Freed with cJSON_free. */
char *inf_build_body(struct inf *w, const char *model, uint64_t seq, int64_t input_tokens, int64_t output_tokens,
		     const struct gl_trace_row *tr);

/* inference_analysis.c: what the analysis and the live view read */
extern const struct gl_incident_rule gl_inference_incidents[];
extern const struct gl_live_figure gl_inference_live_figures[];
/* inference_sim.c: its model for `gauntlet simulate` */
extern const struct gl_workload_sim gl_inference_sim;

/* inference_headroom.c: the client's headroom, per window (docs/metrics.md,
 * "Client saturation") */
void inf_headroom_init(struct inf *w);
void inf_headroom_start(struct inf *w);
void inf_headroom_stop(struct inf *w);
/* an arrival dispatched lag_ns after its intended time; held: it waits
 * for an in-flight slot */
void inf_headroom_arrival(struct inf *w, int64_t lag_ns, int held);
void inf_headroom_window(struct inf *w);

/* inference_arrivals.c */
int inf_trace_next(struct inf *w);
void inf_on_arrival(evutil_socket_t fd, short what, void *arg);
void inf_arm_arrival(struct inf *w);
void inf_first_arrival(struct inf *w);
void inf_trace_skip_past(struct inf *w);
void inf_on_sweep(evutil_socket_t fd, short what, void *arg);

/* inference.c: the API key, from api_key_env or api_key_file (confined) */
int inf_read_key(struct gl_ctx *c, const cJSON *cfg, char *key, size_t n, struct gl_err *err);
/* inference_preflight.c: the ops table's preflight and check_files */
int inf_preflight(struct gl_ctx *c, const cJSON *cfg);
void inf_check_files(const struct gl_scenario *s, const cJSON *cfg, struct gl_diag *d, const char *path);

/* inference.c: end a request in flight now, with no outcome (an edge
 * probe's, inference_edge.c, which counts it) */
void inf_req_cancel(struct inf *w, struct req *r);

/* inference_edge.c: edge phases (docs/scenario.md, "Edge phases"). One
 * probe of a search, and a search as its store document holds it. */
struct inf_edge_probe {
	int slot;
	double rate;
	int64_t t0, t_send_end, t1; /* run elapsed: the slot, its sending part */
	int64_t requests, good, slow, errors, late;
	int pass, lost;
};
struct inf_edge_search {
	int phase;
	struct gl_edge_plan plan;
	int slots;
	int64_t slot_ns, settle_ns, start_ns; /* real; start: the phase's */
	struct inf_edge_probe p[GL_EDGE_MAX_PROBES];
	int n;
	int done;
	struct gl_edge_result res;
};
/* the ops' edge_check hook (plugin.h) */
void inf_edge_check(const cJSON *cfg, struct gl_edge_spec *e, struct gl_diag *d, const cJSON *at, const char *path);
/* the run: init (w->edge stays NULL without an edge phase), the phase in
 * force changed or the workload started (set_load, start), a request
 * finished (failed; good: within the SLO), stop, free */
int inf_edge_init(struct inf *w, const cJSON *cfg, struct gl_err *err);
void inf_edge_phase(struct inf *w);
void inf_edge_done(struct inf *w, const struct req *r, int failed, int good);
void inf_edge_stop(struct inf *w);
void inf_edge_free(struct inf *w);
/* a search of phase (an edge phase of sc) at time scale, with no probe;
 * its next rate; concluded; the rate of a phase at fraction f of its
 * edge; what it concluded in a sentence */
void inf_edge_search_init(struct inf_edge_search *s, const struct gl_scenario *sc, int phase, double scale);
double inf_edge_next_rate(const struct inf_edge_search *s);
void inf_edge_conclude(struct inf_edge_search *s);
double inf_edge_fraction_rate(const struct inf_edge_search *s, double f);
void inf_edge_note(const struct inf_edge_search *s, char *buf, size_t n);
/* the store document "edge" from the searches all[0..n) (0, or -1 logged),
 * and back (the probes it holds of those searches) */
int inf_edge_doc_put(struct gl_ctx *c, const cJSON *cfg, const struct inf_edge_search *all, int n);
void inf_edge_doc_get(struct gl_ctx *c, struct inf_edge_search *all, int n);

/* inference_nodes.c: an endpoint's node name and host (from its URL and
 * the scenario's hosts); a finished request's node figures */
void inf_endpoint_node(struct inf *w, struct endpoint *ep);
void inf_node_record(struct inf *w, const struct req *r, int failed, double ttft_ms);

#endif
