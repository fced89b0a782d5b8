/*
 * analysis_load.c - the store's rows the analysis reads as they are: the
 * windows, the preflight checks, the gates and the scenario (through the
 * store's readers, store.h).
 */
#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the analysis being filled, and how many rows its array has room for */
struct filling {
	struct gl_analysis *an;
	int cap;
};

/* arr with room for element n: itself, or a larger copy (doubling from
 * first; *cap updated), or NULL when out of memory (arr left as it is). */
static void *room(void *arr, int n, int *cap, size_t size, int first)
{
	int c;

	if (n < *cap)
		return arr;
	c = *cap ? *cap * 2 : first;
	if (!(arr = realloc(arr, size * (size_t)c)))
		return NULL;
	*cap = c;
	return arr;
}

static int add_preflight(void *arg, const char *subject, const char *check, int ok, const char *detail)
{
	struct filling *fl = arg;
	struct gl_analysis *an = fl->an;
	struct gl_preflight_result *p;

	if (!(p = room(an->preflight, an->n_preflight, &fl->cap, sizeof(*p), 16)))
		return -GL_ENOMEM;
	an->preflight = p;
	p = &an->preflight[an->n_preflight++];
	snprintf(p->subject, sizeof(p->subject), "%s", subject);
	snprintf(p->check, sizeof(p->check), "%s", check);
	p->ok = ok;
	snprintf(p->detail, sizeof(p->detail), "%s", detail);
	an->preflight_failed += !p->ok;
	return 0;
}

static int add_gate(void *arg, const struct gl_gate_row *r)
{
	struct filling *fl = arg;
	struct gl_analysis *an = fl->an;
	struct gl_gate_result *g;

	if (!(g = room(an->gates, an->n_gates, &fl->cap, sizeof(*g), 16)))
		return -GL_ENOMEM;
	an->gates = g;
	g = &an->gates[an->n_gates++];
	memset(g, 0, sizeof(*g));
	snprintf(g->id, sizeof(g->id), "%s", r->id);
	snprintf(g->kind, sizeof(g->kind), "%s", r->kind);
	snprintf(g->host, sizeof(g->host), "%s", r->host);
	snprintf(g->when, sizeof(g->when), "%s", r->when);
	snprintf(g->status, sizeof(g->status), "%s", r->status);
	snprintf(g->reason, sizeof(g->reason), "%s", r->reason);
	g->exit_status = r->exit_status;
	g->dur_s = r->dur_s;
	snprintf(g->file, sizeof(g->file), "%s", r->file);
	if (r->results && !(g->results = strdup(r->results)))
		return -GL_ENOMEM;
	an->gates_failed += !strcmp(g->status, "fail");
	return 0;
}

/* A full allocation is the one failure a reader's callback reports (as
 * -GL_ENOMEM); the rest are the store's. */
static int loaded(int rc, struct gl_err *err)
{
	return rc == -GL_ENOMEM ? gl_errf(err, GL_ENOMEM, "analysis: out of memory") : rc;
}

struct win_list {
	struct gl_window_info *w;
	int n, cap;
};

static int add_window(void *arg, const struct gl_store_window_row *r)
{
	struct win_list *l = arg;
	struct gl_window_info *w;

	if (!(w = room(l->w, l->n, &l->cap, sizeof(*w), 1024)))
		return -GL_ENOMEM;
	l->w = w;
	w = &l->w[l->n++];
	memset(w, 0, sizeof(*w));
	w->idx = r->idx;
	w->start_ns = r->start_ns;
	w->end_ns = r->end_ns;
	w->scn_start_ns = r->scn_start_ns;
	w->scn_end_ns = r->scn_end_ns;
	w->phase = r->phase;
	w->complete = r->complete;
	return 0;
}

int gl_windows_load(struct gl_store *st, struct gl_window_info **out, int *n, struct gl_err *err)
{
	struct win_list l = { NULL, 0, 0 };
	int rc = loaded(gl_store_window_rows(st, add_window, &l, err), err);

	if (rc) {
		free(l.w);
		l.w = NULL;
		l.n = 0;
	}
	*out = l.w;
	*n = l.n;
	return rc;
}

int gl_analysis_load_checks(struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	struct filling pf = { an, 0 }, gt = { an, 0 };
	int rc = loaded(gl_store_preflight_scan(st, add_preflight, &pf, err), err);

	return rc ? rc : loaded(gl_store_gate_scan(st, add_gate, &gt, err), err);
}

/* The scenario as the run saw it: the stored text with its --set overrides
 * and its stored inventory (never the files again). d is initialised here;
 * the caller checks it and frees both. */
struct gl_scenario *gl_scenario_from_store(struct gl_store *st, const struct gl_run_row *run, struct gl_diag *d)
{
	struct gl_scenario_opts o = { 0 };
	struct gl_err err = { 0 };
	struct gl_scenario *sc;
	const char **sets = NULL;
	char *inv = NULL;
	cJSON *sj = cJSON_Parse(run->sets_json ? run->sets_json : "[]");

	if (cJSON_IsArray(sj)) {
		int n = cJSON_GetArraySize(sj), k = 0;
		sets = calloc((size_t)n + 1, sizeof(*sets));
		for (int i = 0; sets && i < n; i++) {
			const cJSON *it = cJSON_GetArrayItem(sj, i);
			if (cJSON_IsString(it))
				sets[k++] = it->valuestring;
		}
	}
	o.time_scale = run->time_scale;
	o.sets = sets;
	if (gl_store_doc_get(st, "scenario_inventory", &inv, &err) == 0)
		o.inventory_text = inv;
	gl_diag_init(d, NULL);
	sc = gl_scenario_load_text(run->scenario_path, run->scenario_text, strlen(run->scenario_text), &o, d);
	free(inv);
	free(sets);
	cJSON_Delete(sj);
	return sc;
}
