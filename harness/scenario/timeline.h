/*
 * timeline.h - the run's schedule in scenario time: phase starts, fault
 * injects and reverts, and the end. Built once from a validated scenario,
 * sorted, and walked by the controller; `validate` prints it.
 *
 * At equal times the order is: revert, phase start, inject, end, so that a
 * fault reverted at T frees its slot for one injected at T.
 */
#ifndef GL_TIMELINE_H
#define GL_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "scenario.h"

enum gl_tl_kind { GL_TL_REVERT, GL_TL_PHASE, GL_TL_INJECT, GL_TL_END };

struct gl_tl_event {
	int64_t t_ns;          /* scenario time */
	enum gl_tl_kind kind;
	int index;             /* phase or fault index */
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

#endif
