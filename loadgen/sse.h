/*
 * sse.h - the inference load generator's view of a response body: an
 * incremental Server-Sent Events parser, and the interpretation of
 * OpenAI-compatible stream chunks and whole (non-streaming) responses.
 *
 * The HTTP client hands body bytes to gl_sse_feed as they arrive, in
 * fragments of any size; the parser calls back once per complete event. In
 * OpenAI mode (GL_SSE_OPENAI) the parser also interprets each event's data
 * (gl_oai_parse_chunk) and keeps a tally, so that gl_sse_finish can classify
 * how the stream ended (docs/metrics.md): clean, stream_error, truncated or
 * malformed.
 *
 * Framing follows the WHATWG EventSource rules: CRLF, CR and LF line ends, a
 * leading BOM dropped once, ':' comment lines (keep-alive pings), fields
 * without a colon, one space after the colon stripped, data lines joined with
 * '\n', an event dispatched at a blank line and an unfinished event at the end
 * of the stream discarded. Memory is bounded by the caps given to gl_sse_new:
 * a line longer than max_line or an event whose data exceeds max_data puts the
 * parser into a sticky error state (classified malformed) instead of growing.
 *
 * Threads: a struct gl_sse belongs to one request; the functions here keep no
 * global state and may be called from any thread for different parsers.
 */
#ifndef GL_SSE_H
#define GL_SSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GL_SSE_DEFAULT_MAX_LINE (64u * 1024u) /* bytes, excluding the line end */
#define GL_SSE_DEFAULT_MAX_DATA (1024u * 1024u) /* bytes of one event's data */

/* How a response ended, as the error classes of docs/metrics.md. */
enum gl_sse_class {
	GL_SSE_CLEAN = 0, /* [DONE] or a finish_reason seen, nothing wrong */
	GL_SSE_STREAM_ERROR, /* the server sent an error event/object in the stream */
	GL_SSE_TRUNCATED, /* ended without [DONE] and without a finish_reason */
	GL_SSE_MALFORMED, /* bad JSON, bad UTF-8, unknown shape, or a cap exceeded */
};

/* Why the framing layer stopped (sticky until gl_sse_reset). */
enum gl_sse_error {
	GL_SSE_ERR_NONE = 0,
	GL_SSE_ERR_LINE_TOO_LONG, /* a line exceeded max_line */
	GL_SSE_ERR_EVENT_TOO_BIG, /* one event's data exceeded max_data */
	GL_SSE_ERR_NOMEM,
	GL_SSE_ERR_CALLBACK, /* the event callback returned non-zero */
};

/* "ok", "stream_error", "truncated", "malformed": the names the store and
 * reports use. Static strings. */
const char *gl_sse_class_name(enum gl_sse_class c);
/* "none", "line_too_long", "event_too_big", "nomem", "callback". */
const char *gl_sse_error_name(enum gl_sse_error e);

/* ---- OpenAI-compatible chunk / response interpretation ------------------ */

enum gl_oai_kind {
	GL_OAI_EMPTY = 0, /* data empty or only whitespace: nothing to interpret */
	GL_OAI_DONE, /* the "[DONE]" sentinel */
	GL_OAI_CHAT, /* chat.completion(.chunk): choices[].delta / message */
	GL_OAI_COMPLETION, /* text_completion: choices[].text */
	GL_OAI_OTHER, /* valid, but neither (e.g. a usage-only chunk without "object") */
	GL_OAI_ERROR, /* {"error": ...}, {"object": "error", ...} or event "error" */
	GL_OAI_MALFORMED, /* not JSON, not UTF-8, not an object, or wrong field types */
};

#define GL_OAI_FINISH_MAX 32
#define GL_OAI_DETAIL_MAX 160

/* What one event's data (or one whole response body) says. Token-bearing
 * fields are summed over every element of "choices" (gauntlet sends n=1, so
 * in practice that is choices[0]). */
struct gl_oai_chunk {
	enum gl_oai_kind kind;
	bool is_done; /* "[DONE]" */
	bool has_token; /* non-empty content, reasoning or tool-call delta;
				  * a role-only delta is not a token */
	bool has_finish; /* a choice carried a non-empty finish_reason */
	bool has_usage; /* a usage object with completion_tokens */
	bool is_error;
	bool is_malformed;
	size_t content_bytes; /* delta.content, message.content or text */
	size_t reasoning_bytes; /* reasoning_content or reasoning */
	size_t tool_call_bytes; /* tool_calls[].function.name + .arguments */
	int64_t prompt_tokens; /* usage.prompt_tokens, -1 when absent */
	int64_t completion_tokens; /* usage.completion_tokens, -1 when absent */
	int64_t cached_tokens; /* usage.prompt_tokens_details.cached_tokens (prompt
				 * tokens the server's prefix cache held); -1 when
				 * absent or not a count: unknown, not 0 */
	char finish_reason[GL_OAI_FINISH_MAX]; /* "" unless has_finish (truncated copy) */
	char detail[GL_OAI_DETAIL_MAX]; /* is_error: the server's message;
					  * is_malformed: what was wrong; else "" */
};

