/*
 * bodies.c - reading the answers of Kubernetes, slurmrestd, scontrol,
 * Redfish and etcd for the fault kinds (see bodies.h). Kept apart from the
 * plugins' I/O so that the fuzz target runs the very code the plugins do;
 * nothing here allocates beyond cJSON's own parse of a Redfish body, and
 * every copy is cut to its output buffer.
 */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "bodies.h"
#include "params.h"

/* ---- Kubernetes ------------------------------------------------------------- */

int gl_k8s_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > 253 || s[0] == '-' || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

void gl_k8s_status_why(const cJSON *status, char *out, size_t n)
{
	const char *msg = gl_param_str(status, "message"), *reason = gl_param_str(status, "reason");

	snprintf(out, n, "%s%s%s", reason ? reason : "", reason && msg ? ": " : "", msg ? msg : "");
}

int gl_k8s_node_unschedulable(const cJSON *node)
{
	return cJSON_IsTrue(gl_param(gl_param(node, "spec"), "unschedulable"));
}

int gl_k8s_pod_items(const cJSON *list, int max_pods, const char *what, const cJSON **items, struct gl_err *err)
{
	const cJSON *it = gl_param(list, "items");

	*items = NULL;
	if (!cJSON_IsArray(it))
		return gl_errf(err, GL_EIO, "drain_worker: %s: the reply has no \"items\" list", what);
	if (cJSON_GetArraySize(it) > max_pods)
		return gl_errf(err, GL_ELIMIT, "drain_worker: %s: more than %d pods", what, max_pods);
	*items = it;
	return 0;
}

int gl_k8s_pod_verdict(const cJSON *pod, const char **ns, const char **name, const char **skip)
{
	const cJSON *md = gl_param(pod, "metadata"), *owners = gl_param(md, "ownerReferences"), *o;
	const char *phase = gl_param_str(gl_param(pod, "status"), "phase");

	*ns = *name = *skip = NULL;
	if (!cJSON_IsArray(owners))
		owners = NULL;
	/* the drain leaves alone what it could not move or what is gone anyway */
	cJSON_ArrayForEach(o, owners)
	{
		const char *kind = gl_param_str(o, "kind");
		if (kind && !strcmp(kind, "DaemonSet")) {
			*skip = "DaemonSet";
			return 1;
		}
	}
	if (gl_param(gl_param(md, "annotations"), "kubernetes.io/config.mirror")) {
		*skip = "mirror pod";
		return 1;
	}
	if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"))) {
		*skip = "finished";
		return 1;
	}
	/* the names go into an eviction URL: only plain DNS names */
	if (!gl_k8s_name_ok(gl_param_str(md, "name")) || !gl_k8s_name_ok(gl_param_str(md, "namespace")))
		return -GL_EINVAL;
	*ns = gl_param_str(md, "namespace");
	*name = gl_param_str(md, "name");
	return 0;
}

/* ---- Slurm ---------------------------------------------------------------------- */

void gl_slurmrest_error(const cJSON *reply, char *out, size_t n)
{
	const cJSON *errs = gl_param(reply, "errors");
	const cJSON *e = cJSON_IsArray(errs) ? cJSON_GetArrayItem(errs, 0) : NULL;
	const char *desc = gl_param_str(e, "description"), *what = gl_param_str(e, "error");

	snprintf(out, n, "%s%s%s", what ? what : "", what && desc && desc[0] ? ": " : "", desc ? desc : "");
	if (e && !out[0])
		snprintf(out, n, "an error without description");
}

int gl_slurmrest_node_state(const cJSON *reply, char *st, size_t n)
{
	const cJSON *nodes = gl_param(reply, "nodes"), *state, *it;
	size_t used = 0;

	st[0] = '\0';
	state = gl_param(cJSON_IsArray(nodes) ? cJSON_GetArrayItem(nodes, 0) : NULL, "state");
	if (cJSON_IsString(state)) {
		snprintf(st, n, "%s", state->valuestring);
	} else if (cJSON_IsArray(state)) {
		cJSON_ArrayForEach(it, state)
		{
			if (!cJSON_IsString(it) || used + 1 >= n)
				continue;
			snprintf(st + used, n - used, "%s%s", used ? "+" : "", it->valuestring);
			used += strlen(st + used);
		}
	}
	return st[0] ? 0 : -GL_EINVAL;
}

