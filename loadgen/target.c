/*
 * target.c - `gauntlet target`: an OpenAI-compatible token-streaming server
 * on libevent's evhttp. It is the inference back end of the lab and of the
 * tests: every token leaves at a time given by the deterministic model in
 * target.h, so a client's measured TTFT and ITL can be checked against it,
 * and --misbehave makes it fail in the ways the client must classify.
 *
 * Shape: one event loop. Each generation request becomes a struct stream
 * with one timer, re-armed per token (never a sleep). At most max_seqs
 * streams generate at once; the others wait in a FIFO queue. A client that
 * goes away is noticed by evhttp's connection close callback (when a write
 * fails) or by a per-stream read probe on the socket (EOF while the server
 * has nothing to write, e.g. while queued); either way the stream is freed
 * and counted as an abort.
 */
#include "target.h"
#include "netaddr.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define OVERSIZED_LINE_BYTES (2u * 1024u * 1024u)
#define STATUS_SLOTS 16
#define TIMER_SLACK_NS 20000   /* a token due within 20 us is written now */
#define DRIP_PERIOD_NS 1000000000LL

/* ---- the model --------------------------------------------------------- */

void gl_target_model_default(struct gl_target_model *m)
{
	m->seed = 1;
	m->ttft_ms = 50;
	m->prefill_us_per_token = 20;
	m->itl_ms = 10;
	m->itl_jitter = 0;
	m->output_tokens = 64;
	m->max_output_tokens = 8192;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t gl_target_hash(uint64_t seed, uint64_t req_seq, uint64_t idx)
{
	return splitmix64(splitmix64(splitmix64(seed) ^ req_seq) ^ idx);
}

double gl_target_jitter_u(uint64_t seed, uint64_t req_seq, uint64_t token_index)
{
	uint64_t h = gl_target_hash(seed, req_seq, token_index);
	return (double)(h >> 11) * 0x1p-53 * 2.0 - 1.0;
}

int64_t gl_target_ttft_ns(const struct gl_target_model *m, uint64_t prompt_tokens)
{
	return llround(m->ttft_ms * 1e6 + (double)prompt_tokens * m->prefill_us_per_token * 1e3);
}

int64_t gl_target_itl_ns(const struct gl_target_model *m, uint64_t req_seq,
			 uint64_t token_index)
{
	double f = 1.0;
	int64_t ns;

	if (m->itl_jitter != 0)
		f += m->itl_jitter * gl_target_jitter_u(m->seed, req_seq, token_index);
	ns = llround(m->itl_ms * 1e6 * f);
	return ns < 0 ? 0 : ns;
}

int64_t gl_target_token_offset_ns(const struct gl_target_model *m, uint64_t req_seq,
				  uint64_t prompt_tokens, uint64_t token_index)
{
	int64_t t = gl_target_ttft_ns(m, prompt_tokens);

	for (uint64_t i = 1; i <= token_index; i++)
		t += gl_target_itl_ns(m, req_seq, i);
	return t;
}

int64_t gl_target_stall_adjust(int64_t t_ns, int64_t stall_start_ns, int64_t stall_end_ns)
{
	if (stall_end_ns > stall_start_ns && t_ns >= stall_start_ns && t_ns < stall_end_ns)
		return stall_end_ns;
	return t_ns;
}

uint32_t gl_target_output_tokens(const struct gl_target_model *m, int64_t max_tokens,
				 int64_t min_tokens)
{
	int64_t n = max_tokens >= 1 ? max_tokens : (int64_t)m->output_tokens;

	if (min_tokens > n)
		n = min_tokens;
	if (n > (int64_t)m->max_output_tokens)
		n = m->max_output_tokens;
	return (uint32_t)n;
}

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

uint64_t gl_target_count_words(const char *s, size_t len)
{
	uint64_t n = 0;
	int in_word = 0;

	for (size_t i = 0; i < len; i++) {
		if (is_space((unsigned char)s[i])) {
			in_word = 0;
		} else if (!in_word) {
			in_word = 1;
			n++;
		}
	}
	return n;
}

int gl_target_misbehaves(uint64_t seed, uint64_t req_seq, double rate)
{
	double u01;

	if (rate >= 1.0)
		return 1;
	if (!(rate > 0.0))
		return 0;
	u01 = (double)(gl_target_hash(seed, req_seq, UINT64_MAX) >> 11) * 0x1p-53;
	return u01 < rate;
}

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
	MB_STALL,
};

static const char *const mb_names[] = {
	"none", "http_429", "http_500", "http_503", "close_mid_stream", "garbage_sse",
	"oversized_line", "no_done", "stream_error", "hang", "slow_drip", "stall_ms=N",
};

enum api { API_CHAT, API_COMPLETIONS };

enum endpoint { EP_CHAT, EP_COMPLETIONS, EP_MODELS, EP_HEALTH, EP_METRICS, EP_OTHER, EP_COUNT };

static const char *const ep_names[EP_COUNT] = {
	"/v1/chat/completions", "/v1/completions", "/v1/models", "/health", "/metrics", "other",
};

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
	struct event *timer;         /* next token, final reply, or drip byte */
	struct event *probe;         /* EOF on the socket while we hold the request */
	struct evbuffer *drip;       /* slow_drip: the bytes still to send */
	TAILQ_ENTRY(stream) all_link;
	TAILQ_ENTRY(stream) queue_link;
	enum stream_state state;
	enum api api;
	enum misbehave mb;           /* what this request does wrong (MB_NONE: nothing) */
	int streaming, include_usage, length_finish;
	uint64_t seq;
	long long created_s;
	uint32_t prompt_tokens, n_tokens, next_token;
	int64_t t_next_ns;           /* when token next_token is due */
};

TAILQ_HEAD(stream_list, stream);

struct target_opts {
	const char *listen;
	const char *model;
	const char *ready_file;
	char *api_key;            /* --api-key-env: required bearer token, or NULL */
	struct gl_target_model m;
	uint32_t max_seqs;
	uint64_t max_body_bytes;
	enum misbehave mb;
	double mb_rate;
	int64_t stall_ns;
	double stall_at_s;
	uint64_t idle_timeout_s;  /* --idle-timeout-s: 0 never */
	int verbose;
};

struct target {
	struct target_opts o;
	struct event_base *base;
	struct evhttp *http;
	struct event *sig_int, *sig_term, *stall_log;
	char *model_json;            /* the model name, JSON-escaped, no quotes */
	struct sockaddr_storage listen_addr;   /* --listen, parsed */
	socklen_t listen_len;
	char bound[128];             /* "host:port" actually bound */
	struct stream_list all, queue;
	uint32_t n_active, n_queued, n_streams;
	uint64_t next_seq;
	int64_t t_start_ns, stall_start_ns, stall_end_ns;
	long long started_s;
	int stall_logged;
	struct status_count by_status[EP_COUNT][STATUS_SLOTS];
	uint64_t tokens_total, prompt_tokens_total, aborts_client, aborts_injected;
};

static void count_status(struct target *t, enum endpoint ep, int status)
{
	struct status_count *sc = t->by_status[ep];

	for (int i = 0; i < STATUS_SLOTS; i++) {
		if (sc[i].status == status || sc[i].status == 0) {
			sc[i].status = status;
			sc[i].n++;
			return;
		}
	}
	sc[STATUS_SLOTS - 1].n++;   /* more distinct codes than slots: lump into the last */
}

