/*
 * scenario.c - from scenario JSON to a validated struct gl_scenario.
 *
 * Validation walks the tree once with a small typed schema per object
 * (schema.h): unknown keys are errors (with a did-you-mean), every value is
 * checked for type and unit, and cross-checks follow (faults inside the
 * duration, ids unique, hosts exist, kinds and methods known, concurrency
 * within safety.max_concurrent_faults, and every workload judged by the
 * targets it needs). All problems are collected in a struct gl_diag, each
 * naming file:line:col and the JSON path.
 *
 * This file owns the scenario's own sections (top level, contract, hosts,
 * phases, faults, targets, safety), the order they are checked in, and the
 * entry points. Each workload's section is checked by its ops table's
 * validate hook, and the targets it needs named by its targets hooks
 * (loadgen/<name>_schema.c); each fault's params by its kind's validate.
 * --set and "inventory" are applied before (scenario_doc.c), and windows x
 * hold is judged after (scenario_fit.c).
 */
#include "scenario.h"

#include <errno.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "cfg.h"
#include "paths.h"
#include "plugin.h"
#include "scenario_parts.h"
#include "schema.h"

const char *gl_scope_name(enum gl_scope s)
{
	switch (s) {
	case GL_SCOPE_STEADY: return "steady";
	case GL_SCOPE_DEGRADED: return "degraded";
	case GL_SCOPE_RECOVERY: return "recovery";
	default: return "none";
	}
}

/* ---- sections ----------------------------------------------------------- */

static void parse_hosts(struct vctx *v, const cJSON *hosts)
{
	static const char *const keys[] = { "ssh",   "key",     "known_hosts", "passphrase_env", "local",
					    "netns", "address", "slurm_node",  "k8s_node",       NULL };
	const cJSON *h;
	int n = cJSON_GetArraySize(hosts), i = 0;

	if (!gl_want_object(v->d, hosts, "hosts"))
		return;
	v->s->hosts = calloc((size_t)n + 1, sizeof(*v->s->hosts));
	cJSON_ArrayForEach(h, hosts)
	{
		struct gl_host *o = &v->s->hosts[i];
		char path[256], ssh[512] = "";
		int has_ssh;

		snprintf(path, sizeof(path), "hosts.%s", h->string);
		if (strlen(h->string) >= sizeof(o->name) || !h->string[0]) {
			gl_diag_error(v->d, h, path, "host names are 1 to %zu bytes", sizeof(o->name) - 1);
			continue;
		}
		if (gl_control_char(h->string)) {
			gl_diag_error(v->d, h, "hosts",
				      "a host name holds a control character: refused, it would "
				      "forge log and report lines");
			continue;
		}
		if (!gl_want_object(v->d, h, path))
			continue;
		gl_check_keys(v->d, h, path, keys);
		snprintf(o->name, sizeof(o->name), "%s", h->string);
		o->json = h;
		has_ssh = gl_get_string(v->d, h, "ssh", path, 0, ssh, sizeof(ssh)) > 0;
		gl_get_bool(v->d, h, "local", path, &o->local);
		if (gl_get_string(v->d, h, "netns", path, 0, o->netns, sizeof(o->netns)) > 0 && o->netns[0] &&
		    !gl_word_ok(o->netns, "_.-", sizeof(o->netns) - 1)) {
			/* it reaches `ip netns exec NAME` and /run/netns/NAME:
			 * "-all" would be an option, "../.." a path */
			char np[300];
			snprintf(np, sizeof(np), "%s.netns", path);
			gl_diag_error(v->d, cJSON_GetObjectItemCaseSensitive(h, "netns"), np,
				      "expected a network namespace name (letters, digits and _ . -, not starting "
				      "with '-', no '..'), got '%s'",
				      o->netns);
		}
		gl_get_string(v->d, h, "key", path, 0, o->key, sizeof(o->key));
		gl_get_string(v->d, h, "slurm_node", path, 0, o->slurm_node, sizeof(o->slurm_node));
		gl_get_string(v->d, h, "address", path, 0, o->address, sizeof(o->address));
		gl_get_string(v->d, h, "known_hosts", path, 0, o->known_hosts, sizeof(o->known_hosts));
		{
			char tmp[256];
			gl_get_string(v->d, h, "passphrase_env", path, 0, tmp, sizeof(tmp));
			gl_get_string(v->d, h, "k8s_node", path, 0, tmp, sizeof(tmp));
		}
		if (has_ssh == o->local) {
			gl_diag_error(
				v->d, h, path,
				"a host needs exactly one transport: \"ssh\": \"user@host:port\" or \"local\": true");
		}
		if (has_ssh) {
			/* user@host[:port] */
			char *at = strchr(ssh, '@'), *colon;
			char sp[300];
			snprintf(sp, sizeof(sp), "%s.ssh", path);
			if (!at || at == ssh || !at[1]) {
				gl_diag_error(v->d, cJSON_GetObjectItemCaseSensitive(h, "ssh"), sp,
					      "expected \"user@host\" or \"user@host:port\", got \"%s\"", ssh);
			} else {
				*at = '\0';
				snprintf(o->ssh_user, sizeof(o->ssh_user), "%s", ssh);
				colon = strrchr(at + 1, ':');
				o->ssh_port = 22;
				if (colon && !strchr(colon, ']')) {
					char *end;
					long port = strtol(colon + 1, &end, 10);
					if (*end || port < 1 || port > 65535)
						gl_diag_error(v->d, cJSON_GetObjectItemCaseSensitive(h, "ssh"), sp,
							      "bad port '%s', expected 1 to 65535", colon + 1);
					o->ssh_port = (int)port;
					*colon = '\0';
				}
				snprintf(o->ssh_host, sizeof(o->ssh_host), "%s", at + 1);
				if (!o->key[0])
					gl_diag_error(v->d, h, path, "an ssh host needs \"key\" (private key file)");
				if (!o->known_hosts[0])
					gl_diag_error(
						v->d, h, path,
						"an ssh host needs \"known_hosts\": host keys are always checked");
			}
		}
		i++;
	}
	v->s->n_hosts = i;
}

