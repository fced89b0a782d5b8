/*
 * process_kill.c - the process_kill fault kind (method "signal"): SIGKILL,
 * SIGTERM, SIGINT or SIGSTOP a rank or replica on its host, chosen by a
 * pgrep -f pattern or by pid.
 *
 * params: {"pattern": ERE matched against full command lines (pgrep -f),
 *          or "pid": N,
 *          "signal": "KILL" | "TERM" | "STOP" | "INT"   (default KILL),
 *          "all": false       (true: every match; false: the newest only),
 *          "max_matches": 8   (refuse when more processes match),
 *          "state_dir": "/run/gauntlet"}  (where the pid record lives)
 *
 * Everything runs on the target host through gl_host_exec, as one small sh
 * script per step whose inputs travel in the environment (never in argv:
 * pgrep -f would find them in the script's own command line). The plan is
 * committed before inject, so it cannot hold the pids inject resolves;
 * instead inject writes them ("PID STARTTIME" lines) to a state file on the
 * target that the plan names, before it sends any signal. Verify, revert
 * and verify_revert read that file; STARTTIME guards against a pid reused
 * by an unrelated process after a crash. The script never selects pid 1,
 * itself or any of its ancestors (the controller and whatever started it,
 * or the ssh session).
 *
 * KILL/TERM/INT are instantaneous unless "for" is given (revert only drops
 * the record: what gets measured is the workload's recovery). STOP needs
 * "for"; its revert sends SIGCONT to the recorded pids and waits until they
 * leave state T. Every revert is idempotent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "plan.h"
#include "plugin.h"
#include "procsel.h"
#include "sim_effects.h"

#define PK_STEP_TIMEOUT_MS 30000
#define PK_MAX_MATCHES_DEFAULT 8
#define PK_MAX_MATCHES_CAP 1024
#define PK_PID_MAX 4194304
#define PK_DEFAULT_STATE_DIR "/run/gauntlet"

static const char *const pk_methods[] = { "signal", NULL };
static const char *const pk_signals[] = { "KILL", "TERM", "STOP", "INT", NULL };

/*
 * The one script (procsel.h), step in $1. Inputs: GL_SIG, GL_PAT or GL_PID,
 * GL_ALL, GL_MAX, GL_DIR, GL_STATE, GL_WAIT (polls of 0.1 s).
 */
static const char pk_script[] = GL_PROCSEL_SH_FUNCS
	"inject() {\n"
	"	select_checked\n"
	"	if [ \"$GL_ALL\" = 1 ]; then OUT=$LIST; else OUT=\"$BEST $BEST_ST\n\"; fi\n"
	"	{ printf '%s' \"$OUT\" > \"$GL_STATE.tmp\" && mv -f -- \"$GL_STATE.tmp\" \"$GL_STATE\"; } ||\n"
	"		{ echo \"cannot write $GL_STATE\"; exit 5; }\n"
	"	n=0 pids=\n"
	"	while read -r p st; do\n"
	"		pinfo \"$p\" && [ \"$ST\" = \"$st\" ] || continue\n"
	"		kill -s \"$GL_SIG\" \"$p\" 2>/dev/null && { n=$((n + 1)); pids=\"$pids $p\"; }\n"
	"	done < \"$GL_STATE\"\n"
	"	[ \"$n\" -gt 0 ] || { echo \"could not signal the process(es) $(what) selected\"; exit 6; }\n"
	"	echo \"SIG$GL_SIG sent to$pids\"\n"
	"}\n"
	"verify() {\n"
	"	[ -f \"$GL_STATE\" ] || { echo \"$GL_STATE is missing: inject recorded no pids\"; exit 3; }\n"
	"	i=0\n"
	"	while :; do\n"
	"		bad=\n"
	"		while read -r p st; do\n"
	"			if pinfo \"$p\" && [ \"$ST\" = \"$st\" ]; then\n"
	"				case $GL_SIG/$S in\n"
	"				STOP/T) ;;\n"
	"				STOP/*) bad=\"$bad $p(state $S)\" ;;\n"
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
	"	if [ \"$GL_SIG\" = STOP ]; then echo \"not stopped:$bad\"; else echo \"still running after "
	"SIG$GL_SIG:$bad\"; fi\n"
	"	exit 1\n"
	"}\n"
	"revert() {\n"
	"	if [ \"$GL_SIG\" = STOP ] && [ -f \"$GL_STATE\" ]; then\n"
	"		while read -r p st; do\n"
	"			pinfo \"$p\" && [ \"$ST\" = \"$st\" ] && kill -s CONT \"$p\" 2>/dev/null\n"
	"		done < \"$GL_STATE\"\n"
	"		i=0\n"
	"		while :; do\n"
	"			bad=\n"
	"			while read -r p st; do\n"
	"				pinfo \"$p\" && [ \"$ST\" = \"$st\" ] && [ \"$S\" = T ] && bad=\"$bad $p\"\n"
	"			done < \"$GL_STATE\"\n"
	"			[ -n \"$bad\" ] || break\n"
	"			i=$((i + 1))\n"
	"			[ \"$i\" -lt \"$GL_WAIT\" ] || { echo \"still stopped after SIGCONT:$bad\"; exit 1; }\n"
	"			sleep 0.1\n"
	"		done\n"
	"	fi\n"
	"	rm -f -- \"$GL_STATE\" \"$GL_STATE.tmp\" || { echo \"cannot remove $GL_STATE\"; exit 5; }\n"
	"	echo ok\n"
	"}\n" GL_PROCSEL_SH_DISPATCH;

