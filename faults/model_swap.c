/*
 * model_swap.c - the model_swap fault kind: the serving side changes the
 * model while the load runs; recovery is measured as for every fault.
 * Needs "for": how long the swapped state lasts before revert.
 *
 * lora (vLLM's runtime adapter API, VLLM_ALLOW_RUNTIME_LORA_UPDATING):
 *   params {"adapter": NAME, "path": P, "action": "unload" | "load" | "swap",
 *   "to_path": P2 (swap), "endpoints": [base URLs like "http://h:8000/v1"]
 *   (default: the inference workload's), "api_key_env": VAR (default: the
 *   inference workload's), "ca_bundle": PATH, "timeout": "60s"}.
 *     unload  inject POSTs /unload_lora_adapter {"lora_name"} to every
 *             endpoint, revert loads it again from P;
 *     load    inject POSTs /load_lora_adapter {"lora_name","lora_path": P},
 *             revert unloads it;
 *     swap    inject unloads it and loads it again from P2 (a new version
 *             under the same name: requests to it fail in between), revert
 *             does the same back to P.
 *   An unload answered 404 (not loaded) and a load answered "has already
 *   been loaded" count as done, so every step may run twice. verify and
 *   verify_revert read GET /models: the adapter listed or not, with the
 *   expected root (the path) when the server shows one. Measured: the
 *   slowest endpoint's load ("adapter_load_s") and, for swap, the time the
 *   adapter was gone ("adapter_gone_s"). The inference workload sends a
 *   share of its requests to the adapter with its "adapters" key; a
 *   request naming a model the server no longer has is counted in its own
 *   error class, model_not_found.
 *
 * kubernetes: params {"api": "https://HOST:6443", "namespace": NS,
 *   "deployment": NAME, "container": C (default: the only one), "image":
 *   IMG and/or "args": [..], "token_env" | "token_file", "ca_bundle",
 *   "client_cert", "client_key", "rollout_timeout": "10m", "probe": {"url":
 *   "http://svc:8000/v1/models", "model": NAME}}. inject GETs the
 *   Deployment and sends one JSON Patch (application/json-patch+json) that
 *   tests its resourceVersion, keeps the current pod template in the
 *   annotation gauntlet.dev/previous-template (with the fault's id in
 *   gauntlet.dev/fault) and replaces the container's image or args: the
 *   template to restore lives in the cluster, written in the same atomic
 *   update as the change, so revert needs nothing from this process. A
 *   second inject (after a crash) keeps the annotation it finds for its own
 *   fault id. verify follows the rollout the way `kubectl rollout status`
 *   does (observedGeneration caught up, every replica updated and
 *   available, no old one left; ProgressDeadlineExceeded fails at once),
 *   then the probe: the URL answers 200 and, with "model", lists it.
 *   revert replaces spec.template with the annotation's and removes the
 *   annotations (one JSON Patch that tests the annotation first); without
 *   the annotation there is nothing to restore. verify_revert follows that
 *   rollout and probes again. Measured: "rollout_s" of each. Tested against
 *   tests/scripts/k8s_deploy_mock.py, a server that checks every request.
 *
 * exec: params {"swap": argv, "restore": argv, "probe": argv, "expect":
 *   TEXT, "expect_after": TEXT, "timeout": "60s"} on the target host: the
 *   operator's own commands. verify runs probe until its output holds
 *   expect (the model that should now serve), verify_revert until it holds
 *   expect_after.
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

#define MS_MAX_ENDPOINTS 64
#define MS_MAX_ARGS 64
#define MS_POLL_NS (200LL * 1000000LL)
#define MS_VERIFY_WAIT_NS (30LL * 1000000000LL)
#define MS_DEF_TIMEOUT_NS (60LL * 1000000000LL)
#define MS_DEF_ROLLOUT_NS (600LL * 1000000000LL)
#define MS_ANN_TEMPLATE "gauntlet.dev/previous-template"
#define MS_ANN_FAULT "gauntlet.dev/fault"
/* the same keys as JSON Pointer tokens ('/' is "~1") */
#define MS_PTR_TEMPLATE "/metadata/annotations/gauntlet.dev~1previous-template"
#define MS_PTR_FAULT "/metadata/annotations/gauntlet.dev~1fault"

enum ms_method { MS_LORA, MS_K8S, MS_EXEC };

static const char *const ms_methods[] = { "lora", "kubernetes", "exec", NULL };
static const char *const ms_keys[][16] = {
	[MS_LORA] = { "adapter", "path", "to_path", "action", "endpoints", "api_key_env", "ca_bundle", "timeout", NULL },
	[MS_K8S] = { "api", "namespace", "deployment", "container", "image", "args", "token_env", "token_file",
		     "ca_bundle", "client_cert", "client_key", "rollout_timeout", "probe", NULL },
	[MS_EXEC] = { "swap", "restore", "probe", "expect", "expect_after", "timeout", NULL },
};

static enum ms_method method_of(const char *m)
{
	return m && !strcmp(m, "kubernetes") ? MS_K8S : m && !strcmp(m, "exec") ? MS_EXEC : MS_LORA;
}

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

static const char *action_of(const cJSON *params)
{
	const char *a = gl_param_str(params, "action");
	return a ? a : "unload";
}

