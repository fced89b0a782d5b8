/*
 * training_figures.c - the training workload's metrics and the rows the
 * reports show of them (figures.h).
 */
#include "figures.h"
#include "training_int.h"

static const struct gl_metric_def metrics[] = {
	GL_METRIC_HIST("training.step_time_s", "training", 1, "s", "wall time of one training step"),
	GL_METRIC_HIST("training.comm_time_s", "training", 1, "s", "all-reduce time of one step"),
	GL_METRIC_HIST("training.data_time_s", "training", 1, "s", "data-load time of one step"),
	GL_METRIC_HIST("training.busbw_gbps", "training", 0, "GB/s", "algbw x 2(n-1)/n for all-reduce"),
	GL_METRIC_COUNTER("training.steps", "training", 0, "steps", "training steps completed"),
	GL_METRIC_COUNTER("training.correctness_errors", "training", 1, "errors",
			  "reduced values that did not match exactly"),
	GL_METRIC_COUNTER("training.lost_steps", "training", 1, "steps", "steps redone after a restore"),
	GL_METRIC_COUNTER("training.checkpoint.saves", "training", 0, "saves", "checkpoints committed"),
	GL_METRIC_COUNTER("training.checkpoint.restores", "training", 0, "restores", "restores from checkpoint"),
	GL_METRIC_HIST("training.checkpoint.save_s", "training", 1, "s", "checkpoint save time, max over ranks"),
	GL_METRIC_HIST("training.checkpoint.save_gbps", "training", 0, "GB/s",
		       "checkpoint save bandwidth, min over ranks"),
	GL_METRIC_HIST("training.checkpoint.restore_s", "training", 1, "s", "relaunch to first step after loading",
		       .recovery_target = 1),
	GL_METRIC_COUNTER(
		"training.productive_us", "training", 0, "us",
		"step time of the steps that counted: each step's time, less the time of steps lost to a restore"),
	GL_METRIC_RATE("training.ettr", "training", "training.productive_us", 1e-6, 0, "ratio",
		       "effective training time ratio: productive step time / wall time of the windows",
		       .mean_tolerance = "ettr"),
	GL_METRIC_COUNTER("training.hangs", "training", 1, "hangs",
			  "jobs ended by the watchdog: no step within its deadline"),
	GL_METRIC_COUNTER("training.relaunches", "training", 1, "launches", "relaunches after the job ended early"),
	GL_METRIC_COUNTER("training.job_failures", "training", 1, "launches",
			  "launches that ended early (exit code, signal, watchdog), counted when the end is seen"),
	{ 0 },
};

static const struct gl_report_row summary[] = {
	GL_ROW_COUNT("steps", "training.steps"),
	GL_ROW_EVAL("ETTR (productive / wall time)", "training.ettr"),
	GL_ROW_EVAL("step_time_s p50", "training.step_time_s.p50"),
	GL_ROW_EVAL("step_time_s p95", "training.step_time_s.p95"),
	GL_ROW_EVAL("comm_time_s p50", "training.comm_time_s.p50"),
	GL_ROW_EVAL("busbw_gbps p50", "training.busbw_gbps.p50"),
	GL_ROW_COUNT("correctness errors", "training.correctness_errors"),
	GL_ROW_COUNT("checkpoint saves", "training.checkpoint.saves"),
	GL_ROW_EVAL("checkpoint save_s max (max over ranks)", "training.checkpoint.save_s.max"),
	GL_ROW_EVAL("checkpoint save_gbps min (min over ranks)", "training.checkpoint.save_gbps.min"),
	GL_ROW_COUNT("restores", "training.checkpoint.restores"),
	GL_ROW_EVAL("restore_s max (relaunch to first step)", "training.checkpoint.restore_s.max"),
	GL_ROW_COUNT("lost steps", "training.lost_steps"),
	GL_ROW_COUNT("job ends seen early (exit, signal, watchdog)", "training.job_failures"),
	GL_ROW_COUNT("relaunches", "training.relaunches"),
	GL_ROW_COUNT("hangs (watchdog)", "training.hangs"),
	{ 0 },
};

static const struct gl_report_row json[] = {
	GL_ROW_COUNT("steps", "training.steps"),
	GL_ROW_DIST("step_time_s", "training.step_time_s"),
	GL_ROW_DIST("comm_time_s", "training.comm_time_s"),
	GL_ROW_DIST("data_time_s", "training.data_time_s"),
	GL_ROW_DIST("busbw_gbps", "training.busbw_gbps"),
	GL_ROW_COUNT("correctness_errors", "training.correctness_errors"),
	GL_ROW_COUNT("hangs", "training.hangs"),
	GL_ROW_COUNT("relaunches", "training.relaunches"),
	/* productive step time / wall time (null for nccl-tests runs) */
	GL_ROW_EVAL("ettr", "training.ettr"),
	GL_ROW_COUNT_DIV("productive_s", "training.productive_us", 1e6),
	GL_ROW_OBJECT("checkpoint"),
	GL_ROW_COUNT("saves", "training.checkpoint.saves"),
	GL_ROW_EVAL("save_s_max", "training.checkpoint.save_s.max"),
	GL_ROW_EVAL("save_gbps_min", "training.checkpoint.save_gbps.min"),
	GL_ROW_COUNT("restores", "training.checkpoint.restores"),
	GL_ROW_EVAL("restore_s_max", "training.checkpoint.restore_s.max"),
	GL_ROW_COUNT("lost_steps", "training.lost_steps"),
	GL_ROW_END,
	{ 0 },
};

static const struct gl_series_row series[] = {
	{ "training.step_time_s.p50", NULL },
	{ "training.step_time_s.p95", NULL },
	{ "training.busbw_gbps.p50", NULL },
	{ "training.ettr", NULL },
	{ 0 },
};

static const struct gl_status_row status[] = {
	{ "training.step_time_s.p50", "step time p50 ", " s" },
	{ "training.step_time_s.p99", "p99 ", " s" },
	{ "training.busbw_gbps.p50", "busbw p50 ", " GB/s" },
	{ 0 },
};

/* Per rank: its own work per step (data + compute), the figure a
 * straggler stands out in; its wait in the all-reduce, shown beside it (a
 * straggler waits least); values its own part got wrong; checked steps
 * at which its compute canary answered wrong. */
static const struct gl_node_figure_def nodes[] = {
	{ .kind = "rank",
	  .figure = "compute_ms",
	  .label = "compute per step",
	  .unit = "ms",
	  .min_scale = 0.5,
	  .rel_scale = 0.05,
	  .min_n = 2 },
	{ .kind = "rank", .figure = "wait_ms", .label = "wait per step", .unit = "ms", .shown_only = 1 },
	{ .kind = "rank", .figure = "corrupt", .label = "wrong values", .unit = "values", .zero_expected = 1 },
	{ .kind = "rank", .figure = "canary", .label = "wrong canary answers", .unit = "steps", .zero_expected = 1 },
	{ 0 },
};

const struct gl_workload_figures gl_training_figures = {
	.nodes = nodes,
	.metrics = metrics,
	.title = "Training",
	.summary = summary,
	.json = json,
	.series = series,
	.status = status,
};
