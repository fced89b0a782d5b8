/*
 * link_flap.c - the link_flap fault kind: take a network link down and up
 * (method "ip"), drop a share of its packets ("loss", nftables numgen) or
 * cap its rate ("rate", tc tbf). Every command runs on the fault's target
 * host through gl_host_exec (local hosts inside their "netns", or ssh), with
 * a deadline.
 *
 * ip: params {"interface": IF, "down": "5s", "up": "25s", "count": 1}.
 * Without "for" the fault lasts count x (down + up). inject takes the link
 * down at once, then starts a detached shell loop on the target (setsid: its
 * own session, no tie to the controller) that sleeps "down", brings the link
 * up, sleeps "up", takes it down again, ... for "count" flaps. Its sleeps
 * are divided by the run's --time-scale, like the rest of the timeline.
 * inject returns at once rather than sleeping through the flaps: fault steps
 * run one at a time on the controller's executor thread, and a later fault's
 * step must not wait for this one's sleeps.
 *   The loop is also the fault's dead-man's switch (docs/faults.md): it
 * ends with the link up, count x down + (count - 1) x up after inject, even
 * when the controller was SIGKILLed and nobody runs `gauntlet revert`; a
 * TERM, INT or HUP sent to it brings the link up as well. It writes its pid
 * into the pid file the plan names (/run/gauntlet/link_flap.ID.NONCE.pid).
 * revert kills the loop's process group (only when that pid still runs the
 * loop: its command line names the pid file), waits for it to end, removes
 * the pid file and forces the link up, from the plan alone, as often as
 * asked. verify: the link is down or the loop runs; verify_revert: the link
 * is UP and no loop runs. The loop and its scripts are deadman.c's, shared
 * with fabric_port.
 *
 * loss: params {"interface": IF, "percent": P} (0 < P <= 100, steps of
 * 0.01). An nftables table of its own, inet gauntlet_ID, with input, output
 * and forward chains dropping `numgen random mod 10000 < P*100` on IF, in
 * and out: each direction loses P%, so a request and its reply get through
 * together (1 - P/100)^2 of the time. Made in one nft transaction, so it is
 * there whole or not at all. revert deletes the table ("No such file or
 * directory" counts as done).
 *
 * rate: params {"interface": IF, "rate": "10mbit", "burst": "32kbit",
 * "latency": "400ms"}: `tc qdisc replace dev IF root tbf ...`; revert
 * deletes the root qdisc, which gives the interface its default qdisc back
 * (a custom root qdisc the host had before the fault is not restored).
 *
 * A revert that finds the interface gone (ip, rate) has nothing left to
 * undo: it logs a warning and counts as done. preflight (before the run
 * starts): the method's tools are on the host, the interface exists, and
 * for loss `nft --check` accepts the exact table.
 *
 * loss and rate need "for" (they have no natural end). Values that reach a
 * command are validated: interface names are 1-15 characters of
 * [A-Za-z0-9_.:-] not starting with '-', tc values match tc's grammar, and
 * a plan read back from the store is checked again before use. Commands are
 * argv arrays; the ip method's sh scripts contain only validated values.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deadman.h"
#include "hostrun.h"
#include "params.h"
#include "plan.h"
#include "plugin.h"
#include "sim_effects.h"

#define LF_CMD_TIMEOUT_MS 30000
#define LF_MAX_COUNT 1000000
#define LF_MAX_FLAP_NS (366LL * 24 * 3600 * 1000000000LL) /* a year of flapping */
#define LF_SCRIPT_MAX 4096

enum lf_method { LF_IP, LF_LOSS, LF_RATE };

static const char *const lf_methods[] = { "ip", "loss", "rate", NULL };
static const char *const lf_keys[][5] = {
	[LF_IP] = { "interface", "down", "up", "count", NULL },
	[LF_LOSS] = { "interface", "percent", NULL },
	[LF_RATE] = { "interface", "rate", "burst", "latency", NULL },
};

/* tc's units (case-insensitive), from iproute2's get_rate/get_size/get_time. */
static const char *const tc_rate_units[] = { "bit",   "kbit",  "mbit",  "gbit",  "tbit",  "bps",   "kbps",
					     "mbps",  "gbps",  "tbps",  "kibit", "mibit", "gibit", "tibit",
					     "kibps", "mibps", "gibps", "tibps", NULL };
static const char *const tc_size_units[] = { "", "b", "k", "kb", "m", "mb", "g", "gb", "kbit", "mbit", "gbit", NULL };
static const char *const tc_time_units[] = {
	"", "s", "sec", "secs", "ms", "msec", "msecs", "us", "usec", "usecs", NULL
};

