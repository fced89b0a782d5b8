/*
 * inference_figures.c - the inference workload's metrics (docs/metrics.md,
 * "Inference") and the rows the reports show of them (figures.h).
 */
#include "figures.h"
#include "inference_int.h"

/* send_lag_ms is the load generator's own health, not the system's:
 * gauntlet compare leaves it out. goodput is judged there on its mean. */
static const struct gl_metric_def metrics[] = {
	GL_METRIC_HIST("inference.ttft_ms", "inference", 1, "ms",
		       "first token - intended send (open loop); - actual send (closed loop)"),
	GL_METRIC_HIST("inference.ttft_from_send_ms", "inference", 1, "ms", "first token - actual send"),
	GL_METRIC_HIST("inference.itl_ms", "inference", 1, "ms", "gap between consecutive content events"),
	GL_METRIC_HIST("inference.tpot_ms", "inference", 1, "ms", "(last token - first token) / (output tokens - 1)"),
	GL_METRIC_HIST("inference.latency_ms", "inference", 1, "ms", "end - intended send"),
	GL_METRIC_HIST("inference.send_lag_ms", "inference", 1, "ms", "actual send - intended send", .not_compared = 1),
	GL_METRIC_HIST("inference.output_tokens", "inference", 0, "tokens", "output tokens per successful request"),
	GL_METRIC_COUNTER("inference.requests", "inference", 0, "requests", "requests finished (ok or errored)"),
	GL_METRIC_COUNTER("inference.errors", "inference", 1, "requests",
			  "requests finished with an error of any class"),
	GL_METRIC_COUNTER("inference.cut_at_end", "inference", 0, "requests",
			  "requests in flight when the workload stopped: no outcome, neither finished nor errored"),
	GL_METRIC_COUNTER("inference.edge_cancelled", "inference", 0, "requests",
			  "an edge phase's probe requests cancelled at its end or past the SLO: judged by the probe, "
			  "neither finished nor errored"),
	GL_METRIC_RATIO("inference.error_rate", "inference", "inference.errors", "inference.requests", 1, "ratio",
			"errored / finished"),
	GL_METRIC_RATE("inference.throughput_rps", "inference", "inference.requests", 1, 0, "req/s",
		       "finished requests per second"),
	GL_METRIC_RATE("inference.output_tokens_per_s", "inference", "inference.output_tokens_total", 1, 0, "tokens/s",
		       "output tokens per second"),
	GL_METRIC_COUNTER("inference.output_tokens_total", "inference", 0, "tokens",
			  "output tokens of successful requests"),
	GL_METRIC_COUNTER("inference.prompt_tokens", "inference", 0, "tokens",
			  "prompt tokens of successful requests (usage.prompt_tokens, else the count sent)"),
	GL_METRIC_COUNTER("inference.cache_queried_tokens", "inference", 0, "tokens",
			  "prompt tokens of successful requests whose server reported cached tokens"),
	GL_METRIC_COUNTER("inference.cached_tokens", "inference", 0, "tokens",
			  "prompt tokens the server's prefix cache held (usage.prompt_tokens_details.cached_tokens)"),
	GL_METRIC_RATIO("inference.prefix_hit_ratio", "inference", "inference.cached_tokens",
			"inference.cache_queried_tokens", 0, "ratio",
			"cached / prompt tokens of the requests whose server reported cached tokens"),
	GL_METRIC_COUNTER("inference.sessions", "inference", 0, "conversations",
			  "multi-turn conversations started (\"sessions\")"),
	GL_METRIC_HIST("inference.ttft_first_turn_ms", "inference", 1, "ms",
		       "ttft_ms of the first turns of conversations (\"sessions\")"),
	GL_METRIC_HIST("inference.ttft_later_turn_ms", "inference", 1, "ms",
		       "ttft_ms of the later turns of conversations: their history a shared prefix"),
	GL_METRIC_COUNTER("inference.good", "inference", 0, "requests",
			  "requests that succeeded within the workload's \"slo\""),
	GL_METRIC_RATIO("inference.goodput", "inference", "inference.good", "inference.requests", 0, "ratio",
			"requests within the SLO / finished (errors are misses)", .mean_tolerance = "goodput"),
	/* the client's headroom (inference_headroom.c): the generator's own
	 * health, left out of compare like send_lag_ms */
	GL_METRIC_HIST("inference.client_busy_pct", "inference", 1, "%",
		       "CPU time of the client's loop thread / the window's wall time, one value per window",
		       .not_compared = 1),
	GL_METRIC_HIST("inference.client_runq_pct", "inference", 1, "%",
		       "time the client's loop thread waited for a CPU / the window's wall time (not judged)",
		       .not_compared = 1),
	GL_METRIC_HIST("inference.dispatch_lag_peak_ms", "inference", 1, "ms",
		       "the window's largest dispatch lag (arrival handled - intended), one value per window",
		       .not_compared = 1),
	GL_METRIC_COUNTER("inference.arrivals_held", "inference", 1, "arrivals",
			  "arrivals that waited for an in-flight slot (max_in_flight)", .not_compared = 1),
	GL_METRIC_COUNTER("inference.client_saturated", "inference", 1, "windows",
			  "windows whose client had no headroom (judged by no target)", .not_compared = 1),
	GL_METRIC_HIST("inference.agents_needed", "inference", 1, "agents",
		       "load agents the load needs, recorded in each saturated window", .not_compared = 1),
	GL_METRIC_COUNTER("inference.adapter_requests", "inference", 0, "requests",
			  "requests naming one of the workload's adapters (LoRA)"),
	GL_METRIC_COUNTER("inference.adapter_errors", "inference", 1, "requests",
			  "adapter requests finished with an error of any class"),
	GL_METRIC_RATIO("inference.adapter_error_rate", "inference", "inference.adapter_errors",
			"inference.adapter_requests", 1, "ratio", "adapter requests errored / finished"),
	{ 0 },
};

