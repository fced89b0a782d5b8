/*
 * partition.c - the partition fault kind: cut the network between two
 * groups of addresses with nftables drop rules on the target host, in a
 * table of its own (inet gauntlet_ID), so revert is one `nft delete table`
 * that touches nothing else on the host.
 *
 * params: {"a": [addresses or CIDRs], "b": [addresses or CIDRs],
 *          "probe_across": [argv], "probe_within": [argv],      (optional)
 *          "probe_timeout": "10s"}                                (optional)
 * The table has one interval set per group and family (a4, b4, a6, b6; a
 * family only when both groups have it) and input, output and forward chains
 * that drop a->b and b->a, so the cut holds for traffic the host sends,
 * receives or routes. Rules sit only on the target host: to cut a cluster
 * in two, target the host the traffic crosses, or schedule one partition
 * per host. Everything is made in one nft transaction (there whole or not at
 * all). verify: the table is listed and, when given, probe_across (run on
 * the target through its transport) FAILS and probe_within SUCCEEDS.
 * revert deletes the table ("No such file or directory" counts as done);
 * verify_revert: the table is gone. preflight (before the run starts): nft
 * and the probes' programs are on the host, and `nft --check` accepts the
 * exact table.
 *
 * The plan holds the host, the table name and the canonical groups (host
 * bits cleared), so revert works from the store alone, in a later process.
 * Addresses are parsed with inet_pton and printed back by inet_ntop: nothing
 * from the scenario reaches nft as written. "for" is required (a partition
 * has no natural end). The groups may not overlap: traffic inside the
 * overlap would be cut too.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostrun.h"
#include "params.h"
#include "plan.h"
#include "plugin.h"
#include "sim_effects.h"

#define PT_CMD_TIMEOUT_MS 30000
#define PT_PROBE_TIMEOUT_NS 10000000000LL
#define PT_MAX_ADDRS 256
#define PT_MAX_ARGS 64

static const char *const pt_methods[] = { "nftables", NULL };
static const char *const pt_keys[] = { "a", "b", "probe_across", "probe_within", "probe_timeout", NULL };

struct pt_net {
	int family; /* AF_INET or AF_INET6 */
	unsigned char addr[16];
	int prefix;
};

/* Parse "10.0.0.1", "10.0.0.0/8", "fd00::1", "fd00::/64"; host bits are
 * cleared. Returns 0 or -1. */
static int net_parse(const char *s, struct pt_net *n)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash;
	int bits;

	if (!s || strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(s, '/');
	if (slash)
		buf[slash - s] = '\0';
	memset(n, 0, sizeof(*n));
	if (inet_pton(AF_INET, buf, n->addr) == 1)
		n->family = AF_INET;
	else if (inet_pton(AF_INET6, buf, n->addr) == 1)
		n->family = AF_INET6;
	else
		return -1;
	bits = n->family == AF_INET ? 32 : 128;
	n->prefix = bits;
	if (slash) {
		const char *p = slash + 1;
		int v = 0;
		if (!*p || strlen(p) > 3)
			return -1;
		for (; *p; p++) {
			if (!isdigit((unsigned char)*p))
				return -1;
			v = v * 10 + (*p - '0');
		}
		if (v > bits)
			return -1;
		n->prefix = v;
	}
	for (int i = 0; i < bits / 8; i++) {
		int keep = n->prefix - i * 8;
		if (keep <= 0)
			n->addr[i] = 0;
		else if (keep < 8)
			n->addr[i] &= (unsigned char)(0xff << (8 - keep));
	}
	return 0;
}

static void net_format(const struct pt_net *n, char *out, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	int bits = n->family == AF_INET ? 32 : 128;

	inet_ntop(n->family, n->addr, a, sizeof(a));
	if (n->prefix == bits)
		snprintf(out, len, "%s", a);
	else
		snprintf(out, len, "%s/%d", a, n->prefix);
}

/* 1 when one of x, y contains the other. */
static int net_overlap(const struct pt_net *x, const struct pt_net *y)
{
	int p = x->prefix < y->prefix ? x->prefix : y->prefix;

	if (x->family != y->family)
		return 0;
	for (int i = 0; i < p / 8; i++)
		if (x->addr[i] != y->addr[i])
			return 0;
	if (p % 8) {
		unsigned char m = (unsigned char)(0xff << (8 - p % 8));
		if ((x->addr[p / 8] & m) != (y->addr[p / 8] & m))
			return 0;
	}
	return 1;
}