static enum lf_method method_of(const char *m)
{
	return m && !strcmp(m, "loss") ? LF_LOSS : m && !strcmp(m, "rate") ? LF_RATE : LF_IP;
}

/* ---- values that reach commands ------------------------------------------- */

/* "<digits>[.<digits>]<unit>" with a unit from the list; 1 when it matches
 * and the number is not zero. */
static int tc_value_ok(const char *s, const char *const *units)
{
	const char *p = s;
	int digits = 0, nonzero = 0;

	if (!s || strlen(s) > 31)
		return 0;
	for (; isdigit((unsigned char)*p); p++, digits++)
		nonzero |= *p != '0';
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++, digits++)
			nonzero |= *p != '0';
	if (!digits || !nonzero)
		return 0;
	for (int i = 0; units[i]; i++)
		if (!strcasecmp(p, units[i]))
			return 1;
	return 0;
}

/* ---- params --------------------------------------------------------------- */

struct lf_params {
	enum lf_method m;
	const char *ifname;
	int64_t down_ns, up_ns;
	long count;
	double percent;
	const char *rate, *burst, *latency;
};

/* Report an error when d is set; always count it. */
static void perr(struct gl_diag *d, int *n_err, const cJSON *node, const char *path, const char *key, const char *fmt,
		 ...) __attribute__((format(printf, 6, 7)));
static void perr(struct gl_diag *d, int *n_err, const cJSON *node, const char *path, const char *key, const char *fmt,
		 ...)
{
	char p[256], msg[512];
	va_list ap;

	(*n_err)++;
	if (!d)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (key)
		snprintf(p, sizeof(p), "%s.params.%s", path, key);
	else
		snprintf(p, sizeof(p), "%s", path);
	gl_diag_error(d, node, p, "%s", msg);
}

static void get_duration(const cJSON *params, const char *key, int64_t def, int allow_zero, int64_t *out,
			 struct gl_diag *d, int *n_err, const char *path)
{
	const cJSON *v = gl_param(params, key);
	struct gl_err e = { 0 };

	*out = def;
	if (!v)
		return;
	if (!cJSON_IsString(v) || gl_parse_duration_ns(v->valuestring, out, &e) != 0) {
		perr(d, n_err, v, path, key, "%s", e.code ? e.msg : "expected a duration like \"5s\" or \"500ms\"");
		*out = def;
	} else if (*out < 0 || (*out == 0 && !allow_zero)) {
		perr(d, n_err, v, path, key, "expected a duration above 0s");
		*out = def;
	}
}

static const char *get_tc(const cJSON *params, const char *key, const char *def, const char *const *units,
			  const char *what, struct gl_diag *d, int *n_err, const char *path)
{
	const cJSON *v = gl_param(params, key);

	if (!v) {
		if (!def)
			perr(d, n_err, params, path, NULL, "link_flap method rate needs params.%s: %s", key, what);
		return def;
	}
	if (!cJSON_IsString(v) || !tc_value_ok(v->valuestring, units)) {
		perr(d, n_err, v, path, key, "expected %s", what);
		return def;
	}
	return v->valuestring;
}

/* Parse and check f's params. With d, every problem is reported (path is
 * "faults[i]"); without, they are only counted. Returns the error count. */
