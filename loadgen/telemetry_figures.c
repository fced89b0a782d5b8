/*
 * telemetry_figures.c - the telemetry probes' metrics (loadgen/telemetry.c,
 * docs/telemetry.md) and the rows the reports show of them (figures.h):
 * every series, in the summary as p50 and max over every reading (gauges)
 * or its increases over the run (counters).
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

const struct gl_workload_figures gl_telemetry_figures = {
	.metrics = metrics,
	.title = "Telemetry",
	.summary = every_series,
	.json = every_series,
};
