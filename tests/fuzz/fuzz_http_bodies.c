/*
 * fuzz_http_bodies.c - fuzz target for faults/bodies.c: what drain_worker,
 * control_plane_loss and model_swap read from Kubernetes (pods, nodes,
 * Deployments), slurmrestd, scontrol, ibstat (fabric_port), dcgmi (gpu_xid), Redfish, etcd and OpenAI model lists. The input is one response body; every interpreter
 * sees it (the JSON ones through the same cJSON parse the plugins do),
 * once with the plugins' buffer sizes and once with tiny ones so the
 * truncation paths run. Outputs must stay NUL-terminated inside their
 * buffers and verdicts must be consistent, or the target aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bodies.h"

#define MAX_PODS 64 /* small, so the "too many pods" answer is reachable */

/* out must be a string that ends inside its n bytes */
static void check_str(const char *out, size_t n)
{
	if (!memchr(out, '\0', n))
		abort();
}

static void pods(const cJSON *j)
{
	const cJSON *items = NULL, *pod;
	struct gl_err err = { 0 };
	int rc = gl_k8s_pod_items(j, MAX_PODS, "GET /api/v1/pods", &items, &err);

	if (rc != 0 && (rc != -GL_EIO && rc != -GL_ELIMIT))
		abort();
	if ((rc == 0) != (items != NULL) || (rc != 0 && err.code == 0))
		abort(); /* a refusal must say why */
	cJSON_ArrayForEach(pod, items)
	{
		const char *ns, *name, *skip;
		int v = gl_k8s_pod_verdict(pod, &ns, &name, &skip);
		if (v == 0 && !(gl_k8s_name_ok(ns) && gl_k8s_name_ok(name) && !skip))
			abort();
		if (v == 1 && (!skip || ns || name))
			abort();
		if (v != 0 && v != 1 && v != -GL_EINVAL)
			abort();
	}
}

static void with_sizes(const uint8_t *data, size_t size, const cJSON *j, size_t n)
{
	char *out = malloc(n);
	size_t len;

	if (!out)
		return;
	gl_k8s_status_why(j, out, n);
	check_str(out, n);
	{
		int d = gl_k8s_rollout_done(j, out, n);
		if (d < -1 || d > 1)
			abort();
		check_str(out, n);
	}
	gl_slurmrest_error(j, out, n);
	check_str(out, n);
	if (gl_slurmrest_node_state(j, out, n) == 0 && !out[0])
		abort();
	check_str(out, n);
	(void)gl_slurm_state_drained(out);
	if (gl_scontrol_state((const char *)data, size, out, n) == 0) {
		len = strlen(out);
		if (len >= n || memchr(out, ' ', len) || memchr(out, '\n', len))
			abort();
	}
	check_str(out, n);
	(void)gl_slurm_state_drained(out);
	if (gl_ibstat_state((const char *)data, size, out, n) == 0) {
		len = strlen(out);
		if ((!len && n > 1) || len >= n || memchr(out, ' ', len) || memchr(out, '\n', len) ||
		    memchr(out, '\t', len))
			abort();
	} else if (out[0]) {
		abort(); /* no State: line: an empty answer */
	}
	check_str(out, n);
	if (gl_redfish_power_state((const char *)data, size, out, n) != 0 && out[0])
		abort(); /* no PowerState: an empty answer */
	check_str(out, n);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *j = cJSON_ParseWithLength((const char *)data, size);

	(void)gl_k8s_node_unschedulable(j);
	pods(j);
	{
		/* a container index is one of the list's; a model found by id */
		int i = gl_k8s_container_index(j, NULL), k = gl_k8s_container_index(j, "vllm"), root_ok = 7;
		const cJSON *cs = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "spec"),
								 "template"),
				"spec"),
			"containers");
		if (i < -1 || k < -1 || i >= cJSON_GetArraySize(cs) || k >= cJSON_GetArraySize(cs))
			abort();
		if (gl_oai_models_has(j, "sql", "/a", &root_ok) == 0 && root_ok != 0)
			abort();
		if (root_ok != 0 && root_ok != 1)
			abort();
	}
	with_sizes(data, size, j, 400);
	with_sizes(data, size, j, 5);
	with_sizes(data, size, j, 1);
	{
		/* dcgmi dmon: a reading is a finite number, a blank or nothing */
		double v = 1;
		for (int g = 0; g < 3; g++) {
			int r = gl_dcgmi_dmon_value((const char *)data, size, g, &v);
			if ((r != 0 && r != 1 && r != -GL_EINVAL) || (r != 0 && v != 0) || !(v == v))
				abort();
		}
		(void)gl_dcgmi_inject_ok((const char *)data, size);
	}
	(void)gl_etcd_health_ok((const char *)data, size);
	(void)gl_etcd_put_ok((const char *)data, size);
	/* the body as a string (name checks see every kind of byte) */
	if (size < 512) {
		char s[512];
		memcpy(s, data, size);
		s[size] = '\0';
		(void)gl_k8s_name_ok(s);
		(void)gl_slurm_state_drained(s);
	}
	cJSON_Delete(j);
	return 0;
}