static void validate_lora(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *v, *it;
	const char *action = action_of(f->params);
	char p[256];

	check_str(f->params, d, path, "adapter", 1, name_text_ok,
		  "the adapter's name as requests give it in \"model\" (1 to 256 characters)");
	check_str(f->params, d, path, "path", 1, path_text_ok,
		  "the adapter's lora_path on the server (loaded from it again on revert)");
	v = gl_param(f->params, "action");
	snprintf(p, sizeof(p), "%s.params.action", path);
	if (v && (!cJSON_IsString(v) || (strcmp(action, "unload") && strcmp(action, "load") && strcmp(action, "swap"))))
		gl_diag_error(d, v, p, "expected \"unload\" (revert loads it again), \"load\" (revert unloads it) or \"swap\" "
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
			gl_diag_error(d, v, p, "expected 1 to %d base URLs like \"http://10.0.0.5:8000/v1\"", MS_MAX_ENDPOINTS);
		else
			cJSON_ArrayForEach(it, v)
				if (!cJSON_IsString(it) || !url_ok(it->valuestring)) {
					gl_diag_error(d, it, p, "expected a base URL like \"http://10.0.0.5:8000/v1\" (http or https, no query)");
					break;
				}
	}
	check_str(f->params, d, path, "api_key_env", 0, gl_env_name_ok, "the name of an environment variable holding the API key");
	check_str(f->params, d, path, "ca_bundle", 0, nonempty, "a path to a CA bundle (PEM)");
	check_str(f->params, d, path, "timeout", 0, dur_ok, "a duration like \"60s\" (each request's deadline)");
}

static void validate_k8s(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *v, *probe;
	char p[256];

	check_str(f->params, d, path, "api", 1, api_url_ok,
		  "the API server URL: https://HOST[:PORT] (http:// for a local test server), without a path");
	check_str(f->params, d, path, "namespace", 1, gl_k8s_name_ok, "a namespace name (lowercase letters, digits, '-', '.')");
	check_str(f->params, d, path, "deployment", 1, gl_k8s_name_ok, "a Deployment name (lowercase letters, digits, '-', '.')");
	check_str(f->params, d, path, "container", 0, label_ok, "a container name (lowercase letters, digits and '-')");
	check_str(f->params, d, path, "image", 0, nonempty, "an image reference like \"registry/vllm@sha256:...\"");
	check_argv(f->params, d, path, "args", 0);
	if (!gl_param(f->params, "image") && !gl_param(f->params, "args")) {
		snprintf(p, sizeof(p), "%s.params.image", path);
		gl_diag_error(d, f->params, p, "method kubernetes needs \"image\" or \"args\" (or both): what the swap changes");
	}
	check_str(f->params, d, path, "token_env", 0, gl_env_name_ok, "the name of an environment variable holding the bearer token");
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
			gl_diag_error(d, probe, p, "expected {\"url\": \"http://svc:8000/v1/models\", \"model\": NAME}");
			return;
		}
		gl_params_check_keys(probe, keys, "model_swap probe", d, p);
		snprintf(p, sizeof(p), "%s.params.probe.url", path);
		v = gl_param(probe, "url");
		if (!cJSON_IsString(v) || !url_ok(v->valuestring))
			gl_diag_error(d, v ? v : probe, p, "expected the URL that says which model serves, like \"http://svc:8000/v1/models\"");
		v = gl_param(probe, "model");
		snprintf(p, sizeof(p), "%s.params.probe.model", path);
		if (v && (!cJSON_IsString(v) || !name_text_ok(v->valuestring)))
			gl_diag_error(d, v, p, "expected the model name the probe must list");
	}
}

static void ms_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	enum ms_method m = method_of(f->method);
	char p[256], what[64];

	if (f->dur_ns <= 0) {
		snprintf(p, sizeof(p), "%s.for", path);
		gl_diag_error(d, f->json, p, "kind model_swap needs \"for\": how long the swapped model serves before revert");
	}
	if (!f->params) {
		gl_diag_error(d, f->json, path,
			      m == MS_LORA ? "method lora needs params with \"adapter\" and \"path\""
			      : m == MS_K8S ? "method kubernetes needs params with \"api\", \"namespace\", \"deployment\" and \"image\" or \"args\""
					    : "method exec needs params with \"swap\", \"restore\" and \"probe\" argv arrays");
		return;
	}
	snprintf(what, sizeof(what), "model_swap method %s", ms_methods[m]);
	snprintf(p, sizeof(p), "%s.params", path);
	gl_params_check_keys(f->params, ms_keys[m], what, d, p);
	switch (m) {
	case MS_LORA:
		validate_lora(f, d, path);
		break;
	case MS_K8S:
		validate_k8s(f, d, path);
		break;
	case MS_EXEC:
		check_argv(f->params, d, path, "swap", 1);
		check_argv(f->params, d, path, "restore", 1);
		check_argv(f->params, d, path, "probe", 1);
		check_str(f->params, d, path, "expect", 1, nonempty, "the text the probe prints once the new model serves");
		check_str(f->params, d, path, "expect_after", 1, nonempty, "the text the probe prints once the old model serves again");
		check_str(f->params, d, path, "timeout", 0, dur_ok, "a duration like \"60s\" (each command's deadline)");
		break;
	}
}

/* ---- plan -------------------------------------------------------------------- */

static const cJSON *inference_cfg(const struct gl_scenario *s)
{
	for (int i = 0; i < s->n_workloads; i++)
		if (!strcmp(s->workloads[i].name, "inference"))
			return s->workloads[i].cfg;
	return NULL;
}

static int is_file_param(const char *key)
{
	return !strcmp(key, "token_file") || !strcmp(key, "ca_bundle") || !strcmp(key, "client_cert") ||
	       !strcmp(key, "client_key");
}

/* Copy params[key] into the plan; files confined (paths.h) and kept by
 * their resolved path, so revert reads what inject read. */
static int copy_param(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON *p, const char *key,
		      struct gl_err *err)
{
	const cJSON *v = gl_param(f->params, key);
	char real[1100];
	struct gl_err e = { 0 };

	if (!v)
		return 0;
	if (!is_file_param(key) || !cJSON_IsString(v)) {
		cJSON_AddItemToObject(p, key, cJSON_Duplicate(v, 1));
		return 0;
	}
	if (gl_path_confine(s->path, s->root, v->valuestring, real, sizeof(real), &e) != 0)
		return gl_errf(err, GL_EINVAL, "model_swap '%s': %s: %s", f->id, key, e.msg);
	cJSON_AddStringToObject(p, key, real);
	return 0;
}

