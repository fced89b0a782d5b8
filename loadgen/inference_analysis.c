/*
 * inference_analysis.c - what the analysis and the live view read of the
 * inference workload (plugin.h): its incident kind, a complete steady
 * window missing one of its targets, and its live figures.
 */
#include <stdio.h>

#include "inference_int.h"

static void targets_text(const int64_t *n, char *out, size_t cap)
{
	snprintf(out, cap, "%lld request(s), %lld error(s)", (long long)n[0], (long long)n[1]);
}

const struct gl_incident_rule gl_inference_incidents[] = {
	{ .name = "inference.targets",
	  .order = 2,
	  .steady_targets = 1,
	  .counts = { "inference.requests", "inference.errors" },
	  .text = targets_text },
	{ 0 },
};

const struct gl_live_figure gl_inference_live_figures[] = {
	{ "inference.throughput_rps", "", " req/s" },
	{ "inference.ttft_ms.p99", "p99 TTFT ", " ms" },
	{ "inference.error_rate", "errors ", "" },
	{ 0 },
};
