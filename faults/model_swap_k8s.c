/*
 * model_swap_k8s.c - model_swap method kubernetes: the Deployment's image
 * or args swapped by one JSON Patch that keeps the pod template in an
 * annotation, the rollout followed, the template restored; model_swap.c
 * says the whole protocol.
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
static int k8s_req(const cJSON *plan, const char *method, const char *ctype, const char *body, long *status,
		   cJSON **json, struct gl_err *err)
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
		rc = gl_errf(err, GL_EIO, "model_swap: %s: PATCH %s answered %ld%s%s", what, path, st,
			     why[0] ? " " : "", why);
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

int ms_k8s_inject(const cJSON *plan, struct gl_err *err)
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
		rc = gl_errf(err, GL_EIO, "model_swap '%s': deployment %s/%s has %s", id,
			     gl_param_str(plan, "namespace"), gl_param_str(plan, "deployment"),
			     idx < 0 ? (gl_param_str(plan, "container")
						? "no container of that name"
						: "more than one container: name one in params.container")
				     : "no spec.template or resourceVersion");
		cJSON_Delete(dep);
		return rc;
	}
	if (gl_param(ann, MS_ANN_TEMPLATE) && !(cJSON_IsString(owner) && !strcmp(owner->valuestring, id))) {
		rc = gl_errf(err, GL_EIO,
			     "model_swap '%s': deployment %s/%s already carries %s of fault '%s': "
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

int ms_k8s_revert(const cJSON *plan, struct gl_err *err)
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
		return gl_errf(err, GL_EIO,
			       "model_swap '%s': the annotation %s is not a pod template: restore it by hand",
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
int ms_k8s_follow(const cJSON *plan, int want_annotation, struct gl_err *err)
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
				return gl_errf(err, GL_EIO, "model_swap '%s': the deployment %s %s",
					       gl_param_str(plan, "id"), want_annotation ? "lost" : "still has",
					       MS_ANN_TEMPLATE);
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
				       gl_param_str(plan, "id"), gl_param_str(plan, "namespace"),
				       gl_param_str(plan, "deployment"), (double)(end - t0) / 1e9, why);
		gl_sleep_ns(MS_POLL_NS * 2);
	}
}

/* The deployment answers, with the container to change, and carries no
 * saved template of an earlier swap; 1 when a check failed. */
int ms_k8s_preflight(struct gl_ctx *c, const cJSON *plan, const char *subject)
{
	struct gl_err e = { 0 };
	cJSON *dep = NULL;
	int rc = k8s_get(plan, &dep, &e), idx = rc == 0 ? container_index(plan, dep) : -1, bad = 0;
	char path[600], check[400];

	deploy_path(plan, path, sizeof(path));
	snprintf(check, sizeof(check), "GET %s%s answers, with the container to change", gl_param_str(plan, "api"),
		 path);
	bad |= gl_ctx_preflight(c, subject, check, rc == 0 && idx >= 0,
				rc        ? e.msg
				: idx < 0 ? "no such container, or several and params.container not given"
					  : "") != 0;
	if (rc == 0) {
		const cJSON *a = gl_param(dig(dep, "metadata", "annotations", NULL), MS_ANN_TEMPLATE);
		snprintf(check, sizeof(check), "the deployment carries no %s of an earlier swap", MS_ANN_TEMPLATE);
		bad |= gl_ctx_preflight(c, subject, check, a == NULL, a ? "revert the earlier swap first" : "") != 0;
	}
	cJSON_Delete(dep);
	return bad;
}

void ms_k8s_describe(const cJSON *plan, struct gl_buf *out)
{
	char path[600];

	if (!gl_param_str(plan, "api"))
		return;
	deploy_path(plan, path, sizeof(path));
	gl_buf_printf(out,
		      "  inject: GET %s%s, then PATCH (application/json-patch+json): test resourceVersion, "
		      "add annotation %s (the pod template now), replace%s%s%s%s\n",
		      gl_param_str(plan, "api"), path, MS_ANN_TEMPLATE,
		      gl_param_str(plan, "image") ? " image with " : "",
		      gl_param_str(plan, "image") ? gl_param_str(plan, "image") : "",
		      gl_param(plan, "args") ? " args" : "",
		      gl_param_str(plan, "container") ? "" : " (the only container)");
	gl_buf_printf(out, "  verify: rollout complete (GET %s every 400 ms)%s\n", path,
		      gl_param_str(gl_param(plan, "probe"), "url") ? ", then the probe" : "");
	gl_buf_printf(out, "  revert: PATCH: test the annotation, replace /spec/template with it, remove it\n");
	gl_buf_printf(out, "  verify_revert: rollout complete, no annotation%s\n",
		      gl_param_str(gl_param(plan, "probe"), "url") ? ", the probe" : "");
}
