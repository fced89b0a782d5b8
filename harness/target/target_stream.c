/*
 * target_stream.c - the streams of `gauntlet target`: one per generation
 * request, from arrival to its last byte. The FIFO queue and the max_seqs
 * slots, one timer re-armed per token at the model's times, the stall
 * window, slow_drip's byte a second, the read probe and close callback
 * that notice a client gone, and the injected mid-stream close.
 */
#include "target_int.h"
#include "util.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <time.h>

/* ---- streams ----------------------------------------------------------- */

static void on_timer(evutil_socket_t fd, short what, void *arg);
static void on_probe(evutil_socket_t fd, short what, void *arg);
static void on_conn_close(struct evhttp_connection *evcon, void *arg);

struct stream *tgt_stream_new(struct target *t, struct evhttp_request *req)
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
void tgt_stream_free(struct stream *s)
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
	gl_prefix_keys_free(&s->keys);
	free(s->model_json);
	free(s);
	if (had_slot)
		tgt_start_queued(t);
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
	gl_debug("target: request %" PRIu64 ": client disconnected after %u of %u tokens", s->seq, s->next_token,
		 s->n_tokens);
	s->evcon = NULL;
	tgt_stream_free(s);
	if (detached)
		evhttp_request_free(req);
}

/* Drop the connection under a request, without finishing the reply. What was
 * already written is pushed out first: a socket bufferevent keeps the front
 * of its output buffer frozen (only its own write callback drains it), so
 * the buffer is thawed for the one write and frozen again. Without that the
 * write fails and the tokens written in the same loop turn are lost (under
 * eight CPU hogs one turn writes several tokens, and 69 of 300 streams lose
 * their last one). */
static void drop_connection(struct stream *s, int injected)
{
	struct evhttp_connection *evcon = s->evcon;
	struct bufferevent *bev = evhttp_connection_get_bufferevent(evcon);

	if (injected)
		s->t->aborts_injected++;
	else
		s->t->aborts_client++;
	if (bev && bufferevent_getfd(bev) >= 0) {
		struct evbuffer *out = bufferevent_get_output(bev);
		evbuffer_unfreeze(out, 1);
		while (evbuffer_get_length(out) > 0 && evbuffer_write(out, bufferevent_getfd(bev)) > 0)
			;
		evbuffer_freeze(out, 1);
	}
	tgt_stream_free(s);
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
		return; /* the client sent more (pipelining): stop watching */
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
	d = (d + 999) / 1000; /* round up to us: never fire before t_ns */
	tv.tv_sec = (time_t)(d / 1000000);
	tv.tv_usec = (suseconds_t)(d % 1000000);
	evtimer_add(s->timer, &tv);
}

/* The TTFT of a request taking its slot at t_ns: --ttft-step-ms from the
 * step on, else the model's; plus --ttft-drift-ms-per-hour times the hours
 * since the server started. */
static int64_t ttft_at(const struct target *t, int64_t t_ns, uint64_t prompt_tokens)
{
	struct gl_target_model m = t->o.m;

	if (t_ns >= t->step_ns)
		m.ttft_ms = t->o.step_ttft_ms;
	m.ttft_ms += t->o.drift_ms_per_h * (double)(t_ns - t->t_start_ns) / 3.6e12;
	return gl_target_ttft_ns(&m, prompt_tokens);
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

/* The prefix cache, as the request takes its slot: its cached tokens are
 * the leading run of its blocks found (target_cache.h), then its blocks go
 * in. Looked up in slot order, which is arrival order (FIFO). */
static void cache_admit(struct target *t, struct stream *s)
{
	size_t hit;

	if (!t->cache)
		return;
	hit = gl_prefix_cache_admit(t->cache, s->keys.keys, s->keys.n,
				    gl_prefix_max_lookup(s->prompt_tokens, t->o.prefix_block_tokens));
	s->cached_tokens = (uint32_t)(hit * t->o.prefix_block_tokens);
	t->cache_queries += s->prompt_tokens;
	t->cache_hits += s->cached_tokens;
	gl_debug("target: request %" PRIu64 ": %u of %u prompt tokens cached", s->seq, s->cached_tokens,
		 s->prompt_tokens);
	gl_prefix_keys_free(&s->keys);
}

/* ---- stream progress --------------------------------------------------- */

/* --misbehave close_after_reply: once the whole reply is written, the
 * connection is shut without a word (no "Connection: close"), as a server
 * whose keep-alive timeout ends just as the client reuses the connection:
 * the client's next request on it gets no answer at all. */
static void shut_after_reply(struct evhttp_request *req, void *arg)
{
	struct bufferevent *bev = evhttp_connection_get_bufferevent(evhttp_request_get_connection(req));

	(void)arg;
	if (bev && bufferevent_getfd(bev) >= 0)
		shutdown(bufferevent_getfd(bev), SHUT_RDWR);
}

static void close_after(struct stream *s, struct evhttp_request *req)
{
	if (s->mb == MB_CLOSE_AFTER_REPLY)
		evhttp_request_set_on_complete_cb(req, shut_after_reply, NULL);
}

/* Finish the reply normally: the stream is freed before the request is
 * handed back to evhttp, so no callback can reach a freed stream. */
static void finish_stream(struct stream *s)
{
	struct evhttp_request *req = s->req;

	close_after(s, req);
	tgt_stream_free(s);
	evhttp_send_reply_end(req);
}

static void start_stream(struct stream *s, int64_t t_slot)
{
	struct target *t = s->t;

	s->state = SS_ACTIVE;
	t->n_active++;
	cache_admit(t, s);
	if (s->mb == MB_SLOW_DRIP) {
		s->drip = evbuffer_new();
		if (s->drip) {
			if (s->streaming) {
				for (uint32_t i = 0; i < s->n_tokens; i++)
					if (tgt_add_stream_token(s, s->drip, i))
						break;
			} else {
				tgt_add_json_body(s, s->drip);
				evhttp_add_header(evhttp_request_get_output_headers(s->req), "Content-Type",
						  "application/json");
				tgt_count_status(t, s->api == API_CHAT ? EP_CHAT : EP_COMPLETIONS, 200);
				evhttp_send_reply_start(s->req, 200, NULL);
			}
		}
		arm_at(s, t_slot);
		return;
	}
	s->next_token = 0;
	/* cached tokens skip prefill */
	s->t_next_ns = stall(t, t_slot + ttft_at(t, t_slot, s->prompt_tokens - s->cached_tokens));
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

void tgt_start_queued(struct target *t)
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
		tgt_stream_free(s);
		tgt_reply_error(t, req, ep, 500, "server_error", NULL, NULL,
				"injected error (gauntlet target --misbehave stream_error)");
		return;
	}
	body = evbuffer_new();
	if (body)
		tgt_add_json_body(s, body);
	close_after(s, req);
	tgt_stream_free(s);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "application/json");
	tgt_count_status(t, ep, 200);
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
		arm_at(s, now + 1000000); /* try again in a millisecond */
		return;
	}
	/* Write every token that is due; several only when the loop ran late. */
	while (!done && s->t_next_ns <= now + TIMER_SLACK_NS) {
		uint32_t i = s->next_token;

		if (s->mb == MB_CLOSE_MID_STREAM && i == gl_target_close_at(s->n_tokens)) {
			drop = 1;
			break;
		}
		done = tgt_add_stream_token(s, out, i);
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
