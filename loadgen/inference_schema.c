/*
 * inference_schema.c - the inference workload's section of a scenario
 * ("workloads.inference"): its keys, their types and ranges, and the
 * arrival modes with what each needs. inference.c runs what this accepts.
 */
#include "inference_schema.h"

#include <stdio.h>
#include <string.h>

#include "image_schema.h"
#include "opts.h"
#include "plugin.h"
#include "schema.h"
#include "units.h"

static const char *const arrival_modes[] = { "poisson", "constant", "gamma", "trace", "closed", NULL };
static const char *const apis[] = { "chat", "completions", NULL };
static const char *const balances[] = { "round_robin", "least_in_flight", NULL };
static const char *const clients[] = { "auto", "curl", NULL };
static const char *const formats[] = { "auto", "azure", "burstgpt", "mooncake", "prompts", NULL };

#define AT(f) GL_OPT_AT(struct gl_inference_opts, f)

/* the section's keys, in the order an unknown key's message lists them */
static const struct gl_opt section[] = {
	{ "endpoints", GL_OPT_CUSTOM, 1, .help = "base URLs, e.g. http://gpu-a:8000/v1" },
	{ "api", GL_OPT_ENUM, .words = apis, .len = 256, .def_s = "chat", .help = "which OpenAI API", AT(api) },
	{ "model", GL_OPT_STRING, 1, .len = 256, .help = "the model field of each request", AT(model) },
	{ "api_key_env", GL_OPT_STRING, .len = 256, .help = "environment variable holding the API key" },
	{ "api_key_file", GL_OPT_STRING, .len = 1024, .help = "file holding the key; used when api_key_env is absent" },
	{ "arrival", GL_OPT_CUSTOM, 1, .help = "arrival process" },
	{ "trace", GL_OPT_STRING, .len = 1024, .help = "trace file; required by arrival.mode trace", AT(trace) },
	{ "trace_format", GL_OPT_ENUM, .words = formats, .len = 256, .def_s = "auto", .help = "trace file format",
	  AT(trace_format) },
	{ "max_in_flight", GL_OPT_INT, .lo = 1, .hi = 1e6, .def_n = 1024, .help = "requests in flight at once",
	  AT(max_in_flight) },
	{ "timeout", GL_OPT_DURATION, .def_s = "120s", .help = "whole-request limit", AT(timeout_ns) },
	{ "ttft_timeout", GL_OPT_DURATION, .help = "send to first token; 0: off", AT(ttft_timeout_ns) },
	{ "idle_timeout", GL_OPT_DURATION, .help = "silence after the first token; 0: off", AT(idle_timeout_ns) },
	{ "stream", GL_OPT_BOOL, .def_n = 1, .help = "SSE streaming", AT(stream) },
	{ "input_tokens", GL_OPT_INT, .lo = 1, .hi = 1e7, .def_n = 128, .help = "prompt length of synthesized prompts",
	  AT(input_tokens) },
	{ "output_tokens", GL_OPT_INT, .lo = 1, .hi = 1e7, .def_n = 64, .help = "max_tokens of each request",
	  AT(output_tokens) },
	{ "seed", GL_OPT_INT, .lo = 0, .hi = 9007199254740991.0, .def_n = 1,
	  .help = "arrival randomness and prompt synthesis", AT(seed) },
	{ "balance", GL_OPT_ENUM, .words = balances, .len = 256, .def_s = "round_robin", .help = "endpoint choice",
	  AT(balance) },
	{ "drop_failed_endpoints", GL_OPT_BOOL, .help = "skip endpoints whose last request failed", AT(drop_failed) },
	{ "ca_bundle", GL_OPT_STRING, .len = 1024, .help = "CA file for TLS", AT(ca_bundle) },
	{ "http2", GL_OPT_BOOL, .help = "HTTP/2 over TLS instead of HTTP/1.1", AT(http2) },
	{ "client", GL_OPT_ENUM, .words = clients, .len = 32, .def_s = "auto",
	  .help = "auto: the own HTTP/1.1 client for plain http:// to an IP address, libcurl for the rest; curl: "
		  "libcurl for all",
	  AT(client) },
	{ "ignore_eos", GL_OPT_BOOL, .def_n = 1, .help = "also send min_tokens = max_tokens and ignore_eos",
	  AT(ignore_eos) },
	{ "preflight", GL_OPT_BOOL, .def_n = 1, .help = "every endpoint must answer GET /models before the soak",
	  AT(preflight) },
	{ "agents", GL_OPT_CUSTOM, .help = "load agents (docs/agents.md)" },
	{ "adapters", GL_OPT_CUSTOM, .help = "LoRA adapters and their share of the requests" },
	{ "slo", GL_OPT_CUSTOM, .help = "the per-request objective goodput is counted against" },
	{ "sessions", GL_OPT_CUSTOM, .help = "multi-turn conversations: turns, think_time, user_tokens" },
};

