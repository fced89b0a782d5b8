/*
 * inference.c - the inference workload: LLM request replay against
 * OpenAI-compatible endpoints with libcurl's multi interface, driven by the
 * controller's libevent loop through curl_multi_socket_action.
 *
 * Open loop (constant, poisson, gamma, trace): the arrival schedule is
 * absolute and computed ahead; a request's intended send time comes from
 * the schedule, never from when the client got round to it, and a request
 * held back by max_in_flight keeps its intended time (its wait is charged to
 * TTFT and latency: no coordinated omission). Closed loop: N users, each
 * sending its next request when the last one ended (plus think time);
 * TTFT is measured from the actual send.
 *
 * Each request is timed on CLOCK_MONOTONIC (run elapsed ns): intended send,
 * actual send, first response header, first SSE event, first token (first
 * non-empty content, reasoning or tool-call delta), last token, end. ITL
 * samples of a stream are held per request (up to ITL_HOLD) and enter the
 * window histogram only when the request succeeds, so failed requests stay
 * out of the latency percentiles; a longer stream flushes its held gaps as
 * it goes. Every request also becomes a row of the store's requests table.
 *
 * Errors are data, by class (docs/metrics.md): connect, tls, http_4xx,
 * http_429, http_5xx, timeout_ttft, timeout_idle, timeout_total,
 * stream_error, truncated, malformed. An endpoint that fails stays in
 * rotation unless drop_failed_endpoints is set: we measure the service.
 *
 * The API key (api_key_env or api_key_file) lives only in the request
 * header list; it is never logged or stored.
 *
 * This file: requests and the ops; bodies are in inference_body.c,
 * arrivals and the timeout sweep in inference_arrivals.c, curl on the
 * event loop in inference_curl.c (inference_int.h).
 */
#include "inference_int.h"
#include "inference_schema.h"
#include "http.h"

static const char *const ec_names[EC_N] = {
	"",
	"connect",
	"tls",
	"http_4xx",
	"http_429",
	"http_5xx",
	"timeout_ttft",
	"timeout_idle",
	"timeout_total",
	"stream_error",
	"truncated",
	"malformed",
	"model_not_found",
};

/* ---- requests -------------------------------------------------------------- */

int64_t inf_now_ns(struct inf *w)
{
	return gl_ctx_elapsed_ns(w->ctx);
}

void inf_record_done(struct inf *w, struct req *r, enum err_class ec)
{
	struct gl_request_row row;
	int64_t out_tokens = r->token_events, prompt_tokens = r->input_tokens, cached_tokens = -1;
	int estimated = 1, good = 0;
	struct gl_sse_summary sum;

	memset(&sum, 0, sizeof(sum));
	sum.completion_tokens = sum.prompt_tokens = sum.cached_tokens = -1;
	if (r->sse)
		gl_sse_finish(r->sse, &sum);
	if (sum.completion_tokens >= 0) {
		out_tokens = sum.completion_tokens;
		estimated = 0;
	}
	inf_usage_prompt(sum.prompt_tokens, sum.cached_tokens, &prompt_tokens, &cached_tokens);
	if (!w->o.stream && r->parsed) {
		if (r->body_parse.completion_tokens >= 0) {
			out_tokens = r->body_parse.completion_tokens;
			estimated = 0;
		} else {
			out_tokens = r->body_parse.has_token ? 1 : 0;
		}
		inf_usage_prompt(r->body_parse.prompt_tokens, r->body_parse.cached_tokens, &prompt_tokens,
				 &cached_tokens);
	}
	gl_metrics_add(w->m, w->id_requests, 1);
	if (r->model != w->o.model) {
		gl_metrics_add(w->m, w->id_ad_requests, 1);
		if (ec != EC_OK)
			gl_metrics_add(w->m, w->id_ad_errors, 1);
	}
	if (ec != EC_OK) {
		gl_metrics_add(w->m, w->id_errors, 1);
		gl_metrics_add(w->m, w->id_class[ec], 1);
		inf_node_record(w, r, 1, 0);
	} else {
		int64_t from = w->mode == AR_CLOSED ? r->t_send : r->t_intended;
		double ttft_ms = (double)(r->t_first_token - from) / 1e6, tpot_ms = 0;
		if (w->o.stream && out_tokens > 1 && r->t_last_token > r->t_first_token)
			tpot_ms = (double)(r->t_last_token - r->t_first_token) / 1e6 / (double)(out_tokens - 1);
		/* goodput: within the objective, measured as the figures are
		 * (TTFT from the intended send; TPOT 0 for one token) */
		if (w->id_good >= 0 && (w->slo_ttft_ms < 0 || ttft_ms <= w->slo_ttft_ms) &&
		    (w->slo_tpot_ms < 0 || tpot_ms <= w->slo_tpot_ms))
			good = 1;
		if (good)
			gl_metrics_add(w->m, w->id_good, 1);
		gl_metrics_record(w->m, w->id_ttft, (double)(r->t_first_token - from) / 1e6);
		inf_node_record(w, r, 0, ttft_ms);
		gl_metrics_record(w->m, w->id_ttft_send, (double)(r->t_first_token - r->t_send) / 1e6);
		gl_metrics_record(w->m, w->id_lat, (double)(r->t_end - from) / 1e6);
		for (int i = 0; i < r->n_itl; i++)
			gl_metrics_record(w->m, w->id_itl, r->itl_ms[i]);
		if (w->o.stream && out_tokens > 1 && r->t_last_token > r->t_first_token)
			gl_metrics_record(w->m, w->id_tpot,
					  (double)(r->t_last_token - r->t_first_token) / 1e6 /
						  (double)(out_tokens - 1));
		gl_metrics_record(w->m, w->id_otok, (double)out_tokens);
		gl_metrics_add(w->m, w->id_otok_total, out_tokens);
		inf_cache_record(w, prompt_tokens, cached_tokens);
	}
	row.window = gl_ctx_window(w->ctx);
	row.endpoint = r->ep;
	row.t_intended = r->t_intended;
	row.t_send = r->t_send;
	row.t_headers = r->t_headers;
	row.t_first_event = r->t_first_event;
	row.t_first_token = r->t_first_token;
	row.t_last_token = r->t_last_token;
	row.t_end = r->t_end;
	row.input_tokens = r->input_tokens;
	row.output_tokens = out_tokens;
	row.tokens_estimated = estimated;
	row.http_status = (int)r->status;
	row.error_class = ec_names[ec];
	row.max_stall_ns = r->max_stall;
	gl_ctx_request_row(w->ctx, &row);
	if (w->edge)
		inf_edge_done(w, r, ec != EC_OK, good);
}

