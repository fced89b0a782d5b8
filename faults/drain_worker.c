/*
 * drain_worker.c - the drain_worker fault kind: take a worker out of the
 * scheduler's hands while it keeps running, and give it back.
 *
 * slurm: params {"node": N (default: the target host's "slurm_node", else
 * its name), "reason": "gauntlet fault ID", "via": "scontrol"}. inject runs
 * `scontrol update NodeName=N State=DRAIN Reason=R` on the target host (a
 * controller or login host) through gl_host_exec; verify polls
 * `scontrol show node N` until the State= flags hold DRAIN (IDLE+DRAIN,
 * DRAINING, DRAINED, ...); revert runs `scontrol update NodeName=N
 * State=RESUME` ("Invalid node state specified", what Slurm says when the
 * node is not drained, counts as done); verify_revert: no DRAIN in State.
 * "via": "slurmrestd" (with "url": "https://HOST:6820", "token_env" or
 * "token_file", "ca_bundle", "api_version": "v0.0.40") does the same through
 * slurmrestd's node API from the controller: POST /slurm/VER/node/N with
 * {"state":["DRAIN"],"reason":R} (then {"state":["RESUME"]}), verified by
 * GET /slurm/VER/node/N (nodes[0].state holds DRAIN). The JWT goes in an
 * "Authorization: Bearer" header, which rest_auth/jwt accepts (Slurm 23.02
 * and later). Only tested against a checking mock in test_drain.sh.
 *
 * kubernetes: params {"api": "https://HOST:6443", "node": N (default: the
 * host's "k8s_node"), "token_env" | "token_file", "ca_bundle",
 * "client_cert", "client_key", "evict": true}. Every request goes from the
 * controller through gl_http_do (bounded, bearer token read at call time).
 * inject cordons (PATCH /api/v1/nodes/N, merge patch
 * {"spec":{"unschedulable":true}}), then lists the pods on the node and
 * evicts each one that is not DaemonSet-owned, not a mirror pod and not
 * finished, through the Eviction API (policy/v1); 429 (a disruption budget
 * says not now) is retried with backoff until the inject deadline, 404 (the
 * pod is already gone) is fine. verify: the node's spec.unschedulable is
 * true; revert: uncordon (merge patch unschedulable false); verify_revert:
 * not unschedulable. Evicted pods are not brought back: their controllers
 * reschedule them, which is the recovery being measured.
 *
 * Real Kubernetes cannot run on the test machines: tests/scripts/test_drain.sh
 * runs this method against tests/scripts/k8s_mock.py, a local server that
 * checks each request (method, path, query, content type, body, token).
 * The eviction retries end at the inject deadline: 120 s, or the fault's
 * "for" (divided by --time-scale) when that is shorter.
 *
 * exec: params {"drain": argv, "resume": argv, "check_drained": argv,
 * "timeout": "30s"}: the user's own commands on the target host; verify
 * runs check_drained (exit 0), verify_revert expects it to fail.
 *
 * Every method needs "for": an instantaneous drain would be undone at once.
 * The plan holds the exact commands or requests, so revert works from it
 * alone in another process after a crash; every revert is idempotent.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bodies.h"
#include "http.h"
#include "nodestate.h"
#include "params.h"
#include "paths.h"
#include "plan.h"
#include "plugin.h"
#include "sim_effects.h"

#include "drain_worker_int.h"

const char *const dw_methods[] = { "slurm", "kubernetes", "exec", NULL };

/* ---- plan ----------------------------------------------------------------- */

static cJSON *argv_of(const char *const *args)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; a && args[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(args[i]));
	return a;
}

/* A string the host entry gives (slurm_node, k8s_node), or NULL. */
static const char *host_str(const struct gl_host *h, const char *key)
{
	return h->json ? gl_param_str(h->json, key) : NULL;
}

/* The files a drain reads (a token, a CA bundle, a client certificate and
 * key) are confined like every file a scenario names (paths.h), and the
 * plan keeps their resolved paths: revert reads what inject read, from
 * wherever it runs. */
static int is_file_param(const char *key)
{
	return !strcmp(key, "token_file") || !strcmp(key, "ca_bundle") || !strcmp(key, "client_cert") ||
	       !strcmp(key, "client_key");
}

static int add_param(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON *p, const char *key,
		     const char *val, struct gl_err *err)
{
	char real[1100];
	struct gl_err e = { 0 };

	if (!is_file_param(key)) {
		cJSON_AddStringToObject(p, key, val);
		return 0;
	}
	if (gl_path_confine(s->path, s->root, val, real, sizeof(real), &e) != 0)
		return gl_errf(err, GL_EINVAL, "drain_worker '%s': %s: %s", f->id, key, e.msg);
	cJSON_AddStringToObject(p, key, real);
	return 0;
}