static void parse_workloads(struct vctx *v, const cJSON *ws)
{
	const cJSON *w;
	int n, i = 0;

	if (!gl_want_object(v->d, ws, "workloads"))
		return;
	n = cJSON_GetArraySize(ws);
	v->s->workloads = calloc((size_t)n + 1, sizeof(*v->s->workloads));
	cJSON_ArrayForEach(w, ws)
	{
		char path[256];
		const struct gl_workload_ops *ops = gl_workload_find(w->string);

		snprintf(path, sizeof(path), "workloads.%s", w->string);
		if (!ops) {
			char names[256];
			gl_registry_names(GL_FAMILY_WORKLOAD, names, sizeof(names));
			gl_diag_error(v->d, w, path, "unknown workload '%s', expected one of: %s", w->string, names);
			continue;
		}
		if (!gl_want_object(v->d, w, path))
			continue;
		/* the workload's own schema (its ops table): its keys are its own */
		if (ops->validate)
			ops->validate(v->s, w, v->d, path);
		snprintf(v->s->workloads[i].name, sizeof(v->s->workloads[i].name), "%s", w->string);
		v->s->workloads[i].cfg = w;
		v->s->workloads[i].ops = ops;
		i++;
	}
	v->s->n_workloads = i;
}

static void parse_phases(struct vctx *v, const cJSON *ph)
{
	static const char *const keys[] = { "name", "for", "load", "scope", "kind", "edge", NULL };
	static const char *const scopes[] = { "steady", "degraded", "none", NULL };
	const cJSON *p;
	int n, i = 0;
	int64_t t = 0;

	if (!ph) {
		/* No phases: the whole run is one steady phase. */
		v->s->phases = calloc(1, sizeof(*v->s->phases));
		snprintf(v->s->phases[0].name, sizeof(v->s->phases[0].name), "steady");
		v->s->phases[0].dur_ns = v->s->duration_ns;
		v->s->phases[0].load = 1;
		v->s->phases[0].scope = GL_SCOPE_STEADY;
		v->s->n_phases = 1;
		return;
	}
	if (!cJSON_IsArray(ph) || cJSON_GetArraySize(ph) == 0) {
		gl_diag_error(v->d, ph, "phases", "expected a non-empty array of {\"name\", \"for\"}");
		return;
	}
	n = cJSON_GetArraySize(ph);
	v->s->phases = calloc((size_t)n, sizeof(*v->s->phases));
	cJSON_ArrayForEach(p, ph)
	{
		struct gl_phase *o = &v->s->phases[i];
		char path[64], scope[32] = "";
		double load = 1;

		snprintf(path, sizeof(path), "phases[%d]", i);
		if (!gl_want_object(v->d, p, path))
			continue;
		gl_check_keys(v->d, p, path, keys);
		gl_get_name(v->d, p, "name", path, 1, o->name, sizeof(o->name));
		if (gl_get_duration(v->d, p, "for", path, 1, &o->dur_ns) > 0 && o->dur_ns <= 0)
			gl_diag_error(v->d, cJSON_GetObjectItemCaseSensitive(p, "for"), path,
				      "a phase must last longer than 0s");
		if (!gl_scenario_phase_load(v->d, p, path, o)) {
			gl_get_number(v->d, p, "load", path, 0, 0.001, 1000, &load);
			o->load = load;
		}
		o->scope = strcmp(o->name, "warmup") == 0 ? GL_SCOPE_NONE : GL_SCOPE_STEADY;
		gl_scenario_parse_phase_edge(v->d, p, path, o);
		if (gl_get_enum(v->d, p, "scope", path, 0, scopes, scope, sizeof(scope)) > 0)
			o->scope = !strcmp(scope, "steady")     ? GL_SCOPE_STEADY
				   : !strcmp(scope, "degraded") ? GL_SCOPE_DEGRADED
								: GL_SCOPE_NONE;
		o->json = p;
		o->start_ns = t;
		if (o->dur_ns > 0 && t <= INT64_MAX - o->dur_ns)
			t += o->dur_ns;
		i++;
	}
	v->s->n_phases = i;
	if (v->s->duration_ns > 0 && t != v->s->duration_ns && i == n) {
		char a[64], b[64];
		gl_format_duration(t, a, sizeof(a));
		gl_format_duration(v->s->duration_ns, b, sizeof(b));
		gl_diag_error(v->d, ph, "phases", "phases add up to %s but \"duration\" is %s", a, b);
	}
}