static void ms_check_files(const struct gl_scenario *s, const struct gl_fault_spec *f, struct gl_diag *d,
			   const char *path)
{
	static const char *const keys[] = { "token_file", "ca_bundle", "client_cert", "client_key", NULL };
	char p[300];

	for (int i = 0; keys[i]; i++) {
		const cJSON *v = gl_param(f->params, keys[i]);
		char real[1100];
		struct gl_err e = { 0 };
		if (!cJSON_IsString(v) || gl_path_confine(s->path, s->root, v->valuestring, real, sizeof(real), &e) == 0)
			continue;
		snprintf(p, sizeof(p), "%s.params.%s", path, keys[i]);
		gl_diag_file(d, v, p, &e);
	}
	if (method_of(f->method) == MS_LORA && !gl_param(f->params, "endpoints")) {
		const cJSON *inf = inference_cfg(s);
		snprintf(p, sizeof(p), "%s.params.endpoints", path);
		if (!inf || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(inf, "endpoints")))
			gl_diag_error(d, f->json, p, "method lora without \"endpoints\" takes the inference workload's, and "
						     "this scenario has no inference workload with endpoints");
	}
}

static int ms_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	enum ms_method m = method_of(f->method);
	cJSON *p;

	if (!h)
		return gl_errf(err, GL_EINVAL, "model_swap: unknown host '%s'", f->target);
	if (!(p = cJSON_CreateObject()))
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(p, "id", f->id);
	cJSON_AddStringToObject(p, "method", ms_methods[m]);
	gl_plan_put_host(p, h);
	switch (m) {
	case MS_LORA: {
		static const char *const copy[] = { "adapter", "path", "to_path", "ca_bundle", NULL };
		const cJSON *inf = inference_cfg(s), *eps = gl_param(f->params, "endpoints");
		const char *key_env = gl_param_str(f->params, "api_key_env");
		if (!eps && inf)
			eps = cJSON_GetObjectItemCaseSensitive(inf, "endpoints");
		if (!key_env && inf && !gl_param(f->params, "endpoints"))
			key_env = gl_param_str(inf, "api_key_env");
		if (!cJSON_IsArray(eps) || cJSON_GetArraySize(eps) == 0) {
			cJSON_Delete(p);
			return gl_errf(err, GL_EINVAL, "model_swap '%s': no endpoints (params.endpoints, or the inference workload's)", f->id);
		}
		for (int i = 0; copy[i]; i++)
			if (copy_param(s, f, p, copy[i], err)) {
				cJSON_Delete(p);
				return -GL_EINVAL;
			}
		cJSON_AddStringToObject(p, "action", action_of(f->params));
		cJSON_AddItemToObject(p, "endpoints", cJSON_Duplicate(eps, 1));
		if (key_env)
			cJSON_AddStringToObject(p, "api_key_env", key_env);
		cJSON_AddNumberToObject(p, "timeout_ms", (double)(gl_param_dur_ns(f->params, "timeout", MS_DEF_TIMEOUT_NS) / 1000000));
		break;
	}
	case MS_K8S: {
		static const char *const copy[] = { "api", "namespace", "deployment", "container", "image", "args", "token_env",
						    "token_file", "ca_bundle", "client_cert", "client_key", "probe", NULL };
		for (int i = 0; copy[i]; i++)
			if (copy_param(s, f, p, copy[i], err)) {
				cJSON_Delete(p);
				return -GL_EINVAL;
			}
		cJSON_AddNumberToObject(p, "rollout_ms",
					(double)(gl_param_dur_ns(f->params, "rollout_timeout", MS_DEF_ROLLOUT_NS) / 1000000));
		break;
	}
	case MS_EXEC: {
		static const char *const copy[] = { "swap", "restore", "probe", "expect", "expect_after", "timeout", NULL };
		for (int i = 0; copy[i]; i++)
			copy_param(s, f, p, copy[i], err);
		break;
	}
	}
	*plan = p;
	return 0;
}

/* ---- lora -------------------------------------------------------------------- */

static void lora_opts(const cJSON *plan, struct gl_http_opts *o)
{
	const cJSON *t = gl_param(plan, "timeout_ms");
	memset(o, 0, sizeof(*o));
	o->token_env = gl_param_str(plan, "api_key_env");
	o->ca_bundle = gl_param_str(plan, "ca_bundle");
	o->deadline_ms = cJSON_IsNumber(t) && t->valuedouble > 0 ? (int64_t)t->valuedouble : 60000;
	o->max_body = 4u << 20;
}

/* The first 200 bytes of a reply, on one line, for messages. */
static void snippet(const struct gl_buf *b, char *out, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; b->data && i < b->len && k + 1 < n && k < 200; i++)
		out[k++] = (unsigned char)b->data[i] < 0x20 ? ' ' : b->data[i];
	out[k] = '\0';
}

/* POST /load_lora_adapter or /unload_lora_adapter on one endpoint. Done:
 * 200; an unload answered 404 (it is not loaded) and a load answered 400
 * "already been loaded" (it is) count as done too. */
static int lora_post(const cJSON *plan, const char *ep, int load, const char *lora_path, struct gl_err *err)
{
	struct gl_http_opts o;
	struct gl_http_resp r = { 0 };
	cJSON *b = cJSON_CreateObject();
	char url[1200], why[256];
	char *body;
	int rc;

	cJSON_AddStringToObject(b, "lora_name", gl_param_str(plan, "adapter"));
	if (load)
		cJSON_AddStringToObject(b, "lora_path", lora_path);
	body = cJSON_PrintUnformatted(b);
	cJSON_Delete(b);
	if (!body)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	lora_opts(plan, &o);
	snprintf(url, sizeof(url), "%s/%s_lora_adapter", ep, load ? "load" : "unload");
	rc = gl_http_do("POST", url, "application/json", body, &o, &r, err);
	free(body);
	if (rc == 0 && r.status != 200) {
		snippet(&r.body, why, sizeof(why));
		if (!load && r.status == 404)
			gl_info("model_swap '%s': %s: adapter '%s' was not loaded (404)", gl_param_str(plan, "id"), ep,
				gl_param_str(plan, "adapter"));
		else if (load && r.status == 400 && strstr(why, "already been loaded"))
			gl_info("model_swap '%s': %s: adapter '%s' was loaded already", gl_param_str(plan, "id"), ep,
				gl_param_str(plan, "adapter"));
		else
			rc = gl_errf(err, GL_EIO, "model_swap '%s': POST %s answered %ld: %s", gl_param_str(plan, "id"), url,
				     r.status, why);
	}
	gl_buf_free(&r.body);
	return rc;
}

