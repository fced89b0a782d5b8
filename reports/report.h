/*
 * report.h - rendering a run's reports from its store alone: report.json
 * (its contract in docs/metrics.md), report.md and manifest.json. Called at
 * the end of a run and by `gauntlet report DIR` at any time, also for a run
 * that is still going or was killed.
 */
#ifndef GL_REPORT_H
#define GL_REPORT_H

#include <cjson/cJSON.h>

#include "analysis.h"
#include "escape.h"
#include "store.h"
#include "util.h"

/* Analyze the store and write every report into dir (atomically each). */
int gl_report_write(const char *dir, struct gl_store *st, struct gl_err *err);
/* From an analysis already made (`gauntlet simulate`): report.json only;
 * every report but report.pdf. */
int gl_report_write_json(const char *dir, struct gl_store *st, struct gl_analysis *an, struct gl_err *err);
int gl_report_write_sim(const char *dir, struct gl_store *st, struct gl_analysis *an, struct gl_err *err);

/* report.pdf from dir/report.html by headless Chromium (report_pdf.c):
 * GL_PDF_WRITTEN, GL_PDF_SKIPPED (GAUNTLET_PDF=off, or no browser it may
 * trust) or -1 (the browser failed or ran out of time); msg says which, in
 * one line for the log. gl_report_write calls it last and logs msg; a PDF
 * not written never fails the other reports. date_wall_ns: the PDF's
 * creation and modification date (the run's end), so the same report
 * prints to the same bytes (gl_pdf_fix_dates). */
enum { GL_PDF_WRITTEN = 0, GL_PDF_SKIPPED = 1 };
int gl_report_pdf(const char *dir, int64_t date_wall_ns, char *msg, size_t n);

/* The PDF at path rewritten in place (pdf_dates.c): /CreationDate and
 * /ModDate of its document information dictionary set to date_wall_ns in
 * UTC, and the trailer's /ID, when it has one, to the SHA-256 of the file
 * so fixed; each at its old length, so no byte offset moves. 0, or -1 with
 * why (a PDF in a shape that cannot be rewritten so: a cross-reference
 * stream, a date in a form of another length). */
int gl_pdf_fix_dates(const char *path, int64_t date_wall_ns, char *why, size_t n);

/* The report.json document (caller deletes). */
cJSON *gl_report_json(const struct gl_analysis *an);
/* The per-workload summary tables of report.md and report.html
 * (summary.c): section() opens a table (id "inference", "training",
 * "storage", "telemetry"; note NULL or a sentence to show under it), row()
 * adds a figure to it, its value formatted ("n/a": not measured). */
struct gl_summary_ops {
	void (*section)(void *arg, const char *id, const char *title, const char *note);
	void (*row)(void *arg, const char *label, const char *value);
};
void gl_report_summary(const struct gl_analysis *an, const struct gl_summary_ops *ops, void *arg);

/* What report.md and report.html say about a fault's dead-man's switch
 * beside its outcome ("" when nothing to say): reverted by its watcher,
 * watcher lost, or none. */
const char *gl_report_deadman_note(const struct gl_fault_row *f, char *buf, size_t n);
/* What report.md and report.html say beside a fault's held time ("" when
 * nothing): LONGER when a controller outage kept it in past its plan, or
 * when it ended itself, by its own record (a flap loop's end, its
 * dead-man's switch's revert), and where that fell. */
const char *gl_report_held_note(const struct gl_analysis *an, const struct gl_fault_result *f, char *buf, size_t n);
/* The load generator's saturation for the summaries (docs/metrics.md,
 * "Client saturation"): "" when no window was saturated, else what was
 * left unjudged and the load agents the load needs. */
const char *gl_report_saturation_note(const struct gl_analysis *an, char *buf, size_t n);
/* After fault f, the TTFT of conversations already going (docs/metrics.md,
 * "Sessions after a fault"), for the faults' notes: "" when the run had
 * none. */
const char *gl_report_sessions_note(const struct gl_fault_result *f, char *buf, size_t n);
/* A drift target's cells in report.md and report.html (docs/metrics.md,
 * "Drift"): the requirement ("drift/day <= 2%"), and what was measured
 * ("3.1%/day (95 %: 2.5 to 3.8), level 41.2 at the start, 40 windows"; "-"
 * without a fit). */
void gl_report_drift_cells(const struct gl_target_result *t, char *req, size_t nr, char *meas, size_t nm);
/* The faults outage k (index into outages[]) found in force, and what each
 * did meanwhile: "ID: ended by itself 3.012 s into it; ID2: in force
 * throughout" ("" none). */
const char *gl_report_outage_faults(const struct gl_analysis *an, int k, char *buf, size_t n);
/* The per-node part (report_nodes.c, docs/nodes.md): report.json's
 * "suspects" array and "nodes" object, report.md's Nodes section appended
 * to out. */
cJSON *gl_report_suspects_json(const struct gl_analysis *an);
cJSON *gl_report_nodes_json(const struct gl_analysis *an);
void gl_report_nodes_md(const struct gl_analysis *an, struct gl_buf *out);
/* the node sweep's part of it (report_sweep.c), nothing without one */
void gl_report_sweep_md(const struct gl_analysis *an, struct gl_buf *out);
/* Edge phases (report_edge.c, docs/scenario.md "Edge phases"):
 * report.json's "edge" (null without an edge phase), report.md's SLA
 * edge section appended to out. */
cJSON *gl_report_edge_json(const struct gl_analysis *an);
void gl_report_edge_md(const struct gl_analysis *an, struct gl_buf *out);
/* report.json's "incidents" object. */
cJSON *gl_report_incidents_json(const struct gl_analysis *an);
/* report.md text into out. */
int gl_report_md(const struct gl_analysis *an, struct gl_buf *out);
/* junit.xml text into out: one test case per target (report_junit.c). */
int gl_report_junit(const struct gl_analysis *an, struct gl_buf *out);

/* The gates' part of each report (report_gates.c, docs/gates.md):
 * report.json's "gates" array, report.md's and report.html's Gates
 * section appended to out, junit.xml's test cases (one per gate, host and
 * when) appended to out; the html and junit ones return 0 or -GL_ELIMIT. */
cJSON *gl_report_gates_json(const struct gl_analysis *an);
void gl_report_gates_md(const struct gl_analysis *an, struct gl_buf *out);
int gl_report_gates_html(const struct gl_analysis *an, struct gl_buf *out);
int gl_report_gates_junit(const struct gl_analysis *an, struct gl_buf *out);

#endif
