/*
 * training_analysis.c - what the analysis and the live view read of the
 * training workload (plugin.h): its incident kinds, a job that ended
 * early and correctness errors, and its live figure.
 */
#include <stdio.h>

#include "training_int.h"

#define ADD(...)                                                              \
	do {                                                                  \
		if ((size_t)k < cap)                                          \
			k += snprintf(out + k, cap - (size_t)k, __VA_ARGS__); \
	} while (0)

static void failure_text(const int64_t *n, char *out, size_t cap)
{
	int k = 0;

	ADD("%lld job end(s) no fault explains", (long long)n[0]);
	if (n[1])
		ADD(", %lld by the watchdog (hang)", (long long)n[1]);
	ADD("; %lld relaunch(es), %lld lost step(s), %lld step(s) done in the span", (long long)n[2], (long long)n[3],
	    (long long)n[4]);
}

static void correctness_text(const int64_t *n, char *out, size_t cap)
{
	snprintf(out, cap, "%lld correctness error(s) in %lld step(s)", (long long)n[0], (long long)n[1]);
}

#undef ADD

static const char *const failure_opens[] = { "training.job_failures", "training.hangs", NULL };
static const char *const correctness_opens[] = { "training.correctness_errors", NULL };

/* a job that ended early (exit, signal, watchdog) and correctness errors
 * count against the default limit: either means the run lost work */
const struct gl_incident_rule gl_training_incidents[] = {
	{ .name = "training.failure",
	  .order = 0,
	  .gated = 1,
	  .opens = failure_opens,
	  .counts = { "training.job_failures", "training.hangs", "training.relaunches", "training.lost_steps",
		      "training.steps" },
	  .text = failure_text },
	{ .name = "training.correctness",
	  .order = 1,
	  .gated = 1,
	  .opens = correctness_opens,
	  .counts = { "training.correctness_errors", "training.steps" },
	  .text = correctness_text },
	{ 0 },
};

const struct gl_live_figure gl_training_live_figures[] = {
	{ "training.step_time_s.p50", "step ", " s" },
	{ 0 },
};