/* Every endpoint; the slowest one's time into *slowest_s. */
static int lora_all(const cJSON *plan, int load, const char *lora_path, double *slowest_s, struct gl_err *err)
{
	const cJSON *ep;
	double slowest = 0;

	cJSON_ArrayForEach(ep, gl_param(plan, "endpoints")) {
		int64_t t0 = gl_now_ns();
		int rc;
		if (!cJSON_IsString(ep))
			return gl_errf(err, GL_EINVAL, "model_swap: bad endpoint in the plan");
		rc = lora_post(plan, ep->valuestring, load, lora_path, err);
		if (rc)
			return rc;
		if ((double)(gl_now_ns() - t0) / 1e9 > slowest)
			slowest = (double)(gl_now_ns() - t0) / 1e9;
	}
	if (slowest_s)
		*slowest_s = slowest;
	return 0;
}

/* The adapter on one endpoint per GET /models: 1 listed (with *root_ok
 * when its root is lora_path or the server shows none), 0 not listed. */
static int lora_listed(const cJSON *plan, const char *ep, const char *lora_path, int *listed, int *root_ok,
		       struct gl_err *err)
{
	struct gl_http_opts o;
	struct gl_http_resp r = { 0 };
	char url[1200];
	cJSON *j = NULL;
	int rc;

	lora_opts(plan, &o);
	snprintf(url, sizeof(url), "%s/models", ep);
	rc = gl_http_do("GET", url, NULL, NULL, &o, &r, err);
	if (rc == 0 && r.status != 200)
		rc = gl_errf(err, GL_EIO, "model_swap: GET %s answered %ld", url, r.status);
	if (rc == 0 && !(j = cJSON_ParseWithLength(r.body.data ? r.body.data : "", r.body.len)))
		rc = gl_errf(err, GL_EIO, "model_swap: GET %s: the reply is not JSON", url);
	*listed = 0;
	*root_ok = 0;
	if (rc == 0)
		*listed = gl_oai_models_has(j, gl_param_str(plan, "adapter"), lora_path, root_ok);
	cJSON_Delete(j);
	gl_buf_free(&r.body);
	return rc;
}

/* Wait until every endpoint lists the adapter (want 1, from lora_path) or
 * none does (want 0). */
static int lora_wait(const cJSON *plan, int want, const char *lora_path, struct gl_err *err)
{
	int64_t end = gl_now_ns() + MS_VERIFY_WAIT_NS;

	for (;;) {
		const cJSON *ep;
		struct gl_err e = { 0 };
		const char *bad = NULL;
		int listed = 0, root_ok = 0, rc = 0;
		cJSON_ArrayForEach(ep, gl_param(plan, "endpoints")) {
			rc = lora_listed(plan, ep->valuestring, lora_path, &listed, &root_ok, &e);
			if (rc || listed != want || (want && !root_ok)) {
				bad = ep->valuestring;
				break;
			}
		}
		if (!bad)
			return 0;
		if (gl_now_ns() >= end)
			return rc ? gl_errf(err, e.code, "%s", e.msg)
				  : gl_errf(err, GL_EIO, "model_swap '%s': %s/models %s adapter '%s'%s", gl_param_str(plan, "id"), bad,
					    listed ? "still lists" : "does not list", gl_param_str(plan, "adapter"),
					    listed && want && !root_ok ? " from the expected path" : "");
		gl_sleep_ns(MS_POLL_NS);
	}
}

static int lora_step(const cJSON *plan, int inject, struct gl_err *err)
{
	const char *action = gl_param_str(plan, "action"), *path = gl_param_str(plan, "path");
	const char *to = gl_param_str(plan, "to_path");
	double s = 0;
	int64_t t0;
	int rc;

	if (!action || !path)
		return gl_errf(err, GL_EINVAL, "model_swap: the plan has no action or path");
	if (!strcmp(action, "unload") || !strcmp(action, "load")) {
		int load = (strcmp(action, "load") == 0) == inject;   /* unload: inject unloads, revert loads */
		rc = lora_all(plan, load, path, &s, err);
		if (rc == 0 && load)
			gl_fault_measure(NULL, "adapter_load_s", s);
		return rc;
	}
	/* swap: gone from the unload's start until the last load answered */
	t0 = gl_now_ns();
	rc = lora_all(plan, 0, NULL, NULL, err);
	if (rc == 0)
		rc = lora_all(plan, 1, inject ? to : path, &s, err);
	if (rc == 0) {
		gl_fault_measure(NULL, "adapter_load_s", s);
		gl_fault_measure(NULL, "adapter_gone_s", (double)(gl_now_ns() - t0) / 1e9);
	}
	return rc;
}

static int lora_check(const cJSON *plan, int after_inject, struct gl_err *err)
{
	const char *action = gl_param_str(plan, "action");
	int want = action && !strcmp(action, "unload") ? !after_inject
		 : action && !strcmp(action, "load") ? after_inject : 1;
	const char *from = action && !strcmp(action, "swap") && after_inject ? gl_param_str(plan, "to_path")
										: gl_param_str(plan, "path");
	return lora_wait(plan, want, from, err);
}

/* ---- kubernetes -------------------------------------------------------------- */

static void k8s_opts(const cJSON *plan, struct gl_http_opts *o)
{
	gl_k8s_http_opts(plan, o, 15000, 8u << 20);
}

static void deploy_path(const cJSON *plan, char *out, size_t n)
{
	snprintf(out, n, "/apis/apps/v1/namespaces/%s/deployments/%s", gl_param_str(plan, "namespace"),
		 gl_param_str(plan, "deployment"));
}

