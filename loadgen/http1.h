/*
 * http1.h - an incremental HTTP/1.1 response parser for the load generator's
 * own client transport: status line, the three headers that decide framing
 * and connection reuse, and the body, pushed in fragments of any size.
 *
 * The parser allocates nothing and copies no body byte: body bytes go to the
 * callback straight from the caller's buffer, a whole content-length span or
 * chunk-data span of a fragment in one call. Headers are not stored: each
 * line is kept up to GL_H1_LINE_MAX bytes (enough for a name and a short
 * value) and the rest of a longer line is skipped, so a 10 KiB cookie costs
 * nothing. Only Content-Length, Transfer-Encoding and Connection are read.
 *
 * Framing follows RFC 9112 section 6.3 for responses: 204 and 304 have no
 * body; a Transfer-Encoding whose last coding is chunked means chunked (and
 * any Content-Length is ignored, the connection not reused); any other
 * Transfer-Encoding, or neither header, means the body runs until the peer
 * closes; else Content-Length bytes. Interim 1xx responses are skipped, 101
 * is an error (the client never asks for an upgrade). Lines end in CRLF or a
 * bare LF. The parser does not know the request's method: a response to
 * HEAD must not be fed to it past its head.
 *
 * Threads: a struct gl_h1 belongs to one connection; the functions here keep
 * no global state.
 */
#ifndef GL_HTTP1_H
#define GL_HTTP1_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define GL_H1_HEAD_MAX (64 * 1024) /* bytes of status lines and headers, of a trailer, of one chunk-size line */
#define GL_H1_LINE_MAX 128 /* bytes of a line kept; the rest of a longer one is skipped */

/* Body bytes of the response, in order, as they are parsed (chunked framing
 * removed). Returns 0, or non-zero to stop: gl_h1_feed then returns -1 with
 * error GL_H1_E_CALLBACK. */
typedef int (*gl_h1_body_fn)(void *arg, const char *data, size_t n);

enum gl_h1_err {
	GL_H1_OK = 0,
	GL_H1_E_STATUS, /* not an HTTP/1.x status line, or 101 */
	GL_H1_E_HEADER, /* a header line without ':', a bad name, obs-fold, an unreadable Transfer-Encoding */
	GL_H1_E_TOO_BIG, /* the head, a trailer or a chunk-size line over GL_H1_HEAD_MAX */
	GL_H1_E_LENGTH, /* Content-Length not digits, over int64, or two that differ */
	GL_H1_E_CHUNK, /* a bad chunk size (not hex, overflow) or no line end after chunk data */
	GL_H1_E_CALLBACK, /* the body callback returned non-zero */
};

/* One response being parsed. The public fields come first; the rest is the
 * parser's own (about 200 bytes in all: one lives per connection). */
struct gl_h1 {
	int status; /* the final status code (after any 1xx interim response), 0 until its line is read */
	int minor; /* HTTP/1.minor of that status line */
	int head_done; /* the final response's status line and headers are read */
	int done; /* the whole response is read */
	int keep_alive; /* valid when done: the connection may carry another request */
	int chunked; /* the body is chunked (set with head_done) */
	int64_t content_length; /* -1 when none, or when ignored beside Transfer-Encoding */
	int64_t body_bytes; /* body bytes delivered so far */
	enum gl_h1_err error; /* sticky: once set, every feed returns -1 */

	/* Private. */
	unsigned char state; /* what the next byte belongs to */
	unsigned char interim; /* the status line read was 1xx: its headers are skipped */
	unsigned char te; /* a Transfer-Encoding header was seen */
	unsigned char te_chunked; /* the last coding of the last one is chunked */
	unsigned char has_cl; /* a Content-Length header was seen */
	unsigned char conn_close; /* Connection: close (or a Connection line too long to read) */
	unsigned char conn_ka; /* Connection: keep-alive */
	unsigned char lb_trunc; /* the line being read is longer than GL_H1_LINE_MAX */
	unsigned short lb_len; /* bytes of it kept in lb */
	uint32_t sect_bytes; /* bytes of the current head, trailer or chunk-size line */
	int64_t remain; /* bytes left of the content-length body or of the chunk */
	char lb[GL_H1_LINE_MAX]; /* the start of a line split across fragments */
};

/* Ready for one response (also after a finished one, for the next response
 * on the same connection). */
void gl_h1_init(struct gl_h1 *p);

/* Parse n bytes. Returns how many were consumed: all n, unless the response
 * ends inside them (done set; the rest is not this response's), or -1 on an
 * error (error set). Once done, returns 0. */
ssize_t gl_h1_feed(struct gl_h1 *p, const char *data, size_t n, gl_h1_body_fn body, void *arg);

/* The peer closed the connection: 1 when that ends the response cleanly (a
 * body delimited by the close, i.e. no Content-Length and not chunked; sets
 * done, keep_alive 0), 0 when the response is cut (or never began, or had an
 * error). A response already done gives 1 and is left as it was. */
int gl_h1_eof(struct gl_h1 *p);

/* "ok", "bad status line", ...: static strings. */
const char *gl_h1_strerror(enum gl_h1_err e);

#endif
