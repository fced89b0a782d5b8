/*
 * scenario_gates.c - the scenario's "gates" (docs/gates.md): checks run on
 * named hosts before the soak starts any load and after it ends. Each
 * gate is checked here like every other section (every key typed, unknown
 * keys refused, errors naming the JSON path); what runs them is
 * harness/core/gates.c.
 *
 *   {"id": "dcgm-r3", "kind": "dcgm_diag", "level": 3, "hosts": ["gpu1"],
 *    "when": ["before", "after"], "timeout": "2h"}
 *   {"id": "nvme", "kind": "command", "argv": ["nvme", "smart-log", "/dev/nvme0"],
 *    "hosts": ["gpu1"], "when": ["before"], "timeout": "60s"}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_parts.h"
#include "schema.h"

#define GATE_TIMEOUT_MAX_NS (24LL * 3600 * 1000000000LL)

const char *gl_gate_kind_name(enum gl_gate_kind k)
{
	return k == GL_GATE_DCGM_DIAG ? "dcgm_diag" : "command";
}

static void parse_argv(struct gl_diag *d, struct gl_gate_spec *g, const cJSON *a, const char *path)
{
	const cJSON *e;
	char p[128];
	int n = 0;

	snprintf(p, sizeof(p), "%s.argv", path);
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0) {
		gl_diag_error(d, a, p, "expected a non-empty array of strings (the command and its arguments), got %s",
			      gl_json_type_name(a));
		return;
	}
	cJSON_ArrayForEach(e, a)
	{
		snprintf(p, sizeof(p), "%s.argv[%d]", path, n);
		if (n >= GL_GATE_ARGV_MAX) {
			gl_diag_error(d, e, p, "at most %d arguments", GL_GATE_ARGV_MAX);
			return;
		}
		if (!cJSON_IsString(e)) {
			gl_diag_error(d, e, p, "expected a string, got %s", gl_json_type_name(e));
			return;
		}
		if (gl_control_char(e->valuestring)) {
			/* shown by validate and --dry-run, kept in reports */
			gl_diag_error(d, e, p, "holds a control character: refused, it would forge what is shown");
			return;
		}
		if (n == 0 && !e->valuestring[0]) {
			gl_diag_error(d, e, p, "the command is empty");
			return;
		}
		g->argv[n++] = e->valuestring;
	}
	g->argv[n] = NULL;
}

static void parse_hosts_of(struct gl_scenario *s, struct gl_diag *d, struct gl_gate_spec *g, const cJSON *h,
			   const char *path)
{
	const cJSON *e;
	char p[128];
	int n = 0;

	snprintf(p, sizeof(p), "%s.hosts", path);
	if (!cJSON_IsArray(h) || cJSON_GetArraySize(h) == 0) {
		gl_diag_error(d, h, p, "expected a non-empty array of host names (from \"hosts\"), got %s",
			      gl_json_type_name(h));
		return;
	}
	cJSON_ArrayForEach(e, h)
	{
		const struct gl_host *host;
		snprintf(p, sizeof(p), "%s.hosts[%d]", path, n);
		if (n >= GL_GATE_HOSTS_MAX) {
			gl_diag_error(d, e, p, "at most %d hosts per gate", GL_GATE_HOSTS_MAX);
			return;
		}
		if (!cJSON_IsString(e)) {
			gl_diag_error(d, e, p, "expected a host name, got %s", gl_json_type_name(e));
			n++;
			continue;
		}
		host = gl_scenario_host(s, e->valuestring);
		if (!host) {
			gl_diag_error(d, e, p, "unknown host '%s' (not in \"hosts\")", e->valuestring);
			n++;
			continue;
		}
		for (int i = 0; i < g->n_hosts; i++)
			if (g->hosts[i] == (int)(host - s->hosts))
				gl_diag_error(d, e, p, "host '%s' named twice", e->valuestring);
		g->hosts[g->n_hosts++] = (int)(host - s->hosts);
		n++;
	}
}

static void parse_when(struct gl_diag *d, struct gl_gate_spec *g, const cJSON *w, const char *path)
{
	const cJSON *e;
	char p[128];
	int n = 0;

	snprintf(p, sizeof(p), "%s.when", path);
	if (!cJSON_IsArray(w) || cJSON_GetArraySize(w) == 0) {
		gl_diag_error(d, w, p, "expected a non-empty array of \"before\" and \"after\", got %s",
			      gl_json_type_name(w));
		return;
	}
	cJSON_ArrayForEach(e, w)
	{
		int *slot = NULL;
		snprintf(p, sizeof(p), "%s.when[%d]", path, n++);
		if (cJSON_IsString(e) && !strcmp(e->valuestring, "before"))
			slot = &g->before;
		else if (cJSON_IsString(e) && !strcmp(e->valuestring, "after"))
			slot = &g->after;
		if (!slot) {
			gl_diag_error(d, e, p,
				      "expected \"before\" (before the soak starts any load) or \"after\" "
				      "(once it ended)");
			continue;
		}
		if (*slot)
			gl_diag_error(d, e, p, "\"%s\" named twice", e->valuestring);
		*slot = 1;
	}
}

