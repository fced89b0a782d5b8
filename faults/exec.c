/*
 * exec.c - the exec fault kind: the user's own inject and revert commands,
 * run on the target host through its transport (local, optionally inside
 * the host's netns, or ssh) with a deadline.
 *
 * params: {"inject": [argv...], "revert": [argv...],
 *          "verify": [argv...], "verify_revert": [argv...],   (optional)
 *          "timeout": "30s"}                                   (per command)
 * Commands are argv arrays, never passed through a shell by gauntlet; a
 * command that needs one says so itself (["sh", "-c", "..."]). A command
 * succeeds when it exits 0 within the timeout. The plan journaled before
 * inject holds the argv lists and the host, so revert works from the store
 * alone after a crash.
 */
#include <stdio.h>
#include <string.h>

#include "params.h"
#include "plan.h"
#include "plugin.h"

#define EXEC_MAX_ARGS 64

static void check_argv(const cJSON *a, struct gl_diag *d, const char *path, const char *key, int required)
{
	gl_params_check_argv(a, d, path, key, required, EXEC_MAX_ARGS, "kind exec");
}

static void ex_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = { "inject", "revert", "verify", "verify_revert", "timeout", NULL };
	const cJSON *t;
	char p[256];

	if (!f->params) {
		gl_diag_error(d, f->json, path, "kind exec needs params with \"inject\" and \"revert\" argv arrays");
		return;
	}
	snprintf(p, sizeof(p), "%s.params", path);
	gl_params_check_keys(f->params, keys, "kind exec", d, p);
	check_argv(f->params, d, path, "inject", 1);
	check_argv(f->params, d, path, "revert", f->dur_ns > 0);
	check_argv(f->params, d, path, "verify", 0);
	check_argv(f->params, d, path, "verify_revert", 0);
	t = gl_param(f->params, "timeout");
	if (t) {
		int64_t ns;
		snprintf(p, sizeof(p), "%s.params.timeout", path);
		if (!cJSON_IsString(t) || gl_parse_duration_ns(t->valuestring, &ns, NULL) != 0 || ns <= 0)
			gl_diag_error(d, t, p, "expected a duration like \"30s\"");
	}
}

static int ex_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	cJSON *p;

	if (!h)
		return gl_errf(err, GL_EINVAL, "exec: unknown host '%s'", f->target);
	p = cJSON_Duplicate(f->params, 1);
	if (!p)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	gl_plan_put_host(p, h);
	*plan = p;
	return 0;
}

/* Run plan[key] on the plan's host (looked up in the scenario, which a
 * resumed or reverting gauntlet reloads from the store). Missing optional
 * step: success. */
static int run_step(struct gl_ctx *c, const cJSON *plan, const char *key, int required, struct gl_err *err)
{
	const cJSON *argv = gl_param(plan, key), *it;
	const cJSON *t = gl_param(plan, "timeout");
	const char *args[EXEC_MAX_ARGS + 1];
	struct gl_host host;
	struct gl_exec_result res;
	int64_t timeout_ns = 30000000000LL;
	int n = 0, rc;

	if (!cJSON_IsArray(argv))
		return required ? gl_errf(err, GL_EINVAL, "exec: plan has no %s command", key) : 0;
	cJSON_ArrayForEach(it, argv)
	{
		if (n >= EXEC_MAX_ARGS || !cJSON_IsString(it))
			return gl_errf(err, GL_EINVAL, "exec: bad %s argv in plan", key);
		args[n++] = it->valuestring;
	}
	args[n] = NULL;
	if (cJSON_IsString(t))
		gl_parse_duration_ns(t->valuestring, &timeout_ns, NULL);
	if ((rc = gl_plan_host(c, plan, "exec", &host, err)) != 0)
		return rc;
	rc = gl_host_exec(&host, args, timeout_ns / 1000000, &res, err);
	if (rc == 0 && res.exit_status != 0) {
		/* the command's own words, trimmed, for the journal */
		char out[200] = "";
		if (res.out.data) {
			snprintf(out, sizeof(out), "%s", res.out.data);
			out[strcspn(out, "\n")] = '\0';
		}
		rc = gl_errf(err, GL_EIO, "exec %s: '%s' exited %d%s%s", key, args[0], res.exit_status,
			     out[0] ? ": " : "", out);
	}
	gl_buf_free(&res.out);
	return rc;
}

static int ex_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "inject", 1, err);
}
static int ex_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "verify", 0, err);
}
static int ex_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "revert", 0, err);
}
static int ex_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "verify_revert", 0, err);
}

