/*
 * fabric_port.c - the fabric_port fault kind: take a fabric port down for
 * the fault's time. Method "ib": an InfiniBand port by LID and port number
 * (`ibportstate LID PORT disable`, then `enable`), its state read with
 * `ibstat CA CA_PORT` (the "State:" line: Down while the fault lasts,
 * Active after). Method "roce": a RoCE NIC's netdev (`ip link set dev IF
 * down`, then `up`), read with `ip -o link show`.
 *
 * params: ib   {"lid": N, "port": P, "ca": "mlx5_0", "ca_port": P2,
 *               "down": "30s", "active_wait": "30s"}
 *         roce {"interface": "ens1f0np0", "down": "30s"}
 * `ibportstate LID PORT disable` acts on a switch port (an HCA port would
 * need ibportstate's -C/-P, not passed here). "ca" (and "ca_port", default
 * "port") name where ibstat on the target reads the link's state: the HCA
 * at the other end of that link. "down" is how long the port stays down;
 * without it, the fault's "for".
 *
 * The dead-man's switch is link_flap's (deadman.c): inject takes the port
 * down and starts a detached loop on the target (setsid) that enables it
 * again after "down" (divided by --time-scale) even when the controller
 * was SIGKILLed and nobody runs `gauntlet revert`. revert kills the loop
 * and enables the port, from the plan alone, as often as asked; for ib it
 * then waits (30 s at most) for ibstat to say Active again, since a port
 * comes back through Polling and Initializing while the subnet manager
 * brings it up ("active_wait", ib only, default 30s). verify: the port is Down (ib) or has no UP flag (roce);
 * verify_revert: Active, or UP, and no loop runs.
 *
 * Values that reach the sh scripts are numbers or names checked here
 * (LIDs 1-49151, ports 1-254, CA names of [A-Za-z0-9_-], interface names
 * as link_flap's), again when a plan is read back from the store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bodies.h"
#include "deadman.h"
#include "hostrun.h"
#include "params.h"
#include "plan.h"
#include "plugin.h"
#include "sim_effects.h"

#define FP_CMD_TIMEOUT_MS 30000
#define FP_ACTIVE_WAIT_S 30
#define FP_MAX_LID 49151 /* the unicast LID range */
#define FP_MAX_PORT 254
#define FP_SCRIPT_MAX 4096

enum fp_method { FP_IB, FP_ROCE };

static const char *const fp_methods[] = { "ib", "roce", NULL };

static enum fp_method method_of(const char *m)
{
	return m && !strcmp(m, "roce") ? FP_ROCE : FP_IB;
}

/* mlx5_0, hfi1_0, ...: what ibstat takes as a CA name */
static int ca_ok(const char *s)
{
	return s && s[0] != '-' && gl_word_ok(s, "_-", 63);
}

/* ---- params --------------------------------------------------------------- */

struct fp_params {
	enum fp_method m;
	long long lid, port, ca_port;
	const char *ca, *ifname;
	int64_t down_ns; /* 0: the fault's "for" */
	int64_t active_wait_ns;
};

/* Check f's params; with d, report each problem at path. Returns the error
 * count. */