static int parse_params(const struct gl_fault_spec *f, struct lf_params *p, struct gl_diag *d, const char *path)
{
	const cJSON *params = f->params, *v;
	char what[64], pp[256];
	int n_err = 0;

	memset(p, 0, sizeof(*p));
	p->m = method_of(f->method);
	p->count = 1;
	p->down_ns = 5000000000LL;
	p->up_ns = 25000000000LL;
	p->burst = "32kbit";
	p->latency = "400ms";
	if (!params) {
		perr(d, &n_err, f->json, path, NULL, "kind link_flap needs params with at least \"interface\"");
		return n_err;
	}
	snprintf(what, sizeof(what), "link_flap method %s", lf_methods[p->m]);
	snprintf(pp, sizeof(pp), "%s.params", path);
	n_err += gl_params_check_keys(params, lf_keys[p->m], what, d, pp);
	v = gl_param(params, "interface");
	if (!v)
		perr(d, &n_err, params, path, NULL, "kind link_flap needs params.interface (e.g. \"eth0\")");
	else if (!cJSON_IsString(v) || !gl_ifname_ok(v->valuestring))
		perr(d, &n_err, v, path, "interface",
		     "expected an interface name: 1-15 characters from A-Z a-z 0-9 _ . : - , not starting with '-'");
	else
		p->ifname = v->valuestring;

	switch (p->m) {
	case LF_IP:
		get_duration(params, "down", p->down_ns, 0, &p->down_ns, d, &n_err, path);
		get_duration(params, "up", p->up_ns, 1, &p->up_ns, d, &n_err, path);
		v = gl_param(params, "count");
		if (v) {
			if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < 1 ||
			    v->valuedouble > LF_MAX_COUNT)
				perr(d, &n_err, v, path, "count", "expected a whole number of flaps from 1 to %d",
				     LF_MAX_COUNT);
			else
				p->count = (long)v->valuedouble;
		}
		if ((long double)p->count * ((long double)p->down_ns + (long double)p->up_ns) >
		    (long double)LF_MAX_FLAP_NS)
			perr(d, &n_err, params, path, NULL, "count x (down + up) is longer than a year");
		break;
	case LF_LOSS:
		v = gl_param(params, "percent");
		if (!v)
			perr(d, &n_err, params, path, NULL,
			     "link_flap method loss needs params.percent: the share of packets dropped, above 0 and at "
			     "most 100");
		else if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || v->valuedouble > 100 ||
			 llround(v->valuedouble * 100) < 1)
			perr(d, &n_err, v, path, "percent",
			     "expected a number above 0 and at most 100 (steps of 0.01), like 30 or 0.5");
		else
			p->percent = v->valuedouble;
		break;
	case LF_RATE:
		p->rate = get_tc(params, "rate", NULL, tc_rate_units,
				 "a tc rate like \"10mbit\", \"1gbit\" or \"500kbps\"", d, &n_err, path);
		p->burst = get_tc(params, "burst", p->burst, tc_size_units,
				  "a tc size like \"32kbit\", \"64kb\" or \"1mb\"", d, &n_err, path);
		p->latency = get_tc(params, "latency", p->latency, tc_time_units,
				    "a tc time like \"400ms\", \"1s\" or \"500us\"", d, &n_err, path);
		break;
	}
	return n_err;
}

static void lf_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	struct lf_params p;
	int n_err = parse_params(f, &p, d, path);

	/* validate runs before "for" is implied: dur_ns is what was written */
	if (p.m != LF_IP && f->dur_ns <= 0)
		gl_diag_error(d, f->json, path,
			      "link_flap method %s needs \"for\": how long the %s lasts (without it the fault would be "
			      "reverted at once)",
			      lf_methods[p.m], p.m == LF_LOSS ? "loss" : "rate limit");
	if (!n_err && p.m == LF_IP && f->dur_ns > 0 && f->dur_ns < p.count * (p.down_ns + p.up_ns)) {
		char a[64], b[64];
		gl_format_duration(f->dur_ns, a, sizeof(a));
		gl_format_duration(p.count * (p.down_ns + p.up_ns), b, sizeof(b));
		gl_diag_warn(d, gl_param(f->json, "for"), path,
			     "\"for\" (%s) ends the fault before its %ld flap(s) (%s) are done; revert stops the "
			     "flapping there",
			     a, p.count, b);
	}
}

static int64_t lf_implied_duration_ns(const struct gl_fault_spec *f)
{
	struct lf_params p;

	if (parse_params(f, &p, NULL, "") != 0 || p.m != LF_IP)
		return 0;
	return p.count * (p.down_ns + p.up_ns);
}

/* ---- the plan: everything revert needs, host included -------------------- */

struct lf_plan {
	enum lf_method m;
	struct gl_host host;
	char ifname[16];
	char table[96]; /* loss */
	char pid_file[192]; /* ip */
	int64_t down_us, up_us; /* ip, scenario time */
	long count;
	long loss_per10k; /* loss: percent x 100 */
	char rate[32], burst[32], latency[32];
};

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = gl_param(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int lf_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	struct lf_params p;
	char id[GL_NAME_MAX], name[192];
	cJSON *o;

	if (!h)
		return gl_errf(err, GL_EINVAL, "link_flap: unknown host '%s'", f->target);
	if (parse_params(f, &p, NULL, "") != 0)
		return gl_errf(err, GL_EINVAL, "link_flap '%s': its params do not validate (see gauntlet validate)",
			       f->id);
	o = cJSON_CreateObject();
	if (!o)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(o, "id", f->id);
	cJSON_AddStringToObject(o, "method", lf_methods[p.m]);
	gl_plan_put_host(o, h);
	cJSON_AddStringToObject(o, "interface", p.ifname);
	gl_file_safe_id(f->id, id, sizeof(id));
	switch (p.m) {
	case LF_IP:
		gl_deadman_pid_file(name, sizeof(name), "link_flap", f->id);
		cJSON_AddStringToObject(o, "pid_file", name);
		cJSON_AddNumberToObject(o, "down_us", (double)(p.down_ns / 1000));
		cJSON_AddNumberToObject(o, "up_us", (double)(p.up_ns / 1000));
		cJSON_AddNumberToObject(o, "count", (double)p.count);
		break;
	case LF_LOSS:
		snprintf(name, sizeof(name), "gauntlet_%s", id);
		cJSON_AddStringToObject(o, "table", name);
		cJSON_AddNumberToObject(o, "percent", (double)llround(p.percent * 100) / 100.0);
		break;
	case LF_RATE:
		cJSON_AddStringToObject(o, "rate", p.rate);
		cJSON_AddStringToObject(o, "burst", p.burst);
		cJSON_AddStringToObject(o, "latency", p.latency);
		break;
	}
	*plan = o;
	return 0;
}

