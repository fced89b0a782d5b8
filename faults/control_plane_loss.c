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
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bodies.h"
#include "http.h"
#include "params.h"
#include "plan.h"
#include "plugin.h"
#include "procsel.h"
#include "units.h"

#define CP_STEP_TIMEOUT_MS 30000
#define CP_PROBE_TIMEOUT_NS (30LL * 1000000000LL)
#define CP_REDFISH_TIMEOUT_NS (60LL * 1000000000LL)
#define CP_PROBE_TRY_MS 1000        /* one probe request */
#define CP_PROBE_PERIOD_NS 100000000LL
#define CP_GONE_WAIT_NS (10LL * 1000000000LL)
#define CP_MAX_ARGS 64
#define CP_MAX_ENDPOINTS 16
#define CP_MAX_MATCHES_DEFAULT 8
#define CP_MAX_MATCHES_CAP 1024
#define CP_PID_MAX 4194304
#define CP_DEFAULT_STATE_DIR "/run/gauntlet"

static const char *const cp_methods[] = { "exec", "signal", "redfish", NULL };
static const char *const cp_tools[] = { "sh", NULL };

/*
 * The signal method's script (procsel.h), step in $1, "start" argv after
 * it. Inputs: GL_SIG (KILL|STOP), GL_PID, GL_PIDFILE or GL_PAT, GL_MAX,
 * GL_DIR, GL_STATE, GL_WAIT (polls of 0.1 s), GL_LOG.
 */
static const char cp_script[] =
	GL_PROCSEL_SH_FUNCS
	"inject() {\n"
	"	select_checked\n"
	"	{ printf '%s %s\\n' \"$BEST\" \"$BEST_ST\" > \"$GL_STATE.tmp\" && mv -f -- \"$GL_STATE.tmp\" \"$GL_STATE\"; } ||\n"
	"		{ echo \"cannot write $GL_STATE\"; exit 5; }\n"
	"	if ! kill -s \"$GL_SIG\" \"$BEST\" 2>/dev/null; then\n"
	"		rm -f -- \"$GL_STATE\"\n"
	"		echo \"could not signal pid $BEST ($(what))\"; exit 6\n"
	"	fi\n"
	"	echo \"SIG$GL_SIG sent to $BEST\"\n"
	"}\n"
	"verify() {\n"
	"	[ -f \"$GL_STATE\" ] || { echo \"$GL_STATE is missing: inject recorded no pid\"; exit 3; }\n"
	"	i=0\n"
	"	while :; do\n"
	"		bad=\n"
	"		while read -r p st; do\n"
	"			if pinfo \"$p\" && [ \"$ST\" = \"$st\" ]; then\n"
	"				case $GL_SIG/$S in\n"
	"				STOP/T) ;;\n"
	"				*/Z|*/X|*/x) ;;\n"
	"				*) bad=\"$bad $p(state $S)\" ;;\n"
	"				esac\n"
	"			elif [ \"$GL_SIG\" = STOP ]; then\n"
	"				bad=\"$bad $p(gone)\"\n"
	"			fi\n"
	"		done < \"$GL_STATE\"\n"
	"		[ -n \"$bad\" ] || { echo ok; exit 0; }\n"
	"		i=$((i + 1))\n"
	"		[ \"$i\" -lt \"$GL_WAIT\" ] || break\n"
	"		sleep 0.1\n"
	"	done\n"
	"	if [ \"$GL_SIG\" = STOP ]; then echo \"not stopped:$bad\"; else echo \"still running after SIG$GL_SIG:$bad\"; fi\n"
	"	exit 1\n"
	"}\n"
	"revert() {\n"
	"	[ -f \"$GL_STATE\" ] || { echo \"ok (nothing recorded)\"; exit 0; }\n"
	"	if [ \"$GL_SIG\" = STOP ]; then\n"
	"		while read -r p st; do\n"
	"			pinfo \"$p\" && [ \"$ST\" = \"$st\" ] && kill -s CONT \"$p\" 2>/dev/null\n"
	"		done < \"$GL_STATE\"\n"
	"	fi\n"
	"	i=0\n"
	"	while :; do\n"
	"		bad=\n"
	"		while read -r p st; do\n"
	"			pinfo \"$p\" && [ \"$ST\" = \"$st\" ] || continue\n"
	"			case $GL_SIG/$S in\n"
	"			STOP/T) bad=\"$bad $p\" ;;\n"
	"			STOP/*|*/Z|*/X|*/x) ;;\n"
	"			*) bad=\"$bad $p\" ;;\n"
	"			esac\n"
	"		done < \"$GL_STATE\"\n"
	"		[ -n \"$bad\" ] || break\n"
	"		i=$((i + 1))\n"
	"		if [ \"$i\" -ge \"$GL_WAIT\" ]; then\n"
	"			if [ \"$GL_SIG\" = STOP ]; then echo \"still stopped after SIGCONT:$bad\"; else echo \"the killed member still runs:$bad\"; fi\n"
	"			exit 1\n"
	"		fi\n"
	"		sleep 0.1\n"
	"	done\n"
	"	if [ \"$GL_SIG\" != STOP ] && [ $# -gt 0 ]; then\n"
	"		setsid -f \"$@\" < /dev/null >> \"$GL_LOG\" 2>&1 || { echo \"could not start '$1'\"; exit 7; }\n"
	"	fi\n"
	"	rm -f -- \"$GL_STATE\" \"$GL_STATE.tmp\" || { echo \"cannot remove $GL_STATE\"; exit 5; }\n"
	"	echo ok\n"
	"}\n"
	GL_PROCSEL_SH_DISPATCH;

