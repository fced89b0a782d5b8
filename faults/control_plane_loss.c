/*
 * control_plane_loss.c - the control_plane_loss fault kind: take one
 * control-plane member away (etcd, a Kubernetes API server, ...) and prove
 * with a control-plane probe that the cluster noticed and how long it took
 * to accept writes again.
 *
 * Methods:
 *   exec:    params {"stop": argv, "start": argv, "timeout": "30s"}: stop runs
 *            on the target host at inject, start at revert (through
 *            gl_host_exec; start must return, so a daemon must detach itself).
 *   signal:  params {"pid": N | "pidfile": PATH | "pattern": ERE (pgrep -f),
 *            "signal": "KILL" (default) | "STOP", "start": argv,
 *            "max_matches": 8, "state_dir": "/run/gauntlet", "log": PATH}.
 *            The selection rules are process_kill's (never pid 1, the script
 *            itself or its ancestors; broad patterns refused; the newest match
 *            only; "PID STARTTIME" recorded in a state file on the target
 *            before any signal). KILL: revert waits for the recorded pids to
 *            be gone, then starts "start" detached (setsid -f, stdio to "log",
 *            default /dev/null); "start" is required for KILL with "for".
 *            STOP: revert sends SIGCONT to the recorded pids.
 *   redfish: params {"bmc": "https://bmc", "system": "/redfish/v1/Systems/1",
 *            "user_env", "pass_env", "ca_bundle", "off": "ForceOff", "on": "On",
 *            "timeout": "60s"}: inject POSTs {"ResetType": off} to
 *            {system}/Actions/ComputerSystem.Reset, verify GETs {system} until
 *            "PowerState" is "Off", revert POSTs {"ResetType": on} unless the
 *            system is already On, verify_revert waits for "On". The requests
 *            go from the controller (libcurl, basic auth from the environment).
 *            Tested against tests/scripts/redfish_mock.py only; no real BMC
 *            can be reached from the test machines.
 *
 * Probe (params "probe", optional but the only way to prove the control
 * plane lost the member):
 *   {"etcd": ["http://h:2379", ...], "member": "http://h:2379", "timeout": "30s"}
 *   {"kubernetes": "https://api:6443", "token_env": VAR, "ca_bundle": PATH,
 *    "timeout": "30s"}
 * (either may add "ca_bundle", and "client_cert" + "client_key" for mTLS)
 * verify, after the method's own check: the member's endpoint ("member",
 * etcd) stops answering, then the cluster accepts a write: etcd through its
 * v3 JSON gateway (POST /v3/kv/put of key "gauntlet/probe" = a timestamp,
 * base64) against the other endpoints in turn, one try every 100 ms; for
 * Kubernetes GET /readyz until 200. verify succeeds only when writes
 * recovered within "timeout"; the time from the end of inject to the first
 * accepted write is logged ("control-plane recovery"). verify_revert: the
 * member answers again (etcd /health) and the cluster accepts a write.
 *
 * Every step works from the plan alone (committed before inject), in a later
 * process after a crash; every revert is idempotent. Commands run as argv
 * arrays or as one fixed sh script whose inputs travel in the environment
 * (the signal method's script shares process_kill's selection, procsel.h).
 *
 * This file: the kind (validate, plan, the steps, preflight, --dry-run)
 * and the exec method; the signal and redfish methods and the probe are
 * in cplane_signal.c, cplane_redfish.c and cplane_probe.c (cplane.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cplane.h"
#include "params.h"
#include "plan.h"
#include "units.h"

static const char *const cp_methods[] = { "exec", "signal", "redfish", NULL };
static const char *const cp_tools[] = { "sh", NULL };

/* ---- small helpers --------------------------------------------------------- */

/* for messages: the string or "?" */
static const char *str_or(const cJSON *o, const char *key)
{
	const char *s = gl_param_str(o, key);
	return s ? s : "?";
}

