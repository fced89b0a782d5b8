/*
 * model_swap_validate.c - the model_swap fault kind's params checked, per
 * method (model_swap.c says what each method takes).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bodies.h"
#include "http.h"
#include "params.h"
#include "paths.h"
#include "plan.h"
#include "plugin.h"
#include "model_swap_int.h"

static const char *const ms_keys[][16] = {
	[MS_LORA] = { "adapter", "path", "to_path", "action", "endpoints", "api_key_env", "ca_bundle", "timeout",
		      NULL },
	[MS_K8S] = { "api", "namespace", "deployment", "container", "image", "args", "token_env", "token_file",
		     "ca_bundle", "client_cert", "client_key", "rollout_timeout", "probe", NULL },
	[MS_EXEC] = { "swap", "restore", "probe", "expect", "expect_after", "timeout", NULL },
};

/* ---- value checks ------------------------------------------------------------ */

static int text_ok(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > max)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* http(s)://host[:port][/path], no query, credentials or spaces */
static int url_ok(const char *s)
{
	const char *h;
	if (!text_ok(s, 1000) || !(h = gl_url_after_scheme(s)))
		return 0;
	if (!*h || *h == '/')
		return 0;
	for (; *h; h++)
		if (!isalnum((unsigned char)*h) && !strchr(".-:[]/_~%", *h))
			return 0;
	return 1;
}

/* scheme://host[:port] only (the Kubernetes API server) */
static int api_url_ok(const char *s)
{
	const char *h;
	if (!url_ok(s))
		return 0;
	h = strstr(s, "://") + 3;
	return strchr(h, '/') == NULL;
}

/* A container name (DNS label) */
static int label_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > 63)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '-')
			return 0;
	return 1;
}

static int nonempty(const char *s)
{
	return text_ok(s, 1023);
}

static int path_text_ok(const char *s)
{
	return text_ok(s, 4096);
}

static int name_text_ok(const char *s)
{
	return text_ok(s, 256);
}

static int dur_ok(const char *s)
{
	int64_t ns;
	return s && gl_parse_duration_ns(s, &ns, NULL) == 0 && ns > 0;
}

/* ---- validation -------------------------------------------------------------- */

static void check_str(const cJSON *params, struct gl_diag *d, const char *path, const char *key, int required,
		      int (*ok)(const char *), const char *expected)
{
	const cJSON *v = gl_param(params, key);
	char p[256];

	snprintf(p, sizeof(p), "%s.params.%s", path, key);
	if (!v) {
		if (required)
			gl_diag_error(d, params, p, "missing params.%s: %s", key, expected);
		return;
	}
	if (!cJSON_IsString(v) || !ok(v->valuestring))
		gl_diag_error(d, v, p, "expected %s", expected);
}

static void check_argv(const cJSON *params, struct gl_diag *d, const char *path, const char *key, int required)
{
	gl_params_check_argv(params, d, path, key, required, MS_MAX_ARGS, "model_swap");
}

const char *ms_action_of(const cJSON *params)
{
	const char *a = gl_param_str(params, "action");
	return a ? a : "unload";
}

static void validate_lora(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *v, *it;
	const char *action = ms_action_of(f->params);
	char p[256];

	check_str(f->params, d, path, "adapter", 1, name_text_ok,
		  "the adapter's name as requests give it in \"model\" (1 to 256 characters)");
	check_str(f->params, d, path, "path", 1, path_text_ok,
		  "the adapter's lora_path on the server (loaded from it again on revert)");
	v = gl_param(f->params, "action");
	snprintf(p, sizeof(p), "%s.params.action", path);
	if (v && (!cJSON_IsString(v) || (strcmp(action, "unload") && strcmp(action, "load") && strcmp(action, "swap"))))
		gl_diag_error(d, v, p,
			      "expected \"unload\" (revert loads it again), \"load\" (revert unloads it) or \"swap\" "
			      "(unload, then load from to_path)");
	if (!strcmp(action, "swap"))
		check_str(f->params, d, path, "to_path", 1, path_text_ok, "the new version's lora_path (action swap)");
	else if ((v = gl_param(f->params, "to_path"))) {
		snprintf(p, sizeof(p), "%s.params.to_path", path);
		gl_diag_error(d, v, p, "\"to_path\" applies to \"action\": \"swap\" only");
	}
	v = gl_param(f->params, "endpoints");
	snprintf(p, sizeof(p), "%s.params.endpoints", path);
	if (v) {
		if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > MS_MAX_ENDPOINTS)
			gl_diag_error(d, v, p, "expected 1 to %d base URLs like \"http://10.0.0.5:8000/v1\"",
				      MS_MAX_ENDPOINTS);
		else
			cJSON_ArrayForEach(it, v) if (!cJSON_IsString(it) || !url_ok(it->valuestring))
			{
				gl_diag_error(d, it, p,
					      "expected a base URL like \"http://10.0.0.5:8000/v1\" (http or https, no "
					      "query)");
				break;
			}
	}
	check_str(f->params, d, path, "api_key_env", 0, gl_env_name_ok,
		  "the name of an environment variable holding the API key");
	check_str(f->params, d, path, "ca_bundle", 0, nonempty, "a path to a CA bundle (PEM)");
	check_str(f->params, d, path, "timeout", 0, dur_ok, "a duration like \"60s\" (each request's deadline)");
}