/* ---- small helpers --------------------------------------------------------- */

/* for messages: the string or "?" */
static const char *str_or(const cJSON *o, const char *key)
{
	const char *s = gl_param_str(o, key);
	return s ? s : "?";
}


/* "KILL" or "STOP" (also with "SIG"), NULL otherwise. */
static const char *signal_name(const char *s)
{
	if (!s)
		return NULL;
	if (!strncmp(s, "SIG", 3))
		s += 3;
	return !strcmp(s, "KILL") ? "KILL" : !strcmp(s, "STOP") ? "STOP" : NULL;
}




/* http(s)://host[:port] with an optional path, no spaces, no credentials */
static int url_ok(const char *u, int https_only)
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

static void check_argv(const cJSON *o, struct gl_diag *d, const char *path, const char *key, int required,
		       const char *why)
{
	const cJSON *v = gl_param(o, key), *it;
	char p[256];

	snprintf(p, sizeof(p), "%s.params.%s", path, key);
	if (!v) {
		if (required)
			gl_diag_error(d, o, p, "missing: %s, an argv array like [\"systemctl\", \"start\", \"etcd\"]", why);
		return;
	}
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > CP_MAX_ARGS - 16) {
		gl_diag_error(d, v, p, "expected a non-empty argv array of at most %d strings", CP_MAX_ARGS - 16);
		return;
	}
	cJSON_ArrayForEach(it, v)
		if (!cJSON_IsString(it)) {
			gl_diag_error(d, it, p, "every argv element must be a string");
			return;
		}
}

static void check_dur(const cJSON *o, struct gl_diag *d, const char *path, const char *key)
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

static void check_env_name(const cJSON *o, struct gl_diag *d, const char *path, const char *key)
{
	const cJSON *v = gl_param(o, key);
	char p[256];

	if (!v)
		return;
	snprintf(p, sizeof(p), "%s.%s", path, key);
	if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) > 128 ||
	    strspn(v->valuestring, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
		    strlen(v->valuestring))
		gl_diag_error(d, v, p, "expected the name of an environment variable (the secret itself never goes in a scenario)");
}

/* ---- validate -------------------------------------------------------------- */