/* One request to the API server; *json the parsed reply (caller deletes). */
static int k8s_req(const cJSON *plan, const char *method, const char *ctype, const char *body, long *status, cJSON **json,
		   struct gl_err *err)
{
	struct gl_http_opts o;
	struct gl_http_resp r = { 0 };
	char url[1200], path[600];
	int rc;

	k8s_opts(plan, &o);
	deploy_path(plan, path, sizeof(path));
	snprintf(url, sizeof(url), "%s%s", gl_param_str(plan, "api"), path);
	rc = gl_http_do(method, url, ctype, body, &o, &r, err);
	*status = r.status;
	*json = rc == 0 && r.body.data ? cJSON_ParseWithLength(r.body.data, r.body.len) : NULL;
	if (rc == 0 && !*json && r.status / 100 == 2)
		rc = gl_errf(err, GL_EIO, "model_swap: %s %s: the reply is not JSON", method, path);
	gl_buf_free(&r.body);
	return rc;
}

static int k8s_get(const cJSON *plan, cJSON **dep, struct gl_err *err)
{
	char why[300], path[600];
	long st = 0;
	int rc = k8s_req(plan, "GET", NULL, NULL, &st, dep, err);

	if (rc == 0 && st != 200) {
		gl_k8s_status_why(*dep, why, sizeof(why));
		deploy_path(plan, path, sizeof(path));
		rc = gl_errf(err, GL_EIO, "model_swap: GET %s answered %ld%s%s", path, st, why[0] ? " " : "", why);
	}
	if (rc) {
		cJSON_Delete(*dep);
		*dep = NULL;
	}
	return rc;
}

static int k8s_patch(const cJSON *plan, cJSON *ops, const char *what, struct gl_err *err)
{
	char *text = cJSON_PrintUnformatted(ops);
	char why[300], path[600];
	cJSON *j = NULL;
	long st = 0;
	int rc;

	if (!text)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	rc = k8s_req(plan, "PATCH", "application/json-patch+json", text, &st, &j, err);
	free(text);
	if (rc == 0 && st / 100 != 2) {
		gl_k8s_status_why(j, why, sizeof(why));
		deploy_path(plan, path, sizeof(path));
		rc = gl_errf(err, GL_EIO, "model_swap: %s: PATCH %s answered %ld%s%s", what, path, st, why[0] ? " " : "", why);
	}
	cJSON_Delete(j);
	return rc;
}

static const cJSON *dig(const cJSON *o, const char *a, const char *b, const char *c)
{
	o = gl_param(o, a);
	if (b)
		o = gl_param(o, b);
	if (c)
		o = gl_param(o, c);
	return o;
}

static int container_index(const cJSON *plan, const cJSON *dep)
{
	return gl_k8s_container_index(dep, gl_param_str(plan, "container"));
}

static cJSON *op(const char *name, const char *path, cJSON *value)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "op", name);
	cJSON_AddStringToObject(o, "path", path);
	if (value)
		cJSON_AddItemToObject(o, "value", value);
	return o;
}

static int k8s_inject(const cJSON *plan, struct gl_err *err)
{
	const char *id = gl_param_str(plan, "id");
	cJSON *dep = NULL, *ops;
	const cJSON *ann, *owner, *tmpl, *rv;
	char p[200], *saved;
	int rc = k8s_get(plan, &dep, err), idx;

	if (rc)
		return rc;
	idx = container_index(plan, dep);
	tmpl = dig(dep, "spec", "template", NULL);
	rv = dig(dep, "metadata", "resourceVersion", NULL);
	ann = dig(dep, "metadata", "annotations", NULL);
	owner = gl_param(ann, MS_ANN_FAULT);
	if (idx < 0 || !cJSON_IsObject(tmpl) || !cJSON_IsString(rv)) {
		rc = gl_errf(err, GL_EIO, "model_swap '%s': deployment %s/%s has %s", id, gl_param_str(plan, "namespace"),
			     gl_param_str(plan, "deployment"),
			     idx < 0 ? (gl_param_str(plan, "container") ? "no container of that name" : "more than one container: name one in params.container")
				     : "no spec.template or resourceVersion");
		cJSON_Delete(dep);
		return rc;
	}
	if (gl_param(ann, MS_ANN_TEMPLATE) && !(cJSON_IsString(owner) && !strcmp(owner->valuestring, id))) {
		rc = gl_errf(err, GL_EIO, "model_swap '%s': deployment %s/%s already carries %s of fault '%s': "
					  "another swap is on (or was never reverted); not touching it",
			     id, gl_param_str(plan, "namespace"), gl_param_str(plan, "deployment"), MS_ANN_TEMPLATE,
			     cJSON_IsString(owner) ? owner->valuestring : "?");
		cJSON_Delete(dep);
		return rc;
	}
	ops = cJSON_CreateArray();
	cJSON_AddItemToArray(ops, op("test", "/metadata/resourceVersion", cJSON_CreateString(rv->valuestring)));
	if (!gl_param(ann, MS_ANN_TEMPLATE)) {
		/* the template as it is now, kept in the same update as the change */
		saved = cJSON_PrintUnformatted(tmpl);
		if (!cJSON_IsObject(ann)) {
			cJSON *a = cJSON_CreateObject();
			cJSON_AddStringToObject(a, MS_ANN_TEMPLATE, saved ? saved : "");
			cJSON_AddStringToObject(a, MS_ANN_FAULT, id);
			cJSON_AddItemToArray(ops, op("add", "/metadata/annotations", a));
		} else {
			cJSON_AddItemToArray(ops, op("add", MS_PTR_TEMPLATE, cJSON_CreateString(saved ? saved : "")));
			cJSON_AddItemToArray(ops, op("add", MS_PTR_FAULT, cJSON_CreateString(id)));
		}
		free(saved);
	}
	if (gl_param_str(plan, "image")) {
		snprintf(p, sizeof(p), "/spec/template/spec/containers/%d/image", idx);
		cJSON_AddItemToArray(ops, op("replace", p, cJSON_CreateString(gl_param_str(plan, "image"))));
	}
	if (gl_param(plan, "args")) {
		snprintf(p, sizeof(p), "/spec/template/spec/containers/%d/args", idx);
		cJSON_AddItemToArray(ops, op("add", p, cJSON_Duplicate(gl_param(plan, "args"), 1)));
	}
	cJSON_Delete(dep);
	rc = k8s_patch(plan, ops, "swap", err);
	cJSON_Delete(ops);
	return rc;
}

