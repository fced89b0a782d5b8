/*
 * target_body.c - the bytes a stream of `gauntlet target` writes: SSE
 * chunks (role, tokens, usage, [DONE]), the whole non-streaming JSON body,
 * and what --misbehave injects into them (garbage_sse, oversized_line,
 * no_done, stream_error).
 */
#include "target_int.h"

#include <event2/buffer.h>
#include <inttypes.h>
#include <string.h>

/* ---- bodies ------------------------------------------------------------ */

static void add_chunk_head(const struct stream *s, struct evbuffer *out)
{
	if (s->api == API_CHAT)
		evbuffer_add_printf(out,
				    "data: {\"id\":\"chatcmpl-gl%" PRIu64 "\",\"object\":"
				    "\"chat.completion.chunk\",\"created\":%lld,\"model\":\"%s\","
				    "\"choices\":[",
				    s->seq, s->created_s, s->model_json ? s->model_json : s->t->model_json);
	else
		evbuffer_add_printf(out,
				    "data: {\"id\":\"cmpl-gl%" PRIu64 "\",\"object\":"
				    "\"text_completion\",\"created\":%lld,\"model\":\"%s\","
				    "\"choices\":[",
				    s->seq, s->created_s, s->model_json ? s->model_json : s->t->model_json);
}

static const char *finish_json(const struct stream *s)
{
	if (s->mb == MB_NO_DONE)
		return "null";
	return s->length_finish ? "\"length\"" : "\"stop\"";
}

static void add_role_chunk(const struct stream *s, struct evbuffer *out)
{
	add_chunk_head(s, out);
	evbuffer_add_printf(out, "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
				 "\"logprobs\":null,\"finish_reason\":null}]}\n\n");
}

static void add_token_chunk(const struct stream *s, struct evbuffer *out, uint32_t i)
{
	const char *fin = i + 1 == s->n_tokens ? finish_json(s) : "null";

	add_chunk_head(s, out);
	if (s->api == API_CHAT)
		evbuffer_add_printf(out,
				    "{\"index\":0,\"delta\":{\"content\":\"tok%u \"},"
				    "\"logprobs\":null,\"finish_reason\":%s}]}\n\n",
				    i, fin);
	else
		evbuffer_add_printf(out,
				    "{\"index\":0,\"text\":\"tok%u \",\"logprobs\":null,"
				    "\"finish_reason\":%s}]}\n\n",
				    i, fin);
}

static void add_x(struct evbuffer *out, size_t n)
{
	char block[4096];

	memset(block, 'x', sizeof(block));
	while (n) {
		size_t k = n < sizeof(block) ? n : sizeof(block);
		evbuffer_add(out, block, k);
		n -= k;
	}
}

static const char stream_error_event[] = "data: {\"error\":{\"object\":\"error\",\"message\":\"injected stream error "
					 "(gauntlet target --misbehave stream_error)\",\"type\":\"server_error\","
					 "\"param\":null,\"code\":500}}\n\n";

/* The misbehaviour written right after token gl_target_inject_after(n).
 * Returns 1 when the stream ends there. */
static int add_injection(const struct stream *s, struct evbuffer *out)
{
	switch (s->mb) {
	case MB_GARBAGE_SSE: evbuffer_add_printf(out, "data: {\"id\": this is not json ]]\n\n"); return 0;
	case MB_OVERSIZED_LINE:
		add_chunk_head(s, out);
		evbuffer_add_printf(out, s->api == API_CHAT ? "{\"index\":0,\"delta\":{\"content\":\""
							    : "{\"index\":0,\"text\":\"");
		add_x(out, OVERSIZED_LINE_BYTES);
		evbuffer_add_printf(out, s->api == API_CHAT ? "\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
							    : "\",\"logprobs\":null,\"finish_reason\":null}]}\n\n");
		return 0;
	case MB_STREAM_ERROR:
		evbuffer_add(out, stream_error_event, sizeof(stream_error_event) - 1);
		evbuffer_add_printf(out, "data: [DONE]\n\n");
		return 1;
	default: return 0;
	}
}

/* "usage":{...}: with a prefix cache, prompt_tokens_details.cached_tokens
 * too, as vLLM and OpenAI report it. */
static void add_usage(const struct stream *s, struct evbuffer *out)
{
	evbuffer_add_printf(out, "\"usage\":{\"prompt_tokens\":%u,\"completion_tokens\":%u,\"total_tokens\":%u",
			    s->prompt_tokens, s->n_tokens, s->prompt_tokens + s->n_tokens);
	if (s->t->cache)
		evbuffer_add_printf(out, ",\"prompt_tokens_details\":{\"cached_tokens\":%u}", s->cached_tokens);
	evbuffer_add_printf(out, "}");
}

/* What follows the last token: usage chunk and [DONE] (neither for no_done). */
static void add_stream_tail(const struct stream *s, struct evbuffer *out)
{
	if (s->mb == MB_NO_DONE)
		return;
	if (s->include_usage) {
		add_chunk_head(s, out);
		evbuffer_add_printf(out, "],");
		add_usage(s, out);
		evbuffer_add_printf(out, "}\n\n");
	}
	evbuffer_add_printf(out, "data: [DONE]\n\n");
}

/* Token i's part of the stream, with the role chunk before token 0 and the
 * misbehaviour injected after gl_target_inject_after(n). Returns 1 when the
 * stream ends after it. */
int tgt_add_stream_token(struct stream *s, struct evbuffer *out, uint32_t i)
{
	if (i == 0 && s->api == API_CHAT)
		add_role_chunk(s, out);
	add_token_chunk(s, out, i);
	s->t->tokens_total++;
	if (i == gl_target_inject_after(s->n_tokens) && add_injection(s, out))
		return 1;
	if (i + 1 == s->n_tokens) {
		add_stream_tail(s, out);
		return 1;
	}
	return 0;
}

/* The whole non-streaming response body. */
void tgt_add_json_body(struct stream *s, struct evbuffer *out)
{
	int chat = s->api == API_CHAT;

	if (s->mb == MB_GARBAGE_SSE) {
		evbuffer_add_printf(out, "{\"id\": this is not json ]]");
		return;
	}
	evbuffer_add_printf(out,
			    "{\"id\":\"%s%" PRIu64 "\",\"object\":\"%s\",\"created\":%lld,"
			    "\"model\":\"%s\",\"choices\":[{\"index\":0,%s",
			    chat ? "chatcmpl-gl" : "cmpl-gl", s->seq, chat ? "chat.completion" : "text_completion",
			    s->created_s, s->model_json ? s->model_json : s->t->model_json,
			    chat ? "\"message\":{\"role\":\"assistant\",\"content\":\"" : "\"text\":\"");
	if (s->mb == MB_OVERSIZED_LINE)
		add_x(out, OVERSIZED_LINE_BYTES);
	for (uint32_t i = 0; i < s->n_tokens; i++)
		evbuffer_add_printf(out, "tok%u ", i);
	s->t->tokens_total += s->n_tokens;
	evbuffer_add_printf(out, "\"%s,\"logprobs\":null,\"finish_reason\":%s}]", chat ? "}" : "", finish_json(s));
	if (s->mb != MB_NO_DONE) {
		evbuffer_add_printf(out, ",");
		add_usage(s, out);
	}
	evbuffer_add_printf(out, "}");
}
