/*
 * gpu_xid.c - the gpu_xid fault kind: make DCGM report an XID error on
 * some GPUs of the target host, by field injection, and measure whether
 * (and how fast) the cluster's own automation takes the node out of
 * service.
 *
 * params: {"gpus": [0] (DCGM GPU ids, default [0]), "xid": 79 (the value
 * injected, default 79: GPU has fallen off the bus), "field": 230 (default
 * DCGM_FI_DEV_XID_ERRORS), "every": "1s" (how often it is injected again),
 * "state_dir": "/run/gauntlet" (where the loop's record lives),
 * "detect": {"kubernetes": {"api": URL, "node": N, "token_env" |
 * "token_file", "ca_bundle"}} or {"slurm": {"node": N}}}. "for" is needed.
 *
 * inject: `dcgmi test --inject --gpuid G -f FIELD -v XID` for each GPU
 * (dcgmi's test subsystem; its output must say "Successfully injected"),
 * then a detached loop on the target host (setsid: its own session, no tie
 * to the controller) that injects again every "every": an injected value
 * is one sample in DCGM's cache, and the next real sample of the field
 * replaces it, so a value held for the fault's duration has to be renewed.
 * The loop is the fault's dead-man's switch: it ends by itself once "for"
 * (divided by --time-scale) has passed since inject, even when the
 * controller was SIGKILLed and nobody runs `gauntlet revert`, and on its
 * way out (and on TERM, INT or HUP) it injects 0 into the field. It writes
 * "PID STARTTIME" into the state file the plan names
 * (STATE_DIR/gpu_xid-ID-TOKEN.pids); revert kills it only when that pid
 * still runs the loop (same start time, and its command line names the
 * state file: a reused pid would not), like process_kill's records.
 *
 * verify: the loop runs and `dcgmi dmon -e FIELD -c 1 -i G` shows the
 * value on every GPU (retried for 5 s). revert: stop the loop, remove the
 * record, inject 0 into the field of each GPU so that DCGM's health checks
 * and the exporter read "no XID" again. verify_revert: no loop, and dmon
 * no longer shows the value.
 *
 * What revert cannot undo: an injected XID is a reading in DCGM's cache,
 * not a hardware state (nothing happened to the GPU), but whatever reacted
 * to the reading stays as it reacted: a node the cluster's automation
 * cordoned or drained, a pod it evicted, a DCGM health incident or policy
 * action already fired, an alert sent. Undoing those is the cluster's
 * recovery (or the operator's), not the fault's: revert leaves them alone.
 * The 0 injected is a new reading, not the value before the fault.
 *
 * Detection ("detect"): while the fault is held, a poller thread of this
 * plug-in reads the node's state once a second: Kubernetes
 * spec.unschedulable (GET /api/v1/nodes/N from the controller) or Slurm's
 * State= (`scontrol show node N` on the target host), with the readers
 * drain_worker uses (nodestate.c). The first reading that shows the node
 * cordoned (unschedulable) or drained (DRAIN, DRAINING, DRAINED) or DOWN
 * is the reaction. Revert stops the poller and records, in report.json
 * faults[].measured, "cluster_reacted" (1 or 0) and, when it reacted,
 * "detected_s": real seconds from the first injection to the poll that
 * saw it (1 s resolution).
 *   Why a thread and not a step: fault steps run one at a time on the
 * executor thread, so a verify that polled for the whole hold would delay
 * every other fault's steps, and this fault's own revert could start late
 * when the poll overran; a wait at revert time would only say whether the
 * cluster reacted by then, not when. The thread only reads; figures can be
 * recorded only from a step (gl_fault_measure), so revert, which runs at
 * the fault's end, records them. A revert in another process (`gauntlet
 * revert DIR` after a crash) has no poller: it records "cluster_reacted"
 * from one reading at that moment and no "detected_s".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bodies.h"
#include "hostrun.h"
#include "nodestate.h"
#include "params.h"
#include "paths.h"
#include "plan.h"
#include "plugin.h"
#include "procsel.h"
#include "sim_effects.h"

#define GX_CMD_TIMEOUT_MS 30000
#define GX_FIELD_XID 230 /* DCGM_FI_DEV_XID_ERRORS */
#define GX_DEFAULT_XID 79
#define GX_DEFAULT_STATE_DIR "/run/gauntlet"
#define GX_MAX_GPUS 16
#define GX_MAX_GPU_ID 1023
#define GX_VERIFY_WAIT_NS (5LL * 1000000000LL)
#define GX_POLL_NS (1000000000LL)
#define GX_MAX_POLLERS 32
#define GX_SCRIPT_MAX 4096

static const char *const gx_keys[] = { "gpus", "xid", "field", "every", "state_dir", "detect", NULL };
static const char *const gx_k8s_keys[] = { "api", "node", "token_env", "token_file", "ca_bundle", NULL };
static const char *const gx_slurm_keys[] = { "node", NULL };
static const char *const gx_tools[] = { "dcgmi", "setsid", "pgrep", NULL };

/* ---- validation ----------------------------------------------------------- */

