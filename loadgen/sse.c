/*
 * sse.c - incremental Server-Sent Events framing and the interpretation of
 * OpenAI-compatible chunks (see sse.h for the contract).
 *
 * Framing is a small push state machine of our own: bytes are scanned for
 * line ends in place; a line that arrives whole inside one fragment is
 * handled without copying, and only a line split across fragments is
 * assembled in the capped line buffer. Each buffer is a gl_buf whose cap is
 * set from the constructor's limits, so a hostile server cannot make the
 * parser grow: crossing a cap sets a sticky error instead. JSON inside events
 * is parsed by cJSON after a UTF-8 check of our own (cJSON does not check).
 */
#include "sse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util.h"

struct gl_sse {
	size_t max_line, max_data;
	unsigned flags;
	gl_sse_event_fn cb;
	void *ctx;

	struct gl_buf line;    /* a line split across fragments */
	struct gl_buf data;    /* data of the event being assembled */
	struct gl_buf event;   /* event type of the event being assembled */
	struct gl_buf id;      /* last event id (kept across events) */
	bool have_data;        /* a data field was seen since the last dispatch */
	bool skip_lf;          /* the last byte was CR: an LF right after belongs to it */
	unsigned bom_pos;      /* BOM bytes matched at the start of the stream */
	bool bom_done;
	enum gl_sse_error error;
	int error_rc;          /* what gl_sse_feed returns once stopped */

	struct gl_sse_summary sum;   /* tally; cls filled by gl_sse_finish */
};

static const unsigned char sse_bom[3] = { 0xEF, 0xBB, 0xBF };

const char *gl_sse_class_name(enum gl_sse_class c)
{
	switch (c) {
	case GL_SSE_CLEAN: return "ok";
	case GL_SSE_STREAM_ERROR: return "stream_error";
	case GL_SSE_TRUNCATED: return "truncated";
	case GL_SSE_MALFORMED: return "malformed";
	}
	return "unknown";
}

const char *gl_sse_error_name(enum gl_sse_error e)
{
	switch (e) {
	case GL_SSE_ERR_NONE: return "none";
	case GL_SSE_ERR_LINE_TOO_LONG: return "line_too_long";
	case GL_SSE_ERR_EVENT_TOO_BIG: return "event_too_big";
	case GL_SSE_ERR_NOMEM: return "nomem";
	case GL_SSE_ERR_CALLBACK: return "callback";
	}
	return "unknown";
}

/* ---- helpers ------------------------------------------------------------ */

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void copy_trunc(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

/* ---- OpenAI interpretation ---------------------------------------------- */

static void oai_init(struct gl_oai_chunk *c)
{
	memset(c, 0, sizeof(*c));
	c->prompt_tokens = -1;
	c->completion_tokens = -1;
}

static void oai_malformed(struct gl_oai_chunk *c, const char *why)
{
	c->kind = GL_OAI_MALFORMED;
	c->is_malformed = true;
	c->has_token = c->has_finish = c->has_usage = false;
	c->content_bytes = c->reasoning_bytes = c->tool_call_bytes = 0;
	c->prompt_tokens = c->completion_tokens = -1;
	c->finish_reason[0] = '\0';
	copy_trunc(c->detail, sizeof(c->detail), why);
}

/* A string member, or NULL/absent. Returns -1 for any other type. */
static int opt_string(const cJSON *obj, const char *key, const char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || !v->valuestring)
		return -1;
	*out = v->valuestring;
	return 0;
}

/* A token count: a finite non-negative integer that a double holds exactly. */
static int opt_count(const cJSON *obj, const char *key, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	double d;

	*out = -1;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (!isfinite(d) || d < 0 || d > 9007199254740992.0 || d != floor(d))
		return -1;
	*out = (int64_t)d;
	return 0;
}

static int add_str_len(const cJSON *obj, const char *key, size_t *acc)
{
	const char *s;

	if (opt_string(obj, key, &s) < 0)
		return -1;
	if (s)
		*acc += strlen(s);
	return 0;
}

