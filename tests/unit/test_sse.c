/*
 * test_sse.c - the SSE framing and OpenAI chunk interpretation of
 * loadgen/sse.c: the same events whatever the fragmenting (every split
 * point, one byte at a time), every line-end style, comments, multi-line
 * data, the caps (error state without growth), token / usage / error / done
 * classification, and how a stream is judged at its end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sse.h"
#include "util.h"

/* Events are recorded as "event|id|data" separated by 0x1E, so two feedings
 * can be compared as strings. */
struct rec {
	struct gl_buf out;
	int n;
	int n_token;
	int stop_after; /* >0: return 7 from the callback at this event */
};

static int rec_cb(void *ctx, const struct gl_sse_event *ev)
{
	struct rec *r = ctx;

	r->n++;
	gl_buf_append(&r->out, ev->event, strlen(ev->event));
	gl_buf_append(&r->out, "|", 1);
	gl_buf_append(&r->out, ev->id, strlen(ev->id));
	gl_buf_append(&r->out, "|", 1);
	gl_buf_append(&r->out, ev->data, ev->data_len);
	gl_buf_append(&r->out, "\x1e", 1);
	if (ev->oai && ev->oai->has_token)
		r->n_token++;
	if (r->stop_after && r->n == r->stop_after)
		return 7;
	return 0;
}

static void rec_init(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	gl_buf_init(&r->out, 1 << 20);
	gl_buf_append(&r->out, "", 0);
}

/* Feed text in pieces cut at the given offsets (ascending, may be empty). */
static char *feed_cuts(const char *text, size_t len, const size_t *cuts, size_t n_cuts, unsigned flags,
		       enum gl_sse_class *cls, struct gl_sse_summary *sum)
{
	struct rec r;
	struct gl_sse *p;
	size_t at = 0;
	char *s;

	rec_init(&r);
	p = gl_sse_new(0, 0, flags, rec_cb, &r);
	for (size_t i = 0; i <= n_cuts; i++) {
		size_t to = i < n_cuts ? cuts[i] : len;
		gl_sse_feed(p, text + at, to - at);
		at = to;
	}
	if (cls)
		*cls = gl_sse_finish(p, sum);
	gl_sse_free(p);
	s = strdup(r.out.data);
	gl_buf_free(&r.out);
	return s;
}

static char *feed_whole(const char *text, unsigned flags, enum gl_sse_class *cls, struct gl_sse_summary *sum)
{
	return feed_cuts(text, strlen(text), NULL, 0, flags, cls, sum);
}

static char *feed_bytes(const char *text, unsigned flags)
{
	struct rec r;
	struct gl_sse *p;
	char *s;

	rec_init(&r);
	p = gl_sse_new(0, 0, flags, rec_cb, &r);
	for (size_t i = 0; text[i]; i++)
		gl_sse_feed(p, text + i, 1);
	gl_sse_finish(p, NULL);
	gl_sse_free(p);
	s = strdup(r.out.data);
	gl_buf_free(&r.out);
	return s;
}

/* A stream with every framing feature in it. */
static const char rich[] = "\xEF\xBB\xBF"
			   ": keep-alive\r\n"
			   "retry: 3000\n"
			   "data: one\n"
			   "\n"
			   "event: delta\r"
			   "id: 42\r"
			   "data:two\r"
			   "data:  three\r"
			   "\r"
			   ":ping\r\n"
			   "data\r\n"
			   "\r\n"
			   "data:\n"
			   "data:\n"
			   "unknown: x\n"
			   "\n"
			   "event: lonely\n"
			   "\n"
			   "id\n"
			   "data: after-id-reset\n"
			   "\n"
			   "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\r\n\r\n"
			   "data: unfinished\n";

static const char rich_expect[] = "||one\x1e"
				  "delta|42|two\n three\x1e"
				  "|42|\x1e"
				  "|42|\n\x1e"
				  "||after-id-reset\x1e"
				  "||{\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\x1e";

