/*
 * cplane_signal.c - control_plane_loss's signal method (control_plane_loss.c
 * describes it; cplane.h says which file owns what): the sh script its
 * steps run on the target (process selection shared with process_kill,
 * procsel.h), the checks of its params, and its plan: the signal, the
 * matches allowed, the state file and each step's argv.
 */
#include <stdio.h>
#include <string.h>

#include "cplane.h"
#include "params.h"
#include "procsel.h"

/*
 * The signal method's script (procsel.h), step in $1, "start" argv after
 * it. Inputs: GL_SIG (KILL|STOP), GL_PID, GL_PIDFILE or GL_PAT, GL_MAX,
 * GL_DIR, GL_STATE, GL_WAIT (polls of 0.1 s), GL_LOG.
 */
static const char cp_script[] = GL_PROCSEL_SH_FUNCS
	"inject() {\n"
	"	select_checked\n"
	"	{ printf '%s %s\\n' \"$BEST\" \"$BEST_ST\" > \"$GL_STATE.tmp\" && mv -f -- \"$GL_STATE.tmp\" "
	"\"$GL_STATE\"; } ||\n"
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
	"	if [ \"$GL_SIG\" = STOP ]; then echo \"not stopped:$bad\"; else echo \"still running after "
	"SIG$GL_SIG:$bad\"; fi\n"
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
	"			if [ \"$GL_SIG\" = STOP ]; then echo \"still stopped after SIGCONT:$bad\"; else echo "
	"\"the killed member still runs:$bad\"; fi\n"
	"			exit 1\n"
	"		fi\n"
	"		sleep 0.1\n"
	"	done\n"
	"	if [ \"$GL_SIG\" != STOP ] && [ $# -gt 0 ]; then\n"
	"		setsid -f \"$@\" < /dev/null >> \"$GL_LOG\" 2>&1 || { echo \"could not start '$1'\"; exit 7; "
	"}\n"
	"	fi\n"
	"	rm -f -- \"$GL_STATE\" \"$GL_STATE.tmp\" || { echo \"cannot remove $GL_STATE\"; exit 5; }\n"
	"	echo ok\n"
	"}\n" GL_PROCSEL_SH_DISPATCH;

const char *gl_cp_signal_script(void)
{
	return cp_script;
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

void gl_cp_validate_signal(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *pat = gl_param(f->params, "pattern"), *pid = gl_param(f->params, "pid"),
		    *pf = gl_param(f->params, "pidfile");
	const cJSON *sig = gl_param(f->params, "signal"), *max = gl_param(f->params, "max_matches"), *v;
	const char *sname = "KILL";
	char p[256], buf[256];
	long long n;

	if ((pat != NULL) + (pid != NULL) + (pf != NULL) != 1) {
		snprintf(p, sizeof(p), "%s.params", path);
		gl_diag_error(d, f->params, p,
			      "method signal needs exactly one of \"pid\", \"pidfile\" or \"pattern\" (pgrep -f) "
			      "naming the member's process");
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
			gl_diag_error(d, pf, p,
				      "expected an absolute path of letters, digits and / . _ - (at most 200 bytes)");
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
			gl_diag_error(d, sig, p,
				      "signal STOP needs \"for\" (%s.for): the member stays stopped until the revert "
				      "sends SIGCONT",
				      path);
		}
		if ((v = gl_param(f->params, "start"))) {
			snprintf(p, sizeof(p), "%s.params.start", path);
			gl_diag_error(d, v, p, "\"start\" applies to signal KILL only (STOP reverts with SIGCONT)");
		}
	} else if (sname) {
		gl_cp_check_argv(f->params, d, path, "start", f->dur_ns > 0,
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
				gl_diag_error(
					d, v, p,
					"expected an absolute path of letters, digits and / . _ - (at most 200 bytes)");
		}
	}
}

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
	gl_argv_add_env(a, "GL_PIDFILE",
			!gl_param_str(p, "pattern") && gl_param_str(p, "pidfile") ? gl_param_str(p, "pidfile") : "");
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
		cJSON_ArrayForEach(it, start) cJSON_AddItemToArray(a, cJSON_CreateString(it->valuestring));
	return a;
}

int gl_cp_plan_signal(const struct gl_fault_spec *f, cJSON *p, struct gl_err *err)
{
	const char *sig = signal_name(gl_param_str(f->params, "signal")), *dir = gl_param_str(f->params, "state_dir");
	const cJSON *max = gl_param(f->params, "max_matches");
	char file[320];

	if (!gl_param_str(p, "pattern") && !gl_param_str(p, "pidfile") && !cJSON_IsNumber(gl_param(p, "pid")))
		return gl_errf(err, GL_EINVAL,
			       "control_plane_loss '%s': params need \"pid\", \"pidfile\" or \"pattern\"", f->id);
	if (!sig)
		sig = "KILL";
	if (!dir)
		dir = CP_DEFAULT_STATE_DIR;
	gl_procsel_state_file(file, sizeof(file), dir, "cplane", f->id);
	cJSON_DeleteItemFromObject(p, "signal");
	cJSON_AddStringToObject(p, "signal", sig);
	cJSON_DeleteItemFromObject(p, "max_matches");
	cJSON_AddNumberToObject(p, "max_matches",
				cJSON_IsNumber(max)          ? max->valueint
				: gl_param_str(p, "pattern") ? CP_MAX_MATCHES_DEFAULT
							     : 1);
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
