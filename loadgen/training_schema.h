/*
 * training_schema.h - the training workload's validate and targets hooks
 * (training_schema.c), named in its ops table (training.c).
 */
#ifndef GL_TRAINING_SCHEMA_H
#define GL_TRAINING_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

struct gl_target_need;

void gl_training_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);
/* its ops table's targets and fault_targets hooks (plugin.h) */
void gl_training_targets(const cJSON *w, struct gl_target_need *n);
void gl_training_fault_targets(const cJSON *w, struct gl_target_need *n);

/* The section's scalar keys with a fixed default (gl_training_opts_read);
 * np (the slots added up), dataset, launcher_path and binary have
 * defaults that depend on other keys, or none, and are read by hand. */
struct gl_training_opts {
	int launcher; /* 0 mpirun, 1 srun */
	int backend; /* mpi, nccl, nccl-tests; -1 unknown */
	uint64_t message, data_per_step;
	int64_t compute_ns, watchdog_ns, backoff_ns, heartbeat_ns;
	int64_t steps; /* 0: run until stopped */
	int max_restarts, correctness_every;
	char require_transport[64];
};
void gl_training_opts_read(const cJSON *w, struct gl_training_opts *o);

/* the section's option table (opts.h), which tests/unit/test_opts.c holds
 * against docs/scenario.md */
struct gl_opt;
const struct gl_opt *gl_training_options(size_t *n);

#endif
