/*
 * analysis_sweep.c - the node sweep a run made before its load (store
 * document "sweep", docs/nodes.md "Node sweeps"): kept whole for the
 * reports (the host x host matrix), and each host or link it judged out
 * a suspect of its workload, so that the "suspects" gate, incidents'
 * readers and `gauntlet nodes` count it like any other.
 */
#include "analysis_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"

int gl_sweep_analyze(struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	const cJSON *s;
	char *text = NULL;
	int added = 0;

	if (gl_store_doc_get(st, "sweep", &text, err) != 0)
		return -1;
	if (!text)
		return 0;
	an->sweep = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsObject(an->sweep)) { /* not ours, or damaged: the reports say none */
		cJSON_Delete(an->sweep);
		an->sweep = NULL;
		return 0;
	}
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(an->sweep, "suspects"))
	{
		const char *kind = gl_cfg_str(s, "kind", ""), *name = gl_cfg_str(s, "name", "");
		const char *wl = gl_cfg_str(an->sweep, "workload", "-");
		struct gl_suspect *sp = NULL;
		size_t len;
		if ((strcmp(kind, "host") && strcmp(kind, "link")) || !name[0])
			continue;
		/* a node the run's own figures or its bisection named too: one
		 * suspect, the sweep's evidence beside theirs */
		for (int k = 0; k < an->n_suspects && !sp; k++)
			if (!strcmp(an->suspects[k].workload, wl) && !strcmp(an->suspects[k].kind, kind) &&
			    !strcmp(an->suspects[k].name, name))
				sp = &an->suspects[k];
		if (sp) {
			len = strlen(sp->evidence);
			if (gl_cfg_num(s, "score", 0) > sp->score)
				sp->score = gl_cfg_num(s, "score", 0);
			if (len < sizeof(sp->evidence))
				snprintf(sp->evidence + len, sizeof(sp->evidence) - len, "%snode sweep: %s",
					 len ? "; " : "", gl_cfg_str(s, "evidence", ""));
			added++;
			continue;
		}
		sp = realloc(an->suspects, (size_t)(an->n_suspects + 1) * sizeof(*sp));
		if (!sp)
			return gl_errf(err, GL_ENOMEM, "analysis: out of memory (suspects)");
		an->suspects = sp;
		sp = &an->suspects[an->n_suspects++];
		memset(sp, 0, sizeof(*sp));
		snprintf(sp->workload, sizeof(sp->workload), "%s", wl);
		snprintf(sp->kind, sizeof(sp->kind), "%s", kind);
		snprintf(sp->name, sizeof(sp->name), "%s", name);
		snprintf(sp->host, sizeof(sp->host), "%s", gl_cfg_str(s, "host", name));
		sp->score = gl_cfg_num(s, "score", 0);
		snprintf(sp->evidence, sizeof(sp->evidence), "node sweep: %s", gl_cfg_str(s, "evidence", ""));
		added++;
	}
	if (added && an->n_suspects > 1)
		qsort(an->suspects, (size_t)an->n_suspects, sizeof(*an->suspects), gl_suspect_cmp);
	return 0;
}
