/*
 * http1.c - the incremental HTTP/1.1 response parser (see http1.h for the
 * contract).
 *
 * A push state machine over two kinds of input. In a line state (status
 * line, header, chunk size, end of chunk data, trailer) the fragment is
 * searched for '\n' with memchr; a line that arrives whole is read in place,
 * only a line split across fragments is gathered in the fixed line buffer,
 * and either way the line handler sees the same first GL_H1_LINE_MAX bytes
 * and whether there were more, so the result never depends on where the
 * fragments were cut. In a body state a whole span of the fragment goes to
 * the callback at once.
 */
#include "http1.h"

#include <string.h>

enum h1_state {
	H1_STATUS, /* the status line */
	H1_HEADER, /* header lines, up to the blank line */
	H1_BODY_LEN, /* remain bytes of a Content-Length body */
	H1_BODY_CLOSE, /* body bytes until the peer closes */
	H1_CHUNK_SIZE, /* a chunk-size line */
	H1_CHUNK_DATA, /* remain bytes of chunk data */
	H1_CHUNK_END, /* the line end after chunk data */
	H1_TRAILER, /* trailer lines after the last chunk, up to the blank line */
	H1_DONE,
};

const char *gl_h1_strerror(enum gl_h1_err e)
{
	switch (e) {
	case GL_H1_OK: return "ok";
	case GL_H1_E_STATUS: return "bad status line";
	case GL_H1_E_HEADER: return "bad header line";
	case GL_H1_E_TOO_BIG: return "head too big";
	case GL_H1_E_LENGTH: return "bad Content-Length";
	case GL_H1_E_CHUNK: return "bad chunk";
	case GL_H1_E_CALLBACK: return "stopped by the body callback";
	}
	return "unknown";
}

void gl_h1_init(struct gl_h1 *p)
{
	memset(p, 0, sizeof(*p));
	p->content_length = -1;
	p->state = H1_STATUS;
}

static int fail(struct gl_h1 *p, enum gl_h1_err e)
{
	p->error = e;
	return -1;
}

static int is_ows(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* s[0..n) equals the lowercase literal lit, ignoring ASCII case. */
static int ieq(const char *s, size_t n, const char *lit)
{
	size_t i;

	for (i = 0; i < n && lit[i]; i++)
		if (lower(s[i]) != lit[i])
			return 0;
	return i == n && lit[i] == '\0';
}

/* The next non-empty element of a comma list at *s..e, trimmed; 0 at the end. */
static int next_token(const char **s, const char *e, const char **tok, size_t *len)
{
	while (*s < e) {
		const char *a = *s, *b;
		const char *comma = memchr(a, ',', (size_t)(e - a));

		b = comma ? comma : e;
		*s = comma ? comma + 1 : e;
		while (a < b && is_ows(*a))
			a++;
		while (b > a && is_ows(b[-1]))
			b--;
		if (b > a) {
			*tok = a;
			*len = (size_t)(b - a);
			return 1;
		}
	}
	return 0;
}

/* "HTTP/1.x SSS" then the end or " reason". */
static int h1_status_line(struct gl_h1 *p, const char *s, size_t n)
{
	int code;

	if (n < 12 || memcmp(s, "HTTP/1.", 7) != 0 || !is_digit(s[7]) || s[8] != ' ' || s[9] < '1' || s[9] > '9' ||
	    !is_digit(s[10]) || !is_digit(s[11]) || (n > 12 && s[12] != ' '))
		return fail(p, GL_H1_E_STATUS);
	code = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
	if (code == 101)
		return fail(p, GL_H1_E_STATUS);
	p->interim = code < 200;
	if (!p->interim) {
		p->status = code;
		p->minor = s[7] - '0';
	}
	p->state = H1_HEADER;
	return 0;
}

static int h1_content_length(struct gl_h1 *p, const char *v, size_t n, int trunc)
{
	int64_t x = 0;

	if (n == 0 || trunc)
		return fail(p, GL_H1_E_LENGTH);
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(v[i]) || x > (INT64_MAX - (v[i] - '0')) / 10)
			return fail(p, GL_H1_E_LENGTH);
		x = x * 10 + (v[i] - '0');
	}
	if (p->has_cl && x != p->content_length)
		return fail(p, GL_H1_E_LENGTH);
	p->has_cl = 1;
	p->content_length = x;
	return 0;
}

