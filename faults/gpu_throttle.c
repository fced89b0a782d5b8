/*
 * gpu_throttle.c - the gpu_throttle fault kind: cap the power of GPUs
 * (method "power", `nvidia-smi -i N -pl W`) or lock their SM clocks into a
 * range (method "clocks", `nvidia-smi -i N -lgc MIN,MAX`) on the target
 * host, through gl_host_exec like every kind.
 *
 * params: {"gpus": [0, 1] or "all", "watts": W}                 (power)
 *         {"gpus": ..., "sm_clock_mhz": [MIN, MAX]}              (clocks)
 *         "state_dir": "/run/gauntlet"   (both: where the record lives)
 *
 * Restoring what was there, after a crash too. The plan is committed
 * before inject and inject cannot change it, so the limits in force are
 * kept on the target: inject first reads `nvidia-smi --query-gpu=index,
 * power.limit,... --format=csv,noheader,nounits`, writes "GPU WATTS" lines
 * to the state file the plan names (STATE_DIR/gpu_throttle-ID-TOKEN.pids,
 * written to .tmp and renamed, so it is there whole or not at all) and
 * only then changes anything. A later inject (a resumed run) keeps the
 * record it finds: it holds the values from before the first one. revert
 * reads the record (a regular file owned by the user running the step, in
 * a directory that user owns, no symlinks; every value checked as a number
 * before it reaches nvidia-smi) and sets each GPU's power limit back to the
 * recorded value (`-pl OLD`, not the default), then renames the record to
 * .reverted; verify_revert reads the limits back against it and removes
 * it only when they match, so a revert whose -pl did not take is done
 * again from the .reverted record by the next revert. revert without
 * either record has nothing to undo (inject changes nothing before the
 * record exists), so revert is idempotent and works from the plan alone
 * in a later process (`gauntlet revert DIR`).
 *
 * Clocks: nvidia-smi has no query field for a GPU clock lock in force
 * (`-lgc` sets one, `-rgc` resets it; `clocks.applications.graphics` is
 * the application clock, another setting), so whether the SM clocks were
 * locked before the fault cannot be read. revert resets them (`-rgc`): a
 * lock the host had before the fault is not restored (docs/faults.md).
 * verify: clocks.sm of each GPU is at most MAX.
 *
 * preflight (tools: nvidia-smi): every GPU named exists, and for power W
 * lies within each GPU's power.min_limit..power.max_limit. Every step is
 * one sh script (`sh -c SCRIPT gauntlet-gpu_throttle STEP`) whose inputs
 * travel in the environment (GL_METHOD, GL_GPUS, GL_WATTS, GL_MIN, GL_MAX,
 * GL_DIR, GL_STATE), all validated again when the plan is read back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostrun.h"
#include "params.h"
#include "plan.h"
#include "plugin.h"
#include "procsel.h"
#include "sim_effects.h"

#define GT_CMD_TIMEOUT_MS 60000
#define GT_DEFAULT_STATE_DIR "/run/gauntlet"
#define GT_MAX_GPU 255
#define GT_MAX_GPUS 64
#define GT_MAX_WATTS 100000
#define GT_MAX_MHZ 100000

enum gt_method { GT_POWER, GT_CLOCKS };

static const char *const gt_methods[] = { "power", "clocks", NULL };
static const char *const gt_tools[] = { "nvidia-smi", NULL };

static enum gt_method method_of(const char *m)
{
	return m && !strcmp(m, "clocks") ? GT_CLOCKS : GT_POWER;
}

/*
 * The script, step in $1. nvidia-smi's CSV lines ("0, 450.00, 200.00,
 * 700.00, 1980") are split by read with IFS ", ". The loops read here
 * documents, so an exit inside them ends the script (no pipe subshell).
 * sh has no local variables: each function reads into names of its own
 * (cur's c_*), or it would overwrite its caller's loop variables.
 */