static void validate_probe(const cJSON *probe, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = { "etcd", "member", "kubernetes", "token_env", "ca_bundle", "client_cert",
					    "client_key", "timeout", NULL };
	const cJSON *etcd = gl_param(probe, "etcd"), *k8s = gl_param(probe, "kubernetes"), *member = gl_param(probe, "member"), *it;
	char p[256];

	if (!cJSON_IsObject(probe)) {
		gl_diag_error(d, probe, path,
			      "expected an object like {\"etcd\": [\"http://10.0.0.1:2379\", ...], \"member\": \"http://10.0.0.1:2379\"} or {\"kubernetes\": \"https://api:6443\", \"token_env\": \"KUBE_TOKEN\"}");
		return;
	}
	gl_params_check_keys(probe, keys, "the control-plane probe", d, path);
	if (!etcd == !k8s) {
		gl_diag_error(d, probe, path, "the probe needs exactly one of \"etcd\" (a list of client URLs) or \"kubernetes\" (the API server URL)");
		return;
	}
	if (etcd) {
		int n = 0, others = 0;
		snprintf(p, sizeof(p), "%s.etcd", path);
		if (!cJSON_IsArray(etcd) || cJSON_GetArraySize(etcd) == 0 || cJSON_GetArraySize(etcd) > CP_MAX_ENDPOINTS) {
			gl_diag_error(d, etcd, p, "expected a list of 1 to %d etcd client URLs like \"http://10.0.0.1:2379\"",
				      CP_MAX_ENDPOINTS);
		} else {
			cJSON_ArrayForEach(it, etcd) {
				snprintf(p, sizeof(p), "%s.etcd[%d]", path, n++);
				if (!cJSON_IsString(it) || !url_ok(it->valuestring, 0))
					gl_diag_error(d, it, p, "expected an http:// or https:// URL of an etcd client endpoint");
				else if (!cJSON_IsString(member) || strcmp(it->valuestring, member->valuestring))
					others++;
			}
			if (cJSON_IsString(member) && others == 0) {
				snprintf(p, sizeof(p), "%s.etcd", path);
				gl_diag_error(d, etcd, p, "list the other members too: writes are probed against the endpoints other than \"member\"");
			}
		}
		if (member) {
			snprintf(p, sizeof(p), "%s.member", path);
			if (!cJSON_IsString(member) || !url_ok(member->valuestring, 0))
				gl_diag_error(d, member, p, "expected the client URL of the member this fault takes away");
		}
		if (gl_param(probe, "token_env")) {
			snprintf(p, sizeof(p), "%s.token_env", path);
			gl_diag_error(d, gl_param(probe, "token_env"), p, "\"token_env\" applies to the kubernetes probe only");
		}
	} else {
		snprintf(p, sizeof(p), "%s.kubernetes", path);
		if (!cJSON_IsString(k8s) || !url_ok(k8s->valuestring, 0))
			gl_diag_error(d, k8s, p, "expected the API server's URL like \"https://10.0.0.1:6443\"");
		if (member) {
			snprintf(p, sizeof(p), "%s.member", path);
			gl_diag_error(d, member, p, "\"member\" applies to the etcd probe only");
		}
		check_env_name(probe, d, path, "token_env");
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
	check_dur(probe, d, path, "timeout");
}

static void validate_signal(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *pat = gl_param(f->params, "pattern"), *pid = gl_param(f->params, "pid"), *pf = gl_param(f->params, "pidfile");
	const cJSON *sig = gl_param(f->params, "signal"), *max = gl_param(f->params, "max_matches"), *v;
	const char *sname = "KILL";
	char p[256], buf[256];
	long long n;

	if ((pat != NULL) + (pid != NULL) + (pf != NULL) != 1) {
		snprintf(p, sizeof(p), "%s.params", path);
		gl_diag_error(d, f->params, p,
			      "method signal needs exactly one of \"pid\", \"pidfile\" or \"pattern\" (pgrep -f) naming the member's process");
	}
	if (pat) {
		const char *why;
		snprintf(p, sizeof(p), "%s.params.pattern", path);
		if (!cJSON_IsString(pat))
			gl_diag_error(d, pat, p, "expected a string: a pgrep -f pattern naming the member's process");
		else if ((why = gl_pattern_problem(pat->valuestring, buf, sizeof(buf))))
			gl_diag_error(d, pat, p, "%s", why);
	}
	if (pid) {
		snprintf(p, sizeof(p), "%s.params.pid", path);
		if (gl_json_int(pid, 2, CP_PID_MAX, &n) != 0)
			gl_diag_error(d, pid, p, "expected a process id, an integer from 2 to %d", CP_PID_MAX);
	}
	if (pf) {
		snprintf(p, sizeof(p), "%s.params.pidfile", path);
		if (!cJSON_IsString(pf) || !gl_safe_abs_path(pf->valuestring))
			gl_diag_error(d, pf, p, "expected an absolute path of letters, digits and / . _ - (at most 200 bytes)");
	}
	if (sig) {
		snprintf(p, sizeof(p), "%s.params.signal", path);
		sname = signal_name(cJSON_IsString(sig) ? sig->valuestring : NULL);
		if (!sname)
			gl_diag_error(d, sig, p, "unknown signal '%s', expected KILL or STOP (STOP reverts with CONT)",
				      cJSON_IsString(sig) ? sig->valuestring : "(not a string)");
	}
	if (sname && !strcmp(sname, "STOP")) {
		if (f->dur_ns <= 0) {
			snprintf(p, sizeof(p), "%s.params.signal", path);
			gl_diag_error(d, sig, p, "signal STOP needs \"for\" (%s.for): the member stays stopped until the revert sends SIGCONT",
				      path);
		}
		if ((v = gl_param(f->params, "start"))) {
			snprintf(p, sizeof(p), "%s.params.start", path);
			gl_diag_error(d, v, p, "\"start\" applies to signal KILL only (STOP reverts with SIGCONT)");
		}
	} else if (sname) {
		check_argv(f->params, d, path, "start", f->dur_ns > 0,
			   "signal KILL with \"for\" needs the command that starts the member again");
	}
	if (max) {
		snprintf(p, sizeof(p), "%s.params.max_matches", path);
		if (gl_json_int(max, 1, CP_MAX_MATCHES_CAP, &n) != 0)
			gl_diag_error(d, max, p, "expected an integer from 1 to %d", CP_MAX_MATCHES_CAP);
		else if (!pat)
			gl_diag_error(d, max, p, "\"max_matches\" applies to \"pattern\" only");
	}
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "log" : "state_dir";
		if ((v = gl_param(f->params, key))) {
			snprintf(p, sizeof(p), "%s.params.%s", path, key);
			if (!cJSON_IsString(v) || !gl_safe_abs_path(v->valuestring))
				gl_diag_error(d, v, p, "expected an absolute path of letters, digits and / . _ - (at most 200 bytes)");
		}
	}
}

