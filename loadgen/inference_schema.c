/*
 * inference_schema.c - the inference workload's section of a scenario
 * ("workloads.inference"): its keys, their types and ranges, and the
 * arrival modes with what each needs. inference.c runs what this accepts.
 */
#include "inference_schema.h"

#include <stdio.h>
#include <string.h>

#include "plugin.h"
#include "schema.h"
#include "units.h"

static const char *const arrival_modes[] = { "poisson", "constant", "gamma", "trace", "closed", NULL };

void gl_inference_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = {
		"endpoints", "api", "model", "api_key_env", "api_key_file", "arrival", "trace",
		"trace_format", "max_in_flight", "timeout", "ttft_timeout", "idle_timeout", "stream",
		"input_tokens", "output_tokens", "seed", "balance", "drop_failed_endpoints",
		"ca_bundle", "http2", "ignore_eos", "preflight", "agents", NULL };
	static const char *const akeys[] = { "mode", "rate", "cv", "users", "think_time", "speed",
					     "loop", "start", "end", NULL };
	static const char *const apis[] = { "chat", "completions", NULL };
	static const char *const bal[] = { "round_robin", "least_in_flight", NULL };
	const cJSON *eps = cJSON_GetObjectItemCaseSensitive(w, "endpoints"), *e, *arr;
	char buf[256], p[512], mode[32] = "poisson", tmp[1024];
	long l;
	int64_t ns;
	double x;
	int b;

	gl_check_keys(d, w, path, keys);
	gl_check_agents(s, d, w, path);
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
	gl_get_enum(d, w, "api", path, 0, apis, buf, sizeof(buf));
	gl_get_string(d, w, "model", path, 1, buf, sizeof(buf));
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

/* Judged by its time to first token and its error rate. */
void gl_inference_targets(const cJSON *w, struct gl_target_need *n)
{
	gl_need_require(n, GL_SCOPE_STEADY, "inference.ttft_ms", 0, "inference.ttft_ms.p99", NULL);
	gl_need_require(n, GL_SCOPE_STEADY, "inference.error_rate", 1, "inference.error_rate", NULL);
}