static const char gt_script[] =
	"set -f\n"
	"num() { case $1 in ''|*[!0-9.]*|.*|*.*.*) return 1 ;; esac; }\n"
	"readq() {\n"
	"	QOUT=$(nvidia-smi --query-gpu=index,power.limit,power.min_limit,power.max_limit,clocks.sm"
	" --format=csv,noheader,nounits 2>&1) ||\n"
	"		{ echo \"nvidia-smi --query-gpu failed: $(echo \"$QOUT\" | head -n 1)\"; exit 3; }\n"
	"}\n"
	"cur() {\n"
	"	while IFS=', ' read -r c_i c_pl c_pmin c_pmax c_sm; do\n"
	"		[ \"$c_i\" = \"$1\" ] && { PL=$c_pl PMIN=$c_pmin PMAX=$c_pmax SM=$c_sm; return 0; }\n"
	"	done <<EOF\n"
	"$QOUT\n"
	"EOF\n"
	"	return 1\n"
	"}\n"
	"gpulist() {\n"
	"	L= ALL=\n"
	"	while IFS=', ' read -r i rest; do\n"
	"		case $i in ''|*[!0-9]*) ;; *) ALL=\"$ALL $i\" ;; esac\n"
	"	done <<EOF\n"
	"$QOUT\n"
	"EOF\n"
	"	if [ \"$GL_GPUS\" = all ]; then L=$ALL; else L=$(echo \"$GL_GPUS\" | tr , ' '); fi\n"
	"	[ -n \"$L\" ] || { echo \"nvidia-smi lists no GPU\"; exit 3; }\n"
	"	for g in $L; do cur \"$g\" || { echo \"no GPU $g (nvidia-smi lists:${ALL:- none})\"; exit 3; }; done\n"
	"}\n"
	"dir_ok() { [ -d \"$GL_DIR\" ] && [ ! -L \"$GL_DIR\" ] && [ -O \"$GL_DIR\" ]; }\n"
	"load() {\n"
	"	dir_ok && [ -f \"$1\" ] && [ ! -L \"$1\" ] && [ -O \"$1\" ] ||\n"
	"		{ echo \"$1 is not a regular file of ours in a directory of ours: refusing to use it\"; exit "
	"5; }\n"
	"	S=\n"
	"	while read -r g pl extra; do\n"
	"		case $g in ''|*[!0-9]*) echo \"$1: bad line (GPU '$g')\"; exit 5 ;; esac\n"
	"		num \"$pl\" && [ -z \"$extra\" ] || { echo \"$1: bad line for GPU $g\"; exit 5; }\n"
	"		S=\"$S$g $pl\n\"\n"
	"	done < \"$1\"\n"
	"	[ -n \"$S\" ] || { echo \"$1 is empty\"; exit 5; }\n"
	"}\n"
	"smi() { o=$(nvidia-smi \"$@\" 2>&1) || { echo \"nvidia-smi $* failed: $(echo \"$o\" | head -n 1)\"; exit 6; "
	"}; }\n"
	"inject() {\n"
	"	mkdir -p -- \"$GL_DIR\" 2>/dev/null; dir_ok || { echo \"state dir $GL_DIR: cannot create it, or not "
	"ours\"; exit 5; }\n"
	"	if [ ! -e \"$GL_STATE\" ]; then\n"
	"		readq; gpulist; OUT=\n"
	"		for g in $L; do\n"
	"			cur \"$g\"; num \"$PL\" || { echo \"GPU $g: power.limit is '$PL', not a number\"; exit "
	"3; }\n"
	"			OUT=\"$OUT$g $PL\n\"\n"
	"		done\n"
	"		umask 077\n"
	"		{ printf '%s' \"$OUT\" > \"$GL_STATE.tmp\" && mv -f -- \"$GL_STATE.tmp\" \"$GL_STATE\"; } ||\n"
	"			{ echo \"cannot write $GL_STATE\"; exit 5; }\n"
	"	fi\n"
	"	load \"$GL_STATE\"; done_=\n"
	"	while read -r g pl; do\n"
	"		[ -n \"$g\" ] || continue\n"
	"		if [ \"$GL_METHOD\" = power ]; then smi -i \"$g\" -pl \"$GL_WATTS\"; else smi -i \"$g\" -lgc "
	"\"$GL_MIN,$GL_MAX\"; fi\n"
	"		done_=\"$done_ $g\"\n"
	"	done <<EOF\n"
	"$S\n"
	"EOF\n"
	"	echo \"throttled GPU(s)$done_ (was: $(echo $S))\"\n"
	"}\n"
	"verify() {\n"
	"	load \"$GL_STATE\"; readq; bad=\n"
	"	while read -r g pl; do\n"
	"		[ -n \"$g\" ] || continue\n"
	"		cur \"$g\" || { bad=\"$bad GPU $g gone\"; continue; }\n"
	"		if [ \"$GL_METHOD\" = power ]; then\n"
	"			[ \"${PL%%.*}\" = \"$GL_WATTS\" ] || bad=\"$bad GPU $g power.limit $PL W (want "
	"$GL_WATTS)\"\n"
	"		else\n"
	"			num \"$SM\" && [ \"${SM%%.*}\" -le \"$GL_MAX\" ] || bad=\"$bad GPU $g clocks.sm $SM "
	"MHz (want at most $GL_MAX)\"\n"
	"		fi\n"
	"	done <<EOF\n"
	"$S\n"
	"EOF\n"
	"	[ -z \"$bad\" ] || { echo \"not throttled:$bad\"; exit 1; }\n"
	"	echo ok\n"
	"}\n"
	"revert() {\n"
	"	R=$GL_STATE\n"
	"	[ -e \"$R\" ] || R=$GL_STATE.reverted\n"
	"	[ -e \"$R\" ] || { echo \"no record: nothing was changed, nothing to restore\"; exit 0; }\n"
	"	load \"$R\"\n"
	"	while read -r g pl; do\n"
	"		[ -n \"$g\" ] || continue\n"
	"		if [ \"$GL_METHOD\" = power ]; then smi -i \"$g\" -pl \"$pl\"; else smi -i \"$g\" -rgc; fi\n"
	"	done <<EOF\n"
	"$S\n"
	"EOF\n"
	"	[ \"$R\" != \"$GL_STATE\" ] || mv -f -- \"$GL_STATE\" \"$GL_STATE.reverted\" || { echo \"cannot rename "
	"$GL_STATE\"; exit 5; }\n"
	"	echo \"restored: $(echo $S)\"\n"
	"}\n"
	"verify_revert() {\n"
	"	[ ! -e \"$GL_STATE\" ] || { echo \"$GL_STATE is still there: not reverted\"; exit 1; }\n"
	"	[ -e \"$GL_STATE.reverted\" ] || { echo ok; exit 0; }\n"
	"	load \"$GL_STATE.reverted\"; readq; bad=\n"
	"	while read -r g pl; do\n"
	"		[ -n \"$g\" ] || continue\n"
	"		cur \"$g\" || { bad=\"$bad GPU $g gone\"; continue; }\n"
	"		[ \"$GL_METHOD\" != power ] || [ \"$PL\" = \"$pl\" ] || bad=\"$bad GPU $g power.limit $PL W "
	"(want $pl)\"\n"
	"	done <<EOF\n"
	"$S\n"
	"EOF\n"
	"	[ -z \"$bad\" ] || { echo \"not restored:$bad\"; exit 1; }\n"
	"	rm -f -- \"$GL_STATE.reverted\"\n"
	"	echo ok\n"
	"}\n"
	"preflight() {\n"
	"	readq; gpulist\n"
	"	[ \"$GL_METHOD\" = power ] || { echo ok; exit 0; }\n"
	"	for g in $L; do\n"
	"		cur \"$g\"\n"
	"		num \"$PMIN\" && num \"$PMAX\" || { echo \"GPU $g: power limits not readable ('$PMIN', "
	"'$PMAX')\"; exit 3; }\n"
	"		[ \"$GL_WATTS\" -ge \"${PMIN%%.*}\" ] && [ \"$GL_WATTS\" -le \"${PMAX%%.*}\" ] ||\n"
	"			{ echo \"GPU $g: $GL_WATTS W is outside its power.min_limit..power.max_limit, "
	"$PMIN..$PMAX W\"; exit 4; }\n"
	"	done\n"
	"	echo ok\n"
	"}\n"
	"step=$1; shift\n"
	"case $step in\n"
	"inject|verify|revert|verify_revert|preflight) \"$step\" ;;\n"
	"*) echo \"unknown step '$step'\"; exit 2 ;;\n"
	"esac\n";