static int parse_params(const struct gl_fault_spec *f, struct fp_params *p, struct gl_diag *d, const char *path)
{
	static const char *const keys[][7] = {
		[FP_IB] = { "lid", "port", "ca", "ca_port", "down", "active_wait", NULL },
		[FP_ROCE] = { "interface", "down", NULL },
	};
	const cJSON *params = f->params, *v;
	char pp[256], what[64];
	int n_err = 0;
	struct gl_err e = { 0 };

#define FP_ERR(node, key, ...)                                                                     \
	do {                                                                                       \
		n_err++;                                                                           \
		if (d) {                                                                           \
			snprintf(pp, sizeof(pp), "%s.params%s%s", path, (key)[0] ? "." : "", key); \
			gl_diag_error(d, node, pp, __VA_ARGS__);                                   \
		}                                                                                  \
	} while (0)

	memset(p, 0, sizeof(*p));
	p->m = method_of(f->method);
	if (!params) {
		FP_ERR(f->json, "",
		       "kind fabric_port needs params, e.g. {\"lid\": 12, \"port\": 7, \"ca\": \"mlx5_0\"} (ib) or "
		       "{\"interface\": \"ens1f0np0\"} (roce)");
		return n_err;
	}
	snprintf(pp, sizeof(pp), "%s.params", path);
	snprintf(what, sizeof(what), "fabric_port method %s", fp_methods[p->m]);
	n_err += gl_params_check_keys(params, keys[p->m], what, d, pp);
	if (p->m == FP_IB) {
		v = gl_param(params, "lid");
		if (!v)
			FP_ERR(params, "lid",
			       "method ib needs params.lid: the LID of the switch or HCA whose port goes down");
		else if (gl_json_int(v, 1, FP_MAX_LID, &p->lid) != 0)
			FP_ERR(v, "lid", "expected a unicast LID, a whole number from 1 to %d", FP_MAX_LID);
		v = gl_param(params, "port");
		if (!v)
			FP_ERR(params, "port", "method ib needs params.port: the port number at that LID");
		else if (gl_json_int(v, 1, FP_MAX_PORT, &p->port) != 0)
			FP_ERR(v, "port", "expected a port number from 1 to %d", FP_MAX_PORT);
		p->ca_port = p->port;
		p->active_wait_ns = FP_ACTIVE_WAIT_S * 1000000000LL;
		v = gl_param(params, "active_wait");
		if (v && (!cJSON_IsString(v) || gl_parse_duration_ns(v->valuestring, &p->active_wait_ns, &e) != 0 ||
			  p->active_wait_ns < 1000000000LL || p->active_wait_ns > 600 * 1000000000LL)) {
			FP_ERR(v, "active_wait", "expected a duration from 1s to 10m, like \"30s\"");
			p->active_wait_ns = FP_ACTIVE_WAIT_S * 1000000000LL;
		}
		v = gl_param(params, "ca_port");
		if (v && gl_json_int(v, 1, FP_MAX_PORT, &p->ca_port) != 0)
			FP_ERR(v, "ca_port", "expected a port number from 1 to %d", FP_MAX_PORT);
		v = gl_param(params, "ca");
		if (!v)
			FP_ERR(params, "ca",
			       "method ib needs params.ca: the CA whose port state ibstat reads, like \"mlx5_0\"");
		else if (!cJSON_IsString(v) || !ca_ok(v->valuestring))
			FP_ERR(v, "ca",
			       "expected a CA name like \"mlx5_0\": 1-63 characters from A-Z a-z 0-9 _ -, not starting "
			       "with '-'");
		else
			p->ca = v->valuestring;
	} else {
		v = gl_param(params, "interface");
		if (!v)
			FP_ERR(params, "interface",
			       "method roce needs params.interface: the RoCE NIC's netdev, like \"ens1f0np0\"");
		else if (!cJSON_IsString(v) || !gl_ifname_ok(v->valuestring))
			FP_ERR(v, "interface",
			       "expected an interface name: 1-15 characters from A-Z a-z 0-9 _ . : - , not starting "
			       "with '-'");
		else
			p->ifname = v->valuestring;
	}
	v = gl_param(params, "down");
	if (v &&
	    (!cJSON_IsString(v) || gl_parse_duration_ns(v->valuestring, &p->down_ns, &e) != 0 || p->down_ns <= 0)) {
		FP_ERR(v, "down", "expected a duration above 0s, like \"30s\"");
		p->down_ns = 0;
	}
#undef FP_ERR
	return n_err;
}

static void fp_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	struct fp_params p;

	parse_params(f, &p, d, path);
	/* validate runs before "for" is implied: dur_ns is what was written */
	if (!p.down_ns && f->dur_ns <= 0)
		gl_diag_error(d, f->json, path,
			      "kind fabric_port needs \"for\" or params.down: how long the port stays down");
}

static int64_t fp_implied_duration_ns(const struct gl_fault_spec *f)
{
	struct fp_params p;

	return parse_params(f, &p, NULL, "") == 0 ? p.down_ns : 0;
}

/* ---- the plan ------------------------------------------------------------- */