/* ---- validation ----------------------------------------------------------- */

/* "KILL", also "SIGKILL"; NULL when not one we send. */
static const char *signal_name(const char *s)
{
	if (!s)
		return NULL;
	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (int i = 0; pk_signals[i]; i++)
		if (!strcmp(s, pk_signals[i]))
			return pk_signals[i];
	return NULL;
}

static void pk_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = { "pattern", "pid", "signal", "all", "max_matches", "state_dir", NULL };
	const cJSON *pat, *pid, *sig, *all, *max, *dir;
	char p[256], buf[256];
	long long n;
	const char *sname = "KILL";

	if (!f->params) {
		gl_diag_error(d, f->json, path,
			      "kind process_kill needs params with \"pattern\" (pgrep -f) or \"pid\", e.g. "
			      "{\"pattern\": \"vllm serve\", \"signal\": \"KILL\"}");
		return;
	}
	snprintf(p, sizeof(p), "%s.params", path);
	gl_params_check_keys(f->params, keys, "kind process_kill", d, p);
	pat = gl_param(f->params, "pattern");
	pid = gl_param(f->params, "pid");
	if (!pat == !pid) {
		snprintf(p, sizeof(p), "%s.params", path);
		gl_diag_error(d, f->params, p, "kind process_kill needs exactly one of \"pattern\" or \"pid\"%s",
			      pat ? ", not both" : "");
	}
	if (pat) {
		const char *why;
		snprintf(p, sizeof(p), "%s.params.pattern", path);
		if (!cJSON_IsString(pat))
			gl_diag_error(d, pat, p, "expected a string: a pgrep -f pattern naming the process");
		else if ((why = gl_pattern_problem(pat->valuestring, buf, sizeof(buf))))
			gl_diag_error(d, pat, p, "%s", why);
	}
	if (pid) {
		snprintf(p, sizeof(p), "%s.params.pid", path);
		if (gl_json_int(pid, 2, PK_PID_MAX, &n) != 0)
			gl_diag_error(d, pid, p, "expected a process id, an integer from 2 to %d", PK_PID_MAX);
	}
	sig = gl_param(f->params, "signal");
	if (sig) {
		snprintf(p, sizeof(p), "%s.params.signal", path);
		sname = signal_name(cJSON_IsString(sig) ? sig->valuestring : NULL);
		if (!sname)
			gl_diag_error(d, sig, p, "unknown signal %s%s%s, expected one of: KILL, TERM, STOP, INT",
				      cJSON_IsString(sig) ? "'" : "",
				      cJSON_IsString(sig) ? sig->valuestring : "(not a string)",
				      cJSON_IsString(sig) ? "'" : "");
	}
	if (sname && !strcmp(sname, "STOP") && f->dur_ns <= 0) {
		snprintf(p, sizeof(p), "%s.params.signal", path);
		gl_diag_error(
			d, sig ? sig : f->params, p,
			"signal STOP needs \"for\" (%s.for): the process stays stopped until the revert sends SIGCONT",
			path);
	}
	all = gl_param(f->params, "all");
	if (all) {
		snprintf(p, sizeof(p), "%s.params.all", path);
		if (!cJSON_IsBool(all))
			gl_diag_error(d, all, p, "expected true (every match) or false (the newest match only)");
		else if (pid)
			gl_diag_error(d, all, p, "\"all\" applies to \"pattern\" only");
	}
	max = gl_param(f->params, "max_matches");
	if (max) {
		snprintf(p, sizeof(p), "%s.params.max_matches", path);
		if (gl_json_int(max, 1, PK_MAX_MATCHES_CAP, &n) != 0)
			gl_diag_error(d, max, p, "expected an integer from 1 to %d", PK_MAX_MATCHES_CAP);
		else if (pid)
			gl_diag_error(d, max, p, "\"max_matches\" applies to \"pattern\" only");
	}
	dir = gl_param(f->params, "state_dir");
	if (dir) {
		snprintf(p, sizeof(p), "%s.params.state_dir", path);
		if (!cJSON_IsString(dir) || !gl_safe_abs_path(dir->valuestring))
			gl_diag_error(d, dir, p,
				      "expected an absolute directory path of letters, digits and / . _ - (at most 200 "
				      "bytes), like \"/run/gauntlet\"");
	}
}

