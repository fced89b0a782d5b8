/*
 * inference_preflight.c - the inference workload's checks before a run:
 * every endpoint answers (preflight) and the trace has rows to replay
 * (check_files, for validate and run).
 */
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "inference_int.h"
#include "inference_schema.h"
#include "http.h"

static size_t discard_body(char *d, size_t s, size_t n, void *u)
{
	return s * n;
}

/* Every endpoint answers GET {base}/models with 200 within 10 s. A scenario
 * that means to start against a down endpoint says "preflight": false. */
int inf_preflight(struct gl_ctx *c, const cJSON *cfg)
{
	const cJSON *eps = cJSON_GetObjectItemCaseSensitive(cfg, "endpoints"), *e;
	struct curl_slist *auth = NULL;
	struct gl_err err = { 0 };
	char key[4096], hdr[4200];
	struct gl_inference_opts o;
	int bad = 0;

	gl_inference_opts_read(cfg, &o);
	if (!o.preflight) {
		gl_ctx_preflight(c, "inference", "endpoints answer", 1,
				 "not checked: \"preflight\": false in the scenario");
		return 0;
	}
	/* the API key the run will send: an endpoint that wants one answers
	 * /models only with it (vLLM --api-key) */
	if (inf_read_key(c, cfg, key, sizeof(key), &err) != 0)
		return gl_ctx_preflight(c, "inference", "API key readable", 0, err.msg);
	if (key[0]) {
		snprintf(hdr, sizeof(hdr), "Authorization: Bearer %s", key);
		auth = curl_slist_append(NULL, hdr);
		memset(hdr, 0, sizeof(hdr));
		memset(key, 0, sizeof(key));
	}
	cJSON_ArrayForEach(e, eps)
	{
		CURL *h = curl_easy_init();
		char url[1100], detail[300] = "";
		const char *ca = gl_cfg_str(cfg, "ca_bundle", NULL);
		long status = 0;
		CURLcode res;
		size_t l;

		if (!h || !cJSON_IsString(e))
			continue;
		snprintf(url, sizeof(url), "%s", e->valuestring);
		l = strlen(url);
		while (l > 0 && url[l - 1] == '/')
			url[--l] = '\0';
		snprintf(url + l, sizeof(url) - l, "/models");
		curl_easy_setopt(h, CURLOPT_URL, url);
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 10000L);
		curl_easy_setopt(h, CURLOPT_NOBODY, 0L);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard_body);
		if (auth)
			curl_easy_setopt(h, CURLOPT_HTTPHEADER, auth);
		if (ca)
			curl_easy_setopt(h, CURLOPT_CAINFO, ca);
		gl_http_stoppable(h); /* a stop request ends the wait (stop.h) */
		res = curl_easy_perform(h);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
		if (res != CURLE_OK)
			snprintf(detail, sizeof(detail), "%s", curl_easy_strerror(res));
		else if (status != 200)
			snprintf(detail, sizeof(detail), "HTTP %ld", status);
		bad |= gl_ctx_preflight(c, e->valuestring, "answers GET /models", res == CURLE_OK && status == 200,
					detail) != 0;
		curl_easy_cleanup(h);
	}
	curl_slist_free_all(auth); /* libcurl's copy of the key: freed, not wiped (docs/security.md) */
	return bad ? -1 : 0;
}

/* A trace replay needs at least one row it can send: a time at or after
 * arrival.start (and before end), not failed in the original. Without one
 * the replay has nothing to do, or, looping, nothing but rewinds. */
void inf_check_files(const struct gl_scenario *s, const cJSON *cfg, struct gl_diag *d, const char *path)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(cfg, "arrival");
	const cJSON *node = cJSON_GetObjectItemCaseSensitive(cfg, "trace");
	struct gl_inference_opts o;
	double start, end;
	struct gl_err err = { 0 };
	struct gl_trace_row row;
	struct gl_trace *t;
	char resolved[1100], p[300], a[32], b[32];
	uint64_t rows = 0, usable = 0, failed = 0;
	double last = 0;
	int rc;

	gl_inference_opts_read(cfg, &o);
	start = (double)o.start_ns / 1e9;
	end = (double)o.end_ns / 1e9;
	if (o.mode != GL_INF_TRACE || !cJSON_IsString(node) || o.trace_format < 0)
		return;
	snprintf(p, sizeof(p), "%s.trace", path);
	if (gl_path_confine(s->path, s->root, o.trace, resolved, sizeof(resolved), &err) != 0) {
		gl_diag_file(d, node, p, &err);
		return;
	}
	if (!(t = gl_trace_open(resolved, (enum gl_trace_format)o.trace_format, &err))) {
		gl_diag_error(d, node, p, "%s", err.msg);
		return;
	}
	while ((rc = gl_trace_next(t, &row)) > 0) {
		rows++;
		last = row.t_offset_s;
		if (row.failed_in_trace) {
			failed++;
			continue;
		}
		if (row.t_offset_s >= start && (end <= 0 || row.t_offset_s < end))
			usable++;
	}
	if (rc < 0) {
		gl_diag_error(d, node, p, "%s", gl_trace_error(t));
	} else if (!usable) {
		const cJSON *sn = cJSON_GetObjectItemCaseSensitive(arr, "start");
		char e[64] = "";
		snprintf(p, sizeof(p), "%s.arrival%s", path, sn ? ".start" : "");
		gl_format_duration((int64_t)(start * 1e9), a, sizeof(a));
		gl_format_duration((int64_t)(last * 1e9), b, sizeof(b));
		if (end > 0) {
			char x[32];
			gl_format_duration((int64_t)(end * 1e9), x, sizeof(x));
			snprintf(e, sizeof(e), " and before end %s", x);
		}
		gl_diag_error(d, sn ? sn : arr, p,
			      "the trace %s has no row to replay at or after start %s%s: %llu good row(s) spanning "
			      "%s, %llu failed in the original, %llu malformed",
			      o.trace, a, e, (unsigned long long)(rows - failed), b, (unsigned long long)failed,
			      (unsigned long long)gl_trace_malformed_count(t));
	}
	gl_trace_close(t);
}