static int on_sse_event(void *arg, const struct gl_sse_event *ev)
{
	struct req *r = arg;
	int64_t now = inf_now_ns(r->w);

	if (r->t_first_event < 0)
		r->t_first_event = now;
	r->t_last_event = now;
	if (r->session)
		inf_session_event(r, ev);
	if (ev->oai && ev->oai->has_token) {
		if (r->t_first_token < 0) {
			r->t_first_token = now;
		} else {
			int64_t gap = now - r->t_last_token;
			if (gap > r->max_stall)
				r->max_stall = gap;
			if (r->n_itl == ITL_HOLD) {
				/* a long healthy stream: its held gaps count now */
				for (int i = 0; i < r->n_itl; i++)
					gl_metrics_record(r->w->m, r->w->id_itl, r->itl_ms[i]);
				r->n_itl = 0;
			}
			r->itl_ms[r->n_itl++] = (float)((double)gap / 1e6);
		}
		r->t_last_token = now;
		r->token_events++;
	}
	return 0;
}

size_t inf_on_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct req *r = arg;
	size_t n = size * nmemb;

	if (r->status == 0 && r->easy)
		curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &r->status);
	if (r->status == 404) {
		/* its first bytes tell a model the server does not have */
		size_t room = r->resp.len < ERR_BODY_MAX ? ERR_BODY_MAX - r->resp.len : 0;
		gl_buf_append(&r->resp, data, n < room ? n : room);
		return n;
	}
	if (r->status / 100 != 2)
		return n; /* an error status is the class; its body is not kept */
	if (r->sse) {
		/* over a cap the parser goes sticky-malformed; keep reading so
		 * the connection ends normally, the class comes from finish() */
		gl_sse_feed(r->sse, data, n);
	} else {
		int64_t now = inf_now_ns(r->w);
		if (r->t_first_event < 0)
			r->t_first_event = r->t_first_token = now;
		r->t_last_event = r->t_last_token = now;
		if (gl_buf_append(&r->resp, data, n) != 0) {
			r->forced = EC_MALFORMED;
			return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
		}
	}
	return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct req *r = arg;
	if (r->t_headers < 0)
		r->t_headers = inf_now_ns(r->w);
	return size * nmemb;
}

static int pick_endpoint(struct inf *w)
{
	int best = -1;

	for (int k = 0; k < w->n_eps; k++) {
		int i = (w->rr + k) % w->n_eps;
		if (w->o.drop_failed && w->eps[i].failed)
			continue;
		if (!w->least) {
			best = i;
			break;
		}
		if (best < 0 || w->eps[i].in_flight < w->eps[best].in_flight)
			best = i;
	}
	if (best < 0)
		best = w->rr % w->n_eps; /* every endpoint dropped: keep measuring */
	w->rr = (best + 1) % w->n_eps;
	return best;
}