/* delta (streaming) or message (whole response) of one choice. */
static int oai_message(const cJSON *m, struct gl_oai_chunk *c, const char **why)
{
	const cJSON *tc;

	if (add_str_len(m, "content", &c->content_bytes) < 0) {
		/* Whole responses may carry content as an array of parts. */
		const cJSON *parts = cJSON_GetObjectItemCaseSensitive(m, "content");
		const cJSON *part;
		if (!cJSON_IsArray(parts)) {
			*why = "content is not a string";
			return -1;
		}
		cJSON_ArrayForEach(part, parts) {
			if (!cJSON_IsObject(part) ||
			    add_str_len(part, "text", &c->content_bytes) < 0) {
				*why = "bad content part";
				return -1;
			}
		}
	}
	if (add_str_len(m, "reasoning_content", &c->reasoning_bytes) < 0 ||
	    add_str_len(m, "reasoning", &c->reasoning_bytes) < 0) {
		*why = "reasoning is not a string";
		return -1;
	}
	tc = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
	if (tc && !cJSON_IsNull(tc)) {
		const cJSON *call;
		if (!cJSON_IsArray(tc)) {
			*why = "tool_calls is not an array";
			return -1;
		}
		cJSON_ArrayForEach(call, tc) {
			const cJSON *fn;
			if (!cJSON_IsObject(call)) {
				*why = "tool call is not an object";
				return -1;
			}
			fn = cJSON_GetObjectItemCaseSensitive(call, "function");
			if (!fn || cJSON_IsNull(fn))
				continue;
			if (!cJSON_IsObject(fn) ||
			    add_str_len(fn, "name", &c->tool_call_bytes) < 0 ||
			    add_str_len(fn, "arguments", &c->tool_call_bytes) < 0) {
				*why = "bad tool call function";
				return -1;
			}
		}
	}
	return 0;
}

static void oai_error(const cJSON *root, const cJSON *errv, struct gl_oai_chunk *c)
{
	const char *msg = NULL;

	c->kind = GL_OAI_ERROR;
	c->is_error = true;
	if (cJSON_IsString(errv)) {
		msg = errv->valuestring;
	} else if (cJSON_IsObject(errv)) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(errv, "message");
		if (cJSON_IsString(m))
			msg = m->valuestring;
	} else {
		/* vLLM's older flat form: {"object":"error","message":...} */
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "message");
		if (cJSON_IsString(m))
			msg = m->valuestring;
	}
	copy_trunc(c->detail, sizeof(c->detail), msg ? msg : "error object without message");
}

static void oai_interpret(const char *data, size_t len, bool streaming,
			  struct gl_oai_chunk *c)
{
	const char *why = NULL;
	const char *obj_name = NULL;
	const char *end = NULL;
	cJSON *root = NULL;
	const cJSON *choices, *usage, *errv, *ch;
	bool any_delta = false, any_text = false;

	if (!gl_utf8_valid(data, len)) {
		oai_malformed(c, "not valid UTF-8 (or a NUL byte)");
		return;
	}
	/* The caller's buffer may not be NUL-terminated: parse a copy so that
	 * cJSON never reads past len. */
	{
		char *copy = malloc(len + 1);
		if (!copy) {
			oai_malformed(c, "out of memory");
			return;
		}
		memcpy(copy, data, len);
		copy[len] = '\0';
		root = cJSON_ParseWithOpts(copy, &end, 0);
		if (root) {
			while (*end && is_ws(*end))
				end++;
			if (*end) {
				cJSON_Delete(root);
				root = NULL;
			}
		}
		free(copy);
	}
	if (!root) {
		oai_malformed(c, "invalid JSON");
		return;
	}
	if (!cJSON_IsObject(root)) {
		why = "JSON is not an object";
		goto malformed;
	}
	errv = cJSON_GetObjectItemCaseSensitive(root, "error");
	if (opt_string(root, "object", &obj_name) < 0) {
		why = "object is not a string";
		goto malformed;
	}
	if ((errv && !cJSON_IsNull(errv)) || (obj_name && strcmp(obj_name, "error") == 0)) {
		oai_error(root, errv, c);
		goto out;
	}

	choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
	if (choices && !cJSON_IsNull(choices) && !cJSON_IsArray(choices)) {
		why = "choices is not an array";
		goto malformed;
	}
	usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
	if (usage && !cJSON_IsNull(usage)) {
		if (!cJSON_IsObject(usage) ||
		    opt_count(usage, "prompt_tokens", &c->prompt_tokens) < 0 ||
		    opt_count(usage, "completion_tokens", &c->completion_tokens) < 0 ||
		    c->completion_tokens < 0) {
			why = "bad usage object";
			goto malformed;
		}
		c->has_usage = true;
	}
	if (!cJSON_IsArray(choices) && !c->has_usage) {
		why = "no choices, usage or error";
		goto malformed;
	}

