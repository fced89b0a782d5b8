/*
 * drain_worker_validate.c - the drain_worker kind's params, checked per
 * method before anything runs: every value that reaches a command line or
 * a URL is checked for what it may hold.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "bodies.h"
#include "drain_worker_int.h"
#include "nodestate.h"
#include "params.h"
#include "units.h"

static const char *const dw_keys[][10] = {
	[DW_SLURM] = { "node", "reason", "via", "url", "token_env", "token_file", "ca_bundle", "api_version", NULL },
	[DW_K8S] = { "api", "node", "token_env", "token_file", "ca_bundle", "client_cert", "client_key", "evict",
		     NULL },
	[DW_EXEC] = { "drain", "resume", "check_drained", "timeout", NULL },
};

/* ---- values that reach commands and URLs ----------------------------------- */

static int reason_ok(const char *s)
{
	if (!s || !s[0] || strlen(s) > DW_REASON_MAX)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* http(s)://host[:port] without path, query or credentials */
/* "v0.0.40" */
static int api_version_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n < 2 || n > 16 || s[0] != 'v')
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && s[i] != '.')
			return 0;
	return 1;
}

/* ---- validation ----------------------------------------------------------- */

static void check_argv(const cJSON *params, struct gl_diag *d, const char *path, const char *key, int required)
{
	gl_params_check_argv(params, d, path, key, required, DW_MAX_ARGS, "method exec");
}

static void check_string(const cJSON *params, struct gl_diag *d, const char *path, const char *key,
			 int (*ok)(const char *), const char *expected)
{
	const cJSON *v = gl_param(params, key);
	char p[256];

	if (!v)
		return;
	snprintf(p, sizeof(p), "%s.params.%s", path, key);
	if (!cJSON_IsString(v) || (ok && !ok(v->valuestring)))
		gl_diag_error(d, v, p, "expected %s", expected);
}

static int nonempty(const char *s)
{
	return s && s[0] && strlen(s) < 1024;
}

static void validate_slurm(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *v;
	char p[256];

	check_string(f->params, d, path, "node", gl_slurm_node_ok,
		     "a Slurm node name: letters, digits and _ . - (at most 63, not starting with '-')");
	check_string(f->params, d, path, "reason", reason_ok,
		     "a non-empty string of at most 200 characters without control characters");
	v = gl_param(f->params, "via");
	snprintf(p, sizeof(p), "%s.params.via", path);
	if (v && (!cJSON_IsString(v) || (strcmp(v->valuestring, "scontrol") && strcmp(v->valuestring, "slurmrestd"))))
		gl_diag_error(d, v, p, "expected \"scontrol\" or \"slurmrestd\"");
	if (!(v && cJSON_IsString(v) && !strcmp(v->valuestring, "slurmrestd"))) {
		static const char *const rest_only[] = { "url", "token_env", "token_file", "ca_bundle", "api_version" };
		for (size_t i = 0; i < GL_ARRAY_LEN(rest_only); i++) {
			if ((v = gl_param(f->params, rest_only[i]))) {
				snprintf(p, sizeof(p), "%s.params.%s", path, rest_only[i]);
				gl_diag_error(d, v, p, "\"%s\" applies to \"via\": \"slurmrestd\" only", rest_only[i]);
			}
		}
		return;
	}
	snprintf(p, sizeof(p), "%s.params.url", path);
	if (!gl_param(f->params, "url"))
		gl_diag_error(d, f->params, p,
			      "\"via\": \"slurmrestd\" needs params.url, like \"https://slurm-ctl:6820\"");
	check_string(f->params, d, path, "url", gl_api_url_ok,
		     "the slurmrestd URL: https://HOST[:PORT] (http:// for a local test server), without a path");
	check_string(f->params, d, path, "token_env", gl_env_name_ok,
		     "the name of an environment variable holding the JWT");
	check_string(f->params, d, path, "token_file", nonempty, "a path to a file holding the JWT");
	check_string(f->params, d, path, "ca_bundle", nonempty, "a path to a CA bundle (PEM)");
	check_string(f->params, d, path, "api_version", api_version_ok, "an API version like \"v0.0.40\"");
	if (!gl_param(f->params, "token_env") == !gl_param(f->params, "token_file")) {
		snprintf(p, sizeof(p), "%s.params.token_env", path);
		gl_diag_error(d, f->params, p,
			      "\"via\": \"slurmrestd\" needs exactly one of \"token_env\" or \"token_file\" (a "
			      "Slurm JWT)");
	}
}