/* ---- validation ----------------------------------------------------------- */

struct pt_group {
	struct pt_net nets[PT_MAX_ADDRS];
	const cJSON *nodes[PT_MAX_ADDRS];
	int n, has4, has6;
};

static void path_key(char *p, size_t n, const char *path, const char *key)
{
	snprintf(p, n, "%s.params.%s", path, key);
}

/* Parse group key into g. Reports through d when set; returns errors. */
static int parse_group(const cJSON *params, const char *key, struct pt_group *g, struct gl_diag *d, const char *path)
{
	const cJSON *v = gl_param(params, key), *it;
	char p[256];
	int n_err = 0, i = 0;

	memset(g, 0, sizeof(*g));
	path_key(p, sizeof(p), path, key);
	if (!v) {
		if (d)
			gl_diag_error(d, params, p,
				      "kind partition needs params.%s: a list of addresses or CIDRs like "
				      "[\"10.0.1.0/24\", \"fd00::5\"]",
				      key);
		return 1;
	}
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > PT_MAX_ADDRS) {
		if (d)
			gl_diag_error(d, v, p, "expected a non-empty list of at most %d addresses or CIDRs",
				      PT_MAX_ADDRS);
		return 1;
	}
	cJSON_ArrayForEach(it, v)
	{
		char ip[300];
		snprintf(ip, sizeof(ip), "%s[%d]", p, i++);
		if (!cJSON_IsString(it) || net_parse(it->valuestring, &g->nets[g->n]) != 0) {
			if (d)
				gl_diag_error(d, it, ip,
					      "expected an IPv4 or IPv6 address or CIDR, like \"10.0.1.7\", "
					      "\"10.0.1.0/24\" or \"fd00::/64\"");
			n_err++;
			continue;
		}
		g->has4 |= g->nets[g->n].family == AF_INET;
		g->has6 |= g->nets[g->n].family == AF_INET6;
		g->nodes[g->n++] = it;
	}
	return n_err;
}

static int check_argv(const cJSON *params, const char *key, struct gl_diag *d, const char *path)
{
	const cJSON *v = gl_param(params, key), *it;
	char p[256];

	if (!v)
		return 0;
	path_key(p, sizeof(p), path, key);
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > PT_MAX_ARGS) {
		if (d)
			gl_diag_error(d, v, p,
				      "expected a non-empty argv array of at most %d strings, like "
				      "[\"ping\", \"-c1\", \"-W1\", \"10.0.2.7\"]",
				      PT_MAX_ARGS);
		return 1;
	}
	cJSON_ArrayForEach(it, v) if (!cJSON_IsString(it))
	{
		if (d)
			gl_diag_error(d, it, p, "every argv element must be a string");
		return 1;
	}
	return 0;
}

/* Every check; returns the error count (d may be NULL: count only). */
static int check_params(const struct gl_fault_spec *f, struct pt_group *a, struct pt_group *b,
			int64_t *probe_timeout_ns, struct gl_diag *d, const char *path)
{
	const cJSON *params = f->params, *t;
	int n_err = 0;
	char p[256];

	*probe_timeout_ns = PT_PROBE_TIMEOUT_NS;
	if (!params) {
		if (d)
			gl_diag_error(d, f->json, path,
				      "kind partition needs params with \"a\" and \"b\": the two groups "
				      "of addresses to cut apart");
		return 1;
	}
	snprintf(p, sizeof(p), "%s.params", path);
	n_err += gl_params_check_keys(params, pt_keys, "kind partition", d, p);
	n_err += parse_group(params, "a", a, d, path);
	n_err += parse_group(params, "b", b, d, path);
	n_err += check_argv(params, "probe_across", d, path);
	n_err += check_argv(params, "probe_within", d, path);
	t = gl_param(params, "probe_timeout");
	if (t) {
		int64_t ns = 0;
		path_key(p, sizeof(p), path, "probe_timeout");
		if (!cJSON_IsString(t) || gl_parse_duration_ns(t->valuestring, &ns, NULL) != 0 || ns <= 0 ||
		    ns > 300000000000LL) {
			n_err++;
			if (d)
				gl_diag_error(d, t, p, "expected a duration above 0s and at most 5m, like \"10s\"");
		} else {
			*probe_timeout_ns = ns;
		}
	}
	if (n_err)
		return n_err;
	if (!(a->has4 && b->has4) && !(a->has6 && b->has6)) {
		path_key(p, sizeof(p), path, "b");
		if (d)
			gl_diag_error(d, gl_param(params, "b"), p,
				      "groups a and b share no address family (IPv4 or IPv6): nothing to cut");
		return 1;
	}
	for (int j = 0; j < b->n; j++)
		for (int i = 0; i < a->n; i++)
			if (net_overlap(&a->nets[i], &b->nets[j])) {
				char x[64], y[64];
				n_err++;
				if (!d)
					continue;
				net_format(&a->nets[i], x, sizeof(x));
				net_format(&b->nets[j], y, sizeof(y));
				snprintf(p, sizeof(p), "%s.params.b[%d]", path, j);
				gl_diag_error(
					d, b->nodes[j], p,
					"%s overlaps a[%d] (%s): the groups must be disjoint, or traffic inside the "
					"overlap is cut too",
					y, i, x);
			}
	return n_err;
}

