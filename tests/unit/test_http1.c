/*
 * test_http1.c - the HTTP/1.1 response parser of loadgen/http1.c: status,
 * body bytes, keep-alive and consumed counts for each framing
 * (Content-Length, chunked with extensions and trailers, until close),
 * responses cut short, interim 1xx responses, 204 and 304, HTTP/1.0,
 * Connection, Transfer-Encoding beside Content-Length, every error kind,
 * long header lines skipped, pipelined responses; and every input gives the
 * same result fed whole, split in two at every byte and one byte at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "http1.h"

#define BODY_CAP 4096

/* What one feeding of an input gave. */
struct res {
	int status, minor, head_done, done, keep_alive, chunked;
	int64_t content_length, body_bytes;
	enum gl_h1_err error;
	long consumed; /* bytes of the input that were this response's, -1 on an error */
	int eof; /* gl_h1_eof's answer after the input, -2 when not asked */
	size_t blen;
	char body[BODY_CAP];
	int calls; /* body callbacks */
	int stop_at; /* >0: the callback returns 1 at this call */
};

static int on_body(void *arg, const char *d, size_t n)
{
	struct res *r = arg;

	if (r->blen + n <= BODY_CAP)
		memcpy(r->body + r->blen, d, n);
	r->blen += n;
	r->calls++;
	return r->stop_at && r->calls == r->stop_at;
}

/* Feed in[0, len) in pieces ending at the offsets in cuts (ascending), as a
 * client would: stop at an error or when the response is done. */
static void feed(const char *in, size_t len, const size_t *cuts, size_t n_cuts, int eof, int stop_at, struct res *r)
{
	struct gl_h1 p;
	size_t at = 0;

	memset(r, 0, sizeof(*r));
	r->stop_at = stop_at;
	gl_h1_init(&p);
	for (size_t i = 0; i <= n_cuts && r->consumed >= 0; i++) {
		size_t to = i < n_cuts ? cuts[i] : len;
		ssize_t k = gl_h1_feed(&p, in + at, to - at, on_body, r);
		if (k < 0) {
			r->consumed = -1;
			break;
		}
		r->consumed += k;
		if ((size_t)k < to - at || p.done)
			break;
		at = to;
	}
	r->eof = eof ? gl_h1_eof(&p) : -2;
	r->status = p.status;
	r->minor = p.minor;
	r->head_done = p.head_done;
	r->done = p.done;
	r->keep_alive = p.keep_alive;
	r->chunked = p.chunked;
	r->content_length = p.content_length;
	r->body_bytes = p.body_bytes;
	r->error = p.error;
}

static int same(const struct res *a, const struct res *b)
{
	return a->status == b->status && a->minor == b->minor && a->head_done == b->head_done && a->done == b->done &&
	       a->keep_alive == b->keep_alive && a->chunked == b->chunked && a->content_length == b->content_length &&
	       a->body_bytes == b->body_bytes && a->error == b->error && a->consumed == b->consumed &&
	       a->eof == b->eof && a->blen == b->blen &&
	       memcmp(a->body, b->body, a->blen < BODY_CAP ? a->blen : BODY_CAP) == 0;
}

/* The input fed whole into *w; then split at every byte and one byte at a
 * time, each of which must give *w again. */
static void run(const char *name, const char *in, size_t len, int eof, struct res *w)
{
	static struct res r;
	size_t cut[1], bad = 0, *all;

	feed(in, len, NULL, 0, eof, 0, w);
	for (size_t c = 0; c <= len; c++) {
		cut[0] = c;
		feed(in, len, cut, 1, eof, 0, &r);
		if (!same(&r, w) && bad++ == 0)
			fprintf(stderr, "%s: split at %zu differs from whole\n", name, c);
	}
	CHECKF(bad == 0, "%s: %zu of %zu splits differ", name, bad, len + 1);
	all = malloc((len + 1) * sizeof(*all));
	for (size_t c = 0; c < len; c++)
		all[c] = c + 1;
	feed(in, len, all, len ? len - 1 : 0, eof, 0, &r);
	CHECKF(same(&r, w), "%s: one byte at a time differs from whole", name);
	free(all);
}

#define WHOLE (-2) /* consumed: the whole input */

/* A response that must parse: its status, keep-alive, body and consumed count. */
static void ok(const char *name, const char *in, int eof, int status, int keep_alive, const char *body, long consumed,
	       int done)
{
	static struct res w;
	size_t blen = strlen(body);

	if (consumed == WHOLE)
		consumed = (long)strlen(in);
	run(name, in, strlen(in), eof, &w);
	CHECKF(w.error == GL_H1_OK, "%s: error %s", name, gl_h1_strerror(w.error));
	CHECKF(w.status == status, "%s: status %d, want %d", name, w.status, status);
	CHECKF(w.done == done, "%s: done %d, want %d", name, w.done, done);
	CHECKF(w.keep_alive == keep_alive, "%s: keep_alive %d, want %d", name, w.keep_alive, keep_alive);
	CHECKF(w.blen == blen && w.body_bytes == (int64_t)blen && memcmp(w.body, body, blen) == 0,
	       "%s: body [%.*s], want [%s]", name, (int)w.blen, w.body, body);
	CHECKF(w.consumed == consumed, "%s: consumed %ld, want %ld", name, w.consumed, consumed);
}