	cJSON_ArrayForEach(ch, choices) {
		const cJSON *m;
		const char *fr;
		if (!cJSON_IsObject(ch)) {
			why = "choice is not an object";
			goto malformed;
		}
		m = cJSON_GetObjectItemCaseSensitive(ch, streaming ? "delta" : "message");
		if (m && !cJSON_IsNull(m)) {
			if (!cJSON_IsObject(m)) {
				why = streaming ? "delta is not an object" : "message is not an object";
				goto malformed;
			}
			any_delta = true;
			if (oai_message(m, c, &why) < 0)
				goto malformed;
		}
		if (cJSON_GetObjectItemCaseSensitive(ch, "text")) {
			any_text = true;
			if (add_str_len(ch, "text", &c->content_bytes) < 0) {
				why = "text is not a string";
				goto malformed;
			}
		}
		if (opt_string(ch, "finish_reason", &fr) < 0) {
			why = "finish_reason is not a string";
			goto malformed;
		}
		if (fr && *fr && !c->has_finish) {
			c->has_finish = true;
			copy_trunc(c->finish_reason, sizeof(c->finish_reason), fr);
		}
	}
	c->has_token = c->content_bytes + c->reasoning_bytes + c->tool_call_bytes > 0;

	if (obj_name && strncmp(obj_name, "chat.completion", 15) == 0)
		c->kind = GL_OAI_CHAT;
	else if (obj_name && strcmp(obj_name, "text_completion") == 0)
		c->kind = GL_OAI_COMPLETION;
	else if (any_delta)
		c->kind = GL_OAI_CHAT;
	else if (any_text)
		c->kind = GL_OAI_COMPLETION;
	else
		c->kind = GL_OAI_OTHER;
	goto out;

malformed:
	oai_malformed(c, why);
out:
	cJSON_Delete(root);
}

void gl_oai_parse_chunk(const char *event, const char *data, size_t len,
			struct gl_oai_chunk *out)
{
	size_t a = 0, b = len;

	oai_init(out);
	if (!data)
		len = b = 0;
	while (a < b && is_ws(data[a]))
		a++;
	while (b > a && is_ws(data[b - 1]))
		b--;
	if (event && strcmp(event, "error") == 0) {
		/* The data may be JSON with a message, or plain text. */
		struct gl_oai_chunk tmp;
		oai_init(&tmp);
		if (b > a)
			oai_interpret(data + a, b - a, true, &tmp);
		out->kind = GL_OAI_ERROR;
		out->is_error = true;
		if (tmp.is_error) {
			memcpy(out->detail, tmp.detail, sizeof(out->detail));
		} else {
			size_t n = b - a < sizeof(out->detail) - 1 ? b - a : sizeof(out->detail) - 1;
			if (n)
				memcpy(out->detail, data + a, n);
			out->detail[n] = '\0';
		}
		return;
	}
	if (a == b) {
		out->kind = GL_OAI_EMPTY;
		return;
	}
	if (b - a == 6 && memcmp(data + a, "[DONE]", 6) == 0) {
		out->kind = GL_OAI_DONE;
		out->is_done = true;
		return;
	}
	oai_interpret(data + a, b - a, true, out);
}

void gl_oai_parse_response(const char *body, size_t len, struct gl_oai_chunk *out)
{
	size_t a = 0, b = len;

	oai_init(out);
	if (!body)
		b = 0;
	while (a < b && is_ws(body[a]))
		a++;
	while (b > a && is_ws(body[b - 1]))
		b--;
	if (a == b) {
		oai_malformed(out, "empty body");
		return;
	}
	oai_interpret(body + a, b - a, false, out);
}

/* ---- SSE framing -------------------------------------------------------- */

struct gl_sse *gl_sse_new(size_t max_line, size_t max_data, unsigned flags,
			  gl_sse_event_fn cb, void *ctx)
{
	struct gl_sse *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->max_line = max_line ? max_line : GL_SSE_DEFAULT_MAX_LINE;
	p->max_data = max_data ? max_data : GL_SSE_DEFAULT_MAX_DATA;
	p->flags = flags;
	p->cb = cb;
	p->ctx = ctx;
	gl_buf_init(&p->line, p->max_line);
	gl_buf_init(&p->data, p->max_data);
	gl_buf_init(&p->event, p->max_line);
	gl_buf_init(&p->id, p->max_line);
	gl_sse_reset(p);
	return p;
}

void gl_sse_free(struct gl_sse *p)
{
	if (!p)
		return;
	gl_buf_free(&p->line);
	gl_buf_free(&p->data);
	gl_buf_free(&p->event);
	gl_buf_free(&p->id);
	free(p);
}