static void validate_redfish(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *bmc = gl_param(f->params, "bmc"), *sys = gl_param(f->params, "system"), *v;
	char p[256];

	snprintf(p, sizeof(p), "%s.params.bmc", path);
	if (!bmc)
		gl_diag_error(d, f->params, p, "missing: the BMC's base URL, like \"https://bmc-node1\"");
	else if (!cJSON_IsString(bmc) || !url_ok(bmc->valuestring, 1) || strchr(bmc->valuestring + 8, '/'))
		gl_diag_error(d, bmc, p, "expected an https:// base URL without a path, like \"https://bmc-node1\" (credentials go in user_env/pass_env)");
	snprintf(p, sizeof(p), "%s.params.system", path);
	if (!sys)
		gl_diag_error(d, f->params, p, "missing: the ComputerSystem path, like \"/redfish/v1/Systems/1\"");
	else if (!cJSON_IsString(sys) || strncmp(sys->valuestring, "/redfish/v1/", 12) || strlen(sys->valuestring) > 200 ||
		 strspn(sys->valuestring, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-") !=
			 strlen(sys->valuestring) || strstr(sys->valuestring, ".."))
		gl_diag_error(d, sys, p, "expected a path under /redfish/v1/ like \"/redfish/v1/Systems/1\"");
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "pass_env" : "user_env";
		snprintf(p, sizeof(p), "%s.params", path);
		if (!gl_param(f->params, key)) {
			snprintf(p, sizeof(p), "%s.params.%s", path, key);
			gl_diag_error(d, f->params, p, "missing: the environment variable holding the BMC %s",
				      i ? "password" : "user name");
		} else {
			check_env_name(f->params, d, p, key);
		}
	}
	if ((v = gl_param(f->params, "ca_bundle"))) {
		snprintf(p, sizeof(p), "%s.params.ca_bundle", path);
		if (!cJSON_IsString(v) || v->valuestring[0] != '/')
			gl_diag_error(d, v, p, "expected the absolute path of the CA file that signed the BMC's certificate");
	}
	for (int i = 0; i < 2; i++) {
		static const char *const types[] = { "On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart",
						     "Nmi", "ForceOn", "PushPowerButton", "PowerCycle", NULL };
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
	check_dur(f->params, d, p, "timeout");
}

static void cp_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	static const char *const k_exec[] = { "stop", "start", "timeout", "probe", NULL };
	static const char *const k_signal[] = { "pid", "pidfile", "pattern", "signal", "start", "max_matches",
						"state_dir", "log", "probe", NULL };
	static const char *const k_redfish[] = { "bmc", "system", "user_env", "pass_env", "ca_bundle", "off", "on",
						 "timeout", "probe", NULL };
	char p[256], what[96];
	const char *m = f->method;

	if (!f->params || !cJSON_IsObject(f->params)) {
		gl_diag_error(d, f->json, path,
			      "kind control_plane_loss needs params: for method exec {\"stop\": argv, \"start\": argv}, signal {\"pid\"|\"pidfile\"|\"pattern\", \"start\": argv}, redfish {\"bmc\", \"system\", \"user_env\", \"pass_env\"}");
		return;
	}
	snprintf(p, sizeof(p), "%s.params", path);
	snprintf(what, sizeof(what), "kind control_plane_loss, method %s", m);
	if (!strcmp(m, "exec")) {
		gl_params_check_keys(f->params, k_exec, what, d, p);
		check_argv(f->params, d, path, "stop", 1, "the command that stops the member");
		check_argv(f->params, d, path, "start", f->dur_ns > 0, "the command that starts the member again (the fault has \"for\")");
		check_dur(f->params, d, p, "timeout");
	} else if (!strcmp(m, "signal")) {
		gl_params_check_keys(f->params, k_signal, what, d, p);
		validate_signal(f, d, path);
	} else if (!strcmp(m, "redfish")) {
		gl_params_check_keys(f->params, k_redfish, what, d, p);
		validate_redfish(f, d, path);
	} else {
		return;   /* the scenario layer names the bad method */
	}
	if (gl_param(f->params, "probe")) {
		snprintf(p, sizeof(p), "%s.params.probe", path);
		validate_probe(gl_param(f->params, "probe"), d, p);
	}
}

