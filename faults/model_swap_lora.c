/*
 * model_swap_lora.c - model_swap method lora: vLLM's runtime adapter API
 * (load, unload, the model list) on every endpoint; model_swap.c says what
 * each action does.
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

static void lora_opts(const cJSON *plan, struct gl_http_opts *o)
{
	const cJSON *t = gl_param(plan, "timeout_ms");
	memset(o, 0, sizeof(*o));
	o->token_env = gl_param_str(plan, "api_key_env");
	o->ca_bundle = gl_param_str(plan, "ca_bundle");
	o->deadline_ms = cJSON_IsNumber(t) && t->valuedouble > 0 ? (int64_t)t->valuedouble : 60000;
	o->max_body = 4u << 20;
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
		ms_snippet(&r.body, why, sizeof(why));
		if (!load && r.status == 404)
			gl_info("model_swap '%s': %s: adapter '%s' was not loaded (404)", gl_param_str(plan, "id"), ep,
				gl_param_str(plan, "adapter"));
		else if (load && r.status == 400 && strstr(why, "already been loaded"))
			gl_info("model_swap '%s': %s: adapter '%s' was loaded already", gl_param_str(plan, "id"), ep,
				gl_param_str(plan, "adapter"));
		else
			rc = gl_errf(err, GL_EIO, "model_swap '%s': POST %s answered %ld: %s", gl_param_str(plan, "id"),
				     url, r.status, why);
	}
	gl_buf_free(&r.body);
	return rc;
}

/* Every endpoint; the slowest one's time into *slowest_s. */
static int lora_all(const cJSON *plan, int load, const char *lora_path, double *slowest_s, struct gl_err *err)
{
	const cJSON *ep;
	double slowest = 0;

	cJSON_ArrayForEach(ep, gl_param(plan, "endpoints"))
	{
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
		cJSON_ArrayForEach(ep, gl_param(plan, "endpoints"))
		{
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
				  : gl_errf(err, GL_EIO, "model_swap '%s': %s/models %s adapter '%s'%s",
					    gl_param_str(plan, "id"), bad, listed ? "still lists" : "does not list",
					    gl_param_str(plan, "adapter"),
					    listed && want && !root_ok ? " from the expected path" : "");
		gl_sleep_ns(MS_POLL_NS);
	}
}

int ms_lora_step(const cJSON *plan, int inject, struct gl_err *err)
{
	const char *action = gl_param_str(plan, "action"), *path = gl_param_str(plan, "path");
	const char *to = gl_param_str(plan, "to_path");
	double s = 0;
	int64_t t0;
	int rc;

	if (!action || !path)
		return gl_errf(err, GL_EINVAL, "model_swap: the plan has no action or path");
	if (!strcmp(action, "unload") || !strcmp(action, "load")) {
		int load = (strcmp(action, "load") == 0) == inject; /* unload: inject unloads, revert loads */
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

int ms_lora_check(const cJSON *plan, int after_inject, struct gl_err *err)
{
	const char *action = gl_param_str(plan, "action");
	int want = action && !strcmp(action, "unload") ? !after_inject
		   : action && !strcmp(action, "load") ? after_inject
						       : 1;
	const char *from = action && !strcmp(action, "swap") && after_inject ? gl_param_str(plan, "to_path")
									     : gl_param_str(plan, "path");
	return lora_wait(plan, want, from, err);
}

/* Before inject, every endpoint lists the adapter, or does not, as the
 * action starts from; 1 when a check failed. */
int ms_lora_preflight(struct gl_ctx *c, const cJSON *plan, const char *subject)
{
	const char *action = gl_param_str(plan, "action");
	int want = !(action && !strcmp(action, "load")), bad = 0;
	char check[400];
	const cJSON *ep;

	cJSON_ArrayForEach(ep, gl_param(plan, "endpoints"))
	{
		struct gl_err e = { 0 };
		int listed = 0, root_ok = 0;
		int rc = lora_listed(plan, ep->valuestring, gl_param_str(plan, "path"), &listed, &root_ok, &e);
		snprintf(check, sizeof(check), "%s/models %s adapter '%s'", ep->valuestring,
			 want ? "lists" : "does not list", gl_param_str(plan, "adapter"));
		bad |= gl_ctx_preflight(c, subject, check, rc == 0 && listed == want,
					rc               ? e.msg
					: listed == want ? ""
					: listed         ? "it is loaded already"
							 : "it is not loaded") != 0;
	}
	return bad;
}

void ms_lora_describe(const cJSON *plan, struct gl_buf *out)
{
	const char *a = gl_param_str(plan, "adapter");
	const char *action = gl_param_str(plan, "action"), *path = gl_param_str(plan, "path");
	const char *to = gl_param_str(plan, "to_path");
	const cJSON *ep;

	if (!action || !a || !path)
		return;
	cJSON_ArrayForEach(ep, gl_param(plan, "endpoints"))
	{
		const char *u = cJSON_IsString(ep) ? ep->valuestring : "?";
		if (!strcmp(action, "load")) {
			gl_buf_printf(
				out,
				"  inject: POST %s/load_lora_adapter {\"lora_name\":\"%s\",\"lora_path\":\"%s\"}\n", u,
				a, path);
			gl_buf_printf(out, "  revert: POST %s/unload_lora_adapter {\"lora_name\":\"%s\"}\n", u, a);
		} else if (!strcmp(action, "unload")) {
			gl_buf_printf(out, "  inject: POST %s/unload_lora_adapter {\"lora_name\":\"%s\"}\n", u, a);
			gl_buf_printf(
				out,
				"  revert: POST %s/load_lora_adapter {\"lora_name\":\"%s\",\"lora_path\":\"%s\"}\n", u,
				a, path);
		} else {
			gl_buf_printf(out, "  inject: POST %s/unload_lora_adapter, then /load_lora_adapter from %s\n",
				      u, to ? to : "?");
			gl_buf_printf(out, "  revert: POST %s/unload_lora_adapter, then /load_lora_adapter from %s\n",
				      u, path);
		}
	}
	gl_buf_printf(out, "  verify, verify_revert: GET ENDPOINT/models lists adapter '%s' or not\n", a);
}