static void pt_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	struct pt_group *a = calloc(2, sizeof(*a));
	int64_t pt;

	if (!a)
		return;
	if (check_params(f, &a[0], &a[1], &pt, d, path) == 0) {
		const char *fam[] = { "IPv6", "IPv4" };
		char p[256];
		/* validate runs before "for" is implied: dur_ns is what was written */
		if (f->dur_ns <= 0)
			gl_diag_error(d, f->json, path,
				      "kind partition needs \"for\": how long the partition lasts "
				      "(without it the fault would be reverted at once)");
		for (int g = 0; g < 2; g++) {
			const struct pt_group *x = &a[g], *y = &a[1 - g];
			if ((x->has4 && !y->has4) || (x->has6 && !y->has6)) {
				snprintf(p, sizeof(p), "%s.params.%s", path, g ? "b" : "a");
				gl_diag_warn(d, gl_param(f->params, g ? "b" : "a"), p,
					     "its %s entries have no counterpart in the other group and cut nothing",
					     fam[x->has4 && !y->has4]);
			}
		}
	}
	free(a);
}

/* ---- the plan ------------------------------------------------------------- */

struct pt_plan {
	struct gl_host host;
	char table[96];
	struct pt_group a, b;
	const cJSON *probe_across, *probe_within; /* borrowed from the plan */
	int64_t probe_timeout_ms;
};

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = gl_param(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static cJSON *group_json(const struct pt_group *g)
{
	cJSON *arr = cJSON_CreateArray();
	char s[64];

	for (int i = 0; arr && i < g->n; i++) {
		net_format(&g->nets[i], s, sizeof(s));
		cJSON_AddItemToArray(arr, cJSON_CreateString(s));
	}
	return arr;
}

static int pt_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	struct pt_group *g = NULL;
	int64_t probe_ns;
	char table[96];
	cJSON *o = NULL;
	const char *probes[] = { "probe_across", "probe_within" };
	int rc = 0;
	size_t i;

	if (!h)
		return gl_errf(err, GL_EINVAL, "partition: unknown host '%s'", f->target);
	g = calloc(2, sizeof(*g));
	o = cJSON_CreateObject();
	if (!g || !o) {
		rc = gl_errf(err, GL_ENOMEM, "out of memory");
		goto out;
	}
	if (check_params(f, &g[0], &g[1], &probe_ns, NULL, "") != 0) {
		rc = gl_errf(err, GL_EINVAL, "partition '%s': its params do not validate (see gauntlet validate)",
			     f->id);
		goto out;
	}
	cJSON_AddStringToObject(o, "id", f->id);
	cJSON_AddStringToObject(o, "method", "nftables");
	gl_plan_put_host(o, h);
	/* the table is named after the fault: [A-Za-z0-9_.-] of its id */
	snprintf(table, sizeof(table), "gauntlet_");
	for (i = 0; f->id[i] && 9 + i + 1 < sizeof(table); i++)
		table[9 + i] = isalnum((unsigned char)f->id[i]) || strchr("_.-", f->id[i]) ? f->id[i] : '_';
	table[9 + i] = '\0';
	cJSON_AddStringToObject(o, "table", table);
	cJSON_AddItemToObject(o, "a", group_json(&g[0]));
	cJSON_AddItemToObject(o, "b", group_json(&g[1]));
	for (i = 0; i < GL_ARRAY_LEN(probes); i++) {
		const cJSON *v = gl_param(f->params, probes[i]);
		if (v)
			cJSON_AddItemToObject(o, probes[i], cJSON_Duplicate(v, 1));
	}
	cJSON_AddNumberToObject(o, "probe_timeout_ms", (double)(probe_ns / 1000000));
	*plan = o;
	o = NULL;
out:
	cJSON_Delete(o);
	free(g);
	return rc;
}

