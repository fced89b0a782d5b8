/*
 * catalog.c - the metric table. Adding a metric here makes it valid in
 * targets, computed by analysis and listed in reports; the workload that
 * produces it records it under the same name through metrics.h.
 */
#include "catalog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H(n, w, lower, unit, help) { n, w, GL_MK_HIST, NULL, NULL, 0, lower, unit, help }
#define C(n, w, lower, unit, help) { n, w, GL_MK_COUNTER, NULL, NULL, 0, lower, unit, help }

static const struct gl_metric_def catalog[] = {
	/* inference (docs/metrics.md, "Inference") */
	H("inference.ttft_ms", "inference", 1, "ms", "first token - intended send (open loop); - actual send (closed loop)"),
	H("inference.ttft_from_send_ms", "inference", 1, "ms", "first token - actual send"),
	H("inference.itl_ms", "inference", 1, "ms", "gap between consecutive content events"),
	H("inference.tpot_ms", "inference", 1, "ms", "(last token - first token) / (output tokens - 1)"),
	H("inference.latency_ms", "inference", 1, "ms", "end - intended send"),
	H("inference.send_lag_ms", "inference", 1, "ms", "actual send - intended send"),
	H("inference.output_tokens", "inference", 0, "tokens", "output tokens per successful request"),
	C("inference.requests", "inference", 0, "requests", "requests finished (ok or errored)"),
	C("inference.errors", "inference", 1, "requests", "requests finished with an error of any class"),
	{ "inference.error_rate", "inference", GL_MK_RATIO, "inference.errors", "inference.requests", 0, 1, "ratio", "errored / finished" },
	{ "inference.throughput_rps", "inference", GL_MK_RATE, "inference.requests", NULL, 1, 0, "req/s", "finished requests per second" },
	{ "inference.output_tokens_per_s", "inference", GL_MK_RATE, "inference.output_tokens_total", NULL, 1, 0, "tokens/s", "output tokens per second" },
	C("inference.output_tokens_total", "inference", 0, "tokens", "output tokens of successful requests"),
	C("inference.good", "inference", 0, "requests", "requests that succeeded within the workload's \"slo\""),
	{ "inference.goodput", "inference", GL_MK_RATIO, "inference.good", "inference.requests", 0, 0, "ratio", "requests within the SLO / finished (errors are misses)" },
	C("inference.adapter_requests", "inference", 0, "requests", "requests naming one of the workload's adapters (LoRA)"),
	C("inference.adapter_errors", "inference", 1, "requests", "adapter requests finished with an error of any class"),
	{ "inference.adapter_error_rate", "inference", GL_MK_RATIO, "inference.adapter_errors", "inference.adapter_requests", 0, 1, "ratio", "adapter requests errored / finished" },
	/* training */
	H("training.step_time_s", "training", 1, "s", "wall time of one training step"),
	H("training.comm_time_s", "training", 1, "s", "all-reduce time of one step"),
	H("training.data_time_s", "training", 1, "s", "data-load time of one step"),
	H("training.busbw_gbps", "training", 0, "GB/s", "algbw x 2(n-1)/n for all-reduce"),
	C("training.steps", "training", 0, "steps", "training steps completed"),
	C("training.correctness_errors", "training", 1, "errors", "reduced values that did not match exactly"),
	C("training.lost_steps", "training", 1, "steps", "steps redone after a restore"),
	C("training.checkpoint.saves", "training", 0, "saves", "checkpoints committed"),
	C("training.checkpoint.restores", "training", 0, "restores", "restores from checkpoint"),
	H("training.checkpoint.save_s", "training", 1, "s", "checkpoint save time, max over ranks"),
	H("training.checkpoint.save_gbps", "training", 0, "GB/s", "checkpoint save bandwidth, min over ranks"),
	H("training.checkpoint.restore_s", "training", 1, "s", "relaunch to first step after loading"),
	C("training.productive_us", "training", 0, "us", "step time of the steps that counted: each step's time, less the time of steps lost to a restore"),
	{ "training.ettr", "training", GL_MK_RATE, "training.productive_us", NULL, 1e-6, 0, "ratio", "effective training time ratio: productive step time / wall time of the windows" },
	C("training.hangs", "training", 1, "hangs", "jobs ended by the watchdog: no step within its deadline"),
	C("training.relaunches", "training", 1, "launches", "relaunches after the job ended early"),
	C("training.job_failures", "training", 1, "launches", "launches that ended early (exit code, signal, watchdog), counted when the end is seen"),
	/* storage */
	{ "storage.write_gbps", "storage", GL_MK_RATE, "storage.write_bytes", NULL, 1e-9, 0, "GB/s", "bytes written / 1e9 / s" },
	{ "storage.read_gbps", "storage", GL_MK_RATE, "storage.read_bytes", NULL, 1e-9, 0, "GB/s", "bytes read / 1e9 / s" },
	C("storage.write_bytes", "storage", 0, "bytes", "bytes written"),
	C("storage.read_bytes", "storage", 0, "bytes", "bytes read"),
	C("storage.errors", "storage", 1, "ops", "failed I/O operations"),
	H("storage.op_latency_ms", "storage", 1, "ms", "latency of one I/O operation"),
	H("storage.fsync_ms", "storage", 1, "ms", "fsync of a whole written file"),
	C("storage.verified_bytes", "storage", 0, "bytes", "bytes read back and found as written"),
	/* telemetry probes (loadgen/telemetry.c, docs/telemetry.md): gauges keep
	 * every reading of every GPU; ".delta" counters are increases seen
	 * between scrapes, summed over the windows judged. */
	H("dcgm.gpu_temp", "telemetry", 1, "C", "GPU temperature, every GPU every scrape (DCGM_FI_DEV_GPU_TEMP)"),
	H("dcgm.power_w", "telemetry", 1, "W", "GPU power draw, every GPU every scrape (DCGM_FI_DEV_POWER_USAGE)"),
	H("dcgm.gpu_util", "telemetry", 0, "%", "GPU utilization, every GPU every scrape (DCGM_FI_DEV_GPU_UTIL)"),
	C("dcgm.xid_errors.delta", "telemetry", 1, "xid", "changes of the last XID seen, as counter increases (DCGM_FI_DEV_XID_ERRORS)"),
	C("dcgm.ecc_sbe.delta", "telemetry", 1, "errors", "new single-bit ECC errors (DCGM_FI_DEV_ECC_SBE_VOL_TOTAL)"),
	C("dcgm.ecc_dbe.delta", "telemetry", 1, "errors", "new double-bit ECC errors (DCGM_FI_DEV_ECC_DBE_VOL_TOTAL)"),
	C("dcgm.pcie_replays.delta", "telemetry", 1, "replays", "new PCIe replays (DCGM_FI_DEV_PCIE_REPLAY_COUNTER)"),
	C("dcgm.nvlink_crc.delta", "telemetry", 1, "errors", "new NVLink CRC flit errors (DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL)"),
	H("node.load1", "telemetry", 1, "load", "1-minute load average, every host every scrape (node_load1)"),
	C("node.edac_ce.delta", "telemetry", 1, "errors", "new correctable memory errors (node_edac_correctable_errors_total)"),
	C("node.edac_ue.delta", "telemetry", 1, "errors", "new uncorrectable memory errors (node_edac_uncorrectable_errors_total)"),
	C("telemetry.scrapes", "telemetry", 0, "scrapes", "probe scrapes that answered and parsed"),
	C("telemetry.scrape_errors", "telemetry", 1, "scrapes", "probe scrapes that failed (connect, timeout, HTTP status, size, parse)"),
	C("telemetry.missing", "telemetry", 1, "readings", "readings of kept series that were DCGM blanks, NaN, infinite or negative"),
	H("telemetry.scrape_ms", "telemetry", 1, "ms", "time to scrape every probe once"),
	/* null plug-ins: measure the controller itself */
	/* load agents (docs/agents.md): counted by the controller, never taken
	 * from an agent; judged over the windows of each scope like the rest */
	C("agents.expected", "agents", 0, "agent-windows", "agents x windows written"),
	C("agents.delivered", "agents", 0, "agent-windows", "agent-windows whose figures arrived whole"),
	{ "agents.delivered_ratio", "agents", GL_MK_RATIO, "agents.delivered", "agents.expected", 0, 0, "ratio", "agent-windows delivered / expected" },
	H("null.tick_lag_ms", "null", 1, "ms", "actual - scheduled time of the null workload's ticks"),
	C("null.ticks", "null", 0, "ticks", "ticks of the null workload"),
	/* recovery (per fault: docs/metrics.md, "Window health and recovery") */
	{ "recovery_s", "", GL_MK_RECOVERY, NULL, NULL, 0, 1, "s", "inject until hold windows meet the degraded targets" },
	{ "restore_s", "", GL_MK_RECOVERY, NULL, NULL, 0, 1, "s", "revert until hold windows meet the steady targets" },
};