/* ---- replies ----------------------------------------------------------- */

/* Reason phrases evhttp 2.1 does not know (it would say "Client Error"). */
static const char *reason_phrase(int status)
{
	switch (status) {
	case 413:
		return "Payload Too Large";
	case 429:
		return "Too Many Requests";
	default:
		return NULL;   /* evhttp's own */
	}
}

static void send_body(struct target *t, struct evhttp_request *req, enum endpoint ep,
		      int status, const char *content_type, const char *body, size_t len)
{
	struct evbuffer *buf = evbuffer_new();

	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", content_type);
	count_status(t, ep, status);
	if (buf)
		evbuffer_add(buf, body, len);
	evhttp_send_reply(req, status, reason_phrase(status), buf);
	if (buf)
		evbuffer_free(buf);
}

/* An OpenAI-style error body: {"error":{"message","type","param","code"}}. */
static char *error_json(int status, const char *type, const char *param, const char *code,
			const char *msg)
{
	cJSON *root = cJSON_CreateObject(), *e = cJSON_CreateObject();
	char *s = NULL;

	if (!root || !e) {
		cJSON_Delete(root);
		cJSON_Delete(e);
		return NULL;
	}
	cJSON_AddItemToObject(root, "error", e);
	cJSON_AddStringToObject(e, "message", msg);
	cJSON_AddStringToObject(e, "type", type);
	if (param)
		cJSON_AddStringToObject(e, "param", param);
	else
		cJSON_AddNullToObject(e, "param");
	if (code)
		cJSON_AddStringToObject(e, "code", code);
	else
		cJSON_AddNumberToObject(e, "code", status);
	s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}

static void reply_error(struct target *t, struct evhttp_request *req, enum endpoint ep,
			int status, const char *type, const char *param, const char *code,
			const char *msg)
{
	char *body = error_json(status, type, param, code, msg);
	static const char fallback[] = "{\"error\":{\"message\":\"out of memory\"}}";

	if (body)
		send_body(t, req, ep, status, "application/json", body, strlen(body));
	else
		send_body(t, req, ep, status, "application/json", fallback, sizeof(fallback) - 1);
	free(body);
}

/* ---- streams ----------------------------------------------------------- */

static void on_timer(evutil_socket_t fd, short what, void *arg);
static void on_probe(evutil_socket_t fd, short what, void *arg);
static void on_conn_close(struct evhttp_connection *evcon, void *arg);
static void start_queued(struct target *t);

static struct stream *stream_new(struct target *t, struct evhttp_request *req)
{
	struct stream *s = calloc(1, sizeof(*s));
	struct bufferevent *bev;

	if (!s)
		return NULL;
	s->t = t;
	s->req = req;
	s->evcon = evhttp_request_get_connection(req);
	s->timer = evtimer_new(t->base, on_timer, s);
	if (!s->timer || !s->evcon) {
		if (s->timer)
			event_free(s->timer);
		free(s);
		return NULL;
	}
	/* evhttp keeps reading disabled while a reply is pending, so a client
	 * that closes while we have nothing to write (queued, hung, waiting for
	 * the first token) would go unnoticed until the next write. Watch the
	 * socket ourselves; a failure here only delays that detection. */
	bev = evhttp_connection_get_bufferevent(s->evcon);
	if (bev && bufferevent_getfd(bev) >= 0) {
		s->probe = event_new(t->base, bufferevent_getfd(bev), EV_READ, on_probe, s);
		if (s->probe)
			event_add(s->probe, NULL);
	}
	evhttp_connection_set_closecb(s->evcon, on_conn_close, s);
	TAILQ_INSERT_TAIL(&t->all, s, all_link);
	t->n_streams++;
	return s;
}

/* Unlink and free a stream (never its request: the caller decides who owns
 * that). A freed slot goes to the head of the queue. */
static void stream_free(struct stream *s)
{
	struct target *t = s->t;
	int had_slot = s->state == SS_ACTIVE;

	if (s->evcon)
		evhttp_connection_set_closecb(s->evcon, NULL, NULL);
	if (s->state == SS_QUEUED) {
		TAILQ_REMOVE(&t->queue, s, queue_link);
		t->n_queued--;
	} else if (s->state == SS_ACTIVE) {
		t->n_active--;
	}
	TAILQ_REMOVE(&t->all, s, all_link);
	t->n_streams--;
	event_free(s->timer);
	if (s->probe)
		event_free(s->probe);
	if (s->drip)
		evbuffer_free(s->drip);
	free(s);
	if (had_slot)
		start_queued(t);
}

/* The client went away: evhttp is freeing the connection. When it failed
 * while our reply was unfinished, evhttp has detached the request and left
 * it to us. */
static void on_conn_close(struct evhttp_connection *evcon, void *arg)
{
	struct stream *s = arg;
	struct evhttp_request *req = s->req;
	int detached = evhttp_request_get_connection(req) == NULL;

	(void)evcon;

	s->t->aborts_client++;
	gl_debug("target: request %" PRIu64 ": client disconnected after %u of %u tokens",
		 s->seq, s->next_token, s->n_tokens);
	s->evcon = NULL;
	stream_free(s);
	if (detached)
		evhttp_request_free(req);
}

/* Drop the connection under a request, without finishing the reply. What was
 * already written is pushed out first (best effort). */
static void drop_connection(struct stream *s, int injected)
{
	struct evhttp_connection *evcon = s->evcon;
	struct bufferevent *bev = evhttp_connection_get_bufferevent(evcon);

	if (injected)
		s->t->aborts_injected++;
	else
		s->t->aborts_client++;
	if (bev && bufferevent_getfd(bev) >= 0)
		(void)evbuffer_write(bufferevent_get_output(bev), bufferevent_getfd(bev));
	stream_free(s);
	/* The request is still attached: freeing the connection frees it. */
	evhttp_connection_free(evcon);
}

static void on_probe(evutil_socket_t fd, short what, void *arg)
{
	struct stream *s = arg;
	char c;
	ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	(void)what;
	if (r > 0)
		return;   /* the client sent more (pipelining): stop watching */
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		event_add(s->probe, NULL);
		return;
	}
	gl_debug("target: request %" PRIu64 ": client closed the connection (%s)", s->seq,
		 r == 0 ? "EOF" : strerror(errno));
	drop_connection(s, 0);
}

static void arm_at(struct stream *s, int64_t t_ns)
{
	int64_t d = t_ns - gl_now_ns();
	struct timeval tv;

	if (d < 0)
		d = 0;
	d = (d + 999) / 1000;   /* round up to us: never fire before t_ns */
	tv.tv_sec = (time_t)(d / 1000000);
	tv.tv_usec = (suseconds_t)(d % 1000000);
	evtimer_add(s->timer, &tv);
}

static int64_t stall(const struct target *t, int64_t t_ns)
{
	return gl_target_stall_adjust(t_ns, t->stall_start_ns, t->stall_end_ns);
}

/* When token i (i >= 1) is due, given that token i-1 was due at t_prev. */
static int64_t next_due(const struct stream *s, int64_t t_prev, uint32_t i)
{
	return stall(s->t, t_prev + gl_target_itl_ns(&s->t->o.m, s->seq, i));
}

/* ---- bodies ------------------------------------------------------------ */

