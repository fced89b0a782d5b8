/*
 * report_nodes.c - the per-node part of each report (docs/nodes.md):
 * report.json's "suspects" and "nodes", report.md's and report.html's
 * Nodes section (suspects first, then per workload a table of every node
 * and, in report.html, a heatmap of each scored figure: node x time),
 * ending with the node sweep before the load (report_sweep.c) and a
 * failed run's bisection when they ran.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "escape.h"
#include "figures.h"
#include "report.h"
#include "report_html_int.h"

#define HEAT_ROWS 64 /* rows of a heatmap: suspects first, then the highest scores */

static double mean_of(const struct gl_node_result *r)
{
	return r->n > 0 ? r->sum / (double)r->n : 0;
}

static int scored(const struct gl_node_result *r)
{
	return r->def && !r->def->shown_only;
}

/* scored against its own history too (not a count of wrong values) */
static int self_scored(const struct gl_node_result *r)
{
	return scored(r) && !r->def->zero_expected;
}

static int suspect(const struct gl_node_result *r)
{
	return r->suspect || r->self_suspect;
}

/* nodes.list[].self: its own baseline and its later windows against it;
 * null before a whole baseline */
static void self_json(cJSON *e, const struct gl_analysis *an, const struct gl_node_result *r)
{
	cJSON *o;

	if (r->base_windows < an->self_base || r->base_n <= 0) {
		cJSON_AddNullToObject(e, "self");
		return;
	}
	o = cJSON_AddObjectToObject(e, "self");
	cJSON_AddNumberToObject(o, "baseline", r->base_sum / (double)r->base_n);
	cJSON_AddNumberToObject(o, "baseline_windows", r->base_windows);
	cJSON_AddNumberToObject(o, "mean", r->late_n > 0 ? r->late_sum / (double)r->late_n : 0);
	cJSON_AddNumberToObject(o, "score", round(r->self_score * 100) / 100);
	cJSON_AddNumberToObject(o, "windows_judged", r->self_judged);
	cJSON_AddNumberToObject(o, "windows_out", r->self_out);
	cJSON_AddBoolToObject(o, "suspect", r->self_suspect);
}

/* a cell: the self score and its windows out of those judged, "-" none */
static void self_cell(const struct gl_analysis *an, const struct gl_node_result *r, char *out, size_t n)
{
	if (!self_scored(r) || r->base_windows < an->self_base || r->base_n <= 0)
		snprintf(out, n, "-");
	else
		snprintf(out, n, "%.1f (%d of %d)", r->self_score, r->self_out, r->self_judged);
}