const struct gl_metric_def *gl_catalog(size_t *n)
{
	*n = sizeof(catalog) / sizeof(catalog[0]);
	return catalog;
}

const struct gl_metric_def *gl_catalog_find(const char *name)
{
	for (size_t i = 0; i < sizeof(catalog) / sizeof(catalog[0]); i++)
		if (strcmp(catalog[i].name, name) == 0)
			return &catalog[i];
	return NULL;
}

int gl_edit_distance(const char *a, const char *b, int max)
{
	size_t la = strlen(a), lb = strlen(b);
	int prev[128], cur[128];

	if (la >= 127 || lb >= 127)
		return max + 1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int best;
		cur[0] = (int)i;
		best = cur[0];
		for (size_t j = 1; j <= lb; j++) {
			int c = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < c)
				c = prev[j] + 1;
			if (cur[j - 1] + 1 < c)
				c = cur[j - 1] + 1;
			cur[j] = c;
			if (c < best)
				best = c;
		}
		if (best > max)
			return max + 1;
		memcpy(prev, cur, sizeof(int) * (lb + 1));
	}
	return prev[lb];
}

static int parse_stat(const char *s, struct gl_target_name *out)
{
	char *end;
	double p;

	if (strlen(s) >= sizeof(out->stat))
		return -1;
	if (!strcmp(s, "min") || !strcmp(s, "max") || !strcmp(s, "mean") || !strcmp(s, "count")) {
		strcpy(out->stat, s);
		out->pct = -1;
		return 0;
	}
	if (s[0] != 'p' || !(s[1] >= '0' && s[1] <= '9'))
		return -1;
	p = strtod(s + 1, &end);
	if (*end || !isfinite(p) || p < 0 || p > 100)
		return -1;
	strcpy(out->stat, s);
	out->pct = p;
	return 0;
}