static void add_chunk_head(const struct stream *s, struct evbuffer *out)
{
	if (s->api == API_CHAT)
		evbuffer_add_printf(out,
				    "data: {\"id\":\"chatcmpl-gl%" PRIu64 "\",\"object\":"
				    "\"chat.completion.chunk\",\"created\":%lld,\"model\":\"%s\","
				    "\"choices\":[",
				    s->seq, s->created_s, s->t->model_json);
	else
		evbuffer_add_printf(out,
				    "data: {\"id\":\"cmpl-gl%" PRIu64 "\",\"object\":"
				    "\"text_completion\",\"created\":%lld,\"model\":\"%s\","
				    "\"choices\":[",
				    s->seq, s->created_s, s->t->model_json);
}

static const char *finish_json(const struct stream *s)
{
	if (s->mb == MB_NO_DONE)
		return "null";
	return s->length_finish ? "\"length\"" : "\"stop\"";
}

static void add_role_chunk(const struct stream *s, struct evbuffer *out)
{
	add_chunk_head(s, out);
	evbuffer_add_printf(out, "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
				 "\"logprobs\":null,\"finish_reason\":null}]}\n\n");
}

static void add_token_chunk(const struct stream *s, struct evbuffer *out, uint32_t i)
{
	const char *fin = i + 1 == s->n_tokens ? finish_json(s) : "null";

	add_chunk_head(s, out);
	if (s->api == API_CHAT)
		evbuffer_add_printf(out, "{\"index\":0,\"delta\":{\"content\":\"tok%u \"},"
					 "\"logprobs\":null,\"finish_reason\":%s}]}\n\n", i, fin);
	else
		evbuffer_add_printf(out, "{\"index\":0,\"text\":\"tok%u \",\"logprobs\":null,"
					 "\"finish_reason\":%s}]}\n\n", i, fin);
}

static void add_x(struct evbuffer *out, size_t n)
{
	char block[4096];

	memset(block, 'x', sizeof(block));
	while (n) {
		size_t k = n < sizeof(block) ? n : sizeof(block);
		evbuffer_add(out, block, k);
		n -= k;
	}
}

static const char stream_error_event[] =
	"data: {\"error\":{\"object\":\"error\",\"message\":\"injected stream error "
	"(gauntlet target --misbehave stream_error)\",\"type\":\"server_error\","
	"\"param\":null,\"code\":500}}\n\n";

/* The misbehaviour written right after token gl_target_inject_after(n).
 * Returns 1 when the stream ends there. */
static int add_injection(const struct stream *s, struct evbuffer *out)
{
	switch (s->mb) {
	case MB_GARBAGE_SSE:
		evbuffer_add_printf(out, "data: {\"id\": this is not json ]]\n\n");
		return 0;
	case MB_OVERSIZED_LINE:
		add_chunk_head(s, out);
		evbuffer_add_printf(out, s->api == API_CHAT ? "{\"index\":0,\"delta\":{\"content\":\""
							    : "{\"index\":0,\"text\":\"");
		add_x(out, OVERSIZED_LINE_BYTES);
		evbuffer_add_printf(out, s->api == API_CHAT
						 ? "\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
						 : "\",\"logprobs\":null,\"finish_reason\":null}]}\n\n");
		return 0;
	case MB_STREAM_ERROR:
		evbuffer_add(out, stream_error_event, sizeof(stream_error_event) - 1);
		evbuffer_add_printf(out, "data: [DONE]\n\n");
		return 1;
	default:
		return 0;
	}
}

/* What follows the last token: usage chunk and [DONE] (neither for no_done). */
static void add_stream_tail(const struct stream *s, struct evbuffer *out)
{
	if (s->mb == MB_NO_DONE)
		return;
	if (s->include_usage) {
		add_chunk_head(s, out);
		evbuffer_add_printf(out, "],\"usage\":{\"prompt_tokens\":%u,\"completion_tokens\":%u,"
					 "\"total_tokens\":%u}}\n\n",
				    s->prompt_tokens, s->n_tokens, s->prompt_tokens + s->n_tokens);
	}
	evbuffer_add_printf(out, "data: [DONE]\n\n");
}

/* Token i's part of the stream, with the role chunk before token 0 and the
 * misbehaviour injected after gl_target_inject_after(n). Returns 1 when the
 * stream ends after it. */
static int add_stream_token(struct stream *s, struct evbuffer *out, uint32_t i)
{
	if (i == 0 && s->api == API_CHAT)
		add_role_chunk(s, out);
	add_token_chunk(s, out, i);
	s->t->tokens_total++;
	if (i == gl_target_inject_after(s->n_tokens) && add_injection(s, out))
		return 1;
	if (i + 1 == s->n_tokens) {
		add_stream_tail(s, out);
		return 1;
	}
	return 0;
}

/* The whole non-streaming response body. */
static void add_json_body(struct stream *s, struct evbuffer *out)
{
	int chat = s->api == API_CHAT;

	if (s->mb == MB_GARBAGE_SSE) {
		evbuffer_add_printf(out, "{\"id\": this is not json ]]");
		return;
	}
	evbuffer_add_printf(out,
			    "{\"id\":\"%s%" PRIu64 "\",\"object\":\"%s\",\"created\":%lld,"
			    "\"model\":\"%s\",\"choices\":[{\"index\":0,%s",
			    chat ? "chatcmpl-gl" : "cmpl-gl", s->seq,
			    chat ? "chat.completion" : "text_completion", s->created_s,
			    s->t->model_json,
			    chat ? "\"message\":{\"role\":\"assistant\",\"content\":\"" : "\"text\":\"");
	if (s->mb == MB_OVERSIZED_LINE)
		add_x(out, OVERSIZED_LINE_BYTES);
	for (uint32_t i = 0; i < s->n_tokens; i++)
		evbuffer_add_printf(out, "tok%u ", i);
	s->t->tokens_total += s->n_tokens;
	evbuffer_add_printf(out, "\"%s,\"logprobs\":null,\"finish_reason\":%s}]", chat ? "}" : "",
			    finish_json(s));
	if (s->mb != MB_NO_DONE)
		evbuffer_add_printf(out, ",\"usage\":{\"prompt_tokens\":%u,\"completion_tokens\":%u,"
					 "\"total_tokens\":%u}",
				    s->prompt_tokens, s->n_tokens, s->prompt_tokens + s->n_tokens);
	evbuffer_add_printf(out, "}");
}

/* ---- stream progress --------------------------------------------------- */

/* Finish the reply normally: the stream is freed before the request is
 * handed back to evhttp, so no callback can reach a freed stream. */
static void finish_stream(struct stream *s)
{
	struct evhttp_request *req = s->req;

	stream_free(s);
	evhttp_send_reply_end(req);
}

static void start_stream(struct stream *s, int64_t t_slot)
{
	struct target *t = s->t;

	s->state = SS_ACTIVE;
	t->n_active++;
	if (s->mb == MB_SLOW_DRIP) {
		s->drip = evbuffer_new();
		if (s->drip) {
			if (s->streaming) {
				for (uint32_t i = 0; i < s->n_tokens; i++)
					if (add_stream_token(s, s->drip, i))
						break;
			} else {
				add_json_body(s, s->drip);
				evhttp_add_header(evhttp_request_get_output_headers(s->req),
						  "Content-Type", "application/json");
				count_status(t, s->api == API_CHAT ? EP_CHAT : EP_COMPLETIONS, 200);
				evhttp_send_reply_start(s->req, 200, NULL);
			}
		}
		arm_at(s, t_slot);
		return;
	}
	s->next_token = 0;
	s->t_next_ns = stall(t, t_slot + gl_target_ttft_ns(&t->o.m, s->prompt_tokens));
	if (!s->streaming) {
		/* One timer, at the time of the token where the reply happens. */
		uint32_t last = s->n_tokens - 1;
		if (s->mb == MB_CLOSE_MID_STREAM)
			last = gl_target_close_at(s->n_tokens);
		else if (s->mb == MB_STREAM_ERROR)
			last = gl_target_inject_after(s->n_tokens);
		for (uint32_t i = 1; i <= last; i++)
			s->t_next_ns = next_due(s, s->t_next_ns, i);
		s->next_token = last;
	}
	arm_at(s, s->t_next_ns);
}