/* ---- plan ------------------------------------------------------------------ */

/* env GL_...=... sh -c SCRIPT gauntlet-control_plane_loss STEP [start argv] */
static cJSON *signal_argv(const cJSON *p, const char *step, int wait_polls)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *pid = gl_param(p, "pid"), *start = gl_param(p, "start"), *it;
	char num[32];

	cJSON_AddItemToArray(a, cJSON_CreateString("env"));
	gl_argv_add_env(a, "GL_SIG", gl_param_str(p, "signal"));
	/* every selector set, the unused ones empty (process_kill.c says why) */
	gl_argv_add_env(a, "GL_PAT", gl_param_str(p, "pattern") ? gl_param_str(p, "pattern") : "");
	gl_argv_add_env(a, "GL_PIDFILE", !gl_param_str(p, "pattern") && gl_param_str(p, "pidfile")
					 ? gl_param_str(p, "pidfile") : "");
	if (!gl_param_str(p, "pattern") && !gl_param_str(p, "pidfile")) {
		snprintf(num, sizeof(num), "%lld", (long long)pid->valuedouble);
		gl_argv_add_env(a, "GL_PID", num);
	} else {
		gl_argv_add_env(a, "GL_PID", "");
	}
	snprintf(num, sizeof(num), "%d", gl_param(p, "max_matches")->valueint);
	gl_argv_add_env(a, "GL_MAX", num);
	gl_argv_add_env(a, "GL_DIR", gl_param_str(p, "state_dir"));
	gl_argv_add_env(a, "GL_STATE", gl_param_str(p, "state_file"));
	gl_argv_add_env(a, "GL_LOG", gl_param_str(p, "log"));
	snprintf(num, sizeof(num), "%d", wait_polls);
	gl_argv_add_env(a, "GL_WAIT", num);
	cJSON_AddItemToArray(a, cJSON_CreateString("sh"));
	cJSON_AddItemToArray(a, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(a, cJSON_CreateString(cp_script));
	cJSON_AddItemToArray(a, cJSON_CreateString("gauntlet-control_plane_loss"));
	cJSON_AddItemToArray(a, cJSON_CreateString(step));
	if (!strcmp(step, "revert") && cJSON_IsArray(start))
		cJSON_ArrayForEach(it, start)
			cJSON_AddItemToArray(a, cJSON_CreateString(it->valuestring));
	return a;
}