static int k8s_revert(const cJSON *plan, struct gl_err *err)
{
	cJSON *dep = NULL, *ops, *tmpl;
	const cJSON *saved;
	int rc = k8s_get(plan, &dep, err);

	if (rc)
		return rc;
	saved = gl_param(dig(dep, "metadata", "annotations", NULL), MS_ANN_TEMPLATE);
	if (!saved) {
		gl_info("model_swap '%s': deployment %s/%s has no %s: nothing to restore", gl_param_str(plan, "id"),
			gl_param_str(plan, "namespace"), gl_param_str(plan, "deployment"), MS_ANN_TEMPLATE);
		cJSON_Delete(dep);
		return 0;
	}
	tmpl = cJSON_IsString(saved) ? cJSON_Parse(saved->valuestring) : NULL;
	if (!cJSON_IsObject(tmpl)) {
		cJSON_Delete(tmpl);
		cJSON_Delete(dep);
		return gl_errf(err, GL_EIO, "model_swap '%s': the annotation %s is not a pod template: restore it by hand",
			       gl_param_str(plan, "id"), MS_ANN_TEMPLATE);
	}
	ops = cJSON_CreateArray();
	cJSON_AddItemToArray(ops, op("test", MS_PTR_TEMPLATE, cJSON_CreateString(saved->valuestring)));
	cJSON_AddItemToArray(ops, op("replace", "/spec/template", tmpl));
	cJSON_AddItemToArray(ops, op("remove", MS_PTR_TEMPLATE, NULL));
	if (gl_param(dig(dep, "metadata", "annotations", NULL), MS_ANN_FAULT))
		cJSON_AddItemToArray(ops, op("remove", MS_PTR_FAULT, NULL));
	cJSON_Delete(dep);
	rc = k8s_patch(plan, ops, "restore", err);
	cJSON_Delete(ops);
	return rc;
}

static int rollout_done(const cJSON *dep, char *why, size_t n)
{
	return gl_k8s_rollout_done(dep, why, n);
}

static int probe_ok(const cJSON *plan, char *why, size_t n)
{
	const cJSON *probe = gl_param(plan, "probe");
	const char *url = gl_param_str(probe, "url"), *model = gl_param_str(probe, "model");
	struct gl_http_opts o = { .deadline_ms = 10000, .max_body = 4u << 20 };
	struct gl_http_resp r = { 0 };
	struct gl_err e = { 0 };
	int ok;

	if (!url)
		return 1;
	ok = gl_http_do("GET", url, NULL, NULL, &o, &r, &e) == 0 && r.status == 200;
	if (!ok) {
		snprintf(why, n, "probe %s: %s", url, e.msg[0] ? e.msg : "not 200");
	} else if (model) {
		cJSON *j = cJSON_ParseWithLength(r.body.data ? r.body.data : "", r.body.len);
		int root_ok;
		ok = gl_oai_models_has(j, model, NULL, &root_ok);
		cJSON_Delete(j);
		if (!ok)
			snprintf(why, n, "probe %s does not list model '%s'", url, model);
	}
	gl_buf_free(&r.body);
	return ok;
}

/* Follow the rollout to its end, then the probe; want_annotation: the
 * swap's annotation must be there (1) or gone (0). */
static int k8s_follow(const cJSON *plan, int want_annotation, struct gl_err *err)
{
	const cJSON *lim = gl_param(plan, "rollout_ms");
	int64_t t0 = gl_now_ns(), end = t0 + (cJSON_IsNumber(lim) ? (int64_t)lim->valuedouble : 600000) * 1000000LL;
	char why[400] = "";

	for (;;) {
		cJSON *dep = NULL;
		struct gl_err e = { 0 };
		int rc = k8s_get(plan, &dep, &e), done = 0;
		if (rc == 0) {
			int has = gl_param(dig(dep, "metadata", "annotations", NULL), MS_ANN_TEMPLATE) != NULL;
			if (has != want_annotation) {
				cJSON_Delete(dep);
				return gl_errf(err, GL_EIO, "model_swap '%s': the deployment %s %s", gl_param_str(plan, "id"),
					       want_annotation ? "lost" : "still has", MS_ANN_TEMPLATE);
			}
			done = rollout_done(dep, why, sizeof(why));
			cJSON_Delete(dep);
			if (done < 0)
				return gl_errf(err, GL_EIO, "model_swap '%s': %s", gl_param_str(plan, "id"), why);
			if (done && probe_ok(plan, why, sizeof(why))) {
				gl_fault_measure(NULL, "rollout_s", (double)(gl_now_ns() - t0) / 1e9);
				return 0;
			}
		} else {
			snprintf(why, sizeof(why), "%s", e.msg);
		}
		if (gl_now_ns() >= end)
			return gl_errf(err, GL_ETIMEDOUT, "model_swap '%s': rollout of %s/%s not done in %.0f s: %s",
				       gl_param_str(plan, "id"), gl_param_str(plan, "namespace"), gl_param_str(plan, "deployment"),
				       (double)(end - t0) / 1e9, why);
		gl_sleep_ns(MS_POLL_NS * 2);
	}
}

/* ---- exec -------------------------------------------------------------------- */

static int run_argv(struct gl_ctx *c, const cJSON *plan, const char *key, int *status, struct gl_buf *out,
		    struct gl_err *err)
{
	const cJSON *argv = gl_param(plan, key), *it;
	const char *args[MS_MAX_ARGS + 1];
	int64_t timeout_ns = gl_param_dur_ns(plan, "timeout", MS_DEF_TIMEOUT_NS);
	struct gl_exec_result res = { 0 };
	struct gl_host host;
	int n = 0, rc;

