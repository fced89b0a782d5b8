/*
 * inference_int.h - private to the inference workload (loadgen/inference*.c):
 * its state and what its files share. Who owns what:
 *   inference.c           requests (libcurl handles, SSE, timing,
 *                         classification, the store row, a closed-loop
 *                         user's next one), the ops (config, start,
 *                         stop, ...)
 *   inference_body.c      what a request sends: its model and JSON body
 *   inference_curl.c      curl's sockets and timer on the libevent loop
 *   inference_arrivals.c  when requests are made: the seeded random gaps,
 *                         the open-loop schedule and max_in_flight queue,
 *                         trace replay, the ttft/idle timeout sweep
 *   inference_analysis.c  what the analysis and the live view read
 *   inference_sim.c       its model for `gauntlet simulate`
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
	int64_t t_intended, t_send, t_headers, t_first_event, t_first_token, t_last_token, t_end;
	int64_t t_last_event;
	int64_t max_stall;
	int64_t input_tokens;
	int64_t token_events;
	float itl_ms[ITL_HOLD];
	int n_itl;
	enum err_class forced; /* set when we abort it ourselves */
	int add_failed; /* curl would not take it: finished by the sweep */
	int parsed; /* non-streaming: body_parse holds the body's reading */
	struct gl_oai_chunk body_parse;
	long status;
};

struct endpoint {
	char url[1024];
	CURLU *uh; /* its completions URL parsed once (NULL: curl parses the text each time) */
	char node[96], host[96]; /* its name and host as node figures name them */
	int in_flight;
	int failed;
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

/* inference_nodes.c: an endpoint's node name and host (from its URL and
 * the scenario's hosts); a finished request's node figures */
void inf_endpoint_node(struct inf *w, struct endpoint *ep);
void inf_node_record(struct inf *w, const struct req *r, int failed, double ttft_ms);

#endif