/* ---- params --------------------------------------------------------------- */

/* gpus: "all" or a non-empty array of distinct indices; into out as
 * "all" or "0,1". Returns NULL, or why not. */
static const char *gpus_problem(const cJSON *v, char *out, size_t n)
{
	const cJSON *it;
	long long g;
	size_t len = 0;
	int count = 0;

	if (cJSON_IsString(v) && !strcmp(v->valuestring, "all")) {
		snprintf(out, n, "all");
		return NULL;
	}
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > GT_MAX_GPUS)
		return "expected \"all\" or a non-empty array of GPU indices (nvidia-smi -i), like [0, 1]";
	out[0] = '\0';
	cJSON_ArrayForEach(it, v)
	{
		char one[16], padded[24], have[600];
		if (gl_json_int(it, 0, GT_MAX_GPU, &g) != 0)
			return "expected GPU indices: whole numbers from 0 to 255";
		snprintf(one, sizeof(one), "%lld", g);
		snprintf(padded, sizeof(padded), ",%s,", one);
		snprintf(have, sizeof(have), ",%s,", out);
		if (strstr(have, padded))
			return "a GPU index is listed twice";
		len += (size_t)snprintf(out + len, n - len, "%s%s", count++ ? "," : "", one);
		if (len >= n)
			return "too many GPUs";
	}
	return NULL;
}