static int fp_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	struct fp_params p;
	char name[192];
	int64_t down_ns;
	cJSON *o;

	if (!h)
		return gl_errf(err, GL_EINVAL, "fabric_port: unknown host '%s'", f->target);
	if (parse_params(f, &p, NULL, "") != 0)
		return gl_errf(err, GL_EINVAL, "fabric_port '%s': its params do not validate (see gauntlet validate)",
			       f->id);
	down_ns = p.down_ns ? p.down_ns : f->dur_ns;
	if (down_ns <= 0)
		return gl_errf(err, GL_EINVAL, "fabric_port '%s': no \"for\" and no params.down", f->id);
	o = cJSON_CreateObject();
	if (!o)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(o, "id", f->id);
	cJSON_AddStringToObject(o, "method", fp_methods[p.m]);
	gl_plan_put_host(o, h);
	if (p.m == FP_IB) {
		cJSON_AddNumberToObject(o, "lid", (double)p.lid);
		cJSON_AddNumberToObject(o, "port", (double)p.port);
		cJSON_AddStringToObject(o, "ca", p.ca);
		cJSON_AddNumberToObject(o, "ca_port", (double)p.ca_port);
		cJSON_AddNumberToObject(o, "active_wait_s", (double)(p.active_wait_ns / 1000000000LL));
	} else {
		cJSON_AddStringToObject(o, "interface", p.ifname);
	}
	gl_deadman_pid_file(name, sizeof(name), "fabric_port", f->id);
	cJSON_AddStringToObject(o, "pid_file", name);
	cJSON_AddNumberToObject(o, "down_us", (double)(down_ns / 1000));
	*plan = o;
	return 0;
}

struct fp_plan {
	enum fp_method m;
	struct gl_host host;
	long long lid, port, ca_port, active_wait_s;
	char ca[64], ifname[16], pid_file[192];
	int64_t down_us;
	char down_cmd[96], up_cmd[96];
};

/* Read a plan back (maybe from a store written by another process) and
 * check every value that reaches a command. c may be NULL (describe). */
static int read_plan(struct gl_ctx *c, const cJSON *plan, struct fp_plan *p, struct gl_err *err)
{
	const char *v;
	long long us;

	memset(p, 0, sizeof(*p));
	if (!cJSON_IsObject(plan))
		return gl_errf(err, GL_EINVAL, "fabric_port: no plan");
	p->m = method_of(gl_param_str(plan, "method"));
	if (gl_plan_host(c, plan, "fabric_port", &p->host, err) != 0)
		return -GL_EINVAL;
	if (p->m == FP_IB) {
		v = gl_param_str(plan, "ca");
		if (gl_json_int(gl_param(plan, "lid"), 1, FP_MAX_LID, &p->lid) ||
		    gl_json_int(gl_param(plan, "port"), 1, FP_MAX_PORT, &p->port) ||
		    gl_json_int(gl_param(plan, "ca_port"), 1, FP_MAX_PORT, &p->ca_port) || !ca_ok(v))
			return gl_errf(err, GL_EINVAL,
				       "fabric_port: the plan's lid, port, ca or ca_port is missing or not valid");
		snprintf(p->ca, sizeof(p->ca), "%s", v);
		if (gl_json_int(gl_param(plan, "active_wait_s"), 1, 600, &p->active_wait_s) != 0)
			p->active_wait_s = FP_ACTIVE_WAIT_S;
		snprintf(p->down_cmd, sizeof(p->down_cmd), "ibportstate %lld %lld disable", p->lid, p->port);
		snprintf(p->up_cmd, sizeof(p->up_cmd), "ibportstate %lld %lld enable", p->lid, p->port);
	} else {
		v = gl_param_str(plan, "interface");
		if (!gl_ifname_ok(v))
			return gl_errf(err, GL_EINVAL, "fabric_port: the plan's interface is missing or not valid");
		snprintf(p->ifname, sizeof(p->ifname), "%s", v);
		snprintf(p->down_cmd, sizeof(p->down_cmd), "ip link set dev %s down", p->ifname);
		snprintf(p->up_cmd, sizeof(p->up_cmd), "ip link set dev %s up", p->ifname);
	}
	v = gl_param_str(plan, "pid_file");
	if (!gl_deadman_pid_file_ok(v, "fabric_port", sizeof(p->pid_file)))
		return gl_errf(err, GL_EINVAL, "fabric_port: the plan's pid_file is missing or not valid");
	snprintf(p->pid_file, sizeof(p->pid_file), "%s", v);
	if (gl_json_int(gl_param(plan, "down_us"), 1, 366LL * 24 * 3600 * 1000000, &us) != 0)
		return gl_errf(err, GL_EINVAL, "fabric_port: the plan's down_us is missing or not valid");
	p->down_us = us;
	return 0;
}

