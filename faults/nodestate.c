/*
 * nodestate.c - see nodestate.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "bodies.h"
#include "hostrun.h"
#include "http.h"
#include "nodestate.h"
#include "params.h"

#define NS_HTTP_TIMEOUT_MS 15000
#define NS_CMD_TIMEOUT_MS 30000

int gl_api_url_ok(const char *s)
{
	const char *h = gl_url_after_scheme(s);
	if (!h || strlen(s) > 200 || !*h)
		return 0;
	for (; *h; h++)
		if (!isalnum((unsigned char)*h) && !strchr(".-:[]", *h))
			return 0;
	return 1;
}

int gl_slurm_node_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > 63 || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return 0;
	return 1;
}

int gl_k8s_req(const cJSON *o, const char *kind, const char *method, const char *path, const char *ctype,
	       const char *body, long *status, cJSON **json, struct gl_err *err)
{
	struct gl_http_opts opts;
	struct gl_http_resp r = { 0 };
	char url[1024];
	int rc;

	gl_k8s_http_opts(o, &opts, NS_HTTP_TIMEOUT_MS, 32u << 20); /* a pod list of a busy node */
	/* kubernetes plans name the API server "api", slurmrestd ones "url" */
	snprintf(url, sizeof(url), "%s%s", gl_param_str(o, "api") ? gl_param_str(o, "api") : gl_param_str(o, "url"),
		 path);
	rc = gl_http_do(method, url, ctype, body, &opts, &r, err);
	*status = r.status;
	if (rc == 0 && json) {
		*json = r.body.data ? cJSON_ParseWithLength(r.body.data, r.body.len) : NULL;
		if (!*json && r.status / 100 == 2)
			rc = gl_errf(err, GL_EIO, "%s: %s %s: the reply is not JSON", kind, method, path);
	}
	gl_buf_free(&r.body);
	return rc;
}

int gl_k8s_get_unschedulable(const cJSON *o, const char *kind, int *unsched, struct gl_err *err)
{
	char path[512], why[300];
	cJSON *j = NULL;
	long st = 0;
	int rc;

	snprintf(path, sizeof(path), "/api/v1/nodes/%s", gl_param_str(o, "node"));
	rc = gl_k8s_req(o, kind, "GET", path, NULL, NULL, &st, &j, err);
	if (rc == 0 && st != 200) {
		gl_k8s_status_why(j, why, sizeof(why));
		rc = gl_errf(err, GL_EIO, "%s: GET %s answered %ld%s%s", kind, path, st, why[0] ? " " : "", why);
	}
	if (rc == 0)
		*unsched = gl_k8s_node_unschedulable(j);
	cJSON_Delete(j);
	return rc;
}

int gl_scontrol_node_state(const struct gl_host *h, const char *node, const char *kind, char *st, size_t n,
			   struct gl_err *err)
{
	const char *argv[] = { "scontrol", "show", "node", node, NULL };
	char out[8192];
	int status = 0, rc = gl_run_trim(h, argv, NS_CMD_TIMEOUT_MS, 0, kind, &status, out, sizeof(out), err);

	if (rc)
		return rc;
	if (status != 0 || gl_scontrol_state(out, strlen(out), st, n) != 0)
		rc = gl_errf(err, GL_EIO, "%s: scontrol show node %s on '%s' %s%s%s", kind, node, h->name,
			     status ? "failed" : "printed no State=", out[0] ? ": " : "", gl_first_line(out));
	return rc;
}