static void dw_check_files(const struct gl_scenario *s, const struct gl_fault_spec *f, struct gl_diag *d,
			   const char *path)
{
	static const char *const keys[] = { "token_file", "ca_bundle", "client_cert", "client_key", NULL };

	for (int i = 0; keys[i]; i++) {
		const cJSON *v = gl_param(f->params, keys[i]);
		char real[1100], p[300];
		struct gl_err e = { 0 };
		if (!cJSON_IsString(v) ||
		    gl_path_confine(s->path, s->root, v->valuestring, real, sizeof(real), &e) == 0)
			continue;
		snprintf(p, sizeof(p), "%s.params.%s", path, keys[i]);
		gl_diag_file(d, v, p, &e);
	}
}

/* The slurm method's plan: the node, the reason, and the scontrol argvs
 * or the slurmrestd request's parts. */
static int plan_slurm(const struct gl_scenario *s, const struct gl_fault_spec *f, const struct gl_host *h, cJSON *p,
		      struct gl_err *err)
{
	const cJSON *params = f->params;
	char reason[DW_REASON_MAX + 64], kv_node[128], kv_reason[DW_REASON_MAX + 80];
	const char *node, *via = gl_param_str(params, "via");
	int rest = via && !strcmp(via, "slurmrestd");

	if (rest && !gl_api_url_ok(gl_param_str(params, "url")))
		return gl_errf(err, GL_EINVAL, "drain_worker '%s': \"via\": \"slurmrestd\" needs a valid \"url\"",
			       f->id);
	node = gl_param_str(params, "node");
	if (!node)
		node = host_str(h, "slurm_node");
	if (!node)
		node = h->name;
	if (!gl_slurm_node_ok(node))
		return gl_errf(err, GL_EINVAL, "drain_worker '%s': '%s' is not a valid Slurm node name", f->id, node);
	if (gl_param_str(params, "reason"))
		snprintf(reason, sizeof(reason), "%s", gl_param_str(params, "reason"));
	else
		snprintf(reason, sizeof(reason), "gauntlet fault %s", f->id);
	snprintf(kv_node, sizeof(kv_node), "NodeName=%s", node);
	snprintf(kv_reason, sizeof(kv_reason), "Reason=%s", reason);
	cJSON_AddStringToObject(p, "via", rest ? "slurmrestd" : "scontrol");
	cJSON_AddStringToObject(p, "node", node);
	cJSON_AddStringToObject(p, "reason", reason);
	if (rest) {
		static const char *const copy[] = { "url", "token_env", "token_file", "ca_bundle", NULL };
		for (int i = 0; copy[i]; i++)
			if (gl_param_str(params, copy[i]) &&
			    add_param(s, f, p, copy[i], gl_param_str(params, copy[i]), err))
				return -GL_EINVAL;
		cJSON_AddStringToObject(p, "api_version",
					gl_param_str(params, "api_version") ? gl_param_str(params, "api_version")
									    : DW_SLURMRESTD_VERSION);
	} else {
		const char *inj[] = { "scontrol", "update", kv_node, "State=DRAIN", kv_reason, NULL };
		const char *show[] = { "scontrol", "show", "node", node, NULL };
		const char *rev[] = { "scontrol", "update", kv_node, "State=RESUME", NULL };
		cJSON_AddItemToObject(p, "drain", argv_of(inj));
		cJSON_AddItemToObject(p, "show", argv_of(show));
		cJSON_AddItemToObject(p, "resume", argv_of(rev));
	}
	return 0;
}

/* The kubernetes method's plan: the API server, credentials' files, the
 * node, whether to evict. */
static int plan_k8s(const struct gl_scenario *s, const struct gl_fault_spec *f, const struct gl_host *h, cJSON *p,
		    struct gl_err *err)
{
	static const char *const copy[] = { "api",         "token_env",  "token_file", "ca_bundle",
					    "client_cert", "client_key", NULL };
	const cJSON *params = f->params;
	const char *node = gl_param_str(params, "node");

	if (!node)
		node = host_str(h, "k8s_node");
	if (!node)
		node = h->name;
	if (!gl_k8s_name_ok(node) || !gl_api_url_ok(gl_param_str(params, "api")))
		return gl_errf(err, GL_EINVAL, "drain_worker '%s': needs a valid \"api\" URL and node name (node '%s')",
			       f->id, node);
	for (int i = 0; copy[i]; i++)
		if (gl_param_str(params, copy[i]) && add_param(s, f, p, copy[i], gl_param_str(params, copy[i]), err))
			return -GL_EINVAL;
	cJSON_AddStringToObject(p, "node", node);
	cJSON_AddBoolToObject(p, "evict", !cJSON_IsFalse(gl_param(params, "evict")));
	cJSON_AddNumberToObject(p, "for_ns", (double)f->dur_ns);
	return 0;
}