/* Duplicate fault ids, in n log n: indices sorted by (id, index), so each
 * id's first use leads its run. (Comparing every pair would take 23 s for
 * 70,000 faults.) Errors come out in the faults' order. */
static const struct gl_fault_spec *sort_faults;
static int cmp_fault_id(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int c = strcmp(sort_faults[x].id, sort_faults[y].id);
	return c ? c : (x > y) - (x < y);
}

static void check_fault_ids(struct vctx *v)
{
	struct gl_scenario *s = v->s;
	int n = s->n_faults, *ix, *first;

	if (n < 2)
		return;
	ix = malloc(sizeof(*ix) * (size_t)n);
	first = malloc(sizeof(*first) * (size_t)n);
	if (!ix || !first) {
		free(ix);
		free(first);
		gl_diag_error(v->d, NULL, "faults", "out of memory");
		return;
	}
	for (int i = 0; i < n; i++) {
		ix[i] = i;
		first[i] = -1;
	}
	sort_faults = s->faults;
	qsort(ix, (size_t)n, sizeof(*ix), cmp_fault_id);
	sort_faults = NULL;
	for (int k = 1, lead = ix[0]; k < n; k++) {
		if (strcmp(s->faults[ix[k]].id, s->faults[lead].id))
			lead = ix[k];
		else if (s->faults[ix[k]].id[0])
			first[ix[k]] = lead;
	}
	for (int i = 0; i < n; i++) {
		char mp[96];
		if (first[i] < 0)
			continue;
		snprintf(mp, sizeof(mp), "faults[%d].id", i);
		gl_diag_error(v->d,
			      s->faults[i].json ? cJSON_GetObjectItemCaseSensitive(s->faults[i].json, "id") : NULL, mp,
			      "duplicate fault id '%s' (first used by faults[%d])", s->faults[i].id, first[i]);
	}
	free(ix);
	free(first);
}

/* A fault's kind, found in the registry, and its method, one the kind
 * names (its first when none is given). */
static void parse_fault_kind(struct vctx *v, const cJSON *f, struct gl_fault_spec *o, const char *path)
{
	char mp[96];

	if (gl_get_string(v->d, f, "kind", path, 1, o->kind, sizeof(o->kind)) > 0) {
		o->ops = gl_fault_find(o->kind);
		if (!o->ops) {
			char names[256];
			gl_registry_names(GL_FAMILY_FAULT, names, sizeof(names));
			snprintf(mp, sizeof(mp), "%s.kind", path);
			gl_diag_error(v->d, cJSON_GetObjectItemCaseSensitive(f, "kind"), mp,
				      "unknown fault kind '%s', expected one of: %s", o->kind, names);
		}
	}
	snprintf(mp, sizeof(mp), "%s.method", path);
	if (gl_get_string(v->d, f, "method", path, 0, o->method, sizeof(o->method)) > 0 && o->ops) {
		int ok = 0;
		char list[256] = "";
		size_t off = 0;
		for (int m = 0; o->ops->methods && o->ops->methods[m]; m++) {
			if (!strcmp(o->ops->methods[m], o->method))
				ok = 1;
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", m ? ", " : "",
						o->ops->methods[m]);
		}
		if (!ok)
			gl_diag_error(v->d, cJSON_GetObjectItemCaseSensitive(f, "method"), mp,
				      o->ops->methods ? "unknown method '%s' for kind '%s', expected one of: %s"
						      : "unknown method '%s': kind '%s' takes no method%s",
				      o->method, o->kind, list);
	} else if (o->ops && o->ops->methods) {
		snprintf(o->method, sizeof(o->method), "%s", o->ops->methods[0]);
	}
}

/* A fault starts inside the run and ends by its end. */
static void check_fault_in_run(struct vctx *v, const cJSON *f, const struct gl_fault_spec *o, const char *path)
{
	char mp[96];

	if (v->s->duration_ns > 0) {
		char a[64], b[64];
		gl_format_duration(v->s->duration_ns, b, sizeof(b));
		if (o->at_ns >= v->s->duration_ns) {
			gl_format_duration(o->at_ns, a, sizeof(a));
			snprintf(mp, sizeof(mp), "%s.at", path);
			gl_diag_error(v->d, cJSON_GetObjectItemCaseSensitive(f, "at"), mp,
				      "fault at %s is not inside the run (duration %s)", a, b);
		} else if (o->dur_ns > v->s->duration_ns - o->at_ns) {
			gl_format_duration(o->at_ns + o->dur_ns, a, sizeof(a));
			gl_diag_error(v->d, f, path, "fault ends at %s, after the run ends (%s)", a, b);
		}
	}
}