/* ---- commands ------------------------------------------------------------- */

enum fp_step { STEP_INJECT, STEP_ALIVE, STEP_REVERT, STEP_STATE, STEP_ENDED };

struct fp_cmd {
	const char *argv[8];
	char script[FP_SCRIPT_MAX];
	char down_s[32], ca_port[16];
};

/* step's command into c; scale shapes the loop's sleep. */
static void build_cmd(const struct fp_plan *p, enum fp_step step, double scale, struct fp_cmd *c)
{
	struct gl_deadman dm = { .pid_file = p->pid_file,
				 .down_cmd = p->down_cmd,
				 .up_cmd = p->up_cmd,
				 .what = "dead-man loop",
				 .down_s = c->down_s,
				 .up_s = "0",
				 .count = 1 };

	memset(c->argv, 0, sizeof(c->argv));
	gl_deadman_sleep_arg(p->down_us, scale, c->down_s, sizeof(c->down_s));
	if (step == STEP_STATE) {
		if (p->m == FP_IB) {
			snprintf(c->ca_port, sizeof(c->ca_port), "%lld", p->ca_port);
			c->argv[0] = "ibstat";
			c->argv[1] = p->ca;
			c->argv[2] = c->ca_port;
		} else {
			const char *a[] = { "ip", "-o", "link", "show", "dev", p->ifname, NULL };
			memcpy(c->argv, a, sizeof(a));
		}
		return;
	}
	c->argv[0] = "sh";
	c->argv[1] = "-c";
	c->argv[2] = c->script;
	if (step == STEP_INJECT)
		gl_deadman_inject_script(c->script, sizeof(c->script), &dm);
	else if (step == STEP_ALIVE)
		gl_deadman_alive_script(c->script, sizeof(c->script), &dm);
	else if (step == STEP_ENDED)
		gl_deadman_ended_script(c->script, sizeof(c->script), &dm);
	else
		gl_deadman_revert_script(c->script, sizeof(c->script), &dm);
}

static int run_cmd(const struct fp_plan *p, const struct fp_cmd *c, int *status, char *out, size_t n_out,
		   struct gl_err *err)
{
	return gl_run_trim(&p->host, c->argv, FP_CMD_TIMEOUT_MS, 0, "fabric_port", status, out, n_out, err);
}

static int fail_cmd(const struct fp_plan *p, const char *what, const struct fp_cmd *c, int status, char *out,
		    struct gl_err *err)
{
	int sh = !strcmp(c->argv[0], "sh");
	return gl_errf(err, GL_EIO, "fabric_port %s on host '%s': %s%s%s exited %d%s%s", what, p->host.name,
		       sh ? "the " : "'", sh ? "shell script" : c->argv[0], sh ? "" : "'", status, out[0] ? ": " : "",
		       gl_first_line(out));
}

/* *up: 1 when the port is up (ib: Active; roce: UP flag), 0 when down (ib:
 * Down), -1 in between (ib: Initializing, Armed); state names it. */