static void validate_k8s(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *v;
	char p[256];

	snprintf(p, sizeof(p), "%s.params.api", path);
	if (!gl_param(f->params, "api"))
		gl_diag_error(d, f->params, p,
			      "method kubernetes needs params.api, the API server URL like \"https://10.0.0.1:6443\"");
	check_string(f->params, d, path, "api", gl_api_url_ok,
		     "the API server URL: https://HOST[:PORT] (http:// for a local test server), without a path");
	check_string(f->params, d, path, "node", gl_k8s_name_ok,
		     "a Kubernetes node name: lowercase letters, digits, '-' and '.'");
	check_string(f->params, d, path, "token_env", gl_env_name_ok,
		     "the name of an environment variable holding the bearer token");
	check_string(f->params, d, path, "token_file", nonempty, "a path to a file holding the bearer token");
	check_string(f->params, d, path, "ca_bundle", nonempty, "a path to a CA bundle (PEM)");
	check_string(f->params, d, path, "client_cert", nonempty, "a path to a client certificate (PEM)");
	check_string(f->params, d, path, "client_key", nonempty, "a path to a client key (PEM)");
	gl_params_check_k8s_creds(f->params, d, path);
	v = gl_param(f->params, "evict");
	snprintf(p, sizeof(p), "%s.params.evict", path);
	if (v && !cJSON_IsBool(v))
		gl_diag_error(d, v, p, "expected true (cordon and evict the node's pods) or false (cordon only)");
}

static void validate_exec(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *v;
	char p[256];

	check_argv(f->params, d, path, "drain", 1);
	check_argv(f->params, d, path, "resume", 1);
	check_argv(f->params, d, path, "check_drained", 0);
	v = gl_param(f->params, "timeout");
	if (v) {
		int64_t ns;
		snprintf(p, sizeof(p), "%s.params.timeout", path);
		if (!cJSON_IsString(v) || gl_parse_duration_ns(v->valuestring, &ns, NULL) != 0 || ns <= 0)
			gl_diag_error(d, v, p, "expected a duration like \"30s\"");
	}
}

void dw_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	enum dw_method m = method_of(f->method);
	char p[256], what[64];

	if (f->dur_ns <= 0) {
		snprintf(p, sizeof(p), "%s.for", path);
		gl_diag_error(d, f->json, p,
			      "kind drain_worker needs \"for\": how long the worker stays drained (without it the "
			      "drain would be undone at once)");
	}
	if (!f->params) {
		if (m == DW_EXEC)
			gl_diag_error(d, f->json, path,
				      "method exec needs params with \"drain\" and \"resume\" argv arrays");
		else if (m == DW_K8S)
			gl_diag_error(d, f->json, path,
				      "method kubernetes needs params with \"api\" (like \"https://10.0.0.1:6443\") "
				      "and credentials");
		return;
	}
	snprintf(what, sizeof(what), "drain_worker method %s", dw_methods[m]);
	snprintf(p, sizeof(p), "%s.params", path);
	gl_params_check_keys(f->params, dw_keys[m], what, d, p);
	switch (m) {
	case DW_SLURM: validate_slurm(f, d, path); break;
	case DW_K8S: validate_k8s(f, d, path); break;
	case DW_EXEC: validate_exec(f, d, path); break;
	}
}