/* http(s)://host[:port] with an optional path, no spaces, no credentials */
int gl_cp_url_ok(const char *u, int https_only)
{
	const char *rest;
	if (!u || strlen(u) > 400)
		return 0;
	if (!strncmp(u, "https://", 8))
		rest = u + 8;
	else if (!https_only && !strncmp(u, "http://", 7))
		rest = u + 7;
	else
		return 0;
	if (!*rest || *rest == '/')
		return 0;
	for (const char *p = u; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
			return 0;
	return strchr(rest, '@') == NULL || strchr(rest, '/') < strchr(rest, '@');
}

void gl_cp_check_argv(const cJSON *o, struct gl_diag *d, const char *path, const char *key, int required,
		      const char *why)
{
	const cJSON *v = gl_param(o, key), *it;
	char p[256];

	snprintf(p, sizeof(p), "%s.params.%s", path, key);
	if (!v) {
		if (required)
			gl_diag_error(d, o, p, "missing: %s, an argv array like [\"systemctl\", \"start\", \"etcd\"]",
				      why);
		return;
	}
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > CP_MAX_ARGS - 16) {
		gl_diag_error(d, v, p, "expected a non-empty argv array of at most %d strings", CP_MAX_ARGS - 16);
		return;
	}
	cJSON_ArrayForEach(it, v) if (!cJSON_IsString(it))
	{
		gl_diag_error(d, it, p, "every argv element must be a string");
		return;
	}
}

void gl_cp_check_dur(const cJSON *o, struct gl_diag *d, const char *path, const char *key)
{
	const cJSON *t = gl_param(o, key);
	char p[256];
	int64_t ns;

	if (!t)
		return;
	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!cJSON_IsString(t) || gl_parse_duration_ns(t->valuestring, &ns, NULL) != 0 || ns <= 0)
		gl_diag_error(d, t, p, "expected a duration like \"30s\"");
}

void gl_cp_check_env_name(const cJSON *o, struct gl_diag *d, const char *path, const char *key)
{
	const cJSON *v = gl_param(o, key);
	char p[256];

	if (!v)
		return;
	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!cJSON_IsString(v) || !gl_env_name_ok(v->valuestring))
		gl_diag_error(
			d, v, p,
			"expected the name of an environment variable (the secret itself never goes in a scenario)");
}

/* ---- validate -------------------------------------------------------------- */

static void cp_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	static const char *const k_exec[] = { "stop", "start", "timeout", "probe", NULL };
	static const char *const k_signal[] = { "pid",         "pidfile",   "pattern", "signal", "start",
						"max_matches", "state_dir", "log",     "probe",  NULL };
	static const char *const k_redfish[] = { "bmc", "system", "user_env", "pass_env", "ca_bundle",
						 "off", "on",     "timeout",  "probe",    NULL };
	char p[256], what[96];
	const char *m = f->method;

	if (!f->params || !cJSON_IsObject(f->params)) {
		gl_diag_error(d, f->json, path,
			      "kind control_plane_loss needs params: for method exec {\"stop\": argv, \"start\": "
			      "argv}, signal {\"pid\"|\"pidfile\"|\"pattern\", \"start\": argv}, redfish {\"bmc\", "
			      "\"system\", \"user_env\", \"pass_env\"}");
		return;
	}
	snprintf(p, sizeof(p), "%s.params", path);
	snprintf(what, sizeof(what), "kind control_plane_loss, method %s", m);
	if (!strcmp(m, "exec")) {
		gl_params_check_keys(f->params, k_exec, what, d, p);
		gl_cp_check_argv(f->params, d, path, "stop", 1, "the command that stops the member");
		gl_cp_check_argv(f->params, d, path, "start", f->dur_ns > 0,
				 "the command that starts the member again (the fault has \"for\")");
		gl_cp_check_dur(f->params, d, p, "timeout");
	} else if (!strcmp(m, "signal")) {
		gl_params_check_keys(f->params, k_signal, what, d, p);
		gl_cp_validate_signal(f, d, path);
	} else if (!strcmp(m, "redfish")) {
		gl_params_check_keys(f->params, k_redfish, what, d, p);
		gl_cp_validate_redfish(f, d, path);
	} else {
		return; /* the scenario layer names the bad method */
	}
	if (gl_param(f->params, "probe")) {
		snprintf(p, sizeof(p), "%s.params.probe", path);
		gl_cp_validate_probe(gl_param(f->params, "probe"), d, p);
	}
}