static void parse_faults(struct vctx *v, const cJSON *fs)
{
	static const char *const keys[] = { "id",     "at",      "for",           "kind",   "method", "target",
					    "params", "runbook", "deadman_grace", "settle", NULL };
	const cJSON *f;
	int n, i = 0;

	if (!cJSON_IsArray(fs)) {
		gl_diag_error(v->d, fs, "faults", "expected an array of faults");
		return;
	}
	n = cJSON_GetArraySize(fs);
	v->s->faults = calloc((size_t)n + 1, sizeof(*v->s->faults));
	cJSON_ArrayForEach(f, fs)
	{
		struct gl_fault_spec *o = &v->s->faults[i];
		char path[64], mp[96];
		const cJSON *params;
		int idx = i;

		snprintf(path, sizeof(path), "faults[%d]", idx);
		i++;
		if (!gl_want_object(v->d, f, path))
			continue;
		o->json = f;
		gl_check_keys(v->d, f, path, keys);
		gl_get_name(v->d, f, "id", path, 1, o->id, sizeof(o->id));
		gl_get_duration(v->d, f, "at", path, 1, &o->at_ns);
		gl_get_duration(v->d, f, "for", path, 0, &o->dur_ns);
		gl_get_string(v->d, f, "target", path, 1, o->target, sizeof(o->target));
		if (gl_get_duration(v->d, f, "deadman_grace", path, 0, &o->deadman_grace_ns) > 0)
			gl_scenario_check_grace(v->d, f, path, o->deadman_grace_ns);
		o->settle_ns = GL_SETTLE_WINDOWS * v->s->window_ns;
		if (gl_get_duration(v->d, f, "settle", path, 0, &o->settle_ns) > 0 &&
		    (o->settle_ns < 0 || o->settle_ns > GL_SETTLE_MAX_NS)) {
			snprintf(mp, sizeof(mp), "%s.settle", path);
			gl_diag_error(v->d, cJSON_GetObjectItemCaseSensitive(f, "settle"), mp,
				      "expected a duration from 0s to 1h (real time after the fault's revert that its "
				      "windows stay judged degraded and its workloads have to meet the steady targets "
				      "again)");
			o->settle_ns = GL_SETTLE_WINDOWS * v->s->window_ns;
		}
		if (gl_get_string(v->d, f, "runbook", path, 0, o->runbook, sizeof(o->runbook)) > 0 &&
		    (gl_control_char(o->runbook) || (!gl_runbook_is_url(o->runbook) && strstr(o->runbook, "://")))) {
			snprintf(mp, sizeof(mp), "%s.runbook", path);
			gl_diag_error(v->d, cJSON_GetObjectItemCaseSensitive(f, "runbook"), mp,
				      "expected an http(s):// URL or a path to the runbook (relative to the scenario), "
				      "without control characters");
			o->runbook[0] = '\0';
		}
		params = cJSON_GetObjectItemCaseSensitive(f, "params");
		snprintf(mp, sizeof(mp), "%s.params", path);
		if (params && gl_want_object(v->d, params, mp))
			o->params = params;
		parse_fault_kind(v, f, o, path);
		snprintf(mp, sizeof(mp), "%s.target", path);
		if (o->target[0] && !gl_scenario_host(v->s, o->target))
			gl_diag_error(v->d, cJSON_GetObjectItemCaseSensitive(f, "target"), mp,
				      "unknown host '%s' (not in \"hosts\")", o->target);
		if (o->ops && o->ops->validate)
			o->ops->validate(o, v->d, path);
		if (o->dur_ns == 0 && o->ops && o->ops->implied_duration_ns)
			o->dur_ns = o->ops->implied_duration_ns(o);
		check_fault_in_run(v, f, o, path);
	}
	v->s->n_faults = i;
	check_fault_ids(v);
}

/* --time-scale X runs scenario time X times faster. Every span the run
 * arms on the real clock (the run, each phase, each fault from inject to
 * revert) must still last at least 1 ns, and the run at most 10 years: a
 * scale of 1e-9 made a 2 h run overflow into a negative real duration that
 * validate called valid. */
#define SCALED_MAX_NS (315576000LL * 1000000000LL)
static int scaled_ok(struct vctx *v, const cJSON *node, double sc, int64_t ns, const char *what)
{
	long double real = (long double)ns / sc;
	char a[64], b[64];

	if (ns <= 0 || (real >= 1 && real <= (long double)SCALED_MAX_NS))
		return 1;
	gl_format_duration(ns, a, sizeof(a));
	if (real > (long double)SCALED_MAX_NS) {
		gl_diag_error(v->d, node, "--time-scale",
			      "at time scale %g %s (%s) would last %.3Lg s of real time, above the 10-year limit", sc,
			      what, a, real / 1e9L);
	} else {
		snprintf(b, sizeof(b), "%.3Lg ns", real);
		gl_diag_error(v->d, node, "--time-scale",
			      "at time scale %g %s (%s) would last %s of real time, less than 1 ns", sc, what, a, b);
	}
	return 0;
}