cJSON *gl_report_suspects_json(const struct gl_analysis *an)
{
	cJSON *arr = cJSON_CreateArray();

	for (int i = 0; i < an->n_suspects; i++) {
		const struct gl_suspect *s = &an->suspects[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kind", s->kind);
		cJSON_AddStringToObject(o, "name", s->name);
		cJSON_AddStringToObject(o, "host", s->host);
		cJSON_AddStringToObject(o, "workload", s->workload);
		cJSON_AddNumberToObject(o, "score", round(s->score * 100) / 100);
		cJSON_AddNumberToObject(o, "windows", s->windows);
		cJSON_AddStringToObject(o, "evidence", s->evidence);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *gl_report_nodes_json(const struct gl_analysis *an)
{
	cJSON *o = cJSON_CreateObject(), *list;

	cJSON_AddNumberToObject(o, "windows", (double)an->node_windows);
	cJSON_AddNumberToObject(o, "suspects", an->n_suspects);
	if (an->sc->suspects_max >= 0)
		cJSON_AddNumberToObject(o, "max", an->sc->suspects_max);
	else
		cJSON_AddNullToObject(o, "max");
	cJSON_AddBoolToObject(o, "pass", !an->suspects_failed);
	cJSON_AddNumberToObject(o, "z_threshold", GL_SUSPECT_Z);
	cJSON_AddNumberToObject(o, "min_windows", GL_SUSPECT_WINDOWS);
	cJSON_AddNumberToObject(o, "self_baseline_windows", an->self_base);
	list = cJSON_AddArrayToObject(o, "list");
	for (int i = 0; i < an->n_nodes; i++) {
		const struct gl_node_result *r = &an->nodes[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "workload", r->workload);
		cJSON_AddStringToObject(e, "kind", r->kind);
		cJSON_AddStringToObject(e, "name", r->name);
		cJSON_AddStringToObject(e, "host", r->host);
		cJSON_AddStringToObject(e, "figure", r->figure);
		cJSON_AddNumberToObject(e, "samples", (double)r->n);
		cJSON_AddNumberToObject(e, "mean", r->n > 0 ? mean_of(r) : 0);
		cJSON_AddNumberToObject(e, "max", r->max);
		cJSON_AddNumberToObject(e, "peer_median", r->peer_median);
		if (scored(r)) {
			cJSON_AddNumberToObject(e, "score", round(r->score * 100) / 100);
			cJSON_AddNumberToObject(e, "windows_judged", r->judged);
			cJSON_AddNumberToObject(e, "windows_out", r->out);
		}
		if (self_scored(r))
			self_json(e, an, r);
		cJSON_AddBoolToObject(e, "suspect", suspect(r));
		cJSON_AddItemToArray(list, e);
	}
	return o;
}

static const char *rule_text(void)
{
	static char t[240];
	snprintf(t, sizeof(t),
		 "a node is a suspect when its median z against its peers, or against its own first windows, is "
		 "at least %.0f over at least %d windows judged, or when it made wrong values",
		 GL_SUSPECT_Z, GL_SUSPECT_WINDOWS);
	return t;
}

/* ---- a failed run's bisection (analysis.h bisect) ------------------------------------------- */

static const char *bi_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static double bi_num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The bisection's paragraph, as text (escaped by the caller). */
static void bi_intro(const cJSON *bi, char *out, size_t n)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(bi, "link");
	const char *cul = bi_str(bi, "culprit");
	char link[256] = "";

	if (cJSON_GetArraySize(l) == 2 && cJSON_IsString(cJSON_GetArrayItem(l, 0)) &&
	    cJSON_IsString(cJSON_GetArrayItem(l, 1)))
		snprintf(link, sizeof(link), "%s<->%s", cJSON_GetArrayItem(l, 0)->valuestring,
			 cJSON_GetArrayItem(l, 1)->valuestring);

	snprintf(out, n,
		 "The steady %s targets failed (%s): all-reduce jobs over halves of its hosts, one rank each, a job "
		 "bad when it fails or its median busbw is below %g GB/s. %s %s (%s).",
		 bi_str(bi, "workload"), bi_str(bi, "trigger"), bi_num(bi, "min_busbw_gbps"),
		 cul[0]    ? "Culprit:"
		 : link[0] ? "Link:"
			   : "Outcome:",
		 cul[0]    ? cul
		 : link[0] ? link
			   : bi_str(bi, "outcome"),
		 bi_str(bi, "detail"));
}

#define BI_CELLS 6
static const char *const bi_heads[BI_CELLS] = { "job", "hosts", "busbw (GB/s)", "steps", "seconds", "judged" };

/* One job's row as text cells (escaped by the caller); 1 when it was bad. */
static int bi_cells(const cJSON *job, int k, char cells[BI_CELLS][1024])
{
	int bad = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(job, "bad")), at = 0;
	const cJSON *h;

	snprintf(cells[0], sizeof(cells[0]), "%d", k);
	cells[1][0] = '\0';
	cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(job, "hosts"))
	{
		if (cJSON_IsString(h) && at < (int)sizeof(cells[1]) - 1)
			at += snprintf(cells[1] + at, sizeof(cells[1]) - (size_t)at, "%s%s", at ? "," : "",
				       h->valuestring);
	}
	if (bi_num(job, "busbw_gbps") >= 0)
		snprintf(cells[2], sizeof(cells[2]), "%.4g", bi_num(job, "busbw_gbps"));
	else
		snprintf(cells[2], sizeof(cells[2]), "-");
	snprintf(cells[3], sizeof(cells[3]), "%.0f", bi_num(job, "steps"));
	snprintf(cells[4], sizeof(cells[4]), "%.1f", bi_num(job, "seconds"));
	snprintf(cells[5], sizeof(cells[5]), "%s%s", bad ? "bad: " : "good", bad ? bi_str(job, "why") : "");
	return bad;
}