	cJSON_ArrayForEach(it, argv) {
		if (n >= MS_MAX_ARGS || !cJSON_IsString(it))
			return gl_errf(err, GL_EINVAL, "model_swap: bad %s command in the plan", key);
		args[n++] = it->valuestring;
	}
	if (n == 0)
		return gl_errf(err, GL_EINVAL, "model_swap: the plan has no %s command", key);
	args[n] = NULL;
	if ((rc = gl_plan_host(c, plan, "model_swap", &host, err)))
		return rc;
	rc = gl_host_exec(&host, args, timeout_ns / 1000000, &res, err);
	if (rc == 0 && res.timed_out)
		rc = gl_errf(err, GL_ETIMEDOUT, "model_swap %s on '%s': '%s' timed out", key, host.name, args[0]);
	*status = res.exit_status;
	if (rc == 0 && out) {
		*out = res.out;
		return 0;
	}
	gl_buf_free(&res.out);
	return rc;
}

static int exec_step(struct gl_ctx *c, const cJSON *plan, const char *key, struct gl_err *err)
{
	struct gl_buf out = { 0 };
	char line[256];
	int status = 0, rc = run_argv(c, plan, key, &status, &out, err);

	if (rc == 0 && status != 0) {
		snippet(&out, line, sizeof(line));
		rc = gl_errf(err, GL_EIO, "model_swap %s: '%s' exited %d%s%s", key,
			     cJSON_GetArrayItem(gl_param(plan, key), 0)->valuestring, status, line[0] ? ": " : "", line);
	}
	gl_buf_free(&out);
	return rc;
}

/* Run the probe until its output holds plan[expect_key]. */
static int exec_probe(struct gl_ctx *c, const cJSON *plan, const char *expect_key, struct gl_err *err)
{
	const char *want = gl_param_str(plan, expect_key);
	int64_t end = gl_now_ns() + MS_VERIFY_WAIT_NS;
	char line[256] = "";

	for (;;) {
		struct gl_buf out = { 0 };
		struct gl_err e = { 0 };
		int status = 0, rc = run_argv(c, plan, "probe", &status, &out, &e), ok;
		ok = rc == 0 && status == 0 && want && out.data && strstr(out.data, want);
		if (rc == 0)
			snippet(&out, line, sizeof(line));
		else
			snprintf(line, sizeof(line), "%s", e.msg);
		gl_buf_free(&out);
		if (ok)
			return 0;
		if (gl_now_ns() >= end)
			return gl_errf(err, GL_EIO, "model_swap '%s': the probe does not print '%s' (last: %s)",
				       gl_param_str(plan, "id"), want ? want : "?", line);
		gl_sleep_ns(MS_POLL_NS * 2);
	}
}

/* ---- steps ------------------------------------------------------------------- */

static enum ms_method plan_method(const cJSON *plan)
{
	return method_of(gl_param_str(plan, "method"));
}

static int ms_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case MS_LORA:
		return lora_step(plan, 1, err);
	case MS_K8S:
		return k8s_inject(plan, err);
	case MS_EXEC:
		return exec_step(c, plan, "swap", err);
	}
	return -GL_EINVAL;
}

static int ms_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case MS_LORA:
		return lora_check(plan, 1, err);
	case MS_K8S:
		return k8s_follow(plan, 1, err);
	case MS_EXEC:
		return exec_probe(c, plan, "expect", err);
	}
	return -GL_EINVAL;
}

static int ms_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case MS_LORA:
		return lora_step(plan, 0, err);
	case MS_K8S:
		return k8s_revert(plan, err);
	case MS_EXEC:
		return exec_step(c, plan, "restore", err);
	}
	return -GL_EINVAL;
}

static int ms_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case MS_LORA:
		return lora_check(plan, 0, err);
	case MS_K8S:
		return k8s_follow(plan, 0, err);
	case MS_EXEC:
		return exec_probe(c, plan, "expect_after", err);
	}
	return -GL_EINVAL;
}

/* ---- preflight and dry run ----------------------------------------------------- */

static int ms_preflight(struct gl_ctx *c, const cJSON *plan)
{
	char subject[200], check[400];
	int bad = 0;

	snprintf(subject, sizeof(subject), "fault %s", gl_param_str(plan, "id"));
	switch (plan_method(plan)) {
	case MS_LORA: {
		/* before inject, the adapter is where the action starts from */
		const char *action = gl_param_str(plan, "action");
		int want = !(action && !strcmp(action, "load"));
		const cJSON *ep;
		cJSON_ArrayForEach(ep, gl_param(plan, "endpoints")) {
			struct gl_err e = { 0 };
			int listed = 0, root_ok = 0;
			int rc = lora_listed(plan, ep->valuestring, gl_param_str(plan, "path"), &listed, &root_ok, &e);
			snprintf(check, sizeof(check), "%s/models %s adapter '%s'", ep->valuestring, want ? "lists" : "does not list",
				 gl_param_str(plan, "adapter"));
			bad |= gl_ctx_preflight(c, subject, check, rc == 0 && listed == want,
						rc ? e.msg : listed == want ? "" : listed ? "it is loaded already" : "it is not loaded") != 0;
		}
		break;
	}
	case MS_K8S: {
		struct gl_err e = { 0 };
		cJSON *dep = NULL;
		int rc = k8s_get(plan, &dep, &e), idx = rc == 0 ? container_index(plan, dep) : -1;
		char path[600];
		deploy_path(plan, path, sizeof(path));
		snprintf(check, sizeof(check), "GET %s%s answers, with the container to change", gl_param_str(plan, "api"), path);
		bad |= gl_ctx_preflight(c, subject, check, rc == 0 && idx >= 0,
					rc ? e.msg : idx < 0 ? "no such container, or several and params.container not given" : "") != 0;
		if (rc == 0) {
			const cJSON *a = gl_param(dig(dep, "metadata", "annotations", NULL), MS_ANN_TEMPLATE);
			snprintf(check, sizeof(check), "the deployment carries no %s of an earlier swap", MS_ANN_TEMPLATE);
			bad |= gl_ctx_preflight(c, subject, check, a == NULL, a ? "revert the earlier swap first" : "") != 0;
		}
		cJSON_Delete(dep);
		break;
	}
	case MS_EXEC: {
		struct gl_err e = { 0 };
		int rc = exec_probe(c, plan, "expect_after", &e);
		snprintf(check, sizeof(check), "the probe prints '%s' before the swap", gl_param_str(plan, "expect_after"));
		bad |= gl_ctx_preflight(c, subject, check, rc == 0, rc ? e.msg : "") != 0;
		break;
	}
	}
	return bad ? -1 : 0;
}