static int read_group(const cJSON *plan, const char *key, struct pt_group *g, struct gl_err *err)
{
	const cJSON *v = gl_param(plan, key), *it;

	memset(g, 0, sizeof(*g));
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > PT_MAX_ADDRS)
		return gl_errf(err, GL_EINVAL, "partition: the plan's group %s is missing or not valid", key);
	cJSON_ArrayForEach(it, v)
	{
		if (!cJSON_IsString(it) || net_parse(it->valuestring, &g->nets[g->n]) != 0)
			return gl_errf(err, GL_EINVAL, "partition: the plan's group %s holds a bad address", key);
		g->has4 |= g->nets[g->n].family == AF_INET;
		g->has6 |= g->nets[g->n].family == AF_INET6;
		g->n++;
	}
	return 0;
}

static int probe_ok(const cJSON *v)
{
	const cJSON *it;
	if (!v)
		return 1;
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > PT_MAX_ARGS)
		return 0;
	cJSON_ArrayForEach(it, v) if (!cJSON_IsString(it)) return 0;
	return 1;
}

/* Read a plan back (maybe from a store another process wrote) and check
 * every value that reaches a command. p is large: callers allocate it. c
 * may be NULL (describe). */
static int read_plan(struct gl_ctx *c, const cJSON *plan, struct pt_plan *p, struct gl_err *err)
{
	const char *t = jstr(plan, "table");
	const cJSON *n;

	memset(p, 0, sizeof(*p));
	if (!cJSON_IsObject(plan))
		return gl_errf(err, GL_EINVAL, "partition: no plan");
	if (gl_plan_host(c, plan, "partition", &p->host, err) != 0)
		return -GL_EINVAL;
	if (!t || strncmp(t, "gauntlet_", 9) || !gl_word_ok(t, "_.-", sizeof(p->table) - 1))
		return gl_errf(err, GL_EINVAL, "partition: the plan's table name is missing or not valid");
	snprintf(p->table, sizeof(p->table), "%s", t);
	if (read_group(plan, "a", &p->a, err) != 0 || read_group(plan, "b", &p->b, err) != 0)
		return -GL_EINVAL;
	p->probe_across = gl_param(plan, "probe_across");
	p->probe_within = gl_param(plan, "probe_within");
	if (!probe_ok(p->probe_across) || !probe_ok(p->probe_within))
		return gl_errf(err, GL_EINVAL, "partition: the plan's probes are not argv arrays");
	n = gl_param(plan, "probe_timeout_ms");
	p->probe_timeout_ms = cJSON_IsNumber(n) && n->valuedouble > 0 && n->valuedouble <= 300000
				      ? (int64_t)n->valuedouble
				      : PT_PROBE_TIMEOUT_NS / 1000000;
	return 0;
}

/* ---- commands ------------------------------------------------------------- */

static void add_set(struct gl_buf *b, const char *table, const char *name, const struct pt_group *g, int family)
{
	char s[64];
	int first = 1;

	gl_buf_printf(b, "add set inet %s %s { type %s; flags interval; auto-merge; }; add element inet %s %s { ",
		      table, name, family == AF_INET ? "ipv4_addr" : "ipv6_addr", table, name);
	for (int i = 0; i < g->n; i++) {
		if (g->nets[i].family != family)
			continue;
		net_format(&g->nets[i], s, sizeof(s));
		gl_buf_printf(b, "%s%s", first ? "" : ", ", s);
		first = 0;
	}
	gl_buf_printf(b, " }; ");
}

/* The one nft transaction that makes the table. b is initialised by the
 * caller; a script longer than one argv string may be is refused. */