static int dw_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	enum dw_method m = method_of(f->method);
	cJSON *p;
	int rc = 0;

	if (!h)
		return gl_errf(err, GL_EINVAL, "drain_worker: unknown host '%s'", f->target);
	p = cJSON_CreateObject();
	if (!p)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(p, "id", f->id);
	cJSON_AddStringToObject(p, "method", dw_methods[m]);
	gl_plan_put_host(p, h);

	switch (m) {
	case DW_SLURM: rc = plan_slurm(s, f, h, p, err); break;
	case DW_K8S: rc = plan_k8s(s, f, h, p, err); break;
	case DW_EXEC: {
		static const char *const copy[] = { "drain", "resume", "check_drained", "timeout", NULL };
		for (int i = 0; copy[i]; i++)
			if (gl_param(f->params, copy[i]))
				cJSON_AddItemToObject(p, copy[i], cJSON_Duplicate(gl_param(f->params, copy[i]), 1));
		break;
	}
	}
	if (rc) {
		cJSON_Delete(p);
		return rc;
	}
	*plan = p;
	return 0;
}

/* ---- commands on the host ------------------------------------------------- */

/* Run plan[key] on the plan's host. *status gets the exit status; out (if
 * given) the output, to free with gl_buf_free. Returns 0 when it ran. */
static int run_cmd(struct gl_ctx *c, const cJSON *plan, const char *key, int *status, struct gl_buf *out,
		   struct gl_err *err)
{
	const cJSON *argv = gl_param(plan, key), *it;
	const char *args[DW_MAX_ARGS + 1];
	int64_t timeout_ns = DW_CMD_TIMEOUT_MS * 1000000LL;
	struct gl_exec_result res = { 0 };
	struct gl_host host;
	int n = 0, rc;

	if (!cJSON_IsArray(argv))
		return gl_errf(err, GL_EINVAL, "drain_worker: the plan has no %s command", key);
	cJSON_ArrayForEach(it, argv)
	{
		if (n >= DW_MAX_ARGS || !cJSON_IsString(it))
			return gl_errf(err, GL_EINVAL, "drain_worker: bad %s command in the plan", key);
		args[n++] = it->valuestring;
	}
	args[n] = NULL;
	if (gl_param_str(plan, "timeout"))
		gl_parse_duration_ns(gl_param_str(plan, "timeout"), &timeout_ns, NULL);
	rc = gl_plan_host(c, plan, "drain_worker", &host, err);
	if (rc)
		return rc;
	rc = gl_host_exec(&host, args, timeout_ns / 1000000, &res, err);
	if (rc == 0 && res.timed_out)
		rc = gl_errf(err, GL_ETIMEDOUT, "drain_worker %s on '%s': '%s' timed out", key, host.name, args[0]);
	*status = res.exit_status;
	if (out && rc == 0) {
		*out = res.out;
		return 0;
	}
	gl_buf_free(&res.out);
	return rc;
}

/* First line of a command's output, for messages. */
static void first_line(const struct gl_buf *b, char *out, size_t n)
{
	snprintf(out, n, "%s", b->data ? b->data : "");
	out[strcspn(out, "\n")] = '\0';
}

/* Run plan[key]; exit 0 is success, anything else an error quoting the output. */
static int run_ok(struct gl_ctx *c, const cJSON *plan, const char *key, const char *ok_text, struct gl_err *err)
{
	struct gl_buf out = { 0 };
	int status = 0, rc = run_cmd(c, plan, key, &status, &out, err);
	char line[300];

	if (rc)
		return rc;
	first_line(&out, line, sizeof(line));
	if (status != 0 && !(ok_text && out.data && strstr(out.data, ok_text)))
		rc = gl_errf(err, GL_EIO, "drain_worker %s on '%s': %s exited %d%s%s", key, gl_param_str(plan, "host"),
			     cJSON_GetArrayItem(gl_param(plan, key), 0)->valuestring, status, line[0] ? ": " : "",
			     line);
	gl_buf_free(&out);
	return rc;
}

/* ---- slurm ------------------------------------------------------------------ */

/* The node's State= value from `scontrol show node` into st (nodestate.c). */
static int slurm_state(struct gl_ctx *c, const cJSON *plan, char *st, size_t n, struct gl_err *err)
{
	struct gl_host host;
	int rc = gl_plan_host(c, plan, "drain_worker", &host, err);

	return rc ? rc : gl_scontrol_node_state(&host, gl_param_str(plan, "node"), "drain_worker", st, n, err);
}

static int is_rest(const cJSON *plan)
{
	const char *via = gl_param_str(plan, "via");
	return via && !strcmp(via, "slurmrestd");
}

