/*
 * target_int.h - private to `gauntlet target` (harness/target/target*.c): the
 * server's state, shared by the files that make it up. Who owns what:
 *   target_model.c   the deterministic timing model (declared in target.h)
 *   target_http.c    routing, validation of generation requests, the
 *                    handlers (/v1/..., /health, /metrics), error replies
 *   target_stream.c  streams: FIFO queue and sequence slots, the per-token
 *                    timer, client disconnects, injected closes
 *   target_body.c    what a stream writes: SSE chunks, JSON bodies, and the
 *                    malformed output --misbehave injects into them
 *   target_lora.c    LoRA adapters: /v1/load_lora_adapter and
 *                    /v1/unload_lora_adapter, the adapters /v1/models lists
 *   target_cache.c   the prefix cache model: chained block keys, LRU
 *                    (target_cache.h); target_http.c makes a request's
 *                    keys, target_stream.c admits them with its slot
 *   target.c         flags (--misbehave's modes), listening, life cycle,
 *                    gl_target_main
 */
#ifndef GL_TARGET_INT_H
#define GL_TARGET_INT_H

#include "target.h"
#include "target_cache.h"
#include "util.h"

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#define OVERSIZED_LINE_BYTES (2u * 1024u * 1024u)
#define STATUS_SLOTS 16
#define TIMER_SLACK_NS 20000 /* a token due within 20 us is written now */
#define DRIP_PERIOD_NS 1000000000LL

/* ---- server state ------------------------------------------------------ */

enum misbehave {
	MB_NONE = 0,
	MB_HTTP_429,
	MB_HTTP_500,
	MB_HTTP_503,
	MB_CLOSE_MID_STREAM,
	MB_GARBAGE_SSE,
	MB_OVERSIZED_LINE,
	MB_NO_DONE,
	MB_STREAM_ERROR,
	MB_HANG,
	MB_SLOW_DRIP,
	MB_CLOSE_AFTER_REPLY,
	MB_STALL,
};

enum api { API_CHAT, API_COMPLETIONS };

enum endpoint {
	EP_CHAT,
	EP_COMPLETIONS,
	EP_MODELS,
	EP_HEALTH,
	EP_METRICS,
	EP_LORA_LOAD,
	EP_LORA_UNLOAD,
	EP_OTHER,
	EP_COUNT
};

#define MAX_STATIC_LORAS 16

struct status_count {
	int status;
	uint64_t n;
};

/* SS_NEW: in no list yet; SS_QUEUED: in t->queue; SS_ACTIVE: holds a slot;
 * SS_HANG: held without a slot (--misbehave hang, and during shutdown). */
enum stream_state { SS_NEW, SS_QUEUED, SS_ACTIVE, SS_HANG };

struct target;

/* One generation request from arrival to its last byte. */
struct stream {
	struct target *t;
	struct evhttp_request *req;
	struct evhttp_connection *evcon;
	struct event *timer; /* next token, final reply, or drip byte */
	struct event *probe; /* EOF on the socket while we hold the request */
	struct evbuffer *drip; /* slow_drip: the bytes still to send */
	TAILQ_ENTRY(stream) all_link;
	TAILQ_ENTRY(stream) queue_link;
	enum stream_state state;
	enum api api;
	enum misbehave mb; /* what this request does wrong (MB_NONE: nothing) */
	int streaming, include_usage, length_finish;
	uint64_t seq;
	long long created_s;
	uint32_t prompt_tokens, n_tokens, next_token;
	int64_t t_next_ns; /* when token next_token is due */
	char *model_json; /* an adapter's name (JSON-escaped) when the
				      * request named one, else NULL: the base model */
	/* --prefix-cache-blocks: the prompt's block keys until it takes a
	 * slot (then freed), and the tokens found cached then */
	struct gl_prefix_keys keys;
	uint32_t cached_tokens;
};

TAILQ_HEAD(stream_list, stream);