static void buf_clear(struct gl_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void gl_sse_reset(struct gl_sse *p)
{
	buf_clear(&p->line);
	buf_clear(&p->data);
	buf_clear(&p->event);
	buf_clear(&p->id);
	p->have_data = false;
	p->skip_lf = false;
	p->bom_pos = 0;
	p->bom_done = false;
	p->error = GL_SSE_ERR_NONE;
	p->error_rc = 0;
	memset(&p->sum, 0, sizeof(p->sum));
	p->sum.prompt_tokens = -1;
	p->sum.completion_tokens = -1;
}

enum gl_sse_error gl_sse_error(const struct gl_sse *p)
{
	return p->error;
}

size_t gl_sse_mem_bytes(const struct gl_sse *p)
{
	return sizeof(*p) + p->line.cap + p->data.cap + p->event.cap + p->id.cap;
}

static int sse_fail(struct gl_sse *p, enum gl_sse_error e, int rc)
{
	p->error = e;
	p->error_rc = rc;
	return rc;
}

static int buf_set(struct gl_buf *b, const char *s, size_t n)
{
	buf_clear(b);
	return gl_buf_append(b, s, n);
}

static void tally(struct gl_sse *p, const struct gl_oai_chunk *c)
{
	struct gl_sse_summary *s = &p->sum;

	if (c->is_error) {
		/* The first server error outranks an earlier malformed detail. */
		if (!s->saw_error)
			memcpy(s->detail, c->detail, sizeof(s->detail));
		s->saw_error = true;
	}
	if (c->is_malformed) {
		s->n_malformed++;
		if (!s->detail[0])
			memcpy(s->detail, c->detail, sizeof(s->detail));
	}
	if (c->is_done)
		s->saw_done = true;
	if (c->has_token)
		s->n_token_events++;
	s->content_bytes += c->content_bytes;
	if (c->has_finish && !s->saw_finish) {
		s->saw_finish = true;
		memcpy(s->finish_reason, c->finish_reason, sizeof(s->finish_reason));
	}
	if (c->has_usage) {
		s->saw_usage = true;
		s->prompt_tokens = c->prompt_tokens;
		s->completion_tokens = c->completion_tokens;
	}
}

static int sse_dispatch(struct gl_sse *p)
{
	struct gl_sse_event ev;
	struct gl_oai_chunk chunk;
	int rc;

	if (!p->have_data) {
		/* An event without data is not dispatched (EventSource). */
		buf_clear(&p->event);
		return 0;
	}
	ev.event = p->event.len ? p->event.data : "";
	ev.data = p->data.len ? p->data.data : "";
	ev.data_len = p->data.len;
	ev.id = p->id.len ? p->id.data : "";
	ev.oai = NULL;
	if (p->flags & GL_SSE_OPENAI) {
		gl_oai_parse_chunk(ev.event, ev.data, ev.data_len, &chunk);
		tally(p, &chunk);
		ev.oai = &chunk;
	}
	p->sum.n_events++;
	rc = p->cb ? p->cb(p->ctx, &ev) : 0;
	buf_clear(&p->data);
	buf_clear(&p->event);
	p->have_data = false;
	if (rc != 0)
		return sse_fail(p, GL_SSE_ERR_CALLBACK, rc);
	return 0;
}

static int cap_fail(struct gl_sse *p, enum gl_sse_error e, int rc)
{
	return sse_fail(p, rc == -GL_ENOMEM ? GL_SSE_ERR_NOMEM : e, rc);
}

/* One complete line, without its line end. */
static int sse_line(struct gl_sse *p, const char *s, size_t n)
{
	const char *colon, *val;
	size_t flen, vlen;
	int rc;

	if (n == 0)
		return sse_dispatch(p);
	if (s[0] == ':') {
		p->sum.n_comments++;
		return 0;
	}
	colon = memchr(s, ':', n);
	if (colon) {
		flen = (size_t)(colon - s);
		val = colon + 1;
		vlen = n - flen - 1;
		if (vlen && *val == ' ') {
			val++;
			vlen--;
		}
	} else {
		flen = n;
		val = s + n;
		vlen = 0;
	}
	if (flen == 4 && memcmp(s, "data", 4) == 0) {
		if (p->have_data && (rc = gl_buf_append(&p->data, "\n", 1)) < 0)
			return cap_fail(p, GL_SSE_ERR_EVENT_TOO_BIG, rc);
		if (vlen && (rc = gl_buf_append(&p->data, val, vlen)) < 0)
			return cap_fail(p, GL_SSE_ERR_EVENT_TOO_BIG, rc);
		p->have_data = true;
	} else if (flen == 5 && memcmp(s, "event", 5) == 0) {
		if ((rc = buf_set(&p->event, val, vlen)) < 0)
			return cap_fail(p, GL_SSE_ERR_LINE_TOO_LONG, rc);
	} else if (flen == 2 && memcmp(s, "id", 2) == 0) {
		if (!memchr(val, '\0', vlen) && (rc = buf_set(&p->id, val, vlen)) < 0)
			return cap_fail(p, GL_SSE_ERR_LINE_TOO_LONG, rc);
	}
	/* "retry" and unknown fields are ignored: the client does not reconnect. */
	return 0;
}

/* Framing proper, after the BOM has been dealt with. */
static int sse_consume(struct gl_sse *p, const char *d, size_t n)
{
	int rc;

	while (n > 0) {
		size_t i = 0;

		if (p->skip_lf) {
			p->skip_lf = false;
			if (d[0] == '\n') {
				d++;
				n--;
				continue;
			}
		}
		while (i < n && d[i] != '\n' && d[i] != '\r')
			i++;
		if (i == n) {
			/* No line end yet: keep the piece, within the cap. */
			if (p->line.len + n > p->max_line)
				return sse_fail(p, GL_SSE_ERR_LINE_TOO_LONG, -GL_ELIMIT);
			if ((rc = gl_buf_append(&p->line, d, n)) < 0)
				return cap_fail(p, GL_SSE_ERR_LINE_TOO_LONG, rc);
			return 0;
		}
		if (p->line.len == 0) {
			if (i > p->max_line)
				return sse_fail(p, GL_SSE_ERR_LINE_TOO_LONG, -GL_ELIMIT);
			rc = sse_line(p, d, i);
		} else {
			if (p->line.len + i > p->max_line)
				return sse_fail(p, GL_SSE_ERR_LINE_TOO_LONG, -GL_ELIMIT);
			if ((rc = gl_buf_append(&p->line, d, i)) < 0)
				return cap_fail(p, GL_SSE_ERR_LINE_TOO_LONG, rc);
			rc = sse_line(p, p->line.data, p->line.len);
			buf_clear(&p->line);
		}
		if (rc != 0)
			return rc;
		if (d[i] == '\r') {
			if (i + 1 < n && d[i + 1] == '\n')
				i++;
			else if (i + 1 == n)
				p->skip_lf = true;
		}
		d += i + 1;
		n -= i + 1;
	}
	return 0;
}

int gl_sse_feed(struct gl_sse *p, const char *data, size_t len)
{
	if (p->error != GL_SSE_ERR_NONE)
		return p->error_rc;
	/* A BOM may only open the stream, and may itself arrive split. */
	while (!p->bom_done && len > 0) {
		if ((unsigned char)data[0] == sse_bom[p->bom_pos]) {
			data++;
			len--;
			if (++p->bom_pos == 3)
				p->bom_done = true;
		} else {
			int rc;
			p->bom_done = true;
			if (p->bom_pos && (rc = sse_consume(p, (const char *)sse_bom,
							    p->bom_pos)) != 0)
				return rc;
		}
	}
	if (len == 0)
		return 0;
	return sse_consume(p, data, len);
}

enum gl_sse_class gl_sse_finish(struct gl_sse *p, struct gl_sse_summary *out)
{
	struct gl_sse_summary *s = &p->sum;
	bool framing_bad = p->error == GL_SSE_ERR_LINE_TOO_LONG ||
			   p->error == GL_SSE_ERR_EVENT_TOO_BIG ||
			   p->error == GL_SSE_ERR_NOMEM;

	/* Half a BOM at the end is half a line. */
	s->partial_at_end = p->line.len > 0 || p->have_data ||
			    (!p->bom_done && p->bom_pos > 0);
	s->parse_error = p->error;
	if (framing_bad && !s->detail[0])
		snprintf(s->detail, sizeof(s->detail), "sse: %s", gl_sse_error_name(p->error));

	if (p->flags & GL_SSE_OPENAI) {
		if (s->saw_error)
			s->cls = GL_SSE_STREAM_ERROR;
		else if (framing_bad || s->n_malformed > 0)
			s->cls = GL_SSE_MALFORMED;
		else if (!s->saw_done && !s->saw_finish)
			s->cls = GL_SSE_TRUNCATED;
		else
			s->cls = GL_SSE_CLEAN;
	} else {
		if (framing_bad)
			s->cls = GL_SSE_MALFORMED;
		else if (s->partial_at_end)
			s->cls = GL_SSE_TRUNCATED;
		else
			s->cls = GL_SSE_CLEAN;
	}
	if (out)
		*out = *s;
	return s->cls;
}