/* One header of the final response: name [0, nlen), value v[0, vlen). */
static int h1_field(struct gl_h1 *p, const char *s, size_t nlen, const char *v, size_t vlen, int trunc)
{
	const char *tok, *e = v + vlen;
	size_t tlen;

	if (ieq(s, nlen, "content-length"))
		return h1_content_length(p, v, vlen, trunc);
	if (ieq(s, nlen, "transfer-encoding")) {
		/* The last coding decides; an unread end could hide it. */
		if (trunc)
			return fail(p, GL_H1_E_HEADER);
		p->te = 1;
		p->te_chunked = 0;
		while (next_token(&v, e, &tok, &tlen))
			p->te_chunked = ieq(tok, tlen, "chunked");
		return 0;
	}
	if (ieq(s, nlen, "connection")) {
		if (trunc)
			p->conn_close = 1; /* unread tokens: do not reuse the connection */
		while (next_token(&v, e, &tok, &tlen)) {
			if (ieq(tok, tlen, "close"))
				p->conn_close = 1;
			else if (ieq(tok, tlen, "keep-alive"))
				p->conn_ka = 1;
		}
	}
	return 0;
}

/* A header line (not the blank one), its first n bytes; trunc: there were more. */
static int h1_header_line(struct gl_h1 *p, const char *s, size_t n, int trunc)
{
	const char *colon;
	const char *v, *e = s + n;
	size_t nlen;

	if (is_ows(s[0]))
		return fail(p, GL_H1_E_HEADER); /* obs-fold */
	colon = memchr(s, ':', n);
	if (!colon)
		return trunc ? 0 : fail(p, GL_H1_E_HEADER); /* a name longer than the buffer: not one we read */
	nlen = (size_t)(colon - s);
	if (nlen == 0 || memchr(s, ' ', nlen) || memchr(s, '\t', nlen))
		return fail(p, GL_H1_E_HEADER);
	if (p->interim)
		return 0;
	v = colon + 1;
	while (v < e && is_ows(*v))
		v++;
	if (!trunc)
		while (e > v && is_ows(e[-1]))
			e--;
	return h1_field(p, s, nlen, v, (size_t)(e - v), trunc);
}

/* The blank line after the headers: interim responses start over, the final one picks its framing. */
static void h1_head_end(struct gl_h1 *p)
{
	int ka;

	if (p->interim) {
		p->state = H1_STATUS;
		return;
	}
	p->head_done = 1;
	p->chunked = p->te && p->te_chunked;
	ka = p->minor >= 1 ? !p->conn_close : p->conn_ka && !p->conn_close;
	if (p->te) {
		/* RFC 9112 6.1 and 6.3: Content-Length is ignored, and its presence
		 * (or an HTTP/1.0 message) makes the framing suspect. */
		if (p->has_cl || p->minor == 0)
			ka = 0;
		p->content_length = -1;
		if (!p->chunked)
			ka = 0;
	}
	p->keep_alive = ka;
	if (p->status == 204 || p->status == 304) {
		p->state = H1_DONE;
		p->chunked = 0;
	} else if (p->te) {
		p->state = p->chunked ? H1_CHUNK_SIZE : H1_BODY_CLOSE;
	} else if (p->has_cl) {
		p->remain = p->content_length;
		p->state = p->remain ? H1_BODY_LEN : H1_DONE;
	} else {
		p->keep_alive = 0;
		p->state = H1_BODY_CLOSE;
	}
	p->sect_bytes = 0;
	p->done = p->state == H1_DONE;
}

/* "HEX [ws] [;ext]": the size of the next chunk. */
static int h1_chunk_size(struct gl_h1 *p, const char *s, size_t n, int trunc)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char c = lower(s[i]);
		int d = is_digit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			break;
		if (x > (uint64_t)INT64_MAX >> 4)
			return fail(p, GL_H1_E_CHUNK);
		x = x << 4 | (uint64_t)d;
	}
	if (i == 0 || (i == n && trunc))
		return fail(p, GL_H1_E_CHUNK); /* no size, or digits past the kept part */
	while (i < n && is_ows(s[i]))
		i++;
	if (i < n && s[i] != ';')
		return fail(p, GL_H1_E_CHUNK);
	p->remain = (int64_t)x;
	p->sect_bytes = 0;
	p->state = x ? H1_CHUNK_DATA : H1_TRAILER;
	return 0;
}