/* An easy handle from the pool, or a new one (*fresh set). A pooled handle
 * keeps the options every request of this workload shares (set once, by
 * easy_setup): only the per-request ones are set again, no reset. */
static CURL *easy_get(struct inf *w, int *fresh)
{
	if (w->n_pool > 0) {
		*fresh = 0;
		return w->pool[--w->n_pool];
	}
	*fresh = 1;
	return curl_easy_init();
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg);

/* Whether libcurl would look for a proxy in the environment for http and
 * https URLs (the variables it reads). */
static int proxy_in_env(void)
{
	static const char *const vars[] = { "http_proxy",  "HTTP_PROXY", "https_proxy",
					    "HTTPS_PROXY", "all_proxy",  "ALL_PROXY" };

	for (size_t i = 0; i < GL_ARRAY_LEN(vars); i++)
		if (getenv(vars[i]))
			return 1;
	return 0;
}

/* The options that are the same for every request of this workload. */
static void easy_setup(struct inf *w, CURL *e)
{
	/* no proxy variable set: say so once, or libcurl reads the
	 * environment again for every request (the same answer) */
	if (!proxy_in_env()) {
		curl_easy_setopt(e, CURLOPT_PROXY, "");
		curl_easy_setopt(e, CURLOPT_NOPROXY, "");
	}
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, w->headers);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, inf_on_write);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)w->timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)(w->timeout_ms < 10000 ? w->timeout_ms : 10000));
	/* streams arrive a token (one ~200-byte SSE event) at a time: a 1 KiB
	 * receive buffer keeps memory per in-flight stream near 14 KiB
	 * (tests/bench/inference.sh (d)) without costing events per CPU-second */
	curl_easy_setopt(e, CURLOPT_BUFFERSIZE, w->o.stream ? 1024L : 16384L);
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
			 w->o.http2 ? (long)CURL_HTTP_VERSION_2TLS : (long)CURL_HTTP_VERSION_1_1);
	if (w->o.ca_bundle[0])
		curl_easy_setopt(e, CURLOPT_CAINFO, w->o.ca_bundle);
	inf_curl_easy(w, e);
}

static void easy_put(struct inf *w, CURL *e)
{
	if (!e)
		return;
	if (w->n_pool == w->pool_cap) {
		int ncap = w->pool_cap ? w->pool_cap * 2 : 64;
		CURL **np;
		if (ncap > 65536 || !(np = realloc(w->pool, sizeof(*np) * (size_t)ncap))) {
			curl_easy_cleanup(e);
			return;
		}
		w->pool = np;
		w->pool_cap = ncap;
	}
	w->pool[w->n_pool++] = e;
}

static void req_free(struct req *r)
{
	if (!r)
		return;
	if (r->easy)
		easy_put(r->w, r->easy);
	cJSON_free(r->body);
	gl_sse_free(r->sse);
	gl_buf_free(&r->resp);
	free(r);
}

/* r off its HTTP client: curl's multi handle, or its own connection */
static void req_off_client(struct inf *w, struct req *r)
{
	if (r->easy && w->multi)
		curl_multi_remove_handle(w->multi, r->easy);
	inf_h1_detach(r);
}

/* r off its client and out of the in-flight list and counts (its memory kept) */
static void req_unlink(struct inf *w, struct req *r)
{
	req_off_client(w, r);
	if (r->prev)
		r->prev->next = r->next;
	else
		w->live = r->next;
	if (r->next)
		r->next->prev = r->prev;
	w->in_flight--;
	w->eps[r->ep].in_flight--;
}

void inf_req_cancel(struct inf *w, struct req *r)
{
	req_unlink(w, r);
	req_free(r);
}

