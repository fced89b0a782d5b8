/*
 * report_gates.c - the gates' part of every report (docs/gates.md):
 * report.json's "gates" array, report.md's and report.html's Gates
 * section, junit.xml's test case per gate, host and when. Kept apart from
 * the report writers, which call one function each.
 *
 * A dcgm_diag gate's rows (entity x test) are shown as a matrix: a row per
 * test, a column per GPU (and "all" for results that name no GPU), each
 * cell pass, warn, FAIL or skip; then every row that did not pass, with
 * DCGM's words. What the host printed is text from outside: escaped for
 * each format, control characters dropped.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_dcgm.h"

#define MX_COLS 64
#define MX_TESTS 256

/* a dcgm gate's rows as test x entity */
struct matrix {
	int ids[MX_COLS]; /* -1: "all" */
	int n_ids;
	const char *tests[MX_TESTS];
	int n_tests;
	signed char cell[MX_TESTS][MX_COLS]; /* status, -1 none */
	int cut;
};

static int col_of(struct matrix *m, int id)
{
	int i;
	for (i = 0; i < m->n_ids; i++)
		if (m->ids[i] == id)
			return i;
	if (m->n_ids == MX_COLS)
		return -1;
	/* sorted, "all" first */
	for (i = m->n_ids; i > 0 && m->ids[i - 1] > id; i--) {
		m->ids[i] = m->ids[i - 1];
		for (int t = 0; t < MX_TESTS; t++)
			m->cell[t][i] = m->cell[t][i - 1];
	}
	m->ids[i] = id;
	for (int t = 0; t < MX_TESTS; t++)
		m->cell[t][i] = -1;
	m->n_ids++;
	return i;
}

static void matrix_build(struct matrix *m, const cJSON *rows)
{
	const cJSON *r;
	memset(m, 0, sizeof(*m));
	memset(m->cell, -1, sizeof(m->cell));
	cJSON_ArrayForEach(r, rows)
	{
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "test");
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "id");
		int s = gl_gate_status_parse(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "status")));
		int ti, ci;
		if (!cJSON_IsString(t) || s < 0)
			continue;
		for (ti = 0; ti < m->n_tests && strcmp(m->tests[ti], t->valuestring); ti++)
			;
		if (ti == m->n_tests) {
			if (m->n_tests == MX_TESTS) {
				m->cut = 1;
				continue;
			}
			m->tests[m->n_tests++] = t->valuestring;
		}
		ci = col_of(m, cJSON_IsNumber(id) ? (int)id->valuedouble : -1);
		if (ci < 0) {
			m->cut = 1;
			continue;
		}
		/* iterations: the worst of them */
		if (m->cell[ti][ci] < s)
			m->cell[ti][ci] = (signed char)s;
	}
}

/* g's rows parsed (*rows, the caller deletes) and laid out; NULL when
 * there are none or memory ran out */
static struct matrix *matrix_of(const struct gl_gate_result *g, cJSON **rows)
{
	struct matrix *m;

	*rows = cJSON_Parse(g->results);
	m = *rows ? malloc(sizeof(*m)) : NULL;
	if (m)
		matrix_build(m, *rows);
	return m;
}

/* every row that did not pass and says why: "- " ... "\n" (md) or
 * "<li>" ... "</li>\n" (html), text through esc */
static void problems(struct gl_buf *b, const cJSON *rows, const char *open, const char *close,
		     int (*esc)(struct gl_buf *, const char *))
{
	const cJSON *r;

	cJSON_ArrayForEach(r, rows)
	{
		const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "status"));
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "id");
		const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "detail"));
		if (!s || !strcmp(s, "pass") || !d || !d[0])
			continue;
		gl_buf_printf(b, "%s%s, ", open, !strcmp(s, "fail") ? "FAIL" : s);
		if (cJSON_IsNumber(id))
			gl_buf_printf(b, "GPU %d, ", (int)id->valuedouble);
		else
			gl_buf_printf(b, "all GPUs, ");
		esc(b, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "test")));
		gl_buf_printf(b, ": ");
		esc(b, d);
		gl_buf_printf(b, "%s", close);
	}
}

static const char *cell_word(int s)
{
	return s < 0 ? "-" : s == GL_GATE_FAIL ? "FAIL" : gl_gate_status_name(s);
}

/* ---- report.json ------------------------------------------------------------ */

