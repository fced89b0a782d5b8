/*
 * test_deadman_ops.c - every fault kind's dead-man's switch hook (plugin.h:
 * deadman and deadman_none). For each kind and method a scenario holding
 * that one fault is parsed and validated, the kind's plan made, and the
 * watcher script its deadman hook yields checked against the revert
 * command written out here: sh itself reads the script's words back (set
 * -- LINE; printf '%s\0' "$@"), so the quoting is proved by the shell that
 * will run it, and `sh -n` accepts the whole text. Methods that act
 * through an API give GL_DEADMAN_NONE, with the same reason deadman_none
 * gives from the spec alone; deadman_none says NULL wherever deadman gives
 * a script. Two scripts also run: exec's revert, twice (idempotent), and
 * process_kill's SIGCONT to a stopped child, whose multi-line sh -c script
 * travels in single quotes.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "deadman.h"
#include "plan.h"
#include "plugin.h"
#include "scenario.h"

#define MAX_WORDS 64

static char tmpdir[64];
static int n_files;

/* A temp file of ours holding text; its path into path (256 bytes). */
static void put_file(char *path, const char *text)
{
	FILE *f;

	snprintf(path, 256, "%s/f%d.sh", tmpdir, n_files++);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/* `sh -n` accepts text. */
static int sh_n_ok(const char *text)
{
	char path[256], cmd[300];

	put_file(path, text);
	snprintf(cmd, sizeof(cmd), "sh -n %s", path);
	return system(cmd) == 0;
}

/* The words sh reads from one command line (no trailing newline needed):
 * `set -- LINE` then print them NUL-separated. Returns the count (words
 * are malloc'ed into w), or -1. */
static int sh_words(const char *line, char **w, int max)
{
	struct gl_buf b;
	char path[256], cmd[300], buf[65536];
	size_t len = 0, k;
	FILE *p;
	int n = 0;

	gl_buf_init(&b, 1 << 20);
	gl_buf_printf(&b, "set -- %s\nprintf '%%s\\0' \"$@\"\n", line);
	put_file(path, b.data);
	gl_buf_free(&b);
	snprintf(cmd, sizeof(cmd), "sh %s", path);
	if (!(p = popen(cmd, "r")))
		return -1;
	while ((k = fread(buf + len, 1, sizeof(buf) - 1 - len, p)) > 0)
		len += k;
	if (pclose(p) != 0)
		return -1;
	for (size_t i = 0; i < len && n < max; i += strlen(buf + i) + 1)
		w[n++] = strdup(buf + i);
	return n;
}

static void free_words(char **w, int n)
{
	for (int i = 0; i < n; i++)
		free(w[i]);
}

/* One case: the fault's scenario, its plan, and what deadman gave. */
struct dm_case {
	struct gl_scenario *s;
	const struct gl_fault_spec *f;
	cJSON *plan;
	struct gl_host h;
	struct gl_buf script;
	int rc;
};

static const char scenario_fmt[] =
	"{ \"name\": \"deadman-ops\", \"duration\": \"10m\", \"window\": \"1s\",\n"
	"  \"hosts\": { \"localhost\": { \"local\": true },\n"
	"             \"nshost\": { \"local\": true, \"netns\": \"gl_dmk\" } },\n"
	"  \"workloads\": { \"null\": { \"rate\": 10 } },\n"
	"  \"phases\": [ { \"name\": \"steady\", \"for\": \"10m\" } ],\n"
	"  \"faults\": [ %s ],\n"
	"  \"targets\": {\n"
	"    \"steady\": { \"null.tick_lag_ms.p99\": \"<= 50\", \"null.ticks\": \">= 1\" },\n"
	"    \"degraded\": { \"null.tick_lag_ms.p99\": \"<= 100\" },\n"
	"    \"recovery\": { \"recovery_s\": \"<= 10\", \"restore_s\": \"<= 10\" } } }\n";

/* Parse a scenario with fault (JSON, id "f1"), plan it, call deadman with
 * no context (as --dry-run does). Checks what every case shares: the
 * scenario validates, the host is the fault's target (netns and all),
 * the script passes sh -n, and deadman_none agrees. Returns 0 when the
 * case got as far as deadman. */
static int run_case(const char *name, const char *fault, struct dm_case *dc)
{
	char text[8192];
	struct gl_diag d;
	struct gl_err err = { 0 };
	const struct gl_fault_ops *ops;
	const struct gl_host *want;
	const char *none;

	memset(dc, 0, sizeof(*dc));
	gl_buf_init(&dc->script, 1 << 20);
	snprintf(text, sizeof(text), scenario_fmt, fault);
	gl_diag_init(&d, NULL);
	dc->s = gl_scenario_load_text(name, text, strlen(text), NULL, &d);
	CHECKF(dc->s && d.n_errors == 0, "%s: the scenario does not validate:\n%s", name,
	       d.text.data ? d.text.data : "(syntax)");
	gl_diag_free(&d);
	if (!dc->s || !(dc->f = gl_scenario_fault(dc->s, "f1")) || !(ops = dc->f->ops))
		return -1;
	CHECKF(ops->deadman != NULL, "%s: kind %s has no deadman hook", name, ops->kind);
	if (!ops->deadman)
		return -1;
	if (ops->plan(dc->s, dc->f, &dc->plan, &err) != 0) {
		CHECKF(0, "%s: plan: %s", name, err.msg);
		return -1;
	}
	dc->rc = ops->deadman(NULL, dc->plan, &dc->h, &dc->script, &err);
	CHECKF(dc->rc == 0 || dc->rc == GL_DEADMAN_NONE || dc->rc == GL_DEADMAN_NOTHING, "%s: deadman returned %d: %s",
	       name, dc->rc, err.msg);
	want = gl_scenario_host(dc->s, dc->f->target);
	CHECKF(want && !strcmp(dc->h.name, want->name) && !strcmp(dc->h.netns, want->netns) && dc->h.local,
	       "%s: deadman's host is '%s' (netns '%s'), not the target", name, dc->h.name, dc->h.netns);
	if (getenv("GL_DEADMAN_SHOW")) /* to read what each kind gives */
		printf("== %s: %s\n%s\n", name, dc->rc ? "none" : "script", dc->script.data ? dc->script.data : "");
	none = ops->deadman_none ? ops->deadman_none(dc->f) : NULL;
	if (dc->rc == GL_DEADMAN_NONE)
		CHECKF(none && dc->script.data && !strcmp(none, dc->script.data),
		       "%s: deadman says none ('%s') but deadman_none says '%s'", name,
		       dc->script.data ? dc->script.data : "", none ? none : "(null: a watcher)");
	else
		CHECKF(!none, "%s: deadman gave a script or nothing to undo but deadman_none says '%s'", name,
		       none ? none : "");
	if (dc->rc == 0) {
		CHECKF(dc->script.data && dc->script.len && dc->script.data[dc->script.len - 1] == '\n',
		       "%s: the script is empty or does not end its line", name);
		CHECKF(dc->script.data && sh_n_ok(dc->script.data), "%s: sh -n refuses the script:\n%s", name,
		       dc->script.data ? dc->script.data : "");
	}
	return 0;
}

static void end_case(struct dm_case *dc)
{
	cJSON_Delete(dc->plan);
	gl_buf_free(&dc->script);
	if (dc->s)
		gl_scenario_free(dc->s);
}

/* A case whose script must be exactly expect. */
static void exact(const char *name, const char *fault, const char *expect)
{
	struct dm_case dc;

	if (run_case(name, fault, &dc) == 0) {
		CHECKF(dc.rc == 0, "%s: expected a script, got none: %s", name, dc.script.data ? dc.script.data : "");
		CHECKF(dc.rc != 0 || (dc.script.data && !strcmp(dc.script.data, expect)),
		       "%s: script\n%s\nexpected\n%s", name, dc.script.data ? dc.script.data : "", expect);
	}
	end_case(&dc);
}

/* A case that must have no watcher (want GL_DEADMAN_NONE: a fault left
 * unguarded; GL_DEADMAN_NOTHING: nothing to undo), its reason holding why. */
static void none_rc(const char *name, const char *fault, int want, const char *why)
{
	struct dm_case dc;

	if (run_case(name, fault, &dc) == 0)
		CHECKF(dc.rc == want && dc.script.data && strstr(dc.script.data, why),
		       "%s: expected %d because '%s', got %d: %s", name, want, why, dc.rc,
		       dc.script.data ? dc.script.data : "");
	end_case(&dc);
}

static void none(const char *name, const char *fault, const char *why)
{
	none_rc(name, fault, GL_DEADMAN_NONE, why);
}

/* The words of the single-command line script (sh reads them) against
 * want: a word "=KEY" means the plan's string KEY, "@SCRIPT" a word
 * holding the text SCRIPT (the kind's own sh -c script: checked by
 * fragment). With plan_key, the words must also be exactly the plan's
 * argv plan_key: what the revert step runs. */
static void words_are(const char *name, const struct dm_case *dc, const char *line, const char *const *want,
		      const char *plan_key)
{
	char *w[MAX_WORDS];
	int n = sh_words(line, w, MAX_WORDS), nw = 0;

	while (want[nw])
		nw++;
	CHECKF(n == nw, "%s: sh reads %d words, expected %d", name, n, nw);
	for (int i = 0; i < n && i < nw; i++) {
		if (want[i][0] == '=') {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(dc->plan, want[i] + 1);
			CHECKF(cJSON_IsString(v) && strstr(w[i], v->valuestring) &&
				       strlen(w[i]) - strlen(v->valuestring) < 16,
			       "%s: word %d is '%s', expected the plan's %s", name, i, w[i], want[i] + 1);
		} else if (want[i][0] == '@') {
			CHECKF(strstr(w[i], want[i] + 1) != NULL, "%s: word %d does not hold '%s'", name, i,
			       want[i] + 1);
		} else {
			CHECKF(!strcmp(w[i], want[i]), "%s: word %d is '%s', expected '%s'", name, i, w[i], want[i]);
		}
	}
	if (plan_key) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(dc->plan, plan_key), *it;
		int i = 0, same = cJSON_GetArraySize(a) == n;
		cJSON_ArrayForEach(it, a)
		{
			if (i >= n || !cJSON_IsString(it) || strcmp(it->valuestring, w[i]))
				same = 0;
			i++;
		}
		CHECKF(same, "%s: the script's words are not the plan's %s argv", name, plan_key);
	}
	free_words(w, n);
}