void inf_send_req(struct inf *w, int64_t t_intended, uint64_t seq, int64_t in_tok, int64_t out_tok,
		  const struct gl_trace_row *tr, int user)
{
	struct req *r = calloc(1, sizeof(*r));
	char url[1100];
	int fresh = 0, h1;

	if (!r)
		return;
	r->w = w;
	r->user = user;
	r->t_intended = t_intended;
	r->t_headers = r->t_first_event = r->t_first_token = r->t_last_token = r->t_end = -1;
	r->input_tokens = in_tok;
	r->ep = pick_endpoint(w);
	h1 = w->eps[r->ep].h1 != NULL;
	r->model = inf_pick_model(w, seq);
	gl_buf_init(&r->resp, BODY_MAX);
	r->body = inf_build_body(w, r->model, seq, in_tok, out_tok, tr);
	if (!h1)
		r->easy = easy_get(w, &fresh);
	if (w->o.stream)
		r->sse = gl_sse_new(SSE_MAX_LINE, SSE_MAX_DATA, GL_SSE_OPENAI, on_sse_event, r);
	if (!r->body || (!h1 && !r->easy) || (w->o.stream && !r->sse)) {
		req_free(r);
		gl_ctx_event(w->ctx, GL_LOG_ERROR, "inference", "out of memory building a request");
		return;
	}
	r->session = inf_session_attach(w, r, seq);
	if (fresh)
		easy_setup(w, r->easy);
	if (h1) {
		;
	} else if (w->eps[r->ep].uh) {
		curl_easy_setopt(r->easy, CURLOPT_CURLU, w->eps[r->ep].uh);
	} else {
		snprintf(url, sizeof(url), "%s/%s", w->eps[r->ep].url, w->chat ? "chat/completions" : "completions");
		curl_easy_setopt(r->easy, CURLOPT_CURLU, NULL);
		curl_easy_setopt(r->easy, CURLOPT_URL, url);
	}
	curl_easy_setopt(r->easy, CURLOPT_POSTFIELDS, r->body);
	curl_easy_setopt(r->easy, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(r->easy, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
	r->next = w->live;
	if (w->live)
		w->live->prev = r;
	w->live = r;
	w->in_flight++;
	w->eps[r->ep].in_flight++;
	w->hr.sent++;
	r->t_send = inf_now_ns(w);
	gl_metrics_record(w->m, w->id_lag, (double)(r->t_send - r->t_intended) / 1e6);
	if (h1 ? inf_h1_send(w, r) != 0 : curl_multi_add_handle(w->multi, r->easy) != CURLM_OK) {
		/* cannot even start it: counted as connect, finished by the sweep */
		r->forced = EC_CONNECT;
		r->add_failed = 1;
	}
}

static void launch_pending(struct inf *w)
{
	inf_sessions_launch(w); /* conversations' turns before new arrivals */
	while (w->q_len > 0 && w->in_flight < w->o.max_in_flight && w->running) {
		struct pending p = w->q[w->q_head];
		w->q_head = (w->q_head + 1) % w->q_cap;
		w->q_len--;
		inf_send_req(w, p.t_intended, p.seq, p.input_tokens, p.output_tokens, NULL, -1);
	}
}

struct user_wake {
	struct inf *w;
	int user;
};

static void on_user_wake(evutil_socket_t fd, short what, void *arg)
{
	struct user_wake *u = arg;
	struct inf *w = u->w;

	if (w->running && u->user < w->active_users)
		inf_send_req(w, inf_now_ns(w), w->seq++, w->o.input_tokens, w->o.output_tokens, NULL, u->user);
	free(u);
}

/* Closed loop: the user's next request after its think time. Without a
 * think time it goes out at once when curl ended the last one (now_ok): a
 * zero timer would cost a loop turn, an allocation and a timer per
 * request. One we ended ourselves (a ttft or idle timeout, a handle curl
 * would not take) was finished by the sweep, which walks the in-flight
 * list: that user's next request waits for the loop's next turn. */
static void user_next(struct inf *w, int user, int now_ok)
{
	struct user_wake *u;
	struct timeval tv = { w->o.think_ns / 1000000000LL, (w->o.think_ns % 1000000000LL) / 1000 };

	if (w->o.think_ns <= 0 && now_ok) {
		inf_send_req(w, inf_now_ns(w), w->seq++, w->o.input_tokens, w->o.output_tokens, NULL, user);
		return;
	}
	if (!(u = malloc(sizeof(*u))))
		return;
	u->w = w;
	u->user = user;
	if (event_base_once(gl_ctx_base(w->ctx), -1, EV_TIMEOUT, on_user_wake, u, &tv) != 0)
		free(u);
}

void inf_finish_req(struct inf *w, struct req *r, CURLcode res)
{
	enum err_class ec = EC_OK;
	int next_user = -1;

	r->t_end = inf_now_ns(w);
	/* a handle curl never took has no response (a pooled one still holds
	 * its last transfer's code) */
	if (!r->status && !r->add_failed && r->easy)
		curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &r->status);
	if (r->forced != EC_OK) {
		ec = r->forced;
	} else if (res == CURLE_OPERATION_TIMEDOUT) {
		ec = EC_TOTAL;
	} else if (res == CURLE_COULDNT_CONNECT || res == CURLE_COULDNT_RESOLVE_HOST ||
		   res == CURLE_COULDNT_RESOLVE_PROXY) {
		ec = EC_CONNECT;
	} else if (res == CURLE_SSL_CONNECT_ERROR || res == CURLE_PEER_FAILED_VERIFICATION ||
		   res == CURLE_SSL_CERTPROBLEM || res == CURLE_SSL_CIPHER || res == CURLE_SSL_CACERT_BADFILE) {
		ec = EC_TLS;
	} else if (r->status == 429) {
		ec = EC_429;
	} else if (r->status >= 500) {
		ec = EC_5XX;
	} else if (r->status == 404 && gl_oai_model_not_found(r->resp.data, r->resp.len, r->model)) {
		ec = EC_MODEL;
	} else if (r->status >= 400) {
		ec = EC_4XX;
	} else if (r->status == 0) {
		ec = EC_CONNECT; /* no response at all */
	} else if (w->o.stream) {
		enum gl_sse_class c = gl_sse_finish(r->sse, NULL);
		ec = c == GL_SSE_CLEAN          ? EC_OK
		     : c == GL_SSE_STREAM_ERROR ? EC_STREAM
		     : c == GL_SSE_MALFORMED    ? EC_MALFORMED
						: EC_TRUNCATED;
		if (ec == EC_OK && res != CURLE_OK)
			ec = EC_TRUNCATED; /* cut after a clean end is still a cut */
		if (ec == EC_OK && r->t_first_token < 0)
			ec = EC_TRUNCATED; /* clean end, but not a single token */
	} else {
		struct gl_oai_chunk *c = &r->body_parse;
		if (res != CURLE_OK) {
			ec = EC_TRUNCATED;
		} else {
			gl_oai_parse_response(r->resp.data ? r->resp.data : "", r->resp.len, c);
			r->parsed = 1;
			ec = c->is_error                                  ? EC_STREAM
			     : c->is_malformed || c->kind == GL_OAI_EMPTY ? EC_MALFORMED
			     : !c->has_finish                             ? EC_TRUNCATED
									  : EC_OK;
		}
	}
	if (ec != EC_OK)
		w->eps[r->ep].failed = 1;
	else
		w->eps[r->ep].failed = 0;
	inf_record_done(w, r, ec);
	req_unlink(w, r);
	if (w->mode == AR_CLOSED && w->running && r->user >= 0 && r->user < w->active_users)
		next_user = r->user;
	if (r->session && inf_session_turn_done(w, r, ec))
		next_user = -1; /* the user's next request is its conversation's next turn */
	{
		int now_ok = r->forced == EC_OK;
		req_free(r); /* first: the next request takes its easy handle */
		if (next_user >= 0)
			user_next(w, next_user, now_ok);
	}
	launch_pending(w);
}

void inf_check_done(struct inf *w)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(w->multi, &left))) {
		struct req *r = NULL;
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
		if (r)
			inf_finish_req(w, r, msg->data.result);
	}
}