/* ---- plan ------------------------------------------------------------------ */

static int cp_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	cJSON *p;
	int rc = 0;

	if (!h)
		return gl_errf(err, GL_EINVAL, "control_plane_loss: unknown host '%s'", f->target);
	p = cJSON_Duplicate(f->params, 1);
	if (!p)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(p, "id", f->id);
	cJSON_AddStringToObject(p, "method", f->method);
	gl_plan_put_host(p, h);
	if (!strcmp(f->method, "signal"))
		rc = gl_cp_plan_signal(f, p, err);
	if (rc) {
		cJSON_Delete(p);
		return rc;
	}
	*plan = p;
	return 0;
}

/* ---- running commands on the target ---------------------------------------- */

/* Run the argv array plan[key]; exit status 0 required. */
static int run_argv(struct gl_ctx *c, const cJSON *plan, const char *key, const char *step, int64_t timeout_ms,
		    struct gl_err *err)
{
	const cJSON *argv = gl_param(plan, key), *it;
	const char *args[CP_MAX_ARGS + 1];
	struct gl_host host;
	struct gl_exec_result res = { 0 };
	int n = 0, rc;

	if (!cJSON_IsArray(argv))
		return gl_errf(err, GL_EINVAL, "control_plane_loss: the plan has no %s command", step);
	cJSON_ArrayForEach(it, argv)
	{
		if (n >= CP_MAX_ARGS || !cJSON_IsString(it))
			return gl_errf(err, GL_EINVAL, "control_plane_loss: bad %s command in the plan", step);
		args[n++] = it->valuestring;
	}
	args[n] = NULL;
	rc = gl_plan_host(c, plan, "control_plane_loss", &host, err);
	if (rc)
		return rc;
	rc = gl_host_exec(&host, args, timeout_ms, &res, err);
	if (rc == 0 && res.exit_status != 0) {
		char out[300] = "";
		if (res.out.data) {
			snprintf(out, sizeof(out), "%s", res.out.data);
			out[strcspn(out, "\n")] = '\0';
		}
		if (!strcmp(key, step)) /* the user's own command */
			rc = gl_errf(err, GL_EIO, "control_plane_loss %s on '%s': '%s' exited %d%s%s", step, host.name,
				     args[0], res.exit_status, out[0] ? ": " : "", out);
		else
			rc = gl_errf(err, GL_EIO, "control_plane_loss %s on '%s': %s (exit %d)", step, host.name,
				     out[0] ? out : "the step's script failed", res.exit_status);
	}
	gl_buf_free(&res.out);
	return rc;
}

/* ---- the steps -------------------------------------------------------------------- */

static int is(const cJSON *plan, const char *method)
{
	const char *m = gl_param_str(plan, "method");
	return m && !strcmp(m, method);
}

static int64_t exec_timeout_ms(const cJSON *plan)
{
	return gl_param_dur_ns(plan, "timeout", CP_STEP_TIMEOUT_MS * 1000000LL) / 1000000;
}

static int cp_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	int refused = 0, rc;

	if (is(plan, "exec"))
		return run_argv(c, plan, "stop", "stop", exec_timeout_ms(plan), err);
	if (is(plan, "signal"))
		return run_argv(c, plan, "inject_argv", "inject", CP_STEP_TIMEOUT_MS, err);
	if (is(plan, "redfish")) {
		rc = gl_cp_rf_reset(plan, gl_cp_rf_type(plan, "off", "ForceOff"), &refused, err);
		if (rc && refused && gl_param_str(plan, "id"))
			gl_cp_rf_mark_refused(gl_param_str(plan, "id"), 1);
		return rc;
	}
	return gl_errf(err, GL_EINVAL, "control_plane_loss: unknown method '%s' in the plan",
		       gl_param_str(plan, "method") ? gl_param_str(plan, "method") : "?");
}