/* ---- plan ----------------------------------------------------------------- */

/* env GL_...=... sh -c SCRIPT gauntlet-process_kill STEP */
static cJSON *step_argv(const cJSON *p, const char *step, int wait_polls)
{
	cJSON *a = cJSON_CreateArray();
	const char *pat = gl_param_str(p, "pattern");
	const cJSON *pid = gl_param(p, "pid");
	char num[32];

	cJSON_AddItemToArray(a, cJSON_CreateString("env"));
	gl_argv_add_env(a, "GL_SIG", gl_param_str(p, "signal"));
	/* every selector set, the unused ones empty: the script takes the
	 * first one set, and one inherited from the controller's environment
	 * (a GL_PID there) must never choose what is signalled */
	gl_argv_add_env(a, "GL_PIDFILE", "");
	if (pat) {
		gl_argv_add_env(a, "GL_PID", "");
		gl_argv_add_env(a, "GL_PAT", pat);
	} else {
		snprintf(num, sizeof(num), "%lld", (long long)pid->valuedouble);
		gl_argv_add_env(a, "GL_PID", num);
		gl_argv_add_env(a, "GL_PAT", "");
	}
	gl_argv_add_env(a, "GL_ALL", cJSON_IsTrue(gl_param(p, "all")) ? "1" : "0");
	snprintf(num, sizeof(num), "%d", gl_param(p, "max_matches")->valueint);
	gl_argv_add_env(a, "GL_MAX", num);
	gl_argv_add_env(a, "GL_DIR", gl_param_str(p, "state_dir"));
	gl_argv_add_env(a, "GL_STATE", gl_param_str(p, "state_file"));
	snprintf(num, sizeof(num), "%d", wait_polls);
	gl_argv_add_env(a, "GL_WAIT", num);
	cJSON_AddItemToArray(a, cJSON_CreateString("sh"));
	cJSON_AddItemToArray(a, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(a, cJSON_CreateString(pk_script));
	cJSON_AddItemToArray(a, cJSON_CreateString("gauntlet-process_kill"));
	cJSON_AddItemToArray(a, cJSON_CreateString(step));
	return a;
}

static int pk_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	const char *pat = gl_param_str(f->params, "pattern"), *sig = signal_name(gl_param_str(f->params, "signal"));
	const char *dir = gl_param_str(f->params, "state_dir");
	const cJSON *pid = gl_param(f->params, "pid"), *max = gl_param(f->params, "max_matches");
	char file[320];
	cJSON *p;
	int wait_polls;

	if (!h)
		return gl_errf(err, GL_EINVAL, "process_kill: unknown host '%s'", f->target);
	if (!pat && !cJSON_IsNumber(pid))
		return gl_errf(err, GL_EINVAL, "process_kill '%s': params need \"pattern\" or \"pid\"", f->id);
	if (!sig)
		sig = "KILL";
	if (!dir)
		dir = PK_DEFAULT_STATE_DIR;
	gl_procsel_state_file(file, sizeof(file), dir, "fault", f->id);

	p = cJSON_CreateObject();
	if (!p)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(p, "id", f->id);
	gl_plan_put_host(p, h);
	cJSON_AddStringToObject(p, "signal", sig);
	if (pat)
		cJSON_AddStringToObject(p, "pattern", pat);
	else
		cJSON_AddNumberToObject(p, "pid", pid->valuedouble);
	cJSON_AddBoolToObject(p, "all", pat && cJSON_IsTrue(gl_param(f->params, "all")));
	cJSON_AddNumberToObject(p, "max_matches",
				cJSON_IsNumber(max) ? max->valueint
				: pat               ? PK_MAX_MATCHES_DEFAULT
						    : 1);
	cJSON_AddStringToObject(p, "state_dir", dir);
	cJSON_AddStringToObject(p, "state_file", file);
	/* how long verify waits for the signal to take effect (0.1 s polls) */
	wait_polls = !strcmp(sig, "TERM") || !strcmp(sig, "INT") ? 100 : 50;
	cJSON_AddItemToObject(p, "inject", step_argv(p, "inject", wait_polls));
	cJSON_AddItemToObject(p, "verify", step_argv(p, "verify", wait_polls));
	cJSON_AddItemToObject(p, "revert", step_argv(p, "revert", 50));
	cJSON_AddItemToObject(p, "verify_revert", step_argv(p, "verify_revert", 50));
	if (cJSON_GetArraySize(gl_param(p, "verify_revert")) == 0) {
		cJSON_Delete(p);
		return gl_errf(err, GL_ENOMEM, "out of memory");
	}
	*plan = p;
	return 0;
}

