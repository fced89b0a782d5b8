/*
 * storage_figures.c - the storage workload's metrics and the rows the
 * reports show of them (figures.h), with what only storage has: the
 * slowest steady window's read and write rates (analysis.c) and the cold
 * start requirement ("N readers each load X within Y") they are held to.
 */
#include <math.h>
#include <stdio.h>

#include "analysis.h"
#include "figures.h"
#include "storage_int.h"
#include "storage_schema.h"

static const struct gl_metric_def metrics[] = {
	GL_METRIC_RATE("storage.write_gbps", "storage", "storage.write_bytes", 1e-9, 0, "GB/s",
		       "bytes written / 1e9 / s"),
	GL_METRIC_RATE("storage.read_gbps", "storage", "storage.read_bytes", 1e-9, 0, "GB/s", "bytes read / 1e9 / s"),
	GL_METRIC_COUNTER("storage.write_bytes", "storage", 0, "bytes", "bytes written"),
	GL_METRIC_COUNTER("storage.read_bytes", "storage", 0, "bytes", "bytes read"),
	GL_METRIC_COUNTER("storage.errors", "storage", 1, "ops", "failed I/O operations"),
	GL_METRIC_HIST("storage.op_latency_ms", "storage", 1, "ms", "latency of one I/O operation"),
	GL_METRIC_HIST("storage.fsync_ms", "storage", 1, "ms", "fsync of a whole written file"),
	GL_METRIC_COUNTER("storage.verified_bytes", "storage", 0, "bytes", "bytes read back and found as written"),
	{ 0 },
};

static const struct gl_report_row summary[] = {
	GL_ROW_EVAL("read GB/s (whole run)", "storage.read_gbps"),
	GL_ROW_EVAL("write GB/s (whole run)", "storage.write_gbps"),
	GL_ROW_EXTRA,
	GL_ROW_COUNT("bytes read", "storage.read_bytes"),
	GL_ROW_COUNT("bytes written", "storage.write_bytes"),
	GL_ROW_COUNT("bytes verified on read-back", "storage.verified_bytes"),
	GL_ROW_EVAL("op latency ms p99", "storage.op_latency_ms.p99"),
	GL_ROW_EVAL("fsync ms p99", "storage.fsync_ms.p99"),
	GL_ROW_COUNT("errors", "storage.errors"),
	GL_ROW_CLASSES("errors", "storage.errors."),
	{ 0 },
};

static const struct gl_report_row json[] = {
	GL_ROW_EVAL("read_gbps", "storage.read_gbps"),
	GL_ROW_EVAL("write_gbps", "storage.write_gbps"),
	GL_ROW_COUNT("read_bytes", "storage.read_bytes"),
	GL_ROW_COUNT("write_bytes", "storage.write_bytes"),
	GL_ROW_COUNT("errors", "storage.errors"),
	GL_ROW_DIST("op_latency_ms", "storage.op_latency_ms"),
	GL_ROW_DIST("fsync_ms", "storage.fsync_ms"),
	GL_ROW_COUNT("verified_bytes", "storage.verified_bytes"),
	GL_ROW_CLASSES("errors_by_class", "storage.errors."),
	GL_ROW_EXTRA,
	{ 0 },
};

static const struct gl_series_row series[] = {
	{ "storage.read_gbps", NULL },
	{ "storage.write_gbps", NULL },
	{ 0 },
};

static const struct gl_status_row status[] = {
	{ "storage.read_gbps", "read ", " GB/s" },
	{ "storage.write_gbps", "write ", " GB/s" },
	{ 0 },
};

/* The scenario's cold start requirement: 1 and *c when it has one. */
static int cold_start(const struct gl_analysis *an, struct gl_cold_start *c)
{
	const struct gl_workload_spec *ws = gl_scenario_workload(an->sc, "storage");
	const cJSON *cs = ws ? cJSON_GetObjectItemCaseSensitive(ws->cfg, "cold_start") : NULL;

	return cs && gl_cold_start_parse(cs, c) == 0;
}

