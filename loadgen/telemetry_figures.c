/*
 * telemetry_figures.c - the telemetry probes' metrics (loadgen/telemetry.c,
 * docs/telemetry.md) and the rows the reports show of them (figures.h):
 * every series, in the summary as p50 and max over every reading (gauges)
 * or its increases over the run (counters); per GPU (docs/nodes.md) its
 * temperature and SM clock, scored against the other GPUs, and its XIDs
 * and double-bit ECC errors, any of which makes it a suspect.
 */
#include "figures.h"

/* Gauges keep every reading of every GPU; ".delta" counters are increases
 * seen between scrapes, summed over the windows judged. */
static const struct gl_metric_def metrics[] = {
	GL_METRIC_HIST("dcgm.gpu_temp", "telemetry", 1, "C",
		       "GPU temperature, every GPU every scrape (DCGM_FI_DEV_GPU_TEMP)"),
	GL_METRIC_HIST("dcgm.power_w", "telemetry", 1, "W",
		       "GPU power draw, every GPU every scrape (DCGM_FI_DEV_POWER_USAGE)"),
	GL_METRIC_HIST("dcgm.gpu_util", "telemetry", 0, "%",
		       "GPU utilization, every GPU every scrape (DCGM_FI_DEV_GPU_UTIL)"),
	GL_METRIC_HIST("dcgm.sm_clock", "telemetry", 0, "MHz",
		       "SM clock, every GPU every scrape (DCGM_FI_DEV_SM_CLOCK)"),
	GL_METRIC_COUNTER("dcgm.xid_errors.delta", "telemetry", 1, "xid",
			  "changes of the last XID seen, as counter increases (DCGM_FI_DEV_XID_ERRORS)"),
	GL_METRIC_COUNTER("dcgm.ecc_sbe.delta", "telemetry", 1, "errors",
			  "new single-bit ECC errors (DCGM_FI_DEV_ECC_SBE_VOL_TOTAL)"),
	GL_METRIC_COUNTER("dcgm.ecc_dbe.delta", "telemetry", 1, "errors",
			  "new double-bit ECC errors (DCGM_FI_DEV_ECC_DBE_VOL_TOTAL)"),
	GL_METRIC_COUNTER("dcgm.pcie_replays.delta", "telemetry", 1, "replays",
			  "new PCIe replays (DCGM_FI_DEV_PCIE_REPLAY_COUNTER)"),
	GL_METRIC_COUNTER("dcgm.nvlink_crc.delta", "telemetry", 1, "errors",
			  "new NVLink CRC flit errors (DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL)"),
	GL_METRIC_HIST("node.load1", "telemetry", 1, "load",
		       "1-minute load average, every host every scrape (node_load1)"),
	GL_METRIC_COUNTER("node.edac_ce.delta", "telemetry", 1, "errors",
			  "new correctable memory errors (node_edac_correctable_errors_total)"),
	GL_METRIC_COUNTER("node.edac_ue.delta", "telemetry", 1, "errors",
			  "new uncorrectable memory errors (node_edac_uncorrectable_errors_total)"),
	GL_METRIC_COUNTER("telemetry.scrapes", "telemetry", 0, "scrapes", "probe scrapes that answered and parsed"),
	GL_METRIC_COUNTER("telemetry.scrape_errors", "telemetry", 1, "scrapes",
			  "probe scrapes that failed (connect, timeout, HTTP status, size, parse)"),
	GL_METRIC_COUNTER("telemetry.missing", "telemetry", 1, "readings",
			  "readings of kept series that were DCGM blanks, NaN, infinite or negative"),
	GL_METRIC_HIST("telemetry.scrape_ms", "telemetry", 1, "ms", "time to scrape every probe once"),
	{ 0 },
};

static const struct gl_report_row every_series[] = {
	GL_ROW_CATALOG,
	{ 0 },
};

/* Per GPU (telemetry_nodes.c): its readings' mean in each window against
 * the other GPUs' (one scrape a window is enough: the score is the median
 * over the windows), and the faults no peer needs to show. The floors
 * (docs/nodes.md): healthy GPUs under one load sit within a few degrees
 * and a few tens of MHz of each other. */
static const struct gl_node_figure_def nodes[] = {
	{ .kind = "gpu",
	  .figure = "temp_c",
	  .label = "GPU temperature",
	  .unit = "C",
	  .min_scale = 2,
	  .rel_scale = 0.05,
	  .min_n = 1 },
	{ .kind = "gpu",
	  .figure = "sm_clock_mhz",
	  .label = "SM clock",
	  .unit = "MHz",
	  .higher_better = 1,
	  .min_scale = 50,
	  .rel_scale = 0.05,
	  .min_n = 1 },
	{ .kind = "gpu", .figure = "xid", .label = "XIDs", .unit = "change(s)", .zero_expected = 1, .max_note = "code" },
	{ .kind = "gpu", .figure = "ecc_dbe", .label = "double-bit ECC errors", .unit = "errors", .zero_expected = 1 },
	{ 0 },
};

const struct gl_workload_figures gl_telemetry_figures = {
	.nodes = nodes,
	.metrics = metrics,
	.title = "Telemetry",
	.summary = every_series,
	.json = every_series,
};