static int rest_state(const cJSON *plan, char *st, size_t n, struct gl_err *err);

/* Poll the node until DRAIN is in its state (want 1) or not (want 0). */
static int slurm_wait(struct gl_ctx *c, const cJSON *plan, int want, struct gl_err *err)
{
	int64_t end = gl_now_ns() + DW_VERIFY_WAIT_NS;
	char st[128] = "";

	for (;;) {
		struct gl_err e = { 0 };
		int rc = is_rest(plan) ? rest_state(plan, st, sizeof(st), &e)
				       : slurm_state(c, plan, st, sizeof(st), &e);
		if (rc == 0 && gl_slurm_state_drained(st) == want)
			return 0;
		if (gl_now_ns() >= end)
			return rc ? gl_errf(err, e.code, "%s", e.msg)
				  : gl_errf(err, GL_EIO, "drain_worker: node %s is in state %s, %s DRAIN",
					    gl_param_str(plan, "node"), st, want ? "without" : "still with");
		gl_sleep_ns(DW_POLL_NS);
	}
}

/* ---- kubernetes ------------------------------------------------------------- */

/* One request (nodestate.c); *status the HTTP status, *body (if given)
 * the parsed JSON reply (caller deletes). */
static int k8s_req(const cJSON *plan, const char *method, const char *path, const char *ctype, const char *body,
		   long *status, cJSON **json, struct gl_err *err)
{
	return gl_k8s_req(plan, "drain_worker", method, path, ctype, body, status, json, err);
}

/* "reason: message" of a Kubernetes Status reply, for errors */
static void k8s_why(const cJSON *j, char *out, size_t n)
{
	gl_k8s_status_why(j, out, n);
}

/* ---- slurmrestd ---------------------------------------------------------------- */

/* The first entry of a slurmrestd reply's "errors" list ("" when none). */
static void rest_error(const cJSON *j, char *out, size_t n)
{
	gl_slurmrest_error(j, out, n);
}

/* POST /slurm/VER/node/NODE {"state":[state],"reason":...}; ok_text in the
 * error counts as success (RESUME of a node not drained). */
static int rest_update(const cJSON *plan, const char *state, const char *ok_text, struct gl_err *err)
{
	cJSON *body = cJSON_CreateObject(), *arr = cJSON_CreateArray(), *j = NULL;
	char path[256], why[400];
	char *text;
	long st = 0;
	int rc;

	cJSON_AddItemToArray(arr, cJSON_CreateString(state));
	cJSON_AddItemToObject(body, "state", arr);
	if (!strcmp(state, "DRAIN"))
		cJSON_AddStringToObject(body, "reason", gl_param_str(plan, "reason"));
	text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	if (!text)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "/slurm/%s/node/%s", gl_param_str(plan, "api_version"),
		 gl_param_str(plan, "node"));
	rc = k8s_req(plan, "POST", path, "application/json", text, &st, &j, err);
	free(text);
	if (rc == 0) {
		rest_error(j, why, sizeof(why));
		if ((st / 100 != 2 || why[0]) && !(ok_text && strstr(why, ok_text)))
			rc = gl_errf(err, GL_EIO, "drain_worker: %s node %s: POST %s answered %ld%s%s", state,
				     gl_param_str(plan, "node"), path, st, why[0] ? " " : "", why);
	}
	cJSON_Delete(j);
	return rc;
}

/* The node's state flags joined by '+' ("IDLE+DRAIN"), from GET /slurm/VER/node/NODE. */
static int rest_state(const cJSON *plan, char *st, size_t n, struct gl_err *err)
{
	char path[256], why[400];
	cJSON *j = NULL;
	long code = 0;
	int rc;

	snprintf(path, sizeof(path), "/slurm/%s/node/%s", gl_param_str(plan, "api_version"),
		 gl_param_str(plan, "node"));
	rc = k8s_req(plan, "GET", path, NULL, NULL, &code, &j, err);
	if (rc == 0) {
		rest_error(j, why, sizeof(why));
		st[0] = '\0';
		if (code != 200 || why[0])
			rc = gl_errf(err, GL_EIO, "drain_worker: GET %s answered %ld%s%s", path, code,
				     why[0] ? " " : "", why);
		else if (gl_slurmrest_node_state(j, st, n) != 0)
			rc = gl_errf(err, GL_EIO, "drain_worker: GET %s: no nodes[0].state in the reply", path);
	}
	cJSON_Delete(j);
	return rc;
}

