/*
 * inference_schema.c - the inference workload's section of a scenario
 * ("workloads.inference"): its keys, their types and ranges, and the
 * arrival modes with what each needs. inference.c runs what this accepts.
 */
#include "inference_schema.h"

#include <stdio.h>
#include <string.h>

#include "image_schema.h"
#include "plugin.h"
#include "schema.h"
#include "units.h"

static const char *const arrival_modes[] = { "poisson", "constant", "gamma", "trace", "closed", NULL };

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
	cJSON_ArrayForEach(a, arr) {
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
			gl_diag_error(d, a, ap, "missing required key 'share' (the part of the requests that name it, like 0.2)");
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
		gl_diag_error(d, slo, p, "expected \"ttft_ms\", \"tpot_ms\" or both: the objective a request must meet");
	st = cJSON_GetObjectItemCaseSensitive(w, "stream");
	if (cJSON_GetObjectItemCaseSensitive(slo, "tpot_ms") && cJSON_IsFalse(st))
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(slo, "tpot_ms"), p,
			      "\"tpot_ms\" needs \"stream\": true (without a stream there is no time per output token)");
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
		cJSON_ArrayForEach(e, eps) {
			char ep[600];
			snprintf(ep, sizeof(ep), "%s[%d]", p, i++);
			if (!cJSON_IsString(e) || (strncmp(e->valuestring, "http://", 7) &&
						   strncmp(e->valuestring, "https://", 8)))
				gl_diag_error(d, e, ep, "expected a URL starting with http:// or https://");
		}
	}
}

/* "arrival": its mode and what the mode needs */
static void check_arrival(const cJSON *w, struct gl_diag *d, const char *path)
{
	static const char *const akeys[] = { "mode", "rate", "cv", "users", "think_time", "speed",
					     "loop", "start", "end", NULL };
	const cJSON *arr;
	char p[512], mode[32] = "poisson";
	long l;
	int64_t ns;
	double x;
	int b;

	arr = cJSON_GetObjectItemCaseSensitive(w, "arrival");
	gl_join(p, sizeof(p), path, "arrival");
	if (!arr) {
		gl_diag_error(d, w, path, "missing required key 'arrival' (e.g. {\"mode\": \"poisson\", \"rate\": 20})");
	} else if (gl_want_object(d, arr, p)) {
		const cJSON *rate = cJSON_GetObjectItemCaseSensitive(arr, "rate");
		gl_check_keys(d, arr, p, akeys);
		gl_get_enum(d, arr, "mode", p, 1, arrival_modes, mode, sizeof(mode));
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
		gl_get_number(d, arr, "cv", p, 0, 0.01, 100, &x);
		gl_get_number(d, arr, "speed", p, 0, 1e-6, 1e6, &x);
		gl_get_int(d, arr, "users", p, 0, 1, 1000000, &l);
		gl_get_duration(d, arr, "think_time", p, 0, &ns);
		gl_get_duration(d, arr, "start", p, 0, &ns);
		gl_get_duration(d, arr, "end", p, 0, &ns);
		gl_get_bool(d, arr, "loop", p, &b);
		if ((!strcmp(mode, "poisson") || !strcmp(mode, "constant") || !strcmp(mode, "gamma")) && !rate)
			gl_diag_error(d, arr, p, "arrival mode '%s' needs \"rate\"", mode);
		if (!strcmp(mode, "gamma") && !cJSON_GetObjectItemCaseSensitive(arr, "cv"))
			gl_diag_error(d, arr, p, "arrival mode 'gamma' needs \"cv\" (coefficient of variation)");
		if (!strcmp(mode, "closed") && !cJSON_GetObjectItemCaseSensitive(arr, "users"))
			gl_diag_error(d, arr, p, "arrival mode 'closed' needs \"users\"");
		if (!strcmp(mode, "trace") && !cJSON_GetObjectItemCaseSensitive(w, "trace"))
			gl_diag_error(d, arr, p, "arrival mode 'trace' needs \"%s.trace\" (a trace file)", path);
	}
}

void gl_inference_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = {
		"endpoints", "api", "model", "api_key_env", "api_key_file", "arrival", "trace",
		"trace_format", "max_in_flight", "timeout", "ttft_timeout", "idle_timeout", "stream",
		"input_tokens", "output_tokens", "seed", "balance", "drop_failed_endpoints",
		"ca_bundle", "http2", "ignore_eos", "preflight", "agents", "adapters", "slo", GL_IMAGE_KEYS, NULL };
	static const char *const apis[] = { "chat", "completions", NULL };
	static const char *const bal[] = { "round_robin", "least_in_flight", NULL };
	char buf[256], tmp[1024];
	long l;
	int64_t ns;
	int b;

	gl_check_keys(d, w, path, keys);
	gl_image_keys_validate(s, w, d, path);
	gl_check_agents(s, d, w, path);
	check_endpoints(w, d, path);
	gl_get_enum(d, w, "api", path, 0, apis, buf, sizeof(buf));
	gl_get_string(d, w, "model", path, 1, buf, sizeof(buf));
	check_adapters(d, w, path);
	check_slo(d, w, path);
	gl_get_string(d, w, "api_key_env", path, 0, buf, sizeof(buf));
	gl_get_string(d, w, "api_key_file", path, 0, tmp, sizeof(tmp));
	gl_get_string(d, w, "trace", path, 0, tmp, sizeof(tmp));
	{
		static const char *const formats[] = { "auto", "azure", "burstgpt", "mooncake", "prompts", NULL };
		gl_get_enum(d, w, "trace_format", path, 0, formats, buf, sizeof(buf));
	}
	gl_get_string(d, w, "ca_bundle", path, 0, tmp, sizeof(tmp));
	gl_get_int(d, w, "max_in_flight", path, 0, 1, 1000000, &l);
	gl_get_int(d, w, "input_tokens", path, 0, 1, 10000000, &l);
	gl_get_int(d, w, "output_tokens", path, 0, 1, 10000000, &l);
	gl_get_int(d, w, "seed", path, 0, 0, 9007199254740991L, &l);
	gl_get_duration(d, w, "timeout", path, 0, &ns);
	gl_get_duration(d, w, "ttft_timeout", path, 0, &ns);
	gl_get_duration(d, w, "idle_timeout", path, 0, &ns);
	gl_get_bool(d, w, "stream", path, &b);
	gl_get_bool(d, w, "http2", path, &b);
	gl_get_bool(d, w, "ignore_eos", path, &b);
	gl_get_bool(d, w, "drop_failed_endpoints", path, &b);
	gl_get_bool(d, w, "preflight", path, &b);
	gl_get_enum(d, w, "balance", path, 0, bal, buf, sizeof(buf));
	check_arrival(w, d, path);
}

/* Judged by its time to first token and its error rate. */
void gl_inference_targets(const cJSON *w, struct gl_target_need *n)
{
	gl_need_require(n, GL_SCOPE_STEADY, "inference.ttft_ms", 0, "inference.ttft_ms.p99", NULL);
	gl_need_require(n, GL_SCOPE_STEADY, "inference.error_rate", 1, "inference.error_rate", NULL);
}