static int cp_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	int64_t t0 = gl_now_ns(); /* verify runs right after inject returns */
	int rc = 0;

	if (is(plan, "signal"))
		rc = run_argv(c, plan, "verify_argv", "verify", CP_STEP_TIMEOUT_MS, err);
	else if (is(plan, "redfish"))
		rc = gl_cp_rf_wait_state(plan, "Off", err);
	if (rc == 0)
		rc = gl_cp_probe_run(plan, 1, t0, err);
	return rc;
}

static int cp_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	char state[64];
	int refused, rc;

	if (is(plan, "exec"))
		return gl_param(plan, "start") ? run_argv(c, plan, "start", "start", exec_timeout_ms(plan), err) : 0;
	if (is(plan, "signal"))
		return run_argv(c, plan, "revert_argv", "revert", CP_STEP_TIMEOUT_MS, err);
	if (is(plan, "redfish")) {
		const char *id = gl_param_str(plan, "id");
		if (id && gl_cp_rf_was_refused(id)) {
			/* the BMC refused the power-off itself: nothing happened */
			gl_cp_rf_mark_refused(id, 0);
			return 0;
		}
		rc = gl_cp_rf_power_state(plan, state, sizeof(state), err);
		if (rc || !strcmp(state, "On"))
			return rc;
		return gl_cp_rf_reset(plan, gl_cp_rf_type(plan, "on", "On"), &refused, err);
	}
	return gl_errf(err, GL_EINVAL, "control_plane_loss: unknown method in the plan");
}

static int cp_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	int64_t t0 = gl_now_ns();
	int rc = 0;

	if (is(plan, "signal"))
		rc = run_argv(c, plan, "verify_revert_argv", "verify_revert", CP_STEP_TIMEOUT_MS, err);
	else if (is(plan, "redfish"))
		rc = gl_cp_rf_wait_state(plan, "On", err);
	if (rc == 0)
		rc = gl_cp_probe_run(plan, 0, t0, err);
	return rc;
}

/* ---- preflight and dry run --------------------------------------------------------- */

static int check_tool(struct gl_ctx *c, const cJSON *plan, const char *tool, const char *why)
{
	const char *cmd[] = { "sh", "-c", "command -v \"$1\" >/dev/null", "sh", tool, NULL };
	struct gl_exec_result res = { 0 };
	struct gl_err err = { 0 };
	struct gl_host h;
	char subject[160], check[200];
	int rc;

	rc = gl_plan_host(c, plan, "control_plane_loss", &h, &err);
	if (rc == 0)
		rc = gl_host_exec(&h, cmd, 15000, &res, &err);
	snprintf(subject, sizeof(subject), "control_plane_loss '%s' on host %s", gl_param_str(plan, "id"),
		 gl_param_str(plan, "host"));
	snprintf(check, sizeof(check), "'%s' present (%s)", tool, why);
	rc = gl_ctx_preflight(c, subject, check, rc == 0 && res.exit_status == 0,
			      rc                ? err.msg
			      : res.exit_status ? "not found on the host's PATH"
						: "");
	gl_buf_free(&res.out);
	return rc;
}