static void bisect_md(const cJSON *bi, struct gl_buf *b)
{
	char text[2048], cells[BI_CELLS][1024];
	const cJSON *j;
	int k = 0;

	bi_intro(bi, text, sizeof(text));
	gl_buf_printf(b, "\n### Bisection\n\n");
	gl_md_text(b, text);
	gl_buf_printf(b, "\n\n|");
	for (int c = 0; c < BI_CELLS; c++)
		gl_buf_printf(b, " %s |", bi_heads[c]);
	gl_buf_printf(b, "\n|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach(j, cJSON_GetObjectItemCaseSensitive(bi, "jobs"))
	{
		bi_cells(j, ++k, cells);
		gl_buf_printf(b, "|");
		for (int c = 0; c < BI_CELLS; c++) {
			gl_buf_printf(b, " ");
			gl_md_text(b, cells[c]);
			gl_buf_printf(b, " |");
		}
		gl_buf_printf(b, "\n");
	}
}

static void bisect_html(struct out *o, const cJSON *bi)
{
	char text[2048], cells[BI_CELLS][1024];
	const cJSON *j;
	int k = 0;

	bi_intro(bi, text, sizeof(text));
	put(o, "<h3>Bisection</h3>\n<p>");
	esc(o, text);
	put(o, "</p>\n<table><thead><tr>");
	for (int c = 0; c < BI_CELLS; c++)
		putf(o, "<th>%s</th>", bi_heads[c]);
	put(o, "</tr></thead><tbody>\n");
	cJSON_ArrayForEach(j, cJSON_GetObjectItemCaseSensitive(bi, "jobs"))
	{
		put(o, bi_cells(j, ++k, cells) ? "<tr class=\"bad\">" : "<tr>");
		for (int c = 0; c < BI_CELLS; c++) {
			put(o, "<td>");
			esc(o, cells[c]);
			put(o, "</td>");
		}
		put(o, "</tr>\n");
	}
	put(o, "</tbody></table>\n");
}

void gl_report_nodes_md(const struct gl_analysis *an, struct gl_buf *b)
{
	if (an->n_nodes == 0 && !an->bisect && !an->sweep)
		return;
	gl_buf_printf(b, "\n## Nodes\n\n%d suspect(s) (%s)", an->n_suspects, rule_text());
	if (an->sc->suspects_max >= 0)
		gl_buf_printf(b, "; at most %d allowed: %s", an->sc->suspects_max,
			      an->suspects_failed ? "FAIL" : "pass");
	gl_buf_printf(b, ".\n\n");
	if (an->n_suspects) {
		gl_buf_printf(b, "| kind | name | host | workload | score | windows | evidence |\n"
				 "|---|---|---|---|---|---|---|\n");
		for (int i = 0; i < an->n_suspects; i++) {
			const struct gl_suspect *s = &an->suspects[i];
			gl_buf_printf(b, "| %s | ", s->kind);
			gl_md_text(b, s->name);
			gl_buf_printf(b, " | ");
			gl_md_text(b, s->host);
			gl_buf_printf(b, " | %s | %.1f | %d | ", s->workload, s->score, s->windows);
			gl_md_text(b, s->evidence);
			gl_buf_printf(b, " |\n");
		}
		gl_buf_printf(b, "\n");
	}
	gl_buf_printf(
		b,
		"| workload | kind | name | host | figure | mean | max | peers' median | score | out of "
		"judged | self score (out of later) | suspect |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < an->n_nodes; i++) {
		const struct gl_node_result *r = &an->nodes[i];
		char self[64];
		self_cell(an, r, self, sizeof(self));
		gl_buf_printf(b, "| %s | %s | ", r->workload, r->kind);
		gl_md_text(b, r->name);
		gl_buf_printf(b, " | ");
		gl_md_text(b, r->host);
		gl_buf_printf(b, " | %s%s%s | %.4g | %.4g | %.4g | ", r->def ? r->def->label : r->figure,
			      r->def ? " " : "", r->def ? r->def->unit : "", mean_of(r), r->max, r->peer_median);
		if (scored(r))
			gl_buf_printf(b, "%.1f | %d of %d | %s | %s |\n", r->score, r->out, r->judged, self,
				      suspect(r) ? "**yes**" : "no");
		else
			gl_buf_printf(b, "- | - | - | %s |\n", suspect(r) ? "**yes**" : "no");
	}
	gl_report_sweep_md(an, b);
	if (an->bisect)
		bisect_md(an->bisect, b);
}

/* a z as a cell's colour: white at 0 and below, red from GL_SUSPECT_Z on */
static void heat_colour(char *buf, size_t n, float z)
{
	double t;

	if (isnan(z)) {
		snprintf(buf, n, "#eeeeee");
		return;
	}
	/* pale green (judged, at or below its peers) to red (z at the
	 * suspect threshold and above): a judged cell is never page white */
	t = z <= 0 ? 0 : z >= GL_SUSPECT_Z ? 1 : z / GL_SUSPECT_Z;
	snprintf(buf, n, "#%02x%02x%02x", (int)(220 + 35 * t), (int)(239 - 184 * t), (int)(220 - 165 * t));
}

static int cmp_heat(const void *a, const void *b)
{
	const struct gl_node_result *x = *(const struct gl_node_result *const *)a;
	const struct gl_node_result *y = *(const struct gl_node_result *const *)b;

	if (suspect(x) != suspect(y))
		return suspect(y) - suspect(x);
	return x->score > y->score ? -1 : x->score < y->score;
}

/* One heatmap: the rows of results [i, j) (one workload, kind, figure),
 * suspects first, then by score, at most HEAT_ROWS. */
static void heatmap(struct out *o, const struct gl_analysis *an, int i, int j)
{
	const struct gl_node_result *row[HEAT_ROWS], **all = malloc((size_t)(j - i) * sizeof(*all));
	int n = 0, cell = 8, label = 150, h = 12;

	if (!all)
		return;
	for (int k = i; k < j; k++)
		all[k - i] = &an->nodes[k];
	qsort(all, (size_t)(j - i), sizeof(*all), cmp_heat);
	for (; n < j - i && n < HEAT_ROWS; n++)
		row[n] = all[n];
	free(all);
	putf(o, "<svg class=\"heat\" role=\"img\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">",
	     label + cell * GL_NODE_HEAT_COLS, h * n + 14, label + cell * GL_NODE_HEAT_COLS, h * n + 14);
	for (int r = 0; r < n; r++) {
		const struct gl_node_result *x = row[r];
		put(o, "<text x=\"0\" y=\"");
		putf(o, "%d\" font-size=\"10\">", h * r + 10);
		esc(o, x->name);
		if (strcmp(x->host, "-") && strcmp(x->host, x->name)) {
			put(o, " @ ");
			esc(o, x->host);
		}
		put(o, "</text>");
		for (int c = 0; c < GL_NODE_HEAT_COLS; c++) {
			char col[8];
			heat_colour(col, sizeof(col), x->heat[c]);
			putf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", label + cell * c,
			     h * r, cell, h - 1, col);
		}
	}
	putf(o, "<text x=\"%d\" y=\"%d\" font-size=\"10\">run start</text>", label, h * n + 12);
	putf(o, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">end</text>",
	     label + cell * GL_NODE_HEAT_COLS, h * n + 12);
	put(o, "</svg>\n");
	if (j - i > n)
		putf(o, "<p>%d more node(s) in report.json (nodes.list).</p>\n", j - i - n);
}