/* ---- steps ---------------------------------------------------------------- */

static int run_step(struct gl_ctx *c, const cJSON *plan, const char *step, struct gl_err *err)
{
	const cJSON *argv = gl_param(plan, step), *it;
	const char *args[32];
	struct gl_host host;
	struct gl_exec_result res = { 0 };
	int n = 0, rc;

	if (!cJSON_IsArray(argv))
		return gl_errf(err, GL_EINVAL, "process_kill: the plan has no %s command", step);
	cJSON_ArrayForEach(it, argv)
	{
		if (n >= (int)GL_ARRAY_LEN(args) - 1 || !cJSON_IsString(it))
			return gl_errf(err, GL_EINVAL, "process_kill: bad %s command in the plan", step);
		args[n++] = it->valuestring;
	}
	args[n] = NULL;
	rc = gl_plan_host(c, plan, "process_kill", &host, err);
	if (rc)
		return rc;
	rc = gl_host_exec(&host, args, PK_STEP_TIMEOUT_MS, &res, err);
	if (rc == 0 && res.exit_status != 0) {
		char out[300] = "";
		if (res.out.data) {
			snprintf(out, sizeof(out), "%s", res.out.data);
			out[strcspn(out, "\n")] = '\0';
		}
		rc = gl_errf(err, GL_EIO, "process_kill %s on '%s': %s (exit %d)", step, host.name,
			     out[0] ? out : "the step's script failed", res.exit_status);
	} else if (rc == 0 && !strcmp(step, "inject") && res.out.data) {
		/* "SIGKILL sent to 123 456": keep which processes were hit, so
		 * the report can tie the fault to what the workload saw. */
		const char *p = strstr(res.out.data, " sent to");
		int count = 0;
		if (p) {
			char *end;
			p += 8;
			for (;;) {
				long pid = strtol(p, &end, 10);
				if (end == p || pid <= 0)
					break;
				if (!count)
					gl_fault_measure(c, "pid", (double)pid);
				count++;
				p = end;
			}
			gl_fault_measure(c, "processes_signaled", count);
		}
	}
	gl_buf_free(&res.out);
	return rc;
}

static int pk_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "inject", err);
}
static int pk_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "verify", err);
}
static int pk_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "revert", err);
}
static int pk_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "verify_revert", err);
}

/* ---- dry run -------------------------------------------------------------- */