static int inject_script(const struct pt_plan *p, struct gl_buf *b)
{
	static const char *const chains[] = { "input", "output", "forward" };
	int v4 = p->a.has4 && p->b.has4, v6 = p->a.has6 && p->b.has6;

	/* add+delete+add starts from an empty table, in the same transaction */
	gl_buf_printf(b, "add table inet %1$s; delete table inet %1$s; add table inet %1$s; ", p->table);
	if (v4) {
		add_set(b, p->table, "a4", &p->a, AF_INET);
		add_set(b, p->table, "b4", &p->b, AF_INET);
	}
	if (v6) {
		add_set(b, p->table, "a6", &p->a, AF_INET6);
		add_set(b, p->table, "b6", &p->b, AF_INET6);
	}
	for (size_t c = 0; c < GL_ARRAY_LEN(chains); c++) {
		gl_buf_printf(b, "add chain inet %1$s %2$s { type filter hook %2$s priority -300; policy accept; }; ",
			      p->table, chains[c]);
		if (v4)
			gl_buf_printf(b,
				      "add rule inet %1$s %2$s ip saddr @a4 ip daddr @b4 drop; "
				      "add rule inet %1$s %2$s ip saddr @b4 ip daddr @a4 drop; ",
				      p->table, chains[c]);
		if (v6)
			gl_buf_printf(b,
				      "add rule inet %1$s %2$s ip6 saddr @a6 ip6 daddr @b6 drop; "
				      "add rule inet %1$s %2$s ip6 saddr @b6 ip6 daddr @a6 drop; ",
				      p->table, chains[c]);
	}
	/* a buffer that hit its cap refused appends: check the end is there */
	return b->data && b->len > 6 && !strcmp(b->data + b->len - 6, "drop; ") ? 0 : -1;
}

/* Run argv on the plan's host (gl_run_trim: a timeout is no error, *status -1). */
static int run_argv(const struct pt_plan *p, const char *const *argv, int64_t timeout_ms, int *status, char *out,
		    size_t n_out, struct gl_err *err)
{
	return gl_run_trim(&p->host, argv, timeout_ms, GL_RUN_TIMEOUT_OK, "partition", status, out, n_out, err);
}

/* `nft VERB table inet TABLE` into argv (6 slots): what revert and the
 * dead-man's switch run alike. */
static void nft_table_argv(const struct pt_plan *p, const char *verb, const char **argv)
{
	argv[0] = "nft";
	argv[1] = verb;
	argv[2] = "table";
	argv[3] = "inet";
	argv[4] = p->table;
	argv[5] = NULL;
}

static int nft_table(const struct pt_plan *p, const char *verb, int *status, char *out, size_t n_out,
		     struct gl_err *err)
{
	const char *argv[6];

	nft_table_argv(p, verb, argv);
	return run_argv(p, argv, PT_CMD_TIMEOUT_MS, status, out, n_out, err);
}

static struct pt_plan *plan_new(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct pt_plan *p = malloc(sizeof(*p));

	if (!p) {
		gl_errf(err, GL_ENOMEM, "out of memory");
		return NULL;
	}
	if (read_plan(c, plan, p, err) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

static int pt_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct pt_plan *p = plan_new(c, plan, err);
	struct gl_buf script;
	char out[1024];
	int status, rc = -GL_EINVAL;

	gl_buf_init(&script, 120 * 1024); /* one argv string: the kernel takes 128 KiB */
	if (!p)
		goto out;
	if (inject_script(p, &script) != 0) {
		rc = gl_errf(err, GL_ELIMIT, "partition: the nft script for table %s is too long", p->table);
		goto out;
	}
	{
		const char *argv[] = { "nft", script.data, NULL };
		rc = run_argv(p, argv, PT_CMD_TIMEOUT_MS, &status, out, sizeof(out), err);
	}
	if (rc == 0 && status != 0)
		rc = gl_errf(err, GL_EIO, "partition inject on host '%s': nft exited %d%s%s", p->host.name, status,
			     out[0] ? ": " : "", gl_first_line(out));
out:
	gl_buf_free(&script);
	free(p);
	return rc;
}

/* One probe: want_success says which outcome proves the partition. */
static int probe(const struct pt_plan *p, const cJSON *argv_json, const char *name, int want_success,
		 struct gl_err *err)
{
	const char *argv[PT_MAX_ARGS + 1];
	const cJSON *it;
	char out[512];
	int n = 0, status;

	if (!argv_json)
		return 0;
	cJSON_ArrayForEach(it, argv_json) argv[n++] = it->valuestring;
	argv[n] = NULL;
	if (run_argv(p, argv, p->probe_timeout_ms, &status, out, sizeof(out), err) != 0)
		return -GL_EIO;
	if (want_success && status != 0)
		return gl_errf(err, GL_EIO,
			       "partition: %s '%s' %s%s%s: the hosts inside a group cannot reach each other", name,
			       argv[0], status < 0 ? "timed out" : "failed", out[0] ? ": " : "", gl_first_line(out));
	if (!want_success && status == 0)
		return gl_errf(err, GL_EIO, "partition: %s '%s' succeeded: traffic still crosses the partition", name,
			       argv[0]);
	return 0;
}

static int pt_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct pt_plan *p = plan_new(c, plan, err);
	char out[4096];
	int status, rc = -GL_EINVAL;

	if (!p)
		goto out;
	rc = nft_table(p, "list", &status, out, sizeof(out), err);
	if (rc == 0 && status != 0)
		rc = gl_errf(err, GL_EIO, "partition: table inet %s is not on host '%s': %s", p->table, p->host.name,
			     gl_first_line(out));
	if (rc == 0)
		rc = probe(p, p->probe_across, "probe_across", 0, err);
	if (rc == 0)
		rc = probe(p, p->probe_within, "probe_within", 1, err);
out:
	free(p);
	return rc;
}

