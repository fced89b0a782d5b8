/*
 * cplane_probe.c - control_plane_loss's control-plane probe
 * (control_plane_loss.c describes it; cplane.h says which file owns what):
 * the checks of its params, and the requests: etcd's /health and v3 JSON
 * gateway writes, Kubernetes /readyz; probe_run proves the member was lost
 * (or is back) and times the cluster's recovery.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bodies.h"
#include "cplane.h"
#include "http.h"
#include "params.h"

void gl_cp_validate_probe(const cJSON *probe, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = { "etcd",        "member",     "kubernetes", "token_env", "ca_bundle",
					    "client_cert", "client_key", "timeout",    NULL };
	const cJSON *etcd = gl_param(probe, "etcd"), *k8s = gl_param(probe, "kubernetes"),
		    *member = gl_param(probe, "member"), *it;
	char p[256];

	if (!cJSON_IsObject(probe)) {
		gl_diag_error(d, probe, path,
			      "expected an object like {\"etcd\": [\"http://10.0.0.1:2379\", ...], \"member\": "
			      "\"http://10.0.0.1:2379\"} or {\"kubernetes\": \"https://api:6443\", \"token_env\": "
			      "\"KUBE_TOKEN\"}");
		return;
	}
	gl_params_check_keys(probe, keys, "the control-plane probe", d, path);
	if (!etcd == !k8s) {
		gl_diag_error(d, probe, path,
			      "the probe needs exactly one of \"etcd\" (a list of client URLs) or \"kubernetes\" (the "
			      "API server URL)");
		return;
	}
	if (etcd) {
		int n = 0, others = 0;
		snprintf(p, sizeof(p), "%s.etcd", path);
		if (!cJSON_IsArray(etcd) || cJSON_GetArraySize(etcd) == 0 ||
		    cJSON_GetArraySize(etcd) > CP_MAX_ENDPOINTS) {
			gl_diag_error(d, etcd, p,
				      "expected a list of 1 to %d etcd client URLs like \"http://10.0.0.1:2379\"",
				      CP_MAX_ENDPOINTS);
		} else {
			cJSON_ArrayForEach(it, etcd)
			{
				snprintf(p, sizeof(p), "%s.etcd[%d]", path, n++);
				if (!cJSON_IsString(it) || !gl_cp_url_ok(it->valuestring, 0))
					gl_diag_error(d, it, p,
						      "expected an http:// or https:// URL of an etcd client endpoint");
				else if (!cJSON_IsString(member) || strcmp(it->valuestring, member->valuestring))
					others++;
			}
			if (cJSON_IsString(member) && others == 0) {
				snprintf(p, sizeof(p), "%s.etcd", path);
				gl_diag_error(d, etcd, p,
					      "list the other members too: writes are probed against the endpoints "
					      "other than \"member\"");
			}
		}
		if (member) {
			snprintf(p, sizeof(p), "%s.member", path);
			if (!cJSON_IsString(member) || !gl_cp_url_ok(member->valuestring, 0))
				gl_diag_error(d, member, p,
					      "expected the client URL of the member this fault takes away");
		}
		if (gl_param(probe, "token_env")) {
			snprintf(p, sizeof(p), "%s.token_env", path);
			gl_diag_error(d, gl_param(probe, "token_env"), p,
				      "\"token_env\" applies to the kubernetes probe only");
		}
	} else {
		snprintf(p, sizeof(p), "%s.kubernetes", path);
		if (!cJSON_IsString(k8s) || !gl_cp_url_ok(k8s->valuestring, 0))
			gl_diag_error(d, k8s, p, "expected the API server's URL like \"https://10.0.0.1:6443\"");
		if (member) {
			snprintf(p, sizeof(p), "%s.member", path);
			gl_diag_error(d, member, p, "\"member\" applies to the etcd probe only");
		}
		gl_cp_check_env_name(probe, d, path, "token_env");
	}
	for (int i = 0; i < 3; i++) {
		static const char *const files[] = { "ca_bundle", "client_cert", "client_key" };
		const cJSON *v = gl_param(probe, files[i]);
		if (!v)
			continue;
		snprintf(p, sizeof(p), "%s.%s", path, files[i]);
		if (!cJSON_IsString(v) || v->valuestring[0] != '/')
			gl_diag_error(d, v, p, "expected the absolute path of a %s file", i ? "PEM" : "CA");
	}
	if (!gl_param(probe, "client_cert") != !gl_param(probe, "client_key")) {
		snprintf(p, sizeof(p), "%s.%s", path, gl_param(probe, "client_cert") ? "client_key" : "client_cert");
		gl_diag_error(d, probe, p, "missing: \"client_cert\" and \"client_key\" go together (mTLS)");
	}
	gl_cp_check_dur(probe, d, path, "timeout");
}

/* ---- the control-plane probe ---------------------------------------------------- */