static int k8s_cordon(const cJSON *plan, int on, struct gl_err *err)
{
	char path[512], why[300];
	cJSON *j = NULL;
	long st = 0;
	int rc;

	snprintf(path, sizeof(path), "/api/v1/nodes/%s", gl_param_str(plan, "node"));
	rc = k8s_req(plan, "PATCH", path, "application/merge-patch+json",
		     on ? "{\"spec\":{\"unschedulable\":true}}" : "{\"spec\":{\"unschedulable\":false}}", &st, &j, err);
	if (rc == 0 && st / 100 != 2) {
		k8s_why(j, why, sizeof(why));
		rc = gl_errf(err, GL_EIO, "drain_worker: %s node %s: PATCH %s answered %ld%s%s",
			     on ? "cordon" : "uncordon", gl_param_str(plan, "node"), path, st, why[0] ? " " : "", why);
	}
	cJSON_Delete(j);
	return rc;
}

/* spec.unschedulable of the node, into *unsched (nodestate.c). */
static int k8s_unschedulable(const cJSON *plan, int *unsched, struct gl_err *err)
{
	return gl_k8s_get_unschedulable(plan, "drain_worker", unsched, err);
}

/* Evict one pod, retrying 429 with backoff until end_ns. */
static int k8s_evict(const cJSON *plan, const char *ns, const char *name, int64_t end_ns, struct gl_err *err)
{
	char path[700], why[300];
	int64_t backoff = 250LL * 1000000LL;
	cJSON *body = cJSON_CreateObject(), *md = cJSON_CreateObject();
	char *text;
	int rc = 0;

	cJSON_AddStringToObject(body, "apiVersion", "policy/v1");
	cJSON_AddStringToObject(body, "kind", "Eviction");
	cJSON_AddStringToObject(md, "name", name);
	cJSON_AddStringToObject(md, "namespace", ns);
	cJSON_AddItemToObject(body, "metadata", md);
	text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	if (!text)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s/eviction", ns, name);
	for (;;) {
		cJSON *j = NULL;
		long st = 0;
		rc = k8s_req(plan, "POST", path, "application/json", text, &st, &j, err);
		if (rc == 0 && st / 100 != 2 && st != 404) {
			k8s_why(j, why, sizeof(why));
			if (st == 429 && gl_now_ns() + backoff < end_ns) {
				gl_warn("drain_worker '%s': eviction of %s/%s refused for now (429%s%s); retrying in "
					"%lld ms",
					gl_param_str(plan, "id"), ns, name, why[0] ? " " : "", why,
					(long long)(backoff / 1000000));
				cJSON_Delete(j);
				gl_sleep_ns(backoff);
				backoff = backoff * 2 > 5000000000LL ? 5000000000LL : backoff * 2;
				continue;
			}
			rc = gl_errf(err, GL_EIO, "drain_worker: evict %s/%s: POST %s answered %ld%s%s%s", ns, name,
				     path, st, why[0] ? " " : "", why,
				     st == 429 ? " (still refused at the deadline)" : "");
		}
		cJSON_Delete(j);
		break;
	}
	free(text);
	return rc;
}

static int k8s_drain(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	const cJSON *for_ns = gl_param(plan, "for_ns");
	double scale = c ? gl_ctx_time_scale(c) : 1.0;
	int64_t budget = DW_EVICT_DEADLINE_NS, end;
	const char *node = gl_param_str(plan, "node");
	char path[512], why[300];
	cJSON *j = NULL;
	const cJSON *pod, *items = NULL;
	long st = 0;
	int rc, n = 0, skipped = 0;

	/* evictions retried past the fault's own end would only delay its revert */
	if (cJSON_IsNumber(for_ns) && for_ns->valuedouble > 0 && scale > 0 &&
	    for_ns->valuedouble / scale < (double)budget)
		budget = (int64_t)(for_ns->valuedouble / scale);
	end = gl_now_ns() + budget;
	rc = k8s_cordon(plan, 1, err);
	if (rc || !cJSON_IsTrue(gl_param(plan, "evict")))
		return rc;
	snprintf(path, sizeof(path), "/api/v1/pods?fieldSelector=spec.nodeName%%3D%s", node);
	rc = k8s_req(plan, "GET", path, NULL, NULL, &st, &j, err);
	if (rc == 0 && st != 200) {
		k8s_why(j, why, sizeof(why));
		rc = gl_errf(err, GL_EIO, "drain_worker: list pods on %s: GET %s answered %ld%s%s", node, path, st,
			     why[0] ? " " : "", why);
	}
	if (rc == 0)
		rc = gl_k8s_pod_items(j, DW_MAX_PODS, path, &items, err);
	cJSON_ArrayForEach(pod, items)
	{
		const char *name, *ns, *skip;
		int v = gl_k8s_pod_verdict(pod, &ns, &name, &skip);
		if (v == 1) {
			skipped++;
			continue;
		}
		if (v < 0) {
			rc = gl_errf(err, GL_EIO, "drain_worker: a pod on %s has an unusable name or namespace", node);
			break;
		}
		rc = k8s_evict(plan, ns, name, end, err);
		if (rc)
			break;
		n++;
	}
	if (rc == 0)
		gl_info("drain_worker '%s': node %s cordoned, %d pod(s) evicted, %d left (DaemonSet, mirror or "
			"finished)",
			gl_param_str(plan, "id"), node, n, skipped);
	cJSON_Delete(j);
	return rc;
}

