/*
 * report_html_int.h - what the files of report.html share, private to them
 * (the report is gl_report_html, report.h). Who owns what:
 *   report_html.c         the document: its head (style, Content-Security-
 *                         Policy), the verdict banner, targets, sign-off,
 *                         and the order of the sections
 *   report_html_charts.c  the charts, one per series
 *   report_html_tables.c  the tables after them, timeline to metric
 *                         definitions
 * The small writers below are inline so that every file calls them by the
 * same short names.
 */
#ifndef GL_REPORT_HTML_INT_H
#define GL_REPORT_HTML_INT_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report.h"
#include "series.h"
#include "units.h"

/* The writer: every append goes through here; the first failure sticks
 * and later appends are skipped, so callers check once at the end. */
struct out {
	struct gl_buf *b;
	int rc;
	int in_table; /* a summary table is open */
};

/* fmt with ap appended (putf's work). */
__attribute__((format(printf, 2, 0))) void gl_rhtml_vputf(struct out *o, const char *fmt, va_list ap);

static inline void put(struct out *o, const char *s)
{
	if (o->rc == 0)
		o->rc = gl_buf_append(o->b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static inline void putf(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gl_rhtml_vputf(o, fmt, ap);
	va_end(ap);
}

/* s as HTML text or an attribute value (gl_html_text). */
static inline void esc(struct out *o, const char *s)
{
	if (o->rc == 0)
		o->rc = gl_html_text(o->b, s);
}

static inline void fmt_num(char *buf, size_t n, int has, double v)
{
	if (!has || !isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.6g", v);
}

/* Scenario time as a duration: "1h30m", "45s", "6m12.5s" (rounded to the
 * millisecond under an hour, to the second above). */
static inline void fmt_scn(char *buf, size_t n, double ns)
{
	int64_t unit = fabs(ns) >= 3600e9 ? 1000000000LL : 1000000LL;

	if (!isfinite(ns)) {
		snprintf(buf, n, "n/a");
		return;
	}
	gl_format_duration((int64_t)llround(ns / (double)unit) * unit, buf, n);
}

/* A comparison as HTML text. */
static inline const char *op_html(enum gl_cmp op)
{
	switch (op) {
	case GL_CMP_LE: return "&le;";
	case GL_CMP_LT: return "&lt;";
	case GL_CMP_GE: return "&ge;";
	case GL_CMP_GT: return "&gt;";
	case GL_CMP_EQ: return "==";
	case GL_CMP_NE: return "!=";
	}
	return "?";
}

static inline const char *verdict_word(enum gl_verdict v)
{
	return v == GL_VERDICT_PASS ? "PASS" : v == GL_VERDICT_ABORTED ? "ABORTED" : "FAIL";
}

/* A row of a two-column facts table. */
static inline void fact(struct out *o, const char *key, const char *val)
{
	put(o, "<tr><th>");
	esc(o, key);
	put(o, "</th><td>");
	esc(o, val);
	put(o, "</td></tr>\n");
}

/* The sections, in the order gl_report_html writes them. */
void gl_rhtml_charts(struct out *o, const struct gl_analysis *an, const struct gl_series_set *ss);
void gl_rhtml_timeline_table(struct out *o, const struct gl_analysis *an);
void gl_rhtml_faults_table(struct out *o, const struct gl_analysis *an);
void gl_rhtml_incidents_table(struct out *o, const struct gl_analysis *an);
void gl_rhtml_outages_table(struct out *o, const struct gl_analysis *an);
void gl_rhtml_summaries(struct out *o, const struct gl_analysis *an);
void gl_rhtml_phases_table(struct out *o, const struct gl_analysis *an, const struct gl_series_set *ss);
void gl_rhtml_preflight_table(struct out *o, const struct gl_analysis *an);
void gl_rhtml_gates_table(struct out *o, const struct gl_analysis *an);
void gl_rhtml_run_table(struct out *o, const struct gl_analysis *an);
void gl_rhtml_manifest_table(struct out *o, const cJSON *manifest);
void gl_rhtml_definitions(struct out *o);

/* report_nodes.c: the Nodes section (suspects, per-node tables, heatmaps) */
void gl_rhtml_nodes(struct out *o, const struct gl_analysis *an);
void gl_rhtml_sweep(struct out *o, const struct gl_analysis *an);
/* report_edge.c: the SLA edge section (nothing without an edge phase) */
void gl_rhtml_edge(struct out *o, const struct gl_analysis *an);

#endif