static void test_framing_exact(void)
{
	enum gl_sse_class cls;
	struct gl_sse_summary sum;
	char *got = feed_whole(rich, 0, &cls, &sum);

	CHECKF(strcmp(got, rich_expect) == 0, "got [%s]", got);
	CHECK(sum.n_events == 6);
	CHECK(sum.n_comments == 2);
	CHECK(sum.partial_at_end); /* "data: unfinished" never dispatched */
	CHECK(cls == GL_SSE_TRUNCATED);
	free(got);
}

static void test_every_split(void)
{
	size_t len = strlen(rich);
	char *whole = feed_whole(rich, GL_SSE_OPENAI, NULL, NULL);
	int bad2 = 0, bad3 = 0;
	char *bytes;

	for (size_t i = 0; i <= len; i++) {
		char *got = feed_cuts(rich, len, &i, 1, GL_SSE_OPENAI, NULL, NULL);
		if (strcmp(got, whole) != 0) {
			if (!bad2)
				fprintf(stderr, "split at %zu differs: [%s]\n", i, got);
			bad2++;
		}
		free(got);
	}
	CHECKF(bad2 == 0, "%d two-piece splits differ", bad2);
	for (size_t i = 0; i <= len; i += 3) {
		for (size_t j = i; j <= len; j += 2) {
			size_t cuts[2] = { i, j };
			char *got = feed_cuts(rich, len, cuts, 2, GL_SSE_OPENAI, NULL, NULL);
			if (strcmp(got, whole) != 0)
				bad3++;
			free(got);
		}
	}
	CHECKF(bad3 == 0, "%d three-piece splits differ", bad3);
	bytes = feed_bytes(rich, GL_SSE_OPENAI);
	CHECKF(strcmp(bytes, whole) == 0, "byte-at-a-time differs: [%s]", bytes);
	CHECK(strcmp(whole, rich_expect) == 0);
	free(bytes);
	free(whole);
}

/* Replace every "\n" of a LF stream by the given line end. */
static char *with_eol(const char *lf, const char *eol)
{
	struct gl_buf b;

	gl_buf_init(&b, 1 << 20);
	gl_buf_append(&b, "", 0);
	for (const char *s = lf; *s; s++) {
		if (*s == '\n')
			gl_buf_append(&b, eol, strlen(eol));
		else
			gl_buf_append(&b, s, 1);
	}
	return b.data;
}

static void test_line_ends(void)
{
	const char *lf = ": hello\n"
			 "event: a\ndata: {\"choices\":[],\ndata: \"usage\":{\"completion_tokens\":1}}\n\n"
			 "data: {\"choices\":[{\"delta\":{\"content\":\"z\"},\"finish_reason\":\"stop\"}]}\n\n"
			 "data: [DONE]\n\n";
	const char *expect = "a||{\"choices\":[],\n\"usage\":{\"completion_tokens\":1}}\x1e"
			     "||{\"choices\":[{\"delta\":{\"content\":\"z\"},\"finish_reason\":\"stop\"}]}\x1e"
			     "||[DONE]\x1e";
	const char *eols[] = { "\n", "\r\n", "\r" };

	for (size_t k = 0; k < GL_ARRAY_LEN(eols); k++) {
		char *text = with_eol(lf, eols[k]);
		enum gl_sse_class cls;
		struct gl_sse_summary sum;
		char *whole = feed_whole(text, GL_SSE_OPENAI, &cls, &sum);
		char *bytes = feed_bytes(text, GL_SSE_OPENAI);

		CHECKF(strcmp(whole, expect) == 0, "eol %zu: [%s]", k, whole);
		CHECKF(strcmp(bytes, expect) == 0, "eol %zu bytewise: [%s]", k, bytes);
		CHECK(cls == GL_SSE_CLEAN);
		CHECK(sum.saw_done && sum.saw_finish);
		CHECK(strcmp(sum.finish_reason, "stop") == 0);
		CHECK(sum.n_comments == 1);
		CHECK(sum.saw_usage && sum.completion_tokens == 1);
		CHECK(!sum.partial_at_end);
		free(whole);
		free(bytes);
		free(text);
	}
	/* CR at the end of one fragment and LF at the start of the next is one
	 * line end, not two (which would dispatch an event early). */
	{
		struct rec r;
		struct gl_sse *p;
		rec_init(&r);
		p = gl_sse_new(0, 0, 0, rec_cb, &r);
		gl_sse_feed(p, "data: a\r", 8);
		gl_sse_feed(p, "\ndata: b\r", 9);
		gl_sse_feed(p, "\n\r", 2);
		gl_sse_feed(p, "\n", 1);
		CHECKF(strcmp(r.out.data, "||a\nb\x1e") == 0, "got [%s]", r.out.data);
		CHECK(r.n == 1);
		gl_sse_free(p);
		gl_buf_free(&r.out);
	}
}

