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
 * is read by fast_parse when it is plain (ASCII strings without escapes,
 * integers: the common case, into cJSON nodes on the stack, no allocation),
 * else by cJSON after a UTF-8 check of our own (cJSON does not check); the
 * interpretation reads the same tree either way. Built with
 * -DGL_OAI_FAST_CHECK, every fast reading is redone by cJSON and compared.
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

	struct gl_buf line; /* a line split across fragments */
	struct gl_buf data; /* data of the event being assembled */
	struct gl_buf event; /* event type of the event being assembled */
	struct gl_buf id; /* last event id (kept across events) */
	bool have_data; /* a data field was seen since the last dispatch */
	bool skip_lf; /* the last byte was CR: an LF right after belongs to it */
	unsigned bom_pos; /* BOM bytes matched at the start of the stream */
	bool bom_done;
	enum gl_sse_error error;
	int error_rc; /* what gl_sse_feed returns once stopped */

	struct gl_sse_summary sum; /* tally; cls filled by gl_sse_finish */
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
	c->cached_tokens = -1;
}

static void oai_malformed(struct gl_oai_chunk *c, const char *why)
{
	c->kind = GL_OAI_MALFORMED;
	c->is_malformed = true;
	c->has_token = c->has_finish = c->has_usage = false;
	c->content_bytes = c->reasoning_bytes = c->tool_call_bytes = 0;
	c->prompt_tokens = c->completion_tokens = c->cached_tokens = -1;
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
		cJSON_ArrayForEach(part, parts)
		{
			if (!cJSON_IsObject(part) || add_str_len(part, "text", &c->content_bytes) < 0) {
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
		cJSON_ArrayForEach(call, tc)
		{
			const cJSON *fn;
			if (!cJSON_IsObject(call)) {
				*why = "tool call is not an object";
				return -1;
			}
			fn = cJSON_GetObjectItemCaseSensitive(call, "function");
			if (!fn || cJSON_IsNull(fn))
				continue;
			if (!cJSON_IsObject(fn) || add_str_len(fn, "name", &c->tool_call_bytes) < 0 ||
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

/* ---- a small JSON reader for the common case --------------------------- */

/* Most chunks and responses are plain JSON: ASCII strings without escapes,
 * integers, true, false, null, the four whitespace bytes. fast_parse reads
 * exactly that into cJSON nodes (the tree cJSON_Parse would build: same
 * types, strings, numbers, member order) held in the caller's arena, with no
 * allocation; on anything else (an escape, a byte >= 0x80 or < 0x20 in a
 * string, a fraction or exponent, more than 15 digits, deep nesting, a full
 * arena, invalid JSON) it gives up and the caller parses with cJSON as
 * before. Every byte it accepts is printable ASCII or whitespace, so such a
 * body is valid UTF-8 without a NUL. */
struct fast_arena {
	char *p, *end;
};

struct fast_in {
	const char *s, *end;
	struct fast_arena *a;
	int depth;
};

#define FAST_ARENA 8192
#define FAST_DEPTH 32

static void *fast_alloc(struct fast_arena *a, size_t n)
{
	char *r = a->p;
	n = (n + 15) & ~(size_t)15;
	if ((size_t)(a->end - a->p) < n)
		return NULL;
	a->p += n;
	return r;
}

static void fast_ws(struct fast_in *in)
{
	while (in->s < in->end && is_ws(*in->s))
		in->s++;
}

/* A string without escapes, of bytes 0x20-0x7E: a NUL-terminated copy. */
static char *fast_string(struct fast_in *in)
{
	const char *b = ++in->s;
	char *out;

	while (in->s < in->end && *in->s != '"') {
		unsigned char ch = (unsigned char)*in->s;
		if (ch < 0x20 || ch > 0x7E || ch == '\\')
			return NULL;
		in->s++;
	}
	if (in->s == in->end || !(out = fast_alloc(in->a, (size_t)(in->s - b) + 1)))
		return NULL;
	memcpy(out, b, (size_t)(in->s - b));
	out[in->s - b] = '\0';
	in->s++;
	return out;
}

static bool fast_value(struct fast_in *in, cJSON *item);

/* The members of an object or the elements of an array, after its '{' or '['. */
static bool fast_items(struct fast_in *in, cJSON *item, bool object)
{
	char close = object ? '}' : ']';
	cJSON *last = NULL;

	if (++in->depth > FAST_DEPTH)
		return false;
	in->s++;
	fast_ws(in);
	if (in->s < in->end && *in->s == close) {
		in->s++;
		in->depth--;
		return true;
	}
	for (;;) {
		cJSON *n = fast_alloc(in->a, sizeof(*n));
		if (!n)
			return false;
		memset(n, 0, sizeof(*n));
		if (object) {
			if (in->s == in->end || *in->s != '"' || !(n->string = fast_string(in)))
				return false;
			fast_ws(in);
			if (in->s == in->end || *in->s != ':')
				return false;
			in->s++;
			fast_ws(in);
		}
		if (!fast_value(in, n))
			return false;
		if (last) {
			last->next = n;
			n->prev = last;
		} else {
			item->child = n;
		}
		last = n;
		fast_ws(in);
		if (in->s == in->end)
			return false;
		if (*in->s == close)
			break;
		if (*in->s != ',')
			return false;
		in->s++;
		fast_ws(in);
	}
	in->s++;
	item->child->prev = last; /* as cJSON links them */
	in->depth--;
	return true;
}

static bool fast_value(struct fast_in *in, cJSON *item)
{
	size_t left = (size_t)(in->end - in->s);

	if (!left)
		return false;
	switch (*in->s) {
	case '{': item->type = cJSON_Object; return fast_items(in, item, true);
	case '[': item->type = cJSON_Array; return fast_items(in, item, false);
	case '"': item->type = cJSON_String; return (item->valuestring = fast_string(in)) != NULL;
	case 'n':
		if (left < 4 || memcmp(in->s, "null", 4) != 0)
			return false;
		item->type = cJSON_NULL;
		in->s += 4;
		return true;
	case 't':
		if (left < 4 || memcmp(in->s, "true", 4) != 0)
			return false;
		item->type = cJSON_True;
		item->valueint = 1;
		in->s += 4;
		return true;
	case 'f':
		if (left < 5 || memcmp(in->s, "false", 5) != 0)
			return false;
		item->type = cJSON_False;
		in->s += 5;
		return true;
	default: {
		/* -?(0|[1-9][0-9]*), at most 15 digits (a double holds it
		 * exactly, as strtod reads it), not followed by a byte cJSON
		 * would take as more of the number */
		bool neg = *in->s == '-';
		const char *d = in->s + neg;
		int64_t v = 0;
		int n = 0;
		double x;

		while (d + n < in->end && d[n] >= '0' && d[n] <= '9') {
			if (n == 15)
				return false;
			v = v * 10 + (d[n] - '0');
			n++;
		}
		if (!n || (n > 1 && d[0] == '0'))
			return false;
		if (d + n < in->end && d[n] && strchr("+-.eE", d[n]))
			return false;
		x = neg ? -(double)v : (double)v;
		item->type = cJSON_Number;
		item->valuedouble = x;
		item->valueint = x >= 2147483647.0 ? 2147483647 : x <= -2147483648.0 ? (-2147483647 - 1) : (int)x;
		in->s = d + n;
		return true;
	}
	}
}

/* The tree of data[0, len) in the arena, or NULL: parse it with cJSON. */
static cJSON *fast_parse(const char *data, size_t len, struct fast_arena *a)
{
	struct fast_in in = { data, data + len, a, 0 };
	cJSON *root = fast_alloc(a, sizeof(*root));

	if (!root)
		return NULL;
	memset(root, 0, sizeof(*root));
	fast_ws(&in);
	if (!fast_value(&in, root))
		return NULL;
	fast_ws(&in);
	return in.s == in.end ? root : NULL;
}

static void oai_interpret_tree(cJSON *root, bool streaming, struct gl_oai_chunk *c);

static void oai_interpret(const char *data, size_t len, bool streaming, struct gl_oai_chunk *c)
{
	const char *end = NULL;
	cJSON *root = NULL;
	_Alignas(16) char arena_mem[FAST_ARENA];
	struct fast_arena arena = { arena_mem, arena_mem + sizeof(arena_mem) };

	if ((root = fast_parse(data, len, &arena))) {
		oai_interpret_tree(root, streaming, c); /* the arena's: nothing to free */
#ifdef GL_OAI_FAST_CHECK
		{
			/* the cJSON path must read the same */
			struct gl_oai_chunk ref;
			char *copy = malloc(len + 1);
			memcpy(copy, data, len);
			copy[len] = '\0';
			memcpy(&ref, c, sizeof(ref));
			oai_init(c);
			root = cJSON_ParseWithOpts(copy, &end, 0);
			if (!root || !gl_utf8_valid(data, len)) {
				fprintf(stderr, "fast_parse accepted what cJSON refuses: %s\n", copy);
				abort();
			}
			while (*end && is_ws(*end))
				end++;
			if (*end)
				abort();
			oai_interpret_tree(root, streaming, c);
			cJSON_Delete(root);
			if (memcmp(&ref, c, sizeof(ref)) != 0) {
				fprintf(stderr, "fast_parse reads differently: %s\n", copy);
				abort();
			}
			free(copy);
		}
#endif
		return;
	}
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
	oai_interpret_tree(root, streaming, c);
	cJSON_Delete(root);
}

/* The chunk or response a parsed tree is (root stays the caller's). */
static void oai_interpret_tree(cJSON *root, bool streaming, struct gl_oai_chunk *c)
{
	const char *why = NULL;
	const char *obj_name = NULL;
	const cJSON *choices, *usage, *errv, *ch;
	bool any_delta = false, any_text = false;

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
		if (!cJSON_IsObject(usage) || opt_count(usage, "prompt_tokens", &c->prompt_tokens) < 0 ||
		    opt_count(usage, "completion_tokens", &c->completion_tokens) < 0 || c->completion_tokens < 0) {
			why = "bad usage object";
			goto malformed;
		}
		c->has_usage = true;
		/* a detail, not the usage's shape: a server's other idea of it
		 * leaves the count unknown, the response as good as it was */
		if (opt_count(cJSON_GetObjectItemCaseSensitive(usage, "prompt_tokens_details"), "cached_tokens",
			      &c->cached_tokens) < 0)
			c->cached_tokens = -1;
	}
	if (!cJSON_IsArray(choices) && !c->has_usage) {
		why = "no choices, usage or error";
		goto malformed;
	}

	cJSON_ArrayForEach(ch, choices)
	{
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
	return;
}

void gl_oai_parse_chunk(const char *event, const char *data, size_t len, struct gl_oai_chunk *out)
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

struct gl_sse *gl_sse_new(size_t max_line, size_t max_data, unsigned flags, gl_sse_event_fn cb, void *ctx)
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
	p->sum.cached_tokens = -1;
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
		s->cached_tokens = c->cached_tokens;
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
			if (p->bom_pos && (rc = sse_consume(p, (const char *)sse_bom, p->bom_pos)) != 0)
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
	bool framing_bad = p->error == GL_SSE_ERR_LINE_TOO_LONG || p->error == GL_SSE_ERR_EVENT_TOO_BIG ||
			   p->error == GL_SSE_ERR_NOMEM;

	/* Half a BOM at the end is half a line. */
	s->partial_at_end = p->line.len > 0 || p->have_data || (!p->bom_done && p->bom_pos > 0);
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

int gl_oai_model_not_found(const char *body, size_t len, const char *model)
{
	cJSON *j = body && len ? cJSON_ParseWithLength(body, len) : NULL;
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
	const char *code, *type, *msg;
	int gone;

	if (!cJSON_IsObject(e))
		e = j;
	code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "code"));
	type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "type"));
	msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
	gone = (code && !strcmp(code, "model_not_found")) ||
	       (type && strstr(type, "NotFound") && msg && model && model[0] && strstr(msg, model) &&
		strstr(msg, "does not exist"));
	cJSON_Delete(j);
	return gone;
}