static int plan_signal(const struct gl_fault_spec *f, cJSON *p, struct gl_err *err)
{
	const char *sig = signal_name(gl_param_str(f->params, "signal")), *dir = gl_param_str(f->params, "state_dir");
	const cJSON *max = gl_param(f->params, "max_matches");
	char file[320];

	if (!gl_param_str(p, "pattern") && !gl_param_str(p, "pidfile") && !cJSON_IsNumber(gl_param(p, "pid")))
		return gl_errf(err, GL_EINVAL, "control_plane_loss '%s': params need \"pid\", \"pidfile\" or \"pattern\"", f->id);
	if (!sig)
		sig = "KILL";
	if (!dir)
		dir = CP_DEFAULT_STATE_DIR;
	gl_procsel_state_file(file, sizeof(file), dir, "cplane", f->id);
	cJSON_DeleteItemFromObject(p, "signal");
	cJSON_AddStringToObject(p, "signal", sig);
	cJSON_DeleteItemFromObject(p, "max_matches");
	cJSON_AddNumberToObject(p, "max_matches", cJSON_IsNumber(max) ? max->valueint : gl_param_str(p, "pattern") ? CP_MAX_MATCHES_DEFAULT : 1);
	cJSON_DeleteItemFromObject(p, "state_dir");
	cJSON_AddStringToObject(p, "state_dir", dir);
	cJSON_AddStringToObject(p, "state_file", file);
	if (!gl_param(p, "log"))
		cJSON_AddStringToObject(p, "log", "/dev/null");
	cJSON_AddItemToObject(p, "inject_argv", signal_argv(p, "inject", 50));
	cJSON_AddItemToObject(p, "verify_argv", signal_argv(p, "verify", 50));
	cJSON_AddItemToObject(p, "revert_argv", signal_argv(p, "revert", 100));
	cJSON_AddItemToObject(p, "verify_revert_argv", signal_argv(p, "verify_revert", 50));
	if (cJSON_GetArraySize(gl_param(p, "verify_revert_argv")) == 0)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	return 0;
}

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
		rc = plan_signal(f, p, err);
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
	cJSON_ArrayForEach(it, argv) {
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
		if (!strcmp(key, step))   /* the user's own command */
			rc = gl_errf(err, GL_EIO, "control_plane_loss %s on '%s': '%s' exited %d%s%s", step, host.name,
				     args[0], res.exit_status, out[0] ? ": " : "", out);
		else
			rc = gl_errf(err, GL_EIO, "control_plane_loss %s on '%s': %s (exit %d)", step, host.name,
				     out[0] ? out : "the step's script failed", res.exit_status);
	}
	gl_buf_free(&res.out);
	return rc;
}

/* ---- Redfish ----------------------------------------------------------------- */

/* Faults whose inject was refused by the BMC (HTTP 4xx before anything
 * happened) in this process: the clean-up revert the controller runs after
 * a failed inject has nothing to undo. A later process (gauntlet revert)
 * does not know this and asks the BMC. */
static pthread_mutex_t rf_mu = PTHREAD_MUTEX_INITIALIZER;
static char rf_refused[8][GL_NAME_MAX];

static void rf_mark_refused(const char *id, int on)
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

static int rf_was_refused(const char *id)
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
static int rf_power_state(const cJSON *plan, char *state, size_t n, struct gl_err *err)
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

static int rf_reset(const cJSON *plan, const char *type, int *refused, struct gl_err *err)
{
	struct gl_http_opts o;
	struct gl_http_resp r;
	char url[760], body[96];
	int rc;

	rf_opts(plan, &o);
	*refused = 0;
	snprintf(url, sizeof(url), "%s%s/Actions/ComputerSystem.Reset", gl_param_str(plan, "bmc"), gl_param_str(plan, "system"));
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
static int rf_wait_state(const cJSON *plan, const char *want, struct gl_err *err)
{
	int64_t deadline = gl_now_ns() + gl_param_dur_ns(plan, "timeout", CP_REDFISH_TIMEOUT_NS);
	char state[64] = "";
	struct gl_err e = { 0 };

	for (;;) {
		gl_err_clear(&e);
		if (rf_power_state(plan, state, sizeof(state), &e) == 0 && !strcmp(state, want))
			return 0;
		if (gl_now_ns() >= deadline)
			break;
		struct timespec ts = { 0, 500000000L };
		nanosleep(&ts, NULL);
	}
	if (e.code)
		return gl_errf(err, GL_ETIMEDOUT, "redfish: PowerState did not become %s: %s", want, e.msg);
	return gl_errf(err, GL_ETIMEDOUT, "redfish %s%s: PowerState is %s, not %s, after the timeout",
		       gl_param_str(plan, "bmc"), gl_param_str(plan, "system"), state, want);
}

static const char *rf_type(const cJSON *plan, const char *key, const char *def)
{
	const char *s = gl_param_str(plan, key);
	return s ? s : def;
}

/* ---- the control-plane probe ---------------------------------------------------- */

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
	nanosleep(&ts, NULL);
}

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
static int etcd_answers(const cJSON *probe, const char *ep, int need_healthy)
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