static void test_bom(void)
{
	/* A BOM split over fragments is dropped; bytes that only look like the
	 * start of one are data; a BOM later in the stream is data. */
	struct rec r;
	struct gl_sse *p;

	rec_init(&r);
	p = gl_sse_new(0, 0, 0, rec_cb, &r);
	gl_sse_feed(p, "\xEF", 1);
	gl_sse_feed(p, "\xBB", 1);
	gl_sse_feed(p,
		    "\xBF"
		    "data: a\n\n",
		    11);
	CHECKF(strcmp(r.out.data, "||a\x1e") == 0, "got [%s]", r.out.data);
	gl_sse_free(p);
	gl_buf_free(&r.out);

	rec_init(&r);
	p = gl_sse_new(0, 0, 0, rec_cb, &r);
	gl_sse_feed(p, "\xEF\xBB", 2);
	gl_sse_feed(p, "x: 1\ndata: b\n\n", 14);
	/* "\xEF\xBBx" is an unknown field name: only the data event remains. */
	CHECKF(strcmp(r.out.data, "||b\x1e") == 0, "got [%s]", r.out.data);
	gl_sse_free(p);
	gl_buf_free(&r.out);

	rec_init(&r);
	p = gl_sse_new(0, 0, 0, rec_cb, &r);
	gl_sse_feed(p,
		    "\xEF\xBB\xBF\xEF\xBB\xBF"
		    "data: c\n\n",
		    15);
	CHECK(r.n == 0); /* the second BOM makes the field name "\xEF\xBB\xBF" "data" */
	gl_sse_free(p);
	gl_buf_free(&r.out);
}