static void check_time_scale(struct vctx *v, const struct gl_scenario_opts *o)
{
	struct gl_scenario *s = v->s;
	double sc = o ? o->time_scale : 0;
	char what[GL_NAME_MAX + 64];
	int bad = 0;

	if (sc == 0)
		return; /* not given: 1 */
	if (!(sc > 0) || !isfinite(sc)) {
		gl_diag_error(v->d, NULL, "--time-scale", "expected a finite number above 0, got %g", sc);
		return;
	}
	if (!scaled_ok(v, NULL, sc, s->duration_ns, "the run"))
		return;
	for (int i = 0; i < s->n_phases && bad < 8; i++) {
		snprintf(what, sizeof(what), "phases[%d] '%s'", i, s->phases[i].name);
		bad += !scaled_ok(v, s->phases[i].json, sc, s->phases[i].dur_ns, what);
	}
	for (int i = 0; i < s->n_faults && bad < 8; i++) {
		snprintf(what, sizeof(what), "faults[%d] '%s'", i, s->faults[i].id);
		bad += !scaled_ok(v, s->faults[i].json, sc, s->faults[i].dur_ns, what);
	}
}

/* Faults overlapping in time may not exceed max_concurrent_faults. A fault
 * g counts at f's start when it comes before f in (at, index) order and is
 * still active then (g.at <= f.at < g.at + max(g.for, 1)); the maximum is
 * reached at some start. A sweep in that order with a min-heap of the
 * earlier faults' ends: n log n (a pairwise count would take 23 s for 70,000
 * faults). */
static int cmp_fault_at(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int64_t ax = sort_faults[x].at_ns, ay = sort_faults[y].at_ns;
	if (ax != ay)
		return ax < ay ? -1 : 1;
	return (x > y) - (x < y);
}

void gl_scenario_sort_faults_at(const struct gl_fault_spec *faults, int *ix, int n)
{
	sort_faults = faults;
	qsort(ix, (size_t)n, sizeof(*ix), cmp_fault_at);
	sort_faults = NULL;
}

static void heap_push(int64_t *h, int *n, int64_t v)
{
	int i = (*n)++;
	while (i > 0 && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void heap_pop(int64_t *h, int *n)
{
	int64_t v = h[--(*n)];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = v;
}

static void check_concurrency(struct vctx *v)
{
	struct gl_scenario *s = v->s;
	int n = 0, nh = 0, *ix, *active;
	int64_t *heap;

	if (s->n_faults == 0)
		return;
	ix = malloc(sizeof(*ix) * (size_t)s->n_faults);
	active = calloc((size_t)s->n_faults, sizeof(*active));
	heap = malloc(sizeof(*heap) * (size_t)s->n_faults);
	if (!ix || !active || !heap) {
		gl_diag_error(v->d, NULL, "faults", "out of memory");
		goto out;
	}
	for (int i = 0; i < s->n_faults; i++)
		if (s->faults[i].ops)
			ix[n++] = i;
	sort_faults = s->faults;
	qsort(ix, (size_t)n, sizeof(*ix), cmp_fault_at);
	sort_faults = NULL;
	for (int k = 0; k < n; k++) {
		const struct gl_fault_spec *f = &s->faults[ix[k]];
		while (nh > 0 && heap[0] <= f->at_ns)
			heap_pop(heap, &nh);
		active[ix[k]] = 1 + nh;
		heap_push(heap, &nh, f->at_ns + (f->dur_ns > 0 ? f->dur_ns : 1));
	}
	for (int i = 0; i < s->n_faults; i++) {
		const struct gl_fault_spec *f = &s->faults[i];
		char p[64], a[64];
		if (!f->ops || active[i] <= s->max_concurrent_faults)
			continue;
		snprintf(p, sizeof(p), "faults[%d]", i);
		gl_format_duration(f->at_ns, a, sizeof(a));
		gl_diag_error(
			v->d, f->json, p,
			"fault '%s' at %s makes %d faults active at once, above safety.max_concurrent_faults = %d",
			f->id, a, active[i], s->max_concurrent_faults);
	}
out:
	free(ix);
	free(active);
	free(heap);
}

/* ---- entry points -------------------------------------------------------- */

/* One of choices, or an error naming the path and the choices. */
static void store_choice(struct gl_diag *d, const cJSON *obj, const char *key, const char *const *choices, char *out,
			 size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char p[64];

	if (!v)
		return;
	snprintf(p, sizeof(p), "store.%s", key);
	for (int i = 0; cJSON_IsString(v) && choices[i]; i++)
		if (!strcmp(v->valuestring, choices[i])) {
			snprintf(out, n, "%s", choices[i]);
			return;
		}
	gl_diag_error(d, v, p, "expected one of %s, %s%s%s", choices[0], choices[1], choices[2] ? ", " : "",
		      choices[2] ? choices[2] : "");
}

/* "store": what the run store keeps of requests and debug events. */
static void parse_store(struct gl_diag *d, struct gl_scenario *s)
{
	static const char *const keys[] = { "requests", "sample_per_window", "errors_per_window",
					    "events",   "debug_per_minute",  NULL };
	static const char *const req[] = { "sample", "all", "none", NULL };
	static const char *const ev[] = { "info", "debug", NULL };
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(s->root, "store");
	const char *const limits[] = { "sample_per_window", "errors_per_window" };
	long *lv[] = { &s->store_sample_per_window, &s->store_errors_per_window };

	snprintf(s->store_requests, sizeof(s->store_requests), "sample");
	snprintf(s->store_events, sizeof(s->store_events), "info");
	s->store_sample_per_window = s->store_errors_per_window = s->store_debug_per_minute = -1;
	if (!c || !gl_want_object(d, c, "store"))
		return;
	gl_check_keys(d, c, "store", keys);
	store_choice(d, c, "requests", req, s->store_requests, sizeof(s->store_requests));
	store_choice(d, c, "events", ev, s->store_events, sizeof(s->store_events));
	for (int i = 0; i < 2; i++) {
		if (gl_get_int(d, c, limits[i], "store", 0, 0, 1000000, lv[i]) > 0 &&
		    strcmp(s->store_requests, "sample"))
			gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(c, limits[i]),
				      limits[i] == limits[0] ? "store.sample_per_window" : "store.errors_per_window",
				      "only with \"requests\": \"sample\" (\"%s\" keeps %s)", s->store_requests,
				      strcmp(s->store_requests, "all") ? "no row" : "every row");
	}
	if (gl_get_int(d, c, "debug_per_minute", "store", 0, 0, 1000000, &s->store_debug_per_minute) > 0 &&
	    strcmp(s->store_events, "info"))
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(c, "debug_per_minute"), "store.debug_per_minute",
			      "only with \"events\": \"info\" (\"debug\" keeps every debug event)");
}

