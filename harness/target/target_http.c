/*
 * target_http.c - the HTTP side of `gauntlet target`: routing by path and
 * method, the bearer token, validation of generation requests (the OpenAI
 * error bodies), /v1/models, /health and /metrics, and the hand-over of a
 * valid generation request to a stream (target_stream.c). The injected
 * HTTP errors (--misbehave http_429/500/503) and hang are decided here.
 */
#include "target_int.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static const char *const ep_names[EP_COUNT] = {
	"/v1/chat/completions",  "/v1/completions",         "/v1/models", "/health", "/metrics",
	"/v1/load_lora_adapter", "/v1/unload_lora_adapter", "other",
};

void tgt_count_status(struct target *t, enum endpoint ep, int status)
{
	struct status_count *sc = t->by_status[ep];

	for (int i = 0; i < STATUS_SLOTS; i++) {
		if (sc[i].status == status || sc[i].status == 0) {
			sc[i].status = status;
			sc[i].n++;
			return;
		}
	}
	sc[STATUS_SLOTS - 1].n++; /* more distinct codes than slots: lump into the last */
}

/* ---- replies ----------------------------------------------------------- */

/* Reason phrases evhttp 2.1 does not know (it would say "Client Error"). */
static const char *reason_phrase(int status)
{
	switch (status) {
	case 413: return "Payload Too Large";
	case 429: return "Too Many Requests";
	default: return NULL; /* evhttp's own */
	}
}

static void send_body(struct target *t, struct evhttp_request *req, enum endpoint ep, int status,
		      const char *content_type, const char *body, size_t len)
{
	struct evbuffer *buf = evbuffer_new();

	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", content_type);
	tgt_count_status(t, ep, status);
	if (buf)
		evbuffer_add(buf, body, len);
	evhttp_send_reply(req, status, reason_phrase(status), buf);
	if (buf)
		evbuffer_free(buf);
}

/* An OpenAI-style error body: {"error":{"message","type","param","code"}}. */
static char *error_json(int status, const char *type, const char *param, const char *code, const char *msg)
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

void tgt_reply_error(struct target *t, struct evhttp_request *req, enum endpoint ep, int status, const char *type,
		     const char *param, const char *code, const char *msg)
{
	char *body = error_json(status, type, param, code, msg);
	static const char fallback[] = "{\"error\":{\"message\":\"out of memory\"}}";

	if (body)
		send_body(t, req, ep, status, "application/json", body, strlen(body));
	else
		send_body(t, req, ep, status, "application/json", fallback, sizeof(fallback) - 1);
	free(body);
}

/* ---- request parsing --------------------------------------------------- */

struct gen_req {
	const struct lora *adapter; /* the loaded adapter the request named, or NULL */
	int stream, include_usage, length_finish;
	uint64_t prompt_tokens;
	uint32_t n_tokens;
	struct gl_prefix_keys keys; /* with a prefix cache: the prompt's block keys */
};

struct req_error {
	int status;
	const char *param;
	const char *code;
	char msg[512];
};

static int req_fail(struct req_error *e, int status, const char *param, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int req_fail(struct req_error *e, int status, const char *param, const char *code, const char *fmt, ...)
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
static int get_int(const cJSON *root, const char *name, int64_t lo, int64_t hi, int64_t *out, struct req_error *e)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, name);

	*out = -1;
	if (!it || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) || it->valuedouble < (double)lo ||
	    it->valuedouble > (double)hi)
		return req_fail(e, 400, name, NULL, "'%s' must be an integer between %" PRId64 " and %" PRId64, name,
				lo, hi);
	*out = (int64_t)it->valuedouble;
	return 0;
}

/* An optional boolean field; *out = dflt when absent or null. */
static int get_bool(const cJSON *root, const char *name, int dflt, int *out, struct req_error *e)
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

/* The words of s; with a prefix cache (keys not NULL), its block keys grow
 * by them too. */
