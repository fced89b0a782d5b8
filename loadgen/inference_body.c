/*
 * inference_body.c - what an inference request sends: the model it names
 * (the workload's or an adapter's) and its JSON body (inference_int.h).
 */
#include "inference_int.h"

/* The model arrival seq names: an adapter for its share of the arrivals
 * (a seeded draw per seq, so every run and every agent agrees), else the
 * workload's model. */
const char *inf_pick_model(struct inf *w, uint64_t seq)
{
	uint64_t z;
	double u;

	if (!w->n_adapters)
		return w->o.model;
	z = w->o.seed * 0xD1B54A32D192ED03ULL + seq * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	u = (double)(z >> 11) / 9007199254740992.0;
	for (int k = 0; k < w->n_adapters; k++)
		if (u < w->adapters[k].cum)
			return w->adapters[k].model;
	return w->o.model;
}

/* The body through cJSON: every case (a trace row's own messages, a
 * max_tokens past INT_MAX); inf_build_body's fast path writes the same bytes. */
static char *build_body_cjson(struct inf *w, const char *model, int64_t output_tokens, const struct gl_trace_row *tr)
{
	cJSON *b = cJSON_CreateObject();
	char *text;

	cJSON_AddStringToObject(b, "model", model);
	if (w->chat) {
		cJSON *msgs = NULL;
		if (tr && tr->messages_json)
			msgs = cJSON_Parse(tr->messages_json);
		if (!msgs) {
			cJSON *m = cJSON_CreateObject();
			msgs = cJSON_CreateArray();
			cJSON_AddStringToObject(m, "role", "user");
			cJSON_AddStringToObject(m, "content", w->scratch.data ? w->scratch.data : "");
			cJSON_AddItemToArray(msgs, m);
		}
		cJSON_AddItemToObject(b, "messages", msgs);
	} else {
		cJSON_AddStringToObject(b, "prompt", w->scratch.data ? w->scratch.data : "");
	}
	if (output_tokens > 0) {
		cJSON_AddNumberToObject(b, "max_tokens", (double)output_tokens);
		if (w->o.ignore_eos) {
			cJSON_AddNumberToObject(b, "min_tokens", (double)output_tokens);
			cJSON_AddBoolToObject(b, "ignore_eos", 1);
		}
	}
	cJSON_AddBoolToObject(b, "stream", w->o.stream);
	if (w->o.stream) {
		cJSON *so = cJSON_AddObjectToObject(b, "stream_options");
		cJSON_AddBoolToObject(so, "include_usage", 1);
	}
	text = cJSON_PrintUnformatted(b);
	cJSON_Delete(b);
	return text;
}

/* A C string as a JSON string, escaped as cJSON prints it: the quote, the
 * backslash and the bytes below 0x20 (\b \f \n \r \t or \u00xx); every
 * other byte as it is. */
static char *json_str(char *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;

	*o++ = '"';
	for (; *p; p++) {
		unsigned char c = *p;
		if (c >= 32 && c != '"' && c != '\\') {
			*o++ = (char)c;
			continue;
		}
		*o++ = '\\';
		switch (c) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '\b': *o++ = 'b'; break;
		case '\f': *o++ = 'f'; break;
		case '\n': *o++ = 'n'; break;
		case '\r': *o++ = 'r'; break;
		case '\t': *o++ = 't'; break;
		default:
			memcpy(o, "u00", 3);
			o[3] = hex[c >> 4];
			o[4] = hex[c & 15];
			o += 5;
		}
	}
	*o++ = '"';
	return o;
}

static char *put(char *o, const char *lit)
{
	size_t n = strlen(lit);
	memcpy(o, lit, n);
	return o + n;
}

/* The request body (cJSON_PrintUnformatted's bytes, key order included),
 * written straight into one allocation: no tree of cJSON nodes per request.
 * Freed with cJSON_free like cJSON's own. */
char *inf_build_body(struct inf *w, const char *model, uint64_t seq, int64_t input_tokens, int64_t output_tokens,
		     const struct gl_trace_row *tr)
{
	const char *prompt;
	size_t plen, mlen, cap;
	char *text, *o, num[24];

	w->scratch.len = 0;
	if (tr && tr->prompt) {
		gl_buf_append(&w->scratch, tr->prompt, tr->prompt_len);
	} else {
		gl_prompt_synth(w->o.seed, seq, (unsigned)(input_tokens > 0 ? input_tokens : 1),
				tr ? tr->hash_ids : NULL, tr ? tr->n_hash_ids : 0, 512, &w->scratch);
	}
	/* a trace row's own messages, and a count cJSON prints as a double */
	if ((w->chat && tr && tr->messages_json) || output_tokens > 2147483646)
		return build_body_cjson(w, model, output_tokens, tr);
	prompt = w->scratch.data ? w->scratch.data : "";
	plen = strlen(prompt);
	mlen = strlen(model);
	/* worst case: every byte escaped as \u00xx (6 bytes) */
	cap = 6 * (plen + mlen) + 200;
	if (!(text = cJSON_malloc(cap)))
		return NULL;
	o = put(text, "{\"model\":");
	o = json_str(o, model);
	o = put(o, w->chat ? ",\"messages\":[{\"role\":\"user\",\"content\":" : ",\"prompt\":");
	o = json_str(o, prompt);
	if (w->chat)
		o = put(o, "}]");
	if (output_tokens > 0) {
		snprintf(num, sizeof(num), "%d", (int)output_tokens);
		o = put(o, ",\"max_tokens\":");
		o = put(o, num);
		if (w->o.ignore_eos) {
			o = put(o, ",\"min_tokens\":");
			o = put(o, num);
			o = put(o, ",\"ignore_eos\":true");
		}
	}
	o = put(o,
		w->o.stream ? ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}" : ",\"stream\":false}");
	*o = '\0';
#ifdef GL_INF_BODY_CHECK
	{
		char *ref = build_body_cjson(w, model, output_tokens, tr);
		if (!ref || strcmp(ref, text) != 0) {
			fprintf(stderr, "inf_build_body differs:\n fast %s\n cjson %s\n", text, ref ? ref : "(null)");
			abort();
		}
		cJSON_free(ref);
	}
#endif
	return text;
}