static void check_detect(const cJSON *det, struct gl_diag *d, const char *path)
{
	const cJSON *k8s = gl_param(det, "kubernetes"), *slurm = gl_param(det, "slurm"), *v;
	char p[256];
	static const char *const which[] = { "kubernetes", "slurm", NULL };

	snprintf(p, sizeof(p), "%s.params.detect", path);
	if (!cJSON_IsObject(det)) {
		gl_diag_error(d, det, p,
			      "expected {\"kubernetes\": {\"api\": URL, ...}} or {\"slurm\": {\"node\": N}}");
		return;
	}
	gl_params_check_keys(det, which, "gpu_xid detect", d, p);
	if (!k8s == !slurm) {
		gl_diag_error(d, det, p, "expected exactly one of \"kubernetes\" or \"slurm\"");
		return;
	}
	if (slurm) {
		snprintf(p, sizeof(p), "%s.params.detect.slurm", path);
		if (!cJSON_IsObject(slurm)) {
			gl_diag_error(d, slurm, p,
				      "expected {\"node\": N} (node defaults to the host's slurm_node, else its name)");
			return;
		}
		gl_params_check_keys(slurm, gx_slurm_keys, "gpu_xid detect.slurm", d, p);
		v = gl_param(slurm, "node");
		snprintf(p, sizeof(p), "%s.params.detect.slurm.node", path);
		if (v && !(cJSON_IsString(v) && gl_slurm_node_ok(v->valuestring)))
			gl_diag_error(d, v, p,
				      "expected a Slurm node name: letters, digits and _ . - (at most 63, not starting "
				      "with '-')");
		return;
	}
	snprintf(p, sizeof(p), "%s.params.detect.kubernetes", path);
	if (!cJSON_IsObject(k8s)) {
		gl_diag_error(d, k8s, p, "expected {\"api\": \"https://HOST:6443\", \"node\": N, \"token_env\": VAR}");
		return;
	}
	gl_params_check_keys(k8s, gx_k8s_keys, "gpu_xid detect.kubernetes", d, p);
	v = gl_param(k8s, "api");
	snprintf(p, sizeof(p), "%s.params.detect.kubernetes.api", path);
	if (!v)
		gl_diag_error(d, k8s, p,
			      "detect.kubernetes needs \"api\", the API server URL like \"https://10.0.0.1:6443\"");
	else if (!cJSON_IsString(v) || !gl_api_url_ok(v->valuestring))
		gl_diag_error(d, v, p,
			      "expected the API server URL: https://HOST[:PORT] (http:// for a local test server), "
			      "without a path");
	v = gl_param(k8s, "node");
	snprintf(p, sizeof(p), "%s.params.detect.kubernetes.node", path);
	if (v && !(cJSON_IsString(v) && gl_k8s_name_ok(v->valuestring)))
		gl_diag_error(d, v, p, "expected a Kubernetes node name: lowercase letters, digits, '-' and '.'");
	v = gl_param(k8s, "token_env");
	snprintf(p, sizeof(p), "%s.params.detect.kubernetes.token_env", path);
	if (v && !(cJSON_IsString(v) && gl_env_name_ok(v->valuestring)))
		gl_diag_error(d, v, p, "expected the name of an environment variable holding the bearer token");
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "ca_bundle" : "token_file";
		v = gl_param(k8s, key);
		snprintf(p, sizeof(p), "%s.params.detect.kubernetes.%s", path, key);
		if (v && !(cJSON_IsString(v) && v->valuestring[0]))
			gl_diag_error(d, v, p, "expected a path to a file");
	}
	snprintf(p, sizeof(p), "%s.params.detect.kubernetes", path);
	gl_params_check_k8s_creds(k8s, d, p);
}

static void gx_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *params = f->params, *v, *it;
	char p[256];
	long long n;

	if (f->dur_ns <= 0) {
		snprintf(p, sizeof(p), "%s.for", path);
		gl_diag_error(
			d, f->json, p,
			"kind gpu_xid needs \"for\": how long the XID is held (re-injected) before it is cleared");
	}
	if (!params)
		return;
	snprintf(p, sizeof(p), "%s.params", path);
	if (!cJSON_IsObject(params)) {
		gl_diag_error(d, params, p, "expected an object like {\"gpus\": [0], \"xid\": 79}");
		return;
	}
	gl_params_check_keys(params, gx_keys, "kind gpu_xid", d, p);
	v = gl_param(params, "gpus");
	snprintf(p, sizeof(p), "%s.params.gpus", path);
	if (v) {
		const cJSON *list = cJSON_IsArray(v) ? v : NULL;
		int count = list ? cJSON_GetArraySize(list) : 0, bad = count < 1 || count > GX_MAX_GPUS;
		cJSON_ArrayForEach(it, list)
		{
			const cJSON *o;
			if (gl_json_int(it, 0, GX_MAX_GPU_ID, &n) != 0)
				bad = 1;
			for (o = list->child; o && o != it; o = o->next)
				if (cJSON_IsNumber(o) && cJSON_IsNumber(it) && o->valuedouble == it->valuedouble)
					bad = 1;
		}
		if (bad)
			gl_diag_error(
				d, v, p,
				"expected a list of 1 to %d different DCGM GPU ids (whole numbers 0-%d), like [0, 1]",
				GX_MAX_GPUS, GX_MAX_GPU_ID);
	}
	v = gl_param(params, "xid");
	snprintf(p, sizeof(p), "%s.params.xid", path);
	if (v && gl_json_int(v, 1, 65535, &n) != 0)
		gl_diag_error(d, v, p, "expected the XID to inject: a whole number from 1 to 65535, like 79 or 48");
	v = gl_param(params, "field");
	snprintf(p, sizeof(p), "%s.params.field", path);
	if (v && gl_json_int(v, 1, 65535, &n) != 0)
		gl_diag_error(d, v, p,
			      "expected a DCGM field id: a whole number from 1 to 65535 (230: DCGM_FI_DEV_XID_ERRORS)");
	v = gl_param(params, "every");
	snprintf(p, sizeof(p), "%s.params.every", path);
	if (v) {
		int64_t ns = 0;
		if (!cJSON_IsString(v) || gl_parse_duration_ns(v->valuestring, &ns, NULL) != 0 || ns < 100000000LL ||
		    ns > 60000000000LL)
			gl_diag_error(d, v, p, "expected a duration from 100ms to 60s, like \"1s\"");
	}
	v = gl_param(params, "state_dir");
	snprintf(p, sizeof(p), "%s.params.state_dir", path);
	if (v && !(cJSON_IsString(v) && gl_safe_abs_path(v->valuestring)))
		gl_diag_error(d, v, p, "expected an absolute path of letters, digits and / . _ - (without ..)");
	if ((v = gl_param(params, "detect")))
		check_detect(v, d, path);
}