/* Each step's program must exist on the host. */
static int ex_preflight(struct gl_ctx *c, const cJSON *plan)
{
	static const char *const steps[] = { "inject", "verify", "revert", "verify_revert" };
	const cJSON *hn = gl_param(plan, "host");
	const struct gl_host *h = cJSON_IsString(hn) ? gl_scenario_host(gl_ctx_scenario(c), hn->valuestring) : NULL;
	int bad = 0;

	for (size_t i = 0; h && i < GL_ARRAY_LEN(steps); i++) {
		const cJSON *argv = gl_param(plan, steps[i]);
		const cJSON *prog = cJSON_GetArrayItem(argv, 0);
		const char *cmd[] = { "sh", "-c", "command -v \"$1\" >/dev/null", "sh", NULL, NULL };
		struct gl_exec_result res;
		struct gl_err err = { 0 };
		char subject[160], check[300];
		int rc;

		if (!cJSON_IsString(prog))
			continue;
		cmd[4] = prog->valuestring;
		rc = gl_host_exec(h, cmd, 15000, &res, &err);
		snprintf(subject, sizeof(subject), "exec fault on host %s", h->name);
		snprintf(check, sizeof(check), "%s program '%s' present", steps[i], prog->valuestring);
		bad |= gl_ctx_preflight(c, subject, check, rc == 0 && res.exit_status == 0,
					rc                ? err.msg
					: res.exit_status ? "not found on the host's PATH"
							  : "") != 0;
		gl_buf_free(&res.out);
	}
	return bad ? -1 : 0;
}

static void ex_describe(const cJSON *plan, struct gl_buf *out)
{
	static const char *const steps[] = { "inject", "verify", "revert", "verify_revert" };
	const cJSON *ns = gl_param(plan, "netns");

	for (size_t i = 0; i < GL_ARRAY_LEN(steps); i++) {
		const cJSON *argv = gl_param(plan, steps[i]), *it;
		if (!cJSON_IsArray(argv))
			continue;
		const char *words[EXEC_MAX_ARGS + 5];
		int n = 0;
		if (cJSON_IsString(ns) && ns->valuestring[0]) {
			words[n++] = "ip";
			words[n++] = "netns";
			words[n++] = "exec";
			words[n++] = ns->valuestring;
		}
		cJSON_ArrayForEach(it, argv) if (cJSON_IsString(it) && n < (int)GL_ARRAY_LEN(words) - 1)
			words[n++] = it->valuestring;
		words[n] = NULL;
		/* quoted as the shell takes it: what is shown is what runs */
		gl_buf_printf(out, "  %s: ", steps[i]);
		gl_buf_append_argv(out, words);
		gl_buf_printf(out, "\n");
	}
}

/* The watcher runs the user's revert argv as it is: exec's revert step. */
static int ex_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	int rc;

	if (!gl_param(plan, "revert")) {
		if ((rc = gl_plan_host(c, plan, "exec", h, err)) != 0)
			return rc;
		gl_buf_printf(script, "exec fault has no revert command");
		return GL_DEADMAN_NONE;
	}
	return gl_deadman_from_argv(c, plan, "exec", "revert", NULL, h, script, err);
}

static const char *ex_deadman_none(const struct gl_fault_spec *f)
{
	return gl_param(f->params, "revert") ? NULL : "exec fault has no revert command";
}

/* validate's question (plugin.h): an exec fault's commands can do
 * anything; on one of the processes' hosts, or naming them in its inject
 * command, it may end them. */
static int ex_ends(const struct gl_fault_spec *f, const struct gl_proc_view *p, char *why, size_t n)
{
	const cJSON *a;
	int named = 0;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(f->params, "inject"))
		named |= cJSON_IsString(a) && gl_proc_named(p, a->valuestring);
	if (!named && !gl_proc_on_host(p, f->target))
		return GL_ENDS_NO;
	if (why)
		snprintf(why, n, "its commands %s", named ? "name its processes" : "run on one of its hosts");
	return GL_ENDS_MAYBE;
}

static const struct gl_fault_ops gl_fault_exec = {
	.kind = "exec",
	.validate = ex_validate,
	.plan = ex_plan,
	.inject = ex_inject,
	.verify = ex_verify,
	.revert = ex_revert,
	.verify_revert = ex_verify_revert,
	.describe = ex_describe,
	.preflight = ex_preflight,
	.deadman = ex_deadman,
	.deadman_none = ex_deadman_none,
	.ends = ex_ends,
};
GL_REGISTER_FAULT(gl_fault_exec, 80)