static void pk_describe(const cJSON *plan, struct gl_buf *out)
{
	const char *sig = gl_param_str(plan, "signal"), *pat = gl_param_str(plan, "pattern");
	const char *file = gl_param_str(plan, "state_file"), *ns = gl_param_str(plan, "netns");
	const cJSON *pid = gl_param(plan, "pid"), *max = gl_param(plan, "max_matches");
	int stop = sig && !strcmp(sig, "STOP");

	if (!sig || !file)
		return;
	if (ns && ns[0])
		gl_buf_printf(out, "  (every step runs under ip netns exec %s)\n", ns);
	if (pat) {
		gl_buf_printf(out, "  inject: pgrep -f -- ");
		{
			const char *one[] = { pat, NULL };
			gl_buf_append_argv(out, one);
		}
		gl_buf_printf(out,
			      " (%s; refuse if more than %d match; never pid 1 or the controller and its ancestors)",
			      cJSON_IsTrue(gl_param(plan, "all")) ? "every match" : "the newest match",
			      cJSON_IsNumber(max) ? max->valueint : PK_MAX_MATCHES_DEFAULT);
	} else {
		gl_buf_printf(out, "  inject: pid %lld", cJSON_IsNumber(pid) ? (long long)pid->valuedouble : 0LL);
	}
	gl_buf_printf(out, " > ");
	gl_buf_append_word(out, file);
	gl_buf_printf(out, "; kill -%s <those pids>\n", sig);
	if (stop)
		gl_buf_printf(out, "  verify: every pid in %s is in state T (/proc/PID/stat)\n", file);
	else
		gl_buf_printf(out, "  verify: every pid in %s is gone within %d s\n", file,
			      !strcmp(sig, "KILL") ? 5 : 10);
	if (stop) {
		gl_buf_printf(out, "  revert: kill -CONT $(cat ");
		gl_buf_append_word(out, file);
		gl_buf_printf(out, "); rm -f ");
		gl_buf_append_word(out, file);
		gl_buf_printf(out, "\n");
	} else {
		gl_buf_printf(out, "  revert: rm -f ");
		gl_buf_append_word(out, file);
		gl_buf_printf(out, " (nothing to undo after SIG%s)\n", sig);
	}
	gl_buf_printf(out, "  verify_revert: %s is gone%s\n", file,
		      stop ? "; no process of the selector is in state T" : "");
}

/* ---- dead-man's switch ---------------------------------------------------- */

/* Why a signal leaves the watcher nothing to do: its revert only drops
 * the pid record (the process is gone, or was told to go, at inject). */
static const char *pk_none_why(const char *sig)
{
	if (!strcmp(sig, "KILL"))
		return "process_kill with SIGKILL has nothing to revert (the process is gone at inject)";
	if (!strcmp(sig, "TERM"))
		return "process_kill with SIGTERM has nothing to revert (the process was told to end at inject)";
	return "process_kill with SIGINT has nothing to revert (the process was told to end at inject)";
}

/* STOP: the revert step's argv (SIGCONT to the recorded pids), pk_script
 * and all. */
static int pk_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	const char *sig = signal_name(gl_param_str(plan, "signal"));
	int rc;

	if (!sig)
		return gl_errf(err, GL_EINVAL, "process_kill: the plan's signal is missing or not valid");
	if (strcmp(sig, "STOP")) {
		if ((rc = gl_plan_host(c, plan, "process_kill", h, err)) != 0)
			return rc;
		gl_buf_printf(script, "%s", pk_none_why(sig));
		return GL_DEADMAN_NOTHING;
	}
	return gl_deadman_from_argv(c, plan, "process_kill", "revert", pk_script, h, script, err);
}

/* validate's question (plugin.h): does this fault end the processes p
 * describes? KILL, TERM or INT of a process its pattern names: sure (the
 * launcher ends the job). STOP of one: sure when it lasts the processes'
 * watchdog ("for", scenario time, against the watchdog), else they resume.
 * A process on one of their hosts that the pattern does not name (or a
 * pid): maybe. */
static int pk_ends(const struct gl_fault_spec *f, const struct gl_proc_view *p, char *why, size_t n)
{
	const char *sig = signal_name(gl_param_str(f->params, "signal")), *pat = gl_param_str(f->params, "pattern");
	int named = pat && gl_proc_named(p, pat), on = gl_proc_on_host(p, f->target);

	if (!sig)
		sig = "KILL";
	if (!named && !on)
		return GL_ENDS_NO;
	if (!strcmp(sig, "STOP") && (p->watchdog_ns <= 0 || f->dur_ns < p->watchdog_ns))
		return GL_ENDS_NO; /* stopped, then continued before anything ends them */
	if (why)
		snprintf(why, n, "SIG%s of %s", sig,
			 named ? "a process its pattern names" : "a process on one of its hosts");
	return named ? GL_ENDS_SURE : GL_ENDS_MAYBE;
}

static const struct gl_fault_ops gl_fault_process_kill = {
	.kind = "process_kill",
	.methods = pk_methods,
	.validate = pk_validate,
	.plan = pk_plan,
	.inject = pk_inject,
	.verify = pk_verify,
	.revert = pk_revert,
	.verify_revert = pk_verify_revert,
	.describe = pk_describe,
	.deadman = pk_deadman,
	/* no deadman_none: STOP has its watcher, the others nothing to undo */
	.ends = pk_ends,
	.sim = gl_sim_kill,
	.touches = gl_fault_touches_target,
};
GL_REGISTER_FAULT(gl_fault_process_kill, 70)