static const struct gl_opt arrival[] = {
	{ "mode", GL_OPT_ENUM, 1, .words = arrival_modes, .len = 32, .def_s = "poisson",
	  .help = "poisson, constant, gamma, trace or closed", AT(mode) },
	{ "rate", GL_OPT_CUSTOM, .help = "requests per second, or a rate like \"1200/m\"" },
	{ "cv", GL_OPT_NUMBER, .lo = 0.01, .hi = 100, .def_n = 1, .help = "gamma: coefficient of variation", AT(cv) },
	{ "users", GL_OPT_INT, .lo = 1, .hi = 1e6, .def_n = 1, .help = "closed: concurrent users", AT(users) },
	{ "think_time", GL_OPT_DURATION, .help = "closed: pause between a user's requests", AT(think_ns) },
	{ "speed", GL_OPT_NUMBER, .lo = 1e-6, .hi = 1e6, .def_n = 1, .help = "trace: replay speed", AT(speed) },
	{ "loop", GL_OPT_BOOL, .def_n = 1, .help = "trace: start over at its end", AT(loop) },
	{ "start", GL_OPT_DURATION, .help = "trace: where replay starts", AT(start_ns) },
	{ "end", GL_OPT_DURATION, .help = "trace: where replay ends; 0: its end", AT(end_ns) },
};

static const char *const image_keys[] = { GL_IMAGE_KEYS, NULL };

const struct gl_opt *gl_inference_options(size_t *n)
{
	*n = GL_ARRAY_LEN(section);
	return section;
}

const struct gl_opt *gl_inference_arrival_options(size_t *n)
{
	*n = GL_ARRAY_LEN(arrival);
	return arrival;
}

void gl_inference_opts_read(const cJSON *w, struct gl_inference_opts *o)
{
	gl_opts_fill(w, section, GL_ARRAY_LEN(section), o);
	gl_opts_fill(cJSON_GetObjectItemCaseSensitive(w, "arrival"), arrival, GL_ARRAY_LEN(arrival), o);
}

/* "adapters": [{"model": "sql-lora", "share": 0.2}, ...]: a share of the
 * requests names each adapter (LoRA) instead of "model". */
static void check_adapters(struct gl_diag *d, const cJSON *w, const char *path)
{
	static const char *const keys[] = { "model", "share", NULL };
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(w, "adapters"), *a;
	const char *base = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "model"));
	char p[512], ap[600], buf[256];
	double sum = 0, x;
	int i = 0;

	if (!arr)
		return;
	gl_join(p, sizeof(p), path, "adapters");
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0 || cJSON_GetArraySize(arr) > 16) {
		gl_diag_error(d, arr, p, "expected 1 to 16 objects like {\"model\": \"sql-lora\", \"share\": 0.2}");
		return;
	}
	cJSON_ArrayForEach(a, arr)
	{
		snprintf(ap, sizeof(ap), "%s[%d]", p, i++);
		if (!gl_want_object(d, a, ap))
			continue;
		gl_check_keys(d, a, ap, keys);
		buf[0] = '\0';
		if (gl_get_string(d, a, "model", ap, 1, buf, sizeof(buf)) == 0 && buf[0] && base && !strcmp(buf, base))
			gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(a, "model"), ap,
				      "the adapter's name is the workload's own \"model\" ('%s')", buf);
		x = 0;
		if (!cJSON_GetObjectItemCaseSensitive(a, "share"))
			gl_diag_error(d, a, ap,
				      "missing required key 'share' (the part of the requests that name it, like 0.2)");
		else if (gl_get_number(d, a, "share", ap, 1, 0.0001, 1, &x) == 0)
			sum += x;
	}
	if (sum > 1.0000001)
		gl_diag_error(d, arr, p, "the shares add up to %g, more than 1", sum);
}