static void start_queued(struct target *t)
{
	struct stream *s;
	int64_t now = gl_now_ns();

	while (t->n_active < t->o.max_seqs && (s = TAILQ_FIRST(&t->queue)) != NULL) {
		TAILQ_REMOVE(&t->queue, s, queue_link);
		t->n_queued--;
		start_stream(s, now);
	}
}

static void tick_drip(struct stream *s)
{
	struct evbuffer *one;
	char c;

	if (!s->drip || evbuffer_get_length(s->drip) == 0) {
		finish_stream(s);
		return;
	}
	evbuffer_remove(s->drip, &c, 1);
	one = evbuffer_new();
	if (one) {
		evbuffer_add(one, &c, 1);
		evhttp_send_reply_chunk(s->req, one);
		evbuffer_free(one);
	}
	arm_at(s, gl_now_ns() + DRIP_PERIOD_NS);
}

static void tick_nonstream(struct stream *s)
{
	struct target *t = s->t;
	struct evhttp_request *req = s->req;
	enum endpoint ep = s->api == API_CHAT ? EP_CHAT : EP_COMPLETIONS;
	struct evbuffer *body;

	if (s->mb == MB_CLOSE_MID_STREAM) {
		drop_connection(s, 1);
		return;
	}
	if (s->mb == MB_STREAM_ERROR) {
		stream_free(s);
		reply_error(t, req, ep, 500, "server_error", NULL, NULL,
			    "injected error (gauntlet target --misbehave stream_error)");
		return;
	}
	body = evbuffer_new();
	if (body)
		add_json_body(s, body);
	stream_free(s);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "application/json");
	count_status(t, ep, 200);
	evhttp_send_reply(req, 200, NULL, body);
	if (body)
		evbuffer_free(body);
}

static void tick_stream(struct stream *s)
{
	int64_t now = gl_now_ns();
	struct evbuffer *out = evbuffer_new();
	int done = 0, drop = 0;

	if (!out) {
		arm_at(s, now + 1000000);   /* try again in a millisecond */
		return;
	}
	/* Write every token that is due; several only when the loop ran late. */
	while (!done && s->t_next_ns <= now + TIMER_SLACK_NS) {
		uint32_t i = s->next_token;

		if (s->mb == MB_CLOSE_MID_STREAM && i == gl_target_close_at(s->n_tokens)) {
			drop = 1;
			break;
		}
		done = add_stream_token(s, out, i);
		s->next_token++;
		if (!done)
			s->t_next_ns = next_due(s, s->t_next_ns, s->next_token);
	}
	if (evbuffer_get_length(out))
		evhttp_send_reply_chunk(s->req, out);
	evbuffer_free(out);
	if (drop)
		drop_connection(s, 1);
	else if (done)
		finish_stream(s);
	else
		arm_at(s, s->t_next_ns);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct stream *s = arg;

	(void)fd;
	(void)what;
	if (s->mb == MB_SLOW_DRIP)
		tick_drip(s);
	else if (!s->streaming)
		tick_nonstream(s);
	else
		tick_stream(s);
}

/* ---- request parsing --------------------------------------------------- */

struct gen_req {
	int stream, include_usage, length_finish;
	uint64_t prompt_tokens;
	uint32_t n_tokens;
};

struct req_error {
	int status;
	const char *param;
	const char *code;
	char msg[512];
};

static int req_fail(struct req_error *e, int status, const char *param, const char *code,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int req_fail(struct req_error *e, int status, const char *param, const char *code,
		    const char *fmt, ...)
{
	va_list ap;

	e->status = status;
	e->param = param;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* An optional integer field in [lo, hi]; *out = -1 when absent or null. */
static int get_int(const cJSON *root, const char *name, int64_t lo, int64_t hi, int64_t *out,
		   struct req_error *e)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, name);

	*out = -1;
	if (!it || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
	    it->valuedouble < (double)lo || it->valuedouble > (double)hi)
		return req_fail(e, 400, name, NULL, "'%s' must be an integer between %" PRId64
				" and %" PRId64, name, lo, hi);
	*out = (int64_t)it->valuedouble;
	return 0;
}

/* An optional boolean field; *out = dflt when absent or null. */
static int get_bool(const cJSON *root, const char *name, int dflt, int *out,
		    struct req_error *e)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, name);

	*out = dflt;
	if (!it || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsBool(it))
		return req_fail(e, 400, name, NULL, "'%s' must be a boolean", name);
	*out = cJSON_IsTrue(it);
	return 0;
}

static uint64_t words_of(const char *s)
{
	return gl_target_count_words(s, strlen(s));
}

static int count_messages(const cJSON *msgs, uint64_t *n, struct req_error *e)
{
	const cJSON *m;
	int idx = 0;

	if (!cJSON_IsArray(msgs) || cJSON_GetArraySize(msgs) == 0)
		return req_fail(e, 400, "messages", NULL, "'messages' must be a non-empty array");
	cJSON_ArrayForEach(m, msgs) {
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
		const cJSON *part;

		if (!cJSON_IsObject(m))
			return req_fail(e, 400, "messages", NULL,
					"'messages[%d]' must be an object", idx);
		if (cJSON_IsString(content)) {
			*n += words_of(content->valuestring);
		} else if (cJSON_IsArray(content)) {
			cJSON_ArrayForEach(part, content) {
				const cJSON *text = cJSON_GetObjectItemCaseSensitive(part, "text");
				if (cJSON_IsString(text))
					*n += words_of(text->valuestring);
			}
		} else if (content && !cJSON_IsNull(content)) {
			return req_fail(e, 400, "messages", NULL,
					"'messages[%d].content' must be a string or an array",
					idx);
		}
		idx++;
	}
	return 0;
}