static void gx_check_files(const struct gl_scenario *s, const struct gl_fault_spec *f, struct gl_diag *d,
			   const char *path)
{
	const cJSON *k8s = gl_param(gl_param(f->params, "detect"), "kubernetes");

	for (int i = 0; i < 2; i++) {
		const char *key = i ? "ca_bundle" : "token_file";
		const cJSON *v = gl_param(k8s, key);
		char real[1100], p[300];
		struct gl_err e = { 0 };
		if (!cJSON_IsString(v) ||
		    gl_path_confine(s->path, s->root, v->valuestring, real, sizeof(real), &e) == 0)
			continue;
		snprintf(p, sizeof(p), "%s.params.detect.kubernetes.%s", path, key);
		gl_diag_file(d, v, p, &e);
	}
}

/* ---- the plan -------------------------------------------------------------- */

static long long int_or(const cJSON *o, const char *key, long long lo, long long hi, long long def)
{
	long long n;
	return gl_json_int(gl_param(o, key), lo, hi, &n) == 0 ? n : def;
}

/* The detect section of the plan: node names resolved, files confined. */
static int plan_detect(const struct gl_scenario *s, const struct gl_fault_spec *f, const struct gl_host *h, cJSON *o,
		       struct gl_err *err)
{
	const cJSON *det = gl_param(f->params, "detect"), *k8s = gl_param(det, "kubernetes");
	const cJSON *slurm = gl_param(det, "slurm");
	const char *node;
	cJSON *pd, *sub;

	if (!det)
		return 0;
	pd = cJSON_AddObjectToObject(o, "detect");
	if (slurm) {
		node = gl_param_str(slurm, "node");
		if (!node && h->json)
			node = gl_param_str(h->json, "slurm_node");
		if (!node)
			node = h->name;
		if (!gl_slurm_node_ok(node))
			return gl_errf(err, GL_EINVAL, "gpu_xid '%s': '%s' is not a valid Slurm node name", f->id,
				       node);
		sub = cJSON_AddObjectToObject(pd, "slurm");
		cJSON_AddStringToObject(sub, "node", node);
		return 0;
	}
	node = gl_param_str(k8s, "node");
	if (!node && h->json)
		node = gl_param_str(h->json, "k8s_node");
	if (!node)
		node = h->name;
	if (!gl_k8s_name_ok(node) || !gl_api_url_ok(gl_param_str(k8s, "api")))
		return gl_errf(err, GL_EINVAL,
			       "gpu_xid '%s': detect.kubernetes needs a valid \"api\" URL and node name (node '%s')",
			       f->id, node);
	sub = cJSON_AddObjectToObject(pd, "kubernetes");
	cJSON_AddStringToObject(sub, "api", gl_param_str(k8s, "api"));
	cJSON_AddStringToObject(sub, "node", node);
	if (gl_param_str(k8s, "token_env"))
		cJSON_AddStringToObject(sub, "token_env", gl_param_str(k8s, "token_env"));
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "ca_bundle" : "token_file";
		char real[1100];
		struct gl_err e = { 0 };
		if (!gl_param_str(k8s, key))
			continue;
		/* revert reads what inject read, from wherever it runs */
		if (gl_path_confine(s->path, s->root, gl_param_str(k8s, key), real, sizeof(real), &e) != 0)
			return gl_errf(err, GL_EINVAL, "gpu_xid '%s': detect.kubernetes.%s: %s", f->id, key, e.msg);
		cJSON_AddStringToObject(sub, key, real);
	}
	return 0;
}

static int gx_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	const cJSON *params = f->params, *gpus = gl_param(params, "gpus"), *it;
	const char *dir = gl_param_str(params, "state_dir");
	char state[300];
	cJSON *o, *arr;

	if (!h)
		return gl_errf(err, GL_EINVAL, "gpu_xid: unknown host '%s'", f->target);
	o = cJSON_CreateObject();
	if (!o)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(o, "id", f->id);
	gl_plan_put_host(o, h);
	arr = cJSON_AddArrayToObject(o, "gpus");
	if (cJSON_IsArray(gpus))
		cJSON_ArrayForEach(it, gpus) cJSON_AddItemToArray(arr, cJSON_CreateNumber(it->valuedouble));
	else
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(0));
	cJSON_AddNumberToObject(o, "field", (double)int_or(params, "field", 1, 65535, GX_FIELD_XID));
	cJSON_AddNumberToObject(o, "xid", (double)int_or(params, "xid", 1, 65535, GX_DEFAULT_XID));
	cJSON_AddNumberToObject(o, "every_ms", (double)(gl_param_dur_ns(params, "every", 1000000000LL) / 1000000));
	cJSON_AddNumberToObject(o, "for_ns", (double)f->dur_ns);
	gl_procsel_state_file(state, sizeof(state), dir ? dir : GX_DEFAULT_STATE_DIR, "gpu_xid", f->id);
	cJSON_AddStringToObject(o, "state", state);
	if (plan_detect(s, f, h, o, err) != 0) {
		cJSON_Delete(o);
		return -GL_EINVAL;
	}
	*plan = o;
	return 0;
}

struct gx_plan {
	struct gl_host host;
	const char *id;
	int gpus[GX_MAX_GPUS], n_gpus;
	long field, xid, every_ms;
	int64_t for_ns;
	char state[256], dir[256];
	const cJSON *detect; /* borrowed from the plan */
};

/* Read a plan back (maybe from a store another process wrote) and check
 * every value that reaches a command. c may be NULL (describe). */