/* ---- ops ---------------------------------------------------------------------- */

/* A file the scenario names: relative to its directory, confined to the
 * allowed roots (paths.h). */
static int rel_path(struct gl_ctx *c, const char *what, const char *p, char *out, size_t n, struct gl_err *err)
{
	const struct gl_scenario *s = gl_ctx_scenario(c);
	struct gl_err e = { 0 };

	if (gl_path_confine(s->path, s->root, p, out, n, &e) != 0)
		return gl_errf(err, GL_EINVAL, "inference: %s: %s", what, e.msg);
	return 0;
}

int inf_read_key(struct gl_ctx *c, const cJSON *cfg, char *key, size_t n, struct gl_err *err)
{
	const char *env = gl_cfg_str(cfg, "api_key_env", NULL), *file = gl_cfg_str(cfg, "api_key_file", NULL);
	char path[1100];

	if (env || !file)
		return gl_secret_read(env, NULL, key, n, err);
	if (rel_path(c, "api_key_file", file, path, sizeof(path), err) != 0)
		return -GL_EINVAL;
	return gl_secret_read(NULL, path, key, n, err);
}

/* The URL a request to ep goes to, parsed once as libcurl parses
 * CURLOPT_URL's text; one it rejects is left to it at each request (the
 * request fails there, classified as before). */
static void endpoint_parse(struct inf *w, struct endpoint *ep)
{
	char url[1100];

	snprintf(url, sizeof(url), "%s/%s", ep->url, w->chat ? "chat/completions" : "completions");
	if (!(ep->uh = curl_url()))
		return;
	if (curl_url_set(ep->uh, CURLUPART_URL, url, CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
		curl_url_cleanup(ep->uh);
		ep->uh = NULL;
	}
}

/* "endpoints", without their trailing slashes */
static void read_endpoints(struct inf *w, const cJSON *cfg)
{
	const cJSON *eps = cJSON_GetObjectItemCaseSensitive(cfg, "endpoints"), *e;
	int i = 0;

	w->n_eps = cJSON_GetArraySize(eps);
	w->eps = calloc((size_t)w->n_eps + 1, sizeof(*w->eps));
	cJSON_ArrayForEach(e, eps)
	{
		size_t l;
		snprintf(w->eps[i].url, sizeof(w->eps[i].url), "%s", e->valuestring);
		l = strlen(w->eps[i].url);
		while (l > 0 && w->eps[i].url[l - 1] == '/')
			w->eps[i].url[--l] = '\0';
		inf_endpoint_node(w, &w->eps[i]);
		i++;
	}
}

/* "adapters": their models and the shares added up */
static void read_adapters(struct inf *w, const cJSON *cfg)
{
	const cJSON *a;
	double cum = 0;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(cfg, "adapters"))
	{
		if (w->n_adapters == MAX_ADAPTERS)
			break;
		cum += gl_cfg_num(a, "share", 0);
		snprintf(w->adapters[w->n_adapters].model, sizeof(w->adapters[0].model), "%s",
			 gl_cfg_str(a, "model", ""));
		w->adapters[w->n_adapters++].cum = cum;
	}
}

