/*
 * cplane_redfish.c - control_plane_loss's redfish method (control_plane_loss.c
 * describes it; cplane.h says which file owns what): the checks of its
 * params, and the requests to the BMC (libcurl through http.h, basic auth
 * from the environment): PowerState, ComputerSystem.Reset, waiting for a
 * state; and which injects the BMC refused in this process.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bodies.h"
#include "cplane.h"
#include "http.h"
#include "params.h"

void gl_cp_validate_redfish(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *bmc = gl_param(f->params, "bmc"), *sys = gl_param(f->params, "system"), *v;
	char p[256];

	snprintf(p, sizeof(p), "%s.params.bmc", path);
	if (!bmc)
		gl_diag_error(d, f->params, p, "missing: the BMC's base URL, like \"https://bmc-node1\"");
	else if (!cJSON_IsString(bmc) || !gl_cp_url_ok(bmc->valuestring, 1) || strchr(bmc->valuestring + 8, '/'))
		gl_diag_error(d, bmc, p,
			      "expected an https:// base URL without a path, like \"https://bmc-node1\" (credentials "
			      "go in user_env/pass_env)");
	snprintf(p, sizeof(p), "%s.params.system", path);
	if (!sys)
		gl_diag_error(d, f->params, p, "missing: the ComputerSystem path, like \"/redfish/v1/Systems/1\"");
	else if (!cJSON_IsString(sys) || strncmp(sys->valuestring, "/redfish/v1/", 12) ||
		 strlen(sys->valuestring) > 200 ||
		 strspn(sys->valuestring, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-") !=
			 strlen(sys->valuestring) ||
		 strstr(sys->valuestring, ".."))
		gl_diag_error(d, sys, p, "expected a path under /redfish/v1/ like \"/redfish/v1/Systems/1\"");
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "pass_env" : "user_env";
		snprintf(p, sizeof(p), "%s.params", path);
		if (!gl_param(f->params, key)) {
			snprintf(p, sizeof(p), "%s.params.%s", path, key);
			gl_diag_error(d, f->params, p, "missing: the environment variable holding the BMC %s",
				      i ? "password" : "user name");
		} else {
			gl_cp_check_env_name(f->params, d, p, key);
		}
	}
	if ((v = gl_param(f->params, "ca_bundle"))) {
		snprintf(p, sizeof(p), "%s.params.ca_bundle", path);
		if (!cJSON_IsString(v) || v->valuestring[0] != '/')
			gl_diag_error(d, v, p,
				      "expected the absolute path of the CA file that signed the BMC's certificate");
	}
	for (int i = 0; i < 2; i++) {
		static const char *const types[] = { "On",           "ForceOff", "GracefulShutdown", "GracefulRestart",
						     "ForceRestart", "Nmi",      "ForceOn",          "PushPowerButton",
						     "PowerCycle",   NULL };
		const char *key = i ? "on" : "off";
		int known = 0;
		if (!(v = gl_param(f->params, key)))
			continue;
		snprintf(p, sizeof(p), "%s.params.%s", path, key);
		for (int k = 0; types[k] && cJSON_IsString(v); k++)
			known |= !strcmp(v->valuestring, types[k]);
		if (!known)
			gl_diag_error(d, v, p, "expected a Redfish ResetType such as \"%s\"", i ? "On" : "ForceOff");
	}
	snprintf(p, sizeof(p), "%s.params", path);
	gl_cp_check_dur(f->params, d, p, "timeout");
}

/* ---- Redfish ----------------------------------------------------------------- */

/* Faults whose inject was refused by the BMC (HTTP 4xx before anything
 * happened) in this process: the clean-up revert the controller runs after
 * a failed inject has nothing to undo. A later process (gauntlet revert)
 * does not know this and asks the BMC. */
static pthread_mutex_t rf_mu = PTHREAD_MUTEX_INITIALIZER;
static char rf_refused[8][GL_NAME_MAX];

void gl_cp_rf_mark_refused(const char *id, int on)
{
	pthread_mutex_lock(&rf_mu);
	for (size_t i = 0; i < GL_ARRAY_LEN(rf_refused); i++) {
		if (on && !rf_refused[i][0]) {
			snprintf(rf_refused[i], sizeof(rf_refused[i]), "%s", id);
			break;
		}
		if (!on && !strcmp(rf_refused[i], id))
			rf_refused[i][0] = '\0';
	}
	pthread_mutex_unlock(&rf_mu);
}