/* A case whose one command sh reads as want (see words_are). */
static void words(const char *name, const char *fault, const char *const *want, const char *plan_key)
{
	struct dm_case dc;

	if (run_case(name, fault, &dc) == 0 && dc.rc == 0 && dc.script.data) {
		dc.script.data[dc.script.len - 1] = '\0'; /* the line's own newline */
		words_are(name, &dc, dc.script.data, want, plan_key);
	} else {
		CHECKF(0, "%s: no script", name);
	}
	end_case(&dc);
}

#define F(kind, extra) "{ \"id\": \"f1\", \"at\": \"1m\", \"kind\": \"" kind "\", " extra " }"

static void test_exec(void)
{
	exact("exec",
	      F("exec", "\"for\": \"1m\", \"target\": \"localhost\", "
			"\"params\": { \"inject\": [\"touch\", \"/tmp/gl x\"], \"revert\": [\"rm\", \"-f\", \"/tmp/gl "
			"x\", \"it's\"] }"),
	      "rm -f '/tmp/gl x' 'it'\\''s'\n");
	exact("exec in a netns",
	      F("exec", "\"for\": \"1m\", \"target\": \"nshost\", "
			"\"params\": { \"inject\": [\"ip\", \"link\"], \"revert\": [\"ip\", \"link\", \"set\", \"lo\", "
			"\"up\"] }"),
	      "ip link set lo up\n");
	none("exec without revert", F("exec", "\"target\": \"localhost\", \"params\": { \"inject\": [\"true\"] }"),
	     "exec fault has no revert command");
}