static int count_prompt(const cJSON *prompt, uint64_t *n, struct req_error *e)
{
	const cJSON *p;

	if (cJSON_IsString(prompt)) {
		*n += words_of(prompt->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(prompt))
		return req_fail(e, 400, "prompt", NULL,
				"'prompt' must be a string, an array of strings or of token ids");
	cJSON_ArrayForEach(p, prompt) {
		if (cJSON_IsString(p))
			*n += words_of(p->valuestring);
		else if (cJSON_IsNumber(p))
			*n += 1;   /* a token id */
		else if (cJSON_IsArray(p))
			*n += (uint64_t)cJSON_GetArraySize(p);
		else
			return req_fail(e, 400, "prompt", NULL,
					"'prompt' must be a string, an array of strings or of token ids");
	}
	return 0;
}

static int parse_gen(const struct target *t, enum api api, const char *body, size_t len,
		     struct gen_req *g, struct req_error *e)
{
	cJSON *root = NULL;
	const cJSON *it, *so;
	int64_t max_tokens, max_completion, min_tokens;
	int ignore_eos, rc = -1;

	memset(g, 0, sizeof(*g));
	root = cJSON_ParseWithLength(body ? body : "", len);
	if (!root) {
		const char *at = cJSON_GetErrorPtr();
		long off = at && body && at >= body && at <= body + len ? (long)(at - body) : -1;
		req_fail(e, 400, NULL, NULL,
			 "We could not parse the JSON body of your request (error near byte %ld). "
			 "The body must be a JSON object.", off);
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		req_fail(e, 400, NULL, NULL, "The request body must be a JSON object.");
		goto out;
	}
	it = cJSON_GetObjectItemCaseSensitive(root, "model");
	if (it && !cJSON_IsNull(it)) {
		if (!cJSON_IsString(it)) {
			req_fail(e, 400, "model", NULL, "'model' must be a string");
			goto out;
		}
		if (strcmp(it->valuestring, t->o.model) != 0) {
			req_fail(e, 404, "model", "model_not_found",
				 "The model `%.200s` does not exist.", it->valuestring);
			goto out;
		}
	}
	if (api == API_CHAT) {
		if (count_messages(cJSON_GetObjectItemCaseSensitive(root, "messages"),
				   &g->prompt_tokens, e))
			goto out;
	} else if (count_prompt(cJSON_GetObjectItemCaseSensitive(root, "prompt"),
				&g->prompt_tokens, e)) {
		goto out;
	}
	if (get_int(root, "max_tokens", 1, INT32_MAX, &max_tokens, e) ||
	    get_int(root, "max_completion_tokens", 1, INT32_MAX, &max_completion, e) ||
	    get_int(root, "min_tokens", 0, INT32_MAX, &min_tokens, e) ||
	    get_bool(root, "ignore_eos", 0, &ignore_eos, e) ||
	    get_bool(root, "stream", 0, &g->stream, e))
		goto out;
	if (max_tokens < 0)
		max_tokens = max_completion;
	if (min_tokens >= 0 && max_tokens >= 0 && min_tokens > max_tokens) {
		req_fail(e, 400, "min_tokens", NULL,
			 "'min_tokens' (%" PRId64 ") must not exceed 'max_tokens' (%" PRId64 ")",
			 min_tokens, max_tokens);
		goto out;
	}
	so = cJSON_GetObjectItemCaseSensitive(root, "stream_options");
	if (so && !cJSON_IsNull(so)) {
		if (!cJSON_IsObject(so)) {
			req_fail(e, 400, "stream_options", NULL, "'stream_options' must be an object");
			goto out;
		}
		if (!g->stream) {
			req_fail(e, 400, "stream_options", NULL,
				 "'stream_options' is only allowed when 'stream' is true");
			goto out;
		}
		if (get_bool(so, "include_usage", 0, &g->include_usage, e))
			goto out;
	}
	g->n_tokens = gl_target_output_tokens(&t->o.m, max_tokens, min_tokens);
	/* "length" when the output stopped at a limit (max_tokens or the server's
	 * cap), "stop" when it ended at the default length. */
	g->length_finish = max_tokens >= 1 ||
			   (min_tokens > (int64_t)t->o.m.output_tokens ? min_tokens
								       : (int64_t)t->o.m.output_tokens) >
				   (int64_t)t->o.m.max_output_tokens;
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

/* ---- handlers ---------------------------------------------------------- */

static void handle_generate(struct target *t, struct evhttp_request *req, enum api api)
{
	enum endpoint ep = api == API_CHAT ? EP_CHAT : EP_COMPLETIONS;
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in);
	const char *body = len ? (const char *)evbuffer_pullup(in, -1) : NULL;
	struct req_error e = { 0 };
	struct gen_req g;
	struct stream *s;
	uint64_t seq;
	enum misbehave mb = MB_NONE;

	if (len > t->o.max_body_bytes) {
		reply_error(t, req, ep, 413, "invalid_request_error", NULL, "request_too_large",
			    "The request body is larger than this server accepts.");
		return;
	}
	if (parse_gen(t, api, body, len, &g, &e)) {
		reply_error(t, req, ep, e.status, "invalid_request_error", e.param, e.code, e.msg);
		return;
	}
	seq = t->next_seq++;
	t->prompt_tokens_total += g.prompt_tokens;
	if (t->o.mb != MB_NONE && t->o.mb != MB_STALL &&
	    gl_target_misbehaves(t->o.m.seed, seq, t->o.mb_rate))
		mb = t->o.mb;
	gl_debug("target: request %" PRIu64 " %s: %" PRIu64 " prompt tokens, %u output tokens%s%s",
		 seq, ep_names[ep], g.prompt_tokens, g.n_tokens, mb ? ", misbehaving: " : "",
		 mb ? mb_names[mb] : "");
	switch (mb) {
	case MB_HTTP_429:
		evhttp_add_header(evhttp_request_get_output_headers(req), "Retry-After", "1");
		reply_error(t, req, ep, 429, "rate_limit_error", NULL, "rate_limit_exceeded",
			    "Rate limit reached (injected by gauntlet target --misbehave http_429).");
		return;
	case MB_HTTP_500:
		reply_error(t, req, ep, 500, "server_error", NULL, NULL,
			    "Internal server error (injected by gauntlet target --misbehave http_500).");
		return;
	case MB_HTTP_503:
		reply_error(t, req, ep, 503, "server_error", NULL, "service_unavailable",
			    "Service unavailable (injected by gauntlet target --misbehave http_503).");
		return;
	default:
		break;
	}
	s = stream_new(t, req);
	if (!s) {
		reply_error(t, req, ep, 500, "server_error", NULL, NULL, "out of memory");
		return;
	}
	s->api = api;
	s->mb = mb;
	s->seq = seq;
	s->created_s = (long long)time(NULL);
	s->streaming = g.stream;
	s->include_usage = g.include_usage;
	s->length_finish = g.length_finish;
	s->prompt_tokens = g.prompt_tokens > UINT32_MAX ? UINT32_MAX : (uint32_t)g.prompt_tokens;
	s->n_tokens = g.n_tokens;
	if (mb == MB_HANG) {
		s->state = SS_HANG;
		return;
	}
	if (s->streaming) {
		struct evkeyvalq *h = evhttp_request_get_output_headers(req);
		evhttp_add_header(h, "Content-Type", "text/event-stream");
		evhttp_add_header(h, "Cache-Control", "no-cache");
		count_status(t, ep, 200);
		evhttp_send_reply_start(req, 200, NULL);
	}
	s->state = SS_QUEUED;
	TAILQ_INSERT_TAIL(&t->queue, s, queue_link);
	t->n_queued++;
	start_queued(t);
}

static void handle_models(struct target *t, struct evhttp_request *req)
{
	struct gl_buf b;

	gl_buf_init(&b, 64 * 1024);
	if (gl_buf_printf(&b, "{\"object\":\"list\",\"data\":[{\"id\":\"%s\",\"object\":\"model\","
			      "\"created\":%lld,\"owned_by\":\"gauntlet\",\"root\":\"%s\","
			      "\"max_model_len\":null}]}",
			  t->model_json, t->started_s, t->model_json) == 0)
		send_body(t, req, EP_MODELS, 200, "application/json", b.data, b.len);
	else
		reply_error(t, req, EP_MODELS, 500, "server_error", NULL, NULL, "out of memory");
	gl_buf_free(&b);
}

static void metric_head(struct gl_buf *b, const char *name, const char *type, const char *help)
{
	gl_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void handle_metrics(struct target *t, struct evhttp_request *req)
{
	struct gl_buf b;

	gl_buf_init(&b, 1024 * 1024);
	metric_head(&b, "gauntlet_target_requests_total", "counter",
		    "HTTP responses started, by endpoint and status code.");
	for (int ep = 0; ep < EP_COUNT; ep++)
		for (int i = 0; i < STATUS_SLOTS && t->by_status[ep][i].status; i++)
			gl_buf_printf(&b, "gauntlet_target_requests_total{endpoint=\"%s\","
					  "status=\"%d\"} %" PRIu64 "\n",
				      ep_names[ep], t->by_status[ep][i].status,
				      t->by_status[ep][i].n);
	metric_head(&b, "gauntlet_target_in_flight", "gauge",
		    "Generation requests accepted and not finished (queued, generating or hung).");
	gl_buf_printf(&b, "gauntlet_target_in_flight %u\n", t->n_streams);
	metric_head(&b, "gauntlet_target_queued", "gauge", "Requests waiting for a sequence slot.");
	gl_buf_printf(&b, "gauntlet_target_queued %u\n", t->n_queued);
	metric_head(&b, "gauntlet_target_active_sequences", "gauge",
		    "Requests holding a sequence slot.");
	gl_buf_printf(&b, "gauntlet_target_active_sequences %u\n", t->n_active);
	metric_head(&b, "gauntlet_target_max_sequences", "gauge", "Configured --max-seqs.");
	gl_buf_printf(&b, "gauntlet_target_max_sequences %u\n", t->o.max_seqs);
	metric_head(&b, "gauntlet_target_tokens_generated_total", "counter",
		    "Output tokens written (streaming) or returned (non-streaming).");
	gl_buf_printf(&b, "gauntlet_target_tokens_generated_total %" PRIu64 "\n", t->tokens_total);
	metric_head(&b, "gauntlet_target_prompt_tokens_total", "counter",
		    "Prompt tokens of accepted generation requests.");
	gl_buf_printf(&b, "gauntlet_target_prompt_tokens_total %" PRIu64 "\n",
		      t->prompt_tokens_total);
	metric_head(&b, "gauntlet_target_stream_aborts_total", "counter",
		    "Responses cut off before their end, by reason.");
	gl_buf_printf(&b, "gauntlet_target_stream_aborts_total{reason=\"client_disconnect\"} %" PRIu64
			  "\ngauntlet_target_stream_aborts_total{reason=\"injected_close\"} %" PRIu64 "\n",
		      t->aborts_client, t->aborts_injected);
	send_body(t, req, EP_METRICS, 200, "text/plain; version=0.0.4", b.data ? b.data : "", b.len);
	gl_buf_free(&b);
}

/* The request carries the bearer token (compared in constant time). */
static int authorized(const struct target *t, struct evhttp_request *req)
{
	const char *h = evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
	size_t n = strlen(t->o.api_key), m;
	unsigned char diff = 0;

	if (!h || strncmp(h, "Bearer ", 7) != 0)
		return 0;
	h += 7;
	m = strlen(h);
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(t->o.api_key[i] ^ (i < m ? h[i] : 0));
	return diff == 0 && m == n;
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct target *t = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	enum endpoint ep = EP_OTHER;
	int want_post = 0;
	char msg[256];

	/* Tokens go out as they are made: without TCP_NODELAY, Nagle holds the
	 * first token behind the unacknowledged headers (~40 ms). */
	{
		struct evhttp_connection *conn = evhttp_request_get_connection(req);
		struct bufferevent *bev = conn ? evhttp_connection_get_bufferevent(conn) : NULL;
		evutil_socket_t fd = bev ? bufferevent_getfd(bev) : -1;
		int one = 1;
		if (fd >= 0)
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}

	if (!path)
		path = "";
	if (strcmp(path, "/v1/chat/completions") == 0)
		ep = EP_CHAT, want_post = 1;
	else if (strcmp(path, "/v1/completions") == 0)
		ep = EP_COMPLETIONS, want_post = 1;
	else if (strcmp(path, "/v1/models") == 0)
		ep = EP_MODELS;
	else if (strcmp(path, "/health") == 0)
		ep = EP_HEALTH;
	else if (strcmp(path, "/metrics") == 0)
		ep = EP_METRICS;
	if (ep == EP_OTHER) {
		snprintf(msg, sizeof(msg), "Unknown request URL: %.200s", path);
		reply_error(t, req, ep, 404, "invalid_request_error", NULL, "unknown_url", msg);
		return;
	}
	if (want_post ? cmd != EVHTTP_REQ_POST : (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD)) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow",
				  want_post ? "POST" : "GET, HEAD");
		snprintf(msg, sizeof(msg), "Method not allowed on %s; use %s.", path,
			 want_post ? "POST" : "GET");
		reply_error(t, req, ep, 405, "invalid_request_error", NULL, "method_not_allowed", msg);
		return;
	}
	if (t->o.api_key && (ep == EP_CHAT || ep == EP_COMPLETIONS || ep == EP_MODELS) && !authorized(t, req)) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate", "Bearer");
		reply_error(t, req, ep, 401, "invalid_request_error", NULL, "invalid_api_key",
			    "Missing or wrong API key (Authorization: Bearer ...).");
		return;
	}
	switch (ep) {
	case EP_CHAT:
		handle_generate(t, req, API_CHAT);
		break;
	case EP_COMPLETIONS:
		handle_generate(t, req, API_COMPLETIONS);
		break;
	case EP_MODELS:
		handle_models(t, req);
		break;
	case EP_HEALTH:
		send_body(t, req, EP_HEALTH, 200, "application/json", "{\"status\":\"ok\"}", 15);
		break;
	default:
		handle_metrics(t, req);
		break;
	}
}