static int k8s_wait(const cJSON *plan, int want, struct gl_err *err)
{
	int64_t end = gl_now_ns() + DW_VERIFY_WAIT_NS;
	for (;;) {
		struct gl_err e = { 0 };
		int u = -1, rc = k8s_unschedulable(plan, &u, &e);
		if (rc == 0 && u == want)
			return 0;
		if (gl_now_ns() >= end)
			return rc ? gl_errf(err, e.code, "%s", e.msg)
				  : gl_errf(err, GL_EIO, "drain_worker: node %s: spec.unschedulable is %s",
					    gl_param_str(plan, "node"), u ? "true" : "false");
		gl_sleep_ns(DW_POLL_NS);
	}
}

/* ---- steps -------------------------------------------------------------------- */

static enum dw_method plan_method(const cJSON *plan)
{
	return method_of(gl_param_str(plan, "method"));
}

static int dw_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case DW_SLURM:
		return is_rest(plan) ? rest_update(plan, "DRAIN", NULL, err) : run_ok(c, plan, "drain", NULL, err);
	case DW_K8S: return k8s_drain(c, plan, err);
	case DW_EXEC: return run_ok(c, plan, "drain", NULL, err);
	}
	return -GL_EINVAL;
}

static int dw_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case DW_SLURM: return slurm_wait(c, plan, 1, err);
	case DW_K8S: return k8s_wait(plan, 1, err);
	case DW_EXEC: return gl_param(plan, "check_drained") ? run_ok(c, plan, "check_drained", NULL, err) : 0;
	}
	return -GL_EINVAL;
}

static int dw_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case DW_SLURM:
		/* what Slurm says when the node is not drained (any more) */
		return is_rest(plan) ? rest_update(plan, "RESUME", "Invalid node state specified", err)
				     : run_ok(c, plan, "resume", "Invalid node state specified", err);
	case DW_K8S: return k8s_cordon(plan, 0, err);
	case DW_EXEC: return run_ok(c, plan, "resume", NULL, err);
	}
	return -GL_EINVAL;
}

static int dw_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	switch (plan_method(plan)) {
	case DW_SLURM: return slurm_wait(c, plan, 0, err);
	case DW_K8S: return k8s_wait(plan, 0, err);
	case DW_EXEC: {
		/* check_drained must now fail */
		struct gl_buf out = { 0 };
		int status = 0, rc;
		if (!gl_param(plan, "check_drained"))
			return 0;
		rc = run_cmd(c, plan, "check_drained", &status, &out, err);
		gl_buf_free(&out);
		if (rc == 0 && status == 0)
			rc = gl_errf(err, GL_EIO, "drain_worker: check_drained still exits 0 after resume");
		return rc;
	}
	}
	return -GL_EINVAL;
}

/* ---- preflight and dry run ---------------------------------------------------- */