static uint64_t words_of(const char *s, struct gl_prefix_keys *keys)
{
	size_t len = strlen(s);

	if (keys)
		gl_prefix_keys_text(keys, s, len);
	return gl_target_count_words(s, len);
}

static int count_messages(const cJSON *msgs, uint64_t *n, struct gl_prefix_keys *keys, struct req_error *e)
{
	const cJSON *m;
	int idx = 0;

	if (!cJSON_IsArray(msgs) || cJSON_GetArraySize(msgs) == 0)
		return req_fail(e, 400, "messages", NULL, "'messages' must be a non-empty array");
	cJSON_ArrayForEach(m, msgs)
	{
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
		const cJSON *part;

		if (!cJSON_IsObject(m))
			return req_fail(e, 400, "messages", NULL, "'messages[%d]' must be an object", idx);
		if (cJSON_IsString(content)) {
			*n += words_of(content->valuestring, keys);
		} else if (cJSON_IsArray(content)) {
			cJSON_ArrayForEach(part, content)
			{
				const cJSON *text = cJSON_GetObjectItemCaseSensitive(part, "text");
				if (cJSON_IsString(text))
					*n += words_of(text->valuestring, keys);
			}
		} else if (content && !cJSON_IsNull(content)) {
			return req_fail(e, 400, "messages", NULL, "'messages[%d].content' must be a string or an array",
					idx);
		}
		idx++;
	}
	return 0;
}

/* One token id of a "prompt" array, into the block keys (with a cache);
 * a number past int64's range (or no number) is token 0. */
static void token_id(const cJSON *id, struct gl_prefix_keys *keys)
{
	double d = cJSON_IsNumber(id) ? id->valuedouble : 0;

	if (keys)
		gl_prefix_keys_token_id(keys, d > -9.2e18 && d < 9.2e18 ? (int64_t)d : 0);
}

static int count_prompt(const cJSON *prompt, uint64_t *n, struct gl_prefix_keys *keys, struct req_error *e)
{
	const cJSON *p, *id;

	if (cJSON_IsString(prompt)) {
		*n += words_of(prompt->valuestring, keys);
		return 0;
	}
	if (!cJSON_IsArray(prompt))
		return req_fail(e, 400, "prompt", NULL,
				"'prompt' must be a string, an array of strings or of token ids");
	cJSON_ArrayForEach(p, prompt)
	{
		if (cJSON_IsString(p)) {
			*n += words_of(p->valuestring, keys);
		} else if (cJSON_IsNumber(p)) {
			*n += 1; /* a token id */
			token_id(p, keys);
		} else if (cJSON_IsArray(p)) {
			*n += (uint64_t)cJSON_GetArraySize(p);
			cJSON_ArrayForEach(id, p) token_id(id, keys);
		} else
			return req_fail(e, 400, "prompt", NULL,
					"'prompt' must be a string, an array of strings or of token ids");
	}
	return 0;
}

static int parse_gen(const struct target *t, enum api api, const char *body, size_t len, struct gen_req *g,
		     struct req_error *e)
{
	cJSON *root = NULL;
	const cJSON *it, *so;
	int64_t max_tokens, max_completion, min_tokens;
	struct gl_prefix_keys *keys = NULL;
	int ignore_eos, rc = -1;