void gl_rhtml_nodes(struct out *o, const struct gl_analysis *an)
{
	if (an->n_nodes == 0 && !an->bisect && !an->sweep) { /* the banner's link still leads here */
		put(o, "<section id=\"nodes\"><h2>Nodes</h2>\n<p>No per-node figures: no workload of this run records "
		       "any.</p></section>\n");
		return;
	}
	putf(o, "<section id=\"nodes\"><h2>Nodes</h2>\n<p>%d suspect(s): %s", an->n_suspects, rule_text());
	if (an->sc->suspects_max >= 0)
		putf(o, "; at most %d allowed: <b>%s</b>", an->sc->suspects_max, an->suspects_failed ? "FAIL" : "pass");
	put(o, ".</p>\n");
	if (an->n_suspects) {
		put(o, "<table><thead><tr><th>kind</th><th>name</th><th>host</th><th>workload</th><th>score</th>"
		       "<th>windows</th><th>evidence</th></tr></thead><tbody>\n");
		for (int i = 0; i < an->n_suspects; i++) {
			const struct gl_suspect *s = &an->suspects[i];
			putf(o, "<tr class=\"bad\"><td>%s</td><td>", s->kind);
			esc(o, s->name);
			put(o, "</td><td>");
			esc(o, s->host);
			putf(o, "</td><td>%s</td><td>%.1f</td><td>%d</td><td>", s->workload, s->score, s->windows);
			esc(o, s->evidence);
			put(o, "</td></tr>\n");
		}
		put(o, "</tbody></table>\n");
	}
	for (int i = 0, j; i < an->n_nodes; i = j) {
		const struct gl_node_result *g = &an->nodes[i];
		for (j = i + 1; j < an->n_nodes && !strcmp(an->nodes[j].workload, g->workload) &&
				!strcmp(an->nodes[j].kind, g->kind) && !strcmp(an->nodes[j].figure, g->figure);
		     j++)
			;
		putf(o, "<h3>%s: %s per %s", g->workload, g->def ? g->def->label : g->figure, g->kind);
		if (g->def)
			putf(o, " (%s)", g->def->unit);
		put(o, "</h3>\n<table><thead><tr><th>name</th><th>host</th><th>mean</th><th>max</th><th>samples</th>"
		       "<th>peers' median</th><th>score</th><th>out of judged</th><th>self score (out of later)</th>"
		       "</tr></thead><tbody>\n");
		for (int pass = 1; pass >= 0; pass--)
			for (int k = i; k < j; k++) {
				const struct gl_node_result *r = &an->nodes[k];
				char self[64];
				if (suspect(r) != pass)
					continue;
				self_cell(an, r, self, sizeof(self));
				putf(o, "<tr%s><td>", suspect(r) ? " class=\"bad\"" : "");
				esc(o, r->name);
				put(o, "</td><td>");
				esc(o, r->host);
				putf(o, "</td><td>%.4g</td><td>%.4g</td><td>%" PRId64 "</td><td>%.4g</td>", mean_of(r),
				     r->max, r->n, r->peer_median);
				if (scored(r))
					putf(o, "<td>%.1f</td><td>%d of %d</td><td>%s</td></tr>\n", r->score, r->out,
					     r->judged, self);
				else
					put(o, "<td>-</td><td>-</td><td>-</td></tr>\n");
			}
		put(o, "</tbody></table>\n");
		if (scored(g) && !g->def->zero_expected)
			heatmap(o, an, i, j);
	}
	gl_rhtml_sweep(o, an);
	if (an->bisect)
		bisect_html(o, an->bisect);
	put(o, "</section>\n");
}