/* What the options say in the units the run uses. */
static void derive_opts(struct inf *w, const cJSON *cfg)
{
	static const enum arrival modes[] = {
		[GL_INF_POISSON] = AR_POISSON, [GL_INF_CONSTANT] = AR_CONSTANT, [GL_INF_GAMMA] = AR_GAMMA,
		[GL_INF_TRACE] = AR_TRACE,     [GL_INF_CLOSED] = AR_CLOSED,
	};
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cfg, "arrival"), "rate");

	w->chat = w->o.api != 1;
	w->least = w->o.balance == 1;
	w->timeout_ms = w->o.timeout_ns / 1000000;
	if (w->timeout_ms < 1)
		w->timeout_ms = 1;
	w->rng = w->o.seed * 0x9E3779B97F4A7C15ULL + 1;
	w->mode = w->o.mode >= 0 && w->o.mode < (int)GL_ARRAY_LEN(modes) ? modes[w->o.mode] : AR_POISSON;
	w->rate = 1;
	if (cJSON_IsNumber(r))
		w->rate = r->valuedouble;
	else if (cJSON_IsString(r))
		gl_parse_rate(r->valuestring, &w->rate, NULL);
	w->trace_start_s = (double)w->o.start_ns / 1e9;
	w->trace_end_s = (double)w->o.end_ns / 1e9;
}

/* arrival.mode "trace": the trace file, measured */
static int open_trace(struct gl_ctx *c, struct inf *w, const cJSON *cfg, struct gl_err *err)
{
	char path[1100];

	if (rel_path(c, "trace", w->o.trace, path, sizeof(path), err) != 0)
		return -GL_EINVAL;
	if (w->o.trace_format < 0)
		return gl_errf(err, GL_EINVAL, "inference: unknown trace_format '%s'",
			       gl_cfg_str(cfg, "trace_format", ""));
	w->trace = gl_trace_open(path, (enum gl_trace_format)w->o.trace_format, err);
	if (!w->trace)
		return -GL_EINVAL;
	if (gl_trace_measure(w->trace) != 0)
		return gl_errf(err, GL_EINVAL, "inference: trace %s: %s", path, gl_trace_error(w->trace));
	w->trace_span_s = gl_trace_span_s(w->trace);
	if (w->trace_end_s > 0 && w->trace_end_s < w->trace_span_s)
		w->trace_span_s = w->trace_end_s;
	return 0;
}

/* The headers of every request, the API key's among them. */
static int set_headers(struct gl_ctx *c, struct inf *w, const cJSON *cfg, struct gl_err *err)
{
	char key[4096], hdr[4200];
	int rc;

	if ((rc = inf_read_key(c, cfg, key, sizeof(key), err)) != 0)
		return rc;
	w->headers = curl_slist_append(NULL, "Content-Type: application/json");
	w->headers =
		curl_slist_append(w->headers, w->o.stream ? "Accept: text/event-stream" : "Accept: application/json");
	if (key[0]) {
		snprintf(hdr, sizeof(hdr), "Authorization: Bearer %s", key);
		w->headers = curl_slist_append(w->headers, hdr);
		memset(hdr, 0, sizeof(hdr));
		memset(key, 0, sizeof(key));
	}
	return 0;
}