static int cp_preflight(struct gl_ctx *c, const cJSON *plan)
{
	const cJSON *probe = gl_param(plan, "probe"), *it;
	const char *id = gl_param_str(plan, "id");
	char subject[200], detail[300];
	int bad = 0;

	snprintf(subject, sizeof(subject), "control_plane_loss '%s'", id ? id : "?");
	if (is(plan, "exec")) {
		if (cJSON_IsString(cJSON_GetArrayItem(gl_param(plan, "stop"), 0)))
			bad |= check_tool(c, plan, cJSON_GetArrayItem(gl_param(plan, "stop"), 0)->valuestring,
					  "stop") != 0;
		if (cJSON_IsString(cJSON_GetArrayItem(gl_param(plan, "start"), 0)))
			bad |= check_tool(c, plan, cJSON_GetArrayItem(gl_param(plan, "start"), 0)->valuestring,
					  "start") != 0;
	} else if (is(plan, "signal")) {
		bad |= check_tool(c, plan, "kill", "signal") != 0;
		if (gl_param_str(plan, "pattern"))
			bad |= check_tool(c, plan, "pgrep", "pattern") != 0;
		if (gl_param(plan, "start")) {
			bad |= check_tool(c, plan, "setsid", "start detached") != 0;
			bad |= check_tool(c, plan, cJSON_GetArrayItem(gl_param(plan, "start"), 0)->valuestring,
					  "start") != 0;
		}
	} else if (is(plan, "redfish")) {
		char state[64];
		struct gl_err e = { 0 };
		int rc = gl_cp_rf_power_state(plan, state, sizeof(state), &e);
		snprintf(detail, sizeof(detail), "%s%s", rc ? e.msg : "PowerState ", rc ? "" : state);
		bad |= gl_ctx_preflight(c, subject, "the BMC answers and the system is powered On",
					rc == 0 && !strcmp(state, "On"), detail) != 0;
	}
	if (gl_param_str(probe, "kubernetes")) {
		bad |= gl_ctx_preflight(c, subject, "probe: kubernetes /readyz answers 200", gl_cp_k8s_ready(probe),
					gl_param_str(probe, "kubernetes")) != 0;
	} else if (probe) {
		cJSON_ArrayForEach(it, gl_param(probe, "etcd"))
		{
			char check[500];
			if (!cJSON_IsString(it))
				continue;
			snprintf(check, sizeof(check), "probe: etcd %s is healthy", it->valuestring);
			bad |= gl_ctx_preflight(c, subject, check, gl_cp_etcd_answers(probe, it->valuestring, 1),
						"GET /health") != 0;
		}
	}
	return bad ? -1 : 0;
}

/* " " and argv quoted as the shell takes it: what is shown is what runs. */
static void put_argv(struct gl_buf *out, const cJSON *argv)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, argv) if (cJSON_IsString(it))
	{
		gl_buf_printf(out, " ");
		gl_buf_append_word(out, it->valuestring);
	}
}

/* fmt's single %s is a value: quoted as one shell word. */
static void put_w(struct gl_buf *out, const char *before, const char *word, const char *after)
{
	gl_buf_printf(out, "%s", before);
	gl_buf_append_word(out, word);
	gl_buf_printf(out, "%s", after);
}

static void cp_describe(const cJSON *plan, struct gl_buf *out)
{
	const cJSON *probe = gl_param(plan, "probe"), *it;
	const char *ns = gl_param_str(plan, "netns"), *sig = gl_param_str(plan, "signal");

	if (ns && ns[0] && !is(plan, "redfish"))
		put_w(out, "  (every step runs under ip netns exec ", ns, ")\n");
	if (is(plan, "exec")) {
		gl_buf_printf(out, "  inject:");
		put_argv(out, gl_param(plan, "stop"));
		gl_buf_printf(out, "\n");
		if (gl_param(plan, "start")) {
			gl_buf_printf(out, "  revert:");
			put_argv(out, gl_param(plan, "start"));
			gl_buf_printf(out, "\n");
		}
	} else if (is(plan, "signal") && sig) {
		const char *file = gl_param_str(plan, "state_file");
		if (gl_param_str(plan, "pattern")) {
			put_w(out, "  inject: the newest of pgrep -f -- ", gl_param_str(plan, "pattern"), "");
			gl_buf_printf(out, " (refuse if more than %d match)",
				      gl_param(plan, "max_matches") ? gl_param(plan, "max_matches")->valueint
								    : CP_MAX_MATCHES_DEFAULT);
		} else if (gl_param_str(plan, "pidfile")) {
			put_w(out, "  inject: pid from ", gl_param_str(plan, "pidfile"), "");
		} else {
			gl_buf_printf(out, "  inject: pid %lld", (long long)gl_param(plan, "pid")->valuedouble);
		}
		put_w(out, " > ", file, "");
		gl_buf_printf(out, "; kill -%s <that pid>\n", sig);
		gl_buf_printf(out, "  verify: the pid is %s\n", !strcmp(sig, "STOP") ? "in state T" : "gone");
		if (!strcmp(sig, "STOP")) {
			put_w(out, "  revert: kill -CONT $(cat ", file, ")");
			put_w(out, "; rm -f ", file, "\n");
		} else {
			gl_buf_printf(out, "  revert: wait until the pid is gone;");
			if (gl_param(plan, "start")) {
				gl_buf_printf(out, " setsid -f");
				put_argv(out, gl_param(plan, "start"));
				put_w(out, " >> ", str_or(plan, "log"), ";");
			}
			put_w(out, " rm -f ", file, "\n");
		}
	} else if (is(plan, "redfish")) {
		gl_buf_printf(out,
			      "  inject: POST %s%s/Actions/ComputerSystem.Reset {\"ResetType\": \"%s\"} (basic auth "
			      "from $%s/$%s)\n",
			      str_or(plan, "bmc"), str_or(plan, "system"), gl_cp_rf_type(plan, "off", "ForceOff"),
			      str_or(plan, "user_env"), str_or(plan, "pass_env"));
		gl_buf_printf(out, "  verify: GET %s%s until \"PowerState\": \"Off\"\n", str_or(plan, "bmc"),
			      str_or(plan, "system"));
		gl_buf_printf(out, "  revert: POST {\"ResetType\": \"%s\"} unless PowerState is already On\n",
			      gl_cp_rf_type(plan, "on", "On"));
		gl_buf_printf(out, "  verify_revert: GET until \"PowerState\": \"On\"\n");
	}
	if (gl_param(probe, "etcd")) {
		gl_buf_printf(out, "  probe: member %s stops answering; POST /v3/kv/put every 100 ms to",
			      gl_param_str(probe, "member") ? gl_param_str(probe, "member") : "(none named)");
		cJSON_ArrayForEach(it, gl_param(probe,
						"etcd")) if (cJSON_IsString(it) &&
							     (!gl_param_str(probe, "member") ||
							      strcmp(it->valuestring, gl_param_str(probe, "member"))))
			gl_buf_printf(out, " %s", it->valuestring);
		gl_buf_printf(out, " until a write is accepted (verify fails otherwise)\n");
	} else if (gl_param_str(probe, "kubernetes")) {
		gl_buf_printf(out, "  probe: GET %s/readyz every 100 ms until 200 (verify fails otherwise)\n",
			      gl_param_str(probe, "kubernetes"));
	}
}