static void num(char *buf, size_t n, int has, double v)
{
	if (!has || !isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.6g", v);
}

static void summary_note(const struct gl_analysis *an, char *note, size_t n)
{
	struct gl_cold_start cold;
	double m = 0;
	int has;
	char mm[64], fl[64];

	if (!cold_start(an, &cold))
		return;
	has = gl_agg_eval(an->scope[GL_SCOPE_STEADY], "storage.read_gbps", &m) == 0;
	num(mm, sizeof(mm), has, m);
	num(fl, sizeof(fl), an->has_read_floor, an->read_floor_gbps);
	snprintf(note, n,
		 "Cold start: %d reader(s) x %.3g GB within %.3g s needs %.3f GB/s of "
		 "reads; measured %s GB/s over the steady windows, %s GB/s in the slowest one (%s).",
		 cold.readers, cold.bytes_each / 1e9, cold.within_ns / 1e9, cold.required_gbps, mm, fl,
		 !an->has_read_floor                         ? "no data: FAIL"
		 : an->read_floor_gbps >= cold.required_gbps ? "meets it"
							     : "FAILS it");
}

static void summary_extra(const struct gl_analysis *an, void (*row)(void *arg, const char *label, const char *value),
			  void *arg)
{
	char v[64];

	num(v, sizeof(v), an->has_read_floor, an->read_floor_gbps);
	row(arg, "read GB/s, slowest steady window", v);
	num(v, sizeof(v), an->has_write_floor, an->write_floor_gbps);
	row(arg, "write GB/s, slowest steady window", v);
}

static void add_num(cJSON *o, const char *key, int has, double v)
{
	if (has && isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* "N readers each load X within Y": the aggregate read rate it needs,
 * what the steady windows measured, and the slowest of them. */
static void add_cold_start(cJSON *o, const struct gl_analysis *an)
{
	struct gl_cold_start c;
	double measured = 0;
	int has;
	cJSON *x;

	if (!cold_start(an, &c))
		return;
	x = cJSON_AddObjectToObject(o, "cold_start");
	cJSON_AddNumberToObject(x, "readers", c.readers);
	cJSON_AddNumberToObject(x, "bytes_each", (double)c.bytes_each);
	cJSON_AddNumberToObject(x, "within_s", (double)c.within_ns / 1e9);
	cJSON_AddNumberToObject(x, "required_gbps", c.required_gbps);
	has = gl_agg_eval(an->scope[GL_SCOPE_STEADY], "storage.read_gbps", &measured) == 0;
	add_num(x, "measured_gbps", has, measured);
	add_num(x, "floor_gbps", an->has_read_floor, an->read_floor_gbps);
	add_num(x, "load_s_at_floor", an->has_read_floor && an->read_floor_gbps > 0,
		an->read_floor_gbps > 0 ? (double)c.readers * (double)c.bytes_each / 1e9 / an->read_floor_gbps : 0);
	if (an->has_read_floor)
		cJSON_AddBoolToObject(x, "pass", an->read_floor_gbps >= c.required_gbps);
	else
		cJSON_AddNullToObject(x, "pass");
}

/* Of the whole run only: the slowest steady windows and the cold start. */
static void json_extra(cJSON *o, const struct gl_analysis *an, const struct gl_agg *a)
{
	if (a != an->all)
		return;
	add_num(o, "read_floor_gbps", an->has_read_floor, an->read_floor_gbps);
	add_num(o, "write_floor_gbps", an->has_write_floor, an->write_floor_gbps);
	add_cold_start(o, an);
}

/* Per host (the host the I/O ran on): its write and read rates in the
 * window, one sample a window (higher is better), and the mean time of
 * one operation. A host is judged from 10 % of its peers' median rate
 * (1 MB/s at least), or 0.5 ms of op time: docs/nodes.md has the floors
 * and why. HOST_RATE is one of the rates. */
#define HOST_RATE(fig, lab)                                                                                      \
	{                                                                                                        \
		.kind = "host", .figure = fig, .label = lab, .unit = "MB/s", .higher_better = 1, .min_scale = 1, \
		.rel_scale = 0.10, .min_n = 1                                                                    \
	}

static const struct gl_node_figure_def nodes[] = {
	HOST_RATE("write_mbps", "write rate"),
	HOST_RATE("read_mbps", "read rate"),
	{ .kind = "host",
	  .figure = "op_ms",
	  .label = "op time",
	  .unit = "ms",
	  .min_scale = 0.5,
	  .rel_scale = 0.10,
	  .min_n = 4 },
	{ 0 },
};

const struct gl_workload_figures gl_storage_figures = {
	.nodes = nodes,
	.metrics = metrics,
	.title = "Storage",
	.summary = summary,
	.json = json,
	.series = series,
	.status = status,
	.summary_note = summary_note,
	.summary_extra = summary_extra,
	.json_extra = json_extra,
};