struct gt_params {
	enum gt_method m;
	char gpus[400];
	long long watts, mhz_min, mhz_max;
	const char *state_dir;
};

/* Parse f's params; with d, report each problem at path. Returns the
 * error count. */
static int parse_params(const struct gl_fault_spec *f, struct gt_params *p, struct gl_diag *d, const char *path)
{
	static const char *const keys[][4] = {
		[GT_POWER] = { "gpus", "watts", "state_dir", NULL },
		[GT_CLOCKS] = { "gpus", "sm_clock_mhz", "state_dir", NULL },
	};
	const cJSON *params = f->params, *v;
	const char *why;
	char pp[256], what[64];
	int n_err = 0;

	memset(p, 0, sizeof(*p));
	p->m = method_of(f->method);
	p->state_dir = GT_DEFAULT_STATE_DIR;
	if (!params) {
		n_err++;
		if (d)
			gl_diag_error(d, f->json, path,
				      "kind gpu_throttle needs params, e.g. {\"gpus\": [0, 1], \"watts\": 300}");
		return n_err;
	}
	snprintf(pp, sizeof(pp), "%s.params", path);
	snprintf(what, sizeof(what), "gpu_throttle method %s", gt_methods[p->m]);
	n_err += gl_params_check_keys(params, keys[p->m], what, d, pp);

	v = gl_param(params, "gpus");
	snprintf(pp, sizeof(pp), "%s.params.gpus", path);
	if (!v) {
		n_err++;
		if (d)
			gl_diag_error(d, params, pp,
				      "kind gpu_throttle needs params.gpus: \"all\" or GPU indices like [0, 1]");
	} else if ((why = gpus_problem(v, p->gpus, sizeof(p->gpus)))) {
		n_err++;
		if (d)
			gl_diag_error(d, v, pp, "%s", why);
	}
	if (p->m == GT_POWER) {
		v = gl_param(params, "watts");
		snprintf(pp, sizeof(pp), "%s.params.watts", path);
		if (!v || gl_json_int(v, 1, GT_MAX_WATTS, &p->watts) != 0) {
			n_err++;
			if (d)
				gl_diag_error(d, v ? v : params, pp, "%s",
					      v ? "expected the power limit in watts, a whole number from 1 to 100000"
						: "method power needs params.watts: the power limit in watts "
						  "(nvidia-smi -pl)");
		}
	} else {
		const cJSON *a, *b;
		v = gl_param(params, "sm_clock_mhz");
		snprintf(pp, sizeof(pp), "%s.params.sm_clock_mhz", path);
		a = cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2 ? cJSON_GetArrayItem(v, 0) : NULL;
		b = a ? cJSON_GetArrayItem(v, 1) : NULL;
		if (!a || gl_json_int(a, 1, GT_MAX_MHZ, &p->mhz_min) != 0 ||
		    gl_json_int(b, 1, GT_MAX_MHZ, &p->mhz_max) != 0 || p->mhz_min > p->mhz_max) {
			n_err++;
			if (d)
				gl_diag_error(
					d, v ? v : params, pp, "%s",
					v ? "expected [MIN, MAX] in MHz, whole numbers from 1 to 100000 with MIN <= MAX"
					  : "method clocks needs params.sm_clock_mhz: [MIN, MAX] in MHz (nvidia-smi "
					    "-lgc)");
		}
	}
	v = gl_param(params, "state_dir");
	if (v) {
		snprintf(pp, sizeof(pp), "%s.params.state_dir", path);
		if (!cJSON_IsString(v) || !gl_safe_abs_path(v->valuestring)) {
			n_err++;
			if (d)
				gl_diag_error(d, v, pp,
					      "expected an absolute directory path of letters, digits and / . _ - (at "
					      "most 200 bytes), like \"/run/gauntlet\"");
		} else {
			p->state_dir = v->valuestring;
		}
	}
	return n_err;
}

