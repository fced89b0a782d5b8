/*
 * report_edge.c - edge phases in the reports (docs/scenario.md, "Edge
 * phases"): report.json's "edge" (the store document "edge" as the
 * workload wrote it, each edge phase's search, with the gate's verdict),
 * and the "SLA edge" section of report.md and report.html: per edge phase
 * the edge, its bracket and precision, every probe's rate, goodput and
 * verdict, and the later phases run at a fraction of it. Read from
 * analysis.h edge; an edge phase with no search recorded is shown as not
 * measured, a failed gate.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cfg.h"
#include "report.h"
#include "report_html_int.h"

static const cJSON *item(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = item(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

cJSON *gl_report_edge_json(const struct gl_analysis *an)
{
	cJSON *o, *arr, *miss;

	if (an->edge_phases == 0)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "pass", an->edge_failed == 0);
	arr = cJSON_AddArrayToObject(o, "searches");
	miss = cJSON_AddArrayToObject(o, "not_measured");
	for (int i = 0; i < an->sc->n_phases; i++) {
		const cJSON *s;
		if (an->sc->phases[i].kind != GL_PHASE_EDGE)
			continue;
		if ((s = gl_edge_search_of(an, i))) {
			cJSON_AddItemToArray(arr, cJSON_Duplicate(s, 1));
		} else {
			cJSON *m = cJSON_CreateObject();
			cJSON_AddNumberToObject(m, "phase", i);
			cJSON_AddStringToObject(m, "phase_name", an->sc->phases[i].name);
			cJSON_AddItemToArray(miss, m);
		}
	}
	return o;
}

/* The search in a paragraph: its verdict and what it concluded (the
 * workload's sentence: the edge, its bracket and precision), then the
 * plan of its probes. */
static void search_text(const cJSON *s, char *out, size_t n)
{
	int done = gl_cfg_bool(s, "done", 0), pass = done && gl_cfg_bool(s, "pass", 0);
	char *slo = cJSON_PrintUnformatted(item(s, "slo"));

	snprintf(out, n,
		 "Phase '%s' (%s): %s: %s. The search: %.0f probe(s) of %.3g s of real time each, sending for all "
		 "but the last %.3g s; from %g/s, x%g up to %g/s until a probe fails, then bisection between the "
		 "last rate that held and the first that failed; a probe holds when its goodput (requests within "
		 "the slo %s over the probe's requests, those still unanswered at its end counting against it "
		 "once past the SLO) is %s.",
		 gl_cfg_str(s, "phase_name", "?"), gl_cfg_str(s, "workload", "?"), pass ? "PASS" : "FAIL",
		 done ? gl_cfg_str(s, "note", "") : "the search did not finish", num(s, "slots"), num(s, "slot_s"),
		 num(s, "settle_s"), num(s, "from"), num(s, "factor"), num(s, "to"), slo ? slo : "null",
		 gl_cfg_str(s, "goodput", "?"));
	cJSON_free(slo);
}

#define PROBE_COLS 10
static const char *const probe_heads[PROBE_COLS] = { "probe", "at s",   "rate req/s", "requests", "good",
						     "slow",  "errors", "late",       "goodput",  "verdict" };

/* A probe's cells, as text. */
static void probe_cells(const cJSON *p, char c[PROBE_COLS][48])
{
	const cJSON *pass = item(p, "pass");
	static const char *const counts[] = { "requests", "good", "slow", "errors", "late" };

	snprintf(c[0], 48, "%.0f", num(p, "slot") + 1);
	snprintf(c[1], 48, "%.3f", num(p, "start_s"));
	snprintf(c[2], 48, "%.4g", num(p, "rate"));
	for (int k = 0; k < 5; k++)
		snprintf(c[3 + k], 48, "%.0f", num(p, counts[k]));
	if (isnan(num(p, "goodput")))
		snprintf(c[8], 48, "n/a");
	else
		snprintf(c[8], 48, "%.4f", num(p, "goodput"));
	snprintf(c[9], 48, "%s",
		 gl_cfg_bool(p, "lost", 0) ? "lost (controller down)"
		 : cJSON_IsTrue(pass)      ? "holds"
					   : "fails");
	if (gl_cfg_bool(p, "lost", 0))
		for (int k = 2; k < 9; k++)
			snprintf(c[k], 48, "-");
}