int gl_scontrol_state(const char *text, size_t len, char *st, size_t n)
{
	static const char key[] = "State=";
	const char *p = text, *end = text ? text + len : NULL;
	size_t k;

	st[0] = '\0';
	/* the first State= that starts a field (not "MCSState=" or "PowerState=") */
	while (p && (p = memmem(p, (size_t)(end - p), key, sizeof(key) - 1)) && p != text &&
	       !isspace((unsigned char)p[-1]))
		p += sizeof(key) - 1;
	if (!p)
		return -GL_EINVAL;
	p += sizeof(key) - 1;
	for (k = 0; p + k < end && p[k] && !strchr(" \t\r\n", p[k]); k++)
		;
	snprintf(st, n, "%.*s", (int)(k < n ? k : n - 1), p);
	return 0;
}

int gl_ibstat_state(const char *text, size_t len, char *st, size_t n)
{
	static const char key[] = "State:";
	const char *p = text, *end = text ? text + len : NULL;

	st[0] = '\0';
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(eol - p) >= sizeof(key) - 1 && !memcmp(p, key, sizeof(key) - 1)) {
			size_t k = 0;
			p += sizeof(key) - 1;
			while (p < eol && (*p == ' ' || *p == '\t'))
				p++;
			for (; p + k < eol && p[k] && !strchr(" \t\r", p[k]); k++)
				;
			if (!k)
				return -GL_EINVAL;
			snprintf(st, n, "%.*s", (int)(k < n ? k : n - 1), p);
			return 0;
		}
		p = nl ? nl + 1 : NULL;
	}
	return -GL_EINVAL;
}

/* ---- DCGM ---------------------------------------------------------------------- */

int gl_dcgmi_dmon_value(const char *text, size_t len, int gpu, double *value)
{
	const char *p = text, *end = text ? text + len : NULL;

	*value = 0;
	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;
		const char *stop = eol ? eol : end;
		long id = -1;
		char tok[64];
		size_t k = 0;

		while (q < stop && (*q == ' ' || *q == '\t'))
			q++;
		/* "GPU" and a blank, not "GPU-I" or "GPU-CI" */
		if (stop - q > 4 && !memcmp(q, "GPU", 3) && (q[3] == ' ' || q[3] == '\t')) {
			q += 3;
			while (q < stop && (*q == ' ' || *q == '\t'))
				q++;
			if (q < stop && isdigit((unsigned char)*q)) {
				id = 0;
				while (q < stop && isdigit((unsigned char)*q) && id < 100000)
					id = id * 10 + (*q++ - '0');
				if (q < stop && *q != ' ' && *q != '\t')
					id = -1;
			}
		}
		if (id == gpu && gpu >= 0) {
			char *e;
			while (q < stop && (*q == ' ' || *q == '\t'))
				q++;
			while (q + k < stop && k + 1 < sizeof(tok) && !strchr(" \t\r", q[k]) && q[k])
				tok[k] = q[k], k++;
			tok[k] = '\0';
			if (!strcmp(tok, "N/A"))
				return 1;
			if (!k || !(isdigit((unsigned char)tok[0]) || tok[0] == '-'))
				return -GL_EINVAL;
			*value = strtod(tok, &e);
			if (*e || !isfinite(*value)) {
				*value = 0;
				return -GL_EINVAL;
			}
			return 0;
		}
		p = eol ? eol + 1 : NULL;
	}
	return -GL_EINVAL;
}

int gl_dcgmi_inject_ok(const char *text, size_t len)
{
	static const char ok[] = "Successfully injected";
	return text && memmem(text, len, ok, sizeof(ok) - 1) != NULL;
}