/* The scenario's text kept, hashed and parsed into s->doc (the parser's
 * error through d: -1). */
static int read_document(struct gl_scenario *s, const char *name, const char *text, size_t len, struct gl_diag *d)
{
	struct gl_err err = { 0 };

	snprintf(s->path, sizeof(s->path), "%s", name);
	s->text = malloc(len + 1);
	if (!s->text)
		return -1;
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->text_len = len;
	gl_sha256_hex(text, len, s->sha256);
	s->doc = gl_jsonc_parse(text, len, name, &err);
	if (!s->doc) {
		gl_buf_printf(&d->text, "%s\n", err.msg);
		d->n_errors++;
		return -1;
	}
	d->doc = s->doc;
	s->root = gl_jsonc_root(s->doc);
	return 0;
}

/* The top level's own values: name, duration, window, hold, description
 * and "incidents". */
static void parse_top(struct gl_scenario *s, struct gl_diag *d)
{
	static const char *const keys[] = { "name",     "description", "duration",  "window",    "hold",
					    "contract", "hosts",       "workloads", "phases",    "faults",
					    "targets",  "safety",      "inventory", "incidents", "store",
					    "gates",    "notify",      "suspects",  NULL };
	const cJSON *c;
	char tmp[4096];
	long l;

	gl_check_keys(d, s->root, "", keys);
	gl_get_name(d, s->root, "name", "", 1, s->name, sizeof(s->name));
	if (gl_get_duration(d, s->root, "duration", "", 1, &s->duration_ns) > 0 && s->duration_ns <= 0)
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(s->root, "duration"), "duration",
			      "must be longer than 0s");
	s->window_ns = 10000000000LL;
	if (gl_get_duration(d, s->root, "window", "", 0, &s->window_ns) > 0 &&
	    (s->window_ns < 100000000LL || s->window_ns > 3600000000000LL))
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(s->root, "window"), "window",
			      "an analysis window is 100ms to 1h");
	s->hold = 3;
	if (gl_get_int(d, s->root, "hold", "", 0, 1, 1000, &l) > 0)
		s->hold = (int)l;
	gl_get_string(d, s->root, "description", "", 0, tmp, sizeof(tmp));
	/* incidents: degradations no scheduled fault explains; with "max"
	 * every kind counts against it, without it only training failures,
	 * correctness errors and failed restores do, with a limit of 0
	 * (analysis.h) */
	s->incidents_max = -1;
	c = cJSON_GetObjectItemCaseSensitive(s->root, "incidents");
	if (c && gl_want_object(d, c, "incidents")) {
		static const char *const ikeys[] = { "max", NULL };
		gl_check_keys(d, c, "incidents", ikeys);
		if (gl_get_int(d, c, "max", "incidents", 1, 0, 1000000, &l) > 0)
			s->incidents_max = (int)l;
	}
	/* suspects: nodes that stand out from their peers (docs/nodes.md);
	 * with "max" more than that many fail the verdict, without it they
	 * are shown and do not */
	s->suspects_max = -1;
	c = cJSON_GetObjectItemCaseSensitive(s->root, "suspects");
	if (c && gl_want_object(d, c, "suspects")) {
		static const char *const skeys[] = { "max", NULL };
		gl_check_keys(d, c, "suspects", skeys);
		if (gl_get_int(d, c, "max", "suspects", 1, 0, 1000000, &l) > 0)
			s->suspects_max = (int)l;
	}
}