static int dw_preflight(struct gl_ctx *c, const cJSON *plan)
{
	enum dw_method m = plan_method(plan);
	char subject[200];
	int bad = 0;

	snprintf(subject, sizeof(subject), "fault %s on host %s", gl_param_str(plan, "id"), gl_param_str(plan, "host"));
	if (m == DW_SLURM && is_rest(plan)) {
		struct gl_err e = { 0 };
		char st[128], check[300];
		int rc = rest_state(plan, st, sizeof(st), &e);
		snprintf(check, sizeof(check), "GET %s/slurm/%s/node/%s answers", gl_param_str(plan, "url"),
			 gl_param_str(plan, "api_version"), gl_param_str(plan, "node"));
		return gl_ctx_preflight(c, subject, check, rc == 0, rc ? e.msg : st);
	}
	if (m == DW_SLURM || m == DW_EXEC) {
		/* the program of each step exists on the host; for slurm also
		 * that the node is known to the controller */
		static const char *const steps[] = { "drain", "resume", "check_drained" };
		struct gl_host h;
		struct gl_err e = { 0 };
		if (gl_plan_host(c, plan, "drain_worker", &h, &e) != 0)
			return gl_ctx_preflight(c, subject, "target host known", 0, e.msg);
		for (size_t i = 0; i < GL_ARRAY_LEN(steps); i++) {
			const cJSON *prog = cJSON_GetArrayItem(gl_param(plan, steps[i]), 0);
			const char *cmd[] = { "sh", "-c", "command -v \"$1\" >/dev/null", "sh", NULL, NULL };
			struct gl_exec_result res = { 0 };
			char check[300];
			int rc;
			if (!cJSON_IsString(prog) || (m == DW_SLURM && i > 0))
				continue;
			cmd[4] = prog->valuestring;
			memset(&e, 0, sizeof(e));
			rc = gl_host_exec(&h, cmd, 15000, &res, &e);
			snprintf(check, sizeof(check), "%s program '%s' present", steps[i], prog->valuestring);
			bad |= gl_ctx_preflight(c, subject, check, rc == 0 && res.exit_status == 0,
						rc                ? e.msg
						: res.exit_status ? "not found on the host's PATH"
								  : "") != 0;
			gl_buf_free(&res.out);
		}
		if (m == DW_SLURM && !bad) {
			char st[128] = "", check[200];
			memset(&e, 0, sizeof(e));
			int rc = slurm_state(c, plan, st, sizeof(st), &e);
			snprintf(check, sizeof(check), "scontrol show node %s", gl_param_str(plan, "node"));
			bad |= gl_ctx_preflight(c, subject, check, rc == 0, rc ? e.msg : "") != 0;
		}
	} else {
		struct gl_err e = { 0 };
		char check[300];
		int u = 0, rc = k8s_unschedulable(plan, &u, &e);
		snprintf(check, sizeof(check), "GET %s/api/v1/nodes/%s answers", gl_param_str(plan, "api"),
			 gl_param_str(plan, "node"));
		bad |= gl_ctx_preflight(c, subject, check, rc == 0, rc ? e.msg : "") != 0;
	}
	return bad ? -1 : 0;
}

static void put_argv(struct gl_buf *out, const cJSON *argv)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, argv)
	{
		const char *s = cJSON_IsString(it) ? it->valuestring : "?";
		if (strpbrk(s, " \t'\"$\\") || !s[0]) {
			gl_buf_printf(out, " '");
			for (; *s; s++)
				gl_buf_printf(out, *s == '\'' ? "'\\''" : "%c", *s);
			gl_buf_printf(out, "'");
		} else {
			gl_buf_printf(out, " %s", s);
		}
	}
}

static void dw_describe(const cJSON *plan, struct gl_buf *out)
{
	enum dw_method m = plan_method(plan);
	const char *node = gl_param_str(plan, "node"), *api = gl_param_str(plan, "api");

	if (m == DW_SLURM && is_rest(plan)) {
		const char *url = gl_param_str(plan, "url"), *ver = gl_param_str(plan, "api_version"),
			   *r = gl_param_str(plan, "reason");
		if (!url || !ver || !node || !r)
			return;
		gl_buf_printf(out,
			      "  inject: POST %s/slurm/%s/node/%s (application/json) "
			      "{\"state\":[\"DRAIN\"],\"reason\":\"%s\"}\n",
			      url, ver, node, r);
		gl_buf_printf(out, "  verify: GET %s/slurm/%s/node/%s: nodes[0].state holds DRAIN\n", url, ver, node);
		gl_buf_printf(out,
			      "  revert: POST %s/slurm/%s/node/%s {\"state\":[\"RESUME\"]} ('Invalid node state "
			      "specified' counts as done)\n",
			      url, ver, node);
		gl_buf_printf(out, "  verify_revert: GET %s/slurm/%s/node/%s: no DRAIN in nodes[0].state\n", url, ver,
			      node);
		gl_buf_printf(out, "  credentials: JWT as bearer token from %s%s\n",
			      gl_param_str(plan, "token_env") ? "$" : "",
			      gl_param_str(plan, "token_env")    ? gl_param_str(plan, "token_env")
			      : gl_param_str(plan, "token_file") ? gl_param_str(plan, "token_file")
								 : "?");
		return;
	}
	if (m == DW_SLURM || m == DW_EXEC) {
		const char *ns = gl_param_str(plan, "netns");
		const char *verify = m == DW_SLURM ? "show" : "check_drained";
		if (ns && ns[0])
			gl_buf_printf(out, "  (every step runs under ip netns exec %s)\n", ns);
		gl_buf_printf(out, "  inject:");
		put_argv(out, gl_param(plan, "drain"));
		if (gl_param(plan, verify)) {
			gl_buf_printf(out, "\n  verify:");
			put_argv(out, gl_param(plan, verify));
			gl_buf_printf(out, m == DW_SLURM ? " (State= holds DRAIN)" : " (exits 0)");
		}
		gl_buf_printf(out, "\n  revert:");
		put_argv(out, gl_param(plan, "resume"));
		if (m == DW_SLURM)
			gl_buf_printf(out, " ('Invalid node state specified' counts as done)");
		if (gl_param(plan, verify)) {
			gl_buf_printf(out, "\n  verify_revert:");
			put_argv(out, gl_param(plan, verify));
			gl_buf_printf(out, m == DW_SLURM ? " (no DRAIN in State=)" : " (exits non-zero)");
		}
		gl_buf_printf(out, "\n");
		return;
	}
	if (!node || !api)
		return;
	gl_buf_printf(out,
		      "  inject: PATCH %s/api/v1/nodes/%s (application/merge-patch+json) "
		      "{\"spec\":{\"unschedulable\":true}}\n",
		      api, node);
	if (cJSON_IsTrue(gl_param(plan, "evict"))) {
		gl_buf_printf(out, "  inject: GET %s/api/v1/pods?fieldSelector=spec.nodeName%%3D%s\n", api, node);
		gl_buf_printf(
			out,
			"  inject: POST %s/api/v1/namespaces/NS/pods/NAME/eviction (policy/v1 Eviction) for each pod"
			" not owned by a DaemonSet, not mirror, not finished; 429 retried with backoff\n",
			api);
	}
	gl_buf_printf(out, "  verify: GET %s/api/v1/nodes/%s: spec.unschedulable is true\n", api, node);
	gl_buf_printf(out, "  revert: PATCH %s/api/v1/nodes/%s {\"spec\":{\"unschedulable\":false}}\n", api, node);
	gl_buf_printf(out, "  verify_revert: GET %s/api/v1/nodes/%s: spec.unschedulable is not true\n", api, node);
	gl_buf_printf(out, "  credentials: %s%s%s%s\n", gl_param_str(plan, "token_env") ? "bearer token from $" : "",
		      gl_param_str(plan, "token_env")    ? gl_param_str(plan, "token_env")
		      : gl_param_str(plan, "token_file") ? "bearer token from "
							 : "",
		      gl_param_str(plan, "token_file") ? gl_param_str(plan, "token_file") : "",
		      gl_param_str(plan, "client_cert") ? " client certificate" : "");
}