	memset(g, 0, sizeof(*g));
	root = cJSON_ParseWithLength(body ? body : "", len);
	if (!root) {
		const char *at = cJSON_GetErrorPtr();
		long off = at && body && at >= body && at <= body + len ? (long)(at - body) : -1;
		req_fail(e, 400, NULL, NULL,
			 "We could not parse the JSON body of your request (error near byte %ld). "
			 "The body must be a JSON object.",
			 off);
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
		if (strcmp(it->valuestring, t->o.model) != 0 && !(g->adapter = tgt_lora_find(t, it->valuestring))) {
			req_fail(e, 404, "model", "model_not_found", "The model `%.200s` does not exist.",
				 it->valuestring);
			goto out;
		}
	}
	if (t->cache) {
		/* an adapter's blocks are its own (salted by its load) */
		keys = &g->keys;
		gl_prefix_keys_init(keys, t->o.prefix_block_tokens, g->adapter ? g->adapter->cache_salt : 0);
	}
	if (api == API_CHAT) {
		if (count_messages(cJSON_GetObjectItemCaseSensitive(root, "messages"), &g->prompt_tokens, keys, e))
			goto out;
	} else if (count_prompt(cJSON_GetObjectItemCaseSensitive(root, "prompt"), &g->prompt_tokens, keys, e)) {
		goto out;
	}
	if (get_int(root, "max_tokens", 1, INT32_MAX, &max_tokens, e) ||
	    get_int(root, "max_completion_tokens", 1, INT32_MAX, &max_completion, e) ||
	    get_int(root, "min_tokens", 0, INT32_MAX, &min_tokens, e) ||
	    get_bool(root, "ignore_eos", 0, &ignore_eos, e) || get_bool(root, "stream", 0, &g->stream, e))
		goto out;
	if (max_tokens < 0)
		max_tokens = max_completion;
	if (min_tokens >= 0 && max_tokens >= 0 && min_tokens > max_tokens) {
		req_fail(e, 400, "min_tokens", NULL,
			 "'min_tokens' (%" PRId64 ") must not exceed 'max_tokens' (%" PRId64 ")", min_tokens,
			 max_tokens);
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
			   (min_tokens > (int64_t)t->o.m.output_tokens ? min_tokens : (int64_t)t->o.m.output_tokens) >
				   (int64_t)t->o.m.max_output_tokens;
	rc = 0;
out:
	if (rc)
		gl_prefix_keys_free(&g->keys);
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
		tgt_reply_error(t, req, ep, 413, "invalid_request_error", NULL, "request_too_large",
				"The request body is larger than this server accepts.");
		return;
	}
	if (parse_gen(t, api, body, len, &g, &e)) {
		tgt_reply_error(t, req, ep, e.status, "invalid_request_error", e.param, e.code, e.msg);
		return;
	}
	seq = t->next_seq++;
	t->prompt_tokens_total += g.prompt_tokens;
	if (t->o.mb != MB_NONE && t->o.mb != MB_STALL && gl_target_misbehaves(t->o.m.seed, seq, t->o.mb_rate))
		mb = t->o.mb;
	gl_debug("target: request %" PRIu64 " %s: %" PRIu64 " prompt tokens, %u output tokens%s%s", seq, ep_names[ep],
		 g.prompt_tokens, g.n_tokens, mb ? ", misbehaving: " : "", mb ? tgt_mb_names[mb] : "");
	if (mb == MB_HTTP_429 || mb == MB_HTTP_503 || mb == MB_HTTP_500)
		gl_prefix_keys_free(&g.keys); /* answered at once, never admitted */
	switch (mb) {
	case MB_HTTP_429:
		evhttp_add_header(evhttp_request_get_output_headers(req), "Retry-After", "1");
		tgt_reply_error(t, req, ep, 429, "rate_limit_error", NULL, "rate_limit_exceeded",
				"Rate limit reached (injected by gauntlet target --misbehave http_429).");
		return;
	case MB_HTTP_500:
		tgt_reply_error(t, req, ep, 500, "server_error", NULL, NULL,
				"Internal server error (injected by gauntlet target --misbehave http_500).");
		return;
	case MB_HTTP_503:
		tgt_reply_error(t, req, ep, 503, "server_error", NULL, "service_unavailable",
				"Service unavailable (injected by gauntlet target --misbehave http_503).");
		return;
	default: break;
	}
	s = tgt_stream_new(t, req);
	if (!s) {
		gl_prefix_keys_free(&g.keys);
		tgt_reply_error(t, req, ep, 500, "server_error", NULL, NULL, "out of memory");
		return;
	}
	s->keys = g.keys; /* the stream's now: freed with it, or once admitted */
	s->api = api;
	s->mb = mb;
	s->seq = seq;
	s->created_s = (long long)time(NULL);
	s->streaming = g.stream;
	s->include_usage = g.include_usage;
	s->length_finish = g.length_finish;
	s->prompt_tokens = g.prompt_tokens > UINT32_MAX ? UINT32_MAX : (uint32_t)g.prompt_tokens;
	s->n_tokens = g.n_tokens;
	if (g.adapter && !(s->model_json = strdup(g.adapter->name_json))) {
		tgt_stream_free(s);
		tgt_reply_error(t, req, ep, 500, "server_error", NULL, NULL, "out of memory");
		return;
	}
	if (mb == MB_HANG) {
		s->state = SS_HANG;
		return;
	}
	if (s->streaming) {
		struct evkeyvalq *h = evhttp_request_get_output_headers(req);
		evhttp_add_header(h, "Content-Type", "text/event-stream");
		evhttp_add_header(h, "Cache-Control", "no-cache");
		tgt_count_status(t, ep, 200);
		evhttp_send_reply_start(req, 200, NULL);
	}
	s->state = SS_QUEUED;
	TAILQ_INSERT_TAIL(&t->queue, s, queue_link);
	t->n_queued++;
	tgt_start_queued(t);
}

