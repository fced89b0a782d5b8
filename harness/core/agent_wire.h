/*
 * agent_wire.h - what the controller and its load agents say to each other
 * over TCP (agents.c is the controller's side, agent.c the agent's).
 *
 * A frame is a 4-byte big-endian length L, then L bytes: one type byte
 * and the payload. L is at least 1 and at most GL_AW_FRAME_MAX. Every
 * payload is JSON except DATA, which is binary:
 *
 *   i64 window (big-endian), u8 final (0 or 1), u32 series count, then per
 *   series: u8 kind (0 counter, 1 histogram), u8 name length (1..95), the
 *   name ([A-Za-z0-9_.:-] only), then for a counter an i64 value, for a
 *   histogram a u32 length and gl_hist_serialize's bytes.
 *
 * The agent speaks first (HELLO, with the run's token); nothing else is
 * read from a connection until its HELLO matched. Decoders are bounded and
 * refuse anything malformed (tests/fuzz/fuzz_agent_wire.c).
 */
#ifndef GL_AGENT_WIRE_H
#define GL_AGENT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "util.h"

#define GL_AW_FRAME_MAX (16u << 20)
/* the longest frame read before a connection's HELLO matched: a hello is
 * about 200 bytes, so a stranger holds at most this much memory */
#define GL_AW_HELLO_MAX 4096u
#define GL_AW_PROTO 1

enum gl_aw_type {
	GL_AW_HELLO = 'H', /* agent: {"proto","token","index","pid","host"} */
	GL_AW_PLAN = 'P', /* controller: what to run (agents.c) */
	GL_AW_LOAD = 'L', /* controller: {"load": m} */
	GL_AW_STOP = 'S', /* controller: stop, send the last DATA, exit */
	GL_AW_DATA = 'D', /* agent: a window's figures since the last DATA */
	GL_AW_ROWS = 'R', /* agent: kept request rows, JSON array */
	GL_AW_EVENT = 'E', /* agent: {"level","msg"} for the run's event log */
	GL_AW_BYE = 'B', /* agent: the last DATA was sent */
	GL_AW_NODES = 'N', /* agent: per-node figures (nodes.h), before a window's last DATA:
			    * {"figs": [[window, kind, name, host, figure, n, sum, max], ...]} */
};

/* Append one frame to out. Returns 0, or -1 when it would pass the cap. */
int gl_aw_frame(struct gl_buf *out, int type, const void *payload, size_t n);

/* The first frame of buf[0..len): 1 with *type, *payload, *plen and
 * *used set; 0 when more bytes are needed; -1 when the length is out of
 * bounds (the connection must be closed). */
int gl_aw_next(const unsigned char *buf, size_t len, int *type, const unsigned char **payload, size_t *plen,
	       size_t *used);

/* DATA encoding: start, add series, finish (patches the count). */
struct gl_aw_data {
	struct gl_buf b;
	size_t count_at;
	uint32_t count;
	int failed;
};
void gl_aw_data_begin(struct gl_aw_data *d, int64_t window, int final);
void gl_aw_data_add(struct gl_aw_data *d, const char *name, const struct gl_hist *h, int64_t counter);
/* The payload (d->b.data, d->b.len), or -1 when an add failed. */
int gl_aw_data_end(struct gl_aw_data *d);

/* The window a DATA payload is for, -1 when it is too short to say. */
int64_t gl_aw_data_window(const unsigned char *p, size_t n);
/* Decode a DATA payload; fn sees each series (h NULL for a counter; h is
 * freed after the call). Returns 0, or -1 with err naming what is wrong. */
typedef int (*gl_aw_series_fn)(void *arg, const char *name, const struct gl_hist *h, int64_t counter);
int gl_aw_data_decode(const unsigned char *p, size_t n, int64_t *window, int *final, gl_aw_series_fn fn, void *arg,
		      struct gl_err *err);

/* On a connection (libevent): send one frame, or a JSON payload printed
 * from j; 0, or -1 when it could not be queued. */
struct bufferevent;
struct evbuffer;
int gl_aw_send(struct bufferevent *bev, int type, const void *payload, size_t n);
int gl_aw_send_json(struct bufferevent *bev, int type, const void *j /* cJSON */);
/* Hand the whole frames waiting in in to f (at most max), draining each;
 * stops at the first f that returns non-zero and returns that, or -2 when
 * a length is out of bounds (close the connection), else 0. */
typedef int (*gl_aw_frame_fn)(void *arg, int type, const unsigned char *p, size_t n);
int gl_aw_pump(struct evbuffer *in, gl_aw_frame_fn f, void *arg, int max);
/* The same with frames of at most cap bytes (a longer length is -2): a
 * connection that has not said hello may send GL_AW_HELLO_MAX. */
int gl_aw_pump_cap(struct evbuffer *in, gl_aw_frame_fn f, void *arg, int max, size_t cap);

/* Constant-time comparison of two NUL-terminated tokens. */
int gl_aw_token_eq(const char *a, const char *b);

#endif