static void ms_describe(const cJSON *plan, struct gl_buf *out)
{
	const char *a = gl_param_str(plan, "adapter");

	switch (plan_method(plan)) {
	case MS_LORA: {
		const char *action = gl_param_str(plan, "action"), *path = gl_param_str(plan, "path");
		const char *to = gl_param_str(plan, "to_path");
		const cJSON *ep;
		if (!action || !a || !path)
			return;
		cJSON_ArrayForEach(ep, gl_param(plan, "endpoints")) {
			const char *u = cJSON_IsString(ep) ? ep->valuestring : "?";
			if (!strcmp(action, "load")) {
				gl_buf_printf(out, "  inject: POST %s/load_lora_adapter {\"lora_name\":\"%s\",\"lora_path\":\"%s\"}\n", u, a, path);
				gl_buf_printf(out, "  revert: POST %s/unload_lora_adapter {\"lora_name\":\"%s\"}\n", u, a);
			} else if (!strcmp(action, "unload")) {
				gl_buf_printf(out, "  inject: POST %s/unload_lora_adapter {\"lora_name\":\"%s\"}\n", u, a);
				gl_buf_printf(out, "  revert: POST %s/load_lora_adapter {\"lora_name\":\"%s\",\"lora_path\":\"%s\"}\n", u, a, path);
			} else {
				gl_buf_printf(out, "  inject: POST %s/unload_lora_adapter, then /load_lora_adapter from %s\n", u, to ? to : "?");
				gl_buf_printf(out, "  revert: POST %s/unload_lora_adapter, then /load_lora_adapter from %s\n", u, path);
			}
		}
		gl_buf_printf(out, "  verify, verify_revert: GET ENDPOINT/models lists adapter '%s' or not\n", a);
		break;
	}
	case MS_K8S: {
		char path[600];
		if (!gl_param_str(plan, "api"))
			return;
		deploy_path(plan, path, sizeof(path));
		gl_buf_printf(out, "  inject: GET %s%s, then PATCH (application/json-patch+json): test resourceVersion, "
				   "add annotation %s (the pod template now), replace%s%s%s%s\n",
			      gl_param_str(plan, "api"), path, MS_ANN_TEMPLATE, gl_param_str(plan, "image") ? " image with " : "",
			      gl_param_str(plan, "image") ? gl_param_str(plan, "image") : "", gl_param(plan, "args") ? " args" : "",
			      gl_param_str(plan, "container") ? "" : " (the only container)");
		gl_buf_printf(out, "  verify: rollout complete (GET %s every 400 ms)%s\n", path,
			      gl_param_str(gl_param(plan, "probe"), "url") ? ", then the probe" : "");
		gl_buf_printf(out, "  revert: PATCH: test the annotation, replace /spec/template with it, remove it\n");
		gl_buf_printf(out, "  verify_revert: rollout complete, no annotation%s\n",
			      gl_param_str(gl_param(plan, "probe"), "url") ? ", the probe" : "");
		break;
	}
	case MS_EXEC:
		gl_buf_printf(out, "  inject:");
		{
			const cJSON *it;
			const char *keys[] = { "swap", "probe", "restore" }, *names[] = { "inject", "verify (probe)", "revert" };
			for (int k = 0; k < 3; k++) {
				if (k)
					gl_buf_printf(out, "  %s:", names[k]);
				cJSON_ArrayForEach(it, gl_param(plan, keys[k])) {
					gl_buf_printf(out, " ");
					gl_buf_append_word(out, cJSON_IsString(it) ? it->valuestring : "?");
				}
				gl_buf_printf(out, "\n");
			}
		}
		break;
	}
}

/* ---- dead-man's switch ------------------------------------------------------- */

#define MS_NONE_LORA "model_swap/lora acts through vLLM's adapter API, not on a host"
#define MS_NONE_K8S "model_swap/kubernetes acts through the Kubernetes API, not on a host"

/* What ms_revert runs on the host: exec's "restore". */
static int ms_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script,
		      struct gl_err *err)
{
	enum ms_method m = plan_method(plan);
	int rc;

	if (m == MS_EXEC)
		return gl_deadman_from_argv(c, plan, "model_swap", "restore", NULL, h, script, err);
	if ((rc = gl_plan_host(c, plan, "model_swap", h, err)) != 0)
		return rc;
	gl_buf_printf(script, "%s", m == MS_K8S ? MS_NONE_K8S : MS_NONE_LORA);
	return GL_DEADMAN_NONE;
}

static const char *ms_deadman_none(const struct gl_fault_spec *f)
{
	enum ms_method m = method_of(f->method);

	return m == MS_EXEC ? NULL : m == MS_K8S ? MS_NONE_K8S : MS_NONE_LORA;
}

static const struct gl_fault_ops gl_fault_model_swap = {
	.kind = "model_swap",
	.methods = ms_methods,
	.validate = ms_validate,
	.check_files = ms_check_files,
	.plan = ms_plan,
	.inject = ms_inject,
	.verify = ms_verify,
	.revert = ms_revert,
	.verify_revert = ms_verify_revert,
	.describe = ms_describe,
	.preflight = ms_preflight,
	.deadman = ms_deadman,
	.deadman_none = ms_deadman_none,
};
GL_REGISTER_FAULT(gl_fault_model_swap, 60)