static void test_process_kill(void)
{
	const char *const stop[] = { "env",
				     "GL_SIG=STOP",
				     "GL_PIDFILE=",
				     "GL_PID=4242",
				     "GL_PAT=",
				     "GL_ALL=0",
				     "GL_MAX=1",
				     "GL_DIR=/run/gauntlet",
				     "=state_file",
				     "GL_WAIT=50",
				     "sh",
				     "-c",
				     "@revert() {\n\tif [ \"$GL_SIG\" = STOP ]",
				     "gauntlet-process_kill",
				     "revert",
				     NULL };

	words("process_kill STOP",
	      F("process_kill", "\"method\": \"signal\", \"for\": \"1m\", \"target\": \"localhost\", "
				"\"params\": { \"pid\": 4242, \"signal\": \"STOP\" }"),
	      stop, "revert");
	none_rc("process_kill KILL",
		F("process_kill", "\"method\": \"signal\", \"target\": \"localhost\", "
				  "\"params\": { \"pattern\": \"sleep 4242\" }"),
		GL_DEADMAN_NOTHING, "SIGKILL has nothing to revert");
	none_rc("process_kill TERM for",
		F("process_kill", "\"method\": \"signal\", \"for\": \"1m\", \"target\": \"localhost\", "
				  "\"params\": { \"pattern\": \"sleep 4242\", \"signal\": \"TERM\" }"),
		GL_DEADMAN_NOTHING, "SIGTERM has nothing to revert");
}