static void test_caps(void)
{
	struct rec r;
	struct gl_sse *p;
	char big[1000];
	size_t mem_after_error;
	struct gl_sse_summary sum;
	int rc;

	memset(big, 'a', sizeof(big));
	rec_init(&r);
	p = gl_sse_new(64, 256, GL_SSE_OPENAI, rec_cb, &r);
	CHECK(gl_sse_feed(p, "data: [DONE]\n\n", 14) == 0);
	CHECK(gl_sse_feed(p, "data: ", 6) == 0);
	rc = 0;
	for (int i = 0; i < 100 && rc == 0; i++)
		rc = gl_sse_feed(p, big, 10);
	CHECK(rc == -GL_ELIMIT);
	CHECK(gl_sse_error(p) == GL_SSE_ERR_LINE_TOO_LONG);
	mem_after_error = gl_sse_mem_bytes(p);
	CHECKF(mem_after_error <= 3 * (64 + 1) + (256 + 1) + 512, "mem %zu", mem_after_error);
	/* Sticky: more input is refused and nothing grows. */
	rc = 0;
	for (int i = 0; i < 1000; i++)
		if (gl_sse_feed(p, big, sizeof(big)) != -GL_ELIMIT)
			rc++;
	CHECK(rc == 0);
	CHECK(gl_sse_feed(p, "\n\ndata: x\n\n", 11) == -GL_ELIMIT);
	CHECK(gl_sse_mem_bytes(p) == mem_after_error);
	CHECK(r.n == 1);
	CHECK(gl_sse_finish(p, &sum) == GL_SSE_MALFORMED);
	CHECK(sum.parse_error == GL_SSE_ERR_LINE_TOO_LONG);
	CHECK(strstr(sum.detail, "line_too_long") != NULL);

	/* A whole oversized line inside one fragment is refused too. */
	gl_sse_reset(p);
	CHECK(gl_sse_error(p) == GL_SSE_ERR_NONE);
	{
		char line[200];
		memset(line, 'b', sizeof(line));
		memcpy(line, "data: ", 6);
		line[sizeof(line) - 1] = '\n';
		CHECK(gl_sse_feed(p, line, sizeof(line)) == -GL_ELIMIT);
		CHECK(gl_sse_error(p) == GL_SSE_ERR_LINE_TOO_LONG);
	}

	/* Many short data lines: the event cap, not the line cap. */
	gl_sse_reset(p);
	rc = 0;
	for (int i = 0; i < 100 && rc == 0; i++)
		rc = gl_sse_feed(p, "data: 0123456789\n", 17);
	CHECK(rc == -GL_ELIMIT);
	CHECK(gl_sse_error(p) == GL_SSE_ERR_EVENT_TOO_BIG);
	CHECK(gl_sse_finish(p, NULL) == GL_SSE_MALFORMED);
	CHECKF(gl_sse_mem_bytes(p) <= 3 * (64 + 1) + (256 + 1) + 512, "mem %zu", gl_sse_mem_bytes(p));
	gl_sse_free(p);
	gl_buf_free(&r.out);

	/* An exactly max_line line is fine. */
	rec_init(&r);
	p = gl_sse_new(16, 16, 0, rec_cb, &r);
	CHECK(gl_sse_feed(p, "data: 0123456789\n\n", 18) == 0); /* 16 bytes */
	CHECK(gl_sse_feed(p, "data: 01234567890\n\n", 19) == -GL_ELIMIT);
	CHECK(r.n == 1);
	gl_sse_free(p);
	gl_buf_free(&r.out);
}

static void test_callback_stop(void)
{
	struct rec r;
	struct gl_sse *p;

	rec_init(&r);
	r.stop_after = 2;
	p = gl_sse_new(0, 0, 0, rec_cb, &r);
	CHECK(gl_sse_feed(p, "data: 1\n\ndata: 2\n\ndata: 3\n\n", 27) == 7);
	CHECK(gl_sse_feed(p, "data: 4\n\n", 9) == 7);
	CHECK(r.n == 2);
	CHECK(gl_sse_error(p) == GL_SSE_ERR_CALLBACK);
	gl_sse_free(p);
	gl_buf_free(&r.out);
}

static void chunk(const char *event, const char *data, struct gl_oai_chunk *c)
{
	gl_oai_parse_chunk(event, data, strlen(data), c);
}

