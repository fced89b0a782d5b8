/*
 * figures.h - what a workload declares about its figures (struct
 * gl_workload_ops.figures): the metrics it records, which the catalogue
 * lists (catalog.c), and the rows the reports show of them: the summary
 * tables of report.md and report.html (reports/summary.c), report.json's
 * metrics.<workload> (reports/report_json.c), the charts' series
 * (reports/series.c) and `gauntlet status`. The catalogue and the reports
 * walk the registered workloads and read these tables, so none of them
 * names a workload.
 */
#ifndef GL_FIGURES_H
#define GL_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "catalog.h"

struct gl_agg;
struct gl_analysis;

/* A row of a summary table or a key of report.json. A list of rows ends
 * with a zero row ({ 0 }). The GL_ROW_* macros below write them. */
enum gl_row_kind {
	GL_RK_NONE,
	GL_RK_COUNT, /* a counter's total ("n/a", null: never touched) */
	GL_RK_EVAL, /* a target-style name by gl_agg_eval ("x.p99", a ratio, a rate) */
	GL_RK_DIST, /* report.json: a histogram's p50 ... p99.9, min, max, mean, count */
	GL_RK_CLASSES, /* every counter under the prefix metric ("x.errors."): the summary
			   * a row "<label>: <class>" for each one above 0, report.json an
			   * object (key label) of them all by class */
	GL_RK_CATALOG, /* every histogram and counter the catalogue has of the workload:
			   * the summary p50 and max, or the count; report.json DIST or COUNT,
			   * keyed by the metric's name */
	GL_RK_OBJECT, /* report.json: the rows up to the matching END in an object (key label) */
	GL_RK_IF, /* report.json: the rows up to the matching END only when the counter
			   * metric was touched */
	GL_RK_END,
	GL_RK_EXTRA, /* what no kind covers: the figures' summary_extra or json_extra hook */
};

struct gl_report_row {
	enum gl_row_kind kind;
	const char *label; /* summary: the row's label; report.json: the key */
	const char *metric;
	double divisor; /* report.json COUNT: the total divided by it (0: as it is) */
};

#define GL_ROW_COUNT(l, m)                                   \
	{                                                    \
		.kind = GL_RK_COUNT, .label = l, .metric = m \
	}
#define GL_ROW_COUNT_DIV(l, m, d)                                          \
	{                                                                  \
		.kind = GL_RK_COUNT, .label = l, .metric = m, .divisor = d \
	}
#define GL_ROW_EVAL(l, m)                                   \
	{                                                   \
		.kind = GL_RK_EVAL, .label = l, .metric = m \
	}
#define GL_ROW_DIST(l, m)                                   \
	{                                                   \
		.kind = GL_RK_DIST, .label = l, .metric = m \
	}
#define GL_ROW_CLASSES(l, m)                                   \
	{                                                      \
		.kind = GL_RK_CLASSES, .label = l, .metric = m \
	}
#define GL_ROW_CATALOG                \
	{                             \
		.kind = GL_RK_CATALOG \
	}
#define GL_ROW_OBJECT(l)                         \
	{                                        \
		.kind = GL_RK_OBJECT, .label = l \
	}
#define GL_ROW_IF(m)                          \
	{                                     \
		.kind = GL_RK_IF, .metric = m \
	}
#define GL_ROW_END                \
	{                         \
		.kind = GL_RK_END \
	}
#define GL_ROW_EXTRA                \
	{                           \
		.kind = GL_RK_EXTRA \
	}

/* A series of report.html's charts and timeseries.csv's columns, shown
 * when the workload is present and, with key, when its section has key. */
struct gl_series_row {
	const char *metric; /* NULL ends the list */
	const char *key;
};

/* A figure of `gauntlet status`'s last window: pre, the value, post. */
struct gl_status_row {
	const char *metric; /* NULL ends the list */
	const char *pre, *post;
};

/* Where the harness's own groups stand among the workloads', which come
 * in the registry's order: before the first workload ranked above
 * (GL_REGISTER_WORKLOAD), the catalogue's agents metrics (after the
 * telemetry workload's, 40) and report.json's metrics.agents (after the
 * inference workload's, 10). Recovery metrics end the catalogue. */
#define GL_RANK_CATALOG_AGENTS 45
#define GL_RANK_JSON_AGENTS 15

/* A figure the workload records per node (gl_ctx_node, docs/nodes.md),
 * scored against the same figure of the node's peers. A list ends with
 * one whose kind is NULL. */
struct gl_node_figure_def {
	const char *kind; /* GL_NODE_KINDS: "endpoint", "rank", ... */
	const char *figure; /* its name in the store, [a-z_]+ */
	const char *label, *unit; /* how the reports name it */
	int higher_better;
	/* the spread a deviation is measured in is at least min_scale (the
	 * figure's unit) and rel_scale of the peers' median */
	double min_scale, rel_scale;
	int64_t min_n; /* samples a node needs in a window to be judged there */
	int zero_expected; /* any sample above 0 is a fault in itself (corruption) */
	const char *max_note; /* zero_expected: the evidence names the largest sample so ("code") */
	int per_agent; /* the controller also rolls it up per load agent */
	int shown_only; /* evidence beside the others, not scored itself */
};

struct gl_workload_figures {
	/* its metrics, in the catalogue's order; ends with one whose name is NULL */
	const struct gl_metric_def *metrics;
	/* (optional) its summary table: heading and rows; NULL: no table */
	const char *title;
	const struct gl_report_row *summary;
	/* (optional) report.json's metrics.<workload> */
	const struct gl_report_row *json;
	/* (optional) the series its charts show, in chart order */
	const struct gl_series_row *series;
	/* (optional) `gauntlet status`'s figures of its last window */
	const struct gl_status_row *status;
	/* (optional) the figures it records per node, scored (docs/nodes.md) */
	const struct gl_node_figure_def *nodes;
	/* (optional) the summary table's note under its heading (none: leave
	 * note empty); note holds n bytes */
	void (*summary_note)(const struct gl_analysis *an, char *note, size_t n);
	/* (optional) the summary's EXTRA rows: row(arg, label, value) each */
	void (*summary_extra)(const struct gl_analysis *an,
			      void (*row)(void *arg, const char *label, const char *value), void *arg);
	/* (optional) report.json's EXTRA keys into o, for aggregate a of an
	 * (an->all, a phase's, a scope's) */
	void (*json_extra)(cJSON *o, const struct gl_analysis *an, const struct gl_agg *a);
};

#endif