static int k8s_ready(const cJSON *probe)
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
static int probe_run(const cJSON *plan, int after_inject, int64_t t0, struct gl_err *err)
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
			if (k8s_ready(probe))
				break;
			if (gl_now_ns() >= deadline)
				return gl_errf(err, GL_ETIMEDOUT, "probe: %s/readyz did not answer 200 within %.1f s (%d tries)",
					       gl_param_str(probe, "kubernetes"), timeout / 1e9, tries);
			sleep_ns(CP_PROBE_PERIOD_NS);
		}
		t_write = gl_now_ns();
		gl_fault_measure(NULL, after_inject ? "control_plane_recovery_s" : "control_plane_back_s", (t_write - t0) / 1e9);
		gl_info("control_plane_loss '%s': %s: kubernetes /readyz answered 200 %.3f s after %s (%d tries)", id,
			after_inject ? "control-plane recovery" : "control plane back", (t_write - t0) / 1e9,
			after_inject ? "inject" : "revert", tries);
		return 0;
	}
	cJSON_ArrayForEach(it, etcd)
		if (cJSON_IsString(it) && n_eps < CP_MAX_ENDPOINTS && (!member || strcmp(it->valuestring, member)))
			eps[n_eps++] = it->valuestring;
	if (n_eps == 0)
		return gl_errf(err, GL_EINVAL, "probe: no etcd endpoint besides the member to write to");
	if (member) {
		/* the member is gone (no answer) after inject, back and healthy after revert */
		int64_t gone_deadline = after_inject ? t0 + CP_GONE_WAIT_NS : deadline;
		for (;;) {
			if (etcd_answers(probe, member, !after_inject) != after_inject)
				break;
			if (gl_now_ns() >= gone_deadline)
				return gl_errf(err, GL_ETIMEDOUT, after_inject ? "probe: the member %s still answers %.0f s after inject"
									   : "probe: the member %s is not healthy again within %.1f s",
					       member, (gone_deadline - t0) / 1e9);
			sleep_ns(CP_PROBE_PERIOD_NS);
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
				gl_info("control_plane_loss '%s': control-plane recovery: etcd accepted a write %.3f s after inject (via %s, try %d)%s%s%s",
					id, (t_write - t0) / 1e9, ep, tries, member ? "; member " : "", member ? member : "",
					member ? " stopped answering" : "");
			else
				gl_info("control_plane_loss '%s': control plane back: member %s healthy, write accepted %.3f s after revert (via %s)",
					id, member ? member : "-", (t_write - t0) / 1e9, ep);
			(void)t_gone;
			return 0;
		}
		if (gl_now_ns() >= deadline)
			return gl_errf(err, GL_ETIMEDOUT,
				       "probe: etcd accepted no write within %.1f s %s (%d tries against %d endpoint(s)); the control plane did not recover",
				       timeout / 1e9, after_inject ? "after inject" : "after revert", tries, n_eps);
		sleep_ns(CP_PROBE_PERIOD_NS);
	}
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
		rc = rf_reset(plan, rf_type(plan, "off", "ForceOff"), &refused, err);
		if (rc && refused && gl_param_str(plan, "id"))
			rf_mark_refused(gl_param_str(plan, "id"), 1);
		return rc;
	}
	return gl_errf(err, GL_EINVAL, "control_plane_loss: unknown method '%s' in the plan",
		       gl_param_str(plan, "method") ? gl_param_str(plan, "method") : "?");
}