int gl_cp_rf_was_refused(const char *id)
{
	int found = 0;
	pthread_mutex_lock(&rf_mu);
	for (size_t i = 0; i < GL_ARRAY_LEN(rf_refused) && !found; i++)
		found = rf_refused[i][0] && !strcmp(rf_refused[i], id);
	pthread_mutex_unlock(&rf_mu);
	return found;
}

static void rf_opts(const cJSON *plan, struct gl_http_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->basic_user_env = gl_param_str(plan, "user_env");
	o->basic_pass_env = gl_param_str(plan, "pass_env");
	o->ca_bundle = gl_param_str(plan, "ca_bundle");
	o->deadline_ms = 15000;
	o->max_body = 1u << 20;
}

/* GET the system; *state gets PowerState ("" when absent). */
int gl_cp_rf_power_state(const cJSON *plan, char *state, size_t n, struct gl_err *err)
{
	struct gl_http_opts o;
	struct gl_http_resp r;
	char url[700];
	int rc;

	rf_opts(plan, &o);
	state[0] = '\0';
	snprintf(url, sizeof(url), "%s%s", gl_param_str(plan, "bmc"), gl_param_str(plan, "system"));
	rc = gl_http_do("GET", url, NULL, NULL, &o, &r, err);
	if (rc)
		goto out;
	if (r.status != 200) {
		rc = gl_errf(err, GL_EIO, "redfish GET %s: HTTP %ld%s", url, r.status,
			     r.status == 401 || r.status == 403 ? " (check the credentials in user_env/pass_env)" : "");
		goto out;
	}
	if (gl_redfish_power_state(r.body.data, r.body.len, state, n) != 0)
		rc = gl_errf(err, GL_EIO, "redfish GET %s: the answer has no \"PowerState\"", url);
out:
	gl_buf_free(&r.body);
	return rc;
}

int gl_cp_rf_reset(const cJSON *plan, const char *type, int *refused, struct gl_err *err)
{
	struct gl_http_opts o;
	struct gl_http_resp r;
	char url[760], body[96];
	int rc;

	rf_opts(plan, &o);
	*refused = 0;
	snprintf(url, sizeof(url), "%s%s/Actions/ComputerSystem.Reset", gl_param_str(plan, "bmc"),
		 gl_param_str(plan, "system"));
	snprintf(body, sizeof(body), "{\"ResetType\": \"%s\"}", type);
	rc = gl_http_do("POST", url, "application/json", body, &o, &r, err);
	if (rc == 0 && r.status != 200 && r.status != 202 && r.status != 204) {
		*refused = r.status >= 400 && r.status < 500;
		rc = gl_errf(err, GL_EIO, "redfish POST %s (ResetType %s): HTTP %ld%s", url, type, r.status,
			     r.status == 401 || r.status == 403 ? " (check the credentials in user_env/pass_env)" : "");
	}
	gl_buf_free(&r.body);
	return rc;
}

/* Poll PowerState until it reads want, within the plan's timeout. */
int gl_cp_rf_wait_state(const cJSON *plan, const char *want, struct gl_err *err)
{
	int64_t deadline = gl_now_ns() + gl_param_dur_ns(plan, "timeout", CP_REDFISH_TIMEOUT_NS);
	char state[64] = "";
	struct gl_err e = { 0 };

	for (;;) {
		gl_err_clear(&e);
		if (gl_cp_rf_power_state(plan, state, sizeof(state), &e) == 0 && !strcmp(state, want))
			return 0;
		if (gl_now_ns() >= deadline)
			break;
		gl_sleep_ns(500000000LL);
	}
	if (e.code)
		return gl_errf(err, GL_ETIMEDOUT, "redfish: PowerState did not become %s: %s", want, e.msg);
	return gl_errf(err, GL_ETIMEDOUT, "redfish %s%s: PowerState is %s, not %s, after the timeout",
		       gl_param_str(plan, "bmc"), gl_param_str(plan, "system"), state, want);
}

const char *gl_cp_rf_type(const cJSON *plan, const char *key, const char *def)
{
	const char *s = gl_param_str(plan, key);
	return s ? s : def;
}