/* The phases that ran at a fraction of it, in a sentence ("" none). */
static void fractions_text(const cJSON *s, char *out, size_t n)
{
	const cJSON *f;
	size_t len = 0;

	out[0] = '\0';
	cJSON_ArrayForEach(f, item(s, "fractions"))
	{
		int at_from = gl_cfg_bool(f, "at_from", 0);
		int w = snprintf(out + len, n - len, "%sphase '%s' ran at %s%g x the edge: %.4g req/s%s",
				 len ? "; " : "Later: ", gl_cfg_str(f, "phase_name", "?"),
				 at_from ? "(in place of) " : "", num(f, "fraction"), num(f, "rate_rps"),
				 at_from ? ", the search's \"from\", as no edge was found" : "");
		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
	}
	if (len && len + 1 < n)
		snprintf(out + len, n - len, ".");
}

static const char *missing_text(const struct gl_analysis *an, int phase, char *out, size_t n)
{
	snprintf(out, n,
		 "Phase '%s': FAIL: no edge search was recorded (the run did not reach it, or its store lost it): "
		 "a missing figure is a failed gate.",
		 an->sc->phases[phase].name);
	return out;
}

void gl_report_edge_md(const struct gl_analysis *an, struct gl_buf *b)
{
	char text[2048], c[PROBE_COLS][48];

	if (an->edge_phases == 0)
		return;
	gl_buf_printf(b, "\n## SLA edge\n\n");
	for (int i = 0; i < an->sc->n_phases; i++) {
		const cJSON *s, *p;
		if (an->sc->phases[i].kind != GL_PHASE_EDGE)
			continue;
		if (!(s = gl_edge_search_of(an, i))) {
			gl_md_text(b, missing_text(an, i, text, sizeof(text)));
			gl_buf_printf(b, "\n\n");
			continue;
		}
		search_text(s, text, sizeof(text));
		gl_md_text(b, text);
		gl_buf_printf(b, "\n\n|");
		for (int k = 0; k < PROBE_COLS; k++)
			gl_buf_printf(b, " %s |", probe_heads[k]);
		gl_buf_printf(b, "\n|");
		for (int k = 0; k < PROBE_COLS; k++)
			gl_buf_printf(b, "---|");
		gl_buf_printf(b, "\n");
		cJSON_ArrayForEach(p, item(s, "probes"))
		{
			probe_cells(p, c);
			gl_buf_printf(b, "|");
			for (int k = 0; k < PROBE_COLS; k++) {
				gl_buf_printf(b, " ");
				gl_md_text(b, c[k]);
				gl_buf_printf(b, " |");
			}
			gl_buf_printf(b, "\n");
		}
		fractions_text(s, text, sizeof(text));
		if (text[0]) {
			gl_buf_printf(b, "\n");
			gl_md_text(b, text);
			gl_buf_printf(b, "\n");
		}
		gl_buf_printf(b, "\n");
	}
}

void gl_rhtml_edge(struct out *o, const struct gl_analysis *an)
{
	char text[2048], c[PROBE_COLS][48];

	if (an->edge_phases == 0)
		return;
	put(o, "<h2 id=\"edge\">SLA edge</h2>\n");
	for (int i = 0; i < an->sc->n_phases; i++) {
		const cJSON *s, *p;
		if (an->sc->phases[i].kind != GL_PHASE_EDGE)
			continue;
		if (!(s = gl_edge_search_of(an, i))) {
			put(o, "<p class=\"warn\">");
			esc(o, missing_text(an, i, text, sizeof(text)));
			put(o, "</p>\n");
			continue;
		}
		search_text(s, text, sizeof(text));
		put(o, gl_cfg_bool(s, "pass", 0) ? "<p>" : "<p class=\"warn\">");
		esc(o, text);
		put(o, "</p>\n<table><thead><tr>");
		for (int k = 0; k < PROBE_COLS; k++)
			putf(o, "<th>%s</th>", probe_heads[k]);
		put(o, "</tr></thead><tbody>\n");
		cJSON_ArrayForEach(p, item(s, "probes"))
		{
			int holds = cJSON_IsTrue(item(p, "pass"));
			probe_cells(p, c);
			put(o, "<tr>");
			for (int k = 0; k < PROBE_COLS; k++) {
				put(o, k == PROBE_COLS - 1 ? (holds ? "<td class=\"ok\">" : "<td class=\"bad\">")
				       : k > 0             ? "<td class=\"n\">"
							   : "<td>");
				esc(o, c[k]);
				put(o, "</td>");
			}
			put(o, "</tr>\n");
		}
		put(o, "</tbody></table>\n");
		fractions_text(s, text, sizeof(text));
		if (text[0]) {
			put(o, "<p>");
			esc(o, text);
			put(o, "</p>\n");
		}
	}
}
