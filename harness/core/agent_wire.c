/*
 * agent_wire.c - frames and the DATA payload between the controller and
 * its load agents (agent_wire.h has the format).
 */
#include "agent_wire.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <cjson/cJSON.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>

static void put_be(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--) {
		p[i] = (unsigned char)(v & 0xff);
		v >>= 8;
	}
}

static uint64_t get_be(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = (v << 8) | p[i];
	return v;
}

int gl_aw_frame(struct gl_buf *out, int type, const void *payload, size_t n)
{
	unsigned char h[5];

	if (n + 1 > GL_AW_FRAME_MAX)
		return -1;
	put_be(h, (uint64_t)(n + 1), 4);
	h[4] = (unsigned char)type;
	if (gl_buf_append(out, h, 5) != 0)
		return -1;
	if (n && gl_buf_append(out, payload, n) != 0) {
		out->len -= 5;
		return -1;
	}
	return 0;
}

int gl_aw_next(const unsigned char *buf, size_t len, int *type, const unsigned char **payload, size_t *plen,
	       size_t *used)
{
	uint64_t l;

	if (len < 4)
		return 0;
	l = get_be(buf, 4);
	if (l < 1 || l > GL_AW_FRAME_MAX)
		return -1;
	if (len < 4 + l)
		return 0;
	*type = buf[4];
	*payload = buf + 5;
	*plen = (size_t)l - 1;
	*used = 4 + (size_t)l;
	return 1;
}

void gl_aw_data_begin(struct gl_aw_data *d, int64_t window, int final)
{
	unsigned char h[13];

	memset(d, 0, sizeof(*d));
	gl_buf_init(&d->b, GL_AW_FRAME_MAX - 1);
	put_be(h, (uint64_t)window, 8);
	h[8] = final ? 1 : 0;
	put_be(h + 9, 0, 4);
	d->count_at = 9;
	if (gl_buf_append(&d->b, h, sizeof(h)) != 0)
		d->failed = 1;
}

static int name_ok(const char *s, size_t n)
{
	if (n < 1 || n > 95)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '.' || c == ':' || c == '-'))
			return 0;
	}
	return 1;
}

void gl_aw_data_add(struct gl_aw_data *d, const char *name, const struct gl_hist *h, int64_t counter)
{
	size_t n = strlen(name);
	unsigned char head[2 + 95 + 8];
	unsigned char *blob = NULL;
	size_t blen = 0;

	if (d->failed)
		return;
	if (!name_ok(name, n)) {
		d->failed = 1;
		return;
	}
	head[0] = h ? 1 : 0;
	head[1] = (unsigned char)n;
	memcpy(head + 2, name, n);
	if (!h) {
		put_be(head + 2 + n, (uint64_t)counter, 8);
		if (gl_buf_append(&d->b, head, 2 + n + 8) != 0)
			d->failed = 1;
	} else {
		if (gl_hist_serialize(h, &blob, &blen) != 0 || blen > GL_AW_FRAME_MAX) {
			d->failed = 1;
			free(blob);
			return;
		}
		put_be(head + 2 + n, (uint64_t)blen, 4);
		if (gl_buf_append(&d->b, head, 2 + n + 4) != 0 || gl_buf_append(&d->b, blob, blen) != 0)
			d->failed = 1;
		free(blob);
	}
	if (!d->failed)
		d->count++;
}

int gl_aw_data_end(struct gl_aw_data *d)
{
	if (d->failed || !d->b.data)
		return -1;
	put_be((unsigned char *)d->b.data + d->count_at, d->count, 4);
	return 0;
}

int64_t gl_aw_data_window(const unsigned char *p, size_t n)
{
	return n < 13 ? -1 : (int64_t)get_be(p, 8);
}

int gl_aw_data_decode(const unsigned char *p, size_t n, int64_t *window, int *final, gl_aw_series_fn fn, void *arg,
		      struct gl_err *err)
{
	size_t off = 13;
	uint32_t count;