/* The libcurl multi handle on the run's event base, and the timers. */
static int setup_events(struct gl_ctx *c, struct inf *w, struct gl_err *err)
{
	long conns = w->o.max_in_flight;

	w->multi = curl_multi_init();
	if (!w->multi || !w->headers)
		return gl_errf(err, GL_ENOMEM, "inference: cannot set up libcurl");
	/* keep a connection per request that can be in flight at once: the
	 * max_in_flight cap, or the closed loop's users at the highest load */
	if (w->mode == AR_CLOSED) {
		double peak = 1;
		const struct gl_scenario *sc = gl_ctx_scenario(c);
		for (int p = 0; p < sc->n_phases; p++)
			if (sc->phases[p].load > peak)
				peak = sc->phases[p].load;
		conns = (long)ceil(w->o.users * peak);
	}
	curl_multi_setopt(w->multi, CURLMOPT_MAXCONNECTS, conns + 16);
	curl_multi_setopt(w->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	w->ev_arrival = evtimer_new(gl_ctx_base(c), inf_on_arrival, w);
	w->ev_sweep = event_new(gl_ctx_base(c), -1, EV_PERSIST, inf_on_sweep, w);
	if (inf_curl_multi(w) != 0 || !w->ev_arrival || !w->ev_sweep)
		return gl_errf(err, GL_ENOMEM, "inference: out of memory");
	return 0;
}

static void register_metrics(struct inf *w, const cJSON *cfg)
{
	const cJSON *slo = cJSON_GetObjectItemCaseSensitive(cfg, "slo");

	w->id_ttft = gl_metrics_hist(w->m, "inference.ttft_ms");
	w->id_ttft_send = gl_metrics_hist(w->m, "inference.ttft_from_send_ms");
	w->id_itl = gl_metrics_hist(w->m, "inference.itl_ms");
	w->id_tpot = gl_metrics_hist(w->m, "inference.tpot_ms");
	w->id_lat = gl_metrics_hist(w->m, "inference.latency_ms");
	w->id_lag = gl_metrics_hist(w->m, "inference.send_lag_ms");
	w->id_otok = gl_metrics_hist(w->m, "inference.output_tokens");
	w->id_requests = gl_metrics_counter(w->m, "inference.requests");
	w->id_errors = gl_metrics_counter(w->m, "inference.errors");
	w->id_otok_total = gl_metrics_counter(w->m, "inference.output_tokens_total");
	inf_cache_register(w);
	w->id_good = -1;
	w->slo_ttft_ms = gl_cfg_num(slo, "ttft_ms", -1);
	w->slo_tpot_ms = gl_cfg_num(slo, "tpot_ms", -1);
	if (slo)
		w->id_good = gl_metrics_counter(w->m, "inference.good");
	if (w->n_adapters) {
		w->id_ad_requests = gl_metrics_counter(w->m, "inference.adapter_requests");
		w->id_ad_errors = gl_metrics_counter(w->m, "inference.adapter_errors");
	}
	for (int k = 1; k < EC_N; k++) {
		char name[64];
		snprintf(name, sizeof(name), "inference.errors.%s", ec_names[k]);
		w->id_class[k] = gl_metrics_counter(w->m, name);
	}
}

static int inf_init(struct gl_ctx *c, const cJSON *cfg, void **state, struct gl_err *err)
{
	struct inf *w = calloc(1, sizeof(*w));
	static int curl_ready;
	int rc;

	if (!w)
		return gl_errf(err, GL_ENOMEM, "inference: out of memory");
	*state = w;
	if (!curl_ready) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		curl_ready = 1;
	}
	w->ctx = c;
	w->m = gl_ctx_metrics(c);
	w->load = 1;
	gl_buf_init(&w->scratch, 64u << 20);
	gl_inference_opts_read(cfg, &w->o);
	read_endpoints(w, cfg);
	read_adapters(w, cfg);
	derive_opts(w, cfg);
	if (w->mode == AR_TRACE && (rc = open_trace(c, w, cfg, err)) != 0)
		return rc;
	if ((rc = set_headers(c, w, cfg, err)) != 0 || (rc = setup_events(c, w, err)) != 0)
		return rc;
	/* "client" auto: plain http:// to an IP address through the own
	 * HTTP/1.1 client, the rest (TLS, HTTP/2, host names, a proxy in the
	 * environment) through libcurl */
	for (int i = 0; i < w->n_eps; i++) {
		int own = w->o.client != GL_INF_CLIENT_CURL && !w->o.http2 && !proxy_in_env() &&
			  inf_h1_endpoint(w, &w->eps[i]) == 0;
		if (!own)
			endpoint_parse(w, &w->eps[i]);
		/* its node name: host:port, never a URL's credentials */
		gl_ctx_event(c, GL_LOG_INFO, "inference", "endpoint %s: %s", w->eps[i].node,
			     own ? "the own HTTP/1.1 client" : "libcurl");
	}
	register_metrics(w, cfg);
	inf_headroom_init(w);
	inf_sessions_init(w, cfg);
	return inf_edge_init(w, cfg, err);
}

