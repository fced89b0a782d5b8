/*
 * timeline.h - the run's schedule in scenario time: phase starts, fault
 * injects and reverts, and the end. Built once from a validated scenario,
 * sorted, and walked by the controller; `validate` prints it.
 *
 * What people are shown of it (validate, run --dry-run, report.md and
 * report.html: gl_timeline_rows) adds what the controller does not walk:
 * each workload's spikes (plugin.h's spikes hook) and the launch of load
 * agents before the clock starts.
 *
 * At equal times the order is: revert, phase start, inject, end, so that a
 * fault reverted at T frees its slot for one injected at T.
 */
#ifndef GL_TIMELINE_H
#define GL_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "plugin.h"
#include "scenario.h"

enum gl_tl_kind { GL_TL_REVERT, GL_TL_PHASE, GL_TL_INJECT, GL_TL_END };

struct gl_tl_event {
	int64_t t_ns; /* scenario time */
	enum gl_tl_kind kind;
	int index; /* phase or fault index */
};

/* The controller commits the open window every 500 ms of real time; a
 * window's row, with the phase in force then, is first written by the
 * first commit after the window opens (or by its close, if sooner). */
#define GL_COMMIT_INTERVAL_NS 500000000LL

/* *out is malloc'd; free it. */
int gl_timeline_build(const struct gl_scenario *s, struct gl_tl_event **out, int *n);
/* Real elapsed time at which scenario time t_ns happens under time_scale. */
int64_t gl_timeline_real_ns(int64_t t_ns, double time_scale);
void gl_timeline_print(const struct gl_scenario *s, double time_scale, FILE *f);

/* Every spike of every workload, in the workloads' and their sections'
 * order; *out malloc'd (NULL when none), free it. */
struct gl_tl_spike {
	int workload; /* index in s->workloads */
	int index; /* in the workload's section ("spikes[index]") */
	struct gl_load_spike sp;
	int64_t count; /* occurrences that start before the end */
};
int gl_timeline_spikes(const struct gl_scenario *s, struct gl_tl_spike **out, int *n);
/* Is a spike on at some time in [a_ns, b_ns)? (before the run's end) */
int gl_timeline_spike_in(const struct gl_tl_spike *t, int64_t a_ns, int64_t b_ns);
/* "workloads.storage.spikes[0]" */
void gl_timeline_spike_name(const struct gl_scenario *s, const struct gl_tl_spike *t, char *buf, size_t n);

/* The rows shown. A spike that repeats shows its first GL_TL_SPIKES_SHOWN
 * occurrences, then one row for the rest ("N more, the last at T"), so that
 * a week of hourly spikes stays a few lines. Agents' rows come first, at 0:
 * they are launched before the clock starts. */
#define GL_TL_SPIKES_SHOWN 3
enum gl_tl_row_kind { GL_TLR_AGENTS, GL_TLR_EVENT, GL_TLR_SPIKE, GL_TLR_SPIKES_MORE };
struct gl_tl_row {
	int64_t t_ns; /* scenario time */
	enum gl_tl_row_kind kind;
	char text[512]; /* what happens, one line */
};
/* *out malloc'd, sorted by time (at equal times: agents, revert, phase,
 * spike, inject, end); free it. */
int gl_timeline_rows(const struct gl_scenario *s, struct gl_tl_row **out, int *n);

#endif