static void test_chunks(void)
{
	struct gl_oai_chunk c;

	chunk(NULL, "[DONE]", &c);
	CHECK(c.is_done && c.kind == GL_OAI_DONE && !c.has_token);
	chunk("", "  [DONE] \n", &c);
	CHECK(c.is_done);
	chunk(NULL, "[DONE]x", &c);
	CHECK(!c.is_done && c.is_malformed);

	/* Role-only delta: not a token. */
	chunk(NULL,
	      "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":"
	      "[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
	      "\"finish_reason\":null}]}",
	      &c);
	CHECK(c.kind == GL_OAI_CHAT);
	CHECK(!c.has_token && !c.is_malformed && !c.has_finish && !c.has_usage);
	chunk(NULL, "{\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}", &c);
	CHECK(c.kind == GL_OAI_CHAT && !c.has_token);

	chunk(NULL,
	      "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
	      "\"delta\":{\"content\":\"H\\u00e9llo\"},\"finish_reason\":null}],\"usage\":null}",
	      &c);
	CHECK(c.has_token && c.content_bytes == 6 && !c.has_usage && !c.is_malformed);

	chunk(NULL, "{\"choices\":[{\"delta\":{\"reasoning_content\":\"think\"}}]}", &c);
	CHECK(c.has_token && c.reasoning_bytes == 5 && c.content_bytes == 0);
	chunk(NULL, "{\"choices\":[{\"delta\":{\"reasoning\":\"hm\",\"content\":null}}]}", &c);
	CHECK(c.has_token && c.reasoning_bytes == 2);

	chunk(NULL,
	      "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\","
	      "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}]}",
	      &c);
	CHECK(c.has_token && c.tool_call_bytes == 11);
	chunk(NULL,
	      "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
	      "{\"arguments\":\"{\\\"city\\\"\"}}]}}]}",
	      &c);
	CHECK(c.has_token && c.tool_call_bytes == 7);
	chunk(NULL, "{\"choices\":[{\"delta\":{\"tool_calls\":[]}}]}", &c);
	CHECK(!c.has_token && !c.is_malformed);

	/* finish_reason */
	chunk(NULL, "{\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}", &c);
	CHECK(c.has_finish && strcmp(c.finish_reason, "length") == 0 && !c.has_token);

	/* include_usage: the last chunk has empty choices and usage. */
	chunk(NULL,
	      "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
	      "\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":17,"
	      "\"total_tokens\":273,\"completion_tokens\":256}}",
	      &c);
	CHECK(c.has_usage && c.prompt_tokens == 17 && c.completion_tokens == 256);
	CHECK(!c.has_token && !c.is_malformed && c.kind == GL_OAI_CHAT);
	chunk(NULL, "{\"choices\":[],\"usage\":{\"completion_tokens\":3}}", &c);
	CHECK(c.has_usage && c.prompt_tokens == -1 && c.completion_tokens == 3);
	chunk(NULL, "{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}", &c);
	CHECK(c.has_usage && c.kind == GL_OAI_OTHER);
	CHECK(c.cached_tokens == -1); /* not reported: unknown, not 0 */
	/* a prefix cache's hits (vLLM, OpenAI) */
	chunk(NULL,
	      "{\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":2,"
	      "\"prompt_tokens_details\":{\"cached_tokens\":32}}}",
	      &c);
	CHECK(c.has_usage && c.prompt_tokens == 40 && c.cached_tokens == 32 && !c.is_malformed);
	chunk(NULL,
	      "{\"choices\":[],\"usage\":{\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":0}}}",
	      &c);
	CHECK(c.has_usage && c.cached_tokens == 0);
	chunk(NULL, "{\"choices\":[],\"usage\":{\"completion_tokens\":2,\"prompt_tokens_details\":null}}", &c);
	CHECK(c.has_usage && c.cached_tokens == -1);
	/* another shape of the detail: unknown, the usage still good */
	chunk(NULL,
	      "{\"choices\":[],\"usage\":{\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":\"9\"}}"
	      "}",
	      &c);
	CHECK(c.has_usage && !c.is_malformed && c.cached_tokens == -1);
	chunk(NULL, "{\"choices\":[],\"usage\":{\"completion_tokens\":2,\"prompt_tokens_details\":7}}", &c);
	CHECK(c.has_usage && !c.is_malformed && c.cached_tokens == -1);
	chunk(NULL, "{\"choices\":[],\"usage\":{\"completion_tokens\":-3}}", &c);
	CHECK(c.is_malformed && !c.has_usage);
	chunk(NULL, "{\"choices\":[],\"usage\":{\"completion_tokens\":\"3\"}}", &c);
	CHECK(c.is_malformed);
	chunk(NULL, "{\"choices\":[],\"usage\":{\"completion_tokens\":2.5}}", &c);
	CHECK(c.is_malformed);

	/* Completions */
	chunk(NULL,
	      "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
	      "\"text\":\" world\",\"logprobs\":null,\"finish_reason\":null}]}",
	      &c);
	CHECK(c.kind == GL_OAI_COMPLETION && c.has_token && c.content_bytes == 6);
	chunk(NULL, "{\"choices\":[{\"text\":\"\",\"finish_reason\":\"stop\"}]}", &c);
	CHECK(c.kind == GL_OAI_COMPLETION && !c.has_token && c.has_finish);

	/* Errors in the stream */
	chunk(NULL,
	      "{\"error\":{\"message\":\"CUDA out of memory\",\"type\":\"InternalServerError\","
	      "\"code\":500}}",
	      &c);
	CHECK(c.is_error && c.kind == GL_OAI_ERROR && !c.is_malformed);
	CHECK(strcmp(c.detail, "CUDA out of memory") == 0);
	chunk(NULL,
	      "{\"object\":\"error\",\"message\":\"bad\",\"type\":\"BadRequestError\","
	      "\"param\":null,\"code\":400}",
	      &c);
	CHECK(c.is_error && strcmp(c.detail, "bad") == 0);
	chunk("error", "upstream reset", &c);
	CHECK(c.is_error && strcmp(c.detail, "upstream reset") == 0);
	chunk("error", "{\"error\":{\"message\":\"overloaded\"}}", &c);
	CHECK(c.is_error && strcmp(c.detail, "overloaded") == 0);

	/* Malformed */
	chunk(NULL, "{\"choices\":[{\"delta\":{\"content\":\"x\"}}]", &c);
	CHECK(c.is_malformed && !c.has_token && c.kind == GL_OAI_MALFORMED);
	chunk(NULL, "{\"choices\":[]} trailing", &c);
	CHECK(c.is_malformed);
	chunk(NULL, "[1,2]", &c);
	CHECK(c.is_malformed);
	chunk(NULL, "{\"id\":\"x\"}", &c);
	CHECK(c.is_malformed);
	chunk(NULL, "{\"choices\":{}}", &c);
	CHECK(c.is_malformed);
	chunk(NULL, "{\"choices\":[{\"delta\":{\"content\":5}}]}", &c);
	CHECK(c.is_malformed);
	chunk(NULL, "{\"choices\":[{\"delta\":{\"content\":\"\xC3\x28\"}}]}", &c);
	CHECK(c.is_malformed && strstr(c.detail, "UTF-8") != NULL);
	chunk(NULL, "{\"choices\":[{\"delta\":{\"content\":\"\xED\xA0\x80\"}}]}", &c);
	CHECK(c.is_malformed); /* an encoded surrogate */
	{
		const char nul[] = "{\"choices\":[]}\0garbage";
		gl_oai_parse_chunk(NULL, nul, sizeof(nul) - 1, &c);
		CHECK(c.is_malformed);
	}
	/* Empty data: nothing to interpret, not malformed. */
	chunk(NULL, "", &c);
	CHECK(c.kind == GL_OAI_EMPTY && !c.is_malformed);
	/* Not NUL-terminated: must not read past len. */
	{
		char *d = malloc(14);
		memcpy(d, "{\"choices\":[]", 13);
		d[13] = '}';
		gl_oai_parse_chunk(NULL, d, 13, &c);
		CHECK(c.is_malformed);
		gl_oai_parse_chunk(NULL, d, 14, &c);
		CHECK(!c.is_malformed && c.kind == GL_OAI_OTHER);
		free(d);
	}
}