void gl_scenario_parse_gates(struct gl_scenario *s, const cJSON *gates, struct gl_diag *d)
{
	static const char *const keys[] = { "id", "kind", "level", "argv", "hosts", "when", "timeout", NULL };
	static const char *const kinds[] = { "dcgm_diag", "command", NULL };
	const cJSON *g;
	int n, i = 0;

	if (!cJSON_IsArray(gates)) {
		gl_diag_error(d, gates, "gates", "expected an array of gates, got %s", gl_json_type_name(gates));
		return;
	}
	n = cJSON_GetArraySize(gates);
	s->gates = calloc((size_t)n + 1, sizeof(*s->gates));
	if (!s->gates) {
		gl_diag_error(d, gates, "gates", "out of memory");
		return;
	}
	cJSON_ArrayForEach(g, gates)
	{
		struct gl_gate_spec *o = &s->gates[i];
		const cJSON *argv = cJSON_GetObjectItemCaseSensitive(g, "argv");
		const cJSON *level = cJSON_GetObjectItemCaseSensitive(g, "level");
		char path[64], mp[96], kind[16] = "";
		long l = 1;

		snprintf(path, sizeof(path), "gates[%d]", i);
		if (!gl_want_object(d, g, path)) {
			i++;
			continue;
		}
		o->json = g;
		gl_check_keys(d, g, path, keys);
		snprintf(mp, sizeof(mp), "%s.id", path);
		if (gl_get_name(d, g, "id", path, 1, o->id, sizeof(o->id)) > 0 &&
		    !gl_word_ok(o->id, "_.-", sizeof(o->id) - 1))
			/* it names the gate's files in the run directory */
			gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(g, "id"), mp,
				      "expected letters, digits and _ . - (not starting with '-', no '..'), got '%s'",
				      o->id);
		for (int k = 0; k < i && o->id[0]; k++)
			if (!strcmp(s->gates[k].id, o->id))
				gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(g, "id"), mp,
					      "duplicate gate id '%s' (first used by gates[%d])", o->id, k);
		if (gl_get_enum(d, g, "kind", path, 1, kinds, kind, sizeof(kind)) > 0)
			o->kind = !strcmp(kind, "dcgm_diag") ? GL_GATE_DCGM_DIAG : GL_GATE_COMMAND;
		if (kind[0] && o->kind == GL_GATE_DCGM_DIAG) {
			snprintf(mp, sizeof(mp), "%s.argv", path);
			if (argv)
				gl_diag_error(d, argv, mp,
					      "a dcgm_diag gate runs `dcgmi diag -r LEVEL -j`: no \"argv\" "
					      "(use kind \"command\" for another command)");
			gl_get_int(d, g, "level", path, 0, 1, 4, &l);
			o->level = (int)l;
			snprintf(o->level_text, sizeof(o->level_text), "%d", o->level);
			o->argv[0] = "dcgmi";
			o->argv[1] = "diag";
			o->argv[2] = "-r";
			o->argv[3] = o->level_text;
			o->argv[4] = "-j";
			o->argv[5] = NULL;
		} else if (kind[0]) {
			snprintf(mp, sizeof(mp), "%s.level", path);
			if (level)
				gl_diag_error(d, level, mp, "only a dcgm_diag gate has a \"level\"");
			snprintf(mp, sizeof(mp), "%s.argv", path);
			if (!argv)
				gl_diag_error(d, g, mp,
					      "missing required key 'argv' (the command to run, as an array)");
			else
				parse_argv(d, o, argv, path);
		}
		snprintf(mp, sizeof(mp), "%s.hosts", path);
		if (!cJSON_GetObjectItemCaseSensitive(g, "hosts"))
			gl_diag_error(d, g, mp, "missing required key 'hosts' (where the gate runs)");
		else
			parse_hosts_of(s, d, o, cJSON_GetObjectItemCaseSensitive(g, "hosts"), path);
		snprintf(mp, sizeof(mp), "%s.when", path);
		if (!cJSON_GetObjectItemCaseSensitive(g, "when"))
			gl_diag_error(d, g, mp, "missing required key 'when' ([\"before\"], [\"after\"] or both)");
		else
			parse_when(d, o, cJSON_GetObjectItemCaseSensitive(g, "when"), path);
		o->timeout_ns = o->kind == GL_GATE_DCGM_DIAG ? 3600LL * 1000000000LL : 60LL * 1000000000LL;
		snprintf(mp, sizeof(mp), "%s.timeout", path);
		if (gl_get_duration(d, g, "timeout", path, 0, &o->timeout_ns) > 0 &&
		    (o->timeout_ns < 1000000000LL || o->timeout_ns > GATE_TIMEOUT_MAX_NS))
			gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(g, "timeout"), mp,
				      "a gate's timeout is 1s to 24h");
		i++;
	}
	s->n_gates = i;
}

/* an argument as a shell would need it to read it back */
static void put_arg(FILE *f, const char *a)
{
	if (a[0] &&
	    strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == strlen(a)) {
		fputs(a, f);
		return;
	}
	fputc('\'', f);
	for (; *a; a++)
		if (*a == '\'')
			fputs("'\\''", f);
		else
			fputc(*a, f);
	fputc('\'', f);
}

void gl_gates_print(const struct gl_scenario *s, FILE *f)
{
	for (int i = 0; i < s->n_gates; i++) {
		const struct gl_gate_spec *g = &s->gates[i];
		char t[64];
		gl_format_duration(g->timeout_ns, t, sizeof(t));
		fprintf(f, "gate '%s' (%s) %s%s%s, timeout %s (real time) per host, on", g->id,
			gl_gate_kind_name(g->kind), g->before ? "before the soak" : "",
			g->before && g->after ? " and " : "", g->after ? "after it" : "", t);
		for (int h = 0; h < g->n_hosts; h++)
			fprintf(f, "%s %s", h ? "," : "", s->hosts[g->hosts[h]].name);
		fputs(":\n  ", f);
		for (int a = 0; g->argv[a]; a++) {
			if (a)
				fputc(' ', f);
			put_arg(f, g->argv[a]);
		}
		fputc('\n', f);
	}
}