static int pt_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct pt_plan *p = plan_new(c, plan, err);
	char out[1024];
	int status, rc = -GL_EINVAL;

	if (!p)
		goto out;
	rc = nft_table(p, "delete", &status, out, sizeof(out), err);
	/* already gone (reverted before, or never made) counts as reverted */
	if (rc == 0 && status != 0 && !strstr(out, "No such file or directory"))
		rc = gl_errf(err, GL_EIO, "partition revert on host '%s': nft delete table inet %s exited %d%s%s",
			     p->host.name, p->table, status, out[0] ? ": " : "", gl_first_line(out));
out:
	free(p);
	return rc;
}

static int pt_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct pt_plan *p = plan_new(c, plan, err);
	char out[4096];
	int status, rc = -GL_EINVAL;

	if (!p)
		goto out;
	rc = nft_table(p, "list", &status, out, sizeof(out), err);
	if (rc == 0 && status == 0)
		rc = gl_errf(err, GL_EIO, "partition: table inet %s is still on host '%s'", p->table, p->host.name);
	else if (rc == 0 && !strstr(out, "No such file or directory"))
		rc = gl_errf(err, GL_EIO, "partition: cannot tell whether table inet %s is gone from host '%s': %s",
			     p->table, p->host.name, gl_first_line(out));
out:
	free(p);
	return rc;
}

/* One preflight check: argv must exit 0 on the plan's host. */
static int pf_check(struct gl_ctx *c, const struct pt_plan *p, const char *subject, const char *check,
		    const char *const *argv, const char *fail_detail)
{
	return gl_run_preflight(c, &p->host, PT_CMD_TIMEOUT_MS, GL_RUN_TIMEOUT_OK, "partition", subject, check, argv,
				fail_detail);
}

/* Preflight, on the loop thread before anything is injected: nft and the
 * probes' programs are on the host, and nftables accepts the exact table
 * (`nft --check` applies nothing). */
static int pt_preflight(struct gl_ctx *c, const cJSON *plan)
{
	struct gl_err err = { 0 };
	struct pt_plan *p = plan_new(c, plan, &err);
	const char *id = jstr(plan, "id");
	const cJSON *probes[2];
	struct gl_buf script;
	char subject[160], check[160];
	int bad = 0;

	gl_buf_init(&script, 120 * 1024);
	if (!p) {
		bad = gl_ctx_preflight(c, "fault", "partition plan readable", 0, err.msg) != 0;
		goto out;
	}
	snprintf(subject, sizeof(subject), "fault %s on host %s", id ? id : "?", p->host.name);
	probes[0] = p->probe_across;
	probes[1] = p->probe_within;
	for (int i = -1; i < 2; i++) {
		const char *prog = i < 0 ? "nft" : probes[i] ? cJSON_GetArrayItem(probes[i], 0)->valuestring : NULL;
		const char *argv[] = { "sh", "-c", "command -v \"$1\" >/dev/null", "sh", prog, NULL };
		if (!prog)
			continue;
		snprintf(check, sizeof(check), "%s '%s' present",
			 i < 0 ? "tool"
			 : i   ? "probe_within"
			       : "probe_across",
			 prog);
		if (pf_check(c, p, subject, check, argv, "not found on the host's PATH") != 0) {
			bad = 1;
			if (i < 0)
				goto out; /* nft --check below needs it */
		}
	}
	if (inject_script(p, &script) != 0) {
		bad = gl_ctx_preflight(c, subject, "nft script fits one argument", 0, "too many addresses") != 0;
	} else {
		const char *argv[] = { "nft", "--check", script.data, NULL };
		bad |= pf_check(c, p, subject, "nftables accepts the partition table (nft --check)", argv,
				"nft refuses it") != 0;
	}
out:
	gl_buf_free(&script);
	free(p);
	return bad ? -1 : 0;
}