/* "slo": {"ttft_ms": X, "tpot_ms": Y}, either may be left out, not both:
 * the per-request objective goodput counts against. */
static void check_slo(struct gl_diag *d, const cJSON *w, const char *path)
{
	static const char *const keys[] = { "ttft_ms", "tpot_ms", NULL };
	const cJSON *slo = cJSON_GetObjectItemCaseSensitive(w, "slo"), *st;
	char p[512];
	double x;

	if (!slo)
		return;
	gl_join(p, sizeof(p), path, "slo");
	if (!gl_want_object(d, slo, p))
		return;
	gl_check_keys(d, slo, p, keys);
	gl_get_number(d, slo, "ttft_ms", p, 0, 0.001, 1e9, &x);
	gl_get_number(d, slo, "tpot_ms", p, 0, 0.001, 1e9, &x);
	if (!cJSON_GetObjectItemCaseSensitive(slo, "ttft_ms") && !cJSON_GetObjectItemCaseSensitive(slo, "tpot_ms"))
		gl_diag_error(d, slo, p,
			      "expected \"ttft_ms\", \"tpot_ms\" or both: the objective a request must meet");
	st = cJSON_GetObjectItemCaseSensitive(w, "stream");
	if (cJSON_GetObjectItemCaseSensitive(slo, "tpot_ms") && cJSON_IsFalse(st))
		gl_diag_error(
			d, cJSON_GetObjectItemCaseSensitive(slo, "tpot_ms"), p,
			"\"tpot_ms\" needs \"stream\": true (without a stream there is no time per output token)");
}

/* "sessions": {"turns": N, "think_time": D, "user_tokens": K}: each
 * arrival a conversation of N turns (inference_sessions.c). */
static void check_sessions(struct gl_diag *d, const cJSON *w, const char *path)
{
	static const char *const keys[] = { "turns", "think_time", "user_tokens", NULL };
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(w, "sessions");
	const char *mode = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(w, "arrival"), "mode"));
	char p[512];
	int64_t ns;
	long n;

	if (!sc)
		return;
	gl_join(p, sizeof(p), path, "sessions");
	if (!gl_want_object(d, sc, p))
		return;
	gl_check_keys(d, sc, p, keys);
	gl_get_int(d, sc, "turns", p, 1, 2, 100, &n);
	gl_get_duration(d, sc, "think_time", p, 0, &ns);
	gl_get_int(d, sc, "user_tokens", p, 0, 1, 100000, &n);
	if (mode && !strcmp(mode, "trace"))
		gl_diag_error(d, sc, p,
			      "sessions take arrivals of mode poisson, constant, gamma or closed, not trace (a trace's "
			      "rows are requests of their own)");
}

static void check_endpoints(const cJSON *w, struct gl_diag *d, const char *path)
{
	const cJSON *eps = cJSON_GetObjectItemCaseSensitive(w, "endpoints"), *e;
	char p[512];

	gl_join(p, sizeof(p), path, "endpoints");
	if (!eps) {
		gl_diag_error(d, w, path, "missing required key 'endpoints' (an array of base URLs)");
	} else if (!cJSON_IsArray(eps) || cJSON_GetArraySize(eps) == 0) {
		gl_diag_error(d, eps, p, "expected a non-empty array of URLs like \"http://host:8000/v1\"");
	} else {
		int i = 0;
		cJSON_ArrayForEach(e, eps)
		{
			char ep[600];
			snprintf(ep, sizeof(ep), "%s[%d]", p, i++);
			if (!cJSON_IsString(e) ||
			    (strncmp(e->valuestring, "http://", 7) && strncmp(e->valuestring, "https://", 8)))
				gl_diag_error(d, e, ep, "expected a URL starting with http:// or https://");
		}
	}
}