	if (n < 13)
		return gl_errf(err, GL_EINVAL, "data: %zu bytes, shorter than its header", n);
	*window = (int64_t)get_be(p, 8);
	if (*window < 0)
		return gl_errf(err, GL_EINVAL, "data: negative window %lld", (long long)*window);
	if (p[8] > 1)
		return gl_errf(err, GL_EINVAL, "data: final flag %u", p[8]);
	*final = p[8];
	count = (uint32_t)get_be(p + 9, 4);
	for (uint32_t i = 0; i < count; i++) {
		char name[96];
		int kind;
		size_t nl;

		if (n - off < 2)
			return gl_errf(err, GL_EINVAL, "data: series %u cut short", i);
		kind = p[off];
		nl = p[off + 1];
		off += 2;
		if (kind > 1 || n - off < nl || !name_ok((const char *)p + off, nl))
			return gl_errf(err, GL_EINVAL, "data: series %u: bad kind or name", i);
		memcpy(name, p + off, nl);
		name[nl] = '\0';
		off += nl;
		if (kind == 0) {
			if (n - off < 8)
				return gl_errf(err, GL_EINVAL, "data: counter %s cut short", name);
			if (fn(arg, name, NULL, (int64_t)get_be(p + off, 8)) != 0)
				return gl_errf(err, GL_EINVAL, "data: counter %s refused", name);
			off += 8;
		} else {
			uint64_t bl;
			struct gl_hist *h;
			int rc;
			if (n - off < 4)
				return gl_errf(err, GL_EINVAL, "data: histogram %s cut short", name);
			bl = get_be(p + off, 4);
			off += 4;
			if (n - off < bl)
				return gl_errf(err, GL_EINVAL, "data: histogram %s: %llu bytes announced, %zu left",
					       name, (unsigned long long)bl, n - off);
			h = gl_hist_deserialize(p + off, (size_t)bl);
			if (!h)
				return gl_errf(err, GL_EINVAL, "data: histogram %s does not parse", name);
			rc = fn(arg, name, h, 0);
			gl_hist_free(h);
			if (rc != 0)
				return gl_errf(err, GL_EINVAL, "data: histogram %s refused", name);
			off += (size_t)bl;
		}
	}
	if (off != n)
		return gl_errf(err, GL_EINVAL, "data: %zu bytes after the last series", n - off);
	return 0;
}

int gl_aw_token_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = (unsigned char)(la != lb);

	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0 && la > 0;
}

int gl_aw_send(struct bufferevent *bev, int type, const void *payload, size_t n)
{
	struct gl_buf b;
	int rc = -1;

	if (!bev)
		return -1;
	gl_buf_init(&b, GL_AW_FRAME_MAX + 8);
	if (gl_aw_frame(&b, type, payload, n) == 0)
		rc = bufferevent_write(bev, b.data, b.len);
	gl_buf_free(&b);
	return rc;
}

int gl_aw_send_json(struct bufferevent *bev, int type, const void *j)
{
	char *t = cJSON_PrintUnformatted((const cJSON *)j);
	int rc = -1;

	if (t) {
		rc = gl_aw_send(bev, type, t, strlen(t));
		free(t);
	}
	return rc;
}

int gl_aw_pump(struct evbuffer *in, gl_aw_frame_fn f, void *arg, int max)
{
	return gl_aw_pump_cap(in, f, arg, max, GL_AW_FRAME_MAX);
}

int gl_aw_pump_cap(struct evbuffer *in, gl_aw_frame_fn f, void *arg, int max, size_t cap)
{
	for (int k = 0; k < max; k++) {
		size_t len = evbuffer_get_length(in), plen, used;
		const unsigned char *payload;
		unsigned char *b;
		int type, rc;

		uint64_t l;

		if (len < 4)
			return 0;
		b = evbuffer_pullup(in, 4);
		l = get_be(b, 4);
		if (l < 1 || l > GL_AW_FRAME_MAX || l > cap)
			return -2;
		if (len < 4 + l)
			return 0;
		b = evbuffer_pullup(in, (ssize_t)(4 + l));
		if (gl_aw_next(b, (size_t)(4 + l), &type, &payload, &plen, &used) != 1)
			return -2;
		rc = f(arg, type, payload, plen);
		evbuffer_drain(in, used);
		if (rc != 0)
			return rc;
	}
	return 0;
}