/* Interpret one SSE event. event may be NULL or "" (the default "message"
 * type); data need not be NUL-terminated. An event named "error" is an error
 * whatever its data. Fills *out completely; never fails. */
void gl_oai_parse_chunk(const char *event, const char *data, size_t len, struct gl_oai_chunk *out);

/* Interpret a whole non-streaming chat.completions or completions response
 * body (choices[].message / choices[].text, finish_reason, usage, or an error
 * object). is_done is never set. Fills *out completely; never fails. */
void gl_oai_parse_response(const char *body, size_t len, struct gl_oai_chunk *out);
/* A 404's body saying the model the request named (model) is not there:
 * OpenAI's and vLLM's error code "model_not_found", or (older vLLM) a
 * NotFoundError whose message names model as not existing. 1 or 0; any
 * other 404 (a wrong URL) is 0. body may be NULL. */
int gl_oai_model_not_found(const char *body, size_t len, const char *model);

/* ---- SSE framing -------------------------------------------------------- */

/* One complete event, valid only during the callback. Strings are
 * NUL-terminated and borrowed from the parser. */
struct gl_sse_event {
	const char *event; /* event type; "" when the event had no "event:" field */
	const char *data; /* data lines joined with '\n' (may contain NUL bytes) */
	size_t data_len;
	const char *id; /* last event id seen on this stream, "" if none */
	const struct gl_oai_chunk *oai; /* GL_SSE_OPENAI: the interpretation; else NULL */
};

/* Called once per dispatched event. Return 0 to go on; any other value stops
 * the parser (error GL_SSE_ERR_CALLBACK) and is returned by gl_sse_feed. */
typedef int (*gl_sse_event_fn)(void *ctx, const struct gl_sse_event *ev);

#define GL_SSE_OPENAI 0x1u /* interpret events as OpenAI stream chunks */

struct gl_sse;

/* Create a parser. max_line / max_data of 0 take the defaults above. cb may
 * be NULL (events are then only counted / tallied). Returns NULL when out of
 * memory. Free with gl_sse_free. Memory held never exceeds about
 * 3 * max_line + max_data bytes. */
struct gl_sse *gl_sse_new(size_t max_line, size_t max_data, unsigned flags, gl_sse_event_fn cb, void *ctx);
/* gl_sse_free(NULL) is fine. */
void gl_sse_free(struct gl_sse *p);

/* Forget everything about the current stream (state, error, tally, last
 * event id) for the next response; keeps the buffers already allocated. */
void gl_sse_reset(struct gl_sse *p);

/* Push len bytes of the body; fragments may split anywhere, even inside a
 * CRLF or the BOM. Returns 0; -GL_ELIMIT once a cap was exceeded (now or
 * earlier: the error is sticky and further input is ignored); -GL_ENOMEM; or
 * the callback's non-zero return value (also sticky). */
int gl_sse_feed(struct gl_sse *p, const char *data, size_t len);

/* The sticky framing error, GL_SSE_ERR_NONE while all is well. */
enum gl_sse_error gl_sse_error(const struct gl_sse *p);

/* Bytes currently allocated by the parser (to check the bound). */
size_t gl_sse_mem_bytes(const struct gl_sse *p);

/* Totals for one stream, filled by gl_sse_finish. */
struct gl_sse_summary {
	enum gl_sse_class cls;
	enum gl_sse_error parse_error;
	uint64_t n_events; /* dispatched events */
	uint64_t n_comments; /* ':' lines (keep-alive pings) */
	uint64_t n_token_events; /* GL_SSE_OPENAI: events with has_token */
	uint64_t n_malformed; /* GL_SSE_OPENAI: events that were malformed */
	uint64_t content_bytes; /* GL_SSE_OPENAI: sum over events */
	bool saw_done, saw_finish, saw_usage, saw_error;
	bool partial_at_end; /* the body ended inside a line or an event */
	int64_t prompt_tokens; /* last usage seen, -1 when none */
	int64_t completion_tokens; /* last usage seen, -1 when none */
	int64_t cached_tokens; /* last usage seen's cached tokens, -1 when none */
	char finish_reason[GL_OAI_FINISH_MAX];
	char detail[GL_OAI_DETAIL_MAX]; /* first error / malformed detail */
};

/* Call when the body has ended (the transfer completed or was cut). Returns
 * how the stream ended and, when out is not NULL, fills it. Precedence:
 * stream_error, then malformed (framing error or any malformed event), then
 * truncated. Without GL_SSE_OPENAI a stream is clean when it did not end
 * inside a line or an event and no cap was exceeded. With it, a stream is
 * clean when [DONE] or a finish_reason was seen; bytes after [DONE] do not
 * matter. An unfinished last event is discarded, as EventSource does. May be
 * called more than once; feeding after it continues the same stream. */
enum gl_sse_class gl_sse_finish(struct gl_sse *p, struct gl_sse_summary *out);

#endif
