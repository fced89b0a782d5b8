/*
 * analysis_edge.c - edge phases (docs/scenario.md, "Edge phases"): the
 * store document "edge" (the searches the workload that takes them wrote,
 * one per edge phase, each probe with its verdict) kept whole for the
 * reports; and the gate it is: an edge phase whose search did not
 * conclude with an edge (none recorded, not finished, no rate that held,
 * the probes run out before a bracket) fails the verdict. A missing
 * figure is a failed gate, never a pass.
 */
#include "analysis_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"

const cJSON *gl_edge_search_of(const struct gl_analysis *an, int phase)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(
				      an->edge, "searches")) if ((int)gl_cfg_num(s, "phase", -1) == phase) return s;
	return NULL;
}

int gl_edge_analyze(struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	char *text = NULL;

	for (int i = 0; i < an->sc->n_phases; i++)
		an->edge_phases += an->sc->phases[i].kind == GL_PHASE_EDGE;
	if (gl_store_doc_get(st, "edge", &text, err) != 0)
		return -1;
	if (text) {
		an->edge = cJSON_Parse(text);
		free(text);
		if (!cJSON_IsObject(an->edge)) { /* damaged: as if none was recorded */
			cJSON_Delete(an->edge);
			an->edge = NULL;
		}
	}
	for (int i = 0; i < an->sc->n_phases; i++) {
		const cJSON *s;
		if (an->sc->phases[i].kind != GL_PHASE_EDGE)
			continue;
		s = gl_edge_search_of(an, i);
		if (!s || !gl_cfg_bool(s, "done", 0) || !gl_cfg_bool(s, "pass", 0))
			an->edge_failed++;
	}
	return 0;
}

void gl_analysis_docs_free(struct gl_analysis *a)
{
	cJSON_Delete(a->bisect);
	cJSON_Delete(a->sweep);
	cJSON_Delete(a->edge);
}