static int read_plan(struct gl_ctx *c, const cJSON *plan, struct gx_plan *p, struct gl_err *err)
{
	const cJSON *gpus = cJSON_IsArray(gl_param(plan, "gpus")) ? gl_param(plan, "gpus") : NULL, *it;
	const char *state = gl_param_str(plan, "state"), *base;
	long long n;

	memset(p, 0, sizeof(*p));
	if (!cJSON_IsObject(plan))
		return gl_errf(err, GL_EINVAL, "gpu_xid: no plan");
	p->id = gl_param_str(plan, "id") ? gl_param_str(plan, "id") : "?";
	if (gl_plan_host(c, plan, "gpu_xid", &p->host, err) != 0)
		return -GL_EINVAL;
	cJSON_ArrayForEach(it, gpus)
	{
		if (p->n_gpus >= GX_MAX_GPUS || gl_json_int(it, 0, GX_MAX_GPU_ID, &n) != 0)
			return gl_errf(err, GL_EINVAL, "gpu_xid: the plan's gpus are not valid");
		p->gpus[p->n_gpus++] = (int)n;
	}
	if (!p->n_gpus)
		return gl_errf(err, GL_EINVAL, "gpu_xid: the plan names no GPU");
	if (gl_json_int(gl_param(plan, "field"), 1, 65535, &n) != 0)
		return gl_errf(err, GL_EINVAL, "gpu_xid: the plan's field is not valid");
	p->field = (long)n;
	if (gl_json_int(gl_param(plan, "xid"), 1, 65535, &n) != 0)
		return gl_errf(err, GL_EINVAL, "gpu_xid: the plan's xid is not valid");
	p->xid = (long)n;
	p->every_ms = (long)int_or(plan, "every_ms", 100, 60000, 1000);
	p->for_ns = (int64_t)int_or(plan, "for_ns", 1, (long long)1 << 62, 0);
	/* DIR/gpu_xid-ID-TOKEN.pids, plain characters only: it sits in sh scripts */
	base = state ? strrchr(state, '/') : NULL;
	if (!state || !gl_safe_abs_path(state) || strlen(state) >= sizeof(p->state) || !base ||
	    strncmp(base, "/gpu_xid-", 9) || strlen(base) < 15 || strcmp(state + strlen(state) - 5, ".pids"))
		return gl_errf(err, GL_EINVAL, "gpu_xid: the plan's state file is missing or not valid");
	snprintf(p->state, sizeof(p->state), "%s", state);
	snprintf(p->dir, sizeof(p->dir), "%.*s", (int)(base - state), state);
	if (!p->dir[0])
		snprintf(p->dir, sizeof(p->dir), "/");
	p->detect = gl_param(plan, "detect");
	return 0;
}

/* ---- commands on the host -------------------------------------------------- */

enum gx_step { GX_LOOP, GX_ALIVE, GX_STOP };

/* The shell function that says whether pid $1 (start time $2) still runs
 * the loop: same start time, not a zombie, and its command line names the
 * state file (a reused pid would not); then $p and $w: the loop's pid and
 * start time from the record, or, without one, the process whose command
 * line holds S="STATE" (the "[S]" keeps this script's own text from
 * matching), empty when no loop runs. */
static int alive_fn(char *out, size_t n, const struct gx_plan *p)
{
	return snprintf(
		out, n,
		"alive() { pid=$1 want=$2; L=; { read -r L < \"/proc/$pid/stat\"; } 2>/dev/null || return 1; "
		"L=${L##*) }; set -- $L; [ \"$1\" != Z ] && [ \"${20}\" = \"$want\" ] && "
		"tr \"\\0\" \" \" < \"/proc/$pid/cmdline\" 2>/dev/null | grep -qF \"%s\"; }; "
		"p= w=; [ -f \"%s\" ] && read -r p w < \"%s\"; case \"$p$w\" in \"\"|*[!0-9]*) p=;; esac; "
		"if [ -n \"$p\" ] && ! alive \"$p\" \"$w\"; then p=; fi; "
		/* no record (lost, or removed by a revert that did not stop
			 * the loop): the loop's own command line names it */
		"if [ -z \"$p\" ]; then q=$(pgrep -f \"[S]=.%s\" 2>/dev/null | head -n 1); "
		"if [ -n \"$q\" ] && { read -r L < \"/proc/$q/stat\"; } 2>/dev/null; then L=${L##*) }; set -- $L; "
		"alive \"$q\" \"${20}\" && p=$q w=${20}; fi; fi; ",
		p->state, p->state, p->state, p->state);
}

/* The step's sh script into out. scale: the run's --time-scale (the loop's
 * own end). */