/* One complete line of a line state: its first n bytes, trunc when it had more. */
static int h1_line(struct gl_h1 *p, const char *s, size_t n, int trunc)
{
	if (!trunc && n && s[n - 1] == '\r')
		n--;
	switch (p->state) {
	case H1_STATUS: return h1_status_line(p, s, n);
	case H1_HEADER:
		if (n == 0 && !trunc) {
			h1_head_end(p);
			return 0;
		}
		return h1_header_line(p, s, n, trunc);
	case H1_CHUNK_SIZE: return h1_chunk_size(p, s, n, trunc);
	case H1_CHUNK_END:
		if (n || trunc)
			return fail(p, GL_H1_E_CHUNK);
		p->state = H1_CHUNK_SIZE;
		return 0;
	case H1_TRAILER:
		if (n == 0 && !trunc) {
			p->state = H1_DONE;
			p->done = 1;
		}
		return 0;
	}
	return 0;
}

/* A line state: take what of the line is in d[0, n). Returns bytes used or -1. */
static ssize_t h1_line_step(struct gl_h1 *p, const char *d, size_t n)
{
	const char *nl = memchr(d, '\n', n);
	size_t seg = nl ? (size_t)(nl - d) : n, take = nl ? seg + 1 : n, room;
	int rc;

	if (take > GL_H1_HEAD_MAX - p->sect_bytes)
		return fail(p, GL_H1_E_TOO_BIG);
	p->sect_bytes += (uint32_t)take;
	if (!nl || p->lb_len || p->lb_trunc) {
		room = GL_H1_LINE_MAX - p->lb_len;
		if (seg > room)
			p->lb_trunc = 1;
		memcpy(p->lb + p->lb_len, d, seg < room ? seg : room);
		p->lb_len = (unsigned short)(p->lb_len + (seg < room ? seg : room));
		if (!nl)
			return (ssize_t)take;
		rc = h1_line(p, p->lb, p->lb_len, p->lb_trunc);
		p->lb_len = 0;
		p->lb_trunc = 0;
	} else {
		rc = h1_line(p, d, seg < GL_H1_LINE_MAX ? seg : GL_H1_LINE_MAX, seg > GL_H1_LINE_MAX);
	}
	return rc < 0 ? -1 : (ssize_t)take;
}

/* A body state: hand over what of the body is in d[0, n). Returns bytes used or -1. */
static ssize_t h1_body_step(struct gl_h1 *p, const char *d, size_t n, gl_h1_body_fn body, void *arg)
{
	size_t k = n;

	if (p->state != H1_BODY_CLOSE && (uint64_t)p->remain < k)
		k = (size_t)p->remain;
	p->body_bytes += (int64_t)k;
	if (p->state != H1_BODY_CLOSE) {
		p->remain -= (int64_t)k;
		if (p->remain == 0) {
			p->state = p->state == H1_BODY_LEN ? H1_DONE : H1_CHUNK_END;
			p->done = p->state == H1_DONE;
		}
	}
	if (body && body(arg, d, k) != 0)
		return fail(p, GL_H1_E_CALLBACK);
	return (ssize_t)k;
}

ssize_t gl_h1_feed(struct gl_h1 *p, const char *data, size_t n, gl_h1_body_fn body, void *arg)
{
	size_t i = 0;

	if (p->error)
		return -1;
	while (i < n && p->state != H1_DONE) {
		ssize_t k;

		if (p->state == H1_BODY_LEN || p->state == H1_BODY_CLOSE || p->state == H1_CHUNK_DATA)
			k = h1_body_step(p, data + i, n - i, body, arg);
		else
			k = h1_line_step(p, data + i, n - i);
		if (k < 0)
			return -1;
		i += (size_t)k;
	}
	return (ssize_t)i;
}

int gl_h1_eof(struct gl_h1 *p)
{
	if (p->error)
		return 0;
	if (p->done)
		return 1;
	if (p->state != H1_BODY_CLOSE)
		return 0;
	p->state = H1_DONE;
	p->done = 1;
	p->keep_alive = 0;
	return 1;
}