static void test_storage_throttle(void)
{
	const char *const cg[] = { "sh",
				   "-c",
				   "@v1each v1zero || exit 4",
				   "gauntlet-storage_throttle",
				   "revert",
				   "/sys/fs/cgroup",
				   "/sys/fs/cgroup/gauntlet/storage",
				   "/sys/fs/cgroup/blkio/gauntlet/storage",
				   "254:0",
				   "",
				   "",
				   "",
				   "100",
				   NULL };
	const char *const tc[] = {
		"sh",   "-c", "@*'qdisc tbf '*) tc qdisc del dev \"$1\" root ;;", "gauntlet-storage_throttle",
		"eth1", NULL
	};

	words("storage_throttle cgroup",
	      F("storage_throttle",
		"\"method\": \"cgroup\", \"for\": \"1m\", \"target\": \"localhost\", "
		"\"params\": { \"cgroup\": \"gauntlet/storage\", \"device\": \"254:0\", \"write_iops\": 100 }"),
	      cg, "revert");
	words("storage_throttle tc",
	      F("storage_throttle", "\"method\": \"tc\", \"for\": \"1m\", \"target\": \"nshost\", "
				    "\"params\": { \"interface\": \"eth1\", \"rate\": \"100mbit\" }"),
	      tc, "revert");
}

static void test_gpu_throttle(void)
{
	const char *const power[] = { "env",
				      "GL_METHOD=power",
				      "GL_GPUS=0,1",
				      "GL_WATTS=300",
				      "GL_MIN=",
				      "GL_MAX=",
				      "GL_DIR=/run/gauntlet",
				      "=state_file",
				      "sh",
				      "-c",
				      "@nvidia-smi",
				      "gauntlet-gpu_throttle",
				      "revert",
				      NULL };
	const char *const clocks[] = { "env",         "GL_METHOD=clocks",      "GL_GPUS=all", "GL_WATTS=", "GL_MIN=900",
				       "GL_MAX=1200", "GL_DIR=/run/gauntlet",  "=state_file", "sh",        "-c",
				       "@revert() {", "gauntlet-gpu_throttle", "revert",      NULL };

	words("gpu_throttle power",
	      F("gpu_throttle", "\"method\": \"power\", \"for\": \"1m\", \"target\": \"localhost\", "
				"\"params\": { \"gpus\": [0, 1], \"watts\": 300 }"),
	      power, NULL);
	words("gpu_throttle clocks",
	      F("gpu_throttle", "\"method\": \"clocks\", \"for\": \"1m\", \"target\": \"localhost\", "
				"\"params\": { \"gpus\": \"all\", \"sm_clock_mhz\": [900, 1200] }"),
	      clocks, NULL);
}

