/*
 * inference_h1.c - the inference workload's own HTTP/1.1 client, for
 * plain http:// endpoints named by an IP address (inference_int.h).
 *
 * libcurl spends most of a short request's CPU on work a load generator
 * repeats identically for every request: the request head written anew,
 * header lists walked, the URL and connection cache consulted, a dozen
 * allocations and clock reads. Here an endpoint's request head is built
 * once (the method line, Host and every header the workload sends, up to
 * "Content-Length: "); a request is that head, its length and its body in
 * one sendmsg on a kept-alive connection, and its response is parsed in
 * place by http1.c as it arrives, the body handed to the same code that
 * takes libcurl's (inf_on_write), so that streams go through the same SSE
 * parser and every figure and error class means what it means with curl.
 *
 * Connections: each endpoint keeps its idle ones on a stack (the warmest
 * first); a request takes one or connects a new one (non-blocking), so
 * there are never more than the peak of requests in flight at once. An
 * idle connection's read event stays armed: when it fires the server
 * closed it (or sent what nobody asked for), and it is closed. A request
 * whose reused connection was found closed before any byte of an answer
 * came is sent again once on a new connection, as libcurl does.
 *
 * Errors map to the libcurl codes inf_finish_req classifies: no
 * connection is CURLE_COULDNT_CONNECT, a connection closed before any
 * answer CURLE_GOT_NOTHING, a head that is not HTTP CURLE_WEIRD_SERVER_REPLY
 * (both: no status, a connect error as with curl), a body cut or badly
 * framed CURLE_PARTIAL_FILE or CURLE_RECV_ERROR (truncated), the whole
 * request's limit CURLE_OPERATION_TIMEDOUT (checked by the 20 ms sweep).
 */
#include "inference_int.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http1.h"

#define H1_READ 16384 /* bytes read at once (on the stack) */

struct h1_conn {
	struct inf *w;
	struct h1_ep *ep;
	struct req *r; /* the request on it; NULL while idle */
	struct h1_conn *next; /* in its endpoint's idle stack */
	struct event *ev;
	int fd;
	short armed; /* what ev is registered for: 0 when not */
	char connecting; /* a non-blocking connect in progress */
	char reused; /* it carried an answer before */
	char spoiled; /* bytes past the answer, or a cut: never reused */
	size_t sent, total; /* bytes of the request written, and in all */
	size_t len_n, body_n; /* strlen of len and of the request's body */
	size_t got; /* bytes of its answer read */
	char len[40]; /* "N\r\n\r\n", the request's length and the head's end */
	struct gl_h1 p;
};

struct h1_ep {
	struct sockaddr_storage sa;
	socklen_t sa_len;
	char *head; /* the request head up to "Content-Length: " (holds the API key: never print) */
	size_t head_len;
	struct h1_conn *idle;
};

/* ---- the endpoint -------------------------------------------------------------------------- */

/* "http://ADDR[:PORT][/PATH]" with ADDR an IPv4 address or a bracketed
 * IPv6 one, nothing else in it: into *ep's address, *path (its path, "" for
 * none) and *host (what Host says). 0, or -1 when it is not that. */