/* ---- flags ------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gauntlet target --listen HOST:PORT [flags]\n"
		"  An OpenAI-compatible token-streaming server with a deterministic timing model.\n"
		"  --listen ADDR              host:port or [ipv6]:port; port 0 picks a free port\n"
		"  --model NAME               model name served (default gauntlet-target)\n"
		"  --seed N                   seed of every random choice (default 1)\n"
		"  --max-seqs N               concurrent sequences; more wait FIFO (default 64)\n"
		"  --ttft-ms MS               time to first token after taking a slot (default 50)\n"
		"  --prefill-us-per-token US  added to TTFT per prompt token (default 20)\n"
		"  --itl-ms MS                inter-token gap (default 10)\n"
		"  --itl-jitter J             gap = itl * (1 + J*u), u in [-1,1) (0..1, default 0)\n"
		"  --output-tokens N          output length without max_tokens (default 64)\n"
		"  --max-output-tokens N      cap on any output length (default 8192)\n"
		"  --max-body-bytes N         larger request bodies get 413 (default 8388608)\n"
		"  --misbehave MODE           http_429 http_500 http_503 close_mid_stream garbage_sse\n"
		"                             oversized_line no_done stream_error hang slow_drip\n"
		"                             stall_ms=N (with --stall-at-s)\n"
		"  --misbehave-rate P         share of requests that misbehave, 0..1 (default 1)\n"
		"  --stall-at-s S             when the stall_ms=N window opens, s after start\n"
		"  --ready-file PATH          write \"host:port\\n\" there once listening\n"
		"  --api-key-env VAR          require \"Authorization: Bearer $VAR\" on /v1 (else 401)\n"
		"  --idle-timeout-s S         close a connection that sends no byte of a request\n"
		"                             for S s, or does not read what it is sent (default\n"
		"                             30; 0 never)\n"
		"  --verbose                  log every request\n");
}

static int flag_double(const char *name, const char *v, double lo, double hi, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < lo || d > hi) {
		fprintf(stderr, "gauntlet target: --%s: expected a number in [%g, %g], got '%s'\n",
			name, lo, hi, v);
		return -1;
	}
	*out = d;
	return 0;
}

static int flag_u64(const char *name, const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long u;

	errno = 0;
	u = strtoull(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-' || u < lo || u > hi) {
		fprintf(stderr, "gauntlet target: --%s: expected an integer in [%" PRIu64 ", %" PRIu64
				"], got '%s'\n", name, lo, hi, v);
		return -1;
	}
	*out = u;
	return 0;
}

static int parse_misbehave(const char *v, struct target_opts *o)
{
	uint64_t ms;

	for (int i = MB_HTTP_429; i < MB_STALL; i++) {
		if (strcmp(v, mb_names[i]) == 0) {
			o->mb = (enum misbehave)i;
			return 0;
		}
	}
	if (strncmp(v, "stall_ms=", 9) == 0) {
		if (flag_u64("misbehave stall_ms", v + 9, 1, 3600000, &ms))
			return -1;
		o->mb = MB_STALL;
		o->stall_ns = (int64_t)ms * 1000000;
		return 0;
	}
	fprintf(stderr, "gauntlet target: --misbehave: unknown mode '%s'; expected one of "
			"http_429, http_500, http_503, close_mid_stream, garbage_sse, "
			"oversized_line, no_done, stream_error, hang, slow_drip, stall_ms=N\n", v);
	return -1;
}

/* Returns 0 to run, 1 when --help was printed, -1 on a bad flag. */
static int parse_flags(int argc, char **argv, struct target_opts *o)
{
	uint64_t u;
	int have_stall_at = 0;

	memset(o, 0, sizeof(*o));
	gl_target_model_default(&o->m);
	o->model = "gauntlet-target";
	o->max_seqs = 64;
	o->max_body_bytes = 8u * 1024u * 1024u;
	o->mb_rate = 1.0;
	o->idle_timeout_s = 30;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq, *v;
		char name[64];
		size_t n;

		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			usage(stdout);
			return 1;
		}
		if (strcmp(arg, "--verbose") == 0) {
			o->verbose = 1;
			continue;
		}
		if (strncmp(arg, "--", 2) != 0) {
			fprintf(stderr, "gauntlet target: unexpected argument '%s' (see --help)\n", arg);
			return -1;
		}
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		if (n >= sizeof(name)) {
			fprintf(stderr, "gauntlet target: unknown flag '%s' (see --help)\n", arg);
			return -1;
		}
		memcpy(name, arg + 2, n);
		name[n] = '\0';
		if (eq) {
			v = eq + 1;
		} else if (i + 1 < argc) {
			v = argv[++i];
		} else {
			fprintf(stderr, "gauntlet target: --%s needs a value\n", name);
			return -1;
		}
		if (strcmp(name, "listen") == 0) {
			o->listen = v;
		} else if (strcmp(name, "model") == 0) {
			if (!*v || strlen(v) > 256) {
				fprintf(stderr, "gauntlet target: --model: expected 1 to 256 characters\n");
				return -1;
			}
			o->model = v;
		} else if (strcmp(name, "ready-file") == 0) {
			o->ready_file = v;
		} else if (strcmp(name, "api-key-env") == 0) {
			/* from the environment, never the command line (where
			 * /proc/PID/cmdline would show it); out of the
			 * environment once read */
			const char *k = getenv(v);
			if (!k || !*k) {
				fprintf(stderr, "gauntlet target: --api-key-env: the variable %s is not set\n", v);
				return -1;
			}
			free(o->api_key);
			o->api_key = strdup(k);
			memset((char *)k, 0, strlen(k));   /* also from /proc/PID/environ */
			unsetenv(v);
		} else if (strcmp(name, "seed") == 0) {
			if (flag_u64(name, v, 0, UINT64_MAX, &o->m.seed))
				return -1;
		} else if (strcmp(name, "max-seqs") == 0) {
			if (flag_u64(name, v, 1, 1000000, &u))
				return -1;
			o->max_seqs = (uint32_t)u;
		} else if (strcmp(name, "ttft-ms") == 0) {
			if (flag_double(name, v, 0, 3600e3, &o->m.ttft_ms))
				return -1;
		} else if (strcmp(name, "prefill-us-per-token") == 0) {
			if (flag_double(name, v, 0, 1e6, &o->m.prefill_us_per_token))
				return -1;
		} else if (strcmp(name, "itl-ms") == 0) {
			if (flag_double(name, v, 0, 3600e3, &o->m.itl_ms))
				return -1;
		} else if (strcmp(name, "itl-jitter") == 0) {
			if (flag_double(name, v, 0, 1, &o->m.itl_jitter))
				return -1;
		} else if (strcmp(name, "output-tokens") == 0) {
			if (flag_u64(name, v, 1, 1000000, &u))
				return -1;
			o->m.output_tokens = (uint32_t)u;
		} else if (strcmp(name, "max-output-tokens") == 0) {
			if (flag_u64(name, v, 1, 1000000, &u))
				return -1;
			o->m.max_output_tokens = (uint32_t)u;
		} else if (strcmp(name, "max-body-bytes") == 0) {
			if (flag_u64(name, v, 1, (uint64_t)1 << 32, &o->max_body_bytes))
				return -1;
		} else if (strcmp(name, "misbehave") == 0) {
			if (parse_misbehave(v, o))
				return -1;
		} else if (strcmp(name, "misbehave-rate") == 0) {
			if (flag_double(name, v, 0, 1, &o->mb_rate))
				return -1;
		} else if (strcmp(name, "idle-timeout-s") == 0) {
			if (flag_u64(name, v, 0, 86400, &o->idle_timeout_s))
				return -1;
		} else if (strcmp(name, "stall-at-s") == 0) {
			if (flag_double(name, v, 0, 1e9, &o->stall_at_s))
				return -1;
			have_stall_at = 1;
		} else {
			fprintf(stderr, "gauntlet target: unknown flag '--%s' (see --help)\n", name);
			return -1;
		}
	}
	if (!o->listen) {
		fprintf(stderr, "gauntlet target: --listen HOST:PORT is required (see --help)\n");
		return -1;
	}
	if ((o->mb == MB_STALL) != have_stall_at) {
		fprintf(stderr, "gauntlet target: --misbehave stall_ms=N and --stall-at-s S go "
				"together\n");
		return -1;
	}
	return 0;
}