static int copy_checked(char *dst, size_t n, const char *src, int ok, const char *what, struct gl_err *err)
{
	if (!src || !ok || strlen(src) >= n)
		return gl_errf(err, GL_EINVAL, "link_flap: the plan's %s is missing or not valid", what);
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}

/* Read a plan back (maybe from a store written by another process) and
 * check every value that will reach a command. c may be NULL (describe). */
static int read_plan(struct gl_ctx *c, const cJSON *plan, struct lf_plan *p, struct gl_err *err)
{
	const char *v;
	const cJSON *n;

	memset(p, 0, sizeof(*p));
	if (!cJSON_IsObject(plan))
		return gl_errf(err, GL_EINVAL, "link_flap: no plan");
	p->m = method_of(jstr(plan, "method"));
	if (gl_plan_host(c, plan, "link_flap", &p->host, err) != 0)
		return -GL_EINVAL;
	v = jstr(plan, "interface");
	if (copy_checked(p->ifname, sizeof(p->ifname), v, gl_ifname_ok(v), "interface", err))
		return -GL_EINVAL;
	switch (p->m) {
	case LF_IP:
		v = jstr(plan, "pid_file");
		if (copy_checked(p->pid_file, sizeof(p->pid_file), v,
				 gl_deadman_pid_file_ok(v, "link_flap", sizeof(p->pid_file)), "pid_file", err))
			return -GL_EINVAL;
		n = gl_param(plan, "down_us");
		p->down_us = cJSON_IsNumber(n) && n->valuedouble > 0 ? (int64_t)n->valuedouble : 5000000;
		n = gl_param(plan, "up_us");
		p->up_us = cJSON_IsNumber(n) && n->valuedouble >= 0 ? (int64_t)n->valuedouble : 25000000;
		n = gl_param(plan, "count");
		p->count = cJSON_IsNumber(n) && n->valuedouble >= 1 && n->valuedouble <= LF_MAX_COUNT
				   ? (long)n->valuedouble
				   : 1;
		break;
	case LF_LOSS:
		v = jstr(plan, "table");
		if (copy_checked(p->table, sizeof(p->table), v,
				 v && !strncmp(v, "gauntlet_", 9) && gl_word_ok(v, "_.-", sizeof(p->table) - 1),
				 "table", err))
			return -GL_EINVAL;
		n = gl_param(plan, "percent");
		if (!cJSON_IsNumber(n) || !(n->valuedouble > 0) || n->valuedouble > 100)
			return gl_errf(err, GL_EINVAL, "link_flap: the plan's percent is missing or not valid");
		p->loss_per10k = llround(n->valuedouble * 100);
		if (p->loss_per10k < 1)
			p->loss_per10k = 1;
		break;
	case LF_RATE:
		v = jstr(plan, "rate");
		if (copy_checked(p->rate, sizeof(p->rate), v, tc_value_ok(v, tc_rate_units), "rate", err))
			return -GL_EINVAL;
		v = jstr(plan, "burst");
		if (copy_checked(p->burst, sizeof(p->burst), v, tc_value_ok(v, tc_size_units), "burst", err))
			return -GL_EINVAL;
		v = jstr(plan, "latency");
		if (copy_checked(p->latency, sizeof(p->latency), v, tc_value_ok(v, tc_time_units), "latency", err))
			return -GL_EINVAL;
		break;
	}
	return 0;
}

/* ---- commands ------------------------------------------------------------- */

enum lf_step { STEP_INJECT, STEP_VERIFY, STEP_REVERT, STEP_VERIFY_REVERT, STEP_ALIVE, STEP_ENDED };

/* One command: argv pointing into its own storage. */
struct lf_cmd {
	const char *argv[16];
	char script[LF_SCRIPT_MAX];
	char down_cmd[64], up_cmd[64];
};