/* A response that must fail with error e. */
static void bad(const char *name, const char *in, size_t len, enum gl_h1_err e)
{
	static struct res w;

	run(name, in, len, 1, &w);
	CHECKF(w.error == e && w.consumed == -1 && w.eof == 0 && !w.done, "%s: error %s, want %s", name,
	       gl_h1_strerror(w.error), gl_h1_strerror(e));
}

static void test_framings(void)
{
	static struct res w;
	const char *cl = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello";
	const char *ch = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			 "5;name=val\r\nhello\r\n10 ; a=\"b\"\r\n, world, again!!\r\nA\r\n0123456789\r\n"
			 "0;last\r\nX-Trailer: 1\r\nY: 2\r\n\r\n";

	ok("content-length", cl, 0, 200, 1, "hello", (long)strlen(cl), 1);
	feed(cl, strlen(cl), NULL, 0, 0, 0, &w);
	CHECK(w.content_length == 5 && w.calls == 1 && w.minor == 1 && w.head_done && !w.chunked);
	ok("chunked", ch, 0, 200, 1, "hello, world, again!!0123456789", (long)strlen(ch), 1);
	feed(ch, strlen(ch), NULL, 0, 0, 0, &w);
	CHECKF(w.calls == 3 && w.chunked == 1 && w.content_length == -1, "chunked: %d calls", w.calls);
	ok("chunked-lf", "HTTP/1.1 200 OK\nTransfer-Encoding: CHUNKED\n\n3\nabc\n0\n\n", 0, 200, 1, "abc", WHOLE, 1);
	ok("until-close", "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nabc def", 1, 200, 0, "abc def", WHOLE, 1);
	ok("until-close-open", "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nabc def", 0, 200, 0, "abc def", WHOLE, 0);
	ok("bare-lf", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", 0, 200, 1, "ok", 37, 1);
	ok("case-ows", "HTTP/1.1 200 OK\r\ncOnTeNt-LeNgTh: \t 2 \t\r\n\r\nok", 0, 200, 1, "ok", 44, 1);
	ok("empty-reason", "HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n", 0, 404, 1, "", WHOLE, 1);
	ok("no-reason", "HTTP/1.1 503\r\nContent-Length: 1\r\n\r\nx", 0, 503, 1, "x", WHOLE, 1);
	ok("cl-dup-agree", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length: 02\r\n\r\nok", 0, 200, 1, "ok",
	   WHOLE, 1);
	ok("after-done", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1", 0, 200, 1, "ok", 40, 1);
	ok("big-chunk-size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\nab", 0, 200, 1,
	   "ab", WHOLE, 0);
}

/* A response cut by the peer's close: gl_h1_eof says 0 for every framing but the close-delimited one. */
static void test_cut(void)
{
	ok("cut-length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello", 1, 200, 1, "hello", 44, 0);
	ok("cut-chunk-data", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", 1, 200, 1, "hel", 53, 0);
	ok("cut-chunk-size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", 1, 200, 1, "hello",
	   57, 0);
	ok("cut-trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n", 1, 200, 1, "", 56, 0);
	ok("cut-head", "HTTP/1.1 200 OK\r\nContent-Le", 1, 200, 0, "", 27, 0);
	ok("cut-status", "HTTP/1.1 2", 1, 0, 0, "", 10, 0);
	ok("cut-nothing", "", 1, 0, 0, "", 0, 0);
}

static void test_interim_and_reuse(void)
{
	static struct res w;
	const char *two = "HTTP/1.1 204 No Content\r\nServer: x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
	long first = (long)strlen("HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n");

	ok("interim",
	   "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\nContent-Length: 99\r\n"
	   "Connection: close\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	   0, 200, 1, "ok", WHOLE, 1);
	ok("204", two, 0, 204, 1, "", first, 1);
	ok("304", "HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n", 0, 304, 1, "", 50, 1);
	ok("204-chunked", "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", 0, 204, 1, "", 55, 1);
	ok("1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 0, 200, 0, "ok", 40, 1);
	ok("1.0-keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok", 0, 200, 1,
	   "ok", 64, 1);
	ok("1.0-keep-alive-close", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nok", 1, 200, 0, "ok", WHOLE, 1);
	ok("1.0-keep-alive-chunked",
	   "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 0, 200, 0, "",
	   76, 1);
	ok("close", "HTTP/1.1 200 OK\r\nConnection: Upgrade, , CLOSE\r\nContent-Length: 2\r\n\r\nok", 0, 200, 0, "ok",
	   WHOLE, 1);
	ok("te-cl", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	   0, 200, 0, "hello", WHOLE, 1);
	feed("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 75, NULL, 0, 0, 0,
	     &w);
	CHECK(w.chunked == 1 && w.content_length == -1 && w.done == 1 && w.keep_alive == 0);
	ok("te-gzip", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\nokok", 1, 200, 0, "okok",
	   WHOLE, 1);
	ok("te-chunked-not-last", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", 1, 200, 0,
	   "0\r\n\r\n", WHOLE, 1);
	ok("te-two-headers",
	   "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked,\r\n\r\n1\r\nz\r\n0\r\n\r\n", 0,
	   200, 1, "z", WHOLE, 1);

	/* Two pipelined responses: the first ends where the second starts. */
	feed(two, strlen(two), NULL, 0, 0, 0, &w);
	CHECK(w.consumed == first && w.done && w.status == 204);
	feed(two + first, strlen(two) - (size_t)first, NULL, 0, 0, 0, &w);
	CHECK(w.consumed == (long)strlen(two) - first && w.done && w.status == 200 && w.blen == 3 &&
	      memcmp(w.body, "abc", 3) == 0 && w.keep_alive == 1);
}

static void test_errors(void)
{
	static struct res w;
	static char big[70 * 1024 + 64];
	const char *s;
	size_t n;

	bad("http2", "HTTP/2 200 OK\r\n\r\n", 17, GL_H1_E_STATUS);
	bad("two-digit", "HTTP/1.1 20 OK\r\n\r\n", 18, GL_H1_E_STATUS);
	bad("no-space", "HTTP/1.1 200OK\r\n\r\n", 18, GL_H1_E_STATUS);
	bad("101", "HTTP/1.1 101 Switching Protocols\r\n\r\n", 37, GL_H1_E_STATUS);
	bad("icy", "ICY 200 OK\r\n\r\n", 14, GL_H1_E_STATUS);
	bad("blank-first", "\r\nHTTP/1.1 200 OK\r\n\r\n", 21, GL_H1_E_STATUS);
	bad("no-colon", "HTTP/1.1 200 OK\r\nServer\r\n\r\n", 27, GL_H1_E_HEADER);
	bad("obs-fold", "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", 29, GL_H1_E_HEADER);
	bad("space-name", "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok", 43, GL_H1_E_HEADER);
	bad("empty-name", "HTTP/1.1 200 OK\r\n: x\r\n\r\n", 24, GL_H1_E_HEADER);
	bad("cl-letters", "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n", 40, GL_H1_E_LENGTH);
	bad("cl-negative", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 39, GL_H1_E_LENGTH);
	bad("cl-empty", "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", 36, GL_H1_E_LENGTH);
	bad("cl-overflow", "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775808\r\n\r\n", 56, GL_H1_E_LENGTH);
	bad("cl-differ", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 57, GL_H1_E_LENGTH);
	s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
	n = strlen(s);
	memcpy(big, s, n);
	memcpy(big + n, "zz\r\n", 4);
	bad("chunk-not-hex", big, n + 4, GL_H1_E_CHUNK);
	memcpy(big + n, "8000000000000000\r\n", 18);
	bad("chunk-overflow", big, n + 18, GL_H1_E_CHUNK);
	memcpy(big + n, "5\r\nhelloX\r\n", 11);
	bad("chunk-no-crlf", big, n + 11, GL_H1_E_CHUNK);
	memcpy(big + n, "5 x\r\n", 5);
	bad("chunk-junk", big, n + 5, GL_H1_E_CHUNK);
	memset(big + n, '0', 300);
	memcpy(big + n + 300, "5\r\nhello\r\n0\r\n\r\n", 15);
	bad("chunk-long-zeros", big, n + 315, GL_H1_E_CHUNK);

	/* Fields are set at the head's end: a head cut by an error leaves chunked 0 beside a Content-Length. */
	s = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: gzip, chunked\r\n0\r\n\r\n";
	feed(s, strlen(s), NULL, 0, 0, 0, &w);
	CHECK(w.error == GL_H1_E_HEADER && w.chunked == 0 && w.content_length == 3 && !w.head_done);

	/* 70 headers of 1 KiB: past GL_H1_HEAD_MAX. */
	s = "HTTP/1.1 200 OK\r\n";
	n = strlen(s);
	memcpy(big, s, n);
	for (int i = 0; i < 70; i++, n += 1024) {
		memset(big + n, 'v', 1024);
		memcpy(big + n, "X-Pad: ", 7);
		memcpy(big + n + 1022, "\r\n", 2);
	}
	memcpy(big + n, "\r\n", 2);
	feed(big, n + 2, NULL, 0, 0, 0, &w);
	CHECK(w.error == GL_H1_E_TOO_BIG && w.consumed == -1);
	feed(big, 62 * 1024, NULL, 0, 0, 0, &w);
	CHECK(w.error == GL_H1_OK && w.consumed == 62 * 1024);
	{
		/* The same, split at every 997th byte and one byte at a time. */
		static struct res r;
		static size_t cuts[70 * 1024 + 64];
		size_t nc = 0, differ = 0;
		for (size_t c = 1; c < n + 2; c += 997)
			cuts[nc++] = c;
		feed(big, n + 2, cuts, nc, 0, 0, &r);
		differ += r.error != GL_H1_E_TOO_BIG || r.consumed != -1;
		for (nc = 0; nc < n + 1; nc++)
			cuts[nc] = nc + 1;
		feed(big, n + 2, cuts, nc, 0, 0, &r);
		differ += r.error != GL_H1_E_TOO_BIG || r.consumed != -1;
		CHECKF(differ == 0, "too-big: %zu fragmentings differ", differ);
	}

	/* The callback stops the parser; the error is sticky. */
	s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n1\r\nb\r\n0\r\n\r\n";
	feed(s, strlen(s), NULL, 0, 0, 2, &w);
	CHECK(w.error == GL_H1_E_CALLBACK && w.consumed == -1 && w.blen == 2 && w.eof == -2);
	{
		struct gl_h1 p;
		gl_h1_init(&p);
		CHECK(gl_h1_feed(&p, "HTTP/1.1 2x\r\n", 13, NULL, NULL) == -1 && p.error == GL_H1_E_STATUS);
		CHECK(gl_h1_feed(&p, "HTTP/1.1 200 OK\r\n", 17, NULL, NULL) == -1 && gl_h1_eof(&p) == 0);
	}
	for (int e = GL_H1_OK; e <= GL_H1_E_CALLBACK; e++)
		CHECKF(strcmp(gl_h1_strerror((enum gl_h1_err)e), "unknown") != 0, "strerror %d", e);
}

/* Header lines longer than the line buffer cost nothing and are read by their start. */
static void test_long_lines(void)
{
	static char in[12 * 1024];
	static struct res w;
	const char *tail = "\r\nContent-Length: 3\r\n\r\nabc";
	size_t n;

	n = (size_t)sprintf(in, "HTTP/1.1 200 OK\r\nSet-Cookie: ");
	memset(in + n, 'a', 10240);
	n += 10240;
	strcpy(in + n, tail);
	ok("cookie-10k", in, 0, 200, 1, "abc", (long)(n + strlen(tail)), 1);

	n = (size_t)sprintf(in, "HTTP/1.1 200 OK\r\nX-");
	memset(in + n, 'n', 500);
	n += 500;
	strcpy(in + n, ": v\r\nContent-Length: 3\r\n\r\nabc");
	ok("long-name", in, 0, 200, 1, "abc", (long)strlen(in), 1);

	n = (size_t)sprintf(in, "HTTP/1.1 200 OK\r\nConnection: keep-alive");
	for (int i = 0; i < 40; i++)
		n += (size_t)sprintf(in + n, ", tok%d", i);
	strcpy(in + n, "\r\nContent-Length: 3\r\n\r\nabc");
	ok("long-connection", in, 0, 200, 0, "abc", (long)strlen(in), 1);

	n = (size_t)sprintf(in, "HTTP/1.1 200 OK\r\nContent-Length: ");
	memset(in + n, '0', 200);
	n += 200;
	strcpy(in + n, "3\r\n\r\nabc");
	run("long-length", in, strlen(in), 1, &w);
	CHECK(w.error == GL_H1_E_LENGTH && w.consumed == -1);

	n = (size_t)sprintf(in, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip,");
	memset(in + n, ' ', 200);
	n += 200;
	strcpy(in + n, "chunked\r\n\r\n0\r\n\r\n");
	run("long-te", in, strlen(in), 1, &w);
	CHECK(w.error == GL_H1_E_HEADER && w.consumed == -1);

	n = (size_t)sprintf(in, "HTTP/1.1 200 OK ");
	memset(in + n, 'r', 300);
	n += 300;
	strcpy(in + n, "\r\nContent-Length: 1\r\n\r\nz");
	ok("long-reason", in, 0, 200, 1, "z", (long)strlen(in), 1);
}

int main(void)
{
	CHECKF(sizeof(struct gl_h1) <= 400, "sizeof(struct gl_h1) %zu", sizeof(struct gl_h1));
	printf("sizeof(struct gl_h1) = %zu\n", sizeof(struct gl_h1));
	test_framings();
	test_cut();
	test_interim_and_reuse();
	test_errors();
	test_long_lines();
	return check_done();
}