static void test_control_plane_loss(void)
{
	const char *const stop[] = { "env",
				     "GL_SIG=STOP",
				     "GL_PAT=",
				     "GL_PIDFILE=",
				     "GL_PID=4242",
				     "GL_MAX=1",
				     "GL_DIR=/run/gauntlet",
				     "=state_file",
				     "GL_LOG=/dev/null",
				     "GL_WAIT=100",
				     "sh",
				     "-c",
				     "@setsid -f \"$@\"",
				     "gauntlet-control_plane_loss",
				     "revert",
				     NULL };
	const char *const kill_start[] = { "env",
					   "GL_SIG=KILL",
					   "GL_PAT=etcd --name m1",
					   "GL_PIDFILE=",
					   "GL_PID=",
					   "GL_MAX=8",
					   "GL_DIR=/run/gauntlet",
					   "=state_file",
					   "GL_LOG=/dev/null",
					   "GL_WAIT=100",
					   "sh",
					   "-c",
					   "@revert() {",
					   "gauntlet-control_plane_loss",
					   "revert",
					   "systemctl",
					   "start",
					   "etcd member",
					   NULL };

	words("control_plane_loss signal STOP",
	      F("control_plane_loss", "\"method\": \"signal\", \"for\": \"1m\", \"target\": \"localhost\", "
				      "\"params\": { \"pid\": 4242, \"signal\": \"STOP\" }"),
	      stop, "revert_argv");
	words("control_plane_loss signal KILL",
	      F("control_plane_loss", "\"method\": \"signal\", \"for\": \"1m\", \"target\": \"localhost\", "
				      "\"params\": { \"pattern\": \"etcd --name m1\", \"start\": [\"systemctl\", "
				      "\"start\", \"etcd member\"] }"),
	      kill_start, "revert_argv");
	exact("control_plane_loss exec",
	      F("control_plane_loss", "\"method\": \"exec\", \"for\": \"1m\", \"target\": \"localhost\", "
				      "\"params\": { \"stop\": [\"systemctl\", \"stop\", \"etcd\"], \"start\": "
				      "[\"systemctl\", \"start\", \"etcd\"] }"),
	      "systemctl start etcd\n");
	none("control_plane_loss exec without start",
	     F("control_plane_loss", "\"method\": \"exec\", \"target\": \"localhost\", "
				     "\"params\": { \"stop\": [\"systemctl\", \"stop\", \"etcd\"] }"),
	     "no start command");
	none("control_plane_loss redfish",
	     F("control_plane_loss",
	       "\"method\": \"redfish\", \"for\": \"1m\", \"target\": \"localhost\", "
	       "\"params\": { \"bmc\": \"https://bmc.example\", \"system\": \"/redfish/v1/Systems/1\", "
	       "\"user_env\": \"BMC_USER\", \"pass_env\": \"BMC_PASS\" }"),
	     "Redfish API");
}

static void test_drain_worker(void)
{
	exact("drain_worker slurm",
	      F("drain_worker", "\"method\": \"slurm\", \"for\": \"1m\", \"target\": \"localhost\", "
				"\"params\": { \"node\": \"node01\", \"reason\": \"soak test; drained\" }"),
	      "scontrol update NodeName=node01 State=RESUME\n");
	none("drain_worker slurmrestd",
	     F("drain_worker",
	       "\"method\": \"slurm\", \"for\": \"1m\", \"target\": \"localhost\", "
	       "\"params\": { \"node\": \"node01\", \"via\": \"slurmrestd\", \"url\": \"https://slurm:6820\", "
	       "\"token_env\": \"SLURM_JWT\" }"),
	     "slurmrestd's API");
	none("drain_worker kubernetes",
	     F("drain_worker",
	       "\"method\": \"kubernetes\", \"for\": \"1m\", \"target\": \"localhost\", "
	       "\"params\": { \"api\": \"https://k8s:6443\", \"node\": \"n1\", \"token_env\": \"K8S_TOKEN\" }"),
	     "Kubernetes API");
	exact("drain_worker exec",
	      F("drain_worker",
		"\"method\": \"exec\", \"for\": \"1m\", \"target\": \"localhost\", "
		"\"params\": { \"drain\": [\"drain.sh\"], \"resume\": [\"/usr/local/bin/resume\", \"n 1\"] }"),
	      "/usr/local/bin/resume 'n 1'\n");
}