/* Build step's command into c (ip's verify steps: `ip -o link show`, whose
 * flags are read in C). scale shapes the ip loop's sleeps. Returns 0, or -1
 * for a method without commands. */
static int build_cmd(const struct lf_plan *p, enum lf_step step, double scale, struct lf_cmd *c)
{
	int n = 0;
	char down[32], up[32], rule[64];
	struct gl_deadman dm;

	memset(c, 0, sizeof(*c));
	switch (p->m) {
	case LF_IP:
		if (step == STEP_VERIFY || step == STEP_VERIFY_REVERT) {
			/* link flags, read in C */
			const char *a[] = { "ip", "-o", "link", "show", "dev", p->ifname, NULL };
			memcpy(c->argv, a, sizeof(a));
			return 0;
		}
		c->argv[n++] = "sh";
		c->argv[n++] = "-c";
		c->argv[n++] = c->script;
		snprintf(c->down_cmd, sizeof(c->down_cmd), "ip link set dev %s down", p->ifname);
		snprintf(c->up_cmd, sizeof(c->up_cmd), "ip link set dev %s up", p->ifname);
		gl_deadman_sleep_arg(p->down_us, scale, down, sizeof(down));
		gl_deadman_sleep_arg(p->up_us, scale, up, sizeof(up));
		dm = (struct gl_deadman){ .pid_file = p->pid_file,
					  .down_cmd = c->down_cmd,
					  .up_cmd = c->up_cmd,
					  .what = "flap loop",
					  .down_s = down,
					  .up_s = up,
					  .count = p->count };
		if (step == STEP_INJECT)
			gl_deadman_inject_script(c->script, sizeof(c->script), &dm);
		else if (step == STEP_ALIVE)
			gl_deadman_alive_script(c->script, sizeof(c->script), &dm);
		else if (step == STEP_ENDED)
			gl_deadman_ended_script(c->script, sizeof(c->script), &dm);
		else /* STEP_REVERT */
			gl_deadman_revert_script(c->script, sizeof(c->script), &dm);
		return 0;
	case LF_LOSS:
		c->argv[n++] = "nft";
		if (step == STEP_INJECT) {
			if (p->loss_per10k >= 10000)
				rule[0] = '\0';
			else
				snprintf(rule, sizeof(rule), " numgen random mod 10000 < %ld", p->loss_per10k);
			/* one transaction: the table is there whole or not at all;
			 * add+delete+add starts from an empty table */
			snprintf(
				c->script, sizeof(c->script),
				"add table inet %1$s; delete table inet %1$s; add table inet %1$s; "
				"add chain inet %1$s input { type filter hook input priority -300; policy accept; }; "
				"add chain inet %1$s output { type filter hook output priority -300; policy accept; }; "
				"add chain inet %1$s forward { type filter hook forward priority -300; policy accept; "
				"}; "
				"add rule inet %1$s input iifname \"%2$s\"%3$s drop; "
				"add rule inet %1$s output oifname \"%2$s\"%3$s drop; "
				"add rule inet %1$s forward iifname \"%2$s\"%3$s drop; "
				"add rule inet %1$s forward oifname \"%2$s\"%3$s drop",
				p->table, p->ifname, rule);
			c->argv[n++] = c->script;
		} else {
			c->argv[n++] = step == STEP_REVERT ? "delete" : "list";
			c->argv[n++] = "table";
			c->argv[n++] = "inet";
			c->argv[n++] = p->table;
		}
		return 0;
	case LF_RATE:
		c->argv[n++] = "tc";
		c->argv[n++] = "qdisc";
		c->argv[n++] = step == STEP_INJECT ? "replace" : step == STEP_REVERT ? "del" : "show";
		c->argv[n++] = "dev";
		c->argv[n++] = p->ifname;
		if (step == STEP_INJECT || step == STEP_REVERT)
			c->argv[n++] = "root";
		if (step == STEP_INJECT) {
			c->argv[n++] = "tbf";
			c->argv[n++] = "rate";
			c->argv[n++] = p->rate;
			c->argv[n++] = "burst";
			c->argv[n++] = p->burst;
			c->argv[n++] = "latency";
			c->argv[n++] = p->latency;
		}
		return 0;
	}
	return -1;
}

/* Run c on the plan's host (gl_run_trim: a timeout is an error). */
static int run_cmd(const struct lf_plan *p, const struct lf_cmd *c, int *status, char *out, size_t n_out,
		   struct gl_err *err)
{
	return gl_run_trim(&p->host, c->argv, LF_CMD_TIMEOUT_MS, 0, "link_flap", status, out, n_out, err);
}