static int parse_url(const char *url, struct h1_ep *ep, const char **path, char *host, size_t n)
{
	const char *a = url + 7, *end, *colon = NULL;
	char addr[64], service[8];
	struct addrinfo hints = { 0 }, *ai;
	long port = 80;

	if (strncasecmp(url, "http://", 7) != 0 || strpbrk(a, "?#@%\\ \t\r\n"))
		return -1;
	end = a + strcspn(a, "/");
	if (*a == '[') {
		const char *rb = memchr(a, ']', (size_t)(end - a));
		if (!rb || (size_t)(rb - a - 1) >= sizeof(addr))
			return -1;
		memcpy(addr, a + 1, (size_t)(rb - a - 1));
		addr[rb - a - 1] = '\0';
		colon = rb[1] == ':' ? rb + 1 : NULL;
		if (!colon && rb + 1 != end)
			return -1;
	} else {
		colon = memchr(a, ':', (size_t)(end - a));
		if ((size_t)((colon ? colon : end) - a) >= sizeof(addr))
			return -1;
		memcpy(addr, a, (size_t)((colon ? colon : end) - a));
		addr[(colon ? colon : end) - a] = '\0';
	}
	if (colon) {
		char *stop;
		if (colon + 1 == end || colon[1] < '0' || colon[1] > '9')
			return -1;
		port = strtol(colon + 1, &stop, 10);
		if (stop != end || port < 1 || port > 65535)
			return -1;
	}
	/* numeric only: no name is looked up, nothing blocks */
	hints.ai_family = *a == '[' ? AF_INET6 : AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(service, sizeof(service), "%ld", port);
	if (getaddrinfo(addr, service, &hints, &ai) != 0)
		return -1;
	memcpy(&ep->sa, ai->ai_addr, ai->ai_addrlen);
	ep->sa_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	if ((size_t)(end - a) >= n)
		return -1;
	memcpy(host, a, (size_t)(end - a));
	host[end - a] = '\0';
	*path = end;
	return 0;
}

int inf_h1_endpoint(struct inf *w, struct endpoint *e)
{
	struct h1_ep *ep = calloc(1, sizeof(*ep));
	const char *path;
	char host[300];
	struct gl_buf b;
	int ok;

	if (!ep)
		return -1;
	if (parse_url(e->url, ep, &path, host, sizeof(host)) != 0) {
		free(ep);
		return -1;
	}
	gl_buf_init(&b, 1 << 20);
	ok = gl_buf_printf(&b, "POST %s/%s HTTP/1.1\r\nHost: %s\r\n", path,
			   w->chat ? "chat/completions" : "completions", host) == 0;
	for (const struct curl_slist *h = w->headers; h && ok; h = h->next)
		ok = gl_buf_printf(&b, "%s\r\n", h->data) == 0;
	ok = ok && gl_buf_printf(&b, "Content-Length: ") == 0;
	if (!ok) {
		gl_buf_free(&b);
		free(ep);
		return -1;
	}
	ep->head = b.data;
	ep->head_len = b.len;
	e->h1 = ep;
	return 0;
}

/* ---- connections --------------------------------------------------------------------------- */

static void on_conn(evutil_socket_t fd, short what, void *arg);