/* ---- dead-man's switch ------------------------------------------------------------- */

#define CP_NONE_REDFISH "control_plane_loss/redfish acts through the BMC's Redfish API, not on a host"
#define CP_NONE_EXEC "control_plane_loss/exec has no start command to revert with"

/* What cp_revert runs on the host: exec's "start", signal's revert_argv. */
static int cp_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	int rc;

	if (is(plan, "signal"))
		return gl_deadman_from_argv(c, plan, "control_plane_loss", "revert_argv", gl_cp_signal_script(), h,
					    script, err);
	if (is(plan, "exec") && gl_param(plan, "start"))
		return gl_deadman_from_argv(c, plan, "control_plane_loss", "start", NULL, h, script, err);
	if (!is(plan, "exec") && !is(plan, "redfish"))
		return gl_errf(err, GL_EINVAL, "control_plane_loss: unknown method in the plan");
	if ((rc = gl_plan_host(c, plan, "control_plane_loss", h, err)) != 0)
		return rc;
	gl_buf_printf(script, "%s", is(plan, "redfish") ? CP_NONE_REDFISH : CP_NONE_EXEC);
	return GL_DEADMAN_NONE;
}

static const char *cp_deadman_none(const struct gl_fault_spec *f)
{
	if (!strcmp(f->method, "redfish"))
		return CP_NONE_REDFISH;
	if (!strcmp(f->method, "exec") && !gl_param(f->params, "start"))
		return CP_NONE_EXEC;
	return NULL;
}

static const struct gl_fault_ops gl_fault_control_plane_loss = {
	.kind = "control_plane_loss",
	.methods = cp_methods,
	.validate = cp_validate,
	.plan = cp_plan,
	.inject = cp_inject,
	.verify = cp_verify,
	.revert = cp_revert,
	.verify_revert = cp_verify_revert,
	.describe = cp_describe,
	.tools = cp_tools,
	.preflight = cp_preflight,
	.deadman = cp_deadman,
	.deadman_none = cp_deadman_none,
};
GL_REGISTER_FAULT(gl_fault_control_plane_loss, 50)