static void gt_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	struct gt_params p;

	parse_params(f, &p, d, path);
	if (f->dur_ns <= 0)
		gl_diag_error(d, f->json, path,
			      "kind gpu_throttle needs \"for\": how long the GPUs stay throttled (without it the fault "
			      "would be reverted at once)");
}

/* ---- plan ----------------------------------------------------------------- */

static int gt_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	struct gt_params p;
	char file[320];
	cJSON *o;

	if (!h)
		return gl_errf(err, GL_EINVAL, "gpu_throttle: unknown host '%s'", f->target);
	if (parse_params(f, &p, NULL, "") != 0)
		return gl_errf(err, GL_EINVAL, "gpu_throttle '%s': its params do not validate (see gauntlet validate)",
			       f->id);
	o = cJSON_CreateObject();
	if (!o)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(o, "id", f->id);
	cJSON_AddStringToObject(o, "method", gt_methods[p.m]);
	gl_plan_put_host(o, h);
	cJSON_AddStringToObject(o, "gpus", p.gpus);
	if (p.m == GT_POWER) {
		cJSON_AddNumberToObject(o, "watts", (double)p.watts);
	} else {
		cJSON_AddNumberToObject(o, "sm_clock_min_mhz", (double)p.mhz_min);
		cJSON_AddNumberToObject(o, "sm_clock_max_mhz", (double)p.mhz_max);
	}
	cJSON_AddStringToObject(o, "state_dir", p.state_dir);
	gl_procsel_state_file(file, sizeof(file), p.state_dir, "gpu_throttle", f->id);
	cJSON_AddStringToObject(o, "state_file", file);
	*plan = o;
	return 0;
}

/* A plan read back and checked: every value that reaches the script. */
struct gt_plan {
	enum gt_method m;
	struct gl_host host;
	char gpus[400], watts[16], mhz_min[16], mhz_max[16];
	char state_dir[256], state_file[400];
	char env[7][480];
	const char *argv[16];
};

/* "0,1" or "all" */
static int gpus_str_ok(const char *s)
{
	if (!s || !*s || strlen(s) >= 400)
		return 0;
	if (!strcmp(s, "all"))
		return 1;
	for (const char *c = s; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c == ',' && c != s && c[1] && c[1] != ',')))
			return 0;
	return 1;
}

static int plan_int(const cJSON *plan, const char *key, long long hi, char *out, size_t n, struct gl_err *err)
{
	long long v;

	if (gl_json_int(gl_param(plan, key), 1, hi, &v) != 0)
		return gl_errf(err, GL_EINVAL, "gpu_throttle: the plan's %s is missing or not valid", key);
	snprintf(out, n, "%lld", v);
	return 0;
}