static void resp(const char *body, struct gl_oai_chunk *c)
{
	gl_oai_parse_response(body, strlen(body), c);
}

static void test_response(void)
{
	struct gl_oai_chunk c;
	const char *chat =
		"{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
		"\"message\":{\"role\":\"assistant\",\"content\":\"Hello there\",\"reasoning_content\":null},"
		"\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,"
		"\"total_tokens\":11}}";
	const char *cmpl =
		"{\"object\":\"text_completion\",\"choices\":[{\"text\":\"abc\",\"finish_reason\":\"length\"}],"
		"\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1}}";

	gl_oai_parse_response(chat, strlen(chat), &c);
	CHECK(c.kind == GL_OAI_CHAT && c.content_bytes == 11 && c.has_token);
	CHECK(c.has_finish && strcmp(c.finish_reason, "stop") == 0);
	CHECK(c.has_usage && c.prompt_tokens == 9 && c.completion_tokens == 2);
	CHECK(!c.is_done && !c.is_error && !c.is_malformed);
	CHECK(c.cached_tokens == -1);
	resp("{\"object\":\"text_completion\",\"choices\":[{\"text\":\"a\",\"finish_reason\":\"stop\"}],"
	     "\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":16}}"
	     "}",
	     &c);
	CHECK(c.has_usage && c.prompt_tokens == 20 && c.cached_tokens == 16 && c.has_finish);

	gl_oai_parse_response(cmpl, strlen(cmpl), &c);
	CHECK(c.kind == GL_OAI_COMPLETION && c.content_bytes == 3 && c.has_finish);
	CHECK(c.completion_tokens == 1);

	resp("{\"error\":{\"message\":\"model not found\"}}", &c);
	CHECK(c.is_error && strcmp(c.detail, "model not found") == 0);
	resp("<html>502</html>", &c);
	CHECK(c.is_malformed);
	resp("  ", &c);
	CHECK(c.is_malformed);
	/* A streaming chunk is not a whole response: delta is not message. */
	resp("{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}", &c);
	CHECK(!c.has_token && !c.is_malformed);
}