cJSON *gl_report_gates_json(const struct gl_analysis *an)
{
	cJSON *arr = cJSON_CreateArray();

	for (int i = 0; arr && i < an->n_gates; i++) {
		const struct gl_gate_result *g = &an->gates[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", g->id);
		cJSON_AddStringToObject(o, "kind", g->kind);
		cJSON_AddStringToObject(o, "host", g->host);
		cJSON_AddStringToObject(o, "when", g->when);
		cJSON_AddStringToObject(o, "status", g->status);
		cJSON_AddStringToObject(o, "reason", g->reason);
		if (g->exit_status >= 0)
			cJSON_AddNumberToObject(o, "exit_status", g->exit_status);
		else
			cJSON_AddNullToObject(o, "exit_status");
		cJSON_AddNumberToObject(o, "duration_s", g->dur_s);
		if (g->file[0])
			cJSON_AddStringToObject(o, "raw", g->file);
		else
			cJSON_AddNullToObject(o, "raw");
		if (g->results) {
			cJSON *rows = cJSON_Parse(g->results);
			cJSON_AddItemToObject(o, "results", rows ? rows : cJSON_CreateArray());
		}
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* ---- report.md ---------------------------------------------------------------- */

static void md_matrix(struct gl_buf *b, const struct gl_gate_result *g)
{
	cJSON *rows;
	struct matrix *m = matrix_of(g, &rows);

	if (!m) {
		cJSON_Delete(rows);
		return;
	}
	gl_buf_printf(b, "### ");
	gl_md_text(b, g->id);
	gl_buf_printf(b, " ");
	gl_md_text(b, g->when);
	gl_buf_printf(b, " on ");
	gl_md_text(b, g->host);
	gl_buf_printf(b, ": ");
	gl_md_text(b, g->status);
	gl_buf_printf(b, "\n\n| test |");
	for (int c = 0; c < m->n_ids; c++)
		if (m->ids[c] < 0)
			gl_buf_printf(b, " all |");
		else
			gl_buf_printf(b, " GPU %d |", m->ids[c]);
	gl_buf_printf(b, "\n|---|");
	for (int c = 0; c < m->n_ids; c++)
		gl_buf_printf(b, "---|");
	gl_buf_printf(b, "\n");
	for (int t = 0; t < m->n_tests; t++) {
		gl_buf_printf(b, "| ");
		gl_md_text(b, m->tests[t]);
		gl_buf_printf(b, " |");
		for (int c = 0; c < m->n_ids; c++)
			gl_buf_printf(b, " %s |", cell_word(m->cell[t][c]));
		gl_buf_printf(b, "\n");
	}
	if (m->cut) {
		gl_buf_printf(b, "\n(more tests or GPUs than shown: see ");
		gl_md_text(b, g->file);
		gl_buf_printf(b, ")\n");
	}
	gl_buf_printf(b, "\n");
	problems(b, rows, "- ", "\n", gl_md_text);
	gl_buf_printf(b, "\n");
	free(m);
	cJSON_Delete(rows);
}

void gl_report_gates_md(const struct gl_analysis *an, struct gl_buf *b)
{
	if (an->n_gates == 0)
		return;
	gl_buf_printf(b,
		      "## Gates%s\n\n| result | gate | kind | host | when | duration | reason | raw output |\n"
		      "|---|---|---|---|---|---|---|---|\n",
		      an->gates_failed ? ": FAILED" : "");
	for (int i = 0; i < an->n_gates; i++) {
		const struct gl_gate_result *g = &an->gates[i];
		gl_buf_printf(b, "| ");
		gl_md_text(b, !strcmp(g->status, "fail") ? "FAILED" : g->status);
		gl_buf_printf(b, " | ");
		gl_md_text(b, g->id);
		gl_buf_printf(b, " | ");
		gl_md_text(b, g->kind);
		gl_buf_printf(b, " | ");
		gl_md_text(b, g->host);
		gl_buf_printf(b, " | ");
		gl_md_text(b, g->when);
		gl_buf_printf(b, " | %.1f s | ", g->dur_s);
		gl_md_text(b, g->reason);
		gl_buf_printf(b, " | ");
		gl_md_text(b, g->file[0] ? g->file : "-");
		gl_buf_printf(b, " |\n");
	}
	gl_buf_printf(b, "\n");
	for (int i = 0; i < an->n_gates; i++)
		if (an->gates[i].results)
			md_matrix(b, &an->gates[i]);
}

/* ---- report.html -------------------------------------------------------------- */

static const char *html_class(const char *status)
{
	return !strcmp(status, "fail") ? "bad" : !strcmp(status, "warn") ? "warn" : !strcmp(status, "pass") ? "ok" : "";
}

static void html_matrix(struct gl_buf *b, const struct gl_gate_result *g)
{
	cJSON *rows;
	struct matrix *m = matrix_of(g, &rows);

	if (!m) {
		cJSON_Delete(rows);
		return;
	}
	gl_buf_printf(b, "<h3>");
	gl_html_text(b, g->id);
	gl_buf_printf(b, " %s on ", g->when);
	gl_html_text(b, g->host);
	gl_buf_printf(b, ": %s</h3>\n<table><thead><tr><th>test</th>", g->status);
	for (int c = 0; c < m->n_ids; c++)
		if (m->ids[c] < 0)
			gl_buf_printf(b, "<th>all</th>");
		else
			gl_buf_printf(b, "<th>GPU %d</th>", m->ids[c]);
	gl_buf_printf(b, "</tr></thead><tbody>\n");
	for (int t = 0; t < m->n_tests; t++) {
		gl_buf_printf(b, "<tr><td>");
		gl_html_text(b, m->tests[t]);
		gl_buf_printf(b, "</td>");
		for (int c = 0; c < m->n_ids; c++) {
			int s = m->cell[t][c];
			gl_buf_printf(b, "<td class=\"%s\">%s</td>", s < 0 ? "" : html_class(gl_gate_status_name(s)),
				      cell_word(s));
		}
		gl_buf_printf(b, "</tr>\n");
	}
	gl_buf_printf(b, "</tbody></table>\n");
	if (m->cut)
		gl_buf_printf(b, "<p>More tests or GPUs than shown: see %s.</p>\n", g->file);
	gl_buf_printf(b, "<ul>\n");
	problems(b, rows, "<li>", "</li>\n", gl_html_text);
	gl_buf_printf(b, "</ul>\n");
	free(m);
	cJSON_Delete(rows);
}

int gl_report_gates_html(const struct gl_analysis *an, struct gl_buf *b)
{
	if (an->n_gates == 0)
		return 0;
	gl_buf_printf(b,
		      "<h2 id=\"gates\">Gates (%d failed)</h2>\n<table><thead><tr><th>gate</th><th>kind</th>"
		      "<th>host</th><th>when</th><th>result</th><th>duration</th><th>reason</th><th>raw output</th>"
		      "</tr></thead><tbody>\n",
		      an->gates_failed);
	for (int i = 0; i < an->n_gates; i++) {
		const struct gl_gate_result *g = &an->gates[i];
		gl_buf_printf(b, "<tr%s><td>", !strcmp(g->status, "fail") ? " class=\"bad\"" : "");
		gl_html_text(b, g->id);
		gl_buf_printf(b, "</td><td>%s</td><td>", g->kind);
		gl_html_text(b, g->host);
		gl_buf_printf(b, "</td><td>%s</td><td class=\"%s\">%s</td><td>%.1f s</td><td>", g->when,
			      html_class(g->status), !strcmp(g->status, "fail") ? "FAILED" : g->status, g->dur_s);
		gl_html_text(b, g->reason);
		gl_buf_printf(b, "</td><td>");
		gl_html_text(b, g->file[0] ? g->file : "-");
		gl_buf_printf(b, "</td></tr>\n");
	}
	gl_buf_printf(b, "</tbody></table>\n");
	for (int i = 0; i < an->n_gates; i++)
		if (an->gates[i].results)
			html_matrix(b, &an->gates[i]);
	return b->cut ? -GL_ELIMIT : 0;
}

/* ---- junit.xml ---------------------------------------------------------------- */

int gl_report_gates_junit(const struct gl_analysis *an, struct gl_buf *b)
{
	for (int i = 0; i < an->n_gates; i++) {
		const struct gl_gate_result *g = &an->gates[i];
		gl_buf_printf(b, "    <testcase classname=\"gauntlet.gates\" name=\"");
		gl_html_text(b, g->id);
		gl_buf_printf(b, " %s on ", g->when);
		gl_html_text(b, g->host);
		gl_buf_printf(b, "\" time=\"%.3f\"", g->dur_s);
		if (!strcmp(g->status, "pass") || !strcmp(g->status, "warn")) {
			if (!g->reason[0]) {
				gl_buf_printf(b, "/>\n");
				continue;
			}
			/* a warning passes; what it said stays visible */
			gl_buf_printf(b, ">\n      <system-out>");
			gl_html_text(b, g->reason);
			gl_buf_printf(b, "</system-out>\n    </testcase>\n");
			continue;
		}
		gl_buf_printf(b, ">\n      <%s message=\"",
			      !strcmp(g->status, "skip") ? "skipped" : "failure type=\"gate\"");
		gl_html_text(b, g->reason);
		if (!strcmp(g->status, "skip")) {
			gl_buf_printf(b, "\"/>\n    </testcase>\n");
			continue;
		}
		gl_buf_printf(b, "\">");
		gl_html_text(b, g->reason);
		gl_buf_printf(b, "</failure>\n    </testcase>\n");
	}
	return b->cut ? -GL_ELIMIT : 0;
}