/* ---- listening --------------------------------------------------------- */

static int open_listener(struct target *t, struct gl_err *err)
{
	char what[300];
	int fd;

	snprintf(what, sizeof(what), "--listen %s", t->o.listen);
	fd = gl_listen_open(&t->listen_addr, t->listen_len, what, t->bound, sizeof(t->bound), err);
	if (fd < 0)
		return -GL_EIO;
	if (!evhttp_accept_socket_with_handle(t->http, fd)) {
		close(fd);
		return gl_errf(err, GL_EIO, "--listen %s: evhttp cannot accept on it", t->o.listen);
	}
	return 0;
}

/* ---- life cycle -------------------------------------------------------- */

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct target *t = arg;

	(void)what;
	gl_info("target: %s received, shutting down (%u requests in flight)",
		sig == SIGINT ? "SIGINT" : "SIGTERM", t->n_streams);
	event_base_loopbreak(t->base);
}

static void on_stall_log(evutil_socket_t fd, short what, void *arg)
{
	struct target *t = arg;
	struct timeval tv = { (time_t)(t->o.stall_ns / 1000000000),
			      (suseconds_t)(t->o.stall_ns % 1000000000 / 1000) };

	(void)fd;
	(void)what;
	if (!t->stall_logged) {
		gl_info("target: stall window opens: tokens wait %.3f s", (double)t->o.stall_ns / 1e9);
		t->stall_logged = 1;
		evtimer_add(t->stall_log, &tv);
	} else {
		gl_info("target: stall window closes");
	}
}