static void build_script(const struct gx_plan *p, enum gx_step step, double scale, char *out, size_t n)
{
	char gpus[GX_MAX_GPUS * 6] = "";
	int k = 0;

	for (int i = 0; i < p->n_gpus; i++)
		k += snprintf(gpus + k, sizeof(gpus) - (size_t)k, "%s%d", i ? " " : "", p->gpus[i]);
	if (step == GX_LOOP) {
		double secs = (double)p->for_ns / 1e9 / (scale > 0 ? scale : 1);
		long end_s = (long)secs + ((double)(long)secs < secs ? 1 : 0);
		/* The loop (inner script) holds only double quotes, so it sits
		 * inside single quotes as setsid's argument; `sleep & wait` lets
		 * a TERM end it at once. Each round's injections run beside the
		 * sleep, so the period stays "every" however long dcgmi takes
		 * (a round still running is not doubled). */
		snprintf(out, n,
			 "set -e; mkdir -p %s; rm -f %s; "
			 "setsid sh -c 'S=\"%s\"; end=$(( $(date +%%s) + %ld )); "
			 "inj() { for g in %s; do dcgmi test --inject --gpuid $g -f %ld -v $1 >/dev/null 2>&1 || true; "
			 "done; }; "
			 "fin() { trap \"\" TERM INT HUP; inj 0; rm -f \"$S\" \"$S.tmp\"; exit 0; }; "
			 "trap fin TERM INT HUP; "
			 "read -r L < /proc/$$/stat; L=${L##*) }; set -- $L; echo \"$$ ${20}\" > \"$S.tmp\"; mv -f "
			 "\"$S.tmp\" \"$S\"; "
			 "ip=; while [ $(date +%%s) -lt $end ]; do "
			 "if [ -z \"$ip\" ] || ! kill -0 \"$ip\" 2>/dev/null; then inj %ld & ip=$!; fi; "
			 "sleep %ld.%03ld & wait $!; done; fin' "
			 "gpu_xid-loop </dev/null >/dev/null 2>&1 & "
			 "i=0; while [ ! -s %s ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; "
			 "[ -s %s ] || { echo \"the injection loop did not start (no record in %s)\" >&2; exit 1; }",
			 p->dir, p->state, p->state, end_s, gpus, p->field, p->xid, p->every_ms / 1000,
			 p->every_ms % 1000, p->state, p->state, p->state);
		return;
	}
	k = alive_fn(out, n, p);
	if (step == GX_ALIVE) {
		snprintf(out + k, n - (size_t)k, "[ -n \"$p\" ] && echo \"injection loop pid $p\"");
		return;
	}
	snprintf(out + k, n - (size_t)k,
		 "if [ -n \"$p\" ]; then kill -TERM -\"$p\" 2>/dev/null || kill -TERM \"$p\" 2>/dev/null; "
		 "i=0; while alive \"$p\" \"$w\" && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; "
		 "if alive \"$p\" \"$w\"; then kill -KILL -\"$p\" 2>/dev/null; fi; echo \"stopped the injection loop "
		 "$p\"; fi; "
		 "rm -f \"%s\" \"%s.tmp\"",
		 p->state, p->state);
}

/* The commands run_script and inject_one run, built once for them and
 * for the dead-man's switch, which runs revert's. */
struct gx_cmd {
	char script[GX_SCRIPT_MAX];
	char g[16], f[16], v[24];
	const char *argv[10];
};

/* sh -c SCRIPT gpu_xid */
static void script_cmd(const struct gx_plan *p, enum gx_step step, double scale, struct gx_cmd *c)
{
	build_script(p, step, scale, c->script, sizeof(c->script));
	c->argv[0] = "sh";
	c->argv[1] = "-c";
	c->argv[2] = c->script;
	c->argv[3] = "gpu_xid";
	c->argv[4] = NULL;
}

/* dcgmi test --inject --gpuid G -f FIELD -v VALUE */
static void inject_cmd(const struct gx_plan *p, int gpu, long value, struct gx_cmd *c)
{
	const char *a[] = { "dcgmi", "test", "--inject", "--gpuid", c->g, "-f", c->f, "-v", c->v, NULL };

	snprintf(c->g, sizeof(c->g), "%d", gpu);
	snprintf(c->f, sizeof(c->f), "%ld", p->field);
	snprintf(c->v, sizeof(c->v), "%ld", value);
	memcpy(c->argv, a, sizeof(a));
}

static int run_script(const struct gx_plan *p, enum gx_step step, double scale, int *status, char *out, size_t n_out,
		      struct gl_err *err)
{
	struct gx_cmd cmd;

	script_cmd(p, step, scale, &cmd);
	return gl_run_trim(&p->host, cmd.argv, GX_CMD_TIMEOUT_MS, 0, "gpu_xid", status, out, n_out, err);
}