static void b64(const char *in, char *out, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = strlen(in), o = 0;

	for (size_t i = 0; i < len && o + 5 < n; i += 3) {
		unsigned v = (unsigned char)in[i] << 16;
		if (i + 1 < len)
			v |= (unsigned char)in[i + 1] << 8;
		if (i + 2 < len)
			v |= (unsigned char)in[i + 2];
		out[o++] = t[(v >> 18) & 63];
		out[o++] = t[(v >> 12) & 63];
		out[o++] = i + 1 < len ? t[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < len ? t[v & 63] : '=';
	}
	out[o] = '\0';
}

static void probe_opts(const cJSON *probe, struct gl_http_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->token_env = gl_param_str(probe, "token_env");
	o->ca_bundle = gl_param_str(probe, "ca_bundle");
	o->client_cert = gl_param_str(probe, "client_cert");
	o->client_key = gl_param_str(probe, "client_key");
	o->deadline_ms = CP_PROBE_TRY_MS;
	o->max_body = 64u << 10;
}

/* 1 when the endpoint gives any HTTP answer to GET /health within a try */
int gl_cp_etcd_answers(const cJSON *probe, const char *ep, int need_healthy)
{
	struct gl_http_opts o;
	struct gl_http_resp r;
	char url[600];
	int ok;

	probe_opts(probe, &o);
	snprintf(url, sizeof(url), "%s/health", ep);
	ok = gl_http_do("GET", url, NULL, NULL, &o, &r, NULL) == 0 && r.status > 0;
	if (ok && need_healthy)
		ok = r.status == 200 && gl_etcd_health_ok(r.body.data, r.body.len);
	gl_buf_free(&r.body);
	return ok;
}

/* One write through the v3 JSON gateway; 1 when the cluster accepted it. */
static int etcd_put(const cJSON *probe, const char *ep)
{
	struct gl_http_opts o;
	struct gl_http_resp r;
	char url[600], val[64], k64[64], v64[96], body[256];
	int ok;

	probe_opts(probe, &o);
	snprintf(url, sizeof(url), "%s/v3/kv/put", ep);
	snprintf(val, sizeof(val), "%lld", (long long)gl_wall_ns());
	b64("gauntlet/probe", k64, sizeof(k64));
	b64(val, v64, sizeof(v64));
	snprintf(body, sizeof(body), "{\"key\": \"%s\", \"value\": \"%s\"}", k64, v64);
	ok = gl_http_do("POST", url, "application/json", body, &o, &r, NULL) == 0 && r.status == 200 &&
	     gl_etcd_put_ok(r.body.data, r.body.len);
	gl_buf_free(&r.body);
	return ok;
}

int gl_cp_k8s_ready(const cJSON *probe)
{
	struct gl_http_opts o;
	struct gl_http_resp r;
	char url[600];
	int ok;

	probe_opts(probe, &o);
	snprintf(url, sizeof(url), "%s/readyz", gl_param_str(probe, "kubernetes"));
	ok = gl_http_do("GET", url, NULL, NULL, &o, &r, NULL) == 0 && r.status == 200;
	gl_buf_free(&r.body);
	return ok;
}

/*
 * after_inject 1: the member stops answering, then a write is accepted.
 * after_inject 0 (verify_revert): the member answers healthy again, and a
 * write is accepted. t0 is when the fault took effect (end of inject).
 */
int gl_cp_probe_run(const cJSON *plan, int after_inject, int64_t t0, struct gl_err *err)
{
	const cJSON *probe = gl_param(plan, "probe"), *etcd = gl_param(probe, "etcd"), *it;
	const char *member = gl_param_str(probe, "member"), *id = gl_param_str(plan, "id");
	int64_t timeout = gl_param_dur_ns(probe, "timeout", CP_PROBE_TIMEOUT_NS), deadline = t0 + timeout;
	int64_t t_gone = -1, t_write;
	const char *eps[CP_MAX_ENDPOINTS];
	int n_eps = 0, tries = 0;

	if (!probe)
		return 0;
	if (!id)
		id = "?";
	if (gl_param_str(probe, "kubernetes")) {
		for (;;) {
			tries++;
			if (gl_cp_k8s_ready(probe))
				break;
			if (gl_now_ns() >= deadline)
				return gl_errf(err, GL_ETIMEDOUT,
					       "probe: %s/readyz did not answer 200 within %.1f s (%d tries)",
					       gl_param_str(probe, "kubernetes"), timeout / 1e9, tries);
			gl_sleep_ns(CP_PROBE_PERIOD_NS);
		}
		t_write = gl_now_ns();
		gl_fault_measure(NULL, after_inject ? "control_plane_recovery_s" : "control_plane_back_s",
				 (t_write - t0) / 1e9);
		gl_info("control_plane_loss '%s': %s: kubernetes /readyz answered 200 %.3f s after %s (%d tries)", id,
			after_inject ? "control-plane recovery" : "control plane back", (t_write - t0) / 1e9,
			after_inject ? "inject" : "revert", tries);
		return 0;
	}
	cJSON_ArrayForEach(it, etcd) if (cJSON_IsString(it) && n_eps < CP_MAX_ENDPOINTS &&
					 (!member || strcmp(it->valuestring, member))) eps[n_eps++] = it->valuestring;
	if (n_eps == 0)
		return gl_errf(err, GL_EINVAL, "probe: no etcd endpoint besides the member to write to");
	if (member) {
		/* the member is gone (no answer) after inject, back and healthy after revert */
		int64_t gone_deadline = after_inject ? t0 + CP_GONE_WAIT_NS : deadline;
		for (;;) {
			if (gl_cp_etcd_answers(probe, member, !after_inject) != after_inject)
				break;
			if (gl_now_ns() >= gone_deadline)
				return gl_errf(err, GL_ETIMEDOUT,
					       after_inject ? "probe: the member %s still answers %.0f s after inject"
							    : "probe: the member %s is not healthy again within %.1f s",
					       member, (gone_deadline - t0) / 1e9);
			gl_sleep_ns(CP_PROBE_PERIOD_NS);
		}
		t_gone = gl_now_ns();
	}
	for (;;) {
		const char *ep = eps[tries % n_eps];
		tries++;
		if (etcd_put(probe, ep)) {
			t_write = gl_now_ns();
			gl_fault_measure(NULL, after_inject ? "control_plane_recovery_s" : "control_plane_back_s",
					 (t_write - t0) / 1e9);
			if (after_inject)
				gl_info("control_plane_loss '%s': control-plane recovery: etcd accepted a write %.3f s "
					"after inject (via %s, try %d)%s%s%s",
					id, (t_write - t0) / 1e9, ep, tries, member ? "; member " : "",
					member ? member : "", member ? " stopped answering" : "");
			else
				gl_info("control_plane_loss '%s': control plane back: member %s healthy, write "
					"accepted %.3f s after revert (via %s)",
					id, member ? member : "-", (t_write - t0) / 1e9, ep);
			(void)t_gone;
			return 0;
		}
		if (gl_now_ns() >= deadline)
			return gl_errf(err, GL_ETIMEDOUT,
				       "probe: etcd accepted no write within %.1f s %s (%d tries against %d "
				       "endpoint(s)); the control plane did not recover",
				       timeout / 1e9, after_inject ? "after inject" : "after revert", tries, n_eps);
		gl_sleep_ns(CP_PROBE_PERIOD_NS);
	}
}