/* The ip method's and fabric_port's revert: deadman.c's script, whose
 * text (built here from the plan, as revert builds it) ends with the up
 * command after stopping the loop that the plan's pid file names. */
static void loop_script(const char *name, const char *fault, const char *kind, const char *what, const char *up_cmd)
{
	struct dm_case dc;
	char text[4096];
	const char *const want[] = { "sh", "-c", text, NULL };

	if (run_case(name, fault, &dc) != 0 || dc.rc != 0 || !dc.script.data) {
		CHECKF(0, "%s: no script", name);
		end_case(&dc);
		return;
	}
	{
		const char *pid_file = cJSON_GetObjectItemCaseSensitive(dc.plan, "pid_file")->valuestring;
		struct gl_deadman dm = { .pid_file = pid_file, .up_cmd = up_cmd, .what = what };
		gl_deadman_revert_script(text, sizeof(text), &dm);
		CHECKF(!strncmp(pid_file, "/run/gauntlet/", 14) && strstr(pid_file, kind), "%s: pid file %s", name,
		       pid_file);
		CHECKF(strstr(text, pid_file) && strstr(text, "kill -TERM -\"$p\""),
		       "%s: the script does not stop the loop", name);
		CHECKF(strlen(text) > strlen(up_cmd) && !strcmp(text + strlen(text) - strlen(up_cmd), up_cmd),
		       "%s: the script does not end with %s", name, up_cmd);
	}
	dc.script.data[dc.script.len - 1] = '\0';
	CHECKF(!strchr(dc.script.data, '\n'), "%s: one line expected", name);
	words_are(name, &dc, dc.script.data, want, NULL);
	end_case(&dc);
}

static void test_link_flap(void)
{
	loop_script("link_flap ip",
		    F("link_flap",
		      "\"method\": \"ip\", \"target\": \"nshost\", "
		      "\"params\": { \"interface\": \"eth0\", \"down\": \"5s\", \"up\": \"5s\", \"count\": 2 }"),
		    "link_flap", "flap loop", "ip link set dev eth0 up");
	exact("link_flap loss",
	      F("link_flap", "\"method\": \"loss\", \"for\": \"1m\", \"target\": \"nshost\", "
			     "\"params\": { \"interface\": \"eth0\", \"percent\": 10 }"),
	      "nft delete table inet gauntlet_f1\n");
	exact("link_flap rate",
	      F("link_flap", "\"method\": \"rate\", \"for\": \"1m\", \"target\": \"nshost\", "
			     "\"params\": { \"interface\": \"eth0\", \"rate\": \"10mbit\" }"),
	      "tc qdisc del dev eth0 root\n");
}

static void test_partition(void)
{
	exact("partition",
	      F("partition", "\"method\": \"nftables\", \"for\": \"1m\", \"target\": \"nshost\", "
			     "\"params\": { \"a\": [\"10.0.0.1\"], \"b\": [\"10.0.1.0/24\"] }"),
	      "nft delete table inet gauntlet_f1\n");
}

static void test_fabric_port(void)
{
	loop_script("fabric_port ib",
		    F("fabric_port", "\"method\": \"ib\", \"for\": \"1m\", \"target\": \"localhost\", "
				     "\"params\": { \"lid\": 5, \"port\": 3, \"ca\": \"mlx5_0\" }"),
		    "fabric_port", "dead-man loop", "ibportstate 5 3 enable");
	loop_script("fabric_port roce",
		    F("fabric_port", "\"method\": \"roce\", \"for\": \"1m\", \"target\": \"localhost\", "
				     "\"params\": { \"interface\": \"ens1f0\" }"),
		    "fabric_port", "dead-man loop", "ip link set dev ens1f0 up");
}