static const struct gl_report_row summary[] = {
	GL_ROW_COUNT("requests", "inference.requests"),
	GL_ROW_COUNT("errors", "inference.errors"),
	GL_ROW_EVAL("error rate", "inference.error_rate"),
	GL_ROW_EVAL("goodput (within the SLO)", "inference.goodput"),
	GL_ROW_CLASSES("errors", "inference.errors."),
	GL_ROW_EVAL("throughput req/s", "inference.throughput_rps"),
	GL_ROW_EVAL("output tokens/s", "inference.output_tokens_per_s"),
	GL_ROW_COUNT("client-saturated windows (not judged)", "inference.client_saturated"),
	GL_ROW_EVAL("client busy % (busiest window)", "inference.client_busy_pct.max"),
	GL_ROW_EVAL("prefix cache hit ratio", "inference.prefix_hit_ratio"),
	GL_ROW_EVAL("TTFT ms p50", "inference.ttft_ms.p50"),
	GL_ROW_EVAL("TTFT ms p95", "inference.ttft_ms.p95"),
	GL_ROW_EVAL("TTFT ms p99", "inference.ttft_ms.p99"),
	GL_ROW_EVAL("TTFT from send ms p99", "inference.ttft_from_send_ms.p99"),
	GL_ROW_EVAL("ITL ms p50", "inference.itl_ms.p50"),
	GL_ROW_EVAL("ITL ms p99", "inference.itl_ms.p99"),
	GL_ROW_EVAL("TPOT ms p50", "inference.tpot_ms.p50"),
	GL_ROW_EVAL("TPOT ms p99", "inference.tpot_ms.p99"),
	GL_ROW_EVAL("latency ms p50", "inference.latency_ms.p50"),
	GL_ROW_EVAL("latency ms p99", "inference.latency_ms.p99"),
	GL_ROW_EVAL("send lag ms p99", "inference.send_lag_ms.p99"),
	{ 0 },
};