static void describe_argv(struct gl_buf *out, const struct pt_plan *p, const char *label, const char *const *argv,
			  const char *note)
{
	gl_buf_printf(out, "  %s: ", label);
	if (p->host.netns[0])
		gl_buf_printf(out, "ip netns exec %s ", p->host.netns);
	gl_buf_append_argv(out, argv);
	gl_buf_printf(out, "%s\n", note ? note : "");
}

static void describe_probe(struct gl_buf *out, const struct pt_plan *p, const cJSON *v, const char *note)
{
	const char *argv[PT_MAX_ARGS + 1];
	const cJSON *it;
	int n = 0;

	if (!v)
		return;
	cJSON_ArrayForEach(it, v) argv[n++] = it->valuestring;
	argv[n] = NULL;
	describe_argv(out, p, "verify", argv, note);
}

static void pt_describe(const cJSON *plan, struct gl_buf *out)
{
	struct gl_err err = { 0 };
	struct pt_plan *p = plan_new(NULL, plan, &err);
	struct gl_buf script;

	gl_buf_init(&script, 120 * 1024);
	if (!p) {
		gl_buf_printf(out, "  (no valid plan: %s)\n", err.msg);
		goto out;
	}
	if (inject_script(p, &script) == 0) {
		const char *argv[] = { "nft", script.data, NULL };
		describe_argv(out, p, "inject", argv, NULL);
	}
	{
		const char *list[] = { "nft", "list", "table", "inet", p->table, NULL };
		const char *del[] = { "nft", "delete", "table", "inet", p->table, NULL };
		describe_argv(out, p, "verify", list, NULL);
		describe_probe(out, p, p->probe_across, "   (must fail)");
		describe_probe(out, p, p->probe_within, "   (must succeed)");
		describe_argv(out, p, "revert", del, NULL);
		describe_argv(out, p, "verify_revert", list, "   (must fail: No such file or directory)");
	}
out:
	gl_buf_free(&script);
	free(p);
}

/* pt_revert's one command: nft delete table inet TABLE. */
static int pt_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	struct pt_plan *p = plan_new(c, plan, err);
	const char *argv[6];
	int rc = 0;

	if (!p)
		return -GL_EINVAL;
	*h = p->host;
	nft_table_argv(p, "delete", argv);
	if (gl_deadman_argv_sh(script, argv, NULL) != 0)
		rc = gl_errf(err, GL_EINVAL, "partition: the revert command cannot go into a watcher script");
	free(p);
	return rc;
}

/* validate's question (plugin.h): a network partition on one of the
 * processes' hosts may end them (a job that does not ride through it);
 * elsewhere, no. */
static int pt_ends(const struct gl_fault_spec *f, const struct gl_proc_view *p, char *why, size_t n)
{
	if (!gl_proc_on_host(p, f->target))
		return GL_ENDS_NO;
	if (why)
		snprintf(why, n, "a network partition on one of its hosts");
	return GL_ENDS_MAYBE;
}

static const struct gl_fault_ops gl_fault_partition = {
	.kind = "partition",
	.methods = pt_methods,
	.validate = pt_validate,
	.plan = pt_plan,
	.inject = pt_inject,
	.verify = pt_verify,
	.revert = pt_revert,
	.verify_revert = pt_verify_revert,
	.describe = pt_describe,
	.preflight = pt_preflight,
	.deadman = pt_deadman,
	.ends = pt_ends,
	.sim = gl_sim_partition,
};
GL_REGISTER_FAULT(gl_fault_partition, 30)