static int fail_cmd(const struct lf_plan *p, const char *what, const struct lf_cmd *c, int status, char *out,
		    struct gl_err *err)
{
	/* name the program; a script by what it is for (its text is in --dry-run) */
	return gl_errf(err, GL_EIO, "link_flap %s on host '%s': %s%s%s exited %d%s%s", what, p->host.name,
		       strcmp(c->argv[0], "sh") ? "'" : "the ", strcmp(c->argv[0], "sh") ? c->argv[0] : "shell script",
		       strcmp(c->argv[0], "sh") ? "'" : "", status, out[0] ? ": " : "", gl_first_line(out));
}

static int lf_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct lf_plan p;
	struct lf_cmd cmd;
	char out[1024];
	int status;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	/* the scale is fixed before the executor thread starts: reading it
	 * there is safe */
	build_cmd(&p, STEP_INJECT, c ? gl_ctx_time_scale(c) : 1, &cmd);
	if (run_cmd(&p, &cmd, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	if (status != 0)
		return fail_cmd(&p, "inject", &cmd, status, out, err);
	return 0;
}

/* *up: 1 UP, 0 down, -1 no such interface. */
static int ip_link_state(const struct lf_plan *p, int *up, struct gl_err *err)
{
	struct lf_cmd cmd;
	char out[1024];
	int status;

	build_cmd(p, STEP_VERIFY, 1, &cmd);
	if (run_cmd(p, &cmd, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	*up = -1;
	if (status != 0 && gl_no_such_device(out))
		return 0;
	if (status != 0)
		return fail_cmd(p, "check", &cmd, status, out, err);
	*up = gl_link_is_up(out);
	if (*up < 0)
		return gl_errf(err, GL_EIO, "link_flap on host '%s': no link flags in '%s'", p->host.name,
			       gl_first_line(out));
	return 0;
}

/* 1 when the flap loop runs, 0 when not. */
static int loop_alive(const struct lf_plan *p, struct gl_err *err)
{
	struct lf_cmd cmd;
	char out[256];
	int status;

	build_cmd(p, STEP_ALIVE, 1, &cmd);
	if (run_cmd(p, &cmd, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	return status == 0;
}

/* resume's question (plugin.h): the ip method's flap loop ended by
 * itself (no longer runs, its record holds its end). */
static int lf_ended(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct lf_plan p;
	struct lf_cmd cmd;
	char out[256];
	int status;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	if (p.m != LF_IP)
		return 0;
	build_cmd(&p, STEP_ENDED, 1, &cmd);
	if (run_cmd(&p, &cmd, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	return status == 0;
}

static int lf_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct lf_plan p;
	struct lf_cmd cmd;
	char out[4096];
	int status, up, alive;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	switch (p.m) {
	case LF_IP:
		if (ip_link_state(&p, &up, err) != 0)
			return -GL_EIO;
		if (up < 0)
			return gl_errf(err, GL_EIO, "link_flap: no interface %s on host '%s'", p.ifname, p.host.name);
		if (!up)
			return 0;
		/* between flaps the link is up: the running loop is the proof */
		alive = loop_alive(&p, err);
		if (alive < 0)
			return alive;
		if (!alive)
			return gl_errf(err, GL_EIO,
				       "link_flap: %s on host '%s' is UP and no flap loop runs (pid file %s)", p.ifname,
				       p.host.name, p.pid_file);
		return 0;
	case LF_LOSS:
		build_cmd(&p, STEP_VERIFY, 1, &cmd);
		if (run_cmd(&p, &cmd, &status, out, sizeof(out), err) != 0)
			return -GL_EIO;
		if (status != 0)
			return fail_cmd(&p, "verify", &cmd, status, out, err);
		if (!strstr(out, "numgen") && p.loss_per10k < 10000)
			return gl_errf(err, GL_EIO, "link_flap: table inet %s on host '%s' has no numgen rule", p.table,
				       p.host.name);
		return 0;
	case LF_RATE:
		build_cmd(&p, STEP_VERIFY, 1, &cmd);
		if (run_cmd(&p, &cmd, &status, out, sizeof(out), err) != 0)
			return -GL_EIO;
		if (status != 0)
			return fail_cmd(&p, "verify", &cmd, status, out, err);
		if (!strstr(out, "qdisc tbf ") || !strstr(out, " root "))
			return gl_errf(err, GL_EIO, "link_flap: no root tbf qdisc on %s on host '%s': %s", p.ifname,
				       p.host.name, gl_first_line(out));
		return 0;
	}
	return 0;
}

static int lf_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct lf_plan p;
	struct lf_cmd cmd;
	char out[1024];
	int status;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	build_cmd(&p, STEP_REVERT, 1, &cmd);
	if (run_cmd(&p, &cmd, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	if (status == 0) {
		double s;
		/* the flap loop ended by itself: when, on the host's clock
		 * (its own record: a controller that was down saw nothing) */
		if (p.m == LF_IP && gl_deadman_record(out, &s))
			gl_fault_measure(c, "self_reverted_s", s);
		return 0;
	}
	/* already reverted (or never injected) counts as reverted */
	if (p.m == LF_LOSS && strstr(out, "No such file or directory"))
		return 0;
	if (p.m == LF_RATE &&
	    (strstr(out, "No such file or directory") || strstr(out, "Cannot delete qdisc with handle of zero")))
		return 0;
	/* An interface that is gone has nothing left to undo (and a revert
	 * that can never succeed would keep the run "injected" for ever); say
	 * so, since a vanished link is news to whoever reads the run. */
	if (p.m != LF_LOSS && gl_no_such_device(out)) {
		/* gl_warn, not gl_ctx_event: hooks run on the executor thread */
		gl_warn("fault: link_flap revert: interface %s is gone from host '%s'; nothing to undo", p.ifname,
			p.host.name);
		return 0;
	}
	return fail_cmd(&p, "revert", &cmd, status, out, err);
}

static int lf_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct lf_plan p;
	struct lf_cmd cmd;
	char out[4096];
	int status, up, alive;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	switch (p.m) {
	case LF_IP:
		alive = loop_alive(&p, err);
		if (alive < 0)
			return alive;
		if (alive)
			return gl_errf(err, GL_EIO, "link_flap: the flap loop (pid file %s) still runs on host '%s'",
				       p.pid_file, p.host.name);
		if (ip_link_state(&p, &up, err) != 0)
			return -GL_EIO;
		if (!up) /* -1, a vanished interface, was reported by revert */
			return gl_errf(err, GL_EIO, "link_flap: %s on host '%s' is still down", p.ifname, p.host.name);
		return 0;
	case LF_LOSS:
		build_cmd(&p, STEP_VERIFY_REVERT, 1, &cmd);
		if (run_cmd(&p, &cmd, &status, out, sizeof(out), err) != 0)
			return -GL_EIO;
		if (status == 0)
			return gl_errf(err, GL_EIO, "link_flap: table inet %s is still on host '%s'", p.table,
				       p.host.name);
		if (!strstr(out, "No such file or directory"))
			return fail_cmd(&p, "verify_revert", &cmd, status, out, err);
		return 0;
	case LF_RATE:
		build_cmd(&p, STEP_VERIFY_REVERT, 1, &cmd);
		if (run_cmd(&p, &cmd, &status, out, sizeof(out), err) != 0)
			return -GL_EIO;
		if (status != 0 && gl_no_such_device(out))
			return 0;
		if (status != 0)
			return fail_cmd(&p, "verify_revert", &cmd, status, out, err);
		for (char *line = out; line && *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (!strncmp(line, "qdisc tbf ", 10) && strstr(line, " root "))
				return gl_errf(err, GL_EIO, "link_flap: %s on host '%s' still has a root tbf qdisc",
					       p.ifname, p.host.name);
			line = nl ? nl + 1 : NULL;
		}
		return 0;
	}
	return 0;
}

/* One preflight check: argv must exit 0 on the plan's host. */
static int pf_check(struct gl_ctx *c, const struct lf_plan *p, const char *subject, const char *check,
		    const char *const *argv, const char *fail_detail)
{
	return gl_run_preflight(c, &p->host, LF_CMD_TIMEOUT_MS, 0, "link_flap", subject, check, argv, fail_detail);
}

/* Preflight, on the loop thread before anything is injected: the tools of
 * the plan's method are on the host, the interface exists (a typo would
 * make loss or rate match nothing), and nftables accepts the exact loss
 * table (`nft --check` applies nothing). */
static int lf_preflight(struct gl_ctx *c, const cJSON *plan)
{
	static const char *const tools[][3] = {
		[LF_IP] = { "ip", "setsid", NULL },
		[LF_LOSS] = { "ip", "nft", NULL },
		[LF_RATE] = { "ip", "tc", NULL },
	};
	struct lf_plan p;
	struct gl_err err = { 0 };
	char subject[160], check[128];
	const char *id = jstr(plan, "id");
	int bad = 0;

	if (read_plan(c, plan, &p, &err) != 0)
		return gl_ctx_preflight(c, "fault", "link_flap plan readable", 0, err.msg);
	snprintf(subject, sizeof(subject), "fault %s on host %s", id ? id : "?", p.host.name);
	for (int i = 0; tools[p.m][i]; i++) {
		const char *argv[] = { "sh", "-c", "command -v \"$1\" >/dev/null", "sh", tools[p.m][i], NULL };
		snprintf(check, sizeof(check), "tool '%s' present", tools[p.m][i]);
		if (pf_check(c, &p, subject, check, argv, "not found on the host's PATH") != 0)
			return -1; /* the checks below need the tools */
	}
	{
		const char *argv[] = { "ip", "-o", "link", "show", "dev", p.ifname, NULL };
		snprintf(check, sizeof(check), "interface %s exists", p.ifname);
		bad |= pf_check(c, &p, subject, check, argv, "no such interface") != 0;
	}
	if (p.m == LF_LOSS) {
		struct lf_cmd cmd;
		build_cmd(&p, STEP_INJECT, 1, &cmd);
		{
			const char *argv[] = { "nft", "--check", cmd.argv[1], NULL };
			bad |= pf_check(c, &p, subject, "nftables accepts the loss table (nft --check)", argv,
					"nft refuses it") != 0;
		}
	}
	return bad ? -1 : 0;
}

static void describe_step(struct gl_buf *out, const struct lf_plan *p, const char *label, enum lf_step step)
{
	struct lf_cmd cmd;

	build_cmd(p, step, 1, &cmd);
	gl_buf_describe_step(out, &p->host, label, cmd.argv);
}

static void lf_describe(const cJSON *plan, struct gl_buf *out)
{
	struct lf_plan p;
	struct gl_err err = { 0 };

	if (read_plan(NULL, plan, &p, &err) != 0) {
		gl_buf_printf(out, "  (no valid plan: %s)\n", err.msg);
		return;
	}
	describe_step(out, &p, "inject", STEP_INJECT);
	if (p.m == LF_IP) {
		char d[64];
		gl_format_duration((p.count * p.down_us + (p.count - 1) * p.up_us) * 1000, d, sizeof(d));
		gl_buf_printf(out,
			      "  (sleeps are divided by --time-scale; dead-man's switch: the loop leaves %s up "
			      "after %s even if the controller dies)\n",
			      p.ifname, d);
		describe_step(out, &p, "verify", STEP_VERIFY);
		gl_buf_printf(out, "    (the link has no UP flag, or this finds the loop:)\n");
		describe_step(out, &p, "verify", STEP_ALIVE);
	} else {
		describe_step(out, &p, "verify", STEP_VERIFY);
	}
	describe_step(out, &p, "revert", STEP_REVERT);
	describe_step(out, &p, "verify_revert", STEP_VERIFY_REVERT);
	if (p.m == LF_IP)
		gl_buf_printf(out, "    (the link has the UP flag, and the loop check above finds nothing)\n");
}

/* The revert step's command as lf_revert builds and runs it: ip's script
 * (stop the flap loop, link up), loss's nft delete table, rate's tc qdisc
 * del. */
static int lf_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	struct lf_plan p;
	struct lf_cmd cmd;

	if (read_plan(c, plan, &p, err) != 0)
		return -GL_EINVAL;
	*h = p.host;
	if (build_cmd(&p, STEP_REVERT, 1, &cmd) != 0 ||
	    gl_deadman_argv_sh(script, cmd.argv, p.m == LF_IP ? cmd.script : NULL) != 0)
		return gl_errf(err, GL_EINVAL, "link_flap: the revert command cannot go into a watcher script");
	return 0;
}

/* validate's question (plugin.h): a flapped, lossy or capped link on one
 * of the processes' hosts may end them (a job that does not ride through
 * it); elsewhere, no. */
static int lf_ends(const struct gl_fault_spec *f, const struct gl_proc_view *p, char *why, size_t n)
{
	if (!gl_proc_on_host(p, f->target))
		return GL_ENDS_NO;
	if (why)
		snprintf(why, n, "a link of one of its hosts down, lossy or capped");
	return GL_ENDS_MAYBE;
}

static const struct gl_fault_ops gl_fault_link_flap = {
	.kind = "link_flap",
	.methods = lf_methods,
	.validate = lf_validate,
	.implied_duration_ns = lf_implied_duration_ns,
	.plan = lf_plan,
	.inject = lf_inject,
	.verify = lf_verify,
	.revert = lf_revert,
	.verify_revert = lf_verify_revert,
	.describe = lf_describe,
	.preflight = lf_preflight,
	.deadman = lf_deadman,
	.ends = lf_ends,
	.ended = lf_ended,
	.sim = gl_sim_flap,
	.touches = gl_fault_touches_target,
};
GL_REGISTER_FAULT(gl_fault_link_flap, 20)