/* `dcgmi test --inject --gpuid G -f FIELD -v VALUE` on the host. */
static int inject_one(const struct gx_plan *p, int gpu, long value, struct gl_err *err)
{
	struct gx_cmd cmd;
	char out[1024];
	int status = 0;

	inject_cmd(p, gpu, value, &cmd);
	if (gl_run_trim(&p->host, cmd.argv, GX_CMD_TIMEOUT_MS, 0, "gpu_xid", &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	if (status != 0 || !gl_dcgmi_inject_ok(out, strlen(out)))
		return gl_errf(err, GL_EIO, "gpu_xid on host '%s': dcgmi test --inject --gpuid %d -f %ld -v %ld %s%s%s",
			       p->host.name, gpu, p->field, value, status ? "failed" : "did not say it injected",
			       out[0] ? ": " : "", gl_first_line(out));
	return 0;
}

/* The field's reading on one GPU (`dcgmi dmon -e FIELD -c 1 -i G`): 0 with
 * *value, 1 blank (N/A), or an error. */
static int read_field(const struct gx_plan *p, int gpu, double *value, struct gl_err *err)
{
	char g[16], f[16], out[4096];
	const char *argv[] = { "dcgmi", "dmon", "-e", f, "-c", "1", "-i", g, NULL };
	int status = 0, rc;

	snprintf(g, sizeof(g), "%d", gpu);
	snprintf(f, sizeof(f), "%ld", p->field);
	if (gl_run_trim(&p->host, argv, GX_CMD_TIMEOUT_MS, 0, "gpu_xid", &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	rc = status == 0 ? gl_dcgmi_dmon_value(out, strlen(out), gpu, value) : -GL_EINVAL;
	if (rc < 0)
		return gl_errf(err, GL_EIO, "gpu_xid on host '%s': dcgmi dmon -e %ld -c 1 -i %d %s%s%s", p->host.name,
			       p->field, gpu, status ? "failed" : "printed no reading for the GPU", out[0] ? ": " : "",
			       gl_first_line(out));
	return rc;
}

/* 1 when the loop runs, 0 when not, or an error. */
static int loop_alive(const struct gx_plan *p, struct gl_err *err)
{
	char out[256];
	int status = 0;

	if (run_script(p, GX_ALIVE, 1, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	return status == 0;
}

/* Read the plan and check that the loop runs (want 1) or not (want 0). */
static int plan_with_loop(struct gl_ctx *c, const cJSON *plan, struct gx_plan *p, int want, struct gl_err *err)
{
	int alive;

	if (read_plan(c, plan, p, err) != 0)
		return -GL_EINVAL;
	alive = loop_alive(p, err);
	if (alive < 0)
		return alive;
	if (alive != want)
		return gl_errf(err, GL_EIO, "gpu_xid on host '%s': the injection loop (record %s) %s", p->host.name,
			       p->state, want ? "does not run" : "still runs");
	return 0;
}

/* ---- detection: the poller thread ------------------------------------------ */

struct gx_poller {
	int used, joined;
	char state[256]; /* the plan it belongs to */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	struct gl_host host;
	cJSON *detect; /* a copy: the thread's own */
	int64_t t_inject, t_end, t_detect;
	int polls, errors;
	char last_err[256];
};

static pthread_mutex_t pollers_mu = PTHREAD_MUTEX_INITIALIZER;
static struct gx_poller pollers[GX_MAX_POLLERS];

/* One reading: 1 the node is out of service, 0 not, or an error. */
static int node_reacted(const struct gl_host *h, const cJSON *detect, struct gl_err *err)
{
	const cJSON *k8s = gl_param(detect, "kubernetes");
	char st[128];
	int u = 0;

	if (k8s)
		return gl_k8s_get_unschedulable(k8s, "gpu_xid", &u, err) == 0 ? u : -GL_EIO;
	if (gl_scontrol_node_state(h, gl_param_str(gl_param(detect, "slurm"), "node"), "gpu_xid", st, sizeof(st),
				   err) != 0)
		return -GL_EIO;
	/* DRAIN, DRAINING, DRAINED, or DOWN among the flags ("DOWN+DRAIN", "DOWN*") */
	return gl_slurm_state_drained(st) || !strncmp(st, "DOWN", 4) || strstr(st, "+DOWN") != NULL;
}

static void *poll_main(void *arg)
{
	struct gx_poller *pl = arg;

	pthread_mutex_lock(&pl->mu);
	while (!pl->stop && gl_now_ns() < pl->t_end) {
		struct gl_err e = { 0 };
		int r;
		pthread_mutex_unlock(&pl->mu);
		r = node_reacted(&pl->host, pl->detect, &e);
		pthread_mutex_lock(&pl->mu);
		pl->polls++;
		if (r < 0) {
			pl->errors++;
			snprintf(pl->last_err, sizeof(pl->last_err), "%s", e.msg);
		} else if (r > 0) {
			pl->t_detect = gl_now_ns();
			break;
		}
		{
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += GX_POLL_NS / 1000000000LL;
			while (!pl->stop && pthread_cond_timedwait(&pl->cv, &pl->mu, &ts) == 0)
				;
		}
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

static void poller_start(const struct gx_plan *p, int64_t t_inject, double scale)
{
	struct gx_poller *pl = NULL;

	pthread_mutex_lock(&pollers_mu);
	for (int i = 0; i < GX_MAX_POLLERS && !pl; i++)
		if (!pollers[i].used || pollers[i].joined)
			pl = &pollers[i];
	if (!pl) {
		pthread_mutex_unlock(&pollers_mu);
		gl_warn("gpu_xid '%s': more than %d faults with detection at once: this one is not watched", p->id,
			GX_MAX_POLLERS);
		return;
	}
	memset(pl, 0, sizeof(*pl));
	pl->used = 1;
	snprintf(pl->state, sizeof(pl->state), "%s", p->state);
	pl->host = p->host;
	pl->detect = cJSON_Duplicate(p->detect, 1);
	pl->t_inject = t_inject;
	/* polls while the fault is held (and a second more) */
	pl->t_end = t_inject + (int64_t)((double)p->for_ns / (scale > 0 ? scale : 1)) + GX_POLL_NS;
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->cv, NULL);
	if (!pl->detect || pthread_create(&pl->th, NULL, poll_main, pl) != 0) {
		cJSON_Delete(pl->detect);
		pthread_mutex_destroy(&pl->mu);
		pthread_cond_destroy(&pl->cv);
		memset(pl, 0, sizeof(*pl));
		gl_warn("gpu_xid '%s': cannot start the detection poller: the cluster's reaction is not measured",
			p->id);
	}
	pthread_mutex_unlock(&pollers_mu);
}

/* Stop and join the plan's poller; 1 with its results when this process
 * ran one, else 0. */
static int poller_finish(const struct gx_plan *p, int64_t *t_inject, int64_t *t_detect, int *polls, int *errors)
{
	struct gx_poller *pl = NULL;

	pthread_mutex_lock(&pollers_mu);
	for (int i = 0; i < GX_MAX_POLLERS && !pl; i++)
		if (pollers[i].used && !strcmp(pollers[i].state, p->state))
			pl = &pollers[i];
	if (pl && !pl->joined) {
		pthread_mutex_lock(&pl->mu);
		pl->stop = 1;
		pthread_cond_signal(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
		pthread_join(pl->th, NULL);
		pl->joined = 1;
		cJSON_Delete(pl->detect);
		pl->detect = NULL;
		pthread_mutex_destroy(&pl->mu);
		pthread_cond_destroy(&pl->cv);
		if (pl->errors)
			gl_warn("gpu_xid '%s': %d of %d node readings failed (last: %s)", p->id, pl->errors, pl->polls,
				pl->last_err);
	}
	if (pl) {
		*t_inject = pl->t_inject;
		*t_detect = pl->t_detect;
		*polls = pl->polls;
		*errors = pl->errors;
	}
	pthread_mutex_unlock(&pollers_mu);
	return pl != NULL;
}

/* ---- steps ------------------------------------------------------------------ */

static int gx_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct gx_plan p;
	char out[1024];
	int status = 0;
	int64_t t0;
	double scale = c ? gl_ctx_time_scale(c) : 1;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	if (p.for_ns <= 0)
		return gl_errf(err, GL_EINVAL, "gpu_xid '%s': the plan has no duration (\"for\")", p.id);
	/* the first injection, checked; the loop renews it. Detection counts
	 * from the moment the first value can be seen. */
	t0 = gl_now_ns();
	for (int i = 0; i < p.n_gpus; i++)
		if (inject_one(&p, p.gpus[i], p.xid, err) != 0)
			return -GL_EIO;
	if (run_script(&p, GX_LOOP, scale, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	if (status != 0)
		return gl_errf(err, GL_EIO, "gpu_xid on host '%s': the loop's start script exited %d%s%s", p.host.name,
			       status, out[0] ? ": " : "", gl_first_line(out));
	if (p.detect)
		poller_start(&p, t0, scale);
	return 0;
}

static int gx_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct gx_plan p;
	int64_t end = gl_now_ns() + GX_VERIFY_WAIT_NS;
	int rc = plan_with_loop(c, plan, &p, 1, err);

	if (rc)
		return rc;
	for (int i = 0; i < p.n_gpus; i++) {
		for (;;) {
			struct gl_err e = { 0 };
			double v = 0;
			int r = read_field(&p, p.gpus[i], &v, &e);
			if (r == 0 && v == (double)p.xid)
				break;
			if (gl_now_ns() >= end) {
				if (r < 0)
					return gl_errf(err, e.code, "%s", e.msg);
				return gl_errf(err, GL_EIO,
					       "gpu_xid on host '%s': GPU %d field %ld reads %s%.0f, not %ld",
					       p.host.name, p.gpus[i], p.field, r == 1 ? "N/A " : "", r == 1 ? 0.0 : v,
					       p.xid);
			}
			gl_sleep_ns(250000000LL);
		}
	}
	return 0;
}

/* The cluster's reaction, as figures of this step (report.json
 * faults[].measured). */
static void measure_detection(struct gl_ctx *c, const struct gx_plan *p)
{
	int64_t t_inject = 0, t_detect = 0;
	int polls = 0, errors = 0;

	if (!p->detect)
		return;
	if (poller_finish(p, &t_inject, &t_detect, &polls, &errors)) {
		gl_fault_measure(c, "cluster_reacted", t_detect ? 1 : 0);
		if (t_detect)
			gl_fault_measure(c, "detected_s", (double)(t_detect - t_inject) / 1e9);
		gl_fault_measure(c, "detect_polls", polls);
		if (errors)
			gl_fault_measure(c, "detect_errors", errors);
		return;
	}
	/* no poller here (a revert after a crash): one reading, no time */
	{
		struct gl_err e = { 0 };
		int r = node_reacted(&p->host, p->detect, &e);
		if (r >= 0)
			gl_fault_measure(c, "cluster_reacted", r);
		else
			gl_warn("gpu_xid '%s': cannot read the node's state at revert: %s", p->id, e.msg);
	}
}

static int gx_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct gx_plan p;
	char out[1024];
	int status = 0;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	measure_detection(c, &p);
	if (run_script(&p, GX_STOP, 1, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	if (status != 0)
		return gl_errf(err, GL_EIO, "gpu_xid on host '%s': stopping the injection loop exited %d%s%s",
			       p.host.name, status, out[0] ? ": " : "", gl_first_line(out));
	/* a new reading of 0: health checks and exporters see no XID */
	for (int i = 0; i < p.n_gpus; i++)
		if (inject_one(&p, p.gpus[i], 0, err) != 0)
			return -GL_EIO;
	return 0;
}

static int gx_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct gx_plan p;
	int rc = plan_with_loop(c, plan, &p, 0, err);

	if (rc)
		return rc;
	for (int i = 0; i < p.n_gpus; i++) {
		double v = 0;
		int r = read_field(&p, p.gpus[i], &v, err);
		if (r < 0)
			return r;
		if (r == 0 && v == (double)p.xid)
			return gl_errf(err, GL_EIO, "gpu_xid on host '%s': GPU %d field %ld still reads %ld",
				       p.host.name, p.gpus[i], p.field, p.xid);
	}
	return 0;
}

/* ---- preflight and dry run ------------------------------------------------------ */

static int gx_preflight(struct gl_ctx *c, const cJSON *plan)
{
	struct gx_plan p;
	struct gl_err e = { 0 };
	char subject[200], check[300];
	int bad = 0;

	if (read_plan(c, plan, &p, &e) != 0)
		return gl_ctx_preflight(c, "fault", "gpu_xid plan readable", 0, e.msg);
	snprintf(subject, sizeof(subject), "fault %s on host %s", p.id, p.host.name);
	/* the tools (dcgmi, setsid) are checked by the controller (.tools);
	 * the GPUs are known to DCGM: each one's field reads */
	for (int i = 0; i < p.n_gpus; i++) {
		double v;
		int rc;
		memset(&e, 0, sizeof(e));
		rc = read_field(&p, p.gpus[i], &v, &e);
		snprintf(check, sizeof(check), "dcgmi dmon -e %ld -c 1 -i %d reads GPU %d", p.field, p.gpus[i],
			 p.gpus[i]);
		bad |= gl_ctx_preflight(c, subject, check, rc >= 0, rc < 0 ? e.msg : "") != 0;
	}
	if (p.detect) {
		const cJSON *k8s = gl_param(p.detect, "kubernetes");
		int r;
		memset(&e, 0, sizeof(e));
		r = node_reacted(&p.host, p.detect, &e);
		if (k8s)
			snprintf(check, sizeof(check), "GET %s/api/v1/nodes/%s answers", gl_param_str(k8s, "api"),
				 gl_param_str(k8s, "node"));
		else
			snprintf(check, sizeof(check), "scontrol show node %s",
				 gl_param_str(gl_param(p.detect, "slurm"), "node"));
		bad |= gl_ctx_preflight(c, subject, check, r >= 0, r < 0 ? e.msg : "") != 0;
		if (r > 0)
			gl_warn("gpu_xid '%s': the node is already out of service before the fault: detection will say "
				"it reacted at once",
				p.id);
	}
	return bad ? -1 : 0;
}

static void gx_describe(const cJSON *plan, struct gl_buf *out)
{
	struct gx_plan p;
	struct gl_err e = { 0 };
	char script[GX_SCRIPT_MAX], g[16], f[16], v[24];
	const char *inj[] = { "dcgmi", "test", "--inject", "--gpuid", g, "-f", f, "-v", v, NULL };
	const char *dmon[] = { "dcgmi", "dmon", "-e", f, "-c", "1", "-i", g, NULL };
	const char *sh[] = { "sh", "-c", script, "gpu_xid", NULL };

	if (read_plan(NULL, plan, &p, &e) != 0) {
		gl_buf_printf(out, "  (no valid plan: %s)\n", e.msg);
		return;
	}
	snprintf(f, sizeof(f), "%ld", p.field);
	for (int i = 0; i < p.n_gpus; i++) {
		snprintf(g, sizeof(g), "%d", p.gpus[i]);
		snprintf(v, sizeof(v), "%ld", p.xid);
		gl_buf_printf(out, "  inject: ");
		gl_buf_append_argv(out, inj);
		gl_buf_printf(out, "\n");
	}
	build_script(&p, GX_LOOP, 1, script, sizeof(script));
	gl_buf_printf(out, "  inject: ");
	gl_buf_append_argv(out, sh);
	gl_buf_printf(out,
		      "\n  (the loop re-injects every %ld ms: an injected value is one sample, replaced by the next "
		      "real one; "
		      "dead-man's switch: it injects 0 and ends once \"for\" has passed, divided by --time-scale, even "
		      "if the "
		      "controller dies)\n",
		      p.every_ms);
	for (int i = 0; i < p.n_gpus; i++) {
		snprintf(g, sizeof(g), "%d", p.gpus[i]);
		gl_buf_printf(out, "  verify: ");
		gl_buf_append_argv(out, dmon);
		gl_buf_printf(out, " (reads %ld, and the loop runs)\n", p.xid);
	}
	build_script(&p, GX_STOP, 1, script, sizeof(script));
	gl_buf_printf(out, "  revert: ");
	gl_buf_append_argv(out, sh);
	gl_buf_printf(out, "\n");
	for (int i = 0; i < p.n_gpus; i++) {
		snprintf(g, sizeof(g), "%d", p.gpus[i]);
		snprintf(v, sizeof(v), "0");
		gl_buf_printf(out, "  revert: ");
		gl_buf_append_argv(out, inj);
		gl_buf_printf(out, "\n");
	}
	gl_buf_printf(out, "  verify_revert: no loop runs, and dcgmi dmon no longer reads %ld\n", p.xid);
	gl_buf_printf(out,
		      "  (revert cannot undo what reacted to the reading: a cordon, a drain, an eviction, an alert)\n");
	if (p.detect) {
		const cJSON *k8s = gl_param(p.detect, "kubernetes");
		if (k8s)
			gl_buf_printf(out,
				      "  detect: GET %s/api/v1/nodes/%s every second while held: spec.unschedulable "
				      "true is the reaction\n",
				      gl_param_str(k8s, "api"), gl_param_str(k8s, "node"));
		else
			gl_buf_printf(out,
				      "  detect: scontrol show node %s every second while held: DRAIN or DOWN in "
				      "State= is the reaction\n",
				      gl_param_str(gl_param(p.detect, "slurm"), "node"));
		gl_buf_printf(out, "  (measured: cluster_reacted 1/0, detected_s from the first injection)\n");
	}
}

/* gx_revert's commands on the host: stop the injection loop, then a 0
 * into the field of each GPU. The loop's own way out (its end, or a TERM)
 * injects 0 as well; the watcher does it again, as revert does, for a
 * loop that was KILLed. measure_detection only reads: not the watcher's. */
static int gx_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	struct gx_plan p;
	struct gx_cmd cmd;
	int bad;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	*h = p.host;
	script_cmd(&p, GX_STOP, 1, &cmd);
	bad = gl_deadman_argv_sh(script, cmd.argv, cmd.script) != 0;
	for (int i = 0; !bad && i < p.n_gpus; i++) {
		inject_cmd(&p, p.gpus[i], 0, &cmd);
		bad = gl_deadman_argv_sh(script, cmd.argv, NULL) != 0;
	}
	return bad ? gl_errf(err, GL_EINVAL, "gpu_xid: the revert commands cannot go into a watcher script") : 0;
}

/* validate's question (plugin.h): an XID reported on one of the
 * processes' hosts may end them (the cluster's automation may act on it:
 * drain the node, kill the job); elsewhere, no. */
static int gx_ends(const struct gl_fault_spec *f, const struct gl_proc_view *p, char *why, size_t n)
{
	if (!gl_proc_on_host(p, f->target))
		return GL_ENDS_NO;
	if (why)
		snprintf(why, n, "an XID reported by the GPUs of one of its hosts");
	return GL_ENDS_MAYBE;
}

static const struct gl_fault_ops gl_fault_gpu_xid = {
	.kind = "gpu_xid",
	.validate = gx_validate,
	.check_files = gx_check_files,
	.plan = gx_plan,
	.inject = gx_inject,
	.verify = gx_verify,
	.revert = gx_revert,
	.verify_revert = gx_verify_revert,
	.describe = gx_describe,
	.tools = gx_tools,
	.preflight = gx_preflight,
	.deadman = gx_deadman,
	.ends = gx_ends,
	.sim = gl_sim_xid,
	.touches = gl_fault_touches_target,
};
GL_REGISTER_FAULT(gl_fault_gpu_xid, 120)
