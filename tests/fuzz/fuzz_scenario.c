/*
 * fuzz_scenario.c - fuzz target for harness/scenario/scenario.c (with scenario_doc.c,
 * schema.c and the workloads' schemas, loadgen/NAME_schema.c): parse and
 * validate a scenario from memory, with "--set path=value" overrides and an
 * inventory for ${a.b.c} substitution. The input is split at NUL bytes:
 *
 *   SCENARIO \0 INVENTORY \0 SET \0 SET ...
 *
 * (no NUL: the scenario alone, with an empty inventory "{}"; never the
 * file system's: an "inventory" key must not make the target read a file).
 * A scenario that validates is also turned into its timeline, printed, its
 * gates printed (each runs a command on hosts of the scenario), and each
 * fault's plan is made and described, as `validate` and --dry-run do.
 * Failures must be counted diagnostics; a NULL scenario must say why.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "plugin.h"
#include "scenario.h"
#include "timeline.h"

#define MAX_SETS 8

static void exercise(const struct gl_scenario *s)
{
	static FILE *null_out;
	struct gl_tl_event *ev = NULL;
	int n = 0;

	if (!null_out && !(null_out = fopen("/dev/null", "w")))
		abort();
	if (gl_timeline_build(s, &ev, &n) == 0) {
		for (int i = 1; i < n; i++)
			if (ev[i].t_ns < ev[i - 1].t_ns)
				abort(); /* the timeline is sorted */
		free(ev);
	}
	gl_timeline_print(s, 1.0, null_out);
	gl_gates_print(s, null_out);
	for (int i = 0; i < s->n_gates; i++) {
		/* every gate runs something, on hosts of the scenario */
		if (!s->gates[i].argv[0] || s->gates[i].n_hosts < 1 || s->gates[i].n_hosts > GL_GATE_HOSTS_MAX)
			abort();
		for (int h = 0; h < s->gates[i].n_hosts; h++)
			if (s->gates[i].hosts[h] < 0 || s->gates[i].hosts[h] >= s->n_hosts)
				abort();
	}
	for (int64_t t = 0; s->duration_ns > 0 && t <= s->duration_ns; t += s->duration_ns / 7 + 1) {
		int p = gl_scenario_phase_at(s, t);
		if (s->n_phases && (p < 0 || p >= s->n_phases))
			abort();
	}
	for (int i = 0; i < s->n_hosts; i++)
		if (gl_scenario_host(s, s->hosts[i].name) == NULL)
			abort();
	for (int i = 0; i < s->n_faults; i++) {
		const struct gl_fault_spec *f = &s->faults[i];
		struct gl_err err = { 0 };
		cJSON *plan = NULL;
		if (!f->ops || !f->ops->plan)
			continue;
		if (f->ops->plan(s, f, &plan, &err) == 0 && plan && f->ops->describe) {
			struct gl_buf b;
			gl_buf_init(&b, 1 << 20);
			f->ops->describe(plan, &b);
			gl_buf_free(&b);
		} else if (!plan && err.code == 0) {
			abort(); /* a plan that fails says why */
		}
		cJSON_Delete(plan);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	const char *sets[MAX_SETS + 1] = { 0 };
	struct gl_scenario_opts o = { 0 };
	struct gl_scenario *s;
	struct gl_diag d;
	char *copy, *inv = NULL, *p, *end;
	size_t scen_len;
	int n_sets = 0;

	if (!quiet) {
		gl_log_init(GL_LOG_ERROR);
		quiet = 1;
	}
	/* one extra NUL so that every part below is a C string */
	if (!(copy = malloc(size + 1)))
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	end = copy + size;
	p = memchr(copy, '\0', size + 1);
	scen_len = (size_t)(p - copy);
	if (p < end) {
		inv = p + 1;
		for (p = inv + strlen(inv); p < end && n_sets < MAX_SETS; p += strlen(p)) {
			p++;
			sets[n_sets++] = p;
		}
	}
	o.time_scale = 1;
	o.sets = sets;
	o.start_wall_ns = 1767225600LL * 1000000000LL; /* fixed: 2026-01-01, reproducible */
	o.inventory_text = inv ? inv : "{}";
	gl_diag_init(&d, NULL);
	s = gl_scenario_load_text("fuzz.json", copy, scen_len, &o, &d);
	if (!s && d.n_errors == 0)
		abort(); /* NULL means a syntax error, which is reported */
	if (s && d.n_errors == 0)
		exercise(s);
	gl_scenario_free(s);
	gl_diag_free(&d);
	free(copy);
	return 0;
}