/* "contract": what the run was agreed for, checked and shown, not used. */
static void parse_contract(struct gl_diag *d, const cJSON *c)
{
	static const char *const ckeys[] = { "model",        "precision",     "engine", "gpus_per_job",
					     "input_tokens", "output_tokens", "notes",  NULL };
	char tmp[1024];
	long l;

	if (!c || !gl_want_object(d, c, "contract"))
		return;
	gl_check_keys(d, c, "contract", ckeys);
	gl_get_string(d, c, "model", "contract", 0, tmp, sizeof(tmp));
	gl_get_string(d, c, "precision", "contract", 0, tmp, sizeof(tmp));
	gl_get_string(d, c, "engine", "contract", 0, tmp, sizeof(tmp));
	gl_get_string(d, c, "notes", "contract", 0, tmp, sizeof(tmp));
	gl_get_int(d, c, "gpus_per_job", "contract", 0, 1, 1000000, &l);
	gl_get_int(d, c, "input_tokens", "contract", 0, 1, 100000000, &l);
	gl_get_int(d, c, "output_tokens", "contract", 0, 1, 100000000, &l);
}

struct gl_scenario *gl_scenario_load_text(const char *name, const char *text, size_t len,
					  const struct gl_scenario_opts *o, struct gl_diag *d)
{
	struct gl_scenario *s = calloc(1, sizeof(*s));
	struct vctx v = { d, s };
	const cJSON *c;

	if (!s)
		return NULL;
	if (read_document(s, name, text, len, d)) {
		gl_scenario_free(s);
		return NULL;
	}
	if (!cJSON_IsObject(s->root)) {
		gl_diag_error(d, s->root, "", "a scenario is a JSON object, got %s", gl_json_type_name(s->root));
		return s;
	}
	for (int i = 0; o && o->sets && o->sets[i]; i++)
		gl_scenario_apply_set(s->root, o->sets[i], d);
	gl_scenario_apply_inventory(s, o, d);

	parse_top(s, d);
	parse_store(d, s);
	parse_contract(d, cJSON_GetObjectItemCaseSensitive(s->root, "contract"));
	if ((c = cJSON_GetObjectItemCaseSensitive(s->root, "hosts")))
		parse_hosts(&v, c);
	if ((c = cJSON_GetObjectItemCaseSensitive(s->root, "workloads")))
		parse_workloads(&v, c);
	else
		gl_diag_error(d, s->root, "", "missing required key 'workloads' (at least one workload)");
	if (s->n_workloads == 0 && c && cJSON_IsObject(c) && cJSON_GetArraySize(c) == 0)
		gl_diag_error(d, c, "workloads", "no workload: nothing would be measured");
	if ((c = cJSON_GetObjectItemCaseSensitive(s->root, "gates")))
		gl_scenario_parse_gates(s, c, d);
	if ((c = cJSON_GetObjectItemCaseSensitive(s->root, "notify")))
		gl_scenario_parse_notify(s, c, d);
	parse_phases(&v, cJSON_GetObjectItemCaseSensitive(s->root, "phases"));
	gl_scenario_parse_targets(&v, cJSON_GetObjectItemCaseSensitive(s->root, "targets"));
	if ((c = cJSON_GetObjectItemCaseSensitive(s->root, "faults")))
		parse_faults(&v, c);
	gl_scenario_parse_safety(v.s, v.d, cJSON_GetObjectItemCaseSensitive(s->root, "safety"), o);
	check_concurrency(&v);
	check_time_scale(&v, o);
	gl_scenario_check_edges(&v, o);
	gl_scenario_check_required_targets(&v);
	return s;
}

/* The files a scenario names, checked once its schema passed (validate and
 * run; not a stored scenario, not the fuzzers): ssh keys and known_hosts
 * confined like traces and inventories (paths.h), then what each workload
 * and fault kind reads. */