static const struct gl_report_row json[] = {
	GL_ROW_COUNT("requests", "inference.requests"),
	GL_ROW_COUNT("errors", "inference.errors"),
	GL_ROW_EVAL("error_rate", "inference.error_rate"),
	GL_ROW_CLASSES("errors_by_class", "inference.errors."),
	GL_ROW_EVAL("throughput_rps", "inference.throughput_rps"),
	GL_ROW_EVAL("output_tokens_per_s", "inference.output_tokens_per_s"),
	/* only with "slo": the share of finished requests within it */
	GL_ROW_IF("inference.good"),
	GL_ROW_COUNT("good", "inference.good"),
	GL_ROW_EVAL("goodput", "inference.goodput"),
	GL_ROW_END,
	/* the prompt tokens of successful requests; the cache's figures only
	 * when a server reported cached tokens */
	GL_ROW_IF("inference.prompt_tokens"),
	GL_ROW_COUNT("prompt_tokens", "inference.prompt_tokens"),
	GL_ROW_END,
	GL_ROW_IF("inference.cache_queried_tokens"),
	GL_ROW_COUNT("cache_queried_tokens", "inference.cache_queried_tokens"),
	GL_ROW_COUNT("cached_tokens", "inference.cached_tokens"),
	GL_ROW_EVAL("prefix_hit_ratio", "inference.prefix_hit_ratio"),
	GL_ROW_END,
	/* only with "sessions": the conversations, and TTFT by turn */
	GL_ROW_IF("inference.sessions"),
	GL_ROW_COUNT("sessions", "inference.sessions"),
	GL_ROW_DIST("ttft_first_turn_ms", "inference.ttft_first_turn_ms"),
	GL_ROW_DIST("ttft_later_turn_ms", "inference.ttft_later_turn_ms"),
	GL_ROW_END,
	/* only with "adapters": the requests naming one, and their errors */
	GL_ROW_IF("inference.adapter_requests"),
	GL_ROW_COUNT("adapter_requests", "inference.adapter_requests"),
	GL_ROW_COUNT("adapter_errors", "inference.adapter_errors"),
	GL_ROW_END,
	GL_ROW_DIST("ttft_ms", "inference.ttft_ms"),
	GL_ROW_DIST("ttft_from_send_ms", "inference.ttft_from_send_ms"),
	GL_ROW_DIST("itl_ms", "inference.itl_ms"),
	GL_ROW_DIST("tpot_ms", "inference.tpot_ms"),
	GL_ROW_DIST("latency_ms", "inference.latency_ms"),
	GL_ROW_DIST("send_lag_ms", "inference.send_lag_ms"),
	GL_ROW_COUNT("client_saturated", "inference.client_saturated"),
	GL_ROW_DIST("client_busy_pct", "inference.client_busy_pct"),
	GL_ROW_DIST("dispatch_lag_peak_ms", "inference.dispatch_lag_peak_ms"),
	{ 0 },
};

static const struct gl_series_row series[] = {
	{ "inference.ttft_ms.p50", NULL },
	{ "inference.ttft_ms.p99", NULL },
	{ "inference.error_rate", NULL },
	{ "inference.goodput", "slo" },
	{ "inference.throughput_rps", NULL },
	{ "inference.ttft_first_turn_ms.p50", "sessions" },
	{ "inference.ttft_later_turn_ms.p50", "sessions" },
	{ "inference.prefix_hit_ratio", "sessions" },
	{ 0 },
};

static const struct gl_status_row status[] = {
	{ "inference.throughput_rps", "", " req/s" }, { "inference.ttft_ms.p50", "TTFT p50 ", " ms" },
	{ "inference.ttft_ms.p99", "p99 ", " ms" },   { "inference.error_rate", "error rate ", "" },
	{ "inference.goodput", "goodput ", "" },      { 0 },
};

/* Per endpoint (and, with agents, per agent): the mean TTFT of its
 * successes and its share of failed requests. A replica 10 % slower than
 * the median of its peers is within the spread; 3 requests a window at
 * least. */
static const struct gl_node_figure_def nodes[] = {
	{ .kind = "endpoint",
	  .figure = "ttft_ms",
	  .label = "TTFT",
	  .unit = "ms",
	  .min_scale = 2,
	  .rel_scale = 0.05,
	  .min_n = 3,
	  .per_agent = 1 },
	{ .kind = "endpoint",
	  .figure = "errors",
	  .label = "errors",
	  .unit = "share",
	  .min_scale = 0.02,
	  .min_n = 3,
	  .per_agent = 1 },
	{ 0 },
};

const struct gl_workload_figures gl_inference_figures = {
	.nodes = nodes,
	.metrics = metrics,
	.title = "Inference",
	.summary = summary,
	.json = json,
	.series = series,
	.status = status,
};