static void handle_models(struct target *t, struct evhttp_request *req)
{
	struct gl_buf b;

	gl_buf_init(&b, 64 * 1024);
	gl_buf_printf(&b,
		      "{\"object\":\"list\",\"data\":[{\"id\":\"%s\",\"object\":\"model\","
		      "\"created\":%lld,\"owned_by\":\"gauntlet\",\"root\":\"%s\","
		      "\"max_model_len\":null}",
		      t->model_json, t->started_s, t->model_json);
	tgt_lora_models(t, &b);
	if (gl_buf_printf(&b, "]}") == 0)
		send_body(t, req, EP_MODELS, 200, "application/json", b.data, b.len);
	else
		tgt_reply_error(t, req, EP_MODELS, 500, "server_error", NULL, NULL, "out of memory");
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
			gl_buf_printf(&b,
				      "gauntlet_target_requests_total{endpoint=\"%s\","
				      "status=\"%d\"} %" PRIu64 "\n",
				      ep_names[ep], t->by_status[ep][i].status, t->by_status[ep][i].n);
	metric_head(&b, "gauntlet_target_in_flight", "gauge",
		    "Generation requests accepted and not finished (queued, generating or hung).");
	gl_buf_printf(&b, "gauntlet_target_in_flight %u\n", t->n_streams);
	metric_head(&b, "gauntlet_target_queued", "gauge", "Requests waiting for a sequence slot.");
	gl_buf_printf(&b, "gauntlet_target_queued %u\n", t->n_queued);
	metric_head(&b, "gauntlet_target_active_sequences", "gauge", "Requests holding a sequence slot.");
	gl_buf_printf(&b, "gauntlet_target_active_sequences %u\n", t->n_active);
	metric_head(&b, "gauntlet_target_max_sequences", "gauge", "Configured --max-seqs.");
	gl_buf_printf(&b, "gauntlet_target_max_sequences %u\n", t->o.max_seqs);
	metric_head(&b, "gauntlet_target_tokens_generated_total", "counter",
		    "Output tokens written (streaming) or returned (non-streaming).");
	gl_buf_printf(&b, "gauntlet_target_tokens_generated_total %" PRIu64 "\n", t->tokens_total);
	metric_head(&b, "gauntlet_target_prompt_tokens_total", "counter",
		    "Prompt tokens of accepted generation requests.");
	gl_buf_printf(&b, "gauntlet_target_prompt_tokens_total %" PRIu64 "\n", t->prompt_tokens_total);
	metric_head(&b, "gauntlet_target_stream_aborts_total", "counter",
		    "Responses cut off before their end, by reason.");
	gl_buf_printf(&b,
		      "gauntlet_target_stream_aborts_total{reason=\"client_disconnect\"} %" PRIu64
		      "\ngauntlet_target_stream_aborts_total{reason=\"injected_close\"} %" PRIu64 "\n",
		      t->aborts_client, t->aborts_injected);
	/* vLLM's names: prompt tokens looked up in the prefix cache, and found */
	metric_head(&b, "vllm:prefix_cache_queries_total", "counter",
		    "Prompt tokens looked up in the prefix cache (--prefix-cache-blocks).");
	gl_buf_printf(&b, "vllm:prefix_cache_queries_total %" PRIu64 "\n", t->cache_queries);
	metric_head(&b, "vllm:prefix_cache_hits_total", "counter", "Prompt tokens found in the prefix cache.");
	gl_buf_printf(&b, "vllm:prefix_cache_hits_total %" PRIu64 "\n", t->cache_hits);
	metric_head(&b, "gauntlet_target_prefix_cache_blocks", "gauge",
		    "Blocks held in the prefix cache (at most --prefix-cache-blocks).");
	gl_buf_printf(&b, "gauntlet_target_prefix_cache_blocks %zu\n",
		      t->cache ? gl_prefix_cache_len(t->cache) : (size_t)0);
	metric_head(&b, "gauntlet_target_lora_adapters", "gauge", "LoRA adapters loaded or loading.");
	gl_buf_printf(&b, "gauntlet_target_lora_adapters %u\n", t->n_loras);
	metric_head(&b, "gauntlet_target_lora_loads_total", "counter", "LoRA adapter loads finished.");
	gl_buf_printf(&b, "gauntlet_target_lora_loads_total %" PRIu64 "\n", t->lora_loads);
	metric_head(&b, "gauntlet_target_lora_unloads_total", "counter", "LoRA adapters unloaded.");
	gl_buf_printf(&b, "gauntlet_target_lora_unloads_total %" PRIu64 "\n", t->lora_unloads);
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

void tgt_on_request(struct evhttp_request *req, void *arg)
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
	else if (strcmp(path, "/v1/load_lora_adapter") == 0)
		ep = EP_LORA_LOAD, want_post = 1;
	else if (strcmp(path, "/v1/unload_lora_adapter") == 0)
		ep = EP_LORA_UNLOAD, want_post = 1;
	if (ep == EP_OTHER) {
		snprintf(msg, sizeof(msg), "Unknown request URL: %.200s", path);
		tgt_reply_error(t, req, ep, 404, "invalid_request_error", NULL, "unknown_url", msg);
		return;
	}
	if (want_post ? cmd != EVHTTP_REQ_POST : (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD)) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", want_post ? "POST" : "GET, HEAD");
		snprintf(msg, sizeof(msg), "Method not allowed on %s; use %s.", path, want_post ? "POST" : "GET");
		tgt_reply_error(t, req, ep, 405, "invalid_request_error", NULL, "method_not_allowed", msg);
		return;
	}
	if (t->o.api_key && ep != EP_HEALTH && ep != EP_METRICS && !authorized(t, req)) {
		evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate", "Bearer");
		tgt_reply_error(t, req, ep, 401, "invalid_request_error", NULL, "invalid_api_key",
				"Missing or wrong API key (Authorization: Bearer ...).");
		return;
	}
	switch (ep) {
	case EP_CHAT: handle_generate(t, req, API_CHAT); break;
	case EP_COMPLETIONS: handle_generate(t, req, API_COMPLETIONS); break;
	case EP_MODELS: handle_models(t, req); break;
	case EP_LORA_LOAD:
	case EP_LORA_UNLOAD: tgt_lora_handle(t, req, ep); break;
	case EP_HEALTH: send_body(t, req, EP_HEALTH, 200, "application/json", "{\"status\":\"ok\"}", 15); break;
	default: handle_metrics(t, req); break;
	}
}