static void check_files(struct gl_scenario *s, struct gl_diag *d)
{
	char p[GL_NAME_MAX + 64], real[1100];

	for (int i = 0; i < s->n_hosts; i++) {
		struct gl_host *h = &s->hosts[i];
		const char *what[2] = { "key", "known_hosts" };
		char *val[2] = { h->key, h->known_hosts };
		for (int k = 0; k < 2; k++) {
			struct gl_err e = { 0 };
			if (!val[k][0])
				continue;
			if (gl_path_confine(s->path, s->root, val[k], real, sizeof(real), &e) == 0) {
				/* used as checked: relative to the scenario, not the cwd */
				if (strlen(real) < sizeof(h->key))
					memcpy(val[k], real, strlen(real) + 1);
				continue;
			}
			snprintf(p, sizeof(p), "hosts.%s.%s", h->name, what[k]);
			gl_diag_file(d, h->json ? cJSON_GetObjectItemCaseSensitive(h->json, what[k]) : NULL, p, &e);
		}
	}
	for (int i = 0; i < s->n_workloads; i++)
		if (s->workloads[i].ops && s->workloads[i].ops->check_files) {
			snprintf(p, sizeof(p), "workloads.%s", s->workloads[i].name);
			s->workloads[i].ops->check_files(s, s->workloads[i].cfg, d, p);
		}
	for (int i = 0; i < s->n_faults; i++)
		if (s->faults[i].ops && s->faults[i].ops->check_files) {
			snprintf(p, sizeof(p), "faults[%d]", i);
			s->faults[i].ops->check_files(s, &s->faults[i], d, p);
		}
	/* a runbook kept beside the scenario exists (and is confined) */
	for (int i = 0; i < s->n_faults; i++) {
		struct gl_fault_spec *f = &s->faults[i];
		struct gl_err e = { 0 };
		if (!f->runbook[0] || gl_runbook_is_url(f->runbook))
			continue;
		if (gl_path_confine(s->path, s->root, f->runbook, real, sizeof(real), &e) == 0) {
			FILE *fp = fopen(real, "r");
			if (fp) {
				fclose(fp);
				continue;
			}
			gl_errf(&e, GL_EIO, "%s: cannot be read: %s", f->runbook, strerror(errno));
		}
		/* an error even for validate away from the cluster: the runbook
		 * is kept with the scenario, not on the cluster */
		snprintf(p, sizeof(p), "faults[%d].runbook", i);
		gl_diag_error(d, f->json ? cJSON_GetObjectItemCaseSensitive(f->json, "runbook") : NULL, p, "%s", e.msg);
	}
}

int gl_runbook_is_url(const char *r)
{
	return r && (!strncmp(r, "https://", 8) || !strncmp(r, "http://", 7));
}

const char *gl_scenario_runbook(const struct gl_scenario *s, const char *id)
{
	const struct gl_fault_spec *f = gl_scenario_fault(s, id);
	return f && f->runbook[0] ? f->runbook : NULL;
}

const struct gl_fault_spec *gl_scenario_fault(const struct gl_scenario *s, const char *id)
{
	for (int i = 0; s && i < s->n_faults; i++)
		if (!strcmp(s->faults[i].id, id))
			return &s->faults[i];
	return NULL;
}

struct gl_scenario *gl_scenario_load_file(const char *path, const struct gl_scenario_opts *o, struct gl_diag *d)
{
	struct gl_err err = { 0 };
	struct gl_scenario *s;
	char *text;
	size_t len;

	if (gl_read_file(path, GL_MAX_SCENARIO_BYTES, &text, &len, &err) != 0) {
		gl_buf_printf(&d->text, "%s\n", err.msg);
		d->n_errors++;
		return NULL;
	}
	s = gl_scenario_load_text(path, text, len, o, d);
	free(text);
	if (s) {
		/* the timeline against windows x hold, once the scenario is
		 * otherwise valid (with a missing threshold it fails anyway, and
		 * run runs it for that verdict); a stored run (resume, report)
		 * is not judged again */
		int timeline_ok = d->n_errors == 0;
		if (d->n_errors == 0)
			check_files(s, d);
		if (timeline_ok)
			gl_scenario_check_window_fit(s, o ? o->time_scale : 1, d);
	}
	return s;
}

void gl_scenario_free(struct gl_scenario *s)
{
	if (!s)
		return;
	gl_jsonc_free(s->doc);
	free(s->text);
	free(s->inventory_text);
	free(s->hosts);
	free(s->workloads);
	free(s->phases);
	free(s->faults);
	free(s->targets);
	free(s->drifts);
	free(s->optional);
	free(s->abort_rules);
	free(s->gates);
	free(s->notify);
	free(s);
}

const struct gl_host *gl_scenario_host(const struct gl_scenario *s, const char *name)
{
	for (int i = 0; i < s->n_hosts; i++)
		if (!strcmp(s->hosts[i].name, name))
			return &s->hosts[i];
	return NULL;
}

const char *gl_host_slurm_node(const struct gl_host *h)
{
	return h->slurm_node[0] ? h->slurm_node : h->name;
}

const struct gl_workload_spec *gl_scenario_workload(const struct gl_scenario *s, const char *name)
{
	for (int i = 0; i < s->n_workloads; i++)
		if (!strcmp(s->workloads[i].name, name))
			return &s->workloads[i];
	return NULL;
}

int gl_scenario_phase_at(const struct gl_scenario *s, int64_t t_ns)
{
	for (int i = 0; i < s->n_phases; i++)
		if (t_ns < s->phases[i].start_ns + s->phases[i].dur_ns)
			return i;
	return s->n_phases - 1;
}