/* ---- dead-man's switch --------------------------------------------------------- */

#define DW_NONE_REST "drain_worker/slurm via slurmrestd acts through slurmrestd's API, not on a host"
#define DW_NONE_K8S "drain_worker/kubernetes acts through the Kubernetes API, not on a host"

/* What dw_revert runs on the host: plan "resume" (scontrol's, or the
 * user's own); the API methods have no host to run on. */
static int dw_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	enum dw_method m = plan_method(plan);
	int rc;

	if (m == DW_EXEC || (m == DW_SLURM && !is_rest(plan)))
		return gl_deadman_from_argv(c, plan, "drain_worker", "resume", NULL, h, script, err);
	if ((rc = gl_plan_host(c, plan, "drain_worker", h, err)) != 0)
		return rc;
	gl_buf_printf(script, "%s", m == DW_K8S ? DW_NONE_K8S : DW_NONE_REST);
	return GL_DEADMAN_NONE;
}

static const char *dw_deadman_none(const struct gl_fault_spec *f)
{
	const char *via = gl_param_str(f->params, "via");

	switch (method_of(f->method)) {
	case DW_SLURM: return via && !strcmp(via, "slurmrestd") ? DW_NONE_REST : NULL;
	case DW_K8S: return DW_NONE_K8S;
	case DW_EXEC: break;
	}
	return NULL;
}

/* The host drained (docs/nodes.md): the scenario host whose Slurm node
 * (its "slurm_node", else its name) or Kubernetes node ("k8s_node", else
 * its name) params.node names, the target itself when none is given; the
 * exec method's reach is its argv's: not known. */
static int dw_touches(const struct gl_scenario *s, const struct gl_fault_spec *f)
{
	enum dw_method m = method_of(f->method);
	const char *node = gl_param_str(f->params, "node"), *key = m == DW_K8S ? "k8s_node" : "slurm_node";

	if (m == DW_EXEC)
		return -1;
	if (!node)
		return gl_fault_touches_target(s, f);
	for (int i = 0; i < s->n_hosts; i++) {
		const char *n = host_str(&s->hosts[i], key);
		if (!strcmp(n ? n : s->hosts[i].name, node))
			return i;
	}
	return -1;
}

static const struct gl_fault_ops gl_fault_drain_worker = {
	.kind = "drain_worker",
	.methods = dw_methods,
	.validate = dw_validate,
	.check_files = dw_check_files,
	.plan = dw_plan,
	.inject = dw_inject,
	.verify = dw_verify,
	.revert = dw_revert,
	.verify_revert = dw_verify_revert,
	.describe = dw_describe,
	.preflight = dw_preflight,
	.deadman = dw_deadman,
	.deadman_none = dw_deadman_none,
	.sim = gl_sim_drain,
	.touches = dw_touches,
};
GL_REGISTER_FAULT(gl_fault_drain_worker, 10)
