/*
 * training_steps.h - the training workload's rows in the store: one per
 * step rank 0 reported, a record type of the store's (store.h) in the
 * table train_steps.
 */
#ifndef GL_TRAINING_STEPS_H
#define GL_TRAINING_STEPS_H

#include <stdint.h>

#include "store.h"

/* launch counts the job's (re)launches in the run, from 1 */
struct gl_train_step {
	int64_t step, launch;
	double step_time_s, comm_time_s, data_time_s, busbw_gbps;
	int64_t correctness_errors;
};

extern const struct gl_record_type gl_train_steps;

/* The step's row in window, in the store's batch. */
int gl_train_step_put(struct gl_store *st, int64_t window, const struct gl_train_step *r);

#endif