/* Whole streams as a server would send them. */
static enum gl_sse_class stream_class(const char *text, struct gl_sse_summary *sum, int *n_token)
{
	struct rec r;
	struct gl_sse *p;
	enum gl_sse_class cls;

	rec_init(&r);
	p = gl_sse_new(0, 0, GL_SSE_OPENAI, rec_cb, &r);
	gl_sse_feed(p, text, strlen(text));
	cls = gl_sse_finish(p, sum);
	if (n_token)
		*n_token = r.n_token;
	gl_sse_free(p);
	gl_buf_free(&r.out);
	return cls;
}

#define ROLE                                                                                                 \
	"data: "                                                                                             \
	"{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"," \
	"\"content\":\"\"}}]}\n\n"
#define TOK(s)                                                                                                       \
	"data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" s "\"}}]}" \
	"\n\n"
#define FIN                                                                                                          \
	"data: "                                                                                                     \
	"{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}" \
	"\n\n"
#define USAGE                                                                                                          \
	"data: "                                                                                                       \
	"{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3," \
	"\"total_tokens\":8}}\n\n"
#define DONE "data: [DONE]\n\n"

static void test_streams(void)
{
	struct gl_sse_summary s;
	int n_tok;

	CHECK(stream_class(ROLE TOK("a") ": ping\n\n" TOK("b") TOK("c") FIN USAGE DONE, &s, &n_tok) == GL_SSE_CLEAN);
	CHECK(n_tok == 3 && s.n_token_events == 3 && s.n_events == 7);
	CHECK(s.saw_usage && s.completion_tokens == 3 && s.prompt_tokens == 5);
	CHECK(s.cached_tokens == -1);
	CHECK(s.content_bytes == 3 && s.n_comments == 1);
	/* a prefix cache's hits in the usage chunk */
	CHECK(stream_class(ROLE TOK("a") FIN
			   "data: {\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,"
			   "\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":4}}}\n\n" DONE,
			   &s, NULL) == GL_SSE_CLEAN);
	CHECK(s.saw_usage && s.prompt_tokens == 5 && s.cached_tokens == 4);

	/* finish_reason without [DONE] is clean; neither is truncated. */
	CHECK(stream_class(ROLE TOK("a") FIN, &s, NULL) == GL_SSE_CLEAN);
	CHECK(stream_class(ROLE TOK("a") TOK("b"), &s, NULL) == GL_SSE_TRUNCATED);
	CHECK(!s.partial_at_end && !s.saw_usage && s.completion_tokens == -1);
	CHECK(stream_class(ROLE TOK("a") "data: {\"choices\":[{\"delta\":{\"con", &s, NULL) == GL_SSE_TRUNCATED);
	CHECK(s.partial_at_end);
	CHECK(stream_class("", &s, NULL) == GL_SSE_TRUNCATED);
	/* [DONE] without its blank line is not an event: truncated. */
	CHECK(stream_class(ROLE TOK("a") "data: [DONE]\n", &s, NULL) == GL_SSE_TRUNCATED);
	/* Garbage after [DONE] does not matter. */
	CHECK(stream_class(TOK("a") DONE "data: {", &s, NULL) == GL_SSE_CLEAN);

	/* In-stream error, with or without an event name, wins over the rest. */
	CHECK(stream_class(ROLE TOK("a") "data: {\"error\":{\"message\":\"boom\",\"code\":500}}\n\n" DONE, &s, NULL) ==
	      GL_SSE_STREAM_ERROR);
	CHECK(s.saw_error && strcmp(s.detail, "boom") == 0);
	CHECK(stream_class(TOK("a") "event: error\ndata: engine died\n\n", &s, NULL) == GL_SSE_STREAM_ERROR);
	CHECK(strcmp(s.detail, "engine died") == 0);
	CHECK(stream_class(TOK("a") "data: not json\n\nevent: error\ndata: x\n\n", &s, NULL) == GL_SSE_STREAM_ERROR);
	CHECK(strcmp(s.detail, "x") == 0);

	/* Malformed JSON anywhere makes the stream malformed. */
	CHECK(stream_class(TOK("a") "data: {oops}\n\n" FIN DONE, &s, NULL) == GL_SSE_MALFORMED);
	CHECK(s.n_malformed == 1 && strstr(s.detail, "JSON") != NULL);

	/* Completions stream */
	CHECK(stream_class("data: {\"object\":\"text_completion\",\"choices\":[{\"text\":\"x\"}]}\n\n"
			   "data: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"length\"}]}\n\n",
			   &s, &n_tok) == GL_SSE_CLEAN);
	CHECK(n_tok == 1 && strcmp(s.finish_reason, "length") == 0);
}