static int cp_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	int64_t t0 = gl_now_ns();   /* verify runs right after inject returns */
	int rc = 0;

	if (is(plan, "signal"))
		rc = run_argv(c, plan, "verify_argv", "verify", CP_STEP_TIMEOUT_MS, err);
	else if (is(plan, "redfish"))
		rc = rf_wait_state(plan, "Off", err);
	if (rc == 0)
		rc = probe_run(plan, 1, t0, err);
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
		if (id && rf_was_refused(id)) {
			/* the BMC refused the power-off itself: nothing happened */
			rf_mark_refused(id, 0);
			return 0;
		}
		rc = rf_power_state(plan, state, sizeof(state), err);
		if (rc || !strcmp(state, "On"))
			return rc;
		return rf_reset(plan, rf_type(plan, "on", "On"), &refused, err);
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
		rc = rf_wait_state(plan, "On", err);
	if (rc == 0)
		rc = probe_run(plan, 0, t0, err);
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
	snprintf(subject, sizeof(subject), "control_plane_loss '%s' on host %s", gl_param_str(plan, "id"), gl_param_str(plan, "host"));
	snprintf(check, sizeof(check), "'%s' present (%s)", tool, why);
	rc = gl_ctx_preflight(c, subject, check, rc == 0 && res.exit_status == 0,
			      rc ? err.msg : res.exit_status ? "not found on the host's PATH" : "");
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
			bad |= check_tool(c, plan, cJSON_GetArrayItem(gl_param(plan, "stop"), 0)->valuestring, "stop") != 0;
		if (cJSON_IsString(cJSON_GetArrayItem(gl_param(plan, "start"), 0)))
			bad |= check_tool(c, plan, cJSON_GetArrayItem(gl_param(plan, "start"), 0)->valuestring, "start") != 0;
	} else if (is(plan, "signal")) {
		bad |= check_tool(c, plan, "kill", "signal") != 0;
		if (gl_param_str(plan, "pattern"))
			bad |= check_tool(c, plan, "pgrep", "pattern") != 0;
		if (gl_param(plan, "start")) {
			bad |= check_tool(c, plan, "setsid", "start detached") != 0;
			bad |= check_tool(c, plan, cJSON_GetArrayItem(gl_param(plan, "start"), 0)->valuestring, "start") != 0;
		}
	} else if (is(plan, "redfish")) {
		char state[64];
		struct gl_err e = { 0 };
		int rc = rf_power_state(plan, state, sizeof(state), &e);
		snprintf(detail, sizeof(detail), "%s%s", rc ? e.msg : "PowerState ", rc ? "" : state);
		bad |= gl_ctx_preflight(c, subject, "the BMC answers and the system is powered On",
					rc == 0 && !strcmp(state, "On"), detail) != 0;
	}
	if (gl_param_str(probe, "kubernetes")) {
		bad |= gl_ctx_preflight(c, subject, "probe: kubernetes /readyz answers 200", k8s_ready(probe),
					gl_param_str(probe, "kubernetes")) != 0;
	} else if (probe) {
		cJSON_ArrayForEach(it, gl_param(probe, "etcd")) {
			char check[500];
			if (!cJSON_IsString(it))
				continue;
			snprintf(check, sizeof(check), "probe: etcd %s is healthy", it->valuestring);
			bad |= gl_ctx_preflight(c, subject, check, etcd_answers(probe, it->valuestring, 1),
						"GET /health") != 0;
		}
	}
	return bad ? -1 : 0;
}

/* " " and argv quoted as the shell takes it: what is shown is what runs. */
static void put_argv(struct gl_buf *out, const cJSON *argv)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, argv)
		if (cJSON_IsString(it)) {
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
				      gl_param(plan, "max_matches") ? gl_param(plan, "max_matches")->valueint : CP_MAX_MATCHES_DEFAULT);
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
		gl_buf_printf(out, "  inject: POST %s%s/Actions/ComputerSystem.Reset {\"ResetType\": \"%s\"} (basic auth from $%s/$%s)\n",
			      str_or(plan, "bmc"), str_or(plan, "system"), rf_type(plan, "off", "ForceOff"),
			      str_or(plan, "user_env"), str_or(plan, "pass_env"));
		gl_buf_printf(out, "  verify: GET %s%s until \"PowerState\": \"Off\"\n", str_or(plan, "bmc"), str_or(plan, "system"));
		gl_buf_printf(out, "  revert: POST {\"ResetType\": \"%s\"} unless PowerState is already On\n", rf_type(plan, "on", "On"));
		gl_buf_printf(out, "  verify_revert: GET until \"PowerState\": \"On\"\n");
	}
	if (gl_param(probe, "etcd")) {
		gl_buf_printf(out, "  probe: member %s stops answering; POST /v3/kv/put every 100 ms to", gl_param_str(probe, "member") ? gl_param_str(probe, "member") : "(none named)");
		cJSON_ArrayForEach(it, gl_param(probe, "etcd"))
			if (cJSON_IsString(it) && (!gl_param_str(probe, "member") || strcmp(it->valuestring, gl_param_str(probe, "member"))))
				gl_buf_printf(out, " %s", it->valuestring);
		gl_buf_printf(out, " until a write is accepted (verify fails otherwise)\n");
	} else if (gl_param_str(probe, "kubernetes")) {
		gl_buf_printf(out, "  probe: GET %s/readyz every 100 ms until 200 (verify fails otherwise)\n", gl_param_str(probe, "kubernetes"));
	}
}

const struct gl_fault_ops gl_fault_control_plane_loss = {
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
};