int gl_catalog_parse_target(const char *name, struct gl_target_name *out, char *why,
			    size_t why_len)
{
	const struct gl_metric_def *d = gl_catalog_find(name);
	const char *best = NULL;
	int best_d = 4;

	memset(out, 0, sizeof(*out));
	out->pct = -1;
	if (d) {
		/* A bare distribution name means its worst value: the max when
		 * lower is better, the min otherwise ("training.checkpoint.restore_s"). */
		if (d->kind == GL_MK_HIST)
			strcpy(out->stat, d->lower_is_better ? "max" : "min");
		out->def = d;
		return 0;
	}
	/* metric.stat: split at the last dot, but p99.9 contains a dot itself. */
	for (const char *dot = strrchr(name, '.'); dot; ) {
		char metric[128];
		size_t ml = (size_t)(dot - name);
		if (ml < sizeof(metric)) {
			memcpy(metric, name, ml);
			metric[ml] = '\0';
			d = gl_catalog_find(metric);
			if (d && d->kind == GL_MK_HIST && parse_stat(dot + 1, out) == 0) {
				out->def = d;
				return 0;
			}
			if (d) {
				snprintf(why, why_len, "'%s': '%s' %s", name, dot + 1,
					 d->kind == GL_MK_HIST
						 ? "is not a statistic (use p<N>, min, max, mean or count)"
						 : "takes no statistic");
				return -1;
			}
		}
		/* step back to the previous dot */
		{
			const char *p = dot - 1;
			while (p > name && *p != '.')
				p--;
			dot = (p > name) ? p : NULL;
		}
	}
	/* Suggest with the statistic the user wrote, when it is one. */
	{
		const char *dot = strrchr(name, '.');
		struct gl_target_name tmp;
		char stat[16] = "p99", full[160], best_full[160] = "";
		if (dot && strlen(dot + 1) < sizeof(stat) && parse_stat(dot + 1, &tmp) == 0)
			snprintf(stat, sizeof(stat), "%s", dot + 1);
		if (dot && !strncmp(dot + 1, "p99", 3) && strchr(name, '.') != dot) {
			/* "x.p99.9": the statistic starts at the dot before */
			const char *p = dot - 1;
			while (p > name && *p != '.')
				p--;
			if (*p == '.' && parse_stat(p + 1, &tmp) == 0 && strlen(p + 1) < sizeof(stat))
				snprintf(stat, sizeof(stat), "%s", p + 1);
		}
		for (size_t i = 0; i < sizeof(catalog) / sizeof(catalog[0]); i++) {
			int dd;
			if (catalog[i].kind == GL_MK_HIST)
				snprintf(full, sizeof(full), "%s.%s", catalog[i].name, stat);
			else
				snprintf(full, sizeof(full), "%s", catalog[i].name);
			dd = gl_edit_distance(name, full, 3);
			if (dd < best_d) {
				best_d = dd;
				best = catalog[i].name;
				snprintf(best_full, sizeof(best_full), "%s", full);
			}
		}
		if (best) {
			snprintf(why, why_len, "unknown metric '%s' (did you mean '%s'?)", name, best_full);
			return -1;
		}
	}
	if (best)
		snprintf(why, why_len, "unknown metric '%s' (did you mean '%s'?)", name, best);
	else
		snprintf(why, why_len, "unknown metric '%s' (see docs/metrics.md)", name);
	return -1;
}