static void conn_close(struct h1_conn *c)
{
	if (c->ev)
		event_free(c->ev);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

/* c's event for what: EV_WRITE once while connecting, EV_READ persisting
 * while it waits for an answer or idles, both persisting while it writes */
static int conn_arm(struct h1_conn *c, short what)
{
	if (c->armed == what)
		return 0;
	if (c->armed)
		event_del(c->ev);
	c->armed = 0;
	event_assign(c->ev, gl_ctx_base(c->w->ctx), c->fd, what, on_conn, c);
	if (event_add(c->ev, NULL) != 0)
		return -1;
	c->armed = what;
	return 0;
}

/* A new connection to ep, connecting; NULL when no socket could be made
 * or the connect failed at once. */
static struct h1_conn *conn_new(struct inf *w, struct h1_ep *ep)
{
	struct h1_conn *c = calloc(1, sizeof(*c));
	int one = 1;

	if (!c)
		return NULL;
	c->w = w;
	c->ep = ep;
	c->fd = socket(ep->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	c->ev = c->fd >= 0 ? event_new(gl_ctx_base(w->ctx), -1, 0, on_conn, c) : NULL;
	if (c->fd < 0 || !c->ev) {
		conn_close(c);
		return NULL;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (struct sockaddr *)&ep->sa, ep->sa_len) != 0 && errno != EINPROGRESS) {
		conn_close(c);
		return NULL;
	}
	c->connecting = 1;
	if (conn_arm(c, EV_WRITE) != 0) {
		conn_close(c);
		return NULL;
	}
	return c;
}

/* The request of c ended (its answer read, or it failed): c back on its
 * endpoint's stack when it can carry another, else closed. */
static void conn_release(struct h1_conn *c)
{
	c->r = NULL;
	if (c->spoiled || c->connecting || !c->p.done || !c->p.keep_alive || conn_arm(c, EV_READ | EV_PERSIST) != 0) {
		conn_close(c);
		return;
	}
	c->reused = 1;
	c->next = c->ep->idle;
	c->ep->idle = c;
}

/* ---- a request ----------------------------------------------------------------------------- */

static void conn_attach(struct h1_conn *c, struct req *r)
{
	c->r = r;
	c->sent = 0;
	c->got = 0;
	c->body_n = strlen(r->body);
	c->len_n = (size_t)snprintf(c->len, sizeof(c->len), "%zu\r\n\r\n", c->body_n);
	c->total = c->ep->head_len + c->len_n + c->body_n;
	gl_h1_init(&c->p);
	r->h1 = c;
}

/* Write what is left of c's request: 0 when it is all out (c then waits
 * to read) or waits for the socket to take more, -1 on an error. While
 * it waits it reads too: a server may answer (413, say) and close before
 * it has read a large body, and that answer is the request's outcome. */
static int conn_write(struct h1_conn *c)
{
	struct iovec iov[3] = { { c->ep->head, c->ep->head_len }, { c->len, c->len_n }, { c->r->body, c->body_n } };
	size_t skip = c->sent;
	struct msghdr msg = { 0 };
	int k = 0;
	ssize_t n;

	while (k < 3 && skip >= iov[k].iov_len)
		skip -= iov[k++].iov_len;
	if (k < 3) {
		iov[k].iov_base = (char *)iov[k].iov_base + skip;
		iov[k].iov_len -= skip;
	}
	msg.msg_iov = iov + k;
	msg.msg_iovlen = (size_t)(3 - k);
	n = sendmsg(c->fd, &msg, MSG_NOSIGNAL); /* a closed peer: EPIPE, not a signal */
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? conn_arm(c, EV_WRITE | EV_READ | EV_PERSIST) : -1;
	c->sent += (size_t)n;
	return conn_arm(c, c->sent < c->total ? EV_WRITE | EV_READ | EV_PERSIST : EV_READ | EV_PERSIST);
}

/* r on a connection of its endpoint: an idle one, written to at once,
 * or a new one, written to once it connects. 0, or -1 when neither
 * could be had (r then holds none). */
int inf_h1_send(struct inf *w, struct req *r)
{
	struct h1_ep *ep = w->eps[r->ep].h1;
	struct h1_conn *c;

	while ((c = ep->idle)) {
		ep->idle = c->next;
		conn_attach(c, r);
		if (conn_write(c) == 0)
			return 0;
		r->h1 = NULL; /* closed while idle, unnoticed yet: the next */
		conn_close(c);
	}
	if (!(c = conn_new(w, ep)))
		return -1;
	conn_attach(c, r);
	return 0;
}

/* r's request failed on c before any byte of an answer came: on a
 * connection that carried answers before (the server may have closed it
 * while it was idle), sent again once on a new connection (never another
 * idle one: a server that restarted left them all closed); else it ends
 * with res. */
static void retry_or_end(struct h1_conn *c, CURLcode res)
{
	struct req *r = c->r;
	struct inf *w = c->w;
	struct h1_ep *ep = c->ep;

	c->spoiled = 1;
	if (c->reused && !c->got && !r->h1_retried) {
		r->h1_retried = 1;
		r->h1 = NULL;
		conn_close(c);
		if ((c = conn_new(w, ep))) {
			conn_attach(c, r);
			return;
		}
		inf_finish_req(w, r, CURLE_COULDNT_CONNECT);
		return;
	}
	inf_finish_req(w, r, res);
}

static int on_body(void *arg, const char *data, size_t n)
{
	struct h1_conn *c = arg;
	struct req *r = c->r;

	if (!r->status)
		r->status = c->p.status;
	return inf_on_write((char *)data, 1, n, r) == n ? 0 : 1;
}

/* What came: into the parser, the body to r; r ends with its answer, or
 * with the close or error that cut it. 1 when r ended (c may be gone). */
static int conn_read(struct h1_conn *c)
{
	struct req *r = c->r;
	char buf[H1_READ];

	for (;;) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0), used;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0) { /* closed, or reset */
			if (!c->got) {
				retry_or_end(c, CURLE_GOT_NOTHING);
			} else if (gl_h1_eof(&c->p)) {
				c->spoiled = 1;
				inf_finish_req(c->w, r, CURLE_OK);
			} else {
				c->spoiled = 1;
				inf_finish_req(c->w, r, c->p.head_done ? CURLE_PARTIAL_FILE : CURLE_GOT_NOTHING);
			}
			return 1;
		}
		if (!c->got)
			r->t_headers = inf_now_ns(c->w);
		c->got += (size_t)n;
		used = gl_h1_feed(&c->p, buf, (size_t)n, on_body, c);
		if (c->p.head_done && !r->status)
			r->status = c->p.status;
		if (used < 0) {
			c->spoiled = 1;
			inf_finish_req(c->w, r,
				       c->p.error == GL_H1_E_CALLBACK ? CURLE_WRITE_ERROR
				       : c->p.head_done               ? CURLE_RECV_ERROR
								      : CURLE_WEIRD_SERVER_REPLY);
			return 1;
		}
		if (c->p.done) {
			/* bytes nobody asked for, or an answer before the whole request went out */
			c->spoiled = used < n || c->sent < c->total;
			inf_finish_req(c->w, r, CURLE_OK);
			return 1;
		}
		if ((size_t)n < sizeof(buf))
			return 0;
	}
}