/* Stop the injection loop (one line), then 0 into each GPU's field. */
static void test_gpu_xid(void)
{
	struct dm_case dc;
	const char *const stop[] = { "sh", "-c", "@rm -f \"", "gpu_xid", NULL };
	char *line2, *line3;

	if (run_case("gpu_xid",
		     F("gpu_xid", "\"for\": \"1m\", \"target\": \"localhost\", \"params\": { \"gpus\": [0, 2] }"),
		     &dc) != 0 ||
	    dc.rc != 0 || !dc.script.data) {
		CHECKF(0, "gpu_xid: no script");
		end_case(&dc);
		return;
	}
	line2 = strchr(dc.script.data, '\n');
	CHECKF(line2 && (line3 = strchr(line2 + 1, '\n')) &&
		       !strcmp(line2 + 1, "dcgmi test --inject --gpuid 0 -f 230 -v 0\n"
					  "dcgmi test --inject --gpuid 2 -f 230 -v 0\n"),
	       "gpu_xid: script\n%s", dc.script.data);
	if (line2) {
		const char *state = cJSON_GetObjectItemCaseSensitive(dc.plan, "state")->valuestring;
		*line2 = '\0';
		CHECKF(strstr(dc.script.data, state) && strstr(dc.script.data, "kill -TERM -"),
		       "gpu_xid: the first line does not stop the loop of %s", state);
		words_are("gpu_xid", &dc, dc.script.data, stop, NULL);
	}
	end_case(&dc);
}

static void test_model_swap(void)
{
	none("model_swap lora",
	     F("model_swap", "\"method\": \"lora\", \"for\": \"1m\", \"target\": \"localhost\", "
			     "\"params\": { \"adapter\": \"a1\", \"path\": \"/models/a1\", \"action\": \"unload\", "
			     "\"endpoints\": [\"http://h:8000/v1\"] }"),
	     "vLLM's adapter API");
	none("model_swap kubernetes",
	     F("model_swap",
	       "\"method\": \"kubernetes\", \"for\": \"1m\", \"target\": \"localhost\", "
	       "\"params\": { \"api\": \"https://k8s:6443\", \"namespace\": \"ns\", \"deployment\": \"vllm\", "
	       "\"image\": \"vllm:v2\", \"token_env\": \"K8S_TOKEN\" }"),
	     "Kubernetes API");
	exact("model_swap exec",
	      F("model_swap", "\"method\": \"exec\", \"for\": \"1m\", \"target\": \"localhost\", "
			      "\"params\": { \"swap\": [\"swap.sh\"], \"restore\": [\"restore.sh\", \"--to\", \"v1\"], "
			      "\"probe\": [\"probe.sh\"], \"expect\": \"v2\", \"expect_after\": \"v1\" }"),
	      "restore.sh --to v1\n");
}

static void test_null(void)
{
	const struct gl_fault_ops *ops = gl_fault_find("null");

	CHECK(ops && !ops->deadman && !ops->deadman_none);
}

/* What the watcher may not take: a control character in a word, a line
 * GL_WATCHER_EOF; a refused argv leaves the buffer as it was. */
static void test_argv_sh(void)
{
	struct gl_buf b;
	const char *const nl[] = { "echo", "a\nb", NULL };
	const char *const eof[] = { GL_WATCHER_EOF, NULL };
	const char *const tab[] = { "sh", "-c", "x\n" GL_WATCHER_EOF "\ny", NULL };
	const char *const ok[] = { "sh", "-c", "echo 'a'\n\techo b", "n a", NULL };

	gl_buf_init(&b, 1 << 16);
	gl_buf_printf(&b, "keep\n");
	CHECK(gl_deadman_argv_sh(&b, nl, NULL) == -1 && !strcmp(b.data, "keep\n"));
	CHECK(gl_deadman_argv_sh(&b, eof, NULL) == -1 && !strcmp(b.data, "keep\n"));
	CHECK(gl_deadman_argv_sh(&b, tab, tab[2]) == -1 && !strcmp(b.data, "keep\n"));
	CHECK(gl_deadman_argv_sh(&b, nl, "other script") == -1 && !strcmp(b.data, "keep\n"));
	CHECK(gl_deadman_argv_sh(&b, ok, ok[2]) == 0 &&
	      !strcmp(b.data, "keep\nsh -c 'echo '\\''a'\\''\n\techo b' 'n a'\n"));
	gl_buf_free(&b);
}