static int port_state(const struct fp_plan *p, int *up, char *state, size_t n, struct gl_err *err)
{
	struct fp_cmd cmd;
	char out[2048];
	int status;

	build_cmd(p, STEP_STATE, 1, &cmd);
	if (run_cmd(p, &cmd, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	if (status != 0)
		return fail_cmd(p, "check", &cmd, status, out, err);
	if (p->m == FP_IB) {
		if (gl_ibstat_state(out, strlen(out), state, n) != 0)
			return gl_errf(err, GL_EIO,
				       "fabric_port on host '%s': no \"State:\" line in ibstat %s %lld output",
				       p->host.name, p->ca, p->ca_port);
		*up = !strcmp(state, "Active") ? 1 : !strcmp(state, "Down") ? 0 : -1;
		return 0;
	}
	*up = gl_link_is_up(out);
	if (*up < 0)
		return gl_errf(err, GL_EIO, "fabric_port on host '%s': no link flags in '%s'", p->host.name,
			       gl_first_line(out));
	snprintf(state, n, "%s", *up ? "UP" : "down");
	return 0;
}

/* 1 when the dead-man loop runs, 0 when not. */
static int loop_alive(const struct fp_plan *p, struct gl_err *err)
{
	struct fp_cmd cmd;
	char out[256];
	int status;

	build_cmd(p, STEP_ALIVE, 1, &cmd);
	if (run_cmd(p, &cmd, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	return status == 0;
}

static const char *port_name(const struct fp_plan *p, char *buf, size_t n)
{
	if (p->m == FP_IB)
		snprintf(buf, n, "port %lld of LID %lld", p->port, p->lid);
	else
		snprintf(buf, n, "%s", p->ifname);
	return buf;
}

/* Run step's script on the plan's host; what names it in errors. A
 * revert that finds the loop's record of its own end measures it
 * (self_reverted_s: seconds from the inject to the port's return). */
static int run_script(struct gl_ctx *c, const struct fp_plan *p, enum fp_step step, double scale, const char *what,
		      struct gl_err *err)
{
	struct fp_cmd cmd;
	char out[1024];
	int status;
	double s;

	build_cmd(p, step, scale, &cmd);
	if (run_cmd(p, &cmd, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	if (status != 0)
		return fail_cmd(p, what, &cmd, status, out, err);
	if (step == STEP_REVERT && gl_deadman_record(out, &s))
		gl_fault_measure(c, "self_reverted_s", s);
	return 0;
}

static int fp_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct fp_plan p;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	/* the scale is fixed before the executor thread starts */
	return run_script(c, &p, STEP_INJECT, c ? gl_ctx_time_scale(c) : 1, "inject", err);
}

/* resume's question (plugin.h): the loop ended by itself (no longer
 * runs, its record holds its end): the port is back. */
static int fp_ended(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct fp_plan p;
	struct fp_cmd cmd;
	char out[256];
	int status;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	build_cmd(&p, STEP_ENDED, 1, &cmd);
	if (run_cmd(&p, &cmd, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	return status == 0;
}

static int fp_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct fp_plan p;
	char state[64], name[64];
	int up;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	if (port_state(&p, &up, state, sizeof(state), err) != 0)
		return -GL_EIO;
	if (up != 0)
		return gl_errf(err, GL_EIO, "fabric_port: %s on host '%s' is not down (State: %s)",
			       port_name(&p, name, sizeof(name)), p.host.name, state);
	return 0;
}

static int fp_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct fp_plan p;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	if (run_script(c, &p, STEP_REVERT, 1, "revert", err) != 0)
		return -GL_EIO;
	if (p.m == FP_IB) {
		/* a port comes back through Polling and Initializing while the
		 * subnet manager brings it up: wait for Active */
		char state[64];
		int up = -1;
		for (long long i = 0; i < p.active_wait_s; i++) {
			if (port_state(&p, &up, state, sizeof(state), err) != 0)
				return -GL_EIO;
			if (up == 1)
				break;
			sleep(1);
		}
	}
	return 0;
}

static int fp_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct fp_plan p;
	char state[64], name[64];
	int up, alive;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	alive = loop_alive(&p, err);
	if (alive < 0)
		return alive;
	if (alive)
		return gl_errf(err, GL_EIO, "fabric_port: the dead-man loop (pid file %s) still runs on host '%s'",
			       p.pid_file, p.host.name);
	if (port_state(&p, &up, state, sizeof(state), err) != 0)
		return -GL_EIO;
	if (up != 1)
		return gl_errf(err, GL_EIO, "fabric_port: %s on host '%s' is not back (State: %s)",
			       port_name(&p, name, sizeof(name)), p.host.name, state);
	return 0;
}

/* Preflight: the method's tools are on the host, and the port whose state
 * is read exists (ibstat CA CA_PORT answers; the interface exists). */
static int fp_preflight(struct gl_ctx *c, const cJSON *plan)
{
	static const char *const tools[][4] = {
		[FP_IB] = { "ibportstate", "ibstat", "setsid", NULL },
		[FP_ROCE] = { "ip", "setsid", NULL },
	};
	struct fp_plan p;
	struct fp_cmd cmd;
	struct gl_err err = { 0 };
	char subject[160], check[128];
	const char *id = gl_param_str(plan, "id");

	if (read_plan(c, plan, &p, &err) != 0)
		return gl_ctx_preflight(c, "fault", "fabric_port plan readable", 0, err.msg);
	snprintf(subject, sizeof(subject), "fault %s on host %s", id ? id : "?", p.host.name);
	for (int i = 0; tools[p.m][i]; i++) {
		const char *argv[] = { "sh", "-c", "command -v \"$1\" >/dev/null", "sh", tools[p.m][i], NULL };
		snprintf(check, sizeof(check), "tool '%s' present", tools[p.m][i]);
		if (gl_run_preflight(c, &p.host, FP_CMD_TIMEOUT_MS, 0, "fabric_port", subject, check, argv,
				     "not found on the host's PATH") != 0)
			return -1; /* the check below needs the tools */
	}
	build_cmd(&p, STEP_STATE, 1, &cmd);
	if (p.m == FP_IB)
		snprintf(check, sizeof(check), "ibstat %s %lld answers", p.ca, p.ca_port);
	else
		snprintf(check, sizeof(check), "interface %s exists", p.ifname);
	return gl_run_preflight(c, &p.host, FP_CMD_TIMEOUT_MS, 0, "fabric_port", subject, check, cmd.argv,
				p.m == FP_IB ? "no such CA or port" : "no such interface");
}

static void describe_step(struct gl_buf *out, const struct fp_plan *p, const char *label, enum fp_step step)
{
	struct fp_cmd cmd;

	build_cmd(p, step, 1, &cmd);
	gl_buf_describe_step(out, &p->host, label, cmd.argv);
}

static void fp_describe(const cJSON *plan, struct gl_buf *out)
{
	struct fp_plan p;
	struct gl_err err = { 0 };
	char d[64], name[64];

	if (read_plan(NULL, plan, &p, &err) != 0) {
		gl_buf_printf(out, "  (no valid plan: %s)\n", err.msg);
		return;
	}
	describe_step(out, &p, "inject", STEP_INJECT);
	gl_format_duration(p.down_us * 1000, d, sizeof(d));
	gl_buf_printf(out,
		      "  (the sleep is divided by --time-scale; dead-man's switch: the loop brings %s up "
		      "after %s even if the controller dies)\n",
		      port_name(&p, name, sizeof(name)), d);
	describe_step(out, &p, "verify", STEP_STATE);
	gl_buf_printf(out, "    (%s)\n", p.m == FP_IB ? "State: Down" : "no UP flag");
	describe_step(out, &p, "revert", STEP_REVERT);
	describe_step(out, &p, "verify_revert", STEP_STATE);
	gl_buf_printf(out, "    (%s, and this finds no loop:)\n", p.m == FP_IB ? "State: Active" : "the UP flag");
	describe_step(out, &p, "verify_revert", STEP_ALIVE);
}

/* fp_revert's command: the dead-man loop's revert script (stop the loop,
 * enable the port or bring the link up). Its wait for ib's Active state
 * after that only reads, so the watcher leaves it to verify_revert. */
static int fp_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	struct fp_plan p;
	struct fp_cmd cmd;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	*h = p.host;
	build_cmd(&p, STEP_REVERT, 1, &cmd);
	if (gl_deadman_argv_sh(script, cmd.argv, cmd.script) != 0)
		return gl_errf(err, GL_EINVAL, "fabric_port: the revert command cannot go into a watcher script");
	return 0;
}

/* validate's question (plugin.h): a fabric port taken down on one of the
 * processes' hosts may end them (a job that does not ride through it);
 * elsewhere, no. */
static int fp_ends(const struct gl_fault_spec *f, const struct gl_proc_view *p, char *why, size_t n)
{
	if (!gl_proc_on_host(p, f->target))
		return GL_ENDS_NO;
	if (why)
		snprintf(why, n, "a fabric port of one of its hosts down");
	return GL_ENDS_MAYBE;
}

static const struct gl_fault_ops gl_fault_fabric_port = {
	.kind = "fabric_port",
	.methods = fp_methods,
	.validate = fp_validate,
	.implied_duration_ns = fp_implied_duration_ns,
	.plan = fp_plan,
	.inject = fp_inject,
	.verify = fp_verify,
	.revert = fp_revert,
	.verify_revert = fp_verify_revert,
	.describe = fp_describe,
	.preflight = fp_preflight,
	.deadman = fp_deadman,
	.ends = fp_ends,
	.ended = fp_ended,
	.sim = gl_sim_flap,
	.touches = gl_fault_touches_target,
};
GL_REGISTER_FAULT(gl_fault_fabric_port, 110)