/* an idle connection's event: the server closed it or sent what nobody
 * asked for; off its endpoint's stack and closed */
static void idle_event(struct h1_conn *c)
{
	struct h1_conn **p = &c->ep->idle;

	while (*p && *p != c)
		p = &(*p)->next;
	if (*p)
		*p = c->next;
	conn_close(c);
}

static void on_conn(evutil_socket_t fd, short what, void *arg)
{
	struct h1_conn *c = arg;

	if (!c->r) {
		idle_event(c);
		return;
	}
	if (c->connecting) {
		int e = 0;
		socklen_t l = sizeof(e);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0)
			e = errno;
		if (e == EINPROGRESS)
			return;
		if (e) {
			c->spoiled = 1;
			inf_finish_req(c->w, c->r, CURLE_COULDNT_CONNECT);
			return;
		}
		c->connecting = 0;
	}
	if ((what & EV_READ) && conn_read(c))
		return; /* the request ended */
	if ((what & EV_WRITE) && c->sent < c->total && conn_write(c) != 0)
		retry_or_end(c, CURLE_SEND_ERROR);
}

/* ---- the workload's side ------------------------------------------------------------------- */

void inf_h1_detach(struct req *r)
{
	struct h1_conn *c = r->h1;

	if (!c)
		return;
	r->h1 = NULL;
	conn_release(c);
}

CURLcode inf_h1_expired(struct inf *w, struct req *r, int64_t now)
{
	int64_t limit = w->timeout_ms * 1000000LL;

	if (!r->h1)
		return CURLE_OK;
	if (r->h1->connecting && limit > 10000000000LL)
		limit = 10000000000LL; /* connecting, as libcurl's connect limit */
	return now - r->t_send > limit ? CURLE_OPERATION_TIMEDOUT : CURLE_OK;
}

void inf_h1_free(struct inf *w)
{
	for (int i = 0; i < w->n_eps; i++) {
		struct h1_ep *ep = w->eps[i].h1;
		if (!ep)
			continue;
		while (ep->idle) {
			struct h1_conn *c = ep->idle;
			ep->idle = c->next;
			conn_close(c);
		}
		if (ep->head)
			memset(ep->head, 0, ep->head_len); /* the API key */
		free(ep->head);
		free(ep);
		w->eps[i].h1 = NULL;
	}
}