static char *json_escape_dup(const char *s)
{
	cJSON *str = cJSON_CreateString(s);
	char *quoted = str ? cJSON_PrintUnformatted(str) : NULL;
	char *out = NULL;
	size_t n;

	cJSON_Delete(str);
	if (!quoted)
		return NULL;
	n = strlen(quoted);
	if (n >= 2) {
		quoted[n - 1] = '\0';
		out = strdup(quoted + 1);
	}
	free(quoted);
	return out;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			gl_warn("target: cannot raise the open-file limit: %s", strerror(errno));
	}
}

static int target_start(struct target *t, struct gl_err *err)
{
	struct event_config *cfg;
	char line[160];

	TAILQ_INIT(&t->all);
	TAILQ_INIT(&t->queue);
	t->model_json = json_escape_dup(t->o.model);
	if (!t->model_json)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	/* Precise timers: token gaps of a few ms must not snap to the coarse clock. */
	cfg = event_config_new();
	if (cfg)
		event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	t->base = cfg ? event_base_new_with_config(cfg) : NULL;
	if (cfg)
		event_config_free(cfg);
	if (!t->base)
		return gl_errf(err, GL_EIO, "cannot create the event loop");
	t->http = evhttp_new(t->base);
	if (!t->http)
		return gl_errf(err, GL_EIO, "cannot create the HTTP server");
	evhttp_set_max_body_size(t->http, (ev_ssize_t)t->o.max_body_bytes);
	evhttp_set_max_headers_size(t->http, 64 * 1024);
	evhttp_set_allowed_methods(t->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD);
	evhttp_set_gencb(t->http, on_request, t);
	/* A connection that sends nothing (no request, or nothing after the
	 * last one) is closed after the idle timeout instead of held forever.
	 * evhttp arms it as the socket's read and write timeouts: while a
	 * request is handled evhttp does not read (streams of any length are
	 * not cut), and a write times out only when the client stops reading. */
	if (t->o.idle_timeout_s)
		evhttp_set_timeout(t->http, (int)t->o.idle_timeout_s);
	raise_fd_limit();
	if (open_listener(t, err))
		return -GL_EIO;
	t->sig_int = evsignal_new(t->base, SIGINT, on_signal, t);
	t->sig_term = evsignal_new(t->base, SIGTERM, on_signal, t);
	if (!t->sig_int || !t->sig_term || event_add(t->sig_int, NULL) || event_add(t->sig_term, NULL))
		return gl_errf(err, GL_EIO, "cannot install signal handlers");
	t->t_start_ns = gl_now_ns();
	t->started_s = (long long)time(NULL);
	if (t->o.mb == MB_STALL) {
		struct timeval tv;
		int64_t at_ns = llround(t->o.stall_at_s * 1e9);

		t->stall_start_ns = t->t_start_ns + at_ns;
		t->stall_end_ns = t->stall_start_ns + t->o.stall_ns;
		t->stall_log = evtimer_new(t->base, on_stall_log, t);
		if (t->stall_log) {
			tv.tv_sec = (time_t)(at_ns / 1000000000);
			tv.tv_usec = (suseconds_t)(at_ns % 1000000000 / 1000);
			evtimer_add(t->stall_log, &tv);
		}
	}
	snprintf(line, sizeof(line), "%s\n", t->bound);
	if (t->o.ready_file &&
	    gl_write_file_atomic(t->o.ready_file, line, strlen(line), 0644, err))
		return -GL_EIO;
	if (t->o.mb == MB_STALL)
		snprintf(line, sizeof(line), ", misbehave stall_ms=%lld at %.3f s",
			 (long long)(t->o.stall_ns / 1000000), t->o.stall_at_s);
	else if (t->o.mb != MB_NONE)
		snprintf(line, sizeof(line), ", misbehave %s at rate %g", mb_names[t->o.mb],
			 t->o.mb_rate);
	else
		line[0] = '\0';
	gl_info("target: listening on %s, model '%s', max_seqs %u, ttft %.3f ms + %.3f us/prompt "
		"token, itl %.3f ms (jitter %.3f), seed %" PRIu64 "%s",
		t->bound, t->o.model, t->o.max_seqs, t->o.m.ttft_ms, t->o.m.prefill_us_per_token,
		t->o.m.itl_ms, t->o.m.itl_jitter, t->o.m.seed, line);
	printf("%s\n", t->bound);
	fflush(stdout);
	return 0;
}

static void target_stop(struct target *t)
{
	struct stream *s;

	/* Streams first: their closecbs must be gone before evhttp_free closes
	 * the connections (which also frees the requests still attached). */
	while ((s = TAILQ_FIRST(&t->all)) != NULL) {
		if (s->state == SS_ACTIVE)
			s->state = SS_HANG;   /* no slot hand-over while tearing down */
		stream_free(s);
	}
	if (t->http)
		evhttp_free(t->http);
	if (t->sig_int)
		event_free(t->sig_int);
	if (t->sig_term)
		event_free(t->sig_term);
	if (t->stall_log)
		event_free(t->stall_log);
	if (t->base)
		event_base_free(t->base);
	free(t->model_json);
}

int gl_target_main(int argc, char **argv)
{
	struct target *t = calloc(1, sizeof(*t));
	struct gl_err err = { 0 };
	int rc;

	if (!t) {
		fprintf(stderr, "gauntlet target: out of memory\n");
		return 1;
	}
	rc = parse_flags(argc, argv, &t->o);
	if (rc) {
		free(t->o.api_key);
		free(t);
		return rc > 0 ? 0 : 2;
	}
	if (gl_listen_parse(t->o.listen, NULL, &t->listen_addr, &t->listen_len, &err)) {
		fprintf(stderr, "gauntlet target: --listen %s\n", err.msg);
		free(t->o.api_key);
		free(t);
		return 2;
	}
	if (t->o.verbose)
		gl_log_init(GL_LOG_DEBUG);
	/* A client that disconnects mid-write must cost an error, not the process. */
	signal(SIGPIPE, SIG_IGN);
	if (target_start(t, &err)) {
		gl_error("target: %s", err.msg[0] ? err.msg : "cannot start");
		rc = 1;
	} else {
		event_base_dispatch(t->base);
		gl_info("target: stopped; %" PRIu64 " requests, %" PRIu64 " tokens, %" PRIu64
			" client aborts, %" PRIu64 " injected closes",
			t->next_seq, t->tokens_total, t->aborts_client, t->aborts_injected);
		rc = 0;
	}
	target_stop(t);
	free(t->o.api_key);
	free(t);
	return rc;
}
