/*
 * compare_edge.c - the SLA edge in `gauntlet compare` (docs/compare.md,
 * "The SLA edge"): the edge phases of the two runs paired as phases are
 * (the n-th edge phase named X of one with the n-th of the other), each
 * run's edge and bracket, the candidate's over the base's, and a verdict
 * that gates like any other row:
 *   - regression: the candidate's edge lower by more than --tolerance, and
 *     the brackets apart (the candidate failed at or below the rate the
 *     base held: cand.high <= base.edge); or the base held a rate and the
 *     candidate held none, not even its "from";
 *   - improvement: the same the other way;
 *   - no change: otherwise (within the tolerance, or the brackets overlap:
 *     the two edges are not told apart by the probes);
 *   - insufficient data: either search did not conclude with an edge
 *     (unbracketed, not run, not recorded) but for the cases above.
 */
#include "compare_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "escape.h"

static const char *const verdict_names[] = { "insufficient data", "no change", "improvement", "regression" };

static double num_or_nan(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* One run's search as the row needs it. */
static void side_of(const cJSON *s, struct edge_side *e)
{
	e->found = s != NULL;
	e->edge = num_or_nan(s, "edge_rps");
	e->lo = num_or_nan(s, "low_rps");
	e->hi = num_or_nan(s, "high_rps");
	snprintf(e->outcome, sizeof(e->outcome), "%s",
		 !s                           ? "not recorded"
		 : !gl_cfg_bool(s, "done", 0) ? "not finished"
					      : gl_cfg_str(s, "outcome", "?"));
	e->none_held = s && gl_cfg_bool(s, "done", 0) && !strcmp(e->outcome, "below_from");
	e->has = s && gl_cfg_bool(s, "done", 0) && gl_cfg_bool(s, "pass", 0) && isfinite(e->edge);
}

/* The candidate's failing rate is at or below what the base held: a is
 * the base, b the candidate (or the other way for an improvement). */
static int apart(const struct edge_side *a, const struct edge_side *b)
{
	return isfinite(b->hi) && b->hi <= a->edge;
}

static void judge(const struct cmp *c, struct edge_row *r)
{
	const struct edge_side *b = &r->s[0], *k = &r->s[1];
	double tol = c->o.tolerance;

	r->ratio = b->has && k->has && b->edge > 0 ? k->edge / b->edge : NAN;
	if (b->has && k->has) {
		if (r->ratio < 1 - tol && apart(b, k)) {
			r->v = V_REGRESSION;
			snprintf(r->note, sizeof(r->note), "the candidate failed at %.4g req/s, which the base held",
				 k->hi);
		} else if (r->ratio > 1 + tol && apart(k, b)) {
			r->v = V_IMPROVEMENT;
			snprintf(r->note, sizeof(r->note),
				 "the candidate held %.4g req/s, where the base failed at %.4g", k->edge, b->hi);
		} else {
			r->v = V_NONE;
			snprintf(r->note, sizeof(r->note), "%s",
				 fabs(r->ratio - 1) <= tol
					 ? "within the tolerance"
					 : "the brackets overlap: the probes do not tell the edges apart");
		}
	} else if (b->has && k->none_held) {
		r->v = V_REGRESSION;
		snprintf(r->note, sizeof(r->note), "the candidate held no rate, not even its \"from\"");
	} else if (b->none_held && k->has) {
		r->v = V_IMPROVEMENT;
		snprintf(r->note, sizeof(r->note), "the base held no rate, not even its \"from\"");
	} else if (b->none_held && k->none_held) {
		r->v = V_NONE;
		snprintf(r->note, sizeof(r->note), "neither held a rate");
	} else {
		r->v = V_INSUFFICIENT;
		snprintf(r->note, sizeof(r->note), "no edge in the %s run (%s)", b->has ? "candidate" : "base",
			 b->has ? k->outcome : b->outcome);
	}
}

int gl_cmp_edges(struct cmp *c)
{
	const struct gl_scenario *bs = c->s[0].an->sc, *cs = c->s[1].an->sc;

	for (int p = 0; p < bs->n_phases; p++) {
		struct edge_row *r, *grown;
		int occ = 1, q = -1, seen = 0;
		if (bs->phases[p].kind != GL_PHASE_EDGE)
			continue;
		for (int i = 0; i < p; i++)
			occ += bs->phases[i].kind == GL_PHASE_EDGE && !strcmp(bs->phases[i].name, bs->phases[p].name);
		for (int i = 0; i < cs->n_phases && q < 0; i++)
			if (cs->phases[i].kind == GL_PHASE_EDGE && !strcmp(cs->phases[i].name, bs->phases[p].name) &&
			    ++seen == occ)
				q = i;
		if (!(grown = realloc(c->edges, (size_t)(c->n_edges + 1) * sizeof(*grown))))
			return -1;
		c->edges = grown;
		r = &c->edges[c->n_edges++];
		memset(r, 0, sizeof(*r));
		snprintf(r->name, sizeof(r->name), "%s", bs->phases[p].name);
		r->occ = occ;
		side_of(gl_edge_search_of(c->s[0].an, p), &r->s[0]);
		if (q >= 0)
			side_of(gl_edge_search_of(c->s[1].an, q), &r->s[1]);
		else
			snprintf(r->s[1].outcome, sizeof(r->s[1].outcome), "no such edge phase");
		r->s[1].edge = q >= 0 ? r->s[1].edge : NAN;
		r->s[1].lo = q >= 0 ? r->s[1].lo : NAN;
		r->s[1].hi = q >= 0 ? r->s[1].hi : NAN;
		judge(c, r);
		c->count[r->v]++;
	}
	return 0;
}

static void fmt(char *buf, size_t n, double v)
{
	if (isfinite(v))
		snprintf(buf, n, "%.4g", v);
	else
		snprintf(buf, n, "n/a");
}

/* "51.75 [51.75, 52.88)" or the outcome when there is no edge. */
static void side_text(const struct edge_side *e, char *buf, size_t n)
{
	char a[32], b[32], x[32];

	if (!isfinite(e->edge)) {
		snprintf(buf, n, "none (%s)", e->outcome);
		return;
	}
	fmt(x, sizeof(x), e->edge);
	fmt(a, sizeof(a), e->lo);
	fmt(b, sizeof(b), e->hi);
	snprintf(buf, n, "%s req/s (bracket %s to %s%s)", x, a, isfinite(e->hi) ? b : "at least",
		 isfinite(e->hi) ? "" : ", held up to \"to\"");
}

static void label(const struct edge_row *r, char *buf, size_t n)
{
	if (r->occ > 1)
		snprintf(buf, n, "%s#%d", r->name, r->occ);
	else
		snprintf(buf, n, "%s", r->name);
}

void gl_cmp_edges_summary(const struct cmp *c, FILE *f, int only_regressions)
{
	for (int i = 0; i < c->n_edges; i++) {
		const struct edge_row *r = &c->edges[i];
		char l[GL_NAME_MAX + 8], b[128], k[128], ratio[32];
		if (only_regressions && r->v != V_REGRESSION)
			continue;
		label(r, l, sizeof(l));
		side_text(&r->s[0], b, sizeof(b));
		side_text(&r->s[1], k, sizeof(k));
		fmt(ratio, sizeof(ratio), r->ratio);
		fprintf(f, "  SLA edge, phase %s: %s -> %s (ratio %s): %s, %s\n", l, b, k, ratio,
			r->v == V_REGRESSION ? "REGRESSION" : verdict_names[r->v], r->note);
	}
}

cJSON *gl_cmp_edges_json(const struct cmp *c)
{
	cJSON *arr = cJSON_CreateArray();

	for (int i = 0; i < c->n_edges; i++) {
		const struct edge_row *r = &c->edges[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "phase_name", r->name);
		cJSON_AddNumberToObject(x, "occurrence", r->occ);
		for (int k = 0; k < 2; k++) {
			const struct edge_side *e = &r->s[k];
			cJSON *o = cJSON_AddObjectToObject(x, k ? "candidate" : "base");
			if (isfinite(e->edge))
				cJSON_AddNumberToObject(o, "edge_rps", e->edge);
			else
				cJSON_AddNullToObject(o, "edge_rps");
			if (isfinite(e->hi))
				cJSON_AddNumberToObject(o, "high_rps", e->hi);
			else
				cJSON_AddNullToObject(o, "high_rps");
			cJSON_AddStringToObject(o, "outcome", e->outcome);
		}
		if (isfinite(r->ratio))
			cJSON_AddNumberToObject(x, "ratio", r->ratio);
		else
			cJSON_AddNullToObject(x, "ratio");
		cJSON_AddNumberToObject(x, "tolerance", c->o.tolerance);
		cJSON_AddStringToObject(x, "verdict", verdict_names[r->v]);
		cJSON_AddBoolToObject(x, "gates", r->v == V_REGRESSION);
		cJSON_AddStringToObject(x, "note", r->note);
		cJSON_AddItemToArray(arr, x);
	}
	return arr;
}

/* The table of compare.md (html 0) or compare.html (html 1). */
void gl_cmp_edges_table(const struct cmp *c, struct gl_buf *b, int html)
{
	int (*esc)(struct gl_buf *, const char *) = html ? gl_html_text : gl_md_text;

	if (c->n_edges == 0)
		return;
	if (html)
		gl_buf_printf(b, "<h2>SLA edge</h2>\n<table class=\"rows\"><thead><tr><th>edge phase</th><th>base</th>"
				 "<th>candidate</th><th>ratio</th><th>note</th><th>verdict</th></tr></thead><tbody>\n");
	else
		gl_buf_printf(b, "\n## SLA edge\n\n| edge phase | base | candidate | ratio | note | verdict |\n"
				 "|---|---|---|---|---|---|\n");
	for (int i = 0; i < c->n_edges; i++) {
		static const char *const cls[] = { "insufficient", "none", "improvement", "regression" };
		const struct edge_row *r = &c->edges[i];
		char l[GL_NAME_MAX + 8], s[2][128], ratio[32];
		label(r, l, sizeof(l));
		side_text(&r->s[0], s[0], sizeof(s[0]));
		side_text(&r->s[1], s[1], sizeof(s[1]));
		fmt(ratio, sizeof(ratio), r->ratio);
		gl_buf_printf(b, html ? "<tr class=\"%s\"><td>" : "| ", cls[r->v]);
		esc(b, l);
		gl_buf_printf(b, html ? "</td><td>" : " | ");
		esc(b, s[0]);
		gl_buf_printf(b, html ? "</td><td>" : " | ");
		esc(b, s[1]);
		gl_buf_printf(b, html ? "</td><td>%s</td><td class=\"note\">" : " | %s | ", ratio);
		esc(b, r->note);
		if (html)
			gl_buf_printf(b, "</td><td class=\"verdict\">%s</td></tr>\n", verdict_names[r->v]);
		else
			gl_buf_printf(b, " | %s%s%s |\n", r->v == V_REGRESSION ? "**" : "", verdict_names[r->v],
				      r->v == V_REGRESSION ? "**" : "");
	}
	if (html)
		gl_buf_printf(b, "</tbody></table>\n");
	gl_buf_printf(b,
		      html ? "<p>The edge: the highest arrival rate whose probe held the SLO (docs/scenario.md, "
			     "\"Edge phases\"). A regression when the candidate's is lower by more than the "
			     "tolerance (%g%%) and it failed at a rate the base held.</p>\n"
			   : "\nThe edge: the highest arrival rate whose probe held the SLO (docs/scenario.md, "
			     "\"Edge phases\"). A regression when the candidate's is lower by more than the "
			     "tolerance (%g%%) and it failed at a rate the base held.\n",
		      c->o.tolerance * 100);
}