int gl_slurm_state_drained(const char *st)
{
	for (const char *p = st; *p;) {
		size_t k = strcspn(p, "+");
		if (k >= 5 && !strncmp(p, "DRAIN", 5) &&
		    (k == 5 || (k == 8 && !strncmp(p, "DRAINING", 8)) || (k == 7 && !strncmp(p, "DRAINED", 7))))
			return 1;
		p += k;
		if (*p == '+')
			p++;
	}
	return 0;
}

/* ---- Redfish, etcd ----------------------------------------------------------------- */

int gl_redfish_power_state(const char *body, size_t len, char *state, size_t n)
{
	cJSON *doc = body ? cJSON_ParseWithLength(body, len) : NULL;
	const char *ps = gl_param_str(doc, "PowerState");
	int rc = ps ? 0 : -GL_EINVAL;

	snprintf(state, n, "%s", ps ? ps : "");
	cJSON_Delete(doc);
	return rc;
}

static int has(const char *body, size_t len, const char *needle)
{
	return body && memmem(body, len, needle, strlen(needle)) != NULL;
}

int gl_etcd_health_ok(const char *body, size_t len)
{
	return has(body, len, "\"true\"");
}

int gl_etcd_put_ok(const char *body, size_t len)
{
	return has(body, len, "\"header\"") && !has(body, len, "\"error\"");
}

/* ---- model_swap: Deployments and model lists ------------------------------------ */

static double num_or(const cJSON *o, const char *key, double def)
{
	const cJSON *v = gl_param(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

int gl_k8s_rollout_done(const cJSON *dep, char *why, size_t n)
{
	const cJSON *spec = gl_param(dep, "spec"), *st = gl_param(dep, "status"), *c;
	double want = num_or(spec, "replicas", 1);
	double updated = num_or(st, "updatedReplicas", 0), total = num_or(st, "replicas", 0);
	double avail = num_or(st, "availableReplicas", 0);

	snprintf(why, n, "waiting for the new pods");
	cJSON_ArrayForEach(c, gl_param(st, "conditions"))
	{
		const char *type = gl_param_str(c, "type"), *reason = gl_param_str(c, "reason");
		const char *msg = gl_param_str(c, "message");
		if (type && !strcmp(type, "Progressing") && reason && !strcmp(reason, "ProgressDeadlineExceeded")) {
			snprintf(why, n, "the rollout exceeded its progress deadline: %.200s", msg ? msg : "");
			return -1;
		}
	}
	if (num_or(gl_param(dep, "metadata"), "generation", 0) > num_or(st, "observedGeneration", 0)) {
		snprintf(why, n, "the controller has not seen the new generation yet");
		return 0;
	}
	if (updated < want) {
		snprintf(why, n, "%g of %g replicas updated", updated, want);
		return 0;
	}
	if (total > updated) {
		snprintf(why, n, "%g old replicas pending termination", total - updated);
		return 0;
	}
	if (avail < updated) {
		snprintf(why, n, "%g of %g updated replicas available", avail, updated);
		return 0;
	}
	return 1;
}

int gl_k8s_container_index(const cJSON *dep, const char *name)
{
	const cJSON *cs = gl_param(gl_param(gl_param(gl_param(dep, "spec"), "template"), "spec"), "containers"), *c;
	int i = 0;

	if (!cJSON_IsArray(cs))
		return -1;
	if (!name)
		return cJSON_GetArraySize(cs) == 1 && cJSON_IsObject(cJSON_GetArrayItem(cs, 0)) ? 0 : -1;
	cJSON_ArrayForEach(c, cs)
	{
		const char *cn = gl_param_str(c, "name");
		if (cn && !strcmp(cn, name))
			return i;
		i++;
	}
	return -1;
}

int gl_oai_models_has(const cJSON *list, const char *id, const char *root, int *root_ok)
{
	const cJSON *it;

	*root_ok = 0;
	if (!id)
		return 0;
	cJSON_ArrayForEach(it, gl_param(list, "data"))
	{
		const char *i = gl_param_str(it, "id"), *r = gl_param_str(it, "root");
		if (i && !strcmp(i, id)) {
			*root_ok = !root || !r || !strcmp(r, root);
			return 1;
		}
	}
	return 0;
}