/* "arrival": its mode and what the mode needs */
static void check_arrival(const cJSON *w, struct gl_diag *d, const char *path)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(w, "arrival"), *rate;
	char p[512];
	const char *mode;

	gl_join(p, sizeof(p), path, "arrival");
	if (!arr) {
		gl_diag_error(d, w, path,
			      "missing required key 'arrival' (e.g. {\"mode\": \"poisson\", \"rate\": 20})");
		return;
	}
	if (!gl_want_object(d, arr, p))
		return;
	gl_opts_check_keys(d, arr, p, arrival, GL_ARRAY_LEN(arrival), NULL);
	gl_opts_validate(d, arr, p, arrival, GL_ARRAY_LEN(arrival));
	rate = cJSON_GetObjectItemCaseSensitive(arr, "rate");
	if (rate) {
		char rp[600];
		struct gl_err er = { 0 };
		double r;
		snprintf(rp, sizeof(rp), "%s.rate", p);
		if (cJSON_IsNumber(rate)) {
			if (!(rate->valuedouble > 0) || rate->valuedouble > 1e7)
				gl_diag_error(d, rate, rp, "expected a rate above 0 and at most 1e7 per second");
		} else if (!cJSON_IsString(rate) || gl_parse_rate(rate->valuestring, &r, &er) != 0) {
			gl_diag_error(d, rate, rp, "%s", er.code ? er.msg : "expected a rate like 20 or \"1200/m\"");
		} else if (!(r > 0) || r > 1e7) {
			gl_diag_error(d, rate, rp, "expected a rate above 0 and at most 1e7 per second, got '%s'",
				      rate->valuestring);
		}
	}
	/* a mode that is no string of up to 31 bytes was named above:
	 * poisson's needs are checked for it */
	mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(arr, "mode"));
	if (!mode || !mode[0] || strlen(mode) >= 32)
		mode = "poisson";
	if ((!strcmp(mode, "poisson") || !strcmp(mode, "constant") || !strcmp(mode, "gamma")) && !rate)
		gl_diag_error(d, arr, p, "arrival mode '%s' needs \"rate\"", mode);
	if (!strcmp(mode, "gamma") && !cJSON_GetObjectItemCaseSensitive(arr, "cv"))
		gl_diag_error(d, arr, p, "arrival mode 'gamma' needs \"cv\" (coefficient of variation)");
	if (!strcmp(mode, "closed") && !cJSON_GetObjectItemCaseSensitive(arr, "users"))
		gl_diag_error(d, arr, p, "arrival mode 'closed' needs \"users\"");
	if (!strcmp(mode, "trace") && !cJSON_GetObjectItemCaseSensitive(w, "trace"))
		gl_diag_error(d, arr, p, "arrival mode 'trace' needs \"%s.trace\" (a trace file)", path);
}

void gl_inference_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path)
{
	gl_opts_check_keys(d, w, path, section, GL_ARRAY_LEN(section), image_keys);
	gl_image_keys_validate(s, w, d, path);
	gl_check_agents(s, d, w, path);
	check_endpoints(w, d, path);
	gl_opts_validate(d, w, path, section, GL_ARRAY_LEN(section));
	check_adapters(d, w, path);
	check_slo(d, w, path);
	check_sessions(d, w, path);
	check_arrival(w, d, path);
}

/* Judged by its time to first token and its error rate. */
void gl_inference_targets(const cJSON *w, struct gl_target_need *n)
{
	gl_need_require(n, GL_SCOPE_STEADY, "inference.ttft_ms", 0, "inference.ttft_ms.p99", NULL);
	gl_need_require(n, GL_SCOPE_STEADY, "inference.error_rate", 1, "inference.error_rate", NULL);
}