struct target_opts {
	const char *listen;
	const char *model;
	const char *ready_file;
	char *api_key; /* --api-key-env: required bearer token, or NULL */
	struct gl_target_model m;
	uint32_t max_seqs;
	uint64_t max_body_bytes;
	enum misbehave mb;
	double mb_rate;
	int64_t stall_ns;
	double stall_at_s;
	/* --ttft-step-ms, --ttft-step-at-s: the TTFT from then on (-1: no step) */
	double step_ttft_ms, step_at_s;
	/* --ttft-drift-ms-per-hour: the TTFT grows by this per hour since the
	 * server started (a slow drift with a known slope) */
	double drift_ms_per_h;
	uint64_t idle_timeout_s; /* --idle-timeout-s: 0 never */
	uint64_t lora_load_ms; /* --lora-load-ms: how long a load takes */
	uint32_t max_loras; /* --max-loras: adapters loaded (or loading) at once */
	const char *static_loras[MAX_STATIC_LORAS]; /* --lora NAME=PATH */
	int n_static_loras;
	uint32_t prefix_cache_blocks; /* --prefix-cache-blocks: 0 no cache */
	uint32_t prefix_block_tokens; /* --prefix-block-tokens */
	int verbose;
};

struct target {
	struct target_opts o;
	struct event_base *base;
	struct evhttp *http;
	struct event *sig_int, *sig_term, *stall_log;
	char *model_json; /* the model name, JSON-escaped, no quotes */
	struct sockaddr_storage listen_addr; /* --listen, parsed */
	socklen_t listen_len;
	char bound[128]; /* "host:port" actually bound */
	struct stream_list all, queue;
	uint32_t n_active, n_queued, n_streams;
	uint64_t next_seq;
	int64_t t_start_ns, stall_start_ns, stall_end_ns;
	int64_t step_ns; /* when --ttft-step-ms takes over (INT64_MAX: never) */
	long long started_s;
	int stall_logged;
	struct status_count by_status[EP_COUNT][STATUS_SLOTS];
	uint64_t tokens_total, prompt_tokens_total, aborts_client, aborts_injected;
	struct lora *loras; /* adapters, loaded or loading */
	uint32_t n_loras;
	uint64_t lora_loads, lora_unloads;
	uint64_t lora_salt_next; /* the next adapter load's prefix-cache salt */
	struct gl_prefix_cache *cache; /* --prefix-cache-blocks, or NULL */
	uint64_t cache_queries, cache_hits; /* prompt tokens looked up, found */
};

/* One LoRA adapter: loading (its load reply still pending) or loaded. */
struct lora {
	struct lora *next;
	struct target *t;
	char *name, *name_json, *path_json;
	int loading;
	struct evhttp_request *req; /* the pending load's request (NULL once the client left) */
	struct event *timer; /* the load's end */
	long long created_s;
	uint64_t cache_salt; /* its blocks' salt in the prefix cache: one per load */
};

/* names of enum misbehave, as --misbehave spells them (target.c) */
extern const char *const tgt_mb_names[];

/* target_http.c */
void tgt_count_status(struct target *t, enum endpoint ep, int status);
void tgt_reply_error(struct target *t, struct evhttp_request *req, enum endpoint ep, int status, const char *type,
		     const char *param, const char *code, const char *msg);
void tgt_on_request(struct evhttp_request *req, void *arg);

/* target_stream.c */
struct stream *tgt_stream_new(struct target *t, struct evhttp_request *req);
void tgt_stream_free(struct stream *s);
void tgt_start_queued(struct target *t);

/* target_lora.c */
/* A loaded adapter named name (not one still loading), or NULL. */
const struct lora *tgt_lora_find(const struct target *t, const char *name);
int tgt_lora_static(struct target *t, const char *name_eq_path);
void tgt_lora_models(const struct target *t, struct gl_buf *b);
void tgt_lora_handle(struct target *t, struct evhttp_request *req, enum endpoint ep);
void tgt_lora_free_all(struct target *t);

/* target_body.c */
int tgt_add_stream_token(struct stream *s, struct evbuffer *out, uint32_t i);
void tgt_add_json_body(struct stream *s, struct evbuffer *out);

#endif
