/*
 * null_figures.c - the null workload's metrics, which measure the
 * controller itself, and the rows the reports show of them (figures.h).
 */
#include "figures.h"

/* tick_lag_ms's noise floor (gauntlet compare) is its own: the controller's
 * event loop timing itself, the scheduling of the host gauntlet runs on,
 * not the system under test. On a shared host it moves by milliseconds
 * between identical runs (measured beside compiles: p50 56 and 74 us side
 * by side, p = 0.0004; p99 3.8 and 9.9 ms a minute apart); 10 ms is a
 * fifth of null-soak's 50 ms target. */
static const struct gl_metric_def metrics[] = {
	GL_METRIC_HIST("null.tick_lag_ms", "null", 1, "ms", "actual - scheduled time of the null workload's ticks",
		       .noise_floor = 10),
	GL_METRIC_COUNTER("null.ticks", "null", 0, "ticks", "ticks of the null workload"),
	{ 0 },
};

static const struct gl_report_row json[] = {
	GL_ROW_COUNT("ticks", "null.ticks"),
	GL_ROW_DIST("tick_lag_ms", "null.tick_lag_ms"),
	{ 0 },
};

static const struct gl_series_row series[] = {
	{ "null.tick_lag_ms.p99", NULL },
	{ 0 },
};

static const struct gl_status_row status[] = {
	{ "null.ticks", "", " ticks" },
	{ 0 },
};

const struct gl_workload_figures gl_null_figures = {
	.metrics = metrics,
	.json = json,
	.series = series,
	.status = status,
};