/* exec's script run twice: the file is gone and both runs exit 0. */
static void test_exec_runs(void)
{
	char file[256], fault[1024], path[256], cmd[300];
	struct dm_case dc;

	put_file(file, "x");
	snprintf(fault, sizeof(fault),
		 F("exec", "\"for\": \"1m\", \"target\": \"localhost\", \"params\": { \"inject\": [\"true\"], "
			   "\"revert\": [\"rm\", \"-f\", \"%s\"] }"),
		 file);
	if (run_case("exec runs", fault, &dc) == 0 && dc.rc == 0) {
		put_file(path, dc.script.data);
		snprintf(cmd, sizeof(cmd), "sh %s && sh %s", path, path);
		CHECKF(system(cmd) == 0 && access(file, F_OK) != 0, "exec runs: the revert did not remove %s", file);
	}
	end_case(&dc);
}

/* process_kill STOP: a stopped child gets its SIGCONT from the watcher
 * script alone, after inject recorded it. */
static void test_process_kill_runs(void)
{
	char fault[1024], path[256], cmd[300], stat[512], st = '?';
	struct dm_case dc;
	struct gl_err err = { 0 };
	pid_t pid = fork();

	if (pid == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	snprintf(fault, sizeof(fault),
		 F("process_kill", "\"method\": \"signal\", \"for\": \"1m\", \"target\": \"localhost\", "
				   "\"params\": { \"pid\": %d, \"signal\": \"STOP\", \"state_dir\": \"%s\" }"),
		 (int)pid, tmpdir);
	usleep(100000); /* the child is sleep by now, not this test */
	if (run_case("process_kill runs", fault, &dc) == 0 && dc.rc == 0) {
		int rc = dc.f->ops->inject(NULL, dc.plan, &err);
		CHECKF(rc == 0, "process_kill runs: inject: %s", err.msg);
		if (rc == 0) {
			FILE *f;
			put_file(path, dc.script.data);
			snprintf(cmd, sizeof(cmd), "sh %s >/dev/null", path);
			CHECKF(system(cmd) == 0, "process_kill runs: the watcher script failed");
			snprintf(stat, sizeof(stat), "/proc/%d/stat", (int)pid);
			if ((f = fopen(stat, "r"))) {
				if (fgets(stat, sizeof(stat), f) && strrchr(stat, ')'))
					st = strrchr(stat, ')')[2];
				fclose(f);
			}
			CHECKF(st != 'T', "process_kill runs: the child is still stopped (state %c)", st);
			CHECKF(access(cJSON_GetObjectItemCaseSensitive(dc.plan, "state_file")->valuestring, F_OK) != 0,
			       "process_kill runs: the pid record is still there");
		}
		/* a failed revert leaves it in our directory */
		unlink(cJSON_GetObjectItemCaseSensitive(dc.plan, "state_file")->valuestring);
	}
	end_case(&dc);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	char path[256];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/gl-dmk.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_argv_sh();
	test_exec();
	test_process_kill();
	test_storage_throttle();
	test_gpu_throttle();
	test_control_plane_loss();
	test_drain_worker();
	test_link_flap();
	test_partition();
	test_fabric_port();
	test_gpu_xid();
	test_model_swap();
	test_null();
	test_exec_runs();
	test_process_kill_runs();
	/* only the files this test made */
	for (int i = 0; i < n_files; i++) {
		snprintf(path, sizeof(path), "%s/f%d.sh", tmpdir, i);
		unlink(path);
	}
	rmdir(tmpdir);
	return check_done();
}
