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
 *
 * This file holds the plan, method exec and the steps by method;
 * model_swap_int.h says which file owns the rest.
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
#include "sim_effects.h"

#include "model_swap_int.h"

const char *const ms_methods[] = { "lora", "kubernetes", "exec", NULL };

enum ms_method ms_method_of(const char *m)
{
	return m && !strcmp(m, "kubernetes") ? MS_K8S : m && !strcmp(m, "exec") ? MS_EXEC : MS_LORA;
}

/* ---- plan -------------------------------------------------------------------- */

/* The section of the first workload that sends requests to "endpoints":
 * where a swap's endpoints and API key default from. */
static const cJSON *inference_cfg(const struct gl_scenario *s)
{
	for (int i = 0; i < s->n_workloads; i++)
		if (s->workloads[i].ops && s->workloads[i].ops->serves_endpoints)
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
		if (!cJSON_IsString(v) ||
		    gl_path_confine(s->path, s->root, v->valuestring, real, sizeof(real), &e) == 0)
			continue;
		snprintf(p, sizeof(p), "%s.params.%s", path, keys[i]);
		gl_diag_file(d, v, p, &e);
	}
	if (ms_method_of(f->method) == MS_LORA && !gl_param(f->params, "endpoints")) {
		const cJSON *inf = inference_cfg(s);
		snprintf(p, sizeof(p), "%s.params.endpoints", path);
		if (!inf || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(inf, "endpoints")))
			gl_diag_error(d, f->json, p,
				      "method lora without \"endpoints\" takes the inference workload's, and "
				      "this scenario has no inference workload with endpoints");
	}
}

static int ms_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	enum ms_method m = ms_method_of(f->method);
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
			return gl_errf(err, GL_EINVAL,
				       "model_swap '%s': no endpoints (params.endpoints, or the inference workload's)",
				       f->id);
		}
		for (int i = 0; copy[i]; i++)
			if (copy_param(s, f, p, copy[i], err)) {
				cJSON_Delete(p);
				return -GL_EINVAL;
			}
		cJSON_AddStringToObject(p, "action", ms_action_of(f->params));
		cJSON_AddItemToObject(p, "endpoints", cJSON_Duplicate(eps, 1));
		if (key_env)
			cJSON_AddStringToObject(p, "api_key_env", key_env);
		cJSON_AddNumberToObject(p, "timeout_ms",
					(double)(gl_param_dur_ns(f->params, "timeout", MS_DEF_TIMEOUT_NS) / 1000000));
		break;
	}
	case MS_K8S: {
		static const char *const copy[] = { "api",        "namespace", "deployment", "container", "image",
						    "args",       "token_env", "token_file", "ca_bundle", "client_cert",
						    "client_key", "probe",     NULL };
		for (int i = 0; copy[i]; i++)
			if (copy_param(s, f, p, copy[i], err)) {
				cJSON_Delete(p);
				return -GL_EINVAL;
			}
		cJSON_AddNumberToObject(
			p, "rollout_ms",
			(double)(gl_param_dur_ns(f->params, "rollout_timeout", MS_DEF_ROLLOUT_NS) / 1000000));
		break;
	}
	case MS_EXEC: {
		static const char *const copy[] = { "swap",         "restore", "probe", "expect",
						    "expect_after", "timeout", NULL };
		for (int i = 0; copy[i]; i++)
			copy_param(s, f, p, copy[i], err);
		break;
	}
	}
	*plan = p;
	return 0;
}

/* ---- exec -------------------------------------------------------------------- */

/* The first 200 bytes of a reply, on one line, for messages. */
void ms_snippet(const struct gl_buf *b, char *out, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; b->data && i < b->len && k + 1 < n && k < 200; i++)
		out[k++] = (unsigned char)b->data[i] < 0x20 ? ' ' : b->data[i];
	out[k] = '\0';
}

static int run_argv(struct gl_ctx *c, const cJSON *plan, const char *key, int *status, struct gl_buf *out,
		    struct gl_err *err)
{
	const cJSON *argv = gl_param(plan, key), *it;
	const char *args[MS_MAX_ARGS + 1];
	int64_t timeout_ns = gl_param_dur_ns(plan, "timeout", MS_DEF_TIMEOUT_NS);
	struct gl_exec_result res = { 0 };
	struct gl_host host;
	int n = 0, rc;

	cJSON_ArrayForEach(it, argv)
	{
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
		ms_snippet(&out, line, sizeof(line));
		rc = gl_errf(err, GL_EIO, "model_swap %s: '%s' exited %d%s%s", key,
			     cJSON_GetArrayItem(gl_param(plan, key), 0)->valuestring, status, line[0] ? ": " : "",
			     line);
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
			ms_snippet(&out, line, sizeof(line));
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
	return ms_method_of(gl_param_str(plan, "method"));
}

static int ms_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case MS_LORA: return ms_lora_step(plan, 1, err);
	case MS_K8S: return ms_k8s_inject(plan, err);
	case MS_EXEC: return exec_step(c, plan, "swap", err);
	}
	return -GL_EINVAL;
}

static int ms_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case MS_LORA: return ms_lora_check(plan, 1, err);
	case MS_K8S: return ms_k8s_follow(plan, 1, err);
	case MS_EXEC: return exec_probe(c, plan, "expect", err);
	}
	return -GL_EINVAL;
}

static int ms_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case MS_LORA: return ms_lora_step(plan, 0, err);
	case MS_K8S: return ms_k8s_revert(plan, err);
	case MS_EXEC: return exec_step(c, plan, "restore", err);
	}
	return -GL_EINVAL;
}

static int ms_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case MS_LORA: return ms_lora_check(plan, 0, err);
	case MS_K8S: return ms_k8s_follow(plan, 0, err);
	case MS_EXEC: return exec_probe(c, plan, "expect_after", err);
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
	case MS_LORA: bad = ms_lora_preflight(c, plan, subject); break;
	case MS_K8S: bad = ms_k8s_preflight(c, plan, subject); break;
	case MS_EXEC: {
		struct gl_err e = { 0 };
		int rc = exec_probe(c, plan, "expect_after", &e);
		snprintf(check, sizeof(check), "the probe prints '%s' before the swap",
			 gl_param_str(plan, "expect_after"));
		bad |= gl_ctx_preflight(c, subject, check, rc == 0, rc ? e.msg : "") != 0;
		break;
	}
	}
	return bad ? -1 : 0;
}

static void ms_describe(const cJSON *plan, struct gl_buf *out)
{
	switch (plan_method(plan)) {
	case MS_LORA: ms_lora_describe(plan, out); break;
	case MS_K8S: ms_k8s_describe(plan, out); break;
	case MS_EXEC:
		gl_buf_printf(out, "  inject:");
		{
			const cJSON *it;
			const char *keys[] = { "swap", "probe", "restore" },
				   *names[] = { "inject", "verify (probe)", "revert" };
			for (int k = 0; k < 3; k++) {
				if (k)
					gl_buf_printf(out, "  %s:", names[k]);
				cJSON_ArrayForEach(it, gl_param(plan, keys[k]))
				{
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
static int ms_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
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
	enum ms_method m = ms_method_of(f->method);

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
	.sim = gl_sim_adapter,
};
GL_REGISTER_FAULT(gl_fault_model_swap, 60)