static void validate_k8s(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *v, *probe;
	char p[256];

	check_str(f->params, d, path, "api", 1, api_url_ok,
		  "the API server URL: https://HOST[:PORT] (http:// for a local test server), without a path");
	check_str(f->params, d, path, "namespace", 1, gl_k8s_name_ok,
		  "a namespace name (lowercase letters, digits, '-', '.')");
	check_str(f->params, d, path, "deployment", 1, gl_k8s_name_ok,
		  "a Deployment name (lowercase letters, digits, '-', '.')");
	check_str(f->params, d, path, "container", 0, label_ok, "a container name (lowercase letters, digits and '-')");
	check_str(f->params, d, path, "image", 0, nonempty, "an image reference like \"registry/vllm@sha256:...\"");
	check_argv(f->params, d, path, "args", 0);
	if (!gl_param(f->params, "image") && !gl_param(f->params, "args")) {
		snprintf(p, sizeof(p), "%s.params.image", path);
		gl_diag_error(d, f->params, p,
			      "method kubernetes needs \"image\" or \"args\" (or both): what the swap changes");
	}
	check_str(f->params, d, path, "token_env", 0, gl_env_name_ok,
		  "the name of an environment variable holding the bearer token");
	check_str(f->params, d, path, "token_file", 0, nonempty, "a path to a file holding the bearer token");
	check_str(f->params, d, path, "ca_bundle", 0, nonempty, "a path to a CA bundle (PEM)");
	check_str(f->params, d, path, "client_cert", 0, nonempty, "a path to a client certificate (PEM)");
	check_str(f->params, d, path, "client_key", 0, nonempty, "a path to a client key (PEM)");
	check_str(f->params, d, path, "rollout_timeout", 0, dur_ok, "a duration like \"10m\"");
	gl_params_check_k8s_creds(f->params, d, path);
	if ((probe = gl_param(f->params, "probe"))) {
		static const char *const keys[] = { "url", "model", NULL };
		snprintf(p, sizeof(p), "%s.params.probe", path);
		if (!cJSON_IsObject(probe)) {
			gl_diag_error(d, probe, p,
				      "expected {\"url\": \"http://svc:8000/v1/models\", \"model\": NAME}");
			return;
		}
		gl_params_check_keys(probe, keys, "model_swap probe", d, p);
		snprintf(p, sizeof(p), "%s.params.probe.url", path);
		v = gl_param(probe, "url");
		if (!cJSON_IsString(v) || !url_ok(v->valuestring))
			gl_diag_error(
				d, v ? v : probe, p,
				"expected the URL that says which model serves, like \"http://svc:8000/v1/models\"");
		v = gl_param(probe, "model");
		snprintf(p, sizeof(p), "%s.params.probe.model", path);
		if (v && (!cJSON_IsString(v) || !name_text_ok(v->valuestring)))
			gl_diag_error(d, v, p, "expected the model name the probe must list");
	}
}

void ms_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	enum ms_method m = ms_method_of(f->method);
	char p[256], what[64];

	if (f->dur_ns <= 0) {
		snprintf(p, sizeof(p), "%s.for", path);
		gl_diag_error(d, f->json, p,
			      "kind model_swap needs \"for\": how long the swapped model serves before revert");
	}
	if (!f->params) {
		gl_diag_error(
			d, f->json, path,
			m == MS_LORA ? "method lora needs params with \"adapter\" and \"path\""
			: m == MS_K8S
				? "method kubernetes needs params with \"api\", \"namespace\", \"deployment\" and "
				  "\"image\" or \"args\""
				: "method exec needs params with \"swap\", \"restore\" and \"probe\" argv arrays");
		return;
	}
	snprintf(what, sizeof(what), "model_swap method %s", ms_methods[m]);
	snprintf(p, sizeof(p), "%s.params", path);
	gl_params_check_keys(f->params, ms_keys[m], what, d, p);
	switch (m) {
	case MS_LORA: validate_lora(f, d, path); break;
	case MS_K8S: validate_k8s(f, d, path); break;
	case MS_EXEC:
		check_argv(f->params, d, path, "swap", 1);
		check_argv(f->params, d, path, "restore", 1);
		check_argv(f->params, d, path, "probe", 1);
		check_str(f->params, d, path, "expect", 1, nonempty,
			  "the text the probe prints once the new model serves");
		check_str(f->params, d, path, "expect_after", 1, nonempty,
			  "the text the probe prints once the old model serves again");
		check_str(f->params, d, path, "timeout", 0, dur_ok,
			  "a duration like \"60s\" (each command's deadline)");
		break;
	}
}