/* Read a plan (maybe from a store another process wrote) and build the
 * step's argv: env GL_...=... sh -c SCRIPT gauntlet-gpu_throttle STEP. */
static int read_plan(struct gl_ctx *c, const cJSON *plan, const char *step, struct gt_plan *p, struct gl_err *err)
{
	const char *gpus = gl_param_str(plan, "gpus"), *dir = gl_param_str(plan, "state_dir");
	const char *file = gl_param_str(plan, "state_file");
	int n = 0;

	memset(p, 0, sizeof(*p));
	if (!cJSON_IsObject(plan))
		return gl_errf(err, GL_EINVAL, "gpu_throttle: no plan");
	p->m = method_of(gl_param_str(plan, "method"));
	if (gl_plan_host(c, plan, "gpu_throttle", &p->host, err) != 0)
		return -GL_EINVAL;
	if (!gpus_str_ok(gpus))
		return gl_errf(err, GL_EINVAL, "gpu_throttle: the plan's gpus are missing or not valid");
	snprintf(p->gpus, sizeof(p->gpus), "%s", gpus);
	if (p->m == GT_POWER) {
		if (plan_int(plan, "watts", GT_MAX_WATTS, p->watts, sizeof(p->watts), err))
			return -GL_EINVAL;
	} else if (plan_int(plan, "sm_clock_min_mhz", GT_MAX_MHZ, p->mhz_min, sizeof(p->mhz_min), err) ||
		   plan_int(plan, "sm_clock_max_mhz", GT_MAX_MHZ, p->mhz_max, sizeof(p->mhz_max), err)) {
		return -GL_EINVAL;
	}
	/* the state file is DIR/gpu_throttle-NAME with no '/' in NAME */
	if (!gl_safe_abs_path(dir) || !file || strlen(file) >= sizeof(p->state_file) ||
	    strncmp(file, dir, strlen(dir)) || strncmp(file + strlen(dir), "/gpu_throttle-", 14) ||
	    !gl_safe_abs_path(file) || strchr(file + strlen(dir) + 1, '/'))
		return gl_errf(err, GL_EINVAL,
			       "gpu_throttle: the plan's state_dir or state_file is missing or not valid");
	snprintf(p->state_dir, sizeof(p->state_dir), "%s", dir);
	snprintf(p->state_file, sizeof(p->state_file), "%s", file);

	p->argv[n++] = "env";
	snprintf(p->env[0], sizeof(p->env[0]), "GL_METHOD=%s", gt_methods[p->m]);
	snprintf(p->env[1], sizeof(p->env[1]), "GL_GPUS=%s", p->gpus);
	snprintf(p->env[2], sizeof(p->env[2]), "GL_WATTS=%s", p->watts);
	snprintf(p->env[3], sizeof(p->env[3]), "GL_MIN=%s", p->mhz_min);
	snprintf(p->env[4], sizeof(p->env[4]), "GL_MAX=%s", p->mhz_max);
	snprintf(p->env[5], sizeof(p->env[5]), "GL_DIR=%s", p->state_dir);
	snprintf(p->env[6], sizeof(p->env[6]), "GL_STATE=%s", p->state_file);
	for (int i = 0; i < 7; i++)
		p->argv[n++] = p->env[i];
	p->argv[n++] = "sh";
	p->argv[n++] = "-c";
	p->argv[n++] = gt_script;
	p->argv[n++] = "gauntlet-gpu_throttle";
	p->argv[n++] = step;
	p->argv[n] = NULL;
	return 0;
}

/* ---- steps ---------------------------------------------------------------- */

static int run_step(struct gl_ctx *c, const cJSON *plan, const char *step, struct gl_err *err)
{
	struct gt_plan p;
	char out[600];
	int status;

	if (read_plan(c, plan, step, &p, err) != 0)
		return -GL_EINVAL;
	if (gl_run_trim(&p.host, p.argv, GT_CMD_TIMEOUT_MS, 0, "gpu_throttle", &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	if (status != 0)
		return gl_errf(err, GL_EIO, "gpu_throttle %s on host '%s': %s (exit %d)", step, p.host.name,
			       out[0] ? gl_first_line(out) : "the step's script failed", status);
	return 0;
}

static int gt_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "inject", err);
}
static int gt_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "verify", err);
}
static int gt_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "revert", err);
}
static int gt_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return run_step(c, plan, "verify_revert", err);
}