static int inf_start(void *state, struct gl_err *err)
{
	struct inf *w = state;
	struct timeval sweep = { 0, 20000 };

	w->running = 1;
	gl_ctx_shard(w->ctx, &w->shard, &w->shards, &w->origin_ns);
	inf_headroom_start(w);
	event_add(w->ev_sweep, &sweep);
	if (w->mode == AR_CLOSED) {
		w->active_users = w->o.users;
		for (int u = 0; u < w->o.users; u++)
			if (u % w->shards == w->shard)
				inf_send_req(w, inf_now_ns(w), w->seq++, w->o.input_tokens, w->o.output_tokens, NULL,
					     u);
		return 0;
	}
	if (w->mode != AR_TRACE)
		inf_first_arrival(w);
	if (w->mode == AR_TRACE) {
		w->trace_base_ns = w->origin_ns >= 0 ? w->origin_ns : inf_now_ns(w);
		w->have_trow = inf_trace_next(w);
		if (!w->have_trow)
			return gl_errf(err, GL_EINVAL, "inference: the trace has no usable rows");
		inf_trace_skip_past(w);
	}
	if (w->skipped)
		gl_ctx_event(w->ctx, GL_LOG_WARN, "inference",
			     "started %.1f s after the schedule's origin: the %" PRId64
			     " %s of this share due before now are not sent late (an earlier launch sent "
			     "them until it was lost; the rest were missed)",
			     (double)(inf_now_ns(w) - w->origin_ns) / 1e9, w->skipped,
			     w->mode == AR_TRACE ? "trace row(s)" : "arrival(s)");
	inf_arm_arrival(w);
	inf_edge_phase(w); /* an edge phase, or a fraction of one, sets the rate */
	return 0;
}

static void inf_set_load(void *state, double mult)
{
	struct inf *w = state;
	w->load = mult > 0 ? mult : 1;
	if (w->mode == AR_CLOSED && w->running) {
		int want = (int)ceil(w->o.users * w->load);
		/* more users start now; fewer: users above the count stop after their request */
		for (int u = w->active_users; u < want; u++)
			if (u % w->shards == w->shard)
				inf_send_req(w, inf_now_ns(w), w->seq++, w->o.input_tokens, w->o.output_tokens, NULL,
					     u);
		w->active_users = want;
	}
	inf_edge_phase(w);
}

static void inf_stop(void *state)
{
	struct inf *w = state;

	inf_edge_stop(w); /* the probe in progress judged first */
	inf_headroom_stop(w);
	w->running = 0;
	evtimer_del(w->ev_arrival);
	event_del(w->ev_sweep);
	/* Requests still in flight when the timeline ends (or the run stops)
	 * have no outcome: neither ok nor errored, they are counted apart as
	 * cut (the server may have answered some of them already), so that
	 * what was sent is what was finished plus what was cut. */
	int64_t cut = 0;
	while (w->live) {
		struct req *r = w->live;
		w->live = r->next;
		req_off_client(w, r);
		w->eps[r->ep].in_flight--;
		req_free(r);
		cut++;
	}
	if (cut > 0)
		gl_metrics_add(w->m, gl_metrics_counter(w->m, "inference.cut_at_end"), cut);
	w->in_flight = 0;
	w->q_len = 0;
	inf_sessions_free(w);
}

static void inf_free(void *state)
{
	struct inf *w = state;

	if (!w)
		return;
	inf_edge_free(w);
	while (w->live) {
		struct req *r = w->live;
		w->live = r->next;
		req_off_client(w, r);
		req_free(r);
	}
	for (int i = 0; i < w->n_pool; i++)
		curl_easy_cleanup(w->pool[i]);
	free(w->pool);
	if (w->multi)
		curl_multi_cleanup(w->multi);
	inf_curl_free(w); /* after the multi handle: its cleanup closes sockets */
	inf_h1_free(w);
	curl_slist_free_all(w->headers);
	if (w->ev_arrival)
		event_free(w->ev_arrival);
	if (w->ev_sweep)
		event_free(w->ev_sweep);
	inf_sessions_free(w);
	gl_trace_close(w->trace);
	gl_buf_free(&w->scratch);
	free(w->q);
	for (int i = 0; w->eps && i < w->n_eps; i++)
		curl_url_cleanup(w->eps[i].uh);
	free(w->eps);
	free(w);
}

static void inf_on_window(void *state)
{
	inf_headroom_window(state);
}

static const struct gl_workload_ops gl_workload_inference = {
	.name = "inference",
	.validate = gl_inference_validate,
	.targets = gl_inference_targets,
	.degraded_default = "inference.error_rate",
	.incidents = gl_inference_incidents,
	.send_lag = "inference.send_lag_ms",
	.saturated = "inference.client_saturated",
	.agents_needed = "inference.agents_needed",
	.session_ttft = "inference.ttft_later_turn_ms",
	.live_figures = gl_inference_live_figures,
	.imaged = 1,
	.sim = &gl_inference_sim,
	.check_files = inf_check_files,
	.init = inf_init,
	.start = inf_start,
	.set_load = inf_set_load,
	.on_window = inf_on_window,
	.stop = inf_stop,
	.free = inf_free,
	.preflight = inf_preflight,
	.figures = &gl_inference_figures,
	.serves_endpoints = 1,
	.edge_check = inf_edge_check,
};
GL_REGISTER_WORKLOAD(gl_workload_inference, 10)
