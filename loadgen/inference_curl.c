/*
 * inference_curl.c - the inference workload's libcurl multi handle on the
 * run's libevent loop: curl's sockets and its timer as events
 * (inference_int.h).
 *
 * A socket keeps its event, by descriptor, for as long as it is open. When
 * curl stops watching a keep-alive connection (its request ended, the
 * connection waits in curl's cache), an event that watches for reading
 * alone stays registered: the next request on that connection nearly
 * always wants just that, so a request costs no epoll_ctl pair and no
 * event allocation. Such an idle event that fires (the server closed the
 * connection, or sent something unasked) is dropped then, without telling
 * curl: curl checks an idle connection itself before it reuses one. Every
 * socket curl closes goes through close_sock first (CURLOPT_CLOSESOCKET*),
 * which drops its event, so a descriptor number used again by a new
 * socket never inherits a registration the kernel no longer has.
 */
#include "inference_int.h"

#include <unistd.h>

struct inf_sock {
	struct event *ev;
	short want; /* what curl watches for now: 0 when it does not */
	short armed; /* what the event is registered for: 0 when it is not */
};

/* The socket of descriptor s, made on first use (NULL: out of memory). */
static struct inf_sock *sock_at(struct inf *w, curl_socket_t s, int make)
{
	if (s < 0)
		return NULL;
	if (s >= w->n_socks) {
		int n = w->n_socks ? w->n_socks : 64;
		struct inf_sock **ns;
		if (!make)
			return NULL;
		while (n <= s)
			n *= 2;
		if (!(ns = realloc(w->socks, sizeof(*ns) * (size_t)n)))
			return NULL;
		memset(ns + w->n_socks, 0, sizeof(*ns) * (size_t)(n - w->n_socks));
		w->socks = ns;
		w->n_socks = n;
	}
	if (!w->socks[s] && make)
		w->socks[s] = calloc(1, sizeof(struct inf_sock));
	return w->socks[s];
}

static void sock_disarm(struct inf_sock *sk)
{
	if (sk->armed)
		event_del(sk->ev);
	sk->armed = 0;
}

static void on_sock_event(evutil_socket_t fd, short what, void *arg)
{
	struct inf *w = arg;
	struct inf_sock *sk = sock_at(w, fd, 0);
	int running, flags = (what & EV_READ ? CURL_CSELECT_IN : 0) | (what & EV_WRITE ? CURL_CSELECT_OUT : 0);

	if (sk && !sk->want) {
		sock_disarm(sk); /* idle in curl's cache: curl checks it at reuse */
		return;
	}
	curl_multi_socket_action(w->multi, fd, flags, &running);
	inf_check_done(w);
}

static int sock_cb(CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct inf *w = userp;
	struct inf_sock *sk = sock_at(w, s, what != CURL_POLL_REMOVE);
	short kind = (short)((what & CURL_POLL_IN ? EV_READ : 0) | (what & CURL_POLL_OUT ? EV_WRITE : 0) | EV_PERSIST);

	(void)e;
	(void)socketp;
	if (what == CURL_POLL_REMOVE) {
		if (sk) {
			sk->want = 0;
			if (sk->armed & EV_WRITE) /* a writable socket would fire at once */
				sock_disarm(sk);
		}
		return 0;
	}
	if (!sk)
		return -1;
	sk->want = kind;
	if (sk->armed == kind)
		return 0;
	sock_disarm(sk);
	if (!sk->ev)
		sk->ev = event_new(gl_ctx_base(w->ctx), s, kind, on_sock_event, w);
	else
		event_assign(sk->ev, gl_ctx_base(w->ctx), s, kind, on_sock_event, w);
	if (!sk->ev || event_add(sk->ev, NULL) != 0)
		return -1;
	sk->armed = kind;
	return 0;
}

/* Every socket curl closes: its event goes first (see the top). */
static int close_sock(void *clientp, curl_socket_t s)
{
	struct inf_sock *sk = sock_at(clientp, s, 0);

	if (sk) {
		sock_disarm(sk);
		sk->want = 0;
	}
	return close(s);
}

static void on_curl_timer(evutil_socket_t fd, short what, void *arg)
{
	struct inf *w = arg;
	int running;

	(void)fd;
	(void)what;
	curl_multi_socket_action(w->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	inf_check_done(w);
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct inf *w = userp;
	struct timeval tv;

	(void)multi;
	if (timeout_ms < 0) {
		evtimer_del(w->ev_curl_timer);
		return 0;
	}
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	evtimer_add(w->ev_curl_timer, &tv);
	return 0;
}

int inf_curl_multi(struct inf *w)
{
	w->ev_curl_timer = evtimer_new(gl_ctx_base(w->ctx), on_curl_timer, w);
	if (!w->ev_curl_timer)
		return -1;
	curl_multi_setopt(w->multi, CURLMOPT_SOCKETFUNCTION, sock_cb);
	curl_multi_setopt(w->multi, CURLMOPT_SOCKETDATA, w);
	curl_multi_setopt(w->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	curl_multi_setopt(w->multi, CURLMOPT_TIMERDATA, w);
	return 0;
}

void inf_curl_easy(struct inf *w, CURL *e)
{
	curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, close_sock);
	curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, w);
}

void inf_curl_free(struct inf *w)
{
	for (int i = 0; i < w->n_socks; i++)
		if (w->socks[i]) {
			if (w->socks[i]->ev)
				event_free(w->socks[i]->ev);
			free(w->socks[i]);
		}
	free(w->socks);
	w->socks = NULL;
	w->n_socks = 0;
	if (w->ev_curl_timer)
		event_free(w->ev_curl_timer);
	w->ev_curl_timer = NULL;
}