/* The GPUs exist and, for power, W lies within each one's limits. */
static int gt_preflight(struct gl_ctx *c, const cJSON *plan)
{
	struct gt_plan p;
	struct gl_err err = { 0 };
	char subject[160];
	const char *id = gl_param_str(plan, "id");

	if (read_plan(c, plan, "preflight", &p, &err) != 0)
		return gl_ctx_preflight(c, "fault", "gpu_throttle plan readable", 0, err.msg);
	snprintf(subject, sizeof(subject), "fault %s on host %s", id ? id : "?", p.host.name);
	return gl_run_preflight(c, &p.host, GT_CMD_TIMEOUT_MS, 0, "gpu_throttle", subject,
				p.m == GT_POWER ? "GPUs exist, watts within power.min_limit..power.max_limit"
						: "GPUs exist",
				p.argv, "refused");
}

static void gt_describe(const cJSON *plan, struct gl_buf *out)
{
	struct gt_plan p;
	struct gl_err err = { 0 };
	int power;

	if (read_plan(NULL, plan, "inject", &p, &err) != 0) {
		gl_buf_printf(out, "  (no valid plan: %s)\n", err.msg);
		return;
	}
	power = p.m == GT_POWER;
	if (p.host.netns[0])
		gl_buf_printf(out, "  (every step runs under ip netns exec %s)\n", p.host.netns);
	gl_buf_printf(out,
		      "  inject: nvidia-smi --query-gpu=index,power.limit,power.min_limit,power.max_limit,clocks.sm "
		      "--format=csv,noheader,nounits; GPU(s) %s: 'GPU WATTS' lines > ",
		      p.gpus);
	gl_buf_append_word(out, p.state_file);
	if (power)
		gl_buf_printf(out, "; nvidia-smi -i N -pl %s\n", p.watts);
	else
		gl_buf_printf(out, "; nvidia-smi -i N -lgc %s,%s\n", p.mhz_min, p.mhz_max);
	if (power)
		gl_buf_printf(out, "  verify: power.limit of each GPU is %s W\n", p.watts);
	else
		gl_buf_printf(out, "  verify: clocks.sm of each GPU is at most %s MHz\n", p.mhz_max);
	if (power)
		gl_buf_printf(out, "  revert: nvidia-smi -i N -pl <the recorded WATTS>; mv the record to .reverted\n");
	else
		gl_buf_printf(out,
			      "  revert: nvidia-smi -i N -rgc (a clock lock from before the fault is not restored); "
			      "mv the record to .reverted\n");
	gl_buf_printf(out, "  verify_revert: the record is gone%s\n",
		      power ? "; power.limit of each GPU equals its recorded value" : "");
}

/* ---- dead-man's switch ---------------------------------------------------- */

/* The revert step's argv as read_plan builds it (the plan holds no argv:
 * every value is checked again on the way in). */
static int gt_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	struct gt_plan p;

	if (read_plan(c, plan, "revert", &p, err) != 0)
		return -GL_EINVAL;
	*h = p.host;
	if (gl_deadman_argv_sh(script, p.argv, gt_script) != 0)
		return gl_errf(err, GL_EINVAL, "gpu_throttle: the revert command cannot go into a watcher script");
	return 0;
}

static const struct gl_fault_ops gl_fault_gpu_throttle = {
	.kind = "gpu_throttle",
	.methods = gt_methods,
	.validate = gt_validate,
	.plan = gt_plan,
	.inject = gt_inject,
	.verify = gt_verify,
	.revert = gt_revert,
	.verify_revert = gt_verify_revert,
	.describe = gt_describe,
	.tools = gt_tools,
	.preflight = gt_preflight,
	.deadman = gt_deadman,
	.sim = gl_sim_gpu_slow,
	.touches = gl_fault_touches_target,
};
GL_REGISTER_FAULT(gl_fault_gpu_throttle, 100)