static void test_reset_reuse(void)
{
	struct rec r;
	struct gl_sse *p;
	struct gl_sse_summary s;

	rec_init(&r);
	p = gl_sse_new(0, 0, GL_SSE_OPENAI, rec_cb, &r);
	gl_sse_feed(p, "id: 9\n" TOK("a") "data: {bad", strlen("id: 9\n" TOK("a") "data: {bad"));
	CHECK(gl_sse_finish(p, &s) == GL_SSE_TRUNCATED);
	gl_sse_reset(p);
	r.n = 0;
	r.out.len = 0;
	gl_sse_feed(p, TOK("b") DONE, strlen(TOK("b") DONE));
	CHECK(gl_sse_finish(p, &s) == GL_SSE_CLEAN);
	CHECK(s.n_events == 2 && s.n_token_events == 1);
	CHECK(r.n == 2);
	/* The old stream's id and partial line are gone. */
	CHECK(strncmp(r.out.data, "||{", 3) == 0);
	gl_sse_free(p);
	gl_sse_free(NULL);
	gl_buf_free(&r.out);
}

int main(void)
{
	CHECK(strcmp(gl_sse_class_name(GL_SSE_TRUNCATED), "truncated") == 0);
	CHECK(strcmp(gl_sse_class_name(GL_SSE_STREAM_ERROR), "stream_error") == 0);
	CHECK(strcmp(gl_sse_class_name(GL_SSE_MALFORMED), "malformed") == 0);
	test_framing_exact();
	test_every_split();
	test_line_ends();
	test_bom();
	test_caps();
	test_callback_stop();
	test_chunks();
	test_response();
	test_streams();
	test_reset_reuse();
	return check_done();
}
